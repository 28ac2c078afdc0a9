//! SM90 TMA copy atoms as CuTe computes them on the host (atom/copy_traits_sm90_tma.hpp, CUTLASS
//! 4.2 and 4.7, which agree on everything modelled here): `make_tma_copy` and `make_tma_atom` for
//! `SM90_TMA_LOAD`, `SM90_TMA_LOAD_MULTICAST`, `SM90_TMA_STORE` and `SM90_TMA_REDUCE_ADD`, from the
//! global tensor's layout, the shared-memory layout (plain, or a GMMA swizzle atom tiled by
//! `tile_to_shape`), the CTA tiler and the cluster (multicast) size.
//!
//! What CuTe derives, step by step (the functions below, each citing the header's step):
//! 1. `cta_v_map = make_identity_layout(shape(gtensor)).compose(cta_tiler)` (make_tma_copy): the
//!    CTA tile's value index to a coordinate of the global tensor, as basis strides.
//! 2. [`construct_tma_gbasis`]: the smem layout inverted (`right_inverse` of its non-swizzle part),
//!    composed into `cta_v_map` and coalesced: smem index to gmem mode; kept up to the first mode
//!    whose basis value is not a static `_1` (the longest run that TMA can move with unit element
//!    strides); the gmem strides of that run merged greedily up to 256 elements (`coalesce_256`);
//!    the gmem modes the box does not cover appended with extent `_1`; modes past the fifth
//!    grouped into the fifth (TMA has rank 5 at most). The result, `TmaGmemBasis`, maps the box's
//!    coordinates to gmem modes.
//! 3. [`tma_descriptor_args`] (`make_tma_copy_desc`): the arguments CuTe passes to
//!    `cuTensorMapEncodeTiled`: the gmem extents and byte strides of each TMA mode (a mode made of
//!    several gmem modes gets CuTe's gcd recurrence, `fill_tma_gmem_shape_stride`), the box (each
//!    mode's size, the last modes divided by the multicast count), unit element strides, no
//!    interleave, the swizzle read off the smem layout's swizzle, L2 promotion 128B, no OOB fill,
//!    and the data type of the element. CuTe's host `assert`s on these values are the refusals
//!    ([`TmaRefusal`]).
//! 4. The TMA coordinate strides (`AuxParams::g_stride_`): for each gmem mode, `E<j>` of the TMA
//!    mode `j` that holds it (scaled for mode 0 by the gmem stride, for a merged mode by the byte
//!    stride ratio CuTe computes), `_0` when it holds none.
//! 5. [`make_tma_copy`] (`make_tma_copy_tiled`): the Copy_Atom (`ThrID _1:_0`, every layout
//!    `(_1,box elements):(_0,_1)`) and the TiledCopy's `Tiler_MN = product_each(shape(cta_v_map))`
//!    and `TiledLayout_TV = (layout_T, layout_V)`: `layout_V` the inverse smem layout cut to one box
//!    and tiled to the CTA tile, `layout_T` the multicast CTAs' slices of one box.
//!
//! Postconditions (checked by [`check_postconditions`]; property tests in this module,
//! `tma::tests::every_postcondition_holds` and `::a_wrong_gbasis_fails_the_check`):
//! 1. The box covers one TMA's worth of smem: `prod(boxDim) * multicast == size(TmaGmemBasis)` and
//!    `size(TmaGmemBasis)` divides `size(smem layout)` (the copy repeats the box over the tile).
//! 2. The gbasis maps box coordinates into the CTA's gmem tile: for every index `i` of the box,
//!    `TmaGmemBasis(i)`, read as a gmem coordinate, is the coordinate `cta_v_map(inv_smem(i))` of
//!    smem element `i` (CuTe's construction: the box is the front of the smem vector).
//! 3. The descriptor's box and extents are in range (`1 <= boxDim <= 256`, `1 <= globalDim <=
//!    2^32`), the byte strides multiples of 16 below 2^40, the first gmem stride of the box one
//!    element (else CuTe refuses, and so does the engine).
//! 4. `TiledLayout_TV` has `size(cta_t_map)` threads (`size(cluster)` for `make_tma_copy`), a
//!    multiple of the atom's `ThrID` (2 for SM100's 2-SM loads), and `size(cta_v_map)` values, and
//!    its value mode maps onto smem coordinates `0..size(smem)` injectively.

use std::fmt;

use super::atom::copy::{type_bits, upcast, CopyAtom};
use super::atom::tiled_copy::{product_each, TiledCopy};
use super::composition::composition;
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::{IntTuple, Tup, View};
use super::layout::Layout;
use super::postcondition::{enforce, Checked, Violation};
use super::release::{
    TMA_128B_ATOM_SWIZZLES, TMA_MULTICAST_SPLITS_THE_BOX, TMA_SWIZZLE_BASE_CHECKED, TMA_TILE_CHECKS_SIZE_ONLY,
    TUPLE_EQUALITY_NEEDS_EQUAL_RANKS,
};
use super::right_inverse::right_inverse;
use super::scaled_basis::{self as sb, BasisLayout, BasisValue, ScaledBasis};
use super::swizzle::{ComposedLayout, Swizzle};
use super::tile_to_shape::{tile_to_shape, Order};
use super::tiler::Tiler;

/// The TMA copy operations CuTe's `make_tma_copy` takes here: SM90's, and SM100's 2-SM loads
/// (atom/copy_traits_sm100_tma.hpp, from CUTLASS 3.8), whose Copy_Traits have two threads (the
/// two peer CTAs of a 2-SM MMA): `ThrID _2`, every layout `(_2,bits):(bits,_1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaOp {
    Load,
    LoadMulticast,
    Store,
    ReduceAdd,
    TwoSmLoad,
    TwoSmLoadMulticast,
    /// SM100's 2-D gather of four rows (CUTLASS 4.5+): the box one row of the gbasis's first mode,
    /// the atom four of them.
    Gather4,
    Gather4Multicast,
    Scatter4,
}

impl TmaOp {
    pub const ALL: [TmaOp; 9] = [
        TmaOp::Load,
        TmaOp::LoadMulticast,
        TmaOp::Store,
        TmaOp::ReduceAdd,
        TmaOp::TwoSmLoad,
        TmaOp::TwoSmLoadMulticast,
        TmaOp::Gather4,
        TmaOp::Gather4Multicast,
        TmaOp::Scatter4,
    ];

    /// CuTe's name of the operation.
    pub fn name(self) -> &'static str {
        match self {
            TmaOp::Load => "SM90_TMA_LOAD",
            TmaOp::LoadMulticast => "SM90_TMA_LOAD_MULTICAST",
            TmaOp::Store => "SM90_TMA_STORE",
            TmaOp::ReduceAdd => "SM90_TMA_REDUCE_ADD",
            TmaOp::TwoSmLoad => "SM100_TMA_2SM_LOAD",
            TmaOp::TwoSmLoadMulticast => "SM100_TMA_2SM_LOAD_MULTICAST",
            TmaOp::Gather4 => "SM100_TMA_LOAD_2D_GATHER4",
            TmaOp::Gather4Multicast => "SM100_TMA_LOAD_MULTICAST_2D_GATHER4",
            TmaOp::Scatter4 => "SM100_TMA_STORE_2D_SCATTER4",
        }
    }

    /// The 2-D gather/scatter of four rows (`make_tma_copy_atom`'s `tma_gbasis_g4`).
    pub fn is_gather(self) -> bool {
        matches!(self, TmaOp::Gather4 | TmaOp::Gather4Multicast | TmaOp::Scatter4)
    }

    /// The Copy_Traits' thread count (`size(ThrID)`): 2 for SM100's 2-SM loads, else 1.
    pub fn atom_threads(self) -> i64 {
        match self {
            TmaOp::TwoSmLoad | TmaOp::TwoSmLoadMulticast => 2,
            _ => 1,
        }
    }

    /// A multicast operation (the SM100 atoms' `num_multicast` is a cluster extent for these).
    pub fn is_multicast(self) -> bool {
        matches!(self, TmaOp::LoadMulticast | TmaOp::TwoSmLoadMulticast | TmaOp::Gather4Multicast)
    }

    pub fn by_name(n: &str) -> Option<TmaOp> {
        let n = n.strip_prefix("cute::").unwrap_or(n);
        TmaOp::ALL.into_iter().find(|o| o.name() == n)
    }
}

