//! `GMMA::make_gmma_desc<Major>(tensor)`: the SM90 shared-memory matrix descriptor CuTe's host
//! code computes for a shared-memory tensor (cute/atom/mma_traits_sm90_gmma.hpp, lines 196-297 of
//! tag v4.7.0; the same algorithm in every release 3.3-4.7, with the changes below), and the
//! pieces [`super::make_umma_desc`] shares with it.
//!
//! Definition (in units of `uint128_t`, the descriptor's 16-byte granule):
//! 1. The tensor is `make_tensor(make_smem_ptr(T*), L)`. A plain layout `L` carries no swizzle
//!    (`get_swizzle_t` of a plain pointer is `Swizzle<0,4,3>`, swizzle.hpp:493); a layout over the
//!    shared-memory marker, `Sw o smem_ptr[Bb] o L` (the GMMA/UMMA layout atoms and what
//!    `tile_to_shape` etc. make of them), puts `Sw` into the pointer and needs `B = sizeof_bits<T>`
//!    ("Expected a B-bit pointer type.", pointer_flagged.hpp:64). A composed layout with an integer
//!    offset has no `layout_type` overload (a compile error): refused.
//! 2. "GMMA Descriptors can only be constructed on rank-2 tensors." (`TLayout::rank == 2`).
//! 3. `recast<uint128_t const>(tensor)`: the layout is `upcast<128 / sizeof_bits<T>>(L)`
//!    ([`crate::atom::copy::upcast`], with its refusals).
//! 4. `layout_type` (mma_traits_sm90_gmma.hpp:128-152): the swizzle must be `Swizzle<B,4,3>`,
//!    `0 <= B <= 3` ("Unsupported layout swizzle"); B = 0,1,2,3 is INTERLEAVE, B32, B64, B128
//!    (codes 0, 3, 2, 1), and `W` (the swizzle atom's MN extent in granules) is 1, 2, 4, 8.
//! 5. `Major::MN`: K (mode 1's size) must be `256/sizeof_bits<T>` (dense); from CUTLASS 3.6 also
//!    `128/sizeof_bits<T>` or `512/sizeof_bits<T>` (sparse A and B; [`GMMA_DESC_SPARSE_K`]).
//!    The canonical layout is `logical_divide(L128, (W:1, 8:1))`.
//!    `Major::K`: mode 0's size must be a multiple of 8, mode 1's size 2 granules (dense; from 3.6
//!    also 4, sparse); the canonical layout is `logical_divide(L128, (8:1, 2:1))`.
//! 6. The canonical layout must be congruent to `((_1,_1),(_1,_1))` ("Not a canonical GMMA_MN
//!    Layout: Expected profile failure.", `_K` likewise), from CUTLASS 3.9
//!    ([`DESC_CANONICAL_PROFILE`]); before, CuTe checked `rank<0> == 2` and `rank<1> == 2` ("No flat
//!    offset mode", which a logical_divide by a two-mode tile always passes) and then converted the
//!    strides it reads to `uint32_t`: a stride that is a tuple does not compile, and one it never
//!    reads may be a tuple.
//! 7. Strides (each read as a `constexpr uint32_t`: a dynamic one does not compile): MN: `s00 == 1`
//!    unless INTERLEAVE and `s10 == W`; SBO, LBO = `s01, s11` for INTERLEAVE, `s11, s01` otherwise.
//!    K: `s00 == W`, `s10 == 1` unless INTERLEAVE; SBO = `s01`, LBO = `s10`. A failed check is "Not
//!    a canonical GMMA_{MN,K} Layout: Expected stride failure.". Each offset is stored in a 14-bit
//!    field (the value modulo 2^14, as C++ bit-field assignment truncates).
//! 8. The start address is `cast_smem_ptr_to_uint(ptr) >> 4`. On the host (no `__CUDA_ARCH__`, so
//!    neither `__cvta_generic_to_shared` nor the PTX path) `cast_smem_ptr_to_uint` prints
//!    `ERROR: cast_smem_ptr_to_uint not supported but used.` and returns 0 (cute/arch/util.hpp:124-131
//!    of v4.7.0, the same in 3.3): whatever address the generated C++ gives the pointer, the host
//!    descriptor's start address is 0 and that line precedes its print. [`OnHost`] is that output.
//!    `base_offset` is 0.
//!
//! `print(GmmaDescriptor)` (cute/arch/mma_sm90_desc.hpp:133-145 of v4.7.0; a friend of the union
//! in 3.3/3.4, the same text in every release) is [`GmmaDescriptor`]'s `Display` (without the
//! final newline, as the engine prints every value).
//!
//! No unit test under CUTLASS's test/unit/cute calls `make_gmma_desc` directly; the SM90 GEMM
//! tests reach it through `make_tensor<GMMA::smem_desc<Major>>` (mma_traits_sm90_gmma.hpp).
//!
//! Postconditions (property-tested in `tests`):
//! 1. `base_offset` and the start address (host) are 0; the layout type is the swizzle's (4).
//! 2. The canonical layout rebuilt from the fields (its shape, and strides `W` or 1, SBO and LBO
//!    as definition 7 places them) has the input's canonical strides at every position the
//!    descriptor encodes, when no offset was truncated.
//! 3. `desc_` is the fields at their bit positions (start [0,14), LBO [16,30), SBO [32,46),
//!    base_offset [49,52), layout_type [62,64)).

