//! C++ for the layout algebra: coalesce, filter, composition, complement, inverses, divides,
//! products, max_common_*, and the tensor partitions local_tile / local_partition.
//!
//! local_tile and local_partition work on tensors in CuTe; the oracle builds a tensor over a
//! counting iterator with the given layout and prints the result's layout (`.layout()`), which is
//! what the engine's builtins of the same names return.

use crate::expr::op::Op;
use crate::expr::parse::{Expr, Name};

use super::{call_code, CodegenError, Cpp, Gen, Kind, Role};

// The C++ emitters of the algebra (named by the arms of this layer's match on `expr::op::Op`). Most are CuTe's
// function of the same name applied to the arguments: [`with_profile`], [`unary`], [`binary`].

/// `f(L)` or `f(L, x)` where `x` is an int tuple (coalesce's profile, complement's cotarget).
pub fn with_profile(g: &mut Gen, f: &'static str, args: &[Expr]) -> Result<Cpp, CodegenError> {
    let first = g.emit(&args[0], Role::Shape)?;
    profile_call(g, f, first, args)
}

/// [`with_profile`] with the first argument written.
fn profile_call(g: &mut Gen, f: &'static str, first: Cpp, args: &[Expr]) -> Result<Cpp, CodegenError> {
    if first.kind != Kind::Layout {
        return super::err(&args[0], "expected a layout");
    }
    let mut parts = vec![first];
    if let Some(p) = args.get(1) {
        parts.push(g.int_like(p, Role::Shape)?);
    }
    Ok(Cpp::new(call_code(f, &parts), Kind::Layout))
}

/// `filter_zeros(L)` as [`with_profile`]; of a tensor (a partition or its slice) a tensor
/// (tensor_impl.hpp: `make_tensor(T.data(), filter_zeros(T.layout()))`).
pub fn filter_zeros(g: &mut Gen, args: &[Expr]) -> Result<Cpp, CodegenError> {
    let f = Op::FilterZeros.name();
    let first = g.emit(&args[0], Role::Shape)?;
    if args.len() == 1 && super::is_tensor(&first, &args[0]) {
        return Ok(Cpp::new(call_code(f, &[first]), Kind::Tensor));
    }
    profile_call(g, f, first, args)
}

pub fn unary(g: &mut Gen, f: &'static str, args: &[Expr]) -> Result<Cpp, CodegenError> {
    let l = g.layout(&args[0])?;
    Ok(Cpp::new(call_code(f, &[l]), Kind::Layout))
}

/// `f(L)` of a layout, or of a partition of one: CuTe's `make_fragment_like(T)` /
/// `make_tensor_like(T)` of a tensor are the layout operations on `T.layout()` (tensor_impl.hpp),
/// written so (a register tensor's own print would show its stack address).
pub fn of_tensor_layout(g: &mut Gen, f: &'static str, args: &[Expr]) -> Result<Cpp, CodegenError> {
    // A partition or its slice (`make_tensor_like<T>(tCsSFA(_,_,_,_0{}))`) as its `.layout()`.
    let l = super::core::emit_tensor_layout(g, &args[0])?;
    if l.kind != Kind::Layout {
        return super::err(&args[0], "expected a layout or the partition of one");
    }
    Ok(Cpp::new(call_code(f, &[l]), Kind::Layout))
}

/// `f(L, tiler)`: the second argument is a layout, a tiler or a shape.
/// `composition(A, B)`; a swizzle operand is the atom area's (`atoms::composition`).
pub fn composition(g: &mut Gen, _: &Name, args: &[Expr], at: &Expr) -> Result<Cpp, CodegenError> {
    if let Some(r) = super::atoms::composition(g, args, at) {
        return r;
    }
    binary(g, "composition", args)
}

