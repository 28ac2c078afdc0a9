//! The CuTe DSL (`nvidia-cutlass-dsl`, CUTLASS 4.8's Python DSL) as a second real oracle.
//!
//! The DSL evaluates CuTe's layout algebra while it traces a `@cute.jit` function, on a machine
//! without a GPU. [`DslOracle`] keeps one long-lived Python worker per core
//! (`harness/oracle/dsl/worker.py`, run with the machine's `python3` and the private install of
//! [`provision`]); each request carries many cases, evaluated inside one jit function, and every
//! case comes back as one JSON line: its value as structure (ints, dynamic leaves, tuples,
//! shape/stride), the DSL's printed text, or the DSL's error message.
//!
//! - Translation: the case's parsed AST is sent as a small JSON tree ([`ast`]); a call is sent as
//!   its operation's [`dsl_form`] (a plain call, an MMA or a copy atom's member), and the worker
//!   answers only the names of that table (its generated block, `cargo xtask sourcegen`). An
//!   operation without a DSL form is [`Outcome::Unsupported`], with the reason, before any Python runs.
//! - Static-ness: in the DSL a static integer is a Python `int` and a dynamic one is a traced
//!   value (`cutlass.Int32`), whose value is unknown at trace time: the DSL prints it as `?`
//!   (`?{div=N}` when it knows a divisor). Dynamic operands are passed as `cutlass.Int32(v)`.
//!   [`DslValue`] keeps that: a leaf is `Static(v)` or `Dynamic { value, div }`. Rendered in CuTe
//!   C++'s print format ([`DslValue`]'s `Display`): `_4` static, `?` dynamic with unknown value.
//! - Comparison ([`compare`], [`judge`]): structure, known values and static-ness are compared;
//!   a `?` leaf matches any value its divisor divides. A difference between two fully known results
//!   is triaged by the operation's definition (cutecheck::definition) with blame.
//! - Isolation: the worker imports the DSL once and forks a child per request; a child that dies
//!   on a case (the DSL's C++ aborts on some inputs) makes that case [`Outcome::Crashed`] (signal
//!   and the tail of its stderr), one that takes longer than `case_timeout` on a case is killed and
//!   the case is [`Outcome::Error`]; a fresh child takes the cases after it, for a few
//!   milliseconds. A worker that itself dies or stops answering is killed and replaced the same
//!   way from this side (a fresh worker: about a second).

pub mod atoms;
pub mod provision;
pub mod spelling;

pub use crate::case::DslValue;
pub use spelling::{dsl_form, DslForm};

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;
use serde_json::{json, Value as Json};

use crate::case::{Case, Outcome};
use crate::expr::op::{Op, Part};

use crate::expr::Expr;
use crate::oracle::{sha256_hex, state_dir};

/// The worker script, compiled in (written to the state directory under its digest at start).
pub const WORKER_PY: &str = include_str!("worker.py");

