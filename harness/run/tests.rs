//! The run loop without CuTe: an oracle that answers as the engine does agrees on every random
//! case, and no known discrepancy reproduces against it.

use super::*;
use crate::case::{self, Outcome};
use crate::known::KnownDiscrepancies;

/// Answers every case with the engine's own outcome.
struct Mirror;

impl case::Oracle for Mirror {
    fn describe(&self) -> String {
        "the engine, mirrored".into()
    }

    fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
        cases.iter().map(|c| case::engine(c, false).outcome).collect()
    }
}

#[test]
fn a_mirror_oracle_agrees_on_every_random_case_and_leaves_every_reproducer_stale() {
    let known = KnownDiscrepancies::load_default().expect("fixtures/known-discrepancies.toml");
    let judge = Judge::new(&known, crate::oracle::provision::DEFAULT_CUTLASS);
    let spec = PlanSpec { cases: 40, seed: 11, shard: (0, 1), fixed: false, known: true };
    let r = run(&judge, &spec, &[&Mirror], |_, _| Ok(())).expect("the run");
    let random = r.plan.cases.iter().filter(|p| p.group == "random").count();
    let reproducers = r.plan.cases.iter().filter(|p| p.group == "known").count();
    assert_eq!(random, 40);
    assert_eq!(reproducers, plan::known_cases(&judge).unwrap().len());
    let groups = &r.judged.groups;
    let random_row = &groups["random"];
    assert_eq!(random_row.cases, 40);
    assert_eq!(random_row.agree + random_row.both_refuse + random_row.unchecked, 40, "{random_row:?}");
    // A known discrepancy's reproducer on which CuTe answers as the engine no longer reproduces.
    if reproducers > 0 {
        assert_eq!(groups["known"].disagree, reproducers, "{:?}", groups["known"]);
        assert!(!r.judged.ok);
    }
    let pair = &r.judged.pairs["engine~cpp"];
    assert_eq!(pair.cases, random + reproducers);
    assert!(r.judged.cases.iter().all(|j| j.pairs.is_empty()));
}

#[test]
fn a_shard_other_than_the_first_plans_neither_fixed_suites_nor_reproducers() {
    let known = KnownDiscrepancies::load_default().expect("fixtures/known-discrepancies.toml");
    let judge = Judge::new(&known, crate::oracle::provision::DEFAULT_CUTLASS);
    let spec = PlanSpec { cases: 10, seed: 3, shard: (1, 2), fixed: true, known: true };
    let p = plan(&judge, &spec).expect("the plan");
    assert_eq!(p.cases.len(), 5);
    assert!(p.cases.iter().all(|c| c.group == "random" && c.random.is_some_and(|i| i % 2 == 1)));
}

/// An oracle of another implementation: answers as the engine does, or fails on every case.
struct Other {
    caps: case::Caps,
    fails: bool,
}

impl case::Oracle for Other {
    fn describe(&self) -> String {
        "another oracle".into()
    }

    fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
        cases
            .iter()
            .map(|c| match self.fails {
                true => Outcome::Error("down".into()),
                false => case::engine(c, false).outcome,
            })
            .collect()
    }

    fn caps(&self) -> case::Caps {
        self.caps
    }

    fn name(&self) -> &'static str {
        "other"
    }
}

