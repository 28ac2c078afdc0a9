//! `cargo xtask soak --cases 100000`: the proof run of issue 30, a long random conformance run
//! (`--no-fixed`) on every modelled CUTLASS release, one `cargo xtask conformance`
//! per release with the same seed, then one line per release (cases, seconds, milliseconds per
//! case, green or not). It is meant for a many-core host (`--jobs`); on a laptop use `--cases`
//! small to measure the per-case cost (`--shard K/N` splits one release's cases over hosts).

use std::time::Instant;

use anyhow::Result;
use cutecheck::engine::release::MODELLED;
use cutecheck::oracle::OracleArgs;

use crate::conformance::{self, RunArgs};

#[derive(clap::Args, Debug)]
pub struct SoakArgs {
    #[command(flatten)]
    pub args: OracleArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// The releases to soak (default: every modelled release, from harness/engine/release.rs).
    #[arg(long = "release", value_name = "V")]
    pub releases: Vec<String>,
}

/// How many of `cases` random cases shard `K/N` runs (case `i` is in shard `i % N`); the known
/// discrepancies' reproducers, which shard 0 also runs, are not counted.
pub fn shard_cases(cases: usize, shard: Option<(usize, usize)>) -> usize {
    match shard {
        Some((k, n)) if n > 1 => cases / n + usize::from(k < cases % n),
        _ => cases,
    }
}

pub fn run(a: &SoakArgs) -> Result<bool> {
    let releases: Vec<String> =
        if a.releases.is_empty() { MODELLED.iter().map(ToString::to_string).collect() } else { a.releases.clone() };
    let seed = a.run.seed.unwrap_or_else(conformance::fresh_seed);
    if a.run.cases < 100_000 {
        eprintln!("xtask soak: {} cases per release (the proof soak is --cases 100000)", a.run.cases);
    }
    let mut rows = Vec::new();
    for v in &releases {
        let args = OracleArgs { cutlass_version: Some(v.clone()), cutlass_dir: None, ..a.args.clone() };
        let run = RunArgs { no_fixed: true, seed: Some(seed), ..a.run.clone() };
        eprintln!("xtask soak: CUTLASS {v}: {} random cases, seed {seed}", run.cases);
        let t = Instant::now();
        let ok = conformance::run(&args, &run);
        let secs = t.elapsed().as_secs_f64();
        let shown = match &ok {
            Ok(true) => "green".to_string(),
            Ok(false) => "FAILED (see its tables above)".to_string(),
            Err(e) => format!("ERROR: {e:#}"),
        };
        rows.push((v.clone(), shard_cases(run.cases, run.shard), secs, shown, matches!(ok, Ok(true))));
    }
    println!(
        "\nsoak (seed {seed}, --no-fixed{})",
        a.run.shard.map_or(String::new(), |(k, n)| format!(", shard {k}/{n}"))
    );
    println!("{:<10} {:>8} {:>9} {:>9}  result", "release", "cases", "seconds", "ms/case");
    for (v, n, s, shown, _) in &rows {
        println!("{v:<10} {n:>8} {s:>9.1} {:>9.1}  {shown}", s * 1000.0 / (*n).max(1) as f64);
    }
    Ok(rows.iter().all(|r| r.4))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_shard_row_counts_the_shards_cases() {
        use super::shard_cases;
        assert_eq!(shard_cases(100_000, None), 100_000);
        assert_eq!(shard_cases(100_000, Some((0, 1))), 100_000);
        // The device run of 2026-12-03: shard 0/9 of 100,000 ran random #0, #9, ... #99999.
        assert_eq!(shard_cases(100_000, Some((0, 9))), 11_112);
        assert_eq!(shard_cases(100_000, Some((8, 9))), 11_111);
        assert_eq!((0..9).map(|k| shard_cases(100_000, Some((k, 9)))).sum::<usize>(), 100_000);
    }
}