/// The JSON tree the worker evaluates, written from the parsed AST, or why the DSL has no form.
/// A call is sent as its operation's [`dsl_form`]; nothing else is called.
pub fn ast(e: &Expr) -> Result<Json, String> {
    Ok(match e {
        Expr::Int { value, is_static, .. } => json!(["i", value, is_static]),
        Expr::Underscore { .. } => json!(["u"]),
        Expr::Basis { .. } => return Err("the DSL oracle has no basis-element strides".into()),
        Expr::Ratio { .. } => return Err("the DSL oracle has no cute::R ratios".into()),
        Expr::Tuple { items, .. } => json!(["t", items.iter().map(ast).collect::<Result<Vec<_>, _>>()?]),
        Expr::Layout { shape, stride, .. } => json!(["l", ast(shape)?, ast(stride)?]),
        Expr::Call { name, args, called: true, .. } => {
            let op = Op::lookup(name).ok_or_else(|| format!("the DSL oracle has no {name}"))?;
            match dsl_form(op) {
                Part::Absent(why) => return Err(format!("the DSL oracle has no {name}: {why}")),
                Part::Has(DslForm::Call) => {
                    json!(["c", op.name(), args.iter().map(ast).collect::<Result<Vec<_>, _>>()?])
                }
                Part::Has(DslForm::Mma(_)) => {
                    let atom = match args.as_slice() {
                        [Expr::Call { name: atom, called: false, .. }] => atoms::mma(atom)?,
                        _ => return Err(format!("{name} takes one MMA atom name")),
                    };
                    json!(["m", op.name(), atom])
                }
                Part::Has(DslForm::Copy(_)) => {
                    let atom = match args.as_slice() {
                        [Expr::Call { name: o, called: false, .. }, Expr::Call { name: ty, called: false, .. }] => {
                            atoms::copy(o, ty)?
                        }
                        _ => return Err(format!("{name} takes a copy operation and a value type")),
                    };
                    json!(["k", op.name(), atom])
                }
            }
        }
        Expr::Call { name, .. } => return Err(format!("the DSL oracle has no bare name {name}")),
        Expr::Apply { target, args, .. } => {
            json!(["a", ast(target)?, args.iter().map(ast).collect::<Result<Vec<_>, _>>()?])
        }
    })
}

impl DslValue {
    /// Read the worker's JSON encoding.
    pub fn from_json(j: &Json) -> Result<DslValue, String> {
        Ok(match j {
            Json::Number(n) => DslValue::Static(n.as_i64().ok_or_else(|| format!("integer out of range: {n}"))?),
            Json::Array(items) => DslValue::Tuple(items.iter().map(DslValue::from_json).collect::<Result<_, _>>()?),
            Json::Object(m) if m.contains_key("shape") => DslValue::Layout {
                shape: Box::new(DslValue::from_json(&m["shape"])?),
                stride: Box::new(DslValue::from_json(m.get("stride").ok_or("a layout without stride")?)?),
            },
            Json::Object(m) if m.contains_key("u") => DslValue::Underscore,
            Json::Object(m) if m.contains_key("d") => {
                DslValue::Dynamic { value: m.get("v").and_then(Json::as_i64), div: m.get("d").and_then(Json::as_i64) }
            }
            other => return Err(format!("not a DSL value: {other}")),
        })
    }
}

/// The DSL's answer to one case: the outcome (a printed result in CuTe's format, see
/// [`DslValue`]), the structured value and the DSL's own printed text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DslAnswer {
    pub outcome: Outcome,
    pub value: Option<DslValue>,
    /// What the DSL's `print` shows (static-ness not shown, `?` for dynamic values).
    pub dsl_text: Option<String>,
}

impl DslAnswer {
    /// The reply the run carries: the outcome, the partial value and the DSL's own print.
    pub fn into_reply(self) -> crate::case::Reply {
        let structure = crate::case::Structure::Partial { value: self.value, text: self.dsl_text };
        crate::case::Reply { outcome: self.outcome, structure: Some(structure) }
    }

    fn of(outcome: Outcome) -> DslAnswer {
        DslAnswer { outcome, value: None, dsl_text: None }
    }
    fn from_json(j: &Json) -> DslAnswer {
        if let Some(v) = j.get("value") {
            return match DslValue::from_json(v) {
                Ok(v) => DslAnswer {
                    outcome: Outcome::Printed(v.to_string()),
                    dsl_text: j.get("text").and_then(Json::as_str).map(str::to_string),
                    value: Some(v),
                },
                Err(e) => DslAnswer::of(Outcome::Error(format!("unreadable DSL answer: {e}"))),
            };
        }
        let s = |k: &str| j.get(k).and_then(Json::as_str).map(str::to_string);
        if let Some(m) = s("rejected") {
            DslAnswer::of(Outcome::Rejected(m))
        } else if let Some(m) = s("crashed") {
            DslAnswer::of(Outcome::Crashed(m))
        } else if let Some(m) = s("error") {
            DslAnswer::of(Outcome::Error(m))
        } else if let Some(m) = s("unsupported") {
            DslAnswer::of(Outcome::Unsupported(m))
        } else {
            DslAnswer::of(Outcome::Error(format!("unreadable DSL answer: {j}")))
        }
    }
}

