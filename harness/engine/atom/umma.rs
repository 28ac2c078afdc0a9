//! SM100 UMMA atoms (`tcgen05.mma`) as data: the dense families of cute/atom/mma_traits_sm100.hpp
//! (F16/BF16, TF32, S8, F8F6F4, and the block-scaled MXF8F6F4 and MXF4), shared-memory (`_SS`) and
//! tensor-memory A (`_TS`, where the family has it) forms, on one SM and on a pair of SMs
//! (`_2x1SM_`), e.g. `SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::K>`
//! or `SM100_MMA_MXF4_SS<float_e2m1_t,float_e2m1_t,float,float_ue8m0_t,128,64,32,UMMA::Major::K,UMMA::Major::K>`.
//!
//! Definition, from `MMA_Traits<SM100_MMA_F16BF16_SS<a,b,c,M,N,a_major,b_major,a_neg,b_neg>>`
//! and its siblings (CUTLASS 3.8 to 4.7, the same layouts in each):
//! - `K`: 256 bits of A for F16BF16, TF32 and S8 (`256 / sizeof_bits<a>`, "Logical shape-K is
//!   always 256bits"); 32 for F8F6F4 and MXF8F6F4, 64 for MXF4 (fixed, whatever the type's width);
//!   `Shape_MNK = (M,N,K)`;
//! - one SM: `ThrID = _1`, `ALayout = (_1,(M,K)):(_0,(_1,M))`, B likewise over `(N,K)`, C over
//!   `(M,N)`: the one issuing thread holds the whole tile (a shared-memory descriptor, or a TMEM
//!   address);
//! - two SMs: `ThrID = _2`, `ALayout = (_2,(M/2,K)):(M/2,(_1,M))`, B `(_2,(N/2,K)):(N/2,(_1,N))`,
//!   C `(_2,(M/2,N)):(M/2,(_1,M))`: each SM of the pair holds half of M (and of N for B);
//! - value types `(D,A,B,C) = (c,a,b,c)`; the block-scaled families take a scale-factor type `sf`
//!   after `c` (and MXF4 a vector size `VS` after N).
//!
//! Template arguments: `<a,b,c[,sf],M,N[,VS],a_major,b_major` then the defaulted ones: `_SS`
//! `[,a_neg,b_neg]` (S8's `_SS`: `[,c_sat]`), `_TS` `[,a_neg,b_neg[,c_sat]]`.
//!
//! - TMEM: each CTA's accumulator rows (M on one SM, M/2 per SM of a pair) lie along the 128 TMEM
//!   lanes, so every atom `MMA_Atom` accepts holds at most 128 rows per thread of `CLayout` (the
//!   operation's M checks; a property test over every listed atom);
//!
//! Refusals, where CuTe makes them:
//! - the traits (every member, so `mma_layout_a` too): the width of A and B ("`BASE` supports
//!   16bit types", 32 for TF32, 8 for S8, 4 for MXF4; "supports types with leq 8bit types" for
//!   F8F6F4 and MXF8F6F4), named by the variant; F8F6F4's `_SS` forms check M and N (by B's
//!   major) in the traits; MXF4's one-SM `_SS` checks that a vector size of 32 comes with
//!   `float_e2m1_t` A and B and `float_ue8m0_t` scale factors;
//! - before CUTLASS 4.5.1, `SM100_MMA_F8F6F4_SS` and `SM100_MMA_F8F6F4_2x1SM_SS` are not templates
//!   (their traits take the types as extra arguments of `MMA_Traits`), so the name with template
//!   arguments does not compile: g++ goes on with the primary `MMA_Traits` and its static_assert
//!   "MMA_Traits not implemented for this MMA_Operation." ([`SM100_F8F6F4_SS_TEMPLATE`]);
//! - the atom (`MMA_Atom<Op>{}`, `make_tiled_mma`: they instantiate the operation and construct
//!   the traits) [`check_atom`]: the operation's static_asserts in cute/arch/mma_sm100_umma.hpp
//!   (S8's `_SS` result type; M; N by family, form and release, see [`SM100_SS_N_RELAXED`]; MXF4's
//!   vector size; `_TS`: "A from TMEM can't be transposed"), then the instruction descriptor's
//!   formats (mma_sm100_desc.hpp `make_instr_desc`: A and B "Unknown type for UMMAFormat", C
//!   "Unknown type for CFormat"; `make_instr_desc_block_scaled`: A and B, then the scale factor
//!   "Unknown type for ScaleFormat"). The traits print for those, as CuTe's do.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use super::name::AtomName;
use crate::release::{SM100_COMPLEX_SCALED_TRAITS, SM100_F8F6F4_SS_TEMPLATE, SM100_SS_N_RELAXED};
use crate::{Error, IntTuple, Layout, Result};

/// What the traits' static_assert requires of A's and B's widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Width {
    /// Both exactly this many bits ("supports 16bit types").
    Eq(i64),
    /// Both at most 8 bits ("supports types with leq 8bit types").
    Leq8,
}

/// A UMMA family of this module.
#[derive(Debug)]
struct Family {
    /// Its code in the name (`SM100_MMA_<code>_...`).
    code: &'static str,
    width: Width,
    /// K when fixed; `None`: 256 bits of A.
    k: Option<i64>,
    /// A scale-factor type after C (the block-scaled families).
    scaled: bool,
    /// A vector-size argument after N (MXF4).
    vs: bool,
    /// The family has `_TS` forms.
    ts: bool,
    /// A, B, C (and SF) of the listed atoms.
    sample: [&'static str; 4],
    /// The family has `_SS_SPARSE` forms, and K of them (`None`: 512 bits of A).
    sparse: Option<Option<i64>>,
    /// The family has `_SCALED` forms with traits (`_SS` and `_TS`: F16BF16; `_TS`: TF32).
    scaled_c: &'static [&'static str],
    /// The family exists only in its sparse form (MXF4NVF4).
    sparse_only: bool,
}

const FAMILIES: &[Family] = &[
    Family {
        code: "F16BF16",
        width: Width::Eq(16),
        k: None,
        scaled: false,
        vs: false,
        ts: true,
        sample: ["half_t", "half_t", "float", ""],
        sparse: Some(None),
        scaled_c: &["SS", "TS"],
        sparse_only: false,
    },
    Family {
        code: "TF32",
        width: Width::Eq(32),
        k: None,
        scaled: false,
        vs: false,
        ts: true,
        sample: ["tfloat32_t", "tfloat32_t", "float", ""],
        sparse: Some(None),
        scaled_c: &["TS"],
        sparse_only: false,
    },
    Family {
        code: "S8",
        width: Width::Eq(8),
        k: None,
        scaled: false,
        vs: false,
        ts: true,
        sample: ["int8_t", "uint8_t", "int32_t", ""],
        sparse: Some(None),
        scaled_c: &[],
        sparse_only: false,
    },
    Family {
        code: "F8F6F4",
        width: Width::Leq8,
        k: Some(32),
        scaled: false,
        vs: false,
        ts: true,
        sample: ["float_e4m3_t", "float_e5m2_t", "float", ""],
        sparse: Some(Some(64)),
        scaled_c: &[],
        sparse_only: false,
    },
    Family {
        code: "MXF8F6F4",
        width: Width::Leq8,
        k: Some(32),
        scaled: true,
        vs: false,
        ts: false,
        sample: ["float_e4m3_t", "float_e4m3_t", "float", "float_ue8m0_t"],
        sparse: Some(Some(64)),
        scaled_c: &[],
        sparse_only: false,
    },
    Family {
        code: "MXF4",
        width: Width::Eq(4),
        k: Some(64),
        scaled: true,
        vs: true,
        ts: false,
        sample: ["float_e2m1_t", "float_e2m1_t", "float", "float_ue8m0_t"],
        sparse: None,
        scaled_c: &[],
        sparse_only: false,
    },
    Family {
        code: "MXF4NVF4",
        width: Width::Eq(4),
        k: Some(128),
        scaled: true,
        vs: true,
        ts: false,
        sample: ["float_e2m1_t", "float_e2m1_t", "float", "float_ue8m0_t"],
        sparse: Some(Some(128)),
        scaled_c: &[],
        sparse_only: true,
    },
];

