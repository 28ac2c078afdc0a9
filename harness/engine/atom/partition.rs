//! Per-thread partitions of a tile, on layouts: what CuTe's `ThrMMA::partition_A/B/C`,
//! `partition_shape_A/B/C`, and `ThrCopy::partition_S/D` do to a tensor's layout.
//!
//! On a tensor, slicing out one thread moves the data pointer; here the result is the pair
//! (offset, layout), printed as CuTe prints a tensor over `counting_iterator<int>(0)`:
//! `counting_iter(OFFSET) o LAYOUT`.
//!
//! Definitions (CuTe 4.2, atom/mma_atom.hpp and copy_atom.hpp):
//! 1. Thread `i` of a TiledMMA has the coordinate `thr_vmnk = ThrLayoutVMNK.get_flat_coord(i)`:
//!    per leaf `(i / d) % s` (`_0` for a static `_1` extent), then one column-major 1-D coordinate
//!    per top mode. CuTe checks no range: any `i` is accepted (thread indices are ThrLayoutVMNK's
//!    values, e.g. 0..127 for 2x2 SM70 quad-pairs whose VMNK has 32 coordinates).
//! 2. `partition_C(L) = thrfrg_C(L)((v, (m, n)), (_, (_, ..., _)))` (rank(L) underscores),
//!    `partition_A` uses `(v, (m, k))`, `partition_B` `(v, (n, k))`; the slice keeps FrgV and the
//!    rest modes: (FrgV, RestM, RestN, ...). `partition_shape_X(mma, shape)` is the shape of
//!    `thrfrg_X(make_layout(shape))(0, (_, (_, ...)))`.
//! 3. `ThrCopy::partition_S(L) = tidfrg_S(L)(i, _, (_, ..., _))` with
//!    `tidfrg_S(L) = tile2thrfrg(zipped_divide(L, Tiler_MN), right_inverse(Ref) o Src)` and
//!    `tile2thrfrg(T, r2t)`: `A = zipped_divide(TiledLayout_TV, (AtomNumThr, AtomNumVal))`, mode 0
//!    composed with `r2t`, zipped to ((trg_tid, rest_tid), (trg_val, rest_val)) and coalesced by
//!    the profile `(_1,(_1,_1))`; then `T` composed with that in mode 0 and sliced `((_,_),_)`.
//!    `partition_D` uses `Dst` in place of `Src`.
//!
//! Postcondition (tested): the offsets plus layout values of all threads' partitions of a tile
//! cover the tile's indices, each once per value the TV layout gives it.

use std::fmt;

use super::tiled_copy::TiledCopy;
use super::tiled_mma::TiledMma;
use crate::coalesce::coalesce_by;
use crate::composition::{composition, composition_tiler};
use crate::right_inverse::right_inverse;
use crate::slice::{slice, slice_and_offset, Coord};
use crate::zipped_divide::zipped_divide;
use crate::{Error, Int, IntTuple, Layout, Result, Tiler, Tup};

/// A thread's part of a tensor over a counting iterator: offset and layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    pub offset: Int,
    pub layout: Layout,
}

impl fmt::Display for Partition {
    /// CuTe's `print` of a tensor over `counting_iterator<int>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "counting_iter({}) o {}", self.offset.value, self.layout)
    }
}

/// `layout.get_flat_coord(idx)`: one 1-D coordinate per top mode.
pub fn flat_coord(layout: &Layout, idx: i64) -> Result<Vec<Int>> {
    let mut out = Vec::new();
    for m in layout.modes() {
        let pairs = m.leaf_pairs();
        let (mut c, mut scale) = (0i64, 1i64);
        for (s, d) in pairs {
            let ci = if s.is_static_value(1) {
                0
            } else {
                if d.value == 0 {
                    return Err(Error::DivisionByZero);
                }
                if s.value == 0 {
                    return Err(Error::DivisionByZero);
                }
                // C++'s truncating division and remainder, as CuTe computes them.
                (idx / d.value) % s.value
            };
            c += ci * scale;
            scale *= s.value;
        }
        out.push(Int::dy(c));
    }
    Ok(out)
}

