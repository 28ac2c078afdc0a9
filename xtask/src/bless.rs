//! `cargo xtask bless`: the one command that writes recorded CuTe output.
//!
//! Every expectation about CuTe in this repository is a snapshot of a case file: the cases are in
//! `fixtures/cases/<suite>.cases`, what real CuTe printed for them in `snapshots/<suite>.snap`
//! (the default CUTLASS, 4.2) and `snapshots/versions/<V>/<suite>.snap` (older releases). This
//! command is the only writer of those files, and it writes only what real CuTe printed: it
//! compiles every case against the CUTLASS wheel of that version through the oracle and records
//! the outcome (printed text, `rejected: <static_assert>`, `crashed: <signal>`, `unsupported:
//! <why>`), each independent of the cases batched with it (`cutecheck::suite::record`). A case
//! the oracle itself failed on (`error: ...`) is never written.
//!
//! - `cargo xtask bless`: record the default version's snapshots.
//! - `cargo xtask bless --cutlass-version V`: record `snapshots/versions/V/`.
//! - `cargo xtask bless --cutlass-dir DIR`: record `snapshots/versions/V/` for the release V that
//!   DIR's `include/cutlass/version.h` names (a CUTLASS checkout or `git archive` of a tag, for the
//!   releases no wheel ships: 4.7.0), and write `snapshots/versions/V/SOURCE` naming it and the
//!   sha256 of its cute/ tree. `--as-release V` records it as release V instead (a tag whose
//!   version.h names another release: v4.1.0's says 4.0.0; v3.3.0 has none).
//! - `cargo xtask bless --all-versions`: the default version and every `snapshots/versions/<V>/`
//!   whose release a PyPI wheel ships (`engine::release::registry_source`); the others are named
//!   and skipped (check them with `--cutlass-dir`).
//! - `--check` (with any of the above): write nothing; re-run real CuTe and fail on any recorded
//!   result it no longer prints, naming each case `file:line`, and on snapshot files without a
//!   case file.
//! - `--list`: the recorded files and whether each covers its case file (no CuTe needed).
//! - `--suite NAME` (repeatable): only these case files.
//! - `--new-only`: ask real CuTe only for the cases the recorded file does not hold (by expression
//!   text) and keep the recorded lines of the others, as a results-cache hit would give them back:
//!   for a case file that gained cases (a re-extraction) while the oracle's C++ for the old cases is
//!   unchanged (after a parser or codegen change, re-bless in full; `--check` re-runs every case).
//!
//! A case file with a `# recorded-for: V ...` line is recorded for those versions only (the probe
//! suites: CUTLASS 4.2, the release the engine models by default).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use cutecheck::engine::release::{self, Release};
use cutecheck::oracle::{provision, repo_root, Oracle, OracleArgs};
use cutecheck::suite::{self, Suite};

#[derive(Debug, clap::Args)]
pub struct BlessArgs {
    /// Write nothing: fail if real CuTe now prints something else than a recorded file holds.
    #[arg(long)]
    pub check: bool,
    /// Every recorded CUTLASS version: the default (snapshots/) and each snapshots/versions/<V>/.
    #[arg(long, conflicts_with_all = ["cutlass_version", "cutlass_dir"])]
    pub all_versions: bool,
    /// List the recorded files and whether each covers its case file (no CuTe needed), then exit.
    #[arg(long)]
    pub list: bool,
    /// Only these suites (case file names without .cases); repeatable. Default: every suite.
    #[arg(long, value_name = "NAME")]
    pub suite: Vec<String>,
    /// With --cutlass-dir: record the checkout as this release rather than the one its version.h
    /// names (tag v4.1.0's version.h says 4.0.0).
    #[arg(long, value_name = "V", requires = "cutlass_dir")]
    pub as_release: Option<String>,
    /// Ask real CuTe only for the cases the recorded file does not hold (by expression text); keep
    /// the recorded lines of the others (not with --check).
    #[arg(long, conflicts_with = "check")]
    pub new_only: bool,
    #[command(flatten)]
    pub args: OracleArgs,
}

