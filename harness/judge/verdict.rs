//! What a difference between two answers means: the classes, the blame by the operation's
//! definition, and the fault the blame points at. One classification for every pair of sides
//! (the engine against CuTe C++, the engine or CuTe C++ against the CuTe DSL, against pycute),
//! reading each oracle's answer for what it can report ([`Caps`]).
//!
//! Classes (the first four are the ones a CUTLASS maintainer triages engine~CuTe by):
//! 1. [`Verdict::SameFunction`]: printed differently, the same function (equal size, equal value
//!    at every 1-D coordinate): a representation difference.
//! 2. [`Verdict::DifferentFunction`]: different functions; each result is checked against the
//!    operation's definition by brute force and the side that violates it is blamed.
//! 3. [`Verdict::OneRejects`]: one side refuses, the other answers; whether the answer satisfies
//!    the definition says who is wrong.
//! 4. [`Verdict::OracleCrashed`]: the oracle compiled or traced the case and then died.
//!
//! and, where an oracle shows less than CuTe C++ prints: [`Verdict::Staticness`] (same values,
//! different static-ness), [`Verdict::DifferentUnknown`] (different, with values the oracle does
//! not show), [`Verdict::OneRejects`] with `dynamic` (the oracle refuses an operand it only knows
//! at run time), [`Verdict::ReferenceCrashed`] and [`Verdict::Unchecked`].

use std::fmt;

use serde::Serialize;

use crate::case::{Caps, Outcome};
use crate::case::{DslValue, PyValue, Reply};
use crate::engine::int_tuple::{Tup, View};
use crate::engine::{Int, Layout};
use crate::expr::Value;

/// The side of a pair: the reference (the engine, or CuTe C++ when the DSL is judged against
/// it) or the oracle being judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Reference,
    Oracle,
}

/// Who violates the operation's definition when the two results are different functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Blame {
    /// Only the reference's result violates the definition.
    Reference,
    /// Only the oracle's result violates the definition.
    Oracle,
    /// Both violate it.
    Both,
    /// Both satisfy it (the definition does not pin the result down) or no definition is known.
    Undetermined,
}

/// The names of the two sides in signatures and reports (`engine`/`cute`, `reference`/`dsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roles {
    pub reference: &'static str,
    pub oracle: &'static str,
}

/// The engine judged against CuTe C++ (the names known-discrepancy families are written in).
pub const ENGINE_CUTE: Roles = Roles { reference: "engine", oracle: "cute" };

/// One pair's verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "class", rename_all = "snake_case")]
pub enum Verdict {
    /// Same result (`unknown`: dynamic leaves whose value the oracle does not show), or both
    /// refuse for reasons the refusal rule does not match.
    Agree { unknown: usize },
    /// Both refuse the case.
    BothRefuse,
    /// Same structure and values; static-ness differs (an oracle that shows static-ness).
    Staticness { leaves: usize, at: String },
    /// Class 1: same function, different representation.
    SameFunction,
    /// Class 2: different functions; `blame` names the side violating the definition.
    DifferentFunction { blame: Blame, reference_check: Option<String>, oracle_check: Option<String> },
    /// Different, but the oracle does not show its dynamic values, so no definition can be checked.
    DifferentUnknown { at: String },
    /// Class 3: `rejecter` refuses (with `message`, where it gives one), the other side answers;
    /// `accepted_ok` says whether that answer satisfies the definition (None: no definition
    /// known, or values the oracle does not show). `dynamic`: the oracle refuses an operand whose
    /// values it only knows at run time (its message names a type with a `?` leaf), or answers
    /// with values it does not show: a limit of the oracle. `undefined_here`: the reference
    /// refuses because the modelled CuTe's own result breaks the definition, and the oracle is
    /// another CuTe (release or implementation).
    OneRejects {
        rejecter: Side,
        accepted_ok: Option<bool>,
        detail: Option<String>,
        message: Option<String>,
        dynamic: bool,
        undefined_here: bool,
        /// The rejecter is CuTe C++ itself: its refusal is CuTe's stated precondition.
        precondition: bool,
    },
    /// Class 4: the oracle died on the case (CuTe C++ at run time, the DSL's worker).
    OracleCrashed { message: String },
    /// The reference died on the case (the engine panicked, or CuTe C++ crashed).
    ReferenceCrashed,
    /// One side has no answer to compare (no form for the case, or the side failed).
    Unchecked { why: String },
    /// CuTe's own computation overflowed on `side` (CuTe C++ built with UBSan, or its compiler's
    /// overflow diagnostic): undefined behaviour, so that side has no answer and neither side is
    /// blamed ([`Fault::CuteOverflows`]).
    CuteOverflows { side: Side, at: String },
}

