//! The divides (layout.hpp): `logical_divide`, `zipped_divide`, `tiled_divide`, `flat_divide`.
//!
//! Definitions (CuTe 4.2):
//! - `logical_divide(A, B)` for a layout `B`:
//!   `composition(A, make_layout(B, complement(B, shape(coalesce(A)))))`, a rank-2 layout
//!   `(tile, rest)`. For a tiler: a tuple divides mode `i` of `A` by element `i` and keeps `A`'s
//!   further modes (more elements than modes is "logical_divide: Too many modes in tiler."); `_`
//!   leaves the mode; an integer `n` is the layout `n:_1`.
//! - `zipped_divide(A, T)`: `logical_divide` followed by CuTe's `zip2_by` along the tiler: for a
//!   tuple tiler the tile parts of the divided modes are gathered into mode 0 and their rest parts
//!   (then `A`'s untouched modes) into mode 1: `((t0,t1,..),(r0,r1,..,x,y))`. A mode selected by a
//!   non-tuple tiler element must itself be rank 2 (so `_` on a leaf mode is refused, as CuTe
//!   fails to compile it).
//! - `tiled_divide`: the zipped result with mode 1 unpacked: `((t0,t1,..),r0,r1,..)`.
//! - `flat_divide`: both modes unpacked: `(t0,t1,..,r0,r1,..)`. A mode of rank 1 is not unpacked
//!   (CuTe slices it with a single `_`).
//!
//! Postconditions of `logical_divide(A, B)` for a layout `B` (checked by [`check_postconditions`];
//! the compositions and complements inside are checked against their own definitions, and a
//! violation is [`Error::Undefined`]):
//! 1. `rank(R) == 2` and mode 0 of `R` is `A o B` as a function: `R(i, 0) == A(B(i))`.
//! 2. With `C = complement(B, shape(coalesce(A)))`: `R(i, j) == A(B(i) + C(j))` for all `i, j`,
//!    and `(B, C)` is injective (so `R` visits each element of `A` it reaches once per coordinate).
//! 3. `size(R) >= size(A)`.
//!
//! For a tuple tiler, these hold mode by mode and the untouched modes of `A` are unchanged.
//!
//! Fast path: a divide reduces to a complement and a composition, each with its analytic
//! certificate (see `composition`, `complement` and `fast`). CuTe's computation runs once
//! (`Mode::Certify`); when every complement and composition inside is certified (and small
//! enough to verify) the result is returned, since every brute-force check would pass; otherwise
//! the checked computation runs as before, so results and errors are unchanged.

use std::cell::Cell;

use super::coalesce::{by_mode, coalesce, coalesce_modes};
use super::complement::complement_unchecked;
use super::composition::composition_unchecked;
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::Layout;
use super::runtime::{checks_on, deferred, Mode};
use super::tiler::Tiler;

/// `logical_divide(A, B)` for a layout `B`.
///
/// CuTe's steps run first (so a static_assert inside is reported as CuTe reports it); then the
/// complement and the composition are checked against their definitions ([`Error::Undefined`]).
pub fn logical_divide_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    let ok = Cell::new(true);
    let r = deferred(|| divide_layout(a, b, Mode::Certify(&ok)))?;
    if ok.get() || !checks_on() {
        return Ok(r);
    }
    divide_layout(a, b, Mode::Checked)
}

/// Fast path: in [`Mode::Certify`], when the analytic certificates (see `fast`) show that the
/// complement `C = complement(B, shape(coalesce(A)))` and the composition `A o (B, C)` satisfy
/// their postconditions, and `(B, C)` is small enough to verify, the brute-force checks are
/// skipped; they would all pass, so the result (and every error) is the same as with
/// [`Mode::Checked`], which the callers fall back to otherwise.
fn divide_layout(a: &Layout, b: &Layout, mode: Mode) -> Result<Layout> {
    let cot = coalesce_modes(a)?.shape();
    let c = complement_unchecked(b, Some(&cot))?;
    let certify = matches!(mode, Mode::Certify(_)) && checks_on();
    let c_ok = certify && super::complement::certified(b, Some(&cot), &c);
    let c_kept = matches!(mode, Mode::Checked).then(|| c.clone());
    let bc = Layout {
        shape: IntTuple::Tuple(vec![b.shape.clone(), c.shape]),
        stride: IntTuple::Tuple(vec![b.stride.clone(), c.stride]),
    };
    let r = composition_unchecked(a, &bc)?;
    match mode {
        Mode::Certify(ok) if certify => {
            if !(c_ok && super::composition::walkable(&bc).is_ok() && super::fast::composition_ok(a, &bc, &r)) {
                ok.set(false);
            }
        }
        Mode::Checked if checks_on() => {
            let c = c_kept.expect("kept in checked mode");
            super::composition::walkable(&bc)?;
            undefined("complement", super::complement::verified(b, Some(&cot), &c))?;
            undefined("composition", super::composition::verified(a, &bc, &r))?;
        }
        _ => {}
    }
    Ok(r)
}

