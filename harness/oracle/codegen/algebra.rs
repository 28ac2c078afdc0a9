//! C++ for the layout algebra: coalesce, filter, composition, complement, inverses, divides,
//! products, max_common_*, and the tensor partitions local_tile / local_partition.
//!
//! local_tile and local_partition work on tensors in CuTe; the oracle builds a tensor over a
//! counting iterator with the given layout and prints the result's layout (`.layout()`), which is
//! what the engine's builtins of the same names return; `local_tile_offset` and
//! `local_partition_offset` print the tensor's offset, `*T.data()`.

use crate::expr::parse::Expr;

use super::{call_code, CodegenError, Cpp, Entry, Gen, Kind, Role, Table};

pub static ALGEBRA: Table = Table(&[
    Entry { name: "coalesce", min_args: 1, max_args: 2, emit: |g, a, _| with_profile(g, "coalesce", a) },
    Entry { name: "filter", min_args: 1, max_args: 2, emit: |g, a, _| with_profile(g, "filter", a) },
    Entry { name: "filter_zeros", min_args: 1, max_args: 2, emit: |g, a, _| with_profile(g, "filter_zeros", a) },
    Entry { name: "composition", min_args: 2, max_args: 2, emit: |g, a, _| binary(g, "composition", a) },
    Entry { name: "complement", min_args: 1, max_args: 2, emit: |g, a, _| with_profile(g, "complement", a) },
    Entry { name: "right_inverse", min_args: 1, max_args: 1, emit: |g, a, _| unary(g, "right_inverse", a) },
    Entry { name: "left_inverse", min_args: 1, max_args: 1, emit: |g, a, _| unary(g, "left_inverse", a) },
    Entry { name: "logical_divide", min_args: 2, max_args: 2, emit: |g, a, _| binary(g, "logical_divide", a) },
    Entry { name: "zipped_divide", min_args: 2, max_args: 2, emit: |g, a, _| binary(g, "zipped_divide", a) },
    Entry { name: "tiled_divide", min_args: 2, max_args: 2, emit: |g, a, _| binary(g, "tiled_divide", a) },
    Entry { name: "flat_divide", min_args: 2, max_args: 2, emit: |g, a, _| binary(g, "flat_divide", a) },
    Entry { name: "logical_product", min_args: 2, max_args: 2, emit: |g, a, _| binary(g, "logical_product", a) },
    Entry { name: "zipped_product", min_args: 2, max_args: 2, emit: |g, a, _| binary(g, "zipped_product", a) },
    Entry { name: "tiled_product", min_args: 2, max_args: 2, emit: |g, a, _| binary(g, "tiled_product", a) },
    Entry { name: "flat_product", min_args: 2, max_args: 2, emit: |g, a, _| binary(g, "flat_product", a) },
    Entry { name: "blocked_product", min_args: 2, max_args: 2, emit: |g, a, _| binary(g, "blocked_product", a) },
    Entry { name: "raked_product", min_args: 2, max_args: 2, emit: |g, a, _| binary(g, "raked_product", a) },
    Entry { name: "max_common_vector", min_args: 2, max_args: 2, emit: max_common_vector },
    Entry { name: "max_common_layout", min_args: 2, max_args: 2, emit: max_common_layout },
    Entry { name: "local_tile", min_args: 3, max_args: 3, emit: local_tile },
    Entry { name: "local_partition", min_args: 3, max_args: 3, emit: local_partition },
    Entry { name: "local_tile_offset", min_args: 3, max_args: 3, emit: |g, a, at| offset(local_tile(g, a, at)?) },
    Entry { name: "local_partition_offset", min_args: 3, max_args: 3, emit: |g, a, at| offset(local_partition(g, a, at)?) },
]);

/// `f(L)` or `f(L, x)` where `x` is an int tuple (coalesce's profile, complement's cotarget).
fn with_profile(g: &mut Gen, f: &'static str, args: &[Expr]) -> Result<Cpp, CodegenError> {
    let mut parts = vec![g.layout(&args[0])?];
    if let Some(p) = args.get(1) {
        parts.push(g.int_like(p, Role::Shape)?);
    }
    Ok(Cpp::new(call_code(f, &parts), Kind::Layout))
}

fn unary(g: &mut Gen, f: &'static str, args: &[Expr]) -> Result<Cpp, CodegenError> {
    let l = g.layout(&args[0])?;
    Ok(Cpp::new(call_code(f, &[l]), Kind::Layout))
}

/// `f(L, tiler)`: the second argument is a layout, a tiler or a shape.
fn binary(g: &mut Gen, f: &'static str, args: &[Expr]) -> Result<Cpp, CodegenError> {
    let a = g.layout(&args[0])?;
    let b = g.tiler(&args[1])?;
    Ok(Cpp::new(call_code(f, &[a, b]), Kind::Layout))
}

fn max_common_vector(g: &mut Gen, args: &[Expr], _at: &Expr) -> Result<Cpp, CodegenError> {
    let (a, b) = (g.layout(&args[0])?, g.layout(&args[1])?);
    Ok(Cpp::new(call_code("max_common_vector", &[a, b]), Kind::Int))
}

fn max_common_layout(g: &mut Gen, args: &[Expr], _at: &Expr) -> Result<Cpp, CodegenError> {
    let (a, b) = (g.layout(&args[0])?, g.layout(&args[1])?);
    Ok(Cpp::new(call_code("max_common_layout", &[a, b]), Kind::Layout))
}

/// A tensor over a counting iterator with layout `l` (its values are the layout's indices).
fn counting_tensor(l: &Cpp) -> String {
    format!("make_tensor(counting_iterator<int>(0), {})", l.code)
}

/// `local_tile(L, tiler, coord)`: the layout of the tile of a tensor with layout L.
fn local_tile(g: &mut Gen, args: &[Expr], at: &Expr) -> Result<Cpp, CodegenError> {
    let l = g.layout(&args[0])?;
    let t = g.tiler(&args[1])?;
    let c = g.coord(std::slice::from_ref(&args[2]), at)?;
    Ok(Cpp::new(format!("local_tile({}, {}, {}).layout()", counting_tensor(&l), t.code, c.code), Kind::Layout))
}

/// `local_partition(L, thr_layout, idx)`: the layout of thread idx's part of a tensor with layout L.
fn local_partition(g: &mut Gen, args: &[Expr], _at: &Expr) -> Result<Cpp, CodegenError> {
    let l = g.layout(&args[0])?;
    let t = g.layout(&args[1])?;
    let i = g.int_like(&args[2], Role::Coord)?;
    Ok(Cpp::new(format!("local_partition({}, {}, {}).layout()", counting_tensor(&l), t.code, i.code), Kind::Layout))
}

/// `local_tile_offset(...)` / `local_partition_offset(...)`: where the partition's pointer moved,
/// `*T.data()` of the counting tensor T (a plain `int`).
fn offset(layout_of_tensor: Cpp) -> Result<Cpp, CodegenError> {
    let tensor = layout_of_tensor.code.strip_suffix(".layout()").unwrap_or(&layout_of_tensor.code);
    Ok(Cpp::new(format!("*({tensor}.data())"), Kind::Int))
}
