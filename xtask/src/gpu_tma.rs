//! `cargo xtask gpu-tma`: the TMA proof on silicon (`cutecheck::gpu::tma`).
//!
//! `--prepare DIR` writes the plan (`cases.txt`), the generated CUDA (`tma_parts.cuh`,
//! `tma_part*.cu`) and the sources (`cpp/gpu/tma_check.cu{,h}`, `tma_run.sh`) into DIR, for
//! running `tma_run.sh DIR` on the device (nvcc and a GPU, no Rust). `--report DIR` compares a
//! run (`results.txt`, `results_corrupt.txt`) with the engine and writes `summary.txt`; it passes
//! when every case agrees and the corrupted twin fails on every case but those `summary.txt`
//! explains. Without either: prepare into `--work`, run tma_run.sh there, report. Exit: 0 as it
//! must be, 1 not, 2 error, 3 no GPU.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result};
use cutecheck::gpu::tma;

#[derive(clap::Args, Debug)]
pub struct TmaArgs {
    /// Seed of the random cases.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How many random cases.
    #[arg(long, default_value_t = 600)]
    pub cases: usize,
    /// Work folder.
    #[arg(long, default_value = "target/gpu/tma")]
    pub work: PathBuf,
    /// Only write the plan and the sources into this folder.
    #[arg(long, value_name = "DIR")]
    pub prepare: Option<PathBuf>,
    /// Only compare the run recorded in this folder with the engine.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
}

const SOURCES: [&str; 3] = ["tma_check.cu", "tma_check.cuh", "tma_run.sh"];

fn src_dir() -> PathBuf {
    if let Ok(cwd) = std::env::current_dir() {
        if cwd.join("cpp/gpu/tma_run.sh").is_file() {
            return cwd.join("cpp/gpu");
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(|p| p.join("cpp/gpu"))
        .unwrap_or_else(|| PathBuf::from("cpp/gpu"))
}

pub fn prepare(dir: &Path, seed: u64, n: usize) -> Result<Vec<tma::TmaCase>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let cases = tma::random_cases(seed, n)?;
    std::fs::write(dir.join("cases.txt"), tma::cases_file(seed, &cases))?;
    for (name, text) in tma::cuda_files(&cases) {
        std::fs::write(dir.join(name), text)?;
    }
    let src = src_dir();
    for f in SOURCES {
        std::fs::copy(src.join(f), dir.join(f)).with_context(|| format!("copying {f}"))?;
    }
    println!("gpu-tma: seed {seed}, {} cases written to {}", cases.len(), dir.display());
    for (k, v) in tma::tally(&cases) {
        println!("  {k}: {v}");
    }
    Ok(cases)
}

/// Compares the run in `dir`; true when it is as it must be.
pub fn report(dir: &Path) -> Result<bool> {
    let plan = std::fs::read_to_string(dir.join("cases.txt")).context("reading cases.txt")?;
    let (seed, n) = tma::plan_seed(&plan)?;
    let cases = tma::random_cases(seed, n)?;
    anyhow::ensure!(tma::cases_file(seed, &cases) == plan, "cases.txt is not what seed {seed} draws now");
    let res = tma::read_results(&std::fs::read_to_string(dir.join("results.txt")).context("reading results.txt")?)?;
    let v = tma::compare(&cases, &res, false)?;
    let cv = match std::fs::read_to_string(dir.join("results_corrupt.txt")) {
        Ok(t) => Some(tma::compare(&cases, &tma::read_results(&t)?, true)?),
        Err(_) => None,
    };
    let s = tma::summary(&cases, &v, cv.as_deref());
    print!("{s}");
    std::fs::write(dir.join("summary.txt"), &s)?;
    Ok(tma::run_is_sound(&cases, &v, cv.as_deref()))
}

pub fn main(args: TmaArgs) -> ExitCode {
    let r = (|| -> Result<u8> {
        if let Some(dir) = &args.report {
            return Ok(if report(dir)? { 0 } else { 1 });
        }
        if let Some(dir) = &args.prepare {
            prepare(dir, args.seed, args.cases)?;
            return Ok(0);
        }
        if let Some(why) = cutecheck::gpu::gpu_missing(std::env::var_os("PATH").as_deref()) {
            println!("no GPU: {why}; nothing was checked (exit {})", cutecheck::gpu::NO_GPU);
            return Ok(cutecheck::gpu::NO_GPU);
        }
        prepare(&args.work, args.seed, args.cases)?;
        let include = super::gpu::cute_include()?;
        let st = Command::new("bash")
            .arg(args.work.join("tma_run.sh"))
            .arg(&args.work)
            .env("CUTE_INCLUDE", include)
            .status()
            .context("running tma_run.sh")?;
        match st.code() {
            Some(0) => Ok(if report(&args.work)? { 0 } else { 1 }),
            Some(3) => Ok(cutecheck::gpu::NO_GPU),
            _ => Ok(2),
        }
    })();
    match r {
        Ok(c) => ExitCode::from(c),
        Err(e) => {
            eprintln!("gpu-tma: {e:#}");
            ExitCode::from(2)
        }
    }
}
