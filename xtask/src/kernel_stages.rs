//! The SM90 stage counts that CUTLASS's collective builder computes from the epilogue's shared
//! storage (`StageCountAutoCarveout<sizeof(typename CollectiveEpilogue::SharedStorage)>`), taken
//! from real CUTLASS rather than modelled: `cargo xtask extract-kernel-forms --probe-stages
//! --git-dir MIRROR --tag vX.Y.Z ...` writes, per release, one host-only C++ program holding each
//! carveout builder use's visible `using` declarations (as the use's file writes them, read from
//! the tag; never committed), compiles it with the provisioned nvcc (host code; CUTLASS's pipeline headers need CUDA's
//! builtins) against the release's headers
//! (`$CUTECHECK_DIR/cutlass-vX.Y.Z/include`), runs it, and records each use's `CollectiveOp::DispatchPolicy::Stages` in
//! [`FACTS`]. A use whose declarations do not compile alone (the unit test's own EVT helpers from
//! gemm_testbed_3x_evt.hpp / sm90_evt_operations.hpp, a function template's or a generic lambda's
//! parameters) is then asked in its own translation unit ([`run_unit_probes`]): the test file as
//! the tag has it, with a failing `static_assert` after the use's `using` whose instantiation
//! names the stage count, compiled by the same nvcc against the tag's include/, tools/util/include,
//! test/unit and examples/common (gtest from the system's googletest headers, `apt-get install
//! libgtest-dev`); the compile stops in the front end, nothing links or runs. Each instantiation of
//! the enclosing template answers, so a use may record several stage counts (`3,4`), each its own
//! mainloop. The extractor reads the stage counts from there (a use without one stays skipped).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::cxx_tokens::Tok;

/// The recorded stage counts: `RELEASE FILE:LINE STAGES` lines under a header naming the command.
pub const FACTS: &str = "fixtures/kernel_forms_stages.txt";

/// A use's stage counts (one, or one per instantiation of the function template or generic lambda
/// holding it, ascending), or why none.
pub type Stages = std::result::Result<Vec<i64>, String>;

/// Each use's stage counts, or why none: (`file:line`, stages).
pub type Probed = Vec<(String, Stages)>;

/// What one carveout builder use needs to be compiled alone.
pub struct Probe {
    /// Where the use is (`file:line`, as the extractor names it).
    pub at: String,
    /// The `using` / `constexpr` declarations visible at the use, as written, in order.
    pub decls: Vec<String>,
    /// The alias the use's `CollectiveOp` is bound to (`CollectiveMainloop`).
    pub alias: String,
    /// The innermost `using NAME = ...;` holding the use, and the line (1-based) where it ends.
    pub unit_alias: String,
    pub end_line: usize,
    /// A use inside a class or function template, probed per instantiation: the line where the
    /// file instantiates it (the probe's `Line`) and how its unit asks it ([`Ask`]).
    pub instance: Option<(usize, Ask)>,
}

/// How a probe of one instantiation of the template holding a use is asked in its unit.
#[derive(Clone, Debug, PartialEq)]
pub enum Ask {
    /// A class template's: `TYPE::ALIAS::DispatchPolicy::Stages` at the unit's end, TYPE the
    /// instantiation as written (`ExampleRunner<cutlass::gemm::KernelTma>`).
    Type(String),
    /// A function template's: after the use's `using`, under this condition on the template's
    /// parameters (`cute::is_same_v` of their tuple and the call's), through `cute::conditional_t`
    /// so that only that instantiation's probe class is instantiated (and fails).
    When(String),
}

