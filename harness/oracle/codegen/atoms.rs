//! C++ for the atom builtins (see `expr/builtins/atoms.rs`): MMA and copy atom traits, tiled
//! copies and MMAs, swizzles.
//!
//! Atom, copy-operation and value-type names are written back from the parsed [`Name`] (only
//! identifiers, `::` and integers), and only when the engine's atom tables know the name's family:
//! an atom the tables accept, or one they refuse by a CuTe rule ([`Error::Rejected`], e.g. a GMMA
//! N that needs CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED), so that CuTe's own verdict is recorded.
//! An unknown name is a [`CodegenError`].
//!
//! - `mma_layout_a(X)` is `typename MMA_Traits<X>::ALayout{}` (likewise B, C, `Shape_MNK`, `ThrID`);
//! - `copy_atom_src(OP,T)` is `typename Copy_Atom<OP,T>::ValLayoutSrc{}`, `copy_traits_src(OP)` is
//!   `typename Copy_Traits<OP>::SrcLayout{}`;
//! - `tiled_copy_tv(OP,T,THR,VAL)` is `typename decltype(make_tiled_copy(Copy_Atom<OP,T>{}, THR,
//!   VAL))::TiledLayout_TV{}` (a shape argument is `make_layout(shape)`);
//! - `tiled_mma_tv_a(X[,L[,P]])` is `make_tiled_mma(X{}[, L[, P]]).get_layoutA_TV()`, and
//!   `tiled_mma_tile` is `tile_shape(...)`, `tiled_mma_thr_layout` is `.get_thr_layout_vmnk()`;
//! - `mma_atom(X)` is `MMA_Atom<X>{}`, `copy_atom(OP,T)` is `Copy_Atom<OP,T>{}`,
//!   `make_tiled_mma(X, ...)` and `make_tiled_copy(copy_atom(OP,T), THR, VAL)` are CuTe's calls; all
//!   four print several lines;
//! - `mma_partition_c(M, L, i)` is `M.get_slice(i).partition_C(make_tensor(counting_iterator<int>(0),
//!   L))` (likewise A, B, and `copy_partition_s/d` with `partition_S/D`), `partition_shape_c(M, S)` is
//!   `partition_shape_C(M, S)`;
//! - `upcast<N>(X)` / `downcast<N>(X)` are CuTe's; `GMMA::Layout_K_SW128_Atom<T>` (and the other
//!   GMMA shared-memory atoms) is `GMMA::Layout_K_SW128_Atom<T>{}`;
//! - `Swizzle<B,M,S>` is `Swizzle<B,M,S>{}`, `Swizzle<B,M,S>(x)` is `Swizzle<B,M,S>{}(x)`,
//!   `composition(Swizzle<B,M,S>, L)` is `composition(Swizzle<B,M,S>{}, L)`.

use crate::engine::atom::{copy, mma};
use crate::engine::Error;
use crate::expr::op::Op;
use crate::expr::parse::{Expr, Name, TemplateArg};

use super::{call_code, err, CodegenError, Cpp, Gen, Kind, Role};

/// What kind of name an argument must be.
#[derive(Clone, Copy)]
enum NameKind {
    Mma,
    CopyOp,
    ValueType,
}

/// The C++ spelling of a name argument, checked against the engine's tables.
fn name_arg(e: &Expr, kind: NameKind) -> Result<String, CodegenError> {
    let Expr::Call { name, called: false, .. } = e else {
        return err(e, "expected an atom, copy operation or value type name");
    };
    let text = name.to_string();
    let known = |r: Result<(), Error>| match r {
        Ok(()) | Err(Error::Rejected { .. }) => true,
        Err(_) => false,
    };
    let ok = match kind {
        NameKind::Mma => known(mma::mma_atom(&text).map(|_| ())),
        NameKind::CopyOp => known(copy::copy_traits(&text).map(|_| ())),
        NameKind::ValueType => copy::type_bits(&text).is_ok(),
    };
    if !ok {
        return err(e, format!("the oracle has no C++ for '{text}'"));
    }
    Ok(text)
}

