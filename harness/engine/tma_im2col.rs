//! SM90 im2col TMA (atom/copy_traits_sm90_im2col.hpp, CUTLASS 4.2 and 4.7, which agree on every
//! argument modelled here): the host-computable part of `make_im2col_tma_copy(op, tensor, slayout[,
//! cta_tiler[, multicast]][, lower_corner_whd, upper_corner_whd, lower_padding_whd,
//! upper_padding_whd, stride_whd, lower_srt, stride_srt])`, for `SM90_TMA_LOAD_IM2COL`,
//! `SM90_TMA_LOAD_IM2COL_MULTICAST` and `SM90_TMA_STORE_IM2COL` (whose Copy_Traits CuTe's host code
//! builds the same way): the arguments CuTe passes to `cuTensorMapEncodeIm2col`.
//!
//! What CuTe derives (`make_tma_atom_im2col`, then `make_im2col_tma_copy_desc`):
//! 1. `cta_v_map = make_identity_layout(product_each(shape(gtensor))).compose(cta_tiler)` (the tiler
//!    defaults to `product_each(shape(slayout))`), then the static_assert "TMA requires CTA_Tile and
//!    SLayout top-level shape equivalence." (`product_each` of both shapes equal).
//! 2. `sidx_to_gmode = coalesce(composition(cta_v_map, right_inverse(slayout)))`, read through the
//!    identity of the gmem's top-level shape and flattened: `tma_layout_full`.
//! 3. `smem_rank`: the first mode whose basis value is not a static `_1`; the static_assert "IM2COL
//!    expects at least 2 modes of the smem to vectorize with gmem." needs `smem_rank >= 2`; the
//!    first two modes are `tma_layout_trunc`.
//! 4. `tma_layout_vt = logical_divide(tma_layout_trunc, size / multicast)`: `range_c =
//!    size<0,0>(vt)` (channelsPerPixel), `range_whdn = size<0,1>(vt)` (pixelsPerColumn).
//! 5. `tensor_cwhdn`: the gmem mode that `stride<0,0>(vt)` names (the channels), then the one
//!    `stride<0,1>(vt)` names (the pixels), flattened; its extents are `globalDim`, its strides
//!    in bytes from the second on `globalStrides`; the pixel box corners `pixelBoxLowerCorner` /
//!    `pixelBoxUpperCorner` are `lower_corner_whd` / `upper_corner_whd` (zero in the overloads
//!    without offsets; rank - 2 of them), the element strides `(1, stride_whd..., 1)` (the
//!    traversal strides; one without offsets); swizzle from the smem layout's swizzle, L2 promotion NONE (the default
//!    `DescriptorAuxParams`, unlike the tiled TMA's 128B), no OOB fill, no interleave.
//!
//! Postconditions (checked by [`check`], property tests below):
//! 1. `channelsPerPixel * pixelsPerColumn * multicast == size(tma_layout_trunc)`, which divides
//!    `size(slayout)`.
//! 2. `globalDim` holds the gmem's extents once each: its product is `size(gtensor)`.
//! 3. The first gmem stride of the channels is one element (the box is contiguous in the
//!    channels). `channelsPerPixel` may exceed the channel extent `globalDim[0]`: CuTe 4.2 encodes
//!    `((5,2),16):((16,80),_1)` under a `(_32,_32)` tile with channelsPerPixel=32 over 16 channels
//!    (the TMA fills past the extent), found by tests/fuzz_definition.
//! 4. The pixel box corners are the offsets' `lower_corner_whd` / `upper_corner_whd` (zero without
//!    offsets) and the element strides `(1, stride_whd..., 1)` (one without).

use std::fmt;

use super::atom::copy::type_bits;
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::{IntTuple, Tup, View};
use super::layout::Layout;
use super::postcondition::{Checked, Violation};
use super::right_inverse::right_inverse;
use super::scaled_basis::{self as sb, BasisValue};
use super::tiler::Tiler;
use super::tma::write_list;
use super::tma::{swizzle_name, tensor_map_data_type, SmemLayout};

/// The im2col operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Im2colOp {
    Load,
    LoadMulticast,
    Store,
}

