//! `cargo xtask dsl bench`: static random cases judged per minute through the DSL oracle
//! (BENCHMARKS.md). A benchmark of the oracle and of the judge itself: it times the DSL's answers,
//! then the engine and the judge case by case (the slowest cases are listed), so it calls them
//! directly rather than through the run loop, whose steps it measures.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::Result;
use rayon::prelude::*;

use cutecheck::case::{Case, Oracle as _};
use cutecheck::judge::{judge_pair, Answer, Verdict};
use cutecheck::oracle::dsl::{self, DslAnswer, DslOptions, DslOracle};
use cutecheck::run::judge::ENGINE_DSL;

/// User+system CPU seconds of this process's reaped children (Linux /proc/self/stat).
fn children_cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields 16 and 17 of stat (cutime, cstime) are 13 and 14 after the state field.
    let ticks: f64 = f.get(13)?.parse::<f64>().ok()? + f.get(14)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

pub fn bench(n: usize, seed: u64, jobs: Option<usize>, batch: usize) -> Result<bool> {
    let mut cases: Vec<Case> = Vec::with_capacity(n);
    let mut s = seed;
    while cases.len() < n {
        for e in crate::random::cases(2 * n, s) {
            if cases.len() < n {
                if let Ok(c) = Case::parse(&e, "bench") {
                    if crate::bench::all_static(&c.expr) && dsl::ast(&c.expr).is_ok() {
                        cases.push(c);
                    }
                }
            }
        }
        s += 1;
    }
    let o = DslOracle::new(DslOptions { jobs, batch, ..DslOptions::default() })?;
    let describe = o.describe();
    let refs: Vec<&Case> = cases.iter().collect();
    // Start the workers (import the DSL) outside the timing, as a long-lived pool does once.
    let warm: Vec<&Case> = refs.iter().take(o.opts.jobs.unwrap_or(2) * 2).copied().collect();
    o.answers(&warm);
    let t = Instant::now();
    let answers: Vec<DslAnswer> = o.answers(&refs);
    let ask = t.elapsed().as_secs_f64();
    // Engine and judge on every core (rayon), as conformance does.
    let t2 = Instant::now();
    let timed: Vec<(Verdict, f64, f64)> = cases
        .par_iter()
        .zip(&answers)
        .map(|(c, a)| {
            let t = Instant::now();
            let engine = cutecheck::case::engine(c, false);
            let te = t.elapsed().as_secs_f64();
            (judge_pair(c, Answer::engine(&engine), Answer::dsl(a)), t.elapsed().as_secs_f64(), te)
        })
        .collect();
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for (v, _, _) in &timed {
        *tally.entry(v.signature(ENGINE_DSL)).or_default() += 1;
    }
    let blamed: Vec<(&Verdict, &str)> = timed
        .iter()
        .zip(&cases)
        .filter(|((v, _, _), _)| v.blames_reference())
        .map(|((v, _, _), c)| (v, c.text.as_str()))
        .collect();
    let mut slowest: Vec<(f64, f64, &str)> =
        timed.iter().zip(&cases).map(|((_, t, te), c)| (*t, *te, c.text.as_str())).collect();
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    let cpu_total: f64 = slowest.iter().map(|s| s.0).sum();
    let slow: Vec<f64> = slowest.iter().map(|s| s.0).filter(|t| *t > 0.01).collect();
    let judge = t2.elapsed().as_secs_f64();
    // The workers' CPU time: end them (they and their children are reaped) and read this
    // process's children's user+system time.
    let cpu0 = children_cpu_secs();
    drop(o);
    let cpu = children_cpu_secs().zip(cpu0).map(|(a, b)| a - b);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("{describe}; {n} static random cases (seed {seed}), {} workers on {cores} cores, {batch} cases per jit function", jobs.unwrap_or(cores));
    println!("| step | wall time | static cases per minute |");
    println!("|---|---:|---:|");
    println!("| DSL oracle (answers) | {ask:.2} s | {:.0} |", n as f64 * 60.0 / ask.max(1e-6));
    println!("| engine + judge | {judge:.2} s | {:.0} |", n as f64 * 60.0 / judge.max(1e-6));
    println!("| judged (both) | {:.2} s | {:.0} |", ask + judge, n as f64 * 60.0 / (ask + judge).max(1e-6));
    if let Some(cpu) = cpu {
        println!(
            "| DSL workers' CPU time (user+sys, warm-up included) | {cpu:.2} s | {:.0} per CPU-minute, {:.0} on {cores} idle cores |",
            n as f64 * 60.0 / cpu.max(1e-6),
            n as f64 * 60.0 * cores as f64 / cpu.max(1e-6)
        );
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at the end: {}", load.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    println!("verdicts: {}", tally.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "));
    println!(
        "engine + judge: {cpu_total:.2} s in all over the cases; {} cases over 10 ms take {:.2} s of it",
        slow.len(),
        slow.iter().sum::<f64>()
    );
    for (v, e) in blamed.iter().take(10) {
        println!("the definition blames the engine: {e}: {}", v.describe(ENGINE_DSL));
    }
    println!("slowest to judge (engine + judge, of which the engine):");
    for (t, te, e) in slowest.iter().take(8) {
        println!("  {:.1} ms ({:.1} ms) {e}", t * 1e3, te * 1e3);
    }
    Ok(true)
}