/// A layout argument; a shape is `make_layout(shape)`.
fn layout_or_shape(g: &mut Gen, e: &Expr) -> Result<Cpp, CodegenError> {
    let c = g.emit(e, Role::Shape)?;
    match c.kind {
        Kind::Layout => Ok(c),
        Kind::Int | Kind::IntTuple => Ok(Cpp::new(call_code("make_layout", &[c]), Kind::Layout)),
        _ => err(e, "expected a layout or a shape"),
    }
}

/// `Swizzle<B,M,S>{}` from a parsed name with three integer template arguments.
fn swizzle_code(name: &Name, at: &Expr) -> Result<String, CodegenError> {
    let ints: Option<Vec<i64>> = name
        .targs
        .as_ref()
        .map(|t| t.iter().filter_map(|a| if let TemplateArg::Int(i) = a { Some(*i) } else { None }).collect());
    match ints.as_deref() {
        Some(&[b, m, s]) if name.targs.as_ref().is_some_and(|t| t.len() == 3) => {
            Ok(format!("Swizzle<{b},{m},{s}>{{}}"))
        }
        _ => err(at, "expected Swizzle<B,M,S> with three integers"),
    }
}

fn is_swizzle(e: &Expr) -> bool {
    matches!(e, Expr::Call { name, called: false, .. } if name.path.len() == 1 && name.path[0] == "Swizzle")
}

fn arity(n: &str, args: &[Expr], lo: usize, hi: usize, at: &Expr) -> Result<(), CodegenError> {
    if args.len() < lo || args.len() > hi {
        return err(at, format!("{n} takes {lo}..={hi} arguments, got {}", args.len()));
    }
    Ok(())
}

/// The forms of this area that are not operations of the table (`harness/expr/op.rs`):
/// `Swizzle<B,M,S>`, `Swizzle<B,M,S>(x)` and the GMMA shared-memory layout atoms (bare names, e.g.
/// `GMMA::Layout_K_SW128_Atom<half_t>`). `None` when `name` is none of them.
pub fn form(g: &mut Gen, name: &Name, args: &[Expr], called: bool, at: &Expr) -> Option<Result<Cpp, CodegenError>> {
    if name.path.len() == 1 && name.path[0] == "Swizzle" {
        return Some(swizzle_code(name, at).and_then(|sw| {
            if !called {
                return Ok(Cpp::new(sw, Kind::Other));
            }
            arity("Swizzle", args, 1, 1, at)?;
            let x = g.int_like(&args[0], Role::Coord)?;
            Ok(Cpp::new(format!("{sw}({})", x.code), Kind::Int))
        }));
    }
    if !called {
        if let Some(tag) = crate::expr::builtins::atoms::mode_order(name) {
            return Some(Ok(Cpp::new(format!("{tag}{{}}"), Kind::Other)));
        }
        let text = name.to_string();
        if let Some(Ok(_)) = crate::engine::atom::recast::gmma_smem_atom(&text) {
            return Some(Ok(Cpp::new(format!("{text}{{}}"), Kind::Layout)));
        }
    }
    None
}

/// `upcast<N>(X)` / `downcast<N>(X)`.
pub fn recast(op: Op, g: &mut Gen, name: &Name, args: &[Expr], at: &Expr) -> Result<Cpp, CodegenError> {
    let n = match name.targs.as_deref() {
        Some([TemplateArg::Int(n)]) if *n > 0 => *n,
        _ => return err(at, "expected upcast<N>(x) or downcast<N>(x) with N > 0"),
    };
    let x = g.emit(&args[0], Role::Shape)?;
    let kind = match x.kind {
        Kind::Layout => Kind::Layout,
        Kind::Other if is_swizzle(&args[0]) => Kind::Other,
        _ => return err(&args[0], "expected a layout or a swizzle"),
    };
    let f = if op == Op::Upcast { Op::Upcast.name() } else { Op::Downcast.name() };
    Ok(Cpp::new(format!("{f}<{n}>({})", x.code), kind))
}

