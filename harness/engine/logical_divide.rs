//! `logical_divide(A, tiler)` (layout.hpp).
//!
//! Definition (CuTe 4.2): for a layout `B`,
//! `logical_divide(A, B) = composition(A, make_layout(B, complement(B, shape(coalesce(A)))))`, a
//! rank-2 layout `(tile, rest)`. For a tiler: a tuple divides mode `i` of `A` by element `i` and
//! keeps `A`'s further modes (more elements than modes is "logical_divide: Too many modes in
//! tiler."); `_` leaves the mode; an integer `n` is the layout `n:_1`.
//!
//! Postconditions of `logical_divide(A, B)` for a layout `B` (checked by [`check_postconditions`],
//! CuTe's before ours; the engine refuses a result violating one of CuTe's with
//! [`Error::Undefined`]). With `C = complement(B, shape(coalesce(A)))` as CuTe computes it:
//! 1. `rank(R) == 2` [CuTe: logical_divide.cpp `ASSERT_EQ(rank(layoutR), 2)`].
//! 2. `shape(B)` is compatible with mode 0 of `R` [CuTe: logical_divide.cpp
//!    `ASSERT_TRUE(compatible(layoutB, layout<0>(layoutR)))`].
//! 3. `R(i, j) == A(B(i) + C(j))` for all `i, j` (so `R(i, 0) == A(B(i))`) [CuTe: layout.hpp
//!    `logical_divide := composition(layout, make_layout(tiler, complement(...)))` with
//!    composition's `@post result(c) = lhs(rhs(c))`].
//! 4. `C` satisfies complement's definition (so `(B, C)` is injective) [ours: CuTe's divide tests
//!    do not check the complement inside].
//! 5. `size(R) >= size(A)` [ours].
//!
//! For a tuple tiler, these hold mode by mode and the untouched modes of `A` are unchanged.
//!
//! Fast path: a divide reduces to a complement and a composition; what the engine refuses is the
//! composition's definition (postcondition 3; the complement's own conditions, 4, are ours and
//! never refused: the conformance judge reports them). CuTe's computation runs once
//! (`Mode::Certify`); when the composition's analytic certificate holds for every mode (see
//! `composition` and `fast`) the result is returned, since the checked computation would return
//! it too; otherwise the checked computation runs as before, so results and errors are unchanged.

use super::coalesce::{with_coalesce, ModesRef, Walk};
use super::complement::complement_unchecked;
use super::composition::{composition_impl, composition_unchecked, Operand, SmallA};
use super::error::Result;
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::{Eval1d, Layout};
use super::postcondition::{cite, enforce, Checked, Violation};
use super::release::{COMPLEMENT_TAKES_A_SHAPE, DIVIDE_COMPLEMENTS_IN_COALESCED_SHAPE};
use super::runtime::{certified_or_checked, checks_on, Mode};
use super::tile::{by_tiler, check_by_tiler};
use super::tiler::{Tiler, TilerView};

/// `logical_divide(A, B)` for a layout `B`.
///
/// CuTe's steps run first (so a static_assert inside is reported as CuTe reports it); then the
/// complement and the composition are checked against their definitions ([`Error::Undefined`]).
pub fn logical_divide_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    certified_or_checked(|mode| divide_layout(a, b, mode))
}

/// The cotarget of the complement: `shape(coalesce(A))`, or before 3.9 `shape(A)` as it is
/// ([`DIVIDE_COMPLEMENTS_IN_COALESCED_SHAPE`]; a nested shape folds `ceil_div` through its modes),
/// before 3.5 `size(A)` ([`COMPLEMENT_TAKES_A_SHAPE`]).
fn cotarget(a: &Layout) -> Result<IntTuple> {
    with_cotarget_and_coalesce_x(a, |cot, _| Ok(cot))
}

