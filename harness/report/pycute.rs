//! pycute as a third oracle in a conformance report: its opinion on each case (its answer and the
//! run's verdicts against CuTe C++ and the engine) and the summary over a run. Reads verdicts,
//! computes none.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::case::Outcome;
use crate::judge::{Fault, Roles, Verdict};
use crate::run::{Asked, Judged};

/// The names of the sides where pycute is judged against CuTe C++ and against the engine.
const CUTE_PYCUTE: Roles = Roles { reference: "cute", oracle: "pycute" };
const ENGINE_PYCUTE: Roles = Roles { reference: "engine", oracle: "pycute" };

/// pycute's answer to one case and the judge's verdicts against CuTe C++ and the engine.
#[derive(Serialize, Clone, Debug)]
pub struct Opinion {
    /// pycute's str() of the result, `error: ...`, `unsupported: ...` or `oracle error: ...`.
    pub pycute: String,
    /// The judge's verdict, CuTe C++ against pycute (None: pycute was not asked or failed).
    pub versus_cute: Option<Verdict>,
    /// The judge's verdict, the engine against pycute.
    pub versus_engine: Option<Verdict>,
    /// pycute did not answer within its time limit (`pycute` then says so).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
}

impl Opinion {
    pub fn unanswered(pycute: String) -> Opinion {
        Opinion { pycute, versus_cute: None, versus_engine: None, timed_out: false }
    }
    /// Whether pycute was asked and answered (a result or an error of its own).
    pub fn answered(&self) -> bool {
        self.versus_cute.is_some()
    }
    /// A pycute defect: it differs from CuTe and the definition blames pycute.
    pub fn is_pycute_defect(&self) -> bool {
        self.versus_cute.as_ref().is_some_and(|v| matches!(v.fault(), Fault::OracleDefect | Fault::Both))
    }

    pub fn summary(&self) -> String {
        let y = |v: &Option<Verdict>, r: Roles| match v {
            Some(v) if v.agrees() => "same".to_string(),
            Some(v) => format!("{} (fault: {})", v.signature(r), v.fault().word()),
            None => "n/a".into(),
        };
        let mut s = format!(
            "`{}` (vs CuTe: {}, vs engine: {})",
            self.pycute,
            y(&self.versus_cute, CUTE_PYCUTE),
            y(&self.versus_engine, ENGINE_PYCUTE)
        );
        if let Some(v) = self.versus_cute.as_ref().filter(|v| !v.agrees() && !v.unchecked()) {
            s.push_str(&format!("; {}", v.describe(CUTE_PYCUTE)));
        }
        s
    }
}

/// pycute's opinion on every case of a run, read from the run's verdicts (cpp~pycute,
/// engine~pycute); `None` where pycute was not asked.
pub fn opinions(asked: &Asked, judged: &[Judged]) -> Vec<Option<Opinion>> {
    let Some(p) = asked.peer("pycute") else { return vec![None; judged.len()] };
    p.replies
        .iter()
        .zip(judged)
        .map(|(a, j)| {
            let versus_engine = j.pair("engine", "pycute")?;
            Some(match &a.outcome {
                Outcome::Unsupported(why) => Opinion::unanswered(format!("unsupported: {why}")),
                Outcome::Error(err) => {
                    Opinion { timed_out: a.timed_out(), ..Opinion::unanswered(format!("oracle error: {err}")) }
                }
                _ => Opinion {
                    pycute: match a.raised() {
                        Some(err) => format!("error: {err}"),
                        None => a.outcome.printed().unwrap_or_default().to_string(),
                    },
                    versus_cute: j.pair("cpp", "pycute").cloned(),
                    versus_engine: Some(versus_engine.clone()),
                    timed_out: false,
                },
            })
        })
        .collect()
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
    /// Differences by the judge's blame matrix (`Verdict::fault`, CuTe C++ the reference).
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
            match &o.versus_cute {
                Some(v) if v.agrees() => s.agree_with_cute += 1,
                Some(v) if !v.unchecked() => {
                    s.differ_from_cute += 1;
                    *s.blame.entry(v.fault().word().to_string()).or_default() += 1;
                }
                _ => {}
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
            t.push_str(&format!("; fault {b}: {n}"));
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
