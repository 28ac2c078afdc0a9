//! pycute, the Python reference shipped in the same nvidia-cutlass wheel, as a third oracle
//! (`conformance --pycute`): every case pycute can express is asked through the pycute oracle
//! (`cutecheck::oracle::pycute`: parallel python3 workers, each case bounded in time), and its
//! answer is compared with CuTe's and the engine's as a function (a layout's values over its
//! domain) or as a number, since pycute has no static-ness. Where pycute and CuTe differ, the
//! operation's definition (`cutecheck::definition::check`) says who is wrong: pycute's own defects
//! are reported separately from the engine's and CuTe's, and so are the cases pycute did not
//! answer in time.
//!
//! The Python text is written from the parsed AST (never from the case's text): integers,
//! `_` (pycute's `None`), tuples, `Layout(shape, stride)` and calls of the pycute functions named by
//! the table of operations (the `pycute` part of each entry in harness/ops.rs).

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::Result;
use serde::Serialize;

use cutecheck::case::{Case, EngineAnswer, Outcome};
use cutecheck::expr::Value;
use cutecheck::oracle::pycute::{PycuteAnswer, PycuteOptions};
use cutecheck::oracle::Oracle;
use cutecheck::triage::read_printed;

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
    /// pycute did not answer within its time limit (`pycute` then says so).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
}

impl Opinion {
    fn unanswered(pycute: String) -> Opinion {
        Opinion { pycute, agrees_with_cute: None, agrees_with_engine: None, blame: None, why: None, timed_out: false }
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

/// The pycute oracle (`cutecheck::oracle::pycute`), asked for the opinions of a run.
pub struct Pycute {
    oracle: cutecheck::oracle::pycute::Pycute,
}

impl Pycute {
    /// pycute from the wheel the oracle's headers come from (`<wheel>/pycute`), with `jobs`
    /// workers (default: one per core).
    pub fn new(oracle: &Oracle, jobs: Option<usize>) -> Result<Pycute> {
        let opts = PycuteOptions { jobs, ..PycuteOptions::default() };
        Ok(Pycute { oracle: cutecheck::oracle::pycute::Pycute::next_to(&oracle.headers.include_dir, opts)? })
    }

    /// pycute's opinion on every case, compared with CuTe's outcome and the engine's answer.
    pub fn opinions(&self, cases: &[&Case], cute: &[Outcome], engine: &[EngineAnswer]) -> Vec<Opinion> {
        let start = Instant::now();
        let answers = self.oracle.answers(cases);
        let asked = answers.iter().filter(|a| a.code.is_some()).count();
        let timeouts = answers.iter().filter(|a| a.timed_out).count();
        eprintln!(
            "xtask: pycute answered {asked} cases in {:.1?} ({} workers, {timeouts} timeouts of {} s)",
            start.elapsed(),
            self.oracle.jobs(),
            self.oracle.opts.case_timeout.as_secs_f64()
        );
        cases
            .iter()
            .zip(answers)
            .zip(cute.iter().zip(engine))
            .map(|((case, a), (c, e))| match &a.outcome {
                Outcome::Unsupported(why) => Opinion::unanswered(format!("unsupported: {why}")),
                Outcome::Error(err) => {
                    Opinion { timed_out: a.timed_out, ..Opinion::unanswered(format!("oracle error: {err}")) }
                }
                _ => judge(case, &a, c, e),
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
    /// Cases pycute did not answer within its time limit (each an oracle error, not a verdict).
    pub timeouts: Vec<String>,
}

impl Summary {
    pub fn of<'a>(items: impl IntoIterator<Item = (&'a str, &'a Opinion)>) -> Summary {
        let mut s = Summary::default();
        for (expr, o) in items {
            if o.pycute.starts_with("unsupported: ") {
                continue;
            }
            s.expressible += 1;
            if o.timed_out {
                s.timeouts.push(format!("{expr}: {}", o.pycute));
            }
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
        if !self.timeouts.is_empty() {
            t.push_str(&format!("; {} timeouts", self.timeouts.len()));
        }
        t.push('\n');
        for d in &self.timeouts {
            t.push_str(&format!("  pycute timeout: {d}\n"));
        }
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
fn judge(case: &Case, a: &PycuteAnswer, cute: &Outcome, engine: &EngineAnswer) -> Opinion {
    let cute_v = cute.printed().and_then(read_printed);
    if let Some(err) = &a.error {
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
            timed_out: false,
        };
    }
    let same = |v: Option<&Value>| -> Option<bool> {
        match v? {
            Value::Layout(l) => Some(Some(&l.values().ok()?[..]) == a.values()),
            Value::Int(i) => Some(Some(i.value) == a.number()),
            _ => None,
        }
    };
    let cute_same = if cute.printed().is_some() { same(cute_v.as_ref()) } else { Some(false) };
    let engine_same = if engine.outcome.printed().is_some() { same(engine.value.as_ref()) } else { Some(false) };
    let (mut blame, mut why) = (None, None);
    if cute_same == Some(false) {
        let py_v = a.text().and_then(read_printed);
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
        pycute: a.text().unwrap_or_default().to_string(),
        agrees_with_cute: cute_same,
        agrees_with_engine: engine_same,
        blame,
        why,
        timed_out: false,
    }
}

#[cfg(test)]
mod tests {
    /// The Python text of an expression (the library's, shared with the whole-command bench).
    use cutecheck::ops::pycute_text as python;

    #[test]
    fn python_is_written_from_the_ast() {
        let py = |s: &str| python(&cutecheck::expr::parse(s).unwrap());
        assert_eq!(py("composition((_6,_2):(_8,_2),_4:_4)").unwrap(), "composition(Layout((6,2,),(8,2,)),Layout(4,4))");
        assert_eq!(py("logical_divide(24:1,(_,4:2))").unwrap(), "logical_divide(Layout(24,1),(None,Layout(4,2),))");
        assert!(py("blocked_product(_2:_1,_2:_1)").is_err());
        assert!(py("make_layout_right((_4,_8))").is_err());
    }
}
