//! pycute, the Python reference shipped in the same nvidia-cutlass wheel, as a third oracle
//! (`conformance --pycute`): every case pycute can express is asked through the pycute oracle
//! (`cutecheck::oracle::pycute`: parallel python3 workers, each case bounded in time), a peer of
//! the run (`cutecheck::run`), whose answer the run's judge compares with CuTe's and the engine's
//! (with pycute's capabilities: values, no static-ness, so results compare as functions); this
//! file reads those verdicts. pycute's own
//! defects are reported separately from the engine's and CuTe's, and so are the cases pycute did
//! not answer in time. The Python text is written from the parsed AST
//! (`cutecheck::oracle::pycute::spelling`).

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::Result;
use serde::Serialize;

use cutecheck::case::Outcome;
use cutecheck::judge::{Fault, Roles, Verdict};
use cutecheck::oracle::pycute::PycuteOptions;
use cutecheck::oracle::Oracle;
use cutecheck::run::{Asked, Judged, Peer};

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
    fn unanswered(pycute: String) -> Opinion {
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

/// pycute from the wheel the oracle's headers come from (`<wheel>/pycute`), with `jobs` workers
/// (default: one per core): a peer of the run (`cutecheck::run`).
pub fn oracle(oracle: &Oracle, jobs: Option<usize>) -> Result<cutecheck::oracle::pycute::Pycute> {
    let opts = PycuteOptions { jobs, ..PycuteOptions::default() };
    cutecheck::oracle::pycute::Pycute::next_to(&oracle.headers.include_dir, opts)
}

/// The line on how pycute answered.
pub fn asked(p: &Peer, o: &cutecheck::oracle::pycute::Pycute) {
    let asked = p.replies.iter().filter(|r| !matches!(r.outcome, Outcome::Unsupported(_))).count();
    let timeouts = p.replies.iter().filter(|r| r.timed_out()).count();
    eprintln!(
        "xtask: pycute answered {asked} cases in {:.1?} ({} workers, {timeouts} timeouts of {} s)",
        Duration::from_secs_f64(p.seconds),
        o.jobs(),
        o.opts.case_timeout.as_secs_f64()
    );
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

#[cfg(test)]
mod tests {
    /// The Python text of an expression (the library's, shared with the whole-command bench).
    use cutecheck::oracle::pycute::spelling::pycute_text as python;

    #[test]
    fn python_is_written_from_the_ast() {
        let py = |s: &str| python(&cutecheck::expr::parse(s).unwrap());
        assert_eq!(py("composition((_6,_2):(_8,_2),_4:_4)").unwrap(), "composition(Layout((6,2,),(8,2,)),Layout(4,4))");
        assert_eq!(py("logical_divide(24:1,(_,4:2))").unwrap(), "logical_divide(Layout(24,1),(None,Layout(4,2),))");
        assert!(py("blocked_product(_2:_1,_2:_1)").is_err());
        assert!(py("make_layout_right((_4,_8))").is_err());
    }
}
