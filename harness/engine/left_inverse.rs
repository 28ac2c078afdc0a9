//! `left_inverse(L)` (layout.hpp): a layout `R` with `L(R(L(i))) == L(i)` for every `i < size(L)`
//! (so `R(L(i)) == i` when `L` is injective).
//!
//! How CuTe 4.2 computes it (and so the engine, static-ness included):
//! `coalesce(L)`; every stride must be static (["Left inverse requires static strides."](
//! super::Error::LeftInverseDynamicStride)). The flat modes are sorted by stride (CuTe's exchange
//! sort); static-zero strides are skipped; each other mode `n:d` appends the extent
//! `d / size(result_shape)` (CuTe static_asserts "Left inverse divisibility condition" that it
//! divides) with the stride `(product of the extents before it in L)`, the strides starting with
//! `_0`; finally the extent of the last sorted mode is appended. The result is coalesced.
//!
//! Postconditions (checked by [`check_postconditions`]; both CuTe's, a violation is refused with
//! [`Error::Undefined`] -- CuTe's algorithm breaks 1 on some layouts that are not injective, e.g.
//! `(_2,_3):(_2,_1)`, which the engine used to copy without a word):
//! 1. `L(R(L(i))) == L(i)` for every `0 <= i < size(L)` [CuTe: layout.hpp "Build the
//!    quasi-inverse of a layout (left-inverse when layout is injective)", `@result layout(result(
//!    layout(i))) == layout(i) for all i < size(layout)`].
//! 2. If `L` is injective: `R(L(i)) == i` for every `i` [CuTe: inverse_left.cpp
//!    `EXPECT_EQ(inv_layout(layout(i)), i)` (its layouts are all injective)].

use super::error::{Error, Result};
use super::int::Int;
use super::layout::Layout;
use super::postcondition::{enforce, Checked, Violation};
use super::release::INVERSES_SORTED;
use super::right_inverse::{coalesce_flat, coalesced_modes, sort_by_stride};
const CITE_LEFT_QUASI: &str =
    "layout.hpp @result layout(result(layout(i))) == layout(i) for all i < size(layout) (a quasi-inverse)";
const CITE_LEFT: &str = "test/unit/cute/core/inverse_left.cpp (EXPECT_EQ(inv_layout(layout(i)), i)); layout.hpp: a left-inverse when the layout is injective";

/// CuTe's `left_inverse(layout)`; refuses ([`Error::Undefined`]) a result that violates CuTe's
/// definition.
pub fn left_inverse(layout: &Layout) -> Result<Layout> {
    let r = left_inverse_unchecked(layout)?;
    if super::runtime::checks_on() {
        super::composition::walkable(layout)?;
        enforce("left_inverse", check_postconditions(layout, &r))?;
    }
    Ok(r)
}

/// CuTe's algorithm for `left_inverse(layout)` without the definition check.
pub fn left_inverse_unchecked(layout: &Layout) -> Result<Layout> {
    if !INVERSES_SORTED.on() {
        // Before 4.2: right_inverse(make_layout(L, complement(L))).
        let c = super::complement::complement_unchecked(layout, None)?;
        return super::right_inverse::right_inverse_unchecked(&Layout::concat(&[layout.clone(), c]));
    }
    let (pairs, pre) = coalesced_modes(layout)?;
    if pairs.iter().any(|p| !p.1.is_static) {
        return Err(Error::LeftInverseDynamicStride);
    }
    let sorted = sort_by_stride((0..pairs.len()).collect(), &pairs);
    let (mut rs, mut rd): (Vec<Int>, Vec<Int>) = (Vec::new(), vec![Int::st(0)]);
    for &i in &sorted {
        let d = pairs[i].1;
        if d.is_static_value(0) {
            continue;
        }
        let size = rs.iter().try_fold(Int::st(1), |a, &b| a.mul(b))?;
        if d.rem(size)?.value != 0 {
            return Err(Error::Rejected {
                condition: "Left inverse divisibility condition",
                detail: format!("stride {d} of {layout} is not divisible by {size}"),
            });
        }
        rs.push(d.div(size)?);
        rd.push(pre[i]);
    }
    let last = *sorted.last().expect("a coalesced layout has a mode");
    rs.push(pairs[last].0);
    coalesce_flat(rs, rd)
}

/// Check the numbered postconditions of `left_inverse(layout) == r`.
pub fn check_postconditions(layout: &Layout, r: &Layout) -> Checked {
    if super::fast::left_inverse_ok(layout, r) {
        return Ok(()); // both postconditions by the analytic certificate; the walk below otherwise
    }
    let lw = layout.walk()?;
    let injective = super::walk::injective(layout).map_or_else(
        || -> Result<bool> {
            let lv = layout.values()?;
            let mut seen = lv.clone();
            seen.sort_unstable();
            seen.dedup();
            Ok(seen.len() == lv.len())
        },
        Ok,
    )?;
    let (er, el) = (r.eval_1d(), layout.eval_1d());
    // Every i in order, skipping the boxes of coordinates shown to pass (super::walk).
    super::walk::left_inverse(layout, r, injective, lw, &er, &el, |i, x| {
        let back = er.at(x)?;
        let again = el.at(back)?;
        if again != x {
            return Err(Violation::cute(CITE_LEFT_QUASI, format!("1: {layout}({r}({layout}({i}))) = {again} != {x}")));
        }
        if injective && back != i {
            return Err(Violation::cute(CITE_LEFT, format!("2: {r}({layout}({i})) = {back} != {i}")));
        }
        Ok(())
    })
}