/// The probe of a builder use at token `i` of a file (`plain` its tokens, `lines` its text's lines,
/// `tok_lines` each token's line): the visible declarations and the alias whose right-hand side
/// holds the use; None when the use is not the right-hand side of a `using`.
pub fn probe(at: &str, plain: &[Tok], tok_lines: &[usize], lines: &[&str], i: usize) -> Option<Probe> {
    // The innermost block of each position, and each block's parent.
    let mut block = vec![usize::MAX; plain.len()];
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut stack = vec![usize::MAX];
    for (k, t) in plain.iter().enumerate() {
        block[k] = *stack.last().unwrap_or(&usize::MAX);
        match t {
            Tok::Punct('{') => {
                parent.insert(k, block[k]);
                stack.push(k);
            }
            Tok::Punct('}') if stack.len() > 1 => {
                stack.pop();
            }
            _ => {}
        }
    }
    let visible = |k: usize| {
        let mut b = block[i];
        loop {
            if b == block[k] {
                return true;
            }
            if b == usize::MAX {
                return false;
            }
            b = parent.get(&b).copied().unwrap_or(usize::MAX);
        }
    };
    let end_of = |k: usize| {
        let mut depth = 0i32;
        (k..plain.len()).find(|&e| {
            match plain[e] {
                Tok::Punct('(' | '{' | '[') => depth += 1,
                Tok::Punct(')' | '}' | ']') => depth -= 1,
                _ => {}
            }
            depth <= 0 && plain[e] == Tok::Punct(';')
        })
    };
    let word = |k: usize, w: &str| matches!(plain.get(k), Some(Tok::Word(x)) if x == w);
    let mut decls = Vec::new();
    let mut alias = None;
    let mut end_line = 0;
    let mut unit_alias = None;
    let mut k = 0;
    while k < plain.len() {
        let decl = (word(k, "using")
            && matches!(plain.get(k + 1), Some(Tok::Word(_)))
            && plain.get(k + 2) == Some(&Tok::Punct('=')))
            || (word(k, "using") && word(k + 1, "namespace"))
            || (word(k, "constexpr") && (k == 0 || matches!(plain[k - 1], Tok::Punct(';' | '{' | '}'))));
        if !decl || !visible(k) || k > i {
            k += 1;
            continue;
        }
        let Some(e) = end_of(k) else { break };
        let text = lines[tok_lines[k] - 1..tok_lines[e]].join("\n");
        decls.push(text);
        if (k..e).contains(&i) {
            if let Some(Tok::Word(a)) = plain.get(k + 1) {
                alias = Some(a.clone());
            }
            break;
        }
        k = e + 1;
    }
    // The innermost `using NAME = ...;` holding the use (inside a lambda or a function too), for
    // the probe in the use's own translation unit.
    let unit = (0..i).rev().find_map(|k| match (&plain[k], plain.get(k + 1), plain.get(k + 2)) {
        (Tok::Word(u), Some(Tok::Word(name)), Some(Tok::Punct('='))) if u == "using" => {
            end_of(k).filter(|&e| e > i).map(|e| (name.clone(), tok_lines[e]))
        }
        _ => None,
    });
    if let Some((name, line)) = unit {
        alias = alias.or_else(|| Some(name.clone()));
        unit_alias = Some(name);
        end_line = line;
    }
    Some(Probe { at: at.to_string(), decls, alias: alias?, end_line, unit_alias: unit_alias?, instance: None })
}

/// The recorded stage counts of a release: `file:line` -> stages, or why there is none.
pub fn recorded(root: &Path, release: &str) -> HashMap<String, Stages> {
    let text = std::fs::read_to_string(root.join(FACTS)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut w = l.splitn(3, ' ');
            let (r, at, n) = (w.next()?, w.next()?, w.next()?);
            let v = match n.split(',').map(str::parse).collect::<std::result::Result<Vec<i64>, _>>() {
                Ok(n) => Ok(n),
                Err(_) => Err(n.trim_start_matches("- ").to_string()),
            };
            (r == release).then(|| (at.to_string(), v))
        })
        .collect()
}

/// CUTLASS 3.5-3.9's cuda_host_adapter.hpp names the driver's unversioned `PFN_cuTensorMapEncodeTiled`
/// unless nvcc is 12.5 or later by `major >= 12 && minor >= 5`, which CUDA 13.0 fails, and CUDA 13
/// no longer declares that typedef: the direct driver calls leave it out, and no stage count
/// depends on them.
const DIRECT_DRIVER_CALLS: &str = "-DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL";