/// `f` on [`cotarget`] and `coalesce_x(A)` (the composition's first step) when it is at hand: it
/// is `coalesce(A)` unless `A`'s last leaf is a static `_1` (the one place the two walks differ).
fn with_cotarget_and_coalesce_x<T>(
    a: &Layout,
    f: impl FnOnce(IntTuple, Option<ModesRef<'_>>) -> Result<T>,
) -> Result<T> {
    if !COMPLEMENT_TAKES_A_SHAPE.on() {
        // Before 3.5: complement(B, size(A)).
        return f(IntTuple::leaf(a.size()?), None);
    }
    if !DIVIDE_COMPLEMENTS_IN_COALESCED_SHAPE.on() {
        return f(a.shape.clone(), None);
    }
    with_coalesce(a, Walk::Coalesce, |c| {
        let last_is_static_1 = a.shape.leaf_iter().last().is_some_and(|s| s.is_static_value(1));
        f(c.shape(), (!last_is_static_1).then_some(c))
    })
}

/// Fast path: in [`Mode::Certify`], when the analytic certificate (see `fast`) shows that the
/// composition `A o (B, C)`, with `C = complement(B, shape(coalesce(A)))`, satisfies its
/// postconditions, the checks of [`Mode::Checked`] are skipped: they would all pass (the
/// certificate also gives every extent of `(B, C)` >= 1 and `size((B, C)) <= MAX_WALK`, so the
/// size limit and the complement's extents pass too), so the result (and every error) is the same
/// as with [`Mode::Checked`], which the callers fall back to otherwise.
fn divide_layout(a: &Layout, b: &Layout, mode: Mode) -> Result<Layout> {
    let certify = match mode {
        Mode::Unchecked => Some(false),
        Mode::Certify(_) => Some(checks_on()),
        Mode::Checked => None,
    };
    if let Some(r) = certify.and_then(|certify| small(a, b, certify)) {
        return Ok(r);
    }
    general(a, b, mode)
}

/// [`divide_layout`] without the small path.
fn general(a: &Layout, b: &Layout, mode: Mode) -> Result<Layout> {
    with_cotarget_and_coalesce_x(a, |cot, coalesced| divide_on(a, b, mode, cot, coalesced))
}

/// The small path of [`divide_layout`] (not in [`Mode::Checked`]): `C = complement(B,
/// shape(coalesce(A)))` by complement's small path, then `A o (B, C)` by composition's, which
/// never builds `(B, C)`, with its certificate where `certify` (the only check of
/// [`Mode::Certify`]). `None` where either small path does not apply, or the certificate does
/// not hold: the general path then answers as before.
fn small(a: &Layout, b: &Layout, certify: bool) -> Option<Layout> {
    if !DIVIDE_COMPLEMENTS_IN_COALESCED_SHAPE.on() {
        return None;
    }
    let sa = SmallA::new(a, true)?;
    let c = super::complement::Small::of(b, Some(sa.coalesced_extents()))?;
    sa.compose(&[Operand::Layout(b), Operand::Modes(c.modes())], true, certify)
}

/// [`divide_layout`] with the cotarget and `coalesce_x(A)` at hand.
fn divide_on(a: &Layout, b: &Layout, mode: Mode, cot: IntTuple, coalesced: Option<ModesRef<'_>>) -> Result<Layout> {
    let c = complement_unchecked(b, Some(&cot))?;
    let certify = matches!(mode, Mode::Certify(_)) && checks_on();
    let bc = Layout { shape: IntTuple::pair(&b.shape, &c.shape), stride: IntTuple::pair(&b.stride, &c.stride) };
    // composition_unchecked(a, bc), on coalesce_x(A) if the cotarget's coalesce gave it.
    let r = match coalesced {
        Some(ax) => composition_impl(ax, &bc.shape, &bc.stride)?,
        None => composition_unchecked(a, &bc)?,
    };
    match mode {
        Mode::Certify(ok) if certify && !super::fast::composition_ok(a, &bc, &r) => {
            ok.set(false);
        }
        Mode::Checked if checks_on() => {
            // Only the composition is part of CuTe's definition of the divide (postcondition 3);
            // the complement's own conditions are ours here (postcondition 4), never refused.
            super::composition::walkable(&bc)?;
            enforce("composition", super::composition::verified(a, &bc, &r))?;
            if super::complement::extents_positive(&bc.mode(1)?).is_err() {
                // A complement with a non-positive extent leaves that walk without coordinates:
                // the divide's own definition (postcondition 3, walked over B and C) decides.
                enforce("logical_divide", check_layout(a, b, &r))?;
            }
        }
        _ => {}
    }
    Ok(r)
}

pub(crate) fn divide_tiler(a: &Layout, t: &Tiler, mode: Mode) -> Result<Layout> {
    by_tiler(a, t, "logical_divide", &|m, b| divide_layout(m, b, mode))
}

/// `logical_divide(A, tiler)`: CuTe's computation (with the certificates) first; only when a
/// certificate does not apply is it redone with the brute-force checks.
pub fn logical_divide(a: &Layout, t: &Tiler) -> Result<Layout> {
    if let Some(r) = t.elem().and_then(|e| small_view(a, TilerView::One(e))) {
        return Ok(r);
    }
    certified_or_checked(|mode| divide_tiler(a, t, mode))
}

/// The small path of `logical_divide(A, tiler)` for a borrowed layout or integer tiler, as
/// `divide_layout` would take it in the first (`Mode::Certify`) run; `None`: take
/// [`logical_divide`]. (The builtins' entry, before a [`Tiler`] is built.)
pub fn small_view(a: &Layout, t: TilerView<'_>) -> Option<Layout> {
    match t {
        TilerView::One(e) => small(a, &e.layout(), checks_on()),
        TilerView::Tuple(_) => None,
    }
}

/// CuTe's algorithm for `logical_divide(A, tiler)` without the definition checks.
pub fn logical_divide_unchecked(a: &Layout, t: &Tiler) -> Result<Layout> {
    divide_tiler(a, t, Mode::Unchecked)
}

/// Check the numbered postconditions of `logical_divide(A, tiler) == R`.
pub fn check_postconditions(a: &Layout, t: &Tiler, r: &Layout) -> Checked {
    check_by_tiler(a, t, r, check_layout)
}

fn check_layout(a: &Layout, b: &Layout, r: &Layout) -> Checked {
    if r.rank() != 2 {
        return Err(Violation::cute(cite::DIVIDE_RANK, format!("1: rank({r}) != 2")));
    }
    let (r0, r1) = (r.mode(0)?, r.mode(1)?);
    if !super::int_tuple::compatible(&b.shape, &r0.shape) {
        return Err(Violation::cute(cite::DIVIDE_COMPATIBLE, format!("2: mode 0 of {r} is not compatible with {b}")));
    }
    let bv = b.values()?;
    let r0v = r0.values()?;
    let ea = a.eval_1d();
    // Every i in order, skipping the boxes shown to pass (super::walk).
    super::walk::divide_tile(a, b, &r0, &ea, bv.len(), |i| check_tile(a, b, r, &ea, &bv, &r0v, i))?;
    let cot = cotarget(a)?;
    let c = complement_unchecked(b, Some(&cot))?;
    let cv = c.values()?;
    let r1v = r1.values()?;
    if r1v.len() != cv.len() {
        return Err(Violation::cute(cite::DIVIDE_DEFINITION, format!("3: size of mode 1 of {r} != size({c})")));
    }
    let (e0, e1) = (r0.eval_1d(), r1.eval_1d());
    // Row by row, skipping the rows shown to pass (super::walk).
    super::walk::divide_rows(a, b, &c, &r0, &r1, &ea, &bv, &cv, |j| check_row(a, r, (&ea, &e0, &e1), &bv, &cv, j))?;
    super::complement::check_postconditions(b, Some(&cot), &c)
        .map_err(|v| v.as_ours(cite::INNER_COMPLEMENT).context("4: complement: "))?;
    let (n, m) = (r.size()?.value, a.size()?.value);
    if n < m {
        return Err(Violation::ours("the divide covers A", format!("5: size({r}) = {n} < size({a}) = {m}")));
    }
    Ok(())
}

/// Postcondition 3 at `(i, 0)`: `R(i, 0) == A(B(i))`, with `bv` the values of `B` and `r0v` those
/// of `R`'s mode 0.
pub(crate) fn check_tile(
    a: &Layout,
    b: &Layout,
    r: &Layout,
    ea: &Eval1d,
    bv: &[i64],
    r0v: &[i64],
    i: usize,
) -> Checked {
    let want = ea.at(bv[i])?;
    if r0v.get(i) != Some(&want) {
        return Err(Violation::cute(
            cite::DIVIDE_DEFINITION,
            format!("3: {r}({i},0) = {:?} but {a}({b}({i})) = {want}", r0v.get(i)),
        ));
    }
    Ok(())
}

/// Postcondition 3 on row `j`: `R(i, j) == A(B(i) + C(j))` for every `i`, with `bv` and `cv` the
/// values of `B` and `C` and `(ea, e0, e1)` the evaluators of `A` and `R`'s two modes. `R(i, j)` is
/// read as crd2idx reads a pair: mode 0 at `i` plus mode 1 at `j` (checked like its sum).
pub(crate) fn check_row(
    a: &Layout,
    r: &Layout,
    (ea, e0, e1): (&Eval1d, &Eval1d, &Eval1d),
    bv: &[i64],
    cv: &[i64],
    j: usize,
) -> Checked {
    let y = cv[j];
    let at_j = e1.at(j as i64)?;
    for (i, &x) in bv.iter().enumerate() {
        let want = ea.at(x + y)?;
        let got = Int::dy(e0.at(i as i64)?).add(Int::dy(at_j))?.value;
        if got != want {
            return Err(Violation::cute(
                cite::DIVIDE_DEFINITION,
                format!("3: {r}({i},{j}) = {got} but {a}({x}+{y}) = {want}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {

    /// A tiler whose complement CuTe computes with non-positive extents: the composition walk of
    /// the divide has no coordinates there, so the divide's own definition is checked (found by
    /// the three-way run, random case 586 of seed 42: CuTe C++'s algorithm gives
    /// ((_2,_64),(_-10,_0)):((_-36,_-4),(_1,_-216)), whose (1,0) is -36 where A(B(1)) = -26).
    #[test]
    fn a_divide_by_a_complement_with_non_positive_extents_is_checked() {
        use crate::test_util::{l, t};
        let e = logical_divide(&l("((_4,_6,_1),_3):((_1,_12,_72),_4)"), &t("_128:_-10")).unwrap_err().to_string();
        assert!(e.contains("logical_divide is not defined here: 3:"), "{e}");
        assert!(crate::zipped_divide::zipped_divide(&l("(_15,_3,_2,_8):(_48,_1,_3,_6)"), &t("_4:_-12")).is_err());
        assert_eq!(logical_divide(&l("_24:_1"), &t("_4:_2")).unwrap().to_string(), "(_4,(_2,_3)):(_2,(_1,_8))");
    }

    use super::*;
    use crate::gen::{self, Staticness};
    use crate::runtime::deferred;
    use proptest::prelude::*;
    use std::cell::Cell;

    fn st() -> impl Strategy<Value = Staticness> {
        prop_oneof![4 => Just(Staticness::AllStatic), 1 => Just(Staticness::Mixed)]
    }

    /// Operands: arbitrary layouts (mostly refused or uncertified), compact `A` with a compact
    /// scaled tile (the admissible common case), and tiles of one mode.
    fn operands() -> impl Strategy<Value = (Layout, Layout)> {
        prop_oneof![
            st().prop_flat_map(|s| (gen::layout(3, 12, 80, s), gen::layout(2, 8, 40, s))),
            (st(), 1i64..4).prop_flat_map(|(s, k)| (gen::small_compact(6, 1, s), gen::small_compact(3, k, s))),
            (1i64..5, 1i64..5).prop_flat_map(|(n, k)| (
                gen::compact_layout(2, 8, Staticness::AllStatic),
                Just(Layout::leaf(Int::st(n), Int::st(k)))
            )),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// The small path answers as the general path, in each mode: the same layout or error,
        /// and in `Mode::Certify` the same verdict of the certificate.
        #[test]
        fn the_small_path_is_the_general_path((a, b) in operands()) {
            prop_assert_eq!(divide_layout(&a, &b, Mode::Unchecked), general(&a, &b, Mode::Unchecked), "logical_divide({}, {})", a, b);
            let (ok_small, ok_general) = (Cell::new(true), Cell::new(true));
            let small_r = deferred(|| divide_layout(&a, &b, Mode::Certify(&ok_small)));
            let general_r = deferred(|| general(&a, &b, Mode::Certify(&ok_general)));
            prop_assert_eq!(small_r, general_r, "logical_divide({}, {})", a, b);
            prop_assert_eq!(ok_small.get(), ok_general.get(), "logical_divide({}, {}): certificate", a, b);
            // The entry point's small path first, then the certified-or-checked runs.
            let t = Tiler::Layout(b.clone());
            prop_assert_eq!(logical_divide(&a, &t), certified_or_checked(|mode| divide_tiler(&a, &t, mode)), "logical_divide({}, {})", a, b);
        }
    }
}
