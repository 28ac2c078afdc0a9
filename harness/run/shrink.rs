//! Shrinking a random disagreement (cutecheck::fuzz::shrink): simpler cases are judged again,
//! CuTe C++ asked for each, until none keeps the disagreement's triage signature.

use serde::Serialize;

use crate::case::{self, Case, Origin, Outcome};
use crate::fuzz::{self, CaseTree};
use crate::judge::{Judge, Judgement, Status, Verdict as Triage};

use super::judge::signature_of;

/// A shrunk disagreement: the case, both sides' outputs, its signature and the CuTe queries spent.
#[derive(Serialize, Clone, Debug)]
pub struct Shrunk {
    pub expr: String,
    pub cute: Vec<String>,
    pub engine: Vec<String>,
    pub signature: String,
    pub steps: usize,
}

/// Shrink one random disagreement: a simpler case still fails when the judge still finds a new
/// disagreement with the same triage signature.
pub fn shrink_one(oracle: &dyn case::Oracle, judge: &Judge<'_>, tree: CaseTree, t: &Triage, budget: usize) -> Shrunk {
    let want = signature_of(t);
    let mut steps = 0;
    let ask = |expr: &str| -> Option<(Case, case::EngineAnswer, Outcome, Judgement)> {
        let c = Case::parse(expr, "shrunk").ok()?;
        let e = judge.engine(&c, false);
        let o = oracle.run(&[&c]).pop()?;
        let j = judge.judge(&c, Origin::Random { admissible: false }, &e, &o);
        Some((c, e, o, j))
    };
    let best = fuzz::shrink(
        tree,
        |c| {
            // The engine's side is free to compute: a candidate where it no longer rejects (or no
            // longer accepts) as in the original cannot keep the signature, so CuTe is not asked.
            let Ok(parsed) = Case::parse(&c.expr, "shrunk") else {
                return false;
            };
            let engine_rejects = judge.engine(&parsed, false).outcome.printed().is_none();
            if want.contains("engine-rejects") != engine_rejects || steps >= budget {
                return false;
            }
            steps += 1;
            ask(&c.expr).is_some_and(|(_, _, _, j)| {
                j.status == Status::New && j.triage.as_ref().map(signature_of).as_deref() == Some(&want)
            })
        },
        // `budget` bounds the CuTe queries; the engine-only rejections are cheap.
        budget * 8,
    );
    match ask(&best.expr) {
        Some((_, e, o, j)) => Shrunk {
            engine: e.outcome.lines(),
            cute: o.lines(),
            signature: j.triage.as_ref().map(signature_of).unwrap_or_default(),
            expr: best.expr,
            steps,
        },
        None => Shrunk { engine: Vec::new(), cute: Vec::new(), signature: String::new(), expr: best.expr, steps },
    }
}