/// The release's CUTLASS headers: `$CUTECHECK_DIR/cutlass-vX.Y.Z/include`.
fn headers(tag: &str) -> Result<PathBuf> {
    let base = std::env::var_os("CUTECHECK_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/work/state"));
    let d = base.join(format!("cutlass-{tag}")).join("include");
    if !d.join("cutlass/cutlass.h").is_file() {
        bail!(
            "{} has no CUTLASS headers: `git --git-dir MIRROR archive {tag} include | tar -x -C {}`",
            d.display(),
            d.parent().map(|p| p.display().to_string()).unwrap_or_default()
        );
    }
    Ok(d)
}

/// nvcc of the provisioned CUDA 13 tree (`$CUTECHECK_DIR/cache/nvcc-*-tree`): CUTLASS's SM90
/// pipeline headers need CUDA's device builtins declared even for host code.
fn nvcc() -> Result<PathBuf> {
    let base = std::env::var_os("CUTECHECK_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/work/state"));
    let mut trees: Vec<PathBuf> = std::fs::read_dir(base.join("cache"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("nvcc-")))
        .collect();
    trees.sort();
    for t in trees.iter().rev() {
        for sub in ["nvidia/cu13/bin/nvcc", "nvidia/cuda_nvcc/bin/nvcc"] {
            if t.join(sub).is_file() {
                return Ok(t.join(sub));
            }
        }
    }
    bail!("no provisioned nvcc under {}/cache (nvcc-*-tree)", base.display())
}

/// The program of the probes `keep` (indices into `probes`), and the line each probe starts at.
fn program(includes: &[String], probes: &[Probe], keep: &[usize]) -> (String, Vec<(usize, usize)>) {
    let mut src = String::from(
        "// Generated by cargo xtask extract-kernel-forms --probe-stages (not committed).\n#include <cstdio>\n",
    );
    for i in includes {
        let _ = writeln!(src, "{i}");
    }
    src.push_str("using namespace cute;\n");
    let mut starts = Vec::new();
    for &n in keep {
        starts.push((src.lines().count() + 1, n));
        let p = &probes[n];
        let _ = writeln!(
            src,
            "namespace probe_{n} {{\n{}\nconstexpr int stages = {}::DispatchPolicy::Stages;\n}}",
            p.decls.join("\n"),
            p.alias
        );
    }
    src.push_str("int main() {\n");
    for &n in keep {
        let _ = writeln!(src, "  std::printf(\"{n} %d\\n\", probe_{n}::stages);");
    }
    src.push_str("}\n");
    (src, starts)
}

