//! The products (layout.hpp): `logical_product`, `zipped_product`, `tiled_product`,
//! `flat_product`, `blocked_product`, `raked_product`.
//!
//! Definitions (CuTe 4.2):
//! - `logical_product(A, B)` for a layout `B`:
//!   `make_layout(A, composition(complement(A, size(A) * cosize(B)), B))`: `B`'s layout of
//!   copies of `A`. `cosize` is CuTe's `size(coshape)`: `sum (s_i - _1) * |d_i| + _1` (static
//!   when every term is). For a tiler: a tuple multiplies mode by mode and keeps `A`'s further
//!   modes (more elements than modes is "logical_product: Too many modes in tiler."); `_` leaves
//!   the mode; an integer `n` is the layout `n:_1`.
//! - `zipped_product`, `tiled_product`, `flat_product`: `logical_product` followed by the same
//!   `zip2_by` gathering and unpacking as the divides.
//! - `blocked_product(A, B)` / `raked_product(A, B)` for layouts: with `R = max(rank A, rank B)`,
//!   both padded to rank `R` with `_1:_0` modes, `P = logical_product(A', B')` (as whole layouts),
//!   and the result's mode `i` is `(A'_i, P1_i)` (blocked) or `(P1_i, A'_i)` (raked), where `P1`
//!   is mode 1 of `P`.
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
//! Postconditions of `blocked_product` / `raked_product` (checked by [`check_blocked`]):
//! 1. `rank(R) == max(rank A, rank B)` and each mode is rank 2 with `A`'s mode (padded) in
//!    position 0 (blocked) or 1 (raked).
//! 2. As a function `R` equals `logical_product(A', B')` with the mode pairs regrouped: for every
//!    `i < size(A')`, `j < size(B')`, `R` at the coordinate made of `A'`'s and `P1`'s
//!    coordinates mode by mode equals `A'(i) + P1(j)`.

use std::cell::Cell;

use super::coalesce::by_mode;
use super::complement::{complement, complement_unchecked};
use super::composition::composition_unchecked;
use super::divide::{tile_unzip, undefined, unpack};
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::Layout;
use super::runtime::{checks_on, deferred, Mode};
use super::tiler::Tiler;

/// CuTe's `cosize(layout) = size(coshape(layout))`, static-ness as CuTe computes it.
pub fn cosize(l: &Layout) -> Result<Int> {
    cosize_pairs(&l.leaf_pairs())
}

/// [`cosize`] from the flat (extent, stride) leaves.
pub(crate) fn cosize_pairs(pairs: &[(Int, Int)]) -> Result<Int> {
    let mut acc = Int::st(0);
    for &(s, d) in pairs {
        acc = acc.add(s.sub(Int::st(1))?.mul(d.abs()?)?)?;
    }
    acc.add(Int::st(1))
}

/// `logical_product(A, B)` for a layout `B`.
///
/// CuTe's steps run first (so a static_assert inside is reported as CuTe reports it); then the
/// complement and the composition are checked against their definitions ([`Error::Undefined`]).
pub fn logical_product_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    let ok = Cell::new(true);
    let r = deferred(|| product_layout(a, b, Mode::Certify(&ok)))?;
    if ok.get() || !checks_on() {
        return Ok(r);
    }
    product_layout(a, b, Mode::Checked)
}

/// Fast path: in [`Mode::Certify`], when the analytic certificates (see `fast`) show that
/// `C = complement(A, size(A) * cosize(B))` and `C o B` satisfy their postconditions (and the
/// operands are small enough to verify), the brute-force checks are skipped; they would pass, so
/// results and errors are those of [`Mode::Checked`], which the callers fall back to otherwise.
fn product_layout(a: &Layout, b: &Layout, mode: Mode) -> Result<Layout> {
    let cot = IntTuple::Leaf(a.size()?.mul(cosize(b)?)?);
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

fn product_tiler(a: &Layout, t: &Tiler, mode: Mode) -> Result<Layout> {
    match t {
        Tiler::Underscore => Ok(a.clone()),
        Tiler::Tuple(items) => {
            if items.len() > a.rank() {
                return Err(Error::TooManyModes { op: "logical_product" });
            }
            by_mode(a, items, "logical_product", |m, ti| product_tiler(m, ti, mode))
        }
        Tiler::Layout(b) => product_layout(a, b, mode),
        other => product_layout(a, &other.as_layout().expect("layout or int"), mode),
    }
}

/// `logical_product(A, tiler)`: CuTe's computation (with the certificates) first; only when a
/// certificate does not apply is it redone with the brute-force checks.
pub fn logical_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    let ok = Cell::new(true);
    let r = deferred(|| product_tiler(a, t, Mode::Certify(&ok)))?;
    if ok.get() || !checks_on() {
        return Ok(r);
    }
    product_tiler(a, t, Mode::Checked)
}

