//! `UMMA::make_instr_desc<...>()` and `UMMA::make_instr_desc_block_scaled<...>()`: the
//! `tcgen05.mma` instruction descriptor an SM100 UMMA atom's traits hold as `idesc_`
//! (cute/arch/mma_sm100_desc.hpp:474-506 and 556-590 of v4.7.0, the same code from 3.8; the
//! traits' arguments: [`crate::atom::umma::InstrArgs`]). Before CUTLASS 3.8 no UMMA atom exists.
//!
//! Definition (`make_instr_desc<a, b, c, M, N, a_major, b_major, a_neg, b_neg, c_sat, is_sparse =
//! false, max_shift = NoShift>`):
//! 1. `a_format_`, `b_format_` = `to_UMMAFormat<T>()` (mma_sm100_desc.hpp:383-406): `half_t` 0,
//!    `bfloat16_t` 1, `tfloat32_t` 2 (F16F32Format); `uint8_t` 0, `int8_t` 1 (S8Format);
//!    `float_e4m3_t` 0, `float_e5m2_t` 1, `float_e2m3_t` 3, `float_e3m2_t` 4 (MXF8F6F4Format); the
//!    type-erased runtime types 7 (INVALID); `float_e2m1_t` 1 (MXF4Format::E2M1).
//!    `c_format_` = `to_CFormat<c>()`: `half_t` 0, `float` 1, `int32_t` 2.
//! 2. `m_dim_ = M >> 4` (5 bits), `n_dim_ = N >> 3` (6 bits), `a_major_`/`b_major_` 0 for K, 1 for
//!    MN, `a_negate_`/`b_negate_` 1 for `ScaleIn::Neg`, `saturate_` 1 for `Saturate::True`,
//!    `sparse_flag_` = is_sparse, `sparse_id2_` 0, `max_shift_` 0.
//! 3. `make_instr_desc_block_scaled<a, b, c, sf, M, N, a_major, b_major, a_neg, b_neg>`: the formats,
//!    dims, majors and negates as above, `scale_format_` = `to_ScaleFormat<sf>()` (`float_ue4m3_t`
//!    0, `float_ue8m0_t` 1), `a_sf_id_ = b_sf_id_ = 0`; no C format, no saturate; `k_size_` (bit 31,
//!    a field from 4.2, unused before) stays 0.
//! 4. Bits: `InstrDescriptor` sparse_id2 [0,2), sparse_flag [2], saturate [3], c_format [4,6),
//!    a_format [7,10), b_format [10,13), a_negate [13], b_negate [14], a_major [15], b_major [16],
//!    n_dim [17,23), m_dim [24,29), max_shift [30,32); `InstrDescriptorBlockScaled` the same but
//!    b_sf_id [4,6) for saturate and c_format, scale_format [23], a_sf_id [29,31), k_size [31].
//!
//! Refusals: the traits' static_asserts (atom::umma), then the descriptor's "Unknown type for
//! UMMAFormat", "Unknown type for CFormat", "Unknown type for ScaleFormat". Reading
//! `MMA_Atom<Op>{}.idesc_` does not instantiate the operation, so its static_asserts (M, N by
//! family) do not apply: CuTe 4.2 gives `SM100_MMA_F16BF16_SS<...,96,256,...>` its m_dim 6.
//! Modelled: the dense `_SS` and `_TS` forms on one SM and two; the sparse, `_SCALED` and
//! interleaved complex forms are refused as not modelled (a type error).
//!
//! CuTe has no `print` for either union; `Display` is this project's format, which the compiled
//! oracle's generated C++ prints from the real `MMA_Atom<Op>{}.idesc_` (harness/oracle/codegen/desc.rs):
//!
//! ```text
//! UMMA::InstrDescriptor: 0x%08x                  desc_
//!   sparse     :  id2 %d, flag %d               sparse_id2_, sparse_flag_
//!   saturate   :  %d                            saturate_
//!   c_format   :  %d                            c_format_
//!   a_format   :  %d                            a_format_
//!   b_format   :  %d                            b_format_
//!   negate     :  a %d, b %d                    a_negate_, b_negate_
//!   major      :  a %d, b %d                    a_major_, b_major_
//!   n_dim      :  %d                            n_dim_
//!   m_dim      :  %d                            m_dim_
//!   max_shift  :  %d                            max_shift_
//! UMMA::InstrDescriptorBlockScaled: 0x%08x       desc_
//!   sparse     :  id2 %d, flag %d
//!   sf_id      :  a %d, b %d                    a_sf_id_, b_sf_id_
//!   a_format   :  %d
//!   b_format   :  %d
//!   negate     :  a %d, b %d
//!   major      :  a %d, b %d
//!   n_dim      :  %d
//!   scale_fmt  :  %d                            scale_format_
//!   m_dim      :  %d
//! ```
//!
//! No unit test under CUTLASS's test/unit/cute reads `idesc_`; the SM100 GEMM tests pass it to
//! every `tcgen05.mma` (`make_runtime_instr_desc`, its upper 32 bits).
//!
//! Postconditions (checked in `tests` on every listed dense atom the engine accepts):
//! 1. The fields read back from the bits (definition 4) are the fields.
//! 2. `m_dim * 16 == M` and `n_dim * 8 == N` for every M < 512, N < 512 that are multiples of 16
//!    and 8; the majors are the atom's.

