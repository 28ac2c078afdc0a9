//! Coordinate tensors: CuTe's `make_identity_tensor(shape)` and its partitions as kernels write
//! them (`local_tile`, `local_partition`, a TiledCopy's `partition_S/D`, a TiledMMA's
//! `partition_A/B/C`, slicing with `_` and an index), host-side: the tensor's iterator (an
//! `ArithmeticTupleIterator`, printed `ArithTuple(...)`) and its layout (basis strides, see
//! [`crate::scaled_basis`]).
//!
//! Definitions (CuTe 4.2 and 4.7, tensor_impl.hpp, numeric/arithmetic_tuple.hpp, layout.hpp):
//! 1. `make_identity_tensor(shape) = make_coord_tensor(make_identity_layout(shape))`, and
//!    `make_coord_tensor(L) = make_tensor(make_inttuple_iter(coprofile(L)), L)`, where
//!    `coprofile(L) = repeat_like(as_arithmetic_tuple(sum(stride(L))), _0)`: the iterator starts
//!    at the all-`_0` arithmetic tuple of the codomain's profile (`(_0,_0)` for a rank-2 shape).
//! 2. `print(tensor)` is `print(data()); print(" o "); print(layout())`, and
//!    `print(ArithmeticTupleIterator)` is `"ArithTuple"` then the coordinate: `ArithTuple(_0,_0) o
//!    (_4,_8):(_1@0,_1@1)`.
//! 3. `T(c)` with `_` in `c` is `make_tensor(data() + offset, slice(c, layout()))` with
//!    `offset = crd2idx(c, layout())` (`slice_and_offset`); without `_` it is `data()[layout()(c)]`,
//!    the arithmetic tuple `coord_ + layout()(c)`. `ArithmeticTupleIterator + c` is the iterator
//!    at `coord_ + c` ([`BasisValue::add`]: element-wise, `_0 + x` is `x`, so a component keeps
//!    its static `_N` or dynamic `N` spelling as the sum made it).
//! 4. `local_tile`, `local_partition` (tensor_impl.hpp), `ThrCopy::partition_S/D` and
//!    `ThrMMA::partition_A/B/C` (copy_atom.hpp, mma_atom.hpp) are `make_tensor(data(), F(layout()))`
//!    sliced at the thread's (or tile's) coordinate, `F` the same layout function as for a
//!    counting tensor ([`crate::atom::partition`]), computed with the basis algebra.
//!
//! 5. `logical_divide`, `zipped_divide`, `tiled_divide` and `flat_divide` of a tensor
//!    (tensor_impl.hpp:919-966, the same in 4.2 and 4.7) are `make_tensor(data(), D(layout(),
//!    tiler))`, `D` the layout's divide: the iterator does not move (the SM100 epilogue's
//!    `zipped_divide(tCgC, epi_tiler)` of a TMA coordinate tensor, 05_mma_tma_epi_sm100.cu), a
//!    slice of the result moves it as in definition 3.
//! 6. `filter_zeros(T)` (tensor_impl.hpp:627, the same in 4.7) is `make_tensor(data(),
//!    filter_zeros(layout()))`: the iterator does not move, and each leaf mode whose stride is the
//!    static `_0` gets extent `_1` (layout.hpp:917, `crate::filter`), a basis stride never being
//!    the constant `_0` (the FP8 blockwise mainloop's `filter_zeros(tSFAcSFA_k(_,_,_,k))`, a
//!    slice of a cp.async copy's partition of the scale factors' coordinate tile).
//!
//! Postconditions (property tests in this module and in tests/identity_tensor.rs):
//! 1. Element `i` of an identity tensor is the natural coordinate of `i` in its shape
//!    (tensor_impl.hpp: "Make a tensor that maps coordinates within a shape to themselves").
//! 2. Element `j` of a partition (tile, thread part, slice) of an identity tensor is the element
//!    of the original tensor at the coordinate that partition's element `j` stands for: the
//!    partition is a view, so every element it holds is a coordinate of the original shape, and
//!    the parts of all threads (or tiles) together hold each coordinate of a tile the partition
//!    covers (CUTLASS test/unit/cute/core/tensor_algorithms and the tiled_copy_if tutorial use the
//!    coordinates for predication: `elem_less(tCcA(i), shape(A))`).
//! 3. A divide of a tensor (definition 5) is a view of it: element `j` of `D(T, tiler)` is
//!    `T(D(make_layout(shape(T)), tiler)(j))`, the element of `T` at the index the same divide
//!    of the compact layout of `T`'s shape holds at `j` (`D(L, t) = L o D(make_layout(shape(L)),
//!    t)`, composition being associative; layout.hpp's divides are compositions).

