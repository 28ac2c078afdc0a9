//! The CuTe DSL as an oracle in xtask (cutecheck::oracle::dsl):
//!
//! - `cargo xtask conformance --oracle dsl`: the fixed suites and the random cases, engine vs the
//!   DSL; `--oracle cpp,dsl`: engine, CuTe C++ and the DSL, three-way. Planned, asked and judged
//!   by the one run loop, cutecheck::run (engine~C++ by the project's judge with the known
//!   discrepancies; engine~DSL and C++~DSL by `cutecheck::judge::judge_pair`, blame by the
//!   operation's definition); this file reads its result: tables by pair, class and operation on
//!   stdout, every difference in `target/cutecheck/report-dsl.{md,json}`.
//! - `cargo xtask dsl provision`: provision the pinned DSL and print where it is.
//! - `cargo xtask dsl bench`: static random cases judged per minute through the DSL oracle.
//!
//! Exit status: 1 when the engine is shown wrong (an unexplained engine~C++ disagreement, or an
//! engine~DSL difference where the definition blames the engine) or when an oracle fails.
//! C++~DSL differences are findings about CuTe's two implementations and are reported, not failed.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use cutecheck::case::{Case, Oracle as _};
use cutecheck::judge::{judge_pair, Answer, Fault, Judge, Verdict};
use cutecheck::oracle::dsl::{self, DslAnswer, DslOptions, DslOracle};

use cutecheck::oracle::{state_dir, Oracle, OracleArgs};
use cutecheck::run::judge::{roles, CPP_DSL, ENGINE_DSL};
use cutecheck::run::PairRow;

use crate::conformance::{fresh_seed, load_known, plan_spec, release_of, version_of, RunArgs};

/// Which oracles `conformance` asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Oracles {
    pub cpp: bool,
    pub dsl: bool,
}

/// `--oracle cpp`, `dsl`, `cpp,dsl`.
pub fn parse_oracles(s: &str) -> Result<Oracles, String> {
    let mut o = Oracles { cpp: false, dsl: false };
    for part in s.split(',').map(str::trim) {
        match part {
            "cpp" => o.cpp = true,
            "dsl" => o.dsl = true,
            other => return Err(format!("unknown oracle '{other}' (cpp, dsl or cpp,dsl)")),
        }
    }
    Ok(o)
}

#[derive(Serialize)]
struct CaseRow {
    location: String,
    op: Option<String>,
    expr: String,
    engine: Vec<String>,
    cpp: Option<Vec<String>>,
    dsl: Vec<String>,
    dsl_text: Option<String>,
    /// The project's judgement of engine ~ C++ when they do not agree (class, blame, known).
    engine_cpp: Option<String>,
    engine_dsl: Verdict,
    /// What the engine~DSL verdict says of the sides (the judge's blame matrix).
    engine_dsl_fault: Fault,
    cpp_dsl: Option<Verdict>,
}

#[derive(Serialize)]
struct Report {
    oracles: Vec<String>,
    seed: u64,
    shard: String,
    random_cases: usize,
    dsl_seconds: f64,
    cpp_seconds: Option<f64>,
    dsl_cases_per_minute: f64,
    /// Wall seconds of the other steps: planning (the fixed suites, generating the random cases),
    /// the engine, judging (the DSL pairs, definition checks included), and the whole run up to
    /// the report; `judged_per_minute` is every case over the whole run.
    plan_seconds: f64,
    engine_seconds: f64,
    judge_seconds: f64,
    total_seconds: f64,
    judged_per_minute: f64,
    pairs: BTreeMap<String, PairRow>,
    /// (pair, signature, op) -> count
    classes: Vec<(String, String, String, usize)>,
    /// The DSL's refusals and crashes grouped by its message (digits as N): pair, signature, op,
    /// message, count and the first case.
    messages: Vec<MessageRow>,
    cases: Vec<CaseRow>,
}

#[derive(Serialize)]
struct MessageRow {
    pair: String,
    signature: String,
    op: String,
    message: String,
    cases: usize,
    example: String,
}

