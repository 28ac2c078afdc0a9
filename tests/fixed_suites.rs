//! The engine against real CuTe's recorded output for every fixed suite (fixtures/cases/*.cases,
//! snapshots/<suite>.snap, recorded by `cargo xtask oracle` with CUTLASS 4.2).
//!
//! `engine_matches_recorded_cute` needs no compiler: each case is parsed once, the engine answers
//! it, and the judge (`cutecheck::case::Judge`, the same one `cargo xtask conformance` uses)
//! compares the answer with the recorded CuTe outcome, triages a disagreement and looks it up in
//! fixtures/known-discrepancies.toml (exact entries and families) for CUTLASS 4.2. Every case the
//! judge fails is listed as `file:line` with both outputs and the verdict. The snapshots are only
//! read here, never written: they hold what real CuTe printed.
//!
//! `real_cute_still_prints_the_snapshots` compiles every case against real CuTe 4.2. It runs when
//! `CUTECHECK_CUTE` is set at build time (`cargo xtask test` provisions CuTe and sets it);
//! otherwise it is reported as ignored, with the reason.

use cutecheck::case::{self, Case, Judge, Origin, Outcome};
use cutecheck::known::KnownDiscrepancies;
use cutecheck::oracle::provision::DEFAULT_CUTLASS;
use cutecheck::suite::{all_suites, parse_snapshot_body, snapshot_body_of, snapshot_path};

#[test]
fn engine_matches_recorded_cute() {
    let suites = all_suites().expect("fixtures/cases");
    assert!(!suites.is_empty(), "no fixtures/cases/*.cases files");
    let known = KnownDiscrepancies::load_default().expect("fixtures/known-discrepancies.toml");
    let judge = Judge::new(&known, DEFAULT_CUTLASS);
    let mut problems = Vec::new();
    let mut judged = 0;
    for s in &suites {
        let path = snapshot_path(&s.name, None);
        let Some(recorded) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|f| snapshot_body_of(&f).map(parse_snapshot_body))
        else {
            problems.push(format!(
                "{}: no readable snapshot {} (record it with `cargo xtask oracle`)",
                s.path.display(),
                path.display()
            ));
            continue;
        };
        for (k, c) in s.cases.iter().enumerate() {
            let cute = match recorded.get(k) {
                Some((e, lines)) if *e == c.expr => Outcome::from_lines(lines),
                _ => {
                    problems.push(format!(
                        "{}: {} has no recorded result in {} (case files changed? run `cargo xtask oracle`)",
                        s.locate(c),
                        c.expr,
                        path.display()
                    ));
                    continue;
                }
            };
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
    let oracle = Oracle::new(opts).unwrap_or_else(|e| panic!("CUTECHECK_CUTE is set but real CuTe is not usable: {e:#}"));
    let mut changed = Vec::new();
    for s in all_suites().expect("fixtures/cases") {
        let exprs: Vec<String> = s.cases.iter().map(|c| c.expr.clone()).collect();
        let results: Vec<Vec<String>> = oracle.run(&exprs).iter().map(|o| o.lines()).collect();
        let file = std::fs::read_to_string(snapshot_path(&s.name, None)).expect("snapshot");
        let recorded = parse_snapshot_body(snapshot_body_of(&file).expect("header"));
        for (k, c) in s.cases.iter().enumerate() {
            if recorded.get(k).map(|(e, l)| (e, l)) != Some((&c.expr, &results[k])) {
                changed.push(format!("{}: {} => {}", s.locate(c), c.expr, results[k].join(" | ")));
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
