//! `UMMA::make_umma_desc<Major>(tensor)`: the SM100 shared-memory matrix descriptor
//! (`UMMA::SmemDescriptor`) CuTe's host code computes for a shared-memory tensor. Declared from
//! CUTLASS 3.8 (cute/atom/mma_traits_sm100.hpp:168-278 of v3.8.0, 204-308 of v3.9.2 to v4.5.1;
//! moved to cute/arch/mma_sm100_desc.hpp:734-837 in v4.6, the same algorithm); before 3.8 `UMMA`
//! is not declared.
//!
//! Definition (the shared steps are [`super::make_gmma_desc`]'s definitions 1, 3, 6-8; in units
//! of `uint128_t`):
//! 1. The tensor as in `make_gmma_desc` (a plain layout, or one over `smem_ptr_flag` of
//!    `sizeof_bits<T>` bits); "UMMA Descriptors can only be constructed on rank-2 tensors.".
//! 2. `layout_type` (mma_sm100_desc.hpp:658-689 of v4.7.0): a swizzle `Swizzle<B,4,S>` needs S = 3
//!    ("Expected S = 3 when M == 4. Unsupported layout swizzle.") and `0 <= B <= 3` ("Expected B =
//!    0,1,2, or 3 when M == 4. Unsupported layout swizzle."): SWIZZLE_NONE, _32B, _64B, _128B (codes
//!    0, 6, 4, 2); `Swizzle<2,5,2>` is SWIZZLE_128B_BASE32B (code 1; "Expected B = 2 when M == 5."
//!    and "Expected S = 2 when M == 5." name the other M = 5 swizzles); any other M is "Only 16B and
//!    32B Atoms are supported for UMMA. Unsupported layout swizzle.". `W` (SwizzleAtomMNSize) is 1,
//!    2, 4, 8, 8.
//! 3. The descriptor starts with `version_ = 1` (Blackwell), `lbo_mode_ = 0` (legacy),
//!    `base_offset_ = 0` and the host start address 0.
//! 4. `Major::MN`: the canonical layout is `logical_divide(L128, (W:1, KS:1))` with KS = 4 for
//!    SWIZZLE_128B_BASE32B, else 8; there is no K-size check. Stride checks and SBO/LBO as GMMA's
//!    MN form (SWIZZLE_NONE in the place of INTERLEAVE): "Not a canonical UMMA_MN Layout: Expected
//!    stride failure.".
//!    `Major::K`: "SWIZZLE_128B_BASE32B is invalid for Major-K"; mode 0's size a multiple of 8 ("Not
//!    a canonical UMMA_K Layout: Expected MN-size multiple of 8."); no K-size check; the canonical
//!    layout is `logical_divide(L128, (8:1, 2:1))`; stride checks and SBO/LBO as GMMA's K form.
//! 5. The profile check, and its older form before CUTLASS 3.9, as `make_gmma_desc`'s (6).
//!
//! CuTe has no `print` for `UMMA::SmemDescriptor` (a union with an implicit `uint64_t`
//! conversion, so `print(desc)` is ambiguous). [`SmemDescriptor`]'s `Display` is this project's
//! format, modelled on `print(GmmaDescriptor)`, and the compiled oracle's generated C++ prints the
//! same lines from the real union's fields (harness/oracle/codegen/desc.rs):
//!
//! ```text
//! UMMA::SmemDescriptor: 0x%016llx      desc_
//!   start_addr :  0x%04x               start_address_
//!   leading_off:  0x%04x (%d)          leading_byte_offset_
//!   stride_off :  0x%04x (%d)          stride_byte_offset_
//!   version    :  %d                   version_
//!   base_offset:  0x%01x               base_offset_
//!   lbo_mode   :  %d                   lbo_mode_
//!   layout_type:  0x%01x (%s)          layout_type_, UMMA::to_string(LayoutType)
//! ```
//!
//! preceded, as every host-made descriptor, by `cast_smem_ptr_to_uint`'s line
//! ([`super::make_gmma_desc::OnHost`]).
//!
//! No unit test under CUTLASS's test/unit/cute calls `make_umma_desc` directly; the SM100
//! collective mainloops reach it through `make_tensor<UMMA::smem_desc<Major>>` (MakeTensor,
//! mma_sm100_desc.hpp:898-910) on mode 0 of `tile_to_mma_shape(UMMA::Layout_*_Atom<T>, ...)`.
//!
//! Postconditions (property-tested in `tests`):
//! 1. version 1, lbo_mode 0, base_offset 0, start address 0; the layout type is the swizzle's (2).
//! 2. The canonical layout's strides equal what the fields encode (as `make_gmma_desc`'s 2).
//! 3. `desc_` is the fields at their bit positions (start [0,14), LBO [16,30), SBO [32,46),
//!    version [46,48), base_offset [49,52), lbo_mode [52,53), layout_type [61,64)).

