//! C++ generation for the oracle: a parsed [`Expr`] becomes one C++ expression over CuTe.
//!
//! Nothing the user typed is ever pasted into the generated code. Integers are formatted from the
//! parsed `i64`, and every called name is looked up as an operation (`expr::op::Op`), whose C++
//! emitter is [`emitter`]'s arm for it (a function of [`core`], [`algebra`] or [`atoms`]); a name
//! that is no operation, or an operation without an emitter, is a [`CodegenError`], not C++. The atom area's forms that are not operations (`Swizzle<B,M,S>`, the
//! GMMA shared-memory layout atoms) are written by [`atoms::form`].
//!
//! How each form is written:
//! - `_N` is `Int<N>{}`, `N` is `int(N)`, `_` is `_`;
//! - a tuple of integers is `make_shape(...)`, or `make_stride` / `make_coord` where its role is
//!   known (the stride of `S:D`, the coordinate of `L(c)` or of `local_tile`);
//! - a tuple holding a layout or `_` is `make_tile(...)`;
//! - `S:D` is `make_layout(S, D)` and `L(c)` is `L(c)`;
//! - a call is whatever its area's table says (`make_layout_right(s)` is
//!   `make_layout(s, LayoutRight{})`, `get(x,1,0)` is `get<1,0>(x)`, ...).
//!
//! Areas: [`core`] (construction and queries), [`algebra`] (coalesce, composition, divides,
//! products, ...) and [`atoms`] (MMA/copy atoms, tiled MMAs and copies, swizzles).

use crate::expr::op::{Op, Part};
use std::fmt;

use crate::expr::parse::{Expr, Name};

pub mod algebra;
pub mod atoms;
pub mod core;
pub mod desc;
pub mod tma;

/// What a generated C++ expression denotes; used to pick `make_shape` vs `make_tile` for tuples
/// and to check arguments before the compiler sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An integer (`Int<N>` or `int`).
    Int,
    /// A tuple of integers.
    IntTuple,
    Layout,
    /// A tuple that holds a layout or `_` (a tiler).
    Tile,
    Underscore,
    /// A tensor (`make_identity_tensor(S)` and its partitions): printed whole.
    Tensor,
    /// Anything else an area produces (an atom, a tiled MMA, ...).
    Other,
}

impl Kind {
    pub fn is_int_like(self) -> bool {
        matches!(self, Kind::Int | Kind::IntTuple)
    }
}

/// The role of an int tuple where it appears, which picks the CuTe maker function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Shape,
    Stride,
    Coord,
}

impl Role {
    fn maker(self) -> &'static str {
        match self {
            Role::Shape => "make_shape",
            Role::Stride => "make_stride",
            Role::Coord => "make_coord",
        }
    }
}

/// One generated C++ expression and what it denotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cpp {
    pub code: String,
    pub kind: Kind,
}

impl Cpp {
    pub fn new(code: String, kind: Kind) -> Cpp {
        Cpp { code, kind }
    }
}

/// Why an expression cannot be written as C++ (the oracle records the case as unsupported).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("column {col}: {msg}")]
pub struct CodegenError {
    pub col: usize,
    pub msg: String,
}

pub fn err<T>(e: &Expr, msg: impl fmt::Display) -> Result<T, CodegenError> {
    Err(CodegenError { col: e.col(), msg: msg.to_string() })
}

/// A basis element as C++: `E<0>{}` for `_1@0`, `ScaledBasis<Int<3>,1>{}` for `_3@1`,
/// `ScaledBasis<int,1>{3}` for `3@1`.
/// The text writes the modes innermost first (as CuTe prints them), `E<...>` outermost first.
fn basis_code(value: i64, is_static: bool, modes: &[u32]) -> String {
    let ms: Vec<String> = modes.iter().rev().map(u32::to_string).collect();
    let ms = ms.join(",");
    match (is_static, value) {
        (true, 1) => format!("E<{ms}>{{}}"),
        (true, v) => format!("ScaledBasis<Int<{v}>,{ms}>{{}}"),
        (false, v) => format!("ScaledBasis<int,{ms}>{{{v}}}"),
    }
}

/// A ratio as C++: `R<1,16>{}` for `_1/_16`, `ScaledBasis<R<1,16>,1>{}` for `_1/_16@1` (modes as
/// [`basis_code`] writes them).
fn ratio_code(num: i64, den: i64, modes: &[u32]) -> String {
    if modes.is_empty() {
        return format!("R<{num},{den}>{{}}");
    }
    let ms: Vec<String> = modes.iter().rev().map(u32::to_string).collect();
    format!("ScaledBasis<R<{num},{den}>,{}>{{}}", ms.join(","))
}

