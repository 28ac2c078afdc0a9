//! The plan: every atom the engine knows, checked (with the engine's tables) or skipped with its
//! reason; the corrections data; (thread, value) tables evaluated from TV layouts.

pub mod copy;
pub mod gmma;
pub mod mma_sync;

use anyhow::{anyhow, bail, Result};

use crate::engine::atom::mma::{mma_atom, mma_atom_names, rs_with_mn_major_a};
use crate::engine::IntTuple;
use crate::expr::{eval_str, Value};

use self::copy::{copy_cases, CopyCase};
use self::gmma::{gmma_case, GmmaCase, GMMA_RUN_N};
use self::mma_sync::{mma_cases, MmaCase};
use super::ptx::gmma_parts;
use super::sparse::{skip_reason as sparse_skip, sparse_case, SparseCase};

/// The corrections and known disagreements (`fixtures/gpu/corrections.txt`).
const CORRECTIONS: &str = include_str!("../../../fixtures/gpu/corrections.txt");

/// One line of the corrections data: a corrected layout of one operand of one atom (operand
/// `'-'`: a known disagreement with no corrected layout).
#[derive(Clone, Debug, PartialEq)]
pub struct Correction {
    pub atom: String,
    pub operand: char,
    pub layout: String,
    pub reason: String,
}

/// The corrections data, parsed.
pub fn corrections() -> Result<Vec<Correction>> {
    let mut out = Vec::new();
    for (i, line) in CORRECTIONS.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.splitn(4, " | ").collect();
        let [atom, op, layout, reason] = parts.as_slice() else {
            bail!("fixtures/gpu/corrections.txt:{}: expected ATOM | OPERAND | LAYOUT | REASON", i + 1)
        };
        let operand = match *op {
            "A" => 'A',
            "B" => 'B',
            "C" => 'C',
            "S" => 'S',
            "D" => 'D',
            "-" => '-',
            o => bail!("fixtures/gpu/corrections.txt:{}: operand {o}", i + 1),
        };
        out.push(Correction {
            atom: atom.to_string(),
            operand,
            layout: layout.to_string(),
            reason: reason.to_string(),
        });
    }
    Ok(out)
}

/// A TV layout evaluated at every (thread, value): entry `thread * n + value`.
#[derive(Clone, Debug)]
pub struct TvTable {
    pub idx: Vec<i64>,
    /// Why the table is not a bijection onto the tile (None if it is).
    pub not_bijective: Option<String>,
}

/// Evaluates a TV layout with the engine's expression language over `threads` x
/// `rows*cols/threads` values, checks that each index lies in the `rows x cols` tile and whether
/// the map is a bijection (a non-bijective table is still returned, so that the hardware can show
/// what it does).
pub fn tv_table(layout: &str, rows: i64, cols: i64, threads: i64) -> Result<TvTable> {
    let l = match eval_str(layout).map_err(|e| anyhow!("{layout}: {e}"))? {
        Value::Layout(l) => l,
        v => bail!("{layout}: not a layout but a {}", v.kind()),
    };
    let tile = rows * cols;
    if threads <= 0 || tile % threads != 0 {
        bail!("{rows}x{cols} tile does not split over {threads} threads");
    }
    let nv = tile / threads;
    let size = l.size().map_err(|e| anyhow!("{layout}: {e}"))?.value;
    if size != tile {
        bail!("{layout}: size {size}, but a {rows}x{cols} tile has {tile} elements");
    }
    let mut idx = Vec::with_capacity(tile as usize);
    let mut owner: Vec<Option<(i64, i64)>> = vec![None; tile as usize];
    let mut not_bijective = None;
    for t in 0..threads {
        for v in 0..nv {
            let i = l
                .call(&IntTuple::tuple([IntTuple::dy(t), IntTuple::dy(v)]))
                .map_err(|e| anyhow!("{layout} at ({t},{v}): {e}"))?
                .value;
            if !(0..tile).contains(&i) {
                bail!("{layout} at ({t},{v}) = {i}: outside the {rows}x{cols} tile");
            }
            if let Some((t0, v0)) = owner[i as usize] {
                if not_bijective.is_none() {
                    let (r, c) = (i % rows, i / rows);
                    not_bijective = Some(format!(
                        "not a bijection: (thread {t0}, value {v0}) and (thread {t}, value {v}) both map to index {i} = ({r},{c})"
                    ));
                }
            } else {
                owner[i as usize] = Some((t, v));
            }
            idx.push(i);
        }
    }
    if let Some(msg) = &mut not_bijective {
        let missed = owner.iter().filter(|o| o.is_none()).count();
        msg.push_str(&format!("; {missed} of {tile} elements never loaded"));
    }
    Ok(TvTable { idx, not_bijective })
}

/// What happens to one atom the engine knows.
#[derive(Clone, Debug)]
pub enum Plan {
    /// mma.sync: CuTe's tables (if they can be made) and the corrected ones (if any).
    Mma(Vec<MmaCase>),
    Gmma(Box<GmmaCase>),
    Copy(CopyCase),
    /// An SM90 sparse GMMA atom (SS): run by `cargo xtask gpu-sparse` (`gpu::sparse`), recorded
    /// in `fixtures/gpu/h200-sparse/`, not by `cargo xtask gpu`.
    Sparse(Box<SparseCase>),
    Skip {
        atom: String,
        reason: String,
    },
}

