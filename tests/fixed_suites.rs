//! The engine against real CuTe's recorded output for every fixed suite (fixtures/cases/*.cases,
//! snapshots/<suite>.snap, recorded by `cargo xtask oracle` with CUTLASS 4.2).
//!
//! `engine_matches_recorded_cute` needs no compiler: it formats the engine's result for each case
//! like the snapshot (print text, or `rejected: <engine error>`) and compares with insta. Where
//! the engine and CuTe both refuse a case by the rule of `cutecheck::suite::compare` (CuTe's
//! static_assert message appears in the engine's error; or CuTe failed to compile without a
//! static_assert, or crashed at run time), the engine's line is shown as CuTe's, so only real
//! disagreements show in the diff. Cases the oracle could not express (`unsupported:`) are not
//! compared, and neither are disagreements listed for CUTLASS 4.2 in
//! fixtures/known-discrepancies.toml. Every other disagreeing case is listed as `file:line` before
//! the snapshot assertion.
//!
//! `real_cute_still_prints_the_snapshots` compiles every case against real CuTe 4.2. It runs when
//! `CUTECHECK_CUTE` is set at build time (`cargo xtask test` provisions CuTe and sets it);
//! otherwise it is reported as ignored, with the reason.

use cutecheck::cli::engine_lines;
use cutecheck::known::KnownDiscrepancies;
use cutecheck::oracle::provision::DEFAULT_CUTLASS;
use cutecheck::suite::{all_suites, compare, parse_snapshot_body, snapshot_body_of, snapshot_path, Verdict};

#[test]
fn engine_matches_recorded_cute() {
    let suites = all_suites().expect("fixtures/cases");
    assert!(!suites.is_empty(), "no fixtures/cases/*.cases files");
    let known_path = cutecheck::oracle::repo_root().join("fixtures/known-discrepancies.toml");
    let known = if known_path.is_file() {
        KnownDiscrepancies::load(&known_path).expect("fixtures/known-discrepancies.toml")
    } else {
        KnownDiscrepancies::default()
    };
    let mut problems = Vec::new();
    let mut bodies = Vec::new();
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
        let mut shown = Vec::new();
        for (k, c) in s.cases.iter().enumerate() {
            let cute = match recorded.get(k) {
                Some((e, lines)) if *e == c.expr => lines.clone(),
                _ => {
                    problems.push(format!(
                        "{}: {} has no recorded result in {} (case files changed? run `cargo xtask oracle`)",
                        s.locate(c),
                        c.expr,
                        path.display()
                    ));
                    shown.push(engine_lines(&c.expr));
                    continue;
                }
            };
            let engine = engine_lines(&c.expr);
            match compare(&cute, &engine) {
                Verdict::Same | Verdict::BothRefuse | Verdict::Unchecked(_) => shown.push(cute),
                // An accepted discrepancy (fixtures/known-discrepancies.toml) for CUTLASS 4.2.
                Verdict::Differ if known.lookup(&c.expr, DEFAULT_CUTLASS).is_some() => shown.push(cute),
                Verdict::Differ => {
                    problems.push(format!(
                        "{}: {}\n    CuTe:   {}\n    engine: {}",
                        s.locate(c),
                        c.expr,
                        cute.join(" | "),
                        engine.join(" | ")
                    ));
                    shown.push(engine);
                }
            }
        }
        bodies.push((s.name.clone(), s.snapshot_body(&shown)));
    }
    if !problems.is_empty() {
        eprintln!("{} case(s) where the engine disagrees with real CuTe:\n{}", problems.len(), problems.join("\n"));
    }
    let mut failed = Vec::new();
    for (name, body) in bodies {
        let r = std::panic::catch_unwind(|| {
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path("../snapshots");
            settings.set_prepend_module_to_snapshot(false);
            settings.set_omit_expression(false);
            settings.bind(|| insta::assert_snapshot!(name.clone(), body, &format!("suite(\"{name}\")")));
        });
        if r.is_err() {
            failed.push(name);
        }
    }
    assert!(
        failed.is_empty() && problems.is_empty(),
        "the engine disagrees with real CuTe in suites {failed:?}; cases:\n{}",
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
