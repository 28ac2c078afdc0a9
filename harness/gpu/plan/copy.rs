//! The copy atoms' checks: ldmatrix, stmatrix, movmatrix and cp.async, by the engine's Src and
//! Dst TV layouts.

use anyhow::{anyhow, bail, Result};

use crate::engine::atom::copy::copy_atom;
use crate::engine::IntTuple;
use crate::expr::{eval_str, Value};
use crate::gpu::plan::{corrections, Correction};

/// One copy atom's check: the engine's Src and Dst TV layouts in 16-bit units (ldmatrix,
/// stmatrix, movmatrix) or the value's bits (cp.async), as logical indices per (thread, value).
#[derive(Clone, Debug)]
pub struct CopyCase {
    pub op: String,
    pub val_type: String,
    /// ldsm, stsm, movm, cpasync.
    pub kind: String,
    /// Matrices (x1/x2/x4) and transposition; for cp.async the bytes and whether it zero-fills.
    pub count: i64,
    pub trans: bool,
    pub src_layout: String,
    pub dst_layout: String,
    pub src: Vec<i64>,
    pub dst: Vec<i64>,
    pub threads: i64,
}

/// The copy atoms the device checks: every warp-wide one the engine knows with 16-bit values
/// and every cp.async op with its widest value.
pub fn copy_cases() -> Result<Vec<CopyCase>> {
    let mut out = Vec::new();
    let mut ops: Vec<(String, String)> = Vec::new();
    for (op, _) in crate::engine::atom::copy::copy_atom_cases() {
        let warp = op.contains("LDSM") || op.contains("STSM") || op.contains("MOVM");
        let cp = op.starts_with("SM80_CP_ASYNC");
        if (warp || cp) && !ops.iter().any(|(o, _)| *o == op) {
            let t = if cp { "uint8_t" } else { "uint16_t" };
            ops.push((op, t.to_string()));
        }
    }
    for (op, t) in ops {
        let a = copy_atom(&op, &t).map_err(|e| anyhow!("Copy_Atom<{op},{t}>: {e}"))?;
        let nthr = a.thr_id.size()?.value;
        let eval = |l: &crate::engine::Layout| -> Result<Vec<i64>> {
            let nv = l.mode(1)?.size()?.value;
            let mut v = Vec::new();
            for th in 0..nthr {
                for i in 0..nv {
                    v.push(l.call(&IntTuple::tuple([IntTuple::dy(th), IntTuple::dy(i)]))?.value);
                }
            }
            Ok(v)
        };
        let (kind, count, trans) = if op.starts_with("SM80_CP_ASYNC") {
            let bytes = if op.contains("uint128_t") {
                16
            } else if op.contains("uint64_t") {
                8
            } else {
                4
            };
            ("cpasync", bytes, op.contains("ZFILL"))
        } else {
            let x = op.split('_').nth(1).unwrap_or("");
            let count = match x {
                "U32x1" | "U16x2" => 1,
                "U32x2" | "U16x4" => 2,
                _ => 4,
            };
            let kind = if op.contains("LDSM") {
                "ldsm"
            } else if op.contains("STSM") {
                "stsm"
            } else {
                "movm"
            };
            (kind, count, op.ends_with("_T"))
        };
        let case = CopyCase {
            op: op.clone(),
            val_type: t.clone(),
            kind: kind.into(),
            count,
            trans,
            src_layout: a.src.to_string(),
            dst_layout: a.dst.to_string(),
            src: eval(&a.src)?,
            dst: eval(&a.dst)?,
            threads: nthr,
        };
        let fixes: Vec<Correction> =
            corrections()?.into_iter().filter(|f| f.atom == op && (f.operand == 'S' || f.operand == 'D')).collect();
        if !fixes.is_empty() {
            let mut fixed = case.clone();
            fixed.op = format!("{op}(corrected)");
            let bits = crate::engine::atom::copy::type_bits(&t)?;
            for f in &fixes {
                let l = match eval_str(&f.layout).map_err(|e| anyhow!("{}: {e}", f.layout))? {
                    Value::Layout(l) => l,
                    _ => bail!("{}: not a layout", f.layout),
                };
                let l = crate::engine::atom::copy::upcast(&l, bits)?;
                if f.operand == 'S' {
                    fixed.src = eval(&l)?;
                    fixed.src_layout = l.to_string();
                } else {
                    fixed.dst = eval(&l)?;
                    fixed.dst_layout = l.to_string();
                }
            }
            out.push(case);
            out.push(fixed);
        } else {
            out.push(case);
        }
    }
    Ok(out)
}
