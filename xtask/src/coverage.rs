//! `cargo xtask coverage`: how much of CuTe's algebra headers a run reaches.
//!
//! The oracle's own cases (the codegen and runner of `cutecheck::oracle`, nothing else) are
//! compiled with `g++ --coverage` into a separate work directory (no results cache, every
//! translation unit kept), run, and read back with `gcov --json-format`. Two sides, side by side
//! per header: a seeded random run (`cutecheck::fuzz`, `--cases`, `--seed`) and the fixed suite of
//! CUTLASS's own unit-test cases (`fixtures/cases/cutlass_tests.cases`, `--suite`; every fixed
//! suite when that file is absent, said so in the table).
//!
//! Header code is template code: gcov lists the lines of the functions a translation unit
//! instantiated, and counts how often each ran. Two figures per side: *instantiated* (the line is
//! in some instantiated function: the `random` / `cutlass_tests` keys of the JSON) and *executed*
//! (it also ran: `*_executed`; CuTe's static algebra is mostly folded by the compiler, so static
//! cases instantiate much and execute little). A header's denominator is the union of the lines
//! either side instantiated, so the percentages are comparable; a header neither side
//! instantiates has no figure. "Neither" lists the instantiated lines no side executed. The driver runs
//! each case in a forked child that leaves with `_exit`, which skips gcov's exit hook, so a small
//! preloaded library turns the case binaries' `_exit` into `exit`, whose hooks write the counters
//! (the binaries are linked with `-rdynamic` so it can tell them from other processes).
//!
//! Writes `target/cutecheck/coverage.json` (`{"cute/layout.hpp": {"random": pct,
//! "cutlass_tests": pct, "random_executed": pct, "cutlass_tests_executed": pct, "lines": n}, ...}`), prints a table of the headers the issue lists (every CuTe
//! header with instantiated lines is in the JSON), and writes the lines neither side reaches to
//! `target/cutecheck/coverage-unreached.txt` (`header:line: source`) so the generator can be aimed
//! at them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use cutecheck::oracle::{state_dir, CompilerKind, Oracle, OracleArgs, OracleOptions};
use cutecheck::suite::{self, Suite};

#[derive(Clone, Debug, clap::Args)]
pub struct CoverageArgs {
    #[command(flatten)]
    pub oracle: OracleArgs,
    /// Random cases on the random side.
    #[arg(long, default_value_t = 300)]
    pub cases: usize,
    /// Seed of the random side.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The fixed suite on the other side (a file name under fixtures/cases, without .cases).
    #[arg(long, default_value = "cutlass_tests")]
    pub suite: String,
    /// Compile and run nothing: read the counters the last run left under target/cutecheck/coverage.
    #[arg(long)]
    pub reread: bool,
}

/// The headers the table shows (the algebra and the atoms); the JSON has every CuTe header.
fn listed(h: &str) -> bool {
    let name = h.strip_prefix("cute/").unwrap_or(h);
    let file = name.rsplit('/').next().unwrap_or(name);
    matches!(
        name,
        "layout.hpp" | "layout_composed.hpp" | "int_tuple.hpp" | "stride.hpp" | "underscore.hpp" | "pointer_flagged.hpp"
            | "util/print_tensor.hpp" | "atom/mma_atom.hpp" | "atom/copy_atom.hpp"
    ) || file.starts_with("swizzle")
        || (name.starts_with("atom/") && (file.starts_with("mma_traits") || file.starts_with("copy_traits")))
}

/// Replaces libc's `_exit` in the case binaries (preloaded): where the process carries gcov's
/// counters (`__gcov_master`, exported by the `-rdynamic` case binaries) the first `_exit` becomes
/// `exit`, whose exit hooks write the counters; elsewhere (the compiler, gcov) and on a second
/// call it only leaves.
const EXIT_SHIM: &str = r#"
#include <sys/syscall.h>
#include <cstdlib>
extern "C" char __gcov_master __attribute__((weak));
extern "C" long syscall(long number, ...);
static int leaving = 0;
extern "C" [[noreturn]] void _exit(int status) {
  if (&__gcov_master != nullptr && leaving++ == 0) std::exit(status);
  for (;;) syscall(SYS_exit_group, status);
}
"#;