use std::fmt;

use crate::atom::copy::{type_bits, upcast};
use crate::layout::Layout;
use crate::postcondition::{Checked, Violation};
use crate::release::{DESC_CANONICAL_PROFILE, GMMA_DESC_SPARSE_K};
use crate::swizzle::{ComposedLayout, Offset, Swizzle};
use crate::tiler::Tiler;
use crate::{Error, Int, IntTuple, Result};

/// The line CuTe's host `cast_smem_ptr_to_uint` prints (cute/arch/util.hpp).
pub const HOST_CAST_LINE: &str = "ERROR: cast_smem_ptr_to_uint not supported but used.";

/// `GMMA::Major` / `UMMA::Major`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    K,
    MN,
}

impl Major {
    /// `K` or `MN` as the template argument spells it.
    pub fn name(self) -> &'static str {
        match self {
            Major::K => "K",
            Major::MN => "MN",
        }
    }
    /// `GMMA::Major::K`, `cute::UMMA::Major::MN`, ...: the namespace `ns` and the enumerator.
    pub fn parse(text: &str, ns: &str) -> Option<Major> {
        let t = text.strip_prefix("cute::").unwrap_or(text);
        let t = t.strip_prefix("SM90::").filter(|_| ns == "GMMA").unwrap_or(t);
        match t.strip_prefix(ns)?.strip_prefix("::Major::")? {
            "K" => Some(Major::K),
            "MN" => Some(Major::MN),
            _ => None,
        }
    }
}

/// A shared-memory tensor as the descriptor makers see it: the value type's width, the swizzle in
/// its pointer and its layout in elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmemTensor {
    pub value_type: String,
    pub bits: i64,
    pub swizzle: Swizzle,
    pub layout: Layout,
}

impl SmemTensor {
    /// `make_tensor(make_smem_ptr(T*), L)` for a plain layout (definition 1).
    pub fn plain(value_type: &str, layout: Layout) -> Result<SmemTensor> {
        let bits = type_bits(value_type)?;
        Ok(SmemTensor { value_type: value_type.to_string(), bits, swizzle: Swizzle { b: 0, m: 4, s: 3 }, layout })
    }

    /// `make_tensor(make_smem_ptr(T*), Sw o smem_ptr[Bb] o L)` (definition 1).
    pub fn composed(value_type: &str, c: &ComposedLayout) -> Result<SmemTensor> {
        let bits = type_bits(value_type)?;
        match c.offset {
            Offset::SmemPtr(b) if b == bits => {
                Ok(SmemTensor { value_type: value_type.to_string(), bits, swizzle: c.swizzle, layout: c.layout.clone() })
            }
            Offset::SmemPtr(b) => Err(Error::Rejected {
                condition: "Expected a B-bit pointer type.",
                detail: format!("{c} over a {bits}-bit {value_type} pointer (B = {b})"),
            }),
            _ => Err(Error::Type(format!(
                "{c} is no shared-memory layout: a descriptor needs a plain layout or one over smem_ptr_flag (CuTe's layout_type takes no composed layout)"
            ))),
        }
    }

