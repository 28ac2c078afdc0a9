//! `filter_zeros` and `filter` (layout.hpp).
//!
//! Definitions (CuTe 4.2):
//! - `filter_zeros(L)`: every leaf mode whose stride is the **static** `_0` gets extent `_1`; the
//!   strides and the nesting are unchanged. A dynamic stride 0 is not known to be zero and is kept.
//! - `filter(L) = coalesce(filter_zeros(L))`: drops static-zero-stride and static-size-1 modes.
//!   A layout with nothing left becomes `_1:_0`.
//! - `filter(L, profile)`: `filter` applied to the modes selected by a tuple profile.
//!
//! CUTLASS has no unit test of `filter`; its definition is the defining code of layout.hpp
//! (`filter_zeros(layout) = make_layout(filter_zeros(layout.stride(), layout.shape()),
//! layout.stride())`, `filter(layout) = coalesce(filter_zeros(layout))`), with coalesce's @post.
//!
//! Postconditions of `filter_zeros` (checked by [`check_filter_zeros`]; all CuTe's, layout.hpp's
//! defining code):
//! 1. the result has the structure and strides of `L`;
//! 2. each leaf extent is `_1` where `L`'s stride is the static `_0`, else `L`'s extent.
//!
//! Postconditions of `filter` (checked by [`check_postconditions`]; sources in brackets):
//! 1. `result` is `coalesce(filter_zeros(L))` as coalesce's definition has it: the coalesce
//!    postconditions 1-3 hold for `filter_zeros(L)` -> result [CuTe: layout.hpp
//!    `filter := coalesce(filter_zeros(layout))` with coalesce's `@post`s and coalesce.cpp];
//! 2. the image is the same set: `{result(i)} == {L(c)}` over both domains [CuTe: follows from 1,
//!    filter_zeros only shrinks stride-0 modes];
//! 3. no leaf of the result has a static `_0` stride, unless the result is `_1:_0`, and coalesce's
//!    postcondition 4 holds [ours: a fully filtered result, stricter than CuTe].

use super::coalesce::{by_mode, coalesce_pairs, walk_on_stack, Coalesced, ModesRef};
use super::error::Result;
use super::int::Int;
use super::int_tuple::{IntTuple, Tup, View};
use super::layout::Layout;
use super::postcondition::{Checked, Violation};

/// CuTe's `filter_zeros(layout)`.
pub fn filter_zeros(layout: &Layout) -> Result<Layout> {
    let pairs = layout.leaf_pairs();
    let shapes: Vec<Int> = pairs.iter().map(|&(s, d)| if d.is_static_value(0) { Int::st(1) } else { s }).collect();
    Ok(Layout { shape: layout.shape.unflatten_like(&shapes)?, stride: layout.stride.clone() })
}

/// CuTe's `filter(layout)`.
pub fn filter(layout: &Layout) -> Result<Layout> {
    Ok(filter_modes(layout)?.to_layout())
}

/// [`filter`] as flat modes: `coalesce` only reads the leaves of `filter_zeros(layout)`, so they
/// are fed to it directly (`filter_zeros` is built only for a non-congruent layout, where it
/// reports the mismatch, and for the message of an empty one).
pub(crate) fn filter_modes(layout: &Layout) -> Result<Coalesced> {
    if !layout.shape.congruent(&layout.stride) {
        let fz = filter_zeros(layout)?;
        return coalesce_pairs(fz.leaf_pairs(), || fz.to_string());
    }
    let mut pairs = layout.leaf_pairs();
    drop_zero_strides(&mut pairs);
    coalesce_pairs(pairs, || filter_zeros(layout).map(|l| l.to_string()).unwrap_or_default())
}

/// `filter_zeros` on flat leaves: a static `_0` stride makes its extent `_1` (coalesce then skips it).
fn drop_zero_strides(leaves: &mut [(Int, Int)]) {
    for p in leaves.iter_mut() {
        if p.1.is_static_value(0) {
            p.0 = Int::st(1);
        }
    }
}

/// `f` applied to [`filter_modes`]`(layout)`, computed on a stack buffer where the layout is
/// small (`coalesce::walk_on_stack`; the same modes and errors, tested in `coalesce`).
pub(crate) fn with_filter<T>(layout: &Layout, f: impl FnOnce(ModesRef<'_>) -> Result<T>) -> Result<T> {
    match walk_on_stack(layout, drop_zero_strides, f) {
        Ok(r) => r,
        Err(f) => f(filter_modes(layout)?.as_ref()),
    }
}

/// CuTe's `filter(layout, trg_profile)`.
pub fn filter_by(layout: &Layout, profile: &Tup) -> Result<Layout> {
    match profile.view() {
        View::Leaf(_) => filter(layout),
        View::Tuple(p) => by_mode(layout, p, "filter", filter_by),
    }
}

const CITE_FZ: &str =
    "layout.hpp filter_zeros(layout) := make_layout(filter_zeros(layout.stride(), layout.shape()), layout.stride())";
const CITE_FILTER: &str = "layout.hpp filter(layout) := coalesce(filter_zeros(layout)), with coalesce's @post and test/unit/cute/core/coalesce.cpp";
const OURS_FILTERED: &str = "a fully filtered and coalesced result; CuTe's definition only asks for coalesce's @post";

/// Check the postconditions of `filter_zeros(layout) == result`.
pub fn check_filter_zeros(layout: &Layout, result: &Layout) -> Checked {
    if result.stride != layout.stride || !result.shape.congruent(&layout.shape) {
        return Err(Violation::cute(
            CITE_FZ,
            format!("1: {result} does not keep the structure and strides of {layout}"),
        ));
    }
    for ((s, d), (rs, _)) in layout.leaf_pairs().into_iter().zip(result.leaf_pairs()) {
        let want = if d.is_static_value(0) { Int::st(1) } else { s };
        if rs != want {
            return Err(Violation::cute(
                CITE_FZ,
                format!("2: extent {rs} where {want} was expected ({layout} -> {result})"),
            ));
        }
    }
    Ok(())
}

/// Check the postconditions of `filter(layout) == result` (CuTe's first).
pub fn check_postconditions(layout: &Layout, result: &Layout) -> Checked {
    let fz = filter_zeros(layout)?;
    match super::coalesce::check_postconditions(&fz, result) {
        Err(v) if v.is_ours() => return Err(v.context("3: ")),
        Err(v) => return Err(Violation::cute(CITE_FILTER, format!("1: {}", v.condition))),
        Ok(()) => {}
    }
    let mut a = layout.values()?;
    let mut b = result.values()?;
    a.sort_unstable();
    a.dedup();
    b.sort_unstable();
    b.dedup();
    if a != b {
        return Err(Violation::cute(CITE_FILTER, format!("2: image of {result} differs from the image of {layout}")));
    }
    let trivial = result.shape == IntTuple::st(1) && result.stride == IntTuple::st(0);
    if !trivial && result.leaf_pairs().iter().any(|(_, d)| d.is_static_value(0)) {
        return Err(Violation::ours(OURS_FILTERED, format!("3: {result} keeps a static _0 stride")));
    }
    Ok(())
}
