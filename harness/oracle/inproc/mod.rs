//! The in-process CuTe oracle: CuTe's layout algebra on dynamic layouts at fuzzing speed.
//!
//! CuTe with dynamic ints needs no recompilation per value, only per nesting structure. `cpp/ffi`
//! instantiates the algebra for a menu of nesting profiles (every profile of rank 1-3 whose modes
//! are ints, pairs or triples of ints, a leaf, and rank 4 of ints) behind a C ABI; build.rs
//! compiles it with `cc` and generates [`ffi`] with `bindgen` when CuTe is provisioned
//! (`cfg(cutecheck_ffi)`; otherwise [`available`] is false and the build says so).
//!
//! - [`encode`]: which cases go in-process (all-dynamic layout literals of a menu profile, for an
//!   operation and profiles the library instantiates) and their requests.
//! - [`pool`]: forked workers, so CuTe's asserts, aborts and SIGFPE end a worker, not the harness.
//! - [`InProcess`]: a [`crate::case::Oracle`] answering the cases of the menu (others:
//!   `Unsupported`).
//! - [`Routing`]: in-process where the menu has the case, the compiled driver for everything else.
//! - [`gen`]: random dynamic cases of the menu (`cargo xtask conformance --dynamic-cases N`).
//! - [`provision`]: what xtask provisions and sets so that build.rs builds the library.

pub mod gen;
pub mod provision;

#[cfg(cutecheck_ffi)]
pub mod encode;
#[cfg(cutecheck_ffi)]
pub mod ffi;
#[cfg(cutecheck_ffi)]
pub mod pool;

use crate::case::{Case, Oracle as CaseOracle, Outcome};

/// Whether this build has the in-process library.
pub const fn available() -> bool {
    cfg!(cutecheck_ffi)
}

/// The CUTLASS version ("4.2.0") the library was built against, if it was built.
pub fn built_for() -> Option<&'static str> {
    option_env!("CUTECHECK_FFI_BUILT_FOR")
}

/// The in-process oracle: cases of the menu through forked workers calling CuTe.
pub struct InProcess {
    #[cfg(cutecheck_ffi)]
    menu: encode::Menu,
    #[cfg(cutecheck_ffi)]
    pool: pool::Pool,
}

/// Why there is no in-process oracle in this build.
pub const OFF: &str = "the in-process CuTe oracle is not built (build.rs: CuTe was not provisioned for this build; \
                       `cargo xtask test` / `cargo xtask conformance` provision it)";

impl InProcess {
    /// An oracle with `workers` worker processes (default: one per core); `None` without the library.
    pub fn new(workers: Option<usize>) -> Option<InProcess> {
        #[cfg(cutecheck_ffi)]
        {
            let n = workers.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            Some(InProcess { menu: encode::Menu::load(), pool: pool::Pool::new(n) })
        }
        #[cfg(not(cutecheck_ffi))]
        {
            let _ = workers;
            None
        }
    }

    /// Whether `case` goes in-process (`Err`: why not).
    pub fn takes(&self, case: &Case) -> Result<(), &'static str> {
        #[cfg(cutecheck_ffi)]
        {
            self.menu.encode(&case.expr).map(|_| ())
        }
        #[cfg(not(cutecheck_ffi))]
        {
            let _ = case;
            Err(OFF)
        }
    }

    /// Kill every worker process (tests: they are found dead and replaced when next used).
    #[cfg(test)]
    fn kill_workers_for_test(&self) {
        #[cfg(cutecheck_ffi)]
        self.pool.kill_all_for_test();
    }

    /// Outcomes of expressions (already parsed), in order.
    pub fn run_exprs(&self, exprs: &[&crate::expr::Expr]) -> Vec<Outcome> {
        #[cfg(cutecheck_ffi)]
        {
            let mut out: Vec<Option<Outcome>> = vec![None; exprs.len()];
            let mut reqs = Vec::with_capacity(exprs.len());
            let mut at = Vec::with_capacity(exprs.len());
            for (k, e) in exprs.iter().enumerate() {
                match self.menu.encode(e) {
                    Ok(r) => {
                        reqs.push(r);
                        at.push(k);
                    }
                    Err(why) => out[k] = Some(Outcome::Unsupported(format!("in-process oracle: {why}"))),
                }
            }
            for (k, a) in at.into_iter().zip(self.pool.run(&reqs)) {
                out[k] = Some(outcome(a));
            }
            out.into_iter().map(|o| o.unwrap_or_else(|| Outcome::Error("no answer".into()))).collect()
        }
        #[cfg(not(cutecheck_ffi))]
        {
            exprs.iter().map(|_| Outcome::Unsupported(OFF.into())).collect()
        }
    }
}

