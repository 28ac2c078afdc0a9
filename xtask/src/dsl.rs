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
use serde::Serialize;

use cutecheck::case::Oracle as _;
use cutecheck::judge::{Fault, Judge, Verdict};
use cutecheck::oracle::dsl::{self, DslOptions, DslOracle};

use cutecheck::oracle::{state_dir, Oracle, OracleArgs};
use cutecheck::run::judge::{pair_name, CPP_DSL, ENGINE_DSL};
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
        for (roles, v) in [(ENGINE_DSL, Some(&c.engine_dsl)), (CPP_DSL, c.cpp_dsl.as_ref())] {
            let Some(v) = v else { continue };
            if let Some(m) = message_class(v) {
                let pair = pair_name(roles);
                let g = groups.entry((pair, v.signature(roles), op.clone(), m)).or_insert((0, c.expr.clone()));
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
    let mut peers: Vec<&dyn cutecheck::case::Oracle> = Vec::new();
    if let Some(o) = &cpp_oracle {
        peers.push(o);
    }
    peers.push(&dsl_oracle);
    // The DSL runs have no reproducers of the known discrepancies (they are engine~C++ entries).
    let run = cutecheck::run::run(&judge, &plan_spec(ra, seed, shard, false), &peers, |plan, asked| {
        eprintln!(
            "xtask: the DSL answered {} cases in {:.1} s (the engine alongside, done in {:.1} s)",
            plan.cases.len(),
            asked.peer("dsl").map_or(0.0, |p| p.seconds),
            asked.engine_seconds
        );
        if let Some(c) = asked.reference() {
            eprintln!("xtask: CuTe C++ answered {} cases in {:.1} s", plan.cases.len(), c.seconds);
        }
        Ok(())
    })?;
    let cutecheck::run::Run { plan, asked, judged } = run;
    let ok = judged.ok;
    let (plan_time, engine_time, judge_time) = (plan.seconds, asked.engine_seconds, judged.seconds);
    let dsl_peer = asked.peer("dsl").expect("DSL answers");
    let dsl_time = dsl_peer.seconds;
    let cpp_time = asked.reference().map(|p| p.seconds);
    let cpp = asked.reference();
    let answers = &dsl_peer.replies;
    let mut rows = Vec::with_capacity(plan.cases.len());
    for (k, (p, j)) in plan.cases.iter().zip(&judged.cases).enumerate() {
        let case = &p.case;
        let ed = j.pair("engine", "dsl").cloned().expect("an engine~DSL verdict for every case");
        rows.push(CaseRow {
            location: case.location.clone(),
            op: case.op().map(str::to_string),
            expr: case.text.clone(),
            engine: asked.engines[k].outcome.lines(),
            cpp: cpp.map(|c| c.replies[k].outcome.lines()),
            dsl: answers[k].outcome.lines(),
            dsl_text: answers[k].own_text().map(str::to_string),
            engine_cpp: j.engine_cpp.as_ref().filter(|j| !j.agreement.agrees()).map(|j| j.summary()),
            engine_dsl_fault: ed.fault(),
            engine_dsl: ed,
            cpp_dsl: j.pair("cpp", "dsl").cloned(),
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
        DslCmd::Bench { cases, seed, jobs, batch } => crate::dsl_bench::bench(cases, seed, jobs, batch),
    }
}