use std::fmt;

use crate::atom::name::AtomName;
use crate::atom::umma::{instr_args, InstrArgs};
use crate::postcondition::{Checked, Violation};
use crate::{Error, Result};

/// `InstrDescriptor`'s fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InstrDescriptor {
    pub sparse_id2: u8,
    pub sparse_flag: u8,
    pub saturate: u8,
    pub c_format: u8,
    pub a_format: u8,
    pub b_format: u8,
    pub a_negate: u8,
    pub b_negate: u8,
    pub a_major: u8,
    pub b_major: u8,
    pub n_dim: u8,
    pub m_dim: u8,
    pub max_shift: u8,
}

impl InstrDescriptor {
    /// `desc_` (definition 4).
    pub fn bits(&self) -> u32 {
        u32::from(self.sparse_id2 & 3)
            | u32::from(self.sparse_flag & 1) << 2
            | u32::from(self.saturate & 1) << 3
            | u32::from(self.c_format & 3) << 4
            | u32::from(self.a_format & 7) << 7
            | u32::from(self.b_format & 7) << 10
            | u32::from(self.a_negate & 1) << 13
            | u32::from(self.b_negate & 1) << 14
            | u32::from(self.a_major & 1) << 15
            | u32::from(self.b_major & 1) << 16
            | u32::from(self.n_dim & 0x3f) << 17
            | u32::from(self.m_dim & 0x1f) << 24
            | u32::from(self.max_shift & 3) << 30
    }
    /// The fields of `desc_`.
    pub fn from_bits(b: u32) -> InstrDescriptor {
        let f = |at: u32, w: u32| ((b >> at) & ((1 << w) - 1)) as u8;
        InstrDescriptor {
            sparse_id2: f(0, 2),
            sparse_flag: f(2, 1),
            saturate: f(3, 1),
            c_format: f(4, 2),
            a_format: f(7, 3),
            b_format: f(10, 3),
            a_negate: f(13, 1),
            b_negate: f(14, 1),
            a_major: f(15, 1),
            b_major: f(16, 1),
            n_dim: f(17, 6),
            m_dim: f(24, 5),
            max_shift: f(30, 2),
        }
    }
}

/// `InstrDescriptorBlockScaled`'s fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InstrDescriptorBlockScaled {
    pub sparse_id2: u8,
    pub sparse_flag: u8,
    pub b_sf_id: u8,
    pub a_format: u8,
    pub b_format: u8,
    pub a_negate: u8,
    pub b_negate: u8,
    pub a_major: u8,
    pub b_major: u8,
    pub n_dim: u8,
    pub scale_format: u8,
    pub m_dim: u8,
    pub a_sf_id: u8,
    pub k_size: u8,
}

