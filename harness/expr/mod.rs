//! The expression language: `parse` turns text into an [`Expr`], `eval` runs it on the engine.
//! The same [`Expr`] is what the oracle turns into C++, so both sides see one parsed case.

pub mod builtins;
pub mod eval;
pub mod op;
pub mod parse;
pub mod value;

pub use eval::{eval, eval_str, EvalError};
pub use op::Op;
pub use parse::{parse, Expr, Name, ParseError};
pub use value::{AtomValue, Value};

/// Read a printed result back as a value (layouts, int tuples, tuples of layouts, ints): CuTe's
/// print of these is valid expression syntax.
pub fn read_printed(text: &str) -> Option<Value> {
    eval_str(text.trim()).ok()
}