/// Which recorded files one run covers: `None` is the default version (snapshots/), `Some(V)`
/// snapshots/versions/V/. With `--cutlass-dir`, the release its version.h names.
fn versions(a: &BlessArgs) -> Result<Vec<Option<String>>> {
    if a.all_versions {
        return Ok(std::iter::once(None).chain(suite::recorded_versions().into_iter().map(Some)).collect());
    }
    let v = match (&a.args.cutlass_dir, &a.as_release) {
        (Some(_), Some(r)) => Some(r.parse::<Release>().map_err(anyhow::Error::msg)?.to_string()),
        (Some(d), None) => Some(dir_release(d)?.to_string()),
        (None, _) => a.args.cutlass_version.clone(),
    };
    Ok(vec![v.filter(|v| v != provision::DEFAULT_CUTLASS)])
}

/// The release a `--cutlass-dir` holds, from its include/cutlass/version.h.
pub fn dir_release(d: &Path) -> Result<Release> {
    let include = provision::resolve_cutlass_dir(d)?;
    let vh = include.join("cutlass").join("version.h");
    let text = std::fs::read_to_string(&vh).with_context(|| format!("--cutlass-dir: reading {}", vh.display()))?;
    Release::from_version_h(&text).with_context(|| format!("{}: no CUTLASS_MAJOR/MINOR/PATCH", vh.display()))
}

/// Whether a recorded version can be provisioned without a checkout (a PyPI wheel ships it).
fn has_registry_source(v: &Option<String>) -> bool {
    v.as_deref().is_none_or(|v| v.parse::<Release>().map_or(true, |r| release::registry_source(r).is_some()))
}

/// `snapshots/versions/V/SOURCE`: where the snapshots of a release recorded from a checkout came
/// from (the version.h release and the sha256 of the cute/ tree, as `--cutlass-dir` hashes it).
fn write_source(d: &Path, version: &str) -> Result<()> {
    let include = provision::resolve_cutlass_dir(d)?;
    let cute = provision::hash_tree(&include.join("cute"))?;
    let named = dir_release(d).map(|r| r.to_string()).unwrap_or_else(|_| "no release".to_string());
    let (how, whence, again) = if named == version {
        ("--cutlass-dir DIR", "include/cutlass/version.h".to_string(), String::new())
    } else {
        (
            "--cutlass-dir DIR --as-release V",
            format!("--as-release; its include/cutlass/version.h names {named}"),
            format!(" --as-release {version}"),
        )
    };
    let text = format!(
        "Recorded by `cargo xtask bless {how}` from a CUTLASS checkout, not a wheel:\n\
         release {version} ({whence})\n\
         include/cute sha256 {cute} (provision::hash_tree)\n\
         Re-check with: cargo xtask bless --check --cutlass-dir <a checkout of that tag>{again}\n"
    );
    let path = suite::snapshot_path("x", Some(version)).with_file_name("SOURCE");
    std::fs::create_dir_all(path.parent().context("snapshot dir")?)?;
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote    {}", rel(&path));
    }
    Ok(())
}

fn label(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or(provision::DEFAULT_CUTLASS)
}

/// Relative to the checkout, for messages.
fn rel(p: &Path) -> String {
    p.strip_prefix(repo_root()).unwrap_or(p).display().to_string()
}