/// The form of a UMMA operation beyond its family, SM count and A's source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// `SM100_MMA_<F>_[2x1SM_]{SS,TS}`.
    Dense,
    /// `_SCALED`: a `uint32_t ScaleC` after the majors (the accumulator scaled by 2^-ScaleC).
    Scaled,
    /// `_SS_SPARSE`: 2:4 structured-sparse A, K twice the dense one (metadata in TMEM).
    Sparse,
    /// `SM100_MMA_TF32_[2x1SM_]TS_INTERLEAVED_CF32CTF32CTF32CF32_TN<M,N,a_major,b_major,...>`:
    /// interleaved complex TF32 (A and B `complex<tfloat32_t>`, C `float`).
    Interleaved,
    /// `SM103::SM103_MXF4_ULTRA_[2x1SM_]SS_VS<a,b,c,sf,M,N,VS,a_major,b_major[,a_neg,b_neg]>`
    /// (from 4.2; the MXF4 family's arguments): K 96, K-major A and B only.
    Ultra,
}

/// The SM103 block-scaled MXF4 "ultra" operations' namespace and name head.
const ULTRA: &str = "SM103::SM103_MXF4_ULTRA_";

/// The interleaved complex forms' name tail.
const INTERLEAVED: &str = "_INTERLEAVED_CF32CTF32CTF32CF32_TN";

/// The A/B types `to_UMMAFormat` accepts (mma_sm100_desc.hpp, the same from 3.8 to 4.7; the
/// `detail::` unpacked forms are not spelled here).
const UMMA_FORMATS: &[&str] = &[
    "half_t",
    "bfloat16_t",
    "tfloat32_t",
    "uint8_t",
    "int8_t",
    "type_erased_dynamic_float8_t",
    "type_erased_dynamic_float6_t",
    "type_erased_dynamic_float4_t",
    "float_e4m3_t",
    "float_e5m2_t",
    "float_e2m3_t",
    "float_e3m2_t",
    "float_e2m1_t",
];

/// The accumulator types `to_CFormat` accepts.
const C_TYPES: &[&str] = &["half_t", "float", "int32_t"];

/// The scale-factor types `to_ScaleFormat` accepts.
const SF_TYPES: &[&str] = &["float_ue4m3_t", "float_ue8m0_t"];

/// A value type as C++ may spell it, without its namespace (`cutlass::half_t` is `half_t`, as the
/// CuTe tutorials write it); `int` is `int32_t`.
fn value_type(t: &str) -> String {
    let t = t.strip_prefix("cute::").or_else(|| t.strip_prefix("cutlass::")).unwrap_or(t);
    if t == "int" {
        "int32_t".to_string()
    } else {
        t.to_string()
    }
}

/// `sizeof_bits` of a value type: the narrow floating-point types of the UMMA formats, else
/// [`super::copy::type_bits`].
fn bits(ty: &str) -> Result<i64> {
    let t = value_type(ty);
    if let Some(inner) = t.strip_prefix("complex<").and_then(|r| r.strip_suffix('>')) {
        return Ok(2 * bits(inner)?);
    }
    Ok(match t.as_str() {
        "float_e2m1_t" | "type_erased_dynamic_float4_t" => 4,
        "float_e2m3_t" | "float_e3m2_t" | "type_erased_dynamic_float6_t" => 6,
        "float_ue8m0_t" | "float_ue4m3_t" | "type_erased_dynamic_float8_t" => 8,
        _ => super::copy::type_bits(ty)?,
    })
}

/// The largest M or N the engine models (CuTe's largest valid one is 256; the traits of a larger
/// one print, but no instruction has it).
const MAX_MN: i64 = 512;

/// One parsed UMMA atom name.
#[derive(Clone, Debug)]
pub struct Umma {
    family: &'static Family,
    /// `_2x1SM_`: a pair of SMs.
    pair: bool,
    /// `_TS`: A in tensor memory.
    ts: bool,
    form: Form,
    a: String,
    b: String,
    c: String,
    /// The scale-factor type (block-scaled families).
    sf: Option<String>,
    m: i64,
    n: i64,
    /// The vector size (MXF4).
    vs: Option<i64>,
    a_k_major: bool,
    b_k_major: bool,
    /// The defaulted enumerators as given: `a_neg`, `b_neg` (`UMMA::ScaleIn::Neg`) and `c_sat`
    /// (`UMMA::Saturate::True`).
    a_neg: bool,
    b_neg: bool,
    c_sat: bool,
}

/// Whether `base` names an atom of this module.
pub fn is_umma(base: &str) -> bool {
    parse_base(base).is_some()
}

fn parse_base(base: &str) -> Option<(&'static Family, bool, bool, Form)> {
    if let Some(rest) = base.strip_prefix(ULTRA) {
        let family = FAMILIES.iter().find(|f| f.code == "MXF4")?;
        return match rest {
            "SS_VS" => Some((family, false, false, Form::Ultra)),
            "2x1SM_SS_VS" => Some((family, true, false, Form::Ultra)),
            _ => None,
        };
    }
    let rest = base.strip_prefix("SM100_MMA_")?;
    let family = FAMILIES.iter().find(|f| rest.starts_with(f.code) && rest[f.code.len()..].starts_with('_'))?;
    let rest = &rest[family.code.len() + 1..];
    let (pair, rest) = match rest.strip_prefix("2x1SM_") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let (ts, form) = match rest {
        "SS" => (false, Form::Dense),
        "TS" => (true, Form::Dense),
        "SS_SCALED" => (false, Form::Scaled),
        "TS_SCALED" => (true, Form::Scaled),
        "SS_SPARSE" => (false, Form::Sparse),
        r if r.strip_prefix("TS") == Some(INTERLEAVED) => (true, Form::Interleaved),
        _ => return None,
    };
    let ok = match form {
        Form::Dense => !family.sparse_only && (!ts || family.ts),
        Form::Scaled => family.scaled_c.contains(&if ts { "TS" } else { "SS" }),
        Form::Sparse => family.sparse.is_some(),
        Form::Interleaved => family.code == "TF32",
        Form::Ultra => true,
    };
    ok.then_some((family, pair, ts, form))
}

/// `GROUP::TYPE::VALUE` or `cute::GROUP::TYPE::VALUE` with VALUE in `vals`: the allow-list of
/// enumerator arguments.
fn enum_arg<'a>(arg: &str, ty: &str, vals: &[&'a str]) -> Option<&'a str> {
    let arg = arg.strip_prefix("cute::").unwrap_or(arg);
    let parts: Vec<&str> = arg.split("::").collect();
    match parts.as_slice() {
        ["UMMA", t, v] if *t == ty => vals.iter().find(|x| **x == *v).copied(),
        _ => None,
    }
}

/// A message made at run time, kept for the life of the process (the set of messages is finite:
/// a few per family and form).
fn intern(s: String) -> &'static str {
    static SEEN: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut seen = SEEN.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(x) = seen.get(s.as_str()) {
        return x;
    }
    let x: &'static str = Box::leak(s.into_boxed_str());
    seen.insert(x);
    x
}

