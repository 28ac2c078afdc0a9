//! Named functions of the expression language, grouped by area. Each area's `call` answers
//! `None` for names it does not know, so areas can be added without touching the others.

use crate::engine::{Error, Result};

use super::parse::Name;
use super::value::Value;

pub mod algebra;
pub mod atoms;
pub mod core;

/// Signature of an area's dispatcher: `None` when the name is not one of its own.
type Area = fn(&Name, &[Value], bool) -> Option<Result<Value>>;

// atoms first: it takes `composition` when an argument is a swizzle, and passes otherwise.
const AREAS: &[Area] = &[atoms::call, core::call, algebra::call];

/// Call the builtin `name` with evaluated arguments; `called` is false for a bare name.
pub fn call(name: &Name, args: &[Value], called: bool) -> Result<Value> {
    for area in AREAS {
        if let Some(r) = area(name, args, called) {
            return r;
        }
    }
    Err(Error::Type(format!("unknown function or name '{name}'")))
}

/// Check the argument count of a builtin.
pub fn arity(name: &str, args: &[Value], n: std::ops::RangeInclusive<usize>) -> Result<()> {
    if n.contains(&args.len()) {
        Ok(())
    } else {
        Err(Error::Type(format!("{name} takes {}..={} arguments, got {}", n.start(), n.end(), args.len())))
    }
}
