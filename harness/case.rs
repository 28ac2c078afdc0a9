//! The case pipeline: a case is parsed once into the AST ([`Case`]); each side that can answer it
//! (the engine through [`engine`], an [`Oracle`]: the compiled CuTe driver, an in-process CuTe,
//! the CuTe DSL, pycute) returns one typed [`Outcome`]; [`Judge::judge`] compares the two, triages
//! a disagreement against the operation's definition (`crate::triage`), looks it up in the known
//! discrepancies (`crate::known`) and returns one [`Judgement`].
//!
//! Every command and test that compares the engine with CuTe goes through here: `cargo xtask
//! conformance`, `release-diff`, `repro`, `cutecheck eval --both`, tests/fixed_suites.rs and
//! tests/conformance_known.rs. No layer talks to another through prefixed strings: the printed text
//! is what is compared, the types are what is judged. Text with `rejected: ` prefixes exists only in
//! snapshot files ([`Outcome::lines`] / [`Outcome::from_lines`]).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::engine::print_layout;
use crate::engine::release::{self, Release};
use crate::expr::{eval, parse, Expr, ParseError, Value};
use crate::known::{Discrepancy, KnownDiscrepancies};
use crate::triage::{self, Blame, Verdict};

/// One case: its text as written, the AST parsed once, and where it came from.
#[derive(Clone, Debug)]
pub struct Case {
    /// The text as written (trimmed), for reports and reproducers.
    pub text: String,
    /// The parsed expression; every side works from this, never from `text`.
    pub expr: Expr,
    /// Where the case came from: `fixtures/cases/x.cases:12`, `random #3 (seed 7)`, ...
    pub location: String,
}

impl Case {
    /// Parse a case once.
    pub fn parse(text: &str, location: impl Into<String>) -> Result<Case, ParseError> {
        let text = text.trim().to_string();
        let expr = parse(&text)?;
        Ok(Case { text, expr, location: location.into() })
    }

    /// A case from an already parsed expression (generated cases).
    pub fn from_expr(expr: Expr, location: impl Into<String>) -> Case {
        Case { text: expr.to_string(), expr, location: location.into() }
    }

    /// The case's top-level operation name (`None` for a literal or an evaluation `L(c)`).
    pub fn op(&self) -> Option<&str> {
        crate::definition::op_name(&self.expr)
    }

    /// The case's top-level operation (`None` for a literal, a form or an evaluation `L(c)`).
    pub fn operation(&self) -> Option<crate::expr::Op> {
        match &self.expr {
            Expr::Call { name, called: true, .. } => crate::expr::Op::lookup(name),
            _ => None,
        }
    }

    /// The argument of a top-level `print_layout(L)` case. `print_layout` prints rather than
    /// returns, so it is a form of a whole case, not a value.
    pub fn print_layout_arg(&self) -> Option<&Expr> {
        match &self.expr {
            Expr::Call { name, args, called: true, .. } if name.simple() == Some("print_layout") && args.len() == 1 => {
                args.first()
            }
            _ => None,
        }
    }

    /// The argument of a top-level `print_svg(X)` case: CuTe's picture of an MMA atom or tiled
    /// MMA (cute/util/print_svg.hpp); like `print_layout`, a form of a whole case.
    pub fn print_svg_arg(&self) -> Option<&Expr> {
        match &self.expr {
            Expr::Call { name, args, called: true, .. } if name.simple() == Some("print_svg") && args.len() == 1 => {
                args.first()
            }
            _ => None,
        }
    }
}

/// What one side did with one case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "text", rename_all = "lowercase")]
pub enum Outcome {
    /// A result, exactly as CuTe's `print` writes it (NULs stripped on CuTe's side).
    Printed(String),
    /// Refused: CuTe's static_assert message (or `compile error: <first error>` when no
    /// static_assert fired), or the engine's typed error.
    Rejected(String),
    /// Compiled but died at run time (CuTe: the signal or exit status, then anything it wrote), or
    /// the engine panicked (an engine bug, never a verdict on CuTe).
    Crashed(String),
    /// The side cannot express this case (parse error, unknown name, wrong kind).
    Unsupported(String),
    /// The oracle itself failed on this case (compiler timed out, could not run); never cached.
    Error(String),
}