/// `mma_atom(X)`: `MMA_Atom<X>{}`.
pub fn mma_atom(_: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    Ok(Cpp::new(format!("MMA_Atom<{}>{{}}", name_arg(&args[0], NameKind::Mma)?), Kind::Other))
}

/// `copy_atom(OP, T)`: `Copy_Atom<OP,T>{}`.
pub fn copy_atom(_: &mut Gen, name: &Name, args: &[Expr], at: &Expr) -> Result<Cpp, CodegenError> {
    copy_atom_code(name.base(), args, at).map(|c| Cpp::new(c, Kind::Other))
}

/// `make_tiled_copy(copy_atom(OP,T), THR, VAL)`.
pub fn make_tiled_copy(g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let atom = match &args[0] {
        Expr::Call { name, args: a, called: true, .. } if Op::lookup(name) == Some(Op::CopyAtom) => {
            copy_atom_code(Op::CopyAtom.name(), a, &args[0])?
        }
        other => return err(other, "make_tiled_copy expects copy_atom(OP,T) first"),
    };
    let mut code = format!("make_tiled_copy({atom}");
    for a in &args[1..] {
        code.push_str(", ");
        code.push_str(&layout_or_shape(g, a)?.code);
    }
    code.push(')');
    Ok(Cpp::new(code, Kind::Other))
}

/// `make_tmem_copy(OP, T, L)`: `make_tmem_copy(OP{}, make_tensor(make_tmem_ptr<T>(0), L))`.
pub fn make_tmem_copy(g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let (op, t) = (name_arg(&args[0], NameKind::CopyOp)?, name_arg(&args[1], NameKind::ValueType)?);
    let l = g.layout(&args[2])?;
    Ok(Cpp::new(format!("make_tmem_copy({op}{{}}, make_tensor(make_tmem_ptr<{t}>(0), {}))", l.code), Kind::Other))
}

/// `make_tiled_copy_A/B/C(copy_atom(OP,T), MMA)`.
pub fn make_tiled_copy_for(op: Op, g: &mut Gen, name: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let n = name.base();
    let atom = match &args[0] {
        Expr::Call { name, args: a, called: true, .. } if Op::lookup(name) == Some(Op::CopyAtom) => {
            copy_atom_code(Op::CopyAtom.name(), a, &args[0])?
        }
        other => return err(other, format!("{n} expects copy_atom(OP,T) first")),
    };
    let m = made_by(g, &args[1], Op::MakeTiledMma)?;
    // CuTe's function has the operation's name.
    let f = op.name();
    Ok(Cpp::new(format!("{f}({atom}, {m})"), Kind::Other))
}

/// `partition_shape_a/b/c(MMA, SHAPE)`: `partition_shape_A/B/C(MMA, SHAPE)`.
pub fn partition_shape(op: Op, g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let m = made_by(g, &args[0], Op::MakeTiledMma)?;
    let shape = g.int_like(&args[1], Role::Shape)?;
    let f = match op {
        Op::PartitionShapeA => "partition_shape_A",
        Op::PartitionShapeB => "partition_shape_B",
        _ => "partition_shape_C",
    };
    Ok(Cpp::new(format!("{f}({m}, {})", shape.code), Kind::IntTuple))
}