fn under_tuple(r: usize) -> Coord {
    Coord::Tuple(vec![Coord::Under; r])
}

fn operand(which: char) -> Result<(usize, usize, usize)> {
    // (thrfrg selector, first and second thread mode of VMNK)
    match which {
        'c' | 'C' => Ok((0, 1, 2)),
        'a' | 'A' => Ok((1, 1, 3)),
        'b' | 'B' => Ok((2, 2, 3)),
        _ => Err(Error::Type(format!("operand must be A, B or C, got {which}"))),
    }
}

/// `thr_mma = mma.get_slice(thr); thr_mma.partition_X(tensor with layout L)`.
pub fn mma_partition(mma: &TiledMma, which: char, l: &Layout, thr: i64) -> Result<Partition> {
    let (sel, t0, t1) = operand(which)?;
    let f = mma.thrfrg(l, sel)?;
    let c = flat_coord(&mma.thr_layout_vmnk, thr)?;
    let at = |i: usize| {
        c.get(i)
            .copied()
            .ok_or_else(|| Error::MismatchedRanks { detail: format!("ThrLayoutVMNK {}", mma.thr_layout_vmnk) })
    };
    let rest_rank = f.mode(1)?.mode(1)?.rank();
    let coord = Coord::Tuple(vec![
        Coord::Tuple(vec![Coord::Int(at(0)?), Coord::Tuple(vec![Coord::Int(at(t0)?), Coord::Int(at(t1)?)])]),
        Coord::Tuple(vec![Coord::Under, under_tuple(rest_rank)]),
    ]);
    let (layout, offset) = slice_and_offset(&coord, &f)?;
    Ok(Partition { offset, layout })
}

/// `partition_shape_X(mma, shape)`.
pub fn mma_partition_shape(mma: &TiledMma, which: char, shape: &Tup) -> Result<IntTuple> {
    let (sel, _, _) = operand(which)?;
    let f = mma.thrfrg(&Layout::col_major(shape.to_owned())?, sel)?;
    let coord = Coord::Tuple(vec![Coord::Int(Int::st(0)), Coord::Tuple(vec![Coord::Under, under_tuple(shape.rank())])]);
    Ok(slice(&coord, &f)?.shape)
}

/// CuTe's `zip` of a rank-2 layout of rank-2 modes: ((a,b),(c,d)) -> ((a,c),(b,d)).
fn zip2(l: &Layout) -> Result<Layout> {
    let (m0, m1) = (l.mode(0)?, l.mode(1)?);
    if m0.rank() != m1.rank() || !m0.shape.is_tuple() || !m1.shape.is_tuple() {
        return Err(Error::MismatchedRanks { detail: format!("zip of {l}") });
    }
    let modes: Vec<Layout> = m0.modes().into_iter().zip(m1.modes()).map(|(a, b)| Layout::concat(&[a, b])).collect();
    Ok(Layout::concat(&modes))
}

/// `tidfrg_S` (`src == true`) or `tidfrg_D` of a TiledCopy applied to the layout `l`.
pub fn tidfrg(tc: &TiledCopy, l: &Layout, src: bool) -> Result<Layout> {
    let atom = &tc.atom;
    let trg = if src { &atom.src } else { &atom.dst };
    let ref2trg = composition(&right_inverse(&atom.ref_)?, trg)?;
    let z = zipped_divide(l, &Tiler::from_shape(&tc.tiler))?;
    let (nthr, nval) = (atom.ref_.mode(0)?.size()?, atom.ref_.mode(1)?.size()?);
    let atom_tv = zipped_divide(&tc.tv, &Tiler::Tuple(vec![Tiler::Int(nthr), Tiler::Int(nval)]))?;
    let trg_tv = composition_tiler(&atom_tv, &Tiler::Tuple(vec![Tiler::Layout(ref2trg), Tiler::Underscore]))?;
    let profile = IntTuple::tuple([IntTuple::st(1), IntTuple::tuple([IntTuple::st(1), IntTuple::st(1)])]);
    let thrval2mn = coalesce_by(&zip2(&trg_tv)?, &profile)?;
    let tv_tensor = composition_tiler(&z, &Tiler::Tuple(vec![Tiler::Layout(thrval2mn), Tiler::Underscore]))?;
    slice(&Coord::Tuple(vec![Coord::Tuple(vec![Coord::Under, Coord::Under]), Coord::Under]), &tv_tensor)
}