/// The shared-memory layout of a TMA: a plain layout, or a swizzled one (a GMMA atom tiled by
/// `tile_to_shape`, or `composition(Swizzle<B,M,S>, L)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SmemLayout {
    Plain(Layout),
    Swizzled(ComposedLayout),
}

impl SmemLayout {
    /// `get_nonswizzle_portion(slayout)`: the layout the swizzle acts on.
    pub fn nonswizzle(&self) -> &Layout {
        match self {
            SmemLayout::Plain(l) => l,
            SmemLayout::Swizzled(c) => &c.layout,
        }
    }
    /// `get_swizzle_portion(slayout)`: the swizzle, `Swizzle<0,4,3>` for a plain layout.
    pub fn swizzle(&self) -> Swizzle {
        match self {
            SmemLayout::Plain(_) => Swizzle { b: 0, m: 4, s: 3 },
            SmemLayout::Swizzled(c) => c.swizzle,
        }
    }
}

/// `cuTensorMapEncodeTiled`'s data types (cuda.h `CUtensorMapDataType`), as CuTe's
/// `TMA::to_CUtensorMapDataType<T>` (arch/copy_sm90_desc.hpp) picks them.
pub fn tensor_map_data_type(ty: &str) -> Result<&'static str> {
    let t = ty.strip_prefix("cute::").or_else(|| ty.strip_prefix("cutlass::")).unwrap_or(ty);
    Ok(match t {
        "int8_t" | "uint8_t" | "float_e4m3_t" | "float_e5m2_t" | "float_ue8m0_t" => "UINT8",
        "uint16_t" => "UINT16",
        "uint32_t" => "UINT32",
        "int32_t" => "INT32",
        "uint64_t" => "UINT64",
        "int64_t" => "INT64",
        "half_t" => "FLOAT16",
        "float" => "FLOAT32",
        "double" => "FLOAT64",
        "bfloat16_t" => "BFLOAT16",
        "tfloat32_t" => "TFLOAT32",
        _ => {
            return Err(Error::Rejected { condition: "Unknown TMA Format!", detail: format!("value type {ty}") });
        }
    })
}

/// The arguments CuTe's host code passes to `cuTensorMapEncodeTiled` (make_tma_copy_desc), the
/// address left out (CuTe passes the tensor's pointer; cutecheck's driver passes a fixed aligned
/// one). Enumerators are named as cuda.h names them, without the common prefix.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TmaDescriptor {
    /// `CU_TENSOR_MAP_DATA_TYPE_<this>`.
    pub data_type: &'static str,
    /// `tensorRank`.
    pub rank: u32,
    /// `globalDim[rank]`, in elements.
    pub global_dim: Vec<u64>,
    /// `globalStrides[rank - 1]`, in bytes (the first stride is implicitly one element).
    pub global_strides: Vec<u64>,
    /// `boxDim[rank]`.
    pub box_dim: Vec<u32>,
    /// `elementStrides[rank]`.
    pub element_strides: Vec<u32>,
    /// `CU_TENSOR_MAP_INTERLEAVE_<this>`.
    pub interleave: &'static str,
    /// `CU_TENSOR_MAP_SWIZZLE_<this>`.
    pub swizzle: &'static str,
    /// `CU_TENSOR_MAP_L2_PROMOTION_<this>`.
    pub l2_promotion: &'static str,
    /// `CU_TENSOR_MAP_FLOAT_OOB_FILL_<this>`.
    pub oob_fill: &'static str,
}

/// `(a,b,c)`, as the compiled driver prints a captured argument array.
pub(crate) fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, v: &[T]) -> fmt::Result {
    f.write_str("(")?;
    for (k, x) in v.iter().enumerate() {
        if k > 0 {
            f.write_str(",")?;
        }
        write!(f, "{x}")?;
    }
    f.write_str(")")
}

impl fmt::Display for TmaDescriptor {
    /// One line, as cutecheck's compiled driver prints the arguments it captured from CuTe's call
    /// (cpp/driver/driver.cpp, `cutecheck::print(TmaEncodeArgs)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cuTensorMapEncodeTiled(dataType={},rank={},globalDim=", self.data_type, self.rank)?;
        write_list(f, &self.global_dim)?;
        f.write_str(",globalStrides=")?;
        write_list(f, &self.global_strides)?;
        f.write_str(",boxDim=")?;
        write_list(f, &self.box_dim)?;
        f.write_str(",elementStrides=")?;
        write_list(f, &self.element_strides)?;
        write!(
            f,
            ",interleave={},swizzle={},l2Promotion={},oobFill={})",
            self.interleave, self.swizzle, self.l2_promotion, self.oob_fill
        )
    }
}

/// Why CuTe's host code refuses a TMA (its `assert`s, which abort the program, and its
/// `static_assert`s), each naming CuTe's condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TmaRefusal {
    /// `static_assert`: "TMA requires CTA_Tile and SLayout top-level size equivalence."
    TileSize,
    /// Before 3.6 ([`TMA_TILE_CHECKS_SIZE_ONLY`] off), `static_assert`: "TMA requires CTA_Tile
    /// and SLayout top-level shape equivalence." (`product_each` of both shapes equal).
    TileShape,
    /// `static_assert(smem_rank > 0)`: "Could not find a common tile-gmem vectorization. Does the
    /// Tile select out major GMEM modes?"
    NoVectorization,
    /// `assert(gmem_prob_stride[0] == 1 && "Majorness of smem doesn't match majorness of gmem")`.
    Majorness,
    /// `assert(gmem_prob_shape[i] >= 1 && <= 2^32)`.
    GlobalDim,
    /// `assert((gmem_prob_stride[i] & 0b1111) == 0)`: "Stride must be multiple of 16B (128b)".
    StrideNot16B,
    /// `assert(gmem_prob_stride[i] < 2^40)`.
    StrideTooLarge,
    /// `assert(smem_box_shape[i] <= 2^8)`: the box is larger than 256 in some mode.
    BoxTooLarge,
    /// `assert(smem_box_shape[i] % multicast == 0 || multicast % smem_box_shape[i] == 0)`.
    MulticastSplit,
    /// `get_tma_swizzle_bits`/`get_tma_swizzle_base` static_asserts: the smem swizzle is none of
    /// TMA's (`Swizzle<B,4,3>`, B in 0..=3; `Swizzle<2,5,2>`, `Swizzle<2,6,S>`).
    Swizzle,
    /// `num_elems_per_tma` not divisible by the multicast count (`safe_div`).
    MulticastDivide,
    /// CUTLASS 3.3 ([`TMA_MULTICAST_SPLITS_THE_BOX`] off), `static_assert`: "Number of active
    /// CTAs in TMA must divide domain size of slayout." (`size(slayout) % cosize(cta_t_map)`).
    CtasDivideSmem,
}

impl TmaRefusal {
    /// CuTe's condition, as its static_assert message or assert expression says it.
    pub fn condition(&self) -> &'static str {
        match self {
            TmaRefusal::TileSize => "TMA requires CTA_Tile and SLayout top-level size equivalence.",
            TmaRefusal::TileShape => "TMA requires CTA_Tile and SLayout top-level shape equivalence.",
            TmaRefusal::NoVectorization => {
                "Could not find a common tile-gmem vectorization. Does the Tile select out major GMEM modes?"
            }
            TmaRefusal::Majorness => {
                "gmem_prob_stride[0] == 1 && \"Majorness of smem doesn't match majorness of gmem\""
            }
            TmaRefusal::GlobalDim => "gmem_prob_shape[i] >= 1 && gmem_prob_shape[i] <= 2^32",
            TmaRefusal::StrideNot16B => "(gmem_prob_stride[i] & 0b1111) == 0: Stride must be multiple of 16B (128b)",
            TmaRefusal::StrideTooLarge => "gmem_prob_stride[i] < 2^40: Stride must be max 2^40",
            TmaRefusal::BoxTooLarge => "smem_box_shape[i] <= 2^8: Size must be max 2^8 = 256",
            TmaRefusal::MulticastSplit => "smem_box_shape[i] % multicast == 0 || multicast % smem_box_shape[i] == 0",
            TmaRefusal::Swizzle => "Unsupported layout swizzle.",
            TmaRefusal::MulticastDivide => "Static safe_div requires t % u == 0",
            TmaRefusal::CtasDivideSmem => "Number of active CTAs in TMA must divide domain size of slayout.",
        }
    }
}

