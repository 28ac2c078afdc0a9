//! `cargo xtask coverage`: how much of CuTe's headers a run reaches.
//!
//! The oracle's own cases (the codegen and runner of `cutecheck::oracle`, nothing else) are
//! compiled with `g++ -O0 --coverage` into a separate work directory (no results cache, every
//! translation unit kept), run, and read back with `gcov --json-format`. Two sides, side by side
//! per header: a seeded random run (`cutecheck::fuzz`, `--cases`, `--seed`) and the fixed suite of
//! CUTLASS's own unit-test cases (`fixtures/cases/cutlass_tests.cases`, `--suite`; every fixed
//! suite when that file is absent, said so in the table).
//!
//! **Run time, not compile time.** g++ folds a call of a constexpr function whose operands are
//! constants at compile time, even at -O0, so a case written with literal operands (`Int<4>{}`,
//! `int(8)`) runs almost none of CuTe's code. The cases are therefore written by
//! `codegen::case_body_runtime`: every integer passes through an identity that is not
//! constexpr, no call of the case is a constant expression, and CuTe's functions run (static-ness
//! is in the types: CuTe prints the same; the fixed side checks that against its snapshot).
//!
//! **The denominator** is the header's code, read with libclang (`coverage_lines.py`, the
//! provisioned PyPI libclang wheel): the first line of every statement of every function body,
//! templates instantiated or not (less `using`/`typedef`/`static_assert`, `CUTE_GCC_UNREACHABLE`
//! and the `if constexpr` lines themselves), plus the member lines of every `*_Traits`
//! specialization (`MMA_Traits<SM80_...>`, `Copy_Traits<...>`: type aliases, no run-time code).
//! So a header's `lines` does not depend on the run, and code no run instantiates counts as
//! unreached.
//!
//! **Two figures per side.** *Reached* (the `random` / `cutlass_tests` keys of the JSON): a
//! statement line some instantiation executed (gcov count > 0), or a member line of a trait
//! specialization whose operation names a function the run instantiated (the trait is then
//! evaluated by the compiler; it has nothing to execute). *Instantiated* (`*_instantiated`): a
//! statement line inside a function the run instantiated, executed or not (static-only code:
//! `if constexpr` branches compiled but not taken, code folded away), plus the same trait lines.
//!
//! Writes `target/cutecheck/coverage.json` (`{"cute/layout.hpp": {"random": pct,
//! "cutlass_tests": pct, "random_instantiated": pct, "cutlass_tests_instantiated": pct, "lines":
//! n}, ...}`, every CuTe header with code), prints a table of the headers the issue lists, and
//! writes the lines neither side reaches to `target/cutecheck/coverage-unreached.txt`
//! (`header:line: source`) so the generator can be aimed at them.
//!
//! The driver runs each case in a forked child that leaves with `_exit`, which skips gcov's exit
//! hook, so a small preloaded library turns the case binaries' `_exit` into `exit`, whose hooks
//! write the counters (the binaries are linked with `-rdynamic` so it can tell them from other
//! processes).

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
        "layout.hpp"
            | "layout_composed.hpp"
            | "int_tuple.hpp"
            | "stride.hpp"
            | "underscore.hpp"
            | "pointer_flagged.hpp"
            | "util/print_tensor.hpp"
            | "atom/mma_atom.hpp"
            | "atom/copy_atom.hpp"
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

/// The libclang script that lists the headers' code lines (the denominator).
const LINES_PY: &str = include_str!("coverage_lines.py");

/// One header's code, as `coverage_lines.py` lists it.
#[derive(Debug, Default, serde::Deserialize)]
struct Code {
    stmts: Vec<u64>,
    traits: Vec<Trait>,
}

#[derive(Debug, serde::Deserialize)]
struct Trait {
    name: String,
    line: u64,
    lines: Vec<u64>,
}

/// What one side's run left: per header the executed lines and the line ranges of the
/// instantiated functions, and every identifier of an instantiated function's demangled name.
#[derive(Default)]
struct Run {
    executed: BTreeMap<String, BTreeSet<u64>>,
    functions: BTreeMap<String, Vec<(u64, u64)>>,
    names: BTreeSet<String>,
}

