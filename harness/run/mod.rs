//! One conformance run, for every choice of oracles: [`plan`] the cases (fixed suites, random
//! cases drawn under the judge's release, the known discrepancies' reproducers, or the cases
//! given), [`ask`] every oracle of the run (peers behind `case::Oracle`: CuTe C++, the CuTe DSL,
//! pycute, routed by their Caps) and the engine, [`judge`] every pair (engine~cpp by the
//! conformance judge, engine~X and cpp~X by `judge::judge_pair`) and tally it; [`dynamic`] adds
//! the in-process oracle's dynamic cases, judged chunk by chunk the same way.
//!
//! Every command that compares the engine with CuTe goes through here: `cargo xtask conformance`
//! (every `--oracle`, `--pycute`, `--dynamic-cases`), `release-diff`, `repro` and `cutecheck eval
//! --both` and the snapshot tests ([`judge_recorded`]); they parse arguments and read the
//! result; shrinking is [`shrink`].

pub mod ask;
pub mod dynamic;
pub mod judge;
pub mod plan;
pub mod recorded;
pub mod shrink;

use anyhow::Result;

pub use ask::{ask, Asked, Peer};
pub use judge::{judge, Judged, Judgements, PairRow};
pub use plan::{plan, plan_with_file, Plan, PlanSpec, Planned};
pub use recorded::judge_recorded;

use crate::case::{self, Case};
use crate::judge::Judge;

/// A whole run: its cases, every side's answers, every pair's judgements.
pub struct Run {
    pub plan: Plan,
    pub asked: Asked,
    pub judged: Judgements,
}

/// Plan, ask, judge. `between` sees the answers before they are judged (for progress lines).
pub fn run(
    judge: &Judge<'_>,
    spec: &PlanSpec,
    oracles: &[&dyn case::Oracle],
    between: impl FnOnce(&Plan, &Asked) -> Result<()>,
) -> Result<Run> {
    let plan = plan::plan(judge, spec)?;
    run_planned(judge, plan, oracles, false, between)
}

/// Ask and judge the cases of a plan made elsewhere (the same cases on two releases, the cases of
/// a command line); with `table`, the engine prints rank-2 layouts as grids (`eval --table`; the
/// oracles are given in that mode too).
pub fn run_planned(
    judge: &Judge<'_>,
    plan: Plan,
    oracles: &[&dyn case::Oracle],
    table: bool,
    between: impl FnOnce(&Plan, &Asked) -> Result<()>,
) -> Result<Run> {
    let refs: Vec<&Case> = plan.cases.iter().map(|p| &p.case).collect();
    let asked = ask::ask(judge, &refs, oracles, table);
    drop(refs);
    between(&plan, &asked)?;
    let judged = judge::judge(judge, &plan.cases, &asked);
    Ok(Run { plan, asked, judged })
}

/// Ask and judge the given cases (`Origin::Adhoc`, group `adhoc`): `repro`, `eval --both`.
pub fn given(judge: &Judge<'_>, cases: Vec<Case>, oracles: &[&dyn case::Oracle], table: bool) -> Run {
    let cases = cases
        .into_iter()
        .map(|case| Planned { group: "adhoc".into(), case, origin: case::Origin::Adhoc, random: None })
        .collect();
    let plan = Plan { cases, trees: Vec::new(), seconds: 0.0 };
    run_planned(judge, plan, oracles, table, |_, _| Ok(())).expect("a run without a between step cannot fail")
}

/// CPU seconds (user and system) this process has used so far, all threads together.
pub fn cpu_seconds() -> f64 {
    rusage(libc::RUSAGE_SELF)
}

/// CPU seconds used by this process's children that have ended and been waited for.
pub fn children_cpu_seconds() -> f64 {
    rusage(libc::RUSAGE_CHILDREN)
}

fn rusage(who: libc::c_int) -> f64 {
    // SAFETY: getrusage fills the struct it is given; a zeroed rusage is a valid value.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut u) } != 0 {
        return 0.0;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(u.ru_utime) + secs(u.ru_stime)
}

#[cfg(test)]
mod tests;