/// A fifth oracle is a peer by implementing the trait: the run asks it, judges it against the
/// engine and against CuTe C++, and its failures fail the run only when its Caps bind it.
#[test]
fn any_oracle_is_a_peer_judged_against_the_engine_and_cpp() {
    let known = KnownDiscrepancies::load_default().expect("fixtures/known-discrepancies.toml");
    let judge = Judge::new(&known, crate::oracle::provision::DEFAULT_CUTLASS);
    let spec = PlanSpec { cases: 20, seed: 5, shard: (0, 1), fixed: false, known: false };
    let agreeing = Other { caps: case::Caps::PYCUTE, fails: false };
    let r = run(&judge, &spec, &[&Mirror, &agreeing], |_, _| Ok(())).expect("the run");
    assert!(r.judged.ok);
    assert_eq!(r.asked.peer("other").map(|p| p.replies.len()), Some(20));
    for j in &r.judged.cases {
        let (e, c) = (j.pair("engine", "other").expect("engine~other"), j.pair("cpp", "other").expect("cpp~other"));
        assert!(e.agrees() || e.unchecked(), "{e:?}");
        assert!(!c.blames_reference(), "{c:?}");
    }
    assert_eq!(r.judged.pairs["engine~other"].cases, 20);
    assert_eq!(r.judged.pairs["cpp~other"].cases, 20);
    for (caps, ok) in [(case::Caps::PYCUTE, true), (case::Caps::DSL, false)] {
        let failing = Other { caps, fails: true };
        let r = run(&judge, &spec, &[&Mirror, &failing], |_, _| Ok(())).expect("the run");
        assert_eq!(r.judged.ok, ok, "an oracle failing on every case, binding: {}", caps.binding);
    }
}

#[test]
fn a_user_case_file_is_planned_with_file_and_line_and_a_stale_user_entry_fails_the_run() {
    let text =
        "# the layouts of my kernel\n\ncoalesce((_2,_4):(_1,_2))\n  # indented comment\ncomposition(_8:_1,_4:_2)\n";
    let cases = plan::case_lines(text, "ci/my.cases").expect("the case file");
    let locations: Vec<&str> = cases.iter().map(|p| p.case.location.as_str()).collect();
    assert_eq!(locations, ["ci/my.cases:3", "ci/my.cases:5"]);
    assert!(cases.iter().all(|p| p.group == "my.cases"));
    let bad =
        plan::case_lines("coalesce(_2:_1)\ncoalesce((_2,_4):(_1,\n", "ci/bad.cases").err().expect("a parse error");
    assert!(format!("{bad:#}").contains("ci/bad.cases:2"), "{bad:#}");
    assert!(plan::case_lines("# nothing\n", "empty.cases").is_err());

    // The user's accepted discrepancy, which the mirror oracle does not reproduce: stale, at the
    // user's file and line, and the run fails.
    let mut known = KnownDiscrepancies::default();
    let user = "# mine\n[[discrepancy]]\nexpr = \"coalesce((_2,_4):(_1,_2))\"\nversions = [\"*\"]\nclass = \"same-function\"\nexplanation = \"accepted\"\n";
    known.extend(KnownDiscrepancies::parse_at(user, "ci/known.toml").expect("the user's list"));
    let judge = Judge::new(&known, crate::oracle::provision::DEFAULT_CUTLASS);
    let spec = PlanSpec { cases: 0, seed: 1, shard: (0, 1), fixed: false, known: true };
    let mut p = plan(&judge, &spec).expect("the plan");
    p.cases.extend(cases);
    let r = run_planned(&judge, p, &[&Mirror], false, |_, _| Ok(())).expect("the run");
    let stale: Vec<_> = r
        .plan
        .cases
        .iter()
        .zip(&r.judged.cases)
        .filter(|(_, j)| j.engine_cpp.as_ref().is_some_and(|j| matches!(j.status, crate::judge::Status::Stale(_))))
        .map(|(p, _)| p.case.location.clone())
        .collect();
    assert_eq!(stale, ["ci/known.toml:3"]);
    assert!(!r.judged.ok);
}

#[test]
fn a_log_gets_progress_lines_with_done_total_and_an_estimate() {
    assert_eq!(ask::progress_line("cpp", 300, 1000, 12.0), "cpp: 300/1000 cases (30%), 12 s, about 28 s left");
    assert_eq!(ask::progress_line("cpp", 0, 10, 1.0), "cpp: 0/10 cases (0%), 1 s, estimating");
    assert_eq!(ask::progress_line("cpp", 10, 10, 4.0), "cpp: 10/10 cases (100%), 4 s, about 0 s left");
}

/// Answers `(_2,_2):(_32,_2)` for the chapter's undefined composition (as CuTe does), and as the
/// engine for the rest.
struct CuteLike;

