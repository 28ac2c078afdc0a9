//! The postconditions of identity (coordinate) tensors (`engine::coord_tensor`) as properties.
//!
//! 1. Element `i` of `make_identity_tensor(S)` is the natural coordinate of `i` in `S`
//!    (tensor_impl.hpp: "Make a tensor that maps coordinates within a shape to themselves").
//! 2. A partition of an identity tensor (local_tile, local_partition, a TiledCopy's partition_S/D,
//!    a TiledMMA's partition_A/B/C, a slice `T(_,k)`) is a view of it: its element `j` is the
//!    coordinate, in S, of the element the same partition of a counting tensor over
//!    `make_layout(S)` holds at `j` (that partition's offset plus its layout at `j`, the
//!    column-major index of the coordinate). This is how kernels use them: sm80_mma_multistage.hpp
//!    predicates `tAcA(0,m,0)` against the residue, the tiled_copy_if tutorial
//!    `elem_less(c, shape_S)`, and CUTLASS test/unit/cute/cooperative_gemm_common.hpp partitions
//!    `make_identity_tensor(shape(gC))` with the same thread slice as the data.
//! 4. A divide of an identity tensor (logical, zipped, tiled, flat; a TMA coordinate tile's in the
//!    SM100 epilogue) keeps its iterator and is a view: element `j` is the tensor's element at
//!    the index the same divide of the compact layout of its shape holds at `j`
//!    (`engine::coord_tensor` postcondition 3), and so is a slice `D(T)(_, k)` of it.
//! 5. `lazy_transform_elem_less(C, S)` (`engine::lazy_transform`): element `j` of a tile of it is
//!    `elem_less` of the identity tile's element `j` and `S`, so a block of the tiled_copy_if
//!    tutorial's predicate tensor holds exactly its in-bounds coordinates as true.
//! 3. The parts of all threads of a TiledCopy or TiledMMA partition of an identity tensor whose
//!    shape the tiler divides hold every coordinate of S (each as often as the counting
//!    partitions hold its index).

use cutecheck::engine::coord_tensor::{check_identity, natural_coord};
use cutecheck::engine::scaled_basis::{same_point, BasisValue};
use cutecheck::engine::{Int, IntTuple};
use cutecheck::expr::eval::eval_str;
use cutecheck::expr::value::{AtomValue, Value};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "fixtures/proptest-regressions/identity_tensor.txt",
        ))),
        ..ProptestConfig::default()
    }
}

fn tensor(text: &str) -> cutecheck::engine::coord_tensor::CoordTensor {
    match eval_str(text) {
        Ok(Value::Atom(AtomValue::CoordTensor(t))) => t,
        other => panic!("{text}: expected an identity tensor, got {other:?}"),
    }
}

/// The indices a counting-tensor partition holds, `offset + L(j)` for each `j`.
fn counting(text: &str) -> Vec<i64> {
    match eval_str(text) {
        Ok(Value::Atom(AtomValue::Partition(p))) => (0..p.layout.size().unwrap().value)
            .map(|j| p.offset.value + p.layout.call_int(Int::dy(j)).unwrap().value)
            .collect(),
        Ok(Value::Layout(l)) => (0..l.size().unwrap().value).map(|j| l.call_int(Int::dy(j)).unwrap().value).collect(),
        other => panic!("{text}: expected a partition or layout, got {other:?}"),
    }
}

fn int(text: &str) -> i64 {
    match eval_str(text) {
        Ok(Value::Int(i)) => i.value,
        other => panic!("{text}: expected an integer, got {other:?}"),
    }
}

/// Postcondition 2: the identity partition `id` holds, at each `j`, the coordinate of index
/// `idx[j]` in `shape`.
fn same_elements(id: &str, idx: &[i64], shape: &IntTuple) -> Result<(), TestCaseError> {
    let t = tensor(id);
    prop_assert_eq!(t.size().unwrap().value as usize, idx.len(), "{}: size", id);
    for (j, &k) in idx.iter().enumerate() {
        let got = t.at_index(j as i64).unwrap();
        let want = natural_coord(k, shape).unwrap();
        prop_assert!(
            same_point(&got, &want),
            "{}: element {} is {}, the counting partition says {} = {}",
            id,
            j,
            got,
            k,
            want
        );
    }
    Ok(())
}

