//! `cargo xtask release-diff --from A --to B`: the fixed suites and the same seeded random cases on
//! two CUTLASS versions; every case whose CuTe output changed is reported with the engine's verdict
//! against both versions (agree / triage class), each side judged with the engine modelling its release.
//! `--cutlass-dir D` replaces the `--to` wheel by a checkout and `--from-dir D` the `--from` one (PyPI
//! has no wheel for 3.9, 4.0, 4.1 or anything after 4.2; their git checkouts work here).
//! Reports: `target/cutecheck/release-diff-A-B.{md,json}`.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::Serialize;

use cutecheck::case::{Case, EngineAnswer, Outcome};
use cutecheck::judge::Judge;
use cutecheck::known::KnownDiscrepancies;
use cutecheck::oracle::{state_dir, Oracle, OracleArgs};

use crate::conformance::{fresh_seed, plan, run_oracle};

#[derive(clap::Args, Clone, Debug)]
pub struct DiffArgs {
    /// The older CUTLASS version (PyPI wheel).
    #[arg(long, required_unless_present = "from_dir")]
    pub from: Option<String>,
    /// Use this CUTLASS checkout as the older side instead of a wheel (e.g. a git checkout of a
    /// release PyPI has no wheel for: 3.9, 4.0, 4.1).
    #[arg(long, value_name = "DIR", conflicts_with = "from")]
    pub from_dir: Option<std::path::PathBuf>,
    /// The newer CUTLASS version (PyPI wheel).
    #[arg(long, default_value = cutecheck::oracle::provision::DEFAULT_CUTLASS)]
    pub to: String,
    /// Use this CUTLASS checkout as the newer side instead of the `--to` wheel.
    #[arg(long, value_name = "DIR")]
    pub cutlass_dir: Option<std::path::PathBuf>,
    #[arg(long, default_value_t = 500)]
    pub cases: usize,
    /// Seed of the random cases (default: fresh, printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Skip the fixed suites.
    #[arg(long)]
    pub no_fixed: bool,
    /// C++ compiler (as for conformance).
    #[arg(long, value_name = "C")]
    pub cxx: Option<String>,
    /// Parallel compile jobs.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Print the JSON report on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Change {
    group: String,
    location: String,
    expr: String,
    kind: String,
    from: Vec<String>,
    to: Vec<String>,
    engine: Vec<String>,
    /// The engine against the old / new output: `agree`, or the triage class and signature.
    engine_vs_from: String,
    engine_vs_to: String,
}

#[derive(Serialize)]
struct Report {
    from: String,
    to: String,
    seed: u64,
    cases: usize,
    changed: usize,
    by_kind: BTreeMap<String, usize>,
    /// How many changes the engine agrees with on each side.
    engine_agrees_with_from: usize,
    engine_agrees_with_to: usize,
    changes: Vec<Change>,
}

fn kind_of(o: &Outcome) -> &'static str {
    // A refusal is split by how CuTe refused: a static_assert or another compile error.
    match o {
        Outcome::Printed(_) => "printed",
        Outcome::Rejected(s) if s.starts_with("compile error") => "compile-error",
        Outcome::Rejected(_) => "static_assert",
        Outcome::Crashed(_) => "crashed",
        Outcome::Unsupported(_) => "unsupported",
        Outcome::Error(_) => "oracle-error",
        Outcome::Overflow(_) => "overflow",
    }
}

/// The engine against one side's output, judged as a conformance run would (no known
/// discrepancies: a release diff shows every difference).
fn engine_vs(judge: &Judge<'_>, p: &crate::conformance::Planned, engine: &EngineAnswer, o: &Outcome) -> String {
    judge.judge(&p.case, p.origin, engine, o).summary()
}

