//! `make_layout_like(L)` and `make_fragment_like(L)` (layout.hpp): compact layouts of `L`'s shape
//! whose strides follow the order of `L`'s strides, the shapes of the register fragments that
//! `make_tensor_like` / `make_fragment_like` / `partition_fragment_A/B` allocate.
//!
//! Definitions (CuTe 4.2, cute/layout.hpp):
//! - `make_layout_like(L) = make_layout(shape(L), compact_order(filter_zeros(stride(L),
//!   shape(L)), stride(L)))`: the extents paired with a static `_0` stride become `_1` (so their
//!   strides stay `_0`), and the strides are compact in the order of `L`'s strides (dynamic ones
//!   count as larger than every static one, left to right).
//! - `make_fragment_like(L)`: for a static shape of rank R > 1, `tiled_product(make_layout(get<0>(
//!   shape), compact_major<LayoutLeft>(filter_zeros(get<0>(stride), get<0>(shape)))),
//!   make_ordered_layout(take<1,R>(shape), take<1,R>(stride)))`: mode 0 column-major (its `_0`
//!   strides kept), the other modes after it in the order of their strides; otherwise
//!   `make_layout(shape(L))`.
//!
//! Before 3.5 ([`crate::release::MAKE_LAYOUT_LIKE_BY_COMPACT_ORDER`]; v3.4.1 and v3.3.0
//! cute/layout.hpp, the same in both):
//! - `make_layout_like(L)`: where a top-level mode of `L`'s stride is a static `_0` (`any_of` over
//!   the stride's modes, not their leaves), `make_layout(shape(L), compact_col_major(filter_zeros(
//!   stride(L), shape(L))))`: column-major, whatever the order of the other strides; else, for a
//!   static shape and stride, `make_ordered_layout(shape(L), stride(L))` (no filter_zeros: a nested
//!   `_0` stride is the smallest order); else `make_layout(shape(L))`.
//! - `make_fragment_like(L)`: for rank R > 1 with a static shape *and stride*,
//!   `tiled_product(make_layout(get<0>(shape)), make_ordered_layout(take<1,R>(L)))` (mode 0
//!   column-major, its `_0` strides not kept); otherwise `make_layout(shape(L))`.
//!
//! Postconditions (checked by [`check_postconditions`]):
//! 1. `R` has the extents of `L`, in order (`make_layout_like`: the same shape; `make_fragment_like`:
//!    the tiled product of mode 0 and the rest, which for a rank-2 `L` nests the second mode one
//!    level deeper) [both definitions];
//! 2. where `L` has a static `_0` stride in mode 0 (everywhere, for `make_layout_like`), `R` has
//!    `_0` there [layout.hpp: "Static-0 strides in the input @a layout are preserved in the
//!    output"]; before 3.5 only for `make_layout_like` of an `L` with a top-level `_0` stride
//!    ("If there are static-0 strides, then make a col-major layout that keeps those 0s");
//! 3. where the static strides that order `L`'s extents are distinct (equal strides are equal orders, which
//!    `compact_order` gives one start), `R` is compact on the rest: its values are exactly `0..n`,
//!    each once, where `n` is the product of the extents whose stride in `R` is not 0
//!    [layout.hpp: "Make a compact layout"].

use super::error::Result;
use super::int::Int;
use super::int_tuple::{IntTuple, Tup, View};
use super::layout::Layout;
use super::postcondition::{Checked, Violation};
use super::tile_to_shape::{compact_order, make_ordered_layout, Order};
use super::tiler::Tiler;

const CITE: &str =
    "layout.hpp make_layout_like / make_fragment_like: a compact layout of the same shape, strides in the order of the input's, static-0 strides preserved";

/// CuTe's `filter_zeros(stride, shape)` on int tuples: `_1` where the stride is a static `_0`.
fn filter_zeros(stride: &Tup, shape: &Tup) -> IntTuple {
    match (stride.view(), shape.view()) {
        (View::Tuple(ds), View::Tuple(ss)) => {
            IntTuple::tuple(ds.iter().zip(ss.iter()).map(|(d, s)| filter_zeros(d, s)).collect::<Vec<_>>())
        }
        (View::Leaf(d), _) if d.is_static_value(0) => shape.map_leaves(&mut |_| Ok(Int::st(1))).expect("no error"),
        _ => shape.to_owned(),
    }
}