impl Outcome {
    /// The lines a snapshot shows for this outcome (each later prefixed `=> `).
    pub fn lines(&self) -> Vec<String> {
        let tagged = |tag: &str, s: &str| {
            let mut v: Vec<String> = s.lines().map(str::to_string).collect();
            if v.is_empty() {
                v.push(String::new());
            }
            v[0] = format!("{tag}: {}", v[0]);
            v
        };
        match self {
            Outcome::Printed(s) => {
                let v: Vec<String> = s.lines().map(str::to_string).collect();
                if v.is_empty() {
                    vec![String::new()]
                } else {
                    v
                }
            }
            Outcome::Rejected(s) => tagged("rejected", s),
            Outcome::Crashed(s) => tagged("crashed", s),
            Outcome::Unsupported(s) => tagged("unsupported", s),
            Outcome::Error(s) => tagged("error", s),
        }
    }

    /// The outcome a snapshot's lines stand for (the inverse of [`Outcome::lines`]).
    pub fn from_lines(lines: &[String]) -> Outcome {
        let first = lines.first().map(String::as_str).unwrap_or("");
        let rest = |head: &str| {
            let mut v = vec![head.to_string()];
            v.extend(lines.iter().skip(1).cloned());
            v.join("\n")
        };
        type Make = fn(String) -> Outcome;
        let tags: [(&str, Make); 4] = [
            ("rejected: ", Outcome::Rejected),
            ("crashed: ", Outcome::Crashed),
            ("unsupported: ", Outcome::Unsupported),
            ("error: ", Outcome::Error),
        ];
        for (tag, make) in tags {
            if let Some(head) = first.strip_prefix(tag) {
                return make(rest(head));
            }
        }
        Outcome::Printed(lines.join("\n"))
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Outcome::Error(_))
    }

    /// The printed text, if the side printed a result.
    pub fn printed(&self) -> Option<&str> {
        match self {
            Outcome::Printed(s) => Some(s),
            _ => None,
        }
    }

    /// Short name of the kind: printed, rejected, crashed, unsupported, error.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Printed(_) => "printed",
            Outcome::Rejected(_) => "rejected",
            Outcome::Crashed(_) => "crashed",
            Outcome::Unsupported(_) => "unsupported",
            Outcome::Error(_) => "error",
        }
    }
}

/// A source of CuTe's answers: the compiled driver, an in-process CuTe, the CuTe DSL, pycute.
///
/// `run` answers every case, in order, with exactly one outcome each; a case the oracle cannot
/// express is [`Outcome::Unsupported`], a failure of the oracle itself [`Outcome::Error`].
pub trait Oracle: Send + Sync {
    /// One line naming the oracle, its CuTe and its toolchain (for reports).
    fn describe(&self) -> String;
    /// CuTe's outcome for each case, in order.
    fn run(&self, cases: &[&Case]) -> Vec<Outcome>;
}

impl Oracle for crate::oracle::Oracle {
    fn describe(&self) -> String {
        crate::oracle::Oracle::describe(self)
    }
    fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
        let exprs: Vec<&Expr> = cases.iter().map(|c| &c.expr).collect();
        self.run_parsed(&exprs, false)
    }
}

/// The engine's answer to a case: the outcome, and the value itself (so triage never evaluates the
/// case a second time).
#[derive(Clone, Debug)]
pub struct EngineAnswer {
    pub outcome: Outcome,
    pub value: Option<Value>,
}