fn refuse(r: TmaRefusal, detail: String) -> Error {
    Error::Rejected { condition: r.condition(), detail }
}

/// Everything `make_tma_copy` computes on the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmaCopy {
    pub op: TmaOp,
    pub val_type: String,
    /// `AuxParams::TmaGmemBasis`: box coordinate -> gmem mode.
    pub gbasis: BasisLayout,
    /// `aux_params_.g_stride_`: gmem mode -> TMA coordinate basis.
    pub g_stride: BasisValue,
    pub desc: TmaDescriptor,
    /// The Copy_Atom.
    pub atom: CopyAtom,
    /// The TiledCopy (`make_tma_copy`; `None` for `make_tma_atom`).
    pub tiled: Option<TiledCopy>,
    /// `cta_v_map`: CTA value index -> gmem coordinate.
    pub cta_v_map: BasisLayout,
    /// The number of CTAs multicast to.
    pub multicast: i64,
    /// `size(cta_t_map)`: the TiledCopy's threads (`size(cluster)` for `make_tma_copy`; 0 for an
    /// atom).
    pub cta_threads: i64,
    /// The smem layout it was made for.
    pub smem: SmemLayout,
}

/// The flat leaves of a basis value, in preorder.
fn leaves(v: &BasisValue, out: &mut Vec<BasisValue>) {
    match v {
        BasisValue::Tuple(t) => t.iter().for_each(|x| leaves(x, out)),
        leaf => out.push(leaf.clone()),
    }
}

fn flat(v: &BasisValue) -> Vec<BasisValue> {
    let mut out = Vec::new();
    leaves(v, &mut out);
    out
}

/// `basis_value(e)`: the scale of a basis element, an integer itself.
fn basis_value(e: &BasisValue) -> Option<Int> {
    match e {
        BasisValue::Int(i) => Some(*i),
        BasisValue::Basis(b) => Some(b.value),
        BasisValue::Tuple(_) => None,
    }
}

/// `basis_get(E<N...>, t)`: the sub-tuple of `t` at the path `N...`.
fn basis_get<'a>(modes: &[u32], t: &'a Tup) -> Result<&'a Tup> {
    let mut cur = t;
    for &m in modes {
        cur = match cur.view() {
            View::Tuple(_) => cur.mode(m as usize)?,
            // `get<0>` of a non-tuple is the value itself.
            View::Leaf(_) if m == 0 => cur,
            View::Leaf(_) => return Err(Error::Type(format!("basis_get: mode {m} of {t}"))),
        };
    }
    Ok(cur)
}

/// `tb == E{}` read as CuTe's static `any_of` needs it: the same modes and the static value `_1`.
fn is_unit(tb: &BasisValue, modes: &[u32]) -> Result<bool> {
    match tb {
        BasisValue::Basis(b) if b.modes.len() == modes.len() => {
            if !b.value.is_static {
                return Err(Error::Rejected {
                    condition: "decltype(has_e)::value: a dynamic TMA basis value is not a constant",
                    detail: tb.to_string(),
                });
            }
            Ok(b.modes == modes && b.value.value == 1)
        }
        _ => Ok(false),
    }
}

/// The shape and stride of a layout as a list of top-level modes (a leaf layout is one mode).
fn top_modes(l: &BasisLayout) -> Vec<(IntTuple, BasisValue)> {
    match (l.shape.view(), &l.stride) {
        (View::Tuple(s), BasisValue::Tuple(d)) => s.iter().map(|x| x.to_owned()).zip(d.iter().cloned()).collect(),
        _ => vec![(l.shape.clone(), l.stride.clone())],
    }
}

fn basis_layout_of(modes: Vec<(IntTuple, BasisValue)>) -> BasisLayout {
    let (s, d): (Vec<IntTuple>, Vec<BasisValue>) = modes.into_iter().unzip();
    BasisLayout { shape: IntTuple::tuple(s), stride: BasisValue::Tuple(d) }
}

/// `detail::coalesce_256(layout)` on a flat integer layout: merge neighbouring modes whose
/// strides continue each other (statically) while the merged extent stays at most 256; static
/// `_1` extents are dropped; the first mode seeds the result as a leaf, so one mode left is a leaf
/// layout (`_1:_0` when it is the static `_1`).
pub fn coalesce_256(l: &Layout) -> Result<Layout> {
    let pairs = l.leaf_pairs();
    let (s0, d0) = pairs[0];
    let mut shape = vec![s0];
    let mut stride = vec![d0];
    let mut tuple = false;
    for &(s, d) in &pairs[1..] {
        if s.is_static_value(1) {
            continue;
        }
        if !tuple && shape[0].is_static_value(1) {
            shape[0] = s;
            stride[0] = d;
            continue;
        }
        let (bs, bd) = (*shape.last().expect("one"), *stride.last().expect("one"));
        let statically = bs.is_static && bd.is_static && d.is_static && s.is_static;
        if statically && bs.value * bd.value == d.value && s.value * bs.value <= 256 {
            *shape.last_mut().expect("one") = s.mul(bs)?;
            continue;
        }
        shape.push(s);
        stride.push(d);
        tuple = true;
    }
    if !tuple {
        if shape[0].is_static_value(1) {
            return Ok(Layout::leaf(Int::st(1), Int::st(0)));
        }
        return Ok(Layout::leaf(shape[0], stride[0]));
    }
    Layout::new(IntTuple::of_leaves(shape), IntTuple::of_leaves(stride))
}

/// `product_each(shape)`: the size of each top mode (a leaf shape is its own one mode).
fn top_products(shape: &Tup) -> Result<Vec<Int>> {
    match shape.view() {
        View::Leaf(i) => Ok(vec![i]),
        View::Tuple(v) => v.iter().map(|m| m.product()).collect(),
    }
}

/// `detail::construct_tma_gbasis<T>(gtensor, slayout, cta_v_map)`: the TMA's box coordinate ->
/// gmem mode layout (step 2 of the module doc).
pub fn construct_tma_gbasis(gmem: &Layout, slayout: &Layout, cta_v_map: &BasisLayout) -> Result<BasisLayout> {
    gbasis_of(gmem, slayout, cta_v_map, None)
}

