//! Shell manners: `cutecheck` writing into a pipe whose reader has gone (`| head -1`) stops
//! quietly with status 0 (no panic, no message), and any other write error (a full disk) fails
//! with one `error:` line instead of passing a truncated answer for a whole one. SIGINT stops a
//! run and says what was done (status 130), and two runs sharing one cache both finish right.
//!
//! Each command runs with stdout a pipe: either closed before the command starts (every write it
//! makes fails with EPIPE, so the test does not depend on timing), or read for one line and then
//! closed, with far more output to come than a pipe holds (64 KiB).

use std::io::{BufRead, Read, Write};
use std::process::{Command, ExitStatus, Stdio};

/// Run `cutecheck ARGS` with `stdin` as its input and stdout a pipe whose read end is closed
/// before it starts: its status and stderr.
fn into_closed_pipe(args: &[&str], stdin: &str) -> (ExitStatus, String) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut child = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_string();
    // The command may stop reading once its stdout is gone: a failed write here is expected.
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    (status, err)
}

/// Run `cutecheck ARGS` with `stdin` as its input, read the first line of its stdout, close the
/// pipe: that line, its status and stderr.
fn first_line_then_close(args: &[&str], stdin: String) -> (String, ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let mut stderr = child.stderr.take().unwrap();
    let errs = std::thread::spawn(move || {
        let mut err = String::new();
        stderr.read_to_string(&mut err).unwrap();
        err
    });
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    // The reader (and with it the pipe's only read end) is dropped here, as `head -1` exits.
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    (line, status, errs.join().unwrap())
}

fn assert_quiet_success(what: &str, status: ExitStatus, err: &str) {
    assert!(!err.contains("panicked"), "{what}: panicked on a closed pipe:\n{err}");
    assert_eq!(status.code(), Some(0), "{what}: a closed pipe is a quiet exit with status 0; stderr:\n{err}");
    assert!(err.is_empty(), "{what}: a closed pipe is not worth a message; stderr:\n{err}");
}

const ATOM: &str = "SM80_16x8x16_F32F16F16F32_TN";

#[test]
fn atom_table_into_a_closed_pipe_is_a_quiet_success() {
    let (status, err) = into_closed_pipe(&["atom-table", ATOM], "");
    assert_quiet_success("atom-table", status, &err);
    // The same command does print when someone reads (the test above is not vacuous).
    let (line, status, _) = first_line_then_close(&["atom-table", ATOM], String::new());
    assert!(line.starts_with('{') && status.success(), "{line}");
}

#[test]
fn eval_into_a_closed_pipe_is_a_quiet_success() {
    for args in [
        &["eval", "(4,(2,4)):(2,(1,8))(1,5)"][..],
        &["eval", "--table", "(16,16):(16,1)"],
        &["eval", "--unchecked", "composition((_6,_2):(_8,_2),_4:_4)"],
        &["eval", &format!("print_svg({ATOM})")],
        &["eval", "-"],
        &["eval", "--table", "-"],
    ] {
        let (status, err) = into_closed_pipe(args, "(4,8):(8,1)\n");
        assert_quiet_success(&args.join(" "), status, &err);
    }
}

/// `eval -` with 100,000 lines to answer (about 1.2 MB) and a reader that takes one line: the
/// batch stops at the first write that fails, with status 0 (it used to end with status 1).
#[test]
fn a_batch_read_for_one_line_stops_quietly() {
    let input = "(4,8):(1,4)\n".repeat(100_000);
    for args in [&["eval", "-"][..], &["eval", "--table", "-"]] {
        let (line, status, err) = first_line_then_close(args, input.clone());
        assert_eq!(line, "(4,8):(1,4)\n", "{}", args.join(" "));
        assert_quiet_success(&args.join(" "), status, &err);
    }
}

/// A write error that is not a closed pipe is an error: `/dev/full` (ENOSPC) fails with one line.
#[test]
fn a_full_disk_fails_with_one_line() {
    for args in [&["eval", "_4:_1"][..], &["eval", "-"], &["atom-table", ATOM]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full (Linux)");
        let out = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(full)
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                // atom-table does not read its stdin, and may be gone before this is written.
                let _ = c.stdin.take().unwrap().write_all(b"_8:_1\n");
                c.wait_with_output()
            })
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {err}", args.join(" "));
        assert!(err.starts_with("error: writing stdout: ") && err.lines().count() == 1, "{}: {err}", args.join(" "));
    }
}

