//! One conformance run, for every choice of oracles: [`plan`] the cases (fixed suites, random
//! cases drawn under the judge's release, the known discrepancies' reproducers), [`ask`] every
//! selected oracle (CuTe C++, the CuTe DSL) and the engine, [`judge`] every pair (engine~cpp by
//! the conformance judge, engine~dsl and cpp~dsl by `judge::judge_pair`) and tally it.
//!
//! `cargo xtask conformance` is argument parsing around [`run`], plus what reads its result:
//! shrinking, the report tables and files.

pub mod ask;
pub mod judge;
pub mod plan;
pub mod shrink;

use anyhow::Result;

pub use ask::{ask, run_oracle, Asked, Asking};
pub use judge::{judge, Judged, Judgements, PairRow};
pub use plan::{plan, Plan, PlanSpec, Planned};

use crate::case::Case;
use crate::judge::Judge;

/// A whole run: its cases, every side's answers, every pair's judgements.
pub struct Run {
    pub plan: Plan,
    pub asked: Asked,
    pub judged: Judgements,
}

/// Plan, ask, judge. `between` sees the answers before they are judged and may add cases with
/// their answers (to `plan.cases` and every answer list of `asked`, in step): the dynamic cases
/// of the in-process oracle join the judge so.
pub fn run(
    judge: &Judge<'_>,
    spec: &PlanSpec,
    oracles: Asking<'_>,
    between: impl FnOnce(&mut Plan, &mut Asked) -> Result<()>,
) -> Result<Run> {
    let mut plan = plan::plan(judge, spec)?;
    let refs: Vec<&Case> = plan.cases.iter().map(|p| &p.case).collect();
    let mut asked = ask::ask(judge, &refs, oracles);
    drop(refs);
    between(&mut plan, &mut asked)?;
    let judged = judge::judge(judge, &plan.cases, &asked);
    Ok(Run { plan, asked, judged })
}

#[cfg(test)]
mod tests;
