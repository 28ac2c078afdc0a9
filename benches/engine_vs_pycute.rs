//! `cargo bench --bench engine_vs_pycute`: the engine against pycute on one fixed mix of operations.
//!
//! Each case is written twice: in cutecheck's expression language and as the same call in pycute.
//! On both sides the operands are built once and the loop times the operation alone: 20,000 calls
//! of the engine and 2,000 of pycute per case, in 5 equal batches, and each side's figure is its
//! fastest batch (the machine is shared; a preempted batch measures the load). pycute runs in a
//! python3 child that imports the pycute shipped in the `nvidia-cutlass` wheel (`cutecheck::oracle::pycute_dir`: PYCUTE_DIR, or the provisioned cache).
//! Results are printed as a Markdown table (ns per op and the ratio); BENCHMARKS.md keeps one run.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use cutecheck::expr::{builtins, eval, parse, Expr};

/// (label, cutecheck expression, pycute expression)
const MIX: &[(&str, &str, &str)] = &[
    (
        "composition",
        "composition((_6,_2):(_8,_2),(_4,_3):(_3,_1))",
        "composition(Layout((6,2),(8,2)), Layout((4,3),(3,1)))",
    ),
    (
        "composition 2-D",
        "composition((_4,_8):(_8,_1),(_8,_4):(_4,_1))",
        "composition(Layout((4,8),(8,1)), Layout((8,4),(4,1)))",
    ),
    ("logical_divide", "logical_divide(_24:_1,_4:_2)", "logical_divide(Layout(24,1), Layout(4,2))"),
    (
        "logical_divide nested",
        "logical_divide((_8,(_4,_4)):(_16,(_1,_4)),_8:_2)",
        "logical_divide(Layout((8,(4,4)),(16,(1,4))), Layout(8,2))",
    ),
    (
        "zipped_divide",
        "zipped_divide((_16,_8):(_1,_16),(_2:_1,_2:_1))",
        "zipped_divide(Layout((16,8),(1,16)), (Layout(2,1), Layout(2,1)))",
    ),
    (
        "zipped_divide 128x64",
        "zipped_divide((_128,_64):(_1,_128),(_16:_1,_8:_1))",
        "zipped_divide(Layout((128,64),(1,128)), (Layout(16,1), Layout(8,1)))",
    ),
    ("complement", "complement((_2,_2):(_1,_6),_24)", "complement(Layout((2,2),(1,6)), 24)"),
    ("complement 3-mode", "complement((_4,_2,_2):(_2,_16,_64),_512)", "complement(Layout((4,2,2),(2,16,64)), 512)"),
    ("coalesce", "coalesce((_2,(_1,_6)):(_1,(_6,_2)))", "coalesce(Layout((2,(1,6)),(1,(6,2))))"),
    (
        "coalesce 4-mode",
        "coalesce(((_4,_8),(_2,_2)):((_1,_4),(_32,_64)))",
        "coalesce(Layout(((4,8),(2,2)),((1,4),(32,64))))",
    ),
];

fn time_engine(expr: &str, iters: u32) -> f64 {
    // Operands are built once (as pycute's are); the loop times the operation itself.
    let Expr::Call { name, args, called, .. } = parse(expr).expect("the mix parses") else {
        panic!("{expr} is not a call")
    };
    let vals: Vec<_> = args.iter().map(|a| eval(a).expect("operands evaluate")).collect();
    builtins::call(&name, &vals, called).unwrap_or_else(|e| panic!("engine fails on {expr}: {e}"));
    // The fastest of BATCHES batches: the machine is shared, and a batch that was preempted
    // measures the load, not the code (pycute is timed the same way).
    (0..BATCHES)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters / BATCHES {
                std::hint::black_box(builtins::call(&name, std::hint::black_box(&vals), called).unwrap());
            }
            t.elapsed().as_nanos() as f64 / (iters / BATCHES) as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// Each side's time per case is the fastest of this many equal batches.
const BATCHES: u32 = 5;

fn time_pycute(dir: &Path, iters: u32) -> Result<Vec<f64>, String> {
    let mut script =
        String::from("import sys, time\nsys.path.insert(0, sys.argv[1])\nfrom pycute import *\nn = int(sys.argv[2])\n");
    for (_, _, py) in MIX {
        // `f(args)`: evaluate the operands once, then time the call alone.
        let (f, args) = py.split_once('(').expect("a call");
        let args = &args[..args.len() - 1];
        script += &format!(
            "a = ({args},)\n{f}(*a)\nbest = None\nfor _ in range({BATCHES}):\n    t = time.perf_counter_ns()\n    for _ in range(n // {BATCHES}):\n        {f}(*a)\n    x = (time.perf_counter_ns() - t) / (n // {BATCHES})\n    best = x if best is None else min(best, x)\nprint(best)\n"
        );
    }
    let out = Command::new("python3")
        .arg("-c")
        .arg(&script)
        .arg(dir)
        .arg(iters.to_string())
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().parse::<f64>().map_err(|e| format!("{l}: {e}")))
        .collect()
}

fn main() {
    // `cargo test --benches` passes --bench-less arguments; only measure under `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let iters = 20_000;
    let py = match cutecheck::oracle::pycute_dir() {
        Some(d) => time_pycute(&d, iters / 10),
        None => Err("pycute not found: run `cargo xtask cutlass` first or set PYCUTE_DIR".to_string()),
    };
    println!("| case | cutecheck ns/op | pycute ns/op | speed-up |");
    println!("|---|---:|---:|---:|");
    let mut ratios = Vec::new();
    for (k, (label, expr, _)) in MIX.iter().enumerate() {
        let ours = time_engine(expr, iters);
        match &py {
            Ok(p) => {
                ratios.push(p[k] / ours);
                println!("| {label} | {ours:.0} | {:.0} | {:.0}x |", p[k], p[k] / ours);
            }
            Err(_) => println!("| {label} | {ours:.0} | - | - |"),
        }
    }
    match py {
        Ok(_) => {
            let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
            println!("\ngeometric mean speed-up: {geo:.0}x (goal: >= 100x)");
        }
        Err(e) => println!("\npycute not timed: {e}"),
    }
}