/// Per header: line -> reached.
type Lines = BTreeMap<String, BTreeMap<u64, bool>>;

pub fn run(a: &CoverageArgs) -> Result<bool> {
    let base = Oracle::new(a.oracle.options())?;
    if base.compiler.kind != CompilerKind::Gcc {
        bail!("coverage needs g++ and gcov (the compiler found is {})", base.compiler.version);
    }
    let gcov = Command::new("gcov").arg("--version").output().context("running gcov --version (is gcov installed?)")?;
    if !gcov.status.success() {
        bail!("gcov --version failed");
    }
    let root = state_dir().join("coverage");
    if root.exists() && !a.reread {
        std::fs::remove_dir_all(&root).with_context(|| format!("removing {}", root.display()))?;
    }
    std::fs::create_dir_all(&root)?;
    let shim = build_shim(&base, &root)?;
    // Every process this one starts loads the shim (the case binaries are started by the oracle).
    std::env::set_var("LD_PRELOAD", &shim);
    let include = base.headers.include_dir.clone();

    let random: Vec<String> = cutecheck::fuzz::cases(a.seed, a.cases, (0, 1)).into_iter().map(|(_, c)| c.expr).collect();
    let path = cutecheck::oracle::repo_root().join("fixtures/cases").join(format!("{}.cases", a.suite));
    let (fixed_label, fixed): (String, Vec<String>) = if path.is_file() {
        let s = Suite::load(&path)?;
        (format!("{} ({} cases)", a.suite, s.cases.len()), s.cases.iter().map(|c| c.expr.clone()).collect())
    } else {
        let all = suite::all_suites()?;
        let cases: Vec<String> = all.iter().flat_map(|s| s.cases.iter().map(|c| c.expr.clone())).collect();
        (format!("every fixed suite, {} cases (fixtures/cases/{}.cases is absent)", cases.len(), a.suite), cases)
    };
    let mut sides: Vec<(&str, Lines)> = Vec::new();
    for (side, cases) in [("random", &random), ("cutlass_tests", &fixed)] {
        let work = root.join(side);
        if a.reread {
            sides.push((side, collect(&work, &include)?));
            continue;
        }
        eprintln!("xtask: coverage of the {side} side: {} cases", cases.len());
        let mut compiler = base.compiler.clone();
        compiler.flags.extend(["--coverage".to_string(), "-rdynamic".to_string()]);
        let opts = OracleOptions { cache: false, keep_builds: true, verbose: true, work_dir: Some(work.clone()), ..a.oracle.options() };
        let oracle = Oracle::with_parts(base.headers.clone(), base.cuda.clone(), compiler, opts)?;
        let outcomes = oracle.run(cases);
        let printed = outcomes.iter().filter(|o| o.printed().is_some()).count();
        let errors = outcomes.iter().filter(|o| o.is_error()).count();
        eprintln!("xtask: {side}: {printed} printed, {} refused or unsupported, {errors} oracle errors", cases.len() - printed - errors);
        if let Some(e) = outcomes.iter().find(|o| o.is_error()) {
            eprintln!("xtask: first oracle error: {}", e.lines().join("\n"));
        }
        sides.push((side, collect(&work, &include)?));
    }
    let (random_lines, fixed_lines) = (&sides[0].1, &sides[1].1);
    let headers: BTreeSet<&String> = random_lines.keys().chain(fixed_lines.keys()).collect();
    let mut json = serde_json::Map::new();
    let mut table = format!(
        "{:<40} {:>6} {:>22} {:>22} {:>8}\n",
        "header", "lines", "instantiated rnd/cut", "executed rnd/cut", "neither"
    );
    let mut unreached = String::new();
    let mut behind = Vec::new();
    for h in headers {
        let empty = BTreeMap::new();
        let (r, f) = (random_lines.get(h).unwrap_or(&empty), fixed_lines.get(h).unwrap_or(&empty));
        let all: BTreeSet<u64> = r.keys().chain(f.keys()).copied().collect();
        let inst = |m: &BTreeMap<u64, bool>| all.iter().filter(|l| m.contains_key(l)).count();
        let exec = |m: &BTreeMap<u64, bool>| all.iter().filter(|l| m.get(l).copied().unwrap_or(false)).count();
        let pct = |n: usize| (1000.0 * n as f64 / all.len().max(1) as f64).round() / 10.0;
        let (ir, ic, er, ec) = (pct(inst(r)), pct(inst(f)), pct(exec(r)), pct(exec(f)));
        json.insert(
            h.clone(),
            serde_json::json!({ "random": ir, "cutlass_tests": ic, "random_executed": er, "cutlass_tests_executed": ec, "lines": all.len() }),
        );
        let neither: Vec<u64> = all.iter().copied().filter(|l| !r.get(l).copied().unwrap_or(false) && !f.get(l).copied().unwrap_or(false)).collect();
        if listed(h) {
            table.push_str(&format!(
                "{:<40} {:>6} {:>10.1}% {:>9.1}% {:>10.1}% {:>9.1}% {:>8}\n",
                h, all.len(), ir, ic, er, ec, neither.len()
            ));
            if ir < ic || er < ec {
                behind.push(h.clone());
            }
        }
        let src = std::fs::read_to_string(include.join(h)).unwrap_or_default();
        let text: Vec<&str> = src.lines().collect();
        for l in neither {
            let line = text.get(l as usize - 1).map_or("", |s| s.trim());
            unreached.push_str(&format!("{h}:{l}: {line}\n"));
        }
    }
    let dir = state_dir();
    std::fs::write(dir.join("coverage.json"), serde_json::to_string_pretty(&serde_json::Value::Object(json))?)?;
    std::fs::write(dir.join("coverage-unreached.txt"), &unreached)?;
    print!("random: {} cases of seed {}; cutlass_tests: {fixed_label}\n{table}", random.len(), a.seed);
    if behind.is_empty() {
        println!("the random run reaches at least as much as CUTLASS's own tests on every listed header");
    } else {
        println!("the random run reaches less than CUTLASS's own tests on: {}", behind.join(", "));
    }
    println!(
        "wrote {} and {} (lines neither side reaches)",
        dir.join("coverage.json").display(),
        dir.join("coverage-unreached.txt").display()
    );
    Ok(true)
}

