//! `cargo xtask bench`: how fast the oracle verifies static cases, cold and warm, for one
//! translation unit per case vs batched vs batched with a precompiled header. Each cold
//! configuration starts from an empty work directory (no driver object, no precompiled header,
//! no cached results); provisioning is done once before timing.

use std::time::Instant;

use anyhow::Result;
use cutecheck::expr::{parse, Expr};
use cutecheck::oracle::{Oracle, OracleArgs, Outcome};

pub fn all_static(e: &Expr) -> bool {
    match e {
        Expr::Int { is_static, .. } | Expr::Basis { is_static, .. } => *is_static,
        Expr::Underscore { .. } | Expr::Ratio { .. } => true,
        Expr::Tuple { items, .. } => items.iter().all(all_static),
        Expr::Layout { shape, stride, .. } => all_static(shape) && all_static(stride),
        Expr::Call { args, .. } => args.iter().all(all_static),
        Expr::Apply { target, args, .. } => all_static(target) && args.iter().all(all_static),
    }
}

pub fn run(args: &OracleArgs, n: usize, seed: u64, skip_single: bool) -> Result<bool> {
    let mut cases = Vec::new();
    let mut s = seed;
    while cases.len() < n {
        for e in crate::random::cases(4 * n, s) {
            if cases.len() < n && parse(&e).is_ok_and(|x| all_static(&x)) {
                cases.push(e);
            }
        }
        s += 1;
    }
    // Provision once, outside the timings.
    let base = Oracle::new(args.options())?;
    println!("oracle: {}; {} static random cases (seed {seed}); {} cores", base.describe(), n, rayon_cores());
    println!();
    println!("| configuration | wall time | static cases per minute |");
    println!("|---|---:|---:|");
    let tmp = tempfile::tempdir()?;
    // (label, cases per TU, precompiled header, work directory, use the results cache)
    let configs: [(&str, usize, bool, &str, bool); 6] = [
        ("one TU per case, no PCH (cold)", 1, false, "single", true),
        ("one TU per case + PCH (cold, PCH build included)", 1, true, "single-pch", true),
        ("batched, no PCH (cold)", 32, false, "batched", true),
        ("batched + PCH (cold, PCH build included)", 32, true, "pch", true),
        ("batched + PCH (PCH built, results not cached)", 32, true, "pch", false),
        ("batched + PCH, warm results cache", 32, true, "pch", true),
    ];
    let mut reference: Option<Vec<Outcome>> = None;
    let mut ok = true;
    for (label, batch, pch, dir, cache) in configs {
        if skip_single && batch == 1 {
            continue;
        }
        let mut opts = args.options();
        opts.batch = batch;
        opts.pch = pch;
        opts.cache = cache;
        opts.work_dir = Some(tmp.path().join(dir));
        let o = Oracle::new(opts)?;
        let t = Instant::now();
        let r = o.run(&cases);
        let secs = t.elapsed().as_secs_f64();
        println!("| {label} | {secs:.2} s | {:.0} |", n as f64 * 60.0 / secs.max(1e-9));
        if r.iter().any(Outcome::is_error) {
            ok = false;
            eprintln!("{label}: the oracle failed on some cases");
        }
        match &reference {
            None => {
                let count = |f: fn(&Outcome) -> bool| r.iter().filter(|o| f(o)).count();
                eprintln!(
                    "outcomes: {} printed, {} rejected, {} crashed, {} unsupported",
                    count(|o| matches!(o, Outcome::Printed(_))),
                    count(|o| matches!(o, Outcome::Rejected(_))),
                    count(|o| matches!(o, Outcome::Crashed(_))),
                    count(|o| matches!(o, Outcome::Unsupported(_))),
                );
                reference = Some(r)
            }
            Some(x) if *x != r => {
                ok = false;
                eprintln!("{label}: results differ from the first configuration");
            }
            Some(_) => {}
        }
    }
    Ok(ok)
}

fn rayon_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