/// [`construct_tma_gbasis`], or with `cut = Some(multicast)` CUTLASS 3.3's make_tma_copy_tiled
/// and make_tma_copy_desc ([`TMA_MULTICAST_SPLITS_THE_BOX`] off): "Number of active CTAs in TMA
/// must divide domain size of slayout." after the shape check, and the box vector cut to its
/// first `shape_div(size, multicast)` elements before the gbasis is built from it.
fn gbasis_of(gmem: &Layout, slayout: &Layout, cta_v_map: &BasisLayout, cut: Option<i64>) -> Result<BasisLayout> {
    if !TMA_TILE_CHECKS_SIZE_ONLY.on() {
        // Before 3.6: "TMA requires CTA_Tile and SLayout top-level shape equivalence." Before 3.5
        // a left tuple that is a prefix of the right one is equal to it
        // ([`TUPLE_EQUALITY_NEEDS_EQUAL_RANKS`]).
        let (sp, vp) = (top_products(&slayout.shape)?, top_products(&cta_v_map.shape)?);
        let ranks = if TUPLE_EQUALITY_NEEDS_EQUAL_RANKS.on() { sp.len() == vp.len() } else { sp.len() <= vp.len() };
        let equal = ranks && sp.iter().zip(&vp).all(|(a, b)| a.value == b.value);
        if !equal || !sp.iter().chain(&vp).all(|i| i.is_static) {
            let show = |v: &[Int]| v.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
            return Err(refuse(
                TmaRefusal::TileShape,
                format!(
                    "product_each(shape({slayout})) = ({}), product_each(shape({cta_v_map})) = ({})",
                    show(&sp),
                    show(&vp)
                ),
            ));
        }
    }
    let (ss, vs) = (slayout.size()?, cta_v_map.size()?);
    if let Some(m) = cut {
        // CUTLASS 3.3: size(slayout) % cosize(cta_t_map) == _0.
        if ss.value % m != 0 {
            return Err(refuse(TmaRefusal::CtasDivideSmem, format!("size({slayout}) = {ss}, {m} CTAs")));
        }
    }
    // "TMA requires CTA_Tile and SLayout top-level size equivalence." (from 3.6; before, the
    // shape check alone, which before 3.5 passes a tile larger than the smem layout when the
    // smem layout's top products are a prefix of the tile's).
    if TMA_TILE_CHECKS_SIZE_ONLY.on() && (ss.value != vs.value || !(ss.is_static && vs.is_static)) {
        return Err(refuse(TmaRefusal::TileSize, format!("size({slayout}) = {ss}, size({cta_v_map}) = {vs}")));
    }
    // smem idx -> smem coord, then smem idx -> gmem mode.
    let inv_smem = right_inverse(slayout)?;
    let full = sb::coalesce(&sb::composition(cta_v_map, &inv_smem)?)?;
    // The first mode whose basis value is not a static `_1` ends the vector.
    let modes = top_modes(&full);
    let rank =
        modes.iter().position(|(_, d)| !basis_value(d).is_some_and(|v| v.is_static_value(1))).unwrap_or(modes.len());
    if rank == 0 {
        return Err(refuse(TmaRefusal::NoVectorization, format!("smem index -> gmem mode {full}")));
    }
    // take<0,rank>: always a tuple.
    let mut sidx2gmode = basis_layout_of(modes[..rank].to_vec());
    if let Some(m) = cut {
        // CUTLASS 3.3: tma_layout_v = composition(tma_layout_trunc, shape_div(size(trunc), m)).
        let n = sidx2gmode.size()?.value;
        if n % m != 0 && m % n != 0 {
            return Err(Error::Rejected {
                condition: "Static shape_div failure",
                detail: format!(
                    "shape_div(size({sidx2gmode}) = {n}, {m} CTAs) in make_tma_copy_tiled before CUTLASS 3.4"
                ),
            });
        }
        let q = if n % m == 0 { n / m } else { 1 };
        if q == 1 {
            return Err(Error::Rejected {
                condition: "make_tma_copy_desc of a one-element box: composition(tma_layout_trunc, _1) is _1:_0, whose stride is no basis (no match for 'operator*')",
                detail: format!("{n} elements per TMA over {m} CTAs before CUTLASS 3.4"),
            });
        }
        sidx2gmode = sb::composition(&sidx2gmode, &Layout::leaf(Int::st(q), Int::st(1)))?;
    }
    // tma_val_idx -> gmem strides, merged up to 256 elements.
    let tile_gstride = sb::composition_by_basis(gmem, &sidx2gmode)?;
    let tma_gstride = coalesce_256(&tile_gstride)?;
    // The same tiling read through the identity layout: box coordinate -> gmem mode, with the
    // recast shape (the same element type: the same shape).
    let gbasis = sb::make_identity_layout(&gmem.shape);
    let tmp = identity_compose(&gbasis, &sidx2gmode)?;
    let tile_gbasis = BasisLayout::new(tile_gstride.shape.clone(), tmp.stride)?;
    let wrapped = match tma_gstride.shape.view() {
        View::Tuple(_) => tma_gstride.shape.clone(),
        View::Leaf(_) => IntTuple::tuple([tma_gstride.shape.clone()]),
    };
    let tma_gbasis_tile = sb::composition(&tile_gbasis, &Layout::col_major(wrapped)?)?;
    // The gmem modes the box does not reach, appended with extent _1.
    let tile_strides = flat(&tma_gbasis_tile.stride);
    let mut remaining = Vec::new();
    let gshape: Vec<Int> = gmem.shape.leaf_iter().collect();
    let gstride: Vec<Int> = gmem.stride.leaf_iter().collect();
    for ((s, d), e) in gshape.iter().zip(&gstride).zip(flat(&gbasis.stride)) {
        if s.is_static_value(1) || d.is_static_value(0) {
            continue;
        }
        let BasisValue::Basis(eb) = &e else { return Err(Error::Type(format!("identity stride {e}"))) };
        let mut found = false;
        for tb in &tile_strides {
            found |= is_unit(tb, &eb.modes)?;
        }
        if !found {
            remaining.push(e);
        }
    }
    let mut full_modes = top_modes(&tma_gbasis_tile);
    if !tma_gbasis_tile.shape.is_tuple() {
        full_modes = vec![(tma_gbasis_tile.shape.clone(), tma_gbasis_tile.stride.clone())];
    }
    for e in remaining {
        full_modes.push((IntTuple::st(1), e));
    }
    // group<min(rank,4), -1>: modes past the fourth grouped into one (TMA's rank is at most 5).
    if full_modes.len() > 4 {
        let rest = full_modes.split_off(4);
        full_modes.push(basis_layout_of(rest).into_mode());
    }
    Ok(basis_layout_of(full_modes))
}

impl BasisLayout {
    fn into_mode(self) -> (IntTuple, BasisValue) {
        (self.shape, self.stride)
    }
}

/// `make_identity_layout(shape(gtensor)).compose(sidx2gmode)`: each leaf `s:v@N` of `sidx2gmode`
/// composes the identity's mode `N` (`S_N:E<N>`, a leaf) with `s:v`, which is `s:(v@N)`
/// (layout.hpp composition_impl, the "RHS ScaledBasis stride" case).
fn identity_compose(identity: &BasisLayout, b: &BasisLayout) -> Result<BasisLayout> {
    for d in flat(&b.stride) {
        if let BasisValue::Basis(e) = &d {
            let sub = basis_get(&e.modes, &identity.shape)?;
            if sub.is_tuple() {
                return Err(Error::Type(format!("TMA: the box reaches the non-leaf gmem mode {sub}: not modelled")));
            }
        }
    }
    Ok(b.clone())
}