impl case::Oracle for CuteLike {
    fn describe(&self) -> String {
        "the engine, but CuTe's answer to one undefined composition".into()
    }

    fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
        cases
            .iter()
            .map(|c| match c.text.as_str() {
                "composition((_6,_2):(_8,_2),_4:_4)" => Outcome::Printed("(_2,_2):(_32,_2)".into()),
                _ => case::engine(c, false).outcome,
            })
            .collect()
    }
}

#[test]
fn the_json_report_carries_every_case_and_a_new_one_with_its_reproducer() {
    let known = KnownDiscrepancies::default();
    let judge = Judge::new(&known, crate::oracle::provision::DEFAULT_CUTLASS);
    let spec = PlanSpec { cases: 5, seed: 3, shard: (0, 1), fixed: false, known: false };
    let mut p = plan(&judge, &spec).expect("the plan");
    p.cases.extend(
        plan::case_lines("coalesce((_2,_4):(_1,_2))\ncomposition((_6,_2):(_8,_2),_4:_4)\n", "ci/my.cases").unwrap(),
    );
    let n = p.cases.len();
    let r = run_planned(&judge, p, &[&CuteLike], false, |_, _| Ok(())).expect("the run");
    assert!(!r.judged.ok);
    let about = crate::report::conformance::About {
        oracle: "cute-like".into(),
        seed: 3,
        shard: (0, 1),
        random_cases: 5,
        pycute: false,
        start: std::time::Instant::now(),
    };
    let report = crate::report::conformance::build(r, &judge, about, None, |_, _| None);
    let json: serde_json::Value = serde_json::to_value(&report).unwrap();
    let cases = json["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), n, "every case is in the JSON");
    let new: Vec<&serde_json::Value> = cases.iter().filter(|c| c["status"]["status"] == "new").collect();
    assert_eq!(new.len(), 1, "{cases:?}");
    assert_eq!(new[0]["location"], "ci/my.cases:2");
    assert_eq!(new[0]["reproduce"], "cargo xtask repro 'composition((_6,_2):(_8,_2),_4:_4)'");
    assert_eq!(new[0]["cute"][0], "(_2,_2):(_32,_2)");
}

/// A case file's error names FILE:LINE:COL (the column in the line as written), shows the line
/// with a caret under the column, and a misspelt operation gets the name it is near; a name near
/// no operation, and a bare name (an atom the engine may lack), are left to the run.
#[test]
fn a_case_file_error_has_its_column_a_caret_and_a_did_you_mean() {
    let err = |text: &str| format!("{:#}", plan::case_lines(text, "ci/k.cases").err().expect("an error"));
    let e = err("coalesce(_2:_1)\n  coalesce((_2,_4):(_1,\n");
    let lines: Vec<&str> = e.lines().collect();
    assert!(lines[0].starts_with("ci/k.cases:2:24: cannot parse the case: "), "{e}");
    assert_eq!(lines[1], "    coalesce((_2,_4):(_1,");
    assert_eq!(lines[2], format!("  {}^", " ".repeat(23)), "{e}");
    let e = err("# mine\ncomposition(_8:_1, coalesc(_4:_2))\n");
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines[0], "ci/k.cases:2:20: unknown function 'coalesc' (did you mean 'coalesce'?)", "{e}");
    assert_eq!(lines[1], "  composition(_8:_1, coalesc(_4:_2))");
    assert_eq!(lines[2].find('^'), Some(2 + 19), "{e}");
    let e = err("logical_divde(_24:_1,_4:_2)\n");
    assert!(e.starts_with("ci/k.cases:1:1: unknown function 'logical_divde' (did you mean 'logical_divide'?)"), "{e}");
    // Left to the run: a function near no operation, a bare name, an atom form.
    for fine in ["make_ordered_layout((_2,_4),(_1,_0))", "mma_layout_a(SM999_16x8x8_NEW)", "Swizzle<3,4,3>"] {
        assert!(plan::case_lines(fine, "ci/k.cases").is_ok(), "{fine}");
    }
}
