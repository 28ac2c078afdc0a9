//! `right_inverse(L)` (layout.hpp): a layout `R` with `L(R(i)) == i` for every `i < size(R)`, as
//! large as CuTe's construction finds.
//!
//! How CuTe 4.2 computes it (and so the engine, static-ness included):
//! `coalesce(L)`, then the flat modes with **static** strides (dynamic strides are ignored), sorted
//! by stride (CuTe's exchange sort). Starting from `curr = _1`, a mode `n:d` is taken when `d` is
//! the static value `curr`: the result gains the mode `n : (product of the extents before it)`,
//! and `curr = n * d` (dynamic if `n` is). The result is `coalesce((_1,n..):(_0,p..))`.
//!
//! Postconditions (checked by [`check_postconditions`]; both CuTe's, a violation is refused with
//! [`super::Error::Undefined`]):
//! 1. `L(R(i)) == i` for every `0 <= i < size(R)` [CuTe: inverse_right.cpp `test_postconditions`,
//!    `EXPECT_EQ(layout(inv_layout(i)), i)`; layout.hpp `@result layout(result(i)) == i`].
//! 2. `R` is coalesced: `depth(R) <= 1` [CuTe: layout.hpp's defining code returns
//!    `coalesce(make_layout(result_shape, result_stride))`, with coalesce's `@post depth <= 1`].

use super::error::Result;
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::Layout;
use super::postcondition::{enforce, Checked, Violation};
use super::release::INVERSES_SORTED;
const CITE_RIGHT: &str = "test/unit/cute/core/inverse_right.cpp (EXPECT_EQ(layout(inv_layout(i)), i) for i < size(inv_layout)); layout.hpp @result layout(result(i)) == i";
const CITE_RIGHT_DEPTH: &str = "layout.hpp right_inverse := coalesce(make_layout(result_shape, result_stride)), with coalesce's @post depth(result) <= 1";

/// Flat modes of `coalesce(L)` and the exclusive prefix products of their extents.
pub(crate) fn coalesced_modes(layout: &Layout) -> Result<(super::coalesce::Modes, Vec<Int>)> {
    // The leaves of `coalesce(L)` are its flat modes, whether it is one mode or a tuple.
    let pairs = super::coalesce::coalesce_modes(layout)?.modes;
    let mut pre = Vec::with_capacity(pairs.len() + 1);
    pre.push(Int::st(1));
    for (s, _) in &pairs {
        let next = s.mul(*pre.last().expect("non-empty"))?;
        pre.push(next);
    }
    Ok((pairs, pre))
}

/// CuTe's `detail::SortByKey` (an exchange sort, not stable) of indices by stride value.
pub(crate) fn sort_by_stride(idx: Vec<usize>, pairs: &[(Int, Int)]) -> Vec<usize> {
    let mut a = idx;
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            if pairs[a[j]].1.value < pairs[a[i]].1.value {
                a.swap(i, j);
            }
        }
    }
    a
}

pub(crate) fn flat_layout(shape: Vec<Int>, stride: Vec<Int>) -> Layout {
    Layout { shape: IntTuple::of_leaves(shape), stride: IntTuple::of_leaves(stride) }
}

/// `coalesce(flat_layout(shape, stride))`, from the leaves (coalesce reads nothing else).
pub(crate) fn coalesce_flat(shape: Vec<Int>, stride: Vec<Int>) -> Result<Layout> {
    let pairs: super::coalesce::Pairs = shape.iter().copied().zip(stride.iter().copied()).collect();
    Ok(super::coalesce::coalesce_pairs(pairs, || flat_layout(shape.clone(), stride.clone()).to_string())?.to_layout())
}

/// CuTe's `right_inverse(layout)`; refuses ([`super::Error::Undefined`]) a result that violates
/// CuTe's definition.
pub fn right_inverse(layout: &Layout) -> Result<Layout> {
    let r = right_inverse_unchecked(layout)?;
    if super::runtime::checks_on() {
        super::composition::walkable(&r)?;
        enforce("right_inverse", check_postconditions(layout, &r))?;
    }
    Ok(r)
}

/// CuTe's algorithm for `right_inverse(layout)` without the definition check.
pub fn right_inverse_unchecked(layout: &Layout) -> Result<Layout> {
    if !INVERSES_SORTED.on() {
        return right_inverse_chain(layout);
    }
    let (pairs, pre) = coalesced_modes(layout)?;
    let statics: Vec<usize> = (0..pairs.len()).filter(|&i| pairs[i].1.is_static).collect();
    let (mut rs, mut rd, mut curr) = (vec![Int::st(1)], vec![Int::st(0)], Int::st(1));
    for i in sort_by_stride(statics, &pairs) {
        let (n, d) = pairs[i];
        if curr.is_static && curr.value == d.value {
            rs.push(n);
            rd.push(pre[i]);
            curr = n.mul(d)?;
        }
    }
    coalesce_flat(rs, rd)
}

/// `right_inverse` before 3.9 ([`INVERSES_SORTED`] off): on `coalesce(L)`, follow the chain of
/// static absolute strides `_1, n_i*|d_i|, ...` (`detail::inverse_seq<1>`: the first mode whose
/// absolute stride is that static value; the chain stops at a dynamic or repeated next stride);
/// the result has the chain's extents and strides `signum(d_i) * (prefix product of the extents
/// before mode i)`, unwrapped; `_1:_0` when no mode has stride `_1`.
fn right_inverse_chain(layout: &Layout) -> Result<Layout> {
    let (pairs, pre) = coalesced_modes(layout)?;
    let abs: Vec<Int> = pairs.iter().map(|p| p.1.abs()).collect::<Result<_, _>>()?;
    let mut chain: Vec<usize> = Vec::new();
    let mut next = 1i64;
    while let Some(i) = abs.iter().position(|d| d.is_static && d.value == next) {
        chain.push(i);
        let span = pairs[i].0.mul(abs[i])?;
        if !span.is_static || span.value == next {
            break;
        }
        next = span.value;
    }
    if chain.is_empty() {
        return Ok(Layout::leaf(Int::st(1), Int::st(0)));
    }
    let shape: Vec<Int> = chain.iter().map(|&i| pairs[i].0).collect();
    let stride: Vec<Int> = chain
        .iter()
        .map(|&i| Int::new(pairs[i].1.value.signum(), pairs[i].1.is_static).mul(pre[i]))
        .collect::<Result<_, _>>()?;
    if chain.len() == 1 {
        return Ok(Layout::leaf(shape[0], stride[0]));
    }
    Ok(flat_layout(shape, stride))
}

/// Check the numbered postconditions of `right_inverse(layout) == r`.
pub fn check_postconditions(layout: &Layout, r: &Layout) -> Checked {
    // Postcondition 1 by the analytic certificate where it applies, by the walk otherwise.
    if !super::fast::right_inverse_ok(layout, r) {
        let el = layout.eval_1d();
        for (i, x) in r.walk()?.enumerate() {
            let y = el.at(x)?;
            if y != i as i64 {
                return Err(Violation::cute(CITE_RIGHT, format!("1: {layout}({r}({i})) = {layout}({x}) = {y} != {i}")));
            }
        }
    }
    if r.depth() > 1 {
        return Err(Violation::cute(CITE_RIGHT_DEPTH, format!("2: depth({r}) > 1")));
    }
    Ok(())
}