/// Compile [`EXIT_SHIM`] once into a shared library (without coverage).
fn build_shim(base: &Oracle, root: &Path) -> Result<PathBuf> {
    let src = root.join("gcov_exit.cpp");
    let obj = root.join("libcutecheck_gcov_exit.so");
    std::fs::write(&src, EXIT_SHIM)?;
    let out = Command::new(&base.compiler.program)
        .args(["-std=c++17", "-O1", "-shared", "-fPIC"])
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .context("compiling the _exit shim")?;
    if !out.status.success() {
        bail!("compiling the _exit shim failed:\n{}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(obj)
}

/// Every `.gcda` under `work`, read with gcov: per CuTe header (path relative to `include`), each
/// instrumented line and whether any case reached it.
fn collect(work: &Path, include: &Path) -> Result<Lines> {
    let mut out = Lines::new();
    let mut gcdas = Vec::new();
    find(work, &mut gcdas);
    let prefix = include.display().to_string();
    for g in gcdas {
        let dir = g.parent().unwrap_or(work);
        let o = Command::new("gcov").args(["--json-format", "--stdout"]).arg(&g).current_dir(dir).output().context("running gcov")?;
        for line in String::from_utf8_lossy(&o.stdout).lines().filter(|l| l.starts_with('{')) {
            let v: serde_json::Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(_) => continue,
            };
            for f in v["files"].as_array().into_iter().flatten() {
                let Some(file) = f["file"].as_str() else { continue };
                let Some(rel) = file.strip_prefix(&prefix).map(|r| r.trim_start_matches('/')) else { continue };
                if !rel.starts_with("cute/") {
                    continue;
                }
                let e = out.entry(rel.to_string()).or_default();
                for l in f["lines"].as_array().into_iter().flatten() {
                    let (Some(n), Some(c)) = (l["line_number"].as_u64(), l["count"].as_u64()) else { continue };
                    *e.entry(n).or_default() |= c > 0;
                }
            }
        }
    }
    Ok(out)
}

fn find(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            find(&p, out);
        } else if p.extension().is_some_and(|x| x == "gcda") && p.parent().is_some_and(|d| d.file_name().is_some_and(|n| n.to_string_lossy().starts_with("tu-"))) {
            out.push(p);
        }
    }
}
