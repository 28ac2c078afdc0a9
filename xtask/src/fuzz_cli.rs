//! `cargo xtask fuzz --minutes N`: a time-bounded fuzzer over the expression parser, the engine
//! and the CLI's stdin path (cargo-fuzz needs a nightly toolchain; this is a plain loop).
//!
//! Inputs, drawn from a seeded generator: random bytes (invalid UTF-8 and NULs included), soups of
//! the language's own tokens and operation names, the lines of every case file mutated (bytes
//! deleted, inserted, duplicated; numbers replaced by values at 2^31 and 2^63 on both sides),
//! deep or unbalanced nesting, and two cases spliced. They go, one per line, in batches into
//! `cutecheck eval -` (also `--table` and `--unchecked`), a child process with a time limit. A batch
//! fails when the process panics (status 101, or `panicked` on stderr), dies by a signal, or
//! outlives its limit; a failing batch is bisected to the lines that fail alone, and each is
//! appended to `fixtures/fuzz_regressions.txt` (hex, one input a line), which
//! `tests/fuzz_regressions.rs` replays on every `cargo test`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

#[derive(clap::Args, Debug)]
pub struct FuzzArgs {
    /// How long to run, in minutes.
    #[arg(long, default_value_t = 10.0)]
    pub minutes: f64,
    /// The generator's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Inputs per `cutecheck eval -` process.
    #[arg(long, default_value_t = 400)]
    pub batch: usize,
    /// Fuzz the release build of cutecheck (faster) instead of the debug build.
    #[arg(long)]
    pub release: bool,
    /// Do not append failing inputs to fixtures/fuzz_regressions.txt.
    #[arg(long)]
    pub no_save: bool,
}

/// The file of kept failing inputs (hex of the bytes, one a line; `#` starts a comment).
pub const REGRESSIONS: &str = "fixtures/fuzz_regressions.txt";

use cutecheck::oracle::inproc::gen::Rng;

/// A line of the corpus.
fn line<'a>(rng: &mut Rng, corpus: &'a [String]) -> &'a str {
    &corpus[rng.below(corpus.len())]
}

/// Numbers at the edges of CuTe's `int` and of the engine's i64.
const EDGES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "4294967296",
    "46340",
    "46341",
    "65536",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "99999999999999999999999",
];

const TOKENS: &[&str] =
    &["(", ")", ",", ":", "_", "-", "<", ">", " ", "[", "]", "*", "+", "'", "\"", "\\", "\u{0}", "é", "\u{200b}"];

/// The lines of every case file (the corpus the mutations start from).
fn corpus(root: &Path) -> Result<Vec<String>> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(root.join("fixtures/cases"))? {
        let p = e?.path();
        if p.extension().is_some_and(|x| x == "cases") {
            let text = std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
            v.extend(text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(String::from));
        }
    }
    if v.is_empty() {
        bail!("no case lines under fixtures/cases");
    }
    Ok(v)
}

/// One input (no newline: the stdin path reads one expression a line).
fn input(rng: &mut Rng, corpus: &[String], names: &[&str]) -> Vec<u8> {
    let mut b: Vec<u8> = match rng.below(7) {
        0 => (0..rng.below(96)).map(|_| rng.next() as u8).collect(),
        1 => {
            let mut s = String::new();
            for _ in 0..rng.below(40) {
                match rng.below(4) {
                    0 => s.push_str(rng.pick(names)),
                    1 => s.push_str(rng.pick(EDGES)),
                    _ => s.push_str(rng.pick(TOKENS)),
                }
            }
            s.into_bytes()
        }
        2 => {
            let depth = 1 + rng.below(400);
            let mut s = "(".repeat(depth);
            s.push_str(rng.pick(EDGES));
            s.push_str(&")".repeat(depth.saturating_sub(rng.below(2))));
            if rng.below(2) == 0 {
                s = format!("{}{s}", rng.pick(names));
            }
            s.into_bytes()
        }
        3 => {
            let a = line(rng, corpus);
            let b = line(rng, corpus);
            let (i, j) = (rng.below(a.len() + 1), rng.below(b.len() + 1));
            let (i, j) = (floor_char(a, i), floor_char(b, j));
            format!("{}{}", &a[..i], &b[j..]).into_bytes()
        }
        4 => {
            let l = line(rng, corpus);
            numbers_to_edges(rng, l).into_bytes()
        }
        _ => {
            let mut s = line(rng, corpus).as_bytes().to_vec();
            for _ in 0..1 + rng.below(4) {
                mutate(rng, &mut s);
            }
            s
        }
    };
    for x in b.iter_mut() {
        if *x == b'\n' || *x == b'\r' {
            *x = b' ';
        }
    }
    b
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Every number of a case replaced, with some chance, by an edge value (signs and `_` kept).
fn numbers_to_edges(rng: &mut Rng, line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut n = c.to_string();
            while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                n.push(d);
                chars.next();
            }
            out.push_str(if rng.below(3) == 0 { rng.pick(EDGES) } else { &n });
        } else {
            out.push(c);
        }
    }
    out
}