/// Signature of an operation's C++ emitter (the `emit` part of its entry in `harness/expr/op.rs`):
/// the generator, the called name (with its template arguments), the argument expressions and the
/// whole call (for error columns). The argument count is checked before it is called.
pub type Emit = fn(&mut Gen, &Name, &[Expr], &Expr) -> Result<Cpp, CodegenError>;

/// Largest nesting the generator follows (the parser already bounds it; this keeps codegen safe
/// on hand-built ASTs too).
const MAX_DEPTH: usize = 128;

/// The generator's state while writing one expression.
#[derive(Default)]
pub struct Gen {
    depth: usize,
    /// Pass every integer through `cutecheck_rt` (see [`case_body_runtime`]).
    runtime: bool,
    /// The case holds basis strides: its tensors iterate over arithmetic tuples (see
    /// `algebra::counting_tensor`).
    pub basis: bool,
}

/// Whether `e` holds a basis element or an operation that makes basis strides.
pub fn has_basis(e: &Expr) -> bool {
    match e {
        Expr::Basis { .. } => true,
        Expr::Ratio { modes, .. } => !modes.is_empty(),
        Expr::Int { .. } | Expr::Underscore { .. } => false,
        Expr::Tuple { items, .. } => items.iter().any(has_basis),
        Expr::Layout { shape, stride, .. } => has_basis(shape) || has_basis(stride),
        Expr::Apply { target, args, .. } => has_basis(target) || args.iter().any(has_basis),
        Expr::Call { name, args, .. } => {
            matches!(Op::lookup(name), Some(Op::MakeIdentityLayout | Op::MakeIdentityTensor | Op::MakeBasisLike))
                || args.iter().any(has_basis)
        }
    }
}

/// Whether `e` is a call of a partition operation (`copy_partition_s/d`, `mma_partition_a/b/c`):
/// a tensor the generated C++ holds as a partitioned tensor (Kind::Other), whose `.layout()` the
/// layout operations take and whose `_` slice is a tensor.
pub fn is_partition_call(e: &Expr) -> bool {
    matches!(e, Expr::Call { name, .. } if matches!(
        Op::lookup(name),
        Some(Op::CopyPartitionS | Op::CopyPartitionD | Op::MmaPartitionA | Op::MmaPartitionB | Op::MmaPartitionC)
    ))
}

/// Whether `c`, written for `e`, is a tensor: a tensor expression, or a partition call.
pub fn is_tensor(c: &Cpp, e: &Expr) -> bool {
    c.kind == Kind::Tensor || (c.kind == Kind::Other && is_partition_call(e))
}

