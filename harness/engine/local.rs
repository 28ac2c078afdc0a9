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

use super::divide::{logical_divide, zipped_divide, zipped_divide_unchecked};
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::{crd2idx, Layout};
use super::runtime::deferred;
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
    fn zeroed(&self) -> IntTuple {
        match self {
            Coord::Under => IntTuple::st(0),
            Coord::Int(i) => IntTuple::Leaf(*i),
            Coord::Tuple(v) => IntTuple::Tuple(v.iter().map(Coord::zeroed).collect()),
        }
    }
}

/// CuTe's `lift_slice(c, (shape, stride))`: the kept sub-layouts, in order.
fn lift(c: &Coord, l: &Layout, out: &mut Vec<Layout>) -> Result<()> {
    match c {
        Coord::Under => out.push(l.clone()),
        Coord::Int(_) => {}
        Coord::Tuple(v) => {
            if !l.shape.is_tuple() || v.len() != l.rank() {
                return Err(Error::MismatchedRanks { detail: format!("slicing {l} with a coordinate of rank {}", v.len()) });
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

fn repeat_under(r: usize) -> Coord {
    if r == 1 {
        Coord::Under
    } else {
        Coord::Tuple(vec![Coord::Under; r])
    }
}

/// `append<r>(coord, _)`: pad a tuple coordinate with `_`.
fn pad(c: &[Coord], r: usize) -> Result<Coord> {
    if c.len() > r {
        return Err(Error::MismatchedRanks { detail: format!("a coordinate of rank {} for a mode of rank {r}", c.len()) });
    }
    let mut v = c.to_vec();
    v.resize(r, Coord::Under);
    Ok(Coord::Tuple(v))
}

/// The full coordinate that slices `Z` for `local_tile`.
fn tile_coord(z: &Layout, coord: &Coord) -> Result<Coord> {
    let (r0, r1) = (z.mode(0)?.rank(), z.mode(1)?.rank());
    let c1 = match coord {
        Coord::Tuple(v) => pad(v, r1)?,
        other => other.clone(),
    };
    Ok(Coord::Tuple(vec![repeat_under(r0), c1]))
}

/// `local_tile(A, tiler, coord)` with the offset the tensor's pointer would move by.
pub fn local_tile_with_offset(a: &Layout, tiler: &Tiler, coord: &Coord) -> Result<(Layout, Int)> {
    // CuTe's whole computation (the slice's rank checks are compile-time) before the definition
    // checks of the divide.
    let r = deferred(|| {
        let z = zipped_divide_unchecked(a, tiler)?;
        slice_and_offset(&tile_coord(&z, coord)?, &z)
    })?;
    logical_divide(a, tiler)?;
    Ok(r)
}

/// `local_tile(A, tiler, coord)`: the layout of CuTe's resulting tensor.
pub fn local_tile(a: &Layout, tiler: &Tiler, coord: &Coord) -> Result<Layout> {
    Ok(local_tile_with_offset(a, tiler, coord)?.0)
}

/// `thr.get_flat_coord(index)`: `idx2crd(index, shape, stride)` then one 1-D coordinate per top
/// mode (a plain integer for a rank-1 `thr`).
fn flat_coord(thr: &Layout, index: Int) -> Result<Coord> {
    let mut per_mode = Vec::new();
    for m in thr.modes() {
        let (mut acc, mut scale) = (Int::st(0), Int::st(1));
        for (s, d) in m.leaf_pairs() {
            // CuTe skips a static _1 extent (avoiding a division by a zero stride).
            let c = if s.is_static_value(1) { Int::st(0) } else { index.div(d)?.rem(s)? };
            acc = acc.add(c.mul(scale)?)?;
            scale = scale.mul(s)?;
        }
        per_mode.push(Coord::Int(acc));
    }
    Ok(if per_mode.len() == 1 { per_mode.pop().expect("one") } else { Coord::Tuple(per_mode) })
}

/// The tiler and full slicing coordinate of `local_partition`, and the zipped divide.
fn partition_parts(a: &Layout, thr: &Layout, index: Int) -> Result<(Tiler, Layout, Coord)> {
    let tiler = Tiler::Tuple(thr.modes().iter().map(|m| m.size().map(Tiler::Int)).collect::<Result<_>>()?);
    let z = zipped_divide_unchecked(a, &tiler)?;
    let coord = flat_coord(thr, index)?;
    let (r0, r1) = (z.mode(0)?.rank(), z.mode(1)?.rank());
    let c0 = match &coord {
        Coord::Tuple(v) => pad(v, r0)?,
        other => other.clone(),
    };
    Ok((tiler, z, Coord::Tuple(vec![c0, repeat_under(r1)])))
}

/// `local_partition(A, thr, index)` with the offset the tensor's pointer would move by.
pub fn local_partition_with_offset(a: &Layout, thr: &Layout, index: Int) -> Result<(Layout, Int)> {
    let (r, tiler) = deferred(|| {
        let (tiler, z, c) = partition_parts(a, thr, index)?;
        Ok((slice_and_offset(&c, &z)?, tiler))
    })?;
    logical_divide(a, &tiler)?;
    Ok(r)
}

/// `local_partition(A, thr, index)`: the layout of CuTe's resulting tensor.
pub fn local_partition(a: &Layout, thr: &Layout, index: Int) -> Result<Layout> {
    Ok(local_partition_with_offset(a, thr, index)?.0)
}

/// Check a `local_tile(a, tiler, coord)` result `r` (for example CuTe's print) against the
/// definition; the offset is the zipped divide at the coordinate with `_` as 0.
pub fn check_local_tile(a: &Layout, tiler: &Tiler, coord: &Coord, r: &Layout) -> Result<(), String> {
    let z = zipped_divide(a, tiler).map_err(|e| e.to_string())?;
    let c = tile_coord(&z, coord).map_err(|e| e.to_string())?;
    let off = crd2idx(&c.zeroed(), &z.shape, &z.stride).map_err(|e| e.to_string())?;
    check_postconditions(&z, &c, r, off)
}

/// Check a `local_partition(a, thr, index)` result `r` against the definition.
pub fn check_local_partition(a: &Layout, thr: &Layout, index: Int, r: &Layout) -> Result<(), String> {
    let (_, z, c) = partition_parts(a, thr, index).map_err(|e| e.to_string())?;
    let off = crd2idx(&c.zeroed(), &z.shape, &z.stride).map_err(|e| e.to_string())?;
    check_postconditions(&z, &c, r, off)
}

/// Fill the `_` positions of `c` with the given values, in order.
fn fill(c: &Coord, z: &Layout, vals: &mut impl Iterator<Item = IntTuple>) -> Result<IntTuple> {
    Ok(match c {
        Coord::Under => vals.next().ok_or_else(|| Error::OutOfRange("too few kept modes".into()))?,
        Coord::Int(i) => IntTuple::Leaf(*i),
        Coord::Tuple(v) => {
            let modes = z.modes();
            IntTuple::Tuple(v.iter().zip(&modes).map(|(ci, m)| fill(ci, m, vals)).collect::<Result<_>>()?)
        }
    })
}

/// Check the postcondition of a slice `(r, off)` of `z` by `c`.
pub fn check_postconditions(z: &Layout, c: &Coord, r: &Layout, off: Int) -> Result<(), String> {
    let e = |x: Error| x.to_string();
    let kept = match c {
        Coord::Under => vec![z.clone()],
        Coord::Int(_) => vec![],
        Coord::Tuple(_) => {
            let mut out = Vec::new();
            lift(c, z, &mut out).map_err(e)?;
            out
        }
    };
    let want_size = kept.iter().try_fold(1i64, |a, m| m.size().map(|s| a * s.value)).map_err(e)?;
    let n = r.size().map_err(e)?.value;
    if n != want_size {
        return Err(format!("size({r}) = {n} != {want_size}"));
    }
    for i in 0..n {
        // Split i over the kept modes (mode 0 fastest).
        let mut rest = i;
        let mut vals = Vec::new();
        for m in &kept {
            let s = m.size().map_err(e)?.value;
            vals.push(IntTuple::dy(rest % s));
            rest /= s;
        }
        let full = match c {
            Coord::Under => vals[0].clone(),
            Coord::Int(x) => IntTuple::Leaf(*x),
            _ => fill(c, z, &mut vals.into_iter()).map_err(e)?,
        };
        let want = z.call(&full).map_err(e)?.value;
        let got = r.call_int(Int::dy(i)).map_err(e)?.value + off.value;
        if got != want {
            return Err(format!("{r}({i}) + {off} = {got} but {z}{full} = {want}"));
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