/// The gcd of two u64.
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// `fill_tma_gmem_shape_stride` and the rest of `make_tma_copy_desc`: the arguments of
/// `cuTensorMapEncodeTiled` (step 3 of the module doc), from the gmem layout, the gbasis, the
/// smem swizzle, the element type and the multicast count.
pub fn descriptor(
    gmem: &Layout,
    gbasis: &BasisLayout,
    swizzle: Swizzle,
    val_type: &str,
    multicast: i64,
) -> Result<TmaDescriptor> {
    let bits = type_bits(val_type)? as u64;
    let data_type = tensor_map_data_type(val_type)?;
    let modes = top_modes(gbasis);
    let rank = modes.len();
    let mut shape = [1u64; 5];
    let mut stride = [0u64; 5];
    let value = |modes: &[u32], t: &Tup| -> Result<i64> {
        match basis_get(modes, t)?.as_leaf() {
            Some(i) => Ok(i.value),
            None => Err(Error::Type(format!("TMA: a non-leaf gmem mode in {t}: not modelled"))),
        }
    };
    for (i, (_, d)) in modes.iter().enumerate() {
        let ds: Vec<BasisValue> = match d {
            BasisValue::Tuple(v) => v.clone(),
            leaf => vec![leaf.clone()],
        };
        if ds.len() == 1 {
            let BasisValue::Basis(e) = &ds[0] else {
                return Err(Error::Type(format!("TMA mode {i} stride {d}: not a basis element")));
            };
            shape[i] = value(&e.modes, &gmem.shape)? as u64;
            stride[i] = value(&e.modes, &gmem.stride)? as u64;
        } else {
            for dj in &ds {
                let BasisValue::Basis(e) = dj else {
                    return Err(Error::Type(format!("TMA mode {i} stride {d}: a nested mode is not modelled")));
                };
                let shape_j = value(&e.modes, &gmem.shape)? as u64;
                let stride_j = value(&e.modes, &gmem.stride)? as u64;
                let old = stride[i];
                stride[i] = gcd(stride[i], stride_j);
                shape[i] = match (old.checked_div(stride[i]), stride_j.checked_div(stride[i])) {
                    // Recurrence: g_shape = (s_i - 1) * (d_i / gcd_j d_j) + 1
                    (Some(a), Some(b)) => {
                        // uint64_t arithmetic, as CuTe's: it wraps where it overflows (then refused below).
                        shape[i]
                            .wrapping_sub(1)
                            .wrapping_mul(a)
                            .wrapping_add(shape_j.wrapping_sub(1).wrapping_mul(b))
                            .wrapping_add(1)
                    }
                    _ => shape_j,
                };
            }
        }
    }
    for (i, s) in shape.iter().enumerate() {
        if *s < 1 || *s > (1u64 << 32) {
            return Err(refuse(TmaRefusal::GlobalDim, format!("gmem_prob_shape[{i}] = {s}")));
        }
    }
    if stride[0] != 1 {
        return Err(refuse(
            TmaRefusal::Majorness,
            format!("gmem_prob_stride[0] = {} for {gbasis} over {gmem}", stride[0]),
        ));
    }
    for s in stride.iter_mut() {
        *s = s.wrapping_mul(bits) / 8;
    }
    for (i, s) in stride.iter().enumerate().skip(1) {
        if *s >= (1u64 << 40) {
            return Err(refuse(TmaRefusal::StrideTooLarge, format!("gmem_prob_stride[{i}] = {s} bytes")));
        }
        if s & 0b1111 != 0 {
            return Err(refuse(TmaRefusal::StrideNot16B, format!("gmem_prob_stride[{i}] = {s} bytes")));
        }
    }
    let mut boxd = [1u32; 5];
    for (i, (s, _)) in modes.iter().enumerate() {
        boxd[i] = s.product()?.value as u32;
    }
    // Truncate the box by the multicast count, last modes first.
    let mut m = multicast.max(1) as u32;
    let mut i = rank as i64 - 1;
    while m > 1 {
        if i < 0 {
            return Err(refuse(TmaRefusal::MulticastSplit, format!("multicast {multicast} over box {boxd:?}")));
        }
        let b = boxd[i as usize];
        if !b.is_multiple_of(m) && !m.is_multiple_of(b) {
            return Err(refuse(TmaRefusal::MulticastSplit, format!("box extent {b}, multicast {m}")));
        }
        let new_m = m.div_ceil(b);
        boxd[i as usize] = b.div_ceil(m);
        m = new_m;
        i -= 1;
    }
    for (i, b) in boxd.iter().enumerate() {
        if *b < 1 || *b > 256 {
            return Err(refuse(TmaRefusal::BoxTooLarge, format!("smem_box_shape[{i}] = {b}")));
        }
    }
    Ok(TmaDescriptor {
        data_type,
        rank: rank as u32,
        global_dim: shape[..rank].to_vec(),
        global_strides: stride[1..rank].to_vec(),
        box_dim: boxd[..rank].to_vec(),
        element_strides: vec![1; rank],
        interleave: "NONE",
        swizzle: swizzle_name(swizzle)?,
        l2_promotion: "L2_128B",
        oob_fill: "NONE",
    })
}

/// `TMA::to_CUtensorMapSwizzle(get_tma_swizzle_bits(sw), get_tma_swizzle_base(sw))`
/// (atom/copy_traits_sm90_tma_swizzle.hpp): `Swizzle<B,4,3>` is NONE, 32B, 64B, 128B for B = 0..3;
/// `Swizzle<2,5,2>` and `Swizzle<2,6,S>` are the 128B swizzles with 32B and 64B atoms (from 3.8:
/// [`TMA_128B_ATOM_SWIZZLES`]). Any other
/// swizzle fails the first of the two functions' static_asserts, whose message is the refusal.
pub fn swizzle_name(sw: Swizzle) -> Result<&'static str> {
    let bad = |condition: &'static str| Err(Error::Rejected { condition, detail: format!("{sw}") });
    let (b, m, s) = (sw.b, sw.m, sw.s);
    // get_tma_swizzle_bits
    match m {
        // Before 3.8 only M == 4 has a mode: the 128B swizzles with 32B and 64B atoms are new there.
        5 | 6 if !TMA_128B_ATOM_SWIZZLES.on() => return bad(TmaRefusal::Swizzle.condition()),
        4 if !(0..=3).contains(&b) => return bad("Expected B = 0,1,2, or 3 when M == 4. Unsupported layout swizzle."),
        5 | 6 if b != 2 => return bad("Expected B = 2 when M == 5 or 6. Unsupported layout swizzle."),
        4..=6 => {}
        _ => return bad(TmaRefusal::Swizzle.condition()),
    }
    // get_tma_swizzle_base
    match (m, s) {
        (4, 3) => Ok(["NONE", "32B", "64B", "128B"][b as usize]),
        // Before 3.6 there is no get_tma_swizzle_base: the bits alone name the mode.
        (4, _) if !TMA_SWIZZLE_BASE_CHECKED.on() => Ok(["NONE", "32B", "64B", "128B"][b as usize]),
        (4, _) => bad("Expected S = 3 when M == 4. Unsupported layout swizzle."),
        (5, 2) => Ok("128B_ATOM_32B"),
        (5, _) => bad("Expected S = 2 when M == 5. Unsupported layout swizzle."),
        _ => Ok("128B_ATOM_64B"),
    }
}

/// The TMA coordinate strides `aux_params_.g_stride_` (step 4 of the module doc).
pub fn g_stride(gmem: &Layout, gbasis: &BasisLayout, desc: &TmaDescriptor, val_bits: i64) -> Result<BasisValue> {
    let modes = top_modes(gbasis);
    let strides: Vec<Vec<BasisValue>> = modes
        .iter()
        .map(|(_, d)| match d {
            BasisValue::Tuple(v) => flat(&BasisValue::Tuple(v.clone())),
            leaf => vec![leaf.clone()],
        })
        .collect();
    let ranks: Vec<usize> = modes
        .iter()
        .map(|(_, d)| match d {
            BasisValue::Tuple(v) => v.len(),
            _ => 1,
        })
        .collect();
    let basis = sb::make_basis_like(&gmem.shape);
    let map = |e: &ScaledBasis| -> Result<BasisValue> {
        let si = basis_get(&e.modes, &gmem.shape)?.as_leaf().ok_or_else(|| Error::Type("non-leaf gmem mode".into()))?;
        let di =
            basis_get(&e.modes, &gmem.stride)?.as_leaf().ok_or_else(|| Error::Type("non-leaf gmem mode".into()))?;
        if si.is_static_value(1) || di.is_static_value(0) {
            return Ok(BasisValue::Int(Int::st(0)));
        }
        let mut j = None;
        for (k, s) in strides.iter().enumerate() {
            let mut any = false;
            for dj in s {
                any |= is_unit(dj, &e.modes)?;
            }
            if any {
                j = Some(k);
                break;
            }
        }
        let Some(j) = j else { return Ok(BasisValue::Int(Int::st(0))) };
        let value = if j == 0 {
            // recast_ratio (_1 for the same type) times the gmem stride.
            di
        } else if ranks[j] == 1 {
            Int::st(1)
        } else {
            // ceil_div(int32_t(di * bits / max(byte stride j, 16)), 8)
            let s = desc.global_strides[j - 1].max(16);
            let x = ((di.value * val_bits) as u64 / s) as i64;
            Int::dy((x + 7).div_euclid(8))
        };
        Ok(BasisValue::Basis(ScaledBasis { value, modes: vec![j as u32] }))
    };
    fn walk(v: &BasisValue, f: &dyn Fn(&ScaledBasis) -> Result<BasisValue>) -> Result<BasisValue> {
        match v {
            BasisValue::Tuple(t) => Ok(BasisValue::Tuple(t.iter().map(|x| walk(x, f)).collect::<Result<_>>()?)),
            BasisValue::Basis(b) => f(b),
            other => Ok(other.clone()),
        }
    }
    walk(&basis, &map)
}