/// Compiles and runs the probes of one release: each probe's stage count, or why it has none (a
/// use inside a function template, whose epilogue is a template parameter: the compiler's first
/// error in it). A probe the compiler rejects is dropped and the rest compiled again.
pub fn run_probes(tag: &str, includes: &[String], probes: &[Probe]) -> Result<Probed> {
    let inc = headers(tag)?;
    let nvcc = nvcc()?;
    let dir = std::env::temp_dir().join(format!("cutecheck-stages-{tag}"));
    std::fs::create_dir_all(&dir)?;
    // A class template's instantiation is asked only in its own unit (its declarations name the
    // template's parameters).
    let mut keep: Vec<usize> = (0..probes.len()).filter(|&n| probes[n].instance.is_none()).collect();
    let mut why: HashMap<usize, String> = probes
        .iter()
        .enumerate()
        .filter(|(_, p)| p.instance.is_some())
        .map(|(n, _)| (n, "a class template's instantiation: asked in its own unit".to_string()))
        .collect();
    for _ in 0..4 {
        let (src, starts) = program(includes, probes, &keep);
        let cpp = dir.join("stages.cu");
        std::fs::write(&cpp, &src)?;
        let exe = dir.join("stages");
        // A program compiled before (same text, nvcc and headers): its answer from the cache.
        let key = cutecheck::oracle::sha256_hex(
            format!("{src}\0{}\0{}\0{DIRECT_DRIVER_CALLS}", nvcc.display(), inc.display()).as_bytes(),
        );
        let cached = dir.join(format!("answer-{}.txt", &key[..16]));
        let answer: std::result::Result<String, String> = match std::fs::read_to_string(&cached) {
            Ok(t) if t.starts_with("ok\n") => Ok(t[3..].to_string()),
            Ok(t) if t.starts_with("err\n") => Err(t[4..].to_string()),
            _ => {
                let out = std::process::Command::new(&nvcc)
                    .args(["-x", "cu", "-std=c++17", "-O0", "-w", "-arch=sm_90a", DIRECT_DRIVER_CALLS, "-o"])
                    .arg(&exe)
                    .arg(&cpp)
                    .arg(format!("-I{}", inc.display()))
                    .arg(format!(
                        "-L{}",
                        nvcc.parent().and_then(Path::parent).map(|t| t.join("lib")).unwrap_or_default().display()
                    ))
                    .output()
                    .context("running nvcc")?;
                let a = if out.status.success() {
                    let run = std::process::Command::new(&exe).output().context("running the stage probe")?;
                    Ok(String::from_utf8_lossy(&run.stdout).to_string())
                } else {
                    Err(String::from_utf8_lossy(&out.stderr).to_string())
                };
                let t = match &a {
                    Ok(t) => format!("ok\n{t}"),
                    Err(e) => format!("err\n{e}"),
                };
                std::fs::write(&cached, t)?;
                a
            }
        };
        if let Ok(text) = &answer {
            let mut got: HashMap<usize, i64> = HashMap::new();
            for l in text.lines() {
                let mut w = l.split_whitespace();
                if let (Some(Ok(n)), Some(Ok(s))) = (w.next().map(str::parse::<usize>), w.next().map(str::parse::<i64>))
                {
                    got.insert(n, s);
                }
            }
            return Ok(probes
                .iter()
                .enumerate()
                .map(|(n, p)| {
                    let r = match (got.get(&n), why.get(&n)) {
                        (Some(&s), _) => Ok(vec![s]),
                        (None, Some(w)) => Err(w.clone()),
                        (None, None) => Err("the probe printed nothing".into()),
                    };
                    (p.at.clone(), r)
                })
                .collect());
        }
        // Drop each probe an error points into (`stages.cu(LINE): error: ...`).
        let err = answer.err().unwrap_or_default();
        let mut dropped = false;
        for l in err.lines().filter(|l| l.contains(": error")) {
            let Some(line) = l
                .strip_prefix(&format!("{}(", cpp.display()))
                .and_then(|r| r.split(')').next())
                .and_then(|n| n.parse::<usize>().ok())
            else {
                continue;
            };
            if let Some(&(_, n)) = starts.iter().rev().find(|(s, _)| *s <= line) {
                if keep.contains(&n) {
                    keep.retain(|&k| k != n);
                    let msg = l.split(": error: ").nth(1).unwrap_or(l).trim().to_string();
                    why.insert(n, format!(
                        "its declarations do not compile alone ({msg}): they use the test's own EVT helpers (gemm_testbed_3x_evt.hpp) or a function template's parameters"
                    ));
                    dropped = true;
                }
            }
        }
        if !dropped {
            let first: Vec<&str> = err.lines().filter(|l| l.contains("error")).take(8).collect();
            bail!("nvcc of {} failed:\n{}", cpp.display(), first.join("\n"));
        }
    }
    bail!("the stage probes of {tag} still fail after dropping the rejected ones")
}

/// Writes [`FACTS`]: each release's recorded stage counts, under the header naming the command.
pub fn write(root: &Path, tags: &[(String, Probed)], command: &str) -> Result<()> {
    let mut s = String::from(
        "# SM90 stage counts of the CollectiveBuilder uses whose stage count is\n\
         # StageCountAutoCarveout<sizeof(... epilogue SharedStorage)>, printed by real CUTLASS: each use's\n\
         # visible `using` declarations compiled with nvcc -std=c++17 against the release's headers and run,\n\
         # printing CollectiveOp::DispatchPolicy::Stages (xtask/src/kernel_stages.rs); a use whose\n\
         # declarations do not compile alone is asked in its own translation unit (the test file with\n\
         # a failing static_assert naming the stage count; one count per instantiation of a template\n\
         # holding it, comma-separated); one neither answers is listed with `-` and why. Written by\n",
    );
    let _ = writeln!(s, "# `{command}`; do not edit by hand.\n# release file:line stages");
    for (release, v) in tags {
        for (at, n) in v {
            match n {
                Ok(n) => {
                    let n: Vec<String> = n.iter().map(i64::to_string).collect();
                    _ = writeln!(s, "{release} {at} {}", n.join(","))
                }
                Err(w) => _ = writeln!(s, "{release} {at} - {w}"),
            }
        }
    }
    std::fs::write(root.join(FACTS), s).with_context(|| format!("writing {FACTS}"))
}