impl InstrDescriptorBlockScaled {
    /// `desc_` (definition 4).
    pub fn bits(&self) -> u32 {
        u32::from(self.sparse_id2 & 3)
            | u32::from(self.sparse_flag & 1) << 2
            | u32::from(self.b_sf_id & 3) << 4
            | u32::from(self.a_format & 7) << 7
            | u32::from(self.b_format & 7) << 10
            | u32::from(self.a_negate & 1) << 13
            | u32::from(self.b_negate & 1) << 14
            | u32::from(self.a_major & 1) << 15
            | u32::from(self.b_major & 1) << 16
            | u32::from(self.n_dim & 0x3f) << 17
            | u32::from(self.scale_format & 1) << 23
            | u32::from(self.m_dim & 0x1f) << 24
            | u32::from(self.a_sf_id & 3) << 29
            | u32::from(self.k_size & 1) << 31
    }
}

/// An atom's `idesc_`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstrDesc {
    Dense(InstrDescriptor),
    BlockScaled(InstrDescriptorBlockScaled),
}

impl fmt::Display for InstrDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstrDesc::Dense(d) => {
                writeln!(f, "UMMA::InstrDescriptor: 0x{:08x}", d.bits())?;
                writeln!(f, "  sparse     :  id2 {}, flag {}", d.sparse_id2, d.sparse_flag)?;
                writeln!(f, "  saturate   :  {}", d.saturate)?;
                writeln!(f, "  c_format   :  {}", d.c_format)?;
                writeln!(f, "  a_format   :  {}", d.a_format)?;
                writeln!(f, "  b_format   :  {}", d.b_format)?;
                writeln!(f, "  negate     :  a {}, b {}", d.a_negate, d.b_negate)?;
                writeln!(f, "  major      :  a {}, b {}", d.a_major, d.b_major)?;
                writeln!(f, "  n_dim      :  {}", d.n_dim)?;
                writeln!(f, "  m_dim      :  {}", d.m_dim)?;
                write!(f, "  max_shift  :  {}", d.max_shift)
            }
            InstrDesc::BlockScaled(d) => {
                writeln!(f, "UMMA::InstrDescriptorBlockScaled: 0x{:08x}", d.bits())?;
                writeln!(f, "  sparse     :  id2 {}, flag {}", d.sparse_id2, d.sparse_flag)?;
                writeln!(f, "  sf_id      :  a {}, b {}", d.a_sf_id, d.b_sf_id)?;
                writeln!(f, "  a_format   :  {}", d.a_format)?;
                writeln!(f, "  b_format   :  {}", d.b_format)?;
                writeln!(f, "  negate     :  a {}, b {}", d.a_negate, d.b_negate)?;
                writeln!(f, "  major      :  a {}, b {}", d.a_major, d.b_major)?;
                writeln!(f, "  n_dim      :  {}", d.n_dim)?;
                writeln!(f, "  scale_fmt  :  {}", d.scale_format)?;
                write!(f, "  m_dim      :  {}", d.m_dim)
            }
        }
    }
}

/// `to_UMMAFormat<T>()` (definition 1).
fn umma_format(t: &str) -> Result<u8> {
    Ok(match t {
        "half_t" | "uint8_t" | "float_e4m3_t" => 0,
        "bfloat16_t" | "int8_t" | "float_e5m2_t" | "float_e2m1_t" => 1,
        "tfloat32_t" => 2,
        "float_e2m3_t" => 3,
        "float_e3m2_t" => 4,
        "type_erased_dynamic_float8_t" | "type_erased_dynamic_float6_t" | "type_erased_dynamic_float4_t" => 7,
        _ => return Err(Error::Rejected { condition: "Unknown type for UMMAFormat", detail: t.to_string() }),
    })
}

/// `to_CFormat<T>()`.
fn c_format(t: &str) -> Result<u8> {
    Ok(match t {
        "half_t" => 0,
        "float" => 1,
        "int32_t" => 2,
        _ => return Err(Error::Rejected { condition: "Unknown type for CFormat", detail: t.to_string() }),
    })
}

/// `to_ScaleFormat<T>()`.
fn scale_format(t: &str) -> Result<u8> {
    Ok(match t {
        "float_ue4m3_t" => 0,
        "float_ue8m0_t" => 1,
        _ => return Err(Error::Rejected { condition: "Unknown type for ScaleFormat", detail: t.to_string() }),
    })
}