/// Whether a top-level mode of `L`'s stride is a static `_0` (v3.4.1 layout.hpp's `any_zero`).
fn any_top_level_zero(l: &Layout) -> bool {
    match l.stride.view() {
        View::Leaf(d) => d.is_static_value(0),
        View::Tuple(ds) => ds.iter().any(|d| matches!(d.view(), View::Leaf(x) if x.is_static_value(0))),
    }
}

/// CuTe's `make_layout_like(L)` (before 3.5: the old definition above).
pub fn make_layout_like(l: &Layout) -> Result<Layout> {
    if !crate::release::MAKE_LAYOUT_LIKE_BY_COMPACT_ORDER.on() {
        if any_top_level_zero(l) {
            let stride = filter_zeros(&l.stride, &l.shape).compact_col_major(Int::st(1))?;
            return Ok(Layout { shape: l.shape.clone(), stride });
        }
        if l.shape.is_static() && l.stride.is_static() {
            return make_ordered_layout(&l.shape, &Order::Steps(l.stride.clone()));
        }
        return Layout::col_major(l.shape.clone());
    }
    let stride = compact_order(&filter_zeros(&l.stride, &l.shape), &l.stride)?;
    Ok(Layout { shape: l.shape.clone(), stride })
}

/// CuTe's `make_fragment_like(L)` (before 3.5: the old definition above).
pub fn make_fragment_like(l: &Layout) -> Result<Layout> {
    let r = l.rank();
    let new = crate::release::MAKE_LAYOUT_LIKE_BY_COMPACT_ORDER.on();
    if r <= 1 || !l.shape.is_static() || !l.shape.is_tuple() || (!new && !l.stride.is_static()) {
        return Layout::col_major(l.shape.clone());
    }
    let modes = l.modes();
    let m0 = &modes[0];
    let m0_shape = if new { filter_zeros(&m0.stride, &m0.shape) } else { m0.shape.clone() };
    let a = Layout { shape: m0.shape.clone(), stride: m0_shape.compact_col_major(Int::st(1))? };
    let rest = Layout::concat(&modes[1..]);
    let b = make_ordered_layout(&rest.shape, &Order::Steps(rest.stride.clone()))?;
    super::tiled_product::tiled_product(&a, &Tiler::Layout(b))
}

