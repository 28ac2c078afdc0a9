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

/// `--cutlass-dir` as the options parse it, for the library's view of it.
fn oracle_args(args: &[&str]) -> cutecheck::oracle::OracleArgs {
    #[derive(clap::Parser)]
    struct Args {
        #[command(flatten)]
        oracle: cutecheck::oracle::OracleArgs,
    }
    <Args as clap::Parser>::parse_from(std::iter::once("cutecheck").chain(args.iter().copied())).oracle
}

/// Run `cutecheck ARGS` in `dir`: stdout, stderr, status.
fn cutecheck_in(dir: &std::path::Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_cutecheck")).args(args).current_dir(dir).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (text(out.stdout), text(out.stderr), out.status.code().unwrap_or(-1))
}

/// A directory without `cute/layout.hpp` (only a `cute/tensor.hpp`, an empty `include/`) is
/// refused in one line naming every path looked at, before any case runs, in every mode (`--cute`
/// included: nothing is provisioned or compiled first).
#[test]
fn a_cutlass_dir_without_cute_is_refused_naming_what_was_looked_for() {
    let t = tempfile::tempdir().unwrap();
    let bad = t.path().join("bad");
    std::fs::create_dir_all(bad.join("include")).unwrap();
    std::fs::create_dir_all(bad.join("cute")).unwrap();
    std::fs::write(bad.join("cute/tensor.hpp"), "").unwrap();
    std::fs::create_dir_all(bad.join("other/include/cute")).unwrap();
    for mode in [&[][..], &["--cute"], &["--both"], &["--table"]] {
        let args: Vec<&str> = ["eval"].iter().chain(mode).chain(&["--cutlass-dir", "bad", "_4:_1"]).copied().collect();
        let (out, err, code) = cutecheck_in(t.path(), &args);
        assert_eq!((out.as_str(), code), ("", 1), "{args:?}: no case may run: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.starts_with("error: --cutlass-dir bad: no CuTe headers"), "{err}");
        let b = std::fs::canonicalize(&bad).unwrap();
        for looked in ["", "include/", "source/include/", "cutlass_library/source/include/", "*/include/"] {
            let p = format!("{}/{looked}cute/layout.hpp", b.display());
            assert!(err.contains(&p), "{args:?}: {err} does not name {p}");
        }
    }
    let (out, err, code) = cutecheck_in(t.path(), &["eval", "--cutlass-dir", "no/such/dir", "_4:_1"]);
    assert_eq!((out.as_str(), err.as_str(), code), ("", "error: --cutlass-dir no/such/dir: not a directory\n", 1));
}

/// A fake CUTLASS tree at `root` (an include directory with `cute/layout.hpp` and a
/// `cutlass/version.h` of `version`).
fn fake_include(root: &std::path::Path, version: (u16, u16, u16)) {
    std::fs::create_dir_all(root.join("cute")).unwrap();
    std::fs::create_dir_all(root.join("cutlass")).unwrap();
    std::fs::write(root.join("cute/layout.hpp"), "").unwrap();
    let (a, b, c) = version;
    let h = format!("#define CUTLASS_MAJOR {a}\n#define CUTLASS_MINOR {b}\n#define CUTLASS_PATCH {c}\n");
    std::fs::write(root.join("cutlass/version.h"), h).unwrap();
}

/// Every form `--cutlass-dir` accepts resolves to the one absolute include directory and keeps the
/// release `cutlass/version.h` names (given `include/` itself, it used to be lost).
#[test]
fn every_form_of_a_cutlass_dir_resolves_to_its_include_and_release() {
    use cutecheck::cli::{release_of, version_of};
    use cutecheck::oracle::provision::resolve_cutlass_dir;
    let t = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(t.path()).unwrap();
    let want: cutecheck::engine::release::Release = "3.8.0".parse().unwrap();
    fake_include(&root.join("checkout/include"), (3, 8, 0));
    fake_include(&root.join("wheel/cutlass_library/source/include"), (3, 8, 0));
    fake_include(&root.join("unpacked/cutlass-3.8.0/include"), (3, 8, 0));
    for (dir, include) in [
        ("checkout", "checkout/include"),
        ("checkout/include", "checkout/include"),
        ("checkout/include/", "checkout/include"),
        ("checkout/include/../include", "checkout/include"),
        ("wheel", "wheel/cutlass_library/source/include"),
        ("wheel/cutlass_library", "wheel/cutlass_library/source/include"),
        ("wheel/cutlass_library/source/include", "wheel/cutlass_library/source/include"),
        ("unpacked", "unpacked/cutlass-3.8.0/include"),
        ("unpacked/cutlass-3.8.0", "unpacked/cutlass-3.8.0/include"),
    ] {
        let given = root.join(dir);
        assert_eq!(resolve_cutlass_dir(&given).unwrap(), root.join(include), "{dir}");
        let args = oracle_args(&["--cutlass-dir", given.to_str().unwrap()]);
        assert_eq!(release_of(&args), Some(want), "{dir}");
        assert_eq!(version_of(&args), format!("dir:{}", root.join(include).display()), "{dir}");
    }
    // Two trees unpacked side by side: ambiguous, refused naming both.
    fake_include(&root.join("unpacked/cutlass-3.9.0/include"), (3, 9, 0));
    let e = format!("{:#}", resolve_cutlass_dir(&root.join("unpacked")).unwrap_err());
    assert!(e.contains("several CUTLASS trees") && e.contains("cutlass-3.9.0") && e.contains("cutlass-3.8.0"), "{e}");
    // A relative path is taken from the current directory, and resolved before the engine runs:
    // plain `eval` models the release it names.
    let (out, err, code) = cutecheck_in(&root.join("checkout"), &["eval", "--cutlass-dir", "include", "_4:_1"]);
    assert_eq!((out.as_str(), code), ("_4:_1\n", 0), "{err}");
}

/// The provisioned CUTLASS 4.2 wheel named every way (its root, its `cutlass_library/`, its
/// `source/include`, relative to the current directory), compiled against for real: the relative
/// path used to fail every case (the compiler runs elsewhere) and `include/` lost the release.
#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn a_real_cutlass_dir_works_relative_and_as_include() {
    use cutecheck::cli::release_of;
    use cutecheck::oracle::provision::{resolve_cutlass_dir, Provisioner, DEFAULT_CUTLASS};
    let headers = Provisioner::new().unwrap().cutlass(DEFAULT_CUTLASS).unwrap();
    let include = std::fs::canonicalize(&headers.include_dir).unwrap();
    let lib = include.parent().and_then(|p| p.parent()).unwrap();
    let wheel = lib.parent().unwrap();
    let release: cutecheck::engine::release::Release = DEFAULT_CUTLASS.parse().unwrap();
    for d in [wheel, lib, &include] {
        assert_eq!(resolve_cutlass_dir(d).unwrap(), include, "{}", d.display());
        assert_eq!(release_of(&oracle_args(&["--cutlass-dir", d.to_str().unwrap()])), Some(release), "{}", d.display());
    }
    // Relative to the cache directory, compiled (no cache: the compile itself must find CuTe).
    let cache = wheel.parent().unwrap();
    let rel = include.strip_prefix(cache).unwrap().to_str().unwrap().to_string();
    let case = "coalesce((_2,(_1,_6)):(_1,(_6,_2)))";
    let (out, err, code) = cutecheck_in(cache, &["eval", "--cute", "--no-cache", "--cutlass-dir", &rel, case]);
    assert_eq!((out.as_str(), code), ("_12:_1\n", 0), "{err}");
}

/// An unknown name gets the nearest operation's name; a parse error, the expression on stderr
/// with a caret under the failing column (stdout keeps its one line).
#[test]
fn errors_help_with_did_you_mean_and_a_caret() {
    let here = std::env::current_dir().unwrap();
    let (out, _, code) = cutecheck_in(&here, &["eval", "logical_divid(_8:_1,_2)"]);
    assert_eq!(code, 1);
    assert!(out.contains("(did you mean 'logical_divide'?)"), "{out}");
    let (out, err, code) = cutecheck_in(&here, &["eval", "coalesce((_2,_4):(_1_2))"]);
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), 1, "{out}");
    let col: usize =
        out.trim_start_matches("error: parse error at column ").split(':').next().unwrap().parse().unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.first(), Some(&"  coalesce((_2,_4):(_1_2))"), "{err}");
    assert_eq!(lines.get(1).and_then(|l| l.find('^')), Some(2 + col - 1), "{err}");
}
