//! `local_partition(A, thr, index)` on layouts (CuTe: `outer_partition` on tensors,
//! tensor_impl.hpp; this is the layout part).
//!
//! Definition (CuTe 4.2): the tiler is `product_each(shape(thr))` (one integer per top mode of
//! `thr`), `Z = zipped_divide(A, tiler)`, the coordinate is `thr.get_flat_coord(index)` (one 1-D
//! coordinate per top mode, or a plain integer when `thr` is rank 1); the coordinate slices mode 0
//! of `Z` (padded with `_` to `rank<0>(Z)`) and mode 1 is kept, unpacked. The offset is returned by
//! [`local_partition_with_offset`].
//!
//! Postconditions (checked by [`check_postconditions`]), with `c` the full slicing coordinate and
//! `off = Z(c with _ as 0)`:
//! 1. `size(R)` is the product of the sizes of the modes `c` keeps (those paired with `_`).
//! 2. `R(i) + off == Z(full(i))` for every `i < size(R)`, where `full(i)` puts `i`'s coordinates
//!    (split over the kept modes, first fastest) at the kept modes and `c`'s integers elsewhere.
//!
//! Sources: CuTe's [tensor_impl.hpp: `local_partition := outer_partition`, i.e. zipped_divide by
//! the thread layout's shape then a slice of mode 0; no unit test in test/unit/cute/core].

use super::error::Result;
use super::int::Int;
use super::layout::{crd2idx, Layout};
use super::logical_divide::logical_divide;
use super::postcondition::Checked;
use super::runtime::deferred;
use super::slice::{pad, repeat_under, slice_and_offset, Coord};
use super::tiler::Tiler;
use super::zipped_divide::zipped_divide_unchecked;

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
pub(crate) fn partition_parts(a: &Layout, thr: &Layout, index: Int) -> Result<(Tiler, Layout, Coord)> {
    let tiler = Tiler::Tuple(thr.modes().iter().map(|m| m.size().map(Tiler::Int)).collect::<Result<_>>()?);
    let z = zipped_divide_unchecked(a, &tiler)?;
    let c = partition_coord(&z, thr, index)?;
    Ok((tiler, z, c))
}

/// The full coordinate that slices the zipped divide `z` for thread `index` of `thr`.
pub(crate) fn partition_coord(z: &Layout, thr: &Layout, index: Int) -> Result<Coord> {
    let coord = flat_coord(thr, index)?;
    let (r0, r1) = (z.mode(0)?.rank(), z.mode(1)?.rank());
    let c0 = match &coord {
        Coord::Tuple(v) => pad(v, r0)?,
        other => other.clone(),
    };
    Ok(Coord::Tuple(vec![c0, repeat_under(r1)]))
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

/// Check a `local_partition(a, thr, index)` result `r` against the definition.
pub fn check_postconditions(a: &Layout, thr: &Layout, index: Int, r: &Layout) -> Checked {
    let (_, z, c) = partition_parts(a, thr, index)?;
    let off = crd2idx(&c.zeroed(), &z.shape, &z.stride)?;
    super::slice::check_postconditions(&z, &c, r, off)
}
