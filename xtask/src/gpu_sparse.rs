//! `cargo xtask gpu-sparse`: CuTe's SM90 sparse GMMA atoms on a real sm_90a GPU, their operands
//! (compressed A and B in shared memory, C and D, the metadata register) laid out by the engine
//! (`cutecheck::gpu::sparse`), and a permuted metadata layout that must fail.
//!
//! Writes the work folder (tables, generated CUDA), then runs `cpp/gpu/sparse_run.sh` (nvcc and an
//! sm_90 GPU, no Rust). `--write-only` writes the folder and stops (to build or run it elsewhere).
//! Exit codes: 0 every atom passes and every corrupted twin fails, 1 not, 2 an error, 3 no GPU.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use anyhow::{Context, Result};
use cutecheck::gpu::{self, sparse, NO_GPU};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The work folder (default target/gpu-sparse).
    #[arg(long)]
    pub work: Option<PathBuf>,
    /// Translation units of generated kernels (built in parallel).
    #[arg(long, default_value_t = 16)]
    pub parts: usize,
    /// Write the work folder only.
    #[arg(long)]
    pub write_only: bool,
    /// Repeat a run's random inputs.
    #[arg(long)]
    pub seed: Option<u64>,
}

pub fn main(a: Args) -> Result<ExitCode> {
    let root = cutecheck::oracle::repo_root();
    let work = a.work.clone().unwrap_or_else(|| root.join("target/gpu-sparse"));
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let files = sparse::sparse_work_files(a.parts.max(1))?;
    for (name, text) in &files {
        std::fs::write(work.join(name), text).with_context(|| format!("writing {name}"))?;
    }
    println!("xtask: {} sparse SS atoms, {} files in {}", sparse::sparse_cases()?.len(), files.len(), work.display());
    if a.write_only {
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(why) = gpu::gpu_missing(std::env::var_os("PATH").as_deref()) {
        eprintln!("xtask gpu-sparse: no GPU: {why}");
        return Ok(ExitCode::from(NO_GPU));
    }
    let inc = std::env::var("CUTE_INCLUDE").context("CUTE_INCLUDE: the CUTLASS include folder")?;
    let mut cmd = Command::new("bash");
    cmd.arg(root.join("cpp/gpu/sparse_run.sh")).arg(root.join("cpp/gpu")).arg(&work).arg(inc);
    if let Some(s) = a.seed {
        cmd.arg(s.to_string());
    }
    let st = cmd.status().context("running sparse_run.sh")?;
    Ok(ExitCode::from(st.code().unwrap_or(2) as u8))
}