/// Options of the DSL oracle.
#[derive(Clone, Debug)]
pub struct DslOptions {
    /// Workers (default: one per core).
    pub jobs: Option<usize>,
    /// Cases per request (one jit function each).
    pub batch: usize,
    /// Longest wait for one case's answer; a worker still busy then is killed.
    pub case_timeout: Duration,
    /// Longest wait for a worker to start (import the DSL).
    pub start_timeout: Duration,
}

impl Default for DslOptions {
    fn default() -> Self {
        DslOptions {
            jobs: None,
            batch: 2000,
            case_timeout: Duration::from_secs(30),
            start_timeout: Duration::from_secs(120),
        }
    }
}

/// The CuTe DSL oracle: a pool of long-lived Python workers.
pub struct DslOracle {
    command: Vec<OsString>,
    describe: String,
    pub opts: DslOptions,
    workers: Vec<Mutex<Option<Worker>>>,
}

impl DslOracle {
    /// Provision the pinned DSL and start (lazily) one worker per core.
    pub fn new(opts: DslOptions) -> Result<DslOracle> {
        let install = provision::provision(true)?;
        let script = write_worker_script()?;
        let command = vec!["python3".into(), "-u".into(), script.into_os_string(), install.site.into_os_string()];
        Ok(DslOracle::with_command(command, install.describe, opts))
    }

    /// An oracle whose workers run `command` (the worker protocol on stdin/stdout). Tests use it
    /// with stand-in workers that crash or hang.
    pub fn with_command(command: Vec<OsString>, describe: String, opts: DslOptions) -> DslOracle {
        let n = opts.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
        DslOracle { command, describe, opts, workers: (0..n).map(|_| Mutex::new(None)).collect() }
    }

    /// The DSL's answer to each case, in order.
    pub fn answers(&self, cases: &[&Case]) -> Vec<DslAnswer> {
        let mut out: Vec<Option<DslAnswer>> = vec![None; cases.len()];
        let mut todo: Vec<(usize, Json)> = Vec::new();
        for (i, c) in cases.iter().enumerate() {
            match ast(&c.expr) {
                Ok(j) => todo.push((i, j)),
                Err(why) => out[i] = Some(DslAnswer::of(Outcome::Unsupported(why))),
            }
        }
        // Requests of at most `batch` cases, and at least two per worker so that none waits idle
        // at the end (one jit function costs about 5 ms of CPU; a case about 0.15 ms).
        let per_worker = todo.len().div_ceil(2 * self.workers.len()).max(1);
        let chunks: Vec<&[(usize, Json)]> = todo.chunks(self.opts.batch.min(per_worker).max(1)).collect();
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<(usize, DslAnswer)>> = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for slot in self.workers.iter().take(chunks.len().max(1)) {
                s.spawn(|| {
                    let mut w = slot.lock().unwrap_or_else(|p| p.into_inner());
                    loop {
                        let k = next.fetch_add(1, Ordering::SeqCst);
                        let Some(chunk) = chunks.get(k) else { break };
                        let got = self.run_chunk(&mut w, chunk);
                        results.lock().unwrap_or_else(|p| p.into_inner()).extend(got);
                    }
                });
            }
        });
        for (i, a) in results.into_inner().unwrap_or_else(|p| p.into_inner()) {
            out[i] = Some(a);
        }
        out.into_iter()
            .map(|a| a.unwrap_or_else(|| DslAnswer::of(Outcome::Error("no answer from the DSL worker".into()))))
            .collect()
    }

    /// One chunk through one worker slot; a worker that dies or hangs is replaced and the chunk
    /// goes on after the case it failed on.
    fn run_chunk(&self, slot: &mut Option<Worker>, chunk: &[(usize, Json)]) -> Vec<(usize, DslAnswer)> {
        let mut out = Vec::with_capacity(chunk.len());
        let mut rest = chunk;
        while !rest.is_empty() {
            if slot.is_none() {
                match Worker::start(&self.command, self.opts.start_timeout) {
                    Ok(w) => *slot = Some(w),
                    Err(e) => {
                        let msg = format!("could not start the DSL worker: {e:#}");
                        out.extend(rest.iter().map(|(i, _)| (*i, DslAnswer::of(Outcome::Error(msg.clone())))));
                        return out;
                    }
                }
            }
            let Some(w) = slot.as_mut() else { break };
            let cases: Vec<&Json> = rest.iter().map(|(_, j)| j).collect();
            let (answers, failure) = w.request(&cases, self.opts.case_timeout);
            let n = answers.len();
            out.extend(rest.iter().zip(answers).map(|((i, _), a)| (*i, a)));
            rest = &rest[n..];
            match failure {
                None => {}
                Some(Failure::Fatal(msg)) => {
                    out.extend(
                        rest.iter()
                            .map(|(i, _)| (*i, DslAnswer::of(Outcome::Error(format!("DSL trace failed: {msg}"))))),
                    );
                    rest = &[];
                }
                Some(f) => {
                    if let Some(w) = slot.take() {
                        w.kill();
                    }
                    if let Some((i, _)) = rest.first() {
                        let o = match f {
                            Failure::Died(why) => Outcome::Crashed(format!("the DSL worker died on this case: {why}")),
                            Failure::TimedOut(d) => {
                                Outcome::Error(format!("the DSL took longer than {d:?} on this case; worker killed"))
                            }
                            Failure::Fatal(_) => unreachable!("handled above"),
                        };
                        out.push((*i, DslAnswer::of(o)));
                        rest = &rest[1..];
                    }
                }
            }
        }
        out
    }
}