impl Umma {
    fn parse(n: &AtomName) -> Result<Option<Umma>> {
        let Some((family, pair, ts, form)) = parse_base(&n.base) else { return Ok(None) };
        let base = &n.base;
        let optional: &[&str] = match (family.code, ts) {
            ("S8", false) => &["Saturate"],
            (_, false) => &["ScaleIn", "ScaleIn"],
            (_, true) => &["ScaleIn", "ScaleIn", "Saturate"],
        };
        // The interleaved complex forms fix their types (no type arguments).
        let nt = match (form, family.scaled) {
            (Form::Interleaved, _) => 0,
            (_, true) => 4,
            (_, false) => 3,
        };
        let types = ["", "", "", "A,B,C,", "A,B,C,SF,"][nt];
        let vs = if family.vs { ",VS" } else { "" };
        let scale_c = if form == Form::Scaled { ",ScaleC" } else { "" };
        let tail: String =
            optional.iter().map(|o| format!("[,UMMA::{o}")).collect::<String>() + &"]".repeat(optional.len());
        let shape = format!("<{types}M,N{vs},UMMA::Major,UMMA::Major{scale_c}{tail}>");
        let bad = |why: &str| Error::Type(format!("{base} takes {shape}: {why} in {}", n.canonical()));
        let t = n.targs.as_deref().ok_or_else(|| bad("no template arguments"))?;
        let fixed = nt + 4 + usize::from(family.vs) + usize::from(form == Form::Scaled);
        if t.len() < fixed || t.len() > fixed + optional.len() {
            return Err(bad("wrong number of template arguments"));
        }
        for ty in &t[..nt] {
            bits(ty).map_err(|_| bad(&format!("unknown value type '{ty}'")))?;
        }
        let int = |s: &str, what: &str, lo: i64, max: i64| -> Result<i64> {
            match s.parse::<i64>() {
                Ok(v) if (lo..=max).contains(&v) => Ok(v),
                _ => Err(bad(&format!("{what} must be an integer from {lo} to {max}, got '{s}'"))),
            }
        };
        let m = int(&t[nt], "M", 1, MAX_MN)?;
        let nn = int(&t[nt + 1], "N", 1, MAX_MN)?;
        let vs = if family.vs { Some(int(&t[nt + 2], "VS", 1, 256)?) } else { None };
        let majors = nt + 2 + usize::from(family.vs);
        let major =
            |s: &str| enum_arg(s, "Major", &["K", "MN"]).ok_or_else(|| bad(&format!("'{s}' is not a UMMA::Major")));
        let a_major = major(&t[majors])?;
        let b_major = major(&t[majors + 1])?;
        if form == Form::Scaled {
            int(&t[majors + 2], "ScaleC", 0, 31)?;
        }
        let (mut negs, mut c_sat) = (Vec::new(), false);
        for (s, ty) in t[fixed..].iter().zip(optional) {
            let vals: &[&str] = if *ty == "ScaleIn" { &["One", "Neg"] } else { &["False", "True"] };
            let v = enum_arg(s, ty, vals).ok_or_else(|| bad(&format!("'{s}' is not a UMMA::{ty}")))?;
            if *ty == "ScaleIn" {
                negs.push(v == "Neg");
            } else {
                c_sat = v == "True";
            }
        }
        let ty = |i: usize, fixed: &str| if nt == 0 { fixed.to_string() } else { value_type(&t[i]) };
        Ok(Some(Umma {
            family,
            pair,
            ts,
            form,
            a: ty(0, "complex<tfloat32_t>"),
            b: ty(1, "complex<tfloat32_t>"),
            c: ty(2, "float"),
            sf: family.scaled.then(|| value_type(&t[3])),
            m,
            n: nn,
            vs,
            a_k_major: a_major == "K",
            b_k_major: b_major == "K",
            a_neg: negs.first().copied().unwrap_or(false),
            b_neg: negs.get(1).copied().unwrap_or(false),
            c_sat,
        }))
    }

    /// `ValTypeA`: the sparse forms' `sparse_elem<2, a>` (MXF4NVF4: `sparse_elem<4, uint8_t>`).
    fn val_type_a(&self) -> String {
        match (self.form, self.family.code) {
            (Form::Sparse, "MXF4NVF4") => "sparse_elem<4,uint8_t>".to_string(),
            (Form::Sparse, _) => format!("sparse_elem<2,{}>", self.a),
            _ => self.a.clone(),
        }
    }

    /// K of the traits (`Shape_MNK`'s third mode).
    fn k(&self) -> Result<i64> {
        Ok(match (self.form, self.family.k, self.family.sparse) {
            // "Logical shape-K is always 256bits" says the comment; the constant is 96.
            (Form::Ultra, _, _) => 96,
            // "SparseMma consume double mma-k bits": 512 bits of A, or fixed (F8F6F4, MXF8F6F4: 64;
            // MXF4NVF4: 128).
            (Form::Sparse, _, Some(Some(k))) => k,
            (Form::Sparse, _, _) => 512 / bits(&self.a)?,
            (Form::Dense, Some(k), _) => k,
            // "Logical shape-K is always 256bits" (complex types count both halves).
            _ => 256 / bits(&self.a)?,
        })
    }

    /// The traits' `static_assert`s, in the order of the traits' body.
    fn check_traits(&self, n: &AtomName) -> Result<()> {
        let base = &n.base;
        let rejected =
            |condition: String, detail: String| Err(Error::Rejected { condition: intern(condition), detail });
        let f16_ss = self.family.code == "F8F6F4" && !self.ts && self.form == Form::Dense;
        if f16_ss && !SM100_F8F6F4_SS_TEMPLATE.on() {
            // g++ says "'X' is not a template" and goes on with the primary MMA_Traits, whose
            // static_assert is what the oracle reports.
            return Err(Error::Rejected {
                condition: "MMA_Traits not implemented for this MMA_Operation.",
                detail: format!(
                    "'{base}' is not a template before CUTLASS {} (a plain struct; MMA_Traits<{base}, a, b, c, M, N, ...> takes the types): {}",
                    SM100_F8F6F4_SS_TEMPLATE.since,
                    n.canonical()
                ),
            });
        }
        if self.form == Form::Ultra {
            // The SM103 traits check the majors only (no width, no vector size: the operation's).
            if !(self.a_k_major && self.b_k_major) {
                return rejected("This MMA does not support transpose".to_string(), n.canonical());
            }
            return Ok(());
        }
        let (a, b) = (bits(&self.a)?, bits(&self.b)?);
        let detail = || format!("A {} ({a} bits), B {} ({b} bits)", self.a, self.b);
        if self.form == Form::Interleaved {
            // The interleaved complex traits fix the types and check the majors.
            let name = base.as_str();
            if !self.a_k_major {
                return rejected(format!("{name} A from TMEM can't be transposed"), n.canonical());
            }
            if !self.b_k_major {
                return rejected(format!("{name} B from SMEM requires non-transpose"), n.canonical());
            }
            return Ok(());
        }
        if let Some(x) = self.complex_scaled() {
            // The partial specialization for interleaved complex (emulated): A and B
            // `cutlass::complex<T>` of one T, C `float`; no width check of its own.
            if bits(&x)? != 16 {
                return rejected("Only supports 16bit base types".to_string(), detail());
            }
            return Ok(());
        }
        // Complex A or B in the generic traits (no complex specialization applies): the descriptor's
        // static_assert fails too, and `MMA_Atom` reports it first (recorded:
        // atoms_sm100_sparse.cases:66-67 on 4.2.0.0); the refusal names both.
        let complex = self.a.starts_with("complex<") || self.b.starts_with("complex<");
        let detail = || {
            if complex {
                format!("{} (and the instruction descriptor's: Unknown type for UMMAFormat)", detail())
            } else {
                detail()
            }
        };
        match self.family.width {
            Width::Eq(w) if a != b || b != w => return rejected(format!("{base} supports {w}bit types"), detail()),
            Width::Leq8 if a > 8 || b > 8 => {
                return rejected(format!("{base} supports types with leq 8bit types"), detail())
            }
            _ => {}
        }
        let (m, nn) = (self.m, self.n);
        let mn = || format!("{} (M {m}, N {nn})", n.canonical());
        if f16_ss {
            let (m_ok, n_ok, m_text, n_text) = if self.pair {
                let n_ok = if self.b_k_major {
                    nn % 16 == 0 && (16..=256).contains(&nn)
                } else {
                    nn % 32 == 0 && (32..=256).contains(&nn)
                };
                (m == 128 || m == 256, n_ok, "64 or 128 for 1 CTA cluster MMA.", ("16", "32"))
            } else {
                let n_ok = if self.b_k_major {
                    nn % 8 == 0 && (8..=256).contains(&nn)
                } else {
                    nn % 16 == 0 && (16..=256).contains(&nn)
                };
                (m == 64 || m == 128, n_ok, "64 or 128 for 1 CTA cluster MMA.", ("8", "16"))
            };
            if !m_ok {
                return rejected(format!("{base} M-mode size should be {m_text}"), mn());
            }
            if !n_ok {
                let (k, mn_step) = n_text;
                return rejected(
                    format!(
                        "{base} N-mode size should be a multiple of {k} between {k} and 256 when B is K major.                  {base} N-mode size should be a multiple of {mn_step} between {mn_step} and 256 when B is MN major."
                    ),
                    mn(),
                );
            }
        }
        let e2m1 = |t: &str| t == "float_e2m1_t" || t == "type_erased_dynamic_float4_t";
        if self.family.code == "MXF4NVF4" {
            let two_x =
                self.vs == Some(64) && e2m1(&self.a) && e2m1(&self.b) && self.sf.as_deref() == Some("float_ue8m0_t");
            if !(two_x || self.vs == Some(32)) {
                return rejected(
                    "2x mode (VectorSize=64) only supports a_type and b_type=float_e2m1_t or cutlass::type_erased_dynamic_float4_t and sf_type=ue8m0_t".to_string(),
                    format!("{} (VS {}, A {}, B {}, SF {})", n.canonical(), self.vs.unwrap_or(0), self.a, self.b, self.sf.as_deref().unwrap_or("")),
                );
            }
        }
        if self.family.code == "MXF4" && !self.pair {
            let two_x =
                self.vs == Some(32) && e2m1(&self.a) && e2m1(&self.b) && self.sf.as_deref() == Some("float_ue8m0_t");
            if !(two_x || self.vs == Some(16)) {
                return rejected(
                    "2x mode (VectorSize=32) only supports a_type and b_type=float_e2m1_t or cutlass::type_erased_dynamic_float4_t and sf_type=ue8m0_t".to_string(),
                    format!("{} (VS {}, A {}, B {}, SF {})", n.canonical(), self.vs.unwrap_or(0), self.a, self.b, self.sf.as_deref().unwrap_or("")),
                );
            }
        }
        Ok(())
    }

