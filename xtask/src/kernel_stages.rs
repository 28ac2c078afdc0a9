//! The SM90 stage counts that CUTLASS's collective builder computes from the epilogue's shared
//! storage (`StageCountAutoCarveout<sizeof(typename CollectiveEpilogue::SharedStorage)>`), taken
//! from real CUTLASS rather than modelled: `cargo xtask extract-kernel-forms --probe-stages
//! --git-dir MIRROR --tag vX.Y.Z ...` writes, per release, one host-only C++ program holding each
//! carveout builder use's visible `using` declarations (as the use's file writes them, read from
//! the tag; never committed), compiles it with the provisioned nvcc (host code; CUTLASS's pipeline headers need CUDA's
//! builtins) against the release's headers
//! (`$CUTECHECK_DIR/cutlass-vX.Y.Z/include`), runs it, and records each use's `CollectiveOp::DispatchPolicy::Stages` in
//! [`FACTS`]. The extractor reads the stage counts from there (a use without one stays skipped).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::cxx_tokens::Tok;

/// The recorded stage counts: `RELEASE FILE:LINE STAGES` lines under a header naming the command.
pub const FACTS: &str = "fixtures/kernel_forms_stages.txt";

/// Each use's stage count, or why none: (`file:line`, stages).
pub type Probed = Vec<(String, std::result::Result<i64, String>)>;

/// What one carveout builder use needs to be compiled alone.
pub struct Probe {
    /// Where the use is (`file:line`, as the extractor names it).
    pub at: String,
    /// The `using` / `constexpr` declarations visible at the use, as written, in order.
    pub decls: Vec<String>,
    /// The alias the use's `CollectiveOp` is bound to (`CollectiveMainloop`).
    pub alias: String,
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
    Some(Probe { at: at.to_string(), decls, alias: alias? })
}

/// The recorded stage counts of a release: `file:line` -> stages, or why there is none.
pub fn recorded(root: &Path, release: &str) -> HashMap<String, std::result::Result<i64, String>> {
    let text = std::fs::read_to_string(root.join(FACTS)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut w = l.splitn(3, ' ');
            let (r, at, n) = (w.next()?, w.next()?, w.next()?);
            let v = match n.parse() {
                Ok(n) => Ok(n),
                Err(_) => Err(n.trim_start_matches("- ").to_string()),
            };
            (r == release).then(|| (at.to_string(), v))
        })
        .collect()
}

/// The release's CUTLASS headers: `$CUTECHECK_DIR/cutlass-vX.Y.Z/include`.
fn headers(tag: &str) -> Result<PathBuf> {
    let base = std::env::var_os("CUTECHECK_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/work/state"));
    let d = base.join(format!("cutlass-{tag}")).join("include");
    if !d.join("cutlass/version.h").is_file() {
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
pub fn run_probes(
    tag: &str,
    includes: &[String],
    probes: &[Probe],
) -> Result<Vec<(String, std::result::Result<i64, String>)>> {
    let inc = headers(tag)?;
    let nvcc = nvcc()?;
    let dir = std::env::temp_dir().join(format!("cutecheck-stages-{tag}"));
    std::fs::create_dir_all(&dir)?;
    let mut keep: Vec<usize> = (0..probes.len()).collect();
    let mut why: HashMap<usize, String> = HashMap::new();
    for _ in 0..4 {
        let (src, starts) = program(includes, probes, &keep);
        let cpp = dir.join("stages.cu");
        std::fs::write(&cpp, &src)?;
        let exe = dir.join("stages");
        let out = std::process::Command::new(&nvcc)
            .args(["-x", "cu", "-std=c++17", "-O0", "-w", "-arch=sm_90a", "-o"])
            .arg(&exe)
            .arg(&cpp)
            .arg(format!("-I{}", inc.display()))
            .arg(format!(
                "-L{}",
                nvcc.parent().and_then(Path::parent).map(|t| t.join("lib")).unwrap_or_default().display()
            ))
            .output()
            .context("running nvcc")?;
        if out.status.success() {
            let run = std::process::Command::new(&exe).output().context("running the stage probe")?;
            let text = String::from_utf8_lossy(&run.stdout).to_string();
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
                        (Some(&s), _) => Ok(s),
                        (None, Some(w)) => Err(w.clone()),
                        (None, None) => Err("the probe printed nothing".into()),
                    };
                    (p.at.clone(), r)
                })
                .collect());
        }
        // Drop each probe an error points into (`stages.cu(LINE): error: ...`).
        let err = String::from_utf8_lossy(&out.stderr).to_string();
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
         # declarations do not compile alone is listed with `-` and why. Written by\n",
    );
    let _ = writeln!(s, "# `{command}`; do not edit by hand.\n# release file:line stages");
    for (release, v) in tags {
        for (at, n) in v {
            match n {
                Ok(n) => _ = writeln!(s, "{release} {at} {n}"),
                Err(w) => _ = writeln!(s, "{release} {at} - {w}"),
            }
        }
    }
    std::fs::write(root.join(FACTS), s).with_context(|| format!("writing {FACTS}"))
}