    /// `recast<uint128_t const>(tensor).layout()` (definition 3).
    pub fn u128_layout(&self) -> Result<Layout> {
        if self.bits <= 0 || 128 % self.bits != 0 {
            return Err(Error::Type(format!(
                "recast of {}-bit {} to uint128_t is not modelled",
                self.bits, self.value_type
            )));
        }
        upcast(&self.layout, 128 / self.bits)
    }
}

/// Which maker: its name in messages (`GMMA`, `UMMA`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Gmma,
    Umma,
}

impl Family {
    fn code(self) -> &'static str {
        match self {
            Family::Gmma => "GMMA",
            Family::Umma => "UMMA",
        }
    }
}

/// The strides of the canonical layout the descriptor reads (`stride<i,j>`), as `uint32_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strides {
    pub s00: u32,
    pub s10: u32,
    pub s01: u32,
    /// Read by the MN-major forms only.
    pub s11: Option<u32>,
}

fn static_message(family: Family, major: Major, what: &str) -> &'static str {
    match (family, major, what) {
        (Family::Gmma, Major::MN, "profile") => "Not a canonical GMMA_MN Layout: Expected profile failure.",
        (Family::Gmma, Major::K, "profile") => "Not a canonical GMMA_K Layout: Expected profile failure.",
        (Family::Umma, Major::MN, "profile") => "Not a canonical UMMA_MN Layout: Expected profile failure.",
        (Family::Umma, Major::K, "profile") => "Not a canonical UMMA_K Layout: Expected profile failure.",
        (Family::Gmma, Major::MN, _) => "Not a canonical GMMA_MN Layout: Expected stride failure.",
        (Family::Gmma, Major::K, _) => "Not a canonical GMMA_K Layout: Expected stride failure.",
        (Family::Umma, Major::MN, _) => "Not a canonical UMMA_MN Layout: Expected stride failure.",
        (Family::Umma, Major::K, _) => "Not a canonical UMMA_K Layout: Expected stride failure.",
    }
}

/// `(n:_1)`.
fn tile_mode(n: i64) -> Tiler {
    Tiler::Layout(Layout::leaf(Int::st(n), Int::st(1)))
}

/// A static size of a mode (CuTe's `CUTE_STATIC_ASSERT_V` needs one).
pub fn static_size(l: &Layout, mode: usize, what: &str) -> Result<i64> {
    let s = l.mode(mode)?.size()?;
    if !s.is_static {
        return Err(Error::Rejected {
            condition: "a descriptor's canonical check needs a static size",
            detail: format!("{what}: size<{mode}> of {l} is dynamic (CUTE_STATIC_ASSERT_V does not compile)"),
        });
    }
    Ok(s.value)
}

/// `logical_divide(L128, (tile0:1, tile1:1))`, the profile check and the strides read
/// (definitions 6 and 7's reading): the canonical layout and its strides.
pub fn canonical(l128: &Layout, tile: (i64, i64), family: Family, major: Major) -> Result<(Layout, Strides)> {
    let canonical =
        crate::logical_divide::logical_divide(l128, &Tiler::Tuple(vec![tile_mode(tile.0), tile_mode(tile.1)]))?;
    let profile = IntTuple::tuple([
        IntTuple::tuple([IntTuple::st(1), IntTuple::st(1)]),
        IntTuple::tuple([IntTuple::st(1), IntTuple::st(1)]),
    ]);
    let code = family.code();
    let m = major.name();
    if DESC_CANONICAL_PROFILE.on() {
        if !canonical.shape.congruent(&profile) {
            return Err(Error::Rejected {
                condition: static_message(family, major, "profile"),
                detail: format!("the canonical layout {canonical} of {l128}"),
            });
        }
    } else if canonical.rank() != 2 || canonical.mode(0)?.rank() != 2 || canonical.mode(1)?.rank() != 2 {
        return Err(Error::Rejected {
            condition: "No flat offset mode",
            detail: format!("Not a canonical {code}_{m} Layout: the canonical layout {canonical} of {l128}"),
        });
    }
    let read = |i: usize, j: usize| -> Result<u32> {
        let d = canonical.stride.mode(i)?.mode(j)?;
        match d.as_leaf() {
            Some(x) if x.is_static => Ok(x.value as u32),
            Some(_) => Err(Error::Rejected {
                condition: "a descriptor's stride must be a constant expression",
                detail: format!("stride<{i},{j}> of the canonical {code}_{m} layout {canonical} is dynamic"),
            }),
            None => Err(Error::Rejected {
                condition: "a descriptor's stride must be an integer",
                detail: format!(
                    "stride<{i},{j}> of the canonical {code}_{m} layout {canonical} is the tuple {d} (no conversion to uint32_t)"
                ),
            }),
        }
    };
    let s = Strides {
        s00: read(0, 0)?,
        s10: read(1, 0)?,
        s01: read(0, 1)?,
        s11: if major == Major::MN { Some(read(1, 1)?) } else { None },
    };
    Ok((canonical, s))
}