    /// The operation's static_asserts (cute/arch/mma_sm100_umma.hpp), in order: the first that
    /// fails, as its message.
    fn operation_refusal(&self, base: &str) -> Option<String> {
        if self.form != Form::Dense {
            return self.form_refusal(base);
        }
        let (m, nn) = (self.m, self.n);
        let code = self.family.code;
        let mult = |step: i64| nn % step == 0 && (step..=256).contains(&nn);
        let mult_text =
            |step: i64| format!("{base} N-mode size should be a multiple of {step} between {step} and 256.");
        let transposed = || {
            (self.ts && !self.a_k_major)
                .then(|| format!("{} A from TMEM can't be transposed", ts_name(base, code, self.pair)))
        };
        let by_m_text = |name: &str| {
            format!("{name} N-mode size should be a multiple of 8 between 8 and 256 for M=64,                 or a multiple of 16 between 16 and 256 for M=128.")
        };
        let by_m = (m == 64 && mult(8)) || (m == 128 && mult(16));
        match code {
            "F16BF16" | "TF32" => {
                let short = format!("SM100_MMA_{code}");
                if self.pair {
                    if m != 128 && m != 256 {
                        return Some(format!("{base} M-mode size should be 128 or 256 for 2 CTA cluster MMA."));
                    }
                    // 2x1SM_SS: N a multiple of 16 from 16 (from 4.2; of 32 from 32 before); 2x1SM_TS: of 32.
                    let step = if !self.ts && SM100_SS_N_RELAXED.on() { 16 } else { 32 };
                    if !mult(step) {
                        return Some(mult_text(step));
                    }
                } else {
                    if m != 64 && m != 128 {
                        return Some(format!("{short} M-mode size should be 64 or 128 for 1 CTA cluster MMA."));
                    }
                    // SS: a multiple of 8 for either M (from 4.2; before, as TS); TS: by M.
                    let relaxed = !self.ts && SM100_SS_N_RELAXED.on();
                    if relaxed && !mult(8) {
                        return Some(format!("{short} N-mode size should be a multiple of 8 between 8 and 256."));
                    }
                    if !relaxed && !by_m {
                        return Some(by_m_text(&short));
                    }
                }
                transposed()
            }
            "S8" => {
                if !self.pair && !self.ts && self.c != "int32_t" {
                    return Some(format!("{base} result type can only be int32_t."));
                }
                if self.pair {
                    if m != 128 && m != 256 {
                        return Some(format!("{base} M-mode size should be 128 or 256 for 2 CTA cluster MMA."));
                    }
                    if !mult(32) {
                        return Some(mult_text(32));
                    }
                } else {
                    if m != 64 && m != 128 {
                        return Some(format!("{base} M-mode size should be 64 or 128 for 1 CTA cluster MMA."));
                    }
                    if nn != 8 && !mult(16) {
                        return Some(format!("{base} N-mode size should be 8 or a multiple of 16 between 16 and 256."));
                    }
                }
                transposed()
            }
            "F8F6F4" => {
                // The `_SS` forms check M and N in their traits.
                if !self.ts {
                    return None;
                }
                if self.pair {
                    if m != 128 && m != 256 {
                        return Some(format!("{base} M-mode size should be 64 or 128 for 1 CTA cluster MMA."));
                    }
                    if !mult(32) {
                        return Some(mult_text(32));
                    }
                } else {
                    if m != 64 && m != 128 {
                        return Some(format!("{base} M-mode size should be 64 or 128 for 1 CTA cluster MMA."));
                    }
                    if !by_m {
                        return Some(by_m_text(base));
                    }
                }
                transposed()
            }
            "MXF8F6F4" => {
                if self.pair {
                    if m != 256 {
                        return Some(format!("{base} M-mode size should be 128 or 256 for 2 CTA cluster MMA."));
                    }
                    (!mult(16)).then(|| mult_text(16))
                } else {
                    if m != 128 {
                        return Some(format!("{base} M-mode size should be 64 or 128 for 1 CTA cluster MMA."));
                    }
                    (!mult(8)).then(|| mult_text(8))
                }
            }
            _ => {
                // MXF4.
                if self.pair {
                    if m != 128 && m != 256 {
                        return Some(format!("{base} M-mode size should be 128 or 256 for 2 CTA cluster MMA."));
                    }
                    if !mult(16) {
                        return Some(mult_text(16));
                    }
                } else {
                    if m != 128 {
                        return Some(format!("{base} M-mode size should be 128 for 1 CTA cluster MMA."));
                    }
                    if !mult(8) {
                        return Some(mult_text(8));
                    }
                }
                (!matches!(self.vs, Some(16 | 32))).then(|| format!("{base} Vector size can only be 16 or 32."))
            }
        }
    }
}

