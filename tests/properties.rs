//! Every numbered postcondition of the layout algebra (the `check_postconditions` functions of the
//! engine's modules) as a proptest property on random layouts from `cutecheck::gen`, plus the
//! relations between the operations (divide = composition with (B, complement), zipped/tiled/flat
//! are regroupings, static inputs give static results) and a parser robustness property.
//! Failures are persisted under fixtures/proptest-regressions/.

use cutecheck::engine::local_partition::local_partition_with_offset;
use cutecheck::engine::local_tile::local_tile_with_offset;
use cutecheck::engine::postcondition::cute_only;
use cutecheck::engine::slice::{self, Coord};
use cutecheck::engine::{blocked_product, coalesce, complement, composition, filter, flat_divide, flat_product};
use cutecheck::engine::{left_inverse, logical_divide, logical_product, max_common, raked_product, right_inverse};
use cutecheck::engine::{tiled_divide, tiled_product, zipped_divide, zipped_product};
use cutecheck::engine::{Error, Int, IntTuple, Layout, Tiler};
use cutecheck::expr::Op;
use cutecheck::gen::{small_compact, small_layout, Staticness};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

use Staticness::{AllDynamic, AllStatic, Mixed};

fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "fixtures/proptest-regressions/properties.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// Every operation (`cutecheck::expr::Op::ALL`), spelled as a call (`upcast<2>` for one that takes
/// template arguments).
fn table_ops() -> Vec<String> {
    Op::ALL.iter().map(|o| format!("{}{}", o.name(), if o.targs().is_some() { "<2>" } else { "" })).collect()
}

#[test]
fn the_never_panic_property_covers_the_table() {
    let ops = table_ops();
    assert_eq!(ops.len(), Op::ALL.len());
    assert!(ops.iter().any(|o| o == "composition") && ops.iter().any(|o| o == "upcast<2>"), "{ops:?}");
}

fn all_static(l: &Layout) -> bool {
    l.shape.is_static() && l.stride.is_static()
}

fn any_st() -> impl Strategy<Value = Staticness> {
    prop_oneof![Just(AllStatic), Just(AllDynamic), Just(Mixed)]
}

/// A layout of any static-ness: arbitrary (strides may repeat or be zero) or compact.
fn any_layout() -> BoxedStrategy<Layout> {
    any_st()
        .prop_flat_map(|st| prop_oneof![small_layout(4, 24, st), small_compact(4, 1, st), small_compact(4, 2, st)])
        .boxed()
}

/// A tiler for `a`: per mode (up to its rank) `_`, a static divisor of the mode's size, or a small
/// layout; or a single layout / integer.
fn tiler_for(a: &Layout) -> BoxedStrategy<Tiler> {
    let sizes: Vec<i64> = a.modes().iter().map(|m| m.size().map(|s| s.value).unwrap_or(1)).collect();
    let per_mode = |n: i64| -> BoxedStrategy<Tiler> {
        let divs: Vec<i64> = (1..=n).filter(|d| n % d == 0).collect();
        prop_oneof![
            1 => Just(Tiler::Underscore),
            3 => prop::sample::select(divs).prop_map(|d| Tiler::Int(Int::st(d))),
            1 => small_layout(3, 4, AllStatic).prop_map(Tiler::Layout),
        ]
        .boxed()
    };
    let total: i64 = sizes.iter().product();
    let tuple = (1..=sizes.len())
        .prop_flat_map(move |k| sizes[..k].iter().map(|&n| per_mode(n)).collect::<Vec<_>>())
        .prop_map(Tiler::Tuple);
    let divs: Vec<i64> = (1..=total.max(1)).filter(|d| total % d == 0).collect();
    prop_oneof![
        3 => tuple,
        1 => prop::sample::select(divs).prop_map(|d| Tiler::Int(Int::st(d))),
        1 => small_compact(3, 1, AllStatic).prop_map(Tiler::Layout),
    ]
    .boxed()
}

fn with_tiler(st: Staticness) -> BoxedStrategy<(Layout, Tiler)> {
    prop_oneof![small_compact(4, 1, st), small_layout(4, 12, st)]
        .prop_flat_map(|a| {
            let t = tiler_for(&a);
            (Just(a), t)
        })
        .boxed()
}

