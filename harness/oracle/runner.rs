//! Running cases through real CuTe: batches of cases per translation unit, compiled in parallel
//! (one job per core, a time limit per compile), compile-time rejections mapped back to their
//! case, crashes isolated per case (the driver forks per case), results cached.
//!
//! A batch that fails to compile is not lost: the diagnostics are read for the generated file's
//! line numbers (each case is its own function, so a line names a case), those cases are recorded
//! as `rejected: <CuTe's static_assert message>` and the rest are compiled again. When the
//! diagnostics name no case (a compiler whose format is not understood, a link error), the batch
//! is split in halves until each failing case stands alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use rayon::prelude::*;

use super::cache::ResultCache;
use super::codegen;
use super::compiler::{run_with, Compiler, CompilerKind, RunLimits};
use super::provision::{self, CudaHeaders, Headers, Provisioner};
use super::{sha256_hex, state_dir, Outcome};
use crate::expr::parse;
use crate::limits;

const DRIVER_HPP: &str = include_str!("../../cpp/driver/driver.hpp");
const DRIVER_CPP: &str = include_str!("../../cpp/driver/driver.cpp");
const PCH_HPP: &str = include_str!("../../cpp/driver/pch.hpp");
/// Bumped whenever the generated code's framing changes, to invalidate cached results.
const FORMAT_VERSION: &str = "cutecheck-oracle-3";
/// The generated translation unit's file name (diagnostics refer to it).
const TU: &str = "cases.cpp";

/// Where CuTe comes from and how to compile.
#[derive(Clone, Debug)]
pub struct OracleOptions {
    /// A CUTLASS wheel version to provision (default [`provision::DEFAULT_CUTLASS`]).
    pub cutlass_version: Option<String>,
    /// A user's CUTLASS checkout instead of a wheel.
    pub cutlass_dir: Option<PathBuf>,
    /// System CUDA include directories instead of the pinned header wheels (also `$CUDA_HOME`).
    pub cuda_include: Vec<PathBuf>,
    /// `g++` (default), `clang++`, `nvcc`, or a path.
    pub cxx: Option<String>,
    /// Parallel compile jobs (default: one per core).
    pub jobs: Option<usize>,
    /// Most cases per translation unit.
    pub batch: usize,
    /// Build and use a precompiled header for cute/tensor.hpp (g++ and clang++).
    pub pch: bool,
    pub compile_timeout: Duration,
    /// Address-space limit of one compile, in MiB (`None`: no limit).
    pub compile_memory_mb: Option<u64>,
    /// Memory all parallel compiles may use together, in MiB (default: what the machine has available, less a reserve);
    /// the compile jobs are capped at `budget / compile_memory_mb`.
    pub memory_budget_mb: Option<u64>,
    /// Time limit of one case at run time.
    pub case_timeout: Duration,
    /// Address-space limit of one run of a compiled batch, in MiB.
    pub run_memory_mb: Option<u64>,
    /// Most bytes CuTe may print for one case; more stops the case with an oracle error.
    pub case_output: usize,
    /// Use and fill the results cache.
    pub cache: bool,
    /// Progress lines on stderr.
    pub verbose: bool,
    /// Where builds and cached results go (default: the state directory); benchmarks use a
    /// fresh one for cold runs.
    pub work_dir: Option<PathBuf>,
    /// Keep each built translation unit's directory (`cargo xtask coverage` reads the coverage
    /// notes and counts the compiler and the cases leave there).
    pub keep_builds: bool,
}

impl Default for OracleOptions {
    fn default() -> Self {
        OracleOptions {
            cutlass_version: None,
            cutlass_dir: None,
            cuda_include: Vec::new(),
            cxx: None,
            jobs: None,
            batch: 32,
            pch: true,
            compile_timeout: Duration::from_secs(limits::COMPILE_SECS),
            compile_memory_mb: Some(limits::COMPILE_MEMORY_MB),
            memory_budget_mb: None,
            case_timeout: Duration::from_secs(limits::CASE_SECS),
            run_memory_mb: Some(limits::RUN_MEMORY_MB),
            case_output: limits::CASE_OUTPUT,
            cache: true,
            verbose: false,
            work_dir: None,
            keep_builds: false,
        }
    }
}

/// A ready oracle: headers found, compiler found; builds (driver object, precompiled header) are
/// made on first use.
pub struct Oracle {
    pub headers: Headers,
    pub cuda: CudaHeaders,
    pub compiler: Compiler,
    pub opts: OracleOptions,
    build_dir: PathBuf,
    key_base: String,
    cache: Option<ResultCache>,
    built: Mutex<Option<Result<(), String>>>,
}

/// The compiled form of one case waiting for CuTe.
struct Pending {
    index: usize,
    body: String,
    key: String,
}

