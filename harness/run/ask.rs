//! The run's second step: every selected oracle answers every case, and the engine answers them
//! all. The DSL's workers answer while the engine answers on this process's cores; CuTe C++
//! (the compiled driver, in chunks, with a progress bar on long runs) answers then.

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::case::{self, Case, EngineAnswer, Outcome};
use crate::judge::Judge;
use crate::oracle::dsl::{DslAnswer, DslOracle};

/// The oracles a run asks.
#[derive(Clone, Copy, Default)]
pub struct Asking<'a> {
    /// CuTe C++ (the compiled driver, or any oracle of CuTe's C++ answers).
    pub cpp: Option<&'a dyn case::Oracle>,
    /// The CuTe DSL.
    pub dsl: Option<&'a DslOracle>,
}

/// Every side's answers, in the order of the planned cases, and how long each side took.
pub struct Asked {
    pub engines: Vec<EngineAnswer>,
    pub cpp: Option<Vec<Outcome>>,
    pub dsl: Option<Vec<DslAnswer>>,
    /// Wall seconds of the engine (alongside the DSL when it is asked).
    pub engine_seconds: f64,
    pub cpp_seconds: Option<f64>,
    pub dsl_seconds: Option<f64>,
}

/// Ask the engine and every oracle of `oracles` for every case.
pub fn ask(judge: &Judge<'_>, cases: &[&Case], oracles: Asking<'_>) -> Asked {
    let t = Instant::now();
    let (dsl, engines) = std::thread::scope(|s| {
        let asked = oracles.dsl.map(|o| {
            s.spawn(move || {
                let answers = o.answers(cases);
                (answers, t.elapsed().as_secs_f64())
            })
        });
        let engines: Vec<EngineAnswer> = cases.par_iter().map(|c| judge.engine(c, false)).collect();
        let dsl = asked.map(|h| h.join().expect("the DSL oracle's thread panicked"));
        (dsl, engines)
    });
    let engine_seconds = t.elapsed().as_secs_f64();
    let (dsl, dsl_seconds) = match dsl {
        Some((a, s)) => (Some(a), Some(s)),
        None => (None, None),
    };
    let (cpp, cpp_seconds) = match oracles.cpp {
        Some(o) => {
            let t = Instant::now();
            let r = run_oracle(o, cases, "C++");
            (Some(r), Some(t.elapsed().as_secs_f64()))
        }
        None => (None, None),
    };
    Asked { engines, cpp, dsl, engine_seconds, cpp_seconds, dsl_seconds }
}

/// Ask the oracle for many cases in chunks, with a progress bar on long runs.
pub fn run_oracle(oracle: &dyn case::Oracle, exprs: &[&Case], label: &str) -> Vec<Outcome> {
    let chunk = 32 * std::thread::available_parallelism().map_or(1, |n| n.get()) * 6;
    let bar = if exprs.len() > chunk {
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
    for part in exprs.chunks(chunk.max(1)) {
        out.extend(oracle.run(part));
        if let Some(b) = &bar {
            b.inc(part.len() as u64);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    out
}