fn ext(n: i64, st: bool) -> String {
    if st {
        format!("_{n}")
    } else {
        n.to_string()
    }
}

fn shape_of(m: i64, n: i64) -> IntTuple {
    IntTuple::tuple([IntTuple::leaf(Int::dy(m)), IntTuple::leaf(Int::dy(n))])
}

/// The tiled copies and MMAs of the kernels (sm80 gmem copies, tiled_copy_if's, an SM80 MMA).
const COPIES: [(&str, i64, i64); 3] = [
    ("make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>{}, (_16,_8):(_8,_1), (_1,_8))", 16, 64),
    ("make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, float>{}, (_32,_8), (_4,_1))", 128, 8),
    ("make_tiled_copy(Copy_Atom<UniversalCopy<uint32_t>, half_t>{}, (_4,_8):(_8,_1), (_2,_1))", 8, 8),
];
const MMAS: [(&str, i64, i64); 2] = [
    ("make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, (_2,_2,_1))", 32, 16),
    ("make_tiled_mma(UniversalFMA<float,float,float>{}, (_8,_4,_1))", 8, 4),
];

proptest! {
    #![proptest_config(cfg(24))]

    /// Postcondition 1, on flat and nested shapes, static and dynamic.
    #[test]
    fn identity_tensor_maps_each_index_to_its_coordinate(m in 1i64..9, n in 1i64..9, k in 1i64..4, st in any::<bool>()) {
        for s in [format!("({},{})", ext(m, st), ext(n, st)), format!("(({},{}),{})", ext(m, st), ext(k, st), ext(n, st))] {
            let t = tensor(&format!("make_identity_tensor({s})"));
            let shape = eval_str(&s).unwrap().to_int_tuple().unwrap();
            prop_assert_eq!(check_identity(&shape, &t).unwrap(), None);
        }
    }

    /// Postcondition 2 for local_tile (with and without a projection) and slices.
    #[test]
    fn local_tile_of_an_identity_tensor_is_a_view(tm in 0usize..4, tn in 0usize..4, a in 1i64..4, b in 1i64..4, st in any::<bool>()) {
        let (tm, tn) = ([2i64, 4, 8, 16][tm], [2i64, 4, 8, 16][tn]);
        let (m, n) = (tm * a, tn * b);
        let s = format!("({},{})", ext(m, st), ext(n, st));
        let shape = shape_of(m, n);
        for i in 0..a {
            for j in 0..b {
                let tile = format!("(_{tm},_{tn})");
                let l = format!("make_layout({s})");
                let off = int(&format!("local_tile_offset({l},{tile},({i},{j}))"));
                let idx: Vec<i64> = counting(&format!("local_tile({l},{tile},({i},{j}))")).into_iter().map(|x| x + off).collect();
                same_elements(&format!("local_tile(make_identity_tensor({s}),{tile},({i},{j}))"), &idx, &shape)?;
                // The same tile through a projection of a rank-3 tiler (sgemm's Step<_1,X,_1>).
                same_elements(&format!("local_tile(make_identity_tensor({s}),(_{tm},_7,_{tn}),({i},5,{j}),(_1,_,_1))"), &idx, &shape)?;
                // A column of the tile: T(_,c).
                let col: Vec<i64> = idx[..tm as usize].iter().map(|x| x + m * (tn - 1)).collect();
                same_elements(&format!("local_tile(make_identity_tensor({s}),{tile},({i},{j}))(_,{})", tn - 1), &col, &shape)?;
            }
        }
    }

    /// Postcondition 2 for local_partition (with and without a projection).
    #[test]
    fn local_partition_of_an_identity_tensor_is_a_view(p in 0usize..3, q in 0usize..3, a in 1i64..4, b in 1i64..4, st in any::<bool>(), row in any::<bool>()) {
        let (p, q) = ([2i64, 4, 8][p], [2i64, 4, 8][q]);
        let (m, n) = (p * a, q * b);
        let s = format!("({},{})", ext(m, st), ext(n, st));
        let thr = if row { format!("(_{p},_{q}):(_{q},_1)") } else { format!("make_layout((_{p},_{q}))") };
        for t in 0..p * q {
            let l = format!("make_layout({s})");
            let off = int(&format!("local_partition_offset({l},{thr},{t})"));
            let idx: Vec<i64> = counting(&format!("local_partition({l},{thr},{t})")).into_iter().map(|x| x + off).collect();
            same_elements(&format!("local_partition(make_identity_tensor({s}),{thr},{t})"), &idx, &shape_of(m, n))?;
            let off = int(&format!("local_partition_offset({l},{thr},{t},(_1,_))"));
            let idx: Vec<i64> = counting(&format!("local_partition({l},{thr},{t},(_1,_))")).into_iter().map(|x| x + off).collect();
            same_elements(&format!("local_partition(make_identity_tensor({s}),{thr},{t},(_1,_))"), &idx, &shape_of(m, n))?;
        }
    }

    /// Postcondition 4: the four divides of a tile of an identity tensor, and a tile of the zipped one.
    #[test]
    fn divides_of_an_identity_tensor_are_views(tm in 0usize..3, tn in 0usize..3, a in 1i64..4, b in 1i64..4, st in any::<bool>(), i in 0i64..3) {
        use cutecheck::engine::coord_tensor::{check_divide, Divide};
        use cutecheck::engine::Tiler;
        let (tm, tn) = ([1i64, 2, 4][tm], [1i64, 2, 4][tn]);
        let (m, n) = (tm * a * 2, tn * b);
        let t = format!("local_tile(make_identity_tensor(({},{})),({},_{n}),({},0))", ext(4 * m, st), ext(n, st), ext(m, true), i % 4);
        let base = tensor(&t);
        let tile = format!("(_{tm},_{tn})");
        let tiler = Tiler::from_shape(&eval_str(&tile).unwrap().to_int_tuple().unwrap());
        for (f, d) in [("logical_divide", Divide::Logical), ("zipped_divide", Divide::Zipped), ("tiled_divide", Divide::Tiled), ("flat_divide", Divide::Flat)] {
            let r = tensor(&format!("{f}({t},{tile})"));
            prop_assert!(same_point(&r.iter, &base.iter), "{}: the iterator moved", f);
            prop_assert_eq!(check_divide(&base, d, &tiler, &r).unwrap(), None);
        }
        // A tile of the zipped divide is the same view as local_tile's.
        let k = (2 * a * b - 1).min(i);
        let z = tensor(&format!("zipped_divide({t},{tile})(_,{k})"));
        let lt = tensor(&format!("local_tile({t},{tile},({},{}))", k % (2 * a), k / (2 * a)));
        prop_assert_eq!(z.size().unwrap(), lt.size().unwrap());
        for j in 0..z.size().unwrap().value {
            prop_assert!(same_point(&z.at_index(j).unwrap(), &lt.at_index(j).unwrap()), "element {}", j);
        }
    }
    /// Postcondition 5: each block of the predicate tensor admits exactly its in-bounds coordinates.
    #[test]
    fn the_predicate_tensor_admits_the_in_bounds_coordinates(m in 1i64..40, n in 1i64..40, bm in 0usize..3, bn in 0usize..3, st in any::<bool>()) {
        let (bm, bn) = ([4i64, 8, 16][bm], [4i64, 8, 16][bn]);
        let s = format!("({},{})", ext(m, st), ext(n, st));
        for bx in 0..(m + bm - 1) / bm {
            for by in 0..(n + bn - 1) / bn {
                let e = format!("local_tile(lazy_transform_elem_less(make_identity_tensor({s}),{s}),(_{bm},_{bn}),({bx},{by}))");
                let p = match eval_str(&e) {
                    Ok(Value::Atom(AtomValue::Transform(p))) => p,
                    other => panic!("{e}: {other:?}"),
                };
                let c = tensor(&format!("local_tile(make_identity_tensor({s}),(_{bm},_{bn}),({bx},{by}))"));
                let mut trues = 0;
                for j in 0..bm * bn {
                    let v = p.at_index(j).unwrap();
                    let want = cutecheck::engine::lazy_transform::elem_less(&c.at_index(j).unwrap(), &shape_of(m, n)).unwrap();
                    prop_assert_eq!(v, want, "{}: element {}", e, j);
                    trues += i64::from(v);
                }
                prop_assert_eq!(trues, bm.min(m - bx * bm) * bn.min(n - by * bn), "{}", e);
            }
        }
    }
}

