//! `cargo xtask conformance --dynamic-cases N`: N random dynamic cases (cutecheck's
//! `oracle::inproc::gen`) through the engine and the in-process CuTe oracle (cpp/ffi in forked
//! workers), at fuzzing speed.
//!
//! The cases are drawn, asked and judged by the run (cutecheck::run::dynamic), chunk by chunk; a
//! case where CuTe and the engine agree, or both refuse, is only counted. Every other case (a
//! disagreement, an oracle failure) joins the run with its judgement, so it is reported exactly
//! like the other random cases. This file prints the counts and keeps the build step.
//!
//! The in-process library is built by cutecheck's build.rs when CuTe is provisioned. When this
//! xtask binary was built without it (a fresh machine: the crate was compiled before CuTe was
//! provisioned) or for another CUTLASS version, [`ensure_built`] provisions CuTe, the CUDA headers
//! and libclang, and runs the same xtask command again through cargo with the environment that makes
//! build.rs compile cpp/ffi.

use std::time::Instant;

use anyhow::{bail, Context, Result};

use cutecheck::case::{Oracle as _, Outcome};
use cutecheck::oracle::inproc::{self, gen, InProcess};
use cutecheck::oracle::{provision, OracleArgs};
use cutecheck::run::dynamic::DynamicRun;

/// Set on the second run so a build that still lacks the library is reported, not retried.
const REEXEC: &str = "CUTECHECK_FFI_REEXEC";

/// The CUTLASS version the in-process library must be built for ("4.2.0" for wheel 4.2.0.0).
fn wanted(args: &OracleArgs) -> Result<String> {
    if args.cutlass_dir.is_some() {
        bail!("--dynamic-cases needs a CUTLASS wheel version (the in-process library is built against provisioned headers), not --cutlass-dir");
    }
    let v = args.cutlass_version.clone().unwrap_or_else(|| provision::DEFAULT_CUTLASS.to_string());
    Ok(v.split('.').take(3).collect::<Vec<_>>().join("."))
}

/// Runs of at least this many dynamic cases use an optimised build (the engine and the judge are
/// ten times faster; `cargo xtask` itself is a debug build).
pub const RELEASE_FROM: usize = 20_000;

/// `Ok(None)`: this binary has the in-process library for the wanted version, go on.
/// `Ok(Some(ok))`: the command was run again by a rebuilt xtask, which answered `ok`.
pub fn ensure_built(args: &OracleArgs, n: usize) -> Result<Option<bool>> {
    let want = wanted(args)?;
    let release = cfg!(debug_assertions) && n >= RELEASE_FROM;
    if inproc::available() && inproc::built_for() == Some(want.as_str()) && !release {
        return Ok(None);
    }
    let why = match inproc::built_for() {
        Some(v) if v == want && release => format!("{n} cases want an optimised build"),
        Some(v) => format!("it was built for CUTLASS {v}"),
        None => "it is not built".to_string(),
    };
    if std::env::var_os(REEXEC).is_some() {
        if inproc::available() && inproc::built_for() == Some(want.as_str()) {
            return Ok(None);
        }
        bail!("the in-process oracle is still unavailable after rebuilding ({why}); see the cargo warning of cutecheck's build.rs");
    }
    let version = args.cutlass_version.clone().unwrap_or_else(|| provision::DEFAULT_CUTLASS.to_string());
    eprintln!("xtask: --dynamic-cases: {why}; provisioning CUTLASS {version} and libclang, then building xtask with the in-process CuTe oracle{}", if release { " (release)" } else { "" });
    let prov = provision::Provisioner::new()?;
    let env = inproc::provision::build_env(&prov, &version)?;
    let mut cargo = std::process::Command::new(env!("CARGO"));
    cargo.args(["run", "--quiet"]);
    if release {
        cargo.arg("--release");
    }
    let status = cargo
        .args(["--package", "xtask", "--"])
        .args(std::env::args_os().skip(1))
        .envs(env)
        .env(REEXEC, "1")
        .status()
        .context("running xtask again through cargo")?;
    Ok(Some(status.success()))
}

/// The dynamic cases' counts and time split.
pub fn print(d: &DynamicRun) {
    eprintln!(
        "xtask: {} dynamic cases in {:.1} s ({:.0} verified a minute): {} agree, {} both refuse, {} to the judge",
        d.cases,
        d.seconds,
        d.per_minute(),
        d.agree,
        d.both_refuse,
        d.judged
    );
    eprintln!(
        "xtask: dynamic time: {:.2} s drawing and parsing, {:.2} s in-process CuTe, {:.2} s engine and comparison ({:.2} s of it judging)",
        d.draw_seconds, d.cute_seconds, d.engine_seconds, d.judge_seconds
    );
    // CPU time is what the two sides spend whatever else the machine runs (wall time on a busy
    // machine is not): issue 33's figure compares the engine and the judge with CuTe itself.
    if let Some(cute) = d.cute_cpu {
        eprintln!(
            "xtask: dynamic CPU: {:.2} s engine and judge ({:.2} s engine, {:.2} s judge), {:.2} s CuTe in its workers, {:.2} s encoding cases and reading answers here",
            d.engine_cpu + d.judge_cpu,
            d.engine_cpu,
            d.judge_cpu,
            cute,
            d.encode_cpu
        );
    }
}

/// The first `k` dynamic cases of the shard through the compiled driver (no results cache) and
/// in-process: cases a minute each way, and whether every answer agrees (BENCHMARKS.md).
pub fn versus_driver(args: &OracleArgs, k: usize, seed: u64, shard: (usize, usize)) -> Result<()> {
    let texts: Vec<String> = gen::cases(seed, usize::MAX, shard).take(k).map(|(_, c)| c.expr).collect();
    let cases: Vec<cutecheck::case::Case> = texts
        .iter()
        .map(|t| cutecheck::case::Case::parse(t, "dynamic"))
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let refs: Vec<&cutecheck::case::Case> = cases.iter().collect();
    let mut opts = args.options();
    opts.cache = false;
    opts.verbose = false;
    let driver = cutecheck::oracle::Oracle::new(opts)?;
    let t = Instant::now();
    let compiled = cutecheck::case::Oracle::run(&driver, &refs);
    let t_driver = t.elapsed().as_secs_f64();
    let inproc = InProcess::new(None).context(inproc::OFF)?;
    let t = Instant::now();
    let fast = inproc.run(&refs);
    let t_inproc = t.elapsed().as_secs_f64();
    let differ: Vec<String> = cases
        .iter()
        .zip(compiled.iter().zip(&fast))
        .filter(|(_, (a, b))| match (a, b) {
            (Outcome::Crashed(x), Outcome::Crashed(y)) => x.lines().next() != y.lines().next(),
            _ => a != b,
        })
        .map(|(c, (a, b))| format!("  {}: driver {:?}, in-process {:?}", c.text, a, b))
        .collect();
    eprintln!(
        "xtask: the same {k} dynamic cases: compiled driver {t_driver:.1} s ({:.0} a minute), in-process {t_inproc:.3} s ({:.0} a minute); {} differ",
        k as f64 * 60.0 / t_driver.max(1e-9),
        k as f64 * 60.0 / t_inproc.max(1e-9),
        differ.len()
    );
    for d in differ.iter().take(20) {
        eprintln!("{d}");
    }
    if !differ.is_empty() {
        bail!("the in-process oracle and the compiled driver answer {} of {k} dynamic cases differently", differ.len());
    }
    Ok(())
}