impl crate::case::Oracle for DslOracle {
    fn caps(&self) -> crate::case::Caps {
        crate::case::Caps::DSL
    }
    fn describe(&self) -> String {
        self.describe.clone()
    }
    fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
        self.answers(cases).into_iter().map(|a| a.outcome).collect()
    }
    fn name(&self) -> &'static str {
        "dsl"
    }
    fn replies(&self, cases: &[&Case]) -> Vec<crate::case::Reply> {
        self.answers(cases).into_iter().map(DslAnswer::into_reply).collect()
    }
}

/// The worker script written under `<state>/dsl/worker-<digest>.py` (the DSL's jit needs the
/// function's source in a file).
pub fn write_worker_script() -> Result<PathBuf> {
    let dir = state_dir().join("dsl");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("worker-{}.py", &sha256_hex(WORKER_PY.as_bytes())[..16]));
    if std::fs::read_to_string(&path).ok().as_deref() != Some(WORKER_PY) {
        let tmp = tempfile::NamedTempFile::new_in(&dir)?;
        std::fs::write(tmp.path(), WORKER_PY)?;
        tmp.persist(&path).map_err(|e| anyhow!("writing {}: {e}", path.display()))?;
    }
    Ok(path)
}

enum Failure {
    Died(String),
    TimedOut(Duration),
    Fatal(String),
}

