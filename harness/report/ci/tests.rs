//! The CI outputs read a report: failing cases named with reproducers, the summary line, JUnit,
//! the step summary and annotations at the user's file lines.

use super::*;
use crate::run::judge::GroupRow;
use crate::run::shrink::Shrunk;

fn case(group: &str, location: &str, expr: &str, status: Status) -> CaseReport {
    CaseReport {
        group: group.into(),
        location: location.into(),
        op: None,
        admissible: None,
        expr: expr.into(),
        cute: vec!["(_2,_2):(_32,_2)".into()],
        engine: vec!["error: <undefined>".into()],
        verdict: "v & <w>".into(),
        status,
        triage: None,
        signature: None,
        explained: None,
        shrunk: None,
        pycute: None,
        features: Vec::new(),
        reproduce: None,
        reproduce_shrunk: None,
        picture: None,
    }
}

fn report(cases: Vec<CaseReport>) -> Report {
    Report {
        oracle: "mirror".into(),
        version: "4.2.0.0".into(),
        seed: 7,
        shard: "0/1".into(),
        random_cases: 0,
        seconds: 1.25,
        cases_per_minute: 0.0,
        rows: Default::default(),
        total: GroupRow { cases: cases.len(), ..Default::default() },
        classes: Default::default(),
        signatures: Default::default(),
        pycute: None,
        dynamic_explained_omitted: Vec::new(),
        overflow_refusals: Default::default(),
        cases,
        summary: None,
    }
}

fn sample() -> Report {
    let mut new = case("my.cases", "/w/ci/my.cases:4", "composition((_6,_2):(_8,_2),_4:_4)", Status::New);
    new.shrunk = Some(Shrunk {
        expr: "composition(_6:_8,_4:_4)".into(),
        cute: vec!["a".into()],
        engine: vec!["b".into()],
        signature: "s".into(),
        steps: 2,
    });
    report(vec![
        case("my.cases", "ci/my.cases:2", "coalesce(_2:_1)", Status::Agree),
        new,
        case("known", "ci/known.toml:3", "coalesce((_2,_4):(_1,_2))", Status::Stale("agrees now".into())),
        case("random", "random #3 (seed 7)", "complement(_4:_1,_8)", Status::New),
        case("random", "random #4 (seed 7)", "size(_4:_1)", Status::Unchecked("no".into())),
    ])
}

#[test]
fn the_summary_line_says_pass_or_fail_with_counts_and_time() {
    let r = sample();
    assert_eq!(Summary::of(&r, false).line(), "FAIL: 5 cases (2 NEW, 1 STALE, 1 agree, 1 unchecked) in 1.2 s");
    let ok = report(vec![case("g", "f:1", "size(_1:_1)", Status::Agree)]);
    assert!(Summary::of(&ok, true).line().starts_with("PASS: 1 cases (1 agree)"));
}

#[test]
fn the_log_names_every_failing_case_with_its_reproducers() {
    let text = failing_listing(&sample());
    assert!(text.contains("NEW DISAGREEMENT composition((_6,_2):(_8,_2),_4:_4) (/w/ci/my.cases:4)"), "{text}");
    assert!(text.contains("  reproduce: cargo xtask repro 'composition((_6,_2):(_8,_2),_4:_4)'"), "{text}");
    assert!(text.contains("  reproduce shrunk: cargo xtask repro 'composition(_6:_8,_4:_4)'"), "{text}");
    assert!(text.contains("STALE KNOWN DISCREPANCY (agrees now) coalesce((_2,_4):(_1,_2)) (ci/known.toml:3)"));
    assert!(text.contains("cargo xtask repro 'complement(_4:_1,_8)'"));
    assert!(!text.contains("coalesce(_2:_1)"), "agreements are not listed");
    assert_eq!(reproducer("a'b"), r"cargo xtask repro 'a'\''b'");
}

#[test]
fn junit_has_a_testcase_per_case_and_a_failure_per_failing_case() {
    let r = sample();
    let x = junit(&r, &Summary::of(&r, false));
    assert_eq!(x.matches("<testcase ").count(), 5);
    assert_eq!(x.matches("<failure ").count(), 3);
    assert_eq!(x.matches("<skipped ").count(), 1);
    assert_eq!(x.matches("<testsuite ").count(), 3);
    assert!(x.contains("tests=\"5\" failures=\"3\""), "{x}");
    assert!(x.contains("v &amp; &lt;w&gt;"), "escaped: {x}");
    assert!(x.contains("reproduce: cargo xtask repro &apos;complement(_4:_1,_8)&apos;"), "{x}");
    assert_eq!(x.matches("</testcase>").count() + x.matches("\"/>\n").count() - 1, 5, "{x}");
}