/// Evaluate a case on the engine (a top-level `print_layout(L)` prints CuTe's grid; with `table`,
/// so does every rank-2 layout result, as `eval --table` and the oracle's table mode do). A panic
/// is caught and reported as [`Outcome::Crashed`]: it is an engine bug, never CuTe's.
pub fn engine(case: &Case, table: bool) -> EngineAnswer {
    let run = || -> EngineAnswer {
        let grid = |v: Value| match &v {
            Value::Layout(l) => match print_layout(l) {
                Ok(text) => EngineAnswer { outcome: Outcome::Printed(text), value: Some(v) },
                Err(e) => EngineAnswer { outcome: Outcome::Rejected(e.to_string()), value: None },
            },
            // A swizzled (composed) layout prints its grid too (util/print_tensor.hpp).
            Value::Atom(crate::expr::value::AtomValue::Composed(c)) => {
                let outcome = match crate::engine::atom::recast::print_layout_composed(c) {
                    Ok(text) => Outcome::Printed(text),
                    Err(e) => Outcome::Rejected(e.to_string()),
                };
                EngineAnswer { outcome, value: None }
            }
            other => EngineAnswer {
                outcome: Outcome::Rejected(format!("print_layout needs a layout, found {}", other.kind())),
                value: None,
            },
        };
        if let Some(inner) = case.print_svg_arg() {
            // print_svg is first declared in CUTLASS 3.6 (3.5.1.0 answers "'print_svg' was not
            // declared in this scope": snapshots/versions/3.5.1.0/atoms_svg.snap).
            if crate::engine::release::current() < crate::engine::release::Release::new(3, 6, 0, 0) {
                let why = format!(
                    "print_svg is not declared in CUTLASS {} (it is new in 3.6)",
                    crate::engine::release::current()
                );
                return EngineAnswer { outcome: Outcome::Rejected(why), value: None };
            }
            return match eval(inner)
                .map_err(|e| e.to_string())
                .and_then(|v| crate::svg::svg_of(&v, None).map_err(|e| e.to_string()))
            {
                Ok(svg) => EngineAnswer { outcome: Outcome::Printed(svg), value: None },
                Err(e) => EngineAnswer { outcome: Outcome::Rejected(e), value: None },
            };
        }
        let target = case.print_layout_arg().unwrap_or(&case.expr);
        match eval(target) {
            // Over the engine's walk limit (limits::WALK) its definition checks cannot run: the
            // engine has no answer it can stand behind, which is not a refusal of the case.
            Err(e @ crate::engine::Error::TooLarge(_)) => {
                EngineAnswer { outcome: Outcome::Unsupported(e.to_string()), value: None }
            }
            Err(e) => EngineAnswer { outcome: Outcome::Rejected(e.to_string()), value: None },
            Ok(v) if case.print_layout_arg().is_some() => grid(v),
            Ok(v @ Value::Layout(_)) if table && v.to_layout().is_ok_and(|l| l.rank() == 2) => grid(v),
            Ok(v) => EngineAnswer { outcome: Outcome::Printed(v.to_string()), value: Some(v) },
        }
    };
    std::panic::catch_unwind(run).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        EngineAnswer { outcome: Outcome::Crashed(format!("engine panicked: {msg}")), value: None }
    })
}

/// How the engine's printed text compares with CuTe's.
///
/// The rule for refusals: CuTe refuses at compile time with a static_assert message; the engine
/// refuses with a typed error whose text names the same condition. They agree when the
/// static_assert message (trailing `.` dropped, case ignored) appears in the engine's error text:
/// `Non-injective Layout detected in complement.` agrees with the engine's `Non-injective Layout
/// detected in complement: (_2,_2):(_1,_1)`. A CuTe rejection that is not a static_assert
/// (`compile error: ...`, e.g. no overload takes these arguments), or a static_assert without a
/// message (`static assertion failed`), agrees with any engine refusal, and so does a CuTe run-time
/// crash: CuTe cannot compute the case, and the engine must refuse it rather than invent a result.
/// The engine's division by zero and 32-bit overflow agree with any CuTe refusal
/// ([`DIVISION_BY_ZERO`], [`OVERFLOW`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "why", rename_all = "snake_case")]
pub enum Agreement {
    /// Identical printed text.
    Same,
    /// Both refuse the case, by the rule above.
    BothRefuse,
    /// CuTe's side has no result to compare with (unsupported, or the oracle failed).
    Unchecked(String),
    /// They differ.
    Differ,
}

impl Agreement {
    /// Counts as agreement (unchecked cases are neither agreement nor failure: callers decide).
    pub fn agrees(&self) -> bool {
        matches!(self, Agreement::Same | Agreement::BothRefuse)
    }
}

fn normalized(s: &str) -> String {
    s.trim().trim_end_matches('.').trim().to_lowercase()
}

