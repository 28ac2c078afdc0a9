//! `cargo bench --bench eval_command`: the whole command a user runs, `cutecheck eval -`, against
//! pycute doing the same job on the same lines.
//!
//! The mix is every line of the fixed suites (fixtures/cases/*.cases) that pycute can express, then
//! random cases of the conformance generator (seed 1) that pycute can express, until there are at
//! least `LINES` lines. Each line is written twice, from the same parsed AST: as cutecheck's
//! expression text and as pycute's Python text (`cutecheck::oracle::pycute::spelling::pycute_text`). Both sides are whole
//! processes timed by wall clock from start to exit: the release `cutecheck eval -` reading the
//! lines on stdin and printing one answer per line, and a python3 that imports pycute, reads the
//! Python lines, evaluates each (`eval`, pycute's way to read an expression) and prints `str()` of
//! the result or the exception. Each figure (wall time, and CPU time: user + system of the child)
//! is the fastest of `RUNS` runs (the machine is shared; a preempted run measures the load). The mix files are kept under target/cutecheck/bench/ so the
//! two commands can be rerun by hand.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const LINES: usize = 20_000;
const RUNS: usize = 3;

const SCRIPT: &str = r#"
import sys
sys.path.insert(0, sys.argv[1])
from pycute import *
out = []
for line in open(sys.argv[2]):
    try:
        out.append(str(eval(line)))
    except BaseException as e:
        out.append("error: " + type(e).__name__)
sys.stdout.write("\n".join(out) + "\n")
"#;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// (cutecheck text, pycute text) of every line of the mix.
fn mix() -> Vec<(String, String)> {
    let mut fixed: Vec<String> = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/cases"))
        .expect("fixtures/cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cases"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("a fixture file");
        fixed.extend(text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(String::from));
    }
    let both = |text: &str| -> Option<(String, String)> {
        let e = cutecheck::expr::parse(text).ok()?;
        Some((text.to_string(), cutecheck::oracle::pycute::spelling::pycute_text(&e).ok()?))
    };
    let mut lines: Vec<(String, String)> = fixed.iter().filter_map(|l| both(l)).collect();
    let fixed_n = lines.len();
    let mut batch = 0u64;
    while lines.len() < LINES {
        for (_, c) in cutecheck::fuzz::cases(1 + batch, 10_000, (0, 1)) {
            if lines.len() >= LINES {
                break;
            }
            if let Some(l) = both(&c.expr) {
                lines.push(l);
            }
        }
        batch += 1;
    }
    eprintln!("mix: {} lines ({fixed_n} from the fixed suites, {} random)", lines.len(), lines.len() - fixed_n);
    lines
}

/// The fastest of RUNS runs of `cmd` with `input` (if any) on stdin: (wall s, CPU s, lines out).
fn time(what: &str, mut cmd: impl FnMut() -> Command, input: Option<&Path>) -> (f64, f64, usize) {
    let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
    let mut lines = 0;
    for _ in 0..RUNS {
        let mut c = cmd();
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        c.stdin(match input {
            Some(p) => Stdio::from(std::fs::File::open(p).expect("the mix file")),
            None => Stdio::null(),
        });
        let (t, c0) = (Instant::now(), cutecheck::run::children_cpu_seconds());
        let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
        let (s, c1) = (t.elapsed().as_secs_f64(), cutecheck::run::children_cpu_seconds());
        if !out.status.success() && out.stdout.is_empty() {
            panic!("{what} failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        lines = out.stdout.iter().filter(|&&b| b == b'\n').count();
        wall = wall.min(s);
        cpu = cpu.min(c1 - c0);
    }
    (wall, cpu, lines)
}

fn main() {
    // `cargo test --benches` passes no --bench; only measure under `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let dir = cutecheck::oracle::state_dir().join("bench");
    std::fs::create_dir_all(&dir).expect("bench directory");
    let lines = mix();
    let (ours, py) = (dir.join("eval_mix.txt"), dir.join("eval_mix.py"));
    let mut a = std::io::BufWriter::new(std::fs::File::create(&ours).unwrap());
    let mut b = std::io::BufWriter::new(std::fs::File::create(&py).unwrap());
    for (t, p) in &lines {
        writeln!(a, "{t}").unwrap();
        writeln!(b, "{p}").unwrap();
    }
    drop((a, b));
    let n = lines.len() as f64;
    let bin = env!("CARGO_BIN_EXE_cutecheck");
    let (t_ours, c_ours, out_ours) = time(
        "cutecheck eval -",
        || {
            let mut c = Command::new(bin);
            c.args(["eval", "-"]);
            c
        },
        Some(&ours),
    );
    println!("| command | lines out | wall | CPU | wall us/line |");
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| `cutecheck eval - < eval_mix.txt` | {out_ours} | {t_ours:.3} s | {c_ours:.3} s | {:.2} |",
        t_ours * 1e6 / n
    );
    match cutecheck::oracle::pycute_dir() {
        Some(d) => {
            let (t_py, c_py, out_py) = time(
                "python3 pycute",
                || {
                    let mut c = Command::new("python3");
                    c.arg("-c").arg(SCRIPT).arg(&d).arg(&py);
                    c
                },
                None,
            );
            println!(
                "| python3 + pycute on eval_mix.py | {out_py} | {t_py:.3} s | {c_py:.3} s | {:.2} |",
                t_py * 1e6 / n
            );
            println!(
                "\nwhole-command speed-up: {:.1}x by wall time, {:.1}x by CPU time (fastest of {RUNS} runs each; goal: >= 25x)",
                t_py / t_ours,
                c_py / c_ours
            );
        }
        None => println!("\npycute not found (run `cargo xtask cutlass` or set PYCUTE_DIR): not timed"),
    }
    println!("mix files: {} and {}", ours.display(), py.display());
    // EVAL_COMMAND_TOP=N: the N lines that cost the engine most, timed in-process (fastest of 3).
    if let Some(top) = std::env::var("EVAL_COMMAND_TOP").ok().and_then(|v| v.parse::<usize>().ok()) {
        let mut t: Vec<(f64, &str)> = lines
            .iter()
            .map(|(l, _)| {
                let best = (0..3)
                    .map(|_| {
                        let t = Instant::now();
                        std::hint::black_box(cutecheck::cli::answer(l, false));
                        t.elapsed().as_secs_f64()
                    })
                    .fold(f64::INFINITY, f64::min);
                (best, l.as_str())
            })
            .collect();
        let total: f64 = t.iter().map(|x| x.0).sum();
        t.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!("\nin-process total {:.3} s; the {top} costliest lines:", total);
        for (s, l) in t.iter().take(top) {
            println!("{:9.1} us  {l}", s * 1e6);
        }
    }
}