fn tiler_static(t: &Tiler) -> bool {
    match t {
        Tiler::Layout(l) => all_static(l),
        Tiler::Int(i) => i.is_static,
        Tiler::Underscore => true,
        Tiler::Tuple(v) => v.iter().all(tiler_static),
    }
}

/// Errors CuTe raises at compile time (static_assert) or that the engine raises instead of
/// printing a layout that breaks the definition; anything else is a bug.
fn expected_refusal(e: &Error) -> bool {
    !matches!(e, Error::Type(_) | Error::OutOfRange(_))
}

proptest! {
    #![proptest_config(cfg(256))]

    // coalesce 1-4; static inputs give static results.
    #[test]
    fn coalesce_postconditions(l in any_layout()) {
        let r = coalesce::coalesce(&l).unwrap();
        prop_assert_eq!(coalesce::check_postconditions(&l, &r), Ok(()));
        if all_static(&l) {
            prop_assert!(all_static(&r), "{} -> {}", l, r);
        }
        // coalesce_x keeps the function on the domain too (and beyond, on the next size(l)).
        let x = coalesce::coalesce_x(&l).unwrap();
        for i in 0..2 * l.size().unwrap().value {
            prop_assert_eq!(x.call_int(Int::dy(i)).unwrap().value, l.call_int(Int::dy(i)).unwrap().value);
        }
    }

    // coalesce(L, profile): the selected modes are coalesced one by one, the others untouched.
    #[test]
    fn coalesce_by_profile(l in any_layout(), k in 1usize..=3) {
        let k = k.min(l.rank());
        let profile = IntTuple::tuple(vec![IntTuple::st(1); k]);
        let r = coalesce::coalesce_by(&l, &profile).unwrap();
        prop_assert_eq!(r.rank(), l.rank());
        for (i, (m, rm)) in l.modes().iter().zip(r.modes()).enumerate() {
            if i < k {
                prop_assert_eq!(&coalesce::coalesce(m).unwrap(), &rm);
            } else {
                prop_assert_eq!(m, &rm);
            }
        }
    }

    // filter_zeros 1-2, filter 1-3.
    #[test]
    fn filter_postconditions(l in any_layout()) {
        let z = filter::filter_zeros(&l).unwrap();
        prop_assert_eq!(filter::check_filter_zeros(&l, &z), Ok(()));
        let f = filter::filter(&l).unwrap();
        prop_assert_eq!(filter::check_postconditions(&l, &f), Ok(()));
    }

    // composition 1-2 whenever the engine answers; refusals are CuTe's conditions or Undefined;
    // static inputs give static results.
    #[test]
    fn composition_postconditions(a in any_layout(), b in small_layout(4, 12, Mixed)) {
        match composition::composition(&a, &b) {
            Ok(r) => {
                prop_assert_eq!(composition::check_postconditions(&a, &b, &r), Ok(()));
                if all_static(&a) && all_static(&b) {
                    prop_assert!(all_static(&r), "{} o {} = {}", a, b, r);
                }
            }
            Err(e) => {
                prop_assert!(expected_refusal(&e), "{}", e);
                if let Error::Undefined { .. } = e {
                    let u = composition::composition_unchecked(&a, &b).unwrap();
                    prop_assert!(composition::check_postconditions(&a, &b, &u).is_err());
                }
            }
        }
    }

    // composition with a layout of the same size as a compact A and compact itself is always
    // defined; with the identity of size(A) it reproduces A as a function.
    #[test]
    fn composition_identity(a in prop_oneof![small_compact(4, 1, AllStatic), small_layout(4, 24, AllStatic)]) {
        let n = a.size().unwrap();
        let id = Layout::col_major(IntTuple::leaf(n)).unwrap();
        let r = composition::composition(&a, &id).unwrap();
        for i in 0..n.value {
            prop_assert_eq!(r.call_int(Int::dy(i)).unwrap().value, a.call_int(Int::dy(i)).unwrap().value);
        }
    }

    // Right distributivity: A o (B0, B1) == (A o B0, A o B1).
    #[test]
    fn composition_distributes(a in any_layout(), b0 in small_layout(3, 6, Mixed), b1 in small_layout(3, 6, Mixed)) {
        let b = Layout::concat(&[b0.clone(), b1.clone()]);
        if let (Ok(r), Ok(r0), Ok(r1)) = (composition::composition(&a, &b), composition::composition(&a, &b0), composition::composition(&a, &b1)) {
            prop_assert_eq!(r, Layout::concat(&[r0, r1]));
        }
    }

    // composition with a tiler: postconditions mode by mode.
    #[test]
    fn composition_tiler_postconditions((a, t) in with_tiler(Mixed)) {
        match composition::composition_tiler(&a, &t) {
            Ok(r) => prop_assert_eq!(composition::check_tiler(&a, &t, &r), Ok(())),
            Err(e) => prop_assert!(expected_refusal(&e), "{}", e),
        }
    }

    // complement 1-3; for a compact (injective, static) layout it is always defined.
    #[test]
    fn complement_postconditions(a in prop_oneof![small_compact(4, 1, AllStatic), small_compact(3, 2, AllStatic), small_layout(3, 8, Mixed)], k in 1i64..=3) {
        let cot = IntTuple::leaf(Int::st(a.size().unwrap().value * k * 2));
        let compact = all_static(&a) && {
            let mut v = a.values().unwrap();
            v.sort_unstable();
            v.dedup();
            v.len() as i64 == a.size().unwrap().value
        };
        match complement::complement(&a, Some(&cot)) {
            Ok(r) => {
                // The engine promises CuTe's definition; an admissible (compact) layout meets ours too.
                let checked = complement::check_postconditions(&a, Some(&cot), &r);
                prop_assert_eq!(if compact { checked } else { cute_only(checked) }, Ok(()));
                if all_static(&a) {
                    prop_assert!(all_static(&r), "complement({}) = {}", a, r);
                }
            }
            Err(e) => {
                prop_assert!(expected_refusal(&e), "{}", e);
                // Only layouts with holes between strides can be refused when static.
                let refused_compact = compact && a.values().unwrap().iter().max() == Some(&(a.size().unwrap().value - 1));
                prop_assert!(!refused_compact, "complement({}, {}) refused: {}", a, cot, e);
            }
        }
    }

    // logical_divide 1-3; the divide is the composition with (B, complement(B, shape(coalesce(A)))).
    #[test]
    fn logical_divide_postconditions((a, t) in with_tiler(Mixed)) {
        match logical_divide::logical_divide(&a, &t) {
            Ok(r) => {
                prop_assert_eq!(cute_only(logical_divide::check_postconditions(&a, &t, &r)), Ok(()));
                if let Some(b) = t.as_layout() {
                    let cot = coalesce::coalesce(&a).unwrap().shape;
                    let c = complement::complement_unchecked(&b, Some(&cot)).unwrap();
                    prop_assert_eq!(&r, &composition::composition(&a, &Layout::concat(&[b, c])).unwrap());
                }
                if all_static(&a) && tiler_static(&t) {
                    prop_assert!(all_static(&r), "logical_divide({}, {}) = {}", a, t, r);
                }
            }
            Err(e) => prop_assert!(expected_refusal(&e), "{}", e),
        }
    }

    // Dividing a column-major layout by static divisors of its modes' sizes (or `_`) is always
    // defined, and static in, static out.
    #[test]
    fn divide_by_divisors_is_defined(a in small_compact(4, 1, AllStatic), picks in prop::collection::vec(0usize..8, 3)) {
        let a = Layout::col_major(a.shape).unwrap();
        let t = Tiler::Tuple(a.modes().iter().zip(&picks).map(|(m, &p)| {
            let n = m.size().unwrap().value;
            let divs: Vec<i64> = (1..=n).filter(|d| n % d == 0).collect();
            if p == 7 { Tiler::Underscore } else { Tiler::Int(Int::st(divs[p % divs.len()])) }
        }).collect());
        let r = logical_divide::logical_divide(&a, &t).unwrap();
        prop_assert_eq!(logical_divide::check_postconditions(&a, &t, &r), Ok(()));
        prop_assert!(all_static(&r), "logical_divide({}, {}) = {}", a, t, r);
        prop_assert_eq!(r.size().unwrap().value, a.size().unwrap().value);
    }

    // complement with a shape as cotarget (CuTe folds ceil_div over its modes).
    #[test]
    fn complement_tuple_cotarget(a in small_compact(3, 1, AllStatic), extra in prop::collection::vec(1i64..=3, 1..=2)) {
        let mut modes = vec![IntTuple::leaf(a.size().unwrap())];
        modes.extend(extra.iter().map(|&x| IntTuple::st(x)));
        let cot = IntTuple::tuple(modes);
        let r = complement::complement(&a, Some(&cot)).unwrap();
        prop_assert_eq!(complement::check_postconditions(&a, Some(&cot), &r), Ok(()));
    }

    // zipped/tiled/flat_divide regroup logical_divide: same size and image; tiled and flat are the
    // zipped layout with modes unpacked, so the same 1-D function.
    #[test]
    fn divides_regroup((a, t) in with_tiler(Mixed)) {
        if let Ok(l) = logical_divide::logical_divide(&a, &t) {
            match zipped_divide::zipped_divide(&a, &t) {
                Ok(z) => {
                    let (mut lv, mut zv) = (l.values().unwrap(), z.values().unwrap());
                    lv.sort_unstable();
                    zv.sort_unstable();
                    prop_assert_eq!(lv, zv);
                    let zv = z.values().unwrap();
                    prop_assert_eq!(&tiled_divide::tiled_divide(&a, &t).unwrap().values().unwrap(), &zv);
                    prop_assert_eq!(&flat_divide::flat_divide(&a, &t).unwrap().values().unwrap(), &zv);
                }
                // zip2_by needs rank-2 modes where the tiler has `_` or a tuple on a leaf mode.
                Err(e) => prop_assert!(matches!(e, Error::MismatchedRanks { .. }), "{}", e),
            }
        }
    }

    // logical_product 1-3 and the regroupings.
    #[test]
    fn logical_product_postconditions(a in small_compact(3, 1, Mixed), b in small_layout(3, 4, Mixed)) {
        let t = Tiler::Layout(b);
        match logical_product::logical_product(&a, &t) {
            Ok(r) => {
                prop_assert_eq!(cute_only(logical_product::check_postconditions(&a, &t, &r)), Ok(()));
                let z = zipped_product::zipped_product(&a, &t).unwrap();
                prop_assert_eq!(&z, &r);
                prop_assert_eq!(tiled_product::tiled_product(&a, &t).unwrap().values().unwrap(), r.values().unwrap());
                prop_assert_eq!(flat_product::flat_product(&a, &t).unwrap().values().unwrap(), r.values().unwrap());
            }
            Err(e) => prop_assert!(expected_refusal(&e), "{}", e),
        }
    }

    // logical_product with a tuple tiler, mode by mode.
    #[test]
    fn logical_product_by_mode((a, t) in with_tiler(AllStatic)) {
        match logical_product::logical_product(&a, &t) {
            Ok(r) => prop_assert_eq!(cute_only(logical_product::check_postconditions(&a, &t, &r)), Ok(())),
            Err(e) => prop_assert!(expected_refusal(&e), "{}", e),
        }
    }

    // blocked_product / raked_product 1-2.
    #[test]
    fn blocked_raked_postconditions(a in small_compact(3, 1, Mixed), b in small_compact(3, 1, Mixed)) {
        if let Ok(r) = blocked_product::blocked_product(&a, &b) {
            prop_assert_eq!(blocked_product::check_blocked(&a, &b, &r, false), Ok(()));
        }
        if let Ok(r) = raked_product::raked_product(&a, &b) {
            prop_assert_eq!(blocked_product::check_blocked(&a, &b, &r, true), Ok(()));
        }
    }

    // right_inverse 1-2 on any layout.
    #[test]
    fn right_inverse_postconditions(l in any_layout()) {
        let r = right_inverse::right_inverse(&l).unwrap();
        prop_assert_eq!(right_inverse::check_postconditions(&l, &r), Ok(()));
    }

    // left_inverse 1-2 on injective static layouts (compact, possibly scaled).
    #[test]
    fn left_inverse_postconditions(l in prop_oneof![small_compact(4, 1, AllStatic), small_compact(4, 3, AllStatic)]) {
        let r = left_inverse::left_inverse(&l).unwrap();
        prop_assert_eq!(left_inverse::check_postconditions(&l, &r), Ok(()));
    }

    // max_common_layout 1 and max_common_vector 2; the vector is the layout's size.
    #[test]
    fn max_common_postconditions(a in small_compact(4, 1, Mixed), b in small_compact(4, 1, Mixed)) {
        if let (Ok(r), Ok(n)) = (max_common::max_common_layout(&a, &b), max_common::max_common_vector(&a, &b)) {
            prop_assert_eq!(max_common::check_layout(&a, &b, &r), Ok(()));
            prop_assert_eq!(max_common::check_vector(&a, &b, n), Ok(()));
            prop_assert_eq!(r.size().unwrap().value, n.value);
        }
        let self_n = max_common::max_common_vector(&a, &a).unwrap();
        prop_assert!(self_n.value >= 1);
    }

    // local_tile / local_partition: the slice plus the offset is the zipped divide at the full
    // coordinate.
    #[test]
    fn local_tile_and_partition(a in small_compact(4, 1, AllStatic), pick in 0usize..64) {
        // Column-major, so that every divisor of a mode's size tiles it (a mode like (_4,_3):(_3,_1)
        // divided by _6 is refused with the Shape Divisibility Condition, as in CuTe).
        let a = Layout::col_major(a.shape).unwrap();
        let shape_tiler = Tiler::Tuple(a.modes().iter().map(|m| {
            let n = m.size().unwrap().value;
            let divs: Vec<i64> = (1..=n).filter(|d| n % d == 0).collect();
            Tiler::Int(Int::st(divs[pick % divs.len()]))
        }).collect());
        let z = zipped_divide::zipped_divide(&a, &shape_tiler).unwrap();
        let rest = z.mode(1).unwrap();
        let coord = Coord::Tuple(rest.modes().iter().map(|m| Coord::Int(Int::dy(pick as i64 % m.size().unwrap().value))).collect());
        let (r, off) = local_tile_with_offset(&a, &shape_tiler, &coord).unwrap();
        let full = Coord::Tuple(vec![if z.mode(0).unwrap().rank() > 1 { Coord::Tuple(vec![Coord::Under; z.mode(0).unwrap().rank()]) } else { Coord::Under }, coord]);
        prop_assert_eq!(slice::check_postconditions(&z, &full, &r, off), Ok(()));
        // local_partition with a thread layout shaped like the tiler.
        let thr = shape_tiler.to_layout().unwrap();
        let thr = Layout::col_major(thr.shape).unwrap();
        let idx = pick as i64 % thr.size().unwrap().value;
        let (p, poff) = local_partition_with_offset(&a, &thr, Int::dy(idx)).unwrap();
        prop_assert_eq!(p.size().unwrap().value * thr.size().unwrap().value, a.size().unwrap().value);
        let _ = poff;
    }
}

proptest! {
    #![proptest_config(cfg(256))]

    // The parser and evaluator never panic on arbitrary text.
    #[test]
    fn eval_never_panics(s in "\\PC{0,40}") {
        let _ = cutecheck::expr::eval_str(&s);
    }

    // ... nor on calls of any operation of the table with arbitrary small arguments.
    #[test]
    fn table_calls_never_panic(
        op in prop::sample::select(table_ops()),
        args in prop::collection::vec(prop_oneof![
            small_layout(5, 40, Mixed).prop_map(|l| l.to_string()),
            "-?[0-9]{1,3}".prop_map(|s| s.to_string()),
            "_-?[0-9]{1,2}".prop_map(|s| s.to_string()),
            Just("_".to_string()),
            Just("(_2,_)".to_string()),
        ], 0..=3),
    ) {
        let _ = cutecheck::expr::eval_str(&format!("{op}({})", args.join(",")));
    }
}
