//! The engine against real CuTe's recorded output for every fixed suite (fixtures/cases/*.cases,
//! snapshots/<suite>.snap, written only by `cargo xtask bless` from what CUTLASS 4.2 printed).
//!
//! `engine_matches_recorded_cute` needs no compiler and writes nothing: the snapshots hold CuTe's
//! output and are only read here (no insta, no pending `.snap.new` of the engine's lines). For each
//! case it formats the engine's result like the snapshot (print text, or `rejected: <engine
//! error>`) and compares it with CuTe's recorded lines by `cutecheck::suite::compare`: the same
//! text, or both refuse (CuTe's static_assert message appears in the engine's error; or CuTe
//! failed to compile without a static_assert, or crashed at run time). Cases the oracle could not
//! express (`unsupported:`) are not compared. A disagreement passes only when
//! fixtures/known-discrepancies.toml lists it for CUTLASS 4.2, by its expression or by the family
//! of its operation and triage signature (as `cargo xtask conformance` judges it). Every other
//! disagreement, every case without a recorded result and every recorded result without its case
//! fails the test, named `file:line`.
//!
//! `real_cute_still_prints_the_snapshots` compiles every case against real CuTe 4.2. It runs when
//! `CUTECHECK_CUTE` is set at build time (`cargo xtask test` provisions CuTe and sets it);
//! otherwise it is reported as ignored, with the reason.

use cutecheck::cli::engine_lines;
use cutecheck::known::KnownDiscrepancies;
use cutecheck::oracle::provision::DEFAULT_CUTLASS;
use cutecheck::suite::{all_suites, compare, outcome_of_lines, Verdict};

#[test]
fn engine_matches_recorded_cute() {
    let suites = all_suites().expect("fixtures/cases");
    assert!(!suites.is_empty(), "no fixtures/cases/*.cases files");
    let known = KnownDiscrepancies::load(&cutecheck::oracle::repo_root().join("fixtures/known-discrepancies.toml"))
        .expect("fixtures/known-discrepancies.toml");
    let mut problems = Vec::new();
    let (mut compared, mut explained) = (0, 0);
    for s in &suites {
        let recorded = match s.recorded(None) {
            Ok(r) => r,
            Err(p) => {
                problems.extend(p);
                continue;
            }
        };
        for (c, cute) in s.cases.iter().zip(&recorded) {
            let engine = engine_lines(&c.expr);
            compared += 1;
            if compare(cute, &engine) != Verdict::Differ {
                continue;
            }
            let cute_outcome = outcome_of_lines(cute);
            let family = cutecheck::triage::triage_case(&c.expr, &cute_outcome).and_then(|t| {
                let op = cutecheck::definition::op_name(&cutecheck::expr::parse(&c.expr).ok()?)?.to_string();
                known.lookup_family(&op, &t.signature(), DEFAULT_CUTLASS)
            });
            if known.lookup(&c.expr, DEFAULT_CUTLASS).or(family).is_some() {
                explained += 1;
                continue;
            }
            problems.push(format!("{}: {}\n    CuTe:   {}\n    engine: {}", s.locate(c), c.expr, cute.join(" | "), engine.join(" | ")));
        }
    }
    assert!(compared > 0, "no case was compared");
    assert!(
        problems.is_empty(),
        "{} problem(s) with the engine against recorded real CuTe ({compared} cases compared, {explained} listed discrepancies):\n{}",
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
    let oracle = Oracle::new(opts).unwrap_or_else(|e| panic!("CUTECHECK_CUTE is set but real CuTe is not usable: {e:#}"));
    let suites = all_suites().expect("fixtures/cases");
    let results = cutecheck::suite::record(&oracle, &alone, &suites);
    let mut changed = Vec::new();
    for (s, results) in suites.iter().zip(&results) {
        let recorded = s.recorded(None).unwrap_or_else(|p| panic!("{}", p.join("\n")));
        for ((c, was), now) in s.cases.iter().zip(&recorded).zip(results) {
            if was != now {
                changed.push(format!("{}: {}\n    recorded: {}\n    CuTe now: {}", s.locate(c), c.expr, was.join(" | "), now.join(" | ")));
            }
        }
    }
    assert!(changed.is_empty(), "real CuTe now prints something else:\n{}", changed.join("\n"));
}

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn one_batch_survives_static_asserts_and_crashes() {
    use cutecheck::oracle::{Oracle, OracleOptions, Outcome};
    // Expected texts come from real-CuTe 4.2 runs of these cases (g++ 12, host only).
    let opts = OracleOptions { cache: false, ..OracleOptions::default() };
    let oracle = Oracle::new(opts).expect("real CuTe");
    let cases: Vec<String> = [
        "complement((_2,_2):(_1,_1),_24)",
        "size(_4:_1)",
        "composition((6,2):(0,2),(4,3):(3,0))",
        "left_inverse(4:2)",
        "coalesce((_2,(_1,_6)):(_1,(_6,_2)))",
    ]
    .map(String::from)
    .to_vec();
    let r = oracle.run(&cases);
    assert_eq!(r[0], Outcome::Rejected("Non-injective Layout detected in complement.".into()));
    assert_eq!(r[1], Outcome::Printed("_4".into()));
    assert!(matches!(&r[2], Outcome::Crashed(s) if s.starts_with("SIGFPE")), "{:?}", r[2]);
    assert_eq!(r[3], Outcome::Rejected("Left inverse requires static strides.".into()));
    assert_eq!(r[4], Outcome::Printed("_12:_1".into()));
}