/// `composition` with a swizzle operand: `composition(Swizzle<B,M,S>{}, L)` or
/// `composition(L, Swizzle<B,M,S>{})`; `None` when neither operand is a swizzle.
pub fn composition(g: &mut Gen, args: &[Expr], at: &Expr) -> Option<Result<Cpp, CodegenError>> {
    if args.first().is_some_and(is_swizzle) {
        return Some((|| {
            let Expr::Call { name: sw, .. } = &args[0] else { return err(at, "expected a swizzle") };
            let sw = Cpp::new(swizzle_code(sw, &args[0])?, Kind::Other);
            let l = g.layout(&args[1])?;
            // A composed layout evaluates at coordinates like a layout.
            Ok(Cpp::new(call_code("composition", &[sw, l]), Kind::Layout))
        })());
    }
    if args.len() == 2 && is_swizzle(&args[1]) {
        return Some((|| {
            let l = g.layout(&args[0])?;
            let Expr::Call { name: sw, .. } = &args[1] else { return err(at, "expected a swizzle") };
            let sw = Cpp::new(swizzle_code(sw, &args[1])?, Kind::Other);
            Ok(Cpp::new(call_code("composition", &[l, sw]), Kind::Layout))
        })());
    }
    None
}

/// `mma_layout_a/b/c(X)`, `mma_shape`, `mma_thr_id`: `typename MMA_Traits<X>::ALayout{}` etc.
pub fn mma_member(op: Op, _: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let x = name_arg(&args[0], NameKind::Mma)?;
    let (member, kind) = match op {
        Op::MmaLayoutA => ("ALayout", Kind::Layout),
        Op::MmaLayoutB => ("BLayout", Kind::Layout),
        Op::MmaLayoutC => ("CLayout", Kind::Layout),
        Op::MmaShape => ("Shape_MNK", Kind::IntTuple),
        Op::MmaLayoutE => ("ELayout", Kind::Layout),
        Op::MmaLayoutSfa => ("SFALayout", Kind::Layout),
        Op::MmaLayoutSfb => ("SFBLayout", Kind::Layout),
        _ => ("ThrID", Kind::Layout),
    };
    Ok(Cpp::new(format!("typename MMA_Traits<{x}>::{member}{{}}"), kind))
}

/// `copy_atom_src/dst/ref/thr_id(OP,T)`: `typename Copy_Atom<OP,T>::ValLayoutSrc{}` etc.
pub fn copy_atom_member(which: Op, _: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let (op, t) = (name_arg(&args[0], NameKind::CopyOp)?, name_arg(&args[1], NameKind::ValueType)?);
    let member = match which {
        Op::CopyAtomSrc => "ValLayoutSrc",
        Op::CopyAtomDst => "ValLayoutDst",
        Op::CopyAtomRef => "ValLayoutRef",
        _ => "ThrID",
    };
    Ok(Cpp::new(format!("typename Copy_Atom<{op},{t}>::{member}{{}}"), Kind::Layout))
}

/// The C++ of `e`, which must be a call of `maker` (`make_tiled_mma` or `make_tiled_copy`).
fn made_by(g: &mut Gen, e: &Expr, maker: Op) -> Result<String, CodegenError> {
    match e {
        Expr::Call { name, called: true, .. } if Op::lookup(name) == Some(maker) => Ok(g.emit(e, Role::Shape)?.code),
        _ => err(e, format!("expected {maker}(...)")),
    }
}