/// `--cute` and `--both` print only after the oracle answered every line; their prints into a
/// closed pipe are quiet successes too (status 0 although, read whole, this batch fails: a line
/// does not parse and one disagrees).
#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn the_oracle_modes_into_a_closed_pipe_are_quiet_successes() {
    // The chapter's cases, a line that does not parse, and a disagreement.
    let input = "coalesce((_2,(_1,_6)):(_1,(_6,_2)))\ncomplement(_4:_2,_24)\n(((\ncomposition((_6,_2):(_8,_2),_4:_4)\n";
    for args in [&["eval", "--cute", "-"][..], &["eval", "--both", "-"], &["eval", "--both", "--table", "-"]] {
        let (status, err) = into_closed_pipe(args, input);
        assert!(!err.contains("panicked"), "{}: {err}", args.join(" "));
        // Oracle progress may go to stderr; only the status and the absence of a panic count.
        assert_eq!(status.code(), Some(0), "{}: {err}", args.join(" "));
    }
}

/// An error message into a closed stderr (`2>&1 | head -0`): the command still fails with status
/// 1, as it would with stderr open, and does not panic (status 101).
#[test]
fn an_error_into_a_closed_stderr_still_fails_plainly() {
    for args in [&["atom-table", "NO_SUCH_ATOM"][..], &["eval", "--cutlass-dir", "/no/such/dir", "_4:_1"]] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let status = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(writer)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(1), "{}", args.join(" "));
    }
}