use std::fmt;

use crate::atom::recast::UMMA_SMEM_ATOMS_SINCE;
use crate::make_gmma_desc::{
    canonical, check_encoded, encoded_strides, field14, offsets, static_size, Family, Made, Major, SmemTensor,
};
use crate::postcondition::{Checked, Violation};
use crate::swizzle::Swizzle;
use crate::{Error, Result};

/// `UMMA::LayoutType` (mma_sm100_desc.hpp).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UmmaLayoutType {
    SwizzleNone = 0,
    Swizzle128bBase32b = 1,
    Swizzle128b = 2,
    Swizzle64b = 4,
    Swizzle32b = 6,
}

impl UmmaLayoutType {
    /// `UMMA::to_string(LayoutType)`.
    pub fn name(self) -> &'static str {
        match self {
            UmmaLayoutType::SwizzleNone => "SWIZZLE_NONE",
            UmmaLayoutType::Swizzle128bBase32b => "SWIZZLE_128B_BASE32B",
            UmmaLayoutType::Swizzle128b => "SWIZZLE_128B",
            UmmaLayoutType::Swizzle64b => "SWIZZLE_64B",
            UmmaLayoutType::Swizzle32b => "SWIZZLE_32B",
        }
    }
    /// `SwizzleAtomMNSize`.
    pub fn w(self) -> u32 {
        match self {
            UmmaLayoutType::SwizzleNone => 1,
            UmmaLayoutType::Swizzle32b => 2,
            UmmaLayoutType::Swizzle64b => 4,
            UmmaLayoutType::Swizzle128b | UmmaLayoutType::Swizzle128bBase32b => 8,
        }
    }
    /// `UMMA::layout_type(u128_tensor)` (definition 2).
    pub fn of(sw: Swizzle) -> Result<UmmaLayoutType> {
        let bad = |condition: &'static str| Err(Error::Rejected { condition, detail: format!("{sw}") });
        match sw.m {
            4 => {
                if sw.s != 3 {
                    return bad("Expected S = 3 when M == 4. Unsupported layout swizzle.");
                }
                Ok(match sw.b {
                    0 => UmmaLayoutType::SwizzleNone,
                    1 => UmmaLayoutType::Swizzle32b,
                    2 => UmmaLayoutType::Swizzle64b,
                    3 => UmmaLayoutType::Swizzle128b,
                    _ => return bad("Expected B = 0,1,2, or 3 when M == 4. Unsupported layout swizzle."),
                })
            }
            5 => {
                if sw.b != 2 {
                    return bad("Expected B = 2 when M == 5. Unsupported layout swizzle.");
                }
                if sw.s != 2 {
                    return bad("Expected S = 2 when M == 5. Unsupported layout swizzle.");
                }
                Ok(UmmaLayoutType::Swizzle128bBase32b)
            }
            _ => bad("Only 16B and 32B Atoms are supported for UMMA. Unsupported layout swizzle."),
        }
    }
}

/// CuTe's `UMMA::SmemDescriptor`: its bit fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemDescriptor {
    pub start_address: u16,
    pub leading_byte_offset: u16,
    pub stride_byte_offset: u16,
    pub version: u8,
    pub base_offset: u8,
    pub lbo_mode: u8,
    pub layout_type: UmmaLayoutType,
}

impl SmemDescriptor {
    /// `desc_`: the fields at their bit positions.
    pub fn bits(&self) -> u64 {
        u64::from(self.start_address & 0x3fff)
            | u64::from(self.leading_byte_offset & 0x3fff) << 16
            | u64::from(self.stride_byte_offset & 0x3fff) << 32
            | u64::from(self.version & 0x3) << 46
            | u64::from(self.base_offset & 0x7) << 49
            | u64::from(self.lbo_mode & 0x1) << 52
            | (self.layout_type as u64 & 0x7) << 61
    }
}