/// The stride checks of definition 7 (`none`: the swizzle-less layout type) and (SBO, LBO).
pub fn offsets(
    s: &Strides,
    w: u32,
    none: bool,
    family: Family,
    major: Major,
    canonical: &Layout,
) -> Result<(u32, u32)> {
    let bad = |what: String| {
        Err(Error::Rejected {
            condition: static_message(family, major, "stride"),
            detail: format!("{what} in {canonical}"),
        })
    };
    match major {
        Major::MN => {
            if !none && s.s00 != 1 {
                return bad(format!("stride<0,0> = {} (expected 1)", s.s00 as i32));
            }
            if s.s10 != w {
                return bad(format!("stride<1,0> = {} (expected {w})", s.s10 as i32));
            }
            let s11 = s.s11.unwrap_or(0);
            Ok(if none { (s.s01, s11) } else { (s11, s.s01) })
        }
        Major::K => {
            if s.s00 != w {
                return bad(format!("stride<0,0> = {} (expected {w})", s.s00 as i32));
            }
            if !none && s.s10 != 1 {
                return bad(format!("stride<1,0> = {} (expected 1)", s.s10 as i32));
            }
            Ok((s.s01, s.s10))
        }
    }
}

/// A 14-bit field's value (bit-field assignment keeps the low bits).
pub fn field14(v: u32) -> u16 {
    (v & 0x3fff) as u16
}

/// `GMMA::LayoutType` (mma_sm90_desc.hpp).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GmmaLayoutType {
    Interleave = 0,
    B128 = 1,
    B64 = 2,
    B32 = 3,
}

impl GmmaLayoutType {
    /// `to_string(LayoutType)`.
    pub fn name(self) -> &'static str {
        match self {
            GmmaLayoutType::Interleave => "INTERLEAVE",
            GmmaLayoutType::B128 => "B128",
            GmmaLayoutType::B64 => "B64",
            GmmaLayoutType::B32 => "B32",
        }
    }
    /// The swizzle atom's MN extent in granules (`W`).
    pub fn w(self) -> u32 {
        match self {
            GmmaLayoutType::Interleave => 1,
            GmmaLayoutType::B32 => 2,
            GmmaLayoutType::B64 => 4,
            GmmaLayoutType::B128 => 8,
        }
    }
    /// `layout_type(u128_tensor)` (definition 4).
    pub fn of(sw: Swizzle) -> Result<GmmaLayoutType> {
        if sw.m != 4 || !(0..=3).contains(&sw.b) || sw.s != 3 {
            return Err(Error::Rejected { condition: "Unsupported layout swizzle", detail: format!("{sw}") });
        }
        Ok(match sw.b {
            0 => GmmaLayoutType::Interleave,
            1 => GmmaLayoutType::B32,
            2 => GmmaLayoutType::B64,
            _ => GmmaLayoutType::B128,
        })
    }
}

/// CuTe's `GmmaDescriptor` (mma_sm90_desc.hpp): its bit fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GmmaDescriptor {
    pub start_address: u16,
    pub leading_byte_offset: u16,
    pub stride_byte_offset: u16,
    pub base_offset: u8,
    pub layout_type: GmmaLayoutType,
}

