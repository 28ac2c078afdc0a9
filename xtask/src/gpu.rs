//! `cargo xtask gpu`: proves the engine's MMA and copy atom layouts on real hardware.
//!
//! The command only: its arguments, writing the work folder (the plan's generated tables, CUDA
//! and `plan.json` from [`cutecheck::gpu`], and the fixed GPU sources of `cpp/gpu`), running
//! `cpp/gpu/run.sh` (nvcc and a GPU, no Rust), which builds and runs the CUDA programs and writes
//! `results_*.json`, and printing the summary and writing `summary.json`. What is checked, the
//! generated code and the verdicts are `cutecheck::gpu`'s (harness/gpu/).
//!
//! Exit codes: 0 every row shows what it must, 1 a row does not, 2 an error (build, CUDA, files),
//! 3 no GPU (no nvcc or nvidia-smi, or no device listed): nothing was checked.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};
use cutecheck::gpu::{self, Plan, NO_GPU, RESULT_RUNS};

#[path = "gpu_access.rs"]
mod access;

/// Writes the tables, the generated code and the plan (`plan.json`: every atom with its check or
/// skip reason) into `dir`, and copies the GPU sources to `dir/src` so that the folder is
/// self-contained.
pub fn prepare(dir: &Path, src: &Path) -> Result<Vec<Plan>> {
    std::fs::create_dir_all(dir.join("src")).with_context(|| format!("creating {}", dir.display()))?;
    let plan = gpu::plan()?;
    for (path, text) in gpu::work_files(&plan)? {
        let p = dir.join(path);
        std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?;
    }
    for entry in std::fs::read_dir(src).with_context(|| format!("reading {}", src.display()))? {
        let p = entry?.path();
        if p.is_file() {
            let name = p.file_name().unwrap_or_default();
            std::fs::copy(&p, dir.join("src").join(name)).with_context(|| format!("copying {}", p.display()))?;
        }
    }
    Ok(plan)
}

/// Reads a run folder, prints the summary, writes `summary.json`; the exit code by verdicts.
pub fn report(dir: &Path) -> Result<bool> {
    let (rows, info) = gpu::read_results(dir)?;
    println!("{}", gpu::summary_table(&rows));
    let ok = gpu::verdict(&rows);
    for ((run, check, v), n) in gpu::counts(&rows) {
        println!("  {run:<8} {check:<13} {v:<5} {n}");
    }
    let json = gpu::summary_json(&rows, &info);
    std::fs::write(dir.join("summary.json"), serde_json::to_string_pretty(&json)? + "\n")?;
    println!("summary: {} ({})", if ok { "PASS" } else { "FAIL" }, dir.join("summary.json").display());
    Ok(ok)
}

#[derive(clap::Args, Debug)]
pub struct GpuArgs {
    /// Run check 1 on deliberately corrupted A tables (two values of ALayout swapped) instead;
    /// passes when every atom's check 1 fails.
    #[arg(long)]
    pub corrupt: bool,
    /// Run the normal checks and the corrupted-table run.
    #[arg(long, conflicts_with = "corrupt")]
    pub all: bool,
    /// Seed for the random inputs (default: fresh each run; printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Work folder for tables, binaries and results.
    #[arg(long, default_value = "target/gpu")]
    pub work: PathBuf,
    /// Only write the tables and sources into this folder (for running run.sh elsewhere).
    #[arg(long, value_name = "DIR")]
    pub prepare: Option<PathBuf>,
    /// Only read the results in this folder (e.g. a recorded run) and print the summary.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// The memory access check instead: random warp-wide loads (`warp_access`), one kernel each
    /// under ncu, every figure of the engine against ncu's counters. With --prepare: only write
    /// the cases and the sources; with --report: compare a run's ncu.csv with the engine.
    #[arg(long)]
    pub access: bool,
    /// With --access: the second run's cases instead (the users' cases from CUTLASS's tracker,
    /// shared loads whose half warps differ, st.shared, ldmatrix, stmatrix, cp.async).
    #[arg(long, requires = "access")]
    pub ops: bool,
    /// With --access: the third run's cases instead (shared 8/16-byte loads and stores whose
    /// quads read one address, two in pairs, or two unpaired).
    #[arg(long, requires = "access", conflicts_with = "ops")]
    pub quads: bool,
    /// The SASS check of CuTe's copy vector width instead (nvcc and cuobjdump, no GPU): writes
    /// vector_cases.cu, builds it for sm_90, reads the loads back; with --report DIR re-reads a
    /// recorded sass.txt.
    #[arg(long, conflicts_with = "access")]
    pub vector: bool,
    /// How many random cases the access check draws (after the chapter's six).
    #[arg(long, default_value_t = 2500)]
    pub cases: usize,
}

