//! `cutecheck eval -` under malformed, huge and hostile input: every non-blank line gets its
//! answer (the result, or one `error:` line), in order; no panic, no abort, no line slower than a
//! generous bound; the batch never stops early.
//!
//! Each proptest case is a batch of lines from a seeded generator (below): mutated fixture cases,
//! random bytes, invalid UTF-8, NULs, lines over the 64 KiB limit, deep nesting, long evaluation
//! chains, and every operation applied to huge, negative and degenerate layouts. The expected
//! output is computed line by line in this process (`cli::answer`, the function `eval -` uses per
//! line, with the line's own time measured), and the binary's whole output must equal it byte for
//! byte: a lost, extra or reordered answer fails.
//!
//! Scale: `PROPTEST_CASES` batches (default 24, so CI stays fast). Long form (BENCHMARKS.md):
//! `PROPTEST_CASES=2000 cargo test --release --test hostile_cli`, and the million-line run
//! `CUTECHECK_HOSTILE_LINES=1000000 cargo test --release --test hostile_cli -- --ignored --nocapture`.
//! `CUTECHECK_HOSTILE_DUMP=FILE` also writes the million lines to FILE (to time the binary alone).
//! `CUTECHECK_HOSTILE_LINE_SECS` overrides the per-line bound (default 60 s: a hang detector,
//! not a speed target).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cutecheck::cli::answer;
use cutecheck::limits::INPUT_LEN;
use proptest::prelude::*;

/// A small deterministic generator (xorshift64*), so a failing batch is named by its seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// Every case line of fixtures/cases: valid expressions to mutate.
fn seeds() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases");
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("fixtures/cases").flatten().map(|e| e.path()).collect();
    files.sort();
    for f in files {
        if f.extension().is_some_and(|e| e == "cases") {
            for l in std::fs::read_to_string(&f).unwrap().lines() {
                let l = l.trim();
                if !l.is_empty() && !l.starts_with('#') {
                    out.push(l.to_string());
                }
            }
        }
    }
    assert!(out.len() > 100, "expected the fixture cases under {}", dir.display());
    out
}

/// Every operation (spelled as a call, `upcast<2>` for one with template arguments) and the
/// `print_layout` form: the names come from the enum, never from a list kept here.
fn ops() -> &'static [String] {
    static OPS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    OPS.get_or_init(|| {
        let mut v: Vec<String> = cutecheck::expr::Op::ALL
            .iter()
            .map(|o| format!("{o}{}", if o.targs().is_some() { "<2>" } else { "" }))
            .collect();
        v.push("print_layout".into());
        v
    })
}

/// Operands chosen to be hostile: huge, negative, zero, overflowing, degenerate.
const HOSTILE: &[&str] = &[
    "_2147483647:_1", "2147483647:1", "(_46340,_46340):(_1,_46340)", "(46341,46341):(46341,1)", "(4,-1):(1,4)",
    "(-3,-1):(1,4)", "_-1:_1", "_0:_0", "_1:_0", "(_65536,_65536):(_1,_65536)", "(_4096,_4096):(_4096,_1)",
    "(_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2,_2):(_1,_2,_4,_8,_16,_32,_64,_128,_256,_512,_1024,_2048,_4096,_8192,_16384,_32768,_65536,_131072,_262144,_524288,_1048576,_2097152,_4194304,_8388608)",
    "_16777217:_1", "(_4097,_4097):(_1,_4097)", "_-2147483648:_1", "(_0,_4):(_1,_0)", "_", "(_,_)", "()",
    "(():())", "_4", "-2147483648", "SM80_16x8x16_F32F16F16F32_TN", "Swizzle<3,4,3>", "Swizzle<31,31,31>",
    "(_8,_8):(_2147483647,_1)", "(_8,_8):(_-2147483647,_1)",
];