pub(crate) fn undefined(op: &'static str, r: Result<(), String>) -> Result<()> {
    r.map_err(|reason| Error::Undefined { op, reason })
}

fn divide_tiler(a: &Layout, t: &Tiler, mode: Mode) -> Result<Layout> {
    match t {
        Tiler::Underscore => Ok(a.clone()),
        Tiler::Tuple(items) => {
            if items.len() > a.rank() {
                return Err(Error::TooManyModes { op: "logical_divide" });
            }
            by_mode(a, items, "logical_divide", |m, ti| divide_tiler(m, ti, mode))
        }
        Tiler::Layout(b) => divide_layout(a, b, mode),
        other => divide_layout(a, &other.as_layout().expect("layout or int"), mode),
    }
}

/// `logical_divide(A, tiler)`: CuTe's computation (with the certificates) first; only when a
/// certificate does not apply is it redone with the brute-force checks.
pub fn logical_divide(a: &Layout, t: &Tiler) -> Result<Layout> {
    let ok = Cell::new(true);
    let r = deferred(|| divide_tiler(a, t, Mode::Certify(&ok)))?;
    if ok.get() || !checks_on() {
        return Ok(r);
    }
    divide_tiler(a, t, Mode::Checked)
}

/// CuTe's algorithm for `logical_divide(A, tiler)` without the definition checks.
pub fn logical_divide_unchecked(a: &Layout, t: &Tiler) -> Result<Layout> {
    divide_tiler(a, t, Mode::Unchecked)
}

fn mismatched(t: &IntTuple, what: &str) -> Error {
    Error::MismatchedRanks { detail: format!("{what}: {t}") }
}

/// CuTe's `zip2_by(t, guide)` on one int tuple (shape or stride).
pub(crate) fn zip2_by(t: &IntTuple, guide: &Tiler) -> Result<IntTuple> {
    match (guide, t) {
        (Tiler::Tuple(g), IntTuple::Tuple(items)) => {
            if items.len() < g.len() {
                return Err(mismatched(t, "zip2_by: fewer modes than the tiler"));
            }
            let (mut first, mut second) = (Vec::new(), Vec::new());
            for (ti, gi) in items.iter().zip(g) {
                match zip2_by(ti, gi)? {
                    IntTuple::Tuple(pair) if pair.len() == 2 => {
                        let mut pair = pair.into_iter();
                        first.extend(pair.next());
                        second.extend(pair.next());
                    }
                    other => return Err(mismatched(&other, "zip2_by: a divided mode is not rank 2")),
                }
            }
            second.extend(items[g.len()..].iter().cloned());
            Ok(IntTuple::Tuple(vec![IntTuple::Tuple(first), IntTuple::Tuple(second)]))
        }
        (Tiler::Tuple(_), IntTuple::Leaf(_)) => Err(mismatched(t, "zip2_by: a tuple tiler on a leaf mode")),
        (_, IntTuple::Tuple(items)) if items.len() == 2 => Ok(t.clone()),
        _ => Err(mismatched(t, "zip2_by: a divided mode is not rank 2")),
    }
}

/// CuTe's `tile_unzip(layout, tiler)`.
pub(crate) fn tile_unzip(l: &Layout, t: &Tiler) -> Result<Layout> {
    Ok(Layout { shape: zip2_by(&l.shape, t)?, stride: zip2_by(&l.stride, t)? })
}

/// The modes a slice with `repeat<rank>(_)` keeps of `m`: its own modes when its rank is above 1,
/// else `m` itself.
fn lifted(m: &Layout) -> Vec<Layout> {
    if m.rank() > 1 {
        m.modes()
    } else {
        vec![m.clone()]
    }
}

/// `result(_, repeat<R1>(_))` (`first` false) or `result(repeat<R0>(_), repeat<R1>(_))` (`first`
/// true) on a rank-2 layout.
pub(crate) fn unpack(l: &Layout, first: bool) -> Result<Layout> {
    let (m0, m1) = (l.mode(0)?, l.mode(1)?);
    let mut out = if first { lifted(&m0) } else { vec![m0] };
    out.extend(lifted(&m1));
    Ok(Layout::concat(&out))
}

/// `zipped_divide(A, tiler)`.
///
/// CuTe's whole computation (including `zip2_by`, whose rank errors are compile-time errors) runs
/// before the definition checks of `logical_divide`.
pub fn zipped_divide(a: &Layout, t: &Tiler) -> Result<Layout> {
    let ok = Cell::new(true);
    let z = deferred(|| tile_unzip(&divide_tiler(a, t, Mode::Certify(&ok))?, t))?;
    if !ok.get() && checks_on() {
        logical_divide(a, t)?;
    }
    Ok(z)
}

/// CuTe's algorithm for `zipped_divide(A, tiler)` without the definition checks.
pub fn zipped_divide_unchecked(a: &Layout, t: &Tiler) -> Result<Layout> {
    tile_unzip(&logical_divide_unchecked(a, t)?, t)
}

