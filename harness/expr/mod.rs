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
    // One pass without the `Expr` tree (`eval::eval_text`, which answers what `eval_str` does),
    // with buffers kept per thread; `eval_str` itself where that pass leaves the text to it.
    thread_local! {
        static SCRATCH: std::cell::RefCell<eval::Scratch> = std::cell::RefCell::default();
    }
    let text = text.trim();
    let fused = SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => eval::eval_text_in(text, &mut s),
        Err(_) => eval::eval_text(text),
    });
    match fused {
        Some(r) => r.ok(),
        None => eval_str(text).ok(),
    }
}
