//! A suite judged against real CuTe's recorded output (`snapshots/`): the snapshot is an oracle
//! like any other (it answers each case with what CuTe printed when `cargo xtask bless` ran), and
//! the run asks and judges it as it does a live one. tests/fixed_suites.rs and tests/releases.rs
//! call [`judge_recorded`].
//!
//! [`Replay`]: `cargo xtask conformance` on a pinned wheel whose suites are recorded answers the
//! fixed suites from their snapshots and asks real CuTe only for the other cases (random, the
//! user's, the known reproducers). The snapshots are what real CuTe printed from exactly these
//! headers (the wheel's sha256 is pinned), and tests/fixed_suites.rs's `cute::` trials check live
//! that CuTe still prints them (`cargo xtask test`); `--live-fixed` asks CuTe for every case.
//! A checkout (`--cutlass-dir`) is replayed the same way when its cute/ tree is the one a release's
//! snapshots were recorded from ([`recorded_from_checkout`]: the sha256 in
//! snapshots/versions/V/SOURCE).

use std::collections::HashMap;

use crate::case::{self, Case, Origin, Outcome};
use crate::judge::Judge;
use crate::suite::{Judged, Suite};

use super::{run_planned, Plan, Planned};

/// CuTe's recorded answers, by the case's location (`fixtures/cases/x.cases:12`).
struct Recorded {
    by_location: HashMap<String, Outcome>,
}

impl case::Oracle for Recorded {
    fn describe(&self) -> String {
        "real CuTe as recorded in snapshots/".into()
    }

    fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
        let missing = || Outcome::Error("no recorded answer".into());
        cases.iter().map(|c| self.by_location.get(&c.location).cloned().unwrap_or_else(missing)).collect()
    }
}

/// Judge the engine against real CuTe's recorded output for every case of `suite`: the results
/// recorded for `version` (`None`: `snapshots/<name>.snap`; see `Suite::recorded`), each case
/// answered by the engine under the judge's release and judged by `judge` (the judge of `cargo
/// xtask conformance`) as a fixed case. Only reads the snapshot.
pub fn judge_recorded(suite: &Suite, judge: &Judge, version: Option<&str>) -> Judged {
    let recorded = match suite.recorded(version) {
        Ok(r) => r,
        Err(problems) => return Judged { judged: 0, problems },
    };
    let mut out = Judged::default();
    let mut cases = Vec::new();
    let mut by_location = HashMap::new();
    for (c, lines) in suite.cases.iter().zip(&recorded) {
        match Case::parse(&c.expr, suite.locate(c)) {
            Ok(case) => {
                by_location.insert(case.location.clone(), Outcome::from_lines(lines));
                cases.push(Planned { group: suite.name.clone(), case, origin: Origin::Fixed, random: None });
            }
            Err(e) => out.problems.push(format!("{}: {} does not parse: {e}", suite.locate(c), c.expr)),
        }
    }
    let plan = Plan { cases, trees: Vec::new(), seconds: 0.0 };
    let oracle = Recorded { by_location };
    let run = run_planned(judge, plan, &[&oracle], false, |_, _| Ok(())).expect("no between step");
    let cute = run.asked.cpp().unwrap_or_default();
    for (((p, engine), cute), j) in run.plan.cases.iter().zip(&run.asked.engines).zip(cute).zip(&run.judged.cases) {
        let Some(j) = &j.engine_cpp else { continue };
        out.judged += 1;
        if j.fails() {
            out.problems.push(format!(
                "{}: {}\n    CuTe:   {}\n    engine: {}\n    {}",
                p.case.location,
                p.case.text,
                cute.lines().join(" | "),
                engine.outcome.lines().join(" | "),
                j.summary()
            ));
        }
    }
    out
}

/// Recorded outcomes by (location, expression).
pub type Answers = HashMap<(String, String), Outcome>;

/// The recorded release whose snapshots were taken from exactly this checkout's headers: the
/// `snapshots/versions/V/SOURCE` (written by `cargo xtask bless --cutlass-dir`) whose `include/cute
/// sha256` is the checkout's cute/ tree hash (`provision::hash_tree`). `None` when no recorded
/// release came from these headers.
pub fn recorded_from_checkout(dir: &std::path::Path) -> anyhow::Result<Option<String>> {
    let include = crate::oracle::provision::resolve_cutlass_dir(dir)?;
    let mut hash = None;
    for v in crate::suite::recorded_versions() {
        let path = crate::suite::snapshot_path("x", Some(&v)).with_file_name("SOURCE");
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let Some(recorded) = text.lines().find_map(|l| l.strip_prefix("include/cute sha256 ")) else { continue };
        let recorded = recorded.split_whitespace().next().unwrap_or_default();
        if hash.is_none() {
            hash = Some(crate::oracle::provision::hash_tree(&include.join("cute"))?);
        }
        if hash.as_deref() == Some(recorded) {
            return Ok(Some(v));
        }
    }
    Ok(None)
}

