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
use crate::logical_product::logical_product_layout;
use crate::right_inverse::right_inverse;
use crate::slice::{slice, slice_and_offset, Coord};
use crate::swizzle::{ComposedLayout, Offset, Swizzle, SwizzledLayout};
use crate::zipped_divide::zipped_divide;
use crate::{Error, Int, IntTuple, Layout, Result, Tiler, Tup};

/// A thread's part of a tensor over a counting iterator: offset and layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    pub offset: Int,
    pub layout: Layout,
    /// What the tensor's iterator and layout are beyond a counting iterator over a plain layout.
    pub over: Over,
}

/// The tensor a partition is taken of (see [`Partition`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Over {
    /// `make_tensor(counting_iterator<int>(0), L)` with a plain layout, or a swizzled one whose
    /// slice CuTe decayed to a plain layout.
    Counting,
    /// A counting tensor whose layout kept its swizzle: `Sw o offset o layout`.
    Composed(Swizzle, Offset),
    /// `make_tensor(make_smem_ptr(p), Sw o smem_ptr[B] o L)` (pointer_flagged.hpp): the swizzle
    /// moves onto the pointer, the tensor's layout is L; `p` is [`SMEM_BASE`] as a pointer to
    /// B-bit unsigned integers.
    SmemSwizzle(Swizzle, i64),
    /// `make_tensor(make_smem_ptr<T>(p), Sw o O o L)`: a plain shared-memory pointer (at
    /// [`SMEM_BASE`], B-bit elements) over a layout that keeps its swizzle, as
    /// `as_position_independent_swizzle_tensor` makes one (`Sw o _0 o L`) and its parts keep it;
    /// `None` where a slice decayed the swizzled layout to a plain one.
    PlainSmem(i64, Option<(Swizzle, Offset)>),
}

/// The address the shared-memory tensors of the C++ oracle's partition cases start at (aligned
/// to every swizzle; CuTe prints the pointer with `%p`).
pub const SMEM_BASE: i64 = 0x10000;

impl fmt::Display for Partition {
    /// CuTe's `print` of the tensor.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // pointer_base.hpp: `counting_iter_N` before 3.4, `counting_iter(N)` from 3.4.
        let it = if crate::release::COUNTING_ITER_PRINTS_PARENS.on() {
            format!("counting_iter({})", self.offset.value)
        } else {
            format!("counting_iter_{}", self.offset.value)
        };
        match &self.over {
            Over::Counting => write!(f, "{it} o {}", self.layout),
            Over::Composed(sw, o) => write!(f, "{it} o {sw} o {o} o {}", self.layout),
            // pointer_swizzle.hpp: make_swizzle_ptr(ptr, Swizzle<0,M,S>) is ptr itself (an INTER
            // atom's swizzle moves no bits): the pointer prints without it.
            Over::SmemSwizzle(sw, bits) if sw.b == 0 => {
                write!(f, "smem_ptr[{bits}b]({:#x}) o {}", SMEM_BASE + self.offset.value * bits / 8, self.layout)
            }
            Over::SmemSwizzle(sw, bits) => {
                write!(f, "{sw}_smem_ptr[{bits}b]({:#x}) o {}", SMEM_BASE + self.offset.value * bits / 8, self.layout)
            }
            Over::PlainSmem(bits, sw) => {
                write!(f, "smem_ptr[{bits}b]({:#x}) o ", SMEM_BASE + self.offset.value * bits / 8)?;
                if let Some((sw, o)) = sw {
                    write!(f, "{sw} o {o} o ")?;
                }
                write!(f, "{}", self.layout)
            }
        }
    }
}

impl Partition {
    fn counting((layout, offset): (Layout, Int)) -> Partition {
        Partition { offset, layout, over: Over::Counting }
    }