/// What `make_tma_copy` and `make_tma_atom` take: the operation, the element type, the gmem layout,
/// the smem layout, the CTA tiler (`product_each(shape(slayout))` when left out) and the cluster
/// size (the static `_1` when left out; an int tuple is a cluster layout's shape, as in CuTe).
#[derive(Clone, Debug)]
pub struct TmaArgs {
    pub op: TmaOp,
    pub val_type: String,
    pub gmem: Layout,
    pub smem: SmemLayout,
    pub cta_tiler: Option<Tiler>,
    pub cluster: Option<IntTuple>,
}

fn static_layout(l: &Layout, what: &str) -> Result<()> {
    if l.shape.leaf_iter().chain(l.stride.leaf_iter()).any(|i| !i.is_static) {
        return Err(Error::Rejected {
            condition: "TMA needs a static smem layout and tile (constexpr num_bits_per_tma)",
            detail: format!("{what} {l}"),
        });
    }
    Ok(())
}

/// `make_tma_copy(op, gtensor, slayout[, cta_tiler], cluster_size)` (steps 1 to 5 of the module
/// doc): the TiledCopy and what CuTe computed on the host for it.
pub fn make_tma_copy(a: &TmaArgs) -> Result<TmaCopy> {
    build(a, true)
}

/// `make_tma_atom(op, gtensor, slayout, cta_tiler, cluster_size)`: the Copy_Atom alone (the
/// multicast count `size(cluster_size)`, no TiledCopy and none of its static checks).
pub fn make_tma_atom(a: &TmaArgs) -> Result<TmaCopy> {
    build(a, false)
}

/// Several of CuTe's static_asserts fail on one case (a compile goes on after the first): one
/// refusal naming each, so that whichever the compiler reports first is named.
fn all_of(mut errors: Vec<Error>) -> Error {
    if errors.len() == 1 {
        return errors.pop().expect("one");
    }
    let detail = errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; and ");
    Error::Rejected { condition: "several of CuTe's static_asserts fail", detail }
}

fn build(a: &TmaArgs, tiled_copy: bool) -> Result<TmaCopy> {
    let slayout = a.smem.nonswizzle();
    static_layout(slayout, "smem layout")?;
    let tiler = match &a.cta_tiler {
        Some(t) => t.clone(),
        None => Tiler::from_shape(&product_each(&slayout.shape)?),
    };
    let cluster = a.cluster.clone().unwrap_or(IntTuple::st(1));
    if cluster.leaf_iter().any(|i| !i.is_static || i.value < 1) {
        return Err(Error::Rejected {
            condition: "TMA: the cluster size must be static and positive",
            detail: cluster.to_string(),
        });
    }
    // Step 1.
    let cta_v_map = sb::composition_tiler(&sb::make_identity_layout(&a.gmem.shape), &tiler)?;
    // make_tma_copy: cta_t_map = make_layout(cluster_size), num_multicast = cosize(cta_t_map);
    // make_tma_atom: num_multicast = size(cluster_size).
    let cta_t_map = Layout::col_major(cluster.clone())?;
    let multicast = if tiled_copy { cta_t_map.cosize()?.value } else { cluster.product()?.value };
    let r = assemble(&a.parts(), cta_v_map, tiled_copy.then_some(&cta_t_map), multicast)?;
    if super::runtime::checks_on() {
        enforce("make_tma_copy", check_postconditions(a, &r))?;
    }
    Ok(r)
}

/// The operands every TMA constructor shares: the operation, the element type, the gmem layout and
/// the smem layout.
pub(crate) struct Parts<'a> {
    pub op: TmaOp,
    pub val_type: &'a str,
    pub gmem: &'a Layout,
    pub smem: &'a SmemLayout,
}

impl TmaArgs {
    pub(crate) fn parts(&self) -> Parts<'_> {
        Parts { op: self.op, val_type: &self.val_type, gmem: &self.gmem, smem: &self.smem }
    }
}

/// `detail::make_tma_copy_atom` and, with `cta_t_map`, `detail::make_tma_copy_tiled`: steps 2 to
/// 5 of the module doc from the CTA value map and the multicast count.
pub(crate) fn assemble(
    p: &Parts<'_>,
    cta_v_map: BasisLayout,
    cta_t_map: Option<&Layout>,
    multicast: i64,
) -> Result<TmaCopy> {
    let slayout = p.smem.nonswizzle();
    static_layout(slayout, "smem layout")?;
    if cta_v_map.shape.leaf_iter().any(|i| !i.is_static) {
        return Err(Error::Rejected {
            condition: "TMA needs a static smem layout and tile (constexpr num_bits_per_tma)",
            detail: format!("cta_v_map {cta_v_map}"),
        });
    }
    // CUTLASS 3.3: the descriptor and the coordinate strides come from the gbasis of the first
    // 1/multicast of the box vector, and the box is not divided again (its checks come first).
    let cut = match cta_t_map {
        Some(_) if !TMA_MULTICAST_SPLITS_THE_BOX.on() => Some(gbasis_of(p.gmem, slayout, &cta_v_map, Some(multicast))?),
        _ => None,
    };
    // Step 2 (its static_asserts end the computation).
    let gbasis = construct_tma_gbasis(p.gmem, slayout, &cta_v_map)?;
    let cut = cut.filter(|_| multicast > 1);
    // The gather/scatter of four rows: the gbasis's first mode by one row (`tma_gbasis.compose(
    // make_identity_layout((shape<0>(tma_gbasis), _1)))`), four of them per TMA.
    let (gbasis, rows) = if p.op.is_gather() { (gather4_gbasis(&gbasis)?, 4) } else { (gbasis, 1) };
    // The other compile-time checks, all of them.
    let mut statics = Vec::new();
    let swizzle = p.smem.swizzle();
    if let Err(e) = swizzle_name(swizzle) {
        statics.push(e);
    }
    if let Err(e) = tensor_map_data_type(p.val_type) {
        statics.push(e);
    }
    let bits = type_bits(p.val_type)?;
    // Step 5: the atom.
    let num_elems = gbasis.size()?.value * rows;
    let threads = p.op.atom_threads();
    let bits_layout = if threads == 1 {
        Layout::new(
            IntTuple::of_leaves([Int::st(1), Int::st(num_elems * bits)]),
            IntTuple::of_leaves([Int::st(0), Int::st(1)]),
        )?
    } else {
        Layout::new(
            IntTuple::of_leaves([Int::st(threads), Int::st(num_elems * bits)]),
            IntTuple::of_leaves([Int::st(num_elems * bits), Int::st(1)]),
        )?
    };
    let vals = upcast(&bits_layout, bits)?;
    let atom = CopyAtom {
        op: p.op.name().to_string(),
        val_type: p.val_type.to_string(),
        val_bits: bits,
        thr_id: Layout::leaf(Int::st(threads), Int::st(if threads == 1 { 0 } else { 1 })),
        bits_src: bits_layout.clone(),
        bits_dst: bits_layout.clone(),
        bits_ref: bits_layout,
        src: vals.clone(),
        dst: vals.clone(),
        ref_: vals,
    };
    let tiled = match cta_t_map {
        Some(cta_t_map) => {
            match tiled_layouts(slayout, num_elems, &cta_v_map, cta_t_map, multicast, threads, &mut statics) {
                Ok(tv) => {
                    Some(TiledCopy { atom: atom.clone(), tiler: product_each(&cta_v_map.shape)?, tv, cotiler: None })
                }
                Err(e) => {
                    statics.push(e);
                    None
                }
            }
        }
        None => None,
    };
    if !statics.is_empty() {
        return Err(all_of(statics));
    }
    // Steps 3 and 4: the descriptor (CuTe's run-time asserts) and the coordinate strides.
    let (desc, g_stride) = match &cut {
        Some(cut) => {
            let desc = descriptor(p.gmem, cut, swizzle, p.val_type, 1)?;
            let g_stride = g_stride(p.gmem, cut, &desc, bits)?;
            (desc, g_stride)
        }
        None => {
            let desc = descriptor(p.gmem, &gbasis, swizzle, p.val_type, multicast)?;
            let g_stride = g_stride(p.gmem, &gbasis, &desc, bits)?;
            (desc, g_stride)
        }
    };
    Ok(TmaCopy {
        op: p.op,
        val_type: p.val_type.to_string(),
        gbasis,
        g_stride,
        desc,
        atom,
        tiled,
        cta_v_map,
        multicast,
        cta_threads: match cta_t_map {
            Some(t) => t.size()?.value,
            None => 0,
        },
        smem: p.smem.clone(),
    })
}

