//! The CuTe DSL as an oracle in xtask (cutecheck::oracle::dsl):
//!
//! - `cargo xtask conformance --oracle dsl`: the fixed suites and the random cases, engine vs the
//!   DSL; `--oracle cpp,dsl`: engine, CuTe C++ and the DSL, three-way. Planned, asked and judged
//!   by the one run loop, cutecheck::run (engine~C++ by the project's judge with the known
//!   discrepancies; engine~DSL and C++~DSL by `cutecheck::judge::judge_pair`, blame by the
//!   operation's definition) and reported by cutecheck::report::dsl: tables by pair, class and
//!   operation on stdout, every difference in `target/cutecheck/report-dsl.{md,json}`.
//! - `cargo xtask dsl provision`: provision the pinned DSL and print where it is.
//! - `cargo xtask dsl bench`: static random cases judged per minute through the DSL oracle.
//!
//! Exit status: 1 when the engine is shown wrong (an unexplained engine~C++ disagreement, or an
//! engine~DSL difference where the definition blames the engine) or when an oracle fails.
//! C++~DSL differences are findings about CuTe's two implementations and are reported, not failed.

use std::time::Instant;

use anyhow::Result;

use cutecheck::case::Oracle as _;
use cutecheck::judge::Judge;
use cutecheck::oracle::dsl::{self, DslOptions, DslOracle};
use cutecheck::oracle::{state_dir, Oracle, OracleArgs};
use cutecheck::report::dsl as report;

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
    let known = load_known(ra)?;
    let judge = Judge::for_release(&known, version_of(args), release_of(args));
    let mut peers: Vec<&dyn cutecheck::case::Oracle> = Vec::new();
    if let Some(o) = &cpp_oracle {
        peers.push(o);
    }
    peers.push(&dsl_oracle);
    // The DSL runs have no reproducers of the known discrepancies (they are engine~C++ entries).
    let plan = cutecheck::run::plan_with_file(&judge, &plan_spec(ra, seed, shard, false), ra.case_file.as_deref())?;
    let run = cutecheck::run::run_planned(&judge, plan, &peers, false, |plan, asked| {
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
    let ok = run.judged.ok;
    let about = report::About { seed, shard, random_cases: ra.cases, start };
    let report = report::build(run, &about);
    let (plan_time, engine_time, judge_time, dsl_time, cpp_time) =
        (report.plan_seconds, report.engine_seconds, report.judge_seconds, report.dsl_seconds, report.cpp_seconds);
    let tables = report::tables(&report);
    let listing = report::listing(&report);
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
        report::message_table(&report)
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