/// The documented format (module doc), one line per field.
impl fmt::Display for SmemDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "UMMA::SmemDescriptor: 0x{:016x}", self.bits())?;
        writeln!(f, "  start_addr :  0x{:04x}", self.start_address)?;
        writeln!(f, "  leading_off:  0x{:04x} ({})", self.leading_byte_offset, self.leading_byte_offset)?;
        writeln!(f, "  stride_off :  0x{:04x} ({})", self.stride_byte_offset, self.stride_byte_offset)?;
        writeln!(f, "  version    :  {}", self.version)?;
        writeln!(f, "  base_offset:  0x{:01x}", self.base_offset)?;
        writeln!(f, "  lbo_mode   :  {}", self.lbo_mode)?;
        write!(f, "  layout_type:  0x{:01x} ({})", self.layout_type as u8, self.layout_type.name())
    }
}

/// `UMMA::make_umma_desc<major>(make_tensor(make_smem_ptr(T*), t))`.
pub fn make_umma_desc(major: Major, t: &SmemTensor) -> Result<Made<SmemDescriptor>> {
    if !crate::release::since(UMMA_SMEM_ATOMS_SINCE) {
        let r = crate::release::current();
        return Err(Error::Rejected {
            condition: "'UMMA' has not been declared",
            detail: format!("make_umma_desc first appears in CUTLASS {UMMA_SMEM_ATOMS_SINCE} (modelled: {r})"),
        });
    }
    if t.layout.rank() != 2 {
        return Err(Error::Rejected {
            condition: "UMMA Descriptors can only be constructed on rank-2 tensors.",
            detail: format!("{} has rank {}", t.layout, t.layout.rank()),
        });
    }
    let l128 = t.u128_layout()?;
    let lt = UmmaLayoutType::of(t.swizzle)?;
    let w = lt.w();
    let (canonical, strides) = match major {
        Major::MN => {
            let ks = if lt == UmmaLayoutType::Swizzle128bBase32b { 4 } else { 8 };
            canonical(&l128, (i64::from(w), ks), Family::Umma, major)?
        }
        Major::K => {
            if lt == UmmaLayoutType::Swizzle128bBase32b {
                return Err(Error::Rejected {
                    condition: "SWIZZLE_128B_BASE32B is invalid for Major-K",
                    detail: format!("{} over {}", t.swizzle, t.layout),
                });
            }
            let mn = static_size(&l128, 0, "make_umma_desc<Major::K>")?;
            if mn % 8 != 0 {
                return Err(Error::Rejected {
                    condition: "Not a canonical UMMA_K Layout: Expected MN-size multiple of 8.",
                    detail: format!("MN = {mn} in {l128}"),
                });
            }
            canonical(&l128, (8, 2), Family::Umma, major)?
        }
    };
    let none = lt == UmmaLayoutType::SwizzleNone;
    let (sbo, lbo) = offsets(&strides, w, none, Family::Umma, major, &canonical)?;
    let desc = SmemDescriptor {
        start_address: 0,
        leading_byte_offset: field14(lbo),
        stride_byte_offset: field14(sbo),
        version: 1,
        base_offset: 0,
        lbo_mode: 0,
        layout_type: lt,
    };
    Ok(Made { desc, canonical, strides })
}