/// The template every unit probe instantiates: its static_assert always fails, and the compiler's
/// "detected during instantiation of class ... [with Line=L, Stages=S]" names the use's line and
/// the stage count CUTLASS computed for it.
const UNIT_PROBE: &str = "template <int Line, int Stages> struct cutecheck_stage_probe { \
static_assert(Line < 0, \"cutecheck stage probe\"); static constexpr bool value = true; };";

/// A tag's sources that the probed units include (CUTLASS's headers, its tools' utilities, the
/// unit tests' common files and the GEMM tests with their testbeds, the examples), unpacked once
/// into a temporary directory (never committed).
fn unit_tree(git_dir: &Path, tag: &str, files: &[&str]) -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("cutecheck-stage-units-{tag}"));
    let marker = dir.join(".unpacked");
    if marker.is_file() {
        return Ok(dir);
    }
    std::fs::create_dir_all(&dir)?;
    let mut paths: Vec<String> =
        ["include", "tools/util/include", "test/unit/common", "test/unit/gemm/device", "examples/common"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    for f in files {
        if let Some((d, _)) = f.rsplit_once('/') {
            if !paths.iter().any(|p| d.starts_with(p.as_str())) {
                paths.push(d.to_string());
            }
        }
    }
    // Only the paths the tag has (examples/common appeared in 3.x).
    let listed = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["ls-tree", "--name-only", "-r", tag, "--"])
        .args(&paths)
        .output()
        .context("running git ls-tree")?;
    let have = String::from_utf8_lossy(&listed.stdout).to_string();
    paths.retain(|p| have.lines().any(|l| l.starts_with(p.as_str())));
    let mut archive = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["archive", "--format=tar", tag, "--"])
        .args(&paths)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("running git archive")?;
    let out = archive.stdout.take().context("git archive's output")?;
    let tar = std::process::Command::new("tar").arg("-x").arg("-C").arg(&dir).stdin(out).status()?;
    let git = archive.wait()?;
    if !tar.success() || !git.success() {
        bail!("unpacking {tag} ({}) into {} failed", paths.join(" "), dir.display());
    }
    std::fs::write(&marker, paths.join("\n"))?;
    Ok(dir)
}