/// The DSL's message of a refusal or crash, with the operand types it quotes as `<...>` and
/// numbers as `N`, so that one cause is one group.
fn message_class(v: &Verdict) -> Option<String> {
    let m = match v {
        Verdict::OneRejects { rejecter: cutecheck::judge::Side::Oracle, message: Some(message), .. } => message,
        Verdict::OracleCrashed { message } => message,
        _ => return None,
    };
    let mut m = m.to_string();
    let mut from = 0;
    while let Some(i) = m[from..].find("cute.").map(|i| i + from) {
        let Some(open) = m[i..].find("<\"").map(|k| i + k) else { break };
        let Some(close) = m[open..].find("\">").map(|k| open + k + 2) else { break };
        m.replace_range(open..close, "<...>");
        from = open + 5;
    }
    let mut out = String::new();
    for ch in m.chars() {
        if ch.is_ascii_digit() {
            if !out.ends_with('N') {
                out.push('N');
            }
        } else {
            out.push(ch);
        }
    }
    Some(out.chars().take(200).collect())
}

fn messages(rows: &[CaseRow]) -> Vec<MessageRow> {
    let mut groups: BTreeMap<(String, String, String, String), (usize, String)> = BTreeMap::new();
    for c in rows {
        let op = c.op.clone().unwrap_or_else(|| "-".into());
        for (pair, v) in [("engine~dsl", Some(&c.engine_dsl)), ("cpp~dsl", c.cpp_dsl.as_ref())] {
            let Some(v) = v else { continue };
            if let Some(m) = message_class(v) {
                let g =
                    groups.entry((pair.into(), v.signature(roles(pair)), op.clone(), m)).or_insert((0, c.expr.clone()));
                g.0 += 1;
            }
        }
    }
    let mut v: Vec<MessageRow> = groups
        .into_iter()
        .map(|((pair, signature, op, message), (cases, example))| MessageRow {
            pair,
            signature,
            op,
            message,
            cases,
            example,
        })
        .collect();
    v.sort_by(|a, b| (&a.pair, std::cmp::Reverse(a.cases)).cmp(&(&b.pair, std::cmp::Reverse(b.cases))));
    v
}

fn message_table(r: &Report) -> String {
    let mut s =
        String::from("| pair | class | op | cases | the DSL's message | first case |\n|---|---|---|---:|---|---|\n");
    for m in &r.messages {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | `{}` |\n",
            m.pair,
            m.signature,
            m.op,
            m.cases,
            m.message.replace('|', "\\|"),
            m.example
        ));
    }
    s
}

pub fn options(args: &OracleArgs) -> DslOptions {
    DslOptions { jobs: args.jobs, ..DslOptions::default() }
}

