//! The engine against real CuTe 4.2 on the probe suites, with each suite's own rule (stricter than
//! tests/fixed_suites.rs, which judges every suite by the general rule). The cases are in
//! fixtures/cases/probes_*.cases; what real CuTe printed for them is recorded by `cargo xtask
//! bless` in snapshots/probes_*.snap (and re-verified by `cargo xtask bless --check`). No CuTe
//! output is written in this file.
//!
//! - `probes_agree`: CuTe prints a result, and the engine prints exactly that text.
//! - `probes_modules` (single operations, once unit tests in the engine modules): the engine prints
//!   exactly CuTe's text, or, where CuTe refuses, refuses naming the same condition (below).
//! - `probes_undefined`: CuTe prints a layout that violates the operation's definition; the engine
//!   refuses with `Error::Undefined`, and with the definition checks off its algorithm prints
//!   exactly what CuTe printed.
//! - `probes_refused`: CuTe refuses; the engine refuses naming the same condition, by the kind of
//!   CuTe's refusal ([`condition`]).

use cutecheck::engine::{without_definition_checks, Error};
use cutecheck::expr::{eval_str, EvalError};
use cutecheck::suite::{all_suites, Suite};

fn suite(name: &str) -> Suite {
    all_suites()
        .expect("fixtures/cases")
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no fixtures/cases/{name}.cases"))
}

/// Each case of a probe suite with CuTe's recorded lines; fails on a missing or stale snapshot.
fn recorded(name: &str) -> (Suite, Vec<Vec<String>>) {
    let s = suite(name);
    let r = s.recorded(None).unwrap_or_else(|p| panic!("{}", p.join("\n")));
    assert!(!r.is_empty(), "{} has no cases", s.locate_file());
    (s, r)
}

/// What the engine's error must name for a CuTe refusal (its recorded lines), or why there is
/// no rule for it. `None`: any refusal by the engine names it (CuTe's static_assert had no message).
///
/// - `rejected: <static_assert message>`: that message (case and a trailing `.` aside).
/// - `rejected: static assertion failed`: a static_assert without a message; any refusal.
/// - `rejected: Index out of range`: CuTe's `get<I>` of an integer with I > 0 (int_tuple.hpp,
///   "Implementation of get<0>(Integral)"), i.e. a mode taken from an operand of lower rank:
///   `Mismatched Ranks`.
/// - `rejected: compile error: ... incomplete type ‘cute::tuple_size<...>’ ...`: CuTe took a mode
///   of a non-tuple, i.e. the operands' ranks do not match: `Mismatched Ranks`.
/// - `crashed: SIGFPE ...`: an integer division by zero at run time: `division by zero`.
fn condition(cute: &[String]) -> Result<Option<String>, String> {
    let first = cute.first().map(String::as_str).unwrap_or("");
    if first == "rejected: static assertion failed" {
        return Ok(None);
    }
    if let Some(err) = first.strip_prefix("rejected: compile error: ") {
        return if err.contains("incomplete type") && err.contains("tuple_size<") {
            Ok(Some("mismatched ranks".into()))
        } else {
            Err(format!("no rule for this compile error: {err}"))
        };
    }
    if first == "rejected: Index out of range" {
        return Ok(Some("mismatched ranks".into()));
    }
    if let Some(m) = first.strip_prefix("rejected: ") {
        return Ok(Some(m.trim().trim_end_matches('.').to_lowercase()));
    }
    if first.starts_with("crashed: SIGFPE") {
        return Ok(Some("division by zero".into()));
    }
    Err(format!("not a refusal: {}", cute.join(" | ")))
}

/// The engine refuses `expr` naming CuTe's condition; or what went wrong.
fn refuses_like_cute(expr: &str, cute: &[String]) -> Result<(), String> {
    let want = condition(cute)?;
    match eval_str(expr) {
        Ok(v) => Err(format!("CuTe refused ({}) but the engine answered {v}", cute.join(" | "))),
        Err(e) => match want {
            Some(w) if !e.to_string().to_lowercase().contains(&w) => {
                Err(format!("the engine refused with `{e}`, which does not name `{w}` (CuTe: {})", cute.join(" | ")))
            }
            _ => Ok(()),
        },
    }
}