impl Umma {
    /// [`Umma::operation_refusal`] of the `_SCALED`, `_SPARSE` and interleaved complex operations
    /// (cute/arch/mma_sm100_umma.hpp, 4.7): M, then N, then the majors, then the vector size.
    fn form_refusal(&self, base: &str) -> Option<String> {
        let (m, nn) = (self.m, self.n);
        let code = self.family.code;
        let mult = |step: i64| nn % step == 0 && (step..=256).contains(&nn);
        if self.form == Form::Ultra {
            // mma_sm100_umma.hpp (v4.7.0:1906-1911, 1975-1980; the same from 4.2): M, N, then the
            // vector size (32 only with float_e2m1_t A and float_ue8m0_t scale factors; B unchecked).
            // Their messages name no operation.
            if self.pair && m != 128 && m != 256 {
                return Some("MMA M-mode size should be 128 or 256 for 2 CTA cluster MMA.".to_string());
            }
            if !self.pair && m != 128 {
                return Some("MMA M-mode size should be 128 for 1 CTA cluster MMA.".to_string());
            }
            if !mult(16) {
                return Some("MMA N-mode size should be a multiple of 16 between 16 and 256.".to_string());
            }
            let two_x = self.vs == Some(32) && self.a == "float_e2m1_t" && self.sf.as_deref() == Some("float_ue8m0_t");
            if !(two_x || self.vs == Some(16)) {
                return Some("Vector size can only be 4x mode (VS=16) or 2x mode (VS=32) for MMA. 2x mode only supports float_e2m1_t for a/b types and ue8m0_t for sf type".to_string());
            }
            return None;
        }
        // SM100_MMA_S8_2x1SM_SS_SPARSE names the family only.
        let name = if code == "S8" && self.pair { "SM100_MMA_S8" } else { base };
        let m_text = |ms: &str, ctas: u8| format!("{name} M-mode size should be {ms} for {ctas} CTA cluster MMA.");
        let mult_text =
            |step: i64| format!("{name} N-mode size should be a multiple of {step} between {step} and 256.");
        if code == "S8" && !self.pair && self.c != "int32_t" {
            return Some(format!("{base} result type can only be int32_t."));
        }
        let (ms, ms_text): (&[i64], &str) = match (code, self.pair) {
            ("MXF8F6F4" | "MXF4NVF4", false) => (&[128], "128"),
            ("MXF8F6F4", true) => (&[256], "256"),
            // The pair's sparse MXF4NVF4 operation checks no M.
            ("MXF4NVF4", true) => (&[], ""),
            (_, false) => (&[64, 128], "64 or 128"),
            (_, true) => (&[128, 256], "128 or 256"),
        };
        if !ms.is_empty() && !ms.contains(&m) {
            return Some(m_text(ms_text, if self.pair { 2 } else { 1 }));
        }
        // N: by M (one SM, A in TMEM, and F8F6F4's sparse form), 8 or a multiple of 16 (S8), else a
        // multiple of a step.
        // F16BF16 and TF32 `_SS` forms (SCALED, SPARSE) relax N from 4.2 as the dense ones do
        // ([`SM100_SS_N_RELAXED`]); before, as their `_TS` forms.
        let old_ss = !self.ts && matches!(code, "F16BF16" | "TF32") && !SM100_SS_N_RELAXED.on();
        let by_m = !self.pair && (self.ts || code == "F8F6F4" || old_ss);
        if by_m {
            if !((m == 64 && mult(8)) || (m == 128 && mult(16))) {
                return Some(format!("{name} N-mode size should be a multiple of 8 between 8 and 256 for M=64,                 or a multiple of 16 between 16 and 256 for M=128."));
            }
        } else if code == "S8" && !self.pair {
            if nn != 8 && !mult(16) {
                return Some(format!("{name} N-mode size should be 8 or a multiple of 16 between 16 and 256."));
            }
        } else {
            let step = match (self.pair, self.ts || code == "S8" || code == "F8F6F4" || old_ss) {
                (false, _) => 8,
                (true, false) => 16,
                (true, true) => 32,
            };
            if !mult(step) {
                return Some(mult_text(step));
            }
        }
        if self.ts && !self.a_k_major {
            return Some(format!("{base} A from TMEM can't be transposed"));
        }
        if self.form == Form::Interleaved && !self.b_k_major {
            return Some(format!("{base} B from SMEM requires non-transpose"));
        }
        if code == "MXF4NVF4" && self.pair && !matches!(self.vs, Some(32 | 64)) {
            return Some(format!("{base} Vector size can only be 32 or 64."));
        }
        None
    }
}

/// The name the "A from TMEM can't be transposed" message gives a `_TS` operation: the one-SM
/// F16BF16 and TF32 ones say the family (`SM100_MMA_F16BF16`), every other the operation.
fn ts_name(base: &str, code: &str, pair: bool) -> String {
    if !pair && (code == "F16BF16" || code == "TF32") {
        format!("SM100_MMA_{code}")
    } else {
        base.to_string()
    }
}

fn st(v: i64) -> IntTuple {
    IntTuple::st(v)
}

fn tup<const N: usize>(items: [IntTuple; N]) -> IntTuple {
    IntTuple::tuple(items)
}

/// `(_T,(R,K)):(R,(_1,ld))` with `T` threads (1: stride `_0`), `R` rows per thread and leading
/// dimension `ld`.
fn operand(threads: i64, rows: i64, cols: i64, ld: i64) -> Layout {
    let thread_stride = if threads == 1 { 0 } else { rows };
    Layout {
        shape: tup([st(threads), tup([st(rows), st(cols)])]),
        stride: tup([st(thread_stride), tup([st(1), st(ld)])]),
    }
}

/// A UMMA atom's `MMA_Traits` members (atom/mma.rs makes its `MmaAtom` of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UmmaTraits {
    pub shape_mnk: IntTuple,
    pub thr_id: Layout,
    pub a: Layout,
    pub b: Layout,
    pub c: Layout,
    /// `ValTypeD`, `ValTypeA`, `ValTypeB`, `ValTypeC`.
    pub val_types: [String; 4],
    /// `ELayout`, `SFALayout`, `SFBLayout` where the traits declare them (the SM120 sparse and
    /// block-scaled atoms; the SM100 ones keep metadata and scale factors in tensor memory and
    /// declare none).
    pub extra: Extra,
}

/// The metadata (`ELayout`) and scale-factor (`SFALayout`, `SFBLayout`) layouts of an MMA atom's
/// traits, each `None` where the traits declare no such member.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extra {
    pub e: Option<Layout>,
    pub sfa: Option<Layout>,
    pub sfb: Option<Layout>,
}

/// The traits of a UMMA atom, or `None` when `n` names none of this module's families.
pub fn umma_traits(n: &AtomName) -> Result<Option<UmmaTraits>> {
    let Some(u) = Umma::parse(n)? else { return Ok(None) };
    u.check_traits(n)?;
    let k = u.k()?;
    let (m, nn) = (u.m, u.n);
    let (t, mh, nh) = if u.pair { (2, m / 2, nn / 2) } else { (1, m, nn) };
    Ok(Some(UmmaTraits {
        shape_mnk: tup([st(m), st(nn), st(k)]),
        thr_id: Layout { shape: st(t), stride: st(if t == 1 { 0 } else { 1 }) },
        a: operand(t, mh, k, m),
        b: operand(t, nh, k, nn),
        c: operand(t, mh, nn, m),
        val_types: [u.c.clone(), u.val_type_a(), u.b.clone(), u.c.clone()],
        extra: Extra::default(),
    }))
}

/// The template arguments an atom's traits give `UMMA::make_instr_desc` (or
/// `make_instr_desc_block_scaled`) for their `idesc_` member (cute/atom/mma_traits_sm100.hpp; the
/// same in every release that declares the form, 3.8 to 4.7):
/// - dense `_SS`/`_TS`: `<a, b, c[, sf], M, N, a_major, b_major, a_neg, b_neg[, c_sat]>` with the
///   atom's own M and N (a pair of SMs' full M);
/// - `_SCALED` (v4.7.0 :447, :619, :702, :1386, :1555, :1638): the dense form's arguments; `ScaleC`
///   is no argument of the descriptor (the operation passes it to `tcgen05.mma` itself);
/// - the interleaved complex specialization of `_SCALED` (from 4.4; :535, :789, :1473, :1725):
///   `<ab_vtype, ab_vtype, float, ...>`, the complex operands' element type;
/// - `_TS_INTERLEAVED_CF32CTF32CTF32CF32_TN` (from 4.4; :1059, :1995): `<tfloat32_t, tfloat32_t,
///   float, M, N, a_major, b_major, a_neg, b_neg, c_sat>`;
/// - `_SS_SPARSE` (from 3.9; :877, :965, :1813, :1901, :2829, :3053): `<..., a_neg, b_neg,
///   Saturate::False, true>` (`is_sparse`); block-scaled sparse (:2672, :3246, :3439, :3634):
///   `make_instr_desc_block_scaled<..., a_neg, b_neg, true>`.
///
/// S8's traits pass `ScaleIn::One` for both negates (dense and sparse; :2195, :2412), but
/// `SM100_MMA_S8_2x1SM_TS`'s, which pass the atom's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstrArgs {
    pub a: String,
    pub b: String,
    pub c: String,
    /// The scale-factor type: `make_instr_desc_block_scaled`.
    pub sf: Option<String>,
    pub m: i64,
    pub n: i64,
    pub a_mn_major: bool,
    pub b_mn_major: bool,
    pub a_neg: bool,
    pub b_neg: bool,
    pub c_sat: bool,
    /// `is_sparse` (the `_SS_SPARSE` forms).
    pub sparse: bool,
}

impl Umma {
    /// The element type of the interleaved complex `_SCALED` specialization's operands, where it
    /// applies (from 4.4: A and B `cutlass::complex<T>` of one T, C `float`); `None` where the
    /// generic traits take the atom.
    fn complex_scaled(&self) -> Option<String> {
        if self.form != Form::Scaled || self.c != "float" || !SM100_COMPLEX_SCALED_TRAITS.on() {
            return None;
        }
        let complex = |t: &str| t.strip_prefix("complex<").and_then(|r| r.strip_suffix('>')).map(str::to_string);
        match (complex(&self.a), complex(&self.b)) {
            (Some(x), Some(y)) if x == y => Some(x),
            _ => None,
        }
    }
}