/// `tiled_copy.get_slice(thr).partition_S(tensor with layout L)` (or `partition_D`).
pub fn copy_partition(tc: &TiledCopy, l: &Layout, thr: i64, src: bool) -> Result<Partition> {
    let f = tidfrg(tc, l, src)?;
    let coord = Coord::Tuple(vec![Coord::Int(Int::dy(thr)), Coord::Under, under_tuple(l.rank())]);
    let (layout, offset) = slice_and_offset(&coord, &f)?;
    Ok(Partition { offset, layout })
}

#[cfg(test)]
mod tests {
    use super::super::{copy::copy_atom, lit, tiled_copy::make_tiled_copy, tiled_mma::make_tiled_mma};
    use super::*;

    #[test]
    fn probe_partitions() {
        // From a real-CuTe 4.2 probe: 2x2 warps of SM80_16x8x16_F32F16F16F32_TN, thread 37, on a
        // 64x32 counting tensor: partition_C prints counting_iter(145) o ((_2,_2),_2,_2):((_64,_8),_32,_1024),
        // partition_A counting_iter(145) o ((_2,_2,_2),_2,_2):((_64,_8,_512),_32,_1024), and
        // partition_shape_C is ((_2,_2),_2,_2).
        let m =
            make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", Some(&lit::layout("(_2,_2,_1):(_1,_2,_0)").unwrap()), &[])
                .unwrap();
        let l = lit::layout("(_64,_32):(_1,_64)").unwrap();
        assert_eq!(
            mma_partition(&m, 'C', &l, 37).unwrap().to_string(),
            "counting_iter(145) o ((_2,_2),_2,_2):((_64,_8),_32,_1024)"
        );
        assert_eq!(
            mma_partition(&m, 'A', &l, 37).unwrap().to_string(),
            "counting_iter(145) o ((_2,_2,_2),_2,_2):((_64,_8,_512),_32,_1024)"
        );
        // All 128 threads' parts of C cover the tile once.
        let mut seen = vec![0; 64 * 32];
        for t in 0..128 {
            let p = mma_partition(&m, 'C', &l, t).unwrap();
            for v in p.layout.values().unwrap() {
                seen[(p.offset.value + v) as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
        let shape = IntTuple::tuple([IntTuple::st(64), IntTuple::st(32)]);
        assert_eq!(mma_partition_shape(&m, 'C', &shape).unwrap().to_string(), "((_2,_2),_2,_2)");
    }

    #[test]
    fn copy_partitions_cover_the_tile() {
        // Every element of a 16x64 tile is copied exactly once by the chapter's tiled copy, and
        // thread 9 copies row 1, columns 8-15 (the chapter's exercise).
        let atom = copy_atom("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", "half_t").unwrap();
        let tc =
            make_tiled_copy(&atom, &lit::layout("(_16,_8):(_8,_1)").unwrap(), &lit::layout("(_1,_8):(_0,_1)").unwrap())
                .unwrap();
        let l = lit::layout("(_16,_64):(_1,_16)").unwrap();
        let mut seen = vec![0; 16 * 64];
        for t in 0..128 {
            let p = copy_partition(&tc, &l, t, true).unwrap();
            for v in p.layout.values().unwrap() {
                seen[(p.offset.value + v) as usize] += 1;
            }
            if t == 9 {
                let mut cells: Vec<(i64, i64)> = p
                    .layout
                    .values()
                    .unwrap()
                    .iter()
                    .map(|v| ((p.offset.value + v) % 16, (p.offset.value + v) / 16))
                    .collect();
                cells.sort();
                assert_eq!(cells, (8..16).map(|c| (1, c)).collect::<Vec<_>>());
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
    }
}