use std::fmt;

use super::atom::partition::{compose_tv, flat_coord, tidfrg_thrval2mn, ConcatModes};
use super::atom::tiled_copy::TiledCopy;
use super::atom::tiled_mma::TiledMma;
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::{IntTuple, Tup, View};
use super::layout::Layout;
use super::scaled_basis::{self as sb, BasisLayout, BasisValue};
use super::slice::Coord;
use super::tiler::Tiler;

/// A tensor over an `ArithmeticTupleIterator`: its iterator's coordinate and its layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoordTensor {
    /// The iterator's coordinate (`coord_`), an arithmetic tuple.
    pub iter: BasisValue,
    pub layout: BasisLayout,
}

impl fmt::Display for CoordTensor {
    /// Definition 2.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ArithTuple{} o {}", self.iter, self.layout)
    }
}

/// tensor_impl.hpp's divides of a tensor (definition 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Divide {
    Logical,
    Zipped,
    Tiled,
    Flat,
}

/// `repeat_like(x, _0)`.
fn zeros_like(x: &BasisValue) -> BasisValue {
    match x {
        BasisValue::Tuple(v) => BasisValue::Tuple(v.iter().map(zeros_like).collect()),
        _ => BasisValue::Int(Int::st(0)),
    }
}

/// `coprofile(L)` (definition 1).
pub fn coprofile(l: &BasisLayout) -> Result<BasisValue> {
    let mut sum: Option<BasisValue> = None;
    for (_, d) in l.leaf_pairs() {
        sum = Some(match sum {
            None => d,
            Some(s) => s.add(&d)?,
        });
    }
    let s = sum.unwrap_or(BasisValue::Int(Int::st(0)));
    Ok(zeros_like(&s.as_arithmetic_tuple()))
}

/// `make_coord_tensor(L)` (definition 1).
pub fn make_coord_tensor(l: BasisLayout) -> Result<CoordTensor> {
    Ok(CoordTensor { iter: coprofile(&l)?, layout: l })
}

/// `make_identity_tensor(shape)` (definition 1): postcondition 1.
pub fn make_identity_tensor(shape: &Tup) -> Result<CoordTensor> {
    make_coord_tensor(sb::make_identity_layout(shape))
}

/// `crd2idx(c, L)` of a slicing coordinate: `_` contributes `_0`.
pub fn offset_of(c: &Coord, l: &BasisLayout) -> Result<BasisValue> {
    sb::crd2idx(&c.zeroed(), &l.shape, &l.stride)
}

/// `slice_and_offset(c, L)` of a basis layout.
pub fn slice_and_offset(c: &Coord, l: &BasisLayout) -> Result<(BasisLayout, BasisValue)> {
    Ok((sb::slice(c, l)?, offset_of(c, l)?))
}

/// Mode `i` of a basis layout (a leaf layout is its own mode 0).
pub fn mode(l: &BasisLayout, i: usize) -> Result<BasisLayout> {
    match (l.shape.view(), &l.stride) {
        (View::Tuple(s), BasisValue::Tuple(d)) => match (s.get(i), d.get(i)) {
            (Some(s), Some(d)) => Ok(BasisLayout { shape: s.to_owned(), stride: d.clone() }),
            _ => Err(Error::MismatchedRanks { detail: format!("mode {i} of {l}") }),
        },
        _ if i == 0 => Ok(l.clone()),
        _ => Err(Error::MismatchedRanks { detail: format!("mode {i} of {l}") }),
    }
}