/// `zipped_product(A, tiler)`: CuTe's whole computation (including `zip2_by`) runs before the
/// definition checks of `logical_product`.
pub fn zipped_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    let ok = Cell::new(true);
    let z = deferred(|| tile_unzip(&product_tiler(a, t, Mode::Certify(&ok))?, t))?;
    if !ok.get() && checks_on() {
        logical_product(a, t)?;
    }
    Ok(z)
}

/// `tiled_product(A, tiler)`.
pub fn tiled_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    unpack(&zipped_product(a, t)?, false)
}

/// `flat_product(A, tiler)`.
pub fn flat_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    unpack(&zipped_product(a, t)?, true)
}

/// CuTe's `append<R>(layout)`: pad with `_1:_0` modes up to rank `r` (a leaf layout of rank 1 is
/// left as it is when `r == 1`).
fn pad(l: &Layout, r: usize) -> Layout {
    if l.rank() >= r {
        return l.clone();
    }
    let mut m = l.modes();
    m.resize(r, Layout::leaf(Int::st(1), Int::st(0)));
    Layout::concat(&m)
}

fn block_raked(a: &Layout, b: &Layout, raked: bool) -> Result<Layout> {
    let r = a.rank().max(b.rank());
    let (ap, bp) = (pad(a, r), pad(b, r));
    let out = deferred(|| {
        let p = product_layout(&ap, &bp, Mode::Unchecked)?;
        let p1 = p.mode(1)?;
        let (first, second) = if raked { (p1, ap.clone()) } else { (ap.clone(), p1) };
        // CuTe's zip(first, second): a non-tuple first gives the single mode (first, second);
        // otherwise both must be tuples of one rank, zipped mode by mode.
        if !first.shape.is_tuple() {
            return Ok(Layout::concat(&[Layout::concat(&[first, second])]));
        }
        if !second.shape.is_tuple() || second.rank() != first.rank() {
            return Err(Error::MismatchedRanks { detail: format!("zip of {first} with {second}") });
        }
        let modes: Vec<Layout> =
            first.modes().into_iter().zip(second.modes()).map(|(x, y)| Layout::concat(&[x, y])).collect();
        Ok(Layout::concat(&modes))
    })?;
    // The definition checks come after CuTe's whole computation.
    logical_product_layout(&ap, &bp)?;
    Ok(out)
}

/// `blocked_product(A, B)` for layouts.
pub fn blocked_product(a: &Layout, b: &Layout) -> Result<Layout> {
    block_raked(a, b, false)
}

/// `raked_product(A, B)` for layouts.
pub fn raked_product(a: &Layout, b: &Layout) -> Result<Layout> {
    block_raked(a, b, true)
}

/// Check the numbered postconditions of `logical_product(A, tiler) == R`.
pub fn check_postconditions(a: &Layout, t: &Tiler, r: &Layout) -> Result<(), String> {
    match t {
        Tiler::Underscore => (a == r).then_some(()).ok_or_else(|| format!("_ changed {a} into {r}")),
        Tiler::Tuple(items) => {
            if r.rank() != a.rank() {
                return Err(format!("rank({r}) != rank({a})"));
            }
            let (am, rm) = (a.modes(), r.modes());
            for k in 0..am.len() {
                match items.get(k) {
                    Some(tk) => check_postconditions(&am[k], tk, &rm[k])?,
                    None if am[k] != rm[k] => return Err(format!("untouched mode {} became {}", am[k], rm[k])),
                    None => {}
                }
            }
            Ok(())
        }
        other => check_layout(a, &other.as_layout().expect("layout or int"), r),
    }
}

