//! `UMMA::make_instr_desc<...>()` and `UMMA::make_instr_desc_block_scaled<...>()`: the
//! `tcgen05.mma` instruction descriptor an SM100 UMMA atom's traits hold as `idesc_`
//! (cute/arch/mma_sm100_desc.hpp:474-506 and 556-590 of v4.7.0, the same code from 3.8; the
//! traits' arguments, form by form: [`crate::atom::umma::InstrArgs`]). Before CUTLASS 3.8 no UMMA
//! atom exists ("not declared", atom/since.rs), the sparse forms from 3.9, the TF32 `_TS_SCALED`,
//! the interleaved complex TF32 forms and the complex `_SCALED` specialization from 4.4.
//!
//! Definition (`make_instr_desc<a, b, c, M, N, a_major, b_major, a_neg, b_neg, c_sat, is_sparse =
//! false, max_shift = NoShift>`, mma_sm100_desc.hpp:474-506 of v4.7.0):
//! 1. `a_format_`, `b_format_` = `to_UMMAFormat<T>()` (mma_sm100_desc.hpp:383-406): `half_t` 0,
//!    `bfloat16_t` 1, `tfloat32_t` 2 (F16F32Format); `uint8_t` 0, `int8_t` 1 (S8Format);
//!    `float_e4m3_t` 0, `float_e5m2_t` 1, `float_e2m3_t` 3, `float_e3m2_t` 4 (MXF8F6F4Format); the
//!    type-erased runtime types 7 (INVALID); `float_e2m1_t` 1 (MXF4Format::E2M1).
//!    `c_format_` = `to_CFormat<c>()` (:408-414): `half_t` 0, `float` 1, `int32_t` 2.
//! 2. `m_dim_ = M >> 4` (5 bits), `n_dim_ = N >> 3` (6 bits), `a_major_`/`b_major_` 0 for K, 1 for
//!    MN, `a_negate_`/`b_negate_` 1 for `ScaleIn::Neg`, `saturate_` 1 for `Saturate::True`,
//!    `sparse_flag_` = is_sparse, `sparse_id2_` 0, `max_shift_` 0 (no trait passes another
//!    `max_shift`; `sparse_id2_` is set only in the 64-bit runtime copy `make_runtime_instr_desc<true>`
//!    makes at each `fma`, never in `idesc_`).
//! 3. `make_instr_desc_block_scaled<a, b, c, sf, M, N, a_major, b_major, a_neg, b_neg, is_sparse =
//!    false>` (:556-590): the formats, dims, majors, negates and sparse flag as above,
//!    `scale_format_` = `to_ScaleFormat<sf>()` (:232-237: `float_ue4m3_t` 0, `float_ue8m0_t` 1),
//!    `a_sf_id_ = b_sf_id_ = 0`; no C format, no saturate; `k_size_` (bit 31, a field from 4.2,
//!    unnamed padding before) stays 0.
//! 4. Bits (:416-443 and :445-472): the tables [`INSTR_DESCRIPTOR`] and
//!    [`INSTR_DESCRIPTOR_BLOCK_SCALED`], one entry (member, first bit, width) per bit field; a value
//!    assigned to a field keeps its low `width` bits, as a C++ bit field does (M = 512 gives m_dim 0).
//!
//! Forms (the traits' arguments, mma_traits_sm100.hpp; the same in every release that has them):
//! dense `_SS`/`_TS` on one SM and two; `_SCALED` (its `ScaleC` is the operation's, not the
//! descriptor's: the dense form's descriptor); the interleaved complex `_SCALED` specialization
//! (the element type of `cutlass::complex<T>` for A and B, `float` for C); the interleaved complex
//! TF32 `_TS_INTERLEAVED_CF32CTF32CTF32CF32_TN` (`tfloat32_t`, `tfloat32_t`, `float`); the
//! `_SS_SPARSE` forms (`is_sparse` = true, `Saturate::False` but S8's `c_sat`), block-scaled
//! sparse included (`make_instr_desc_block_scaled<..., true>`). Every UMMA atom the engine lists
//! has its descriptor (`tests`).
//!
//! Refusals: the traits' static_asserts (atom::umma; before 4.4 a complex `_SCALED` atom takes the
//! generic traits, whose width check fails), then the descriptor's "Unknown type for UMMAFormat",
//! "Unknown type for CFormat", "Unknown type for ScaleFormat". Reading `MMA_Atom<Op>{}.idesc_` does
//! not instantiate the operation, so its static_asserts (M, N by family) do not apply: CuTe 4.2
//! gives `SM100_MMA_F16BF16_SS<...,96,256,...>` its m_dim 6.
//!
//! CuTe has no `print` for either union; `Display` is this project's format, made from the tables
//! ([`Union::lines`]), which the compiled oracle's generated C++ prints from the real
//! `MMA_Atom<Op>{}.idesc_` (harness/oracle/codegen/desc.rs writes its `printf`s from the same
//! tables):
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
//! Postconditions ([`check_postconditions`], checked in `tests` on every UMMA atom the engine
//! lists, each form, and by the property test `every_postcondition_holds` on random ones: M, N,
//! B's major and the negates redrawn, releases 3.8 to 4.7; the random mix draws such cases too,
//! harness/fuzz/desc.rs):
//! 1. The union's fields lie in 32 bits without overlapping; the word has no bit outside them,
//!    and the fields read back from it are the fields.
//! 2. The fields decode back to the traits' arguments: `m_dim * 16 == M` and `n_dim * 8 == N` (M <
//!    512 a multiple of 16, N < 512 a multiple of 8), the majors, the negates, `saturate` = c_sat
//!    (`InstrDescriptor`), `sparse_flag` = is_sparse, `sparse_id2`, `max_shift`, the scale-factor
//!    ids and `k_size` 0.
//! 3. A's and B's formats are enumerators of the format enums (mma_sm100_desc.hpp:128-222) naming
//!    a type of the traits' operand width (or `INVALID`, the type-erased runtime types); the C
//!    format names the accumulator type (`CFormat`).

