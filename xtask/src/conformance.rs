//! `cargo xtask conformance`: every fixed suite and N seeded random cases through the engine and
//! real CuTe; a summary table on stdout, `target/cutecheck/report.md` and `report.json`.
//!
//! A disagreement is explained when `fixtures/known-discrepancies.toml` lists it for the CUTLASS
//! version under test (see `cutecheck::known`); every listed case is run too, and a listed entry
//! that no longer reproduces fails the run (it must be removed or narrowed). Any other
//! disagreement, and any failure of the oracle itself, makes the command exit 1. Cases the oracle
//! cannot express are counted as unchecked.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::Serialize;

use cutecheck::cli::engine_lines;
use cutecheck::known::KnownDiscrepancies;
use cutecheck::oracle::{state_dir, Oracle, OracleArgs, Outcome};
use cutecheck::suite::{all_suites, compare, Verdict};

#[derive(Serialize)]
struct CaseReport {
    group: String,
    location: String,
    expr: String,
    cute: Vec<String>,
    engine: Vec<String>,
    verdict: String,
    /// For disagreements: the triage class (cutecheck::triage), without a definition check.
    triage: Option<String>,
    explained: Option<String>,
}

#[derive(Serialize, Default, Clone)]
struct Row {
    cases: usize,
    agree: usize,
    both_refuse: usize,
    unchecked: usize,
    explained: usize,
    oracle_errors: usize,
    disagree: usize,
}

#[derive(Serialize)]
struct Report {
    oracle: String,
    seed: u64,
    random_cases: usize,
    rows: BTreeMap<String, Row>,
    total: Row,
    cases: Vec<CaseReport>,
}

pub fn run(args: &OracleArgs, n: usize, seed: u64) -> Result<bool> {
    let mut opts = args.options();
    opts.verbose = true;
    let oracle = Oracle::new(opts)?;
    eprintln!("xtask: oracle is {}", oracle.describe());
    let known_path = cutecheck::oracle::repo_root().join("fixtures").join("known-discrepancies.toml");
    let known = if known_path.is_file() { KnownDiscrepancies::load(&known_path)? } else { KnownDiscrepancies::default() };
    // The version the known discrepancies are matched against.
    let version = match (&args.cutlass_dir, &args.cutlass_version) {
        (Some(d), _) => format!("dir:{}", d.display()),
        (None, Some(v)) => v.clone(),
        (None, None) => cutecheck::oracle::provision::DEFAULT_CUTLASS.to_string(),
    };
    // (group, location, expr)
    let mut cases: Vec<(String, String, String)> = Vec::new();
    for s in all_suites()? {
        for c in &s.cases {
            cases.push((s.name.clone(), s.locate(c), c.expr.clone()));
        }
    }
    for (k, e) in crate::random::cases(n, seed).into_iter().enumerate() {
        cases.push(("random".into(), format!("random #{k} (seed {seed})"), e));
    }
    for d in known.for_version(&version) {
        cases.push(("known".into(), "fixtures/known-discrepancies.toml".into(), d.expr.clone()));
    }
    let exprs: Vec<String> = cases.iter().map(|c| c.2.clone()).collect();
    let start = std::time::Instant::now();
    let outcomes = oracle.run(&exprs);
    eprintln!("xtask: oracle answered {} cases in {:.1?}", exprs.len(), start.elapsed());
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut reports = Vec::new();
    for ((group, location, expr), outcome) in cases.into_iter().zip(outcomes) {
        let cute = outcome.lines();
        let engine = std::panic::catch_unwind(|| engine_lines(&expr))
            .unwrap_or_else(|_| vec!["engine panicked".to_string()]);
        let verdict = compare(&cute, &engine);
        let row = rows.entry(group.clone()).or_default();
        row.cases += 1;
        let mut explained = None;
        match (&verdict, &outcome) {
            (_, Outcome::Error(_)) => row.oracle_errors += 1,
            // A listed discrepancy that now agrees is stale: the list must be updated.
            (Verdict::Same | Verdict::BothRefuse, _) if group == "known" => {
                row.disagree += 1;
                explained = Some("listed in fixtures/known-discrepancies.toml but no longer reproduces".into());
            }
            (Verdict::Same, _) => row.agree += 1,
            (Verdict::BothRefuse, _) => row.both_refuse += 1,
            (Verdict::Unchecked(_), _) => row.unchecked += 1,
            (Verdict::Differ, _) => match known.lookup(&expr, &version) {
                Some(d) => {
                    row.explained += 1;
                    explained = Some(format!("{}: {}", d.class, d.explanation));
                }
                None => row.disagree += 1,
            },
        }
        let triage = (verdict == Verdict::Differ).then(|| triage_of(&expr, &outcome)).flatten();
        reports.push(CaseReport { group, location, expr, cute, engine, verdict: verdict.describe(), triage, explained });
    }
    let mut total = Row::default();
    for r in rows.values() {
        total.cases += r.cases;
        total.agree += r.agree;
        total.both_refuse += r.both_refuse;
        total.unchecked += r.unchecked;
        total.explained += r.explained;
        total.oracle_errors += r.oracle_errors;
        total.disagree += r.disagree;
    }
    let report = Report { oracle: oracle.describe(), seed, random_cases: n, rows, total: total.clone(), cases: reports };
    let table = table(&report);
    print!("{table}");
    let dir = state_dir();
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("report.json"), serde_json::to_string_pretty(&report)?)?;
    std::fs::write(dir.join("report.md"), markdown(&report, &table))?;
    println!("report: {} and report.json", dir.join("report.md").display());
    Ok(total.disagree == 0 && total.oracle_errors == 0)
}

