//! The case pipeline: a case is parsed once into the AST ([`Case`]); each side that can answer it
//! (the engine through [`engine`], an [`Oracle`]: the compiled CuTe driver, an in-process CuTe,
//! the CuTe DSL, pycute) returns one typed [`Outcome`]; the judge (`crate::judge`) compares them.
//!
//! Every command and test that compares the engine with CuTe goes through here: `cargo xtask
//! conformance`, `release-diff`, `repro`, `cutecheck eval --both`, tests/fixed_suites.rs and
//! tests/conformance_known.rs. No layer talks to another through prefixed strings: the printed text
//! is what is compared, the types are what is judged. Text with `rejected: ` prefixes exists only in
//! snapshot files ([`Outcome::lines`] / [`Outcome::from_lines`]).

use serde::{Deserialize, Serialize};

use crate::engine::print_layout;
use std::fmt;

use crate::expr::{eval, parse, read_printed, Expr, ParseError, Value};

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
    /// CuTe's own computation overflowed CuTe's integer type (signed overflow: undefined
    /// behaviour, so whatever CuTe printed is no answer): where and what, as UBSan reported it at
    /// run time (`cute/layout.hpp:1108:80: runtime error: signed integer overflow: 258048 * 10752
    /// cannot be represented in type 'int'`) or the compiler at compile time (`compile time:
    /// ... [-Woverflow]`). A fact about CuTe, never a verdict: the judge blames neither side.
    Overflow(String),
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
            Outcome::Overflow(s) => tagged("overflow", s),
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
        let tags: [(&str, Make); 5] = [
            ("rejected: ", Outcome::Rejected),
            ("crashed: ", Outcome::Crashed),
            ("unsupported: ", Outcome::Unsupported),
            ("error: ", Outcome::Error),
            ("overflow: ", Outcome::Overflow),
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

    /// Short name of the kind: printed, rejected, crashed, unsupported, error, overflow.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Printed(_) => "printed",
            Outcome::Rejected(_) => "rejected",
            Outcome::Crashed(_) => "crashed",
            Outcome::Unsupported(_) => "unsupported",
            Outcome::Error(_) => "error",
            Outcome::Overflow(_) => "overflow",
        }
    }
}

/// What an oracle's answers can show, so the judge compares only what the oracle reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Results may have dynamic leaves whose value the oracle does not show (the DSL traces them).
    pub partial_values: bool,
    /// Results show CuTe's static-ness (`_4` against `4`).
    pub staticness: bool,
    /// The oracle runs the CuTe release and implementation the engine models (CuTe C++ of that
    /// release), not another one (the DSL's own release, pycute).
    pub modelled: bool,
    /// The run fails when this oracle fails or its answer shows the engine wrong (CuTe C++ and
    /// the DSL); pycute, a Python model of CuTe with defects of its own, is reported only.
    pub binding: bool,
}

impl Caps {
    /// CuTe's own print: every value and its static-ness (the compiled driver, in-process CuTe,
    /// and the engine).
    pub const CUTE: Caps = Caps { partial_values: false, staticness: true, modelled: true, binding: true };
    /// The CuTe DSL: static leaves known, dynamic leaves often unknown at trace time.
    pub const DSL: Caps = Caps { partial_values: true, staticness: true, modelled: false, binding: true };
    /// pycute: every value, no static-ness.
    pub const PYCUTE: Caps = Caps { partial_values: false, staticness: false, modelled: false, binding: false };
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
    /// What its answers can show.
    fn caps(&self) -> Caps {
        Caps::CUTE
    }
    /// Its name in a run's pairs (`engine~dsl`, `cpp~pycute`): `cpp` for CuTe C++ (any oracle
    /// of the modelled release), `dsl`, `pycute`.
    fn name(&self) -> &'static str {
        "cpp"
    }
    /// Each case's reply, in order: the outcome and the oracle's own structured reading of it
    /// (the DSL's partial value, pycute's function). An oracle without one answers [`Oracle::run`]'s
    /// outcomes.
    fn replies(&self, cases: &[&Case]) -> Vec<Reply> {
        self.run(cases).into_iter().map(Reply::of).collect()
    }
    /// Whether the oracle answers this case without work (a recorded answer): a progress line
    /// counts only the others.
    fn recorded(&self, _case: &Case) -> bool {
        false
    }
}