use std::fmt;

use crate::atom::name::AtomName;
use crate::atom::umma::{instr_args, InstrArgs};
use crate::postcondition::{Checked, Violation};
use crate::{Error, Result};

/// One bit field of a descriptor union: its C++ member, its first bit and its width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub member: &'static str,
    pub at: u32,
    pub width: u32,
}

const fn field(member: &'static str, at: u32, width: u32) -> Field {
    Field { member, at, width }
}

/// One line of the documented format: a label, then `prefix value` for each member, joined by
/// ", ".
#[derive(Clone, Copy, Debug)]
pub struct Line {
    pub label: &'static str,
    pub parts: &'static [(&'static str, &'static str)],
}

/// A descriptor union: its C++ name, its bit fields (the one place that knows its layout) and the
/// lines of its documented format.
#[derive(Debug)]
pub struct Union {
    pub name: &'static str,
    pub fields: &'static [Field],
    pub lines: &'static [Line],
}

/// `UMMA::InstrDescriptor` (mma_sm100_desc.hpp:416-443 of v4.7.0; bits 6, 23 and 29 unnamed).
pub static INSTR_DESCRIPTOR: Union = Union {
    name: "UMMA::InstrDescriptor",
    fields: &[
        field("sparse_id2_", 0, 2),
        field("sparse_flag_", 2, 1),
        field("saturate_", 3, 1),
        field("c_format_", 4, 2),
        field("a_format_", 7, 3),
        field("b_format_", 10, 3),
        field("a_negate_", 13, 1),
        field("b_negate_", 14, 1),
        field("a_major_", 15, 1),
        field("b_major_", 16, 1),
        field("n_dim_", 17, 6),
        field("m_dim_", 24, 5),
        field("max_shift_", 30, 2),
    ],
    lines: &[
        Line { label: "sparse", parts: &[("id2 ", "sparse_id2_"), ("flag ", "sparse_flag_")] },
        Line { label: "saturate", parts: &[("", "saturate_")] },
        Line { label: "c_format", parts: &[("", "c_format_")] },
        Line { label: "a_format", parts: &[("", "a_format_")] },
        Line { label: "b_format", parts: &[("", "b_format_")] },
        Line { label: "negate", parts: &[("a ", "a_negate_"), ("b ", "b_negate_")] },
        Line { label: "major", parts: &[("a ", "a_major_"), ("b ", "b_major_")] },
        Line { label: "n_dim", parts: &[("", "n_dim_")] },
        Line { label: "m_dim", parts: &[("", "m_dim_")] },
        Line { label: "max_shift", parts: &[("", "max_shift_")] },
    ],
};