impl Gen {
    /// Write `e` with the given role for int tuples.
    pub fn emit(&mut self, e: &Expr, role: Role) -> Result<Cpp, CodegenError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return err(e, "expression nested too deeply");
        }
        let r = self.emit_inner(e, role);
        self.depth -= 1;
        r
    }

    fn emit_inner(&mut self, e: &Expr, role: Role) -> Result<Cpp, CodegenError> {
        match e {
            Expr::Int { value, is_static, .. } if self.runtime => {
                Ok(Cpp::new(format!("cutecheck_rt({})", int_code(*value, *is_static)), Kind::Int))
            }
            Expr::Int { value, is_static, .. } => Ok(Cpp::new(int_code(*value, *is_static), Kind::Int)),
            Expr::Underscore { .. } => Ok(Cpp::new("_".into(), Kind::Underscore)),
            Expr::Basis { value, is_static, modes, .. } => {
                Ok(Cpp::new(basis_code(*value, *is_static, modes), Kind::Int))
            }
            Expr::Ratio { num, den, modes, .. } => Ok(Cpp::new(ratio_code(*num, *den, modes), Kind::Int)),
            Expr::Tuple { items, .. } => {
                let parts: Vec<Cpp> = items.iter().map(|x| self.emit(x, role)).collect::<Result<_, _>>()?;
                let tile = parts.iter().any(|p| matches!(p.kind, Kind::Layout | Kind::Tile | Kind::Underscore));
                if let Some(bad) = parts.iter().position(|p| matches!(p.kind, Kind::Other | Kind::Tensor)) {
                    return err(&items[bad], "a tuple may hold only integers, layouts and _");
                }
                let (maker, kind) = if tile { ("make_tile", Kind::Tile) } else { (role.maker(), Kind::IntTuple) };
                Ok(Cpp::new(call_code(maker, &parts), kind))
            }
            Expr::Layout { shape, stride, .. } => {
                let s = self.emit(shape, Role::Shape)?;
                let d = self.emit(stride, Role::Stride)?;
                if !s.kind.is_int_like() {
                    return err(shape, "the shape of S:D must be an integer or a tuple of integers");
                }
                if !d.kind.is_int_like() {
                    return err(stride, "the stride of S:D must be an integer or a tuple of integers");
                }
                Ok(Cpp::new(call_code("make_layout", &[s, d]), Kind::Layout))
            }
            Expr::Apply { target, args, .. } => {
                let t = self.emit(target, Role::Shape)?;
                // A partition of a layout (`copy_partition_s(...)`, `mma_partition_a(...)`) is a
                // tensor too: sliced with `_` it is a tensor (`tCsA(_,_,_,0)`).
                let partition = is_partition_call(target.as_ref());
                if t.kind == Kind::Tensor || (partition && self.slicing_coord(args)?.is_some()) {
                    // Tensor::operator(): a slice is a tensor, a coordinate its element.
                    if let Some(c) = self.slicing_coord(args)? {
                        return Ok(Cpp::new(format!("({})({})", t.code, c.code), Kind::Tensor));
                    }
                    let c = self.coord(args, e)?;
                    return Ok(Cpp::new(format!("({})({})", t.code, c.code), Kind::Other));
                }
                if t.kind != Kind::Layout {
                    return err(target, "only a layout can be evaluated at a coordinate");
                }
                if let Some(c) = self.slicing_coord(args)? {
                    // A coordinate with `_`: CuTe's Layout::operator() slices (`slice(c, L)`).
                    return Ok(Cpp::new(format!("({})({})", t.code, c.code), Kind::Layout));
                }
                let c = self.coord(args, e)?;
                Ok(Cpp::new(format!("({})({})", t.code, c.code), Kind::Int))
            }
            Expr::Call { name, args, called, .. } => {
                if let Some(r) = atoms::form(self, name, args, *called, e) {
                    return r;
                }
                let Some(op) = Op::lookup(name) else {
                    return err(e, format!("the oracle has no C++ for '{name}'"));
                };
                let Part::Has(emit) = emitter(op) else {
                    return err(e, format!("the oracle has no C++ for '{name}'"));
                };
                if !called {
                    return err(e, format!("'{op}' is a function: call it with arguments"));
                }
                let (lo, hi) = op.arity();
                if args.len() < lo || args.len() > hi {
                    return err(e, format!("{op} takes {lo}..={hi} arguments, got {}", args.len()));
                }
                emit(self, name, args, e)
            }
        }
    }

    /// The coordinate of `L(args)`: one argument is the coordinate itself, several form a tuple.
    pub fn coord(&mut self, args: &[Expr], at: &Expr) -> Result<Cpp, CodegenError> {
        let parts: Vec<Cpp> = args.iter().map(|a| self.emit(a, Role::Coord)).collect::<Result<_, _>>()?;
        if let Some(k) = parts.iter().position(|p| !p.kind.is_int_like()) {
            return err(&args[k], "a coordinate must be an integer or a tuple of integers");
        }
        match parts.len() {
            0 => err(at, "a coordinate needs at least one integer"),
            1 => Ok(parts.into_iter().next().expect("one part")),
            _ => Ok(Cpp::new(call_code("make_coord", &parts), Kind::IntTuple)),
        }
    }

    /// The coordinate of `L(args)` when it holds `_` (a slice), as `make_coord(...)`; `None` when
    /// it holds none.
    pub fn slicing_coord(&mut self, args: &[Expr]) -> Result<Option<Cpp>, CodegenError> {
        fn under(e: &Expr) -> bool {
            match e {
                Expr::Underscore { .. } => true,
                Expr::Tuple { items, .. } => items.iter().any(under),
                _ => false,
            }
        }
        if !args.iter().any(under) {
            return Ok(None);
        }
        let mut parts: Vec<Cpp> = args.iter().map(|a| self.slice_coord(a)).collect::<Result<_, _>>()?;
        // `L(c)` with one argument is `L(c)`; several are CuTe's `L(make_coord(c0, c1, ...))`.
        if parts.len() == 1 {
            return Ok(parts.pop());
        }
        Ok(Some(Cpp::new(call_code("make_coord", &parts), Kind::Tile)))
    }

    /// One part of a slicing coordinate: `_`, an integer, or a tuple of them (`make_coord`).
    pub fn slice_coord(&mut self, e: &Expr) -> Result<Cpp, CodegenError> {
        match e {
            Expr::Underscore { .. } => Ok(Cpp::new("_".into(), Kind::Underscore)),
            Expr::Tuple { items, .. } => {
                let parts: Vec<Cpp> = items.iter().map(|x| self.slice_coord(x)).collect::<Result<_, _>>()?;
                Ok(Cpp::new(call_code("make_coord", &parts), Kind::Tile))
            }
            _ => self.int_like(e, Role::Coord),
        }
    }

    /// Write `e`, which must be a layout.
    pub fn layout(&mut self, e: &Expr) -> Result<Cpp, CodegenError> {
        let c = self.emit(e, Role::Shape)?;
        if c.kind != Kind::Layout {
            return err(e, "expected a layout");
        }
        Ok(c)
    }

    /// Write `e`, which must be an integer or an int tuple (in the given role).
    pub fn int_like(&mut self, e: &Expr, role: Role) -> Result<Cpp, CodegenError> {
        let c = self.emit(e, role)?;
        if !c.kind.is_int_like() {
            return err(e, "expected an integer or a tuple of integers");
        }
        Ok(c)
    }

    /// Write `e`, which must be a layout, a tiler (tuple of layouts/`_`) or an int tuple.
    pub fn tiler(&mut self, e: &Expr) -> Result<Cpp, CodegenError> {
        let c = self.emit(e, Role::Shape)?;
        if matches!(c.kind, Kind::Other | Kind::Underscore | Kind::Tensor) {
            return err(e, "expected a layout, a tiler or a shape");
        }
        Ok(c)
    }
}

