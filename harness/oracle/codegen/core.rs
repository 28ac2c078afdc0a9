//! C++ for the core builtins: construction and queries of layouts and int tuples.

use crate::expr::parse::{Expr, Name};
use crate::expr::Op;

use super::{call_code, err, literal_index, CodegenError, Cpp, Gen, Kind, Role};

// The C++ emitters of the core operations (named by the arms of this layer's match on `expr::op::Op`).

pub fn size(g: &mut Gen, _: &Name, a: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    query(g, "size", &a[0], Kind::Int)
}
pub fn cosize(g: &mut Gen, _: &Name, a: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    layout_query(g, "cosize", &a[0], Kind::Int)
}
pub fn rank(g: &mut Gen, _: &Name, a: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    query(g, "rank", &a[0], Kind::Int)
}
pub fn depth(g: &mut Gen, _: &Name, a: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    query(g, "depth", &a[0], Kind::Int)
}
/// `shape(L)`; of a partition, its tensor's shape (`shape(tDgD)`: `shape(T.layout())`).
pub fn shape(g: &mut Gen, _: &Name, a: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let c = emit_tensor_layout(g, &a[0])?;
    if c.kind != Kind::Layout {
        return err(&a[0], "expected a layout");
    }
    Ok(Cpp::new(call_code("shape", &[c]), Kind::IntTuple))
}
pub fn stride(g: &mut Gen, _: &Name, a: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    layout_query(g, "stride", &a[0], Kind::IntTuple)
}
pub fn get(g: &mut Gen, _: &Name, a: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    mode(g, Op::Get, a)
}
pub fn layout(g: &mut Gen, _: &Name, a: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    mode(g, Op::Layout, a)
}

/// `make_layout(shape)`, `make_layout(shape, stride)`, or `make_layout(L0, L1, ...)`.
pub fn make_layout(g: &mut Gen, _: &Name, args: &[Expr], at: &Expr) -> Result<Cpp, CodegenError> {
    let first = g.emit(&args[0], Role::Shape)?;
    if first.kind == Kind::Layout {
        let mut parts = vec![first];
        for a in &args[1..] {
            parts.push(g.layout(a)?);
        }
        return Ok(Cpp::new(call_code("make_layout", &parts), Kind::Layout));
    }
    if !first.kind.is_int_like() {
        return err(&args[0], "make_layout takes a shape or layouts");
    }
    match args {
        [_] => Ok(Cpp::new(call_code("make_layout", &[first]), Kind::Layout)),
        [_, Expr::Call { name, called: false, .. }] if crate::expr::builtins::atoms::mode_order(name).is_some() => {
            let tag = crate::expr::builtins::atoms::mode_order(name).unwrap_or("LayoutLeft");
            Ok(Cpp::new(format!("make_layout({}, {tag}{{}})", first.code), Kind::Layout))
        }
        [_, stride] => {
            let d = g.int_like(stride, Role::Stride)?;
            Ok(Cpp::new(call_code("make_layout", &[first, d]), Kind::Layout))
        }
        _ => err(at, "make_layout takes (shape), (shape, stride) or layouts"),
    }
}

pub fn make_layout_right(g: &mut Gen, _: &Name, args: &[Expr], _at: &Expr) -> Result<Cpp, CodegenError> {
    let s = g.int_like(&args[0], Role::Shape)?;
    Ok(Cpp::new(format!("make_layout({}, LayoutRight{{}})", s.code), Kind::Layout))
}

/// `e` written, a partition of a layout as its tensor's `.layout()` (CuTe's queries of a tensor
/// are those of its layout; the engine's builtins read a partition so).
pub(super) fn emit_tensor_layout(g: &mut Gen, e: &Expr) -> Result<Cpp, CodegenError> {
    let c = g.emit(e, Role::Shape)?;
    Ok(if super::is_tensor(&c, e) { Cpp::new(format!("({}).layout()", c.code), Kind::Layout) } else { c })
}

/// A query on a layout or an int tuple.
fn query(g: &mut Gen, f: &'static str, a: &Expr, kind: Kind) -> Result<Cpp, CodegenError> {
    let c = emit_tensor_layout(g, a)?;
    if !(c.kind.is_int_like() || c.kind == Kind::Layout) {
        return err(a, format!("{f} takes a layout or an int tuple"));
    }
    Ok(Cpp::new(call_code(f, &[c]), kind))
}

/// A query on a layout only.
fn layout_query(g: &mut Gen, f: &'static str, a: &Expr, kind: Kind) -> Result<Cpp, CodegenError> {
    let c = g.layout(a)?;
    Ok(Cpp::new(call_code(f, &[c]), kind))
}

