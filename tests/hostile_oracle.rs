//! Oracle faults (issue 15): each one gives a clear error or recovers, and none becomes a verdict.
//!
//! The tests that need no CuTe use a stand-in CUTLASS tree (an empty `cute/tensor.hpp`), empty
//! CUDA headers and, where the compiler's behaviour is the point, a stand-in compiler script; the
//! state directory is a temporary one, so nothing is provisioned or downloaded. The case-output
//! test needs real CuTe (`CUTECHECK_CUTE`, set by `cargo xtask test`).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cutecheck::oracle::{Oracle, OracleOptions, Outcome};

/// A CUTLASS tree whose `cute/tensor.hpp` is empty, and a CUDA include directory with an empty
/// `cuda_runtime.h`: enough for the oracle to start, never enough to answer a case.
fn broken_tree(root: &Path) -> (PathBuf, PathBuf) {
    let cutlass = root.join("cutlass");
    std::fs::create_dir_all(cutlass.join("include/cute")).unwrap();
    std::fs::write(cutlass.join("include/cute/tensor.hpp"), "").unwrap();
    std::fs::write(cutlass.join("include/cute/layout.hpp"), "").unwrap();
    let cuda = root.join("cuda");
    std::fs::create_dir_all(&cuda).unwrap();
    std::fs::write(cuda.join("cuda_runtime.h"), "").unwrap();
    (cutlass, cuda)
}