pub fn run(a: &DiffArgs) -> Result<bool> {
    let seed = a.seed.unwrap_or_else(fresh_seed);
    eprintln!("xtask: seed {seed} (reproduce with --seed {seed})");
    let side = |version: Option<String>, dir: Option<std::path::PathBuf>| OracleArgs {
        cutlass_version: version,
        cutlass_dir: dir,
        cuda_include: Vec::new(),
        cxx: a.cxx.clone(),
        no_cache: false,
        compile_timeout: cutecheck::limits::COMPILE_SECS,
        compile_memory: cutecheck::limits::COMPILE_MEMORY_MB,
        memory_budget: None,
        case_output: cutecheck::limits::CASE_OUTPUT,
        jobs: a.jobs,
    };
    // Either side is a wheel version or a checkout (whose include/cutlass/version.h picks the
    // engine's model).
    let from_args = side(a.from.clone(), a.from_dir.clone());
    let to_args = match &a.cutlass_dir {
        Some(d) => side(None, Some(d.clone())),
        None => side(Some(a.to.clone()), None),
    };
    let from = Oracle::new(from_args.options())?;
    let to = Oracle::new(to_args.options())?;
    let (from_name, to_name) = (cutecheck::cli::version_of(&from_args), cutecheck::cli::version_of(&to_args));
    eprintln!("xtask: from {}\nxtask: to   {}", from.describe(), to.describe());
    let (cases, _) = plan(a.cases, seed, (0, 1), !a.no_fixed)?;
    let refs: Vec<&Case> = cases.iter().map(|p| &p.case).collect();
    let old = run_oracle(&from, &refs, &from_name);
    let new = run_oracle(&to, &refs, &to_name);
    let none = KnownDiscrepancies::default();
    let (judge_from, judge_to) = (
        Judge::for_release(&none, from_name.clone(), cutecheck::cli::release_of(&from_args)),
        Judge::for_release(&none, to_name.clone(), cutecheck::cli::release_of(&to_args)),
    );
    let mut changes = Vec::new();
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let (mut with_from, mut with_to) = (0, 0);
    for ((p, o), n) in cases.iter().zip(&old).zip(&new) {
        if o.lines() == n.lines() || o.is_error() || n.is_error() {
            continue;
        }
        let kind = format!("{} -> {}", kind_of(o), kind_of(n));
        *by_kind.entry(kind.clone()).or_default() += 1;
        // The engine modelling each side's release (the nearest older model for a checkout).
        let (ef, et) = (judge_from.engine(&p.case, false), judge_to.engine(&p.case, false));
        let (vf, vt) = (engine_vs(&judge_from, p, &ef, o), engine_vs(&judge_to, p, &et, n));
        let engine = et;
        with_from += usize::from(vf.starts_with("agree"));
        with_to += usize::from(vt.starts_with("agree"));
        changes.push(Change {
            group: p.group.clone(),
            location: p.case.location.clone(),
            expr: p.case.text.clone(),
            kind,
            from: o.lines(),
            to: n.lines(),
            engine: engine.outcome.lines(),
            engine_vs_from: vf,
            engine_vs_to: vt,
        });
    }
    let report = Report {
        from: from_name.clone(),
        to: to_name.clone(),
        seed,
        cases: refs.len(),
        changed: changes.len(),
        by_kind,
        engine_agrees_with_from: with_from,
        engine_agrees_with_to: with_to,
        changes,
    };
    let mut md = format!(
        "# CuTe release diff {} -> {}\n\n{} cases (fixed suites{} + random, seed {seed}); {} changed output.\nThe engine (CUTLASS 4.2 semantics) agrees with the old output on {with_from} and with the new on {with_to} of them.\n\n| change | cases |\n|---|---|\n",
        report.from,
        report.to,
        report.cases,
        if a.no_fixed { " skipped" } else { "" },
        report.changed
    );
    for (k, n) in &report.by_kind {
        md.push_str(&format!("| {k} | {n} |\n"));
    }
    md.push_str("\n## Changed cases\n\n");
    for c in &report.changes {
        md.push_str(&format!(
            "- `{}` ({}; {})\n  - {}: `{}`\n  - {}: `{}`\n  - engine: `{}` (vs old: {}; vs new: {})\n",
            c.expr,
            c.location,
            c.kind,
            report.from,
            c.from.join(" | "),
            report.to,
            c.to.join(" | "),
            c.engine.join(" | "),
            c.engine_vs_from,
            c.engine_vs_to
        ));
    }
    let slug =
        |s: &str| s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' }).collect::<String>();
    let base = state_dir().join(format!("release-diff-{}-{}", slug(&report.from), slug(&report.to)));
    std::fs::create_dir_all(state_dir())?;
    // Not with_extension: the version's dots would be taken for one.
    let (md_path, json_path) = (
        base.with_file_name(format!("{}.md", base.file_name().and_then(|n| n.to_str()).unwrap_or("release-diff"))),
        base.with_file_name(format!("{}.json", base.file_name().and_then(|n| n.to_str()).unwrap_or("release-diff"))),
    );
    std::fs::write(&md_path, &md)?;
    std::fs::write(&json_path, serde_json::to_string_pretty(&report)?)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{} -> {}: {} of {} cases changed output (seed {seed})",
            report.from, report.to, report.changed, report.cases
        );
        for (k, n) in &report.by_kind {
            println!("  {k:<32} {n:>5}");
        }
        println!("  engine agrees with {}: {with_from}, with {}: {with_to}", report.from, report.to);
        println!("report: {}", md_path.display());
    }
    Ok(true)
}