/// Whether the engine's `print_svg` picture draws what CuTe's does. CUTLASS 4.2 comments the tile
/// first (`<!--  Tile: (_16,_8,_16)  -->`, compared) and then its A, B and C identity tensors
/// (skipped: the engine prints the TV layouts they are made from), and the rest must be the same
/// lines in the same order. CUTLASS 3.6 to 3.8 print no comments and draw the same cells in another
/// order (cells do not overlap): there the `<svg>` header and the close must match and the drawn
/// elements must be the same multiset.
fn same_picture(engine: &str, cute: &str) -> bool {
    const TILE: &str = "<!--  Tile: ";
    fn body(t: &str) -> Vec<&str> {
        t.lines().filter(|l| !l.starts_with("<!--")).collect()
    }
    let (e, c) = (body(engine), body(cute));
    if !engine.starts_with(TILE) || !c.first().is_some_and(|l| l.starts_with("<svg ")) {
        return false;
    }
    if cute.starts_with(TILE) {
        return engine.lines().next() == cute.lines().next() && e == c;
    }
    let (mut es, mut cs) = (e.clone(), c.clone());
    es.sort_unstable();
    cs.sort_unstable();
    e.first() == c.first() && e.last() == c.last() && es == cs
}

/// The engine's refusal of a division by zero ([`crate::engine::Error::DivisionByZero`]). In CuTe
/// `C<t> / C<0>` is no constant expression, so the static operator drops out (SFINAE) and the
/// quotient goes on as a run-time int: the compile then stops at whatever static_assert comes
/// next (or the program traps), so any CuTe refusal agrees with it.
const DIVISION_BY_ZERO: &str = "division by zero";
/// The start of the engine's refusal of a 32-bit overflow ([`crate::engine::Error::Overflow`]):
/// run-time arithmetic comes after every compile-time check, so it too agrees with any CuTe
/// refusal (against a result CuTe printed it is a disagreement, e.g. product-overflows-32-bit).
const OVERFLOW: &str = "integer overflow in ";

/// Compare the engine's outcome with CuTe's (two `print_svg` pictures: by [`same_picture`]).
pub fn compare(engine: &Outcome, cute: &Outcome) -> Agreement {
    match (engine, cute) {
        (_, Outcome::Unsupported(why)) => Agreement::Unchecked(format!("the oracle: {why}")),
        (_, Outcome::Error(why)) => Agreement::Unchecked(format!("the oracle failed: {why}")),
        (Outcome::Unsupported(why), _) => Agreement::Unchecked(format!("the engine: {why}")),
        (Outcome::Printed(e), Outcome::Printed(c)) if e.trim_end_matches('\n') == c.trim_end_matches('\n') => {
            Agreement::Same
        }
        (Outcome::Printed(e), Outcome::Printed(c)) if same_picture(e, c) => Agreement::Same,
        (Outcome::Rejected(_), Outcome::Crashed(_)) => Agreement::BothRefuse,
        (Outcome::Rejected(e), Outcome::Rejected(c)) => {
            let m = normalized(c);
            if c.starts_with("compile error")
                || e == DIVISION_BY_ZERO
                || e.starts_with(OVERFLOW)
                || m == "static assertion failed"
                || (!m.is_empty() && normalized(e).contains(&m))
            {
                Agreement::BothRefuse
            } else {
                Agreement::Differ
            }
        }
        _ => Agreement::Differ,
    }
}

/// Where a case came from, as far as judging it is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A fixed suite (fixtures/cases).
    Fixed,
    /// A random case; `admissible`: its operands were built to satisfy the operation's
    /// preconditions (such a case is never covered by a known-discrepancy family).
    Random { admissible: bool },
    /// The reproducer of a known discrepancy: it must still disagree as listed.
    Known,
    /// A case given on the command line.
    Adhoc,
}

