//! The real-CuTe oracle: turn parsed expressions into C++ over the CuTe headers, compile and run
//! them, and record what CuTe prints (or why it refused).
//!
//! - [`provision`]: get the CuTe headers (pinned PyPI wheels, a user's checkout, a system CUDA).
//! - [`compiler`]: find and describe the C++ compiler (g++, clang++, nvcc), run it with a limit.
//! - [`codegen`]: the name -> C++ tables; C++ comes only from the parsed AST.
//! - [`runner`]: many cases per translation unit, compiled in parallel, static_asserts mapped back
//!   to their case, crashes isolated per case (the driver forks per case).
//! - [`cache`]: results on disk, keyed by headers, compiler and case.
//! - [`inproc`]: the in-process oracle (cpp/ffi through cc + bindgen) for dynamic layouts.

pub mod cache;
pub mod codegen;
pub mod compiler;
pub mod dsl;
pub mod inproc;
pub mod interrupt;
pub mod progress;
pub mod provision;
pub mod pycute;
pub mod runner;

use std::path::PathBuf;

/// One side's typed answer to a case (defined with the case pipeline).
pub use crate::case::Outcome;
pub use compiler::{Compiler, CompilerKind};
pub use provision::{CudaHeaders, Headers};
pub use runner::{Oracle, OracleOptions};

/// Where the checkout and the state directory are (a leaf module, below every layer).
pub use crate::paths::{find_repo_root, is_checkout, repo_root, state_dir};

/// The compiled driver answers through the contract's trait.
impl crate::case::Oracle for Oracle {
    fn describe(&self) -> String {
        Oracle::describe(self)
    }
    fn run(&self, cases: &[&crate::case::Case]) -> Vec<Outcome> {
        let exprs: Vec<&crate::expr::Expr> = cases.iter().map(|c| &c.expr).collect();
        self.run_parsed(&exprs, false)
    }
}

/// The compiled driver in table mode: rank-2 layout results printed as print_layout grids
/// (`eval --table`).
pub struct Tables<'a>(pub &'a Oracle);

impl crate::case::Oracle for Tables<'_> {
    fn describe(&self) -> String {
        self.0.describe()
    }
    fn run(&self, cases: &[&crate::case::Case]) -> Vec<Outcome> {
        let exprs: Vec<&crate::expr::Expr> = cases.iter().map(|c| &c.expr).collect();
        self.0.run_parsed(&exprs, true)
    }
}

/// pycute for the benches: `$PYCUTE_DIR`, else the newest provisioned CUTLASS wheel under
/// [`state_dir`] that ships it (`cargo xtask cutlass` provisions one).
pub fn pycute_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("PYCUTE_DIR") {
        return Some(PathBuf::from(d));
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(state_dir().join("cache"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("pycute/layout.py").exists())
        .collect();
    found.sort();
    found.pop()
}

/// Lowercase hex sha256 of some bytes.
pub fn sha256_hex(data: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(data);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// The command-line options that pick CuTe and the compiler, shared by `cutecheck` and xtask.
#[derive(Clone, Debug, clap::Args)]
pub struct OracleArgs {
    /// CUTLASS version to provision from PyPI (nvidia-cutlass wheel), default 4.2.0.0.
    #[arg(long, value_name = "V")]
    pub cutlass_version: Option<String>,
    /// Use a CUTLASS checkout (DIR/include/cute) instead of a wheel.
    #[arg(long, value_name = "DIR", conflicts_with = "cutlass_version")]
    pub cutlass_dir: Option<PathBuf>,
    /// Use a system CUDA include directory instead of the pinned CUDA header wheels
    /// (`$CUDA_HOME/include` is used when CUDA_HOME is set). Repeat it for split layouts
    /// (runtime, cccl and crt headers in separate directories).
    #[arg(long, value_name = "DIR")]
    pub cuda_include: Vec<PathBuf>,
    /// C++ compiler: g++ (default), clang++, nvcc, or a path.
    #[arg(long, value_name = "C")]
    pub cxx: Option<String>,
    /// Do not read or write the results cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Time limit of one compile, in seconds (a compiler still running then is killed).
    #[arg(long, value_name = "SECS", default_value_t = crate::limits::COMPILE_SECS)]
    pub compile_timeout: u64,
    /// Address-space limit of one compile, in MiB (0: none).
    #[arg(long, value_name = "MIB", default_value_t = crate::limits::COMPILE_MEMORY_MB)]
    pub compile_memory: u64,
    /// Memory all parallel compiles may use together, in MiB (default: what the machine has available, less a reserve); the
    /// compile jobs are capped at this over --compile-memory.
    #[arg(long, value_name = "MIB")]
    pub memory_budget: Option<u64>,
    /// Most bytes CuTe may print for one case before the case is stopped (an oracle error).
    #[arg(long, value_name = "BYTES", default_value_t = crate::limits::CASE_OUTPUT)]
    pub case_output: usize,
    /// Parallel compile jobs (default: one per core, within the memory budget).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

impl OracleArgs {
    pub fn options(&self) -> OracleOptions {
        OracleOptions {
            cutlass_version: self.cutlass_version.clone(),
            cutlass_dir: self.cutlass_dir.clone(),
            cuda_include: self.cuda_include.clone(),
            cxx: self.cxx.clone(),
            cache: !self.no_cache,
            compile_timeout: std::time::Duration::from_secs(self.compile_timeout.max(1)),
            compile_memory_mb: (self.compile_memory > 0).then_some(self.compile_memory),
            memory_budget_mb: self.memory_budget,
            case_output: self.case_output.max(1),
            jobs: self.jobs,
            ..OracleOptions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checkout_is_found_at_run_time() {
        let d = tempfile::tempdir().unwrap();
        let clone = d.path().join("clone");
        let other = d.path().join("other");
        std::fs::create_dir_all(clone.join("xtask/src")).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(clone.join("Cargo.toml"), "[package]\nname = \"cutecheck\"\n").unwrap();
        std::fs::write(clone.join("xtask/Cargo.toml"), "[package]\nname = \"xtask\"\n").unwrap();
        std::fs::write(other.join("Cargo.toml"), "[package]\nname = \"something-else\"\n").unwrap();
        let built = std::path::Path::new("/built/here");
        // From a subdirectory: the walk skips xtask's own manifest and finds the package's.
        assert_eq!(find_repo_root(None, Some(clone.join("xtask/src")), built), clone);
        // $CUTECHECK_ROOT wins over the current directory.
        assert_eq!(find_repo_root(Some(clone.clone()), Some(other.clone()), built), clone);
        // A CUTECHECK_ROOT that is not a checkout is ignored; nothing found: the compiled-in path.
        assert_eq!(find_repo_root(Some(other.clone()), Some(other.clone()), built), built);
        assert_eq!(find_repo_root(None, None, built), built);
        assert!(is_checkout(&clone) && !is_checkout(&other) && !is_checkout(&clone.join("xtask")));
    }
}