/// `UMMA::InstrDescriptorBlockScaled` (mma_sm100_desc.hpp:445-472 of v4.7.0; bits 3 and 6
/// unnamed; `k_size_` named from 4.2, unnamed padding before, and not printed).
pub static INSTR_DESCRIPTOR_BLOCK_SCALED: Union = Union {
    name: "UMMA::InstrDescriptorBlockScaled",
    fields: &[
        field("sparse_id2_", 0, 2),
        field("sparse_flag_", 2, 1),
        field("b_sf_id_", 4, 2),
        field("a_format_", 7, 3),
        field("b_format_", 10, 3),
        field("a_negate_", 13, 1),
        field("b_negate_", 14, 1),
        field("a_major_", 15, 1),
        field("b_major_", 16, 1),
        field("n_dim_", 17, 6),
        field("scale_format_", 23, 1),
        field("m_dim_", 24, 5),
        field("a_sf_id_", 29, 2),
        field("k_size_", 31, 1),
    ],
    lines: &[
        Line { label: "sparse", parts: &[("id2 ", "sparse_id2_"), ("flag ", "sparse_flag_")] },
        Line { label: "sf_id", parts: &[("a ", "a_sf_id_"), ("b ", "b_sf_id_")] },
        Line { label: "a_format", parts: &[("", "a_format_")] },
        Line { label: "b_format", parts: &[("", "b_format_")] },
        Line { label: "negate", parts: &[("a ", "a_negate_"), ("b ", "b_negate_")] },
        Line { label: "major", parts: &[("a ", "a_major_"), ("b ", "b_major_")] },
        Line { label: "n_dim", parts: &[("", "n_dim_")] },
        Line { label: "scale_fmt", parts: &[("", "scale_format_")] },
        Line { label: "m_dim", parts: &[("", "m_dim_")] },
    ],
};

impl Union {
    /// The field named `member`.
    pub fn field(&self, member: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.member == member)
    }
    /// The mask of the bits its fields cover.
    pub fn mask(&self) -> u32 {
        self.fields.iter().fold(0, |m, f| m | (low_bits(f.width) << f.at))
    }
    /// A line's text before its values: `  LABEL      :  ` (the label padded to 11).
    pub fn line_head(line: &Line) -> String {
        format!("  {:<11}:  ", line.label)
    }
}

fn low_bits(width: u32) -> u32 {
    if width >= 32 {
        u32::MAX
    } else {
        (1 << width) - 1
    }
}

/// An atom's `idesc_`: a union and its 32-bit word.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct InstrDesc {
    pub union: &'static Union,
    pub bits: u32,
}

impl fmt::Debug for InstrDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InstrDesc({} {:#010x})", self.union.name, self.bits)
    }
}