/// `X.get_slice(i).partition_Y(make_tensor(counting_iterator<int>(0), L))`.
pub fn partition(op: Op, g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    // A tiled copy made for an MMA operand (make_tiled_copy_A/B/C), a TMEM copy (make_tmem_copy),
    // an SM90 TMA copy (make_tma_copy: its slice is a CTA of the multicast cluster) or by
    // make_tiled_copy.
    let copy_maker = match &args[0] {
        Expr::Call { name, .. } => match Op::lookup(name) {
            Some(
                m @ (Op::MakeTiledCopyA | Op::MakeTiledCopyB | Op::MakeTiledCopyC | Op::MakeTmemCopy | Op::MakeTmaCopy),
            ) => m,
            _ => Op::MakeTiledCopy,
        },
        _ => Op::MakeTiledCopy,
    };
    let (maker, method) = match op {
        Op::MmaPartitionA => (Op::MakeTiledMma, "partition_A"),
        Op::MmaPartitionB => (Op::MakeTiledMma, "partition_B"),
        Op::MmaPartitionC => (Op::MakeTiledMma, "partition_C"),
        Op::CopyPartitionS => (copy_maker, "partition_S"),
        _ => (copy_maker, "partition_D"),
    };
    let x = made_by(g, &args[0], maker)?;
    let l = g.emit(&args[1], Role::Shape)?;
    let i = g.emit(&args[2], Role::Coord)?;
    if i.kind != Kind::Int {
        return err(&args[2], "expected a thread index");
    }
    let of_partition = super::is_partition_call(&args[1]);
    if l.kind == Kind::Tensor {
        // A tensor (an identity tensor or its part) is partitioned itself.
        return Ok(Cpp::new(format!("{x}.get_slice({}).{method}({})", i.code, l.code), Kind::Tensor));
    }
    if l.kind == Kind::Other && of_partition {
        // A partition (a counting or shared-memory tensor) is partitioned itself; the result is
        // a partition as one of a layout is.
        return Ok(Cpp::new(format!("{x}.get_slice({}).{method}({})", i.code, l.code), Kind::Other));
    }
    if l.kind != Kind::Layout {
        return err(&args[1], "expected a layout or a tensor");
    }
    Ok(Cpp::new(format!("{x}.get_slice({}).{method}({})", i.code, tensor_of(&l.code)), Kind::Other))
}

/// The tensor a partition case partitions: `make_tensor(counting_iterator<int>(0), L)`, or, for a
/// layout over `smem_ptr_flag_bits<B>` (a GMMA shared-memory layout), CuTe's shared-memory tensor
/// `make_tensor(make_smem_ptr(p), L)` at the fixed address engine::atom::partition::SMEM_BASE
/// (pointer_flagged.hpp moves the swizzle onto the pointer).
fn tensor_of(l: &str) -> String {
    tensor_of_type(l, None)
}

/// [`tensor_of`], with the shared-memory elements of type `elem` (the MMA's value type, which
/// make_fragment_A/B check) in place of B-bit unsigned integers.
fn tensor_of_type(l: &str, elem: Option<&str>) -> String {
    let base = crate::engine::atom::partition::SMEM_BASE;
    let mut smem = String::new();
    for (bits, ty) in [(8, "uint8_t"), (16, "uint16_t"), (32, "uint32_t"), (64, "uint64_t")] {
        let ty = elem.unwrap_or(ty);
        smem.push_str(&format!(
            "if constexpr (std::is_same_v<O_, smem_ptr_flag_bits<{bits}>>) {{ return make_tensor(make_smem_ptr(reinterpret_cast<{ty}*>({base:#x})), l_); }} else "
        ));
    }
    format!(
        "[](auto const& l_) {{ using L_ = remove_cvref_t<decltype(l_)>; \
if constexpr (is_composed_layout<L_>::value) {{ using O_ = remove_cvref_t<decltype(l_.offset())>; \
{smem}{{ return make_tensor(counting_iterator<int>(0), l_); }} }} \
else {{ return make_tensor(counting_iterator<int>(0), l_); }} }}({l})"
    )
}

/// `COPY.get_slice(0).retile_S(make_tensor(counting_iterator<int>(0), L)).layout()` (or retile_D).
pub fn retile(op: Op, g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let copy_maker = match &args[0] {
        Expr::Call { name, .. } => match Op::lookup(name) {
            Some(m @ (Op::MakeTiledCopyA | Op::MakeTiledCopyB | Op::MakeTiledCopyC)) => m,
            _ => Op::MakeTiledCopy,
        },
        _ => Op::MakeTiledCopy,
    };
    let x = made_by(g, &args[0], copy_maker)?;
    let l = g.layout(&args[1])?;
    let method = if op == Op::RetileS { "retile_S" } else { "retile_D" };
    Ok(Cpp::new(
        format!("{x}.get_slice(0).{method}(make_tensor(counting_iterator<int>(0), {})).layout()", l.code),
        Kind::Layout,
    ))
}