/// `tma_gbasis_g4` of `make_tma_copy_atom` (CUTLASS 4.5+): "TMA Gather/Scatter only supports 2D
/// tensors", then the first mode kept and the second cut to one row (`_1` with its basis).
fn gather4_gbasis(gbasis: &BasisLayout) -> Result<BasisLayout> {
    let modes = top_modes(gbasis);
    if modes.len() != 2 {
        return Err(Error::Rejected {
            condition: "TMA Gather/Scatter only supports 2D tensors",
            detail: format!("TMA gbasis {gbasis}"),
        });
    }
    let (s0, d0) = modes[0].clone();
    let d1 = match &modes[1].1 {
        BasisValue::Tuple(_) => {
            return Err(Error::Type(format!("TMA gather of a merged second mode {gbasis}: not modelled")))
        }
        leaf => leaf.clone(),
    };
    if s0.is_tuple() {
        return Err(Error::Type(format!("TMA gather of a merged first mode {gbasis}: not modelled")));
    }
    Ok(basis_layout_of(vec![(s0, d0), (IntTuple::st(1), d1)]))
}

/// `make_tma_copy_tiled`'s TiledLayout_TV: `(layout_T, layout_V)`. A failed `safe_div` (the
/// static_assert "Static safe_div requires t % u == 0") is recorded in `statics` and the
/// computation goes on with the quotient CuTe returns (`C<t / u>`), as CuTe's compile does.
fn tiled_layouts(
    slayout: &Layout,
    num_elems: i64,
    cta_v_map: &BasisLayout,
    cta_t_map: &Layout,
    multicast: i64,
    atom_threads: i64,
    statics: &mut Vec<Error>,
) -> Result<Layout> {
    let inv_smem = right_inverse(slayout)?;
    // CTA V -> smem coord, one TMA's worth, tiled to the CTA tile.
    let layout_v = super::composition::composition_tiler(&inv_smem, &Tiler::Int(Int::st(num_elems)))?;
    let wrapped_v = Layout::new(IntTuple::tuple([layout_v.shape.clone()]), IntTuple::tuple([layout_v.stride.clone()]))?;
    let layout_big_v = tile_to_shape(&wrapped_v, &IntTuple::leaf(cta_v_map.size()?), &Order::ColMajor)?;
    // CTA T -> smem idx -> smem coord.
    if num_elems % multicast != 0 {
        statics.push(refuse(TmaRefusal::MulticastDivide, format!("{num_elems} elements per TMA, {multicast} CTAs")));
    }
    let layout_t = Layout::leaf(Int::st(multicast), Int::st(num_elems / multicast));
    let layout_big_t = composition(&inv_smem, &composition(&layout_t, cta_t_map)?)?;
    let tv = Layout::concat(&[layout_big_t, layout_big_v]);
    // TiledCopy's own checks.
    let threads = tv.mode(0)?.size()?.value;
    if threads % atom_threads != 0 {
        statics.push(Error::Rejected {
            condition: "TiledCopy uses too few thrs for selected CopyAtom",
            detail: format!("{tv}: {threads} threads for an atom of {atom_threads}"),
        });
    }
    if tv.mode(1)?.size()?.value % num_elems != 0 {
        return Err(Error::Rejected {
            condition: "TiledCopy uses too few vals for selected CopyAtom",
            detail: format!("{tv} for {num_elems} values"),
        });
    }
    Ok(tv)
}

/// The descriptor arguments alone (for the device check of the tmagpu helper): what CuTe passes to
/// `cuTensorMapEncodeTiled` for `make_tma_copy(op, gmem, smem, tiler, cluster)`.
pub fn tma_descriptor_args(a: &TmaArgs) -> Result<TmaDescriptor> {
    make_tma_copy(a).map(|t| t.desc)
}

/// Postcondition 2 for a gbasis `gbasis` (the engine's, or one CuTe printed) of the TMA `r`: for
/// every box index `i`, `gbasis(i)` is the gmem coordinate `cta_v_map(right_inverse(smem)(i))`.
pub fn check_gbasis(r: &TmaCopy, gbasis: &BasisLayout) -> Checked {
    let v = |e: Error| Violation::ours("make_tma_copy", e.to_string());
    let inv = right_inverse(r.smem.nonswizzle()).map_err(v)?;
    let n = gbasis.size().map_err(v)?.value;
    if n != r.gbasis.size().map_err(v)?.value {
        return Err(Violation::ours("make_tma_copy", format!("size({gbasis}) is not one TMA's {}", r.gbasis)));
    }
    for i in 0..n.min(4096) {
        let got = gbasis.call(&IntTuple::leaf(Int::dy(i))).map_err(v)?;
        let s = inv.call_int(Int::dy(i)).map_err(v)?;
        let want = r.cta_v_map.call(&IntTuple::leaf(Int::dy(s.value))).map_err(v)?;
        if !sb::same_point(&got, &want) {
            return Err(Violation::ours(
                "make_tma_copy",
                format!("gbasis({i}) = {got}, but smem element {i} is gmem coordinate {want}"),
            ));
        }
    }
    Ok(())
}

/// The module doc's postconditions for `make_tma_copy(a) == r`.
pub fn check_postconditions(_: &TmaArgs, r: &TmaCopy) -> Checked {
    check_copy(r)
}