/// `Int<N>{}` or `int(N)`, from the parsed value.
pub fn int_code(value: i64, is_static: bool) -> String {
    if is_static {
        format!("Int<{value}>{{}}")
    } else {
        format!("int({value})")
    }
}

/// `f(a, b, ...)` where `f` is one of the generator's own names.
pub fn call_code(f: &'static str, args: &[Cpp]) -> String {
    let mut s = String::from(f);
    s.push('(');
    for (k, a) in args.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        s.push_str(&a.code);
    }
    s.push(')');
    s
}

/// A non-negative mode index given as an integer literal (for `get<I>`, `layout<I>`).
pub fn literal_index(e: &Expr) -> Result<i64, CodegenError> {
    match e {
        Expr::Int { value, .. } if (0..64).contains(value) => Ok(*value),
        _ => err(e, "a mode index must be an integer literal in 0..64"),
    }
}

/// The C++ expression for a whole case, or why there is none.
pub fn expression(e: &Expr) -> Result<Cpp, CodegenError> {
    Gen { basis: has_basis(e), ..Gen::default() }.emit(e, Role::Shape)
}

/// The body of one case function: compute the value and print it with CuTe's `print`.
/// Results that are tensors print their layout (see `algebra::local_tile`).
pub fn case_body(e: &Expr) -> Result<String, CodegenError> {
    body(e, &mut Gen::default())
}

/// The definition of `cutecheck_rt` that opens every [`case_body_runtime`]: an identity that is
/// not a constant expression (an `asm` statement is not allowed in a constexpr function).
const RUNTIME_IDENTITY: &str = "  auto cutecheck_rt = [](auto x) { asm volatile(\"\"); return x; };\n";

/// Like [`case_body`], but every integer of the case (`Int<N>{}` and `int(N)` alike) is passed
/// through an identity function that is not `constexpr`, so no call of the case is a constant
/// expression. Without it g++ folds CuTe's constexpr functions on literal operands at compile time,
/// even at -O0, and their bodies never run; with it they run (static-ness lives in the types, so
/// what CuTe prints is the same). `cargo xtask coverage` compiles its cases this way.
pub fn case_body_runtime(e: &Expr) -> Result<String, CodegenError> {
    Ok(format!("{RUNTIME_IDENTITY}{}", body(e, &mut Gen { runtime: true, ..Gen::default() })?))
}

fn body(e: &Expr, g: &mut Gen) -> Result<String, CodegenError> {
    g.basis = has_basis(e);
    let mut expression = |x: &Expr| g.emit(x, Role::Shape);
    // A whole case `print_layout(L)` prints L's grid with CuTe's print_layout (it returns nothing).
    if let Expr::Call { name, args, called: true, .. } = e {
        if name.simple() == Some("print_layout") {
            let [arg] = args.as_slice() else { return err(e, "print_layout takes one layout") };
            let c = expression(arg)?;
            if c.kind != Kind::Layout {
                return err(e, "print_layout takes a layout");
            }
            return Ok(format!("  print_layout({});\n", c.code));
        }
        // A whole case `print_svg(X)` draws an MMA atom or tiled MMA with CuTe's print_svg
        // (cute/util/print_svg.hpp, included by every translation unit that has it).
        if name.simple() == Some("print_svg") {
            let [arg] = args.as_slice() else { return err(e, "print_svg takes one MMA atom or tiled MMA") };
            return Ok(format!("  print_svg({});\n", expression(arg)?.code));
        }
    }
    let c = expression(e)?;
    Ok(format!("  auto&& r = {};\n  print(r);\n", c.code))
}

