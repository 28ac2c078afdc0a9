//! Named functions of the expression language. Every operation is an entry of the one table of
//! operations (`harness/ops.rs`), which gives its argument count and its engine entry (a function
//! of one of the area files here: `core`, `algebra`, `atoms`). Besides operations, the atom area
//! has forms that are values rather than calls: bare atom / copy-operation / value-type names and
//! `Swizzle<B,M,S>` (see [`atoms::form`]).

use crate::engine::{Error, Result};
use crate::ops::{self, Part};

use super::parse::Name;
use super::value::Value;

pub mod algebra;
pub mod atoms;
pub mod core;

/// Call the builtin `name` with evaluated arguments; `called` is false for a bare name.
pub fn call(name: &Name, args: &[Value], called: bool) -> Result<Value> {
    if let Some(r) = atoms::form(name, args, called) {
        return r;
    }
    if let Some(r) = atoms::on_composed(name, args) {
        return r;
    }
    let Some(op) = ops::lookup(name) else {
        return Err(Error::Type(format!("unknown function or name '{name}'")));
    };
    arity(op.name, args, op.arity.0..=op.arity.1)?;
    match op.eval {
        Part::Has(f) => f(name, args),
        Part::Absent(why) => Err(Error::Type(format!("the engine has no {}: {why}", op.name))),
    }
}

/// Check the argument count of a builtin.
pub fn arity(name: &str, args: &[Value], n: std::ops::RangeInclusive<usize>) -> Result<()> {
    if n.contains(&args.len()) {
        Ok(())
    } else {
        Err(Error::Type(format!("{name} takes {}..={} arguments, got {}", n.start(), n.end(), args.len())))
    }
}