/// [`InstrArgs`] of a UMMA atom, whichever its form (`Ok(None)`: no UMMA family).
pub fn instr_args(n: &AtomName) -> Result<Option<InstrArgs>> {
    let Some(u) = Umma::parse(n)? else { return Ok(None) };
    // S8's traits pass ScaleIn::One for both negates, but for the two-SM TS form's, which pass the
    // atom's (3.8 and 4.7 alike; the sparse forms are SS).
    let s8 = u.family.code == "S8" && !(u.pair && u.ts);
    let (a, b, c) = match (u.form, u.complex_scaled()) {
        (Form::Interleaved, _) => ("tfloat32_t".to_string(), "tfloat32_t".to_string(), "float".to_string()),
        (_, Some(t)) => (t.clone(), t, "float".to_string()),
        _ => (u.a.clone(), u.b.clone(), u.c.clone()),
    };
    // The non-S8 sparse traits pass Saturate::False (their operations take no c_sat: u.c_sat is
    // false); S8's pass the atom's.
    let sparse = u.form == Form::Sparse;
    Ok(Some(InstrArgs {
        a,
        b,
        c,
        sf: u.sf.clone(),
        m: u.m,
        n: u.n,
        a_mn_major: !u.a_k_major,
        b_mn_major: !u.b_k_major,
        a_neg: u.a_neg && !s8,
        b_neg: u.b_neg && !s8,
        c_sat: u.c_sat && (!sparse || u.family.code == "S8"),
        sparse,
    }))
}

/// The refusals of the atom (`MMA_Atom<Op>{}`), beyond its traits': the operation's static_asserts,
/// then the instruction descriptor's formats. `Ok` for a name of no UMMA family.
pub fn check_atom(n: &AtomName) -> Result<()> {
    let Some(u) = Umma::parse(n)? else { return Ok(()) };
    u.check_traits(n)?;
    let rejected = |condition: String| {
        Err(Error::Rejected {
            condition: intern(condition),
            detail: format!("{} (M {}, N {})", n.canonical(), u.m, u.n),
        })
    };
    if let Some(why) = u.operation_refusal(&n.base) {
        return rejected(why);
    }
    for ty in [&u.a, &u.b] {
        // The interleaved complex forms describe their element type.
        let ty = ty.strip_prefix("complex<").and_then(|r| r.strip_suffix('>')).unwrap_or(ty);
        if !UMMA_FORMATS.contains(&ty) {
            return rejected("Unknown type for UMMAFormat".to_string());
        }
    }
    match &u.sf {
        // make_instr_desc_block_scaled: no accumulator format, the scale factor's.
        Some(sf) if !SF_TYPES.contains(&sf.as_str()) => rejected("Unknown type for ScaleFormat".to_string()),
        None if !C_TYPES.contains(&u.c.as_str()) => rejected("Unknown type for CFormat".to_string()),
        _ => Ok(()),
    }
}