/// `make_layout(L0, L1, ...)` of basis layouts.
pub fn concat(modes: &[BasisLayout]) -> BasisLayout {
    BasisLayout {
        shape: IntTuple::tuple(modes.iter().map(|m| m.shape.clone())),
        stride: BasisValue::Tuple(modes.iter().map(|m| m.stride.clone()).collect()),
    }
}

impl CoordTensor {
    /// `make_tensor(data() + offset, layout)` (definition 3).
    fn moved(&self, layout: BasisLayout, offset: &BasisValue) -> Result<CoordTensor> {
        Ok(CoordTensor { iter: self.iter.add(offset)?, layout })
    }

    /// `T(c)` for a coordinate with `_` (definition 3).
    pub fn slice(&self, c: &Coord) -> Result<CoordTensor> {
        let (l, off) = slice_and_offset(c, &self.layout)?;
        self.moved(l, &off)
    }

    /// `T(c)` for a coordinate without `_`: the arithmetic tuple at `c` (definition 3).
    pub fn at(&self, c: &Tup) -> Result<BasisValue> {
        self.iter.add(&self.layout.call(c)?)
    }

    /// `T(i)` for a 1-D index.
    pub fn at_index(&self, i: i64) -> Result<BasisValue> {
        self.at(&IntTuple::leaf(Int::dy(i)))
    }

    pub fn size(&self) -> Result<Int> {
        self.layout.size()
    }

    /// `D(T, tiler)` for one of the four divides (definition 5): same iterator, divided layout.
    pub fn divide(&self, d: Divide, t: &Tiler) -> Result<CoordTensor> {
        let layout = match d {
            Divide::Logical => sb::logical_divide(&self.layout, t)?,
            Divide::Zipped => sb::zipped_divide(&self.layout, t)?,
            Divide::Tiled => sb::tiled_divide(&self.layout, t)?,
            Divide::Flat => sb::flat_divide(&self.layout, t)?,
        };
        Ok(CoordTensor { iter: self.iter.clone(), layout })
    }

    /// `local_tile(T, tiler, coord)` (tensor_impl.hpp: `zipped_divide(T, tiler)(_, coord)`).
    pub fn local_tile(&self, t: &Tiler, c: &Coord) -> Result<CoordTensor> {
        let (l, off) = sb::local_tile_with_offset(&self.layout, t, c)?;
        self.moved(l, &off)
    }

    /// `filter_zeros(T)` (definition 6).
    pub fn filter_zeros(&self) -> Result<CoordTensor> {
        let shapes: Vec<Int> = self
            .layout
            .leaf_pairs()
            .iter()
            .map(|(s, d)| match d {
                BasisValue::Int(z) if z.is_static_value(0) => Int::st(1),
                _ => *s,
            })
            .collect();
        let layout = BasisLayout::new(self.layout.shape.unflatten_like(&shapes)?, self.layout.stride.clone())?;
        Ok(CoordTensor { iter: self.iter.clone(), layout })
    }

    /// `local_partition(T, thr_layout, index)` (tensor_impl.hpp: `outer_partition` of the
    /// thread's coordinate in `thr_layout`).
    pub fn local_partition(&self, thr: &Layout, index: Int) -> Result<CoordTensor> {
        let (l, off) = sb::local_partition_with_offset(&self.layout, thr, index)?;
        self.moved(l, &off)
    }
}

