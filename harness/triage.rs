//! Triage: what a disagreement between the engine and real CuTe means.
//!
//! Given one case, the engine's outcome and CuTe's outcome, [`classify`] sorts the pair into the
//! classes a CUTLASS maintainer cares about:
//! 1. [`Verdict::SameFunction`]: the printed texts differ but both results are the same function
//!    (equal size, equal value at every 1-D coordinate): a representation difference.
//! 2. [`Verdict::DifferentFunction`]: different functions; each side's result is checked against the
//!    operation's definition by brute force and the side that violates it is blamed.
//! 3. [`Verdict::OneRejects`]: one side rejects, the other accepts; says whether the accepted result
//!    satisfies the definition (an accepted wrong result is a defect of that side).
//! 4. [`Verdict::CuteCrashed`]: CuTe compiled the case but crashed or asserted at run time.
//!
//! CuTe's printed text is read back with the expression parser: CuTe's print of ints, int tuples and
//! layouts is valid expression syntax.

use std::fmt;

use serde::Serialize;

use crate::case::{Case, EngineAnswer, Outcome};
use crate::engine::Layout;
use crate::expr::{eval_str, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Engine,
    Cute,
}

/// Who violates the operation's definition when the two results are different functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Blame {
    /// Only the engine's result violates the definition: an engine bug.
    Engine,
    /// Only CuTe's result violates the definition: a CuTe defect (or undefined input CuTe accepts).
    Cute,
    /// Both violate it.
    Both,
    /// Both satisfy it (the definition does not pin the result down) or no definition is known.
    Undetermined,
    /// The engine refuses a result that fails only a condition of our own, not one CuTe states:
    /// the engine is stricter than CuTe, and CuTe is not blamed.
    StricterThanCute,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "class", rename_all = "snake_case")]
pub enum Verdict {
    /// Identical printed results, or both sides reject.
    Agree,
    /// Class 1: same function, different representation.
    SameFunction,
    /// Class 2: different functions; `blame` names the side violating the definition.
    DifferentFunction { blame: Blame, engine_check: Option<String>, cute_check: Option<String> },
    /// Class 3: `rejecter` refuses, the other side accepts; `accepted_ok` says whether the
    /// accepted result satisfies the definition (None: no definition known).
    OneRejects { rejecter: Side, accepted_ok: Option<bool>, detail: Option<String> },
    /// Class 4: CuTe crashed or asserted at run time.
    CuteCrashed,
}

impl Verdict {
    /// Short class name used in reports and in fixtures/known-discrepancies.toml.
    pub fn class(&self) -> &'static str {
        match self {
            Verdict::Agree => "agree",
            Verdict::SameFunction => "same-function",
            Verdict::DifferentFunction { .. } => "different-function",
            Verdict::OneRejects { .. } => "one-rejects",
            Verdict::CuteCrashed => "cute-crashed",
        }
    }
    /// The class with its salient facts, e.g. `one-rejects:engine-rejects:accepted-wrong` or
    /// `different-function:blame-engine`; known-discrepancy families match on it.
    pub fn signature(&self) -> String {
        match self {
            Verdict::DifferentFunction { blame, .. } => format!(
                "different-function:blame-{}",
                match blame {
                    Blame::Engine => "engine",
                    Blame::Cute => "cute",
                    Blame::Both => "both",
                    Blame::Undetermined => "undetermined",
                    Blame::StricterThanCute => "stricter-than-cute",
                }
            ),
            Verdict::OneRejects { rejecter, accepted_ok, .. } => format!(
                "one-rejects:{}-rejects:accepted-{}",
                if *rejecter == Side::Engine { "engine" } else { "cute" },
                match accepted_ok {
                    Some(true) => "ok",
                    Some(false) => "wrong",
                    None => "unchecked",
                }
            ),
            other => other.class().to_string(),
        }
    }
    /// Class number 1-4 (0 for agreement).
    pub fn number(&self) -> u8 {
        match self {
            Verdict::Agree => 0,
            Verdict::SameFunction => 1,
            Verdict::DifferentFunction { .. } => 2,
            Verdict::OneRejects { .. } => 3,
            Verdict::CuteCrashed => 4,
        }
    }
    /// Whether the case points at an engine bug: the engine's result violates the definition,
    /// or the engine refuses a case whose CuTe result satisfies it.
    pub fn blames_engine(&self) -> bool {
        match self {
            Verdict::DifferentFunction { blame, .. } => matches!(blame, Blame::Engine | Blame::Both),
            Verdict::OneRejects { rejecter: Side::Engine, accepted_ok: Some(true), .. } => true,
            Verdict::OneRejects { rejecter: Side::Cute, accepted_ok: Some(false), .. } => true,
            _ => false,
        }
    }
    pub fn is_agreement(&self) -> bool {
        matches!(self, Verdict::Agree)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Agree => f.write_str("agree"),
            Verdict::SameFunction => f.write_str("same function, different representation"),
            Verdict::DifferentFunction { blame, engine_check, cute_check } => {
                write!(f, "different functions; blame: {blame:?}")?;
                if let Some(e) = engine_check {
                    write!(f, "; engine violates: {e}")?;
                }
                if let Some(c) = cute_check {
                    write!(f, "; CuTe violates: {c}")?;
                }
                Ok(())
            }
            Verdict::OneRejects { rejecter, accepted_ok, detail } => {
                let other = if *rejecter == Side::Engine { "CuTe" } else { "engine" };
                write!(f, "{rejecter:?} rejects, {other} accepts")?;
                match accepted_ok {
                    Some(true) => write!(f, " a result that satisfies the definition"),
                    Some(false) => {
                        write!(f, " a result that violates the definition: {}", detail.as_deref().unwrap_or(""))
                    }
                    None => Ok(()),
                }
            }
            Verdict::CuteCrashed => f.write_str("CuTe crashed at run time"),
        }
    }
}

