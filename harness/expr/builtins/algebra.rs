//! Builtins of the layout algebra: coalesce, filter, filter_zeros, composition, complement,
//! right_inverse, left_inverse, max_common_vector, max_common_layout, the divides, the products,
//! local_tile and local_partition. A tuple value of layouts, integers and `_` is a tiler.

use crate::engine::slice::Coord;
use crate::engine::{blocked_product, flat_divide, flat_product, local_partition, local_tile, logical_divide, logical_product};
use crate::engine::{coalesce, complement, composition, filter, left_inverse, max_common, raked_product, right_inverse};
use crate::engine::{tiled_divide, tiled_product, zipped_divide, zipped_product, Error, Layout, Result, Tiler};
use crate::expr::parse::Name;
use crate::expr::value::Value;

use super::arity;

/// A value as a tiler: a layout, an integer (`n:_1`), `_`, or a tuple of tilers.
pub fn to_tiler(v: &Value) -> Result<Tiler> {
    match v {
        Value::Layout(l) => Ok(Tiler::Layout(l.clone())),
        Value::Int(i) => Ok(Tiler::Int(*i)),
        Value::Underscore => Ok(Tiler::Underscore),
        Value::Tuple(items) => Ok(Tiler::Tuple(items.iter().map(to_tiler).collect::<Result<_>>()?)),
        Value::Atom(a) => Err(Error::Type(format!("expected a tiler, found {}", a.kind()))),
    }
}

/// The layout inside `v`, borrowed (the operations never need their operands by value).
fn layout<'a>(v: &'a Value, what: &str) -> Result<&'a Layout> {
    match v {
        Value::Layout(l) => Ok(l),
        other => Err(Error::Type(format!("{what} needs a layout, found {}", other.kind()))),
    }
}

type TilerOp = fn(&Layout, &Tiler) -> Result<Layout>;