fn check_layout(a: &Layout, b: &Layout, r: &Layout) -> Result<(), String> {
    let e = |x: Error| x.to_string();
    if r.rank() != 2 || r.mode(0).map_err(e)? != *a {
        return Err(format!("1: mode 0 of {r} is not {a}"));
    }
    let n = a.size().map_err(e)?.mul(cosize(b).map_err(e)?).map_err(e)?;
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

/// Check the numbered postconditions of `blocked_product(A, B) == R` (`raked` false) or
/// `raked_product(A, B) == R` (`raked` true).
pub fn check_blocked(a: &Layout, b: &Layout, r: &Layout, raked: bool) -> Result<(), String> {
    let e = |x: Error| x.to_string();
    let rank = a.rank().max(b.rank());
    if r.rank() != rank || r.modes().iter().any(|m| m.rank() != 2) {
        return Err(format!("1: {r} is not {rank} rank-2 modes"));
    }
    let ap = pad(a, rank);
    let ka = usize::from(raked);
    let p = logical_product_layout(&ap, &pad(b, rank)).map_err(e)?;
    let p1 = p.mode(1).map_err(e)?;
    // The zipped parts: one per result mode (a leaf-shaped first operand of CuTe's zip pairs
    // with the whole of the other one).
    let by_mode = if raked { p1.shape.is_tuple() } else { ap.shape.is_tuple() };
    let parts = |l: &Layout| if by_mode { l.modes() } else { vec![l.clone()] };
    let (amodes, pmodes) = (parts(&ap), parts(&p1));
    let rm = r.modes();
    for (k, m) in amodes.iter().enumerate() {
        if rm[k].mode(ka).map_err(e)? != *m {
            return Err(format!("1: mode {k} of {r} does not hold {m} in position {ka}"));
        }
    }
    // Split a 1-D index into one 1-D coordinate per part.
    let split = |ms: &[Layout], mut i: i64| -> Result<Vec<i64>, String> {
        let mut out = Vec::new();
        for m in ms {
            let n = m.size().map_err(e)?.value;
            out.push(i % n);
            i /= n;
        }
        Ok(out)
    };
    let (av, pv) = (ap.values().map_err(e)?, p1.values().map_err(e)?);
    for (i, &x) in av.iter().enumerate() {
        for (j, &y) in pv.iter().enumerate() {
            let (ci, cj) = (split(&amodes, i as i64)?, split(&pmodes, j as i64)?);
            let coord = IntTuple::Tuple(
                (0..rank)
                    .map(|k| {
                        let (u, v) = (IntTuple::dy(ci[k]), IntTuple::dy(cj[k]));
                        IntTuple::tuple(if raked { [v, u] } else { [u, v] })
                    })
                    .collect(),
            );
            let got = r.call(&coord).map_err(e)?.value;
            if got != x + y {
                return Err(format!("2: {r}{coord} = {got} but {ap}({i}) + {p1}({j}) = {}", x + y));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::builtins::algebra::to_tiler;
    use crate::expr::eval_str;

    fn l(text: &str) -> Layout {
        eval_str(text).unwrap().to_layout().unwrap()
    }
    fn t(text: &str) -> Tiler {
        to_tiler(&eval_str(text).unwrap()).unwrap()
    }

    #[test]
    fn real_cute_probes() {
        // Printed by real CuTe 4.2 (g++ probe, /tmp/probe/p1.cases).
        let (a, b) = (l("(_2,_2):(_1,_2)"), l("(_3,_4):(_1,_3)"));
        let r = blocked_product(&a, &b).unwrap();
        assert_eq!(r.to_string(), "((_2,_3),(_2,_4)):((_1,_4),(_2,_12))");
        check_blocked(&a, &b, &r, false).unwrap();
        let r = raked_product(&a, &b).unwrap();
        assert_eq!(r.to_string(), "((_3,_2),(_4,_2)):((_4,_1),(_12,_2))");
        check_blocked(&a, &b, &r, true).unwrap();
        assert_eq!(blocked_product(&l("_2:_1"), &l("_3:_1")).unwrap().to_string(), "((_2,_3)):((_1,_2))");
        assert_eq!(raked_product(&l("_2:_1"), &l("_3:_1")).unwrap().to_string(), "((_3,_2)):((_2,_1))");
        assert_eq!(blocked_product(&a, &l("_3:_1")).unwrap().to_string(), "((_2,_3),(_2,_1)):((_1,_4),(_2,_0))");
        let (a1, b1) = (l("_2:1"), l("(_1):(_2)"));
        let r = blocked_product(&a1, &b1).unwrap();
        assert_eq!(r.to_string(), "((_2,(_1))):((1,(4)))");
        check_blocked(&a1, &b1, &r, false).unwrap();
        let r = logical_product(&a, &t("(_3,_4)")).unwrap();
        assert_eq!(r.to_string(), "((_2,_3),(_2,(_2,_2))):((_1,_2),(_2,(_1,_4)))");
        check_postconditions(&a, &t("(_3,_4)"), &r).unwrap();
        assert_eq!(zipped_product(&a, &t("(_3,_4)")).unwrap().to_string(), "((_2,_2),(_3,(_2,_2))):((_1,_2),(_2,(_1,_4)))");
        assert_eq!(tiled_product(&a, &t("(_3,_4)")).unwrap().to_string(), "((_2,_2),_3,(_2,_2)):((_1,_2),_2,(_1,_4))");
        assert_eq!(flat_product(&a, &t("(_3,_4)")).unwrap().to_string(), "(_2,_2,_3,(_2,_2)):(_1,_2,_2,(_1,_4))");
        let e = logical_product(&l("_2:_2"), &t("_3:_1")).unwrap_err();
        assert!(matches!(e, Error::ShapeDivisibility { .. }), "{e}");
    }
}
