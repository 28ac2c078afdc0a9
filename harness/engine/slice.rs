//! `local_tile` and `local_partition` on layouts (CuTe does them on tensors in tensor_impl.hpp;
//! this is the layout part).
//!
//! Definitions (CuTe 4.2):
//! - `local_tile(A, tiler, coord)` (= `inner_partition`): `Z = zipped_divide(A, tiler)`; a tuple
//!   `coord` is padded with `_` to `rank<1>(Z)` elements and slices mode 1 while mode 0 is kept
//!   (unpacked when its rank is above 1): `Z(repeat<R0>(_), append<R1>(coord, _))`. An integer
//!   `coord` slices the whole of mode 1 away.
//! - `local_partition(A, thr, index)` (= `outer_partition`): the tiler is `product_each(shape(thr))`
//!   (one integer per top mode of `thr`), the coordinate is `thr.get_flat_coord(index)` (one 1-D
//!   coordinate per top mode, or a plain integer when `thr` is rank 1); the coordinate slices
//!   mode 0 of `Z` (padded with `_` to `rank<0>(Z)`) and mode 1 is kept, unpacked.
//!
//! Slicing keeps the modes paired with `_` and drops those paired with an integer. On a tensor the
//! dropped part becomes an offset of the data pointer; the tensor's layout (what CuTe prints for
//! `t.layout()`) is the returned layout. The offset `Z(coord with _ as 0)` is returned separately
//! by the `*_with_offset` functions. The layout does not depend on the values of the coordinate,
//! only on its form.
//!
//! Postconditions (checked by [`check_postconditions`], and from the operation's inputs by
//! [`check_local_tile`] / [`check_local_partition`]), with `Z` the zipped divide, `c` the full
//! slicing coordinate and `off = Z(c with _ as 0)`:
//! 1. `size(R)` is the product of the sizes of the modes `c` keeps (those paired with `_`).
//! 2. `R(i) + off == Z(full(i))` for every `i < size(R)`, where `full(i)` puts `i`'s coordinates
//!    (split over the kept modes, first fastest) at the kept modes and `c`'s integers elsewhere.
//!
//! Sources: CuTe's [tensor_impl.hpp: inner_partition / outer_partition, zipped_divide then slice].
//!
//! This module holds what the two share (slicing coordinates, `slice`, the slice check); each
//! operation lives in its own module (`local_tile`, `local_partition`) with its definition,
//! postconditions and `check_postconditions`; callers import those modules directly.

use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::{crd2idx, Layout};
use super::postcondition::{cite, Checked, Violation};
use super::tiler::Tiler;

/// A slicing coordinate: `_`, an integer, or a tuple of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Coord {
    Under,
    Int(Int),
    Tuple(Vec<Coord>),
}

impl Coord {
    /// A coordinate from a tiler-like value (`_`, integers, tuples); layouts are refused.
    pub fn from_tiler(t: &Tiler) -> Result<Coord> {
        match t {
            Tiler::Underscore => Ok(Coord::Under),
            Tiler::Int(i) => Ok(Coord::Int(*i)),
            Tiler::Tuple(v) => Ok(Coord::Tuple(v.iter().map(Coord::from_tiler).collect::<Result<_>>()?)),
            Tiler::Layout(l) => Err(Error::Type(format!("a coordinate cannot be the layout {l}"))),
        }
    }
    /// The int-tuple coordinate with `_` read as 0 (for offsets).
    pub fn zeroed(&self) -> IntTuple {
        match self {
            Coord::Under => IntTuple::st(0),
            Coord::Int(i) => IntTuple::leaf(*i),
            Coord::Tuple(v) => IntTuple::tuple(v.iter().map(Coord::zeroed)),
        }
    }
}

/// CuTe's `lift_slice(c, (shape, stride))`: the kept sub-layouts, in order.
fn lift(c: &Coord, l: &Layout, out: &mut Vec<Layout>) -> Result<()> {
    match c {
        Coord::Under => out.push(l.clone()),
        Coord::Int(_) => {}
        Coord::Tuple(v) => {
            // CuTe: get<I> of a non-tuple mode is "Index out of range"; tuples of two ranks are
            // "Mismatched Ranks".
            if !l.shape.is_tuple() {
                return Err(Error::OutOfRange(format!("a coordinate of rank {} for the mode {l}", v.len())));
            }
            if v.len() != l.rank() {
                return Err(Error::MismatchedRanks {
                    detail: format!("slicing {l} with a coordinate of rank {}", v.len()),
                });
            }
            for (ci, m) in v.iter().zip(l.modes()) {
                lift(ci, &m, out)?;
            }
        }
    }
    Ok(())
}

/// CuTe's `slice(c, layout)`: `_` gives the layout itself, an integer `():()`, a tuple the kept
/// sub-layouts side by side.
pub fn slice(c: &Coord, l: &Layout) -> Result<Layout> {
    match c {
        Coord::Under => Ok(l.clone()),
        Coord::Int(_) => Ok(Layout::concat(&[])),
        Coord::Tuple(_) => {
            let mut out = Vec::new();
            lift(c, l, &mut out)?;
            Ok(Layout::concat(&out))
        }
    }
}

/// CuTe's `slice_and_offset(c, layout)`: the sliced layout and `layout(c)` with `_` as 0.
pub fn slice_and_offset(c: &Coord, l: &Layout) -> Result<(Layout, Int)> {
    Ok((slice(c, l)?, crd2idx(&c.zeroed(), &l.shape, &l.stride)?))
}

