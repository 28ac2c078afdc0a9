//! The engine against real CuTe's recorded output for every fixed suite (fixtures/cases/*.cases,
//! snapshots/<suite>.snap, written only by `cargo xtask bless` from what CUTLASS 4.2 printed).
//!
//! `engine_matches_recorded_cute` needs no compiler: each case is parsed once, the engine answers
//! it, and the judge (`cutecheck::case::Judge`, the same one `cargo xtask conformance` uses)
//! compares the answer with the recorded CuTe outcome, triages a disagreement and looks it up in
//! fixtures/known-discrepancies.toml (exact entries and families) for CUTLASS 4.2. Every case the
//! judge fails is listed as `file:line` with both outputs and the verdict. The snapshots are only
//! read here, never written (no insta, no pending `.snap.new` of the engine's lines): they hold what
//! real CuTe printed. A missing snapshot, a case without its recorded result and recorded results
//! without their case fail too, named `file:line`.
//!
//! `real_cute_still_prints_the_snapshots` compiles every case against real CuTe 4.2. It runs when
//! `CUTECHECK_CUTE` is set at build time (`cargo xtask test` provisions CuTe and sets it);
//! otherwise it is reported as ignored, with the reason.

use cutecheck::case::{self, Case, Origin, Outcome};
use cutecheck::judge::Judge;
use cutecheck::known::KnownDiscrepancies;
use cutecheck::oracle::provision::DEFAULT_CUTLASS;
use cutecheck::suite::all_suites;

#[test]
fn engine_matches_recorded_cute() {
    let suites = all_suites().expect("fixtures/cases");
    assert!(!suites.is_empty(), "no fixtures/cases/*.cases files");
    let known = KnownDiscrepancies::load_default().expect("fixtures/known-discrepancies.toml");
    let judge = Judge::new(&known, DEFAULT_CUTLASS);
    let mut problems = Vec::new();
    let mut judged = 0;
    for s in &suites {
        let recorded = match s.recorded(None) {
            Ok(r) => r,
            Err(p) => {
                problems.extend(p);
                continue;
            }
        };
        for (c, lines) in s.cases.iter().zip(&recorded) {
            let cute = Outcome::from_lines(lines);
            let case = match Case::parse(&c.expr, s.locate(c)) {
                Ok(case) => case,
                Err(e) => {
                    problems.push(format!("{}: {} does not parse: {e}", s.locate(c), c.expr));
                    continue;
                }
            };
            let engine = case::engine(&case, false);
            let j = judge.judge(&case, Origin::Fixed, &engine, &cute);
            judged += 1;
            if j.fails() {
                problems.push(format!(
                    "{}: {}\n    CuTe:   {}\n    engine: {}\n    {}",
                    case.location,
                    case.text,
                    cute.lines().join(" | "),
                    engine.outcome.lines().join(" | "),
                    j.summary()
                ));
            }
        }
    }
    assert!(judged > 1000, "only {judged} fixed-suite cases were judged");
    assert!(
        problems.is_empty(),
        "{} case(s) where the engine disagrees with real CuTe:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn real_cute_still_prints_the_snapshots() {
    use cutecheck::oracle::{Oracle, OracleOptions};
    let version = option_env!("CUTECHECK_CUTE").unwrap_or("4.2.0.0");
    let opts = OracleOptions { cutlass_version: Some(version.to_string()), ..OracleOptions::default() };
    let alone = Oracle::new(OracleOptions { cache: false, ..opts.clone() }).expect("real CuTe");
    let oracle =
        Oracle::new(opts).unwrap_or_else(|e| panic!("CUTECHECK_CUTE is set but real CuTe is not usable: {e:#}"));
    let suites = all_suites().expect("fixtures/cases");
    // Recorded exactly as `cargo xtask bless` records (a batch's compile errors asked again alone).
    let results = cutecheck::suite::record(&oracle, &alone, &suites);
    let mut changed = Vec::new();
    for (s, results) in suites.iter().zip(&results) {
        let recorded = s.recorded(None).unwrap_or_else(|p| panic!("{}", p.join("\n")));
        for ((c, was), now) in s.cases.iter().zip(&recorded).zip(results) {
            if was != now {
                changed.push(format!(
                    "{}: {}\n    recorded: {}\n    CuTe now: {}",
                    s.locate(c),
                    c.expr,
                    was.join(" | "),
                    now.join(" | ")
                ));
            }
        }
    }
    assert!(
        changed.is_empty(),
        "real CuTe now prints something else (`cargo xtask bless --check`):\n{}",
        changed.join("\n")
    );
}

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn one_batch_survives_static_asserts_and_crashes() {
    use cutecheck::oracle::{Oracle, OracleOptions};
    // fixtures/cases/oracle_batch.cases mixes prints, static_asserts and a run-time crash; compiled
    // as one batch (no results cache), each case still gets its own recorded outcome.
    let s = all_suites()
        .expect("fixtures/cases")
        .into_iter()
        .find(|s| s.name == "oracle_batch")
        .expect("fixtures/cases/oracle_batch.cases");
    let recorded = s.recorded(None).unwrap_or_else(|p| panic!("{}", p.join("\n")));
    let kinds: std::collections::BTreeSet<&str> = recorded.iter().map(|l| Outcome::from_lines(l).kind()).collect();
    assert!(kinds.len() >= 3, "the batch should mix prints, refusals and crashes: {kinds:?}");
    let oracle = Oracle::new(OracleOptions { cache: false, ..OracleOptions::default() }).expect("real CuTe");
    let exprs: Vec<String> = s.cases.iter().map(|c| c.expr.clone()).collect();
    for ((c, was), now) in s.cases.iter().zip(&recorded).zip(oracle.run(&exprs)) {
        assert_eq!(&now.lines(), was, "{}: {}", s.locate(c), c.expr);
    }
}
