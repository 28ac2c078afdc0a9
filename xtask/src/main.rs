//! `cargo xtask`: the project's tasks (tests, bless, conformance), written in Rust.
//!
//! - `cargo xtask test`: provision CuTe 4.2 and the CuTe DSL, then `cargo test --workspace` with
//!   `CUTECHECK_CUTE` and `CUTECHECK_DSL` set, so the tests against real CuTe and the DSL run
//!   (without them they are reported as ignored).
//! - `cargo xtask dsl provision|bench`: the CuTe DSL oracle (dsl.rs).
//! - `cargo xtask cutlass --version V`: provision a CUTLASS version and print where it is.
//! - `cargo xtask bless [--check] [--all-versions]`: record real CuTe's output for every case
//!   file into `snapshots/` (the only writer of recorded CuTe output), or re-verify it (bless.rs).
//! - `cargo xtask conformance`: fixed suites plus seeded random cases, engine vs CuTe, with a
//!   summary table and `target/cutecheck/report.{md,json}`.
//! - `cargo xtask coverage`: line coverage of CuTe's headers, random run vs CUTLASS's tests.
//! - `cargo xtask bench`: the oracle's speed (BENCHMARKS.md).
//! - `cargo xtask gpu`: the MMA register layouts on a real GPU (gpu.rs; exit 3 without one).
//! - `cargo xtask gpu-sparse`: CuTe's SM90 sparse GMMA atoms on a real GPU against the engine (gpu_sparse.rs).
//! - `cargo xtask gpu-tma`: random TMA copies on a real GPU against the engine (gpu_tma.rs).
//! - `cargo xtask gpu-sm100`: the Blackwell atom programs built for sm_100a / sm_120a, SASS read back, not run (gpu_sm100.rs).

mod atom_releases;
mod bench;
mod bless;
mod conformance;
mod coverage;
mod cxx_tokens;
mod dsl;
mod dsl_bench;
mod dynamic;
mod extract;
mod fuzz_cli;
mod gpu;
mod gpu_sm100;
mod gpu_sparse;
mod gpu_tma;
mod kernel_forms;
mod kernel_stages;
mod pycute;
mod random;
mod release_diff;
mod repro;
mod soak;
mod sourcegen;

use std::process::{Command, ExitCode};

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use cutecheck::oracle::{provision, OracleArgs};

