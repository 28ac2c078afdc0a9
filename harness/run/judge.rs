//! The run's third step: every pair of answers judged, and the per-pair tallies. engine~cpp by
//! the conformance judge (crate::judge::Judge, known discrepancies included); engine~dsl and
//! cpp~dsl by crate::judge::judge_pair, blame by the operation's definition.

use std::collections::BTreeMap;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::judge::{judge_pair, Answer, Judge, Judgement, Roles, Status, Verdict, ENGINE_CUTE};

use super::ask::Asked;
use super::plan::Planned;

/// The names of the sides of the DSL's pairs.
pub const ENGINE_DSL: Roles = Roles { reference: "engine", oracle: "dsl" };
pub const CPP_DSL: Roles = Roles { reference: "cpp", oracle: "dsl" };

/// The roles of a pair's name (`cpp~dsl`, `engine~dsl`).
pub fn roles(pair: &str) -> Roles {
    if pair.starts_with("cpp") {
        CPP_DSL
    } else {
        ENGINE_DSL
    }
}

/// The triage signature of an engine~cpp disagreement (`both-reject:different-reason` for
/// refusals with different conditions).
pub fn signature_of(t: &Verdict) -> String {
    if t.agrees() {
        "both-reject:different-reason".to_string()
    } else {
        t.signature(ENGINE_CUTE)
    }
}

/// One pair's tally.
#[derive(Serialize, Default, Clone, Debug, PartialEq, Eq)]
pub struct PairRow {
    pub cases: usize,
    pub agree: usize,
    pub staticness: usize,
    pub unchecked: usize,
    pub differ: usize,
    pub explained: usize,
    /// Differences by what the judge's blame matrix says of them (`Verdict::fault`).
    pub faults: BTreeMap<String, usize>,
}

/// One group's tally of engine~cpp judgements (a fixed suite, `random`, `known`, `dynamic`), by
/// the conformance judge's status.
#[derive(Serialize, Default, Clone, Debug, PartialEq, Eq)]
pub struct GroupRow {
    pub cases: usize,
    pub agree: usize,
    pub both_refuse: usize,
    pub unchecked: usize,
    pub explained: usize,
    pub oracle_errors: usize,
    pub disagree: usize,
    /// CuTe's own computation overflows (UBSan or the compiler): neither side blamed.
    pub cute_overflows: usize,
}

impl GroupRow {
    /// Count one judgement.
    pub fn count(&mut self, status: &Status) {
        self.cases += 1;
        match status {
            Status::OracleError(_) => self.oracle_errors += 1,
            Status::Stale(_) | Status::New => self.disagree += 1,
            // A discrepancy of the nearest older model that no longer reproduces: both sides
            // agree now; listed in the release news.
            Status::Agree | Status::FixedHere(_) => self.agree += 1,
            Status::BothRefuse => self.both_refuse += 1,
            Status::Unchecked(_) => self.unchecked += 1,
            Status::Explained(_) | Status::KnownEarlier(_) => self.explained += 1,
            Status::CuteOverflows(_) => self.cute_overflows += 1,
        }
    }

    /// The sum of rows.
    pub fn total<'a>(rows: impl IntoIterator<Item = &'a GroupRow>) -> GroupRow {
        let mut t = GroupRow::default();
        for r in rows {
            t.cases += r.cases;
            t.agree += r.agree;
            t.both_refuse += r.both_refuse;
            t.unchecked += r.unchecked;
            t.explained += r.explained;
            t.oracle_errors += r.oracle_errors;
            t.disagree += r.disagree;
            t.cute_overflows += r.cute_overflows;
        }
        t
    }
}

/// The judgements of one case, one per pair its oracles make.
pub struct Judged {
    /// engine ~ CuTe C++ (the conformance judge).
    pub engine_cpp: Option<Judgement>,
    pub engine_dsl: Option<Verdict>,
    pub cpp_dsl: Option<Verdict>,
}