/// A stand-in compiler: answers `--version` like g++, and otherwise runs `body` (sh).
fn fake_compiler(root: &Path, body: &str) -> PathBuf {
    let p = root.join("fake-g++");
    std::fs::write(&p, format!("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'g++ (fake) 0'; exit 0; fi\n{body}\n"))
        .unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn cutecheck(state: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cutecheck"));
    c.args(args).env("CUTECHECK_DIR", state).stdin(Stdio::null());
    c
}

/// Whether process `pid` has ended (waiting up to 10 s).
fn gone(pid: i32) -> bool {
    (0..200).any(|_| {
        gone_now(pid) || {
            std::thread::sleep(Duration::from_millis(50));
            false
        }
    })
}

fn has_gxx() -> bool {
    Command::new("g++").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Killing cutecheck (SIGKILL: no handler runs) must take the compiler and what it started along.
#[test]
fn killing_cutecheck_leaves_no_compiler_running() {
    let t = tempfile::tempdir().unwrap();
    let (cutlass, cuda) = broken_tree(t.path());
    let pidfile = t.path().join("grandchild.pid");
    // Like g++ starting cc1plus: the compiler starts a child of its own and waits for it.
    let cxx = fake_compiler(t.path(), &format!("sleep 300 & echo $! > {}; wait", pidfile.display()));
    let mut child = cutecheck(
        &t.path().join("state"),
        &[
            "eval",
            "--cute",
            "--no-cache",
            "--cxx",
            cxx.to_str().unwrap(),
            "--cutlass-dir",
            cutlass.to_str().unwrap(),
            "--cuda-include",
            cuda.to_str().unwrap(),
            "_4:_1",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let start = Instant::now();
    let pid = loop {
        if let Some(p) = std::fs::read_to_string(&pidfile).ok().and_then(|s| s.trim().parse::<i32>().ok()) {
            break p;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "the stand-in compiler never started");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!gone_now(pid), "the compiler's child should be running");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert!(gone(pid), "the compiler's child {pid} outlived cutecheck");
}

/// Whether process `pid` has ended now (a zombie counts as ended).
fn gone_now(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.is_empty() || stat.split(") ").nth(1).is_some_and(|r| r.starts_with('Z'))
}

/// Every compile runs under the address-space limit (`--compile-memory`).
#[test]
fn compiles_run_under_the_memory_limit() {
    let t = tempfile::tempdir().unwrap();
    let (cutlass, cuda) = broken_tree(t.path());
    let seen = t.path().join("ulimit");
    let cxx = fake_compiler(t.path(), &format!("ulimit -v > {}; exit 1", seen.display()));
    let out = cutecheck(
        &t.path().join("state"),
        &[
            "eval",
            "--cute",
            "--no-cache",
            "--compile-memory",
            "1234",
            "--cxx",
            cxx.to_str().unwrap(),
            "--cutlass-dir",
            cutlass.to_str().unwrap(),
            "--cuda-include",
            cuda.to_str().unwrap(),
            "_4:_1",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&seen).unwrap().trim(), (1234 * 1024).to_string());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("error: "), "a failed toolchain is an oracle error: {text}");
}

/// A broken `--cutlass-dir` (empty `cute/tensor.hpp`) used to make every case "both refuse";
/// now the sanity case stops the session with a clear error and no case is judged.
#[test]
fn a_broken_cutlass_dir_stops_the_run() {
    if !has_gxx() {
        eprintln!("skipped: needs g++ (the sanity case is compiled for real)");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let (cutlass, cuda) = broken_tree(t.path());
    let out = cutecheck(
        &t.path().join("state"),
        &["eval", "--both", "--cutlass-dir", cutlass.to_str().unwrap(), "--cuda-include", cuda.to_str().unwrap(), "-"],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .spawn()
    .and_then(|mut c| {
        use std::io::Write;
        // A case both sides would refuse, which the broken tree used to turn into agreement.
        c.stdin.take().unwrap().write_all(b"complement((_2,_2):(_1,_1))\nmake_layout((_4,_8))\n")?;
        c.wait_with_output()
    })
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // The driver includes <cuda.h> (it records the cuTensorMapEncodeTiled arguments CuTe passes),
    // so a tree whose CUDA headers are stand-ins stops at the driver's build, before the sanity
    // case; either way the run says why and judges nothing.
    let stopped = |s: &str| s.contains("sanity case") || s.contains("compiling the oracle driver failed");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(stopped(&text), "{text}");
    assert!(!text.contains("agree"), "no verdict may come from a broken CuTe: {text}");
    // Through the library: every case is an oracle error, nothing is cached.
    let opts = OracleOptions {
        cutlass_dir: Some(cutlass.clone()),
        cuda_include: vec![cuda.clone()],
        work_dir: Some(t.path().join("work")),
        ..OracleOptions::default()
    };
    let o = Oracle::new(opts).unwrap();
    let e = o.check().unwrap_err();
    assert!(stopped(&e), "{e}");
    let r = o.run(&["make_layout((_4,_8))".to_string()]);
    assert!(matches!(&r[0], Outcome::Error(m) if stopped(m)), "{r:?}");
    assert!(!t.path().join("work/results").exists(), "an oracle error is never cached");
}

/// Template arguments of an atom name off the allow-list never reach the generated C++, even on
/// an atom refused by a CuTe rule (whose C++ is otherwise written to record CuTe's verdict).
#[test]
fn gmma_template_arguments_are_allow_listed_before_codegen() {
    use cutecheck::oracle::codegen::case_body;
    let ok = cutecheck::expr::parse("mma_shape(SM90_64x72x16_F16F16F16_SS<GMMA::Major::K,GMMA::Major::K>)").unwrap();
    assert!(case_body(&ok).is_ok(), "a CuTe-rule refusal is still written, to record CuTe's verdict");
    for bad in [
        "mma_shape(SM90_64x72x16_F16F16F16_SS<x,y>)",
        "mma_layout_a(SM90_64x72x16_F16F16F16_SS<system,exit>)",
        "mma_atom(SM90_64x64x16_F16F16F16_SS<std::Major::K,GMMA::Major::K>)",
        "mma_shape(SM90_64x64x8_F32TF32TF32_SS_TN<GMMA::ScaleIn::One,evil::ScaleIn::Neg>)",
    ] {
        let e = cutecheck::expr::parse(bad).unwrap();
        assert!(case_body(&e).is_err(), "{bad} was written as C++");
    }
}

/// CuTe printing without bound (print_layout of a 2048x2048 layout prints about 80 MB) is stopped
/// at the per-case cap and reported as an oracle error; the batch's other cases are answered.
#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn cute_output_is_capped_per_case() {
    let t = tempfile::tempdir().unwrap();
    let opts = OracleOptions {
        cache: false,
        case_output: 1 << 20,
        work_dir: Some(t.path().join("work")),
        ..OracleOptions::default()
    };
    let o = Oracle::new(opts).unwrap();
    let cases: Vec<String> =
        ["make_layout((_4,_8))", "print_layout((_2048,_2048):(_1,_2048))", "coalesce((_2,(_1,_6)):(_1,(_6,_2)))"]
            .map(String::from)
            .to_vec();
    let start = Instant::now();
    let r = o.run(&cases);
    assert_eq!(r[0], Outcome::Printed("(_4,_8):(_1,_4)".into()));
    assert!(matches!(&r[1], Outcome::Error(m) if m.contains("printed more than")), "{:?}", r[1].lines().first());
    assert_eq!(r[2], Outcome::Printed("_12:_1".into()));
    assert!(start.elapsed() < Duration::from_secs(600));
}
