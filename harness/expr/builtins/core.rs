//! Builtins on plain layouts and int tuples: construction, size, cosize, rank, depth, shape,
//! stride, mode access, flatten.

use crate::engine::{Error, Int, Layout, Result};
use crate::expr::parse::Name;
use crate::expr::value::Value;

// The engine entries of the core operations (see the table in `harness/expr/op.rs`, which checks the
// argument counts before calling them).

pub fn make_layout_right(_: &Name, args: &[Value]) -> Result<Value> {
    Ok(Value::Layout(Layout::row_major(args[0].to_int_tuple()?)?))
}
/// A tensor's layout where the queries read it: a partition's (CuTe's `size<I>(T)`, `shape(T)`,
/// `get<I>(T)` of a tensor T are those of `T.layout()`, tensor_impl.hpp), unless its counting
/// tensor kept a swizzle (a ComposedLayout, left as it is).
fn of_tensor(v: &Value) -> std::borrow::Cow<'_, Value> {
    use crate::engine::atom::partition::Over;
    use crate::expr::value::AtomValue;
    match v {
        Value::Atom(AtomValue::Partition(p)) if !matches!(p.over, Over::Composed(..)) => {
            std::borrow::Cow::Owned(Value::Layout(p.layout.clone()))
        }
        v => std::borrow::Cow::Borrowed(v),
    }
}

pub fn size(_: &Name, args: &[Value]) -> Result<Value> {
    Ok(Value::Int(size_of(&of_tensor(&args[0]))?))
}
pub fn cosize(_: &Name, args: &[Value]) -> Result<Value> {
    Ok(Value::Int(args[0].to_layout()?.cosize()?))
}
pub fn rank(_: &Name, args: &[Value]) -> Result<Value> {
    Ok(Value::Int(Int::st(rank_of(&of_tensor(&args[0])) as i64)))
}
pub fn depth(_: &Name, args: &[Value]) -> Result<Value> {
    Ok(Value::Int(Int::st(depth_of(&args[0]) as i64)))
}
pub fn shape(_: &Name, args: &[Value]) -> Result<Value> {
    Ok(Value::from_int_tuple(&of_tensor(&args[0]).to_layout()?.shape))
}
pub fn stride(_: &Name, args: &[Value]) -> Result<Value> {
    Ok(Value::from_int_tuple(&args[0].to_layout()?.stride))
}
pub fn flatten(_: &Name, args: &[Value]) -> Result<Value> {
    match &args[0] {
        Value::Layout(l) => Ok(Value::Layout(l.flatten())),
        // flatten(Tensor) is make_tensor(T.data(), flatten(T.layout())) (tensor_impl.hpp).
        Value::Atom(crate::expr::value::AtomValue::Partition(p)) => {
            Ok(Value::Atom(crate::expr::value::AtomValue::Partition(p.with_layout(|l| Ok(l.flatten()))?)))
        }
        v => Ok(Value::from_int_tuple(&v.to_int_tuple()?.flatten())),
    }
}

/// `group<B,E>(x)` of a layout, a swizzled layout (its inner layout grouped) or an int tuple
/// (`engine::group`).
pub fn group(name: &Name, args: &[Value]) -> Result<Value> {
    use crate::expr::parse::TemplateArg;
    use crate::expr::value::AtomValue;
    let (b, e) = match name.targs.as_deref() {
        Some([TemplateArg::Int(b), TemplateArg::Int(e)]) => (*b, *e),
        _ => return Err(crate::engine::Error::Type(format!("expected group<B,E>(x), got {name}"))),
    };
    match &args[0] {
        Value::Layout(l) => Ok(Value::Layout(crate::engine::group::group(l, b, e)?)),
        Value::Atom(AtomValue::Composed(c)) => {
            let mut c = c.clone();
            c.layout = crate::engine::group::group(&c.layout, b, e)?;
            Ok(Value::Atom(AtomValue::Composed(c)))
        }
        v => Ok(Value::from_int_tuple(&crate::engine::group::group_tuple(&v.to_int_tuple()?, b, e)?)),
    }
}

/// `product_each(t)`: the product of each mode of an int tuple (`engine::product_each`).
pub fn product_each(_: &Name, args: &[Value]) -> Result<Value> {
    Ok(Value::from_int_tuple(&crate::engine::product_each::product_each(&args[0].to_int_tuple()?)?))
}

/// `make_layout(shape)`, `make_layout(shape, stride)` or `make_layout(L0, L1, ...)`.
pub fn make_layout(_: &Name, args: &[Value]) -> Result<Value> {
    if args.iter().all(|a| matches!(a, Value::Layout(_))) {
        let ls: Vec<Layout> = args.iter().map(Value::to_layout).collect::<Result<_>>()?;
        return Ok(Value::Layout(Layout::concat(&ls)));
    }
    match args {
        [shape] => Ok(Value::Layout(Layout::col_major(shape.to_int_tuple()?)?)),
        [shape, Value::Atom(crate::expr::value::AtomValue::Name(tag))] if super::atoms::is_row_major(tag) => {
            Ok(Value::Layout(Layout::row_major(shape.to_int_tuple()?)?))
        }
        [shape, Value::Atom(crate::expr::value::AtomValue::Name(tag))]
            if tag.ends_with("Left") || tag.ends_with("ColMajor") =>
        {
            Ok(Value::Layout(Layout::col_major(shape.to_int_tuple()?)?))
        }
        [shape, stride] => Value::layout_of(shape.to_int_tuple()?, stride),
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

/// `get(x, i, j, ...)` (and `layout(L, i, ...)`): mode i of a layout or tuple, then mode j of that, and so on.
pub fn get(_: &Name, args: &[Value]) -> Result<Value> {
    let mut cur = of_tensor(&args[0]).into_owned();
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