/// `tidfrg_S` / `tidfrg_D` of a TiledCopy on a basis layout: `zipped_divide(L, Tiler_MN)`
/// composed in mode 0 with the thread-value map, then `((_,_),_)` (copy_atom.hpp).
fn tidfrg(tc: &TiledCopy, l: &BasisLayout, src: bool) -> Result<BasisLayout> {
    let thrval2mn = tidfrg_thrval2mn(tc, src)?;
    let z = sb::zipped_divide(l, &Tiler::from_shape(&tc.tiler))?;
    // Mode by mode of the thread-value map, as for an integer layout (partition::compose_tv).
    let tv0 = compose_tv(&z.mode(0)?, &thrval2mn, sb::composition)?;
    let tv = BasisLayout::concat(&[tv0, z.mode(1)?]);
    sb::slice(&Coord::Tuple(vec![Coord::Tuple(vec![Coord::Under, Coord::Under]), Coord::Under]), &tv)
}

/// `repeat<r>(_)`: `_` itself for `r == 1` (tuple_algorithms.hpp `repeat<N>(x)` is `x` when
/// `N == 1`), so a rank-1 tensor's rest mode is kept whole (`((_1,_1),(_64))`, not flattened).
fn under_tuple(r: usize) -> Coord {
    if r == 1 {
        Coord::Under
    } else {
        Coord::Tuple(vec![Coord::Under; r])
    }
}

/// `tiled_copy.get_slice(thr).partition_S(T)` (or `partition_D`): definition 4.
pub fn copy_partition(tc: &TiledCopy, t: &CoordTensor, thr: i64, src: bool) -> Result<CoordTensor> {
    let f = tidfrg(tc, &t.layout, src)?;
    let coord = Coord::Tuple(vec![Coord::Int(Int::dy(thr)), Coord::Under, under_tuple(t.layout.shape.rank())]);
    let (l, off) = slice_and_offset(&coord, &f)?;
    t.moved(l, &off)
}

/// `thrfrg_X` of a TiledMMA on a basis layout (mma_atom.hpp; `which`: 0 C over (M,N), 1 A over
/// (M,K), 2 B over (N,K)), as [`TiledMma::thrfrg`] computes it for an integer layout.
fn mma_thrfrg(mma: &TiledMma, l: &BasisLayout, which: usize) -> Result<BasisLayout> {
    if mma.old.is_some() && which == 0 {
        // CuTe 3.3's thrfrg_C: CUTE_STATIC_ASSERT_V(size<I>(ctensor) % size<I>(TiledShape_MNK) == _0)
        // for M and N, as for an integer layout ([`TiledMma::thrfrg`]).
        for i in [0, 1] {
            let (n, t) = (mode(l, i)?.size()?, mma.tile_size(i)?);
            // A run-time extent makes the remainder a run-time int (unless the tile is `_1`):
            // CUTE_STATIC_ASSERT_V cannot read it ("'value' is not a member of 'bool'").
            if t.value == 0 || n.value % t.value != 0 || (!n.is_static && !t.is_static_value(1)) {
                return Err(Error::Rejected {
                    condition: "static_assert(size<I>(ctensor) % size<I>(TiledShape_MNK{}) == Int<0>{})",
                    detail: format!("mode {i} of {l}: extent {n}, tile {t} (CuTe 3.3's thrfrg_C)"),
                });
            }
        }
    }
    let (m0, m1, atom_tv, t0, t1) = match which {
        0 => (0, 1, &mma.atom.c, 1, 2),
        1 => (0, 2, &mma.atom.a, 1, 3),
        _ => (1, 2, &mma.atom.b, 2, 3),
    };
    let t_tensor = sb::logical_divide(l, &Tiler::Tuple(vec![mma.divide_by(m0)?, mma.divide_by(m1)?]))?;
    let ext = |i: usize| -> Result<Tiler> {
        Ok(Tiler::Layout(Layout::col_major(IntTuple::leaf(mma.atom.shape_mnk.mode(i)?.product()?))?))
    };
    let a_tensor = sb::zipped_divide(&t_tensor, &Tiler::Tuple(vec![ext(m0)?, ext(m1)?]))?;
    let tv_tensor = concat(&[sb::composition(&mode(&a_tensor, 0)?, atom_tv)?, mode(&a_tensor, 1)?]);
    let v = &mma.thr_layout_vmnk;
    let thr = |i: usize| -> Result<Tiler> { Ok(Tiler::Layout(Layout::col_major(IntTuple::leaf(v.mode(i)?.size()?))?)) };
    sb::zipped_divide(&tv_tensor, &Tiler::Tuple(vec![Tiler::Underscore, Tiler::Tuple(vec![thr(t0)?, thr(t1)?])]))
}

