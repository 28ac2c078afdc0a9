//! `cargo xtask`: the project's tasks (tests, oracle, conformance), written in Rust.
//!
//! - `cargo xtask test`: provision CuTe 4.2, then `cargo test --workspace` with `CUTECHECK_CUTE`
//!   set, so the tests against real CuTe run (without it they are reported as ignored).
//! - `cargo xtask cutlass --version V`: provision a CUTLASS version and print where it is.
//! - `cargo xtask oracle [--check]`: record real CuTe's output for every fixed suite into
//!   `snapshots/` (or check that it still prints that).
//! - `cargo xtask conformance`: fixed suites plus seeded random cases, engine vs CuTe, with a
//!   summary table and `target/cutecheck/report.{md,json}`.
//! - `cargo xtask bench`: the oracle's speed (BENCHMARKS.md).
//! - `cargo xtask gpu`: the MMA register layouts on a real GPU (gpu.rs; exit 3 without one).

mod atom_releases;
mod bench;
mod conformance;
mod gpu;
mod pycute;
mod random;
mod release_diff;
mod repro;

use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use cutecheck::oracle::{provision, Oracle, OracleArgs};
use cutecheck::suite;

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
    /// Check the MMA register layouts on a real GPU (exit 3: no GPU here).
    Gpu(gpu::GpuArgs),
    /// Provision a CUTLASS version (headers from the PyPI wheel) and print its include directory.
    Cutlass {
        #[arg(long, default_value = provision::DEFAULT_CUTLASS)]
        version: String,
        /// Also provision the CUDA 13 nvcc tree used by `--cxx nvcc`.
        #[arg(long)]
        nvcc: bool,
    },
    /// Record real CuTe's output for every fixed suite into snapshots/ (or --check it).
    Oracle {
        /// Fail if real CuTe now prints something else than the committed snapshots.
        #[arg(long)]
        check: bool,
        /// Only these suites (file names without .cases); repeatable. Default: every suite.
        #[arg(long, value_name = "NAME")]
        suite: Vec<String>,
        #[command(flatten)]
        args: OracleArgs,
    },
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
    /// Which modelled CUTLASS release first declares each atom (harness/engine/atom/since.rs, read
    /// from every release's headers); --check fails when the file is stale.
    AtomReleases {
        #[arg(long)]
        check: bool,
    },
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
        Cmd::Cutlass { version, nvcc } => cutlass(&version, nvcc),
        Cmd::Oracle { check, suite, args } => oracle_cmd(check, &suite, &args),
        Cmd::Conformance { args, run } => conformance::run(&args, &run),
        Cmd::Repro { args, exprs } => repro::run(&args, &exprs),
        Cmd::ReleaseDiff(a) => release_diff::run(&a),
        Cmd::AtomReleases { check } => atom_releases::run(check),
        Cmd::Bench { args, cases, seed, skip_single } => bench::run(&args, cases, seed, skip_single),
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
    let status = Command::new(env!("CARGO"))
        .args(["test", "--workspace", "--no-fail-fast"])
        .env("CUTECHECK_CUTE", provision::DEFAULT_CUTLASS)
        .status()
        .context("running cargo test")?;
    Ok(status.success())
}

fn cutlass(version: &str, nvcc: bool) -> Result<bool> {
    let prov = provision::Provisioner::new()?;
    let h = prov.cutlass(version)?;
    let c = prov.cuda()?;
    println!("{}", h.include_dir.display());
    for d in &c.include_dirs {
        println!("{}", d.display());
    }
    if nvcc {
        println!("{}", prov.nvcc13()?.display());
    }
    Ok(true)
}

/// Real CuTe's result lines for every case of every suite.
pub fn record(oracle: &Oracle, suites: &[suite::Suite]) -> Vec<Vec<Vec<String>>> {
    let exprs: Vec<String> = suites.iter().flat_map(|s| s.cases.iter().map(|c| c.expr.clone())).collect();
    let mut outcomes = oracle.run(&exprs).into_iter();
    suites
        .iter()
        .map(|s| s.cases.iter().map(|_| outcomes.next().map(|o| o.lines()).unwrap_or_default()).collect())
        .collect()
}

fn oracle_cmd(check: bool, only: &[String], args: &OracleArgs) -> Result<bool> {
    let mut opts = args.options();
    opts.verbose = true;
    let version = args.cutlass_version.clone().filter(|v| v != provision::DEFAULT_CUTLASS);
    if args.cutlass_dir.is_some() && !check {
        bail!("snapshots are recorded from a CUTLASS wheel version; use --cutlass-dir with --check or with conformance");
    }
    let oracle = Oracle::new(opts)?;
    eprintln!("xtask: oracle is {}", oracle.describe());
    let mut suites = suite::all_suites()?;
    if !only.is_empty() {
        for n in only {
            if !suites.iter().any(|s| &s.name == n) {
                bail!("no suite fixtures/cases/{n}.cases");
            }
        }
        suites.retain(|s| only.contains(&s.name));
    }
    let results = record(&oracle, &suites);
    let mut ok = true;
    for (s, r) in suites.iter().zip(&results) {
        if let Some((k, _)) = r.iter().enumerate().find(|(_, l)| l.first().is_some_and(|x| x.starts_with("error: "))) {
            eprintln!("{}: the oracle failed: {}", s.locate(&s.cases[k]), r[k].join(" "));
            ok = false;
            continue;
        }
        let body = s.snapshot_body(r);
        let path = suite::snapshot_path(&s.name, version.as_deref());
        if check {
            let old = std::fs::read_to_string(&path).unwrap_or_default();
            match suite::snapshot_body_of(&old) {
                Some(b) if b == body => println!("ok       {}", path.display()),
                Some(b) => {
                    ok = false;
                    println!("CHANGED  {}", path.display());
                    report_changes(s, b, r);
                }
                None => {
                    ok = false;
                    println!("MISSING  {} (run `cargo xtask oracle`)", path.display());
                }
            }
        } else {
            std::fs::create_dir_all(path.parent().expect("snapshot dir"))?;
            let text = suite::snapshot_file(&s.name, &body);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                std::fs::write(&path, text)?;
                println!("wrote    {}", path.display());
            } else {
                println!("same     {}", path.display());
            }
        }
    }
    Ok(ok)
}

fn report_changes(s: &suite::Suite, old_body: &str, new: &[Vec<String>]) {
    let old = suite::parse_snapshot_body(old_body);
    for (k, c) in s.cases.iter().enumerate() {
        let was = old.get(k).filter(|(e, _)| *e == c.expr).map(|(_, l)| l.clone());
        if was.as_ref() != Some(&new[k]) {
            println!("  {}: {}", s.locate(c), c.expr);
            println!("    snapshot: {}", was.map_or("(no entry)".to_string(), |l| l.join(" | ")));
            println!("    CuTe now: {}", new[k].join(" | "));
        }
    }
}