impl Im2colOp {
    pub fn name(self) -> &'static str {
        match self {
            Im2colOp::Load => "SM90_TMA_LOAD_IM2COL",
            Im2colOp::LoadMulticast => "SM90_TMA_LOAD_IM2COL_MULTICAST",
            Im2colOp::Store => "SM90_TMA_STORE_IM2COL",
        }
    }
    pub fn by_name(n: &str) -> Option<Im2colOp> {
        let n = n.strip_prefix("cute::").unwrap_or(n);
        [Im2colOp::Load, Im2colOp::LoadMulticast, Im2colOp::Store].into_iter().find(|o| o.name() == n)
    }
}

/// The convolution offsets of `make_im2col_tma_copy`'s long overloads, one value per spatial mode
/// (W, H[, D]) each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Im2colOffsets {
    pub lower_corner: Vec<Int>,
    pub upper_corner: Vec<Int>,
    pub lower_padding: Vec<Int>,
    pub upper_padding: Vec<Int>,
    /// The traversal strides.
    pub stride_whd: Vec<Int>,
    pub lower_srt: Vec<Int>,
    /// The dilation.
    pub stride_srt: Vec<Int>,
}

/// The operands of `make_im2col_tma_copy`.
#[derive(Clone, Debug)]
pub struct Im2colArgs {
    pub op: Im2colOp,
    pub val_type: String,
    pub gmem: Layout,
    pub smem: SmemLayout,
    pub cta_tiler: Option<Tiler>,
    pub multicast: Option<Int>,
    /// The offsets of the long overloads; None: the overloads without (zero corners, unit strides).
    pub offsets: Option<Im2colOffsets>,
}

/// The arguments of `cuTensorMapEncodeIm2col` (the tensor map and address left out), printed as
/// cutecheck's compiled driver prints what it captured (cpp/driver/driver.cpp,
/// `cutecheck::print(Im2colEncodeArgs)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Im2colDescriptor {
    pub data_type: &'static str,
    pub rank: u32,
    pub global_dim: Vec<u64>,
    pub global_strides: Vec<u64>,
    pub lower_corner: Vec<i32>,
    pub upper_corner: Vec<i32>,
    pub channels_per_pixel: u32,
    pub pixels_per_column: u32,
    pub element_strides: Vec<u32>,
    pub swizzle: &'static str,
    /// What postcondition 1 reads: `size(tma_layout_trunc)` and the multicast count.
    pub trunc_size: i64,
    pub multicast: i64,
    /// The gmem strides of `tensor_cwhdn` in elements.
    pub cwhdn_stride: Vec<i64>,
}

impl fmt::Display for Im2colDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cuTensorMapEncodeIm2col(dataType={},rank={},globalDim=", self.data_type, self.rank)?;
        write_list(f, &self.global_dim)?;
        f.write_str(",globalStrides=")?;
        write_list(f, &self.global_strides)?;
        f.write_str(",pixelBoxLowerCorner=")?;
        write_list(f, &self.lower_corner)?;
        f.write_str(",pixelBoxUpperCorner=")?;
        write_list(f, &self.upper_corner)?;
        write!(f, ",channelsPerPixel={},pixelsPerColumn={}", self.channels_per_pixel, self.pixels_per_column)?;
        f.write_str(",elementStrides=")?;
        write_list(f, &self.element_strides)?;
        write!(f, ",interleave=NONE,swizzle={},l2Promotion=NONE,oobFill=NONE)", self.swizzle)
    }
}

fn refuse(condition: &'static str, detail: String) -> Error {
    Error::Rejected { condition, detail }
}

fn not_modelled(what: String) -> Error {
    Error::Type(format!("make_im2col_tma_copy: {what} is not modelled"))
}

/// The flat leaves of `shape`, each with its stride (basis values).
fn flat_modes(l: &sb::BasisLayout) -> Vec<(Int, BasisValue)> {
    l.leaf_pairs()
}

/// `basis_get(E<i>, t)` for a one-mode basis element.
fn mode_of<'a>(e: &BasisValue, t: &'a Tup) -> Result<&'a Tup> {
    match e {
        BasisValue::Basis(b) if b.modes.len() == 1 && b.value.is_static_value(1) => match t.view() {
            View::Tuple(_) => Ok(t.mode(b.modes[0] as usize)?),
            View::Leaf(_) if b.modes[0] == 0 => Ok(t),
            View::Leaf(_) => Err(Error::Type(format!("basis_get: mode {} of {t}", b.modes[0]))),
        },
        other => Err(not_modelled(format!("a TMA mode along {other}"))),
    }
}

