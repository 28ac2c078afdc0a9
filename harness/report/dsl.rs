//! The report of `cargo xtask conformance --oracle dsl` (engine~DSL) and `--oracle cpp,dsl`
//! (three-way): tables by pair, the judge's blame, class and operation, the DSL's refusals and
//! crashes grouped by message, and every difference. Reads the run's verdicts, computes none.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use crate::judge::{Fault, Verdict};
use crate::run::judge::{pair_name, CPP_DSL, ENGINE_DSL};
use crate::run::{PairRow, Run};

/// What a report says of its run besides the run itself.
pub struct About {
    pub seed: u64,
    pub shard: (usize, usize),
    pub random_cases: usize,
    /// When the command started.
    pub start: Instant,
}

#[derive(Serialize)]
pub struct CaseRow {
    pub location: String,
    pub op: Option<String>,
    pub expr: String,
    pub engine: Vec<String>,
    pub cpp: Option<Vec<String>>,
    pub dsl: Vec<String>,
    pub dsl_text: Option<String>,
    /// The project's judgement of engine ~ C++ when they do not agree (class, blame, known).
    pub engine_cpp: Option<String>,
    pub engine_dsl: Verdict,
    /// What the engine~DSL verdict says of the sides (the judge's blame matrix).
    pub engine_dsl_fault: Fault,
    pub cpp_dsl: Option<Verdict>,
}

#[derive(Serialize)]
pub struct Report {
    pub oracles: Vec<String>,
    pub seed: u64,
    pub shard: String,
    pub random_cases: usize,
    pub dsl_seconds: f64,
    pub cpp_seconds: Option<f64>,
    pub dsl_cases_per_minute: f64,
    /// Wall seconds of the other steps: planning (the fixed suites, generating the random cases),
    /// the engine, judging (the DSL pairs, definition checks included), and the whole run up to
    /// the report; `judged_per_minute` is every case over the whole run.
    pub plan_seconds: f64,
    pub engine_seconds: f64,
    pub judge_seconds: f64,
    pub total_seconds: f64,
    pub judged_per_minute: f64,
    pub pairs: BTreeMap<String, PairRow>,
    /// (pair, signature, op) -> count
    pub classes: Vec<(String, String, String, usize)>,
    /// The DSL's refusals and crashes grouped by its message (digits as N): pair, signature, op,
    /// message, count and the first case.
    pub messages: Vec<MessageRow>,
    pub cases: Vec<CaseRow>,
}

#[derive(Serialize)]
pub struct MessageRow {
    pub pair: String,
    pub signature: String,
    pub op: String,
    pub message: String,
    pub cases: usize,
    pub example: String,
}

/// The DSL's message of a refusal or crash, with the operand types it quotes as `<...>` and
/// numbers as `N`, so that one cause is one group.
fn message_class(v: &Verdict) -> Option<String> {
    let m = match v {
        Verdict::OneRejects { rejecter: crate::judge::Side::Oracle, message: Some(message), .. } => message,
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

/// The DSL's refusals and crashes by message, as a markdown table.
pub fn message_table(r: &Report) -> String {
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

/// The report of a run with the DSL (and CuTe C++ when it was asked): every case's answers and
/// verdicts, the tallies by pair and class, the DSL's messages grouped.
pub fn build(run: Run, about: &About) -> Report {
    let Run { plan, asked, judged } = run;
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
    let names = asked.peers.iter().map(|p| p.name.to_string()).collect();
    let report = Report {
        oracles: names,
        seed: about.seed,
        shard: format!("{}/{}", about.shard.0, about.shard.1),
        random_cases: about.random_cases,
        dsl_seconds: dsl_time,
        cpp_seconds: cpp_time,
        dsl_cases_per_minute: n as f64 * 60.0 / dsl_time.max(1e-3),
        plan_seconds: plan_time,
        engine_seconds: engine_time,
        judge_seconds: judge_time,
        total_seconds: about.start.elapsed().as_secs_f64(),
        judged_per_minute: n as f64 * 60.0 / about.start.elapsed().as_secs_f64().max(1e-3),
        pairs: judged.pairs,
        classes: judged.classes.into_iter().map(|((p, s, o), n)| (p, s, o, n)).collect(),
        messages: messages(&rows),
        cases: rows,
    };
    report
}

/// The tables printed: by pair, by the judge's blame, by class and operation, the DSL's messages.
pub fn tables(r: &Report) -> String {
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
pub fn listing(r: &Report) -> String {
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