pub(crate) fn repeat_under(r: usize) -> Coord {
    if r == 1 {
        Coord::Under
    } else {
        Coord::Tuple(vec![Coord::Under; r])
    }
}

/// `append<r>(coord, _)`: pad a tuple coordinate with `_`.
pub(crate) fn pad(c: &[Coord], r: usize) -> Result<Coord> {
    if c.len() > r {
        return Err(Error::MismatchedRanks {
            detail: format!("a coordinate of rank {} for a mode of rank {r}", c.len()),
        });
    }
    let mut v = c.to_vec();
    v.resize(r, Coord::Under);
    Ok(Coord::Tuple(v))
}

/// Fill the `_` positions of `c` with the given values, in order.
fn fill(c: &Coord, z: &Layout, vals: &mut impl Iterator<Item = IntTuple>) -> Result<IntTuple> {
    Ok(match c {
        Coord::Under => vals.next().ok_or_else(|| Error::OutOfRange("too few kept modes".into()))?,
        Coord::Int(i) => IntTuple::leaf(*i),
        Coord::Tuple(v) => {
            let modes = z.modes();
            IntTuple::tuple(v.iter().zip(&modes).map(|(ci, m)| fill(ci, m, vals)).collect::<Result<Vec<_>>>()?)
        }
    })
}

/// Check the postcondition of a slice `(r, off)` of `z` by `c`.
pub fn check_postconditions(z: &Layout, c: &Coord, r: &Layout, off: Int) -> Checked {
    let kept = match c {
        Coord::Under => vec![z.clone()],
        Coord::Int(_) => vec![],
        Coord::Tuple(_) => {
            let mut out = Vec::new();
            lift(c, z, &mut out)?;
            out
        }
    };
    let want_size = kept.iter().try_fold(1i64, |a, m| m.size().map(|s| a * s.value))?;
    let n = r.size()?.value;
    if n != want_size {
        return Err(Violation::cute(cite::LOCAL, format!("size({r}) = {n} != {want_size}")));
    }
    if n > super::layout::MAX_WALK {
        return Err(Violation::unverifiable(format!(
            "too large: {r} has {n} coordinates (limit {})",
            super::layout::MAX_WALK
        )));
    }
    for i in 0..n {
        // Split i over the kept modes (mode 0 fastest).
        let mut rest = i;
        let mut vals = Vec::new();
        for m in &kept {
            let s = m.size()?.value;
            vals.push(IntTuple::dy(rest % s));
            rest /= s;
        }
        let full = match c {
            Coord::Under => vals[0].clone(),
            Coord::Int(x) => IntTuple::leaf(*x),
            _ => fill(c, z, &mut vals.into_iter())?,
        };
        let want = z.call(&full)?.value;
        let got = r.call_int(Int::dy(i))?.value + off.value;
        if got != want {
            return Err(Violation::cute(cite::LOCAL, format!("{r}({i}) + {off} = {got} but {z}{full} = {want}")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local_partition::{
        check_postconditions as check_local_partition, local_partition_with_offset, partition_parts,
    };
    use crate::local_tile::{check_postconditions as check_local_tile, local_tile_with_offset, tile_coord};
    use crate::test_util::{l, t};
    use crate::zipped_divide::zipped_divide;

    #[test]
    fn chapter_partition_cases() {
        // fixtures/cases/layout_partition.cases; expected values printed by real CuTe 4.2 for the
        // tensor's layout (g++ probe with make_tensor(float*, layout)).
        let a = l("(_16,_8):(_1,_16)");
        let thr = l("(_16,_2):(_1,_16)");
        for idx in [0, 1, 16] {
            let (r, off) = local_partition_with_offset(&a, &thr, Int::dy(idx)).unwrap();
            assert_eq!(r.to_string(), "(_1,_4):(_0,_32)");
            let (_, z, c) = partition_parts(&a, &thr, Int::dy(idx)).unwrap();
            check_postconditions(&z, &c, &r, off).unwrap();
            check_local_partition(&a, &thr, Int::dy(idx), &r).unwrap();
        }
        // The offsets: real CuTe 4.2 moved the float pointer by 0x44 bytes (17 floats) for
        // local_partition(..., 17) and by 0x108 bytes (66 floats) for local_tile(..., (1,2))
        // (g++ probe printing t.data() for a nullptr-based tensor).
        assert_eq!(local_partition_with_offset(&a, &thr, Int::dy(17)).unwrap().1.value, 17);
        let c12 = Coord::from_tiler(&t("(1,2)")).unwrap();
        assert_eq!(local_tile_with_offset(&a, &t("(_2,_2)"), &c12).unwrap().1.value, 66);
        for coord in ["(0,0)", "(1,2)"] {
            let c = Coord::from_tiler(&t(coord)).unwrap();
            let (r, off) = local_tile_with_offset(&a, &t("(_2,_2)"), &c).unwrap();
            assert_eq!(r.to_string(), "(_2,_2):(_1,_16)");
            let z = zipped_divide(&a, &t("(_2,_2)")).unwrap();
            check_postconditions(&z, &tile_coord(&z, &c).unwrap(), &r, off).unwrap();
            check_local_tile(&a, &t("(_2,_2)"), &c, &r).unwrap();
        }
    }
}
