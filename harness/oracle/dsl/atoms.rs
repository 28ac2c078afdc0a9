//! CuTe C++ atom names in the CuTe DSL's terms: which `cute.nvgpu` operation, with which
//! arguments, builds the same MMA or copy atom, or why the DSL has none.
//!
//! The worker (`worker.py`) builds `cute.make_mma_atom(op)` / `cute.make_copy_atom(op, dtype,
//! num_bits_per_copy=...)` from the JSON written here, looking every operation, element type and
//! enum value up in its own allow-lists (`MMA_OPS`, `COPY_OPS`, `DTYPES`, `ENUMS`); nothing else is
//! called. The translation reads the C++ name only (never the engine's tables), so a wrong
//! reading shows up as a disagreement instead of agreeing with the engine by construction.
//!
//! What `cute.nvgpu` 4.8.1 exposes and how it is reached:
//! - warp MMA (`cute.nvgpu.warp`): `MmaF16BF16Op(ab, acc, (16,8,k))` for `SM80_16x8x{8,16}` (and
//!   `SM75_16x8x8`) with A = B in {F16, BF16}; `MmaTF32Op((16,8,k))` for `SM80_16x8x{4,8}_F32TF32TF32F32_TN`;
//!   `MmaFP8Op(ab, acc, (16,8,32))` for `SM89_16x8x32` with A = B (the DSL takes one element type
//!   for both). No F64, complex, integer or binary warp MMAs.
//! - warpgroup MMA (`cute.nvgpu.warpgroup`, SM90 GMMA): `MmaF16BF16Op(ab, acc, (64,n,16), a_src,
//!   a_major, b_major)` and `MmaF8Op(a, b, acc, (64,n,32), a_src, K, K)`; `SS` is
//!   `OperandSource.SMEM`, `RS` is `OperandSource.RMEM`, `GMMA::Major::K|MN` the
//!   `OperandMajorMode`s, `_TN` both K-major. No TF32 or integer GMMA is exported.
//! - tcgen05 MMA (`cute.nvgpu.tcgen05`, SM100 UMMA): see [`umma`] (built with the DSL's target set
//!   to sm_100a for the call, the other families' sm_90a restored after).
//! - copy atoms, in elements of the value type (`copy_atom_src|dst|thr_id`):
//!   `SM75_U32x{1,2,4}_LDSM_N` / `SM75_U16x{2,4,8}_LDSM_T` are `warp.LdMatrix8x8x16bOp(transpose,
//!   n)`, `SM90_U32x{1,2,4}_STSM_N` / `SM90_U16x{2,4,8}_STSM_T` are `warp.StMatrix8x8x16bOp`,
//!   `SM80_CP_ASYNC_CACHE{ALWAYS,GLOBAL}<T>` is `cpasync.CopyG2SOp(LoadCacheMode.X)` and
//!   `UniversalCopy<T>` is `CopyUniversalOp()`, both with `num_bits_per_copy = sizeof_bits(T)`.
//!   The DSL's copy atom has no reference layout (`copy_atom_ref`), and the traits' layouts in
//!   bits (`copy_traits_*`) have no DSL form ([`super::dsl_form`] says which members it has).

use serde_json::{json, Value as Json};

use crate::expr::parse::TemplateArg;
use crate::expr::Name;

/// Split a run of element-type codes (`F32BF16BF16`) into tokens, longest spelling first.
fn type_codes(mut t: &str) -> Option<Vec<&'static str>> {
    const CODES: &[&str] =
        &["BF16", "TF32", "E4M3", "E5M2", "F16", "F32", "F64", "C64", "GC64", "S32", "S8", "U8", "S4", "U4", "U1"];
    let mut out = Vec::new();
    while !t.is_empty() {
        let tok = CODES.iter().copied().filter(|c| t.starts_with(c)).max_by_key(|c| c.len())?;
        out.push(tok);
        t = &t[tok.len()..];
    }
    Some(out)
}

/// The DSL's element type for a code of an MMA name.
fn dsl_type(code: &str) -> Option<&'static str> {
    Some(match code {
        "F16" => "Float16",
        "BF16" => "BFloat16",
        "F32" => "Float32",
        "TF32" => "TFloat32",
        "E4M3" => "Float8E4M3FN",
        "E5M2" => "Float8E5M2",
        _ => return None,
    })
}