proptest! {
    #![proptest_config(cfg(10))]

    /// Postconditions 2 and 3 for TiledCopy partition_S/D and TiledMMA partition_A/B/C.
    #[test]
    fn atom_partitions_of_an_identity_tensor_are_views_covering_it(which in 0usize..5, a in 1i64..3, b in 1i64..3, src in any::<bool>(), step in 1i64..4) {
        let (x, tm, tn, ops): (&str, i64, i64, Vec<&str>) = if which < 3 {
            let (x, tm, tn) = COPIES[which];
            (x, tm, tn, vec![if src { "copy_partition_s" } else { "copy_partition_d" }])
        } else {
            let (x, tm, tn) = MMAS[which - 3];
            (x, tm, tn, vec!["mma_partition_c", "mma_partition_a", "mma_partition_b"])
        };
        let (m, n) = (tm * a, tn * b);
        let s = format!("(_{m},{n})");
        let threads = if which < 3 { [128i64, 256, 32][which] } else { [128i64, 32][which - 3] };
        for op in ops {
            let mut seen = vec![0usize; (m * n) as usize];
            let mut held = vec![0usize; (m * n) as usize];
            // Every `step`-th thread (all of them when step is 1): the covering check needs all.
            for t in (0..threads).filter(|t| t % step == 0) {
                let idx = counting(&format!("{op}({x}, make_layout({s}), {t})"));
                same_elements(&format!("{op}({x}, make_identity_tensor({s}), {t})"), &idx, &shape_of(m, n))?;
                let tt = tensor(&format!("{op}({x}, make_identity_tensor({s}), {t})"));
                for (j, &k) in idx.iter().enumerate() {
                    held[k as usize] += 1;
                    // Read the coordinate back to its index: (r, c) -> r + m c.
                    if let BasisValue::Tuple(v) = tt.at_index(j as i64).unwrap() {
                        let (BasisValue::Int(r), BasisValue::Int(c)) = (&v[0], &v[1]) else { panic!("{v:?}") };
                        seen[(r.value + m * c.value) as usize] += 1;
                    }
                }
            }
            prop_assert_eq!(&seen, &held, "{} of {} over {}", op, x, s);
            if step == 1 {
                prop_assert!(seen.iter().all(|&c| c > 0), "{} of {} over {}: a coordinate no thread holds", op, x, s);
            }
        }
    }
}