/// `partition_fragment_C(MMA, SHAPE).layout()` (a register tensor prints its address; its layout is compared).
pub fn partition_fragment_c(g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let m = made_by(g, &args[0], Op::MakeTiledMma)?;
    let shape = g.int_like(&args[1], Role::Shape)?;
    Ok(Cpp::new(format!("{}({m}, {}).layout()", Op::PartitionFragmentC.name(), shape.code), Kind::Layout))
}

/// `MMA.get_slice(i).partition_fragment_X(make_tensor(counting_iterator<int>(0), L)).layout()`.
pub fn mma_fragment(op: Op, g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let m = made_by(g, &args[0], Op::MakeTiledMma)?;
    let l = g.emit(&args[1], Role::Shape)?;
    let i = g.emit(&args[2], Role::Coord)?;
    if i.kind != Kind::Int {
        return err(&args[2], "expected a thread index");
    }
    if l.kind == Kind::Tensor && op == Op::MmaFragmentC {
        // A coordinate tensor is partitioned itself; the accumulator's layout is printed.
        return Ok(Cpp::new(
            format!("{m}.get_slice({}).partition_fragment_C({}).layout()", i.code, l.code),
            Kind::Layout,
        ));
    }
    if l.kind != Kind::Layout && l.kind != Kind::Tensor {
        return err(&args[1], "expected a layout or a tensor");
    }
    let (method, elem) = match op {
        Op::MmaFragmentA => ("partition_fragment_A", "ValTypeA"),
        Op::MmaFragmentB => ("partition_fragment_B", "ValTypeB"),
        _ => ("partition_fragment_C", "ValTypeC"),
    };
    let elem = format!("typename decltype({m})::{elem}");
    // A tensor (a slice of as_position_independent_swizzle_tensor's) is partitioned itself.
    let t = if l.kind == Kind::Tensor { l.code.clone() } else { tensor_of_type(&l.code, Some(&elem)) };
    let frag = format!("{m}.get_slice({}).{method}(t_)", i.code);
    // A static layout is printed from the fragment's type: CuTe's host build of a GMMA descriptor
    // (the fragment's iterator, not its layout) prints "ERROR: cast_smem_ptr_to_uint not
    // supported but used." when run.
    Ok(Cpp::new(
        format!(
            "[&](auto) {{ auto t_ = {t}; using T_ = decltype({frag}); \
if constexpr (is_static<typename T_::layout_type>::value) {{ return typename T_::layout_type{{}}; }} \
else {{ return {frag}.layout(); }} }}(0)"
        ),
        Kind::Layout,
    ))
}

/// `mma_make_fragment_a/b(MMA, L)`: the type of `MMA.make_fragment_A(make_tensor(make_smem_ptr(p),
/// L))` at the fixed smem address, printed from its type as the device prints it:
/// `make_tensor(typename T_::iterator{}, typename T_::layout_type{})`. The descriptor is never
/// built on the host (make_umma_desc's cast_smem_ptr_to_uint prints "ERROR:
/// cast_smem_ptr_to_uint not supported but used." there, arch/util.hpp), and
/// `print(DescriptorIterator)` prints only its name, so the print holds no address.
pub fn make_fragment_desc(which: char, g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let m = made_by(g, &args[0], Op::MakeTiledMma)?;
    let l = g.layout(&args[1])?;
    let (method, elem) = if which == 'a' { ("make_fragment_A", "ValTypeA") } else { ("make_fragment_B", "ValTypeB") };
    let elem = format!("typename decltype({m})::{elem}");
    let t = tensor_of_type(&l.code, Some(&elem));
    Ok(Cpp::new(
        format!(
            "[&](auto) {{ auto t_ = {t}; using T_ = decltype({m}.{method}(t_)); \
return make_tensor(typename T_::iterator{{}}, typename T_::layout_type{{}}); }}(0)"
        ),
        Kind::Other,
    ))
}