impl PartialEq for Union {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for Union {}

impl InstrDesc {
    /// The zero word of `union` (`desc_i = {}`).
    pub fn zero(union: &'static Union) -> InstrDesc {
        InstrDesc { union, bits: 0 }
    }
    /// Whether the union is `InstrDescriptorBlockScaled`.
    pub fn block_scaled(&self) -> bool {
        std::ptr::eq(self.union, &INSTR_DESCRIPTOR_BLOCK_SCALED)
    }
    /// The value of the field `member` (`None`: the union has no such member).
    pub fn get(&self, member: &str) -> Option<u32> {
        self.union.field(member).map(|f| (self.bits >> f.at) & low_bits(f.width))
    }
    /// Assigns `value` to the field `member`, keeping its low `width` bits as a C++ bit field does.
    /// A member the union lacks is this module's error, named.
    fn set(&mut self, member: &str, value: i64) -> Result<()> {
        let f = self
            .union
            .field(member)
            .ok_or_else(|| Error::Type(format!("{} has no member {member}", self.union.name)))?;
        let mask = low_bits(f.width) << f.at;
        // The low 32 bits of the value, then the field's.
        let v = (value as u64 as u32) << f.at;
        self.bits = (self.bits & !mask) | (v & mask);
        Ok(())
    }
    /// Every field's value, in the table's order.
    pub fn fields(&self) -> Vec<(&'static str, u32)> {
        self.union.fields.iter().map(|f| (f.member, (self.bits >> f.at) & low_bits(f.width))).collect()
    }
}

impl fmt::Display for InstrDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: 0x{:08x}", self.union.name, self.bits)?;
        for line in self.union.lines {
            let values: Vec<String> = line
                .parts
                .iter()
                .map(|(prefix, member)| format!("{prefix}{}", self.get(member).unwrap_or(0)))
                .collect();
            write!(f, "\n{}{}", Union::line_head(line), values.join(", "))?;
        }
        Ok(())
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

/// The descriptor of [`InstrArgs`] (definitions 1-3), in the order CuTe assigns the fields (the
/// formats first: their static_asserts are the descriptor's refusals).
pub fn from_args(a: &InstrArgs) -> Result<InstrDesc> {
    let (a_format, b_format) = (umma_format(&a.a)?, umma_format(&a.b)?);
    let mut d = match &a.sf {
        Some(sf) => {
            let mut d = InstrDesc::zero(&INSTR_DESCRIPTOR_BLOCK_SCALED);
            d.set("scale_format_", i64::from(scale_format(sf)?))?;
            d.set("a_sf_id_", 0)?;
            d.set("b_sf_id_", 0)?;
            d
        }
        None => {
            let mut d = InstrDesc::zero(&INSTR_DESCRIPTOR);
            d.set("c_format_", i64::from(c_format(&a.c)?))?;
            d.set("saturate_", i64::from(a.c_sat))?;
            d.set("max_shift_", 0)?;
            d
        }
    };
    d.set("a_format_", i64::from(a_format))?;
    d.set("b_format_", i64::from(b_format))?;
    d.set("m_dim_", a.m >> 4)?;
    d.set("n_dim_", a.n >> 3)?;
    d.set("a_major_", i64::from(a.a_mn_major))?;
    d.set("b_major_", i64::from(a.b_mn_major))?;
    d.set("a_negate_", i64::from(a.a_neg))?;
    d.set("b_negate_", i64::from(a.b_neg))?;
    d.set("sparse_flag_", i64::from(a.sparse))?;
    d.set("sparse_id2_", 0)?;
    Ok(d)
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

/// The format enums of mma_sm100_desc.hpp:128-222 (v4.7.0), each enumerator with the width in
/// bits of the type it names (0: `INVALID`, a type-erased runtime type of any width).
const FORMAT_ENUMS: &[(&str, &[(u32, i64)])] = &[
    ("F16F32Format", &[(0, 16), (1, 16), (2, 32)]),
    ("S8Format", &[(0, 8), (1, 8)]),
    ("MXF8F6F4Format", &[(0, 8), (1, 8), (3, 6), (4, 6), (5, 4), (7, 0)]),
    ("MXF4Format", &[(1, 4)]),
];

/// The width in bits of an operand type of [`InstrArgs`] (the element types and the narrow
/// floating-point types; `None`: another type).
fn operand_bits(t: &str) -> Option<i64> {
    Some(match t {
        "half_t" | "bfloat16_t" => 16,
        "tfloat32_t" => 32,
        "int8_t" | "uint8_t" | "float_e4m3_t" | "float_e5m2_t" | "type_erased_dynamic_float8_t" => 8,
        "float_e2m3_t" | "float_e3m2_t" | "type_erased_dynamic_float6_t" => 6,
        "float_e2m1_t" | "type_erased_dynamic_float4_t" => 4,
        _ => return None,
    })
}

/// Postconditions 1-3.
pub fn check_postconditions(a: &InstrArgs, d: &InstrDesc) -> Checked {
    const WHY: &str = "make_instr_desc (mma_sm100_desc.hpp)";
    let fail = |n: u8, what: String| Err(Violation::ours(WHY, format!("{n}: {what} ({a:?}, {d:?})")));
    // 1. The layout.
    let mut covered = 0u32;
    for f in d.union.fields {
        if f.width == 0 || f.at + f.width > 32 {
            return fail(1, format!("{} lies outside 32 bits", f.member));
        }
        let m = low_bits(f.width) << f.at;
        if covered & m != 0 {
            return fail(1, format!("{} overlaps another field", f.member));
        }
        covered |= m;
    }
    if d.bits & !covered != 0 {
        return fail(1, format!("bits {:#010x} outside the fields", d.bits & !covered));
    }
    let mut again = InstrDesc::zero(d.union);
    for (member, v) in d.fields() {
        if again.set(member, i64::from(v)).is_err() {
            return fail(1, format!("{member} does not name a field"));
        }
    }
    if again != *d {
        return fail(1, format!("the fields do not read back from {:#010x}", d.bits));
    }
    // 2. The traits' arguments.
    let get = |m: &str| d.get(m).unwrap_or(u32::MAX);
    if a.m < 512 && a.m % 16 == 0 && i64::from(get("m_dim_")) * 16 != a.m {
        return fail(2, format!("m_dim {} for M {}", get("m_dim_"), a.m));
    }
    if a.n < 512 && a.n % 8 == 0 && i64::from(get("n_dim_")) * 8 != a.n {
        return fail(2, format!("n_dim {} for N {}", get("n_dim_"), a.n));
    }
    let flags = [
        ("a_major_", a.a_mn_major),
        ("b_major_", a.b_mn_major),
        ("a_negate_", a.a_neg),
        ("b_negate_", a.b_neg),
        ("sparse_flag_", a.sparse),
    ];
    for (m, want) in flags {
        if get(m) != u32::from(want) {
            return fail(2, format!("{m} {} for {want}", get(m)));
        }
    }
    if d.block_scaled() != a.sf.is_some() {
        return fail(2, format!("{} for scale factor {:?}", d.union.name, a.sf));
    }
    let zeros: &[&str] = if d.block_scaled() {
        &["sparse_id2_", "a_sf_id_", "b_sf_id_", "k_size_"]
    } else {
        if get("saturate_") != u32::from(a.c_sat) {
            return fail(2, format!("saturate {} for c_sat {}", get("saturate_"), a.c_sat));
        }
        &["sparse_id2_", "max_shift_"]
    };
    for m in zeros {
        if get(m) != 0 {
            return fail(2, format!("{m} {}", get(m)));
        }
    }
    // 3. The formats.
    for (m, t) in [("a_format_", &a.a), ("b_format_", &a.b)] {
        let code = get(m);
        let width = operand_bits(t);
        let named =
            FORMAT_ENUMS.iter().flat_map(|(_, e)| e.iter()).any(|&(c, w)| c == code && (w == 0 || Some(w) == width));
        if !named {
            return fail(3, format!("{m} {code} names no format of a {width:?}-bit {t}"));
        }
    }
    if !d.block_scaled() {
        let want = match a.c.as_str() {
            "half_t" => 0,
            "float" => 1,
            _ => 2,
        };
        if get("c_format_") != want {
            return fail(3, format!("c_format {} for {}", get("c_format_"), a.c));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::{with_release, Release};

    #[test]
    fn the_f16_descriptor_is_cute_s() {
        // make_instr_desc<half_t, half_t, float, 128, 256, Major::K, Major::MN>() on CuTe 4.2 (g++
        // host build) is 0x08410010.
        let d = make_instr_desc("SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::MN>")
            .unwrap();
        assert!(!d.block_scaled());
        assert_eq!(d.bits, 0x0841_0010);
        assert_eq!(d.get("m_dim_"), Some(8));
        assert_eq!(d.get("n_dim_"), Some(32));
        assert_eq!(d.get("scale_format_"), None);
    }

    #[test]
    fn every_listed_atom_of_every_form_has_its_descriptor() {
        // Every UMMA atom the engine lists (dense, _SCALED, complex _SCALED, interleaved complex,
        // _SS_SPARSE, block-scaled sparse) on 4.7, where each form exists.
        with_release(Release::new(4, 7, 0, 0), || {
            let (mut n, mut sparse, mut scaled, mut interleaved) = (0, 0, 0, 0);
            for atom in crate::atom::umma::umma_atom_names() {
                let name = AtomName::parse(&atom).unwrap();
                let args = instr_args(&name).unwrap().unwrap();
                let d = make_instr_desc(&atom).unwrap_or_else(|e| panic!("{atom}: {e}"));
                assert_eq!(check_postconditions(&args, &d), Ok(()), "{atom}");
                sparse += usize::from(atom.contains("_SPARSE"));
                scaled += usize::from(atom.contains("_SCALED"));
                interleaved += usize::from(atom.contains("_INTERLEAVED"));
                n += 1;
            }
            assert!(
                n >= 100 && sparse >= 20 && scaled >= 20 && interleaved >= 4,
                "{n} {sparse} {scaled} {interleaved}"
            );
        });
    }

    #[test]
    fn the_forms_pass_the_traits_arguments() {
        with_release(Release::new(4, 7, 0, 0), || {
            let d = |s: &str| make_instr_desc(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            // Sparse: the flag, and no saturate (S8's c_sat passes; its negates are One).
            let sp = d("SM100_MMA_F16BF16_SS_SPARSE<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::MN,UMMA::ScaleIn::Neg>");
            assert_eq!((sp.get("sparse_flag_"), sp.get("a_negate_"), sp.get("b_major_")), (Some(1), Some(1), Some(1)));
            let s8 = d("SM100_MMA_S8_2x1SM_SS_SPARSE<int8_t,int8_t,int32_t,256,128,UMMA::Major::K,UMMA::Major::K,UMMA::Saturate::True>");
            assert_eq!((s8.get("sparse_flag_"), s8.get("saturate_"), s8.get("m_dim_")), (Some(1), Some(1), Some(16)));
            // Block-scaled sparse.
            let mx = d("SM100_MMA_MXF4NVF4_SS_SPARSE<float_e2m1_t,float_e2m1_t,float,float_ue4m3_t,128,64,32,UMMA::Major::K,UMMA::Major::K>");
            assert!(mx.block_scaled());
            assert_eq!(
                (mx.get("sparse_flag_"), mx.get("scale_format_"), mx.get("a_format_")),
                (Some(1), Some(0), Some(1))
            );
            // _SCALED: ScaleC is not the descriptor's; the dense form's word.
            let dense =
                d("SM100_MMA_F16BF16_TS<half_t,half_t,float,128,64,UMMA::Major::K,UMMA::Major::MN,UMMA::ScaleIn::Neg>");
            let scaled = d("SM100_MMA_F16BF16_TS_SCALED<half_t,half_t,float,128,64,UMMA::Major::K,UMMA::Major::MN,7,UMMA::ScaleIn::Neg>");
            assert_eq!(dense, scaled);
            // Complex _SCALED: the element type's formats, C float.
            let cx = d("SM100_MMA_F16BF16_SS_SCALED<cutlass::complex<bfloat16_t>,cutlass::complex<bfloat16_t>,float,128,64,UMMA::Major::K,UMMA::Major::K,0>");
            assert_eq!((cx.get("a_format_"), cx.get("b_format_"), cx.get("c_format_")), (Some(1), Some(1), Some(1)));
            // Interleaved complex TF32: tfloat32_t's format, the atom's negates and saturate.
            let il = d("SM100_MMA_TF32_TS_INTERLEAVED_CF32CTF32CTF32CF32_TN<128,64,UMMA::Major::K,UMMA::Major::K,UMMA::ScaleIn::One,UMMA::ScaleIn::Neg,UMMA::Saturate::True>");
            assert_eq!((il.get("a_format_"), il.get("b_negate_"), il.get("saturate_")), (Some(2), Some(1), Some(1)));
        });
    }

    #[test]
    fn refusals_by_release_and_type() {
        let refused = |s: &str| matches!(make_instr_desc(s), Err(Error::Rejected { .. }));
        let sparse = "SM100_MMA_F16BF16_SS_SPARSE<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::K>";
        let il = "SM100_MMA_TF32_TS_INTERLEAVED_CF32CTF32CTF32CF32_TN<128,64,UMMA::Major::K,UMMA::Major::K>";
        let cx = "SM100_MMA_F16BF16_SS_SCALED<cutlass::complex<half_t>,cutlass::complex<half_t>,float,128,64,UMMA::Major::K,UMMA::Major::K,0>";
        // Not declared before their releases; the complex one takes the generic traits before 4.4.
        with_release(Release::new(3, 8, 0, 0), || assert!(refused(sparse)));
        with_release(Release::new(3, 9, 2, 0), || assert!(make_instr_desc(sparse).is_ok()));
        with_release(Release::new(4, 3, 6, 0), || assert!(refused(il) && refused(cx)));
        with_release(Release::new(4, 4, 3, 0), || assert!(make_instr_desc(il).is_ok() && make_instr_desc(cx).is_ok()));
        // The descriptor's own refusals.
        let d = "SM100_MMA_TF32_SS_SPARSE<tfloat32_t,tfloat32_t,double,128,64,UMMA::Major::K,UMMA::Major::K>";
        assert!(make_instr_desc(d).unwrap_err().to_string().contains("Unknown type for CFormat"));
        let sf =
            "SM100_MMA_MXF8F6F4_SS_SPARSE<float_e4m3_t,float_e4m3_t,float,float,128,64,UMMA::Major::K,UMMA::Major::K>";
        assert!(make_instr_desc(sf).unwrap_err().to_string().contains("Unknown type for ScaleFormat"));
        // The interleaved traits' majors.
        let mn = "SM100_MMA_TF32_TS_INTERLEAVED_CF32CTF32CTF32CF32_TN<128,64,UMMA::Major::K,UMMA::Major::MN>";
        with_release(Release::new(4, 7, 0, 0), || assert!(refused(mn)));
    }

    #[test]
    fn a_field_keeps_its_low_bits_and_display_follows_the_table() {
        let mut d = InstrDesc::zero(&INSTR_DESCRIPTOR);
        d.set("m_dim_", 512 >> 4).unwrap();
        assert_eq!(d.bits, 0, "M = 512: m_dim 32 keeps 5 bits");
        d.set("n_dim_", 0x7f).unwrap();
        assert_eq!(d.bits, 0x3f << 17);
        assert!(d.set("scale_format_", 1).is_err());
        let text = d.to_string();
        assert_eq!(text.lines().count(), 1 + INSTR_DESCRIPTOR.lines.len());
        assert!(text.starts_with("UMMA::InstrDescriptor: 0x007e0000\n  sparse     :  id2 0, flag 0\n"), "{text}");
        assert!(text.ends_with("\n  max_shift  :  0"), "{text}");
        // A word with a bit outside the fields violates postcondition 1.
        let args = instr_args(
            &AtomName::parse("SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::K>")
                .unwrap(),
        )
        .unwrap()
        .unwrap();
        let mut good = from_args(&args).unwrap();
        assert_eq!(check_postconditions(&args, &good), Ok(()));
        good.bits |= 1 << 6;
        assert!(check_postconditions(&args, &good).is_err());
        good.bits &= !(1 << 6);
        good.set("sparse_flag_", 1).unwrap();
        assert!(check_postconditions(&args, &good).is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Postconditions 1-3 on random atoms of every form: a listed atom with M and N redrawn
        /// (1 to 511, any), B's major and the negates redrawn, on a release from 3.8 to 4.7; a
        /// refusal is CuTe's kind of error (never a type error from this module), and an answer
        /// satisfies the postconditions.
        #[test]
        fn every_postcondition_holds(
            i in 0usize..10_000,
            m in 1i64..512,
            n in 1i64..512,
            b_mn in proptest::prelude::any::<bool>(),
            negs in 0usize..4,
            release in 0usize..5,
        ) {
            let atoms = crate::atom::umma::umma_atom_names();
            let name = AtomName::parse(&atoms[i % atoms.len()]).unwrap();
            let mut t = name.targs.clone().unwrap_or_default();
            let nt = t.iter().take_while(|a| a.parse::<i64>().is_err()).count();
            t[nt] = m.to_string();
            t[nt + 1] = n.to_string();
            if let Some(b) = t.iter_mut().filter(|a| a.starts_with("UMMA::Major::")).nth(1) {
                *b = format!("UMMA::Major::{}", if b_mn { "MN" } else { "K" });
            }
            let s8_ss = name.base.starts_with("SM100_MMA_S8_") && name.base.contains("_SS");
            if !s8_ss {
                let neg = |on: bool| if on { "UMMA::ScaleIn::Neg" } else { "UMMA::ScaleIn::One" };
                t.push(neg(negs & 1 == 1).to_string());
                t.push(neg(negs & 2 == 2).to_string());
            }
            let atom = format!("{}<{}>", name.base, t.join(","));
            let r = [Release::new(3, 8, 0, 0), Release::new(3, 9, 2, 0), Release::new(4, 2, 0, 0), Release::new(4, 4, 3, 0), Release::new(4, 7, 0, 0)][release];
            with_release(r, || -> std::result::Result<(), proptest::test_runner::TestCaseError> {
                match make_instr_desc(&atom) {
                    Ok(d) => {
                        let args = instr_args(&AtomName::parse(&atom).unwrap()).unwrap().unwrap();
                        proptest::prop_assert_eq!(check_postconditions(&args, &d), Ok(()), "{}", atom);
                        proptest::prop_assert_eq!(d.get("sparse_flag_"), Some(u32::from(atom.contains("_SPARSE"))));
                    }
                    Err(e) => proptest::prop_assert!(matches!(e, Error::Rejected { .. }), "{}: {}", atom, e),
                }
                Ok(())
            })?;
        }
    }
}