fn dtype(code: &str) -> Json {
    json!({ "dtype": dsl_type(code) })
}

fn enum_value(v: &str) -> Json {
    json!({ "enum": v })
}

/// `M x N x K` of `16x8x16`.
fn mnk(s: &str) -> Option<[i64; 3]> {
    let v: Vec<i64> = s.split('x').map(|x| x.parse().ok()).collect::<Option<_>>()?;
    <[i64; 3]>::try_from(v).ok()
}

/// The DSL's construction of a CuTe C++ MMA atom: `{"op": ..., "args": [...]}`, or why none.
pub fn mma(name: &Name) -> Result<Json, String> {
    let base = name.base();
    if name.path.len() != 1 {
        return Err(format!("the DSL oracle has no MMA atom {name}"));
    }
    if base.starts_with("SM90_64x") {
        return gmma(name);
    }
    if base.starts_with("SM100_MMA_") {
        return umma(name);
    }
    if name.targs.is_some() {
        return Err(format!("the DSL oracle has no MMA atom {name}"));
    }
    warp(base).ok_or_else(|| {
        format!(
            "cute.nvgpu.warp has no form of {name} (it has F16/BF16 16x8x8/16x8x16, TF32 16x8x4/16x8x8 and \
             single-type FP8 16x8x32 MMAs)"
        )
    })
}

/// A warp MMA `SMxx_MxNxK_DABC_TN`.
fn warp(base: &str) -> Option<Json> {
    let mut parts = base.split('_');
    let (sm, shape, types, tn) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if tn != "TN" || parts.next().is_some() {
        return None;
    }
    let [m, n, k] = mnk(shape)?;
    let t = type_codes(types)?;
    let [d, a, b, c] = t.as_slice() else { return None };
    if (m, n) != (16, 8) || a != b || c != d {
        return None;
    }
    match (sm, *a, *c, k) {
        ("SM80", "F16" | "BF16", "F32" | "F16", 8 | 16) | ("SM75", "F16", "F32", 8) if *c == "F32" || *a == "F16" => {
            Some(json!({"op": "warp.MmaF16BF16Op", "args": [dtype(a), dtype(c), [m, n, k]]}))
        }
        ("SM80", "TF32", "F32", 4 | 8) => Some(json!({"op": "warp.MmaTF32Op", "args": [[m, n, k]]})),
        ("SM89", "E4M3" | "E5M2", "F32" | "F16", 32) => {
            Some(json!({"op": "warp.MmaFP8Op", "args": [dtype(a), dtype(c), [m, n, k]]}))
        }
        _ => None,
    }
}