    /// A partition (`partition_S/D/A/B/C`) of this tensor, a partition itself (the Blackwell
    /// tutorials' `thr_t2r_copy.partition_D(tCgC)` of `tCgC = cta_mma.partition_C(gC)`): the
    /// partitions are layout algebra on the tensor's layout (copy_atom.hpp `tidfrg_S/D`,
    /// mma_atom.hpp `thrfrg_A/B/C`), and the result's iterator is this one's advanced by the
    /// result's offset — a counting tensor's, or a shared-memory pointer's (its swizzle applies
    /// when dereferenced). `part` partitions a tensor of the given layout at offset 0.
    /// Postcondition (tested): the result's elements are this tensor's elements at the
    /// partition's offsets.
    pub fn partition(&self, part: impl Fn(&SwizzledLayout) -> Result<Partition>) -> Result<Partition> {
        let t = match &self.over {
            Over::Counting => SwizzledLayout::Plain(self.layout.clone()),
            Over::SmemSwizzle(sw, bits) => SwizzledLayout::Composed(ComposedLayout {
                swizzle: *sw,
                offset: Offset::SmemPtr(*bits),
                layout: self.layout.clone(),
            }),
            Over::PlainSmem(bits, sw) => {
                // The layout algebra of a counting tensor over the same layout; the pointer is
                // the shared-memory one, advanced by the part's offset.
                let t = match sw {
                    Some((swizzle, offset)) => SwizzledLayout::Composed(ComposedLayout {
                        swizzle: *swizzle,
                        offset: *offset,
                        layout: self.layout.clone(),
                    }),
                    None => SwizzledLayout::Plain(self.layout.clone()),
                };
                let q = part(&t)?;
                return Ok(Partition {
                    offset: self.offset.add(q.offset)?,
                    layout: q.layout,
                    over: q.over.on_smem(*bits)?,
                });
            }
            Over::Composed(..) => {
                return Err(Error::Type(format!(
                    "a partition of {self} (a counting tensor over a swizzled layout) is not modelled"
                )))
            }
        };
        let q = part(&t)?;
        Ok(Partition { offset: self.offset.add(q.offset)?, ..q })
    }

    /// `f(T)` for a layout operation `f` that CuTe applies to a tensor as `make_tensor(T.data(),
    /// f(T.layout()))` (tensor_impl.hpp: flatten, logical/zipped/tiled_divide): the same iterator,
    /// `f` of the layout. On a layout that kept its swizzle (`Sw o O o L`, [`Over::Composed`],
    /// [`Over::PlainSmem`]) CuTe applies `f` to L and keeps Sw and O (layout_composed.hpp:
    /// `flatten`, `logical_divide`, `zipped_divide`, `tiled_divide` of a ComposedLayout are
    /// `composition(a.layout_a(), a.offset(), f(a.layout_b()))`); otherwise the tensor's layout is L.
    pub fn with_layout(&self, f: impl FnOnce(&Layout) -> Result<Layout>) -> Result<Partition> {
        Ok(Partition { offset: self.offset, layout: f(&self.layout)?, over: self.over.clone() })
    }

    /// `Tensor::operator()(c)` with `_` in `c` (tensor_impl.hpp): `make_tensor(data() + offset,
    /// sliced)` with `(sliced, offset) = slice_and_offset(c, layout())` — the kernels'
    /// `tCsA(_,_,_,smem_pipe_read)` of a partitioned tensor. A counting tensor's or a shared-memory
    /// tensor's iterator (its swizzle on the pointer, applied when dereferenced) moves by the
    /// offset; a counting tensor over a swizzled layout slices the swizzled layout
    /// (swizzle_layout.hpp slice_and_offset), whose offset moves the iterator too.
    /// Postcondition (tested): each element of the slice is the element of the tensor at the
    /// coordinate with `_` filled in.
    pub fn slice(&self, c: &Coord) -> Result<Partition> {
        match &self.over {
            Over::Counting | Over::SmemSwizzle(..) => {
                let (layout, off) = slice_and_offset(c, &self.layout)?;
                Ok(Partition { offset: self.offset.add(off)?, layout, over: self.over.clone() })
            }
            Over::Composed(sw, o) => {
                let x = ComposedLayout { swizzle: *sw, offset: *o, layout: self.layout.clone() };
                let (r, off) = crate::swizzle_slice::slice_and_offset(c, &x)?;
                let offset = self.offset.add(off)?;
                Ok(match r {
                    SwizzledLayout::Plain(layout) => Partition { offset, layout, over: Over::Counting },
                    SwizzledLayout::Composed(c) => {
                        Partition { offset, layout: c.layout, over: Over::Composed(c.swizzle, c.offset) }
                    }
                })
            }
            Over::PlainSmem(bits, sw) => {
                let counting = Partition {
                    offset: self.offset,
                    layout: self.layout.clone(),
                    over: sw.map_or(Over::Counting, |(s, o)| Over::Composed(s, o)),
                };
                let q = counting.slice(c)?;
                Ok(Partition { over: q.over.on_smem(*bits)?, ..q })
            }
        }
    }
}

