//! `logical_product(A, tiler)` (layout.hpp).
//!
//! Definition (CuTe 4.2): for a layout `B`,
//! `logical_product(A, B) = make_layout(A, composition(complement(A, size(A) * cosize(B)), B))`:
//! `B`'s layout of copies of `A`. `cosize` is CuTe's `size(coshape)`
//! ([`Layout::cosize`]). For a tiler: a tuple multiplies mode
//! by mode and keeps `A`'s further modes (more elements than modes is "logical_product: Too many
//! modes in tiler."); `_` leaves the mode; an integer `n` is the layout `n:_1`.
//!
//! Postconditions of `logical_product(A, B)` for a layout `B` (checked by
//! [`check_postconditions`]; the complement and composition inside are checked against their own
//! definitions and a violation is [`Error::Undefined`]):
//! 1. `rank(R) == 2`, mode 0 of `R` is `A` itself.
//! 2. Mode 1 of `R` is `C o B` with `C = complement(A, size(A) * cosize(B))`: `R(0, j) == C(B(j))`.
//! 3. `R` is injective when `A` and `B` are: `(A, C)` is injective and `C o B` reorders `C`'s
//!    distinct values.
//!
//! Fast path: as for the divides, the complement and the composition inside are certified
//! analytically (see `fast`); CuTe's computation runs once and the brute-force checks run only
//! when a certificate does not apply (results and errors unchanged).
//!

use super::complement::{complement, complement_unchecked};
use super::composition::composition_unchecked;
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::Layout;
use super::logical_divide::undefined;
use super::runtime::{certified_or_checked, checks_on, Mode};
use super::tile::{by_tiler, check_by_tiler};
use super::tiler::Tiler;

/// `logical_product(A, B)` for a layout `B`.
///
/// CuTe's steps run first (so a static_assert inside is reported as CuTe reports it); then the
/// complement and the composition are checked against their definitions ([`Error::Undefined`]).
pub fn logical_product_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    certified_or_checked(|mode| product_layout(a, b, mode))
}

/// Fast path: in [`Mode::Certify`], when the analytic certificates (see `fast`) show that
/// `C = complement(A, size(A) * cosize(B))` and `C o B` satisfy their postconditions (and the
/// operands are small enough to verify), the brute-force checks are skipped; they would pass, so
/// results and errors are those of [`Mode::Checked`], which the callers fall back to otherwise.
pub(crate) fn product_layout(a: &Layout, b: &Layout, mode: Mode) -> Result<Layout> {
    let cot = IntTuple::Leaf(a.size()?.mul(b.cosize()?)?);
    let c = complement_unchecked(a, Some(&cot))?;
    let cb = composition_unchecked(&c, b)?;
    match mode {
        Mode::Certify(ok) if checks_on() => {
            let small = super::composition::walkable(&Layout::concat(&[a.clone(), c.clone()])).is_ok()
                && super::composition::walkable(b).is_ok();
            if !(small && super::complement::certified(a, Some(&cot), &c) && super::fast::composition_ok(&c, b, &cb)) {
                ok.set(false);
            }
        }
        Mode::Checked if checks_on() => {
            super::composition::walkable(&Layout::concat(&[a.clone(), c.clone()]))?;
            super::composition::walkable(b)?;
            undefined("complement", super::complement::verified(a, Some(&cot), &c))?;
            undefined("composition", super::composition::verified(&c, b, &cb))?;
        }
        _ => {}
    }
    Ok(Layout::concat(&[a.clone(), cb]))
}

pub(crate) fn product_tiler(a: &Layout, t: &Tiler, mode: Mode) -> Result<Layout> {
    by_tiler(a, t, "logical_product", &|m, b| product_layout(m, b, mode))
}

/// `logical_product(A, tiler)`: CuTe's computation (with the certificates) first; only when a
/// certificate does not apply is it redone with the brute-force checks.
pub fn logical_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    certified_or_checked(|mode| product_tiler(a, t, mode))
}

/// CuTe's algorithm for `logical_product(A, tiler)` without the definition checks.
pub fn logical_product_unchecked(a: &Layout, t: &Tiler) -> Result<Layout> {
    product_tiler(a, t, Mode::Unchecked)
}

/// Check the numbered postconditions of `logical_product(A, tiler) == R`.
pub fn check_postconditions(a: &Layout, t: &Tiler, r: &Layout) -> Result<(), String> {
    check_by_tiler(a, t, r, check_layout)
}

fn check_layout(a: &Layout, b: &Layout, r: &Layout) -> Result<(), String> {
    let e = |x: Error| x.to_string();
    if r.rank() != 2 || r.mode(0).map_err(e)? != *a {
        return Err(format!("1: mode 0 of {r} is not {a}"));
    }
    let n = a.size().map_err(e)?.mul(b.cosize().map_err(e)?).map_err(e)?;
    let c = complement(a, Some(&IntTuple::Leaf(n))).map_err(|x| format!("2: {x}"))?;
    let (bv, r1v) = (b.values().map_err(e)?, r.mode(1).map_err(e)?.values().map_err(e)?);
    if bv.len() != r1v.len() {
        return Err(format!("2: size of mode 1 of {r} != size({b})"));
    }
    for (j, &x) in bv.iter().enumerate() {
        let want = c.call_int(Int::dy(x)).map_err(e)?.value;
        if r1v[j] != want {
            return Err(format!("2: {r}(0,{j}) = {} but {c}({b}({j})) = {want}", r1v[j]));
        }
    }
    let distinct = |mut v: Vec<i64>| {
        let n = v.len();
        v.sort_unstable();
        v.dedup();
        v.len() == n
    };
    if distinct(a.values().map_err(e)?) && distinct(bv) && !distinct(r.values().map_err(e)?) {
        return Err(format!("3: {r} is not injective though {a} and {b} are"));
    }
    Ok(())
}