/// The triage class of a disagreement (same function / different function / one rejects /
/// CuTe crashed), with no definition check.
fn triage_of(expr: &str, cute: &Outcome) -> Option<String> {
    use cutecheck::triage::{classify, Outcome as T};
    let c = match cute {
        Outcome::Printed(s) => T::Printed(s.clone()),
        Outcome::Rejected(s) => T::Rejected(s.clone()),
        Outcome::Crashed(s) => T::Crashed(s.clone()),
        Outcome::Unsupported(_) | Outcome::Error(_) => return None,
    };
    let e = match cutecheck::expr::eval_str(expr) {
        Ok(v) => T::Printed(v.to_string()),
        Err(e) => T::Rejected(e.to_string()),
    };
    let v = classify(&e, &c, &|_| None);
    Some(format!("{}: {v}", v.class()))
}

fn table(r: &Report) -> String {
    let mut s = format!(
        "{:<20} {:>6} {:>6} {:>8} {:>9} {:>9} {:>7} {:>8}\n",
        "suite", "cases", "agree", "refuse", "unchecked", "explained", "errors", "DISAGREE"
    );
    let mut line = |name: &str, x: &Row| {
        s.push_str(&format!(
            "{:<20} {:>6} {:>6} {:>8} {:>9} {:>9} {:>7} {:>8}\n",
            name, x.cases, x.agree, x.both_refuse, x.unchecked, x.explained, x.oracle_errors, x.disagree
        ));
    };
    for (k, v) in &r.rows {
        line(k, v);
    }
    line("total", &r.total);
    s
}

fn markdown(r: &Report, table: &str) -> String {
    let mut s = String::from("# cutecheck conformance report\n\n");
    let cmd: Vec<String> = std::env::args().skip(1).collect();
    s.push_str(&format!("Command: `cargo xtask {}`  \n", cmd.join(" ")));
    s.push_str(&format!("Oracle: {}  \nRandom cases: {} (seed {})\n\n", r.oracle, r.random_cases, r.seed));
    s.push_str("```text\n");
    s.push_str(table);
    s.push_str("```\n\n## Disagreements\n\n");
    let mut any = false;
    for c in r.cases.iter().filter(|c| c.verdict == "DISAGREE" || (c.group == "known" && c.explained.is_some())) {
        any = true;
        s.push_str(&format!("- `{}` ({})\n  - CuTe: `{}`\n  - engine: `{}`\n", c.expr, c.location, c.cute.join(" | "), c.engine.join(" | ")));
        if let Some(t) = &c.triage {
            s.push_str(&format!("  - triage: {t}\n"));
        }
        if let Some(e) = &c.explained {
            s.push_str(&format!("  - known: {e}\n"));
        }
    }
    if !any {
        s.push_str("None.\n");
    }
    s
}