/// The final word on one case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "detail", rename_all = "snake_case")]
pub enum Status {
    /// Identical output.
    Agree,
    /// Both refuse.
    BothRefuse,
    /// CuTe's side has no result (unsupported): neither agreement nor failure.
    Unchecked(String),
    /// The oracle failed on the case: a failure of the run.
    OracleError(String),
    /// A disagreement listed in fixtures/known-discrepancies.toml (the entry's reproducer).
    Explained(String),
    /// A disagreement nobody has explained: a failure of the run.
    New,
    /// A listed discrepancy that no longer reproduces as listed: a failure of the run.
    Stale(String),
    /// On a release the engine does not model: a disagreement listed for the nearest older
    /// modelled release, still present (`known since 4.2.0.0, still present`).
    KnownEarlier(String),
    /// On a release the engine does not model: a discrepancy listed for the nearest older modelled
    /// release that no longer reproduces (`fixed in this release?`). News, not a failure.
    FixedHere(String),
}

/// One case judged: how the outputs compare, the triage of a disagreement, and the final status.
#[derive(Clone, Debug, Serialize)]
pub struct Judgement {
    pub agreement: Agreement,
    /// For disagreements: the triage verdict with the definition checks.
    pub triage: Option<Verdict>,
    pub status: Status,
}

impl Judgement {
    /// Whether this case fails a run (a new disagreement, a stale entry, an oracle failure).
    pub fn fails(&self) -> bool {
        matches!(self.status, Status::New | Status::Stale(_) | Status::OracleError(_))
    }

    /// One line for people: `agree`, `agree (both refuse)`, `unchecked: ...`, or
    /// `DISAGREE class 3 (one rejects) blame: cute` and whether it is known.
    pub fn summary(&self) -> String {
        match &self.status {
            Status::Agree => "agree".into(),
            Status::BothRefuse => "agree (both refuse)".into(),
            Status::Unchecked(why) => format!("unchecked: {why}"),
            Status::OracleError(why) => format!("ORACLE ERROR: {why}"),
            Status::Stale(why) => format!("STALE known discrepancy: {why}"),
            Status::FixedHere(since) => format!("fixed in this release? (known since {since}, no longer reproduces)"),
            Status::Explained(_) | Status::New | Status::KnownEarlier(_) => {
                let mut s = match &self.triage {
                    Some(t) => format!("DISAGREE {}", disagreement_line(t)),
                    None => "DISAGREE (untriaged)".into(),
                };
                match &self.status {
                    Status::Explained(e) => s.push_str(&format!(" (known: {e})")),
                    Status::KnownEarlier(since) => s.push_str(&format!(" (known since {since}, still present)")),
                    _ => {}
                }
                s
            }
        }
    }
}

/// `class 3 (one rejects) blame: cute` for a triage verdict.
pub fn disagreement_line(t: &Verdict) -> String {
    let what = match t {
        Verdict::Agree => "both reject, different reasons",
        Verdict::SameFunction => "same function, different representation",
        Verdict::DifferentFunction { .. } => "different functions",
        Verdict::OneRejects { .. } => "one rejects",
        Verdict::CuteCrashed => "CuTe crashes",
    };
    let class = if t.is_agreement() { 3 } else { t.number() };
    format!("class {class} ({what}) blame: {}", blame_word(&triage::blame_of(t)))
}

fn blame_word(b: &Blame) -> &'static str {
    match b {
        Blame::Engine => "engine",
        Blame::Cute => "cute",
        Blame::Both => "both",
        Blame::Undetermined => "undetermined",
        Blame::StricterThanCute => "none (the engine is stricter than CuTe)",
    }
}

/// The judge: compares, triages, and looks disagreements up in the known discrepancies of one
/// CUTLASS version. The only place these steps are put together.
pub struct Judge<'k> {
    pub known: &'k KnownDiscrepancies,
    /// The CUTLASS version the known discrepancies are matched against (`4.2.0.0`, or `dir:PATH`
    /// for a checkout).
    pub version: String,
    /// The release the engine models for this run (`engine::release`).
    pub release: Release,
    /// When the version is not modelled exactly: the modelled release whose known discrepancies
    /// carry over (reported as known earlier / fixed here, never as stale).
    pub carried: Option<String>,
}

