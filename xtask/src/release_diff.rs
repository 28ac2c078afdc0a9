//! `cargo xtask release-diff --from A --to B`: the fixed suites and the same seeded random cases on
//! two CUTLASS versions; every case whose CuTe output changed is reported with the engine's verdict
//! against both versions (agree / triage class): each side asked and judged by the run
//! (cutecheck::run) with the engine modelling its release.
//! `--cutlass-dir D` replaces the `--to` wheel by a checkout and `--from-dir D` the `--from` one (PyPI
//! has no wheel for 3.9, 4.0, 4.1 or anything after 4.2; their git checkouts work here).
//! Each change is grouped by operation and atom family and blamed (`judge::release_blame`: the
//! release switch or atom the engine models it by, or not modelled). The fixed suites are answered
//! from their snapshots on a side whose headers they were recorded from (a pinned wheel, or a
//! checkout whose cute/ hash a snapshots/versions/V/SOURCE names).
//! Reports: `target/cutecheck/release-diff-A-B.{md,json}` (and `--out FILE`).

use anyhow::Result;

use cutecheck::case::Oracle as CaseOracle;
use cutecheck::judge::Judge;
use cutecheck::known::KnownDiscrepancies;
use cutecheck::oracle::{state_dir, Oracle, OracleArgs};
use cutecheck::report::release_diff as report;
use cutecheck::run::plan::draw;
use cutecheck::run::recorded::{recorded_answers, Answers, Replay};
use cutecheck::run::{Plan, Planned};
use cutecheck::suite;

use crate::conformance::fresh_seed;

#[derive(clap::Args, Clone, Debug)]
pub struct DiffArgs {
    /// The older CUTLASS version (PyPI wheel).
    #[arg(long, required_unless_present = "from_dir")]
    pub from: Option<String>,
    /// Use this CUTLASS checkout as the older side instead of a wheel (e.g. a git checkout of a
    /// release PyPI has no wheel for: 3.9, 4.0, 4.1).
    #[arg(long, value_name = "DIR", conflicts_with = "from")]
    pub from_dir: Option<std::path::PathBuf>,
    /// The newer CUTLASS version (PyPI wheel).
    #[arg(long, default_value = cutecheck::oracle::provision::DEFAULT_CUTLASS)]
    pub to: String,
    /// Use this CUTLASS checkout as the newer side instead of the `--to` wheel.
    #[arg(long, value_name = "DIR")]
    pub cutlass_dir: Option<std::path::PathBuf>,
    #[arg(long, default_value_t = 500)]
    pub cases: usize,
    /// Seed of the random cases (default: fresh, printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Skip the fixed suites.
    #[arg(long)]
    pub no_fixed: bool,
    /// C++ compiler (as for conformance).
    #[arg(long, value_name = "C")]
    pub cxx: Option<String>,
    /// Parallel compile jobs.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Print the JSON report on stdout.
    #[arg(long)]
    pub json: bool,
    /// Also write the markdown report to this file (e.g. docs/release-diff-4.2-4.7.md).
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
}

pub fn run(a: &DiffArgs) -> Result<bool> {
    let seed = a.seed.unwrap_or_else(fresh_seed);
    eprintln!("xtask: seed {seed} (reproduce with --seed {seed})");
    let side = |version: Option<String>, dir: Option<std::path::PathBuf>| OracleArgs {
        cutlass_version: version,
        cutlass_dir: dir,
        cuda_include: Vec::new(),
        cxx: a.cxx.clone(),
        no_cache: false,
        compile_timeout: cutecheck::limits::COMPILE_SECS,
        compile_memory: cutecheck::limits::COMPILE_MEMORY_MB,
        memory_budget: None,
        case_output: cutecheck::limits::CASE_OUTPUT,
        jobs: a.jobs,
    };
    // Either side is a wheel version or a checkout (whose include/cutlass/version.h picks the
    // engine's model).
    let from_args = side(a.from.clone(), a.from_dir.clone());
    let to_args = match &a.cutlass_dir {
        Some(d) => side(None, Some(d.clone())),
        None => side(Some(a.to.clone()), None),
    };
    let from = Oracle::new(from_args.options())?;
    let to = Oracle::new(to_args.options())?;
    // Compile errors of batched cases are asked again alone, as bless does (suite::RetryAlone):
    // g++ can report a case's refusal as a secondary error of another case in its batch.
    let (from_alone, to_alone) = (suite::alone_oracle(&from_args.options())?, suite::alone_oracle(&to_args.options())?);
    let (from_name, to_name) = (cutecheck::cli::version_of(&from_args), cutecheck::cli::version_of(&to_args));
    eprintln!("xtask: from {}\nxtask: to   {}", from.describe(), to.describe());
    // The same cases on both sides, each asked and judged by the run with the engine modelling its
    // side's release (the nearest older model for a checkout) and no known discrepancies: a
    // release diff shows every difference.
    let (cases, _) = draw(a.cases, seed, (0, 1), !a.no_fixed)?;
    let none = KnownDiscrepancies::default();
    let (judge_from, judge_to) = (
        Judge::for_release(&none, from_name.clone(), cutecheck::cli::release_of(&from_args)),
        Judge::for_release(&none, to_name.clone(), cutecheck::cli::release_of(&to_args)),
    );
    let (from_replay, to_replay) =
        if a.no_fixed { (None, None) } else { (replay(&from_args, &from_name)?, replay(&to_args, &to_name)?) };
    let old = run_side(&judge_from, &from, &from_alone, from_replay, cases.clone())?;
    let new = run_side(&judge_to, &to, &to_alone, to_replay, cases)?;
    let report = report::build(
        &report::Side { version: &from_name, model: judge_from.release, run: &old },
        &report::Side { version: &to_name, model: judge_to.release, run: &new },
        seed,
    );
    let md = report::markdown(&report, a.no_fixed);
    let slug =
        |s: &str| s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' }).collect::<String>();
    let base = state_dir().join(format!("release-diff-{}-{}", slug(&report.from), slug(&report.to)));
    std::fs::create_dir_all(state_dir())?;
    // Not with_extension: the version's dots would be taken for one.
    let (md_path, json_path) = (
        base.with_file_name(format!("{}.md", base.file_name().and_then(|n| n.to_str()).unwrap_or("release-diff"))),
        base.with_file_name(format!("{}.json", base.file_name().and_then(|n| n.to_str()).unwrap_or("release-diff"))),
    );
    std::fs::write(&md_path, &md)?;
    if let Some(out) = &a.out {
        std::fs::write(out, &md)?;
        eprintln!("xtask: report also written to {}", out.display());
    }
    std::fs::write(&json_path, serde_json::to_string_pretty(&report)?)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{} -> {}: {} of {} cases changed output (seed {seed})",
            report.from, report.to, report.changed, report.cases
        );
        for (k, n) in &report.by_kind {
            println!("  {k:<32} {n:>5}");
        }
        for (k, n) in &report.by_operation {
            println!("  {k:<48} {n:>5}");
        }
        println!(
            "  engine agrees with {}: {}, with {}: {}",
            report.from, report.engine_agrees_with_from, report.to, report.engine_agrees_with_to
        );
        println!("report: {}", md_path.display());
    }
    Ok(true)
}