impl Over {
    /// A counting tensor's part (`Counting` or `Composed`) as the part of a plain shared-memory
    /// pointer's tensor over the same layout ([`Over::PlainSmem`]).
    fn on_smem(self, bits: i64) -> Result<Over> {
        match self {
            Over::Counting => Ok(Over::PlainSmem(bits, None)),
            Over::Composed(s, o) => Ok(Over::PlainSmem(bits, Some((s, o)))),
            other => Err(Error::Type(format!("a part over {other:?} of a shared-memory tensor is not modelled"))),
        }
    }
}

/// The thread's slice `coord` of `f` (a thrfrg/tidfrg of the tensor's layout), for a tensor whose
/// layout is `t`: plain slicing, the swizzled slice of a counting tensor (swizzle_layout.hpp
/// slice_and_offset), or the plain slice of a shared-memory tensor whose swizzle is on its pointer.
fn thread_slice(coord: &Coord, t: &SwizzledLayout, frag: impl Fn(&Layout) -> Result<Layout>) -> Result<Partition> {
    match t {
        SwizzledLayout::Plain(l) => Ok(Partition::counting(slice_and_offset(coord, &frag(l)?)?)),
        SwizzledLayout::Composed(x) => match x.offset {
            Offset::SmemPtr(bits) => {
                if bits % 8 != 0 {
                    return Err(Error::Type(format!(
                        "a shared-memory tensor of {bits}-bit elements ({x}) is not modelled"
                    )));
                }
                let (layout, offset) = slice_and_offset(coord, &frag(&x.layout)?)?;
                Ok(Partition { offset, layout, over: Over::SmemSwizzle(x.swizzle, bits) })
            }
            Offset::Int(_) | Offset::Mixed { .. } => {
                let f = ComposedLayout { layout: frag(&x.layout)?, ..x.clone() };
                let (r, offset) = crate::swizzle_slice::slice_and_offset(coord, &f)?;
                Ok(match r {
                    SwizzledLayout::Plain(layout) => Partition { offset, layout, over: Over::Counting },
                    SwizzledLayout::Composed(c) => {
                        Partition { offset, layout: c.layout, over: Over::Composed(c.swizzle, c.offset) }
                    }
                })
            }
        },
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

/// `repeat<r>(_)`: `_` itself for `r == 1` (tuple_algorithms.hpp `repeat<N>(x)` is `x` when
/// `N == 1`), so a rank-1 tensor's rest mode is kept whole (`((_1,_1),(_64))`, not flattened).
fn under_tuple(r: usize) -> Coord {
    if r == 1 {
        Coord::Under
    } else {
        Coord::Tuple(vec![Coord::Under; r])
    }
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
    mma_partition_of(mma, which, &SwizzledLayout::Plain(l.clone()), thr)
}

/// [`mma_partition`] of a tensor whose layout may be swizzled (see [`thread_slice`]).
pub fn mma_partition_of(mma: &TiledMma, which: char, t: &SwizzledLayout, thr: i64) -> Result<Partition> {
    let (sel, t0, t1) = operand(which)?;
    let l = match t {
        SwizzledLayout::Plain(l) => l,
        SwizzledLayout::Composed(x) => &x.layout,
    };
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
    thread_slice(&coord, t, |l| mma.thrfrg(l, sel))
}

/// `partition_shape_X(mma, shape)`.
pub fn mma_partition_shape(mma: &TiledMma, which: char, shape: &Tup) -> Result<IntTuple> {
    let (sel, _, _) = operand(which)?;
    let f = mma.thrfrg_shape(&Layout::col_major(shape.to_owned())?, sel)?;
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

/// `tidfrg_S` (`src == true`) or `tidfrg_D` of a TiledCopy applied to the layout `l`: the data
/// zipped_divide'd by `Tiler_MN` (a co-tiled copy's, `make_cotiled_copy`/`make_tmem_copy`, is a
/// layout per mode of the data: copy_atom.hpp's `tidfrg_S` divides by whatever `Tiler_MN` is),
/// then composed with the (thread, value) -> tile map.
pub fn tidfrg(tc: &TiledCopy, l: &Layout, src: bool) -> Result<Layout> {
    let thrval2mn = tidfrg_thrval2mn(tc, src)?;
    let tiler = match &tc.cotiler {
        Some(t) => t.clone(),
        None => Tiler::from_shape(&tc.tiler),
    };
    let z = zipped_divide(l, &tiler)?;
    let tv = compose_tv(&z.mode(0)?, &thrval2mn, composition)?;
    let tv_tensor = Layout::concat(&[tv, z.mode(1)?]);
    slice(&Coord::Tuple(vec![Coord::Tuple(vec![Coord::Under, Coord::Under]), Coord::Under]), &tv_tensor)
}

/// `tile.compose(thrval2mn)` in `tidfrg_S/D` (copy_atom.hpp: `zipped_divide(stensor,
/// Tiler_MN{}).compose(thrval2mn, _)`), composed mode by mode of `thrval2mn`: CuTe's
/// `composition_impl` distributes over a tuple right-hand side (layout.hpp, "Right-distributivity
/// of Layout composition for RHS tuple"), so the thread mode and the value mode are each a
/// composition (`result_i(c) == tile(thrval2mn_i(c))`, checked by `compose` for each), while
/// their sum need not be `tile(thrval2mn(t, v))`: a multicast TMA copy's (CTA, value) layout runs
/// past the tile (every CTA's value mode is the whole box, the CTA mode an offset within it), and
/// CuTe composes it all the same (test `partition::tests::a_multicast_tma_partition_composes_by_mode`).
/// The result is the one the whole composition gives (the same coalesced tile, the same modes).
pub fn compose_tv<L, F>(tile: &L, thrval2mn: &Layout, compose: F) -> Result<L>
where
    F: Fn(&L, &Layout) -> Result<L>,
    L: ConcatModes,
{
    if !thrval2mn.shape.is_tuple() {
        return compose(tile, thrval2mn);
    }
    let parts = thrval2mn.modes().iter().map(|m| compose(tile, m)).collect::<Result<Vec<L>>>()?;
    Ok(L::concat_modes(&parts))
}

/// Layouts whose modes concatenate into one layout (`make_layout(m0, m1, ...)`).
pub trait ConcatModes: Sized {
    fn concat_modes(parts: &[Self]) -> Self;
}

impl ConcatModes for Layout {
    fn concat_modes(parts: &[Self]) -> Self {
        Layout::concat(parts)
    }
}

/// The (thread, value) -> tile map `tidfrg_S` (or `tidfrg_D`) composes the zipped tile with.
pub fn tidfrg_thrval2mn(tc: &TiledCopy, src: bool) -> Result<Layout> {
    let atom = &tc.atom;
    let trg = if src { &atom.src } else { &atom.dst };
    let ref2trg = composition(&right_inverse(&atom.ref_)?, trg)?;
    let (nthr, nval) = (atom.ref_.mode(0)?.size()?, atom.ref_.mode(1)?.size()?);
    let atom_tv = zipped_divide(&tc.tv, &Tiler::Tuple(vec![Tiler::Int(nthr), Tiler::Int(nval)]))?;
    let trg_tv = composition_tiler(&atom_tv, &Tiler::Tuple(vec![Tiler::Layout(ref2trg), Tiler::Underscore]))?;
    let profile = IntTuple::tuple([IntTuple::st(1), IntTuple::tuple([IntTuple::st(1), IntTuple::st(1)])]);
    coalesce_by(&zip2(&trg_tv)?, &profile)
}

/// `tiled_copy.get_slice(thr).partition_S(tensor with layout L)` (or `partition_D`).
pub fn copy_partition(tc: &TiledCopy, l: &Layout, thr: i64, src: bool) -> Result<Partition> {
    copy_partition_of(tc, &SwizzledLayout::Plain(l.clone()), thr, src)
}

/// [`copy_partition`] of a tensor whose layout may be swizzled (see [`thread_slice`]).
pub fn copy_partition_of(tc: &TiledCopy, t: &SwizzledLayout, thr: i64, src: bool) -> Result<Partition> {
    let rank = match t {
        SwizzledLayout::Plain(l) => l.rank(),
        SwizzledLayout::Composed(x) => x.layout.rank(),
    };
    let coord = Coord::Tuple(vec![Coord::Int(Int::dy(thr)), Coord::Under, under_tuple(rank)]);
    thread_slice(&coord, t, |l| tidfrg(tc, l, src))
}

/// `TiledCopy::retile(L)` (copy_atom.hpp; `retile_S` and `retile_D` are the same): a
/// thread's fragment `(V, ...)` regrouped as the tiled copy's values, `((atom_vals, rest_vals),
/// RestM, RestN, ...)`:
/// `frg_mn = upcast<NumThr*V>(right_inverse(TV).with_shape(Tiler_MN))`,
/// `frg_v = zipped_divide(logical_product(make_layout(V), right_inverse(frg_mn)), AtomNumVal)`,
/// then `zipped_divide(L, (V, product_each(shape(frg_mn))...)).compose(frg_v, _)(_, (_0, _, ...))`.
pub fn retile(tc: &TiledCopy, l: &Layout) -> Result<Layout> {
    let (vt, c) = retile_parts(tc, l)?;
    slice(&c, &vt)
}

/// `TiledCopy::retile` of a swizzled fragment `Sw o O o L` (before 3.5 the register fragments of
/// a swizzled partition keep a swizzle: [`transfer_swizzle`]): CuTe's ComposedLayout divides and
/// composes its layout_b, and the last step is swizzle_layout.hpp's slice of the composed layout
/// (which may decay to a plain layout).
pub fn retile_composed(tc: &TiledCopy, x: &ComposedLayout) -> Result<SwizzledLayout> {
    let (vt, c) = retile_parts(tc, &x.layout)?;
    let (r, _) = crate::swizzle_slice::slice_and_offset(&c, &ComposedLayout { layout: vt, ..x.clone() })?;
    Ok(r)
}

/// `TiledCopy::retile` before its final slice: the regrouped layout and the slice's coordinate.
fn retile_parts(tc: &TiledCopy, l: &Layout) -> Result<(Layout, Coord)> {
    if tc.cotiler.is_some() {
        return Err(Error::Type("retiling a co-tiled copy (make_tmem_copy) is not modelled".into()));
    }
    let v = l.mode(0)?.size()?;
    let nthr = tc.tv.mode(0)?.size()?;
    let shaped = composition(&right_inverse(&tc.tv)?, &Layout::col_major(tc.tiler.clone())?)?;
    let frg_mn = super::copy::upcast(&shaped, nthr.mul(v)?.value)?;
    let atom_vals = tc.atom.ref_.mode(1)?.size()?;
    let prod = logical_product_layout(&Layout::col_major(IntTuple::leaf(v))?, &right_inverse(&frg_mn)?)?;
    let frg_v = zipped_divide(&prod, &Tiler::Layout(Layout::col_major(IntTuple::leaf(atom_vals))?))?;
    let mut tile = vec![Tiler::Int(v)];
    tile.extend(super::tiled_copy::product_each(&frg_mn.shape)?.leaves().into_iter().map(Tiler::Int));
    let t = zipped_divide(l, &Tiler::Tuple(tile))?;
    let vt = composition_tiler(&t, &Tiler::Tuple(vec![Tiler::Layout(frg_v), Tiler::Underscore]))?;
    let mut rest = vec![Coord::Int(Int::st(0))];
    rest.extend((1..l.rank()).map(|_| Coord::Under));
    Ok((vt, Coord::Tuple(vec![Coord::Under, Coord::Tuple(rest)])))
}

/// `detail::transfer_swizzle<B,M,S>(old, new)` (v3.4.1 and v3.3.0 swizzle_layout.hpp), which
/// `make_fragment_like(Sw o O o L)` returned before 3.5 (`transfer_swizzle(L,
/// make_fragment_like(L))`; from 3.5 `make_fragment_like(L)` alone:
/// [`crate::release::MAKE_FRAGMENT_LIKE_DROPS_THE_SWIZZLE`]). The swizzle's Y and Z bits that
/// `old` reaches at its last index (the projection `P o old` read at `size(old) - 1`, P keeping
/// the Y and Z bits), kept where both bits of a Y/Z pair are set, are carried through `old`'s
/// inverse (`get_1d_coord`) and `new` to a new swizzle, `make_swizzle<Y', Z'>()`, composed with
/// `new` (a swizzle of no bits is `new` itself).
pub fn transfer_swizzle(sw: Swizzle, old: &Layout, new: &Layout) -> Result<SwizzledLayout> {
    let not_static = |what: String| Error::Rejected {
        condition: "transfer_swizzle needs static swizzle bits (make_swizzle's template arguments)",
        detail: what,
    };
    let (b, m, s) = (i64::from(sw.b), i64::from(sw.m), i64::from(sw.s.abs()));
    // P: (2^M, 2^B, 2^(|S|-B), 2^B, 1):(0, 2^M, 0, 2^(M+|S|), 0).
    let p = Layout::new(
        IntTuple::tuple([1i64 << m, 1 << b, 1 << (s - b), 1 << b, 1].map(IntTuple::st)),
        IntTuple::tuple([0, 1i64 << m, 0, 1 << (m + s), 0].map(IntTuple::st)),
    )?;
    let pl = composition(&p, old)?;
    let last = pl.size()?.sub(Int::st(1))?;
    let bits = pl.call_int(last)?;
    if !bits.is_static {
        return Err(not_static(format!("(P o {old})({last}) = {bits}")));
    }
    let bits = bits.value;
    let shr = |x: i64, k: i64| if k >= 0 { x >> k } else { x << -k };
    let sft = i64::from(sw.s);
    let active_z = bits & shr(bits, sft) & sw.zzz_mask();
    let active_y = bits & shr(bits, -sft) & sw.yyy_mask();
    // get_1d_coord(idx): idx2crd(idx, shape, stride) per mode ((idx / d) % s, _0 for an extent
    // _1), then its column-major index in the shape.
    let one_d = |idx: i64| -> Result<i64> {
        let (mut k, mut scale) = (0i64, 1i64);
        for (e, d) in old.leaf_pairs() {
            if !e.is_static || !d.is_static {
                return Err(not_static(format!("{old}.get_1d_coord({idx})")));
            }
            if e.value != 1 {
                if d.value == 0 {
                    return Err(not_static(format!("{old}.get_1d_coord({idx}) divides by a _0 stride")));
                }
                k += (idx / d.value) % e.value * scale;
            }
            scale *= e.value;
        }
        Ok(k)
    };
    let image = |idx: i64| -> Result<i64> {
        let v = new.call_int(Int::st(one_d(idx)?))?;
        if !v.is_static {
            return Err(not_static(format!("{new} at {idx}")));
        }
        Ok(v.value)
    };
    let sw2 = crate::swizzle::make_swizzle(image(active_y)?, image(active_z)?)?;
    Ok(crate::swizzle::compose_swizzle(sw2, new))
}

/// The layout of an SM90 GMMA operand's descriptor fragment, `make_fragment_A/B` of the
/// partition `p` of a shared-memory tensor (atom/mma_traits_sm90_gmma.hpp `MakeTensor<smem_desc>`):
/// `replace<0>(recast<uint128_t const>(p).layout(), Layout<_1,_0>{})`, one descriptor per
/// 128-bit column of the values. `bits` is the width of the operand's value type.
/// Refusals as CuTe's static_asserts: a counting tensor's `int` is not the value type
/// (mma_atom.hpp "Expecting ValTypeA type"), a layout over smem_ptr_flag_bits<B> needs a B-bit
/// element (pointer_flagged.hpp "Expected a B-bit pointer type.").
pub fn gmma_descriptor_fragment(p: &Partition, bits: i64) -> Result<Layout> {
    let Over::SmemSwizzle(_, b) = p.over else {
        return Err(Error::Rejected {
            condition: "Expecting ValTypeA type",
            detail: format!("a GMMA descriptor fragment of {p}, which is not a shared-memory tensor"),
        });
    };
    if b != bits {
        return Err(Error::Rejected {
            condition: "Expected a B-bit pointer type.",
            detail: format!("a {b}-bit shared-memory layout for {bits}-bit values"),
        });
    }
    let up = super::copy::upcast(&p.layout, 128 / bits)?;
    let mut modes = up.modes();
    if modes.is_empty() {
        return Err(Error::MismatchedRanks { detail: format!("replace<0> of {up}") });
    }
    modes[0] = Layout::leaf(Int::st(1), Int::st(0));
    Ok(Layout::concat(&modes))
}

#[cfg(test)]
mod tests {
    use super::super::{copy::copy_atom, lit, tiled_copy::make_tiled_copy, tiled_mma::make_tiled_mma};
    use super::*;
    use crate::test_util::l;

    /// A (CTA, value) map whose CTA offset and value box together run past the tile, as a
    /// multicast TMA copy's: the whole composition is refused (its values are not `tile(tv(c))`),
    /// the by-mode one is each mode's composition, checked, and concatenated.
    #[test]
    fn a_multicast_tma_partition_composes_by_mode() {
        let tile = l("(_4,_2):(_1,_8)");
        let tv = l("(_2,_4):(_2,_1)");
        assert!(composition(&tile, &tv).is_err(), "tile(tv(1,3)) = tile(5) = 9, while the modes sum to 5");
        let r = compose_tv(&tile, &tv, composition).unwrap();
        assert_eq!(r.rank(), 2);
        for (i, m) in tv.modes().iter().enumerate() {
            assert_eq!(r.mode(i).unwrap(), composition(&tile, m).unwrap(), "mode {i}");
        }
        // A leaf map is the plain composition.
        let leaf = l("_4:_2");
        assert_eq!(compose_tv(&tile, &leaf, composition).unwrap(), composition(&tile, &leaf).unwrap());
    }

    #[test]
    fn transfer_swizzle_carries_the_reached_bits() {
        // Sw<1,0,1> over (_2,_2):(_1,_2) reaches both bits (index 3 is 0b11); the fragment
        // (_2,_2):(_2,_1) swaps them, so Y' = 1, Z' = 2: make_swizzle<1,2>() is Sw<1,0,-1>.
        let sw = Swizzle::new(1, 0, 1).unwrap();
        let old = lit::layout("(_2,_2):(_1,_2)").unwrap();
        let new = lit::layout("(_2,_2):(_2,_1)").unwrap();
        let Ok(SwizzledLayout::Composed(x)) = transfer_swizzle(sw, &old, &new) else { panic!("no swizzle kept") };
        assert_eq!(x.to_string(), "Sw<1,0,-1> o _0 o (_2,_2):(_2,_1)");
        // A layout that reaches the Z bit only keeps no swizzle: the fragment itself.
        let half = lit::layout("_2:_1").unwrap();
        let Ok(SwizzledLayout::Plain(p)) = transfer_swizzle(sw, &half, &half) else { panic!("a swizzle kept") };
        assert_eq!(p, half);
    }

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

    #[test]
    fn a_slice_of_a_partition_holds_the_partitions_elements() {
        // tXsA(_,_,_,k) of a thread's copy partition of a (16,64,3) tile, plain and with the
        // swizzle on a shared-memory pointer: element i of the slice is element (i, k) of the
        // partition (its iterator moved by the slice's offset).
        let atom = copy_atom("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", "half_t").unwrap();
        let tc =
            make_tiled_copy(&atom, &lit::layout("(_16,_8):(_8,_1)").unwrap(), &lit::layout("(_1,_8):(_0,_1)").unwrap())
                .unwrap();
        let l = lit::layout("(_16,_64,_3):(_64,_1,_1024)").unwrap();
        let smem = SwizzledLayout::Composed(ComposedLayout {
            swizzle: crate::swizzle::Swizzle { b: 3, m: 3, s: 3 },
            offset: Offset::SmemPtr(16),
            layout: l.clone(),
        });
        for t in [SwizzledLayout::Plain(l.clone()), smem] {
            for thr in [0, 9, 37, 127] {
                let p = copy_partition_of(&tc, &t, thr, true).unwrap();
                assert_eq!(p.layout.rank(), 4, "{p}");
                let all = p.layout.values().unwrap();
                for k in 0..3 {
                    let c = Coord::Tuple(vec![Coord::Under, Coord::Under, Coord::Under, Coord::Int(Int::st(k))]);
                    let s = p.slice(&c).unwrap();
                    assert_eq!(s.over, p.over);
                    let v = s.layout.values().unwrap();
                    let n = v.len();
                    for (i, x) in v.iter().enumerate() {
                        assert_eq!(s.offset.value + x, p.offset.value + all[i + k as usize * n], "{p} at {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_partition_of_a_partition_holds_its_elements() {
        // The C partition of a 128x64 tile by an SM80 TiledMMA at thread 5, then partitioned by a
        // tiled copy at each thread: every element of the second partition is an element of the
        // first (its offset + the first's layout at the index the copy partition names).
        let m =
            make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", Some(&lit::layout("(_2,_2,_1):(_1,_2,_0)").unwrap()), &[])
                .unwrap();
        let l = lit::layout("(_128,_64):(_64,_1)").unwrap();
        let p = mma_partition(&m, 'C', &l, 5).unwrap();
        let first: std::collections::BTreeSet<i64> =
            p.layout.values().unwrap().into_iter().map(|v| p.offset.value + v).collect();
        let atom = copy_atom("UniversalCopy<uint32_t>", "float").unwrap();
        let tc =
            make_tiled_copy(&atom, &lit::layout("(_2,_2):(_1,_2)").unwrap(), &lit::layout("(_1,_1):(_0,_0)").unwrap())
                .unwrap();
        let mut covered = std::collections::BTreeSet::new();
        for thr in 0..4 {
            let q = p.partition(|t| copy_partition_of(&tc, t, thr, false)).unwrap();
            // The same as partitioning the partition's layout and moving the iterator.
            let direct = copy_partition(&tc, &p.layout, thr, false).unwrap();
            assert_eq!(q.layout, direct.layout);
            assert_eq!(q.offset.value, p.offset.value + direct.offset.value);
            for v in q.layout.values().unwrap() {
                assert!(first.contains(&(q.offset.value + v)), "{q} thread {thr}");
                covered.insert(q.offset.value + v);
            }
        }
        assert_eq!(covered, first);
    }

    #[test]
    fn tmem_copy_partitions_cover_the_tmem_tile_once() {
        // The co-tiled TMEM copies (make_tmem_copy over the accumulator layout of a 128 x 64
        // tile, each TMEM load and store): the partition of the TMEM tensor (partition_S of a
        // load, partition_D of a store) by all the copy's threads covers each TMEM address of the data, and the other side's of a
        // column-major 128 x 64 tensor (the kernels' `partition_D(tCgC)`) each element, exactly once per
        // thread that holds it.
        use super::super::{copy::copy_atom, tiled_copy::make_tmem_copy};
        let mut n = 0;
        for (op, t) in super::super::tmem::tmem_copy_cases() {
            let atom = copy_atom(&op, &t).unwrap();
            let dp = (1i64 << 16) * (32 / atom.val_bits);
            let data = lit::layout(&format!("(_128,_64):(_{dp},_1)")).unwrap();
            let tc = make_tmem_copy(&atom, &data).unwrap();
            let nthr = tc.tv.mode(0).unwrap().size().unwrap().value;
            let addrs: std::collections::BTreeSet<i64> = data.values().unwrap().into_iter().collect();
            let gmem = lit::layout("(_128,_64):(_1,_128)").unwrap();
            // The TMEM side is a load's source and a store's destination.
            let load = !op.contains("STORE");
            for (l, tmem) in [(&data, true), (&gmem, false)] {
                let src = tmem == load;
                let mut seen = std::collections::BTreeMap::new();
                for thr in 0..nthr {
                    let p = copy_partition(&tc, l, thr, src).unwrap_or_else(|e| panic!("{op}: {e}"));
                    for v in p.layout.values().unwrap() {
                        *seen.entry(p.offset.value + v).or_insert(0) += 1;
                    }
                }
                let want: std::collections::BTreeSet<i64> = if tmem { addrs.clone() } else { (0..128 * 64).collect() };
                assert_eq!(seen.keys().copied().collect::<std::collections::BTreeSet<_>>(), want, "{op} src={src}");
                // A TMEM load's source (a store's destination) is warp-collective: the atom's 32
                // threads of a warp name the same TMEM addresses (copy_traits_sm100.hpp
                // `atom_t_layout = (_32,_4):(_0, 32 DP)`), so each address is named by the 32
                // threads of its warp; the register side's elements, by one thread each.
                let per = if tmem { 32 } else { 1 };
                assert!(seen.values().all(|&k| k == per), "{op} src={src}");
            }
            n += 1;
        }
        assert!(n >= 40, "{n}");
    }

    #[test]
    fn swizzled_partitions_cover_the_swizzled_tile() {
        // sgemm_sm80's sA (Sw<3,3,3> atom tiled to 128x64x3) partitioned by its cp.async copy and
        // by an LDSM copy of A: each thread's decayed slice, at its offset, gives CuTe's swizzled
        // indices; all threads together cover the swizzled tile once per value.
        use crate::swizzle::Swizzle;
        let atom = copy_atom("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", "half_t").unwrap();
        let tc =
            make_tiled_copy(&atom, &lit::layout("(_16,_8):(_8,_1)").unwrap(), &lit::layout("(_1,_8):(_0,_1)").unwrap())
                .unwrap();
        let x = ComposedLayout {
            swizzle: Swizzle { b: 3, m: 3, s: 3 },
            offset: Offset::Int(Int::st(0)),
            layout: lit::layout("((_8,_16),((_8,_8),_1),(_1,_3)):((_8,_512),((_1,_64),_0),(_0,_8192))").unwrap(),
        };
        let t = SwizzledLayout::Composed(x);
        let n = 128 * 64 * 3;
        let mut seen = vec![0; n];
        for thr in 0..128 {
            let p = copy_partition_of(&tc, &t, thr, false).unwrap();
            assert_eq!(p.over, Over::Counting);
            for v in p.layout.values().unwrap() {
                seen[(p.offset.value + v) as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&k| k == 1));
        // Thread 37's 8 values are 8 contiguous swizzled halfs (one 128-bit cp.async).
        let p = copy_partition_of(&tc, &t, 37, false).unwrap();
        assert_eq!(p.to_string(), "counting_iter(328) o ((_8,_1),_8,_1,(_1,_3)):((_1,_0),_1024,_0,(_0,_8192))");
        let m =
            make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", Some(&lit::layout("(_2,_2,_1):(_1,_2,_0)").unwrap()), &[])
                .unwrap();
        let mut seen = vec![0; n];
        for thr in 0..128 {
            let p = mma_partition_of(&m, 'A', &t, thr).unwrap();
            for v in p.layout.values().unwrap() {
                seen[(p.offset.value + v) as usize] += 1;
            }
        }
        // A is read by the two N-warps: every element twice.
        assert!(seen.iter().all(|&k| k == 2));
    }
}