pub fn run(a: &BlessArgs) -> Result<bool> {
    let mut suites = suite::all_suites()?;
    if !a.suite.is_empty() {
        for n in &a.suite {
            if !suites.iter().any(|s| &s.name == n) {
                bail!("no suite fixtures/cases/{n}.cases");
            }
        }
        suites.retain(|s| a.suite.contains(&s.name));
    }
    eprintln!("xtask: checkout {}", repo_root().display());
    if a.list {
        return Ok(list(&suites, &versions(a)?, a.suite.is_empty()));
    }
    let mut ok = true;
    for v in versions(a)? {
        if a.args.cutlass_dir.is_none() && !has_registry_source(&v) {
            println!(
                "skipped  snapshots/versions/{} (no PyPI wheel ships CUTLASS {}: check it with --cutlass-dir)",
                label(&v),
                label(&v)
            );
            continue;
        }
        let mut opts = a.args.options();
        opts.verbose = true;
        if a.args.cutlass_dir.is_none() {
            opts.cutlass_version = Some(label(&v).to_string());
        }
        // One case per translation unit (suite::record).
        let alone = suite::alone_oracle(&opts)?;
        let oracle = Oracle::new(opts)?;
        eprintln!("xtask: oracle is {}", oracle.describe());
        let started = std::time::Instant::now();
        ok &= bless_version(&oracle, &alone, &suites, v.as_deref(), a.check, a.suite.is_empty(), a.new_only)?;
        if let (Some(d), Some(v), false) = (&a.args.cutlass_dir, &v, a.check) {
            write_source(d, v)?;
        }
        eprintln!("xtask: CUTLASS {} done in {:.1?}", label(&v), started.elapsed());
    }
    Ok(ok)
}

fn bless_version(
    oracle: &Oracle,
    alone: &Oracle,
    suites: &[Suite],
    version: Option<&str>,
    check: bool,
    every_suite: bool,
    new_only: bool,
) -> Result<bool> {
    // A suite whose case file says `# recorded-for: ...` without this version is not recorded here.
    let suites: Vec<Suite> = suites.iter().filter(|s| s.is_recorded_for(version)).cloned().collect();
    let suites = &suites[..];
    let results =
        if new_only { record_new_only(oracle, alone, suites, version) } else { suite::record(oracle, alone, suites) };
    let mut ok = true;
    for (s, r) in suites.iter().zip(&results) {
        if let Some((k, _)) = r.iter().enumerate().find(|(_, l)| l.first().is_some_and(|x| x.starts_with("error: "))) {
            eprintln!(
                "{}: the oracle failed (nothing written for this suite): {}",
                s.locate(&s.cases[k]),
                r[k].join(" ")
            );
            ok = false;
            continue;
        }
        let body = s.snapshot_body(r);
        let path = suite::snapshot_path(&s.name, version);
        let old = std::fs::read_to_string(&path).ok();
        if check {
            match old.as_deref().and_then(suite::snapshot_body_of) {
                Some(b) if b == body => println!("ok       {}", rel(&path)),
                Some(b) => {
                    ok = false;
                    println!("CHANGED  {}", rel(&path));
                    report_changes(s, b, r);
                }
                None => {
                    ok = false;
                    println!(
                        "MISSING  {} (run `cargo xtask bless{}`)",
                        rel(&path),
                        version.map_or(String::new(), |v| format!(" --cutlass-version {v}"))
                    );
                }
            }
        } else {
            let text = suite::snapshot_file(&s.name, &body);
            if old.as_deref() == Some(text.as_str()) {
                println!("same     {}", rel(&path));
            } else {
                std::fs::create_dir_all(path.parent().context("snapshot dir")?)?;
                std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
                println!("wrote    {}", rel(&path));
            }
        }
    }
    if every_suite {
        for orphan in orphans(suites, version) {
            if check {
                ok = false;
                println!("ORPHAN   {} (no fixtures/cases file; `cargo xtask bless` removes it)", rel(&orphan));
            } else {
                std::fs::remove_file(&orphan).with_context(|| format!("removing {}", orphan.display()))?;
                println!("removed  {} (its case file is gone)", rel(&orphan));
            }
        }
    }
    Ok(ok)
}

