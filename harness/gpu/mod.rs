//! The GPU check of the MMA and copy atoms (`cargo xtask gpu`), without the GPU: what is checked,
//! the generated CUDA, and the reading of what the programs found.
//!
//! The atom list comes from the engine: every MMA atom it knows (`mma_atom_names`: SM61, SM70,
//! SM75, SM80, SM89, SM90 mma.sync and the SM90 GMMA families) and the warp-wide copy atoms
//! (ldmatrix, stmatrix, movmatrix) and cp.async. For each atom the [`plan`] either holds a check
//! (the engine's (thread, value) tables, the instruction's PTX spelled from the atom's name
//! ([`ptx`]), shared-memory offsets and descriptors from the engine's GMMA smem layout atoms) or
//! lists it as skipped with the reason. No layout is written here: the tables are the engine's, and
//! the corrections used where CuTe's traits are wrong are data (`fixtures/gpu/corrections.txt`).
//!
//! - [`plan`]: the plan ([`plan()`]), one module per check kind (`mma_sync`, `gmma`, `copy`).
//! - [`ptx`]: element codes, the PTX of an atom from its name, the wgmma matrix descriptor.
//! - [`tables`]: the tables files the programs read; [`cuda`]: the generated CUDA, one generator
//!   per kind of program part; [`work`]: every generated file of the work folder, by path.
//! - [`results`]: the `results_*.json` the programs wrote, as rows; [`report`]: each row's
//!   expected verdict, the run's verdict, `summary.json`.
//!
//! The GPU side (`cpp/gpu/run.sh`, nvcc and a GPU, no Rust) builds the CUDA programs, partly
//! generated into the work folder (`gen_*.cuh`, `cute_part*.cu`), runs them and writes
//! `results_*.json`; xtask's `gpu` command writes the work folder, runs run.sh and prints the
//! summary: every atom, every check, its verdict.
//!
//! Checks: `mma_check` (mma.sync: 1 = tables on silicon vs a float64/integer reference, 3 =
//! ownership of each accumulator register); `cute_gemm` (2 = CuTe's make_tiled_mma + gemm);
//! `gmma_check` (wgmma, inline PTX: C layout and, for RS, A register layout, SS/RS, both majors,
//! smem from the engine's layout atoms; ownership); `copy_check` (ldmatrix/stmatrix/movmatrix: each
//! lane's registers or the destination rows against the engine's Src/Dst TV layouts; cp.async).
//!
//! Exit codes of the command: 0 every row shows what it must, 1 a row does not, 2 an error (build,
//! CUDA, files), [`NO_GPU`] = 3 no GPU (no nvcc or nvidia-smi, or no device listed): nothing was
//! checked.

pub mod access;
pub mod cuda;
pub mod plan;
pub mod ptx;
pub mod report;
pub mod results;
pub mod sm100;
pub mod sparse;
pub mod tables;
pub mod tma;
pub mod vector;
pub mod work;

use std::path::PathBuf;
use std::process::Command;

pub use cuda::cute_gmma::gen_cute_gmma;
pub use cuda::cute_mma::{gen_cute, gen_cute_parts_header};
pub use cuda::gmma::{gen_gmma_ops, gen_gmma_parts};
pub use cuda::mma_sync::gen_mma_ops;
pub use cuda::{CUTE_GMMA_PARTS, CUTE_PARTS, GMMA_PARTS};
pub use plan::copy::{copy_cases, CopyCase};
pub use plan::gmma::{gmma_case, smem_operand, GmmaCase, SmemOperand, GMMA_RUN_N, SMEM_KINDS};
pub use plan::mma_sync::{corrupt, mma_cases, predicted_owners, MmaCase};
pub use plan::{
    copy_of, corrections, gmma_of, is_blackwell_fixed, mma_of, plan, plan_json, sparse_of, tv_table, Correction, Plan,
    TvTable,
};
pub use ptx::{elem_bits, elem_of};
pub use report::{counts, expected, finding_atoms, summary_json, summary_table, verdict};
pub use results::{read_results, Row, RESULT_RUNS};
pub use tables::{copy_tables_file, gmma_tables_file, tables_file};
pub use work::work_files;

/// Exit code when there is no GPU to run on.
pub const NO_GPU: u8 = 3;

/// Why this machine cannot run the GPU checks, if it cannot: `nvcc` and `nvidia-smi` must be on
/// `path` and nvidia-smi must list a device.
pub fn gpu_missing(path: Option<&std::ffi::OsStr>) -> Option<String> {
    let dirs: Vec<PathBuf> = path.map(|p| std::env::split_paths(p).collect()).unwrap_or_default();
    let find = |exe: &str| dirs.iter().map(|d| d.join(exe)).find(|p| p.is_file());
    let Some(_nvcc) = find("nvcc") else { return Some("nvcc is not on PATH".into()) };
    let Some(smi) = find("nvidia-smi") else { return Some("nvidia-smi is not on PATH".into()) };
    match Command::new(smi).args(["--query-gpu=compute_cap", "--format=csv,noheader"]).output() {
        Ok(o) if o.status.success() && !String::from_utf8_lossy(&o.stdout).trim().is_empty() => None,
        Ok(o) => Some(format!("nvidia-smi lists no GPU ({})", String::from_utf8_lossy(&o.stderr).trim())),
        Err(e) => Some(format!("nvidia-smi failed: {e}")),
    }
}