impl GmmaDescriptor {
    /// `desc_`: the fields at their bit positions.
    pub fn bits(&self) -> u64 {
        u64::from(self.start_address & 0x3fff)
            | u64::from(self.leading_byte_offset & 0x3fff) << 16
            | u64::from(self.stride_byte_offset & 0x3fff) << 32
            | u64::from(self.base_offset & 0x7) << 49
            | (self.layout_type as u64 & 0x3) << 62
    }
}

/// `print(GmmaDescriptor)`, byte for byte.
impl fmt::Display for GmmaDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "GmmaDescriptor: 0x{:016x}", self.bits())?;
        writeln!(f, "  start_addr :  0x{:04x}", self.start_address)?;
        writeln!(f, "  leading_off:  0x{:04x} ({})", self.leading_byte_offset, self.leading_byte_offset)?;
        writeln!(f, "  stride_off :  0x{:04x} ({})", self.stride_byte_offset, self.stride_byte_offset)?;
        writeln!(f, "  base_offset:  0x{:01x}", self.base_offset)?;
        write!(f, "  layout_type:  0x{:01x} ({})", self.layout_type as u8, self.layout_type.name())
    }
}

/// A descriptor made by CuTe's host code: its `cast_smem_ptr_to_uint` line, then the descriptor's
/// print (definition 8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnHost<D>(pub D);

impl<D: fmt::Display> fmt::Display for OnHost<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{HOST_CAST_LINE}")?;
        write!(f, "{}", self.0)
    }
}

/// What the descriptor was made from, for the postconditions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Made<D> {
    pub desc: D,
    /// The canonical layout (in granules) and the strides read from it.
    pub canonical: Layout,
    pub strides: Strides,
}

/// `GMMA::make_gmma_desc<major>(make_tensor(make_smem_ptr(T*), t))`.
pub fn make_gmma_desc(major: Major, t: &SmemTensor) -> Result<Made<GmmaDescriptor>> {
    if t.layout.rank() != 2 {
        return Err(Error::Rejected {
            condition: "GMMA Descriptors can only be constructed on rank-2 tensors.",
            detail: format!("{} has rank {}", t.layout, t.layout.rank()),
        });
    }
    let l128 = t.u128_layout()?;
    let lt = GmmaLayoutType::of(t.swizzle)?;
    let w = lt.w();
    let sparse = GMMA_DESC_SPARSE_K.on();
    let (canonical, strides) = match major {
        Major::MN => {
            let k = static_size(&l128, 1, "make_gmma_desc<Major::MN>")?;
            let dense = 256 / t.bits;
            let ok = k == dense || (sparse && (k == 128 / t.bits || k == 512 / t.bits));
            if !ok {
                let condition = if sparse {
                    "Not a canonical GMMA_MN Layout: Expected K-size 256/sizeof_bits<T> for dense or (128|512)/sizeof_bits<T> for sparse."
                } else {
                    "Not a canonical GMMA_MN Layout: Expected K-size 256/sizeof_bits<T>."
                };
                return Err(Error::Rejected { condition, detail: format!("K = {k} {} in {}", t.value_type, t.layout) });
            }
            canonical(&l128, (i64::from(w), 8), Family::Gmma, major)?
        }
        Major::K => {
            let mn = static_size(&l128, 0, "make_gmma_desc<Major::K>")?;
            if mn % 8 != 0 {
                return Err(Error::Rejected {
                    condition: "Not a canonical GMMA_K Layout: Expected MN-size multiple of 8.",
                    detail: format!("MN = {mn} in {l128}"),
                });
            }
            let k = static_size(&l128, 1, "make_gmma_desc<Major::K>")?;
            if !(k == 2 || (sparse && k == 4)) {
                let condition = if sparse {
                    "Not a canonical GMMA_K Layout: Expected K-size 2 for dense or 4 for sparse (in units of uint128_t)."
                } else {
                    "Not a canonical GMMA_K Layout: Expected K-size 2 (in units of uint128_t)."
                };
                return Err(Error::Rejected { condition, detail: format!("K = {k} granules in {l128}") });
            }
            canonical(&l128, (8, 2), Family::Gmma, major)?
        }
    };
    let none = lt == GmmaLayoutType::Interleave;
    let (sbo, lbo) = offsets(&strides, w, none, Family::Gmma, major, &canonical)?;
    let desc = GmmaDescriptor {
        start_address: 0,
        leading_byte_offset: field14(lbo),
        stride_byte_offset: field14(sbo),
        base_offset: 0,
        layout_type: lt,
    };
    Ok(Made { desc, canonical, strides })
}

