//! Helpers shared by the zipped, tiled and flat divides and products: CuTe's `zip2_by` /
//! `tile_unzip` regrouping along a tiler and the unpacking of a rank-2 result's modes.

use super::postcondition::{cite, Checked, Violation};
use super::coalesce::by_mode;
use super::error::{Error, Result};
use super::int_tuple::IntTuple;
use super::layout::Layout;
use super::tiler::Tiler;

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
                    other => return Err(mismatched(&other, "zip2_by: a divided mode is not rank 2, so its get<1> fails (CuTe: Index out of range)")),
                }
            }
            second.extend(items[g.len()..].iter().cloned());
            Ok(IntTuple::Tuple(vec![IntTuple::Tuple(first), IntTuple::Tuple(second)]))
        }
        (Tiler::Tuple(_), IntTuple::Leaf(_)) => Err(mismatched(t, "zip2_by: a tuple tiler on a leaf mode")),
        (_, IntTuple::Tuple(items)) if items.len() == 2 => Ok(t.clone()),
        _ => Err(mismatched(t, "zip2_by: a divided mode is not rank 2, so its get<1> fails (CuTe: Index out of range)")),
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

/// The tiler forms of `logical_divide` and `logical_product` (`op`): `_` keeps `A`, a tuple
/// applies its elements to `A`'s modes (more elements than modes is "`op`: Too many modes in
/// tiler."; further modes of `A` are kept), a layout or an integer `n` (the layout `n:_1`) applies
/// `on_layout`.
pub(crate) fn by_tiler(
    a: &Layout,
    t: &Tiler,
    op: &'static str,
    on_layout: &dyn Fn(&Layout, &Layout) -> Result<Layout>,
) -> Result<Layout> {
    match t {
        Tiler::Underscore => Ok(a.clone()),
        Tiler::Tuple(items) => {
            if items.len() > a.rank() {
                return Err(Error::TooManyModes { op });
            }
            by_mode(a, items, op, |m, ti| by_tiler(m, ti, op, on_layout))
        }
        Tiler::Layout(b) => on_layout(a, b),
        other => on_layout(a, &other.as_layout().expect("layout or int")),
    }
}

/// The postconditions of a tiler form (see [`by_tiler`]): `_` leaves `A` unchanged, a tuple holds
/// mode by mode with `A`'s further modes unchanged, a layout `B` is checked by `check_layout(A, B, R)`.
pub(crate) fn check_by_tiler(
    a: &Layout,
    t: &Tiler,
    r: &Layout,
    check_layout: fn(&Layout, &Layout, &Layout) -> Checked,
) -> Checked {
    match t {
        Tiler::Underscore => (a == r).then_some(()).ok_or_else(|| Violation::cute(cite::TILER_FORMS, format!("_ changed {a} into {r}"))),
        Tiler::Tuple(items) => {
            if r.rank() != a.rank() {
                return Err(Violation::cute(cite::TILER_FORMS, format!("rank({r}) != rank({a})")));
            }
            let (am, rm) = (a.modes(), r.modes());
            for k in 0..am.len() {
                match items.get(k) {
                    Some(tk) => check_by_tiler(&am[k], tk, &rm[k], check_layout)?,
                    None if am[k] != rm[k] => return Err(Violation::cute(cite::TILER_FORMS, format!("untouched mode {} became {}", am[k], rm[k]))),
                    None => {}
                }
            }
            Ok(())
        }
        other => check_layout(a, &other.as_layout().expect("layout or int"), r),
    }
}

/// Postconditions 2 and 3 of the tiled and flat forms (divides and products alike): `r` is the
/// zipped result `z` with mode 1 (`first` false) or modes 0 and 1 (`first` true) unpacked, and the
/// same function as `z`.
pub(crate) fn check_unpacked(z: &Layout, r: &Layout, first: bool) -> Checked {
    let want = unpack(z, first)?;
    if *r != want {
        let which = if first { "modes 0 and 1" } else { "mode 1" };
        return Err(Violation::cute(cite::ZIP, format!("2: {r} is not {z} with {which} unpacked ({want})")));
    }
    if r.values()? != z.values()? {
        return Err(Violation::cute(cite::ZIP, format!("3: {r} and {z} differ as functions")));
    }
    Ok(())
}
