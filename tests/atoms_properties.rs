//! Postconditions of the atom tilings, checked on random inputs (proptest).
//!
//! 1. make_tiled_copy: `raked_product(T, V)(TV(t, v)) == t + v * size(T)` for every thread t and
//!    value v (TV is the right inverse of the raked product, reshaped), and TV is a bijection onto
//!    the tile `0..size(Tiler_MN)`.
//! 2. make_tiled_mma: every thread index that ThrLayoutVMNK produces gets `partition_C` of the
//!    tile, and those parts cover every element of C exactly once; the C TV layout maps into the
//!    tile.
//! 3. Swizzle<B,M,S> is an involution that permutes each aligned block of 2^(M+B+|S|) integers.
//! 4. An SM90 RS atom's register fragment of A from a GMMA shared-memory tile `Sw o smem_ptr[B] o L`
//!    (the swizzle on the tensor's pointer) is the fragment of the plain tile L, the same for every
//!    thread (tensor_impl.hpp: make_fragment_like(Tensor) takes only tensor.layout(), which is L).

use proptest::prelude::*;

use cutecheck::engine::atom::copy_atom;
use cutecheck::engine::atom::lit;
use cutecheck::engine::atom::partition::mma_partition;
use cutecheck::engine::atom::tiled_copy::make_tiled_copy;
use cutecheck::engine::atom::tiled_mma::make_tiled_mma;
use cutecheck::engine::raked_product::raked_product;
use cutecheck::engine::swizzle::Swizzle;
use cutecheck::engine::{IntTuple, Layout};

fn pow2() -> impl Strategy<Value = i64> {
    (0u32..4).prop_map(|k| 1i64 << k)
}

/// A compact 2-D layout of the given extents, column- or row-major.
fn compact(m: i64, n: i64, row_major: bool) -> Layout {
    let shape = IntTuple::tuple([IntTuple::st(m), IntTuple::st(n)]);
    if row_major {
        Layout::row_major(shape).unwrap()
    } else {
        Layout::col_major(shape).unwrap()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn tiled_copy_tv_inverts_the_raked_product(tm in pow2(), tn in pow2(), vm in pow2(), vn in pow2(), tr in any::<bool>(), vr in any::<bool>()) {
        let (thr, val) = (compact(tm * 2, tn, tr), compact(vm, vn, vr));
        let atom = copy_atom("UniversalCopy<half_t>", "half_t").unwrap();
        let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
        let mn = raked_product(&thr, &val).unwrap();
        let (nt, nv) = (thr.size().unwrap().value, val.size().unwrap().value);
        let tile = tc.tiler.product().unwrap().value;
        prop_assert_eq!(tile, nt * nv);
        let mut seen = vec![false; tile as usize];
        for v in 0..nv {
            for t in 0..nt {
                let i = tc.tv.call(&IntTuple::tuple([IntTuple::dy(t), IntTuple::dy(v)])).unwrap().value;
                prop_assert!((0..tile).contains(&i));
                prop_assert!(!seen[i as usize], "{} hit twice", i);
                seen[i as usize] = true;
                prop_assert_eq!(mn.call_int(cutecheck::engine::Int::dy(i)).unwrap().value, t + v * nt);
            }
        }
    }

    #[test]
    fn tiled_mma_c_partitions_cover_the_tile(k in 0usize..6, am in pow2(), an in pow2()) {
        let atom = ["SM80_16x8x16_F32F16F16F32_TN", "SM80_8x8x4_F64F64F64F64_TN", "SM70_8x8x4_F32F16F16F32_NT",
                    "SM75_8x8x16_S32S8S8S32_TN", "SM80_16x8x8_F32TF32TF32F32_TN", "UniversalFMA<float>"][k];
        let layout = lit::layout(&format!("(_{am},_{an},_1):(_1,_{am},_0)")).unwrap();
        let m = make_tiled_mma(atom, Some(&layout), &[]).unwrap();
        let [tm, tn] = [0, 1].map(|i| m.tile_size(i).unwrap().value);
        let tile = compact(tm, tn, false);
        let mut threads = m.thr_layout_vmnk.values().unwrap();
        threads.sort();
        threads.dedup();
        let mut seen = vec![0u32; (tm * tn) as usize];
        for t in threads {
            let p = mma_partition(&m, 'C', &tile, t).unwrap();
            for v in p.layout.values().unwrap() {
                seen[(p.offset.value + v) as usize] += 1;
            }
        }
        prop_assert!(seen.iter().all(|&n| n == 1), "{} {:?}", atom, seen);
        for i in m.layout_c_tv().unwrap().values().unwrap() {
            prop_assert!((0..tm * tn).contains(&i));
        }
    }

    #[test]
    fn rs_fragment_of_a_gmma_smem_tile_is_its_plain_layouts(
        which in 0usize..3, k_major in any::<bool>(), sw in 0usize..4, blocks in 1i64..3, t in 0i64..256
    ) {
        use cutecheck::expr::{eval_str, Value};
        let (mma, elem, threads) = [
            ("make_tiled_mma(SM90_64x128x8_F32TF32TF32_RS_TN<>)", "tfloat32_t", 128),
            ("make_tiled_mma(SM90_64x128x8_F32TF32TF32_RS_TN<>,(_2,_1,_1))", "tfloat32_t", 256),
            ("make_tiled_mma(SM90_64x64x16_F16F16F16_RS<GMMA::Major::K,GMMA::Major::K>)", "half_t", 128),
        ][which];
        let atom = format!(
            "GMMA::Layout_{}_{}_Atom<{elem}>",
            if k_major { "K" } else { "MN" },
            ["SW128", "SW64", "SW32", "INTER"][sw]
        );
        let tile = format!("tile_to_shape({atom},(_{},_64))", 64 * blocks * (threads / 128));
        let printed = eval_str(&tile).unwrap().to_string();
        let plain = printed.rsplit(" o ").next().unwrap().to_string();
        prop_assert!(printed.contains("smem_ptr"), "{}", printed);
        let frag = |l: &str, thr: i64| match eval_str(&format!("mma_fragment_a({mma},{l},{thr})")) {
            Ok(Value::Layout(f)) => f,
            other => panic!("mma_fragment_a({mma},{l},{thr}): {other:?}"),
        };
        let (t, f) = (t % threads, frag(&tile, t % threads));
        prop_assert_eq!(&f, &frag(&plain, t));
        prop_assert_eq!(&f, &frag(&tile, 0));
    }

    #[test]
    fn swizzle_permutes_blocks(b in 0i64..4, m in 0i64..5, s_abs in 0i64..5, neg in any::<bool>(), base in 0i64..4) {
        let s_abs = s_abs.max(b);
        let s = if neg { -s_abs } else { s_abs };
        let sw = Swizzle::new(b, m, s).unwrap();
        let block = 1i64 << (m + b + s_abs);
        let mut seen = vec![false; block as usize];
        for x in 0..block {
            let y = sw.apply(base * block + x);
            prop_assert_eq!(sw.apply(y), base * block + x);
            prop_assert_eq!(y / block, base);
            seen[(y % block) as usize] = true;
        }
        prop_assert!(seen.iter().all(|&v| v));
    }
}