/// The strides a descriptor encodes, at the canonical positions (definition 7 read backwards):
/// `(s00, s10, s01, s11)` of the canonical layout, `None` where the descriptor says nothing.
pub fn encoded_strides(major: Major, w: u32, none: bool, sbo: u16, lbo: u16) -> [Option<u32>; 4] {
    let (sbo, lbo) = (u32::from(sbo), u32::from(lbo));
    match (major, none) {
        (Major::MN, true) => [None, Some(w), Some(sbo), Some(lbo)],
        (Major::MN, false) => [Some(1), Some(w), Some(lbo), Some(sbo)],
        (Major::K, true) => [Some(w), Some(lbo), Some(sbo), None],
        (Major::K, false) => [Some(w), Some(1), Some(sbo), None],
    }
}

/// Postcondition 2 for any maker: the canonical strides equal what the fields encode, unless an
/// offset was truncated.
pub fn check_encoded(s: &Strides, encoded: [Option<u32>; 4], sbo: u32, lbo: u32, source: &'static str) -> Checked {
    if sbo > 0x3fff || lbo > 0x3fff {
        return Ok(());
    }
    let actual = [Some(s.s00), Some(s.s10), Some(s.s01), s.s11];
    for (k, (e, a)) in encoded.iter().zip(actual).enumerate() {
        if let (Some(e), Some(a)) = (e, a) {
            if *e != a {
                return Err(Violation::ours(
                    source,
                    format!("2: stride #{k} of the canonical layout is {a}, the descriptor encodes {e}"),
                ));
            }
        }
    }
    Ok(())
}