/// Three-way (or engine~DSL) conformance.
pub fn conformance(args: &OracleArgs, ra: &RunArgs, which: Oracles) -> Result<bool> {
    let start = Instant::now();
    let seed = ra.seed.unwrap_or_else(fresh_seed);
    let shard = ra.shard.unwrap_or((0, 1));
    eprintln!("xtask: seed {seed} (reproduce with --seed {seed}), shard {}/{}", shard.0, shard.1);
    let dsl_oracle = DslOracle::new(options(args))?;
    eprintln!("xtask: DSL oracle is {}", dsl_oracle.describe());
    let cpp_oracle = if which.cpp {
        let mut opts = args.options();
        opts.verbose = false;
        let o = Oracle::new(opts)?;
        eprintln!("xtask: C++ oracle is {}", cutecheck::case::Oracle::describe(&o));
        Some(o)
    } else {
        None
    };
    let known = load_known()?;
    let judge = Judge::for_release(&known, version_of(args), release_of(args));
    let asking = cutecheck::run::Asking {
        cpp: cpp_oracle.as_ref().map(|o| o as &dyn cutecheck::case::Oracle),
        dsl: Some(&dsl_oracle),
    };
    // The DSL runs have no reproducers of the known discrepancies (they are engine~C++ entries).
    let run = cutecheck::run::run(&judge, &plan_spec(ra, seed, shard, false), asking, |plan, asked| {
        eprintln!(
            "xtask: the DSL answered {} cases in {:.1} s (the engine alongside, done in {:.1} s)",
            plan.cases.len(),
            asked.dsl_seconds.unwrap_or(0.0),
            asked.engine_seconds
        );
        if let Some(s) = asked.cpp_seconds {
            eprintln!("xtask: CuTe C++ answered {} cases in {s:.1} s", plan.cases.len());
        }
        Ok(())
    })?;
    let cutecheck::run::Run { plan, asked, judged } = run;
    let ok = judged.ok;
    let (plan_time, engine_time, judge_time) = (plan.seconds, asked.engine_seconds, judged.seconds);
    let dsl_time = asked.dsl_seconds.unwrap_or(0.0);
    let cpp_time = asked.cpp_seconds;
    let answers = asked.dsl.as_ref().expect("DSL answers");
    let mut rows = Vec::with_capacity(plan.cases.len());
    for (k, (p, j)) in plan.cases.iter().zip(&judged.cases).enumerate() {
        let case = &p.case;
        let ed = j.engine_dsl.clone().expect("an engine~DSL verdict for every case");
        rows.push(CaseRow {
            location: case.location.clone(),
            op: case.op().map(str::to_string),
            expr: case.text.clone(),
            engine: asked.engines[k].outcome.lines(),
            cpp: asked.cpp.as_ref().map(|o| o[k].lines()),
            dsl: answers[k].outcome.lines(),
            dsl_text: answers[k].dsl_text.clone(),
            engine_cpp: j.engine_cpp.as_ref().filter(|j| !j.agreement.agrees()).map(|j| j.summary()),
            engine_dsl_fault: ed.fault(),
            engine_dsl: ed,
            cpp_dsl: j.cpp_dsl.clone(),
        });
    }
    let n = rows.len();
    let mut names = Vec::new();
    if which.cpp {
        names.push("cpp".to_string());
    }
    names.push("dsl".to_string());
    let report = Report {
        oracles: names,
        seed,
        shard: format!("{}/{}", shard.0, shard.1),
        random_cases: ra.cases,
        dsl_seconds: dsl_time,
        cpp_seconds: cpp_time,
        dsl_cases_per_minute: n as f64 * 60.0 / dsl_time.max(1e-3),
        plan_seconds: plan_time,
        engine_seconds: engine_time,
        judge_seconds: judge_time,
        total_seconds: start.elapsed().as_secs_f64(),
        judged_per_minute: n as f64 * 60.0 / start.elapsed().as_secs_f64().max(1e-3),
        pairs: judged.pairs,
        classes: judged.classes.into_iter().map(|((p, s, o), n)| (p, s, o, n)).collect(),
        messages: messages(&rows),
        cases: rows,
    };
    let tables = tables(&report);
    let listing = listing(&report);
    if ra.json {
        eprint!("{tables}");
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{tables}");
        print!("{}", listing.lines().take(120).collect::<Vec<_>>().join("\n"));
        println!();
    }
    let dir = state_dir();
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("report-dsl.json"), serde_json::to_string_pretty(&report)?)?;
    let cmd: Vec<String> = std::env::args().skip(1).collect();
    let md = format!(
        "# cutecheck three-way report (engine, CuTe C++, CuTe DSL)\n\nCommand: `cargo xtask {}`  \nDSL: {}  \n\n```text\n{tables}```\n\n## The DSL's refusals and crashes by message\n\n{}\n## Differences\n\n{listing}",
        cmd.join(" "),
        dsl_oracle.describe(),
        message_table(&report)
    );
    std::fs::write(dir.join("report-dsl.md"), md)?;
    eprintln!(
        "report: {} and report-dsl.json ({} cases; the DSL at {:.0} cases/minute)",
        dir.join("report-dsl.md").display(),
        report.cases.len(),
        report.dsl_cases_per_minute
    );
    eprintln!(
        "xtask: {} cases judged in {:.1} s ({:.0} a minute): planning {:.1} s, the DSL {dsl_time:.1} s{}, the engine {:.1} s, judging {:.1} s",
        report.cases.len(),
        report.total_seconds,
        report.judged_per_minute,
        plan_time,
        cpp_time.map_or(String::new(), |c| format!(", CuTe C++ {c:.1} s")),
        engine_time,
        judge_time
    );
    Ok(ok)
}

