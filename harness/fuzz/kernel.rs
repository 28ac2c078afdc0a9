//! Random kernel partitions (`fuzz::kernel_partition`), built by construction as the SM80/SM90
//! mainloops build them: a swizzled shared-memory atom (a GMMA `Layout_{K,MN}_{INTER,SW32,SW64,
//! SW128}_Atom<T>`, or an SM80-style `composition(Swizzle<B,M,3>, (8,C):(C,1))` with its M-major
//! transpose), tiled to a CTA tile of whole atoms with 1-4 pipeline stages (`tile_to_shape`), and
//! partitioned for one thread by a global-to-shared tiled copy of 128-bit vectors laid along the
//! contiguous mode (`make_tiled_copy(Copy_Atom<OP,T>{}, thr, val)`, threads arranged so the copy
//! tile divides the CTA tile): `copy_partition_s/d(COPY, sA, t)`, sometimes of one stage
//! `sA(_,_,s)`, in either spelling (the language's short one or CuTe's C++).
//!
//! Every case is admissible: the atom divides the tile (whole atoms per mode), the copy's tile
//! divides the CTA tile, the vector is one copy instruction's worth of values, the thread is one of
//! the copy's threads.

use proptest::prelude::*;

use super::Case;

/// Value types and their bits.
const TYPES: &[(&str, i64)] = &[("half_t", 16), ("bfloat16_t", 16), ("float", 32), ("tfloat32_t", 32), ("int8_t", 8)];

/// The GMMA atoms' row widths in bits.
const GMMA: &[(&str, i64)] = &[("INTER", 128), ("SW32", 256), ("SW64", 512), ("SW128", 1024)];

/// The 128-bit global-to-shared copy operations.
const COPIES: &[&str] =
    &["UniversalCopy<uint128_t>", "SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"];

/// One drawn kernel operand: the atom text (short, C++), its (M, K) extents, whether K is the
/// contiguous mode.
struct Atom {
    short: String,
    cpp: String,
    m: i64,
    k: i64,
    k_major: bool,
}

fn atom(ty: &str, bits: i64, gmma: Option<usize>, k_major: bool, b: i64) -> Atom {
    let major = if k_major { "K" } else { "MN" };
    if let Some(g) = gmma {
        let (sw, width) = GMMA[g];
        let n = width / bits;
        let (m, k) = if k_major { (8, n) } else { (n, 8) };
        let t = format!("GMMA::Layout_{major}_{sw}_Atom<{ty}>");
        return Atom { short: t.clone(), cpp: format!("{t}{{}}"), m, k, k_major };
    }
    // SM80: Swizzle<B, log2(values per 128 bits), 3> over 8 rows of 2^(B+M) values.
    let mbits = (128 / bits).trailing_zeros() as i64;
    let c = 1i64 << (b + mbits);
    let (m, k, short_l, cpp_l) = if k_major {
        (8, c, format!("(_8,_{c}):(_{c},_1)"), format!("Layout<Shape<_8,_{c}>,Stride<_{c},_1>>{{}}"))
    } else {
        (c, 8, format!("(_{c},_8):(_1,_{c})"), format!("Layout<Shape<_{c},_8>,Stride<_1,_{c}>>{{}}"))
    };
    Atom {
        short: format!("composition(Swizzle<{b},{mbits},3>,{short_l})"),
        cpp: format!("composition(Swizzle<{b},{mbits},3>{{}}, {cpp_l})"),
        m,
        k,
        k_major,
    }
}