/// `mma.get_slice(thr).partition_X(T)`, X one of A, B, C: definition 4.
pub fn mma_partition(mma: &TiledMma, which: char, t: &CoordTensor, thr: i64) -> Result<CoordTensor> {
    let (sel, t0, t1) = match which {
        'c' | 'C' => (0, 1, 2),
        'a' | 'A' => (1, 1, 3),
        'b' | 'B' => (2, 2, 3),
        _ => return Err(Error::Type(format!("operand must be A, B or C, got {which}"))),
    };
    let f = mma_thrfrg(mma, &t.layout, sel)?;
    let c = flat_coord(&mma.thr_layout_vmnk, thr)?;
    let at = |i: usize| {
        c.get(i)
            .copied()
            .ok_or_else(|| Error::MismatchedRanks { detail: format!("ThrLayoutVMNK {}", mma.thr_layout_vmnk) })
    };
    let rest_rank = mode(&mode(&f, 1)?, 1)?.shape.rank();
    let coord = Coord::Tuple(vec![
        Coord::Tuple(vec![Coord::Int(at(0)?), Coord::Tuple(vec![Coord::Int(at(t0)?), Coord::Int(at(t1)?)])]),
        Coord::Tuple(vec![Coord::Under, under_tuple(rest_rank)]),
    ]);
    let (l, off) = slice_and_offset(&coord, &f)?;
    t.moved(l, &off)
}

/// The natural (colexicographic) coordinate of index `i` in `shape`, as an arithmetic tuple of
/// dynamic integers (a leaf shape gives the integer itself).
pub fn natural_coord(i: i64, shape: &Tup) -> Result<BasisValue> {
    Ok(match shape.view() {
        View::Leaf(_) => BasisValue::Int(Int::dy(i)),
        View::Tuple(v) => {
            let mut rest = i;
            let mut out = Vec::new();
            for m in v.iter() {
                let n = m.product()?.value.max(1);
                out.push(natural_coord(rest % n, m)?);
                rest /= n;
            }
            BasisValue::Tuple(out)
        }
    })
}

/// Postcondition 1 on `make_identity_tensor(shape)`: `None` when it holds.
pub fn check_identity(shape: &Tup, t: &CoordTensor) -> Result<Option<String>> {
    let n = shape.product()?.value;
    for i in 0..n {
        let (got, want) = (t.at_index(i)?, natural_coord(i, shape)?);
        if !sb::same_point(&got, &want) {
            return Ok(Some(format!("element {i} of {t} is {got}, not its coordinate {want}")));
        }
    }
    Ok(None)
}

/// Postcondition 3 on `r = D(t, tiler)`: `None` when it holds (each element of `r` is the element
/// of `t` at the index the divide of the compact layout of `t`'s shape holds there).
pub fn check_divide(t: &CoordTensor, d: Divide, tiler: &Tiler, r: &CoordTensor) -> Result<Option<String>> {
    let compact = Layout::col_major(t.layout.shape.clone())?;
    let idx = match d {
        Divide::Logical => super::logical_divide::logical_divide(&compact, tiler)?,
        Divide::Zipped => super::zipped_divide::zipped_divide(&compact, tiler)?,
        Divide::Tiled => super::tiled_divide::tiled_divide(&compact, tiler)?,
        Divide::Flat => super::flat_divide::flat_divide(&compact, tiler)?,
    };
    let n = idx.size()?.value;
    if r.size()?.value != n {
        return Ok(Some(format!("{r} has {} elements, the divide of {compact} {n}", r.size()?)));
    }
    for j in 0..n {
        let (got, want) = (r.at_index(j)?, t.at_index(idx.call_int(Int::dy(j))?.value)?);
        if !sb::same_point(&got, &want) {
            return Ok(Some(format!("element {j} of {r} is {got}, {t} holds {want} at {}", idx.call_int(Int::dy(j))?)));
        }
    }
    Ok(None)
}

