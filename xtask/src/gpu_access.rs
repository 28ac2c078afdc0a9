//! `cargo xtask gpu --access`: the memory access check (`cutecheck::gpu::access`).
//!
//! Writes the cases (`cases.txt` for the device, `expressions.txt` the record) and the sources
//! into the work folder, runs `cpp/gpu/access_run.sh` there (nvcc, ncu and a GPU, no Rust), then
//! reads ncu's counters and compares each with the engine: `summary.txt` lists every case that
//! disagrees and the tally by space and width. `--prepare DIR` only writes; `--report DIR` only
//! compares (a recorded run, or one made elsewhere). Exit: 0 every case agrees, 1 not, 2 error,
//! 3 no GPU.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};
use cutecheck::gpu::access;

use super::GpuArgs;

const SOURCES: [&str; 2] = ["access_check.cu", "access_run.sh"];

fn seed(args: &GpuArgs) -> u64 {
    args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
    })
}

/// Writes cases.txt, expressions.txt and the sources into `dir`.
pub fn prepare(dir: &Path, src: &Path, seed: u64, n: usize, args: &GpuArgs) -> Result<Vec<access::AccessCase>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let (cases, flag) = if args.ops {
        (access::random_op_cases(seed, n)?, " --ops")
    } else if args.quads {
        (access::random_quad_cases(seed, n)?, " --quads")
    } else {
        (access::random_cases(seed, n)?, "")
    };
    std::fs::write(dir.join("cases.txt"), access::cases_file(&cases))?;
    let head =
        format!("# seed {seed}, {} cases (cargo xtask gpu --access{flag} --seed {seed} --cases {n})\n", cases.len());
    std::fs::write(dir.join("expressions.txt"), head + &access::expressions_file(&cases))?;
    for f in SOURCES {
        std::fs::copy(src.join(f), dir.join(f)).with_context(|| format!("copying {f}"))?;
    }
    println!("access: seed {seed}, {} cases written to {}", cases.len(), dir.display());
    Ok(cases)
}

/// Compares the run in `dir` (expressions.txt, ncu.csv) with the engine; prints and writes
/// summary.txt. True when every case agrees.
pub fn report(dir: &Path) -> Result<bool> {
    let exprs = std::fs::read_to_string(dir.join("expressions.txt")).context("reading expressions.txt")?;
    let cases = access::read_expressions(&exprs)?;
    // ncu's own CSV when the folder has it (then counters.tsv is written from it), else the
    // recorded counters.tsv.
    let launches = match std::fs::read_to_string(dir.join("ncu.csv")) {
        Ok(csv) => {
            let l = access::read_counters(&csv)?;
            std::fs::write(dir.join("counters.tsv"), access::counters_file(&l))?;
            l
        }
        Err(_) => access::read_counters_file(
            &std::fs::read_to_string(dir.join("counters.tsv")).context("reading counters.tsv")?,
        )?,
    };
    let rows = access::compare(&cases, &launches)?;
    let mut out = String::new();
    let bad: Vec<_> = rows.iter().filter(|r| r.checked && !r.agrees).collect();
    let unchecked = rows.iter().filter(|r| !r.checked).count();
    for r in bad.iter().take(300) {
        out +=
            &format!("DIFF {} {}: engine {} | ncu {}\n", r.case.id, r.case.expr, r.predicted, access::measured_text(r));
    }
    out += "space   vector  cases  agree\n";
    for ((sp, v), (n, ok)) in access::tally(&rows) {
        out += &format!("{sp:<7} {v:>6} {n:>6} {ok:>6}\n");
    }
    let agree = rows.len() - bad.len();
    let agree = agree - unchecked;
    out += &format!(
        "access: {} cases, {agree} agree, {} differ, {unchecked} without a counter (cp.async.cg): {}\n",
        rows.len(),
        bad.len(),
        if bad.is_empty() { "PASS" } else { "FAIL" }
    );
    print!("{out}");
    std::fs::write(dir.join("summary.txt"), &out)?;
    Ok(bad.is_empty())
}