/// SIGINT stops a run that is waiting on CuTe: no new compile starts, the running one is stopped
/// with its process group, each unanswered case says `error: interrupted ...` (never cached), one
/// `interrupted` line on stderr, status 130, and nothing half-written is left in the state
/// directory. Needs no CuTe: the "compiler" answers `--version` and then hangs, as a long compile.
#[test]
fn sigint_stops_a_run_and_says_what_was_done() {
    use std::os::unix::fs::PermissionsExt;
    use std::time::{Duration, Instant};
    let t = tempfile::tempdir().unwrap();
    let p = t.path();
    std::fs::create_dir_all(p.join("cutlass/include/cute")).unwrap();
    std::fs::write(p.join("cutlass/include/cute/layout.hpp"), "").unwrap();
    std::fs::create_dir_all(p.join("cuda")).unwrap();
    std::fs::write(p.join("cuda/cuda_runtime.h"), "").unwrap();
    let started = p.join("started");
    let fake = p.join("fake-g++");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'g++ (fake) 0'; exit 0; fi\necho $$ > {}\nexec sleep 600\n",
            started.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(["eval", "--cute", "--cutlass-dir"])
        .arg(p.join("cutlass"))
        .arg("--cuda-include")
        .arg(p.join("cuda"))
        .arg("--cxx")
        .arg(&fake)
        .arg("-")
        .env("CUTECHECK_DIR", p.join("state"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"size(_4)\ncoalesce((_2,_4):(_1,_2))\n").unwrap();
    let t0 = Instant::now();
    while std::fs::read_to_string(&started).map_or(true, |s| s.trim().is_empty()) {
        assert!(t0.elapsed() < Duration::from_secs(60), "the fake compiler never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let compiler: libc::pid_t = std::fs::read_to_string(&started).unwrap().trim().parse().unwrap();
    // SAFETY: kill has no memory-safety preconditions; the pid is our child's.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let t1 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(t1.elapsed() < Duration::from_secs(20), "SIGINT did not stop the run");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(130), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stderr.contains("interrupted (SIGINT)"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stdout.lines().filter(|l| l.starts_with("error: interrupted (SIGINT)")).count(), 2, "{stdout}");
    // The compile was stopped with its group.
    std::thread::sleep(Duration::from_millis(200));
    // Gone, or a zombie waiting for a reaper (a container's init may not reap).
    let state = std::fs::read_to_string(format!("/proc/{compiler}/stat")).ok();
    let running = state.as_deref().and_then(|s| s.rsplit(") ").next()).is_some_and(|s| !s.starts_with('Z'));
    assert!(!running, "the interrupted compiler {compiler} still runs: {state:?}");
    // Nothing cached for unanswered cases, nothing half-written anywhere.
    let mut stack = vec![p.join("state")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            assert!(!name.contains(".tmp-") && !name.starts_with("tmp-"), "left behind: {}", e.path().display());
            if e.path().is_dir() {
                assert_ne!(name, "results", "an interrupted case was cached");
                stack.push(e.path());
            }
        }
    }
}

/// Two runs sharing one state directory at once (one results cache, one build directory: the
/// driver object and the precompiled header built by both at the same time) both finish with
/// CuTe's answers, and a third run answers the same from the cache they left, which holds only
/// whole entries.
#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn two_runs_sharing_one_cache_both_finish_right() {
    let prov = cutecheck::oracle::provision::Provisioner::new().expect("the provisioned state");
    let include = prov.cutlass(option_env!("CUTECHECK_CUTE").unwrap_or("4.2.0.0")).expect("CuTe").include_dir;
    let cuda = prov.cuda().expect("CUDA headers").include_dirs;
    let t = tempfile::tempdir().unwrap();
    let cases = "make_layout((4,8))\ncoalesce((_2,(_1,_6)):(_1,(_6,_2)))\ncomplement((_4,_2):(_1,_4),_32)\n\
                 logical_divide((_8,_4):(_1,_8),_4:_2)\nsize((_65536,_32768))\ncomplement((_2,_2):(_1,_1))\n";
    let run = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cutecheck"));
        c.args(["eval", "--both", "--cutlass-dir"]).arg(&include);
        for d in &cuda {
            c.arg("--cuda-include").arg(d);
        }
        let mut child = c
            .arg("-")
            .env("CUTECHECK_DIR", t.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(cases.as_bytes()).unwrap();
        child
    };
    let (a, b) = (run(), run());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let text = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).to_string();
    for o in [&a, &b] {
        let (out, err) = (text(o), String::from_utf8_lossy(&o.stderr));
        assert!(!out.contains("ORACLE ERROR") && !out.lines().any(|l| l.starts_with("error:")), "{out}\n{err}");
        // Every case agrees, refuses on both sides, or is CuTe's overflow (the fifth case).
        let verdicts: Vec<&str> = out.lines().filter(|l| !l.starts_with(' ') && !cases.contains(*l)).collect();
        assert_eq!(verdicts.len(), 6, "{out}\n{err}");
        assert!(verdicts.iter().all(|v| v.starts_with("agree") || v.starts_with("CuTe overflows")), "{out}\n{err}");
    }
    assert_eq!(text(&a), text(&b));
    let c = run().wait_with_output().unwrap();
    assert_eq!(text(&c), text(&a), "the cache the two runs left answers the same");
    let cache = cutecheck::oracle::cache::ResultCache::new(t.path().join("results"));
    let mut stack = vec![t.path().join("results")];
    let mut entries = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            assert!(!name.contains("tmp-"), "left behind: {}", p.display());
            if p.is_dir() {
                stack.push(p);
            } else if let Some(key) = name.strip_suffix(".json") {
                assert!(cache.get(key).is_some(), "a cache entry that does not read back whole: {}", p.display());
                entries += 1;
            }
        }
    }
    assert!(entries >= 6, "{entries} cache entries");
}

/// Expressions no earlier run asked (so CuTe compiles them: no cached answer), `n` of them.
fn unasked_layouts(n: usize) -> Vec<String> {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    // About 2^30 expressions (CuTe's int arithmetic bounds the values: cosize < 2^31).
    let h = (t.as_nanos() as u64 ^ (std::process::id() as u64) << 20).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let (x, y) = ((h >> 44) as i64 % (1 << 20) + 1, (h >> 8) as i64 % 1000 + 2);
    (0..n as i64).map(|i| format!("(_{},{y}):(_1,{})", 2 + i % 7, x + i)).collect()
}