/// `Copy_Atom<OP,T>{}`.
fn copy_atom_code(n: &str, args: &[Expr], at: &Expr) -> Result<String, CodegenError> {
    arity(n, args, 2, 2, at)?;
    let (op, t) = (name_arg(&args[0], NameKind::CopyOp)?, name_arg(&args[1], NameKind::ValueType)?);
    Ok(format!("Copy_Atom<{op},{t}>{{}}"))
}

/// `copy_traits_src/dst/ref(OP)`: `typename Copy_Traits<OP>::SrcLayout{}` etc.
pub fn copy_traits_member(which: Op, _: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let op = name_arg(&args[0], NameKind::CopyOp)?;
    let member = match which {
        Op::CopyTraitsSrc => "SrcLayout",
        Op::CopyTraitsDst => "DstLayout",
        _ => "RefLayout",
    };
    Ok(Cpp::new(format!("typename Copy_Traits<{op}>::{member}{{}}"), Kind::Layout))
}

/// `tiled_copy_tv/tiler(OP,T,THR,VAL)`: `TiledLayout_TV` / `Tiler_MN` of the tiled copy's type.
pub fn tiled_copy(which: Op, g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let (op, t) = (name_arg(&args[0], NameKind::CopyOp)?, name_arg(&args[1], NameKind::ValueType)?);
    let (thr, val) = (layout_or_shape(g, &args[2])?, layout_or_shape(g, &args[3])?);
    let tc = format!("make_tiled_copy(Copy_Atom<{op},{t}>{{}}, {}, {})", thr.code, val.code);
    Ok(if which == Op::TiledCopyTv {
        Cpp::new(format!("typename decltype({tc})::TiledLayout_TV{{}}"), Kind::Layout)
    } else {
        Cpp::new(format!("typename decltype({tc})::Tiler_MN{{}}"), Kind::IntTuple)
    })
}

/// `make_tiled_mma(X[,L[,P]])` and its members `tiled_mma_tv_a/b/c`, `tiled_mma_tile`, `tiled_mma_thr_layout`.
pub fn tiled_mma(op: Op, g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let mut call = format!("{}{{}}", name_arg(&args[0], NameKind::Mma)?);
    if let Some(l) = args.get(1) {
        call += &format!(", {}", layout_or_shape(g, l)?.code);
    }
    if let Some(p) = args.get(2) {
        let Expr::Tuple { .. } = p else { return err(p, "permutations must be a tuple") };
        let c = g.emit(p, Role::Shape)?;
        call += &format!(", {}", c.code);
    }
    let m = format!("make_tiled_mma({call})");
    Ok(match op {
        Op::TiledMmaTvA => Cpp::new(format!("{m}.get_layoutA_TV()"), Kind::Layout),
        Op::TiledMmaTvB => Cpp::new(format!("{m}.get_layoutB_TV()"), Kind::Layout),
        Op::TiledMmaTvC => Cpp::new(format!("{m}.get_layoutC_TV()"), Kind::Layout),
        Op::TiledMmaTile => Cpp::new(format!("tile_shape({m})"), Kind::IntTuple),
        Op::MakeTiledMma => Cpp::new(m, Kind::Other),
        _ => Cpp::new(format!("{m}.get_thr_layout_vmnk()"), Kind::Layout),
    })
}

