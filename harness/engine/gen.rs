//! proptest strategies for the engine's values, built by construction (prop_compose,
//! prop_flat_map, prop_recursive), never by rejection.

use proptest::prelude::*;

use crate::{Int, IntTuple, Layout, Tup, View};

/// The coordinate counts at which a right operand may start or end a mode when composing with a
/// layout of shape `leaves` (in mode order): `P_k * e` for the prefix product `P_k` of the first
/// `k` extents and `e` a divisor of extent `k`. A mode `n:s` with `s` and `s*n` in this set meets
/// CuTe's divisibility conditions (the shape and stride divisibility of composition).
pub fn boundaries(leaves: &[i64]) -> Vec<i64> {
    let mut out = vec![1i64];
    let mut p = 1i64;
    for &x in leaves {
        for e in 1..=x.max(1) {
            if x % e == 0 {
                out.push(p * e);
            }
        }
        p *= x.max(1);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// How leaves are tagged static or dynamic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Staticness {
    AllStatic,
    AllDynamic,
    Mixed,
}

/// A leaf value with its static-ness; `lo..=hi` bounds the value.
pub fn int(lo: i64, hi: i64, st: Staticness) -> impl Strategy<Value = Int> {
    let tag = match st {
        Staticness::AllStatic => Just(true).boxed(),
        Staticness::AllDynamic => Just(false).boxed(),
        Staticness::Mixed => any::<bool>().boxed(),
    };
    (lo..=hi, tag).prop_map(|(v, s)| Int::new(v, s))
}

/// A shape: nested tuples (rank 1-4 per level, depth up to `depth`) of extents in `1..=max_extent`.
pub fn shape(depth: u32, max_extent: i64, st: Staticness) -> impl Strategy<Value = IntTuple> {
    let leaf = int(1, max_extent, st).prop_map(IntTuple::leaf);
    leaf.prop_recursive(depth, 8, 3, |inner| prop::collection::vec(inner, 1..=4).prop_map(IntTuple::tuple))
}

/// A stride congruent to `shape`, each leaf in `0..=max_stride` with the given static-ness.
pub fn stride_for(shape: &Tup, max_stride: i64, st: Staticness) -> BoxedStrategy<IntTuple> {
    match shape.view() {
        View::Leaf(_) => int(0, max_stride, st).prop_map(IntTuple::leaf).boxed(),
        View::Tuple(v) => {
            let parts: Vec<BoxedStrategy<IntTuple>> = v.iter().map(|s| stride_for(s, max_stride, st)).collect();
            parts.prop_map(IntTuple::tuple).boxed()
        }
    }
}

/// An arbitrary layout (strides may be zero, repeat or overlap).
pub fn layout(depth: u32, max_extent: i64, max_stride: i64, st: Staticness) -> impl Strategy<Value = Layout> {
    shape(depth, max_extent, st).prop_flat_map(move |s| {
        let strides = stride_for(&s, max_stride, st);
        (Just(s), strides).prop_map(|(s, d)| Layout { shape: s, stride: d })
    })
}

/// A compact layout: a random shape with strides that are a permutation of its compact
/// column-major strides (always injective), with the shape's static-ness.
pub fn compact_layout(depth: u32, max_extent: i64, st: Staticness) -> impl Strategy<Value = Layout> {
    shape(depth, max_extent, st).prop_flat_map(|s| {
        let n = s.leaves().len();
        (Just(s), Just((0..n).collect::<Vec<_>>()).prop_shuffle()).prop_map(|(s, order)| {
            // Strides: leaf order[k] gets the product of the extents of order[..k].
            let leaves = s.leaves();
            let mut strides = vec![Int::st(0); leaves.len()];
            let mut acc = Int::st(1);
            for &k in &order {
                strides[k] = acc;
                // Saturate instead of panicking; such a layout exercises the overflow errors.
                acc = acc.mul(leaves[k]).unwrap_or(Int::new(i32::MAX as i64, acc.is_static));
            }
            let d = s.unflatten_like(&strides).expect("same structure");
            Layout { shape: s, stride: d }
        })
    })
}

/// A small shape (for brute-force checks): a leaf, or a tuple of 1-3 modes each a leaf or a pair
/// of leaves; extents in `1..=max_extent`, so at most 6 leaves.
pub fn small_shape(max_extent: i64, st: Staticness) -> BoxedStrategy<IntTuple> {
    let leaf = int(1, max_extent, st).prop_map(IntTuple::leaf).boxed();
    let inner = prop_oneof![leaf.clone(), prop::collection::vec(leaf.clone(), 1..=2).prop_map(IntTuple::tuple)];
    prop_oneof![1 => leaf, 3 => prop::collection::vec(inner, 1..=3).prop_map(IntTuple::tuple)].boxed()
}

/// A small arbitrary layout: [`small_shape`] with strides in `0..=max_stride`.
pub fn small_layout(max_extent: i64, max_stride: i64, st: Staticness) -> BoxedStrategy<Layout> {
    small_shape(max_extent, st)
        .prop_flat_map(move |s| {
            let strides = stride_for(&s, max_stride, st);
            (Just(s), strides).prop_map(|(s, d)| Layout { shape: s, stride: d })
        })
        .boxed()
}

/// A small compact (injective, no holes) layout: [`small_shape`] with a permutation of its
/// column-major strides, scaled by `scale` (1 gives a bijection onto `0..size`).
pub fn small_compact(max_extent: i64, scale: i64, st: Staticness) -> BoxedStrategy<Layout> {
    small_shape(max_extent, st)
        .prop_flat_map(|s| {
            let n = s.leaves().len();
            (Just(s), Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        })
        .prop_map(move |(s, order)| {
            let leaves = s.leaves();
            let mut strides = vec![Int::st(0); leaves.len()];
            let mut acc = Int::st(scale);
            for &k in &order {
                strides[k] = Int::new(acc.value, leaves[k].is_static);
                acc = Int::new(acc.value * leaves[k].value, acc.is_static);
            }
            let d = s.unflatten_like(&strides).expect("same structure");
            Layout { shape: s, stride: d }
        })
        .boxed()
}

/// An element of a tuple tiler for the divides: a small layout (compact and scaled by 1 to 3, or
/// arbitrary), an integer in `1..=8`, or rarely `_`.
pub fn tiler_element(st: Staticness) -> BoxedStrategy<crate::Tiler> {
    use crate::Tiler;
    prop_oneof![
        4 => (1i64..4).prop_flat_map(move |k| small_compact(3, k, st)).prop_map(Tiler::Layout),
        2 => small_layout(4, 9, st).prop_map(Tiler::Layout),
        2 => int(1, 8, st).prop_map(Tiler::Int),
        1 => Just(Tiler::Underscore),
    ]
    .boxed()
}
