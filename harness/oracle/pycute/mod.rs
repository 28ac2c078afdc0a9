//! pycute, the Python reference of CuTe's layout algebra shipped in the same nvidia-cutlass wheel,
//! as a peer oracle ([`Pycute`] implements [`crate::case::Oracle`]).
//!
//! - Translation: a case's parsed AST is written as one line of Python by
//!   [`spelling::pycute_text`] (integers, `None` for `_`, tuples, `Layout(shape, stride)` and the
//!   pycute functions [`spelling::spelling`] names); a case without a pycute form is
//!   [`Outcome::Unsupported`] before any Python runs.
//! - Workers: a pool of long-lived `python3` processes (one per core unless
//!   [`PycuteOptions::jobs`] says otherwise), each running `worker.py` (compiled in): pycute is
//!   imported once, then one case a line in, one JSON answer a line out. Cases are handed to the
//!   workers one at a time from a shared queue, and answers come back in input order. Progress
//!   on stderr: a bar on a terminal, a line every few seconds in a log ([`crate::oracle::progress`]).
//! - Time bound: each case may take [`PycuteOptions::case_timeout`] (default
//!   [`crate::limits::PYCUTE_CASE_SECS`]); a worker still busy then is killed, the case is that
//!   oracle's timeout ([`timeout_outcome`]), and a fresh worker takes the next case. A worker that
//!   dies is replaced the same way. Each worker's address space is bounded by
//!   [`crate::limits::RUN_MEMORY_MB`], like a run of the compiled driver.
//! - Answers ([`PycuteAnswer`]): pycute's `str()` of the result, and its structure where pycute
//!   has one: a layout's values over its domain (`r(0) .. r(size-1)`, for at most
//!   [`crate::limits::WALK`] coordinates) or an integer, so that a judge compares pycute with CuTe
//!   as a function (pycute has no static-ness, and prints without `_`). An exception pycute raises
//!   is its refusal ([`Outcome::Rejected`]).

pub mod spelling;

pub use crate::case::PyValue;

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

use crate::case::{Case, Outcome};

/// The worker script, compiled in (run with `python3 -c`).
pub const WORKER_PY: &str = include_str!("worker.py");

/// The outcome of a case pycute did not answer within `limit`. The one place this is made.
pub fn timeout_outcome(limit: Duration) -> Outcome {
    Outcome::Error(format!("timeout: pycute took more than {} s", limit.as_secs_f64()))
}

/// Options of the pycute oracle.
#[derive(Clone, Debug)]
pub struct PycuteOptions {
    /// Workers (default: one per core).
    pub jobs: Option<usize>,
    /// Longest wait for one case's answer; a worker still busy then is killed and replaced.
    pub case_timeout: Duration,
    /// Longest wait for a worker to start (python3 up, pycute imported).
    pub start_timeout: Duration,
    /// Progress on stderr for runs of many cases: a bar when stderr is a terminal, else a line
    /// every few seconds (crate::oracle::progress).
    pub progress: bool,
}

impl Default for PycuteOptions {
    fn default() -> Self {
        PycuteOptions {
            jobs: None,
            case_timeout: Duration::from_secs(crate::limits::PYCUTE_CASE_SECS),
            start_timeout: Duration::from_secs(60),
            progress: true,
        }
    }
}

/// pycute's answer to one case.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PycuteAnswer {
    /// [`Outcome::Printed`] with pycute's `str()` of the result, [`Outcome::Rejected`] with the
    /// exception pycute raised, [`Outcome::Unsupported`] (no pycute form), or [`Outcome::Error`]
    /// (the oracle failed: a timeout, a worker that died or could not start).
    pub outcome: Outcome,
    /// The line of Python asked (`None`: the case has no pycute form).
    pub code: Option<String>,
    /// The result's structure, when pycute returned one.
    pub value: Option<PyValue>,
    /// The exception pycute raised (`TypeName: message`).
    pub error: Option<String>,
    /// The case exceeded the time limit (its worker was killed).
    pub timed_out: bool,
    /// Wall time of the case in its worker, in seconds (`None` when not asked).
    pub seconds: Option<f64>,
}

impl PycuteAnswer {
    /// The reply the run carries: the outcome and the result as a function.
    pub fn into_reply(self) -> crate::case::Reply {
        let structure =
            crate::case::Structure::Function { value: self.value, error: self.error, timed_out: self.timed_out };
        crate::case::Reply { outcome: self.outcome, structure: Some(structure) }
    }

