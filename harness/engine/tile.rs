//! Helpers shared by the zipped, tiled and flat divides and products: CuTe's `zip2_by` /
//! `tile_unzip` regrouping along a tiler and the unpacking of a rank-2 result's modes.

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