pub fn run(args: &GpuArgs, src: &Path) -> Result<u8> {
    if let Some(dir) = &args.report {
        return Ok(if report(dir)? { 0 } else { 1 });
    }
    let seed = seed(args);
    if let Some(dir) = &args.prepare {
        prepare(dir, src, seed, args.cases, args)?;
        return Ok(0);
    }
    if let Some(why) = cutecheck::gpu::gpu_missing(std::env::var_os("PATH").as_deref()) {
        println!("no GPU: {why}; nothing was checked (exit {})", cutecheck::gpu::NO_GPU);
        return Ok(cutecheck::gpu::NO_GPU);
    }
    let work = args.work.join("access");
    prepare(&work, src, seed, args.cases, args)?;
    let status = Command::new("bash")
        .arg(work.join("access_run.sh"))
        .arg(&work)
        .arg(work.join("cases.txt"))
        .arg(&work)
        .status()
        .context("running access_run.sh")?;
    match status.code() {
        Some(0) => Ok(if report(&work)? { 0 } else { 1 }),
        Some(3) => Ok(cutecheck::gpu::NO_GPU),
        _ => {
            eprintln!("access_run.sh failed ({status}); see {}", work.display());
            Ok(2)
        }
    }
}

/// `--vector`: the SASS check of CuTe's copy vector width (no GPU needed: nvcc and cuobjdump,
/// from PATH or `$NVCC` / `$CUOBJDUMP`, and the CuTe headers).
pub fn vector(args: &GpuArgs) -> Result<u8> {
    use cutecheck::gpu::vector;
    let cases = vector::vector_cases()?;
    let dir = match &args.report {
        Some(d) => d.clone(),
        None => {
            let dir = args.work.join("vector");
            std::fs::create_dir_all(&dir)?;
            let cu = dir.join("vector_cases.cu");
            std::fs::write(&cu, vector::cuda(&cases))?;
            let include = super::cute_include()?;
            let nvcc = std::env::var("NVCC").unwrap_or_else(|_| "nvcc".into());
            let cuobjdump = std::env::var("CUOBJDUMP").unwrap_or_else(|_| "cuobjdump".into());
            let cubin = dir.join("vector_cases.cubin");
            let st = Command::new(&nvcc)
                .args(["-std=c++17", "-O2", "-arch=sm_90a", "--cubin", "--expt-relaxed-constexpr", "-I"])
                .arg(&include)
                .arg("-o")
                .arg(&cubin)
                .arg(&cu)
                .status()
                .with_context(|| format!("running {nvcc}"))?;
            if !st.success() {
                eprintln!("nvcc failed ({st})");
                return Ok(2);
            }
            let out = Command::new(&cuobjdump)
                .arg("--dump-sass")
                .arg(&cubin)
                .output()
                .with_context(|| format!("running {cuobjdump}"))?;
            if !out.status.success() {
                eprintln!("cuobjdump failed: {}", String::from_utf8_lossy(&out.stderr));
                return Ok(2);
            }
            let text = String::from_utf8_lossy(&out.stdout);
            let kept: String = text
                .lines()
                .filter(|l| l.contains("Function :") || l.contains("LDG") || l.contains("LDS"))
                .map(|l| format!("{}\n", l.trim_end()))
                .collect();
            std::fs::write(dir.join("sass.txt"), kept)?;
            dir
        }
    };
    let sass =
        cutecheck::gpu::vector::read_sass(&std::fs::read_to_string(dir.join("sass.txt")).context("reading sass.txt")?)?;
    let rows = vector::compare(&cases, &sass)?;
    let s = vector::summary(&rows);
    print!("{s}");
    std::fs::write(dir.join("summary.txt"), &s)?;
    Ok(if rows.iter().all(|r| r.agrees) { 0 } else { 1 })
}