/// The descriptor of [`InstrArgs`] (definitions 1-3).
pub fn from_args(a: &InstrArgs) -> Result<InstrDesc> {
    let (a_format, b_format) = (umma_format(&a.a)?, umma_format(&a.b)?);
    let (m_dim, n_dim) = (((a.m >> 4) & 0x1f) as u8, ((a.n >> 3) & 0x3f) as u8);
    let (a_major, b_major) = (u8::from(a.a_mn_major), u8::from(a.b_mn_major));
    let (a_negate, b_negate) = (u8::from(a.a_neg), u8::from(a.b_neg));
    Ok(match &a.sf {
        Some(sf) => InstrDesc::BlockScaled(InstrDescriptorBlockScaled {
            a_format,
            b_format,
            scale_format: scale_format(sf)?,
            m_dim,
            n_dim,
            a_major,
            b_major,
            a_negate,
            b_negate,
            ..Default::default()
        }),
        None => InstrDesc::Dense(InstrDescriptor {
            a_format,
            b_format,
            c_format: c_format(&a.c)?,
            m_dim,
            n_dim,
            a_major,
            b_major,
            a_negate,
            b_negate,
            saturate: u8::from(a.c_sat),
            ..Default::default()
        }),
    })
}

/// `MMA_Atom<atom>{}.idesc_`.
pub fn make_instr_desc(atom: &str) -> Result<InstrDesc> {
    // The traits' refusals first: `MMA_Atom<Op>{}.idesc_` instantiates the traits (and the
    // descriptor's default member initializer), not the operation, whose static_asserts (M, N)
    // stay silent: CuTe 4.2 gives M = 96 its m_dim 6.
    crate::atom::mma::mma_atom(atom)?;
    let n = AtomName::parse(atom)?;
    let Some(args) = instr_args(&n)? else {
        return Err(Error::Type(format!("make_instr_desc takes an SM100 UMMA atom (SM100_MMA_...), not {atom}")));
    };
    from_args(&args)
}

/// Postconditions 1 and 2.
pub fn check_postconditions(a: &InstrArgs, d: &InstrDesc) -> Checked {
    const WHY: &str = "make_instr_desc (mma_sm100_desc.hpp)";
    let (m_dim, n_dim, am, bm) = match d {
        InstrDesc::Dense(x) => {
            if InstrDescriptor::from_bits(x.bits()) != *x {
                return Err(Violation::ours(WHY, format!("1: {x:?} does not read back from {:#010x}", x.bits())));
            }
            (x.m_dim, x.n_dim, x.a_major, x.b_major)
        }
        InstrDesc::BlockScaled(x) => (x.m_dim, x.n_dim, x.a_major, x.b_major),
    };
    if a.m < 512 && a.m % 16 == 0 && i64::from(m_dim) * 16 != a.m {
        return Err(Violation::ours(WHY, format!("2: m_dim {m_dim} for M {}", a.m)));
    }
    if a.n < 512 && a.n % 8 == 0 && i64::from(n_dim) * 8 != a.n {
        return Err(Violation::ours(WHY, format!("2: n_dim {n_dim} for N {}", a.n)));
    }
    if (am == 1) != a.a_mn_major || (bm == 1) != a.b_mn_major {
        return Err(Violation::ours(WHY, format!("2: majors a {am}, b {bm} for {a:?}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_f16_descriptor_is_cute_s() {
        // make_instr_desc<half_t, half_t, float, 128, 256, Major::K, Major::MN>() on CuTe 4.2 (g++
        // host build) is 0x08410010.
        let d = make_instr_desc("SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::MN>")
            .unwrap();
        let InstrDesc::Dense(x) = d else { panic!("{d:?}") };
        assert_eq!(x.bits(), 0x0841_0010);
    }

    #[test]
    fn every_listed_dense_atom_satisfies_the_postconditions() {
        let mut n = 0;
        for atom in crate::atom::umma::umma_atom_names() {
            let Ok(name) = AtomName::parse(&atom) else { continue };
            let Ok(Some(args)) = instr_args(&name) else { continue };
            let Ok(d) = make_instr_desc(&atom) else { continue };
            assert_eq!(check_postconditions(&args, &d), Ok(()), "{atom}");
            n += 1;
        }
        assert!(n >= 20, "{n} atoms checked");
    }
}
