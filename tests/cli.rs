//! The `cutecheck eval` command line: one result line per expression, `error:` lines, exit codes.
//! Expected texts are CuTe's prints quoted in the chapter or this engine's own core values whose
//! CuTe print the chapter gives (`(4,(2,4)):(2,(1,8))` at `(1,5)` is 19).

use std::io::Write;
use std::process::{Command, Stdio};

fn cutecheck(args: &[&str], stdin: &str) -> (String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (String::from_utf8(out.stdout).unwrap(), out.status.code().unwrap_or(-1))
}

#[test]
fn one_expression_prints_one_line() {
    let (out, code) = cutecheck(&["eval", "(4,(2,4)):(2,(1,8))(1,5)"], "");
    assert_eq!((out.as_str(), code), ("19\n", 0));
    let (out, code) = cutecheck(&["eval", " ( 4 , ( 2 , 4 ) ) : ( 2 , ( 1 , 8 ) ) ( 5 ) "], "");
    assert_eq!((out.as_str(), code), ("3\n", 0));
}

#[test]
fn errors_are_one_line_and_fail() {
    let (out, code) = cutecheck(&["eval", "(4,8:(1,4)"], "");
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with("error: parse error at column 11"), "{out}");
    let (out, code) = cutecheck(&["eval", "no_such_op(_4:_1)"], "");
    assert_eq!(code, 1);
    assert!(out.starts_with("error: ") && out.contains("no_such_op"), "{out}");
}

#[test]
fn batch_mode_answers_every_line() {
    let input = "(4,(2,4)):(2,(1,8))(1,(1,2))\n\n(((\nsize((4,(2,4)):(2,(1,8)))\n";
    let (out, code) = cutecheck(&["eval", "-"], input);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], "19");
    assert!(lines[1].starts_with("error: "), "{out}");
    assert_eq!(lines[2], "32");
    assert_eq!(code, 1, "a failed line makes the batch fail");
    let (_, code) = cutecheck(&["eval", "-"], "(4,8):(1,4)(1)\n");
    assert_eq!(code, 0);
}

#[test]
fn table_draws_rank_2_layouts() {
    let (out, code) = cutecheck(&["eval", "--table", "(4,8):(8,1)"], "");
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "(4,8):(8,1)");
    // The chapter's row-major table: row 1 holds 8..15.
    let row1: Vec<i64> = lines[5].split('|').skip(1).filter_map(|c| c.trim().parse().ok()).collect();
    assert_eq!(row1, (8..16).collect::<Vec<_>>(), "{out}");
    let (out, _) = cutecheck(&["eval", "--table", "_8:_1"], "");
    assert_eq!(out, "_8:_1\n", "rank-1 results print without a grid");
}

#[test]
fn unchecked_prints_what_cute_computes() {
    // The chapter: CuTe compiles composition((_6,_2):(_8,_2), _4:_4) and gives (_2,_2):(_32,_2),
    // which is not A o B; the engine refuses it unless asked for CuTe's algorithm alone.
    let e = "composition((_6,_2):(_8,_2),_4:_4)";
    let (out, code) = cutecheck(&["eval", e], "");
    assert_eq!(code, 1);
    assert!(out.starts_with("error: composition is not defined here"), "{out}");
    let (out, code) = cutecheck(&["eval", "--unchecked", e], "");
    assert_eq!((out.as_str(), code), ("(_2,_2):(_32,_2)\n", 0));
}

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn both_answers_every_line_and_ends_with_the_verdict() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(["eval", "--both", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cutecheck runs");
    // A good line, a line that is not UTF-8, a line that does not parse, the chapter's undefined
    // composition: four answers, in order, the last ending with its class and blame.
    let input: &[u8] =
        b"coalesce((_2,(_1,_6)):(_1,(_6,_2)))\n\xff\xfe\ncomposition(((\ncomposition((_6,_2):(_8,_2),_4:_4)\n";
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let verdicts: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(verdicts.len(), 6, "{text}");
    assert_eq!(verdicts[1], "agree", "{text}");
    assert_eq!(verdicts[2], "error: line 2 is not valid UTF-8", "{text}");
    assert!(verdicts[3].starts_with("error: composition(((: parse error"), "{text}");
    assert!(verdicts[5].starts_with("DISAGREE class 3 (one rejects) blame: cute"), "{text}");
    assert_eq!(out.status.code(), Some(1));
}

/// `eval -` driven line by line (a program that sends an expression and waits for its answer
/// before sending the next): each answer arrives while stdin is still open.
#[test]
fn batch_mode_answers_each_line_before_the_next_arrives() {
    use std::io::{BufRead, BufReader};
    use std::sync::mpsc;
    use std::time::Duration;
    let mut child = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(["eval", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let reader = std::thread::spawn(move || {
        for line in stdout.lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    // The chapter's cases (CuTe's prints quoted in the chapter).
    for (expr, want) in
        [("coalesce((_2,(_1,_6)):(_1,(_6,_2)))", "_12:_1"), ("complement(_4:_2,_24)", "(_2,_3):(_1,_8)")]
    {
        writeln!(stdin, "{expr}").unwrap();
        stdin.flush().unwrap();
        let got = rx.recv_timeout(Duration::from_secs(60));
        if got.is_err() {
            let _ = child.kill();
        }
        assert_eq!(got.as_deref(), Ok(want), "no answer to {expr} while stdin stays open");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}