/// What a verdict says about the sides: nothing wrong, a fault of the reference (an engine fault
/// when the reference is the engine), a defect of the oracle, a limitation of the oracle, or
/// nothing decidable. The blame matrix of the project: computed here and nowhere else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// Agreement.
    None,
    /// The reference's result breaks the definition, or the reference refuses (or crashes on) a
    /// case whose oracle answer meets it.
    Reference,
    /// The oracle's result breaks the definition, the oracle refuses a case whose reference
    /// answer meets it, or it crashes.
    OracleDefect,
    /// The oracle cannot show or compute what the case asks (dynamic values, no form).
    OracleLimitation,
    /// Both sides break the definition.
    Both,
    /// The same function printed differently, or the same values with other static-ness:
    /// neither side breaks the definition.
    Representation,
    /// The modelled CuTe computes a result that breaks the definition (so the engine refuses)
    /// where the oracle, another CuTe release or implementation, answers one that meets it.
    ReleaseDifference,
    /// A side has no answer to compare: not a difference.
    Unchecked,
    /// The sides differ and no definition decides (a representation or static-ness difference,
    /// results the definition does not pin down, an operation without a definition check).
    Undetermined,
    /// CuTe's own computation overflows (signed overflow, undefined behaviour): a fact about
    /// CuTe, shown by UBSan or the compiler; neither side is blamed.
    CuteOverflows,
}

impl Fault {
    pub fn word(self) -> &'static str {
        match self {
            Fault::None => "none",
            Fault::Reference => "reference",
            Fault::OracleDefect => "oracle defect",
            Fault::OracleLimitation => "oracle limitation",
            Fault::Both => "both",
            Fault::Representation => "representation",
            Fault::ReleaseDifference => "release difference",
            Fault::Unchecked => "unchecked",
            Fault::Undetermined => "undetermined",
            Fault::CuteOverflows => "cute overflows",
        }
    }
}

fn accepted(a: &Option<bool>) -> &'static str {
    match a {
        Some(true) => "ok",
        Some(false) => "wrong",
        None => "unchecked",
    }
}