/// `--new-only`: the recorded lines of each case whose expression the recorded file already holds,
/// real CuTe's (`suite::record`) for the others.
fn record_new_only(oracle: &Oracle, alone: &Oracle, suites: &[Suite], version: Option<&str>) -> Vec<Vec<Vec<String>>> {
    let mut fresh: Vec<Suite> = Vec::new();
    let mut kept: Vec<Vec<Option<Vec<String>>>> = Vec::new();
    for s in suites {
        let old = std::fs::read_to_string(suite::snapshot_path(&s.name, version)).ok();
        let recorded: std::collections::HashMap<String, Vec<String>> = old
            .as_deref()
            .and_then(suite::snapshot_body_of)
            .map(suite::parse_snapshot_body)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let k: Vec<Option<Vec<String>>> = s.cases.iter().map(|c| recorded.get(&c.expr.to_string()).cloned()).collect();
        let mut sub = s.clone();
        sub.cases = s.cases.iter().zip(&k).filter(|(_, r)| r.is_none()).map(|(c, _)| c.clone()).collect();
        eprintln!(
            "xtask: {}: {} cases recorded already, {} asked of real CuTe (--new-only)",
            s.name,
            s.cases.len() - sub.cases.len(),
            sub.cases.len()
        );
        fresh.push(sub);
        kept.push(k);
    }
    let asked = suite::record(oracle, alone, &fresh);
    kept.into_iter()
        .zip(asked)
        .map(|(k, a)| {
            let mut a = a.into_iter();
            k.into_iter().map(|r| r.unwrap_or_else(|| a.next().unwrap_or_default())).collect()
        })
        .collect()
}

/// Snapshot files of one version whose case file no longer exists.
fn orphans(suites: &[Suite], version: Option<&str>) -> Vec<PathBuf> {
    let dir = suite::snapshot_path("x", version).parent().map(Path::to_path_buf).unwrap_or_default();
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "snap"))
        .filter(|p| {
            !suites.iter().any(|s| s.is_recorded_for(version) && p.file_stem().is_some_and(|n| n == s.name.as_str()))
        })
        .collect();
    v.sort();
    v
}

/// Each recorded case that CuTe now prints differently, as `file:line`.
fn report_changes(s: &Suite, old_body: &str, new: &[Vec<String>]) {
    let old = suite::parse_snapshot_body(old_body);
    for (k, c) in s.cases.iter().enumerate() {
        let was = old.get(k).filter(|(e, _)| *e == c.expr).map(|(_, l)| l.clone());
        if was.as_ref() != Some(&new[k]) {
            println!("  {}: {}", s.locate(c), c.expr);
            println!("    recorded: {}", was.map_or("(no entry)".to_string(), |l| l.join(" | ")));
            println!("    CuTe now: {}", new[k].join(" | "));
        }
    }
}

/// `--list`: per version and suite, whether the recorded file covers the case file.
fn list(suites: &[Suite], versions: &[Option<String>], every_suite: bool) -> bool {
    let mut ok = true;
    for v in versions {
        for s in suites.iter().filter(|s| s.is_recorded_for(v.as_deref())) {
            let path = suite::snapshot_path(&s.name, v.as_deref());
            let recorded = std::fs::read_to_string(&path).ok();
            let state = match recorded.as_deref().and_then(suite::snapshot_body_of).map(suite::parse_snapshot_body) {
                None => "missing".to_string(),
                Some(r) => {
                    let covered = s
                        .cases
                        .iter()
                        .enumerate()
                        .filter(|(k, c)| r.get(*k).is_some_and(|(e, _)| *e == c.expr))
                        .count();
                    if covered == s.cases.len() && r.len() == s.cases.len() {
                        "complete".to_string()
                    } else {
                        format!("stale ({covered} of {} cases recorded)", s.cases.len())
                    }
                }
            };
            ok &= state == "complete";
            println!("{:<9} {:<44} {:>5} cases  {state}", label(v), rel(&path), s.cases.len());
        }
        for o in orphans(suites, v.as_deref()).into_iter().filter(|_| every_suite) {
            ok = false;
            println!("{:<9} {:<44}        orphan (no case file)", label(v), rel(&o));
        }
    }
    ok
}
