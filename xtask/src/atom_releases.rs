//! `cargo xtask atom-releases [--check] [--cutlass-git REPO | --cutlass-dir DIR...]`: which modelled
//! CUTLASS release first declares each atom the engine knows. For every modelled release it reads
//! the include/ of the tag `vMAJOR.MINOR.PATCH` of the CUTLASS git repository `--cutlass-git` (a
//! bare clone will do; `git archive` into a temporary directory), or else provisions the wheel (or
//! reads the `--cutlass-dir` whose version.h names a release no wheel ships), reads the identifiers
//! declared as `struct NAME` in `cute/arch/*.hpp` that `cute/atom/*.hpp` (the traits) also name,
//! both among the headers `cute/tensor.hpp` includes,
//! and writes harness/engine/atom/since.rs: the
//! atoms that are not in the oldest modelled release, each with the first release that has it
//! (facts read from the headers; no CuTe code is copied). `--check` fails when the file is stale.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{bail, Context, Result};
use cutecheck::engine::atom::{
    copy::copy_atom_cases, mma::mma_atom_names, name::AtomName, sm120::sm120_atom_names, tmem::tmem_copy_ops,
    tmem::utccp_ops, umma::umma_atom_names,
};
use cutecheck::engine::release::{registry_source, Release, MODELLED};
use cutecheck::oracle::provision::{resolve_cutlass_dir, Provisioner};

const OUT: &str = "harness/engine/atom/since.rs";

/// The headers under `include/` that `cute/tensor.hpp` includes, directly or through others (what
/// a CuTe user's translation unit sees; `#include <cute/...>`, `<cutlass/...>` and quoted
/// includes relative to the including file; conditional ones included, as the extended GMMA
/// shapes' are, since their names are refused apart).
fn reachable(include: &std::path::Path) -> Result<BTreeSet<std::path::PathBuf>> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![include.join("cute/tensor.hpp")];
    while let Some(p) = todo.pop() {
        if !seen.insert(p.clone()) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&p) else { continue };
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix("#include") else { continue };
            let rest = rest.trim();
            let target = if let Some(r) = rest.strip_prefix('<') {
                r.split('>').next().map(|t| include.join(t))
            } else if let Some(r) = rest.strip_prefix('"') {
                r.split('"').next().and_then(|t| p.parent().map(|d| d.join(t)))
            } else {
                None
            };
            if let Some(t) = target.filter(|t| t.exists()) {
                todo.push(t);
            }
        }
    }
    Ok(seen)
}

/// The words of the reachable .hpp files under `dir`, and the identifiers declared there as
/// `struct NAME`.
fn words_of(
    dir: &std::path::Path,
    reach: &BTreeSet<std::path::PathBuf>,
) -> Result<(BTreeSet<String>, BTreeSet<String>)> {
    let (mut words, mut structs) = (BTreeSet::new(), BTreeSet::new());
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let p = e?.path();
        if p.extension().is_some_and(|x| x == "hpp") && reach.contains(&p) {
            let text = std::fs::read_to_string(&p)?;
            let mut it = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty());
            while let Some(w) = it.next() {
                if w == "struct" {
                    if let Some(n) = it.next() {
                        structs.insert(n.to_string());
                        words.insert(n.to_string());
                    }
                } else {
                    words.insert(w.to_string());
                }
            }
        }
    }
    Ok((words, structs))
}

/// The atoms a release can use: declared as `struct NAME` in cute/arch/ and named in cute/atom/
/// (where its MMA_Traits / Copy_Traits are; an operation without traits is refused by CuTe too:
/// "MMA_Traits not implemented for this MMA_Operation"), in headers `cute/tensor.hpp` reaches
/// (the SM90 sparse GMMA traits exist from 3.6 but are included only from 3.8, by
/// mma_traits_sm100.hpp).
fn declared(include: &std::path::Path) -> Result<BTreeSet<String>> {
    let reach = reachable(include)?;
    let (_, arch) = words_of(&include.join("cute").join("arch"), &reach)?;
    let (atom, _) = words_of(&include.join("cute").join("atom"), &reach)?;
    Ok(arch.intersection(&atom).cloned().collect())
}

/// The base names (no template arguments) of every MMA and copy atom the engine knows.
fn engine_atoms() -> BTreeSet<String> {
    // The struct's own name (SM120::BLOCKSCALED::X is declared as `struct X`).
    let base = |n: &str| {
        let b = AtomName::parse(n).map(|a| a.base).unwrap_or_else(|_| n.to_string());
        b.rsplit("::").next().unwrap_or(&b).to_string()
    };
    mma_atom_names()
        .iter()
        .chain(&umma_atom_names())
        .chain(&sm120_atom_names())
        .chain(&tmem_copy_ops())
        .chain(&utccp_ops())
        .map(|n| base(n))
        .chain(copy_atom_cases().iter().map(|(op, _)| base(op)))
        .chain(cutecheck::engine::atom::copy::sm100_copy_cases().iter().map(|(op, _)| base(op)))
        .chain(cutecheck::engine::tma::TmaOp::ALL.iter().map(|op| op.name().to_string()))
        .collect()
}

