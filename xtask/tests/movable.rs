//! A built `xtask` copied elsewhere works on the checkout it is run in, not on the one it was
//! built from: a fresh `git clone` of this repository gets a case file the original does not
//! have, and the copied binary, run from inside the clone (or from anywhere with
//! `CUTECHECK_ROOT` naming it), lists the clone's fixtures and snapshots.

use std::path::{Path, PathBuf};
use std::process::Command;

/// This checkout (the package root is xtask/, the repository its parent).
fn source_checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repository").to_path_buf()
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git").current_dir(dir).args(args).output().expect("git (needed to clone the checkout)");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// `bless --list` of the copied binary, run in `cwd` with `env` set; (stdout, stderr).
fn list(bin: &Path, cwd: &Path, env: &[(&str, &Path)]) -> (String, String) {
    let mut c = Command::new(bin);
    c.current_dir(cwd).args(["bless", "--list"]);
    for v in ["CUTECHECK_ROOT", "CUTECHECK_DIR", "CARGO_TARGET_DIR", "CARGO_MANIFEST_DIR"] {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("running the copied xtask");
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_copied_binary_reads_the_checkout_it_runs_in() {
    let tmp = tempfile::tempdir().unwrap();
    let clone = tmp.path().join("clone");
    git(tmp.path(), &["clone", "--quiet", source_checkout().to_str().unwrap(), clone.to_str().unwrap()]);
    // The clone gets a suite the original checkout does not have (and no snapshot for it).
    let marker = "zz_only_in_the_clone";
    std::fs::write(clone.join(format!("fixtures/cases/{marker}.cases")), "size(_4:_1)\n").unwrap();
    let bin_dir = tmp.path().join("bin");
    std::fs::create_dir(&bin_dir).unwrap();
    let bin = bin_dir.join("xtask");
    std::fs::copy(env!("CARGO_BIN_EXE_xtask"), &bin).unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();

    let clone_root = clone.canonicalize().unwrap();
    let runs = [
        ("from the clone's root", list(&bin, &clone, &[])),
        ("from inside the clone", list(&bin, &clone.join("fixtures/cases"), &[])),
        ("from elsewhere with CUTECHECK_ROOT", list(&bin, &elsewhere, &[("CUTECHECK_ROOT", &clone)])),
    ];
    for (how, (stdout, stderr)) in runs {
        let root_line = stderr
            .lines()
            .find_map(|l| l.strip_prefix("xtask: checkout "))
            .unwrap_or_else(|| panic!("{how}: {stderr}"));
        assert_eq!(Path::new(root_line).canonicalize().unwrap(), clone_root, "{how}: {stderr}");
        let line = stdout
            .lines()
            .find(|l| l.contains(&format!("snapshots/{marker}.snap")))
            .unwrap_or_else(|| panic!("{how}: the clone's new suite is not listed:\n{stdout}"));
        assert!(line.ends_with("missing"), "{how}: {line}");
        // The clone's committed suites are listed as the clone holds them.
        assert!(stdout.lines().any(|l| l.contains("snapshots/layout_basics.snap")), "{how}:\n{stdout}");
    }
    // Run in the original checkout, the same binary does not see the clone's suite.
    let (stdout, _) = list(&bin, &source_checkout(), &[]);
    assert!(!stdout.contains(marker), "{stdout}");
}