/// A side's reached and instantiated lines of one header.
fn figures(code: &Code, run: &Run, h: &str) -> (BTreeSet<u64>, BTreeSet<u64>) {
    let none = BTreeSet::new();
    let exec = run.executed.get(h).unwrap_or(&none);
    let fns: &[(u64, u64)] = run.functions.get(h).map_or(&[], |v| v.as_slice());
    let used: BTreeSet<u64> =
        code.traits.iter().filter(|t| run.names.contains(&t.name)).flat_map(|t| t.lines.iter().copied()).collect();
    let reached = code.stmts.iter().copied().filter(|l| exec.contains(l)).chain(used.iter().copied()).collect();
    let inst =
        code.stmts.iter().copied().filter(|l| fns.iter().any(|&(a, b)| a <= *l && *l <= b)).chain(used).collect();
    (reached, inst)
}

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
    let include = base.headers.include_dir.clone();
    let code = code_lines(&base, &root)?;
    let shim = build_shim(&base, &root)?;
    // Every process this one starts loads the shim (the case binaries are started by the oracle).
    std::env::set_var("LD_PRELOAD", &shim);

    let random: Vec<String> =
        cutecheck::fuzz::cases(a.seed, a.cases, (0, 1)).into_iter().map(|(_, c)| c.expr).collect();
    let path = cutecheck::oracle::repo_root().join("fixtures/cases").join(format!("{}.cases", a.suite));
    let (fixed_label, fixed, recorded): (String, Vec<String>, Option<Vec<Vec<String>>>) = if path.is_file() {
        let s = Suite::load(&path)?;
        // The release the headers are: a checkout's version.h, else --cutlass-version.
        let version = match &a.oracle.cutlass_dir {
            Some(d) => Some(crate::bless::dir_release(d)?.to_string()),
            None => a.oracle.cutlass_version.clone(),
        };
        let recorded =
            s.recorded(version.as_deref().filter(|v| *v != cutecheck::oracle::provision::DEFAULT_CUTLASS)).ok();
        (format!("{} ({} cases)", a.suite, s.cases.len()), s.cases.iter().map(|c| c.expr.clone()).collect(), recorded)
    } else {
        let all = suite::all_suites()?;
        let cases: Vec<String> = all.iter().flat_map(|s| s.cases.iter().map(|c| c.expr.clone())).collect();
        (format!("every fixed suite, {} cases (fixtures/cases/{}.cases is absent)", cases.len(), a.suite), cases, None)
    };
    let mut runs: Vec<Run> = Vec::new();
    let started = std::time::Instant::now();
    for (side, cases) in [("random", &random), ("cutlass_tests", &fixed)] {
        let work = root.join(side);
        if a.reread {
            runs.push(collect(&work)?);
            continue;
        }
        eprintln!("xtask: coverage of the {side} side: {} cases", cases.len());
        let mut compiler = base.compiler.clone();
        compiler.flags.extend(["--coverage".to_string(), "-rdynamic".to_string()]);
        let opts = OracleOptions {
            cache: false,
            keep_builds: true,
            verbose: true,
            work_dir: Some(work.clone()),
            ..a.oracle.options()
        };
        let oracle = Oracle::with_parts(base.headers.clone(), base.cuda.clone(), compiler, opts)?;
        let outcomes = oracle.run_runtime(cases);
        let printed = outcomes.iter().filter(|o| o.printed().is_some()).count();
        let errors = outcomes.iter().filter(|o| o.is_error()).count();
        eprintln!(
            "xtask: {side}: {printed} printed, {} refused or unsupported, {errors} oracle errors",
            cases.len() - printed - errors
        );
        if let Some(e) = outcomes.iter().find(|o| o.is_error()) {
            eprintln!("xtask: first oracle error: {}", e.lines().join("\n"));
        }
        if side == "cutlass_tests" {
            if let Some(rec) = &recorded {
                // The run-time operands must not change what CuTe prints.
                let differ: Vec<&String> = cases
                    .iter()
                    .zip(&outcomes)
                    .zip(rec)
                    .filter(|((_, o), r)| !o.is_error() && o.lines() != **r)
                    .map(|((c, _), _)| c)
                    .collect();
                eprintln!(
                    "xtask: {side}: {} of {} cases print what the snapshot recorded",
                    cases.len() - differ.len(),
                    cases.len()
                );
                if let Some(c) = differ.first() {
                    bail!("with run-time operands CuTe printed something else than the snapshot records for {c} ({} such cases)", differ.len());
                }
            }
        }
        runs.push(collect(&work)?);
    }
    let (rnd, cut) = (&runs[0], &runs[1]);
    let mut json = serde_json::Map::new();
    let mut table = format!(
        "{:<40} {:>6} {:>20} {:>23} {:>8}\n",
        "header", "lines", "reached rnd/cutlass", "instantiated rnd/cutl.", "neither"
    );
    let mut unreached = String::new();
    let mut behind = Vec::new();
    for (h, c) in &code {
        let lines: BTreeSet<u64> =
            c.stmts.iter().copied().chain(c.traits.iter().flat_map(|t| t.lines.iter().copied())).collect();
        if lines.is_empty() {
            continue;
        }
        let (rr, ri) = figures(c, rnd, h);
        let (cr, ci) = figures(c, cut, h);
        let pct = |n: &BTreeSet<u64>| (1000.0 * n.len() as f64 / lines.len() as f64).round() / 10.0;
        json.insert(
            h.clone(),
            serde_json::json!({ "random": pct(&rr), "cutlass_tests": pct(&cr), "random_instantiated": pct(&ri),
                "cutlass_tests_instantiated": pct(&ci), "lines": lines.len() }),
        );
        let neither: Vec<u64> = lines.iter().copied().filter(|l| !rr.contains(l) && !cr.contains(l)).collect();
        if listed(h) {
            table.push_str(&format!(
                "{:<40} {:>6} {:>9.1}% {:>8.1}% {:>10.1}% {:>10.1}% {:>8}\n",
                h,
                lines.len(),
                pct(&rr),
                pct(&cr),
                pct(&ri),
                pct(&ci),
                neither.len()
            ));
            if rr.len() < cr.len() || ri.len() < ci.len() {
                behind.push(h.clone());
            }
        }
        let src = std::fs::read_to_string(include.join(h)).unwrap_or_default();
        let text: Vec<&str> = src.lines().collect();
        let trait_at: BTreeMap<u64, &Trait> =
            c.traits.iter().flat_map(|t| t.lines.iter().map(move |l| (*l, t))).collect();
        for l in neither {
            let line = text.get(l as usize - 1).map_or("", |s| s.trim());
            match trait_at.get(&l) {
                Some(t) => {
                    unreached.push_str(&format!("{h}:{l}: {line}    [trait of {} at line {}]\n", t.name, t.line))
                }
                None => unreached.push_str(&format!("{h}:{l}: {line}\n")),
            }
        }
    }
    let dir = state_dir();
    std::fs::write(dir.join("coverage.json"), serde_json::to_string_pretty(&serde_json::Value::Object(json))?)?;
    std::fs::write(dir.join("coverage-unreached.txt"), &unreached)?;
    print!(
        "random: {} cases of seed {}; cutlass_tests: {fixed_label}; {:.0} s\n\
         reached: statement lines executed, or trait lines of an atom the run instantiated; instantiated: \
         statement lines in a function the run instantiated (see xtask/src/coverage.rs)\n{table}",
        random.len(),
        a.seed,
        started.elapsed().as_secs_f64()
    );
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

