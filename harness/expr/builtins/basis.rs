//! The operations on layouts with basis strides (`engine::scaled_basis`): CuTe's algebra where it
//! accepts `ScaledBasis` strides. [`call`] is asked first for every operation whose first operand
//! is such a layout; an operation CuTe has for them is answered by the engine's basis module, one
//! it refuses (complement) by its typed error, and one not modelled here is a type error.

use crate::engine::coord_tensor::{self, CoordTensor};
use crate::engine::scaled_basis::{self as sb, BasisLayout, BasisValue};
use crate::engine::slice::Coord;
use crate::engine::{Error, Int, Result};
use crate::expr::op::Op;
use crate::expr::value::{AtomValue, Value};

use super::algebra::{to_coord, to_tiler};

fn layout(l: BasisLayout) -> Value {
    Value::Atom(AtomValue::BasisLayout(l))
}

/// `op(args)` when `args[0]` is a layout with basis strides (or the right operand of a
/// composition is); `None` otherwise.
pub fn call(op: Op, args: &[Value]) -> Option<Result<Value>> {
    if let (Op::Composition, [Value::Layout(a), b]) = (op, args) {
        let b = b.as_basis_layout()?;
        return Some(sb::composition_by_basis(a, b).map(Value::Layout));
    }
    if let Some(Value::Atom(AtomValue::CoordTensor(t))) = args.first() {
        return Some(on_tensor(op, t, args));
    }
    let a = args.first()?.as_basis_layout()?;
    Some(on(op, a, args))
}

fn tensor(t: CoordTensor) -> Value {
    Value::Atom(AtomValue::CoordTensor(t))
}

/// `op(args)` on an identity (coordinate) tensor: its tiles, divides and parts, as tensors
/// (`engine::coord_tensor`); a projection Step dices the tiler and coordinate (or the thread
/// layout) first, as tensor_impl.hpp's overloads do.
fn on_tensor(op: Op, t: &CoordTensor, args: &[Value]) -> Result<Value> {
    match op {
        Op::Size => Ok(Value::Int(t.size()?)),
        Op::Rank => Ok(Value::Int(Int::st(t.layout.shape.rank() as i64))),
        Op::Shape => Ok(Value::from_int_tuple(&t.layout.shape)),
        Op::Stride => Ok(Value::from_basis(t.layout.stride.clone())),
        Op::LocalTile => {
            let (tiler, coord) = super::algebra::projected_tile(args)?;
            Ok(tensor(t.local_tile(&to_tiler(&tiler)?, &Coord::from_tiler(&to_tiler(&coord)?)?)?))
        }
        Op::LocalPartition => {
            let thr = super::algebra::projected_threads(args, op.name())?;
            Ok(tensor(t.local_partition(&thr, args[2].to_int()?)?))
        }
        Op::LogicalDivide | Op::ZippedDivide | Op::TiledDivide | Op::FlatDivide => {
            let d = match op {
                Op::LogicalDivide => coord_tensor::Divide::Logical,
                Op::ZippedDivide => coord_tensor::Divide::Zipped,
                Op::TiledDivide => coord_tensor::Divide::Tiled,
                _ => coord_tensor::Divide::Flat,
            };
            Ok(tensor(t.divide(d, &to_tiler(&args[1])?)?))
        }
        Op::LazyTransformElemLess => elem_less_transform(t, &args[1]),
        // tensor_impl.hpp:627: make_tensor(data(), filter_zeros(layout())) (coord_tensor def. 6).
        Op::FilterZeros if args.len() == 1 => Ok(tensor(t.filter_zeros()?)),
        _ => Err(Error::Type(format!("{op} of an identity tensor is not modelled"))),
    }
}

fn on(op: Op, a: &BasisLayout, args: &[Value]) -> Result<Value> {
    let tiler = || to_tiler(&args[1]);
    match op {
        Op::Size => Ok(Value::Int(a.size()?)),
        Op::Rank => Ok(Value::Int(Int::st(a.shape.rank() as i64))),
        Op::Depth => Ok(Value::Int(Int::st(a.shape.depth() as i64))),
        Op::Shape => Ok(Value::from_int_tuple(&a.shape)),
        Op::Stride => Ok(Value::from_basis(a.stride.clone())),
        Op::Coalesce => match args.get(1) {
            None => Ok(layout(sb::coalesce(a)?)),
            Some(p) => Ok(layout(sb::coalesce_by(a, &p.to_int_tuple()?)?)),
        },
        Op::Composition => match &args[1] {
            Value::Layout(b) => Ok(layout(sb::composition(a, b)?)),
            t => Ok(layout(sb::composition_tiler(a, &to_tiler(t)?)?)),
        },
        Op::Complement => Ok(layout(sb::complement(a)?)),
        Op::LogicalDivide => Ok(layout(sb::logical_divide(a, &tiler()?)?)),
        Op::ZippedDivide => Ok(layout(sb::zipped_divide(a, &tiler()?)?)),
        Op::TiledDivide => Ok(layout(sb::tiled_divide(a, &tiler()?)?)),
        Op::FlatDivide => Ok(layout(sb::flat_divide(a, &tiler()?)?)),
        Op::LocalTile | Op::LocalTileOffset => {
            if args.len() > 3 {
                return Err(not_modelled(op, "a projection"));
            }
            let coord = Coord::from_tiler(&to_tiler(&args[2])?)?;
            let (l, off) = sb::local_tile_with_offset(a, &tiler()?, &coord)?;
            Ok(if op == Op::LocalTile { layout(l) } else { offset(off) })
        }
        Op::LocalPartition | Op::LocalPartitionOffset => {
            if args.len() > 3 {
                return Err(not_modelled(op, "a projection"));
            }
            let thr = args[1].to_layout()?;
            let (l, off) = sb::local_partition_with_offset(a, &thr, args[2].to_int()?)?;
            Ok(if op == Op::LocalPartition { layout(l) } else { offset(off) })
        }
        Op::Slice => Ok(layout(sb::slice(&to_coord(&args[0])?, a)?)),
        _ => Err(not_modelled(op, "this operation")),
    }
}