    fn of(outcome: Outcome, code: Option<String>) -> PycuteAnswer {
        PycuteAnswer { outcome, code, value: None, error: None, timed_out: false, seconds: None }
    }

    /// pycute's `str()` of the result, if it returned one.
    pub fn text(&self) -> Option<&str> {
        self.outcome.printed()
    }

    /// The layout's values over its domain, if pycute returned a layout small enough to walk.
    pub fn values(&self) -> Option<&[i64]> {
        match &self.value {
            Some(PyValue::Layout { values: Some(v), .. }) => Some(v),
            _ => None,
        }
    }

    /// The integer pycute returned.
    pub fn number(&self) -> Option<i64> {
        match self.value {
            Some(PyValue::Number { value }) => Some(value),
            _ => None,
        }
    }

    /// Read one answer line of the worker.
    fn from_line(line: &str, code: String, seconds: f64) -> PycuteAnswer {
        let mut a = PycuteAnswer::of(Outcome::Error(String::new()), Some(code));
        a.seconds = Some(seconds);
        // Typed, not through serde_json::Value: a layout's values are up to limits::WALK numbers.
        let l: Line = match serde_json::from_str(line) {
            Ok(l) => l,
            Err(e) => {
                a.outcome = Outcome::Error(format!("unreadable pycute answer ({e}): {line:.200}"));
                return a;
            }
        };
        a.outcome = match l {
            Line { error: Some(e), .. } => {
                a.error = Some(e.clone());
                Outcome::Rejected(e)
            }
            Line { failed: Some(f), .. } => Outcome::Error(f),
            Line { text: Some(text), layout, size, values, number, .. } => {
                a.value = Some(match (layout, number) {
                    (true, _) => PyValue::Layout { size, values },
                    (false, Some(value)) => PyValue::Number { value },
                    (false, None) => PyValue::Other,
                });
                Outcome::Printed(text)
            }
            _ => Outcome::Error(format!("unreadable pycute answer: {line:.200}")),
        };
        a
    }
}

/// One answer line of the worker (worker.py says what each field means).
#[derive(Deserialize)]
struct Line {
    text: Option<String>,
    #[serde(default)]
    layout: bool,
    size: Option<i64>,
    values: Option<Vec<i64>>,
    number: Option<i64>,
    error: Option<String>,
    failed: Option<String>,
}

/// The pycute oracle: a pool of python3 workers over the pycute of one wheel.
pub struct Pycute {
    command: Vec<OsString>,
    root: PathBuf,
    pub opts: PycuteOptions,
    workers: Vec<Mutex<Option<Worker>>>,
    /// Why no worker could be started (then every later case is answered with it at once).
    broken: OnceLock<String>,
}

impl Pycute {
    /// pycute from `root`, the directory that holds `pycute/` (a wheel's top directory).
    pub fn at(root: &Path, opts: PycuteOptions) -> Result<Pycute> {
        if !root.join("pycute").join("layout.py").is_file() {
            bail!("no pycute in {} (pycute comes with the nvidia-cutlass wheel)", root.display());
        }
        let command = vec![
            OsString::from("python3"),
            OsString::from("-c"),
            OsString::from(WORKER_PY),
            root.as_os_str().to_owned(),
            OsString::from(crate::limits::WALK.to_string()),
            OsString::from(crate::limits::RUN_MEMORY_MB.to_string()),
        ];
        let n = opts.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
        Ok(Pycute {
            command,
            root: root.to_path_buf(),
            opts,
            workers: (0..n).map(|_| Mutex::new(None)).collect(),
            broken: OnceLock::new(),
        })
    }

    /// pycute from the wheel a CuTe include directory comes from (the nearest directory at or
    /// above `include_dir` that holds `pycute/`).
    pub fn next_to(include_dir: &Path, opts: PycuteOptions) -> Result<Pycute> {
        match include_dir.ancestors().find(|d| d.join("pycute").join("layout.py").is_file()) {
            Some(root) => Pycute::at(root, opts),
            None => {
                bail!("no pycute next to {} (pycute comes with the nvidia-cutlass wheel)", include_dir.display())
            }
        }
    }

    /// pycute from `$PYCUTE_DIR` or the provisioned wheel ([`crate::oracle::pycute_dir`]).
    pub fn provisioned(opts: PycuteOptions) -> Result<Pycute> {
        match crate::oracle::pycute_dir() {
            Some(root) => Pycute::at(&root, opts),
            None => bail!("pycute not found (run `cargo xtask cutlass` or set PYCUTE_DIR)"),
        }
    }