fn mutate(rng: &mut Rng, s: &mut Vec<u8>) {
    let n = s.len();
    match rng.below(5) {
        0 if n > 0 => {
            let i = rng.below(n);
            let j = (i + 1 + rng.below(8)).min(n);
            s.drain(i..j);
        }
        1 => {
            let t = rng.pick(TOKENS).as_bytes().to_vec();
            let i = rng.below(n + 1);
            s.splice(i..i, t);
        }
        2 if n > 0 => {
            let i = rng.below(n);
            let j = (i + 1 + rng.below(24)).min(n);
            let piece = s[i..j].to_vec();
            s.splice(j..j, piece);
        }
        3 if n > 0 => {
            let i = rng.below(n);
            s[i] = rng.next() as u8;
        }
        _ => {
            let e = rng.pick(EDGES).as_bytes().to_vec();
            let i = rng.below(n + 1);
            s.splice(i..i, e);
        }
    }
}

/// Why a batch failed, if it did.
fn failure(bin: &Path, mode: &[&str], lines: &[Vec<u8>]) -> Result<Option<String>> {
    let mut input = Vec::new();
    for l in lines {
        input.extend_from_slice(l);
        input.push(b'\n');
    }
    let mut child = Command::new(bin)
        .arg("eval")
        .args(mode)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", bin.display()))?;
    let mut stdin = child.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let limit = Duration::from_secs(20) + Duration::from_millis(200) * lines.len() as u32;
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    let _ = t_out.join();
    let stderr = String::from_utf8_lossy(&t_err.join().unwrap_or_default()).to_string();
    use std::os::unix::process::ExitStatusExt;
    Ok(match status {
        None => Some(format!("took longer than {limit:?}")),
        Some(s) if s.signal().is_some() => Some(format!("killed by signal {}", s.signal().unwrap_or(0))),
        Some(s) if s.code() == Some(101) || stderr.contains("panicked") => {
            Some(format!("panicked: {}", stderr.lines().find(|l| l.contains("panicked")).unwrap_or("").trim()))
        }
        Some(_) => None,
    })
}