impl Oracle {
    /// Provision what `opts` asks for and find the compiler.
    pub fn new(opts: OracleOptions) -> Result<Oracle> {
        let prov = Provisioner::new()?;
        // The pinned CUDA headers are fetched while CUTLASS is (a cold machine downloads both)
        // when the last step below will want them.
        let cuda_early = opts.cuda_include.is_empty()
            && std::env::var_os("CUDA_HOME").is_none()
            && !opts.cxx.as_deref().is_some_and(|c| c.contains("nvcc"));
        let (headers, mut early) = std::thread::scope(|s| {
            let cuda = cuda_early.then(|| s.spawn(|| prov.cuda()));
            let headers = match (&opts.cutlass_dir, &opts.cutlass_version) {
                (Some(d), _) => provision::cutlass_dir(d),
                (None, v) => prov.cutlass(v.as_deref().unwrap_or(provision::DEFAULT_CUTLASS)),
            };
            (headers, cuda.map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("provisioning panicked")))))
        });
        let headers = headers?;
        let nvcc_tree = super::provision::nvcc_tree_if_needed(&prov, opts.cxx.as_deref())?;
        let compiler = Compiler::find(opts.cxx.as_deref(), nvcc_tree.as_deref())?;
        let cuda = match (opts.cuda_include.as_slice(), std::env::var_os("CUDA_HOME")) {
            ([_, ..], _) => provision::cuda_dirs(&opts.cuda_include)?,
            // nvcc brings its own CUDA headers.
            _ if compiler.kind == CompilerKind::Nvcc => {
                CudaHeaders { include_dirs: Vec::new(), identity: format!("nvcc's own ({})", compiler.version) }
            }
            ([], Some(home)) => provision::cuda_dirs(&[PathBuf::from(home).join("include")])?,
            ([], None) => match early.take() {
                Some(c) => c?,
                None => prov.cuda()?,
            },
        };
        Oracle::with_parts(headers, cuda, compiler, opts)
    }

    /// An oracle from already found parts.
    pub fn with_parts(headers: Headers, cuda: CudaHeaders, compiler: Compiler, opts: OracleOptions) -> Result<Oracle> {
        let driver_id = sha256_hex(format!("{DRIVER_HPP}\0{DRIVER_CPP}\0{PCH_HPP}").as_bytes());
        let key_base =
            format!("{FORMAT_VERSION}\0{}\0{}\0{}\0{driver_id}", headers.identity, cuda.identity, compiler.identity());
        let work = opts.work_dir.clone().unwrap_or_else(state_dir);
        let build_dir = work.join("build").join(&sha256_hex(key_base.as_bytes())[..16]);
        let cache = opts.cache.then(|| ResultCache::new(work.join("results")));
        Ok(Oracle { headers, cuda, compiler, opts, build_dir, key_base, cache, built: Mutex::new(None) })
    }

    /// One line saying which CuTe and which compiler.
    pub fn describe(&self) -> String {
        format!("{}; {}", self.headers.describe, self.compiler.describe())
    }

    /// What real CuTe prints for one expression.
    pub fn eval(&self, expr: &str) -> Outcome {
        self.run(&[expr.to_string()]).pop().unwrap_or_else(|| Outcome::Error("no result".into()))
    }

    /// What real CuTe prints for each expression, in order.
    pub fn run(&self, exprs: &[String]) -> Vec<Outcome> {
        self.run_with(exprs, codegen::case_body)
    }

    /// Like [`Oracle::run`], but no call of a case is a constant expression
    /// ([`codegen::case_body_runtime`]: CuTe's functions run at run time; `cargo xtask coverage`).
    pub fn run_runtime(&self, exprs: &[String]) -> Vec<Outcome> {
        self.run_with(exprs, codegen::case_body_runtime)
    }

    /// Like [`Oracle::run`], but rank-2 layouts are drawn with CuTe's `print_layout`.
    pub fn run_table(&self, exprs: &[String]) -> Vec<Outcome> {
        self.run_with(exprs, codegen::case_body_table)
    }

    /// What real CuTe prints for each parsed case, in order (`table`: rank-2 layouts drawn with
    /// CuTe's `print_layout`). The C++ is generated from the AST; the text is never reparsed.
    pub fn run_parsed(&self, exprs: &[&parse::Expr], table: bool) -> Vec<Outcome> {
        let body_of = if table { codegen::case_body_table } else { codegen::case_body };
        self.run_bodies(exprs.iter().map(|e| body_of(e).map_err(|e| format!("{e}"))).collect())
    }

    fn run_with(
        &self,
        exprs: &[String],
        body_of: fn(&parse::Expr) -> Result<String, codegen::CodegenError>,
    ) -> Vec<Outcome> {
        self.run_bodies(
            exprs
                .iter()
                .map(|text| match parse(text) {
                    Err(e) => Err(format!("{e}")),
                    Ok(ast) => body_of(&ast).map_err(|e| format!("{e}")),
                })
                .collect(),
        )
    }

    fn run_bodies(&self, bodies: Vec<Result<String, String>>) -> Vec<Outcome> {
        let mut out: Vec<Option<Outcome>> = vec![None; bodies.len()];
        let mut pending = Vec::new();
        for (index, body) in bodies.into_iter().enumerate() {
            match body {
                Err(msg) => out[index] = Some(Outcome::Unsupported(msg)),
                Ok(body) => {
                    let key = sha256_hex(format!("{}\0{body}", self.key_base).as_bytes());
                    if let Some(hit) = self.cache.as_ref().and_then(|c| c.get(&key)) {
                        out[index] = Some(hit);
                    } else {
                        pending.push(Pending { index, body, key });
                    }
                }
            }
        }
        // The same case twice is compiled once.
        let mut unique: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut work = Vec::new();
        for p in pending {
            let e = unique.entry(p.key.clone()).or_default();
            if e.is_empty() {
                work.push((p.key.clone(), p.body));
            }
            e.push(p.index);
        }
        if !work.is_empty() {
            let results = match self.ensure_built() {
                Err(e) => work.iter().map(|(k, _)| (k.clone(), Outcome::Error(e.clone()))).collect(),
                Ok(()) => self.compute(work),
            };
            for (key, outcome) in results {
                if let Some(c) = &self.cache {
                    if let Err(e) = c.put(&key, &outcome) {
                        eprintln!("warning: could not write the results cache: {e}");
                    }
                }
                for &i in unique.get(&key).into_iter().flatten() {
                    out[i] = Some(outcome.clone());
                }
            }
        }
        out.into_iter().map(|o| o.unwrap_or_else(|| Outcome::Error("case was lost".into()))).collect()
    }

    /// Parallel compile jobs: `--jobs` (default one per core), capped by the memory budget.
    pub fn jobs(&self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let budget = self.opts.memory_budget_mb.unwrap_or_else(limits::default_memory_budget_mb);
        limits::compile_jobs(self.opts.jobs, cores, budget, self.opts.compile_memory_mb.unwrap_or(0))
    }

    fn compile_limits(&self) -> RunLimits {
        RunLimits::compile(self.opts.compile_timeout, self.opts.compile_memory_mb)
    }

    /// Compile and run the cases (key, body), batched, one compile job per core.
    fn compute(&self, work: Vec<(String, String)>) -> Vec<(String, Outcome)> {
        let jobs = self.jobs();
        let per = work.len().div_ceil(jobs).clamp(1, self.opts.batch.max(1));
        let chunks: Vec<Vec<(usize, String, String)>> = work
            .into_iter()
            .enumerate()
            .map(|(i, (k, b))| (i, k, b))
            .collect::<Vec<_>>()
            .chunks(per)
            .map(<[_]>::to_vec)
            .collect();
        let ncases: usize = chunks.iter().map(Vec::len).sum();
        // A progress bar on stderr (drawn only when stderr is a terminal).
        let bar = if self.opts.verbose {
            let b = indicatif::ProgressBar::new(ncases as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "cutecheck: real CuTe {bar:30} {pos}/{len} cases ({elapsed}, about {eta} left)",
            ) {
                b.set_style(style);
            }
            b
        } else {
            indicatif::ProgressBar::hidden()
        };
        let run = || {
            chunks
                .into_par_iter()
                .flat_map_iter(|chunk| {
                    let cases: Vec<(usize, String)> = chunk.iter().map(|(i, _, b)| (*i, b.clone())).collect();
                    let res = self.batch(cases);
                    bar.inc(chunk.len() as u64);
                    let keys: BTreeMap<usize, String> = chunk.into_iter().map(|(i, k, _)| (i, k)).collect();
                    res.into_iter().map(move |(i, o)| (keys[&i].clone(), o)).collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        let out = match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
            Ok(pool) => pool.install(run),
            Err(_) => run(),
        };
        bar.finish_and_clear();
        if self.opts.verbose {
            eprintln!("cutecheck: real CuTe answered {ncases} new cases in {:.1?}", bar.elapsed());
        }
        out
    }

    /// One batch: compile; on failure blame cases and retry without them; then run.
    fn batch(&self, cases: Vec<(usize, String)>) -> Vec<(usize, Outcome)> {
        let mut out = Vec::new();
        let mut todo = cases;
        let interrupted = || Outcome::Error(super::interrupt::INTERRUPTED.to_string());
        while !todo.is_empty() {
            if super::interrupt::requested() {
                out.extend(todo.iter().map(|(i, _)| (*i, interrupted())));
                return out;
            }
            let dir = match tempfile::Builder::new().prefix("tu-").tempdir_in(&self.build_dir) {
                Ok(d) => d,
                Err(e) => {
                    out.extend(todo.iter().map(|(i, _)| (*i, Outcome::Error(format!("temporary directory: {e}")))));
                    return out;
                }
            };
            let (src, ranges) = translation_unit(&todo);
            if let Err(e) = std::fs::write(dir.path().join(TU), src) {
                out.extend(todo.iter().map(|(i, _)| (*i, Outcome::Error(format!("writing {TU}: {e}")))));
                return out;
            }
            let ran = match self.compile(dir.path()) {
                Ok(r) => r,
                Err(e) => {
                    out.extend(todo.iter().map(|(i, _)| (*i, Outcome::Error(format!("{e:#}")))));
                    return out;
                }
            };
            if ran.interrupted {
                out.extend(todo.iter().map(|(i, _)| (*i, interrupted())));
                return out;
            }
            if ran.success {
                // The compiler's overflow diagnostics of a case that compiled: CuTe's static
                // arithmetic wrapped (g++ folds `Int<589824>{} * Int<4096>{}` with a warning).
                let warned =
                    overflow_warnings(&self.clean(&String::from_utf8_lossy(&ran.stderr)), &ranges, self.compiler.kind);
                out.extend(self.execute(&dir.path().join("cases"), &todo).into_iter().map(|(i, o)| {
                    match (warned.get(&i), o) {
                        (Some(w), o) if !matches!(o, Outcome::Overflow(_)) => {
                            (i, Outcome::Overflow(format!("compile time: {w}")))
                        }
                        (_, o) => (i, o),
                    }
                }));
                if self.opts.keep_builds {
                    let _ = dir.keep();
                }
                return out;
            }
            let diag = self.clean(&String::from_utf8_lossy(&ran.stderr));
            if ran.timed_out || (todo.len() > 1 && blame(&diag, &ranges, self.compiler.kind).is_empty()) {
                if todo.len() == 1 {
                    let o = if ran.timed_out {
                        Outcome::Error(format!(
                            "the compiler took longer than {:?} and was stopped",
                            self.opts.compile_timeout
                        ))
                    } else {
                        single_rejection(&diag, &ranges, self.compiler.kind)
                    };
                    out.push((todo[0].0, o));
                    return out;
                }
                let right = todo.split_off(todo.len() / 2);
                out.extend(self.batch(todo));
                out.extend(self.batch(right));
                return out;
            }
            if todo.len() == 1 {
                out.push((todo[0].0, single_rejection(&diag, &ranges, self.compiler.kind)));
                return out;
            }
            let blamed = blame(&diag, &ranges, self.compiler.kind);
            todo.retain(|(i, _)| {
                if let Some(msg) = blamed.get(i) {
                    out.push((*i, refusal(msg.clone())));
                    false
                } else {
                    true
                }
            });
        }
        out
    }

    fn include_flags(&self) -> Vec<String> {
        let mut v =
            vec![format!("-I{}", self.build_dir.display()), format!("-I{}", self.headers.include_dir.display())];
        v.extend(self.cuda.include_dirs.iter().map(|d| format!("-I{}", d.display())));
        v
    }

    fn pch_path(&self) -> PathBuf {
        self.build_dir.join("pch").join("cutecheck_pch.hpp")
    }

    fn use_pch(&self) -> bool {
        self.opts.pch && self.compiler.supports_pch()
    }

    fn base_command(&self, cwd: &Path) -> Command {
        let mut c = Command::new(&self.compiler.program);
        c.current_dir(cwd).env("LC_ALL", "C").args(&self.compiler.flags);
        c
    }

    /// Build the driver object and the precompiled header once per toolchain (shared by
    /// processes: each file is written under a temporary name and renamed).
    fn ensure_built(&self) -> Result<(), String> {
        let mut g = self.built.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = &*g {
            return r.clone();
        }
        let r = self.build().map_err(|e| format!("{e:#}")).and_then(|()| self.sanity());
        *g = Some(r.clone());
        r
    }

    /// Build what the oracle needs and run its sanity cases; `Err` says why this oracle must
    /// not be trusted (every case of the session then gets that error, never a verdict).
    pub fn check(&self) -> Result<(), String> {
        self.ensure_built()
    }

    /// The sanity cases: cases with an answer real CuTe printed (every recorded CUTLASS version
    /// agrees, see the test), compiled and run before any other case in each session that
    /// compiles. A toolchain or a CuTe that gets them wrong (an empty `cute/tensor.hpp` in a
    /// `--cutlass-dir` turns every case into a rejection) stops the session with a clear error.
    fn sanity(&self) -> Result<(), String> {
        let mut cases = Vec::new();
        for (k, (expr, _)) in sanity_cases().iter().enumerate() {
            let ast = parse(expr).map_err(|e| format!("sanity case {expr}: {e}"))?;
            let body = codegen::case_body(&ast).map_err(|e| format!("sanity case {expr}: {e}"))?;
            cases.push((k, body));
        }
        let got: BTreeMap<usize, Outcome> = self.batch(cases).into_iter().collect();
        for (k, (expr, want)) in sanity_cases().iter().enumerate() {
            let g = got.get(&k).cloned().unwrap_or_else(|| Outcome::Error("no result".into()));
            if g != Outcome::Printed(want.clone()) {
                return Err(format!(
                    "the oracle's sanity case `{expr}` gave `{}` where real CuTe prints `{want}`: {} does not \
                     work as CuTe (a broken --cutlass-dir, headers or compiler?); stopping instead of judging",
                    g.lines().join(" | "),
                    self.describe()
                ));
            }
        }
        Ok(())
    }

    fn build(&self) -> Result<()> {
        let b = &self.build_dir;
        std::fs::create_dir_all(b.join("pch")).with_context(|| format!("creating {}", b.display()))?;
        write_if_changed(&b.join("driver.hpp"), DRIVER_HPP)?;
        write_if_changed(&b.join("driver.cpp"), DRIVER_CPP)?;
        let obj = b.join("driver.o");
        if !obj.is_file() {
            let tmp = b.join(format!("driver.o.{}", unique_suffix()));
            let mut c = self.base_command(b);
            // The CUDA headers: driver.cpp defines cuTensorMapEncodeTiled (CuTe's TMA descriptors).
            c.args(self.include_flags()).arg("-c").arg("driver.cpp").arg("-o").arg(&tmp);
            let r = run_with(c, &self.compile_limits())?;
            if r.interrupted {
                bail!("{}", super::interrupt::INTERRUPTED);
            }
            if r.timed_out {
                bail!(
                    "the compiler took longer than {:?} on the oracle driver and was stopped",
                    self.opts.compile_timeout
                );
            }
            if !r.success {
                bail!("compiling the oracle driver failed:\n{}", String::from_utf8_lossy(&r.stderr));
            }
            std::fs::rename(&tmp, &obj)?;
        }
        if self.use_pch() {
            let hdr = self.pch_path();
            write_if_changed(&hdr, PCH_HPP)?;
            let out = self.pch_output();
            if !out.is_file() {
                if self.opts.verbose {
                    eprintln!("cutecheck: building the precompiled header for cute/tensor.hpp");
                }
                let tmp = out.with_extension(unique_suffix());
                let mut c = self.base_command(b);
                c.args(self.include_flags()).arg("-x").arg("c++-header").arg(&hdr).arg("-o").arg(&tmp);
                let r = run_with(c, &self.compile_limits())?;
                if r.interrupted {
                    let _ = std::fs::remove_file(&tmp);
                    bail!("{}", super::interrupt::INTERRUPTED);
                }
                if r.timed_out {
                    let _ = std::fs::remove_file(&tmp);
                    bail!(
                        "the compiler took longer than {:?} on the precompiled header and was stopped",
                        self.opts.compile_timeout
                    );
                }
                if !r.success {
                    let _ = std::fs::remove_file(&tmp);
                    bail!(
                        "building the precompiled header failed (is {} a CUTLASS include directory?):\n{}",
                        self.headers.include_dir.display(),
                        self.clean(&String::from_utf8_lossy(&r.stderr))
                    );
                }
                std::fs::rename(&tmp, &out)?;
            }
        }
        Ok(())
    }

    fn pch_output(&self) -> PathBuf {
        let hdr = self.pch_path();
        match self.compiler.kind {
            CompilerKind::Clang => hdr.with_extension("hpp.pch"),
            _ => hdr.with_extension("hpp.gch"),
        }
    }

    fn compile(&self, dir: &Path) -> Result<super::compiler::Ran> {
        let mut c = self.base_command(dir);
        c.args(self.include_flags());
        if self.use_pch() {
            match self.compiler.kind {
                CompilerKind::Clang => c.arg("-include-pch").arg(self.pch_output()),
                _ => c.arg("-include").arg(self.pch_path()),
            };
        }
        if self.compiler.kind == CompilerKind::Nvcc {
            // nvcc's `-x cu` would apply to the driver object too: compile, then link.
            c.args(["-x", "cu", "-c", TU, "-o", "cases.o"]);
            let r = run_with(c, &self.compile_limits())?;
            if !r.success {
                return Ok(r);
            }
            let mut l = self.base_command(dir);
            l.arg("cases.o").arg(self.build_dir.join("driver.o")).arg("-o").arg("cases");
            return run_with(l, &self.compile_limits());
        }
        c.arg(TU).arg(self.build_dir.join("driver.o")).arg("-o").arg("cases");
        run_with(c, &self.compile_limits())
    }

    /// Run a built batch; cases whose record is missing (the binary itself died, or a case
    /// printed more than `case_output` bytes and was stopped) run again without the cases
    /// already answered.
    fn execute(&self, bin: &Path, cases: &[(usize, String)]) -> Vec<(usize, Outcome)> {
        let mut out = Vec::new();
        let mut todo: Vec<usize> = cases.iter().map(|(i, _)| *i).collect();
        // Every attempt answers at least one case or ends the loop (a second attempt that
        // answers nothing new is the last).
        let mut fruitless = 0;
        while !todo.is_empty() && fruitless < 2 {
            let mut c = Command::new(bin);
            c.env("CUTECHECK_CASE_TIMEOUT", self.opts.case_timeout.as_secs().max(1).to_string());
            if todo.len() < cases.len() {
                c.args(todo.iter().map(|i| i.to_string()));
            }
            let limits = RunLimits {
                time: self.opts.case_timeout * (todo.len() as u32 + 1) + Duration::from_secs(10),
                memory_mb: self.opts.run_memory_mb,
                stdout_max: self.opts.case_output,
                stdout_section: Some(BEGIN),
                stderr_max: limits::DIAGNOSTICS,
            };
            let ran = match run_with(c, &limits) {
                Ok(r) => r,
                Err(e) => {
                    out.extend(todo.iter().map(|i| (*i, Outcome::Error(format!("{e:#}")))));
                    return out;
                }
            };
            let text = String::from_utf8_lossy(&ran.stdout).replace('\0', "");
            let mut records = parse_records(&text);
            if ran.output_capped {
                if let Some(id) = last_begun(&text).filter(|id| !records.contains_key(id)) {
                    records.insert(
                        id,
                        Outcome::Error(format!(
                            "CuTe printed more than {} bytes for this case; it was stopped (limit: --case-output)",
                            self.opts.case_output
                        )),
                    );
                }
            }
            let before = todo.len();
            todo.retain(|i| match records.get(i) {
                Some(o) => {
                    out.push((*i, self.clean_outcome(o.clone())));
                    false
                }
                None => true,
            });
            if ran.interrupted {
                // Answered cases stay answered; the rest were never run to the end.
                out.extend(todo.drain(..).map(|i| (i, Outcome::Error(super::interrupt::INTERRUPTED.to_string()))));
                return out;
            }
            if todo.len() == before {
                fruitless += 1;
            }
        }
        out.extend(todo.into_iter().map(|i| (i, Outcome::Error("the case's program ended without a result".into()))));
        out
    }

    /// Remove machine-specific paths from compiler and program output.
    fn clean(&self, s: &str) -> String {
        let mut s = s.replace('\0', "");
        for d in std::iter::once(&self.headers.include_dir).chain(&self.cuda.include_dirs) {
            s = s.replace(&format!("{}/", d.display()), "");
        }
        s
    }

    fn clean_outcome(&self, o: Outcome) -> Outcome {
        match o {
            Outcome::Crashed(s) => {
                let s = self.clean(&s);
                match ubsan_overflow(&s) {
                    Some(at) => Outcome::Overflow(at),
                    None => Outcome::Crashed(s),
                }
            }
            o => o,
        }
    }
}

/// A name suffix no other thread or process uses at the same time (for files renamed into place).
fn unique_suffix() -> String {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("tmp-{}-{n}-{t}", std::process::id())
}

fn write_if_changed(p: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(p).ok().as_deref() != Some(text) {
        let dir = p.parent().ok_or_else(|| anyhow!("{} has no parent", p.display()))?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        std::io::Write::write_all(&mut tmp, text.as_bytes())?;
        tmp.persist(p).map_err(|e| e.error)?;
    }
    Ok(())
}

/// A case's lines in the generated file: (case id, first line, last line), 1-based.
type Ranges = Vec<(usize, usize, usize)>;

/// The generated translation unit for these cases (id, body), and where each case's function is.
fn translation_unit(cases: &[(usize, String)]) -> (String, Ranges) {
    let mut src = String::from(
        "// Generated by cutecheck's oracle from parsed expressions; do not edit.\n\
         #include \"driver.hpp\"\n\
         #include <cute/tensor.hpp>\n\
         #if __has_include(<cute/util/print_svg.hpp>)\n\
         #include <cute/util/print_svg.hpp>\n\
         #endif\n\
         using namespace cute;\n",
    );
    // The im2col TMA (tma_im2col_desc_args) is in a header cute/tensor.hpp does not include; only
    // the translation units that call it include it, so every other one stays as it was. The
    // header is new in CUTLASS 3.5: where it is missing (3.3, 3.4) each case's call is what fails
    // to compile ('make_im2col_tma_copy' was not declared), CuTe's refusal.
    if cases.iter().any(|(_, body)| body.contains("make_im2col_tma_copy(")) {
        src = src.replace(
            "using namespace cute;\n",
            "#if __has_include(<cute/atom/copy_traits_sm90_im2col.hpp>)\n\
             #include <cute/atom/copy_traits_sm90_im2col.hpp>\n\
             #endif\n\
             using namespace cute;\n",
        );
    }
    let mut ranges = Vec::new();
    for (id, body) in cases {
        let first = src.lines().count() + 1;
        src.push_str(&format!("static void cutecheck_case_{id}() {{\n{body}}}\n"));
        ranges.push((*id, first, src.lines().count()));
    }
    src.push_str("const cutecheck::Case cutecheck_cases[] = {\n");
    for (id, _) in cases {
        src.push_str(&format!("  {{{id}, cutecheck_case_{id}}},\n"));
    }
    src.push_str(&format!("}};\nconst int cutecheck_num_cases = {};\n", cases.len()));
    (src, ranges)
}

/// The snapshot the sanity cases' answers come from (recorded from real CuTe by the bless command).
const SANITY_SNAPSHOT: &str = include_str!("../../snapshots/layout_basics.snap");
/// The sanity cases (expressions of [`SANITY_SNAPSHOT`]).
const SANITY: &[&str] = &["make_layout((4,8))", "coalesce((_2,(_1,_6)):(_1,(_6,_2)))"];

/// The sanity cases with the answers real CuTe printed for them.
pub fn sanity_cases() -> Vec<(String, String)> {
    let recorded =
        crate::snapshot::parse_snapshot_body(crate::snapshot::snapshot_body_of(SANITY_SNAPSHOT).unwrap_or(""));
    SANITY
        .iter()
        .map(|e| {
            let want = recorded.iter().find(|(x, _)| x == e).map(|(_, r)| r.join("\n")).unwrap_or_default();
            (e.to_string(), want)
        })
        .collect()
}

/// The line the driver prints before each case's output.
const BEGIN: &str = "@@cutecheck-begin ";

/// The id of the last case whose output began in `text`.
fn last_begun(text: &str) -> Option<usize> {
    let p = text.rfind(BEGIN)?;
    text[p + BEGIN.len()..].lines().next()?.trim().parse().ok()
}

/// The records the driver printed: id -> outcome.
fn parse_records(text: &str) -> BTreeMap<usize, Outcome> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(b) = rest.find("@@cutecheck-begin ") {
        let after = &rest[b + "@@cutecheck-begin ".len()..];
        let Some(nl) = after.find('\n') else { break };
        let Ok(id) = after[..nl].trim().parse::<usize>() else {
            rest = &after[nl..];
            continue;
        };
        let body_start = &after[nl + 1..];
        let Some(e) = body_start.find("\n@@cutecheck-end ") else { break };
        let body = &body_start[..e];
        let tail = &body_start[e + "\n@@cutecheck-end ".len()..];
        let line = tail.lines().next().unwrap_or("");
        let mut parts = line.split_whitespace();
        let eid = parts.next().and_then(|x| x.parse::<usize>().ok());
        let status: Vec<&str> = parts.collect();
        if eid == Some(id) {
            let o = match status.as_slice() {
                ["ok"] => Outcome::Printed(body.to_string()),
                ["signal", n] => {
                    let n: i32 = n.parse().unwrap_or(-1);
                    let mut s = format!("{} (signal {n})", signal_name(n));
                    if !body.trim().is_empty() {
                        s.push('\n');
                        s.push_str(body.trim_end());
                    }
                    Outcome::Crashed(s)
                }
                ["exit", n] => {
                    let mut s = format!("exit status {n}");
                    if !body.trim().is_empty() {
                        s.push('\n');
                        s.push_str(body.trim_end());
                    }
                    Outcome::Crashed(s)
                }
                _ => Outcome::Error(format!("unreadable record end '{line}'")),
            };
            out.insert(id, o);
        }
        rest = tail;
    }
    out
}

