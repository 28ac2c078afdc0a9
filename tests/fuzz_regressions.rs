//! The fuzzer's kept inputs (fixtures/fuzz_regressions.txt, written by `cargo xtask fuzz`, plus a
//! few seeds) go through the CLI's stdin path as the fuzzer sends them: `cutecheck eval -`, with
//! `--table` and with `--unchecked`. Each run must end by itself with status 0 or 1 (an answer
//! or an error line per input), never a panic, a signal or a hang, and answer every line.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn unhex(line: &str) -> Vec<u8> {
    let l = line.trim();
    assert!(l.len().is_multiple_of(2), "odd hex line {l:?}");
    (0..l.len()).step_by(2).map(|i| u8::from_str_radix(&l[i..i + 2], 16).expect("hex")).collect()
}

fn inputs() -> Vec<Vec<u8>> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/fuzz_regressions.txt"))
        .expect("fixtures/fuzz_regressions.txt");
    text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(unhex).collect()
}

#[test]
fn kept_fuzz_inputs_are_answered_without_a_panic() {
    let inputs = inputs();
    assert!(inputs.len() >= 8, "the seeds are there");
    for mode in [&[][..], &["--table"], &["--unchecked"]] {
        for input in &inputs {
            let mut child = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
                .arg("eval")
                .args(mode)
                .arg("-")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(input).unwrap();
            stdin.write_all(b"\n").unwrap();
            drop(stdin);
            let start = Instant::now();
            while child.try_wait().unwrap().is_none() {
                if start.elapsed() > Duration::from_secs(60) {
                    let _ = child.kill();
                    panic!("{mode:?} {:?}: no answer within 60 s", String::from_utf8_lossy(input));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            let shown = String::from_utf8_lossy(input).chars().take(80).collect::<String>();
            assert!(matches!(out.status.code(), Some(0 | 1)), "{mode:?} {shown:?}: {:?}\n{err}", out.status);
            assert!(!err.contains("panicked"), "{mode:?} {shown:?}: {err}");
            assert!(!out.stdout.is_empty() || !err.is_empty(), "{mode:?} {shown:?}: no answer at all");
        }
    }
}