/// Every UMMA atom name the engine lists (the random mix and `atom-releases` read them): each
/// family and form over the M CuTe accepts, N from a small valid set, both majors of B and, for
/// `_SS`, of A (MXF4: K-major A and B, vector sizes 16 and 32).
pub fn umma_atom_names() -> Vec<String> {
    let mut out = Vec::new();
    for f in FAMILIES.iter().filter(|f| !f.sparse_only) {
        let [a, b, c, sf] = f.sample;
        let types = if f.scaled { format!("{a},{b},{c},{sf}") } else { format!("{a},{b},{c}") };
        let one_m: &[i64] = if f.scaled { &[128] } else { &[64, 128] };
        let two_m: &[i64] = if f.code == "MXF8F6F4" { &[256] } else { &[128, 256] };
        for (pair, ms) in [(false, one_m), (true, two_m)] {
            for ts in [false, true] {
                if ts && !f.ts {
                    continue;
                }
                let base = format!(
                    "SM100_MMA_{}_{}{}",
                    f.code,
                    if pair { "2x1SM_" } else { "" },
                    if ts { "TS" } else { "SS" }
                );
                for &m in ms {
                    for n in [64, 256] {
                        for vs in if f.vs { &[",16", ",32"][..] } else { &[""][..] } {
                            let a_majors = if ts || f.vs { &["K"][..] } else { &["K", "MN"][..] };
                            let b_majors = if f.vs { &["K"][..] } else { &["K", "MN"][..] };
                            for am in a_majors {
                                for bm in b_majors {
                                    out.push(format!(
                                        "{base}<{types},{m},{n}{vs},UMMA::Major::{am},UMMA::Major::{bm}>"
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out.extend(umma_form_names());
    out
}

/// The `_SCALED`, `_SS_SPARSE` and interleaved complex atoms the engine lists: each operation on
/// one SM and on a pair, with the M CuTe accepts, N 64 and 256, K-major A with both majors of B
/// (A in TMEM: K-major B too for the interleaved forms); sparse MXF4NVF4 with VS 32 and 64;
/// F16BF16's SCALED also with `cutlass::complex<half_t>` (the emulated interleaved complex).
fn umma_form_names() -> Vec<String> {
    let mut out = Vec::new();
    for f in FAMILIES {
        let [a, b, c, sf] = f.sample;
        let types = if f.scaled { format!("{a},{b},{c},{sf}") } else { format!("{a},{b},{c}") };
        for pair in [false, true] {
            let p = if pair { "2x1SM_" } else { "" };
            let ms: &[i64] = match (f.code, pair) {
                ("MXF8F6F4" | "MXF4NVF4", false) => &[128],
                ("MXF8F6F4", true) => &[256],
                (_, false) => &[64, 128],
                (_, true) => &[128, 256],
            };
            for &m in ms {
                for n in [64, 256] {
                    if f.sparse.is_some() {
                        let vss: &[&str] = if f.vs { &[",32", ",64"] } else { &[""] };
                        for vs in vss {
                            for bm in ["K", "MN"] {
                                out.push(format!(
                                    "SM100_MMA_{}_{p}SS_SPARSE<{types},{m},{n}{vs},UMMA::Major::K,UMMA::Major::{bm}>",
                                    f.code
                                ));
                            }
                        }
                    }
                    for src in f.scaled_c {
                        for bm in ["K", "MN"] {
                            out.push(format!(
                                "SM100_MMA_{}_{p}{src}_SCALED<{types},{m},{n},UMMA::Major::K,UMMA::Major::{bm},3>",
                                f.code
                            ));
                        }
                        if f.code == "F16BF16" {
                            out.push(format!(
                                "SM100_MMA_F16BF16_{p}{src}_SCALED<cutlass::complex<half_t>,cutlass::complex<half_t>,float,{m},{n},UMMA::Major::K,UMMA::Major::K,0>"
                            ));
                        }
                    }
                    if f.code == "TF32" {
                        out.push(format!("SM100_MMA_TF32_{p}TS{INTERLEAVED}<{m},{n},UMMA::Major::K,UMMA::Major::K>"));
                    }
                    if f.code == "MXF4" {
                        // The SM103 ultra forms: M 128 on one SM, 128 and 256 on a pair.
                        let sf16 = format!("{a},{b},{c},float_ue4m3_t");
                        for (vs, types) in [(16, &sf16), (32, &types)] {
                            if !pair && m != 128 {
                                continue;
                            }
                            out.push(format!("{ULTRA}{p}SS_VS<{types},{m},{n},{vs},UMMA::Major::K,UMMA::Major::K>"));
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::{with_release, Release};

    fn atom(s: &str) -> Result<UmmaTraits> {
        umma_traits(&AtomName::parse(s)?)?.ok_or_else(|| Error::Type("not UMMA".into()))
    }
    fn check(s: &str) -> Result<()> {
        check_atom(&AtomName::parse(s).unwrap())
    }
    fn refusal(r: Result<impl std::fmt::Debug>) -> String {
        match r {
            Err(Error::Rejected { condition, .. }) => condition.to_string(),
            other => panic!("not a refusal: {other:?}"),
        }
    }

    #[test]
    fn one_sm_and_two_sm_traits() {
        let a = atom("SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::K>").unwrap();
        assert_eq!(a.shape_mnk.to_string(), "(_128,_256,_16)");
        assert_eq!(a.thr_id.to_string(), "_1:_0");
        assert_eq!(a.a.to_string(), "(_1,(_128,_16)):(_0,(_1,_128))");
        assert_eq!(a.b.to_string(), "(_1,(_256,_16)):(_0,(_1,_256))");
        assert_eq!(a.c.to_string(), "(_1,(_128,_256)):(_0,(_1,_128))");
        let p = atom("SM100_MMA_F16BF16_2x1SM_TS<half_t,half_t,float,256,64,UMMA::Major::K,UMMA::Major::MN>").unwrap();
        assert_eq!(p.thr_id.to_string(), "_2:_1");
        assert_eq!(p.a.to_string(), "(_2,(_128,_16)):(_128,(_1,_256))");
        assert_eq!(p.b.to_string(), "(_2,(_32,_16)):(_32,(_1,_64))");
        assert_eq!(p.c.to_string(), "(_2,(_128,_64)):(_128,(_1,_256))");
        let t = atom("SM100_MMA_TF32_SS<tfloat32_t,tfloat32_t,float,64,8,UMMA::Major::MN,UMMA::Major::K>").unwrap();
        assert_eq!(t.shape_mnk.to_string(), "(_64,_8,_8)");
        // Every listed name is a valid atom (its definition: atom/definition.rs's tests).
        // (From 4.5.1, where F8F6F4's SS forms are templates.)
        with_release(Release::new(4, 7, 0, 0), || {
            for n in umma_atom_names() {
                atom(&n).unwrap();
                check(&n).unwrap_or_else(|e| panic!("{n}: {e}"));
            }
        });
    }

    #[test]
    fn accumulators_of_valid_atoms_fit_the_128_tmem_lanes() {
        // The accumulator lives in TMEM, M along the 128 lanes of each CTA's tensor memory: for
        // every atom MMA_Atom accepts, each thread (CTA) of CLayout holds at most 128 rows
        // (mma_sm100_umma.hpp's M checks: 64 or 128 on one SM, 128 or 256 over two).
        with_release(Release::new(4, 7, 0, 0), || {
            for n in umma_atom_names() {
                let t = atom(&n).unwrap();
                let threads = t.c.mode(0).unwrap().size().unwrap().value;
                let rows = t.c.mode(1).unwrap().mode(0).unwrap().size().unwrap().value;
                assert!(rows <= 128 && rows * threads == t.shape_mnk.mode(0).unwrap().product().unwrap().value, "{n}");
            }
        });
        // M = 256 on one SM: its traits print, its operation is refused.
        let m256 = "SM100_MMA_F16BF16_SS<half_t,half_t,float,256,64,UMMA::Major::K,UMMA::Major::K>";
        assert!(atom(m256).is_ok() && check(m256).is_err());
    }

    #[test]
    fn k_by_family() {
        // 256 bits of A (S8: 32), or fixed whatever the width (F8F6F4 with 6-bit types: 32; MXF4: 64).
        let k = |s: &str| atom(s).unwrap().shape_mnk.to_string();
        assert_eq!(k("SM100_MMA_S8_SS<int8_t,int8_t,int32_t,128,64,UMMA::Major::K,UMMA::Major::K>"), "(_128,_64,_32)");
        assert_eq!(
            k("SM100_MMA_F8F6F4_TS<float_e2m3_t,float_e3m2_t,float,64,8,UMMA::Major::K,UMMA::Major::K>"),
            "(_64,_8,_32)"
        );
        assert_eq!(
            k("SM100_MMA_MXF4_2x1SM_SS<float_e2m1_t,float_e2m1_t,float,float_ue4m3_t,256,128,16,UMMA::Major::K,UMMA::Major::K>"),
            "(_256,_128,_64)"
        );
        let mx = atom("SM100_MMA_MXF8F6F4_2x1SM_SS<float_e5m2_t,float_e2m1_t,half_t,float_ue8m0_t,256,32,UMMA::Major::K,UMMA::Major::MN>").unwrap();
        assert_eq!(mx.a.to_string(), "(_2,(_128,_32)):(_128,(_1,_256))");
        assert_eq!(mx.b.to_string(), "(_2,(_16,_32)):(_16,(_1,_32))");
        assert_eq!(mx.val_types, ["half_t", "float_e5m2_t", "float_e2m1_t", "half_t"].map(String::from));
    }

    #[test]
    fn refusals_at_the_traits_and_at_the_atom() {
        // Traits: the width of A and B.
        let e = atom("SM100_MMA_F16BF16_SS<float,float,float,128,16,UMMA::Major::K,UMMA::Major::K>").unwrap_err();
        assert!(e.to_string().starts_with("SM100_MMA_F16BF16_SS supports 16bit types"), "{e}");
        assert_eq!(
            refusal(atom("SM100_MMA_S8_TS<half_t,half_t,int32_t,128,16,UMMA::Major::K,UMMA::Major::K>")),
            "SM100_MMA_S8_TS supports 8bit types"
        );
        assert_eq!(
            refusal(atom("SM100_MMA_F8F6F4_TS<half_t,float_e4m3_t,float,128,16,UMMA::Major::K,UMMA::Major::K>")),
            "SM100_MMA_F8F6F4_TS supports types with leq 8bit types"
        );
        assert_eq!(
            refusal(atom("SM100_MMA_MXF4_2x1SM_SS<float_e4m3_t,float_e2m1_t,float,float_ue8m0_t,128,16,16,UMMA::Major::K,UMMA::Major::K>")),
            "SM100_MMA_MXF4_2x1SM_SS supports 4bit types"
        );
        // MXF4 one SM: VS 32 only with e2m1 and ue8m0 (the traits); VS 64 fails there too.
        let vs = |v: &str, sf: &str| {
            format!("SM100_MMA_MXF4_SS<float_e2m1_t,float_e2m1_t,float,{sf},128,64,{v},UMMA::Major::K,UMMA::Major::K>")
        };
        assert!(atom(&vs("32", "float_ue8m0_t")).is_ok() && atom(&vs("16", "float_ue4m3_t")).is_ok());
        assert!(refusal(atom(&vs("32", "float_ue4m3_t"))).starts_with("2x mode (VectorSize=32)"));
        assert!(refusal(atom(&vs("64", "float_ue8m0_t"))).starts_with("2x mode (VectorSize=32)"));
        // Two SMs: no such traits check; the operation refuses VS 64.
        let p64 = "SM100_MMA_MXF4_2x1SM_SS<float_e2m1_t,float_e2m1_t,float,float_ue8m0_t,128,64,64,UMMA::Major::K,UMMA::Major::K>";
        assert!(atom(p64).is_ok());
        assert_eq!(refusal(check(p64)), "SM100_MMA_MXF4_2x1SM_SS Vector size can only be 16 or 32.");
        // The atom: N, M, the TMEM A's major, the descriptor's formats; the traits still print.
        let n12 = "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,12,UMMA::Major::K,UMMA::Major::K>";
        assert!(atom(n12).is_ok());
        assert!(check(n12).unwrap_err().to_string().contains("multiple of 8 between 8 and 256."));
        let m96 = "SM100_MMA_F16BF16_2x1SM_SS<half_t,half_t,float,96,64,UMMA::Major::K,UMMA::Major::K>";
        assert!(check(m96).unwrap_err().to_string().contains("should be 128 or 256"));
        let mn = "SM100_MMA_F16BF16_TS<half_t,half_t,float,128,16,UMMA::Major::MN,UMMA::Major::K>";
        assert_eq!(refusal(check(mn)), "SM100_MMA_F16BF16 A from TMEM can't be transposed");
        let mn = "SM100_MMA_S8_2x1SM_TS<int8_t,int8_t,int32_t,128,32,UMMA::Major::MN,UMMA::Major::K>";
        assert_eq!(refusal(check(mn)), "SM100_MMA_S8_2x1SM_TS A from TMEM can't be transposed");
        let i16 = "SM100_MMA_F16BF16_SS<int16_t,int16_t,float,128,16,UMMA::Major::K,UMMA::Major::K>";
        assert!(check(i16).unwrap_err().to_string().contains("Unknown type for UMMAFormat"));
        let d = "SM100_MMA_F16BF16_SS<half_t,half_t,double,128,16,UMMA::Major::K,UMMA::Major::K>";
        assert!(check(d).unwrap_err().to_string().contains("Unknown type for CFormat"));
        // S8: the one-SM SS result type, and N = 8 or a multiple of 16.
        let s8 = |c: &str, n: i64| format!("SM100_MMA_S8_SS<int8_t,int8_t,{c},64,{n},UMMA::Major::K,UMMA::Major::K>");
        assert_eq!(refusal(check(&s8("float", 64))), "SM100_MMA_S8_SS result type can only be int32_t.");
        assert!(check(&s8("int32_t", 8)).is_ok() && check(&s8("int", 8)).is_ok());
        assert!(refusal(check(&s8("int32_t", 24))).contains("8 or a multiple of 16"));
        // Block-scaled: no accumulator format; the scale factor's.
        let mx = |c: &str, sf: &str| {
            format!("SM100_MMA_MXF8F6F4_SS<float_e4m3_t,float_e4m3_t,{c},{sf},128,64,UMMA::Major::K,UMMA::Major::K>")
        };
        assert!(check(&mx("double", "float_ue8m0_t")).is_ok());
        assert_eq!(refusal(check(&mx("float", "float_e4m3_t"))), "Unknown type for ScaleFormat");
        let mx64 =
            "SM100_MMA_MXF8F6F4_SS<float_e4m3_t,float_e4m3_t,float,float_ue8m0_t,64,64,UMMA::Major::K,UMMA::Major::K>";
        assert_eq!(
            refusal(check(mx64)),
            "SM100_MMA_MXF8F6F4_SS M-mode size should be 64 or 128 for 1 CTA cluster MMA."
        );
        // Malformed arguments are type errors, never a panic.
        for bad in [
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,16,UMMA::Major::K>",
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,0,16,UMMA::Major::K,UMMA::Major::K>",
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,16,GMMA::Major::K,UMMA::Major::K>",
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,16,UMMA::Major::K,UMMA::Major::K,UMMA::Saturate::False>",
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,16,UMMA::Major::K,UMMA::Major::K,UMMA::ScaleIn::One,UMMA::ScaleIn::One,UMMA::Saturate::False>",
            "SM100_MMA_S8_SS<int8_t,int8_t,int32_t,128,16,UMMA::Major::K,UMMA::Major::K,UMMA::ScaleIn::One>",
            "SM100_MMA_MXF4_SS<float_e2m1_t,float_e2m1_t,float,float_ue8m0_t,128,64,UMMA::Major::K,UMMA::Major::K>",
            "SM100_MMA_MXF8F6F4_TS<float_e4m3_t,float_e4m3_t,float,float_ue8m0_t,128,64,UMMA::Major::K,UMMA::Major::K>",
            "SM100_MMA_F16BF16_SS",
        ] {
            assert!(matches!(atom(bad), Err(Error::Type(_))) || !is_umma(&AtomName::parse(bad).unwrap().base), "{bad}");
        }
        // The defaulted arguments may be given in part, as C++ allows.
        assert!(atom(
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,16,UMMA::Major::K,UMMA::Major::K,UMMA::ScaleIn::Neg>"
        )
        .is_ok());
        assert!(atom(
            "SM100_MMA_S8_SS<int8_t,int8_t,int32_t,128,16,UMMA::Major::K,UMMA::Major::K,UMMA::Saturate::True>"
        )
        .is_ok());
    }

    #[test]
    fn f8f6f4_ss_is_a_template_from_4_5_1() {
        let ss = "SM100_MMA_F8F6F4_SS<float_e4m3_t,float_e4m3_t,float,128,8,UMMA::Major::K,UMMA::Major::K>";
        assert_eq!(refusal(atom(ss)), "MMA_Traits not implemented for this MMA_Operation.");
        assert!(atom(ss).unwrap_err().to_string().contains("is not a template before CUTLASS 4.5.1"));
        with_release(Release::new(4, 5, 0, 0), || assert!(atom(ss).is_err()));
        with_release(Release::new(4, 5, 1, 0), || assert!(atom(ss).is_ok() && check(ss).is_ok()));
        // From 4.5.1 its traits check M and N (by B's major).
        with_release(Release::new(4, 7, 0, 0), || {
            let mn = "SM100_MMA_F8F6F4_SS<float_e4m3_t,float_e4m3_t,float,128,8,UMMA::Major::K,UMMA::Major::MN>";
            assert!(refusal(atom(mn)).ends_with("multiple of 16 between 16 and 256 when B is MN major."));
            let m = "SM100_MMA_F8F6F4_2x1SM_SS<float_e4m3_t,float_e4m3_t,float,64,32,UMMA::Major::K,UMMA::Major::K>";
            assert_eq!(
                refusal(atom(m)),
                "SM100_MMA_F8F6F4_2x1SM_SS M-mode size should be 64 or 128 for 1 CTA cluster MMA."
            );
        });
    }

    #[test]
    fn sm103_ultra_forms() {
        // Recorded on 4.7.0.0 (fixtures/cases/atoms_sm100_more.cases): K 96, the MXF4 operands.
        let u = |pair: bool, ty: &str, m: i64, n: i64, vs: i64, am: &str| {
            let p = if pair { "2x1SM_" } else { "" };
            format!("{ULTRA}{p}SS_VS<{ty},{m},{n},{vs},UMMA::Major::{am},UMMA::Major::K>")
        };
        let e8 = "float_e2m1_t,float_e2m1_t,float,float_ue8m0_t";
        with_release(Release::new(4, 7, 0, 0), || {
            let p = atom(&u(true, e8, 256, 64, 32, "K")).unwrap();
            assert_eq!(p.shape_mnk.to_string(), "(_256,_64,_96)");
            assert_eq!(p.a.to_string(), "(_2,(_128,_96)):(_128,(_1,_256))");
            assert_eq!(p.b.to_string(), "(_2,(_32,_96)):(_32,(_1,_64))");
            // The traits refuse a transposed operand; the operation M, N and the vector size, in
            // messages that name no operation; the descriptor the scale factor's format.
            assert_eq!(refusal(atom(&u(false, e8, 128, 64, 32, "MN"))), "This MMA does not support transpose");
            assert_eq!(
                refusal(check(&u(false, e8, 64, 64, 32, "K"))),
                "MMA M-mode size should be 128 for 1 CTA cluster MMA."
            );
            assert!(refusal(check(&u(true, e8, 256, 24, 32, "K"))).starts_with("MMA N-mode size should be"));
            let e4 = "float_e2m1_t,float_e2m1_t,float,float_ue4m3_t";
            assert!(refusal(check(&u(false, e4, 128, 64, 32, "K"))).starts_with("Vector size can only be"));
            assert!(check(&u(false, e4, 128, 64, 16, "K")).is_ok());
            // No width check: 8-bit A is an answer (its UMMA format exists).
            assert!(check(&u(false, "float_e4m3_t,float_e4m3_t,float,float_ue8m0_t", 128, 64, 16, "K")).is_ok());
            assert_eq!(
                refusal(check(&u(false, "float_e2m1_t,float_e2m1_t,float,float_e4m3_t", 128, 64, 16, "K"))),
                "Unknown type for ScaleFormat"
            );
        });
        // Before 4.2 the name is not declared (atom/since.rs).
        with_release(Release::new(4, 1, 0, 0), || {
            assert!(crate::atom::mma_atom(&u(false, e8, 128, 64, 32, "K")).is_err());
        });
    }

    #[test]
    fn n_rules_by_release() {
        // SS with M = 128 and N = 8: from 4.2 a multiple of 8 is enough; in 3.8 M = 128 needs 16.
        let n8 = "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,8,UMMA::Major::K,UMMA::Major::K>";
        assert!(check(n8).is_ok());
        with_release(Release::new(3, 8, 0, 0), || assert!(check(n8).unwrap_err().to_string().contains("for M=128")));
        let p16 = "SM100_MMA_F16BF16_2x1SM_SS<half_t,half_t,float,256,16,UMMA::Major::K,UMMA::Major::K>";
        assert!(check(p16).is_ok());
        with_release(Release::new(3, 8, 0, 0), || assert!(check(p16).is_err()));
    }
}
