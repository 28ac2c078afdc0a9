//! `cargo xtask conformance`: every fixed suite and N seeded random cases (cutecheck::fuzz) through
//! the engine and real CuTe; a summary table on stdout, `target/cutecheck/report.md` and
//! `report.json` (`--json`: the report on stdout instead of the tables). The cases are planned,
//! asked and judged by the one run loop, cutecheck::run (for every `--oracle`), and reported by
//! cutecheck::report; this file parses the arguments, makes the oracles and writes the files.
//!
//! Every disagreement is triaged (cutecheck::judge) with the operation's definition check
//! (cutecheck::definition): class 1 same function, 2 different functions (with blame), 3 one side
//! rejects (is the accepted result correct?), 4 CuTe crashes. Random disagreements are shrunk
//! (cutecheck::fuzz::shrink, re-asking CuTe, bounded).
//!
//! A disagreement is explained when `fixtures/known-discrepancies.toml` lists it for the CUTLASS
//! version under test, by expression or by family (operation + triage signature); every listed
//! case is run too, and a listed entry that no longer reproduces fails the run. Any other
//! disagreement, and any failure of the oracle itself, makes the command exit 1; on a release
//! newer than every modelled one, a disagreement that does not blame the engine is CHANGED IN
//! RELEASE and, with no failure, exits 4. Cases the oracle
//! cannot express are counted as unchecked.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use cutecheck::fuzz;
use cutecheck::judge::Judge;
use cutecheck::known::KnownDiscrepancies;
use cutecheck::oracle::{state_dir, Oracle, OracleArgs};
use cutecheck::report::ci;
use cutecheck::report::conformance as report;
use cutecheck::run::PlanSpec;

/// Options of `cargo xtask conformance` besides the oracle's.
#[derive(Clone, Debug, clap::Args)]
pub struct RunArgs {
    /// Number of random cases (cutecheck::fuzz).
    #[arg(long, default_value_t = 200)]
    pub cases: usize,
    /// Seed of the random cases (default: a fresh one, printed so the run can be reproduced).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run only shard K of N (0-based) of the random cases; the fixed suites and the known
    /// discrepancies run in shard 0.
    #[arg(long, value_name = "K/N", value_parser = fuzz::parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Print the JSON report on stdout (tables go to stderr).
    #[arg(long)]
    pub json: bool,
    /// Skip the fixed suites (random cases and known discrepancies only).
    #[arg(long)]
    pub no_fixed: bool,
    /// Most CuTe queries spent shrinking one disagreement (0: no shrinking).
    #[arg(long, default_value_t = 24)]
    pub shrink_budget: usize,
    /// Most seconds spent shrinking in all.
    #[arg(long, default_value_t = 300)]
    pub shrink_secs: u64,
    /// Also ask pycute (from the same wheel) as a third oracle on every case it can express; its
    /// own defects are listed separately, blamed by the operation's definition.
    #[arg(long)]
    pub pycute: bool,
    /// pycute's python3 workers (default: --jobs, else one per core); each case is bounded in
    /// time, a case over the bound is pycute's timeout and its worker is replaced.
    #[arg(long, value_name = "N")]
    pub pycute_jobs: Option<usize>,
    /// Random dynamic cases through the in-process CuTe oracle (xtask/src/dynamic.rs), besides
    /// `--cases`; sharded like them.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub dynamic_cases: usize,
    /// Benchmark: also run the first K dynamic cases through the compiled driver (no results
    /// cache) and compare speed and answers with the in-process oracle.
    #[arg(long, default_value_t = 0, value_name = "K")]
    pub dynamic_driver_sample: usize,
    /// The oracles: `cpp` (CuTe C++, the default), `dsl` (the CuTe DSL, engine~DSL) or `cpp,dsl`
    /// (three-way); see xtask/src/dsl.rs.
    #[arg(long, value_name = "cpp|dsl|cpp,dsl", value_parser = crate::dsl::parse_oracles)]
    pub oracle: Option<crate::dsl::Oracles>,
    /// The user's own cases: one expression a line, `#` comments and blank lines skipped; each
    /// case is reported at FILE:line. Run beside the fixed suites and random cases (shard 0).
    #[arg(long, value_name = "FILE")]
    pub case_file: Option<std::path::PathBuf>,
    /// The user's accepted discrepancies, in the format of fixtures/known-discrepancies.toml (expr,
    /// versions, class, explanation), added to the project's list; an entry that no longer
    /// reproduces is reported as stale and fails the run.
    #[arg(long, value_name = "FILE")]
    pub known: Option<std::path::PathBuf>,
    /// Also write a JUnit XML file: a testsuite per group, a testcase per case, a failure with the
    /// reproducer for every NEW, stale or oracle-error case.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<std::path::PathBuf>,
    /// Ask real CuTe for the fixed suites too. Without it, on a pinned PyPI wheel whose suites are
    /// recorded in snapshots/ (what real CuTe printed from exactly these headers, which `cargo
    /// xtask test` checks live), the fixed suites are answered from the record and CuTe is asked
    /// for the other cases (cutecheck::run::recorded::Replay).
    #[arg(long)]
    pub live_fixed: bool,
}