#[cfg(cutecheck_ffi)]
fn outcome(a: pool::Answer) -> Outcome {
    use ffi::cc_status as S;
    match a {
        pool::Answer::Done { status, text } if status == S::CC_OK as i32 => Outcome::Printed(text),
        pool::Answer::Done { status, .. } if status == S::CC_UNSUPPORTED as i32 => {
            Outcome::Unsupported("in-process oracle: profiles not instantiated".into())
        }
        pool::Answer::Done { status, text } if status == S::CC_TRUNCATED as i32 => Outcome::Error(format!(
            "in-process oracle: result longer than {} bytes: {}...",
            pool::OUT_CAP,
            &text[..text.len().min(80)]
        )),
        pool::Answer::Done { status, .. } => Outcome::Error(format!("in-process oracle: status {status}")),
        pool::Answer::Crashed(s) => Outcome::Crashed(s),
        pool::Answer::Failed(s) => Outcome::Error(format!("in-process oracle: {s}")),
    }
}

impl CaseOracle for InProcess {
    fn describe(&self) -> String {
        #[cfg(cutecheck_ffi)]
        {
            format!(
                "in-process CuTe (CUTLASS {}, cpp/ffi, {} nesting profiles, {} worker processes)",
                built_for().unwrap_or("?"),
                self.menu.profiles(),
                self.pool.size()
            )
        }
        #[cfg(not(cutecheck_ffi))]
        {
            OFF.to_string()
        }
    }

    fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
        let exprs: Vec<&crate::expr::Expr> = cases.iter().map(|c| &c.expr).collect();
        self.run_exprs(&exprs)
    }
}

/// Dynamic cases of the menu in-process, everything else through another oracle (the compiled
/// driver).
pub struct Routing<'a> {
    pub inproc: Option<InProcess>,
    pub other: &'a dyn CaseOracle,
}

impl Routing<'_> {
    /// How many of `cases` go in-process.
    pub fn in_process_count(&self, cases: &[&Case]) -> usize {
        self.inproc.as_ref().map_or(0, |i| cases.iter().filter(|c| i.takes(c).is_ok()).count())
    }
}

impl CaseOracle for Routing<'_> {
    fn describe(&self) -> String {
        match &self.inproc {
            Some(i) => {
                format!("{} for dynamic cases of its menu; {} for the rest", i.describe(), self.other.describe())
            }
            None => self.other.describe(),
        }
    }

    fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
        let Some(inproc) = &self.inproc else { return self.other.run(cases) };
        let (mut mine, mut theirs) = (Vec::new(), Vec::new());
        for (k, c) in cases.iter().enumerate() {
            if inproc.takes(c).is_ok() {
                mine.push(k);
            } else {
                theirs.push(k);
            }
        }
        let mut out: Vec<Option<Outcome>> = vec![None; cases.len()];
        let a = inproc.run(&mine.iter().map(|&k| cases[k]).collect::<Vec<_>>());
        let b = self.other.run(&theirs.iter().map(|&k| cases[k]).collect::<Vec<_>>());
        for (k, o) in mine.into_iter().zip(a).chain(theirs.into_iter().zip(b)) {
            out[k] = Some(o);
        }
        out.into_iter().map(|o| o.unwrap_or_else(|| Outcome::Error("no answer".into()))).collect()
    }
}

#[cfg(test)]
mod tests;