/// One hostile line (bytes; never contains a newline).
fn line(rng: &mut Rng, seeds: &[String]) -> Vec<u8> {
    let mut b: Vec<u8> = match rng.below(12) {
        // A fixture case, mutated a few times.
        0..=2 => {
            let mut s = rng.pick(seeds).clone().into_bytes();
            for _ in 0..1 + rng.below(4) {
                let p = rng.below(s.len() + 1);
                match rng.below(4) {
                    0 if p < s.len() => {
                        s.remove(p);
                    }
                    1 => s.insert(p, *rng.pick(b"()_,:<>-0123456789 \0\xff\xc3")),
                    2 => {
                        let q = rng.below(s.len() + 1);
                        let (a, z) = (p.min(q), p.max(q));
                        let dup = s[a..z].to_vec();
                        s.splice(a..a, dup);
                    }
                    _ => s.truncate(p),
                }
            }
            s
        }
        // An operation over hostile operands.
        3..=5 => {
            let op = rng.pick(ops());
            let n = rng.below(4);
            let args: Vec<&str> = (0..n).map(|_| *rng.pick(HOSTILE)).collect();
            format!("{op}({})", args.join(",")).into_bytes()
        }
        // A hostile layout evaluated at a hostile coordinate.
        6 => format!("{}({})", rng.pick(HOSTILE), rng.pick(&["0", "2147483647", "-1", "(1,2)", "(_,1)", "((((1))))"]))
            .into_bytes(),
        // Random bytes.
        7 => (0..rng.below(200)).map(|_| (rng.next() & 0xff) as u8).collect(),
        // Deep nesting, long evaluation chains, long names and numbers.
        8 => {
            let k = rng.below(3000);
            match rng.below(5) {
                0 => format!("{}_4{}", "(".repeat(k), ")".repeat(k)),
                1 => format!("_1{}", "(0)".repeat(k)),
                2 => format!("f{}", "<a".repeat(k)),
                3 => format!("{}{}", "9".repeat(k), ":1"),
                _ => format!("composition({})", vec!["_4:_1"; k.max(1)].join(",")),
            }
            .into_bytes()
        }
        // Longer than the input limit (or just under it).
        9 => {
            let unit = rng.pick(seeds).clone();
            let target = if rng.below(2) == 0 { INPUT_LEN + 1 + rng.below(1000) } else { INPUT_LEN - rng.below(64) };
            let mut s = Vec::with_capacity(target);
            while s.len() < target {
                s.extend_from_slice(unit.as_bytes());
                s.push(b',');
            }
            s.truncate(target);
            s
        }
        // Blank, whitespace, carriage returns.
        10 => rng.pick(&[&b""[..], b"   ", b"\t", b"\r", b" \r"]).to_vec(),
        // A plain valid case (so answers interleave with errors).
        _ => rng.pick(seeds).clone().into_bytes(),
    };
    b.retain(|&c| c != b'\n');
    b
}

/// The answer `eval -` must give to one line (independent of the CLI's reader): `None` for a
/// blank line; the text and the time it took.
fn expected(n: usize, l: &[u8]) -> Option<(String, Duration)> {
    let t = Instant::now();
    if l.len() > INPUT_LEN {
        return Some((
            format!("error: line {n} is {} bytes long; expressions are limited to {INPUT_LEN} bytes\n", l.len()),
            t.elapsed(),
        ));
    }
    let l = l.strip_suffix(b"\r").unwrap_or(l);
    match std::str::from_utf8(l) {
        Err(_) => Some((format!("error: line {n} is not valid UTF-8\n"), t.elapsed())),
        Ok(s) if s.trim().is_empty() => None,
        Ok(s) => Some((answer(s, false).0, t.elapsed())),
    }
}

fn line_bound() -> Duration {
    Duration::from_secs(std::env::var("CUTECHECK_HOSTILE_LINE_SECS").ok().and_then(|v| v.parse().ok()).unwrap_or(60))
}

/// Figures of one batch through the binary.
#[derive(Default, Debug)]
struct Figures {
    lines: usize,
    answers: usize,
    errors: usize,
    internal_errors: usize,
    slowest: Duration,
    slowest_line: String,
}