/// Every case's judgements and the tallies: by pair, and by (pair, signature, operation).
pub struct Judgements {
    pub cases: Vec<Judged>,
    pub pairs: BTreeMap<String, PairRow>,
    pub classes: BTreeMap<(String, String, String), usize>,
    /// engine~cpp by the case's group (when C++ is asked).
    pub groups: BTreeMap<String, GroupRow>,
    /// Whether the engine is shown right: no failing engine~cpp judgement (a new or stale
    /// disagreement, an oracle error), no DSL error, no engine~dsl difference the definition
    /// blames on the engine.
    pub ok: bool,
    /// Wall seconds of judging.
    pub seconds: f64,
}

/// Judge every pair of every case (in parallel), then tally.
pub fn judge(judge: &Judge<'_>, cases: &[Planned], asked: &Asked) -> Judgements {
    let t = Instant::now();
    let cases_judged: Vec<Judged> = (0..cases.len())
        .into_par_iter()
        .map(|k| {
            let p = &cases[k];
            let engine = &asked.engines[k];
            let cpp = asked.cpp.as_ref().map(|o| &o[k]);
            let dsl = asked.dsl.as_ref().map(|d| Answer::dsl(&d[k]));
            Judged {
                engine_cpp: cpp.map(|o| judge.judge(&p.case, p.origin, engine, o)),
                engine_dsl: dsl.map(|d| judge_pair(&p.case, Answer::engine(engine), d)),
                cpp_dsl: cpp.zip(dsl).map(|(o, d)| judge_pair(&p.case, Answer::cute(o), d)),
            }
        })
        .collect();
    let seconds = t.elapsed().as_secs_f64();
    let mut pairs: BTreeMap<String, PairRow> = BTreeMap::new();
    let mut classes: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    let mut groups: BTreeMap<String, GroupRow> = BTreeMap::new();
    let mut ok = true;
    for (k, (p, j)) in cases.iter().zip(&cases_judged).enumerate() {
        let op = p.case.op().map(str::to_string).unwrap_or_else(|| "-".into());
        if asked.dsl.as_ref().is_some_and(|d| d[k].outcome.is_error()) {
            ok = false;
        }
        if let Some(ed) = &j.engine_dsl {
            if ed.blames_reference() {
                ok = false;
            }
            tally(&mut pairs, &mut classes, "engine~dsl", &op, ed);
        }
        if let Some(j) = &j.engine_cpp {
            if j.fails() {
                ok = false;
            }
            groups.entry(p.group.clone()).or_default().count(&j.status);
            let row = pairs.entry("engine~cpp".into()).or_default();
            row.cases += 1;
            match &j.status {
                Status::Agree | Status::BothRefuse => row.agree += 1,
                Status::Unchecked(_) | Status::OracleError(_) | Status::CuteOverflows(_) => row.unchecked += 1,
                Status::Explained(_) | Status::KnownEarlier(_) => {
                    row.differ += 1;
                    row.explained += 1;
                }
                _ => row.differ += 1,
            }
            if let Some(t) = &j.triage {
                *classes.entry(("engine~cpp".into(), signature_of(t), op.clone())).or_default() += 1;
            }
        }
        if let Some(cd) = &j.cpp_dsl {
            tally(&mut pairs, &mut classes, "cpp~dsl", &op, cd);
        }
    }
    Judgements { cases: cases_judged, pairs, classes, groups, ok, seconds }
}

fn tally(
    pairs: &mut BTreeMap<String, PairRow>,
    classes: &mut BTreeMap<(String, String, String), usize>,
    pair: &str,
    op: &str,
    v: &Verdict,
) {
    let row = pairs.entry(pair.into()).or_default();
    row.cases += 1;
    match v {
        v if v.agrees() => row.agree += 1,
        Verdict::Staticness { .. } => row.staticness += 1,
        v if v.unchecked() => row.unchecked += 1,
        _ => row.differ += 1,
    }
    if !v.agrees() && !v.unchecked() {
        *row.faults.entry(v.fault().word().to_string()).or_default() += 1;
    }
    if !v.agrees() {
        let sig = match v {
            Verdict::Unchecked { why } => format!("unchecked:{}", why.split(':').next().unwrap_or("")),
            other => other.signature(roles(pair)),
        };
        *classes.entry((pair.into(), sig, op.into())).or_default() += 1;
    }
}