/// Postconditions 1-3 of a made UMMA descriptor.
pub fn check_postconditions(major: Major, t: &SmemTensor, m: &Made<SmemDescriptor>) -> Checked {
    const WHY: &str = "make_umma_desc (mma_sm100_desc.hpp)";
    let d = &m.desc;
    if d.version != 1 || d.lbo_mode != 0 || d.base_offset != 0 || d.start_address != 0 {
        return Err(Violation::ours(WHY, format!("1: fixed fields {d:?}")));
    }
    if UmmaLayoutType::of(t.swizzle).ok() != Some(d.layout_type) {
        return Err(Violation::ours(WHY, format!("1: layout type {:?} for {}", d.layout_type, t.swizzle)));
    }
    let none = d.layout_type == UmmaLayoutType::SwizzleNone;
    let w = d.layout_type.w();
    let (sbo, lbo) = offsets(&m.strides, w, none, Family::Umma, major, &m.canonical)
        .map_err(|e| Violation::ours(WHY, format!("2: {e}")))?;
    check_encoded(
        &m.strides,
        encoded_strides(major, w, none, d.stride_byte_offset, d.leading_byte_offset),
        sbo,
        lbo,
        WHY,
    )?;
    let b = d.bits();
    if (b >> 16 & 0x3fff) as u16 != d.leading_byte_offset
        || (b >> 32 & 0x3fff) as u16 != d.stride_byte_offset
        || (b >> 46 & 0x3) as u8 != d.version
        || (b >> 61) as u8 != d.layout_type as u8
    {
        return Err(Violation::ours(WHY, format!("3: desc_ {b:#018x} does not hold the fields {d:?}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::make_gmma_desc::tests::smem_block;
    use crate::make_gmma_desc::OnHost;
    use crate::release::{with_release, Release};
    use proptest::prelude::*;

    #[test]
    fn an_mn_major_sw128_tile_is_cute_s() {
        // Recorded from CuTe 4.2 (g++ host build): version 1, LBO 64, SBO 128, SWIZZLE_128B.
        let t = smem_block("UMMA::Layout_MN_SW128_Atom<half_t>", "half_t", 128, 64, 0);
        let m = make_umma_desc(Major::MN, &t).unwrap();
        assert_eq!((m.desc.version, m.desc.leading_byte_offset, m.desc.stride_byte_offset), (1, 64, 128));
        assert_eq!(m.desc.layout_type, UmmaLayoutType::Swizzle128b);
        let text = OnHost(m.desc).to_string();
        assert!(
            text.starts_with("ERROR: cast_smem_ptr_to_uint not supported but used.\nUMMA::SmemDescriptor: 0x"),
            "{text}"
        );
        assert!(text.ends_with("  layout_type:  0x2 (SWIZZLE_128B)"), "{text}");
    }

    #[test]
    fn base32b_is_refused_k_major_and_the_profile_changed_in_3_9() {
        let t = smem_block("UMMA::Layout_MN_SW128_32B_Atom<float>", "float", 32, 16, 0);
        assert!(make_umma_desc(Major::MN, &t).is_ok());
        let e = make_umma_desc(Major::K, &t).unwrap_err().to_string();
        assert!(e.contains("SWIZZLE_128B_BASE32B is invalid for Major-K"), "{e}");
        let wide = smem_block("UMMA::Layout_K_SW128_Atom<half_t>", "half_t", 128, 128, 0);
        let e = make_umma_desc(Major::K, &wide).unwrap_err().to_string();
        assert!(e.contains("Not a canonical UMMA_K Layout: Expected profile failure."), "{e}");
        assert!(with_release(Release::new(3, 8, 0, 0), || make_umma_desc(Major::K, &wide)).is_ok());
        assert!(with_release(Release::new(3, 7, 0, 0), || make_umma_desc(Major::K, &wide)).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
        /// Canonical atoms tiled to random multiples, the MMA's K-block taken (K-major): accepted,
        /// and every postcondition holds.
        #[test]
        fn every_postcondition_holds(
            k_major in any::<bool>(),
            sw in 0usize..5,
            ty in 0usize..3,
            m_rep in 1i64..5,
            k_rep in 1i64..3,
        ) {
            let (t, bits) = [("half_t", 16), ("float", 32), ("int8_t", 8)][ty];
            let major = if k_major || sw == 4 { Major::MN } else { Major::K };
            let major = if k_major && sw < 4 { Major::K } else { major };
            let kind = ["INTER", "SW32", "SW64", "SW128", "SW128_32B"][sw];
            let atom = format!("UMMA::Layout_{}_{kind}_Atom<{t}>", major.name());
            let w = if sw == 4 { 1024 / bits } else { (128i64 << sw) / bits };
            let tensor = if major == Major::K {
                let kt = (w * k_rep).max(256 / bits);
                smem_block(&atom, t, 8 * m_rep, kt, 256 / bits)
            } else {
                let ks = if sw == 4 { 4 } else { 8 };
                smem_block(&atom, t, w * m_rep, ks * k_rep, 0)
            };
            let made = make_umma_desc(major, &tensor);
            prop_assert!(made.is_ok(), "{atom} {tensor:?}: {made:?}");
            let m = made.unwrap();
            prop_assert!(check_postconditions(major, &tensor, &m).is_ok(), "{:?}", check_postconditions(major, &tensor, &m));
        }
    }
}
