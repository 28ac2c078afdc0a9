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
            let (s, d) = (eval(shape)?.to_int_tuple()?, eval(stride)?.to_int_tuple()?);
            Ok(Value::Layout(crate::engine::Layout::new(s, d)?))
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

/// The coordinate of `L(args)`: one argument is the coordinate itself, several form a tuple.
fn coord_of(args: &[Expr]) -> Result<IntTuple> {
    let vals: Vec<Value> = args.iter().map(eval).collect::<Result<_>>()?;
    match vals.as_slice() {
        [one] => one.to_int_tuple(),
        many => Value::Tuple(many.to_vec()).to_int_tuple(),
    }
}
