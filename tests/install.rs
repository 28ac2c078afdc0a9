//! `cargo install --path .` (what `cargo install --git URL cutecheck` does with a clone) gives a
//! `cutecheck` binary that works outside the repository: installed into a temporary root, it
//! evaluates README's first example from another directory. The install builds in the dev profile
//! (`--debug`) into this checkout's target directory, so it reuses what `cargo test` built. It runs
//! under `cargo xtask test` (`CUTECHECK_CUTE` set at build time); elsewhere it is reported as
//! ignored, with the reason (`--ignored` runs it anyway).

use std::process::Command;

use cutecheck::oracle::repo_root;

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "installs a second cutecheck (minutes of build): run by `cargo xtask test`, or this test with --ignored"
)]
fn cargo_install_gives_a_working_cutecheck() {
    let root = tempfile::tempdir().unwrap();
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo_root().join("target"), Into::into);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["install", "--locked", "--debug", "--quiet", "--path"])
        .arg(repo_root())
        .arg("--root")
        .arg(root.path())
        .arg("--target-dir")
        .arg(&target)
        .output()
        .expect("cargo install runs");
    assert!(out.status.success(), "cargo install failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let bin = root.path().join("bin").join("cutecheck");
    assert!(bin.is_file(), "no {}", bin.display());
    // Run from elsewhere: nothing of the checkout's working directory is needed.
    let elsewhere = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| Command::new(&bin).args(args).current_dir(elsewhere.path()).output().unwrap();
    let o = run(&["eval", "logical_divide(_24:_1,_4:_2)"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "(_4,(_2,_3)):(_2,(_1,_8))\n");
    let o = run(&["eval", "coalesse(_4:_1)"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("did you mean"), "{}", String::from_utf8_lossy(&o.stdout));
}