/// The lines of a failing batch that fail alone (bisection; a batch that fails only as a whole
/// is kept whole).
fn culprits(bin: &Path, mode: &[&str], lines: &[Vec<u8>], why: String) -> Result<Vec<(Vec<Vec<u8>>, String)>> {
    if lines.len() == 1 {
        return Ok(vec![(lines.to_vec(), why)]);
    }
    let (a, b) = lines.split_at(lines.len() / 2);
    let mut found = Vec::new();
    for half in [a, b] {
        if let Some(w) = failure(bin, mode, half)? {
            found.extend(culprits(bin, mode, half, w)?);
        }
    }
    if found.is_empty() {
        found.push((lines.to_vec(), why));
    }
    Ok(found)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The kept inputs of [`REGRESSIONS`] (tests/fuzz_regressions.rs decodes them the same way).
#[cfg(test)]
pub fn unhex(line: &str) -> Option<Vec<u8>> {
    let l = line.trim();
    if !l.len().is_multiple_of(2) {
        return None;
    }
    (0..l.len()).step_by(2).map(|i| u8::from_str_radix(&l[i..i + 2], 16).ok()).collect()
}

pub fn run(a: &FuzzArgs) -> Result<bool> {
    let root = cutecheck::oracle::repo_root();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(&cargo);
    build.current_dir(&root).args(["build", "--quiet", "--bin", "cutecheck"]);
    if a.release {
        build.arg("--release");
    }
    if !build.status().context("building cutecheck")?.success() {
        bail!("building cutecheck failed");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    let bin = target.join(if a.release { "release" } else { "debug" }).join("cutecheck");
    let corpus = corpus(&root)?;
    let names: Vec<&str> = cutecheck::expr::Op::ALL.iter().map(|o| o.name()).collect();
    let modes: [&[&str]; 3] = [&[], &["--table"], &["--unchecked"]];
    let mut rng = Rng::new(a.seed, 0);
    let deadline = Instant::now() + Duration::from_secs_f64(a.minutes * 60.0);
    let start = Instant::now();
    let (mut inputs, mut batches) = (0usize, 0usize);
    let mut found: Vec<(Vec<Vec<u8>>, String, &str)> = Vec::new();
    while Instant::now() < deadline {
        let lines: Vec<Vec<u8>> = (0..a.batch.max(1)).map(|_| input(&mut rng, &corpus, &names)).collect();
        let mode = modes[batches % modes.len()];
        if let Some(why) = failure(&bin, mode, &lines)? {
            for (c, w) in culprits(&bin, mode, &lines, why)? {
                eprintln!(
                    "FOUND ({}): {w}: {:?}",
                    mode.join(" "),
                    c.iter().map(|l| String::from_utf8_lossy(l)).collect::<Vec<_>>()
                );
                found.push((c, w, if mode.is_empty() { "eval -" } else { mode[0] }));
            }
        }
        inputs += lines.len();
        batches += 1;
        if batches % 10 == 0 {
            eprintln!(
                "fuzz: {inputs} inputs in {batches} batches, {:.0} s, {} failing",
                start.elapsed().as_secs_f64(),
                found.len()
            );
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "fuzz: {inputs} inputs ({batches} batches of `cutecheck eval -`, --table, --unchecked) in {secs:.0} s \
         ({:.0} inputs/s), seed {}: {} failing",
        inputs as f64 / secs.max(1e-9),
        a.seed,
        found.len()
    );
    if found.is_empty() {
        return Ok(true);
    }
    if !a.no_save {
        let path = root.join(REGRESSIONS);
        let mut f = std::fs::OpenOptions::new().append(true).create(true).open(&path)?;
        for (c, w, mode) in &found {
            writeln!(f, "# cargo xtask fuzz --seed {} ({mode}): {w}", a.seed)?;
            for l in c {
                writeln!(f, "{}", hex(l))?;
            }
        }
        println!("kept in {}", path.display());
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for cutecheck that "panics" (status 101) on a line containing BOOM and hangs on
    /// one containing HANG: the batch fails, and bisection keeps exactly those lines.
    #[test]
    fn a_failing_batch_is_bisected_to_its_lines() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let bin = t.path().join("fake-cutecheck");
        std::fs::write(
            &bin,
            "#!/bin/sh\ninput=$(cat)\ncase \"$input\" in *HANG*) sleep 600;; esac\n\
             case \"$input\" in *BOOM*) echo \"thread 'main' panicked at x\" >&2; exit 101;; esac\nexit 1\n",
        )
        .unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut lines: Vec<Vec<u8>> = (0..16).map(|i| format!("size(_{i})").into_bytes()).collect();
        lines[11] = b"coalesce(BOOM)".to_vec();
        assert_eq!(failure(&bin, &[], &lines[..8]).unwrap(), None);
        let why = failure(&bin, &[], &lines).unwrap().expect("the batch fails");
        assert!(why.starts_with("panicked: thread 'main' panicked"), "{why}");
        let found = culprits(&bin, &[], &lines, why).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, vec![b"coalesce(BOOM)".to_vec()]);
    }

    #[test]
    fn inputs_are_seeded_lines_and_hex_round_trips() {
        let corpus = vec!["coalesce((_2,_4):(_1,_2))".to_string(), "size(_8)".to_string()];
        let names = ["coalesce", "size"];
        let draw = |seed| {
            let mut r = Rng::new(seed, 0);
            (0..200).map(|_| input(&mut r, &corpus, &names)).collect::<Vec<_>>()
        };
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3), draw(4));
        for l in draw(5) {
            assert!(!l.contains(&b'\n'));
            assert_eq!(unhex(&hex(&l)), Some(l));
        }
    }
}