/// `logical/zipped/tiled/flat_divide(X, tiler)`: of a layout as [`binary`]; of a tensor (an
/// identity or TMA coordinate tensor, or its part, or a partition: 4.7's blockwise mainloop's
/// `tiled_divide(tCsSFA, tuple<_1, NumSplitsM_Scale>{})`) the tensor's divide, a tensor
/// (tensor_impl.hpp: `make_tensor(data(), divide(layout(), tiler))`).
pub fn divide(g: &mut Gen, f: &'static str, args: &[Expr]) -> Result<Cpp, CodegenError> {
    let a = g.emit(&args[0], super::Role::Shape)?;
    if super::is_tensor(&a, &args[0]) {
        let b = g.tiler(&args[1])?;
        return Ok(Cpp::new(call_code(f, &[a, b]), Kind::Tensor));
    }
    binary(g, f, args)
}

pub fn binary(g: &mut Gen, f: &'static str, args: &[Expr]) -> Result<Cpp, CodegenError> {
    let a = g.layout(&args[0])?;
    let b = g.tiler(&args[1])?;
    Ok(Cpp::new(call_code(f, &[a, b]), Kind::Layout))
}

pub fn max_common_vector(g: &mut Gen, _: &Name, args: &[Expr], _at: &Expr) -> Result<Cpp, CodegenError> {
    let (a, b) = (g.layout(&args[0])?, g.layout(&args[1])?);
    Ok(Cpp::new(call_code("max_common_vector", &[a, b]), Kind::Int))
}

pub fn max_common_layout(g: &mut Gen, _: &Name, args: &[Expr], _at: &Expr) -> Result<Cpp, CodegenError> {
    let (a, b) = (g.layout(&args[0])?, g.layout(&args[1])?);
    Ok(Cpp::new(call_code("max_common_layout", &[a, b]), Kind::Layout))
}

/// A tensor over a counting iterator with layout `l` (its values are the layout's indices); in a
/// case with basis strides, over an arithmetic-tuple iterator from `_0` (as `make_identity_tensor`
/// builds one), whose values are the layout's coordinates.
fn counting_tensor(g: &Gen, l: &Cpp) -> String {
    if g.basis {
        format!("make_tensor(make_inttuple_iter(Int<0>{{}}), {})", l.code)
    } else {
        format!("make_tensor(counting_iterator<int>(0), {})", l.code)
    }
}

/// `local_tile(L, tiler, coord)`: the layout of the tile of a tensor with layout L.
/// A fourth argument is the projection (CuTe's `Step<_1,X,_1>{}`, written `make_coord(_1{}, _, _1{})`).
pub fn local_tile(g: &mut Gen, _: &Name, args: &[Expr], _at: &Expr) -> Result<Cpp, CodegenError> {
    let l = g.emit(&args[0], super::Role::Shape)?;
    if l.kind == Kind::Tensor {
        let t = g.tiler(&args[1])?;
        let c = g.slice_coord(&args[2])?;
        let p = projection(g, args)?;
        return Ok(Cpp::new(format!("local_tile({}, {}, {}{p})", l.code, t.code, c.code), Kind::Tensor));
    }
    if l.kind != Kind::Layout {
        return super::err(&args[0], "expected a layout or a tensor");
    }
    let t = g.tiler(&args[1])?;
    let c = g.slice_coord(&args[2])?;
    let p = projection(g, args)?;
    Ok(Cpp::new(format!("local_tile({}, {}, {}{p}).layout()", counting_tensor(g, &l), t.code, c.code), Kind::Layout))
}

/// `, proj` for a fourth argument, else nothing.
fn projection(g: &mut Gen, args: &[Expr]) -> Result<String, CodegenError> {
    match args.get(3) {
        Some(p) => Ok(format!(", {}", g.slice_coord(p)?.code)),
        None => Ok(String::new()),
    }
}

/// `local_tile_offset(...)` / `local_partition_offset(...)`: where the partition's pointer moved,
/// `*T.data()` of the counting tensor T (a plain `int`), copied out while T lives: before 3.6
/// `ArithmeticTupleIterator::operator*` returns a reference into the iterator, which `auto&& r`
/// would keep past the temporary tensor (CUTLASS 3.5.1 printed `(0,44146354)`).
fn offset(layout_of_tensor: Cpp) -> Result<Cpp, CodegenError> {
    let tensor = layout_of_tensor.code.strip_suffix(".layout()").unwrap_or(&layout_of_tensor.code);
    Ok(Cpp::new(format!("[&]() {{ auto v = *({tensor}.data()); return v; }}()"), Kind::Int))
}

