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
//! [`check_postconditions`], CuTe's before ours; the engine refuses a result violating one of
//! CuTe's with [`Error::Undefined`]). With `C = complement(A, size(A) * cosize(B))` as CuTe
//! computes it:
//! 1. `rank(R) == 2` and mode 0 of `R` is `A` itself [CuTe: logical_product.cpp
//!    `ASSERT_EQ(rank(layoutR), 2)`, `ASSERT_TRUE(layoutA == layout<0>(layoutR))`].
//! 2. `shape(B)` is compatible with mode 1 of `R` [CuTe: logical_product.cpp
//!    `ASSERT_TRUE(compatible(layoutB, layout<1>(layoutR)))`].
//! 3. Mode 1 of `R` is `C o B`: `R(0, j) == C(B(j))` [CuTe: layout.hpp `logical_product :=
//!    make_layout(block, composition(complement(block, size(block)*cosize(tiler)), tiler))` with
//!    composition's `@post result(c) = lhs(rhs(c))`].
//! 4. `C` satisfies complement's definition [ours: CuTe's product tests do not check the
//!    complement inside; logical_product.cpp's `((_4,_6)):((_1,_6))` times `_3:_1` has
//!    `C = _2:_36` with `cosize(A, C) = 70 < 72`, and CuTe's test accepts it].
//! 5. `R` is injective when `A` and `B` are [ours].
//!
//! Fast path: as for the divides, the complement and the composition inside are certified
//! analytically (see `fast`); CuTe's computation runs once and the brute-force checks run only
//! when a certificate does not apply (results and errors unchanged).
//!

use super::complement::complement_unchecked;
use super::composition::composition_unchecked;
use super::error::Result;
use super::int_tuple::IntTuple;
use super::layout::{Layout, MAX_WALK};
use super::postcondition::{cite, enforce, Checked, Violation};
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

/// Fast path: in [`Mode::Certify`], when the operands are small enough to verify and the
/// analytic certificate (see `fast`) shows that `C o B`, with `C = complement(A, size(A) *
/// cosize(B))`, satisfies composition's postconditions, the checks of [`Mode::Checked`] are
/// skipped; they would pass (the complement's own conditions are ours and never refused here), so
/// results and errors are those of [`Mode::Checked`], which the callers fall back to otherwise.
pub(crate) fn product_layout(a: &Layout, b: &Layout, mode: Mode) -> Result<Layout> {
    let cot = IntTuple::leaf(a.size()?.mul(b.cosize()?)?);
    let c = complement_unchecked(a, Some(&cot))?;
    let cb = composition_unchecked(&c, b)?;
    match mode {
        Mode::Certify(ok) if checks_on() => {
            // `walkable(&Layout::concat(&[a, c]))` without building the pair: the size folds over
            // `a`'s leaves, then `c`'s, as `size` of the pair would.
            let pair_size = c.shape.fold_product(a.size());
            let small = matches!(pair_size, Ok(n) if n.value <= MAX_WALK) && super::composition::walkable(b).is_ok();
            if !(small && super::fast::composition_ok(&c, b, &cb)) {
                ok.set(false);
            }
        }
        Mode::Checked if checks_on() => {
            super::composition::walkable(&Layout::concat(&[a.clone(), c.clone()]))?;
            super::composition::walkable(b)?;
            // Only the composition is part of CuTe's definition of the product (postcondition
            // 3); the complement's own conditions are ours here (postcondition 4), never refused.
            enforce("composition", super::composition::verified(&c, b, &cb))?;
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
pub fn check_postconditions(a: &Layout, t: &Tiler, r: &Layout) -> Checked {
    check_by_tiler(a, t, r, check_layout)
}

fn check_layout(a: &Layout, b: &Layout, r: &Layout) -> Checked {
    if r.rank() != 2 {
        return Err(Violation::cute(cite::PRODUCT_RANK, format!("1: rank({r}) != 2")));
    }
    if r.mode(0)? != *a {
        return Err(Violation::cute(cite::PRODUCT_MODE0, format!("1: mode 0 of {r} is not {a}")));
    }
    let r1 = r.mode(1)?;
    if !super::int_tuple::compatible(&b.shape, &r1.shape) {
        return Err(Violation::cute(cite::PRODUCT_COMPATIBLE, format!("2: mode 1 of {r} is not compatible with {b}")));
    }
    let n = IntTuple::leaf(a.size()?.mul(b.cosize()?)?);
    let c = complement_unchecked(a, Some(&n))?;
    let (bv, r1v) = (b.values()?, r1.values()?);
    let ec = c.eval_1d();
    for (j, &x) in bv.iter().enumerate() {
        let want = ec.at(x)?;
        if r1v.get(j) != Some(&want) {
            return Err(Violation::cute(
                cite::PRODUCT_DEFINITION,
                format!("3: {r}(0,{j}) = {:?} but {c}({b}({j})) = {want}", r1v.get(j)),
            ));
        }
    }
    super::complement::check_postconditions(a, Some(&n), &c)
        .map_err(|v| v.as_ours(cite::INNER_COMPLEMENT).context("4: complement: "))?;
    let distinct = |mut v: Vec<i64>| {
        let n = v.len();
        v.sort_unstable();
        v.dedup();
        v.len() == n
    };
    if distinct(a.values()?) && distinct(bv) && !distinct(r.values()?) {
        return Err(Violation::ours(
            "an injective product of injective layouts",
            format!("5: {r} is not injective though {a} and {b} are"),
        ));
    }
    Ok(())
}