    /// The directory that holds `pycute/`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Number of workers.
    pub fn jobs(&self) -> usize {
        self.workers.len()
    }

    /// pycute's answer to each case, in order.
    pub fn answers(&self, cases: &[&Case]) -> Vec<PycuteAnswer> {
        let codes: Vec<std::result::Result<String, String>> =
            cases.iter().map(|c| spelling::pycute_text(&c.expr).and_then(|t| one_line(t, &c.text))).collect();
        let todo: Vec<(usize, &str)> =
            codes.iter().enumerate().filter_map(|(i, c)| Some((i, c.as_ref().ok()?.as_str()))).collect();
        // A terminal gets indicatif's bar; a log (every CI) a progress line every few seconds.
        let log = crate::oracle::progress::stderr_is_log();
        let bar = if self.opts.progress && todo.len() >= 64 && !log {
            let b = indicatif::ProgressBar::new(todo.len() as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "cutecheck: pycute {bar:30} {pos}/{len} cases ({elapsed}, about {eta} left)",
            ) {
                b.set_style(style);
            }
            b
        } else {
            indicatif::ProgressBar::hidden()
        };
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let mut asked: Vec<(usize, PycuteAnswer)> = Vec::with_capacity(todo.len());
        std::thread::scope(|s| {
            let ticking = (self.opts.progress && todo.len() >= 64 && log)
                .then(|| crate::oracle::progress::ticker(s, "pycute", &done, todo.len()));
            let handles: Vec<_> = self
                .workers
                .iter()
                .take(todo.len())
                .map(|slot| {
                    s.spawn(|| {
                        let mut w = slot.lock().unwrap_or_else(|p| p.into_inner());
                        let mut got = Vec::new();
                        while let Some(&(i, code)) = todo.get(next.fetch_add(1, Ordering::SeqCst)) {
                            got.push((i, self.ask(&mut w, code)));
                            done.fetch_add(1, Ordering::Relaxed);
                            bar.inc(1);
                        }
                        got
                    })
                })
                .collect();
            for h in handles {
                asked.extend(h.join().unwrap_or_default());
            }
            drop(ticking);
        });
        bar.finish_and_clear();
        let mut out: Vec<Option<PycuteAnswer>> = codes
            .into_iter()
            .map(|c| match c {
                Ok(_) => None,
                Err(why) => Some(PycuteAnswer::of(Outcome::Unsupported(why), None)),
            })
            .collect();
        for (i, a) in asked {
            out[i] = Some(a);
        }
        out.into_iter()
            .map(|a| a.unwrap_or_else(|| PycuteAnswer::of(Outcome::Error("no answer from pycute".into()), None)))
            .collect()
    }

    /// One case on one worker slot (started if needed; killed and emptied on a timeout or death).
    fn ask(&self, slot: &mut Option<Worker>, code: &str) -> PycuteAnswer {
        let failed = |why: String| PycuteAnswer::of(Outcome::Error(why), Some(code.to_string()));
        if let Some(why) = self.broken.get() {
            return failed(why.clone());
        }
        if slot.is_none() {
            match Worker::start(&self.command, self.opts.start_timeout) {
                Ok(w) => *slot = Some(w),
                Err(e) => {
                    let why = format!("the pycute worker could not start: {e:#}");
                    return failed(self.broken.get_or_init(|| why).clone());
                }
            }
        }
        let Some(w) = slot.as_mut() else { return failed("no pycute worker".into()) };
        let start = Instant::now();
        match w.ask(code, self.opts.case_timeout) {
            Ok(line) => PycuteAnswer::from_line(&line, code.to_string(), start.elapsed().as_secs_f64()),
            Err(Failure::TimedOut) => {
                drop(slot.take());
                let mut a = failed(String::new());
                a.outcome = timeout_outcome(self.opts.case_timeout);
                a.timed_out = true;
                a.seconds = Some(start.elapsed().as_secs_f64());
                a
            }
            Err(Failure::Died(why)) => {
                drop(slot.take());
                failed(format!("the pycute worker died on this case: {why}"))
            }
        }
    }
}

/// The case's Python as one line (the worker reads one case a line).
fn one_line(code: String, text: &str) -> std::result::Result<String, String> {
    if code.contains(['\n', '\r']) {
        return Err(format!("the Python of `{text}` is not one line"));
    }
    Ok(code)
}