/// `tiled_divide(A, tiler)`.
pub fn tiled_divide(a: &Layout, t: &Tiler) -> Result<Layout> {
    unpack(&zipped_divide(a, t)?, false)
}

/// `flat_divide(A, tiler)`.
pub fn flat_divide(a: &Layout, t: &Tiler) -> Result<Layout> {
    unpack(&zipped_divide(a, t)?, true)
}

/// Check the numbered postconditions of `logical_divide(A, tiler) == R`.
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
    if r.rank() != 2 {
        return Err(format!("1: rank({r}) != 2"));
    }
    let (r0, r1) = (r.mode(0).map_err(e)?, r.mode(1).map_err(e)?);
    let bv = b.values().map_err(e)?;
    let r0v = r0.values().map_err(e)?;
    if r0v.len() != bv.len() {
        return Err(format!("1: size of mode 0 of {r} != size({b})"));
    }
    for (i, &x) in bv.iter().enumerate() {
        let want = a.call_int(Int::dy(x)).map_err(e)?.value;
        if r0v[i] != want {
            return Err(format!("1: {r}({i},0) = {} but {a}({b}({i})) = {want}", r0v[i]));
        }
    }
    let cot = coalesce(a).map_err(e)?.shape;
    let c = complement_unchecked(b, Some(&cot)).map_err(e)?;
    super::complement::check_postconditions(b, Some(&cot), &c).map_err(|m| format!("2: complement: {m}"))?;
    let cv = c.values().map_err(e)?;
    let r1v = r1.values().map_err(e)?;
    if r1v.len() != cv.len() {
        return Err(format!("2: size of mode 1 of {r} != size({c})"));
    }
    for (j, &y) in cv.iter().enumerate() {
        for (i, &x) in bv.iter().enumerate() {
            let want = a.call_int(Int::dy(x + y)).map_err(e)?.value;
            let got = r.call(&IntTuple::tuple([IntTuple::dy(i as i64), IntTuple::dy(j as i64)])).map_err(e)?.value;
            if got != want {
                return Err(format!("2: {r}({i},{j}) = {got} but {a}({x}+{y}) = {want}"));
            }
        }
    }
    let (n, m) = (r.size().map_err(e)?.value, a.size().map_err(e)?.value);
    if n < m {
        return Err(format!("3: size({r}) = {n} < size({a}) = {m}"));
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
    fn chapter_cases() {
        // The chapter's table (identical to real CuTe 4.2's prints).
        let a = l("_24:_1");
        let r = logical_divide(&a, &t("_4:_2")).unwrap();
        assert_eq!(r.to_string(), "(_4,(_2,_3)):(_2,(_1,_8))");
        check_postconditions(&a, &t("_4:_2"), &r).unwrap();
        let a = l("(_16,_8):(_1,_16)");
        assert_eq!(zipped_divide(&a, &t("(_2,_2)")).unwrap().to_string(), "((_2,_2),(_8,_4)):((_1,_16),(_2,_32))");
        assert_eq!(zipped_divide(&a, &t("(_16,_2)")).unwrap().to_string(), "((_16,_2),(_1,_4)):((_1,_16),(_0,_32))");
        let r = logical_divide(&a, &t("(_16,_2)")).unwrap();
        check_postconditions(&a, &t("(_16,_2)"), &r).unwrap();
    }

    #[test]
    fn real_cute_probes() {
        // Printed by real CuTe 4.2 (g++ probes under /tmp/probe).
        let a = l("(_16,_8):(_1,_16)");
        assert_eq!(zipped_divide(&a, &t("_4:_2")).unwrap().to_string(), "(_4,(_2,_16)):(_2,(_1,_8))");
        assert_eq!(tiled_divide(&a, &t("_4:_2")).unwrap().to_string(), "(_4,_2,_16):(_2,_1,_8)");
        assert_eq!(flat_divide(&a, &t("_4:_2")).unwrap().to_string(), "(_4,_2,_16):(_2,_1,_8)");
        assert_eq!(
            zipped_divide(&a, &t("(_16:_1,_2:_1)")).unwrap().to_string(),
            "((_16,_2),(_1,_4)):((_1,_16),(_0,_32))"
        );
        assert!(matches!(zipped_divide(&a, &t("(_2,_)")), Err(Error::MismatchedRanks { .. })));
        let a = l("(_16,_8,_2):(_1,_16,_128)");
        assert_eq!(
            zipped_divide(&a, &t("(_2,_2)")).unwrap().to_string(),
            "((_2,_2),(_8,_4,_2)):((_1,_16),(_2,_32,_128))"
        );
        assert_eq!(tiled_divide(&a, &t("(_2,_2)")).unwrap().to_string(), "((_2,_2),_8,_4,_2):((_1,_16),_2,_32,_128)");
        assert_eq!(flat_divide(&a, &t("(_2,_2)")).unwrap().to_string(), "(_2,_2,_8,_4,_2):(_1,_16,_2,_32,_128)");
        assert_eq!(logical_divide(&l("24:1"), &t("4:2")).unwrap().to_string(), "(4,(2,3)):(2,(1,8))");
    }
}