pub fn local_tile_offset(g: &mut Gen, n: &Name, args: &[Expr], at: &Expr) -> Result<Cpp, CodegenError> {
    offset(local_tile(g, n, args, at)?)
}

pub fn local_partition_offset(g: &mut Gen, n: &Name, args: &[Expr], at: &Expr) -> Result<Cpp, CodegenError> {
    offset(local_partition(g, n, args, at)?)
}

/// `local_partition(L, thr_layout, idx)`: the layout of thread idx's part of a tensor with layout L.
pub fn local_partition(g: &mut Gen, _: &Name, args: &[Expr], _at: &Expr) -> Result<Cpp, CodegenError> {
    let l = g.emit(&args[0], super::Role::Shape)?;
    if l.kind == Kind::Tensor {
        let t = g.layout(&args[1])?;
        let i = g.int_like(&args[2], Role::Coord)?;
        let p = projection(g, args)?;
        return Ok(Cpp::new(format!("local_partition({}, {}, {}{p})", l.code, t.code, i.code), Kind::Tensor));
    }
    if l.kind != Kind::Layout {
        return super::err(&args[0], "expected a layout or a tensor");
    }
    let t = g.layout(&args[1])?;
    let i = g.int_like(&args[2], Role::Coord)?;
    let p = projection(g, args)?;
    Ok(Cpp::new(
        format!("local_partition({}, {}, {}{p}).layout()", counting_tensor(g, &l), t.code, i.code),
        Kind::Layout,
    ))
}

/// `UMMA::tile_to_mma_shape(L, S[, order])` (cute/atom/mma_traits_sm100.hpp), as tile_to_shape.
pub fn tile_to_mma_shape(g: &mut Gen, n: &Name, args: &[Expr], at: &Expr) -> Result<Cpp, CodegenError> {
    let c = tile_to_shape(g, n, args, at)?;
    let code = c.code.replacen(crate::expr::op::Op::TileToShape.name(), "UMMA::tile_to_mma_shape", 1);
    Ok(Cpp::new(code, Kind::Layout))
}

/// `tile_to_shape(L, shape[, order])`: the order is a Step (an int tuple, written as a tuple) or
/// a mode-order tag (`GenRowMajor{}` ...); L may be a swizzled layout (CuTe's ComposedLayout
/// overload).
pub fn tile_to_shape(g: &mut Gen, _: &Name, args: &[Expr], _at: &Expr) -> Result<Cpp, CodegenError> {
    let mut parts = vec![g.layout(&args[0])?, g.int_like(&args[1], Role::Shape)?];
    if let Some(o) = args.get(2) {
        let c = g.emit(o, Role::Shape)?;
        let tag = matches!(o, Expr::Call { name, called: false, .. } if crate::expr::builtins::atoms::mode_order(name).is_some());
        if !(c.kind.is_int_like() || tag) {
            return super::err(o, "tile_to_shape's order must be a Step tuple or GenColMajor/GenRowMajor");
        }
        parts.push(c);
    }
    Ok(Cpp::new(call_code(crate::expr::op::Op::TileToShape.name(), &parts), Kind::Layout))
}

/// `slice(c, L)`, `dice(c, L)`, `slice_and_offset(c, L)`: the coordinate may hold `_`.
pub fn slice(g: &mut Gen, op: crate::expr::op::Op, args: &[Expr], _at: &Expr) -> Result<Cpp, CodegenError> {
    let c = g.slice_coord(&args[0])?;
    let l = g.layout(&args[1])?;
    let kind = if op == crate::expr::op::Op::SliceAndOffset { Kind::Other } else { Kind::Layout };
    Ok(Cpp::new(call_code(op.name(), &[c, l]), kind))
}