/// The code lines of every CuTe header the oracle's translation units include, listed by
/// [`LINES_PY`] with the provisioned libclang (python3 runs it).
fn code_lines(base: &Oracle, root: &Path) -> Result<BTreeMap<String, Code>> {
    let prov = cutecheck::oracle::provision::Provisioner::new()?;
    let native = cutecheck::oracle::inproc::provision::libclang_dir(&prov)?;
    let platlib = native.parent().and_then(Path::parent).context("the libclang wheel's platlib")?;
    let (script, src, out) = (root.join("coverage_lines.py"), root.join("headers.cpp"), root.join("lines.json"));
    std::fs::write(&script, LINES_PY)?;
    std::fs::write(
        &src,
        "#include <cute/tensor.hpp>\n#if __has_include(<cute/util/print_svg.hpp>)\n#include <cute/util/print_svg.hpp>\n#endif\n",
    )?;
    // libclang brings no builtin headers (stddef.h, ...): g++'s serve.
    let gcc_include = Command::new(&base.compiler.program)
        .arg("-print-file-name=include")
        .output()
        .context("asking g++ for its include directory")?;
    let mut cmd = Command::new("python3");
    cmd.arg(&script).arg(platlib).arg(&src).arg(&out).arg("--").args(["-x", "c++", "-std=c++17", "-isystem"]);
    cmd.arg(String::from_utf8_lossy(&gcc_include.stdout).trim());
    cmd.arg(format!("-I{}", base.headers.include_dir.display()));
    cmd.args(base.cuda.include_dirs.iter().map(|d| format!("-I{}", d.display())));
    let o = cmd.output().context("running python3 (the libclang script of the coverage denominator)")?;
    if !o.status.success() {
        bail!("listing the headers' code lines with libclang failed:\n{}", String::from_utf8_lossy(&o.stderr));
    }
    let mut code: BTreeMap<String, Code> =
        serde_json::from_str(&std::fs::read_to_string(&out)?).context("reading lines.json")?;
    // `CUTE_GCC_UNREACHABLE;` marks a path that never runs by design.
    for (h, c) in code.iter_mut() {
        let src = std::fs::read_to_string(base.headers.include_dir.join(h)).unwrap_or_default();
        let text: Vec<&str> = src.lines().collect();
        c.stmts
            .retain(|&l| !text.get(l as usize - 1).is_some_and(|s| s.trim_start().starts_with("CUTE_GCC_UNREACHABLE")));
    }
    Ok(code)
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

/// Every `.gcda` under `work`, read with gcov: per CuTe header, the lines some case executed and
/// the line ranges of the functions instantiated; and the qualified names in every instantiated
/// function's demangled name (which atoms the run used).
fn collect(work: &Path) -> Result<Run> {
    let mut out = Run::default();
    let mut gcdas = Vec::new();
    find(work, &mut gcdas);
    let header = |file: &str| file.rfind("/cute/").map(|k| file[k + 1..].to_string());
    for g in gcdas {
        let dir = g.parent().unwrap_or(work);
        let o = Command::new("gcov")
            .args(["--json-format", "--stdout"])
            .arg(&g)
            .current_dir(dir)
            .output()
            .context("running gcov")?;
        for line in String::from_utf8_lossy(&o.stdout).lines().filter(|l| l.starts_with('{')) {
            let v: serde_json::Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(_) => continue,
            };
            for f in v["files"].as_array().into_iter().flatten() {
                for func in f["functions"].as_array().into_iter().flatten() {
                    let name = func["demangled_name"].as_str().unwrap_or("");
                    // Qualified names (`cute::SM90::GMMA::MMA_64x8x16_F16F16F16_SS`), as the traits list them.
                    for w in name
                        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                        .filter(|w| !w.is_empty())
                    {
                        if !out.names.contains(w) {
                            out.names.insert(w.to_string());
                        }
                    }
                }
                let Some(h) = f["file"].as_str().and_then(header) else { continue };
                for func in f["functions"].as_array().into_iter().flatten() {
                    if let (Some(a), Some(b)) = (func["start_line"].as_u64(), func["end_line"].as_u64()) {
                        out.functions.entry(h.clone()).or_default().push((a, b));
                    }
                }
                let e = out.executed.entry(h).or_default();
                for l in f["lines"].as_array().into_iter().flatten() {
                    if let (Some(n), Some(c)) = (l["line_number"].as_u64(), l["count"].as_u64()) {
                        if c > 0 {
                            e.insert(n);
                        }
                    }
                }
            }
        }
    }
    for v in out.functions.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    Ok(out)
}

fn find(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            find(&p, out);
        } else if p.extension().is_some_and(|x| x == "gcda")
            && p.parent().is_some_and(|d| d.file_name().is_some_and(|n| n.to_string_lossy().starts_with("tu-")))
        {
            out.push(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reached_and_instantiated_lines() {
        let code = Code {
            stmts: vec![10, 11, 12, 30],
            traits: vec![
                Trait { name: "cute::SM80_A".into(), line: 50, lines: vec![51, 52] },
                Trait { name: "cute::SM80_B".into(), line: 60, lines: vec![61] },
            ],
        };
        let mut run = Run::default();
        run.executed.insert("h".into(), [10, 11, 20].into());
        run.functions.insert("h".into(), vec![(9, 13)]);
        run.names.insert("cute::SM80_A".into());
        let (reached, inst) = figures(&code, &run, "h");
        // Executed statements (20 is no statement line) and the lines of the trait the run named.
        assert_eq!(reached, [10, 11, 51, 52].into());
        // Statements inside an instantiated function (12 compiled but not run), and the same traits.
        assert_eq!(inst, [10, 11, 12, 51, 52].into());
        assert_eq!(figures(&code, &run, "other"), ([51, 52].into(), [51, 52].into()));
    }
}
