//! pycute, the Python reference shipped in the same nvidia-cutlass wheel, as a third oracle
//! (`conformance --pycute`): every case pycute can express is asked (one long-lived python3 per
//! batch), and its answer is compared with CuTe's and the engine's as a function (a layout's values
//! over its domain) or as a number, since pycute has no static-ness. Where pycute and CuTe differ,
//! the operation's definition (`cutecheck::definition::check`) says who is wrong: pycute's own
//! defects are reported separately from the engine's and CuTe's.
//!
//! The Python text is written from the parsed AST (never from the case's text): integers,
//! `_` (pycute's `None`), tuples, `Layout(shape, stride)` and calls of the pycute functions named by
//! the table of operations (the `pycute` part of each entry in harness/ops.rs).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use std::time::Duration;

use cutecheck::case::{Case, EngineAnswer, Outcome};
use cutecheck::expr::Value;
use cutecheck::oracle::Oracle;
use cutecheck::triage::read_printed;

const SCRIPT: &str = r#"
import sys, json
sys.path.insert(0, sys.argv[1])
from pycute import *
for line in sys.stdin:
    line = line.strip()
    try:
        r = eval(line)
        if isinstance(r, Layout):
            out = {"text": str(r), "values": [r(i) for i in range(size(r))]}
        elif isinstance(r, int):
            out = {"text": str(r), "number": r}
        else:
            out = {"text": str(r)}
    except BaseException as e:
        out = {"error": (type(e).__name__ + ": " + str(e)).strip()}
    print(json.dumps(out), flush=True)
"#;

#[derive(Deserialize, Default)]
struct Answer {
    text: Option<String>,
    values: Option<Vec<i64>>,
    number: Option<i64>,
    error: Option<String>,
}

/// pycute's answer to one case and how it compares with the other two.
#[derive(Serialize, Clone, Debug)]
pub struct Opinion {
    /// pycute's str() of the result, `error: ...`, or `unsupported: ...`.
    pub pycute: String,
    /// Same function / number as CuTe's result (None: not comparable).
    pub agrees_with_cute: Option<bool>,
    pub agrees_with_engine: Option<bool>,
    /// Where pycute and CuTe differ: who violates the operation's definition (`pycute`, `cute`,
    /// `both`, `undetermined`).
    pub blame: Option<String>,
    /// The violated condition, when the definition blames a side.
    pub why: Option<String>,
}

impl Opinion {
    fn unanswered(pycute: String) -> Opinion {
        Opinion { pycute, agrees_with_cute: None, agrees_with_engine: None, blame: None, why: None }
    }
    /// Whether pycute was asked and answered (a result or an error of its own).
    pub fn answered(&self) -> bool {
        !self.pycute.starts_with("unsupported: ") && !self.pycute.starts_with("oracle error: ")
    }
    /// A pycute defect: it differs from CuTe and the definition blames pycute.
    pub fn is_pycute_defect(&self) -> bool {
        self.agrees_with_cute == Some(false) && matches!(self.blame.as_deref(), Some("pycute" | "both"))
    }
}

impl Opinion {
    pub fn summary(&self) -> String {
        let y = |b: Option<bool>| match b {
            Some(true) => "same",
            Some(false) => "different",
            None => "n/a",
        };
        let mut s = format!(
            "`{}` (vs CuTe: {}, vs engine: {})",
            self.pycute,
            y(self.agrees_with_cute),
            y(self.agrees_with_engine)
        );
        if let Some(b) = &self.blame {
            s.push_str(&format!("; blame: {b}"));
        }
        if let Some(w) = &self.why {
            s.push_str(&format!(" ({w})"));
        }
        s
    }
}

pub struct Pycute {
    root: PathBuf,
}

impl Pycute {
    /// pycute from the wheel the oracle's headers come from (`<wheel>/pycute`).
    pub fn new(oracle: &Oracle) -> Result<Pycute> {
        let mut dir = oracle.headers.include_dir.clone();
        loop {
            if dir.join("pycute").join("layout.py").is_file() {
                return Ok(Pycute { root: dir });
            }
            if !dir.pop() {
                bail!(
                    "no pycute next to {} (pycute comes with the nvidia-cutlass wheel)",
                    oracle.headers.include_dir.display()
                );
            }
        }
    }