/// An SM90 GMMA `SM90_64xNxK_DAB_{SS,RS}[_TN][<majors>]`.
fn gmma(name: &Name) -> Result<Json, String> {
    let none = |why: &str| Err(format!("cute.nvgpu.warpgroup has no form of {name}: {why}"));
    let base = name.base();
    let mut parts = base.split('_');
    let (_, shape, types, src) =
        (parts.next(), parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let rest: Vec<&str> = parts.collect();
    let Some([m, n, k]) = mnk(shape) else { return none("an unreadable shape") };
    let Some(t) = type_codes(types) else { return none("unreadable element types") };
    let [d, a, b] = t.as_slice() else { return none("not D, A, B element types") };
    let a_src = match src {
        "SS" => "OperandSource.SMEM",
        "RS" => "OperandSource.RMEM",
        _ => return none("neither SS nor RS"),
    };
    let majors: Vec<String> = match (rest.as_slice(), &name.targs) {
        (["TN"], None) => vec!["K".into(), "K".into()],
        (["TN"], Some(t)) if t.is_empty() => vec!["K".into(), "K".into()],
        ([], Some(t)) if t.len() == 2 => {
            let mut v = Vec::new();
            for x in t {
                match x {
                    TemplateArg::Name(m) if m.path.len() == 3 && m.path[0] == "GMMA" && m.path[1] == "Major" => {
                        v.push(m.path[2].to_string())
                    }
                    _ => return none("template arguments other than two GMMA::Major values"),
                }
            }
            v
        }
        _ => return none("a suffix or template arguments the DSL oracle does not read (saturation, scaling)"),
    };
    if majors.iter().any(|m| m != "K" && m != "MN") {
        return none("a major mode other than K or MN");
    }
    let major = |m: &String| enum_value(&format!("OperandMajorMode.{m}"));
    match (*a, *b, *d) {
        ("F16", "F16", "F16" | "F32") | ("BF16", "BF16", "F32") => Ok(json!({
            "op": "warpgroup.MmaF16BF16Op",
            "args": [dtype(a), dtype(d), [m, n, k], enum_value(a_src), major(&majors[0]), major(&majors[1])]
        })),
        ("E4M3" | "E5M2", "E4M3" | "E5M2", "F16" | "F32") => Ok(json!({
            "op": "warpgroup.MmaF8Op",
            "args": [dtype(a), dtype(b), dtype(d), [m, n, k], enum_value(a_src), major(&majors[0]), major(&majors[1])]
        })),
        _ => none("the DSL exports F16/BF16 and F8 warpgroup MMAs only"),
    }
}

/// An SM100 UMMA `SM100_MMA_<family>[_2x1SM]_{SS,TS}<a,b,c,M,N,a_major,b_major>` as a
/// `cute.nvgpu.tcgen05` operation: `MmaF16BF16Op(ab, acc, (M,N,K), cta_group, a_src, a_major,
/// b_major)`, `MmaTF32Op((M,N,K), ...)`, `MmaI8Op(ab, (M,N,K), ...)` (A = B) and `MmaF8F6F4Op(a, b,
/// acc, (M,N,K), ...)`; `_2x1SM_` is `CtaGroup.TWO`, `_TS` `OperandSource.TMEM`; K is 256 bits of A
/// (32 for F8F6F4). The block-scaled families and the defaulted trailing arguments (negation,
/// saturation) are not read.
fn umma(name: &Name) -> Result<Json, String> {
    let none = |why: &str| Err(format!("cute.nvgpu.tcgen05 has no form of {name}: {why}"));
    let rest = name.base().strip_prefix("SM100_MMA_").unwrap_or("");
    let (family, form) = rest.split_once('_').unwrap_or((rest, ""));
    let (form, sparse) = match form.strip_suffix("_SPARSE") {
        Some(f) => (f, true),
        None => (form, false),
    };
    let (cta, src) = match form {
        "SS" => ("CtaGroup.ONE", "OperandSource.SMEM"),
        "TS" => ("CtaGroup.ONE", "OperandSource.TMEM"),
        "2x1SM_SS" => ("CtaGroup.TWO", "OperandSource.SMEM"),
        "2x1SM_TS" => ("CtaGroup.TWO", "OperandSource.TMEM"),
        _ => return none("a form other than SS, TS, their 2x1SM twins and SS_SPARSE"),
    };
    if matches!(family, "MXF8F6F4" | "MXF4") {
        if sparse {
            return none("the DSL has no sparse block-scaled tcgen05 operation");
        }
        return block_scaled(name, family, cta, src);
    }
    let Some(t) = name.targs.as_deref().filter(|t| t.len() == 7) else {
        return none("template arguments other than <A,B,C,M,N,a_major,b_major>");
    };
    let ty = |i: usize| match &t[i] {
        TemplateArg::Name(n) if n.path.len() == 1 || (n.path.len() == 2 && n.path[0] == "cutlass") => {
            umma_type(n.path.last().map(|p| p.as_ref()).unwrap_or(""))
        }
        _ => None,
    };
    let int = |i: usize| match &t[i] {
        TemplateArg::Int(v) => Some(*v),
        _ => None,
    };
    let major = |i: usize| match &t[i] {
        TemplateArg::Name(m) if m.path.len() == 3 && m.path[0] == "UMMA" && m.path[1] == "Major" => {
            Some(enum_value(&format!("OperandMajorMode.{}", m.path[2])))
        }
        _ => None,
    };
    let (Some((a, a_bits)), Some((b, _)), Some((c, _)), Some(m), Some(n), Some(am), Some(bm)) =
        (ty(0), ty(1), ty(2), int(3), int(4), major(5), major(6))
    else {
        return none("types, M, N or majors the DSL oracle does not read");
    };
    let k = if family == "F8F6F4" { 32 } else { 256 / a_bits };
    if sparse {
        // MmaF16BF16SparseOp / MmaFP8SparseOp (A = B; K twice the dense one; metadata format TID).
        let tail =
            [json!([m, n, 2 * k]), enum_value(cta), enum_value(src), am, bm, enum_value("SparseMetadataFormat.TID")];
        let op = match family {
            "F16BF16" if a == b => "tcgen05.MmaF16BF16SparseOp",
            "F8F6F4" if a == b && a_bits == 8 => "tcgen05.MmaFP8SparseOp",
            _ => return none("the DSL's sparse tcgen05 operations are F16BF16 and FP8 with A = B"),
        };
        let args: Vec<Json> = [dtype_of(a), dtype_of(c)].into_iter().chain(tail).collect();
        return Ok(json!({"op": op, "args": args}));
    }
    let tail = [json!([m, n, k]), enum_value(cta), enum_value(src), am, bm];
    let args: Vec<Json> = match family {
        "F16BF16" if a == b => [dtype_of(a), dtype_of(c)].into_iter().chain(tail).collect(),
        "TF32" => tail.to_vec(),
        "S8" if a == b => [dtype_of(a)].into_iter().chain(tail).collect(),
        "F8F6F4" => [dtype_of(a), dtype_of(b), dtype_of(c)].into_iter().chain(tail).collect(),
        _ => return none("the DSL oracle reads the F16BF16 (A = B), TF32, S8 (A = B) and F8F6F4 families"),
    };
    let op = match family {
        "F16BF16" => "tcgen05.MmaF16BF16Op",
        "TF32" => "tcgen05.MmaTF32Op",
        "S8" => "tcgen05.MmaI8Op",
        _ => "tcgen05.MmaF8F6F4Op",
    };
    Ok(json!({"op": op, "args": args}))
}

/// The block-scaled families as `cute.nvgpu.tcgen05` operations, which fix C as `float`:
/// `SM100_MMA_MXF8F6F4_*<a,b,float,float_ue8m0_t,M,N,am,bm>` is `MmaMXF8F6F4Op(a, b, (M,N,32), cta,
/// src, am, bm)`; `SM100_MMA_MXF4_*<float_e2m1_t,float_e2m1_t,float,sf,M,N,VS,K,K>` is
/// `MmaMXF4Op((M,N,64), cta, src)` for VS 32 with `float_ue8m0_t`, `MmaMXF4NVF4Op(sf, (M,N,64),
/// cta, src)` for VS 16.
fn block_scaled(name: &Name, family: &str, cta: &str, src: &str) -> Result<Json, String> {
    let none = |why: &str| Err(format!("cute.nvgpu.tcgen05 has no form of {name}: {why}"));
    let t = name.targs.as_deref().unwrap_or_default();
    let ty = |i: usize| match t.get(i) {
        Some(TemplateArg::Name(n)) if n.path.len() == 1 || (n.path.len() == 2 && n.path[0] == "cutlass") => {
            umma_type(n.path.last().map(|p| p.as_ref()).unwrap_or(""))
        }
        _ => None,
    };
    let int = |i: usize| match t.get(i) {
        Some(TemplateArg::Int(v)) => Some(*v),
        _ => None,
    };
    let major = |i: usize| match t.get(i) {
        Some(TemplateArg::Name(m)) if m.path.len() == 3 && m.path[0] == "UMMA" && m.path[1] == "Major" => {
            Some(enum_value(&format!("OperandMajorMode.{}", m.path[2])))
        }
        _ => None,
    };
    let (cta, src) = (enum_value(cta), enum_value(src));
    match family {
        "MXF8F6F4" if t.len() == 8 => {
            let (
                Some((a, _)),
                Some((b, _)),
                Some(("Float32", _)),
                Some(("Float8E8M0FNU", _)),
                Some(m),
                Some(n),
                Some(am),
                Some(bm),
            ) = (ty(0), ty(1), ty(2), ty(3), int(4), int(5), major(6), major(7))
            else {
                return none("MmaMXF8F6F4Op fixes C float and ue8m0 scale factors");
            };
            Ok(json!({"op": "tcgen05.MmaMXF8F6F4Op", "args": [dtype_of(a), dtype_of(b), [m, n, 32], cta, src, am, bm]}))
        }
        "MXF4" if t.len() == 9 => {
            let k_major = |i: usize| major(i) == Some(enum_value("OperandMajorMode.K"));
            let (
                Some(("Float4E2M1FN", _)),
                Some(("Float4E2M1FN", _)),
                Some(("Float32", _)),
                Some((sf, _)),
                Some(m),
                Some(n),
                Some(vs),
            ) = (ty(0), ty(1), ty(2), ty(3), int(4), int(5), int(6))
            else {
                return none("MmaMXF4Op / MmaMXF4NVF4Op fix e2m1 A and B and C float");
            };
            if !(k_major(7) && k_major(8)) {
                return none("the DSL's MXF4 operations are K-major only");
            }
            match (vs, sf) {
                (32, "Float8E8M0FNU") => Ok(json!({"op": "tcgen05.MmaMXF4Op", "args": [[m, n, 64], cta, src]})),
                (16, _) => Ok(json!({"op": "tcgen05.MmaMXF4NVF4Op", "args": [dtype_of(sf), [m, n, 64], cta, src]})),
                _ => none("vector size 32 with a scale factor other than ue8m0"),
            }
        }
        _ => none("block-scaled template arguments the DSL oracle does not read"),
    }
}

fn dtype_of(t: &str) -> Json {
    json!({ "dtype": t })
}

/// The DSL's element type and width of a UMMA operand or accumulator type.
fn umma_type(t: &str) -> Option<(&'static str, i64)> {
    Some(match t {
        "half_t" => ("Float16", 16),
        "bfloat16_t" => ("BFloat16", 16),
        "tfloat32_t" => ("TFloat32", 32),
        "float" => ("Float32", 32),
        "int32_t" => ("Int32", 32),
        "int8_t" => ("Int8", 8),
        "uint8_t" => ("Uint8", 8),
        "float_e4m3_t" => ("Float8E4M3FN", 8),
        "float_e5m2_t" => ("Float8E5M2", 8),
        "float_e2m3_t" => ("Float6E2M3FN", 6),
        "float_e3m2_t" => ("Float6E3M2FN", 6),
        "float_e2m1_t" => ("Float4E2M1FN", 4),
        "float_ue8m0_t" => ("Float8E8M0FNU", 8),
        "float_ue4m3_t" => ("Float8E4M3FN", 8),
        _ => return None,
    })
}

/// The DSL's element type and width of a CuTe C++ value type.
fn value_type(t: &Name) -> Option<(&'static str, i64)> {
    if t.path.len() != 1 || t.targs.is_some() {
        return None;
    }
    Some(match t.base() {
        "half_t" => ("Float16", 16),
        "bfloat16_t" => ("BFloat16", 16),
        "float" => ("Float32", 32),
        "double" => ("Float64", 64),
        "tfloat32_t" => ("TFloat32", 32),
        "int8_t" => ("Int8", 8),
        "uint8_t" => ("Uint8", 8),
        "int16_t" => ("Int16", 16),
        "uint16_t" => ("Uint16", 16),
        "int32_t" => ("Int32", 32),
        "uint32_t" => ("Uint32", 32),
        "int64_t" => ("Int64", 64),
        "uint64_t" => ("Uint64", 64),
        "uint128_t" => ("Uint128", 128),
        "int4b_t" => ("Int4", 4),
        _ => return None,
    })
}

/// The width in bits of a copy operation's one template argument (`UniversalCopy<uint64_t>`).
fn op_bits(op: &Name) -> Option<i64> {
    match op.targs.as_deref() {
        Some([TemplateArg::Name(t)]) => value_type(t).map(|(_, b)| b),
        _ => None,
    }
}

/// The DSL's construction of the copy atom of `copy_atom_X(OP, T)`: `{"op", "args", "dtype",
/// "bits"}`, or why none. Which members the DSL has is [`super::dsl_form`]'s.
pub fn copy(op: &Name, val: &Name) -> Result<Json, String> {
    let Some((dt, _)) = value_type(val) else { return Err(format!("the DSL oracle has no element type for {val}")) };
    let base = op.base();
    let matrix = |kind: &str, rest: &str| -> Option<Json> {
        // U32x{1,2,4}_N: not transposed, n matrices; U16x{2,4,8}_T: transposed, n/2 matrices.
        let (w, t) = rest.split_once('_')?;
        let (n, transpose) = match (w, t) {
            ("U32x1", "N") => (1, false),
            ("U32x2", "N") => (2, false),
            ("U32x4", "N") => (4, false),
            ("U16x2", "T") => (1, true),
            ("U16x4", "T") => (2, true),
            ("U16x8", "T") => (4, true),
            _ => return None,
        };
        Some(json!({"op": kind, "args": [transpose, n], "dtype": dt, "bits": null}))
    };
    let found = if op.path.len() != 1 {
        None
    } else if let Some(rest) = base.strip_prefix("SM75_").filter(|r| r.ends_with("LDSM_N") || r.ends_with("LDSM_T")) {
        if op.targs.is_some() {
            None
        } else {
            matrix("warp.LdMatrix8x8x16bOp", &rest.replace("_LDSM", ""))
        }
    } else if let Some(rest) = base.strip_prefix("SM90_").filter(|r| r.ends_with("STSM_N") || r.ends_with("STSM_T")) {
        if op.targs.is_some() {
            None
        } else {
            matrix("warp.StMatrix8x8x16bOp", &rest.replace("_STSM", ""))
        }
    } else if let Some(mode) = base.strip_prefix("SM80_CP_ASYNC_CACHE") {
        match (mode, op_bits(op)) {
            ("ALWAYS", Some(bits)) => Some(
                json!({"op": "cpasync.CopyG2SOp", "args": [enum_value("LoadCacheMode.ALWAYS")], "dtype": dt, "bits": bits}),
            ),
            ("GLOBAL", Some(bits)) => Some(
                json!({"op": "cpasync.CopyG2SOp", "args": [enum_value("LoadCacheMode.GLOBAL")], "dtype": dt, "bits": bits}),
            ),
            _ => None,
        }
    } else if base == "UniversalCopy" {
        op_bits(op).map(|bits| json!({"op": "CopyUniversalOp", "args": [], "dtype": dt, "bits": bits}))
    } else {
        None
    };
    found.ok_or_else(|| {
        format!(
            "cute.nvgpu has no form of {op} the DSL oracle reads (it reads ldmatrix/stmatrix x1/x2/x4, cp.async \
             CACHEALWAYS/CACHEGLOBAL<T> without zero-fill, UniversalCopy<T>)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{parse, Expr};

    fn name(s: &str) -> Name {
        match parse(&format!("f({s})")).unwrap() {
            Expr::Call { args, .. } => match &args[0] {
                Expr::Call { name, .. } => name.clone(),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn warp_mma_names() {
        assert_eq!(
            mma(&name("SM80_16x8x16_F32BF16BF16F32_TN")).unwrap(),
            json!({"op": "warp.MmaF16BF16Op", "args": [{"dtype": "BFloat16"}, {"dtype": "Float32"}, [16, 8, 16]]})
        );
        assert_eq!(mma(&name("SM80_16x8x8_F16F16F16F16_TN")).unwrap()["args"][1], json!({"dtype": "Float16"}));
        assert_eq!(
            mma(&name("SM80_16x8x4_F32TF32TF32F32_TN")).unwrap(),
            json!({"op": "warp.MmaTF32Op", "args": [[16, 8, 4]]})
        );
        assert_eq!(mma(&name("SM89_16x8x32_F16E5M2E5M2F16_TN")).unwrap()["op"], json!("warp.MmaFP8Op"));
        for no in [
            "SM80_16x8x16_F16BF16BF16F16_TN",
            "SM80_8x8x4_F64F64F64F64_TN",
            "SM80_16x8x16_F32F16BF16F32_TN",
            "SM89_16x8x32_F32E4M3E5M2F32_TN",
            "SM80_16x8x32_S32S8S8S32_TN",
            "SM70_8x8x4_F16F16F16F16_NT",
        ] {
            assert!(mma(&name(no)).is_err(), "{no}");
        }
    }

    #[test]
    fn gmma_names() {
        let g = mma(&name("SM90_64x16x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::MN>")).unwrap();
        assert_eq!(g["op"], json!("warpgroup.MmaF16BF16Op"));
        assert_eq!(
            g["args"],
            json!([{"dtype": "Float16"}, {"dtype": "Float32"}, [64, 16, 16], {"enum": "OperandSource.SMEM"},
                   {"enum": "OperandMajorMode.K"}, {"enum": "OperandMajorMode.MN"}])
        );
        let f8 = mma(&name("SM90_64x8x32_F16E4M3E5M2_RS_TN<>")).unwrap();
        assert_eq!(f8["op"], json!("warpgroup.MmaF8Op"));
        assert_eq!(f8["args"][4], json!({"enum": "OperandSource.RMEM"}));
        assert_eq!(f8["args"][6], json!({"enum": "OperandMajorMode.K"}));
        for no in [
            "SM90_64x8x8_F32TF32TF32_SS_TN<>",
            "SM90_64x8x32_S32S8S8_SS_TN",
            "SM90_64x8x32_S32S8S8_SS_TN_SATURATE",
            "SM90_64x8x16_F16F16F16_SS<GMMA::Major::K,GMMA::Major::K,GMMA::ScaleIn::One,GMMA::ScaleIn::One>",
            "SM90_64x8x16_F16F16F16_XS<GMMA::Major::K,GMMA::Major::K>",
        ] {
            assert!(mma(&name(no)).is_err(), "{no}");
        }
    }

    #[test]
    fn umma_names() {
        // The sparse and block-scaled tcgen05 operations.
        let sp = mma(&name(
            "SM100_MMA_F16BF16_2x1SM_SS_SPARSE<bfloat16_t,bfloat16_t,float,256,64,UMMA::Major::K,UMMA::Major::K>",
        ))
        .unwrap();
        assert_eq!(
            (sp["op"].as_str(), &sp["args"][2], &sp["args"][7]),
            (Some("tcgen05.MmaF16BF16SparseOp"), &json!([256, 64, 32]), &json!({"enum": "SparseMetadataFormat.TID"}))
        );
        let f8 = mma(&name(
            "SM100_MMA_F8F6F4_SS_SPARSE<float_e4m3_t,float_e4m3_t,half_t,128,64,UMMA::Major::K,UMMA::Major::K>",
        ))
        .unwrap();
        assert_eq!((f8["op"].as_str(), &f8["args"][2]), (Some("tcgen05.MmaFP8SparseOp"), &json!([128, 64, 64])));
        let mx = mma(&name("SM100_MMA_MXF8F6F4_SS<float_e2m1_t,float_e4m3_t,float,float_ue8m0_t,128,64,UMMA::Major::K,UMMA::Major::MN>")).unwrap();
        assert_eq!(
            (mx["op"].as_str(), &mx["args"][0], &mx["args"][2]),
            (Some("tcgen05.MmaMXF8F6F4Op"), &json!({"dtype": "Float4E2M1FN"}), &json!([128, 64, 32]))
        );
        let f4 = |vs: i64, sf: &str| {
            mma(&name(&format!("SM100_MMA_MXF4_2x1SM_SS<float_e2m1_t,float_e2m1_t,float,{sf},256,64,{vs},UMMA::Major::K,UMMA::Major::K>")))
        };
        assert_eq!(f4(32, "float_ue8m0_t").unwrap()["op"], json!("tcgen05.MmaMXF4Op"));
        assert_eq!(f4(16, "float_ue4m3_t").unwrap()["args"][0], json!({"dtype": "Float8E4M3FN"}));
        assert!(f4(32, "float_ue4m3_t").is_err());
        // A sparse block-scaled atom is no dense DSL operation (the first three-way run mapped
        // MXF8F6F4_SS_SPARSE to MmaMXF8F6F4Op: K 32 against 64).
        assert!(mma(&name("SM100_MMA_MXF8F6F4_SS_SPARSE<float_e4m3_t,float_e4m3_t,float,float_ue8m0_t,128,64,UMMA::Major::K,UMMA::Major::K>")).is_err());
        let u = mma(&name("SM100_MMA_F16BF16_2x1SM_TS<half_t,half_t,float,256,64,UMMA::Major::K,UMMA::Major::MN>"))
            .unwrap();
        assert_eq!(u["op"], json!("tcgen05.MmaF16BF16Op"));
        assert_eq!(
            u["args"],
            json!([{"dtype": "Float16"}, {"dtype": "Float32"}, [256, 64, 16], {"enum": "CtaGroup.TWO"},
                   {"enum": "OperandSource.TMEM"}, {"enum": "OperandMajorMode.K"}, {"enum": "OperandMajorMode.MN"}])
        );
        let t =
            mma(&name("SM100_MMA_TF32_SS<tfloat32_t,tfloat32_t,float,64,8,UMMA::Major::MN,UMMA::Major::K>")).unwrap();
        assert_eq!(t["args"][0], json!([64, 8, 8]));
        let f8 = mma(&name("SM100_MMA_F8F6F4_TS<float_e4m3_t,float_e5m2_t,half_t,64,8,UMMA::Major::K,UMMA::Major::K>"))
            .unwrap();
        assert_eq!((f8["op"].as_str(), &f8["args"][3]), (Some("tcgen05.MmaF8F6F4Op"), &json!([64, 8, 32])));
        assert_eq!(
            mma(&name("SM100_MMA_S8_SS<int8_t,int8_t,int32_t,128,64,UMMA::Major::K,UMMA::Major::K>")).unwrap()["args"]
                [1],
            json!([128, 64, 32])
        );
        for no in [
            "SM100_MMA_S8_SS<int8_t,uint8_t,int32_t,128,64,UMMA::Major::K,UMMA::Major::K>",
            "SM100_MMA_MXF4_SS<float_e2m1_t,float_e2m1_t,float,float_ue8m0_t,128,64,32,UMMA::Major::MN,UMMA::Major::K>",
            "SM100_MMA_MXF8F6F4_SS<float_e4m3_t,float_e4m3_t,half_t,float_ue8m0_t,128,64,UMMA::Major::K,UMMA::Major::K>",
            "SM100_MMA_S8_SS_SPARSE<int8_t,int8_t,int32_t,128,64,UMMA::Major::K,UMMA::Major::K>",
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,64,UMMA::Major::K,UMMA::Major::K,UMMA::ScaleIn::Neg,UMMA::ScaleIn::One>",
            "SM100_MMA_F16BF16_SS_SCALED<half_t,half_t,float,128,64,UMMA::Major::K,UMMA::Major::K>",
        ] {
            assert!(mma(&name(no)).is_err(), "{no}");
        }
    }

    #[test]
    fn copy_names() {
        let c = |op: &str, t: &str| copy(&name(op), &name(t));
        assert_eq!(
            c("SM75_U16x8_LDSM_T", "half_t").unwrap(),
            json!({"op": "warp.LdMatrix8x8x16bOp", "args": [true, 4], "dtype": "Float16", "bits": null})
        );
        assert_eq!(c("SM90_U32x2_STSM_N", "float").unwrap()["args"], json!([false, 2]));
        let a = c("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "half_t").unwrap();
        assert_eq!((a["op"].as_str(), a["bits"].as_i64()), (Some("cpasync.CopyG2SOp"), Some(128)));
        assert_eq!(c("UniversalCopy<uint64_t>", "bfloat16_t").unwrap()["bits"], json!(64));
        for (op, t) in [
            ("SM80_CP_ASYNC_CACHEALWAYS_ZFILL<uint128_t>", "half_t"),
            ("SM75_U32x1_MOVM_T", "half_t"),
            ("UniversalCopy<uint32_t,uint32_t>", "float"),
            ("DefaultCopy", "half_t"),
            ("SM75_U32x4_LDSM_N", "cutlass::half_t"),
        ] {
            assert!(c(op, t).is_err(), "{op}");
        }
    }
}
