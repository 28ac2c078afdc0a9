//! `local_tile(A, tiler, coord)` on layouts (CuTe: `inner_partition` on tensors,
//! tensor_impl.hpp; this is the layout part).
//!
//! Definition (CuTe 4.2): `Z = zipped_divide(A, tiler)`; a tuple `coord` is padded with `_` to
//! `rank<1>(Z)` elements and slices mode 1 while mode 0 is kept (unpacked when its rank is above
//! 1): `Z(repeat<R0>(_), append<R1>(coord, _))`. An integer `coord` slices the whole of mode 1
//! away. The result is the sliced layout; the offset `Z(coord with _ as 0)` is returned by
//! [`local_tile_with_offset`].
//!
//! Postconditions (checked by [`check_postconditions`]), with `c` the full slicing coordinate and
//! `off = Z(c with _ as 0)`:
//! 1. `size(R)` is the product of the sizes of the modes `c` keeps (those paired with `_`).
//! 2. `R(i) + off == Z(full(i))` for every `i < size(R)`, where `full(i)` puts `i`'s coordinates
//!    (split over the kept modes, first fastest) at the kept modes and `c`'s integers elsewhere.
//!
//! Sources: CuTe's [tensor_impl.hpp: `local_tile := inner_partition`, i.e. zipped_divide then a
//! slice of mode 1 by the coordinate; CUTLASS has no unit test of it in test/unit/cute/core].

use super::error::Result;
use super::int::Int;
use super::layout::{crd2idx, Layout};
use super::logical_divide::logical_divide;
use super::postcondition::Checked;
use super::runtime::deferred;
use super::slice::{pad, repeat_under, slice_and_offset, Coord};
use super::tiler::Tiler;
use super::zipped_divide::{zipped_divide, zipped_divide_unchecked};

/// The full coordinate that slices `Z` for `local_tile`.
pub(crate) fn tile_coord(z: &Layout, coord: &Coord) -> Result<Coord> {
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

/// Check a `local_tile(a, tiler, coord)` result `r` (for example CuTe's print) against the
/// definition; the offset is the zipped divide at the coordinate with `_` as 0.
pub fn check_postconditions(a: &Layout, tiler: &Tiler, coord: &Coord, r: &Layout) -> Checked {
    let z = zipped_divide(a, tiler)?;
    let c = tile_coord(&z, coord)?;
    let off = crd2idx(&c.zeroed(), &z.shape, &z.stride)?;
    super::slice::check_postconditions(&z, &c, r, off)
}
