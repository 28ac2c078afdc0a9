//! Every resource limit of cutecheck, in one place, with its default.
//!
//! Bad or hostile input must get a clear error, never a panic, abort, hang or lost answer (project
//! brief); these bounds are what makes that true. The engine and the parser read the constants;
//! the oracle's limits are the defaults of [`crate::oracle::OracleOptions`] and can be changed on
//! the command line (`--compile-timeout`, `--compile-memory`, `--memory-budget`,
//! `--case-output`).

/// Longest expression (one line of `eval -`, one case), in bytes. A longer line is answered with
/// an `error:` line without being kept in memory whole.
pub const INPUT_LEN: usize = 1 << 16;

/// Deepest nesting of an expression: tuples, calls, template arguments and evaluation chains
/// (`L(c)(d)...`) together. Keeps every recursive walk of an [`crate::expr::Expr`] (evaluation,
/// printing, code generation, dropping) far from the end of the stack.
pub const NESTING: usize = 64;

/// Most coordinates any brute-force walk visits: the definition checks of every operation, the
/// `print_layout` grid, atom tables, pictures. A larger layout is refused as "too large" (a
/// typed error), never walked. Defined by the engine, which is below this crate.
pub const WALK: i64 = crate::engine::layout::MAX_WALK;

/// Most bytes real CuTe may print for one case before the case is stopped and reported as an
/// oracle error (never a verdict). `print_layout` of a 512x512 layout prints about 2.5 MB.
pub const CASE_OUTPUT: usize = 16 << 20;

/// Most bytes of compiler diagnostics kept per compile (the rest is read and dropped).
pub const DIAGNOSTICS: usize = 4 << 20;

/// Time limit of one compile, in seconds (a compiler still running then is killed with its whole
/// process group).
pub const COMPILE_SECS: u64 = 300;

/// Time limit of one case at run time, in seconds (the driver's per-case alarm).
pub const CASE_SECS: u64 = 20;

/// Time limit of one case in the pycute oracle, in seconds (`crate::oracle::pycute`): a python3
/// worker still busy on a case then is killed and replaced, and the case is pycute's timeout.
/// Measured on 5,000 random cases (seed 2027, 2 busy cores): the slowest answered case takes
/// 1.8 s (listing the values of a layout of nearly `WALK` coordinates); pycute's algebra itself
/// answers every one in milliseconds.
pub const PYCUTE_CASE_SECS: u64 = 10;

/// Address-space limit (RLIMIT_AS) of one compiler process, in MiB. g++ 12 over cute/tensor.hpp
/// with the precompiled header peaks near 1.5 GB of address space; the limit stops a runaway
/// template instantiation long before it takes the machine's memory.
pub const COMPILE_MEMORY_MB: u64 = 6 << 10;

/// Address-space limit of one run of a compiled case batch, in MiB.
pub const RUN_MEMORY_MB: u64 = 4 << 10;

/// Memory all parallel compiles may use together, in MiB, when not given: what the machine has
/// available now (`MemAvailable`) less [`MEMORY_RESERVE_MB`] for everything else, and at least one
/// compile. Parallel compile jobs are capped at `budget / COMPILE_MEMORY_MB`, so even runaway
/// compiles that all reach their limit together fit. (It was half of `MemTotal`: one job on a
/// 2-core, 23 GiB CI machine, where two fit with room to spare and a fixed-suite check took twice
/// as long; BENCHMARKS.md, "Real-CuTe checks".)
pub fn default_memory_budget_mb() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let field = |name: &str| {
        meminfo
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
            .map(|kb| kb / 1024)
    };
    budget_from(field("MemAvailable:"), field("MemTotal:"))
}

/// Memory left to everything but the compiles (the test binaries, cargo, the shell), in MiB.
pub const MEMORY_RESERVE_MB: u64 = 2 << 10;

/// [`default_memory_budget_mb`] from `MemAvailable` and `MemTotal` in MiB (a kernel without
/// `MemAvailable`: half of `MemTotal`; neither: two compiles).
fn budget_from(available_mb: Option<u64>, total_mb: Option<u64>) -> u64 {
    match (available_mb, total_mb) {
        (Some(a), _) => a.saturating_sub(MEMORY_RESERVE_MB).max(COMPILE_MEMORY_MB),
        (None, Some(t)) => (t / 2).max(COMPILE_MEMORY_MB),
        (None, None) => 2 * COMPILE_MEMORY_MB,
    }
}

/// Parallel compile jobs: what was asked (default: one per core), but no more than the memory
/// budget allows at `per_compile_mb` each, and at least one.
pub fn compile_jobs(asked: Option<usize>, cores: usize, budget_mb: u64, per_compile_mb: u64) -> usize {
    let by_memory = budget_mb.checked_div(per_compile_mb).map_or(usize::MAX, |n| n.max(1) as usize);
    asked.unwrap_or(cores).min(by_memory).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_respect_the_memory_budget() {
        // 2 cores, 24 GB budget, 6 GB per compile: 2 jobs; 64 cores: 4 jobs.
        assert_eq!(compile_jobs(None, 2, 24 << 10, 6 << 10), 2);
        assert_eq!(compile_jobs(None, 64, 24 << 10, 6 << 10), 4);
        // An explicit --jobs is still capped by memory, and never below one.
        assert_eq!(compile_jobs(Some(16), 64, 12 << 10, 6 << 10), 2);
        assert_eq!(compile_jobs(Some(16), 64, 1 << 10, 6 << 10), 1);
        assert_eq!(compile_jobs(Some(0), 64, 1 << 10, 6 << 10), 1);
        // No per-compile limit: the budget does not bound the jobs.
        assert_eq!(compile_jobs(Some(8), 2, 1, 0), 8);
        assert!(default_memory_budget_mb() >= COMPILE_MEMORY_MB);
    }

    #[test]
    fn the_default_budget_is_the_available_memory_less_a_reserve() {
        // This machine's shape (23 GiB, 21 GiB available, 2 cores): two compiles, where half of
        // MemTotal allowed one.
        let b = budget_from(Some(21 << 10), Some(23 << 10));
        assert_eq!(b, 19 << 10);
        assert_eq!(compile_jobs(None, 2, b, COMPILE_MEMORY_MB), 2);
        // A small runner (7 GiB, 5 available): one; nothing available: still one.
        assert_eq!(compile_jobs(None, 2, budget_from(Some(5 << 10), Some(7 << 10)), COMPILE_MEMORY_MB), 1);
        assert_eq!(budget_from(Some(0), Some(7 << 10)), COMPILE_MEMORY_MB);
        assert_eq!(budget_from(None, Some(24 << 10)), 12 << 10);
        assert_eq!(budget_from(None, None), 2 * COMPILE_MEMORY_MB);
    }
}