impl Verdict {
    /// Short class name used in reports and in fixtures/known-discrepancies.toml.
    pub fn class(&self) -> &'static str {
        match self {
            Verdict::Agree { .. } => "agree",
            Verdict::BothRefuse => "both-refuse",
            Verdict::Staticness { .. } => "staticness",
            Verdict::SameFunction => "same-function",
            Verdict::DifferentFunction { .. } => "different-function",
            Verdict::DifferentUnknown { .. } => "different-unknown",
            Verdict::OneRejects { .. } => "one-rejects",
            // The engine~CuTe name, recorded in the known discrepancies.
            Verdict::OracleCrashed { .. } => "cute-crashed",
            Verdict::ReferenceCrashed => "reference-crashed",
            Verdict::Unchecked { .. } => "unchecked",
            Verdict::CuteOverflows { .. } => "cute-overflows",
        }
    }

    /// The class with its salient facts, in the sides' names, e.g.
    /// `one-rejects:engine-rejects:accepted-wrong` or `different-function:blame-dsl`; known
    /// discrepancy families match on it (with [`ENGINE_CUTE`]).
    pub fn signature(&self, roles: Roles) -> String {
        let name = |s: Side| if s == Side::Reference { roles.reference } else { roles.oracle };
        match self {
            Verdict::DifferentFunction { blame, .. } => format!(
                "different-function:blame-{}",
                match blame {
                    Blame::Reference => roles.reference,
                    Blame::Oracle => roles.oracle,
                    Blame::Both => "both",
                    Blame::Undetermined => "undetermined",
                }
            ),
            Verdict::OneRejects { rejecter: rejecter @ Side::Oracle, accepted_ok, dynamic: true, .. } => {
                format!("one-rejects:{}-refuses-dynamic:accepted-{}", name(*rejecter), accepted(accepted_ok))
            }
            Verdict::OneRejects { rejecter, accepted_ok, .. } => {
                format!("one-rejects:{}-rejects:accepted-{}", name(*rejecter), accepted(accepted_ok))
            }
            Verdict::OracleCrashed { message } => match crash_signal(message) {
                Some(sig) => format!("{}-crashed:{sig}", roles.oracle),
                None => format!("{}-crashed", roles.oracle),
            },
            Verdict::ReferenceCrashed => format!("{}-crashed", roles.reference),
            Verdict::DifferentUnknown { .. } => format!("different:{}-values-unknown", roles.oracle),
            other => other.class().to_string(),
        }
    }

    /// Class number 1-4 (0 for agreement and the classes outside the four).
    pub fn number(&self) -> u8 {
        match self {
            Verdict::SameFunction => 1,
            Verdict::DifferentFunction { .. } => 2,
            Verdict::OneRejects { .. } => 3,
            Verdict::OracleCrashed { .. } => 4,
            _ => 0,
        }
    }

    /// Agreement: the same result, or both refuse.
    pub fn agrees(&self) -> bool {
        matches!(self, Verdict::Agree { .. } | Verdict::BothRefuse)
    }

    /// The oracle could not be asked or the reference has no answer.
    pub fn unchecked(&self) -> bool {
        matches!(self, Verdict::Unchecked { .. })
    }

    /// The blame matrix: what the verdict says about each side.
    pub fn fault(&self) -> Fault {
        match self {
            Verdict::Agree { .. } | Verdict::BothRefuse => Fault::None,
            Verdict::Unchecked { .. } => Fault::Unchecked,
            Verdict::CuteOverflows { .. } => Fault::CuteOverflows,
            Verdict::DifferentUnknown { .. } => Fault::OracleLimitation,
            Verdict::Staticness { .. } | Verdict::SameFunction => Fault::Representation,
            Verdict::DifferentFunction { blame, .. } => match blame {
                Blame::Reference => Fault::Reference,
                Blame::Oracle => Fault::OracleDefect,
                Blame::Both => Fault::Both,
                Blame::Undetermined => Fault::Undetermined,
            },
            Verdict::OneRejects { rejecter, accepted_ok, dynamic, undefined_here, precondition, .. } => {
                match (rejecter, accepted_ok) {
                    // The oracle refuses a case whose reference answer breaks the definition.
                    (Side::Oracle, Some(false)) => Fault::Reference,
                    // The oracle refuses a case whose reference answer meets it.
                    (Side::Oracle, Some(true)) if *dynamic => Fault::OracleLimitation,
                    (Side::Oracle, Some(true)) => Fault::OracleDefect,
                    // The reference refuses a case whose oracle answer meets the definition.
                    (Side::Reference, Some(true)) if *undefined_here => Fault::ReleaseDifference,
                    // CuTe C++ refuses by its own precondition what the oracle answers: the
                    // definition cannot tell (the oracle checks less, or CuTe is stricter).
                    (Side::Reference, Some(true)) if *precondition => Fault::Undetermined,
                    (Side::Reference, Some(true)) => Fault::Reference,
                    // The reference refuses; the oracle's answer breaks the definition.
                    (Side::Reference, Some(false)) => Fault::OracleDefect,
                    (_, None) if *dynamic => Fault::OracleLimitation,
                    (_, None) => Fault::Undetermined,
                }
            }
            Verdict::OracleCrashed { .. } => Fault::OracleDefect,
            Verdict::ReferenceCrashed => Fault::Reference,
        }
    }

    /// Whether the reference is shown wrong by the definition (for the engine: an engine bug).
    pub fn blames_reference(&self) -> bool {
        matches!(self.fault(), Fault::Reference | Fault::Both)
    }

    /// Which side the definition blames, as the old four-class triage put it (for reports).
    pub fn blame(&self) -> Blame {
        match self.fault() {
            Fault::Reference => Blame::Reference,
            Fault::OracleDefect => Blame::Oracle,
            Fault::Both => Blame::Both,
            _ => Blame::Undetermined,
        }
    }

    /// One line in the sides' names, e.g. `cute rejects, engine accepts a result that satisfies
    /// the definition`.
    pub fn describe(&self, roles: Roles) -> String {
        let name = |s: Side| if s == Side::Reference { roles.reference } else { roles.oracle };
        match self {
            Verdict::Agree { unknown: 0 } => "agree".into(),
            Verdict::Agree { unknown } => format!("agree ({unknown} dynamic values not shown)"),
            Verdict::BothRefuse => "both refuse".into(),
            Verdict::Staticness { leaves, at } => format!("static-ness differs on {leaves} leaves (first {at})"),
            Verdict::SameFunction => "same function, different representation".into(),
            Verdict::DifferentFunction { blame, reference_check, oracle_check } => {
                let mut s = format!("different functions; blame: {}", blame_name(*blame, roles));
                if let Some(e) = reference_check {
                    s += &format!("; {} violates: {e}", roles.reference);
                }
                if let Some(c) = oracle_check {
                    s += &format!("; {} violates: {c}", roles.oracle);
                }
                s
            }
            Verdict::DifferentUnknown { at } => format!("different at {at} ({} values unknown)", roles.oracle),
            Verdict::OneRejects { rejecter, accepted_ok, detail, dynamic, .. } => {
                let other = name(if *rejecter == Side::Reference { Side::Oracle } else { Side::Reference });
                let how = if *dynamic { "refuses a dynamic operand" } else { "rejects" };
                let mut s = format!("{} {how}, {other} accepts", name(*rejecter));
                match accepted_ok {
                    Some(true) => s += " a result that satisfies the definition",
                    Some(false) => {
                        s += &format!(" a result that violates the definition: {}", detail.as_deref().unwrap_or(""))
                    }
                    None => {}
                }
                s
            }
            Verdict::OracleCrashed { message } => format!("{} crashed: {message}", roles.oracle),
            Verdict::ReferenceCrashed => format!("{} crashed", roles.reference),
            Verdict::Unchecked { why } => format!("unchecked: {why}"),
            Verdict::CuteOverflows { side, at } => format!("CuTe overflows ({}): {at}", name(*side)),
        }
    }
}

