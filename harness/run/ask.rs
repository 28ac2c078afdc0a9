//! The run's second step: every oracle of the run answers every case, and the engine answers them
//! all. The oracles are peers behind `case::Oracle`, routed by their [`Caps`]: an oracle of
//! another implementation (the DSL, pycute: its own workers) answers while the engine answers on
//! this process's cores; CuTe C++ of the modelled release (the compiled driver, in chunks, with a
//! progress bar on long runs) answers then.

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::case::{self, Caps, Case, EngineAnswer, Outcome, Reply};
use crate::judge::Judge;
use crate::oracle::progress;

/// One oracle's replies to a run's cases, in the order of the cases.
pub struct Peer {
    /// The oracle's name in the run's pairs (`cpp`, `dsl`, `pycute`).
    pub name: &'static str,
    pub caps: Caps,
    pub replies: Vec<Reply>,
    /// Wall seconds of its answers (for an oracle asked beside the engine: from the start of both).
    pub seconds: f64,
}

/// Every side's answers, in the order of the planned cases, and how long each side took.
pub struct Asked {
    pub engines: Vec<EngineAnswer>,
    /// The oracles' replies, in the order the run was given them.
    pub peers: Vec<Peer>,
    /// Wall seconds of the engine (alongside the oracles of other implementations).
    pub engine_seconds: f64,
    /// CPU seconds of this process while the engine answered (the threads of oracles asked beside
    /// it only wait for their own worker processes).
    pub engine_cpu: f64,
}

impl Asked {
    /// The replies of the oracle named `name`.
    pub fn peer(&self, name: &str) -> Option<&Peer> {
        self.peers.iter().find(|p| p.name == name)
    }

    /// The oracle of the modelled release (CuTe C++), which the conformance judge reads.
    pub fn reference(&self) -> Option<&Peer> {
        self.peers.iter().find(|p| p.caps.modelled)
    }

    /// The modelled oracle's outcomes.
    pub fn cpp(&self) -> Option<Vec<&Outcome>> {
        self.reference().map(|p| p.replies.iter().map(|r| &r.outcome).collect())
    }

    /// Add one case's answers (the engine's, and each oracle's or none: `replies` in the order of
    /// `peers`), keeping every list in step with the cases.
    pub fn push(&mut self, engine: EngineAnswer, mut reply: impl FnMut(&Peer) -> Reply) {
        self.engines.push(engine);
        for p in &mut self.peers {
            let r = reply(p);
            p.replies.push(r);
        }
    }
}

/// Ask the engine and every oracle of `oracles` for every case (the engine with `table`: rank-2
/// layouts as print_layout grids, as `eval --table` does).
pub fn ask(judge: &Judge<'_>, cases: &[&Case], oracles: &[&dyn case::Oracle], table: bool) -> Asked {
    ask_in(judge, cases, oracles, table, chunk())
}

/// [`ask`], the modelled oracles asked `chunk` cases at a time.
pub fn ask_in(judge: &Judge<'_>, cases: &[&Case], oracles: &[&dyn case::Oracle], table: bool, chunk: usize) -> Asked {
    let t = Instant::now();
    let cpu = super::cpu_seconds();
    let (beside, engines) = std::thread::scope(|s| {
        let asked: Vec<_> = oracles
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.caps().modelled)
            .map(|(k, o)| {
                s.spawn(move || {
                    let replies = o.replies(cases);
                    (k, replies, t.elapsed().as_secs_f64())
                })
            })
            .collect();
        let engines: Vec<EngineAnswer> = cases.par_iter().map(|c| judge.engine(c, table)).collect();
        let beside: Vec<_> = asked.into_iter().map(|h| h.join().expect("an oracle's thread panicked")).collect();
        (beside, engines)
    });
    let engine_seconds = t.elapsed().as_secs_f64();
    let engine_cpu = super::cpu_seconds() - cpu;
    let mut slots: Vec<Option<(Vec<Reply>, f64)>> = oracles.iter().map(|_| None).collect();
    for (k, replies, seconds) in beside {
        slots[k] = Some((replies, seconds));
    }
    for (k, o) in oracles.iter().enumerate().filter(|(_, o)| o.caps().modelled) {
        let t = Instant::now();
        let replies = replies_in(*o, cases, "C++", chunk);
        slots[k] = Some((replies, t.elapsed().as_secs_f64()));
    }
    let peers = oracles
        .iter()
        .zip(slots)
        .map(|(o, s)| {
            let (replies, seconds) = s.expect("every oracle asked");
            Peer { name: o.name(), caps: o.caps(), replies, seconds }
        })
        .collect();
    Asked { engines, peers, engine_seconds, engine_cpu }
}

/// Cases per request to a modelled oracle (a progress bar counts them on long runs).
fn chunk() -> usize {
    32 * std::thread::available_parallelism().map_or(1, |n| n.get()) * 6
}

/// Ask the oracle for many cases in chunks, with a progress bar on long runs.
fn replies_in(oracle: &dyn case::Oracle, exprs: &[&Case], label: &str, chunk: usize) -> Vec<Reply> {
    let long = exprs.len() > chunk;
    // A terminal gets indicatif's bar; a log (every CI) a line every few seconds instead.
    let tty = !progress::stderr_is_log();
    let bar = if long && tty {
        let b = ProgressBar::new(exprs.len() as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} cases ({per_sec}, eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_prefix(label.to_string());
        Some(b)
    } else {
        None
    };
    let mut out = Vec::with_capacity(exprs.len());
    let done = std::sync::atomic::AtomicUsize::new(0);
    let work = |part: &[&Case]| part.iter().filter(|c| !oracle.recorded(c)).count();
    let (label, total) = progress_total(oracle, exprs, label);
    let label = label.as_str();
    std::thread::scope(|s| {
        // A line every PROGRESS_EVERY_SECS, even while one chunk is being answered.
        let ticking = (exprs.len() > 1 && !tty).then(|| progress::ticker(s, label, &done, total));
        for part in exprs.chunks(chunk.max(1)) {
            out.extend(oracle.replies(part));
            done.fetch_add(work(part), std::sync::atomic::Ordering::Relaxed);
            if let Some(b) = &bar {
                b.inc(part.len() as u64);
            }
        }
        drop(ticking);
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    out
}

/// The progress line of a log (one place for every oracle: crate::oracle::progress).
pub use crate::oracle::progress::{progress_line, PROGRESS_EVERY_SECS};

/// The label and total of the log's progress line: it counts the cases the oracle works on, not
/// those it has a recorded answer for (which take no time), so that its estimate holds.
pub fn progress_total(oracle: &dyn case::Oracle, cases: &[&Case], label: &str) -> (String, usize) {
    let total = cases.iter().filter(|c| !oracle.recorded(c)).count();
    match cases.len() - total {
        0 => (label.to_string(), total),
        n => (format!("{label} ({n} more from the record)"), total),
    }
}
