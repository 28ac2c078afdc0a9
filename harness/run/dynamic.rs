//! The in-process oracle's random dynamic cases (`oracle::inproc::gen`) joining a run, at fuzzing
//! speed: drawn, asked ([`super::ask`]) and judged ([`super::judge`]) chunk by chunk by the same
//! steps as every other case. Every case is tallied; a case the judge finds agreeing (or both
//! refusing) is only counted, every other one (a disagreement, an unchecked case, an oracle
//! failure) joins the run with its answers and its judgement, reported like the other random
//! cases.

use std::time::Instant;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::case::{self, Case, Origin, Outcome, Reply};
use crate::judge::{Judge, Status};
use crate::oracle::inproc::gen;

use super::{ask, judge, Planned, Run};

/// What the dynamic cases cost and counted.
#[derive(Clone, Debug, Default)]
pub struct DynamicRun {
    pub cases: usize,
    pub agree: usize,
    pub both_refuse: usize,
    /// Cases that joined the run (neither agreeing nor both refusing).
    pub judged: usize,
    pub seconds: f64,
    /// Wall seconds drawing and parsing, in the oracle, in the engine and the judge (and of
    /// those, in the judge and its tallies).
    pub draw_seconds: f64,
    pub cute_seconds: f64,
    pub engine_seconds: f64,
    pub judge_seconds: f64,
    /// CPU seconds of this process in the engine and in the judge (with its tallies), and in the
    /// in-process oracle's side of the exchange (encoding cases, reading answers).
    pub engine_cpu: f64,
    pub judge_cpu: f64,
    pub encode_cpu: f64,
    /// CPU seconds of CuTe itself, in the oracle's worker processes: set by the caller once the
    /// oracle is dropped and its workers waited for ([`super::children_cpu_seconds`] around it).
    pub cute_cpu: Option<f64>,
}

impl DynamicRun {
    pub fn per_minute(&self) -> f64 {
        self.cases as f64 * 60.0 / self.seconds.max(1e-3)
    }
}

/// Cases drawn, asked and judged at once.
const CHUNK: usize = 50_000;

/// Draw the dynamic cases `0..n` of `seed` in `shard`, ask `oracle` (the in-process CuTe) and the
/// engine, judge them, tally every one into `run` and add those that do not agree to it.
pub fn extend(
    run: &mut Run,
    judge: &Judge<'_>,
    oracle: &dyn case::Oracle,
    n: usize,
    seed: u64,
    shard: (usize, usize),
) -> Result<DynamicRun> {
    let start = Instant::now();
    let indices: Vec<usize> = gen::shard_indices(n, shard).collect();
    let bar = (indices.len() > 20_000).then(|| {
        let b = ProgressBar::new(indices.len() as u64);
        b.set_style(
            ProgressStyle::with_template(
                "dynamic [{elapsed_precise}] {wide_bar} {pos}/{len} cases ({per_sec}, eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    });
    let mut d = DynamicRun::default();
    for part in indices.chunks(CHUNK) {
        let t0 = Instant::now();
        let planned: Vec<Planned> = part
            .par_iter()
            .map(|&i| {
                let c = gen::case(seed, i as u64);
                let case = Case::parse(&c.expr, format!("dynamic #{i} (seed {seed})"))
                    .map_err(|e| anyhow::anyhow!("{}: {e}", c.expr))?;
                let origin = Origin::Random { admissible: c.admissible };
                Ok(Planned { group: "dynamic".into(), case, origin, random: None })
            })
            .collect::<Result<_>>()?;
        let refs: Vec<&Case> = planned.iter().map(|p| &p.case).collect();
        let t1 = Instant::now();
        let c1 = super::cpu_seconds();
        let asked = ask::ask_in(judge, &refs, &[oracle], false, usize::MAX);
        drop(refs);
        let t2 = Instant::now();
        let c2 = super::cpu_seconds();
        let judged = judge::judge_each(judge, &planned, &asked);
        for (k, (p, j)) in planned.iter().zip(&judged).enumerate() {
            run.judged.tally(p, &asked, k, j);
        }
        d.judge_cpu += super::cpu_seconds() - c2;
        d.engine_cpu += asked.engine_cpu;
        d.encode_cpu += (c2 - c1) - asked.engine_cpu;
        let cute = asked.peers[0].seconds;
        d.draw_seconds += (t1 - t0).as_secs_f64();
        d.cute_seconds += cute;
        d.judge_seconds += t2.elapsed().as_secs_f64();
        d.engine_seconds += (t2 - t1).as_secs_f64() - cute + t2.elapsed().as_secs_f64();
        d.cases += part.len();
        let ask::Asked { engines, peers, .. } = asked;
        let replies = peers.into_iter().next().map(|p| p.replies).unwrap_or_default();
        for ((p, j), (engine, reply)) in planned.into_iter().zip(judged).zip(engines.into_iter().zip(replies)) {
            match j.engine_cpp.as_ref().map(|j| &j.status) {
                Some(Status::Agree) => d.agree += 1,
                Some(Status::BothRefuse) => d.both_refuse += 1,
                _ => {
                    d.judged += 1;
                    add(run, p, engine, reply, j);
                }
            }
        }
        if let Some(b) = &bar {
            b.inc(part.len() as u64);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    d.seconds = start.elapsed().as_secs_f64();
    Ok(d)
}

/// Add a case judged elsewhere to the run: the modelled oracle answered it, the others were not
/// asked.
fn add(run: &mut Run, p: Planned, engine: case::EngineAnswer, reply: Reply, j: judge::Judged) {
    let mut reply = Some(reply);
    run.asked.push(engine, |peer| match peer.caps.modelled {
        true => reply.take().unwrap_or_else(|| Reply::of(Outcome::Error("no answer".into()))),
        false => Reply::of(Outcome::Unsupported("not asked: a dynamic case of the in-process oracle".into())),
    });
    run.plan.cases.push(p);
    run.judged.cases.push(j);
}