impl ConcatModes for BasisLayout {
    fn concat_modes(parts: &[Self]) -> Self {
        BasisLayout::concat(parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::tup;

    #[test]
    fn identity_tensor_prints_as_cute() {
        // tensor_impl.hpp make_identity_tensor; CuTe 4.2 prints ArithTuple(_0,_0) o (_4,_8):(_1@0,_1@1).
        let t = make_identity_tensor(&tup("(_4,_8)")).unwrap();
        assert_eq!(t.to_string(), "ArithTuple(_0,_0) o (_4,_8):(_1@0,_1@1)");
        assert_eq!(check_identity(&tup("(_4,_8)"), &t).unwrap(), None);
    }

    #[test]
    fn a_divide_keeps_the_iterator_and_is_a_view() {
        // tensor_impl.hpp zipped_divide(Tensor, Tiler): make_tensor(data(), zipped_divide(layout(), tiler)).
        let tile = Coord::Tuple(vec![Coord::Int(Int::dy(1)), Coord::Int(Int::dy(1))]);
        let t = make_identity_tensor(&tup("(_8,_12)"))
            .unwrap()
            .local_tile(&Tiler::from_shape(&tup("(_4,_6)")), &tile)
            .unwrap();
        assert_eq!(t.to_string(), "ArithTuple(4,6) o (_4,_6):(_1@0,_1@1)");
        for d in [Divide::Logical, Divide::Zipped, Divide::Tiled, Divide::Flat] {
            let tiler = Tiler::from_shape(&tup("(_2,_3)"));
            let r = t.divide(d, &tiler).unwrap();
            assert_eq!(r.iter, t.iter, "{d:?}");
            assert_eq!(check_divide(&t, d, &tiler, &r).unwrap(), None, "{d:?}");
        }
        let z = t.divide(Divide::Zipped, &Tiler::from_shape(&tup("(_2,_3)"))).unwrap();
        assert_eq!(z.to_string(), "ArithTuple(4,6) o ((_2,_3),(_2,_2)):((_1@0,_1@1),(_2@0,_3@1))");
    }

    #[test]
    fn filter_zeros_keeps_the_iterator_and_shrinks_only_static_zero_strides() {
        // Definition 6: a static _0 stride's extent becomes _1; a basis stride and a dynamic 0
        // keep theirs; the iterator and the strides are unchanged.
        let t = make_identity_tensor(&tup("(_4,_8)")).unwrap();
        let zero = |st: bool| BasisValue::Int(if st { Int::st(0) } else { Int::dy(0) });
        let stride = BasisValue::Tuple(vec![BasisValue::Tuple(vec![zero(true), t.layout.stride.clone()]), zero(false)]);
        let l = BasisLayout::new(tup("((_3,(_4,_8)),_5)"), stride).unwrap();
        let u = CoordTensor { iter: t.iter.clone(), layout: l };
        let f = u.filter_zeros().unwrap();
        assert_eq!(f.to_string(), "ArithTuple(_0,_0) o ((_1,(_4,_8)),_5):((_0,(_1@0,_1@1)),0)");
        assert_eq!(f.iter, u.iter);
        assert_eq!(f.layout.stride, u.layout.stride);
        // Where no stride is the static _0 it is the tensor itself.
        assert_eq!(t.filter_zeros().unwrap(), t);
    }
}