#[derive(Parser)]
#[command(name = "xtask")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Provision CuTe 4.2, then run every test of the workspace (tests against real CuTe included).
    Test,
    /// The CuTe DSL oracle: provision it, or benchmark it (xtask/src/dsl.rs).
    Dsl {
        #[command(subcommand)]
        cmd: dsl::DslCmd,
    },
    /// Check the MMA register layouts on a real GPU (exit 3: no GPU here).
    Gpu(gpu::GpuArgs),
    /// The SM100/SM120 atom programs built for sm_100a / sm_120a with the provisioned nvcc, their
    /// SASS read back with cuobjdump (no GPU; built, not run): gpu_sm100.rs
    GpuSm100(gpu_sm100::Args),
    /// CuTe's SM90 sparse GMMA atoms on an sm_90a GPU, laid out by the engine (gpu_sparse.rs).
    #[command(name = "gpu-sparse")]
    GpuSparse(gpu_sparse::Args),
    /// The TMA proof on silicon: random TMA copies built by CuTe's make_tma_copy on the GPU, every
    /// element against the engine's layouts, and a corrupted twin that must fail (gpu_tma.rs).
    #[command(name = "gpu-tma")]
    GpuTma(gpu_tma::TmaArgs),
    /// Provision a CUTLASS version (headers from the PyPI wheel) and print its include directory.
    Cutlass {
        #[arg(long, default_value = provision::DEFAULT_CUTLASS)]
        version: String,
        /// Also provision the CUDA 13 nvcc tree used by `--cxx nvcc`.
        #[arg(long)]
        nvcc: bool,
    },
    /// Record real CuTe's output for every case file into snapshots/ (the only writer of recorded
    /// CuTe output), or --check every recorded file against real CuTe (bless.rs).
    #[command(alias = "oracle")]
    Bless(bless::BlessArgs),
    /// Fixed suites and random cases through the engine and real CuTe; exit 1 on any
    /// unexplained disagreement.
    Conformance {
        #[command(flatten)]
        args: OracleArgs,
        #[command(flatten)]
        run: conformance::RunArgs,
    },
    /// Write a standalone C++ reproducer of a case (CuTe only, brute-force definition check),
    /// compile and run it once; files under target/cutecheck/repro/<id>/.
    Repro {
        #[command(flatten)]
        args: OracleArgs,
        /// The case(s), in the expression language.
        #[arg(required = true)]
        exprs: Vec<String>,
    },
    /// Fixed suites and the same seeded random cases on two CUTLASS versions: every case whose
    /// CuTe output changed, with the engine's verdict against both.
    ReleaseDiff(release_diff::DiffArgs),
    /// CUTLASS's unit tests of the layout algebra (a local copy) into fixtures/cases/cutlass_tests.cases.
    ExtractCutlassTests(extract::ExtractArgs),
    /// The layouts, tiled copies and tiled MMAs of CUTLASS's CuTe tutorials into fixtures/cases/kernel_forms.cases.
    ExtractKernelForms(kernel_forms::KernelFormsArgs),
    /// Which modelled CUTLASS release first declares each atom (harness/engine/atom/since.rs, read
    /// from every release's headers); --check fails when the file is stale.
    AtomReleases {
        #[arg(long)]
        check: bool,
        /// A CUTLASS checkout (or its include/) for a modelled release no wheel ships (4.7.0);
        /// repeatable, each matched to its release by its version.h.
        #[arg(long = "cutlass-dir", value_name = "DIR")]
        cutlass_dirs: Vec<std::path::PathBuf>,
        /// A CUTLASS git repository (a bare clone will do): every modelled release is read from its
        /// tag vMAJOR.MINOR.PATCH instead of a wheel or checkout.
        #[arg(long = "cutlass-git", value_name = "REPO", conflicts_with = "cutlass_dirs")]
        cutlass_git: Option<std::path::PathBuf>,
    },
    /// Write the other languages' lists of operations from the Rust tables; --check fails on a stale one.
    Sourcegen {
        #[arg(long)]
        check: bool,
    },
    /// Line coverage of CuTe's algebra headers: a seeded random run vs CUTLASS's own unit-test
    /// cases, compiled with g++ --coverage; target/cutecheck/coverage.json.
    Coverage(coverage::CoverageArgs),
    /// The proof soak (`--cases 100000`): `conformance --no-fixed` on every modelled release (or
    /// each --release V) with one seed, one line per release (xtask/src/soak.rs).
    Soak(soak::SoakArgs),
    /// Fuzz the expression parser, the engine and the CLI's stdin path for --minutes; failing
    /// inputs are kept in fixtures/fuzz_regressions.txt (xtask/src/fuzz_cli.rs).
    Fuzz(fuzz_cli::FuzzArgs),
    /// Time the oracle on static random cases: one TU per case, batched, batched + PCH, warm cache.
    Bench {
        #[command(flatten)]
        args: OracleArgs,
        #[arg(long, default_value_t = 40)]
        cases: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Skip the one-TU-per-case configurations (slow for many cases).
        #[arg(long)]
        skip_single: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Test => test(),
        Cmd::Gpu(args) => return gpu::main(args),
        Cmd::GpuSm100(a) => gpu_sm100::main(&a),
        Cmd::GpuTma(args) => return gpu_tma::main(args),
        Cmd::GpuSparse(args) => {
            return gpu_sparse::main(args).unwrap_or_else(|e| {
                eprintln!("xtask gpu-sparse: {e:#}");
                ExitCode::from(2)
            })
        }
        Cmd::Dsl { cmd } => dsl::main(cmd),
        Cmd::Cutlass { version, nvcc } => cutlass(&version, nvcc),
        Cmd::Bless(a) => bless::run(&a),
        Cmd::Conformance { args, run } => conformance::run(&args, &run),
        Cmd::Repro { args, exprs } => repro::run(&args, &exprs),
        Cmd::ReleaseDiff(a) => release_diff::run(&a),
        Cmd::ExtractCutlassTests(a) => extract::run(&a),
        Cmd::ExtractKernelForms(a) => kernel_forms::run(&a),
        Cmd::AtomReleases { check, cutlass_dirs, cutlass_git } => {
            atom_releases::run(check, &cutlass_dirs, cutlass_git.as_deref())
        }
        Cmd::Sourcegen { check } => sourcegen::run(check),
        Cmd::Coverage(a) => coverage::run(&a),
        Cmd::Bench { args, cases, seed, skip_single } => bench::run(&args, cases, seed, skip_single),
        Cmd::Fuzz(a) => fuzz_cli::run(&a),
        Cmd::Soak(a) => soak::run(&a),
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn test() -> Result<bool> {
    let prov = provision::Provisioner::new()?;
    let h = prov.cutlass(provision::DEFAULT_CUTLASS)?;
    prov.cuda()?;
    eprintln!("xtask: CuTe headers at {}", h.include_dir.display());
    // The CuTe DSL (about 105 MB of wheels, 20 s cold, 0.4 s cached): its tests run when it is
    // provisioned and are reported as ignored, with the reason, when it cannot be.
    let dsl = match cutecheck::oracle::dsl::provision::provision(true) {
        Ok(i) => {
            eprintln!("xtask: {} at {}", i.describe, i.site.display());
            true
        }
        Err(e) => {
            eprintln!("warning: the CuTe DSL could not be provisioned ({e:#}); its tests will be ignored");
            false
        }
    };
    // The cargo that runs this xtask (a copied binary: the one on PATH), on the checkout it works on.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // The in-process oracle (cpp/ffi) is built and tested too.
    let ffi_env = cutecheck::oracle::inproc::provision::build_env(&prov, provision::DEFAULT_CUTLASS)?;
    // The habits first, as CI runs them: formatting, then clippy on exactly what the tests build
    // (the same environment, so the in-process oracle's code is linted too).
    let root = cutecheck::oracle::repo_root();
    let fmt = Command::new(&cargo).current_dir(&root).args(["fmt", "--all", "--check"]).status();
    if !fmt.context("running cargo fmt --check")?.success() {
        eprintln!("xtask: `cargo fmt --all --check` failed: run `cargo fmt --all`");
        return Ok(false);
    }
    let mut clippy = Command::new(&cargo);
    clippy
        .current_dir(&root)
        .args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])
        .envs(ffi_env.clone())
        .env("CUTECHECK_CUTE", provision::DEFAULT_CUTLASS);
    if dsl {
        clippy.env("CUTECHECK_DSL", "1");
    }
    if !clippy.status().context("running cargo clippy")?.success() {
        eprintln!("xtask: `cargo clippy --workspace --all-targets -- -D warnings` failed");
        return Ok(false);
    }
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args(["test", "--workspace", "--no-fail-fast"])
        .envs(ffi_env)
        .env("CUTECHECK_CUTE", provision::DEFAULT_CUTLASS);
    if dsl {
        cmd.env("CUTECHECK_DSL", "1");
    }
    let status = cmd.status().context("running cargo test")?;
    Ok(status.success())
}

fn cutlass(version: &str, nvcc: bool) -> Result<bool> {
    let prov = provision::Provisioner::new()?;
    let h = prov.cutlass(version)?;
    let c = prov.cuda()?;
    // libclang for bindgen (the in-process oracle's build), provisioned alongside.
    cutecheck::oracle::inproc::provision::libclang_dir(&prov)?;
    println!("{}", h.include_dir.display());
    for d in &c.include_dirs {
        println!("{}", d.display());
    }
    if nvcc {
        println!("{}", prov.nvcc13()?.display());
    }
    Ok(true)
}

/// mimalloc: the dynamic path allocates for every case (parsing, the engine's tuples, the judge's
/// reports) and glibc's malloc was a fifth of its profile (BENCHMARKS.md, "Dynamic cases").
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