/// CuTe's include directory: `$CUTE_INCLUDE`, else CUTLASS 4.2 as the oracle provisions it.
pub fn cute_include() -> Result<PathBuf> {
    let include = match std::env::var_os("CUTE_INCLUDE") {
        Some(p) => PathBuf::from(p),
        None => {
            use cutecheck::oracle::provision::{Provisioner, DEFAULT_CUTLASS};
            Provisioner::new()?.cutlass(DEFAULT_CUTLASS).context("provisioning CuTe (or set CUTE_INCLUDE)")?.include_dir
        }
    };
    if !include.join("cute/tensor.hpp").is_file() {
        bail!("CuTe headers not found at {} (set CUTE_INCLUDE)", include.display());
    }
    Ok(include)
}

/// The checkout whose `cpp/gpu` is used: the current directory if it has one (so that a copied
/// xtask binary works in a copied checkout), else the one this xtask was built from.
fn repo_root() -> PathBuf {
    if let Ok(cwd) = std::env::current_dir() {
        if cwd.join("cpp/gpu/run.sh").is_file() {
            return cwd;
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

pub fn main(args: GpuArgs) -> ExitCode {
    match run(args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: GpuArgs) -> Result<u8> {
    let root = repo_root();
    let src = root.join("cpp/gpu");
    if args.access {
        return access::run(&args, &src);
    }
    if args.vector {
        return access::vector(&args);
    }
    if let Some(dir) = &args.report {
        return Ok(if report(dir)? { 0 } else { 1 });
    }
    if let Some(dir) = &args.prepare {
        let plan = prepare(dir, &src)?;
        let (mut m, mut g, mut c, mut s, mut sp) = (0, 0, 0, 0, 0);
        for p in &plan {
            match p {
                Plan::Mma(cs) => {
                    m += 1;
                    for t in cs.iter().filter(|t| !t.note.is_empty()) {
                        println!("{}: {}", t.name, t.note);
                    }
                }
                Plan::Gmma(_) => g += 1,
                Plan::Copy(_) => c += 1,
                Plan::Sparse(_) => sp += 1,
                Plan::Skip { .. } => s += 1,
            }
        }
        println!(
            "plan: {m} mma.sync atoms, {g} GMMA atoms, {c} copy atoms checked; {sp} sparse GMMA atoms (cargo xtask \
             gpu-sparse); {s} skipped (plan.json says why)"
        );
        println!("wrote tables and sources to {}", dir.display());
        return Ok(0);
    }
    if let Some(why) = gpu::gpu_missing(std::env::var_os("PATH").as_deref()) {
        println!("no GPU: {why}; nothing was checked (exit {NO_GPU})");
        return Ok(NO_GPU);
    }
    let include = cute_include()?;
    let work = if args.work.is_absolute() { args.work.clone() } else { root.join(&args.work) };
    for run in RESULT_RUNS {
        let _ = std::fs::remove_file(work.join(format!("results_{run}.json")));
    }
    prepare(&work, &src)?;
    let mode = if args.all {
        "all"
    } else if args.corrupt {
        "corrupt"
    } else {
        "normal"
    };
    let mut cmd = Command::new("bash");
    cmd.arg(work.join("src/run.sh")).arg(work.join("src")).arg(&work).arg(&include).arg(mode);
    if let Some(s) = args.seed {
        cmd.arg(s.to_string());
    }
    let status = cmd.status().context("running run.sh")?;
    match status.code() {
        Some(3) => {
            println!("no GPU (run.sh); nothing was checked (exit {NO_GPU})");
            return Ok(NO_GPU);
        }
        Some(2) | None => {
            eprintln!("run.sh failed ({status}); see the logs in {}", work.display());
            let _ = report(&work);
            return Ok(2);
        }
        _ => {}
    }
    Ok(if report(&work)? { 0 } else { 1 })
}
