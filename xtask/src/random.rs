//! Random case texts for `cargo xtask bench`: the fuzzer's cases (cutecheck::fuzz), which absorbed
//! the first generator that lived here (its op coverage now lives in fuzz.rs's strategies).

/// The expressions of random cases `0..n` of `seed`.
pub fn cases(n: usize, seed: u64) -> Vec<String> {
    cutecheck::fuzz::cases(seed, n, (0, 1)).into_iter().map(|(_, c)| c.expr).collect()
}
