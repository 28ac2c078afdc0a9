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
//! Postconditions (checked by [`check_postconditions`]):
//! 1. `L(R(L(i))) == L(i)` for every `0 <= i < size(L)`.
//! 2. If `L` is injective: `R(L(i)) == i` for every `i`.

use super::error::{Error, Result};
use super::int::Int;
use super::layout::Layout;
use super::release::INVERSES_SORTED;
use super::right_inverse::{coalesced_modes, flat_layout, sort_by_stride};
use super::coalesce::coalesce;

/// CuTe's `left_inverse(layout)`.
pub fn left_inverse(layout: &Layout) -> Result<Layout> {
    if !INVERSES_SORTED.on() {
        // Before 4.2: right_inverse(make_layout(L, complement(L))).
        let c = super::complement::complement_unchecked(layout, None)?;
        return super::right_inverse::right_inverse(&Layout::concat(&[layout.clone(), c]));
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
    coalesce(&flat_layout(rs, rd))
}

/// Check the numbered postconditions of `left_inverse(layout) == r`.
pub fn check_postconditions(layout: &Layout, r: &Layout) -> Result<(), String> {
    let lv = layout.values().map_err(|e| e.to_string())?;
    let mut seen = lv.clone();
    seen.sort_unstable();
    seen.dedup();
    let injective = seen.len() == lv.len();
    for (i, &x) in lv.iter().enumerate() {
        let back = r.call_int(Int::dy(x)).map_err(|e| e.to_string())?.value;
        let again = layout.call_int(Int::dy(back)).map_err(|e| e.to_string())?.value;
        if again != x {
            return Err(format!("1: {layout}({r}({layout}({i}))) = {again} != {x}"));
        }
        if injective && back != i as i64 {
            return Err(format!("2: {r}({layout}({i})) = {back} != {i}"));
        }
    }
    Ok(())
}