/// A fresh seed when none is given (time and the process's random hasher keys).
pub fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
    h.finish() >> 16
}

pub use cutecheck::cli::{release_of, version_of};

/// The project's known discrepancies and, with `--known FILE`, the user's.
pub fn load_known(ra: &RunArgs) -> Result<KnownDiscrepancies> {
    let mut k = KnownDiscrepancies::load_default()?;
    if let Some(f) = &ra.known {
        k.extend(KnownDiscrepancies::load(f)?);
    }
    Ok(k)
}

/// The run's plan for these options: fixed suites unless skipped, the random cases, and with
/// `known` the known discrepancies' reproducers.
pub fn plan_spec(ra: &RunArgs, seed: u64, shard: (usize, usize), known: bool) -> PlanSpec {
    PlanSpec { cases: ra.cases, seed, shard, fixed: !ra.no_fixed, known }
}

pub fn run(args: &OracleArgs, ra: &RunArgs) -> Result<bool> {
    if let Some(o) = ra.oracle.filter(|o| o.dsl) {
        return crate::dsl::conformance(args, ra, o);
    }
    let seed = ra.seed.unwrap_or_else(fresh_seed);
    let shard = ra.shard.unwrap_or((0, 1));
    // Ctrl-C stops the oracle; the tables below still print what was done (oracle::interrupt).
    cutecheck::oracle::interrupt::install();
    eprintln!("xtask: seed {seed} (reproduce with --seed {seed}), shard {}/{}", shard.0, shard.1);
    if ra.dynamic_cases > 0 {
        if let Some(ok) = crate::dynamic::ensure_built(args, ra.dynamic_cases)? {
            return Ok(ok);
        }
    }
    let mut opts = args.options();
    opts.verbose = false;
    let oracle = Oracle::new(opts)?;
    eprintln!("xtask: oracle is {}", oracle.describe());
    let known = load_known(ra)?;
    let version = version_of(args);
    let replay = replay(args, ra, &version, &oracle)?;
    let cpp: &dyn cutecheck::case::Oracle = match &replay {
        Some(r) => r,
        None => &oracle,
    };
    let judge = Judge::for_release(&known, version.clone(), release_of(args));
    match &judge.carried {
        None => eprintln!("xtask: the engine models CUTLASS {}", judge.release),
        Some(m) => eprintln!(
            "xtask: CUTLASS {version} is not modelled: the engine models the nearest older release, {m}; its known discrepancies carry over"
        ),
    }
    let start = Instant::now();
    // pycute, the third oracle: asked on every case it can express, not only on disagreements.
    let pycute = match ra.pycute {
        true => Some(crate::pycute::oracle(&oracle, ra.pycute_jobs.or(args.jobs))?),
        false => None,
    };
    let mut peers: Vec<&dyn cutecheck::case::Oracle> = vec![cpp];
    if let Some(p) = &pycute {
        peers.push(p);
    }
    let plan = cutecheck::run::plan_with_file(&judge, &plan_spec(ra, seed, shard, true), ra.case_file.as_deref())?;
    let mut run = cutecheck::run::run_planned(&judge, plan, &peers, false, |plan, asked| {
        eprintln!(
            "xtask: oracle answered {} cases in {:.1?}",
            plan.cases.len(),
            Duration::from_secs_f64(asked.reference().map_or(0.0, |p| p.seconds))
        );
        if let (Some(p), Some(o)) = (asked.peer("pycute"), &pycute) {
            crate::pycute::asked(p, o);
        }
        Ok(())
    })?;
    // Dynamic cases: drawn, asked in process and judged chunk by chunk; those that do not agree
    // join the run.
    let mut dynamic = None;
    if ra.dynamic_cases > 0 {
        // CuTe's CPU time is its workers': they are waited for when the oracle is dropped.
        let children = cutecheck::run::children_cpu_seconds();
        let mut d = {
            let inproc = cutecheck::oracle::inproc::InProcess::new(None).context(cutecheck::oracle::inproc::OFF)?;
            eprintln!("xtask: dynamic cases through {}", cutecheck::case::Oracle::describe(&inproc));
            cutecheck::run::dynamic::extend(&mut run, &judge, &inproc, ra.dynamic_cases, seed, shard)?
        };
        d.cute_cpu = Some(cutecheck::run::children_cpu_seconds() - children);
        crate::dynamic::print(&d);
        dynamic = Some(d);
    }
    if ra.dynamic_driver_sample > 0 {
        crate::dynamic::versus_driver(args, ra.dynamic_driver_sample.min(ra.dynamic_cases), seed, shard)?;
    }
    let about = cutecheck::report::conformance::About {
        oracle: cpp.describe(),
        seed,
        shard,
        random_cases: ra.cases,
        pycute: ra.pycute,
        start,
    };
    let ok = run.judged.ok;
    let shrink_deadline = Instant::now() + Duration::from_secs(ra.shrink_secs);
    let shrink = |tree, t: &cutecheck::judge::Verdict| {
        (ra.shrink_budget > 0 && Instant::now() < shrink_deadline)
            .then(|| cutecheck::run::shrink::shrink_one(&oracle, &judge, tree, t, ra.shrink_budget))
    };
    let mut report = report::build(run, &judge, about, dynamic.as_ref(), shrink);
    let summary = ci::Summary::of(&report, ok);
    report.summary = Some(summary.clone());
    let tables = report::tables(&report, &judge);
    // The pictures of the NEW disagreements whose outputs are layouts, named in what follows.
    let pictures = cutecheck::report::picture::write_pictures(&mut report, &state_dir())
        .context("writing the pictures of the disagreements")?;
    if !pictures.is_empty() {
        eprintln!(
            "xtask: {} picture(s) of disagreements (engine and CuTe side by side) in {}",
            pictures.len(),
            state_dir().join(cutecheck::report::picture::FOLDER).display()
        );
    }
    let listing = ci::failing_listing(&report);
    if ra.json {
        eprint!("{tables}{listing}");
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{tables}{listing}");
    }
    ci_outputs(ra, &report, &summary)?;
    let dir = state_dir();
    std::fs::create_dir_all(&dir)?;
    // Whole files even when runs sharing the state directory finish at once (the last one wins).
    let write = cutecheck::oracle::cache::write_atomic;
    write(&dir.join("report.json"), serde_json::to_string_pretty(&report)?.as_bytes())?;
    let command: Vec<String> = std::env::args().skip(1).collect();
    write(&dir.join("report.md"), report::markdown(&report, &tables, &command.join(" ")).as_bytes())?;
    eprintln!(
        "report: {} and report.json ({} cases in {:.1} s, {:.0} cases/minute through the oracle, cache hits included; seed {seed})",
        dir.join("report.md").display(),
        report.total.cases,
        report.seconds,
        report.cases_per_minute
    );
    eprintln!("{}", summary.line());
    if cutecheck::oracle::interrupt::requested() {
        let unanswered = report
            .cases
            .iter()
            .filter(|c| c.cute.join(" ").contains(cutecheck::oracle::interrupt::INTERRUPTED))
            .count();
        eprintln!(
            "interrupted (SIGINT): CuTe answered {} of {} cases (the other {unanswered} are oracle errors above); every cached answer is whole",
            report.cases.len() - unanswered,
            report.cases.len()
        );
        std::process::exit(130);
    }
    // No failure, but CuTe changed in a release newer than every model: its own exit status.
    if ok && summary.exit_status() == cutecheck::judge::CHANGED_IN_RELEASE_EXIT {
        std::process::exit(cutecheck::judge::CHANGED_IN_RELEASE_EXIT);
    }
    Ok(ok)
}

