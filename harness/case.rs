//! The case pipeline: a case is parsed once into the AST ([`Case`]); each side that can answer it
//! (the engine, an [`Oracle`]: the compiled CuTe driver, an in-process CuTe, the CuTe DSL, pycute)
//! returns one typed [`Outcome`]; the judge compares the outcomes and returns one judgement.
//!
//! Every command and test that compares the engine with CuTe goes through this module; no layer
//! talks to another through prefixed strings.

use crate::expr::{parse, Expr, ParseError};

pub use crate::oracle::Outcome;

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

    /// The case's top-level operation name (`None` for a literal or an evaluation `L(c)`).
    pub fn op(&self) -> Option<&str> {
        crate::definition::op_name(&self.expr)
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
        let exprs: Vec<String> = cases.iter().map(|c| c.expr.to_string()).collect();
        crate::oracle::Oracle::run(self, &exprs)
    }
}