fn tables(r: &Report) -> String {
    let mut s = format!(
        "{:<12} {:>6} {:>6} {:>10} {:>9} {:>7} {:>9}\n",
        "pair", "cases", "agree", "staticness", "unchecked", "differ", "explained"
    );
    for (k, v) in &r.pairs {
        s.push_str(&format!(
            "{:<12} {:>6} {:>6} {:>10} {:>9} {:>7} {:>9}\n",
            k, v.cases, v.agree, v.staticness, v.unchecked, v.differ, v.explained
        ));
    }
    s.push_str(&format!("\n{:<12} {:<28} {:>6}   (differences by the judge's blame)\n", "pair", "fault", "cases"));
    for (k, v) in &r.pairs {
        for (fault, n) in &v.faults {
            s.push_str(&format!("{k:<12} {fault:<28} {n:>6}\n"));
        }
    }
    s.push_str(&format!("\n{:<12} {:<48} {:<20} {:>6}\n", "pair", "class [signature]", "op", "cases"));
    if r.classes.is_empty() {
        s.push_str("(none)\n");
    }
    for (pair, sig, op, n) in &r.classes {
        s.push_str(&format!("{pair:<12} {sig:<48} {op:<20} {n:>6}\n"));
    }
    if !r.messages.is_empty() {
        s.push_str(&format!(
            "\nthe DSL's refusals and crashes by message ({} groups, the first 25 here, all in report-dsl.md):\n",
            r.messages.len()
        ));
        for m in r.messages.iter().take(25) {
            let msg: String = m.message.chars().take(110).collect();
            s.push_str(&format!("{:<12} {:<36} {:<18} {:>5}  {msg}\n", m.pair, m.signature, m.op, m.cases));
        }
    }
    s
}

/// Every C++~DSL difference (with blame), then engine~DSL differences where there is no C++.
fn listing(r: &Report) -> String {
    let mut s = String::new();
    for c in &r.cases {
        let (label, v, r) = match (&c.cpp_dsl, &c.cpp) {
            (Some(v), _) => ("C++~DSL", v, CPP_DSL),
            (None, None) => ("engine~DSL", &c.engine_dsl, ENGINE_DSL),
            (None, Some(_)) => continue,
        };
        if v.agrees() || v.unchecked() {
            continue;
        }
        s.push_str(&format!("- {label} {} `{}` ({})\n", v.signature(r), c.expr, c.location));
        if let Some(cpp) = &c.cpp {
            s.push_str(&format!("  - C++:    `{}`\n", cpp.join(" | ")));
        }
        s.push_str(&format!(
            "  - DSL:    `{}`{}\n",
            c.dsl.join(" | "),
            c.dsl_text.as_ref().map_or(String::new(), |t| format!(" (prints `{t}`)"))
        ));
        s.push_str(&format!("  - engine: `{}`\n", c.engine.join(" | ")));
        s.push_str(&format!("  - verdict: {} (fault: {})\n", v.describe(r), v.fault().word()));
        if c.cpp_dsl.is_some() && !c.engine_dsl.agrees() {
            s.push_str(&format!("  - engine~DSL: {}\n", c.engine_dsl.signature(ENGINE_DSL)));
        }
        if let Some(e) = &c.engine_cpp {
            s.push_str(&format!("  - engine~C++: {e}\n"));
        }
    }
    if s.is_empty() {
        s.push_str("None.\n");
    }
    s
}

/// User+system CPU seconds of this process's reaped children (Linux /proc/self/stat).
fn children_cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields 16 and 17 of stat (cutime, cstime) are 13 and 14 after the state field.
    let ticks: f64 = f.get(13)?.parse::<f64>().ok()? + f.get(14)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// `cargo xtask dsl ...`
#[derive(clap::Subcommand)]
pub enum DslCmd {
    /// Provision the pinned CuTe DSL (PyPI nvidia-cutlass-dsl) and print its site directory.
    Provision,
    /// Static random cases judged per minute through the DSL oracle (engine ~ DSL).
    Bench {
        #[arg(long, default_value_t = 20000)]
        cases: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Workers (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
        /// Most cases per request (one jit function).
        #[arg(long, default_value_t = 2000)]
        batch: usize,
    },
}

pub fn main(cmd: DslCmd) -> Result<bool> {
    match cmd {
        DslCmd::Provision => {
            let t = Instant::now();
            let i = dsl::provision::provision(true)?;
            println!("{}", i.site.display());
            eprintln!("xtask: {} ready in {:.1} s", i.describe, t.elapsed().as_secs_f64());
            Ok(true)
        }
        DslCmd::Bench { cases, seed, jobs, batch } => bench(cases, seed, jobs, batch),
    }
}

fn bench(n: usize, seed: u64, jobs: Option<usize>, batch: usize) -> Result<bool> {
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