/// The recorded answers of the fixed suites, when this run's CuTe is a pinned `nvidia-cutlass`
/// wheel whose suites were recorded by `cargo xtask bless` (`--live-fixed`, a checkout, `--no-fixed`:
/// none).
fn replay<'a>(
    args: &OracleArgs,
    ra: &RunArgs,
    version: &str,
    live: &'a Oracle,
) -> Result<Option<cutecheck::run::recorded::Replay<'a>>> {
    let pinned = cutecheck::oracle::provision::Pins::load()?.sha256("nvidia-cutlass", version).is_some();
    if ra.live_fixed || ra.no_fixed || args.cutlass_dir.is_some() || !pinned {
        return Ok(None);
    }
    let default = version == cutecheck::oracle::provision::DEFAULT_CUTLASS;
    let (answers, suites) = cutecheck::run::recorded::recorded_answers((!default).then_some(version))?;
    if answers.is_empty() {
        return Ok(None);
    }
    let note = format!(
        "{} cases of {suites} fixed suites answered from snapshots/ (real CuTe {version} from the same pinned wheel, recorded by cargo xtask bless; --live-fixed asks CuTe)",
        answers.len()
    );
    eprintln!("xtask: {note}");
    Ok(Some(cutecheck::run::recorded::Replay::new(live, answers, note)))
}