/// A blame in the sides' names.
pub fn blame_name(b: Blame, roles: Roles) -> &'static str {
    match b {
        Blame::Reference => roles.reference,
        Blame::Oracle => roles.oracle,
        Blame::Both => "both",
        Blame::Undetermined => "undetermined",
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(ENGINE_CUTE))
    }
}

/// Checks a result against the case's operation definition: `None` when no definition is known
/// for the case, `Some(Err(why))` when the result violates it.
pub type DefinitionCheck<'a> = &'a dyn Fn(&Value) -> Option<Result<(), String>>;

pub use crate::expr::read_printed;

/// Same function: equal kind; layouts have equal size and equal values on every 1-D coordinate;
/// tuples agree element by element; integers have equal values (static-ness aside).
pub fn same_function(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.value == y.value,
        (Value::Layout(x), Value::Layout(y)) => same_layout_function(x, y),
        (Value::Tuple(x), Value::Tuple(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_function(p, q)),
        (Value::Underscore, Value::Underscore) => true,
        _ => false,
    }
}

fn same_layout_function(a: &Layout, b: &Layout) -> bool {
    match (a.values(), b.values()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// One side's answer as the judge reads it: the outcome, the value where the side has it
/// (the engine's own; else a printed result is read back), and the oracle's capabilities.
#[derive(Clone, Copy)]
pub struct Answer<'a> {
    pub outcome: &'a Outcome,
    pub value: Option<&'a Value>,
    /// A result whose dynamic leaves may be unknown (the DSL's).
    pub partial: Option<&'a DslValue>,
    pub caps: Caps,
    /// The side refused because the modelled CuTe's own result breaks the definition.
    pub undefined: bool,
    /// The side is CuTe C++ itself (its refusals are CuTe's preconditions).
    pub is_cute: bool,
    /// The result as a function, for an oracle that reports values but no layout (pycute).
    pub function: Option<Function<'a>>,
}

/// A result as a function: a layout's values over its domain, or a number.
#[derive(Clone, Copy, Debug)]
pub enum Function<'a> {
    Values(&'a [i64]),
    Number(i64),
}

impl<'a> Answer<'a> {
    /// An answer in CuTe's printed form (CuTe C++'s, or an engine outcome without its value).
    pub fn printed(outcome: &'a Outcome, value: Option<&'a Value>) -> Answer<'a> {
        Answer { outcome, value, partial: None, caps: Caps::CUTE, undefined: false, is_cute: false, function: None }
    }

    /// CuTe C++'s answer (the compiled driver's or the in-process one's).
    pub fn cute(outcome: &'a Outcome) -> Answer<'a> {
        Answer { is_cute: true, ..Answer::printed(outcome, None) }
    }

    /// pycute's answer: its text, and its result as a function where it has one.
    pub fn pycute(a: &'a crate::oracle::pycute::PycuteAnswer) -> Answer<'a> {
        Answer { caps: Caps::PYCUTE, function: function_of(a.value.as_ref()), ..Answer::printed(&a.outcome, None) }
    }

    /// An oracle's reply, read by what the oracle can report: CuTe C++ of the modelled release
    /// (its refusals are CuTe's preconditions), a partial value (the DSL's), a function
    /// (pycute's).
    pub fn reply(r: &'a Reply, caps: Caps) -> Answer<'a> {
        Answer {
            partial: r.partial(),
            function: function_of(r.function()),
            caps,
            is_cute: caps.modelled,
            ..Answer::printed(&r.outcome, None)
        }
    }

    /// The engine's answer: its value, and whether it refused because the modelled CuTe's own
    /// result breaks the definition ([`crate::engine::Error::Undefined`]).
    pub fn engine(a: &'a crate::case::EngineAnswer) -> Answer<'a> {
        let undefined = matches!(a.refusal, Some(crate::engine::Error::Undefined { .. }));
        Answer { undefined, ..Answer::printed(&a.outcome, a.value.as_ref()) }
    }
}

impl<'a> Answer<'a> {
    /// The CuTe DSL's answer: its result may have unknown dynamic leaves.
    pub fn dsl(a: &'a crate::oracle::dsl::DslAnswer) -> Answer<'a> {
        Answer { partial: a.value.as_ref(), caps: Caps::DSL, ..Answer::printed(&a.outcome, None) }
    }
}

/// A result as a function, from pycute's structure.
fn function_of(v: Option<&PyValue>) -> Option<Function<'_>> {
    match v? {
        PyValue::Layout { values: Some(v), .. } => Some(Function::Values(v)),
        PyValue::Number { value } => Some(Function::Number(*value)),
        _ => None,
    }
}

/// Classify a pair of answers to `case` with the definition check of its operation, as blame
/// reads it (`definition::check_cute`: only CuTe's own conditions blame a side).
pub fn judge_pair(case: &crate::case::Case, reference: Answer<'_>, oracle: Answer<'_>) -> Verdict {
    let check = |v: &Value| crate::definition::check_cute(&case.expr, v);
    classify(reference, oracle, &check)
}

/// Classify a pair of answers with the definition check of the case's operation.
pub fn classify(reference: Answer<'_>, oracle: Answer<'_>, check: DefinitionCheck<'_>) -> Verdict {
    use Outcome::*;
    let reference_value = || reference.value.cloned().or_else(|| reference.outcome.printed().and_then(read_printed));
    let oracle_value = || match oracle.partial {
        Some(p) => p.to_value(),
        None => oracle.value.cloned().or_else(|| oracle.outcome.printed().and_then(read_printed)),
    };
    let checked = |v: Option<Value>| v.and_then(|v| check(&v));
    match (reference.outcome, oracle.outcome) {
        (_, Unsupported(w)) => Verdict::Unchecked { why: format!("unsupported: {w}") },
        (_, Error(w)) => Verdict::Unchecked { why: format!("error: {w}") },
        (_, Overflow(at)) => Verdict::CuteOverflows { side: Side::Oracle, at: at.clone() },
        (Overflow(at), _) => Verdict::CuteOverflows { side: Side::Reference, at: at.clone() },
        (_, Crashed(m)) => Verdict::OracleCrashed { message: m.clone() },
        (Unsupported(w) | Error(w), _) => Verdict::Unchecked { why: format!("the reference has no result: {w}") },
        (Crashed(_), _) => Verdict::ReferenceCrashed,
        (Rejected(_), Rejected(_)) => Verdict::BothRefuse,
        (Printed(_), Rejected(m)) => {
            let c = checked(reference_value());
            Verdict::OneRejects {
                rejecter: Side::Oracle,
                accepted_ok: c.as_ref().map(Result::is_ok),
                detail: c.and_then(Result::err),
                message: Some(m.clone()),
                dynamic: oracle.caps.partial_values && refuses_dynamic(m),
                undefined_here: false,
                precondition: oracle.is_cute,
            }
        }
        (Rejected(m), Printed(_)) => {
            let ov = oracle_value();
            let unknown = ov.is_none() && oracle.partial.is_some_and(|p| !p.is_known());
            let c = checked(ov);
            Verdict::OneRejects {
                rejecter: Side::Reference,
                accepted_ok: c.as_ref().map(Result::is_ok),
                detail: c.and_then(Result::err),
                message: Some(m.clone()),
                dynamic: unknown,
                undefined_here: reference.undefined && !oracle.caps.modelled,
                precondition: reference.is_cute,
            }
        }
        (Printed(r), Printed(o)) => {
            let (rv, ov) = match oracle.partial {
                // An oracle whose values may be unknown: compared leaf by leaf first.
                Some(dv) => {
                    let Some(rv) = read_printed(r) else {
                        return Verdict::Unchecked { why: format!("the reference's result {r:?} cannot be read back") };
                    };
                    let at = match compare_partial(&rv, dv) {
                        Match::Identical { unknown } => return Verdict::Agree { unknown },
                        Match::Staticness { leaves, at } => return Verdict::Staticness { leaves, at },
                        Match::Different { at } => at,
                    };
                    let Some(ov) = dv.to_value() else { return Verdict::DifferentUnknown { at } };
                    (Some(rv), Some(ov))
                }
                None if r == o => return Verdict::Agree { unknown: 0 },
                // An oracle without static-ness reports the function, not CuTe's layout: compared
                // as a function (a layout's values, a number), or not at all.
                None if !oracle.caps.staticness => {
                    let rv = reference_value();
                    let same = match (&rv, oracle.function) {
                        (Some(Value::Layout(l)), Some(Function::Values(v))) => l.values().ok().map(|x| x == v),
                        (Some(Value::Int(i)), Some(Function::Number(n))) => Some(i.value == n),
                        _ => None,
                    };
                    match same {
                        Some(true) => return Verdict::Agree { unknown: 0 },
                        None => return Verdict::Unchecked { why: "not comparable as a function".into() },
                        Some(false) => (rv, oracle_value()),
                    }
                }
                None => (reference_value(), oracle_value()),
            };
            if let (Some(a), Some(b)) = (&rv, &ov) {
                if same_function(a, b) {
                    return Verdict::SameFunction;
                }
            }
            let (rk, ok) = (checked(rv), checked(ov));
            let bad = |r: &Option<Result<(), String>>| match r {
                Some(Err(why)) => Some(why.clone()),
                _ => None,
            };
            let (rb, ob) = (bad(&rk), bad(&ok));
            let blame = match (&rb, &ob, rk.is_some() && ok.is_some()) {
                (Some(_), Some(_), _) => Blame::Both,
                (Some(_), None, true) => Blame::Reference,
                (None, Some(_), true) => Blame::Oracle,
                _ => Blame::Undetermined,
            };
            Verdict::DifferentFunction { blame, reference_check: rb, oracle_check: ob }
        }
    }
}

/// Whether an oracle's refusal is about an operand it only knows at run time: the message names
/// a CuTe IR type (`!cute.layout<"...">`, `#cute.layout<...>`, `!cute.int_tuple<...>`) with a
/// dynamic leaf `?` in it.
pub fn refuses_dynamic(message: &str) -> bool {
    message.match_indices("cute.").any(|(i, _)| {
        let rest = &message[i..];
        let end = rest.find(['>', '\'']).unwrap_or(rest.len());
        rest[..end].contains('?')
    })
}

/// The signal named in a crash message ("... signal 6 (SIGABRT) ..."), for grouping.
pub fn crash_signal(message: &str) -> Option<&str> {
    let i = message.find("(SIG")?;
    let rest = &message[i + 1..];
    Some(&rest[..rest.find(')')?])
}

/// How a partially known value compares with a reference value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "match", rename_all = "snake_case")]
pub enum Match {
    /// Same structure; every known leaf has the reference's value and static-ness; `unknown`
    /// dynamic leaves (`?`) whose value the oracle does not show (their divisors hold).
    Identical { unknown: usize },
    /// Same structure and values, but `leaves` leaves differ in static-ness (the first at `at`).
    Staticness { leaves: usize, at: String },
    /// Different structure or a different known value (or a divisor that does not divide).
    Different { at: String },
}

/// Compare a partially known value with a reference value: structure, known values, static-ness.
pub fn compare_partial(reference: &Value, partial: &DslValue) -> Match {
    let mut st = Walk { unknown: 0, staticness: 0, first_static: None };
    match st.value(reference, partial, "") {
        Err(at) => Match::Different { at },
        Ok(()) if st.staticness > 0 => {
            Match::Staticness { leaves: st.staticness, at: st.first_static.unwrap_or_default() }
        }
        Ok(()) => Match::Identical { unknown: st.unknown },
    }
}

struct Walk {
    unknown: usize,
    staticness: usize,
    first_static: Option<String>,
}

impl Walk {
    fn value(&mut self, r: &Value, d: &DslValue, at: &str) -> Result<(), String> {
        match (r, d) {
            (Value::Int(i), _) => self.leaf(*i, d, at),
            (Value::Underscore, DslValue::Underscore) => Ok(()),
            (Value::Tuple(rs), DslValue::Tuple(ds)) if rs.len() == ds.len() => {
                rs.iter().zip(ds).enumerate().try_for_each(|(k, (r, d))| self.value(r, d, &format!("{at}[{k}]")))
            }
            (Value::Layout(l), DslValue::Layout { shape, stride }) => {
                self.tuple(&l.shape, shape, &format!("{at}shape"))?;
                self.tuple(&l.stride, stride, &format!("{at}stride"))
            }
            _ => Err(format!("{} {}: {} vs {d}", if at.is_empty() { "result" } else { at }, "kind or rank", r.kind())),
        }
    }

    fn tuple(&mut self, r: &Tup, d: &DslValue, at: &str) -> Result<(), String> {
        match (r.view(), d) {
            (View::Leaf(i), _) => self.leaf(i, d, at),
            (View::Tuple(rs), DslValue::Tuple(ds)) if rs.len() == ds.len() => {
                rs.iter().zip(ds).enumerate().try_for_each(|(k, (r, d))| self.tuple(r, d, &format!("{at}[{k}]")))
            }
            _ => Err(format!("{at}: {r} vs {d}")),
        }
    }

    fn leaf(&mut self, r: Int, d: &DslValue, at: &str) -> Result<(), String> {
        let static_differs = match d {
            DslValue::Static(v) if *v == r.value => !r.is_static,
            DslValue::Dynamic { value: Some(v), .. } if *v == r.value => r.is_static,
            DslValue::Dynamic { value: None, div } => {
                if let Some(k) = div.filter(|k| *k != 0) {
                    if r.value % k != 0 {
                        return Err(format!("{at}: {r} is not a multiple of {k} (DSL {d})"));
                    }
                }
                if !r.is_static {
                    self.unknown += 1;
                }
                r.is_static
            }
            _ => return Err(format!("{at}: {r} vs {d}")),
        };
        if static_differs {
            self.staticness += 1;
            self.first_static.get_or_insert_with(|| format!("{at}: {r} vs {d}"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval_str;

    fn printed(s: &str) -> Outcome {
        Outcome::Printed(s.to_string())
    }
    fn no_definition(_: &Value) -> Option<Result<(), String>> {
        None
    }
    fn pair<'a>(reference: &'a Outcome, oracle: &'a Outcome) -> (Answer<'a>, Answer<'a>) {
        (Answer::printed(reference, None), Answer::cute(oracle))
    }

    #[test]
    fn representation_difference_is_class_1() {
        // coalesce of the chapter's layout: flattened (CuTe, dynamic) vs merged form, same function.
        let (e, c) = (printed("(2,1,6):(1,6,2)"), printed("12:1"));
        let (a, b) = pair(&e, &c);
        let v = classify(a, b, &no_definition);
        assert_eq!(v, Verdict::SameFunction);
        assert_eq!(v.fault(), Fault::Representation);
        let (e, c) = (printed("_12:_1"), printed("_12:_1"));
        let (a, b) = pair(&e, &c);
        assert_eq!(classify(a, b, &no_definition), Verdict::Agree { unknown: 0 });
    }

    #[test]
    fn different_functions_blame_the_violating_side() {
        // The chapter's example: CuTe prints (_2,_2):(_32,_2) for composition((_6,_2):(_8,_2), _4:_4),
        // whose R(2) = 2 while A(B(2)) = A(8) = 18. A check that knows the definition blames CuTe.
        let a = eval_str("(_6,_2):(_8,_2)").unwrap().to_layout().unwrap();
        let b = eval_str("_4:_4").unwrap().to_layout().unwrap();
        let check = move |r: &Value| -> Option<Result<(), String>> {
            let r = r.to_layout().ok()?;
            let (rv, bv, av) = (r.values().ok()?, b.values().ok()?, a.values().ok()?);
            for (i, bi) in bv.iter().enumerate() {
                let want = av.get(*bi as usize).copied();
                if rv.get(i).copied() != want {
                    return Some(Err(format!("R({i}) = {:?} but A(B({i})) = {want:?}", rv.get(i))));
                }
            }
            Some(Ok(()))
        };
        let cute = printed("(_2,_2):(_32,_2)");
        let (x, y) = pair(&cute, &cute);
        assert_eq!(classify(x, y, &check), Verdict::Agree { unknown: 0 });
        let refused = Outcome::Rejected("undefined".into());
        let (x, y) = pair(&refused, &cute);
        let v = classify(x, y, &check);
        match &v {
            Verdict::OneRejects { rejecter: Side::Reference, accepted_ok: Some(false), detail: Some(d), .. } => {
                assert!(d.contains("R(2)"), "{d}")
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(v.signature(ENGINE_CUTE), "one-rejects:engine-rejects:accepted-wrong");
        assert_eq!((v.fault(), v.blame()), (Fault::OracleDefect, Blame::Oracle));
        let wrong = printed("(_2,_2):(_24,_2)");
        let (x, y) = pair(&wrong, &cute);
        let v = classify(x, y, &check);
        assert!(matches!(v, Verdict::DifferentFunction { blame: Blame::Both, .. }), "{v:?}");
        assert_eq!(v.fault(), Fault::Both);
        assert!(v.blames_reference());
    }

    #[test]
    fn crashes_are_class_4() {
        let (e, c) = (printed("_1"), Outcome::Crashed("SIGFPE".into()));
        let (a, b) = pair(&e, &c);
        let v = classify(a, b, &no_definition);
        assert!(matches!(v, Verdict::OracleCrashed { .. }), "{v:?}");
        assert_eq!((v.class(), v.number(), v.fault()), ("cute-crashed", 4, Fault::OracleDefect));
    }

    /// The blame matrix: who is at fault for each refusal against an answer, by whether the
    /// answer meets the definition, the oracle's capabilities and the refusal's kind.
    #[test]
    fn the_blame_matrix() {
        let ok = |_: &Value| Some(Ok(()));
        let bad = |_: &Value| Some(Err("breaks it".to_string()));
        let answer = printed("_4:_1");
        let refused = Outcome::Rejected("no".into());
        let dynamic = Outcome::Rejected("expects an input with static shape, but got '!cute.layout<\"?:1\">'".into());
        let dsl = crate::oracle::dsl::DslAnswer { outcome: dynamic.clone(), value: None, dsl_text: None };
        let engine = Answer::printed(&answer, None);
        // The oracle refuses: a defect when the reference's answer meets the definition, a limit
        // when the refusal is about a dynamic operand, the reference's fault when its answer breaks it.
        assert_eq!(classify(engine, Answer::cute(&refused), &ok).fault(), Fault::OracleDefect);
        assert_eq!(classify(engine, Answer::dsl(&dsl), &ok).fault(), Fault::OracleLimitation);
        assert_eq!(classify(engine, Answer::cute(&refused), &bad).fault(), Fault::Reference);
        // The reference refuses: its fault when the oracle's answer meets the definition, unless it
        // refused because the modelled CuTe's result breaks the definition and the oracle is another
        // CuTe, or the reference is CuTe C++ refusing by its own precondition.
        let dsl_ok = crate::oracle::dsl::DslAnswer {
            outcome: answer.clone(),
            value: Some(crate::oracle::dsl::DslValue::Layout {
                shape: Box::new(crate::oracle::dsl::DslValue::Static(4)),
                stride: Box::new(crate::oracle::dsl::DslValue::Static(1)),
            }),
            dsl_text: None,
        };
        let plain = Answer::printed(&refused, None);
        assert_eq!(classify(plain, Answer::dsl(&dsl_ok), &ok).fault(), Fault::Reference);
        let undefined = Answer { undefined: true, ..plain };
        assert_eq!(classify(undefined, Answer::dsl(&dsl_ok), &ok).fault(), Fault::ReleaseDifference);
        assert_eq!(classify(undefined, Answer::cute(&answer), &ok).fault(), Fault::Reference);
        assert_eq!(classify(Answer::cute(&refused), Answer::dsl(&dsl_ok), &ok).fault(), Fault::Undetermined);
        assert_eq!(classify(plain, Answer::dsl(&dsl_ok), &bad).fault(), Fault::OracleDefect);
        // Nothing decides without a definition.
        assert_eq!(classify(plain, Answer::cute(&answer), &no_definition).fault(), Fault::Undetermined);
    }

    #[test]
    fn an_oracle_without_static_ness_is_compared_as_a_function() {
        use crate::oracle::pycute::{PyValue, PycuteAnswer};
        let py = |text: &str, values: Vec<i64>| PycuteAnswer {
            outcome: printed(text),
            code: Some(String::new()),
            value: Some(PyValue::Layout { size: Some(values.len() as i64), values: Some(values) }),
            error: None,
            timed_out: false,
            seconds: None,
        };
        let cute = printed("(_2,_2):(_1,_2)");
        // pycute prints no static-ness and its own spacing: the same function agrees.
        let same = py("(2, 2):(1, 2)", vec![0, 1, 2, 3]);
        assert_eq!(classify(Answer::cute(&cute), Answer::pycute(&same), &no_definition), Verdict::Agree { unknown: 0 });
        // Other values: a different function, read back for the definition check.
        let other = py("(2, 2):(2, 1)", vec![0, 2, 1, 3]);
        let bad = |v: &Value| Some(if v.to_string() == "(2,2):(2,1)" { Err("no".to_string()) } else { Ok(()) });
        let v = classify(Answer::cute(&cute), Answer::pycute(&other), &bad);
        assert!(matches!(v, Verdict::DifferentFunction { blame: Blame::Oracle, .. }), "{v:?}");
        assert_eq!(v.signature(Roles { reference: "cute", oracle: "pycute" }), "different-function:blame-pycute");
        // Without a value to compare (a tuple), no verdict.
        let tuple = PycuteAnswer { value: Some(PyValue::Other), ..py("(2, 2)", vec![]) };
        let pair = printed("(_2,_2)");
        assert!(classify(Answer::cute(&pair), Answer::pycute(&tuple), &no_definition).unchecked());
    }
}