/// The picture of `cutecheck eval --svg FILE --threads N` (svg::owners_svg) puts thread `t`'s
/// element `j` on the cell of the coordinate the engine's counting partition gives it (each
/// coordinate held by one thread here), and the committed docs/identity_partition_mma_c.svg is
/// what the CLI draws today.
#[test]
fn the_partition_picture_puts_each_thread_on_its_coordinates() {
    let expr = "mma_partition_c(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_1,_1,_1>>{}), make_identity_tensor(make_shape(Int<16>{}, Int<16>{})), THR)";
    let svg = cutecheck::cli::owners_picture(expr, 32).unwrap();
    let lines: Vec<&str> = svg.lines().collect();
    let mut cells = 0;
    for t in 0..32 {
        let idx = counting(&expr.replace("THR", &t.to_string()).replace("make_identity_tensor", "make_layout"));
        for (j, k) in idx.into_iter().enumerate() {
            let (r, c) = (k % 16, k / 16);
            let rect = format!("<rect x=\"{}\" y=\"{}\" width=\"20\" height=\"20\"", (c + 1) * 20, (r + 1) * 20);
            let at = lines.iter().position(|l| l.starts_with(&rect)).unwrap_or_else(|| panic!("no cell for ({r},{c})"));
            assert!(lines[at + 1].contains(&format!(">T{t}<")), "({r},{c}): {}", lines[at + 1]);
            assert!(lines[at + 2].contains(&format!(">V{j}<")), "({r},{c}): {}", lines[at + 2]);
            cells += 1;
        }
    }
    assert_eq!(cells, 256);
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/identity_partition_mma_c.svg")).unwrap();
    assert_eq!(
        committed, svg,
        "docs/identity_partition_mma_c.svg is stale: redraw it with cutecheck eval --svg ... --threads 32"
    );
}