impl<'k> Judge<'k> {
    /// A judge for a CUTLASS version: a modelled wheel version is modelled exactly; any other
    /// version is modelled by the nearest older modelled release, whose known discrepancies carry
    /// over; a version that does not parse (a checkout without version.h) by the default release.
    pub fn new(known: &'k KnownDiscrepancies, version: impl Into<String>) -> Judge<'k> {
        let version = version.into();
        let release = version.parse::<Release>().ok();
        Judge::for_release(known, version, release)
    }

    /// A judge for `version` whose CuTe is `release` (read from a checkout's version.h).
    pub fn for_release(
        known: &'k KnownDiscrepancies,
        version: impl Into<String>,
        release: Option<Release>,
    ) -> Judge<'k> {
        let model = release.and_then(Release::model).unwrap_or(release::DEFAULT);
        let exact = release.is_some_and(Release::is_modelled);
        Judge { known, version: version.into(), release: model, carried: (!exact).then(|| model.to_string()) }
    }

    /// The engine's answer to a case under this judge's release.
    pub fn engine(&self, case: &Case, table: bool) -> EngineAnswer {
        release::with_release(self.release, || engine(case, table))
    }

    /// Judge one case from both sides' answers (under this judge's release).
    pub fn judge(&self, case: &Case, origin: Origin, engine: &EngineAnswer, cute: &Outcome) -> Judgement {
        release::with_release(self.release, || self.judge_here(case, origin, engine, cute))
    }

    fn judge_here(&self, case: &Case, origin: Origin, engine: &EngineAnswer, cute: &Outcome) -> Judgement {
        let agreement = compare(&engine.outcome, cute);
        let triage = (agreement == Agreement::Differ).then(|| triage::classify(case, engine, cute));
        let status = match (&agreement, cute) {
            (_, Outcome::Error(why)) => Status::OracleError(why.clone()),
            (Agreement::Same | Agreement::BothRefuse, _) if origin == Origin::Known => match &self.carried {
                Some(since) if self.known.lookup(&case.expr, &self.version).is_none() => {
                    Status::FixedHere(since.clone())
                }
                _ => Status::Stale("listed in fixtures/known-discrepancies.toml but no longer reproduces".into()),
            },
            (Agreement::Same, _) => Status::Agree,
            (Agreement::BothRefuse, _) => Status::BothRefuse,
            (Agreement::Unchecked(why), _) => Status::Unchecked(why.clone()),
            (Agreement::Differ, _) => {
                let t = triage.as_ref().expect("a disagreement is triaged");
                match self.explain(case, origin, t) {
                    // A carried-over entry whose case now blames the engine (CuTe's result meets
                    // the definition the earlier release broke) is news: fixed in this release?
                    Ok(d) if !d.applies_to(&self.version) && t.blames_engine() => Status::New,
                    Ok(d) if !d.applies_to(&self.version) => {
                        Status::KnownEarlier(self.carried.clone().unwrap_or_default())
                    }
                    Ok(d) => Status::Explained(d.expr.clone()),
                    Err(Some(why)) => Status::Stale(why),
                    Err(None) => Status::New,
                }
            }
        };
        Judgement { agreement, triage, status }
    }

    /// The entry that explains a disagreement: an exact entry (same expression, same class), or a
    /// family whose operand predicate holds (never for an admissible random case). `Err(Some)`:
    /// the case is a listed reproducer that now disagrees differently.
    fn explain(&self, case: &Case, origin: Origin, t: &Verdict) -> Result<&'k Discrepancy, Option<String>> {
        let exact = self.known.lookup(&case.expr, &self.version);
        let carried = || self.known.lookup(&case.expr, self.carried.as_deref()?);
        if let Some(d) = exact.or_else(carried) {
            return if d.class == t.class() {
                Ok(d)
            } else {
                Err(Some(format!("listed as {} but now {}", d.class, t.class())))
            };
        }
        if origin == Origin::Known {
            return Err(Some("listed, but not for this version".into()));
        }
        if matches!(origin, Origin::Random { admissible: true }) {
            return Err(None);
        }
        let sig = t.signature();
        self.known
            .lookup_family(case, &sig, &self.version)
            .or_else(|| self.known.lookup_family(case, &sig, self.carried.as_deref()?))
            .ok_or(None)
    }
}