/// The module doc's postconditions for a TMA copy or atom `r` (its smem layout in it).
pub fn check_copy(r: &TmaCopy) -> Checked {
    let ours = |m: String| Err(Violation::ours("make_tma_copy", m));
    let box_elems: u64 = r.desc.box_dim.iter().map(|&b| b as u64).product();
    let gsize = r.gbasis.size().map_err(|e| Violation::ours("make_tma_copy", e.to_string()))?.value;
    let ssize = r.smem.nonswizzle().size().map_err(|e| Violation::ours("make_tma_copy", e.to_string()))?.value;
    // 1.
    if gsize % r.multicast == 0 && box_elems * r.multicast as u64 != gsize as u64 {
        return ours(format!("box {:?} x {} CTAs is not size(gbasis) = {gsize}", r.desc.box_dim, r.multicast));
    }
    if gsize <= 0 || ssize % gsize != 0 {
        return ours(format!("size(gbasis) = {gsize} does not divide size(smem) = {ssize}"));
    }
    // 2.
    check_gbasis(r, &r.gbasis)?;
    // 3.
    if r.desc.box_dim.iter().any(|&b| !(1..=256).contains(&b)) || r.desc.global_strides.iter().any(|s| s % 16 != 0) {
        return ours(format!("descriptor out of TMA's range: {}", r.desc));
    }
    // 4.
    let Some(tiled) = &r.tiled else { return Ok(()) };
    let tv = &tiled.tv;
    let threads = tv.mode(0).and_then(|m| m.size()).map_err(|e| Violation::ours("make_tma_copy", e.to_string()))?;
    let vals = tv.mode(1).map_err(|e| Violation::ours("make_tma_copy", e.to_string()))?;
    if threads.value != r.cta_threads || threads.value % r.atom.thr_id.size().map_or(1, |s| s.value) != 0 {
        return ours(format!(
            "TiledLayout_TV {tv} has {threads} threads for {} CTAs and an atom of {}",
            r.cta_threads, r.atom.thr_id
        ));
    }
    // Before 3.5 a tile larger than the smem layout passes the shape check (a prefix of it is
    // equal to it, [`TUPLE_EQUALITY_NEEDS_EQUAL_RANKS`]): the values then run over the whole tile.
    let vsize = r.cta_v_map.size().map_err(|e| Violation::ours("make_tma_copy", e.to_string()))?.value;
    let n = if TUPLE_EQUALITY_NEEDS_EQUAL_RANKS.on() { ssize } else { ssize.max(vsize) };
    let mut seen = vec![false; n as usize];
    for v in vals.values().map_err(|e| Violation::ours("make_tma_copy", e.to_string()))? {
        if v < 0 || v >= n || seen[v as usize] {
            return ours(format!("TiledLayout_TV's values {vals} are not a permutation of 0..{n}"));
        }
        seen[v as usize] = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn l(shape: &[i64], stride: &[i64], dynamic: bool) -> Layout {
        let int = |v: i64| if dynamic { Int::dy(v) } else { Int::st(v) };
        Layout::new(
            IntTuple::of_leaves(shape.iter().map(|&v| int(v))),
            IntTuple::of_leaves(stride.iter().map(|&v| if v == 1 { Int::st(1) } else { int(v) })),
        )
        .unwrap()
    }

    /// A random admissible TMA: a static compact smem tile (row- or column-major, each mode a power
    /// of two up to 128), a gmem matrix contiguous along the same mode with its leading dimension
    /// padded to 16 bytes, an element width, a cluster that splits the box.
    fn admissible() -> impl Strategy<Value = TmaArgs> {
        (
            (2u32..=7, 2u32..=7),
            any::<bool>(),
            prop::sample::select(vec![("half_t", 2i64), ("float", 4), ("int8_t", 1), ("double", 8)]),
            (1i64..4, 0i64..5),
            prop::sample::select(vec![1i64, 2, 4]),
            0usize..4,
        )
            .prop_map(|((a, b), col, (ty, bytes), (mult, extra), cluster, op)| {
                let (tm, tk) = (1i64 << a, 1i64 << b);
                let align = 16 / bytes;
                let (mg, kg) = (tm * mult + extra, tk * mult + extra);
                let (gmem, smem) = if col {
                    let ld = (mg + align - 1) / align * align;
                    (l(&[mg, kg], &[1, ld], true), l(&[tm, tk], &[1, tm], false))
                } else {
                    let ld = (kg + align - 1) / align * align;
                    (l(&[mg, kg], &[ld, 1], true), l(&[tm, tk], &[tk, 1], false))
                };
                TmaArgs {
                    op: TmaOp::ALL[op],
                    val_type: ty.to_string(),
                    gmem,
                    smem: SmemLayout::Plain(smem),
                    cta_tiler: Some(Tiler::from_shape(&IntTuple::of_leaves([Int::st(tm), Int::st(tk)]))),
                    cluster: Some(IntTuple::st(cluster)),
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every postcondition of the module doc holds on every admissible TMA, and the
        /// descriptor's box with the multicast count is one TMA's elements.
        #[test]
        fn every_postcondition_holds(a in admissible()) {
            let r = make_tma_copy(&a).unwrap();
            prop_assert!(check_postconditions(&a, &r).is_ok(), "{:?}", check_postconditions(&a, &r));
            let boxed: u64 = r.desc.box_dim.iter().map(|&b| u64::from(b)).product();
            prop_assert_eq!(boxed * r.multicast as u64, r.gbasis.size().unwrap().value as u64);
            prop_assert_eq!(tma_descriptor_args(&a).unwrap(), r.desc);
        }

        /// The kernels' `tma.get_slice(cta).partition_D(sA)` (sm90_mma_tma_gmma_ss.hpp): a TMA
        /// TiledCopy is partitioned as any TiledCopy (copy_atom.hpp ThrCopy::partition_D), its
        /// threads the cluster's CTAs. Each CTA's part is CTA 0's moved to the start of its share
        /// of the box: `layout_T` (make_tma_copy_tiled) is `right_inverse(smem)` of the shares'
        /// starts, `c * size(box) / multicast`, so on a compact smem tile the part of CTA `c`
        /// starts `c * size(gbasis) / multicast` elements on (each element of mode 0 is one TMA
        /// instruction's worth, of which the CTA issues its share).
        #[test]
        fn each_ctas_part_starts_at_its_share_of_the_box(a in admissible()) {
            let r = make_tma_copy(&a).unwrap();
            let tc = r.tiled.clone().unwrap();
            let smem = a.smem.nonswizzle().clone();
            let share = r.gbasis.size().unwrap().value / r.multicast;
            let part = |cta: i64| super::super::atom::partition::copy_partition(&tc, &smem, cta, false);
            // Where the slice's composition is not admissible (a multicast that splits a
            // row-major box across its rows) the engine refuses what CuTe computes anyway.
            let first = part(0);
            prop_assume!(first.is_ok());
            let first = first.unwrap();
            prop_assert_eq!(first.offset.value, 0);
            for cta in 1..r.cta_threads {
                let p = part(cta).unwrap();
                prop_assert_eq!(&p.layout, &first.layout);
                prop_assert_eq!(p.offset.value, cta * share, "CTA {}", cta);
            }
        }

        /// The gbasis check can fail: the gbasis of a transposed box is refused.
        #[test]
        fn a_wrong_gbasis_fails_the_check(a in admissible()) {
            let r = make_tma_copy(&a).unwrap();
            let modes = top_modes(&r.gbasis);
            prop_assume!(modes.len() >= 2 && modes[0].0.product().unwrap().value > 1);
            let mut swapped = modes.clone();
            let (d0, d1) = (swapped[0].1.clone(), swapped[1].1.clone());
            swapped[0].1 = d1;
            swapped[1].1 = d0;
            prop_assert!(check_gbasis(&r, &basis_layout_of(swapped)).is_err());
        }
    }

    #[test]
    fn refusals_name_cutes_conditions() {
        let half = |gmem: Layout, smem: Layout| TmaArgs {
            op: TmaOp::Load,
            val_type: "half_t".into(),
            gmem,
            smem: SmemLayout::Plain(smem),
            cta_tiler: None,
            cluster: None,
        };
        let e = make_tma_copy(&half(l(&[1024, 256], &[256, 1], true), l(&[64, 32], &[1, 64], false))).unwrap_err();
        assert!(e.to_string().contains("Majorness of smem doesn't match majorness of gmem"), "{e}");
        let e = make_tma_copy(&half(l(&[1024, 256], &[1, 1001], true), l(&[64, 32], &[1, 64], false))).unwrap_err();
        assert!(e.to_string().contains("Stride must be multiple of 16B"), "{e}");
        let e = make_tma_copy(&half(l(&[4096, 4], &[1, 4096], false), l(&[512, 2], &[1, 512], false))).unwrap_err();
        assert!(e.to_string().contains("Size must be max 2^8 = 256"), "{e}");
        let sw = ComposedLayout {
            swizzle: Swizzle { b: 3, m: 3, s: 3 },
            offset: super::super::swizzle::Offset::Int(Int::st(0)),
            layout: l(&[64, 32], &[1, 64], false),
        };
        let mut a = half(l(&[1024, 256], &[1, 1024], true), l(&[64, 32], &[1, 64], false));
        a.smem = SmemLayout::Swizzled(sw);
        assert!(make_tma_copy(&a).unwrap_err().to_string().contains("Unsupported layout swizzle."));
    }
}