/// One Python worker: its stdin, its protocol lines (read by a thread) and the tail of its stderr.
struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Option<String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl Worker {
    fn start(command: &[OsString], timeout: Duration) -> Result<Worker> {
        let (prog, args) = command.split_first().context("empty worker command")?;
        let mut child = Command::new(prog)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("running {}", Path::new(prog).display()))?;
        let stdin = child.stdin.take().context("worker stdin")?;
        let stdout = child.stdout.take().context("worker stdout")?;
        let stderr = child.stderr.take().context("worker stderr")?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(Some(l)).is_err() {
                            return;
                        }
                    }
                    Err(_) => break,
                }
            }
            let _ = tx.send(None);
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let t2 = Arc::clone(&tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut t = t2.lock().unwrap_or_else(|p| p.into_inner());
                t.push_back(line);
                if t.len() > 20 {
                    t.pop_front();
                }
            }
        });
        let mut w = Worker { child, stdin: Some(stdin), lines: rx, stderr: tail };
        match w.lines.recv_timeout(timeout) {
            Ok(Some(l)) if l.contains("\"ready\"") => Ok(w),
            Ok(Some(l)) => {
                w.kill_ref();
                bail!("the DSL worker said {l:?} instead of ready")
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                let why = w.death();
                bail!("the DSL worker exited while starting: {why}")
            }
            Err(RecvTimeoutError::Timeout) => {
                w.kill_ref();
                bail!("the DSL worker did not start within {timeout:?}")
            }
        }
    }

    /// Send one request; the answers received, and why the rest are missing (if they are).
    fn request(&mut self, cases: &[&Json], timeout: Duration) -> (Vec<DslAnswer>, Option<Failure>) {
        let mut answers = Vec::with_capacity(cases.len());
        let line = json!({ "cases": cases, "timeout": timeout.as_secs_f64() }).to_string();
        // The worker enforces `timeout` per case (it kills its child); this wait is the backstop
        // for a worker that hangs itself.
        let backstop = timeout * 2 + Duration::from_secs(5);
        let Some(stdin) = self.stdin.as_mut() else {
            return (answers, Some(Failure::Died("the worker's stdin is closed".into())));
        };
        if writeln!(stdin, "{line}").and_then(|_| stdin.flush()).is_err() {
            return (answers, Some(Failure::Died(self.death())));
        }
        let mut fatal = None;
        loop {
            match self.lines.recv_timeout(backstop) {
                Ok(Some(l)) => {
                    let Ok(j) = serde_json::from_str::<Json>(&l) else {
                        return (answers, Some(Failure::Died(format!("unreadable line from the worker: {l:?}"))));
                    };
                    if j.get("end").is_some() {
                        break;
                    }
                    if let Some(m) = j.get("fatal").and_then(Json::as_str) {
                        fatal = Some(m.to_string());
                        continue;
                    }
                    if answers.len() < cases.len() {
                        answers.push(DslAnswer::from_json(&j));
                    }
                }
                Ok(None) | Err(RecvTimeoutError::Disconnected) => return (answers, Some(Failure::Died(self.death()))),
                Err(RecvTimeoutError::Timeout) => return (answers, Some(Failure::TimedOut(backstop))),
            }
        }
        let failure = if answers.len() < cases.len() {
            Some(Failure::Fatal(fatal.unwrap_or_else(|| "the worker ended the request early".into())))
        } else {
            None
        };
        (answers, failure)
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
        std::thread::sleep(Duration::from_millis(20));
        let tail: Vec<String> =
            self.stderr.lock().map(|t| t.iter().rev().take(4).rev().cloned().collect()).unwrap_or_default();
        if tail.is_empty() {
            status
        } else {
            format!("{status}; stderr: {}", tail.join(" | "))
        }
    }

    fn kill_ref(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn kill(mut self) {
        self.kill_ref();
    }
}

impl Drop for Worker {
    /// Close the worker's stdin so it ends its child and exits (both reaped, so their CPU time is
    /// accounted to this process's children); kill it if it has not within a second.
    fn drop(&mut self) {
        drop(self.stdin.take());
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Count of leaves, for reports (how much of a result the DSL showed).
pub fn known_leaves(v: &DslValue) -> (usize, usize) {
    fn known(v: &DslValue) -> usize {
        match v {
            DslValue::Tuple(x) => x.iter().map(known).sum(),
            DslValue::Layout { shape, stride } => known(shape) + known(stride),
            DslValue::Dynamic { value: None, .. } => 0,
            _ => 1,
        }
    }
    (known(v), v.leaves())
}

#[cfg(test)]
mod tests;