/// The name the driver and the in-process oracle give a signal number.
pub(crate) fn signal_name(n: i32) -> &'static str {
    match n {
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        14 => "SIGALRM (case time limit)",
        _ => "signal",
    }
}

/// One diagnostic line's meaning: a reference to a line of the generated file, an error, or both.
fn tu_line(line: &str) -> Option<usize> {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix(&format!("{TU}:")) {
        return rest.split(':').next()?.parse().ok();
    }
    if let Some(rest) = t.strip_prefix(&format!("{TU}(")) {
        return rest.split(')').next()?.parse().ok();
    }
    // EDG (nvcc): "... at line 45 of cases.cpp"
    if let Some(p) = line.find(&format!(" of {TU}")) {
        let before = &line[..p];
        let n = before.rsplit(' ').next()?;
        return n.parse().ok();
    }
    None
}

fn error_text(line: &str) -> Option<&str> {
    line.find("error: ").map(|p| line[p + "error: ".len()..].trim())
}

/// CuTe's message from a static_assert diagnostic, in g++, clang and EDG (nvcc) spellings.
pub fn static_assert_message(err: &str) -> Option<String> {
    if let Some(p) = err.find("static assertion failed due to requirement") {
        let rest = &err[p..];
        return Some(match rest.rfind("': ") {
            Some(q) => rest[q + 3..].trim().to_string(),
            None => String::new(),
        });
    }
    if let Some(p) = err.find("static_assert failed due to requirement") {
        let rest = &err[p..];
        let msg = rest.rsplit('"').nth(1).unwrap_or("");
        return Some(msg.to_string());
    }
    if let Some(p) = err.find("static assertion failed with \"") {
        let rest = &err[p + "static assertion failed with \"".len()..];
        return Some(rest.trim_end_matches('"').to_string());
    }
    if let Some(p) = err.find("static assertion failed: ") {
        return Some(err[p + "static assertion failed: ".len()..].trim().to_string());
    }
    if err.trim_end().ends_with("static assertion failed") {
        return Some(String::new());
    }
    None
}