/// The engine prints exactly CuTe's text; or what it printed instead.
fn prints_like_cute(expr: &str, cute: &[String]) -> Result<(), String> {
    match eval_str(expr) {
        Ok(v) if v.to_string().lines().eq(cute.iter().map(String::as_str)) => Ok(()),
        other => Err(format!("engine {other:?}, CuTe {}", cute.join(" | "))),
    }
}

fn check_suite(name: &str, rule: impl Fn(&str, &[String]) -> Result<(), String>) {
    let (s, r) = recorded(name);
    let bad: Vec<String> = s
        .cases
        .iter()
        .zip(&r)
        .filter_map(|(c, cute)| rule(&c.expr, cute).err().map(|e| format!("{}: {}: {e}", s.locate(c), c.expr)))
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {} cases of {} fail:\n{}",
        bad.len(),
        s.cases.len(),
        s.locate_file(),
        bad.join("\n")
    );
}

fn is_refusal(cute: &[String]) -> bool {
    cute.first().is_some_and(|l| l.starts_with("rejected: ") || l.starts_with("crashed: "))
}

#[test]
fn engine_prints_what_cute_prints() {
    check_suite("probes_agree", |e, cute| {
        if is_refusal(cute) || cute.first().is_some_and(|l| l.starts_with("unsupported: ")) {
            return Err(format!("CuTe no longer prints a result: {}", cute.join(" | ")));
        }
        prints_like_cute(e, cute)
    });
}

#[test]
fn single_operations_match_cute() {
    check_suite("probes_modules", |e, cute| {
        if is_refusal(cute) {
            refuses_like_cute(e, cute)
        } else {
            prints_like_cute(e, cute)
        }
    });
}

#[test]
fn engine_refuses_what_cute_gets_wrong() {
    check_suite("probes_undefined", |e, cute| {
        if is_refusal(cute) || cute.first().is_some_and(|l| l.starts_with("unsupported: ")) {
            return Err(format!("CuTe no longer prints a result: {}", cute.join(" | ")));
        }
        match eval_str(e) {
            Err(EvalError::Engine(Error::Undefined { .. })) => {}
            other => {
                return Err(format!(
                    "expected Error::Undefined (CuTe printed {}), engine gave {other:?}",
                    cute.join(" | ")
                ))
            }
        }
        match without_definition_checks(|| eval_str(e)) {
            Ok(v) if v.to_string().lines().eq(cute.iter().map(String::as_str)) => Ok(()),
            other => Err(format!("unchecked engine {other:?}, CuTe {}", cute.join(" | "))),
        }
    });
}

#[test]
fn engine_refuses_what_cute_rejects() {
    check_suite("probes_refused", |e, cute| {
        if !is_refusal(cute) {
            return Err(format!("CuTe no longer refuses: {}", cute.join(" | ")));
        }
        refuses_like_cute(e, cute)
    });
}

#[test]
fn the_refusal_rules_can_fail() {
    let v = |s: &str| vec![s.to_string()];
    assert_eq!(
        condition(&v("rejected: Non-injective Layout detected in complement.")),
        Ok(Some("non-injective layout detected in complement".into()))
    );
    assert_eq!(condition(&v("rejected: static assertion failed")), Ok(None));
    assert_eq!(condition(&v("rejected: Index out of range")), Ok(Some("mismatched ranks".into())));
    assert_eq!(condition(&v("crashed: SIGFPE (signal 8)")), Ok(Some("division by zero".into())));
    assert!(condition(&v("rejected: compile error: no matching function for call")).is_err());
    assert!(condition(&v("_4:_1")).is_err());
    assert!(refuses_like_cute("size(_4:_1)", &v("rejected: static assertion failed")).is_err());
    assert!(refuses_like_cute("complement((_2,_2):(_1,_1),_24)", &v("rejected: Divisibility Condition")).is_err());
    assert!(refuses_like_cute(
        "complement((_2,_2):(_1,_1),_24)",
        &v("rejected: Non-injective Layout detected in complement.")
    )
    .is_ok());
    assert!(prints_like_cute("size(_4:_1)", &v("_4")).is_ok());
    assert!(prints_like_cute("size(_4:_1)", &v("4")).is_err());
}
