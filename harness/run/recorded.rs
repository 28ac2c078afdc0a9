//! A suite judged against real CuTe's recorded output (`snapshots/`): the snapshot is an oracle
//! like any other (it answers each case with what CuTe printed when `cargo xtask bless` ran), and
//! the run asks and judges it as it does a live one. tests/fixed_suites.rs and tests/releases.rs
//! call [`judge_recorded`].

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