/// The rejection text for a case from the errors attributed to it: the first static_assert
/// message, else `compile error: <first error>` (shortened).
fn rejection_from(errors: &[String]) -> String {
    if let Some(m) = errors.iter().find_map(|e| static_assert_message(e)) {
        return if m.is_empty() { "static assertion failed".to_string() } else { m };
    }
    let first = errors.first().map(String::as_str).unwrap_or("the compiler failed without an error line");
    let mut s: String = first.chars().take(240).collect();
    if s.len() < first.len() {
        s.push_str("...");
    }
    format!("compile error: {s}")
}

/// Attribute each error in `diag` to the case whose function contains the generated-file line
/// the error points at (its own location, or the instantiation context: before the error for
/// g++, after it for clang and EDG).
fn blame(diag: &str, ranges: &Ranges, kind: CompilerKind) -> BTreeMap<usize, String> {
    attribute(diag, ranges, kind, error_text, false).into_iter().map(|(id, e)| (id, rejection_from(&e))).collect()
}

/// The diagnostics `pick` selects (it returns the diagnostic's text), each attributed to the case
/// whose function contains the generated-file line it points at, as [`blame`] does for errors;
/// `located`: each text says where (a line of CuTe's headers, or the case's own line).
fn attribute(
    diag: &str,
    ranges: &Ranges,
    kind: CompilerKind,
    pick: fn(&str) -> Option<&str>,
    located: bool,
) -> BTreeMap<usize, Vec<String>> {
    let case_of = |line: usize| ranges.iter().find(|(_, a, b)| (*a..=*b).contains(&line)).map(|(id, _, _)| *id);
    let lines: Vec<&str> = diag.lines().collect();
    let mut found: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut last_ref: Option<usize> = None;
    for (k, l) in lines.iter().enumerate() {
        let r = tu_line(l).and_then(case_of);
        if let Some(e) = pick(l) {
            let own = r;
            let ctx = match kind {
                CompilerKind::Gcc => last_ref,
                _ => lines[k + 1..]
                    .iter()
                    .take_while(|x| error_text(x).is_none() && warning_text(x).is_none())
                    .find_map(|x| tu_line(x).and_then(case_of)),
            };
            if let Some(id) = own.or(ctx) {
                let at = match l.split(": ").next() {
                    _ if !located => String::new(),
                    Some(loc) if own.is_none() && !loc.trim_start().starts_with(TU) => format!("{}: ", loc.trim()),
                    _ => "the case's own line: ".to_string(),
                };
                found.entry(id).or_default().push(format!("{at}{e}"));
            }
        }
        if r.is_some() {
            last_ref = r;
        }
    }
    found
}