/// Postconditions 1-3 of a made GMMA descriptor.
pub fn check_postconditions(major: Major, t: &SmemTensor, m: &Made<GmmaDescriptor>) -> Checked {
    let d = &m.desc;
    let ours = |what: String| Err(Violation::ours("make_gmma_desc (mma_traits_sm90_gmma.hpp)", what));
    if d.base_offset != 0 || d.start_address != 0 {
        return ours(format!("1: base_offset {} / start address {} on the host", d.base_offset, d.start_address));
    }
    if GmmaLayoutType::of(t.swizzle).ok() != Some(d.layout_type) {
        return ours(format!("1: layout type {:?} for {}", d.layout_type, t.swizzle));
    }
    let none = d.layout_type == GmmaLayoutType::Interleave;
    let (sbo, lbo) = offsets(&m.strides, d.layout_type.w(), none, Family::Gmma, major, &m.canonical)
        .map_err(|e| Violation::ours("make_gmma_desc (mma_traits_sm90_gmma.hpp)", format!("2: {e}")))?;
    check_encoded(
        &m.strides,
        encoded_strides(major, d.layout_type.w(), none, d.stride_byte_offset, d.leading_byte_offset),
        sbo,
        lbo,
        "make_gmma_desc (mma_traits_sm90_gmma.hpp)",
    )?;
    let b = d.bits();
    if (b & 0x3fff) as u16 != d.start_address
        || (b >> 16 & 0x3fff) as u16 != d.leading_byte_offset
        || (b >> 32 & 0x3fff) as u16 != d.stride_byte_offset
        || (b >> 62) as u8 != d.layout_type as u8
    {
        return ours(format!("3: desc_ {b:#018x} does not hold the fields {d:?}"));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::atom::recast::{gmma_smem_atom, Recastable};
    use crate::release::{with_release, Release};
    use proptest::prelude::*;

    /// `tile_to_shape(ATOM, (_m,_kt))` and its first `(_m,_k)` block (`k` 0: the whole tile).
    pub(crate) fn smem_block(atom: &str, t: &str, m: i64, kt: i64, k: i64) -> SmemTensor {
        use crate::tile_to_shape::{tile_to_shape, Order};
        let Some(Ok(Recastable::Composed(c))) = gmma_smem_atom(atom) else { panic!("{atom}") };
        let shape = IntTuple::tuple([IntTuple::st(m), IntTuple::st(kt)]);
        let mut l = tile_to_shape(&c.layout, &shape, &Order::ColMajor).unwrap();
        if k > 0 {
            let block = Tiler::Tuple(vec![tile_mode(m), tile_mode(k)]);
            l = crate::composition::composition_tiler(&l, &block).unwrap();
        }
        SmemTensor::composed(t, &ComposedLayout { layout: l, ..c }).unwrap()
    }

    fn smem(atom: &str, t: &str, shape: &[i64]) -> SmemTensor {
        smem_block(atom, t, shape[0], shape[1], 0)
    }

    #[test]
    fn a_k_major_sw128_block_is_cute_s() {
        // Recorded from CuTe 4.2 (g++ host build): the (64,16) K-block of the 128B K atom.
        let t = smem_block("GMMA::Layout_K_SW128_Atom<half_t>", "half_t", 64, 64, 16);
        assert_eq!(t.layout.to_string(), "(_64,_16):(_64,_1)");
        let m = make_gmma_desc(Major::K, &t).unwrap();
        assert_eq!(
            OnHost(m.desc).to_string(),
            "ERROR: cast_smem_ptr_to_uint not supported but used.\nGmmaDescriptor: 0x4000004000010000\n  start_addr :  0x0000\n  leading_off:  0x0001 (1)\n  stride_off :  0x0040 (64)\n  base_offset:  0x0\n  layout_type:  0x1 (B128)"
        );
    }

    #[test]
    fn the_k_size_and_swizzle_are_checked() {
        let t = smem("GMMA::Layout_K_SW128_Atom<half_t>", "half_t", &[64, 64]);
        let e = make_gmma_desc(Major::K, &t).unwrap_err().to_string();
        assert!(e.contains("Expected K-size 2 for dense or 4 for sparse"), "{e}");
        let e = with_release(Release::new(3, 5, 1, 0), || make_gmma_desc(Major::K, &t).unwrap_err().to_string());
        assert!(e.contains("Expected K-size 2 (in units of uint128_t)."), "{e}");
        let mut bad = smem("GMMA::Layout_MN_SW64_Atom<half_t>", "half_t", &[64, 16]);
        bad.swizzle = Swizzle { b: 2, m: 5, s: 2 };
        assert!(make_gmma_desc(Major::MN, &bad).unwrap_err().to_string().contains("Unsupported layout swizzle"));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
        /// Random atoms tiled to random multiples: every accepted descriptor satisfies the
        /// postconditions, and the canonical atoms of the right K are accepted.
        #[test]
        fn every_postcondition_holds(
            k_major in any::<bool>(),
            sw in 0usize..4,
            ty in 0usize..3,
            m_rep in 1i64..5,
            k_rep in 1i64..3,
        ) {
            let (t, bits) = [("half_t", 16), ("float", 32), ("int8_t", 8)][ty];
            let kind = ["INTER", "SW32", "SW64", "SW128"][sw];
            let major = if k_major { Major::K } else { Major::MN };
            let atom = format!("GMMA::Layout_{}_{kind}_Atom<{t}>", major.name());
            let w = (128i64 << sw) / bits;
            // The dense K of one MMA: two granules (K-major: the first block of a tile k_rep atoms
            // wide), or 256 bits of rows (MN-major).
            let tensor = if k_major {
                let kt = (w * k_rep).max(256 / bits);
                smem_block(&atom, t, 8 * m_rep, kt, 256 / bits)
            } else {
                smem(&atom, t, &[w * m_rep, 256 / bits])
            };
            let made = make_gmma_desc(major, &tensor);
            if let Ok(m) = &made {
                prop_assert!(check_postconditions(major, &tensor, m).is_ok(), "{:?}", check_postconditions(major, &tensor, m));
            }
            prop_assert!(made.is_ok(), "{atom} {tensor:?}: {made:?}");
        }
    }
}
