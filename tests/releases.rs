//! The engine modelling each CUTLASS release against what that release's real CuTe printed: every
//! fixed suite recorded under snapshots/versions/<V>/ (by `cargo xtask oracle --cutlass-version V`)
//! is judged with the engine modelling V (`engine::release`), by the same judge as `cargo xtask
//! conformance --cutlass-version V`, with the known discrepancies listed for V. Needs no compiler.

use cutecheck::case::{Case, Origin, Outcome};
use cutecheck::engine::release::{Release, DEFAULT, MODELLED, SWITCHES};
use cutecheck::judge::Judge;
use cutecheck::known::KnownDiscrepancies;
use cutecheck::suite::{all_suites, parse_snapshot_body, snapshot_body_of, snapshot_path};

/// Judge every recorded case of `version`; the failures as `file:line` lines.
fn judge_release(version: Release, known: &KnownDiscrepancies) -> (usize, Vec<String>) {
    let v = version.to_string();
    let judge = Judge::new(known, v.clone());
    assert_eq!(judge.release, version, "{v} is modelled exactly");
    let (mut judged, mut problems) = (0, Vec::new());
    for s in all_suites().expect("fixtures/cases").into_iter().filter(|s| s.is_recorded_for(Some(&v))) {
        let path = snapshot_path(&s.name, Some(&v));
        let Some(recorded) =
            std::fs::read_to_string(&path).ok().and_then(|f| snapshot_body_of(&f).map(parse_snapshot_body))
        else {
            problems.push(format!(
                "{}: no snapshot for {v} ({}): record it with `cargo xtask oracle --cutlass-version {v}`",
                s.path.display(),
                path.display()
            ));
            continue;
        };
        for (k, c) in s.cases.iter().enumerate() {
            let Some((_, lines)) = recorded.get(k).filter(|(e, _)| *e == c.expr) else {
                problems.push(format!(
                    "{}: {} has no recorded result for {v} in {}",
                    s.locate(c),
                    c.expr,
                    path.display()
                ));
                continue;
            };
            let cute = Outcome::from_lines(lines);
            let case = Case::parse(&c.expr, s.locate(c)).expect("fixed cases parse");
            let engine = judge.engine(&case, false);
            let j = judge.judge(&case, Origin::Fixed, &engine, &cute);
            judged += 1;
            if j.fails() {
                problems.push(format!(
                    "{} [{v}]: {}\n    CuTe:   {}\n    engine: {}\n    {}",
                    case.location,
                    case.text,
                    cute.lines().join(" | "),
                    engine.outcome.lines().join(" | "),
                    j.summary()
                ));
            }
        }
    }
    (judged, problems)
}

#[test]
fn every_modelled_release_matches_its_recorded_cute() {
    let known = KnownDiscrepancies::load_default().expect("fixtures/known-discrepancies.toml");
    let mut report = Vec::new();
    for &r in MODELLED.iter().filter(|r| **r != DEFAULT) {
        let (judged, problems) = judge_release(r, &known);
        eprintln!("{r}: {judged} cases judged, {} failing", problems.len());
        report.extend(problems);
    }
    assert!(
        report.is_empty(),
        "{} case(s) where the engine's model of a release disagrees with it:\n{}",
        report.len(),
        report.join("\n")
    );
}

/// What real CuTe printed for `expr` in the releases suite as recorded for `version`.
fn recorded(expr: &str, version: Release) -> Vec<String> {
    let v = (version != DEFAULT).then(|| version.to_string());
    let path = snapshot_path("releases", v.as_deref());
    let file = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cases = parse_snapshot_body(snapshot_body_of(&file).expect("snapshot header"));
    cases
        .into_iter()
        .find(|(e, _)| e == expr)
        .map(|(_, l)| l)
        .unwrap_or_else(|| panic!("{expr} is not recorded in {}", path.display()))
}

#[test]
fn every_switch_has_a_fixture_that_real_cute_prints_differently_across_it() {
    for s in SWITCHES {
        let before =
            MODELLED.iter().rev().find(|r| **r < s.since).copied().expect("a modelled release before the switch");
        let (old, new) = (recorded(s.fixture, before), recorded(s.fixture, s.since));
        assert_ne!(
            old, new,
            "switch `{}`: its fixture {} prints the same in CUTLASS {before} and {}",
            s.name, s.fixture, s.since
        );
    }
}
