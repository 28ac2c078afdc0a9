//! `cargo xtask atom-releases [--check] [--cutlass-git REPO | --cutlass-dir DIR...]`: which modelled
//! CUTLASS release first declares each atom the engine knows. For every modelled release it reads
//! the headers of the tag `vMAJOR.MINOR.PATCH` in the CUTLASS git repository `--cutlass-git` (a
//! bare clone will do), or else provisions the wheel (or reads the `--cutlass-dir` whose version.h
//! names a release no wheel ships), reads the identifiers
//! declared as `struct NAME` in `cute/arch/*.hpp` that `cute/atom/*.hpp` (the traits) also name,
//! and writes harness/engine/atom/since.rs: the
//! atoms that are not in the oldest modelled release, each with the first release that has it
//! (facts read from the headers; no CuTe code is copied). `--check` fails when the file is stale.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{bail, Context, Result};
use cutecheck::engine::atom::{
    copy::copy_atom_cases, mma::mma_atom_names, name::AtomName, sm120::sm120_atom_names, tmem::tmem_copy_ops,
    umma::umma_atom_names,
};
use cutecheck::engine::release::{registry_source, Release, MODELLED};
use cutecheck::oracle::provision::{resolve_cutlass_dir, Provisioner};

const OUT: &str = "harness/engine/atom/since.rs";

/// Where a release's headers are read: an include directory (a wheel's or a checkout's), or a tag
/// of a CUTLASS git repository (`git show TAG:include/...`).
enum Headers {
    Dir(std::path::PathBuf),
    Tag { git: std::path::PathBuf, tag: String },
}

impl Headers {
    /// The text of every .hpp file directly in `include/<sub>`.
    fn hpp_texts(&self, sub: &str) -> Result<Vec<String>> {
        match self {
            Headers::Dir(include) => {
                let dir = include.join(sub);
                let mut out = Vec::new();
                for e in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
                    let p = e?.path();
                    if p.extension().is_some_and(|x| x == "hpp") {
                        out.push(std::fs::read_to_string(&p)?);
                    }
                }
                Ok(out)
            }
            Headers::Tag { git, tag } => {
                let run = |args: &[&str]| -> Result<String> {
                    let o = std::process::Command::new("git")
                        .arg("--git-dir")
                        .arg(git)
                        .args(args)
                        .output()
                        .context("running git")?;
                    if !o.status.success() {
                        bail!("git {}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr).trim());
                    }
                    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
                };
                let list = run(&["ls-tree", "--name-only", tag, &format!("include/{sub}/")])?;
                list.lines().filter(|p| p.ends_with(".hpp")).map(|p| run(&["show", &format!("{tag}:{p}")])).collect()
            }
        }
    }
}

/// The words of every .hpp file in `include/<sub>`, and the identifiers declared there as
/// `struct NAME`.
fn words_of(h: &Headers, sub: &str) -> Result<(BTreeSet<String>, BTreeSet<String>)> {
    let (mut words, mut structs) = (BTreeSet::new(), BTreeSet::new());
    for text in h.hpp_texts(sub)? {
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
    Ok((words, structs))
}

/// The atoms a release can use: declared as `struct NAME` in cute/arch/ and named in cute/atom/
/// (where its MMA_Traits / Copy_Traits are; an operation without traits is refused by CuTe too:
/// "MMA_Traits not implemented for this MMA_Operation").
fn declared(h: &Headers) -> Result<BTreeSet<String>> {
    let (_, arch) = words_of(h, "cute/arch")?;
    let (atom, _) = words_of(h, "cute/atom")?;
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
        .map(|n| base(n))
        .chain(copy_atom_cases().iter().map(|(op, _)| base(op)))
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

/// Where release `r`'s headers are read: with `--cutlass-git`, the repository's tag
/// `vMAJOR.MINOR.PATCH`; else its wheel when a registry ships it, else the `--cutlass-dir` whose
/// version.h names it.
fn headers_of(
    prov: &Provisioner,
    r: Release,
    dirs: &[std::path::PathBuf],
    git: Option<&std::path::Path>,
) -> Result<Headers> {
    if let Some(git) = git {
        let [a, b, c, _] = r.0;
        return Ok(Headers::Tag { git: git.to_path_buf(), tag: format!("v{a}.{b}.{c}") });
    }
    if registry_source(r).is_some() {
        return Ok(Headers::Dir(prov.cutlass(&r.to_string())?.include_dir));
    }
    for d in dirs {
        let include = resolve_cutlass_dir(d)?;
        let vh = std::fs::read_to_string(include.join("cutlass/version.h")).unwrap_or_default();
        if Release::from_version_h(&vh) == Some(r) {
            return Ok(Headers::Dir(include));
        }
    }
    bail!("CUTLASS {r}: no wheel ships it; give a checkout of that tag with --cutlass-dir DIR, or the repository with --cutlass-git")
}

pub fn run(check: bool, dirs: &[std::path::PathBuf], git: Option<&std::path::Path>) -> Result<bool> {
    let prov = Provisioner::new()?;
    let atoms = engine_atoms();
    let mut first: BTreeMap<String, Release> = BTreeMap::new();
    let mut missing: BTreeSet<String> = atoms.clone();
    for &r in MODELLED {
        let names = declared(&headers_of(&prov, r, dirs, git)?)?;
        for a in &atoms {
            if names.contains(a) && missing.remove(a) && r != MODELLED[0] {
                first.insert(a.clone(), r);
            }
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