/// Every atom the engine knows and what the run does with it.
pub fn plan() -> Result<Vec<Plan>> {
    let fixes = corrections()?;
    let mut out = Vec::new();
    let mut gmma_index = 0usize;
    // The sparse GMMA atoms (listed last): their metadata operand needs a kernel of its own
    // (`gpu::sparse`, `cargo xtask gpu-sparse`); the SS ones run there, the RS ones are skipped.
    let (sparse, dense): (Vec<String>, Vec<String>) =
        mma_atom_names().into_iter().partition(|n| n.starts_with("SM90::GMMA::SPARSE::"));
    // The SM100 vector FMAs of the fixed table (FFMA2, `SM100_2x1x1/1x2x1_F32F32F32F32`): sm_100
    // instructions the H200 cannot run, listed last as skips so the H200 kernels keep their numbers.
    let (blackwell, dense): (Vec<String>, Vec<String>) = dense.into_iter().partition(|n| is_blackwell_fixed(n));
    for (i, name) in dense.into_iter().enumerate() {
        if name.starts_with("UniversalFMA") {
            out.push(Plan::Skip {
                atom: name,
                reason:
                    "one thread's scalar multiply-add (1x1x1, no tensor-core instruction): no register layout to prove"
                        .into(),
            });
            continue;
        }
        if name.starts_with("SM90_64x") {
            let n = gmma_parts(&name).map(|p| p.0).unwrap_or(0);
            if rs_with_mn_major_a(&name) {
                out.push(Plan::Skip {
                    atom: name,
                    reason: "RS with MN-major A: CuTe static_asserts K-major register A".into(),
                });
            } else if !GMMA_RUN_N.contains(&n) {
                out.push(Plan::Skip {
                    atom: name,
                    reason: format!(
                        "not in this run: GMMA atoms run at N in {GMMA_RUN_N:?} for every family, source and major; N = {n} \
                         uses the same engine layout generator (C ((4,8,4),(2,2,N/8)))"
                    ),
                });
            } else {
                out.push(Plan::Gmma(Box::new(gmma_case(&name, gmma_index)?)));
                gmma_index += 1;
            }
            continue;
        }
        let atom = mma_atom(&name).map_err(|e| anyhow!("{name}: {e}"))?;
        match mma_cases(&atom, i, &fixes) {
            Ok(cases) => out.push(Plan::Mma(cases)),
            Err(reason) => out.push(Plan::Skip { atom: name, reason }),
        }
    }
    for c in copy_cases()? {
        out.push(Plan::Copy(c));
    }
    let mut sparse_index = 0usize;
    for name in sparse {
        match sparse_skip(&name) {
            None => {
                out.push(Plan::Sparse(Box::new(sparse_case(&name, sparse_index)?)));
                sparse_index += 1;
            }
            Some(reason) => out.push(Plan::Skip { atom: name, reason }),
        }
    }
    for name in blackwell {
        out.push(Plan::Skip {
            atom: name,
            reason: "an SM100 vector FMA (FFMA2, sm_100 only): no Blackwell device is lent, and the sm_100a build \
                     (cargo xtask gpu-sm100) does not include it yet"
                .into(),
        });
    }
    Ok(out)
}

/// Whether a fixed-table MMA atom is an SM100 instruction the H200 run cannot execute.
pub fn is_blackwell_fixed(name: &str) -> bool {
    name.starts_with("SM100_")
}

/// The mma.sync cases of a plan.
pub fn mma_of(plan: &[Plan]) -> Vec<MmaCase> {
    plan.iter().filter_map(|p| if let Plan::Mma(c) = p { Some(c.clone()) } else { None }).flatten().collect()
}

/// The GMMA cases of a plan.
pub fn gmma_of(plan: &[Plan]) -> Vec<GmmaCase> {
    plan.iter().filter_map(|p| if let Plan::Gmma(c) = p { Some((**c).clone()) } else { None }).collect()
}

/// The sparse GMMA cases of a plan.
pub fn sparse_of(plan: &[Plan]) -> Vec<SparseCase> {
    plan.iter().filter_map(|p| if let Plan::Sparse(c) = p { Some((**c).clone()) } else { None }).collect()
}

/// The copy cases of a plan.
pub fn copy_of(plan: &[Plan]) -> Vec<CopyCase> {
    plan.iter().filter_map(|p| if let Plan::Copy(c) = p { Some(c.clone()) } else { None }).collect()
}

/// `plan.json`: every atom with its check (instruction, tables, smem atoms, layouts) or skip
/// reason.
pub fn plan_json(plan: &[Plan]) -> Result<String> {
    let plan_json: Vec<serde_json::Value> = plan
        .iter()
        .map(|p| match p {
            Plan::Mma(cs) => serde_json::json!({"atom": cs[0].op, "check": "mma.sync", "instruction": cs[0].ptx,
                "tables": cs.iter().map(|c| c.name.clone()).collect::<Vec<_>>(), "finding": cs.iter().any(|c| c.finding),
                "note": cs.iter().map(|c| c.note.clone()).filter(|n| !n.is_empty()).collect::<Vec<_>>().join(" / ")}),
            Plan::Gmma(c) => serde_json::json!({"atom": c.name, "check": "wgmma", "instruction": c.ptx,
                "smem_a": c.a.as_ref().map(|a| a.atom.clone()), "smem_b": c.b.atom, "ktot": c.ktot}),
            Plan::Copy(c) => serde_json::json!({"atom": format!("Copy_Atom<{},{}>", c.op, c.val_type), "check": c.kind,
                "src": c.src_layout, "dst": c.dst_layout}),
            Plan::Sparse(c) => serde_json::json!({"atom": c.name, "check": "sparse", "run": "cargo xtask gpu-sparse",
                "layout_e": c.e_layout, "layout_c": c.c_layout, "smem_a": c.a.atom, "smem_b": c.b.atom}),
            Plan::Skip { atom, reason } => serde_json::json!({"atom": atom, "check": "skip", "reason": reason}),
        })
        .collect();
    Ok(serde_json::to_string_pretty(&plan_json)? + "\n")
}