/// An oracle's answer to one case: the outcome, and what the oracle can say of its result beyond
/// the printed text (the judge reads it by the oracle's [`Caps`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reply {
    pub outcome: Outcome,
    pub structure: Option<Structure>,
}

impl Reply {
    /// An outcome with no structured reading.
    pub fn of(outcome: Outcome) -> Reply {
        Reply { outcome, structure: None }
    }

    /// The value with unknown dynamic leaves (the DSL's), if any.
    pub fn partial(&self) -> Option<&DslValue> {
        match &self.structure {
            Some(Structure::Partial { value, .. }) => value.as_ref(),
            _ => None,
        }
    }

    /// The oracle's own printed text of its result (the DSL's `print`), if it differs in form
    /// from CuTe's.
    pub fn own_text(&self) -> Option<&str> {
        match &self.structure {
            Some(Structure::Partial { text, .. }) => text.as_deref(),
            _ => None,
        }
    }

    /// The result as a function (pycute's), if any.
    pub fn function(&self) -> Option<&PyValue> {
        match &self.structure {
            Some(Structure::Function { value, .. }) => value.as_ref(),
            _ => None,
        }
    }

    /// The exception the oracle raised on its own (pycute's), if any.
    pub fn raised(&self) -> Option<&str> {
        match &self.structure {
            Some(Structure::Function { error, .. }) => error.as_deref(),
            _ => None,
        }
    }

    /// The oracle did not answer within its time limit.
    pub fn timed_out(&self) -> bool {
        matches!(&self.structure, Some(Structure::Function { timed_out: true, .. }))
    }
}

/// An oracle's structured reading of a result.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Structure {
    /// A value whose dynamic leaves may be unknown (the CuTe DSL traces them), and the oracle's
    /// own print of it.
    Partial { value: Option<DslValue>, text: Option<String> },
    /// A result as a function, without CuTe's types (pycute): its values, the exception it
    /// raised, whether it ran out of time.
    Function { value: Option<PyValue>, error: Option<String>, timed_out: bool },
}

/// A value as the DSL returned it: static leaves are known, dynamic leaves usually are not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DslValue {
    /// A Python `int`: CuTe's static `_v`.
    Static(i64),
    /// A traced integer: its value if the DSL shows it, and a divisor if it knows one.
    Dynamic {
        value: Option<i64>,
        div: Option<i64>,
    },
    Underscore,
    Tuple(Vec<DslValue>),
    Layout {
        shape: Box<DslValue>,
        stride: Box<DslValue>,
    },
}

impl DslValue {
    /// Whether every leaf's value is known.
    pub fn is_known(&self) -> bool {
        match self {
            DslValue::Static(_) | DslValue::Underscore => true,
            DslValue::Dynamic { value, .. } => value.is_some(),
            DslValue::Tuple(v) => v.iter().all(DslValue::is_known),
            DslValue::Layout { shape, stride } => shape.is_known() && stride.is_known(),
        }
    }

    /// The value as the engine's [`Value`] (static-ness kept), when every leaf is known.
    pub fn to_value(&self) -> Option<Value> {
        if !self.is_known() {
            return None;
        }
        read_printed(&self.to_string())
    }

    pub fn leaves(&self) -> usize {
        match self {
            DslValue::Tuple(v) => v.iter().map(DslValue::leaves).sum(),
            DslValue::Layout { shape, stride } => shape.leaves() + stride.leaves(),
            _ => 1,
        }
    }
}

impl fmt::Display for DslValue {
    /// CuTe C++'s print format (`_4` static, `4` dynamic), with `?` for an unknown dynamic value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DslValue::Static(v) => write!(f, "_{v}"),
            DslValue::Dynamic { value: Some(v), .. } => write!(f, "{v}"),
            DslValue::Dynamic { value: None, div: Some(d) } => write!(f, "?{{div={d}}}"),
            DslValue::Dynamic { value: None, div: None } => f.write_str("?"),
            DslValue::Underscore => f.write_str("_"),
            DslValue::Tuple(v) => crate::engine::int_tuple::write_tuple(f, v.iter()),
            DslValue::Layout { shape, stride } => write!(f, "{shape}:{stride}"),
        }
    }
}

/// What pycute's result is, where it has a structure a judge can compare.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PyValue {
    /// A `Layout`: its size, and its values over its domain `0..size` (`None` when the size is
    /// over [`crate::limits::WALK`] or a value is not a 64-bit integer).
    Layout { size: Option<i64>, values: Option<Vec<i64>> },
    /// An integer.
    Number { value: i64 },
    /// Anything else (a tuple, ...): only its text.
    Other,
}