/// The JUnit file (`--junit`), and on GitHub Actions (`GITHUB_STEP_SUMMARY` set) the step summary
/// and `::error` annotations at the lines of the user's case file and known list.
fn ci_outputs(ra: &RunArgs, report: &report::Report, summary: &ci::Summary) -> Result<()> {
    if let Some(f) = &ra.junit {
        std::fs::write(f, ci::junit(report, summary)).with_context(|| format!("cannot write {}", f.display()))?;
        eprintln!("xtask: JUnit report written to {}", f.display());
    }
    let Some(step) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) else { return Ok(()) };
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&step)
        .with_context(|| format!("cannot append to GITHUB_STEP_SUMMARY ({})", step.to_string_lossy()))?;
    // GitHub names files relative to the workspace.
    let workspace = std::env::var_os("GITHUB_WORKSPACE").map(std::path::PathBuf::from);
    let cwd = std::env::current_dir()?;
    let files: Vec<(String, String)> = [&ra.case_file, &ra.known]
        .into_iter()
        .flatten()
        .map(|p| {
            let located = p.display().to_string();
            let abs = cwd.join(p);
            let shown = workspace.as_deref().and_then(|w| abs.strip_prefix(w).ok()).unwrap_or(p);
            (located, shown.display().to_string())
        })
        .collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    writeln!(f, "{}", ci::step_summary(report, summary, &files))?;
    for a in ci::annotations(report, &files) {
        eprintln!("{a}");
    }
    Ok(())
}