    /// pycute's answers to many lines of Python, one python3 for all of them (bounded in time;
    /// a batch that dies or hangs is retried line by line, so one bad case costs only itself).
    fn ask_many(&self, codes: &[String]) -> Vec<Result<Answer>> {
        match self.ask_batch(codes, Duration::from_secs(30 + codes.len() as u64)) {
            Ok(v) if v.len() == codes.len() => v.into_iter().map(Ok).collect(),
            _ if codes.len() > 1 => codes.iter().flat_map(|c| self.ask_many(std::slice::from_ref(c))).collect(),
            Ok(_) => vec![Err(anyhow::anyhow!("pycute gave no answer"))],
            Err(e) => vec![Err(e)],
        }
    }

    fn ask_batch(&self, codes: &[String], limit: Duration) -> Result<Vec<Answer>> {
        let mut child = Command::new("python3")
            .arg("-c")
            .arg(SCRIPT)
            .arg(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("running python3 for pycute")?;
        let mut stdin = child.stdin.take().context("stdin")?;
        let input: String = codes.iter().map(|c| format!("{c}\n")).collect();
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let mut stdout = child.stdout.take().context("stdout")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut buf);
            let _ = tx.send(buf);
        });
        let out = rx.recv_timeout(limit);
        let _ = child.kill();
        let _ = child.wait();
        let _ = writer.join();
        let out = out.map_err(|_| anyhow::anyhow!("pycute did not answer within {limit:?}"))?;
        Ok(out.lines().map(|l| serde_json::from_str(l).unwrap_or_default()).collect())
    }

    /// pycute's opinion on every case, compared with CuTe's outcome and the engine's answer.
    pub fn opinions(&self, cases: &[&Case], cute: &[Outcome], engine: &[EngineAnswer]) -> Vec<Opinion> {
        let codes: Vec<std::result::Result<String, String>> = cases.iter().map(|c| python(&c.expr)).collect();
        let asked: Vec<String> = codes.iter().filter_map(|c| c.as_ref().ok().cloned()).collect();
        let mut answers = Vec::with_capacity(asked.len());
        for chunk in asked.chunks(512) {
            answers.extend(self.ask_many(chunk));
        }
        let mut answers = answers.into_iter();
        cases
            .iter()
            .zip(codes)
            .zip(cute.iter().zip(engine))
            .map(|((case, code), (c, e))| match code {
                Err(why) => Opinion::unanswered(format!("unsupported: {why}")),
                Ok(_) => match answers.next() {
                    Some(Ok(a)) => judge(case, a, c, e),
                    Some(Err(err)) => Opinion::unanswered(format!("oracle error: {err:#}")),
                    None => Opinion::unanswered("oracle error: no answer".into()),
                },
            })
            .collect()
    }
}

/// pycute as a third oracle over a whole run: how often it agrees with CuTe, and who the
/// definition blames where it does not.
#[derive(Serialize, Default, Debug)]
pub struct Summary {
    /// Cases pycute can express (the rest have no pycute form).
    pub expressible: usize,
    /// Cases pycute answered (a result or an exception of its own).
    pub answered: usize,
    pub agree_with_cute: usize,
    pub differ_from_cute: usize,
    /// Differences by blame: pycute, cute, both, undetermined.
    pub blame: BTreeMap<String, usize>,
    /// pycute's own defects: it differs from CuTe and the definition blames it.
    pub pycute_defects: Vec<String>,
}