impl fmt::Display for Judgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(s: &str) -> Case {
        Case::parse(s, "test").unwrap()
    }

    #[test]
    fn outcome_lines_round_trip() {
        for o in [
            Outcome::Printed("_4:_1".into()),
            Outcome::Printed("TiledMMA\n  ThrLayoutVMNK: _32:_1".into()),
            Outcome::Rejected("Non-injective Layout detected in complement.".into()),
            Outcome::Crashed("SIGFPE (signal 8)".into()),
            Outcome::Unsupported("no C++ for x".into()),
            Outcome::Error("compiler timed out".into()),
        ] {
            assert_eq!(Outcome::from_lines(&o.lines()), o);
        }
    }

    #[test]
    fn the_refusal_rule() {
        let r = |s: &str| Outcome::Rejected(s.into());
        let p = |s: &str| Outcome::Printed(s.into());
        let cute = r("Non-injective Layout detected in complement.");
        assert_eq!(
            compare(&r("Non-injective Layout detected in complement: (_2,_2):(_1,_1)"), &cute),
            Agreement::BothRefuse
        );
        assert_eq!(compare(&r("Divisibility Condition: x"), &cute), Agreement::Differ);
        assert_eq!(compare(&p("_4:_1"), &cute), Agreement::Differ);
        assert_eq!(
            compare(&r("division by zero"), &Outcome::Crashed("SIGFPE (signal 8)".into())),
            Agreement::BothRefuse
        );
        assert_eq!(compare(&r("type error: x"), &r("compile error: no matching function")), Agreement::BothRefuse);
        assert_eq!(compare(&r("Mismatched Ranks: x"), &r("static assertion failed")), Agreement::BothRefuse);
        // CuTe's static division by zero goes on at run time and fails at a later static_assert.
        assert_eq!(compare(&r("division by zero"), &r("Static shape_div failure")), Agreement::BothRefuse);
        assert_eq!(compare(&r("division by zeros"), &r("Static shape_div failure")), Agreement::Differ);
        // Run-time arithmetic comes after every compile-time check.
        let over = r("integer overflow in multiplication (CuTe's ints are 32-bit)");
        assert_eq!(compare(&over, &p("_4:_1")), Agreement::Differ);
        assert_eq!(compare(&over, &r("Static shape_div failure")), Agreement::BothRefuse);
        assert!(matches!(compare(&p("_1"), &Outcome::Unsupported("x".into())), Agreement::Unchecked(_)));
        assert_eq!(compare(&p("_4:_1"), &p("_4:_1")), Agreement::Same);
        assert_eq!(compare(&p("_4:_1\n"), &p("_4:_1")), Agreement::Same);
        let svg =
            |a: &str, body: &str, tile: &str| p(&format!("<!--  Tile: {tile}  -->\n{a}\n<svg a>\n{body}\n</svg>\n"));
        let (ours, cutes) = ("<!--     A: x  -->", "<!--     A: ArithTuple(_0,_0) o x  -->");
        assert_eq!(compare(&svg(ours, "<rect/>", "(_8,_8,_4)"), &svg(cutes, "<rect/>", "(_8,_8,_4)")), Agreement::Same);
        assert_eq!(
            compare(&svg(ours, "<rect />", "(_8,_8,_4)"), &svg(cutes, "<rect/>", "(_8,_8,_4)")),
            Agreement::Differ
        );
        assert_eq!(
            compare(&svg(ours, "<rect/>", "(_8,_8,_8)"), &svg(cutes, "<rect/>", "(_8,_8,_4)")),
            Agreement::Differ
        );
        // CUTLASS 3.x: no comments, the same cells in another order.
        let ours = p("<!--  Tile: (_8,_8,_4)  -->\n<!--     A: x  -->\n<svg a>\n<rect 1/>\n<rect 2/>\n</svg>\n");
        assert_eq!(compare(&ours, &p("<svg a>\n<rect 2/>\n<rect 1/>\n</svg>\n")), Agreement::Same);
        assert_eq!(compare(&ours, &p("<svg a>\n<rect 2/>\n<rect 2/>\n</svg>\n")), Agreement::Differ);
        assert_eq!(compare(&ours, &p("<svg b>\n<rect 2/>\n<rect 1/>\n</svg>\n")), Agreement::Differ);
        // Over the engine's walk limit: no verdict either way.
        let big = Outcome::Unsupported("too large: 2^27 coordinates".into());
        assert!(matches!(compare(&big, &Outcome::Printed("_4:_1".into())), Agreement::Unchecked(_)));
    }

    #[test]
    fn the_engine_answers_each_form_once() {
        let a = engine(&case("coalesce((_2,(_1,_6)):(_1,(_6,_2)))"), false);
        assert_eq!(a.outcome, Outcome::Printed("_12:_1".into()));
        assert!(a.value.is_some());
        let grid = engine(&case("print_layout((_2,_2):(_1,_2))"), false);
        assert!(grid.outcome.printed().is_some_and(|g| g.starts_with("(_2,_2):(_1,_2)\n")), "{grid:?}");
        assert_eq!(engine(&case("(_2,_2):(_1,_2)"), true).outcome, grid.outcome);
        assert!(matches!(engine(&case("complement((_2,_2):(_1,_1),_24)"), false).outcome, Outcome::Rejected(_)));
    }

    #[test]
    fn the_judge_names_class_and_blame() {
        // The chapter's example: CuTe accepts an undefined composition and prints a wrong layout.
        let known = KnownDiscrepancies::default();
        let judge = Judge::new(&known, "4.2.0.0");
        let c = case("composition((_6,_2):(_8,_2),_4:_4)");
        let e = engine(&c, false);
        let j = judge.judge(&c, Origin::Adhoc, &e, &Outcome::Printed("(_2,_2):(_32,_2)".into()));
        assert_eq!(j.status, Status::New);
        assert!(j.fails());
        assert_eq!(j.summary(), "DISAGREE class 3 (one rejects) blame: cute");
        // The same CuTe output as the engine's: agreement; as a listed reproducer: stale.
        let j = judge.judge(&c, Origin::Known, &e, &e.outcome);
        assert!(matches!(j.status, Status::Stale(_)), "{j:?}");
        // An oracle failure fails the run; an unsupported case does not.
        assert!(judge.judge(&c, Origin::Fixed, &e, &Outcome::Error("timeout".into())).fails());
        assert!(!judge.judge(&c, Origin::Fixed, &e, &Outcome::Unsupported("x".into())).fails());
    }

    #[test]
    fn an_unmodelled_release_carries_the_known_discrepancies_over() {
        let known = KnownDiscrepancies::parse(
            "[[discrepancy]]\nexpr = \"composition((_6,_2):(_8,_2),_4:_4)\"\nversions = [\"4.2.0.0\"]\nclass = \"one-rejects\"\nexplanation = \"x\"\n",
        )
        .unwrap();
        let exact = Judge::new(&known, "4.2.0.0");
        assert_eq!((exact.release, exact.carried.clone()), (release::DEFAULT, None));
        // A checkout of 4.3 is modelled by 4.2, whose entries carry over.
        let newer = Judge::for_release(&known, "dir:/x", Some("4.3.0".parse().unwrap()));
        assert_eq!((newer.release, newer.carried.as_deref()), (release::DEFAULT, Some("4.2.0.0")));
        let c = case("composition((_6,_2):(_8,_2),_4:_4)");
        let e = newer.engine(&c, false);
        let wrong = Outcome::Printed("(_2,_2):(_32,_2)".into());
        let j = newer.judge(&c, Origin::Known, &e, &wrong);
        assert_eq!(j.status, Status::KnownEarlier("4.2.0.0".into()));
        assert!(!j.fails());
        assert!(j.summary().ends_with("(known since 4.2.0.0, still present)"), "{}", j.summary());
        // The same entry no longer reproducing: news on the new release, a failure on 4.2.
        let j = newer.judge(&c, Origin::Known, &e, &e.outcome);
        assert_eq!(j.status, Status::FixedHere("4.2.0.0".into()));
        assert!(!j.fails());
        assert!(matches!(exact.judge(&c, Origin::Known, &e, &e.outcome).status, Status::Stale(_)));
        // Older than every model: the oldest model, entries of 3.5.1 carry over.
        let old = Judge::new(&known, "3.3.0.0");
        assert_eq!(old.release.to_string(), "3.5.1.0");
        assert_eq!(old.carried.as_deref(), Some("3.5.1.0"));
    }
}