/// Every fixed suite's recorded answers for `version` (`None`: the default release's
/// `snapshots/`), by (location, expression), for the suites whose snapshot records every case;
/// and how many suites that is.
pub fn recorded_answers(version: Option<&str>) -> anyhow::Result<(Answers, usize)> {
    let mut out = HashMap::new();
    let mut suites = 0;
    for s in crate::suite::all_suites()? {
        let Ok(recorded) = s.recorded(version) else { continue };
        suites += 1;
        for (c, lines) in s.cases.iter().zip(&recorded) {
            out.insert((s.locate(c), c.expr.trim().to_string()), Outcome::from_lines(lines));
        }
    }
    Ok((out, suites))
}

/// An oracle that answers the cases it holds a recorded answer for (by location and expression)
/// from the record and asks `live` for the others, in one call per request.
pub struct Replay<'a> {
    live: &'a dyn case::Oracle,
    answers: Answers,
    note: String,
    replayed: std::sync::atomic::AtomicUsize,
}

impl<'a> Replay<'a> {
    /// `note` says where the answers come from (for the report's oracle line).
    pub fn new(live: &'a dyn case::Oracle, answers: Answers, note: String) -> Replay<'a> {
        Replay { live, answers, note, replayed: Default::default() }
    }

    /// How many cases were answered from the record so far.
    pub fn replayed(&self) -> usize {
        self.replayed.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn answer(&self, c: &Case) -> Option<&Outcome> {
        self.answers.get(&(c.location.clone(), c.text.clone()))
    }
}

impl case::Oracle for Replay<'_> {
    fn describe(&self) -> String {
        format!("{}; {}", self.live.describe(), self.note)
    }

    fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
        self.replies(cases).into_iter().map(|r| r.outcome).collect()
    }

    fn caps(&self) -> case::Caps {
        self.live.caps()
    }

    fn name(&self) -> &'static str {
        self.live.name()
    }

    fn recorded(&self, c: &Case) -> bool {
        self.answer(c).is_some()
    }

    fn replies(&self, cases: &[&Case]) -> Vec<case::Reply> {
        let rest: Vec<&Case> = cases.iter().copied().filter(|c| self.answer(c).is_none()).collect();
        let mut live = if rest.is_empty() { Vec::new() } else { self.live.replies(&rest) }.into_iter();
        let out: Vec<case::Reply> = cases
            .iter()
            .map(|c| match self.answer(c) {
                Some(o) => case::Reply::of(o.clone()),
                None => {
                    live.next().unwrap_or_else(|| case::Reply::of(Outcome::Error("the oracle gave no answer".into())))
                }
            })
            .collect();
        self.replayed.fetch_add(cases.len() - rest.len(), std::sync::atomic::Ordering::Relaxed);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A live oracle that answers `live:EXPR` and counts what it was asked.
    struct Live(std::sync::Mutex<Vec<String>>);

    impl case::Oracle for Live {
        fn describe(&self) -> String {
            "live".into()
        }
        fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
            self.0.lock().unwrap().extend(cases.iter().map(|c| c.text.clone()));
            cases.iter().map(|c| Outcome::Printed(format!("live:{}", c.text))).collect()
        }
    }

    #[test]
    fn a_replay_answers_recorded_cases_from_the_record_and_asks_live_for_the_rest_in_order() {
        let (answers, suites) = recorded_answers(None).unwrap();
        assert!(suites > 20 && answers.len() > 1000, "{suites} suites, {} answers", answers.len());
        // A recorded fixed case, the same expression elsewhere (a user's file), a random case.
        let ((loc, expr), want) = answers.iter().next().map(|(k, v)| (k.clone(), v.clone())).unwrap();
        let fixed = Case::parse(&expr, loc.clone()).unwrap();
        let elsewhere = Case::parse(&expr, "my.cases:1").unwrap();
        let random = Case::parse("size(_4:_1)", "random #0 (seed 1)").unwrap();
        let live = Live(Default::default());
        let r = Replay::new(&live, answers, "recorded".into());
        let got = case::Oracle::run(&r, &[&elsewhere, &fixed, &random]);
        assert_eq!(got[1], want);
        assert_eq!(got[0], Outcome::Printed(format!("live:{}", expr)));
        assert_eq!(got[2], Outcome::Printed("live:size(_4:_1)".into()));
        assert_eq!(*live.0.lock().unwrap(), vec![expr.clone(), "size(_4:_1)".to_string()]);
        assert_eq!(r.replayed(), 1);
        assert!(case::Oracle::recorded(&r, &fixed) && !case::Oracle::recorded(&r, &elsewhere));
        // The log's progress line counts only what the live oracle works on.
        assert_eq!(
            crate::run::ask::progress_total(&r, &[&elsewhere, &fixed, &random], "C++"),
            ("C++ (1 more from the record)".to_string(), 2)
        );
        assert_eq!(crate::run::ask::progress_total(&live, &[&fixed, &random], "C++"), ("C++".to_string(), 2));
        assert_eq!(case::Oracle::describe(&r), "live; recorded");
        // Another release's record (none for a version never blessed): nothing to replay.
        assert_eq!(recorded_answers(Some("0.0.0.0")).unwrap().1, 0);
    }
}