/// One side of the diff: the cases asked of `batched`, each batched compile error asked again
/// through `alone` (one case per translation unit: [`suite::RetryAlone`], the retry bless records
/// with), the fixed suites answered from `replay` (recorded answers and where they come from)
/// where given; then judged.
fn run_side(
    judge: &Judge<'_>,
    batched: &dyn CaseOracle,
    alone: &dyn CaseOracle,
    replay: Option<(Answers, String)>,
    cases: Vec<Planned>,
) -> Result<cutecheck::run::Run> {
    let live = suite::RetryAlone { batched, alone };
    let replayed = replay.map(|(answers, note)| Replay::new(&live, answers, note));
    let oracle: &dyn CaseOracle = match &replayed {
        Some(r) => r,
        None => &live,
    };
    let plan = Plan { cases, trees: Vec::new(), seconds: 0.0 };
    cutecheck::run::run_planned(judge, plan, &[oracle], false, |_, _| Ok(()))
}

/// The fixed suites answered from their snapshots where a side's headers are the ones they were
/// recorded from (a pinned wheel, or a checkout whose cute/ hash a SOURCE names): real CuTe
/// printed exactly that; only the other cases are compiled.
fn replay(args: &OracleArgs, name: &str) -> Result<Option<(Answers, String)>> {
    let Some((v, whence)) = crate::conformance::recorded_source(args, name)? else { return Ok(None) };
    let default = v == cutecheck::oracle::provision::DEFAULT_CUTLASS;
    let (answers, suites) = recorded_answers((!default).then_some(v.as_str()))?;
    if answers.is_empty() {
        return Ok(None);
    }
    eprintln!(
        "xtask: {name}: {} cases of {suites} fixed suites answered from the snapshots of {v} ({whence})",
        answers.len()
    );
    Ok(Some((answers, format!("fixed suites from the snapshots of {v}"))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cutecheck::case::{Case, Outcome};

    /// What real CuTe answers each case alone (here: the engine's own outcome).
    struct Alone;
    impl CaseOracle for Alone {
        fn describe(&self) -> String {
            "alone".into()
        }
        fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
            cases.iter().map(|c| cutecheck::case::engine(c, false).outcome).collect()
        }
    }

    /// A batch in which g++ reported the refusal of every other case as a secondary compile error
    /// (as CUTLASS 4.2 did for `tiled_product((4,5):(1,5),(3,5):(5,2))` batched).
    struct Batched;
    impl CaseOracle for Batched {
        fn describe(&self) -> String {
            "batched".into()
        }
        fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
            let mut out = Alone.run(cases);
            for o in out.iter_mut().skip(1).step_by(2) {
                *o = Outcome::Rejected("compile error: no matching function for call to 'repeat<R1>'".into());
            }
            out
        }
    }

    /// A side of release-diff answers every case as real CuTe does alone: the batched compile
    /// errors were asked again (without the retry, half the cases are false changes).
    #[test]
    fn a_side_asks_batched_compile_errors_again_alone() {
        let (cases, _) = draw(12, 7, (0, 1), false).unwrap();
        let none = KnownDiscrepancies::default();
        let judge = Judge::new(&none, cutecheck::oracle::provision::DEFAULT_CUTLASS);
        let r = run_side(&judge, &Batched, &Alone, None, cases.clone()).unwrap();
        let want = Alone.run(&cases.iter().map(|p| &p.case).collect::<Vec<_>>());
        let got: Vec<Outcome> = r.asked.peers[0].replies.iter().map(|x| x.outcome.clone()).collect();
        assert_eq!(got, want);
        // The fixed suites' recorded answers stay in front of the retry.
        let recorded: Answers =
            [((cases[1].case.location.clone(), cases[1].case.text.clone()), Outcome::Printed("x".into()))]
                .into_iter()
                .collect();
        let r = run_side(&judge, &Batched, &Alone, Some((recorded, "recorded".into())), cases).unwrap();
        assert_eq!(r.asked.peers[0].replies[1].outcome, Outcome::Printed("x".into()));
        assert_eq!(r.asked.peers[0].replies[3].outcome, want[3]);
    }
}