/// The numbered postconditions above for `R` made from `L` (`fragment` for make_fragment_like).
pub fn check_postconditions(l: &Layout, r: &Layout, fragment: bool) -> Checked {
    if r.shape.leaves() != l.shape.leaves() {
        return Err(Violation::cute(CITE, format!("1: the extents of {r} are not those of {l}")));
    }
    let pairs_l = l.leaf_pairs();
    let pairs_r = r.leaf_pairs();
    let new = crate::release::MAKE_LAYOUT_LIKE_BY_COMPACT_ORDER.on();
    let m0_leaves = if fragment && l.shape.is_tuple() && l.shape.is_static() && l.rank() > 1 {
        l.mode(0).map(|m| m.shape.leaf_count()).unwrap_or(0)
    } else if fragment {
        0
    } else {
        pairs_l.len()
    };
    // Before 3.5 the static-0 strides are kept only by make_layout_like's column-major branch.
    let kept = if new || (!fragment && any_top_level_zero(l)) { m0_leaves } else { 0 };
    for (k, ((_, dl), (_, dr))) in pairs_l.iter().zip(&pairs_r).enumerate().take(kept) {
        if dl.is_static_value(0) && !dr.is_static_value(0) {
            return Err(Violation::cute(CITE, format!("2: leaf {k} of {l} has stride _0 but {r} has {dr}")));
        }
    }
    // Equal strides are equal orders, which compact_order gives one start: compact only when the
    // strides that order the extents are distinct: not mode 0's (make_fragment_like, static rank
    // > 1, which makes mode 0 column-major), not a static-0 stride's (make_layout_like, which
    // makes those extents _1), never an extent 1's; dynamic strides are distinct orders.
    let skip = if fragment { m0_leaves } else { 0 };
    // Before 3.5 a layout with no top-level `_0` is make_ordered_layout(shape, stride): its `_0`
    // strides are orders too, tied (v3.4.1 prints ((_3,_2)):((_1,_1)) for ((_3,_2)):((_0,_0))).
    let zeros_order = fragment || (!new && !any_top_level_zero(l));
    let ordered =
        pairs_l.iter().skip(skip).filter(|(s, d)| s.value != 1 && d.is_static && (zeros_order || d.value != 0));
    let mut orders: Vec<i64> = ordered.map(|(_, d)| d.value).collect();
    let n = orders.len();
    orders.sort_unstable();
    orders.dedup();
    if orders.len() != n {
        return Ok(());
    }
    let live = Layout {
        shape: IntTuple::of_leaves(pairs_r.iter().filter(|(_, d)| d.value != 0).map(|(s, _)| *s)),
        stride: IntTuple::of_leaves(pairs_r.iter().filter(|(_, d)| d.value != 0).map(|(_, d)| *d)),
    };
    let vals = live.values().map_err(|e| Violation::unverifiable(e.to_string()))?;
    let mut seen = vec![false; vals.len()];
    for &v in &vals {
        if v < 0 || v as usize >= seen.len() || std::mem::replace(&mut seen[v as usize], true) {
            return Err(Violation::cute(CITE, format!("3: {r} is not compact on its non-zero strides")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, Staticness};
    use crate::test_util::l;
    use proptest::prelude::*;

    #[test]
    fn the_header_examples() {
        // layout.hpp's make_layout_like comment.
        assert_eq!(
            make_layout_like(&l("(_2,_2,_2,_2):(_0,_2,_4,_1)")).unwrap().to_string(),
            "(_2,_2,_2,_2):(_0,_2,_4,_1)"
        );
        assert_eq!(make_layout_like(&l("(2,3,4,5):(_0,42,_1,_0)")).unwrap().to_string(), "(2,3,4,5):(_0,4,_1,_0)");
    }

    #[test]
    fn before_3_5() {
        // fixtures/cases/fragments.cases as v3.4.1 and the 3.3.0.0 wheel print them (the
        // make_layout_like comment's example is column-major there).
        use crate::release::{with_release, Release};
        with_release(Release::new(3, 4, 0, 0), || {
            let like = |s: &str| make_layout_like(&l(s)).unwrap().to_string();
            let frag = |s: &str| make_fragment_like(&l(s)).unwrap().to_string();
            assert_eq!(like("(_2,_2,_2,_2):(_0,_2,_4,_1)"), "(_2,_2,_2,_2):(_0,_1,_2,_4)");
            assert_eq!(like("(_2,_4):(_4,_1)"), "(_2,_4):(_4,_1)");
            assert_eq!(like("((_2,_2),_4):((_0,_1),_2)"), "((_2,_2),_4):((_1,_2),_4)");
            assert_eq!(like("(_2,4):(4,_1)"), "(_2,4):(_1,_2)");
            assert_eq!(frag("(_2,_4):(_0,_1)"), "(_2,(_4)):(_1,(_2))");
            assert_eq!(frag("(_2,_4):(4,_1)"), "(_2,_4):(_1,_2)");
        });
    }

    proptest! {
        #[test]
        fn every_postcondition_holds(a in gen::small_layout(4, 8, Staticness::AllStatic), old in any::<bool>()) {
            let rel = if old { crate::release::Release::new(3, 4, 0, 0) } else { crate::release::DEFAULT };
            crate::release::with_release(rel, || {
                let r = make_layout_like(&a).unwrap();
                prop_assert_eq!(check_postconditions(&a, &r, false), Ok(()));
                let f = make_fragment_like(&a).unwrap();
                prop_assert_eq!(check_postconditions(&a, &f, true), Ok(()));
                Ok(())
            })?;
        }
    }
}