/// Like [`case_body`], but a rank-2 layout is drawn with CuTe's `print_layout` (the grid of
/// `cutecheck eval --table`); other results print as usual.
pub fn case_body_table(e: &Expr) -> Result<String, CodegenError> {
    let c = expression(e)?;
    if c.kind != Kind::Layout {
        return Ok(format!("  auto&& r = {};\n  print(r);\n", c.code));
    }
    Ok(format!(
        "  auto&& r = {};\n  if constexpr (decltype(rank(r))::value == 2) {{ print_layout(r); }} else {{ print(r); }}\n",
        c.code
    ))
}

/// The C++ emitter of each operation (an exhaustive match: a new operation is a compile error here).
pub fn emitter(op: Op) -> Part<Emit> {
    use crate::oracle::codegen;
    use Part::Has;
    match op {
        Op::MakeIdentityLayout => Has(codegen::core::make_identity_layout),
        Op::MakeIdentityTensor => Has(codegen::core::make_identity_tensor),
        Op::MakeBasisLike => Has(codegen::core::make_basis_like),
        Op::Equal => Has(codegen::core::equal),
        Op::MakeLayout => Has(codegen::core::make_layout),
        Op::MakeLayoutRight => Has(codegen::core::make_layout_right),
        Op::Size => Has(codegen::core::size),
        Op::Cosize => Has(codegen::core::cosize),
        Op::Rank => Has(codegen::core::rank),
        Op::Depth => Has(codegen::core::depth),
        Op::Shape => Has(codegen::core::shape),
        Op::Stride => Has(codegen::core::stride),
        Op::Get => Has(codegen::core::get),
        Op::Layout => Has(codegen::core::layout),
        Op::Group => Has(codegen::core::group),
        Op::MmaMakeFragmentA => Has(|g, n, a, e| codegen::atoms::make_fragment_desc('a', g, n, a, e)),
        Op::MmaMakeFragmentB => Has(|g, n, a, e| codegen::atoms::make_fragment_desc('b', g, n, a, e)),
        Op::Flatten => Has(codegen::core::flatten),
        Op::ProductEach => Has(codegen::core::product_each),
        Op::TileToShape => Has(codegen::algebra::tile_to_shape),
        Op::TileToMmaShape => Has(codegen::algebra::tile_to_mma_shape),
        Op::MakeLayoutLike => Has(|g, _, a, _| codegen::algebra::of_tensor_layout(g, Op::MakeLayoutLike.name(), a)),
        Op::MakeFragmentLike => Has(|g, _, a, _| codegen::algebra::of_tensor_layout(g, Op::MakeFragmentLike.name(), a)),
        Op::PartitionFragmentC => Has(codegen::atoms::partition_fragment_c),
        Op::RetileS => Has(|g, n, a, e| codegen::atoms::retile(Op::RetileS, g, n, a, e)),
        Op::RetileD => Has(|g, n, a, e| codegen::atoms::retile(Op::RetileD, g, n, a, e)),
        Op::MmaFragmentA => Has(|g, n, a, e| codegen::atoms::mma_fragment(Op::MmaFragmentA, g, n, a, e)),
        Op::MmaFragmentB => Has(|g, n, a, e| codegen::atoms::mma_fragment(Op::MmaFragmentB, g, n, a, e)),
        Op::MmaFragmentC => Has(|g, n, a, e| codegen::atoms::mma_fragment(Op::MmaFragmentC, g, n, a, e)),
        Op::Slice => Has(|g, _, a, at| codegen::algebra::slice(g, Op::Slice, a, at)),
        Op::Dice => Has(|g, _, a, at| codegen::algebra::slice(g, Op::Dice, a, at)),
        Op::SliceAndOffset => Has(|g, _, a, at| codegen::algebra::slice(g, Op::SliceAndOffset, a, at)),
        Op::MakeTmaCopy => Has(|g, n, a, e| codegen::tma::make(Op::MakeTmaCopy, g, n, a, e)),
        Op::MakeTmaAtomASm100 => Has(|g, n, a, e| codegen::tma::make_sm100(Op::MakeTmaAtomASm100, g, n, a, e)),
        Op::MakeTmaAtomBSm100 => Has(|g, n, a, e| codegen::tma::make_sm100(Op::MakeTmaAtomBSm100, g, n, a, e)),
        Op::MakeTmaCopyASm100 => Has(|g, n, a, e| codegen::tma::make_sm100(Op::MakeTmaCopyASm100, g, n, a, e)),
        Op::MakeTmaCopyBSm100 => Has(|g, n, a, e| codegen::tma::make_sm100(Op::MakeTmaCopyBSm100, g, n, a, e)),
        Op::MakeTmaCopyCSm100 => Has(|g, n, a, e| codegen::tma::make_sm100(Op::MakeTmaCopyCSm100, g, n, a, e)),
        Op::MakeTmaAtom => Has(|g, n, a, e| codegen::tma::make(Op::MakeTmaAtom, g, n, a, e)),
        Op::TmaGbasis => Has(|g, n, a, e| codegen::tma::part(Op::TmaGbasis, g, n, a, e)),
        Op::TmaGStride => Has(|g, n, a, e| codegen::tma::part(Op::TmaGStride, g, n, a, e)),
        Op::GetTmaTensor => Has(codegen::tma::get_tma_tensor),
        Op::LazyTransformElemLess => Has(codegen::core::lazy_transform_elem_less),
        Op::AsPositionIndependentSwizzleTensor => Has(codegen::atoms::as_position_independent_swizzle_tensor),
        Op::TmaIm2colDescArgs => Has(codegen::tma::im2col_desc_args),
        Op::TmaDescArgs => Has(|g, n, a, e| codegen::tma::part(Op::TmaDescArgs, g, n, a, e)),
        Op::MakeGmmaDesc => Has(|g, n, a, e| codegen::desc::make_desc(Op::MakeGmmaDesc, g, n, a, e)),
        Op::MakeUmmaDesc => Has(|g, n, a, e| codegen::desc::make_desc(Op::MakeUmmaDesc, g, n, a, e)),
        Op::MakeInstrDesc => Has(codegen::desc::make_instr_desc),
        Op::WarpAccess => Part::Absent("CuTe has no warp_access: it is cutecheck's analysis of a warp's memory access, proven against the H200's ncu counters (fixtures/gpu/h200-access), not against CuTe"),
        Op::Coalesce => Has(|g, _, a, _| codegen::algebra::with_profile(g, Op::Coalesce.name(), a)),
        Op::Filter => Has(|g, _, a, _| codegen::algebra::with_profile(g, Op::Filter.name(), a)),
        Op::FilterZeros => Has(|g, _, a, _| codegen::algebra::filter_zeros(g, a)),
        Op::Composition => Has(codegen::algebra::composition),
        Op::Complement => Has(|g, _, a, _| codegen::algebra::with_profile(g, Op::Complement.name(), a)),
        Op::RightInverse => Has(|g, _, a, _| codegen::algebra::unary(g, Op::RightInverse.name(), a)),
        Op::LeftInverse => Has(|g, _, a, _| codegen::algebra::unary(g, Op::LeftInverse.name(), a)),
        Op::LogicalDivide => Has(|g, _, a, _| codegen::algebra::divide(g, Op::LogicalDivide.name(), a)),
        Op::ZippedDivide => Has(|g, _, a, _| codegen::algebra::divide(g, Op::ZippedDivide.name(), a)),
        Op::TiledDivide => Has(|g, _, a, _| codegen::algebra::divide(g, Op::TiledDivide.name(), a)),
        Op::FlatDivide => Has(|g, _, a, _| codegen::algebra::divide(g, Op::FlatDivide.name(), a)),
        Op::LogicalProduct => Has(|g, _, a, _| codegen::algebra::binary(g, Op::LogicalProduct.name(), a)),
        Op::ZippedProduct => Has(|g, _, a, _| codegen::algebra::binary(g, Op::ZippedProduct.name(), a)),
        Op::TiledProduct => Has(|g, _, a, _| codegen::algebra::binary(g, Op::TiledProduct.name(), a)),
        Op::FlatProduct => Has(|g, _, a, _| codegen::algebra::binary(g, Op::FlatProduct.name(), a)),
        Op::BlockedProduct => Has(|g, _, a, _| codegen::algebra::binary(g, Op::BlockedProduct.name(), a)),
        Op::RakedProduct => Has(|g, _, a, _| codegen::algebra::binary(g, Op::RakedProduct.name(), a)),
        Op::MaxCommonVector => Has(codegen::algebra::max_common_vector),
        Op::MaxCommonLayout => Has(codegen::algebra::max_common_layout),
        Op::LocalTile => Has(codegen::algebra::local_tile),
        Op::LocalPartition => Has(codegen::algebra::local_partition),
        Op::LocalTileOffset => Has(codegen::algebra::local_tile_offset),
        Op::LocalPartitionOffset => Has(codegen::algebra::local_partition_offset),
        Op::MmaLayoutA => Has(|g, n, a, e| codegen::atoms::mma_member(Op::MmaLayoutA, g, n, a, e)),
        Op::MmaLayoutB => Has(|g, n, a, e| codegen::atoms::mma_member(Op::MmaLayoutB, g, n, a, e)),
        Op::MmaLayoutC => Has(|g, n, a, e| codegen::atoms::mma_member(Op::MmaLayoutC, g, n, a, e)),
        Op::MmaShape => Has(|g, n, a, e| codegen::atoms::mma_member(Op::MmaShape, g, n, a, e)),
        Op::MmaThrId => Has(|g, n, a, e| codegen::atoms::mma_member(Op::MmaThrId, g, n, a, e)),
        Op::MakeTmemCopy => Has(codegen::atoms::make_tmem_copy),
        Op::MmaLayoutE => Has(|g, n, a, e| codegen::atoms::mma_member(Op::MmaLayoutE, g, n, a, e)),
        Op::MmaLayoutSfa => Has(|g, n, a, e| codegen::atoms::mma_member(Op::MmaLayoutSfa, g, n, a, e)),
        Op::MmaLayoutSfb => Has(|g, n, a, e| codegen::atoms::mma_member(Op::MmaLayoutSfb, g, n, a, e)),
        Op::CopyAtomSrc => Has(|g, n, a, e| codegen::atoms::copy_atom_member(Op::CopyAtomSrc, g, n, a, e)),
        Op::CopyAtomDst => Has(|g, n, a, e| codegen::atoms::copy_atom_member(Op::CopyAtomDst, g, n, a, e)),
        Op::CopyAtomRef => Has(|g, n, a, e| codegen::atoms::copy_atom_member(Op::CopyAtomRef, g, n, a, e)),
        Op::CopyAtomThrId => Has(|g, n, a, e| codegen::atoms::copy_atom_member(Op::CopyAtomThrId, g, n, a, e)),
        Op::CopyTraitsSrc => Has(|g, n, a, e| codegen::atoms::copy_traits_member(Op::CopyTraitsSrc, g, n, a, e)),
        Op::CopyTraitsDst => Has(|g, n, a, e| codegen::atoms::copy_traits_member(Op::CopyTraitsDst, g, n, a, e)),
        Op::CopyTraitsRef => Has(|g, n, a, e| codegen::atoms::copy_traits_member(Op::CopyTraitsRef, g, n, a, e)),
        Op::MmaAtom => Has(codegen::atoms::mma_atom),
        Op::CopyAtom => Has(codegen::atoms::copy_atom),
        Op::MakeTiledCopy => Has(codegen::atoms::make_tiled_copy),
        Op::MakeTiledCopyA => Has(|g, n, a, e| codegen::atoms::make_tiled_copy_for(Op::MakeTiledCopyA, g, n, a, e)),
        Op::MakeTiledCopyB => Has(|g, n, a, e| codegen::atoms::make_tiled_copy_for(Op::MakeTiledCopyB, g, n, a, e)),
        Op::MakeTiledCopyC => Has(|g, n, a, e| codegen::atoms::make_tiled_copy_for(Op::MakeTiledCopyC, g, n, a, e)),
        Op::MmaPartitionA => Has(|g, n, a, e| codegen::atoms::partition(Op::MmaPartitionA, g, n, a, e)),
        Op::MmaPartitionB => Has(|g, n, a, e| codegen::atoms::partition(Op::MmaPartitionB, g, n, a, e)),
        Op::MmaPartitionC => Has(|g, n, a, e| codegen::atoms::partition(Op::MmaPartitionC, g, n, a, e)),
        Op::PartitionShapeA => Has(|g, n, a, e| codegen::atoms::partition_shape(Op::PartitionShapeA, g, n, a, e)),
        Op::PartitionShapeB => Has(|g, n, a, e| codegen::atoms::partition_shape(Op::PartitionShapeB, g, n, a, e)),
        Op::PartitionShapeC => Has(|g, n, a, e| codegen::atoms::partition_shape(Op::PartitionShapeC, g, n, a, e)),
        Op::CopyPartitionS => Has(|g, n, a, e| codegen::atoms::partition(Op::CopyPartitionS, g, n, a, e)),
        Op::CopyPartitionD => Has(|g, n, a, e| codegen::atoms::partition(Op::CopyPartitionD, g, n, a, e)),
        Op::MakeTiledMma => Has(|g, n, a, e| codegen::atoms::tiled_mma(Op::MakeTiledMma, g, n, a, e)),
        Op::TiledCopyTv => Has(|g, n, a, e| codegen::atoms::tiled_copy(Op::TiledCopyTv, g, n, a, e)),
        Op::TiledCopyTiler => Has(|g, n, a, e| codegen::atoms::tiled_copy(Op::TiledCopyTiler, g, n, a, e)),
        Op::TiledMmaTvA => Has(|g, n, a, e| codegen::atoms::tiled_mma(Op::TiledMmaTvA, g, n, a, e)),
        Op::TiledMmaTvB => Has(|g, n, a, e| codegen::atoms::tiled_mma(Op::TiledMmaTvB, g, n, a, e)),
        Op::TiledMmaTvC => Has(|g, n, a, e| codegen::atoms::tiled_mma(Op::TiledMmaTvC, g, n, a, e)),
        Op::TiledMmaTile => Has(|g, n, a, e| codegen::atoms::tiled_mma(Op::TiledMmaTile, g, n, a, e)),
        Op::TiledMmaThrLayout => Has(|g, n, a, e| codegen::atoms::tiled_mma(Op::TiledMmaThrLayout, g, n, a, e)),
        Op::Upcast => Has(|g, n, a, e| codegen::atoms::recast(Op::Upcast, g, n, a, e)),
        Op::Downcast => Has(|g, n, a, e| codegen::atoms::recast(Op::Downcast, g, n, a, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::parse;

    fn cpp(s: &str) -> String {
        expression(&parse(s).unwrap()).unwrap().code
    }

    #[test]
    fn writes_the_forms() {
        assert_eq!(cpp("(_4,8):(_1,4)"), "make_layout(make_shape(Int<4>{}, int(8)), make_stride(Int<1>{}, int(4)))");
        assert_eq!(cpp("_-1"), "Int<-1>{}");
        assert_eq!(
            cpp("(4,8):(1,4)(1,2)"),
            "(make_layout(make_shape(int(4), int(8)), make_stride(int(1), int(4))))(make_coord(int(1), int(2)))"
        );
        assert_eq!(cpp("make_layout_right((_4,_8))"), "make_layout(make_shape(Int<4>{}, Int<8>{}), LayoutRight{})");
        assert_eq!(cpp("get(_4:_1,0)"), "get<0>(make_layout(Int<4>{}, Int<1>{}))");
        assert_eq!(
            cpp("composition(_4:_1,(_,_2:_1))"),
            "composition(make_layout(Int<4>{}, Int<1>{}), make_tile(_, make_layout(Int<2>{}, Int<1>{})))"
        );
    }

    #[test]
    fn runtime_bodies_pass_every_integer_through_the_identity() {
        let body = |s: &str| case_body_runtime(&parse(s).unwrap()).unwrap();
        let b = body("composition((_4,8):(_1,4),_2:_1)");
        assert!(b.starts_with(RUNTIME_IDENTITY), "{b}");
        assert!(b.contains("make_shape(cutecheck_rt(Int<4>{}), cutecheck_rt(int(8)))"), "{b}");
        assert!(b.contains("make_layout(cutecheck_rt(Int<2>{}), cutecheck_rt(Int<1>{}))"), "{b}");
        // Mode indices stay literal template arguments; whole-case forms are written the same way.
        assert!(body("get(_4:_1,0)").contains("get<0>(make_layout(cutecheck_rt(Int<4>{}), cutecheck_rt(Int<1>{})))"));
        assert!(body("print_layout((_2,_2):(_1,_2))")
            .contains("print_layout(make_layout(make_shape(cutecheck_rt(Int<2>{})"));
        // The plain body has no identity.
        assert!(!case_body(&parse("composition((_4,8):(_1,4),_2:_1)").unwrap()).unwrap().contains("cutecheck_rt"));
    }

    #[test]
    fn a_partitions_divide_is_the_tensors() {
        // 4.7's blockwise mainloop: tiled_divide(tCsSFA, cute::tuple<_1, NumSplitsM_Scale>{}) of
        // the scale factors' smem partition (kernel_forms_tags_v4_3_6_to_v4_7_0.cases, recorded by real CuTe 4.3.6-4.7).
        let p = "mma_partition_c(make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN),(_16,_8):(_1,_16),37)";
        let c = cpp(&format!("tiled_divide({p},(_1,_2))"));
        assert!(c.starts_with("tiled_divide(") && c.ends_with(", make_shape(Int<1>{}, Int<2>{}))"), "{c}");
        // A divide of anything else that is not a layout is still refused.
        assert!(
            expression(&parse("tiled_divide(make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN),(_1,_2))").unwrap()).is_err()
        );
    }

    #[test]
    fn refuses_unknown_names_and_bad_indices() {
        let e = expression(&parse("system(_1)").unwrap()).unwrap_err();
        assert!(e.msg.contains("no C++ for 'system'"), "{e}");
        assert!(expression(&parse("get(_4:_1,x)").unwrap()).is_err());
        assert!(expression(&parse("get(_4:_1,-1)").unwrap()).is_err());
        assert!(expression(&parse("(1,2)(3)").unwrap()).is_err());
    }
}