/// A swizzled shared-memory tile partitioned by a tiled copy for one thread (module docs).
pub fn kernel_partition() -> BoxedStrategy<Case> {
    (
        prop::sample::select(TYPES.to_vec()),
        prop::option::weighted(0.6, 0usize..GMMA.len()),
        any::<bool>(),
        1i64..=3,
        (0u32..=2, 0u32..=2, 1i64..=4),
        (prop::sample::select(COPIES.to_vec()), 5u32..=7, any::<u32>()),
        (any::<bool>(), prop::option::weighted(0.25, any::<u32>()), any::<bool>()),
    )
        .prop_map(|((ty, bits), gmma, k_major, b, (mm, mk, stages), (op, log_threads, t), (src, stage, cpp))| {
            let a = atom(ty, bits, gmma, k_major, b);
            let (m, k) = (a.m << mm, a.k << mk);
            // The copy: V values (128 bits) along the contiguous mode, threads filling that mode's
            // extent / V (at most all of them), the rest along the other mode, dividing it.
            let v = 128 / bits;
            let contiguous = if a.k_major { k } else { m };
            let other = if a.k_major { m } else { k };
            let threads = 1i64 << log_threads;
            let along = (contiguous / v).clamp(1, threads);
            let across = (threads / along).min(other).max(1);
            let (tm, tk) = if a.k_major { (across, along) } else { (along, across) };
            let (vm, vk) = if a.k_major { (1, v) } else { (v, 1) };
            let thread = t as i64 % (tm * tk);
            // One stage of an SM80-style tile (`sA(_,_,s)`). (A stage of a GMMA tile is not drawn:
            // the slice of an INTER atom's zero-bit swizzle over smem_ptr is not modelled.)
            let s = stage.filter(|_| gmma.is_none()).map(|x| x as i64 % stages);
            let which = if src { "copy_partition_s" } else { "copy_partition_d" };
            let text = if cpp {
                let (thr, val) = if a.k_major {
                    (
                        format!("Layout<Shape<_{tm},_{tk}>,Stride<_{tk},_1>>{{}}"),
                        format!("Layout<Shape<_{vm},_{vk}>>{{}}"),
                    )
                } else {
                    (format!("Layout<Shape<_{tm},_{tk}>>{{}}"), format!("Layout<Shape<_{vm},_{vk}>>{{}}"))
                };
                let tile =
                    format!("tile_to_shape({}, make_shape(Int<{m}>{{}}, Int<{k}>{{}}, Int<{stages}>{{}}))", a.cpp);
                let tile = match s {
                    Some(s) => format!("{tile}(_, _, {s})"),
                    None => tile,
                };
                format!("{which}(make_tiled_copy(Copy_Atom<{op}, {ty}>{{}}, {thr}, {val}), {tile}, {thread})")
            } else {
                let thr =
                    if a.k_major { format!("(_{tm},_{tk}):(_{tk},_1)") } else { format!("(_{tm},_{tk}):(_1,_{tm})") };
                let val = format!("(_{vm},_{vk}):(_1,_{vm})");
                let tile = format!("tile_to_shape({},(_{m},_{k},_{stages}))", a.short);
                let tile = match s {
                    Some(s) => format!("{tile}(_,_,{s})"),
                    None => tile,
                };
                format!("{which}(make_tiled_copy(copy_atom({op},{ty}),{thr},{val}),{tile},{thread})")
            };
            Case::new(which, text, true)
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;

    /// Every drawn kernel partition is one the engine answers (a partition of a swizzled tile, no
    /// refusal), and the copy tile divides the CTA tile by construction.
    #[test]
    fn kernel_partitions_are_answered() {
        let mut r = super::super::runner(11);
        let s = kernel_partition();
        let mut spellings = [0usize; 2];
        for _ in 0..300 {
            let c = s.new_tree(&mut r).expect("tree").current();
            assert!(c.admissible);
            spellings[usize::from(c.expr.contains("make_shape("))] += 1;
            let v = crate::expr::eval_str(&c.expr).unwrap_or_else(|e| panic!("{}: {e}", c.expr));
            let shown = v.to_string();
            assert!(shown.contains(" o "), "{}: {shown}", c.expr);
            assert!(c.features.iter().any(|f| f == "swizzle" || f == "gmma-smem-atom"), "{}: {:?}", c.expr, c.features);
        }
        assert!(spellings.iter().all(|&n| n > 50), "{spellings:?}");
    }

    /// The form is in the random mix: a run of 1500 cases draws kernel partitions of both kinds.
    #[test]
    fn kernel_partitions_are_in_the_mix() {
        let all = super::super::cases(5, 1500, (0, 1));
        for op in ["copy_partition_s", "copy_partition_d"] {
            let n = all.iter().filter(|(_, c)| c.op == op && c.expr.contains("tile_to_shape")).count();
            assert!(n >= 3, "{op}: {n} kernel partitions in 1500 cases");
        }
    }

    /// A register fragment of a swizzled tile is the fragment of its layout_b (swizzle_layout.hpp:
    /// make_fragment_like(ComposedLayout) is make_fragment_like(layout.layout_b())), for every SM80
    /// MMA, swizzled atom, tile, stage and thread drawn, where the swizzled slice is modelled and
    /// where it is not (a MixedBits offset).
    #[test]
    fn a_register_fragment_of_a_swizzled_tile_is_its_layout_bs() {
        const MMAS: &[(&str, &str)] = &[
            ("SM80_16x8x16_F32F16F16F32_TN", "half_t"),
            ("SM80_16x8x8_F32TF32TF32F32_TN", "tfloat32_t"),
            ("SM80_16x8x32_S32S8S8S32_TN", "int8_t"),
        ];
        let mut r = super::super::runner(3);
        let draw = (
            prop::sample::select(MMAS.to_vec()),
            any::<bool>(),
            1i64..=3,
            (0u32..=2, 0u32..=1, 1i64..=3, any::<u32>(), any::<bool>()),
        );
        let mut fallbacks = 0;
        for _ in 0..60 {
            let ((mma, ty), k_major, b, (mm, mk, stages, t, which_a)) = draw.new_tree(&mut r).expect("tree").current();
            let bits = super::TYPES.iter().find(|(n, _)| *n == ty).map_or(16, |x| x.1);
            let a = atom(ty, bits, None, k_major, b);
            let (m, k) = (a.m << (mm + 1), a.k << mk);
            let plain =
                a.short.split_once(',').map(|(_, l)| l.trim_end_matches(')').to_string()).expect("composition(Sw,L)");
            let tiled = |atom: &str| format!("tile_to_shape({atom},(_{m},_{k},_{stages}))(_,_,0)");
            let op = if which_a { "mma_fragment_a" } else { "mma_fragment_b" };
            let tiled_mma = format!("make_tiled_mma({mma},(_2,_2,_1))");
            let thread = t % 128;
            let sw = crate::expr::eval_str(&format!("{op}({tiled_mma},{},{thread})", tiled(&a.short)));
            let lb = crate::expr::eval_str(&format!("{op}({tiled_mma},{},{thread})", tiled(&plain)));
            match (sw, lb) {
                (Ok(x), Ok(y)) => assert_eq!(x.to_string(), y.to_string(), "{} / {plain}", a.short),
                (Err(e), _) | (_, Err(e)) => {
                    // A tile the MMA does not divide is refused for both.
                    assert!(!e.to_string().contains("not modelled"), "{}: {e}", a.short);
                }
            }
            // Where the swizzled partition itself is not modelled, the fragment took layout_b's.
            let part = if which_a { "mma_partition_a" } else { "mma_partition_b" };
            let p = crate::expr::eval_str(&format!("{part}({tiled_mma},{},{thread})", tiled(&a.short)));
            // ... and where the swizzled partition keeps the swizzle with a MixedBits offset.
            fallbacks += usize::from(p.is_ok_and(|v| v.to_string().contains(" o M_")));
        }
        assert!(fallbacks > 0, "no drawn tile kept its swizzle with a MixedBits offset");
    }
}