fn warning_text(line: &str) -> Option<&str> {
    line.find("warning: ").map(|p| line[p + "warning: ".len()..].trim())
}

/// Whether a diagnostic's text says that a computation overflowed `int`: g++'s -Woverflow
/// (`integer overflow in expression of type 'int' results in '-1879048192'`), its error
/// `overflow in constant expression`, clang's -Winteger-overflow (`overflow in expression;
/// result is ... with type 'int'`), and a narrowing of a constant that does not fit (-Wnarrowing,
/// `narrowing conversion of '4294967296' from 'long int' to 'int'`).
pub fn is_overflow_diagnostic(text: &str) -> bool {
    text.contains("[-Woverflow]")
        || text.contains("[-Winteger-overflow]")
        || text.contains("integer overflow in expression")
        || text.contains("overflow in constant expression")
        || text.contains("overflow in expression; result is")
        || (text.contains("narrowing conversion of") && text.contains("[-Wnarrowing]"))
}

/// The overflow warnings of a compile that succeeded, by case: (case id, `where: what`).
fn overflow_warnings(diag: &str, ranges: &Ranges, kind: CompilerKind) -> BTreeMap<usize, String> {
    fn pick(l: &str) -> Option<&str> {
        warning_text(l).filter(|w| is_overflow_diagnostic(w))
    }
    attribute(diag, ranges, kind, pick, true)
        .into_iter()
        .filter_map(|(id, w)| Some((id, w.into_iter().next()?)))
        .collect()
}