/// The engine's answer to a case: the outcome, and the value itself (so triage never evaluates the
/// case a second time).
#[derive(Clone, Debug)]
pub struct EngineAnswer {
    pub outcome: Outcome,
    pub value: Option<Value>,
    /// The engine's typed refusal, when it refused (the outcome carries its text).
    pub refusal: Option<crate::engine::Error>,
}

/// `v`'s print (its `Display`), written into a buffer sized for a typical result at once rather
/// than grown piece by piece.
fn printed(v: &Value) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(128);
    write!(s, "{v}").expect("a Display implementation returned an error unexpectedly");
    s
}

/// Evaluate a case on the engine (a top-level `print_layout(L)` prints CuTe's grid; with `table`,
/// so does every rank-2 layout result, as `eval --table` and the oracle's table mode do). A panic
/// is caught and reported as [`Outcome::Crashed`]: it is an engine bug, never CuTe's.
pub fn engine(case: &Case, table: bool) -> EngineAnswer {
    let run = || -> EngineAnswer {
        let grid = |v: Value| match &v {
            Value::Layout(l) => match print_layout(l) {
                Ok(text) => EngineAnswer { outcome: Outcome::Printed(text), value: Some(v), refusal: None },
                Err(e) => EngineAnswer { outcome: Outcome::Rejected(e.to_string()), value: None, refusal: Some(e) },
            },
            // A swizzled (composed) layout prints its grid too (util/print_tensor.hpp).
            Value::Atom(crate::expr::value::AtomValue::Composed(c)) => {
                let outcome = match crate::engine::atom::recast::print_layout_composed(c) {
                    Ok(text) => Outcome::Printed(text),
                    Err(e) => Outcome::Rejected(e.to_string()),
                };
                EngineAnswer { outcome, value: None, refusal: None }
            }
            other => EngineAnswer {
                outcome: Outcome::Rejected(format!("print_layout needs a layout, found {}", other.kind())),
                value: None,
                refusal: None,
            },
        };
        if let Some(inner) = case.print_svg_arg() {
            // print_svg is first declared in CUTLASS 3.6 (3.5.1.0 answers "'print_svg' was not
            // declared in this scope": snapshots/versions/3.5.1.0/atoms_svg.snap).
            if !crate::engine::release::since(crate::engine::release::Release::new(3, 6, 0, 0)) {
                let why = format!(
                    "print_svg is not declared in CUTLASS {} (it is new in 3.6)",
                    crate::engine::release::current()
                );
                return EngineAnswer { outcome: Outcome::Rejected(why), value: None, refusal: None };
            }
            return match eval(inner)
                .map_err(|e| e.to_string())
                .and_then(|v| crate::svg::svg_of(&v, None).map_err(|e| e.to_string()))
            {
                Ok(svg) => EngineAnswer { outcome: Outcome::Printed(svg), value: None, refusal: None },
                Err(e) => EngineAnswer { outcome: Outcome::Rejected(e), value: None, refusal: None },
            };
        }
        let target = case.print_layout_arg().unwrap_or(&case.expr);
        match eval(target) {
            // Over the engine's walk limit (limits::WALK) its definition checks cannot run: the
            // engine has no answer it can stand behind, which is not a refusal of the case.
            Err(e @ crate::engine::Error::TooLarge(_)) => {
                EngineAnswer { outcome: Outcome::Unsupported(e.to_string()), value: None, refusal: None }
            }
            Err(e) => EngineAnswer { outcome: Outcome::Rejected(e.to_string()), value: None, refusal: Some(e) },
            Ok(v) if case.print_layout_arg().is_some() => grid(v),
            Ok(v @ Value::Layout(_)) if table && v.to_layout().is_ok_and(|l| l.rank() == 2) => grid(v),
            Ok(v) => EngineAnswer { outcome: Outcome::Printed(printed(&v)), value: Some(v), refusal: None },
        }
    };
    std::panic::catch_unwind(run).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        EngineAnswer { outcome: Outcome::Crashed(format!("engine panicked: {msg}")), value: None, refusal: None }
    })
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
            Outcome::Overflow("cute/layout.hpp:1108:80: runtime error: signed integer overflow".into()),
        ] {
            assert_eq!(Outcome::from_lines(&o.lines()), o);
        }
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
}
