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

use super::postcondition::{enforce, Checked, Violation};
use super::coalesce::coalesce;
use super::error::Result;
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::Layout;
const CITE_RIGHT: &str = "test/unit/cute/core/inverse_right.cpp (EXPECT_EQ(layout(inv_layout(i)), i) for i < size(inv_layout)); layout.hpp @result layout(result(i)) == i";
const CITE_RIGHT_DEPTH: &str = "layout.hpp right_inverse := coalesce(make_layout(result_shape, result_stride)), with coalesce's @post depth(result) <= 1";

/// Flat modes of `coalesce(L)` and the exclusive prefix products of their extents.
pub(crate) fn coalesced_modes(layout: &Layout) -> Result<(super::coalesce::Modes, Vec<Int>)> {
    let c = coalesce(layout)?;
    let pairs = c.leaf_pairs();
    let mut pre = vec![Int::st(1)];
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
    Layout {
        shape: IntTuple::Tuple(shape.into_iter().map(IntTuple::Leaf).collect()),
        stride: IntTuple::Tuple(stride.into_iter().map(IntTuple::Leaf).collect()),
    }
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
    coalesce(&flat_layout(rs, rd))
}

/// Check the numbered postconditions of `right_inverse(layout) == r`.
pub fn check_postconditions(layout: &Layout, r: &Layout) -> Checked {
    let rv = r.values()?;
    for (i, &x) in rv.iter().enumerate() {
        let y = layout.call_int(Int::dy(x))?.value;
        if y != i as i64 {
            return Err(Violation::cute(CITE_RIGHT, format!("1: {layout}({r}({i})) = {layout}({x}) = {y} != {i}")));
        }
    }
    if r.depth() > 1 {
        return Err(Violation::cute(CITE_RIGHT_DEPTH, format!("2: depth({r}) > 1")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval_str;

    #[test]
    fn real_cute_probes() {
        // Printed by real CuTe 4.2 (g++ probe, /tmp/probe/p1.cases).
        for (a, want) in [
            ("(_4,_8):(_8,_1)", "(_8,_4):(_4,_1)"),
            ("(_4,8):(_8,_1)", "8:_4"),
            ("(4,_8):(_8,_1)", "(_8,4):(4,_1)"),
            ("(_2,_4):(_1,2)", "_2:_1"),
        ] {
            let l = eval_str(a).unwrap().to_layout().unwrap();
            let r = right_inverse(&l).unwrap();
            assert_eq!(r.to_string(), want, "right_inverse({a})");
            check_postconditions(&l, &r).unwrap();
        }
    }
}