/// `make_im2col_tma_copy` is declared from CUTLASS 3.5 (atom/copy_traits_sm90_im2col.hpp is new in
/// v3.5.0; v3.3.0 and v3.4.1 declare the `SM90_TMA_*_IM2COL` operations of arch/copy_sm90_tma.hpp
/// but no Copy_Traits for them and no host function to build one).
pub const MAKE_IM2COL_TMA_COPY_SINCE: super::release::Release = super::release::Release::new(3, 5, 1, 0);

/// `make_im2col_tma_copy(...)`'s `cuTensorMapEncodeIm2col` arguments.
pub fn im2col_descriptor(a: &Im2colArgs) -> Result<Im2colDescriptor> {
    if !super::release::since(MAKE_IM2COL_TMA_COPY_SINCE) {
        let r = super::release::current();
        return Err(Error::Rejected {
            condition: "not declared in this release",
            detail: format!(
                "make_im2col_tma_copy (atom/copy_traits_sm90_im2col.hpp) first appears in CUTLASS {MAKE_IM2COL_TMA_COPY_SINCE} (modelled: {r})"
            ),
        });
    }
    let slayout = a.smem.nonswizzle();
    if slayout.shape.leaf_iter().chain(slayout.stride.leaf_iter()).any(|i| !i.is_static) {
        return Err(refuse("TMA needs a static smem layout (constexpr num_bits_per_tma)", slayout.to_string()));
    }
    let multicast = a.multicast.unwrap_or(Int::st(1));
    if multicast.value < 1 {
        return Err(refuse("TMA: the multicast count must be positive", multicast.to_string()));
    }
    let pe = |s: &IntTuple| super::atom::tiled_copy::product_each(s);
    let gshape = pe(&a.gmem.shape)?;
    let tiler = match &a.cta_tiler {
        Some(t) => t.clone(),
        None => Tiler::from_shape(&pe(&slayout.shape)?),
    };
    // Step 1.
    let cta_v_map = sb::composition_tiler(&sb::make_identity_layout(&gshape), &tiler)?;
    let (ps, pv) = (pe(&slayout.shape)?, pe(&cta_v_map.shape)?);
    let same = ps.leaf_iter().count() == pv.leaf_iter().count()
        && ps.rank() == pv.rank()
        && ps.leaf_iter().zip(pv.leaf_iter()).all(|(x, y)| x.value == y.value && x.is_static && y.is_static);
    if !same {
        return Err(refuse(
            "TMA requires CTA_Tile and SLayout top-level shape equivalence.",
            format!("product_each(shape({slayout})) = {ps}, product_each(shape(cta_v_map)) = {pv}"),
        ));
    }
    // make_tma_copy_im2col: "Number of active CTAs in TMA must divide domain size of slayout."
    let ssize = slayout.size()?.value;
    if ssize % multicast.value != 0 {
        return Err(refuse(
            "Number of active CTAs in TMA must divide domain size of slayout.",
            format!("size({slayout}) = {ssize}, multicast {multicast}"),
        ));
    }
    // Step 2.
    let inv_smem = right_inverse(slayout)?;
    let sidx_to_gmode = sb::coalesce(&sb::composition(&cta_v_map, &inv_smem)?)?;
    let full = flat_modes(&sidx_to_gmode);
    // Step 3.
    let smem_rank = full
        .iter()
        .position(|(_, d)| {
            !matches!(d, BasisValue::Basis(b) if b.value.is_static_value(1))
                && !matches!(d, BasisValue::Int(i) if i.is_static_value(1))
        })
        .unwrap_or(full.len());
    if smem_rank < 2 {
        return Err(refuse(
            "IM2COL expects at least 2 modes of the smem to vectorize with gmem.",
            format!("smem index -> gmem mode {sidx_to_gmode}"),
        ));
    }
    let trunc = &full[..2];
    let (c_ext, p_ext) = (trunc[0].0.value, trunc[1].0.value);
    let trunc_size = c_ext * p_ext;
    // Step 4: logical_divide(trunc, trunc_size / multicast) keeps the channel mode whole only when
    // the tile is a multiple of it.
    let tile = trunc_size / multicast.value;
    if tile == 0 || tile % c_ext != 0 {
        return Err(not_modelled(format!("a multicast tile of {tile} elements splitting the channel mode {c_ext}")));
    }
    let (range_c, range_whdn) = (c_ext, tile / c_ext);
    // Step 5.
    let pick = |e: &BasisValue| -> Result<(Vec<Int>, Vec<Int>)> {
        Ok((mode_of(e, &a.gmem.shape)?.leaf_iter().collect(), mode_of(e, &a.gmem.stride)?.leaf_iter().collect()))
    };
    let (cs, cd) = pick(&trunc[0].1)?;
    let (ws, wd) = pick(&trunc[1].1)?;
    let shape: Vec<Int> = cs.into_iter().chain(ws).collect();
    let stride: Vec<Int> = cd.into_iter().chain(wd).collect();
    let rank = shape.len();
    if !(3..=5).contains(&rank) {
        return Err(not_modelled(format!("an im2col tensor of rank {rank} (CuTe's are 3 to 5)")));
    }
    let bits = type_bits(&a.val_type)?;
    let data_type = tensor_map_data_type(&a.val_type)?;
    let swizzle = swizzle_name(a.smem.swizzle())?;
    let spatial = rank - 2;
    let (lower_corner, upper_corner, element_strides) = match &a.offsets {
        None => (vec![0; spatial], vec![0; spatial], vec![1; rank]),
        Some(o) => {
            let r = offsets_arguments(o, spatial, rank)?;
            output_extents(o, &shape[1..=spatial])?;
            r
        }
    };
    Ok(Im2colDescriptor {
        data_type,
        rank: rank as u32,
        global_dim: shape.iter().map(|s| s.value as u64).collect(),
        global_strides: stride[1..].iter().map(|d| (d.value as u64).wrapping_mul(bits as u64) / 8).collect(),
        lower_corner,
        upper_corner,
        channels_per_pixel: range_c as u32,
        pixels_per_column: range_whdn as u32,
        element_strides,
        swizzle,
        trunc_size,
        multicast: multicast.value,
        cwhdn_stride: stride.iter().map(|d| d.value).collect(),
    })
}