impl Summary {
    pub fn of<'a>(items: impl IntoIterator<Item = (&'a str, &'a Opinion)>) -> Summary {
        let mut s = Summary::default();
        for (expr, o) in items {
            if o.pycute.starts_with("unsupported: ") {
                continue;
            }
            s.expressible += 1;
            if !o.answered() {
                continue;
            }
            s.answered += 1;
            match o.agrees_with_cute {
                Some(true) => s.agree_with_cute += 1,
                Some(false) => {
                    s.differ_from_cute += 1;
                    *s.blame.entry(o.blame.clone().unwrap_or_else(|| "undetermined".into())).or_default() += 1;
                }
                None => {}
            }
            if o.is_pycute_defect() {
                s.pycute_defects.push(format!("{expr}: pycute {}", o.summary()));
            }
        }
        s
    }

    pub fn table(&self) -> String {
        let mut t = format!(
            "pycute (third oracle): {} cases expressible, {} answered, {} agree with CuTe, {} differ",
            self.expressible, self.answered, self.agree_with_cute, self.differ_from_cute
        );
        for (b, n) in &self.blame {
            t.push_str(&format!("; blame {b}: {n}"));
        }
        t.push('\n');
        if !self.pycute_defects.is_empty() {
            t.push_str(&format!("pycute defects ({}; first 10):\n", self.pycute_defects.len()));
            for d in self.pycute_defects.iter().take(10) {
                t.push_str(&format!("  {d}\n"));
            }
        }
        t
    }
}

/// Compare pycute's answer with CuTe's and the engine's, and blame by the definition where pycute
/// and CuTe differ.
fn judge(case: &Case, a: Answer, cute: &Outcome, engine: &EngineAnswer) -> Opinion {
    let cute_v = cute.printed().and_then(read_printed);
    if let Some(err) = a.error {
        // pycute refuses: right when CuTe refuses too; otherwise pycute is wrong if CuTe's result
        // satisfies the definition.
        let cute_rejects = cute.printed().is_none();
        let blame = (!cute_rejects).then(|| {
            match cute_v.as_ref().and_then(|v| cutecheck::definition::check_cute(&case.expr, v)) {
                Some(Ok(())) => "pycute",
                Some(Err(_)) => "cute",
                None => "undetermined",
            }
            .to_string()
        });
        return Opinion {
            pycute: format!("error: {err}"),
            agrees_with_cute: Some(cute_rejects),
            agrees_with_engine: Some(engine.outcome.printed().is_none()),
            blame,
            why: None,
        };
    }
    let same = |v: Option<&Value>| -> Option<bool> {
        match v? {
            Value::Layout(l) => Some(Some(l.values().ok()?) == a.values),
            Value::Int(i) => Some(Some(i.value) == a.number),
            _ => None,
        }
    };
    let cute_same = if cute.printed().is_some() { same(cute_v.as_ref()) } else { Some(false) };
    let engine_same = if engine.outcome.printed().is_some() { same(engine.value.as_ref()) } else { Some(false) };
    let (mut blame, mut why) = (None, None);
    if cute_same == Some(false) {
        let py_v = a.text.as_deref().and_then(read_printed);
        let check = |v: Option<&Value>| v.and_then(|v| cutecheck::definition::check_cute(&case.expr, v));
        let (pk, ck) = (check(py_v.as_ref()), check(cute_v.as_ref()));
        blame = Some(
            match (&pk, &ck) {
                (Some(Err(w)), Some(Err(_))) => {
                    why = Some(w.clone());
                    "both"
                }
                (Some(Err(w)), _) => {
                    why = Some(w.clone());
                    "pycute"
                }
                (_, Some(Err(w))) => {
                    why = Some(w.clone());
                    "cute"
                }
                // CuTe refused a case pycute answers correctly: CuTe is stricter (or pycute
                // misses a precondition); the definition cannot tell.
                _ => "undetermined",
            }
            .to_string(),
        );
    }
    Opinion {
        pycute: a.text.unwrap_or_default(),
        agrees_with_cute: cute_same,
        agrees_with_engine: engine_same,
        blame,
        why,
    }
}

/// The Python text of an expression (the library's, shared with the whole-command bench).
pub use cutecheck::oracle::pycute_spelling::pycute_text as python;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_is_written_from_the_ast() {
        let py = |s: &str| python(&cutecheck::expr::parse(s).unwrap());
        assert_eq!(py("composition((_6,_2):(_8,_2),_4:_4)").unwrap(), "composition(Layout((6,2,),(8,2,)),Layout(4,4))");
        assert_eq!(py("logical_divide(24:1,(_,4:2))").unwrap(), "logical_divide(Layout(24,1),(None,Layout(4,2),))");
        assert!(py("blocked_product(_2:_1,_2:_1)").is_err());
        assert!(py("make_layout_right((_4,_8))").is_err());
    }
}
