//! The run's third step: every pair of answers judged, and the per-pair tallies. The engine
//! against the oracle of the modelled release (CuTe C++) by the conformance judge
//! (crate::judge::Judge, known discrepancies included); every other oracle X (the DSL, pycute)
//! against the engine and against CuTe C++ (`engine~X`, `cpp~X`) by crate::judge::judge_pair,
//! blame by the operation's definition, each answer read by its oracle's Caps.

use std::collections::BTreeMap;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::judge::{judge_pair, Answer, Judge, Judgement, Roles, Status, Verdict, ENGINE_CUTE};

use super::ask::{Asked, Peer};
use super::plan::Planned;

/// The names of the sides of the DSL's pairs.
pub const ENGINE_DSL: Roles = Roles { reference: "engine", oracle: "dsl" };
pub const CPP_DSL: Roles = Roles { reference: "cpp", oracle: "dsl" };

/// A pair's name in the tallies (`engine~dsl`, `cpp~pycute`).
pub fn pair_name(r: Roles) -> String {
    format!("{}~{}", r.reference, r.oracle)
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
            // A change in a release newer than every model is a disagreement with the model.
            Status::Stale(_) | Status::New | Status::ChangedInRelease(_) => self.disagree += 1,
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
#[derive(Clone, Debug)]
pub struct Judged {
    /// engine ~ CuTe C++ (the conformance judge).
    pub engine_cpp: Option<Judgement>,
    /// engine ~ X and cpp ~ X for every oracle X of another implementation, in the order of the
    /// run's oracles.
    pub pairs: Vec<(Roles, Verdict)>,
}

impl Judged {
    /// The verdict of the pair `reference~oracle` (`engine`, `dsl`).
    pub fn pair(&self, reference: &str, oracle: &str) -> Option<&Verdict> {
        self.pairs.iter().find(|(r, _)| r.reference == reference && r.oracle == oracle).map(|(_, v)| v)
    }
}

/// Every case's judgements and the tallies: by pair, and by (pair, signature, operation).
#[derive(Default)]
pub struct Judgements {
    pub cases: Vec<Judged>,
    pub pairs: BTreeMap<String, PairRow>,
    pub classes: BTreeMap<(String, String, String), usize>,
    /// engine~cpp by the case's group (when C++ is asked).
    pub groups: BTreeMap<String, GroupRow>,
    /// Whether the engine is shown right: no failing engine~cpp judgement (a new or stale
    /// disagreement, an oracle error), no error of a binding oracle (`Caps::binding`: the DSL),
    /// no engine~X difference of a binding oracle that the definition blames on the engine.
    pub ok: bool,
    /// Wall seconds of judging.
    pub seconds: f64,
}

/// Judge every pair of every case (in parallel), then tally.
pub fn judge(judge: &Judge<'_>, cases: &[Planned], asked: &Asked) -> Judgements {
    let t = Instant::now();
    let judged = judge_each(judge, cases, asked);
    let mut j = Judgements { ok: true, ..Judgements::default() };
    for (k, (p, c)) in cases.iter().zip(&judged).enumerate() {
        j.tally(p, asked, k, c);
    }
    j.cases = judged;
    j.seconds = t.elapsed().as_secs_f64();
    j
}

/// Every case's judgements, in parallel, without tallies.
pub fn judge_each(judge: &Judge<'_>, cases: &[Planned], asked: &Asked) -> Vec<Judged> {
    let reference = asked.reference();
    let others: Vec<&Peer> = asked.peers.iter().filter(|p| !p.caps.modelled).collect();
    (0..cases.len()).into_par_iter().map(|k| judge_one(judge, &cases[k], asked, k, reference, &others)).collect()
}

fn judge_one(
    judge: &Judge<'_>,
    p: &Planned,
    asked: &Asked,
    k: usize,
    reference: Option<&Peer>,
    others: &[&Peer],
) -> Judged {
    let engine = &asked.engines[k];
    let cpp = reference.map(|r| (r, &r.replies[k]));
    let mut pairs = Vec::with_capacity(others.len() * 2);
    for x in others {
        let reply = Answer::reply(&x.replies[k], x.caps);
        let engine_x = Roles { reference: "engine", oracle: x.name };
        pairs.push((engine_x, judge_pair(&p.case, Answer::engine(engine), reply)));
        if let Some((r, c)) = cpp {
            let cpp_x = Roles { reference: r.name, oracle: x.name };
            pairs.push((cpp_x, judge_pair(&p.case, Answer::reply(c, r.caps), reply)));
        }
    }
    Judged { engine_cpp: cpp.map(|(_, c)| judge.judge(&p.case, p.origin, engine, &c.outcome)), pairs }
}

impl Judgements {
    /// Count case `k`'s judgements (`asked` holds its answers at `k`).
    pub fn tally(&mut self, p: &Planned, asked: &Asked, k: usize, j: &Judged) {
        let op = p.case.op().unwrap_or("-");
        if asked.peers.iter().any(|x| x.caps.binding && x.replies[k].outcome.is_error() && !x.caps.modelled) {
            self.ok = false;
        }
        for (roles, v) in &j.pairs {
            let binding = asked.peer(roles.oracle).is_some_and(|x| x.caps.binding);
            if roles.reference == "engine" && binding && v.blames_reference() {
                self.ok = false;
            }
        }
        for (roles, v) in j.pairs.iter().filter(|(r, _)| r.reference == "engine") {
            tally(&mut self.pairs, &mut self.classes, *roles, op, v);
        }
        if let Some(j) = &j.engine_cpp {
            if j.fails() {
                self.ok = false;
            }
            row_of(&mut self.groups, &p.group).count(&j.status);
            let row = row_of(&mut self.pairs, "engine~cpp");
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
                *self.classes.entry(("engine~cpp".into(), signature_of(t), op.to_string())).or_default() += 1;
            }
        }
        for (roles, v) in j.pairs.iter().filter(|(r, _)| r.reference != "engine") {
            tally(&mut self.pairs, &mut self.classes, *roles, op, v);
        }
    }
}

/// The row of `map` for `key`, made on first use (a key is copied only then: the dynamic path
/// tallies every one of its cases here).
fn row_of<'m, V: Default>(map: &'m mut BTreeMap<String, V>, key: &str) -> &'m mut V {
    if !map.contains_key(key) {
        map.insert(key.to_string(), V::default());
    }
    map.get_mut(key).expect("inserted above")
}

fn tally(
    pairs: &mut BTreeMap<String, PairRow>,
    classes: &mut BTreeMap<(String, String, String), usize>,
    roles: Roles,
    op: &str,
    v: &Verdict,
) {
    let pair = pair_name(roles);
    let row = pairs.entry(pair.clone()).or_default();
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
            other => other.signature(roles),
        };
        *classes.entry((pair, sig, op.into())).or_default() += 1;
    }
}