/// Where the tensor's iterator moved: `*T.data()` of an `ArithmeticTupleIterator` starting at
/// `_0`: `_0 + offset`, which is the offset itself (static where it is).
fn offset(v: BasisValue) -> Value {
    Value::from_basis(v)
}

fn not_modelled(op: Op, what: &str) -> Error {
    Error::Type(format!("{op} of a layout with basis strides: {what} is not modelled"))
}

/// `make_identity_layout(shape)`.
pub fn make_identity_layout(_: &crate::expr::parse::Name, args: &[Value]) -> Result<Value> {
    Ok(layout(sb::make_identity_layout(&args[0].to_int_tuple()?)))
}

/// A value as an operand of CuTe's `==` (`engine::equality`): integers, ratios, basis elements and
/// tuples of them.
pub fn operand(v: &Value) -> Result<crate::engine::equality::Operand> {
    use crate::engine::equality::Operand;
    match v {
        Value::Int(i) => Ok(Operand::Int(*i)),
        Value::Tuple(t) => Ok(Operand::Tuple(t.iter().map(operand).collect::<Result<_>>()?)),
        Value::Atom(AtomValue::Basis(b)) => Ok(Operand::from_basis(b)),
        Value::Atom(AtomValue::Ratio(r)) => Ok(Operand::from_ratio(r)),
        other => Err(Error::Type(format!(
            "equal takes integers, ratios, basis elements and tuples of them, not {}",
            other.kind()
        ))),
    }
}

/// `equal(a, b)`: CuTe's `a == b`.
pub fn equal(_: &crate::expr::parse::Name, args: &[Value]) -> Result<Value> {
    Ok(Value::Int(crate::engine::equality::equal(&operand(&args[0])?, &operand(&args[1])?)?))
}

/// `make_basis_like(shape)`.
pub fn make_basis_like(_: &crate::expr::parse::Name, args: &[Value]) -> Result<Value> {
    Ok(Value::from_basis(sb::make_basis_like(&args[0].to_int_tuple()?)))
}

/// `make_identity_tensor(shape)`.
pub fn make_identity_tensor(_: &crate::expr::parse::Name, args: &[Value]) -> Result<Value> {
    Ok(tensor(coord_tensor::make_identity_tensor(&args[0].to_int_tuple()?)?))
}

/// `lazy_transform_elem_less(C, S)`: `cute::lazy::transform(C, [&](auto c) { return elem_less(c,
/// S); })` of a coordinate tensor (`engine::lazy_transform`).
pub fn lazy_transform_elem_less(_: &crate::expr::parse::Name, args: &[Value]) -> Result<Value> {
    let Value::Atom(AtomValue::CoordTensor(t)) = &args[0] else {
        return Err(Error::Type(format!(
            "lazy_transform_elem_less takes an identity or coordinate tensor, found {}",
            args[0].kind()
        )));
    };
    elem_less_transform(t, &args[1])
}

/// The transform tensor `lazy_transform_elem_less(t, s)` (reached through [`on_tensor`] when the
/// first argument is a coordinate tensor, and through the builtin otherwise).
fn elem_less_transform(t: &CoordTensor, s: &Value) -> Result<Value> {
    use crate::engine::lazy_transform::{lazy_transform, Predicate};
    Ok(Value::Atom(AtomValue::Transform(lazy_transform(t, Predicate::ElemLess(s.to_int_tuple()?))?)))
}

/// `op(args)` where an argument is a transform tensor: the same operation on its inner
/// coordinate tensor, a tensor result transformed again (`engine::lazy_transform` definition 2:
/// tiles, thread parts and slices only move the iterator and compute the layout); `None` when no
/// argument is one. A result that is not a tensor (an element) is not modelled.
pub fn on_transform(name: &crate::expr::parse::Name, op: Op, args: &[Value]) -> Option<Result<Value>> {
    let k = args.iter().position(|a| matches!(a, Value::Atom(AtomValue::Transform(_))))?;
    let Value::Atom(AtomValue::Transform(t)) = &args[k] else { return None };
    let mut inner = args.to_vec();
    inner[k] = Value::Atom(AtomValue::CoordTensor(t.inner.clone()));
    Some((|| match super::call(name, &inner, true)? {
        Value::Atom(AtomValue::CoordTensor(c)) => Ok(Value::Atom(AtomValue::Transform(t.map(|_| Ok(c))?))),
        v @ (Value::Int(_) | Value::Tuple(_)) if matches!(op, Op::Size | Op::Rank | Op::Shape | Op::Depth) => Ok(v),
        v => Err(Error::Type(format!("{op} of a transform tensor giving {} is not modelled", v.kind()))),
    })())
}