impl crate::case::Oracle for Pycute {
    fn describe(&self) -> String {
        let wheel = self.root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        format!(
            "pycute from {wheel} ({}; python3, {} workers, {} s per case)",
            self.root.display(),
            self.workers.len(),
            self.opts.case_timeout.as_secs_f64()
        )
    }
    fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
        self.answers(cases).into_iter().map(|a| a.outcome).collect()
    }
    fn caps(&self) -> crate::case::Caps {
        crate::case::Caps::PYCUTE
    }
    fn name(&self) -> &'static str {
        "pycute"
    }
    fn replies(&self, cases: &[&Case]) -> Vec<crate::case::Reply> {
        self.answers(cases).into_iter().map(PycuteAnswer::into_reply).collect()
    }
}

enum Failure {
    TimedOut,
    Died(String),
}

/// One python3 worker: its stdin, its answer lines (read by a thread), the tail of its stderr.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Worker {
    fn start(command: &[OsString], timeout: Duration) -> Result<Worker> {
        let Some((prog, args)) = command.split_first() else { bail!("empty worker command") };
        let mut child = Command::new(prog)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| anyhow::anyhow!("running {}: {e}", Path::new(prog).display()))?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            bail!("the worker's pipes are missing")
        };
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(std::result::Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let tail = Arc::new(Mutex::new(Vec::new()));
        let t2 = Arc::clone(&tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(std::result::Result::ok) {
                let mut t = t2.lock().unwrap_or_else(|p| p.into_inner());
                t.push(line);
                if t.len() > 8 {
                    t.remove(0);
                }
            }
        });
        let mut w = Worker { child, stdin, lines: rx, stderr: tail };
        match w.lines.recv_timeout(timeout) {
            Ok(l) if l.starts_with("{\"ready\"") => Ok(w),
            Ok(l) => bail!("the worker said {l:?} instead of ready"),
            Err(RecvTimeoutError::Timeout) => bail!("not ready within {} s", timeout.as_secs_f64()),
            Err(RecvTimeoutError::Disconnected) => bail!("it exited: {}", w.death()),
        }
    }

    /// Ask one line; wait at most `limit` for its answer.
    fn ask(&mut self, code: &str, limit: Duration) -> std::result::Result<String, Failure> {
        if writeln!(self.stdin, "{code}").and_then(|_| self.stdin.flush()).is_err() {
            return Err(Failure::Died(self.death()));
        }
        match self.lines.recv_timeout(limit) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => Err(Failure::TimedOut),
            Err(RecvTimeoutError::Disconnected) => Err(Failure::Died(self.death())),
        }
    }

    /// How the worker ended, with the tail of its stderr.
    fn death(&mut self) -> String {
        let status = (0..50)
            .find_map(|_| match self.child.try_wait() {
                Ok(Some(s)) => Some(s.to_string()),
                _ => {
                    std::thread::sleep(Duration::from_millis(20));
                    None
                }
            })
            .unwrap_or_else(|| "still running".into());
        let tail = self.stderr.lock().map(|t| t.join(" | ")).unwrap_or_default();
        if tail.is_empty() {
            status
        } else {
            format!("{status}; stderr: {tail}")
        }
    }
}

impl Drop for Worker {
    /// Kill and reap the worker (it keeps no state worth a clean exit).
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_with_their_structure() {
        let read = |s: &str| PycuteAnswer::from_line(s, "x".into(), 0.0);
        let a = read(r#"{"text": "(2,2):(1,2)", "layout": true, "size": 4, "values": [0, 1, 2, 3]}"#);
        assert_eq!(a.outcome, Outcome::Printed("(2,2):(1,2)".into()));
        assert_eq!(a.values(), Some(&[0, 1, 2, 3][..]));
        let a = read(r#"{"text": "(8,8):(1,8)", "layout": true, "size": 64}"#);
        assert_eq!(a.value, Some(PyValue::Layout { size: Some(64), values: None }));
        assert_eq!(read(r#"{"text": "4", "number": 4}"#).number(), Some(4));
        assert_eq!(read(r#"{"text": "(1,2)"}"#).value, Some(PyValue::Other));
        let a = read(r#"{"error": "AssertionError:"}"#);
        assert_eq!(
            (a.outcome, a.error.as_deref()),
            (Outcome::Rejected("AssertionError:".into()), Some("AssertionError:"))
        );
        assert!(read(r#"{"failed": "out of memory"}"#).outcome.is_error());
        assert!(read(r#"{"what": 1}"#).outcome.is_error());
        assert!(read("not json").outcome.is_error());
        assert_eq!(
            timeout_outcome(Duration::from_millis(500)),
            Outcome::Error("timeout: pycute took more than 0.5 s".into())
        );
    }
}