/// The stage counts of the carveout uses whose declarations do not compile alone, from their own
/// translation units: each unit (the test or example file as the tag has it) is copied beside
/// itself with, after each probed use's `using ALIAS = ...;`, a
/// `static_assert(cutecheck_stage_probe<LINE, ALIAS::DispatchPolicy::Stages>::value, "")` whose
/// instantiation fails ([`UNIT_PROBE`]), and compiled with the provisioned nvcc (`-arch=sm_90a`,
/// the unit tests' gtest from the system's googletest headers) until the front end reports the
/// failures: nothing links or runs, and the stage count is the one the test's own build
/// instantiates (its EVT helpers, its function templates' instantiations). A use inside a function
/// template or a generic lambda is answered by each instantiation: all the stage counts they
/// compute, each a mainloop of its own; one never instantiated keeps why.
pub fn run_unit_probes(git_dir: &Path, tag: &str, probes: &[&Probe]) -> Result<HashMap<String, Stages>> {
    let mut out = HashMap::new();
    if probes.is_empty() {
        return Ok(out);
    }
    if !Path::new("/usr/include/gtest/gtest.h").is_file() {
        bail!("the unit tests include gtest: install the system's googletest headers (apt-get install libgtest-dev)");
    }
    let nvcc = nvcc()?;
    let mut by_file: Vec<(String, Vec<&Probe>)> = Vec::new();
    for p in probes {
        let file = p.at.rsplit_once(':').map_or(p.at.as_str(), |(f, _)| f).to_string();
        match by_file.iter_mut().find(|(f, _)| *f == file) {
            Some((_, v)) => v.push(p),
            None => by_file.push((file, vec![p])),
        }
    }
    let files: Vec<&str> = by_file.iter().map(|(f, _)| f.as_str()).collect();
    let tree = unit_tree(git_dir, tag, &files)?;
    // cuRAND's headers (examples/49's helper.h includes curand_kernel.h), from the pinned wheel.
    let curand = cutecheck::oracle::provision::Provisioner::new()?.curand13()?.join("include");
    for (file, ps) in &by_file {
        let text = std::fs::read_to_string(tree.join(file)).with_context(|| format!("reading {file} of {tag}"))?;
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        for p in ps {
            // An instantiation of a class template: asked at the file's end, named by the line
            // that instantiates it.
            match &p.instance {
                Some((line, Ask::Type(ty))) => {
                    lines.push(format!(
                        "static_assert(cutecheck_stage_probe<{line}, {ty}::{}::DispatchPolicy::Stages>::value, \"\");",
                        p.unit_alias
                    ));
                    continue;
                }
                Some((line, Ask::When(cond))) => {
                    let Some(l) = lines.get_mut(p.end_line.wrapping_sub(1)) else { continue };
                    let _ = write!(
                        l,
                        " static_assert(cute::conditional_t<{cond}, cutecheck_stage_probe<{line}, {}::DispatchPolicy::Stages>, cute::true_type>::value, \"\");",
                        p.unit_alias
                    );
                    continue;
                }
                None => {}
            }
            let line: usize = p.at.rsplit_once(':').and_then(|(_, l)| l.parse().ok()).unwrap_or(0);
            let Some(l) = lines.get_mut(p.end_line.wrapping_sub(1)) else { continue };
            // On the declaration's last line, so that every line keeps its number.
            let _ = write!(
                l,
                " static_assert(cutecheck_stage_probe<{line}, {}::DispatchPolicy::Stages>::value, \"\");",
                p.unit_alias
            );
        }
        if let Some(first) = lines.first_mut() {
            *first = format!("{UNIT_PROBE} {first}");
        }
        let probe_file = tree.join(format!("{}.cutecheck-probe.cu", file.trim_end_matches(".cu")));
        let text = lines.join("\n") + "\n";
        std::fs::write(&probe_file, &text)?;
        let inc = |d: &str| format!("-I{}", tree.join(d).display());
        let t0 = std::time::Instant::now();
        // A unit compiled before (same text, nvcc and tree): the compiler's report from the cache.
        // The cuRAND headers can change only a unit that includes one, and such a unit compiled
        // without them failed naming the header: its report is asked again, every other one kept.
        let key = cutecheck::oracle::sha256_hex(
            format!("{text}\0{}\0{}\0{DIRECT_DRIVER_CALLS}", nvcc.display(), tree.display()).as_bytes(),
        );
        let cached = tree.join(format!(".cutecheck-report-{}.txt", &key[..16]));
        let report = std::fs::read_to_string(&cached).ok().filter(|t| !t.contains("curand_kernel.h: No such file"));
        let err = match report {
            Some(t) => t,
            None => {
                let res = std::process::Command::new(&nvcc)
                    .args([
                        "-x",
                        "cu",
                        "-std=c++17",
                        "-arch=sm_90a",
                        "-w",
                        DIRECT_DRIVER_CALLS,
                        "-c",
                        "-o",
                        "/dev/null",
                    ])
                    .args([inc("include"), inc("tools/util/include"), inc("examples/common")])
                    .arg(format!("-I{}", curand.display()))
                    .arg(&probe_file)
                    .output()
                    .context("running nvcc")?;
                let t = String::from_utf8_lossy(&res.stdout).to_string() + &String::from_utf8_lossy(&res.stderr);
                std::fs::write(&cached, &t)?;
                t
            }
        };
        let seen = reported_stages(&err);
        let first_other = err
            .lines()
            .filter(|l| l.contains("error") && !l.contains("cutecheck stage probe"))
            .map(|l| l.split_once("error: ").map_or(l, |(_, m)| m).trim().to_string())
            .next();
        eprintln!("{tag}: {file}: {} probes answered by its own unit in {:.0?}", seen.len(), t0.elapsed());
        for p in ps {
            let line: usize = match &p.instance {
                Some((line, _)) => *line,
                None => p.at.rsplit_once(':').and_then(|(_, l)| l.parse().ok()).unwrap_or(0),
            };
            let r = match seen.get(&line) {
                Some(v) => {
                    let mut v = v.clone();
                    v.sort_unstable();
                    Ok(v)
                }
                None => Err(format!(
                    "neither alone nor in its own unit does it compile to a stage count ({})",
                    first_other.clone().unwrap_or_else(|| "the unit never instantiates it".into())
                )),
            };
            out.insert(p.at.clone(), r);
        }
    }
    Ok(out)
}