fn render(since: &BTreeMap<String, Release>) -> String {
    let mut s = String::from(
        "//! The first modelled CUTLASS release that declares each atom newer than the oldest modelled\n//! release (read from each release's cute/arch headers by `cargo xtask atom-releases`; do not\n//! edit by hand). An atom not listed is in every modelled release.\n\nuse crate::release::Release;\n\n/// (atom base name, first release that declares it), sorted by name.\npub const SINCE: &[(&str, Release)] = &[\n",
    );
    for (n, r) in since {
        let [a, b, c, d] = r.0;
        s.push_str(&format!("    (\"{n}\", Release::new({a}, {b}, {c}, {d})),\n"));
    }
    s.push_str("];\n");
    s
}

/// The include directory of release `r`: with `--cutlass-git`, the tag `vMAJOR.MINOR.PATCH`'s
/// include/ written into `tmp` by `git archive`; else its wheel when a registry ships it, else the
/// `--cutlass-dir` whose version.h names it.
fn include_of(
    prov: &Provisioner,
    r: Release,
    dirs: &[std::path::PathBuf],
    git: Option<&std::path::Path>,
    tmp: &std::path::Path,
) -> Result<std::path::PathBuf> {
    if let Some(git) = git {
        let [a, b, c, _] = r.0;
        let tag = format!("v{a}.{b}.{c}");
        let dest = tmp.join(&tag);
        std::fs::create_dir_all(&dest)?;
        let archive = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(git)
            .args(["archive", "--format=tar", &tag, "include"])
            .output()
            .context("running git archive")?;
        if !archive.status.success() {
            bail!("git archive {tag}: {}", String::from_utf8_lossy(&archive.stderr).trim());
        }
        let mut tar = std::process::Command::new("tar")
            .arg("-x")
            .arg("-C")
            .arg(&dest)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .context("running tar")?;
        std::io::Write::write_all(tar.stdin.as_mut().context("tar's stdin")?, &archive.stdout)?;
        drop(tar.stdin.take());
        if !tar.wait()?.success() {
            bail!("tar -x of {tag}'s include/ failed");
        }
        return Ok(dest.join("include"));
    }
    if registry_source(r).is_some() {
        return Ok(prov.cutlass(&r.to_string())?.include_dir);
    }
    for d in dirs {
        let include = resolve_cutlass_dir(d)?;
        let vh = std::fs::read_to_string(include.join("cutlass/version.h")).unwrap_or_default();
        if Release::from_version_h(&vh) == Some(r) {
            return Ok(include);
        }
    }
    bail!("CUTLASS {r}: no wheel ships it; give a checkout of that tag with --cutlass-dir DIR, or the repository with --cutlass-git")
}

/// Atoms a release's PyPI wheel lacks although the release's tag declares them (the wheel was
/// built from an earlier commit), with the first modelled release whose published headers declare
/// them. The `nvidia-cutlass` 3.3.0.0 wheel predates commit e9e30c230 ("Updates and Bug fixes to
/// CUTLASS 3.3", in tag v3.3.0), which declares `AutoVectorizingCopyWithAssumedAlignment`: its CuTe
/// answers "'AutoVectorizingCopyWithAssumedAlignment' was not declared in this scope"
/// (snapshots/versions/3.3.0.0/atoms_copy.snap). The `flashinfer-python` 0.6.11 wheel (4.5.0.0)
/// lacks the `SM100_TMEM_LOAD_STAT_*` loads that tag v4.5.0 declares: its CuTe answers "was not
/// declared in this scope" (snapshots/versions/4.5.0.0/atoms_sm100_more.snap); tag v4.5.1 has them.
const WHEEL_LACKS: &[(&str, Release)] = &[
    ("AutoVectorizingCopyWithAssumedAlignment", Release::new(3, 4, 0, 0)),
    ("SM100_TMEM_LOAD_STAT_32dp32b32x", Release::new(4, 5, 1, 0)),
    ("SM100_TMEM_LOAD_STAT_32dp32b128x", Release::new(4, 5, 1, 0)),
];

pub fn run(check: bool, dirs: &[std::path::PathBuf], git: Option<&std::path::Path>) -> Result<bool> {
    let prov = Provisioner::new()?;
    let tmp = tempfile::tempdir()?;
    let atoms = engine_atoms();
    let mut first: BTreeMap<String, Release> = BTreeMap::new();
    let mut missing: BTreeSet<String> = atoms.clone();
    for &r in MODELLED {
        let names = declared(&include_of(&prov, r, dirs, git, tmp.path())?)?;
        for a in &atoms {
            if names.contains(a) && missing.remove(a) && r != MODELLED[0] {
                first.insert(a.clone(), r);
            }
        }
    }
    // A release's wheel that lacks what its tag declares: the wheel's headers are what that
    // release's users (and its recorded snapshots) have.
    for (a, r) in WHEEL_LACKS {
        if atoms.contains(*a) && first.get(*a).is_none_or(|f| f < r) {
            first.insert(a.to_string(), *r);
        }
    }
    // Atoms no header declares as a struct (UniversalCopy's aliases, templates declared otherwise)
    // are taken as present in every release.
    for a in &missing {
        eprintln!("xtask: {a}: not declared as a struct in any modelled release's cute/arch (taken as always present)");
    }
    let text = render(&first);
    let path = cutecheck::oracle::repo_root().join(OUT);
    if check {
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        if old != text {
            bail!("{OUT} is stale: run `cargo xtask atom-releases`");
        }
        println!("ok       {OUT} ({} atoms newer than {})", first.len(), MODELLED[0]);
    } else {
        std::fs::write(&path, text)?;
        println!("wrote    {OUT} ({} atoms newer than {})", first.len(), MODELLED[0]);
    }
    Ok(true)
}