#[test]
fn the_step_summary_tables_the_failing_cases_with_reproducers() {
    let r = sample();
    let md = step_summary(&r, &Summary::of(&r, false), &[]);
    assert!(md.starts_with("## cutecheck conformance: FAIL\n"), "{md}");
    assert_eq!(md.lines().filter(|l| l.starts_with("| NEW") || l.starts_with("| STALE")).count(), 3, "{md}");
    assert!(md.contains("`cargo xtask repro 'composition((_6,_2):(_8,_2),_4:_4)'`<br>shrunk: `cargo xtask repro 'composition(_6:_8,_4:_4)'`"));
}

#[test]
fn annotations_point_at_the_users_files_only() {
    let a = annotations(&sample(), &[("/w/ci/my.cases", "ci/my.cases"), ("ci/known.toml", "ci/known.toml")]);
    assert_eq!(a.len(), 2, "{a:?}");
    assert!(a[0].starts_with("::error file=ci/my.cases,line=4::NEW composition((_6,_2):(_8,_2),_4:_4): "), "{}", a[0]);
    assert!(a[0].ends_with("reproduce: cargo xtask repro 'composition(_6:_8,_4:_4)'"));
    assert!(a[1].starts_with("::error file=ci/known.toml,line=3::STALE "));
    assert!(annotations(&sample(), &[]).is_empty());
}

#[test]
fn a_change_in_a_newer_release_has_its_verdict_exit_status_and_release_diff_command() {
    let mut r = report(vec![
        case("my.cases", "/w/ci/my.cases:2", "coalesce(_2:_1)", Status::Agree),
        case(
            "my.cases",
            "/w/ci/my.cases:5",
            "composition((_6,_2):(_8,_2),_4:_4)",
            Status::ChangedInRelease("4.7.0.0".into()),
        ),
    ]);
    r.version = "dir:/w/cutlass/include".into();
    let s = Summary::of(&r, true);
    assert_eq!(s.line(), "CHANGED IN RELEASE: 2 cases (1 CHANGED-IN-RELEASE, 1 agree) in 1.2 s");
    assert_eq!((s.changed(), s.exit_status()), (1, crate::judge::CHANGED_IN_RELEASE_EXIT));
    // Not a failure: a failing case makes the run FAIL (exit 1) whatever else changed.
    let fail = Summary::of(&r, false);
    assert_eq!((fail.verdict(), fail.exit_status()), ("FAIL", 1));
    assert_eq!(Summary::of(&report(vec![case("g", "f:1", "size(_1:_1)", Status::Agree)]), true).exit_status(), 0);
    let text = failing_listing(&r);
    assert!(text.contains("CHANGED IN RELEASE (CUTLASS dir:/w/cutlass/include against the engine's model of 4.7.0.0) composition((_6,_2):(_8,_2),_4:_4) (/w/ci/my.cases:5)"), "{text}");
    assert!(text.contains("  CuTe:   (_2,_2):(_32,_2)\n  engine: error: <undefined>\n"), "{text}");
    assert!(text.contains("  release-diff: cargo xtask release-diff --from-dir CUTLASS_v4.7.0_CHECKOUT --cutlass-dir '/w/cutlass/include'"), "{text}");
    let step = step_summary(&r, &s, &[("/w/ci/my.cases", "ci/my.cases")]);
    assert!(step.starts_with("## cutecheck conformance: CHANGED IN RELEASE"), "{step}");
    assert!(
        step.contains("| CHANGED-IN-RELEASE | ci/my.cases:5 |")
            && step.contains("release-diff: `cargo xtask release-diff"),
        "{step}"
    );
    // A warning at the user's line, not an error.
    let a = annotations(&r, &[("/w/ci/my.cases", "ci/my.cases")]);
    assert_eq!(a.len(), 1);
    assert!(a[0].starts_with("::warning file=ci/my.cases,line=5::CHANGED-IN-RELEASE composition"), "{a:?}");
    // A wheel model: `--from VERSION`, `--to VERSION`.
    assert_eq!(release_diff_command("4.3.0.0", "4.2.0.0"), "cargo xtask release-diff --from 4.2.0.0 --to 4.3.0.0");
}