/// Every `[with Line=L, Stages=S]` that the compiler's report names (the instantiations of
/// [`UNIT_PROBE`]): line -> the stage counts, each once, in the order reported.
fn reported_stages(report: &str) -> HashMap<usize, Vec<i64>> {
    let mut seen: HashMap<usize, Vec<i64>> = HashMap::new();
    for w in report.split("cutecheck_stage_probe<Line, Stages> [with Line=").skip(1) {
        let mut it = w.splitn(2, ", Stages=");
        let (Some(l), Some(rest)) = (it.next(), it.next()) else { continue };
        let s: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
        if let (Ok(l), Ok(s)) = (l.parse::<usize>(), s.parse::<i64>()) {
            let v = seen.entry(l).or_default();
            if !v.contains(&s) {
                v.push(s);
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compilers_report_names_each_instantiations_stage_count() {
        // As nvcc 13.0 reports a failing static_assert in a class template (two instantiations of
        // a generic lambda at line 577, one at 303 reached twice).
        let report = "t.cu(1): error: static assertion failed with \"cutecheck stage probe\"\n\
            detected during instantiation of class \"cutecheck_stage_probe<Line, Stages> [with Line=303, Stages=4]\" at line 319\n\
            t.cu(1): error: static assertion failed with \"cutecheck stage probe\"\n\
            detected during instantiation of class \"cutecheck_stage_probe<Line, Stages> [with Line=577, Stages=4]\" at line 593\n\
            detected during instantiation of class \"cutecheck_stage_probe<Line, Stages> [with Line=577, Stages=3]\" at line 593\n\
            detected during instantiation of class \"cutecheck_stage_probe<Line, Stages> [with Line=303, Stages=4]\" at line 319\n";
        let got = reported_stages(report);
        assert_eq!(got.get(&303), Some(&vec![4]));
        assert_eq!(got.get(&577), Some(&vec![4, 3]));
        assert_eq!(got.len(), 2);
        assert!(reported_stages("t.cu(3): error: identifier \"X\" is undefined").is_empty());
    }

    #[test]
    fn a_use_inside_a_lambda_is_probed_after_its_own_using() {
        let text = "void f() {\n  using E = int;\n  auto k = [](auto c) {\n    using CollectiveMainloop = typename B<\n      E, StageCountAutoCarveout<8>>::CollectiveOp;\n    return 0;\n  };\n}\n";
        let toks = crate::cxx_tokens::tokenize(text);
        let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
        let tok_lines: Vec<usize> = toks.iter().map(|t| t.1).collect();
        let lines: Vec<&str> = text.lines().collect();
        let i = plain.iter().position(|t| *t == Tok::Word("B".into())).expect("the use");
        let p = probe("t.cu:4", &plain, &tok_lines, &lines, i).expect("a probe");
        assert_eq!(p.unit_alias, "CollectiveMainloop");
        assert_eq!(p.end_line, 5);
    }
}