/// Run `lines` through `cutecheck eval -` and compare with the expected answers; panics with the
/// first difference.
fn check_batch(lines: &[Vec<u8>], label: &str) -> Figures {
    let mut want = String::new();
    let mut f = Figures { lines: lines.len(), ..Figures::default() };
    for (k, l) in lines.iter().enumerate() {
        // Line numbers count every line, blank ones included.
        if let Some((a, t)) = expected(k + 1, l) {
            f.answers += 1;
            f.errors += usize::from(a.starts_with("error: "));
            f.internal_errors += usize::from(a.starts_with("error: internal error"));
            if t > f.slowest {
                f.slowest = t;
                f.slowest_line = String::from_utf8_lossy(&l[..l.len().min(120)]).to_string();
            }
            want.push_str(&a);
        }
    }
    assert!(f.slowest < line_bound(), "{label}: a line took {:?}: {}", f.slowest, f.slowest_line);
    assert_eq!(f.internal_errors, 0, "{label}: the engine panicked on a line (see stderr)");
    let mut input = Vec::new();
    for l in lines {
        input.extend_from_slice(l);
        input.push(b'\n');
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(["eval", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let start = Instant::now();
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let bound = line_bound() * (lines.len() as u32 + 1);
    assert!(start.elapsed() < bound, "{label}: the batch took {:?}", start.elapsed());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{label}: panic: {stderr}");
    let code = out.status.code();
    assert!(matches!(code, Some(0 | 1)), "{label}: exit {:?} (an abort or a signal), stderr: {stderr}", out.status);
    assert_eq!(code == Some(0), f.errors == 0, "{label}: exit status {code:?} with {} error answers", f.errors);
    let got = String::from_utf8_lossy(&out.stdout);
    if got != want {
        let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
        let k = g.iter().zip(&w).position(|(a, b)| a != b).unwrap_or(g.len().min(w.len()));
        panic!(
            "{label}: output differs at output line {} (got {} lines, want {}):\n got: {:?}\nwant: {:?}",
            k + 1,
            g.len(),
            w.len(),
            g.get(k),
            w.get(k)
        );
    }
    f
}

fn lines_of(seed: u64, n: usize, seeds: &[String]) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| line(&mut rng, seeds)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_line_gets_its_answer(seed in any::<u64>(), n in 1usize..60) {
        let s = seeds();
        check_batch(&lines_of(seed, n, &s), &format!("seed {seed}, {n} lines"));
    }
}

/// The regressions of issue 15, each once, in one batch with valid lines around them.
#[test]
fn the_reported_inputs_are_answered() {
    let lines: Vec<Vec<u8>> = vec![
        b"_4:_1".to_vec(),
        b"print_layout((4,-1):(1,4))".to_vec(),
        format!("_1{}", "(0)".repeat(16_000)).into_bytes(),
        b"max_common_vector(_2147483647:_1,_2147483647:_1)".to_vec(),
        b"\xff\xfe(4,8):(1,4)".to_vec(),
        b"size(_8:_1)".to_vec(),
        vec![b'('; 200_000],
        b"mma_shape(SM90_64x72x16_F16F16F16_SS<x,y>)".to_vec(),
        b"(4,8):(1,4)(5)".to_vec(),
    ];
    let f = check_batch(&lines, "issue 15");
    assert_eq!(f.answers, 9);
    assert_eq!(f.errors, 5, "{f:?}");
}

/// A read error is not a line: the reader stops with one `error:` line naming where.
#[test]
fn a_failing_input_is_reported() {
    let out = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(["eval", "-"])
        .stdin(std::fs::File::open("/").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.starts_with("error: reading stdin"), "{s}");
}

/// The long run (ignored by default): `CUTECHECK_HOSTILE_LINES` lines (default 1,000,000) in
/// batches of 100,000 through the binary; prints the figures BENCHMARKS.md records.
#[test]
#[ignore = "long run: CUTECHECK_HOSTILE_LINES=1000000 cargo test --release --test hostile_cli -- --ignored --nocapture"]
fn a_million_hostile_lines() {
    let total: usize = std::env::var("CUTECHECK_HOSTILE_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let seed: u64 = std::env::var("CUTECHECK_HOSTILE_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(15);
    let s = seeds();
    let start = Instant::now();
    let mut all = Figures::default();
    let per = 100_000;
    // CUTECHECK_HOSTILE_DUMP=FILE also writes the input there, to time the binary alone.
    let mut dump =
        std::env::var_os("CUTECHECK_HOSTILE_DUMP").map(|p| std::io::BufWriter::new(std::fs::File::create(p).unwrap()));
    for (k, from) in (0..total).step_by(per).enumerate() {
        let lines = lines_of(seed + k as u64, per.min(total - from), &s);
        if let Some(d) = dump.as_mut() {
            for l in &lines {
                d.write_all(l).unwrap();
                d.write_all(b"\n").unwrap();
            }
        }
        let t = Instant::now();
        let f = check_batch(&lines, &format!("batch {k} (seed {})", seed + k as u64));
        println!(
            "batch {k}: {} lines, {} answers, {} errors, slowest {:?}, {:.1?}",
            f.lines,
            f.answers,
            f.errors,
            f.slowest,
            t.elapsed()
        );
        all.lines += f.lines;
        all.answers += f.answers;
        all.errors += f.errors;
        if f.slowest > all.slowest {
            all.slowest = f.slowest;
            all.slowest_line = f.slowest_line;
        }
    }
    println!(
        "{} lines: {} answers, {} of them error lines; 0 panics, 0 aborts, 0 lost answers; slowest line {:?} ({}); {:.1?} in all",
        all.lines,
        all.answers,
        all.errors,
        all.slowest,
        all.slowest_line,
        start.elapsed()
    );
}