/// Checks a printed result against the case's operation definition: `None` when no definition is
/// known for the case, `Some(Err(why))` when the result violates it.
pub type DefinitionCheck<'a> = &'a dyn Fn(&Value) -> Option<Result<(), String>>;

/// Read a printed result back as a value (layouts, int tuples, tuples of layouts, ints).
pub fn read_printed(text: &str) -> Option<Value> {
    eval_str(text.trim()).ok()
}

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

/// Which side a verdict blames: the side whose result violates the definition, or the side that
/// refuses a case whose accepted result satisfies it.
pub fn blame_of(v: &Verdict) -> Blame {
    match v {
        Verdict::DifferentFunction { blame, .. } => *blame,
        Verdict::OneRejects { rejecter, accepted_ok: Some(ok), .. } => match (rejecter, ok) {
            (Side::Engine, true) | (Side::Cute, false) => Blame::Engine,
            (Side::Engine, false) | (Side::Cute, true) => Blame::Cute,
        },
        _ => Blame::Undetermined,
    }
}

/// Classify one case's pair of outcomes. `engine_value` is the engine's result itself (when it
/// printed one); CuTe's printed text is read back with the expression parser.
pub fn classify_with(
    engine: &Outcome,
    engine_value: Option<&Value>,
    cute: &Outcome,
    check: DefinitionCheck<'_>,
) -> Verdict {
    let engine_value = || engine_value.cloned().or_else(|| engine.printed().and_then(read_printed));
    match (engine, cute) {
        (_, Outcome::Crashed(_)) => Verdict::CuteCrashed,
        (Outcome::Printed(e), Outcome::Printed(c)) if e == c => Verdict::Agree,
        (Outcome::Printed(_), Outcome::Printed(c)) => {
            let (ev, cv) = (engine_value(), read_printed(c));
            if let (Some(ev), Some(cv)) = (&ev, &cv) {
                if same_function(ev, cv) {
                    return Verdict::SameFunction;
                }
            }
            let verdict_of = |v: &Option<Value>| v.as_ref().and_then(check);
            let (ek, ck) = (verdict_of(&ev), verdict_of(&cv));
            let bad = |r: &Option<Result<(), String>>| match r {
                Some(Err(why)) => Some(why.clone()),
                _ => None,
            };
            let (eb, cb) = (bad(&ek), bad(&ck));
            let blame = match (&eb, &cb, ek.is_some() && ck.is_some()) {
                (Some(_), Some(_), _) => Blame::Both,
                (Some(_), None, true) => Blame::Engine,
                (None, Some(_), true) => Blame::Cute,
                _ => Blame::Undetermined,
            };
            Verdict::DifferentFunction { blame, engine_check: eb, cute_check: cb }
        }
        (Outcome::Printed(_), _) => {
            let r = engine_value().and_then(|v| check(&v));
            Verdict::OneRejects {
                rejecter: Side::Cute,
                accepted_ok: r.as_ref().map(Result::is_ok),
                detail: r.and_then(Result::err),
            }
        }
        (_, Outcome::Printed(c)) => {
            let r = read_printed(c).and_then(|v| check(&v));
            Verdict::OneRejects {
                rejecter: Side::Engine,
                accepted_ok: r.as_ref().map(Result::is_ok),
                detail: r.and_then(Result::err),
            }
        }
        // Both refuse (for different reasons), or a side has no answer.
        _ => Verdict::Agree,
    }
}

/// Classify one case with the definition check of its operation (`crate::definition`).
pub fn classify(case: &Case, engine: &EngineAnswer, cute: &Outcome) -> Verdict {
    let check = |v: &Value| crate::definition::check_cute(&case.expr, v);
    classify_with(&engine.outcome, engine.value.as_ref(), cute, &check)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(s: &str) -> Outcome {
        Outcome::Printed(s.to_string())
    }
    fn no_definition(_: &Value) -> Option<Result<(), String>> {
        None
    }

    #[test]
    fn representation_difference_is_class_1() {
        // coalesce of the chapter's layout: flattened (CuTe, dynamic) vs merged form, same function.
        let v = classify_with(&printed("(2,1,6):(1,6,2)"), None, &printed("12:1"), &no_definition);
        assert_eq!(v, Verdict::SameFunction);
        let v = classify_with(&printed("_12:_1"), None, &printed("_12:_1"), &no_definition);
        assert_eq!(v, Verdict::Agree);
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
        let v = classify_with(&printed("(_2,_2):(_32,_2)"), None, &printed("(_2,_2):(_32,_2)"), &check);
        assert_eq!(v, Verdict::Agree);
        let v = classify_with(&Outcome::Rejected("undefined".into()), None, &printed("(_2,_2):(_32,_2)"), &check);
        match v {
            Verdict::OneRejects { rejecter: Side::Engine, accepted_ok: Some(false), detail: Some(d) } => {
                assert!(d.contains("R(2)"), "{d}")
            }
            other => panic!("unexpected {other:?}"),
        }
        let v = classify_with(&printed("(_2,_2):(_24,_2)"), None, &printed("(_2,_2):(_32,_2)"), &check);
        assert!(matches!(v, Verdict::DifferentFunction { blame: Blame::Both, .. }), "{v:?}");
    }

    #[test]
    fn crashes_are_class_4() {
        let v = classify_with(&printed("_1"), None, &Outcome::Crashed("SIGFPE".into()), &no_definition);
        assert_eq!(v, Verdict::CuteCrashed);
    }
}