pub fn flatten(g: &mut Gen, _: &Name, args: &[Expr], _at: &Expr) -> Result<Cpp, CodegenError> {
    let c = g.emit(&args[0], Role::Shape)?;
    if !(c.kind.is_int_like() || c.kind == Kind::Layout || c.kind == Kind::Tensor) {
        return err(&args[0], "flatten takes a layout, a tensor or an int tuple");
    }
    let kind = c.kind;
    Ok(Cpp::new(call_code("flatten", &[c]), kind))
}

/// `group<B,E>(x)`: a layout (plain or swizzled) or an int tuple in, the same kind out.
pub fn group(g: &mut Gen, name: &Name, args: &[Expr], at: &Expr) -> Result<Cpp, CodegenError> {
    use crate::expr::parse::TemplateArg;
    let (b, e) = match name.targs.as_deref() {
        Some([TemplateArg::Int(b), TemplateArg::Int(e)]) => (*b, *e),
        _ => return err(at, "expected group<B,E>(x) with two integers"),
    };
    let c = g.emit(&args[0], Role::Shape)?;
    if !(c.kind.is_int_like() || c.kind == Kind::Layout) {
        return err(&args[0], "group takes a layout or an int tuple");
    }
    let kind = c.kind;
    Ok(Cpp::new(format!("group<{b},{e}>({})", c.code), kind))
}

/// `product_each(t)`: an int tuple in, an int tuple out.
pub fn product_each(g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let c = g.int_like(&args[0], Role::Shape)?;
    Ok(Cpp::new(call_code(Op::ProductEach.name(), &[c]), Kind::IntTuple))
}

/// `get(x, i, j, ...)` is `get<i,j,...>(x)`; `layout(L, i, ...)` is `layout<i,...>(L)`.
fn mode(g: &mut Gen, op: Op, args: &[Expr]) -> Result<Cpp, CodegenError> {
    let f = op.name();
    let x = emit_tensor_layout(g, &args[0])?;
    if !(x.kind.is_int_like() || x.kind == Kind::Layout) {
        return err(&args[0], format!("{f} takes a layout or an int tuple"));
    }
    if op == Op::Layout && x.kind != Kind::Layout {
        return err(&args[0], "layout(L, i) takes a layout");
    }
    let idx: Vec<String> =
        args[1..].iter().map(|a| literal_index(a).map(|i| i.to_string())).collect::<Result<_, _>>()?;
    let kind = if x.kind == Kind::Layout { Kind::Layout } else { Kind::IntTuple };
    Ok(Cpp::new(format!("{f}<{}>({})", idx.join(","), x.code), kind))
}

/// `make_identity_layout(shape)`: a layout with basis strides.
pub fn make_identity_layout(g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let c = g.int_like(&args[0], Role::Shape)?;
    Ok(Cpp::new(call_code(Op::MakeIdentityLayout.name(), &[c]), Kind::Layout))
}

/// `make_identity_tensor(shape)`: a tensor over an arithmetic-tuple iterator.
pub fn make_identity_tensor(g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let c = g.int_like(&args[0], Role::Shape)?;
    Ok(Cpp::new(call_code(Op::MakeIdentityTensor.name(), &[c]), Kind::Tensor))
}

/// `lazy_transform_elem_less(C, S)`: `cute::lazy::transform(C, [](auto c_) { return elem_less(c_,
/// S); })` (tensor_algorithms.hpp), a tensor over a transform_iter (the tiled_copy_if tutorial's
/// predicate tensor; its lambda captures `shape_S`, here written in place).
pub fn lazy_transform_elem_less(g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let t = g.emit(&args[0], Role::Shape)?;
    if t.kind != Kind::Tensor {
        return super::err(&args[0], "expected an identity or coordinate tensor");
    }
    let s = g.int_like(&args[1], Role::Shape)?;
    Ok(Cpp::new(
        format!("cute::lazy::transform({}, [](auto c_) {{ return elem_less(c_, {}); }})", t.code, s.code),
        Kind::Tensor,
    ))
}

/// `equal(a, b)`: CuTe's `a == b` (tuples as `make_coord`, a `cute::tuple`).
pub fn equal(g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let a = g.int_like(&args[0], Role::Coord)?;
    let b = g.int_like(&args[1], Role::Coord)?;
    Ok(Cpp::new(format!("({} == {})", a.code, b.code), Kind::Int))
}

/// `make_basis_like(shape)`: a stride of basis elements.
pub fn make_basis_like(g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let c = g.int_like(&args[0], Role::Shape)?;
    Ok(Cpp::new(call_code(Op::MakeBasisLike.name(), &[c]), Kind::IntTuple))
}