/// The corners and element strides CuTe passes for the offsets `o` of an im2col tensor with
/// `spatial` spatial modes (`make_im2col_tma_copy_desc`: `get<i>` of each tuple for `i <
/// spatial`, cast to `int32_t` / `uint32_t`), and CuTe's refusals: a tuple with fewer values than
/// spatial modes (`get<i>` out of range does not compile), a zero traversal or dilation stride (the
/// coordinate tensor's extents divide by them: `(w + upper - lower - 1) / stride_whd + 1`, `1 +
/// padding / stride_srt`).
fn offsets_arguments(o: &Im2colOffsets, spatial: usize, rank: usize) -> Result<(Vec<i32>, Vec<i32>, Vec<u32>)> {
    let all = [
        ("lower_corner_whd", &o.lower_corner),
        ("upper_corner_whd", &o.upper_corner),
        ("lower_padding_whd", &o.lower_padding),
        ("upper_padding_whd", &o.upper_padding),
        ("stride_whd", &o.stride_whd),
        ("lower_srt", &o.lower_srt),
        ("stride_srt", &o.stride_srt),
    ];
    for (name, v) in all {
        if v.len() < spatial {
            return Err(refuse(
                "tuple index out of range: get<I> of an im2col offset",
                format!("{name} has {} values for {spatial} spatial modes", v.len()),
            ));
        }
    }
    for (name, v) in [("stride_whd", &o.stride_whd), ("stride_srt", &o.stride_srt)] {
        if let Some(z) = v[..spatial].iter().find(|x| x.value == 0) {
            return Err(refuse(
                "division by zero: the im2col coordinate tensor divides by the traversal and dilation strides",
                format!("{name} = {z}"),
            ));
        }
    }
    let lower = o.lower_corner[..spatial].iter().map(|x| x.value as i32).collect();
    let upper = o.upper_corner[..spatial].iter().map(|x| x.value as i32).collect();
    let mut estr = vec![1u32; rank];
    for (k, s) in o.stride_whd[..spatial].iter().enumerate() {
        estr[k + 1] = s.value as u32;
    }
    Ok((lower, upper, estr))
}