/// The outcome of a compile-time refusal: CuTe's overflow (a constant expression that overflows
/// is an error) or a rejection.
fn refusal(msg: String) -> Outcome {
    match msg.strip_prefix("compile error: ") {
        Some(e) if is_overflow_diagnostic(e) => Outcome::Overflow(format!("compile time: {e}")),
        _ => Outcome::Rejected(msg),
    }
}

/// UBSan's report of a signed overflow in a case's record (`cute/layout.hpp:1108:80: runtime
/// error: signed integer overflow: 258048 * 10752 cannot be represented in type 'int'`, or
/// `negation of -2147483648 cannot be represented ...`), as one line.
pub fn ubsan_overflow(record: &str) -> Option<String> {
    record
        .lines()
        .find(|l| {
            l.contains("runtime error: ")
                && (l.contains("signed integer overflow")
                    || (l.contains("negation of") && l.contains("cannot be represented")))
        })
        .map(|l| l.trim().to_string())
}

/// The outcome of a case compiled alone that failed: a rejection when the errors point into the
/// case's own code (directly or through the instantiation context), else a failure of the oracle
/// (a broken toolchain, a link error), which is reported but never cached.
fn single_rejection(diag: &str, ranges: &Ranges, kind: CompilerKind) -> Outcome {
    if let Some(msg) = blame(diag, ranges, kind).into_values().next() {
        return refusal(msg);
    }
    let errors: Vec<&str> = diag.lines().filter(|l| error_text(l).is_some()).take(3).collect();
    let shown = if errors.is_empty() { diag.lines().rev().take(5).collect::<Vec<_>>() } else { errors };
    Outcome::Error(format!("the compiler failed outside the case's code: {}", shown.join(" | ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanity_answers_are_recorded_by_real_cute_in_every_version() {
        let cases = sanity_cases();
        assert_eq!(cases.len(), SANITY.len());
        for (e, want) in &cases {
            assert!(!want.is_empty() && !want.contains("rejected"), "{e}: {want:?}");
            let dir = crate::oracle::repo_root().join("snapshots/versions");
            for v in std::fs::read_dir(&dir).unwrap().flatten() {
                let f = std::fs::read_to_string(v.path().join("layout_basics.snap")).unwrap();
                let recorded = crate::snapshot::parse_snapshot_body(crate::snapshot::snapshot_body_of(&f).unwrap());
                let r = recorded.iter().find(|(x, _)| x == e).map(|(_, r)| r.join("\n"));
                assert_eq!(r.as_ref(), Some(want), "{e} in {}", v.path().display());
            }
        }
    }

    #[test]
    fn records_are_parsed() {
        let t = "\n@@cutecheck-begin 3\n_4:_1\n@@cutecheck-end 3 ok\n\n@@cutecheck-begin 5\nboom\n@@cutecheck-end 5 signal 8\n\n@@cutecheck-begin 6\n";
        let r = parse_records(t);
        assert_eq!(r[&3], Outcome::Printed("_4:_1".into()));
        assert_eq!(r[&5], Outcome::Crashed("SIGFPE (signal 8)\nboom".into()));
        assert!(!r.contains_key(&6));
    }

    #[test]
    fn static_assert_spellings() {
        let g = "static assertion failed: Non-injective Layout detected in complement.";
        assert_eq!(static_assert_message(g).unwrap(), "Non-injective Layout detected in complement.");
        let c = "static assertion failed due to requirement '!cute::C<true>::value': Non-injective Layout detected in complement.";
        assert_eq!(static_assert_message(c).unwrap(), "Non-injective Layout detected in complement.");
        let e = "static assertion failed with \"Non-injective Layout detected in complement.\"";
        assert_eq!(static_assert_message(e).unwrap(), "Non-injective Layout detected in complement.");
        assert!(static_assert_message("no matching function for call to 'f()'").is_none());
    }

    /// A "compiler" that answers --version and otherwise hangs: the oracle must stop it and
    /// report the case, not hang. Needs no CuTe (the compile never gets that far).
    #[test]
    fn a_hanging_compiler_is_stopped() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let fake = t.path().join("fake-g++");
        std::fs::write(&fake, "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'g++ (fake) 0'; exit 0; fi\nsleep 60\n")
            .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let compiler = Compiler::find(Some(fake.to_str().unwrap()), None).unwrap();
        let headers = Headers { include_dir: t.path().into(), identity: "none".into(), describe: "none".into() };
        let cuda = CudaHeaders { include_dirs: vec![], identity: "none".into() };
        let opts = OracleOptions {
            compile_timeout: Duration::from_secs(1),
            cache: false,
            work_dir: Some(t.path().join("work")),
            ..OracleOptions::default()
        };
        let o = Oracle::with_parts(headers, cuda, compiler, opts).unwrap();
        let start = std::time::Instant::now();
        let r = o.eval("_1");
        assert!(start.elapsed() < Duration::from_secs(20), "took {:?}", start.elapsed());
        assert!(matches!(&r, Outcome::Error(m) if m.contains("took longer")), "{r:?}");
    }

    #[test]
    fn cute_overflow_is_read_from_ubsan_and_the_compiler() {
        // UBSan's line in a case's record (the driver sends the child's stderr there).
        let rec = "exit status 1\ncute/layout.hpp:1108:80: runtime error: signed integer overflow: 258048 * 10752 \
                   cannot be represented in type 'int'";
        assert_eq!(
            ubsan_overflow(rec).as_deref(),
            Some(
                "cute/layout.hpp:1108:80: runtime error: signed integer overflow: 258048 * 10752 cannot be \
                 represented in type 'int'"
            )
        );
        assert_eq!(ubsan_overflow("SIGFPE (signal 8)"), None);
        assert_eq!(ubsan_overflow("exit status 1\nx.hpp:3:1: runtime error: load of misaligned address"), None);
        // g++'s -Woverflow on the case's own line (g++ 12, LC_ALL=C), attributed to that case.
        let d = "cases.cpp: In function 'void cutecheck_case_1()':\n\
cases.cpp:10:39: warning: integer overflow in expression of type 'cute::C<589824>::value_type' {aka 'int'} results in '-1879048192' [-Woverflow]\n\
   10 |   print(Int<589824>{} * Int<4096>{});\n";
        let ranges = vec![(0, 5, 8), (1, 9, 12)];
        let w = overflow_warnings(d, &ranges, CompilerKind::Gcc);
        assert_eq!(w.keys().copied().collect::<Vec<_>>(), vec![1]);
        assert!(w[&1].starts_with("the case's own line: integer overflow in expression"), "{}", w[&1]);
        // In CuTe's headers, through the instantiation context: the header's line is named.
        let d = "cute/int_tuple.hpp: In instantiation of 'constexpr auto cute::product(...)':\n\
cases.cpp:6:39:   required from here\n\
cute/int_tuple.hpp:313:16: warning: integer overflow in expression of type 'int' results in '0' [-Woverflow]\n";
        let w = overflow_warnings(d, &ranges, CompilerKind::Gcc);
        assert_eq!(
            w[&0],
            "cute/int_tuple.hpp:313:16: integer overflow in expression of type 'int' results in '0' [-Woverflow]"
        );
        // Other warnings are not overflow.
        let d = "cases.cpp:10:5: warning: unused variable 'x' [-Wunused-variable]\n";
        assert!(overflow_warnings(d, &ranges, CompilerKind::Gcc).is_empty());
        // A constant expression that overflows is an error: CuTe overflows at compile time.
        assert!(
            matches!(refusal("compile error: overflow in constant expression [-fpermissive]".into()), Outcome::Overflow(m) if m.starts_with("compile time: "))
        );
        assert!(matches!(refusal("Non-injective Layout detected in complement.".into()), Outcome::Rejected(_)));
    }

    #[test]
    fn gcc_context_blames_the_right_case() {
        // Shape of a real g++ 12 diagnostic (LC_ALL=C), paths shortened.
        let d = "In file included from cute/tensor.hpp:33,\n                 from cases.cpp:3:\n\
cute/layout.hpp: In instantiation of 'constexpr auto cute::detail::complement(...)':\n\
cute/layout.hpp:1237:28:   required from 'constexpr auto cute::complement(...)'\n\
cases.cpp:9:39:   required from here\n\
cute/layout.hpp:1213:60: error: static assertion failed: Non-injective Layout detected in complement.\n";
        let ranges = vec![(0, 5, 8), (1, 9, 12)];
        let b = blame(d, &ranges, CompilerKind::Gcc);
        assert_eq!(b.len(), 1);
        assert_eq!(b[&1], "Non-injective Layout detected in complement.");
    }
}
