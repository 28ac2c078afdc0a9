//! Builtins on plain layouts and int tuples: construction, size, cosize, rank, depth, shape,
//! stride, mode access, flatten.

use crate::engine::{Error, Int, Layout, Result};
use crate::expr::parse::Name;
use crate::expr::value::Value;

use super::arity;

pub fn call(name: &Name, args: &[Value], _called: bool) -> Option<Result<Value>> {
    let n = name.simple()?;
    let r = match n {
        "make_layout" => make_layout(args),
        "make_layout_right" => arity(n, args, 1..=1)
            .and_then(|_| Ok(Value::Layout(Layout::row_major(args[0].to_int_tuple()?)?))),
        "size" => arity(n, args, 1..=1).and_then(|_| Ok(Value::Int(size_of(&args[0])?))),
        "cosize" => arity(n, args, 1..=1).and_then(|_| Ok(Value::Int(args[0].to_layout()?.cosize()?))),
        "rank" => arity(n, args, 1..=1).map(|_| Value::Int(Int::st(rank_of(&args[0]) as i64))),
        "depth" => arity(n, args, 1..=1).map(|_| Value::Int(Int::st(depth_of(&args[0]) as i64))),
        "shape" => arity(n, args, 1..=1).and_then(|_| Ok(Value::from_int_tuple(&args[0].to_layout()?.shape))),
        "stride" => arity(n, args, 1..=1).and_then(|_| Ok(Value::from_int_tuple(&args[0].to_layout()?.stride))),
        "get" | "layout" => get(n, args),
        "flatten" => arity(n, args, 1..=1).and_then(|_| match &args[0] {
            Value::Layout(l) => Ok(Value::Layout(l.flatten())),
            v => Ok(Value::from_int_tuple(&v.to_int_tuple()?.flatten())),
        }),
        _ => return None,
    };
    Some(r)
}

/// `make_layout(shape)`, `make_layout(shape, stride)` or `make_layout(L0, L1, ...)`.
fn make_layout(args: &[Value]) -> Result<Value> {
    if args.is_empty() {
        return Err(Error::Type("make_layout needs at least one argument".into()));
    }
    if args.iter().all(|a| matches!(a, Value::Layout(_))) {
        let ls: Vec<Layout> = args.iter().map(Value::to_layout).collect::<Result<_>>()?;
        return Ok(Value::Layout(Layout::concat(&ls)));
    }
    match args {
        [shape] => Ok(Value::Layout(Layout::col_major(shape.to_int_tuple()?)?)),
        [shape, stride] => Ok(Value::Layout(Layout::new(shape.to_int_tuple()?, stride.to_int_tuple()?)?)),
        _ => Err(Error::Type("make_layout takes (shape), (shape, stride) or layouts".into())),
    }
}

fn size_of(v: &Value) -> Result<Int> {
    match v {
        Value::Layout(l) => l.size(),
        other => other.to_int_tuple()?.product(),
    }
}
fn rank_of(v: &Value) -> usize {
    match v {
        Value::Layout(l) => l.rank(),
        Value::Tuple(t) => t.len(),
        _ => 1,
    }
}
fn depth_of(v: &Value) -> usize {
    match v {
        Value::Layout(l) => l.depth(),
        Value::Tuple(t) => 1 + t.iter().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}

/// `get(x, i, j, ...)`: mode i of a layout or tuple, then mode j of that, and so on.
fn get(n: &str, args: &[Value]) -> Result<Value> {
    arity(n, args, 2..=8)?;
    let mut cur = args[0].clone();
    for idx in &args[1..] {
        let i = idx.to_int()?.value;
        let i = usize::try_from(i).map_err(|_| Error::OutOfRange(format!("mode {i}")))?;
        cur = match cur {
            Value::Layout(l) => Value::Layout(l.mode(i)?),
            Value::Tuple(t) => t.get(i).cloned().ok_or_else(|| Error::OutOfRange(format!("mode {i}")))?,
            leaf if i == 0 => leaf,
            _ => return Err(Error::OutOfRange(format!("mode {i} of a leaf"))),
        };
    }
    Ok(cur)
}