/// Every file under `dir` with its modification time.
fn mtimes(dir: &std::path::Path) -> std::collections::BTreeMap<std::path::PathBuf, std::time::SystemTime> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t) if t.is_file() => {
                    if let Ok(m) = e.metadata().and_then(|m| m.modified()) {
                        out.insert(p, m);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// `cutecheck eval --cute` never builds CuTe again once it is built: a second run on a case no
/// run asked before compiles that case only. The oracle's driver object and precompiled header
/// (`<state>/build/*/driver.o`, `pch/*`), the in-process CuTe library (`<state>/ffi/`) and the
/// binary keep their files and times, and cargo afterwards finds the crate fresh (no build
/// script rerun, no relink: `cargo build --message-format=json` reports `fresh` for every
/// cutecheck artifact).
#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE), or this test with --ignored"
)]
fn eval_never_rebuilds_cute() {
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_cutecheck"));
    let state = cutecheck::oracle::state_dir();
    let eval = |expr: &str| {
        let o = Command::new(&bin).args(["eval", "--cute", expr]).output().expect("cutecheck runs");
        assert!(o.status.success(), "{expr}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    // Built once (the driver and its precompiled header, if this state had none yet).
    let [first, second] = <[String; 2]>::try_from(unasked_layouts(2)).unwrap();
    assert_eq!(eval(&first), first);
    let shared = |m: std::collections::BTreeMap<std::path::PathBuf, std::time::SystemTime>| {
        m.into_iter()
            .filter(|(p, _)| {
                let s = p.to_string_lossy();
                !s.contains("/tu-") && !s.contains("/results/") && !s.contains(".tmp")
            })
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let before = (shared(mtimes(&state.join("build"))), mtimes(&state.join("ffi")), mtimes(bin.parent().unwrap()));
    assert!(
        before.0.keys().any(|p| p.ends_with("driver.o")),
        "no driver object under {}: {:?}",
        state.display(),
        before.0.keys().collect::<Vec<_>>()
    );
    // A case no run asked: CuTe compiles it, against what is built.
    assert_eq!(eval(&second), second);
    let after = (shared(mtimes(&state.join("build"))), mtimes(&state.join("ffi")), mtimes(bin.parent().unwrap()));
    assert_eq!(before.0, after.0, "eval --cute rebuilt the driver or its precompiled header");
    assert_eq!(before.1, after.1, "eval --cute touched the in-process CuTe library");
    assert_eq!(before.2.get(&bin), after.2.get(&bin), "the binary changed");
    // cargo finds nothing to do: nothing is recompiled or relinked (a build script that ran again
    // would make the library's artifact stale too).
    let o = Command::new(env!("CARGO"))
        .args(["build", "--message-format=json", "--bin", "cutecheck"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo build");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut seen = 0;
    for l in String::from_utf8_lossy(&o.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let ours = v["manifest_path"].as_str() == Some(manifest);
        if v["reason"] == "compiler-artifact" && ours {
            seen += 1;
            assert_eq!(v["fresh"], true, "cargo rebuilt {} after eval --cute", v["target"]["name"]);
        }
    }
    assert!(seen >= 2, "cargo named the cutecheck library and binary:\n{}", String::from_utf8_lossy(&o.stdout));
}

/// `eval --cute -` on many cases with stderr a log (not a terminal): a progress line every few
/// seconds with done/total and an estimate, the answers on stdout in order.
#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE), or this test with --ignored"
)]
fn eval_cute_on_a_long_input_reports_progress_in_a_log() {
    let cases = unasked_layouts(24);
    let mut child = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(["eval", "--cute", "-"])
        // A short period: the 24 compiles may take less than the default 5 s on a fast machine.
        .env("CUTECHECK_PROGRESS_SECS", "0.2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cutecheck runs");
    child.stdin.take().unwrap().write_all((cases.join("\n") + "\n").as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{err}");
    assert_eq!(out.lines().collect::<Vec<_>>(), cases, "{err}");
    let progress: Vec<&str> = err.lines().filter(|l| l.starts_with("eval --cute: ")).collect();
    assert!(!progress.is_empty(), "no progress line in the log:\n{err}");
    for l in &progress {
        assert!(l.contains("/24 cases (") && (l.contains(" left") || l.ends_with("estimating")), "{l}");
    }
}