/// The output extents `q/p/z = (w + upper_corner - lower_corner - 1) / stride_whd + 1` (C++'s
/// truncating division) CuTe's coordinate tensor is made of (`make_im2col_tma_copy_desc`): each
/// dynamic one becomes a `cutlass::FastDivmod`, which divides by zero for 0 (SIGFPE) and asserts
/// `divisor_ >= 0` for a negative one: refused.
fn output_extents(o: &Im2colOffsets, whd: &[Int]) -> Result<Vec<i64>> {
    let mut q = Vec::new();
    for (k, w) in whd.iter().enumerate() {
        let num = w.value + o.upper_corner[k].value - o.lower_corner[k].value - 1;
        let e = num / o.stride_whd[k].value + 1;
        if e <= 0 {
            return Err(refuse(
                "cutlass::FastDivmod of a non-positive extent: the im2col output extent (w + upper_corner - lower_corner - 1) / stride_whd + 1",
                format!("spatial mode {k}: ({w} + {} - {} - 1) / {} + 1 = {e}", o.upper_corner[k], o.lower_corner[k], o.stride_whd[k]),
            ));
        }
        q.push(e);
    }
    Ok(q)
}

/// Postconditions 1-3 of `d = im2col_descriptor(a)`.
pub fn check(a: &Im2colArgs, d: &Im2colDescriptor) -> Checked {
    const SRC: &str = "atom/copy_traits_sm90_im2col.hpp: make_tma_atom_im2col, make_im2col_tma_copy_desc";
    let ssize = a.smem.nonswizzle().size().map_err(Violation::from)?.value;
    let box_elems = i64::from(d.channels_per_pixel) * i64::from(d.pixels_per_column);
    if box_elems * d.multicast != d.trunc_size || ssize % d.trunc_size != 0 {
        return Err(Violation::cute(
            SRC,
            format!("1: {box_elems} * {} vs size(trunc) {} vs size(smem) {ssize}", d.multicast, d.trunc_size),
        ));
    }
    let gsize = a.gmem.size().map_err(Violation::from)?.value as u64;
    let prod: u64 = d.global_dim.iter().product();
    if prod != gsize {
        return Err(Violation::cute(SRC, format!("2: prod(globalDim) {prod} != size(gmem) {gsize}")));
    }
    if d.cwhdn_stride[0] != 1 {
        return Err(Violation::cute(SRC, format!("3: the channels at stride {}, not 1", d.cwhdn_stride[0])));
    }
    // 4.
    let rank = d.rank as usize;
    let (lower, upper, estr) = match &a.offsets {
        None => (vec![0; rank - 2], vec![0; rank - 2], vec![1; rank]),
        Some(o) => offsets_arguments(o, rank - 2, rank).map_err(Violation::from)?,
    };
    if d.lower_corner != lower || d.upper_corner != upper || d.element_strides != estr {
        return Err(Violation::cute(
            SRC,
            format!(
                "4: corners {:?}/{:?} and element strides {:?}, the offsets say {lower:?}/{upper:?} and {estr:?}",
                d.lower_corner, d.upper_corner, d.element_strides
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn l(s: &[i64], d: &[i64], st: bool) -> Layout {
        let t = |v: &[i64]| IntTuple::of_leaves(v.iter().map(|&x| Int::new(x, st)));
        Layout::new(t(s), t(d)).unwrap()
    }

    /// `((W,H,N),C):((C,W*C,H*W*C),_1)`: an NHWC activation tensor as CuTe's conv collectives pass
    /// it (pixels first, channels contiguous).
    fn nhwc(w: i64, h: i64, n: i64, c: i64) -> Layout {
        let whn = Layout::new(
            IntTuple::of_leaves([Int::dy(w), Int::dy(h), Int::dy(n)]),
            IntTuple::of_leaves([Int::dy(c), Int::dy(w * c), Int::dy(h * w * c)]),
        )
        .unwrap();
        Layout::concat(&[whn, l(&[c], &[1], false)])
    }

    fn args(g: Layout, s: Layout, mc: Option<i64>) -> Im2colArgs {
        Im2colArgs {
            op: if mc.is_some() { Im2colOp::LoadMulticast } else { Im2colOp::Load },
            val_type: "half_t".into(),
            gmem: g,
            smem: SmemLayout::Plain(s),
            cta_tiler: None,
            multicast: mc.map(Int::st),
            offsets: None,
        }
    }

    #[test]
    fn a_k_major_tile_reads_its_channels_then_pixels() {
        // (_64 pixels, _64 channels) K-major smem over 8x8x2 pixels of 64 channels.
        let d = im2col_descriptor(&args(nhwc(8, 8, 2, 64), l(&[64, 64], &[64, 1], true), None)).unwrap();
        assert_eq!(d.global_dim, vec![64, 8, 8, 2]);
        assert_eq!(d.global_strides, vec![128, 1024, 8192]);
        assert_eq!((d.channels_per_pixel, d.pixels_per_column), (64, 64));
        assert_eq!(d.lower_corner, vec![0, 0]);
        check(&args(nhwc(8, 8, 2, 64), l(&[64, 64], &[64, 1], true), None), &d).unwrap();
        // A multicast of 2 halves the pixels each CTA loads.
        let d2 = im2col_descriptor(&args(nhwc(8, 8, 2, 64), l(&[64, 64], &[64, 1], true), Some(2))).unwrap();
        assert_eq!((d2.channels_per_pixel, d2.pixels_per_column), (64, 32));
    }

    #[test]
    fn cute_refuses_a_multicast_not_dividing_the_tile_and_a_wrong_tiler() {
        // 4096 smem elements do not split over 3 CTAs; a tiler of another shape than the smem's.
        let e = im2col_descriptor(&args(nhwc(8, 8, 2, 64), l(&[64, 64], &[1, 64], true), Some(3))).unwrap_err();
        assert!(e.to_string().contains("Number of active CTAs"), "{e}");
        let mut a = args(nhwc(8, 8, 2, 64), l(&[64, 64], &[64, 1], true), None);
        a.cta_tiler = Some(Tiler::from_shape(&IntTuple::of_leaves([Int::st(32), Int::st(64)])));
        let e = im2col_descriptor(&a).unwrap_err();
        assert!(e.to_string().contains("top-level shape equivalence"), "{e}");
    }

    proptest! {
        #[test]
        fn postconditions_hold(w in 1i64..5, h in 1i64..5, n in 1i64..3, c in prop::sample::select(vec![8i64, 16, 32, 64]),
                               m in prop::sample::select(vec![8i64, 16, 32]), k in prop::sample::select(vec![8i64, 16, 32]),
                               mc in prop::sample::select(vec![1i64, 2, 4])) {
            let k = k.min(c);
            let a = args(nhwc(w * 4, h * 4, n, c), l(&[m, k], &[k, 1], true), Some(mc));
            match im2col_descriptor(&a) {
                Ok(d) => prop_assert!(check(&a, &d).is_ok(), "{d}: {:?}", check(&a, &d)),
                Err(e) => prop_assert!(!matches!(e, Error::Rejected { .. }) || e.to_string().contains("CTA"), "{e}"),
            }
        }
    }

    fn ints(v: &[i64]) -> Vec<Int> {
        v.iter().map(|&x| Int::dy(x)).collect()
    }

    proptest! {
        /// Postcondition 4: with random convolution offsets the descriptor carries the corners and
        /// the traversal strides CuTe passes (or CuTe's FastDivmod refusal of a non-positive output
        /// extent), and a descriptor whose corner is moved fails the check.
        #[test]
        fn offsets_reach_the_descriptor(lo in prop::collection::vec(-3i64..=3, 2), up in prop::collection::vec(-3i64..=3, 2),
                                        sw in prop::collection::vec(1i64..=3, 2), store in any::<bool>()) {
            let mut a = args(nhwc(8, 8, 2, 64), l(&[64, 64], &[64, 1], true), None);
            if store {
                a.op = Im2colOp::Store;
            }
            a.offsets = Some(Im2colOffsets {
                lower_corner: ints(&lo),
                upper_corner: ints(&up),
                lower_padding: ints(&[1, 1]),
                upper_padding: ints(&[1, 1]),
                stride_whd: ints(&sw),
                lower_srt: ints(&[0, 0]),
                stride_srt: ints(&[1, 1]),
            });
            let q: Vec<i64> = (0..2).map(|k| (8 + up[k] - lo[k] - 1) / sw[k] + 1).collect();
            match im2col_descriptor(&a) {
                Ok(d) => {
                    prop_assert!(q.iter().all(|&x| x > 0));
                    prop_assert!(check(&a, &d).is_ok(), "{d}: {:?}", check(&a, &d));
                    prop_assert_eq!(&d.element_strides, &vec![1, sw[0] as u32, sw[1] as u32, 1]);
                    let mut moved = d.clone();
                    moved.lower_corner[1] += 1;
                    prop_assert!(check(&a, &moved).is_err());
                }
                Err(e) => prop_assert!(q.iter().any(|&x| x <= 0) && e.to_string().contains("FastDivmod"), "{e}"),
            }
        }
    }
}