/// `as_position_independent_swizzle_tensor(make_tensor(make_smem_ptr(p), L))` (pointer_flagged.hpp)
/// of a layout over `smem_ptr_flag_bits<B>` at the fixed address (as [`tensor_of`] makes the
/// shared-memory tensors of the partition cases), a tensor; of any other layout a counting
/// tensor, which CuTe refuses ("Expected smem tensor."). Where the swizzle has bits and the result's
/// layout is static, the result is printed from its type (CuTe's layout `Sw' o _0 o L`, computed at
/// compile time) over `T_::iterator` made from the tensor's raw pointer, which is the function's
/// own pointer ("Strip off everything and create a new smem_ptr for type-T"): called on the host
/// in a debug build, the function's alignment check runs `cast_smem_ptr_to_uint`, which prints
/// "ERROR: cast_smem_ptr_to_uint not supported but used." there (arch/util.hpp) before the value.
pub fn as_position_independent_swizzle_tensor(
    g: &mut Gen,
    _: &Name,
    args: &[Expr],
    _: &Expr,
) -> Result<Cpp, CodegenError> {
    let l = g.layout(&args[0])?;
    let f = Op::AsPositionIndependentSwizzleTensor.name();
    Ok(Cpp::new(
        format!(
            "[&](auto) {{ auto t_ = {}; using T_ = decltype({f}(t_)); \
if constexpr (!is_same_v<T_, decltype(t_)> && is_static<typename T_::layout_type>::value) {{ \
return make_tensor(typename T_::iterator{{raw_pointer_cast(t_.data())}}, typename T_::layout_type{{}}); }} \
else {{ return {f}(t_); }} }}(0)",
            tensor_of(&l.code)
        ),
        Kind::Tensor,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::expression;
    use crate::expr::parse;

    fn cpp(s: &str) -> String {
        expression(&parse(s).unwrap()).unwrap().code
    }

    #[test]
    fn writes_atoms() {
        assert_eq!(
            cpp("mma_layout_a(SM80_16x8x16_F32F16F16F32_TN)"),
            "typename MMA_Traits<SM80_16x8x16_F32F16F16F32_TN>::ALayout{}"
        );
        assert_eq!(
            cpp("mma_shape(SM90_64x64x16_F16F16F16_SS<GMMA::Major::K, GMMA::Major::K>)"),
            "typename MMA_Traits<SM90_64x64x16_F16F16F16_SS<GMMA::Major::K,GMMA::Major::K>>::Shape_MNK{}"
        );
        assert_eq!(
            cpp("copy_atom_src(SM75_U32x4_LDSM_N,half_t)"),
            "typename Copy_Atom<SM75_U32x4_LDSM_N,half_t>::ValLayoutSrc{}"
        );
        assert_eq!(
            cpp("tiled_copy_tiler(UniversalCopy<float>,float,(_32,_8),_1:_0)"),
            "typename decltype(make_tiled_copy(Copy_Atom<UniversalCopy<float>,float>{}, make_layout(make_shape(Int<32>{}, Int<8>{})), make_layout(Int<1>{}, Int<0>{})))::Tiler_MN{}"
        );
        assert_eq!(
            cpp("tiled_mma_tile(SM80_16x8x8_F16F16F16F16_TN,(_2,_2,_1),(_32,_,_16))"),
            "tile_shape(make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN{}, make_layout(make_shape(Int<2>{}, Int<2>{}, Int<1>{})), make_tile(Int<32>{}, _, Int<16>{})))"
        );
        assert_eq!(cpp("Swizzle<1,2,-3>(_5)"), "Swizzle<1,2,-3>{}(Int<5>{})");
        assert_eq!(
            cpp("composition(Swizzle<2,0,3>,(_4,_8):(_1,_4))(1,2)"),
            "(composition(Swizzle<2,0,3>{}, make_layout(make_shape(Int<4>{}, Int<8>{}), make_stride(Int<1>{}, Int<4>{}))))(make_coord(int(1), int(2)))"
        );
    }

    #[test]
    fn refuses_unknown_names() {
        for s in [
            "mma_layout_a(system)",
            "mma_layout_a(SM80_1x1x1_TN)",
            "copy_atom_src(SM75_U32x4_LDSM_N,no_type_t)",
            "Swizzle<1,2>",
            "tiled_mma_tile(SM80_16x8x8_F16F16F16F16_TN,(_2,_2,_1),_32:_1)",
        ] {
            assert!(expression(&parse(s).unwrap()).is_err(), "{s}");
        }
    }
}
