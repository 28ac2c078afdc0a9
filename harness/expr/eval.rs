//! Evaluation of parsed expressions on the engine.

use crate::engine::{Error, Int, IntTuple, Result};

use super::builtins;
use super::parse::{parse, Expr, ParseError};
use super::value::Value;

/// A failed evaluation: a parse error or an engine error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error(transparent)]
    Engine(#[from] Error),
}

/// Parse and evaluate one expression.
pub fn eval_str(text: &str) -> Result<Value, EvalError> {
    let e = parse(text)?;
    Ok(eval(&e)?)
}

/// Evaluate a parsed expression.
pub fn eval(e: &Expr) -> Result<Value> {
    match e {
        Expr::Int { value, is_static, .. } => Ok(Value::Int(Int::new(*value, *is_static))),
        Expr::Underscore { .. } => Ok(Value::Underscore),
        Expr::Tuple { items, .. } => Ok(Value::Tuple(items.iter().map(eval).collect::<Result<_>>()?)),
        Expr::Layout { shape, stride, .. } => {
            let s = int_tuple(shape)?;
            Ok(Value::Layout(crate::engine::Layout::new(s, int_tuple(stride)?)?))
        }
        Expr::Apply { target, args, .. } => {
            let t = eval(target)?;
            let coord = coord_of(args)?;
            match t {
                Value::Atom(a) => a.apply(&coord),
                t => Ok(Value::Int(t.to_layout()?.call(&coord)?)),
            }
        }
        Expr::Call { name, args, called, .. } => {
            let vals: Vec<Value> = args.iter().map(eval).collect::<Result<_>>()?;
            builtins::call(name, &vals, *called)
        }
    }
}

/// The int tuple `e` evaluates to (an error if it is no int tuple). A literal of integers and
/// tuples of them is built directly, without a [`Value`] in between.
fn int_tuple(e: &Expr) -> Result<IntTuple> {
    match literal(e) {
        Some(t) => Ok(t),
        None => eval(e)?.to_int_tuple(),
    }
}

/// `e` as an int tuple when it is integers and tuples of them only (nothing to evaluate, nothing
/// that can fail); `None` otherwise.
fn literal(e: &Expr) -> Option<IntTuple> {
    match e {
        Expr::Int { value, is_static, .. } => Some(IntTuple::from(Int::new(*value, *is_static))),
        Expr::Tuple { items, .. } => literals(items),
        _ => None,
    }
}

/// The tuple of `items` when each is a [`literal`].
fn literals(items: &[Expr]) -> Option<IntTuple> {
    // Built in one pass; an item that is no literal stops it short of the full rank.
    let t = IntTuple::tuple(items.iter().map_while(literal));
    (t.rank() == items.len()).then_some(t)
}

/// The coordinate of `L(args)`: one argument is the coordinate itself, several form a tuple.
fn coord_of(args: &[Expr]) -> Result<IntTuple> {
    if let [one] = args {
        return int_tuple(one);
    }
    if let Some(t) = literals(args) {
        return Ok(t);
    }
    Value::Tuple(args.iter().map(eval).collect::<Result<_>>()?).to_int_tuple()
}