pub fn call(name: &Name, args: &[Value], _called: bool) -> Option<Result<Value>> {
    let n = name.simple()?;
    let tiler_op: Option<TilerOp> = match n {
        "logical_divide" => Some(logical_divide::logical_divide),
        "zipped_divide" => Some(zipped_divide::zipped_divide),
        "tiled_divide" => Some(tiled_divide::tiled_divide),
        "flat_divide" => Some(flat_divide::flat_divide),
        "logical_product" => Some(logical_product::logical_product),
        "zipped_product" => Some(zipped_product::zipped_product),
        "tiled_product" => Some(tiled_product::tiled_product),
        "flat_product" => Some(flat_product::flat_product),
        _ => None,
    };
    if let Some(op) = tiler_op {
        return Some(
            arity(n, args, 2..=2).and_then(|_| Ok(Value::Layout(op(layout(&args[0], n)?, &to_tiler(&args[1])?)?))),
        );
    }
    let r = match n {
        "coalesce" => arity(n, args, 1..=2).and_then(|_| {
            let l = layout(&args[0], n)?;
            Ok(Value::Layout(match args.get(1) {
                None => coalesce::coalesce(l)?,
                Some(p) => coalesce::coalesce_by(l, &p.to_int_tuple()?)?,
            }))
        }),
        "filter" => arity(n, args, 1..=2).and_then(|_| {
            let l = layout(&args[0], n)?;
            Ok(Value::Layout(match args.get(1) {
                None => filter::filter(l)?,
                Some(p) => filter::filter_by(l, &p.to_int_tuple()?)?,
            }))
        }),
        "filter_zeros" => {
            arity(n, args, 1..=1).and_then(|_| Ok(Value::Layout(filter::filter_zeros(layout(&args[0], n)?)?)))
        }
        "composition" => arity(n, args, 2..=2).and_then(|_| {
            let a = layout(&args[0], n)?;
            Ok(Value::Layout(match &args[1] {
                Value::Layout(b) => composition::composition(a, b)?,
                other => composition::composition_tiler(a, &to_tiler(other)?)?,
            }))
        }),
        "complement" => arity(n, args, 1..=2).and_then(|_| {
            let a = layout(&args[0], n)?;
            // CuTe takes shape(cotarget): an int tuple, or a layout's shape.
            let cot = match args.get(1) {
                None => None,
                Some(Value::Layout(l)) => Some(l.shape.clone()),
                Some(v) => Some(v.to_int_tuple()?),
            };
            Ok(Value::Layout(complement::complement(a, cot.as_ref())?))
        }),
        "right_inverse" => arity(n, args, 1..=1).and_then(|_| match &args[0] {
            Value::Underscore => Ok(Value::Underscore),
            v => Ok(Value::Layout(right_inverse::right_inverse(layout(v, n)?)?)),
        }),
        "left_inverse" => arity(n, args, 1..=1).and_then(|_| match &args[0] {
            Value::Underscore => Ok(Value::Underscore),
            v => Ok(Value::Layout(left_inverse::left_inverse(layout(v, n)?)?)),
        }),
        "max_common_vector" => arity(n, args, 2..=2).and_then(|_| {
            Ok(Value::Int(max_common::max_common_vector(layout(&args[0], n)?, layout(&args[1], n)?)?))
        }),
        "max_common_layout" => arity(n, args, 2..=2).and_then(|_| {
            Ok(Value::Layout(max_common::max_common_layout(layout(&args[0], n)?, layout(&args[1], n)?)?))
        }),
        "blocked_product" => arity(n, args, 2..=2)
            .and_then(|_| Ok(Value::Layout(blocked_product::blocked_product(layout(&args[0], n)?, layout(&args[1], n)?)?))),
        "raked_product" => arity(n, args, 2..=2)
            .and_then(|_| Ok(Value::Layout(raked_product::raked_product(layout(&args[0], n)?, layout(&args[1], n)?)?))),
        "local_tile" => arity(n, args, 3..=3).and_then(|_| {
            let coord = Coord::from_tiler(&to_tiler(&args[2])?)?;
            Ok(Value::Layout(local_tile::local_tile(layout(&args[0], n)?, &to_tiler(&args[1])?, &coord)?))
        }),
        "local_partition" => arity(n, args, 3..=3).and_then(|_| {
            let idx = args[2].to_int()?;
            Ok(Value::Layout(local_partition::local_partition(layout(&args[0], n)?, layout(&args[1], n)?, idx)?))
        }),
        _ => return None,
    };
    Some(r)
}

#[cfg(test)]
mod tests {
    use crate::expr::eval_str;

    #[test]
    fn chapter_table() {
        // The chapter's table ("Must hold" list of the task; identical to real CuTe 4.2's prints).
        for (e, want) in [
            ("coalesce((_2,(_1,_6)):(_1,(_6,_2)))", "_12:_1"),
            ("coalesce((2,(1,6)):(1,(6,2)))", "(2,1,6):(1,6,2)"),
            ("composition((_6,_2):(_8,_2),(_4,_3):(_3,_1))", "((_2,_2),_3):((_24,_2),_8)"),
            ("composition(make_layout_right((_4,_8)),make_layout_right((_8,_4)))", "(_8,_4):(_1,_8)"),
            ("composition(make_layout_right((_4,_8)),(_2,_8):(_2,_4))", "(_2,_8):(_16,_1)"),
            ("complement(_4:_2,_24)", "(_2,_3):(_1,_8)"),
            ("logical_divide(make_layout(_24),_4:_2)", "(_4,(_2,_3)):(_2,(_1,_8))"),
            ("zipped_divide(make_layout((_16,_8)),(_2,_2))", "((_2,_2),(_8,_4)):((_1,_16),(_2,_32))"),
            ("zipped_divide(make_layout((_16,_8)),(_16,_2))", "((_16,_2),(_1,_4)):((_1,_16),(_0,_32))"),
            ("composition((_8,_8):(_8,_1),(_8,_4):(_1,_16))", "(_8,_4):(_8,_2)"),
        ] {
            assert_eq!(eval_str(e).unwrap().to_string(), want, "{e}");
        }
        let err = eval_str("composition((_6,_2):(_8,_2),_4:_2)").unwrap_err().to_string();
        assert!(err.contains("Shape Divisibility Condition"), "{err}");
    }
}
