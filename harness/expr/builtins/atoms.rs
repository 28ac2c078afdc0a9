//! Builtins on CuTe's atoms and swizzles.
//!
//! Bare names: an MMA atom, a copy operation or a value type written as in C++
//! (`SM80_16x8x16_F32F16F16F32_TN`, `SM80_CP_ASYNC_CACHEALWAYS<uint128_t>`, `half_t`) evaluates to
//! itself, to be passed to the functions below; `Swizzle<B,M,S>` evaluates to the swizzle
//! (printed `Sw<B,M,S>`), and `Swizzle<B,M,S>(x)` to the swizzled integer.
//!
//! - `mma_layout_a(ATOM)`, `mma_layout_b`, `mma_layout_c`, `mma_shape`, `mma_thr_id`: the atom's
//!   `MMA_Traits` members `ALayout`, `BLayout`, `CLayout`, `Shape_MNK`, `ThrID`.
//! - `copy_atom_src(OP, T)`, `copy_atom_dst`, `copy_atom_ref`, `copy_atom_thr_id`: `Copy_Atom<OP,T>`'s
//!   `ValLayoutSrc`, `ValLayoutDst`, `ValLayoutRef`, `ThrID`; `copy_traits_src(OP)`, `copy_traits_dst`,
//!   `copy_traits_ref`: `Copy_Traits<OP>`'s layouts in bits.
//! - `tiled_copy_tv(OP, T, THR, VAL)`, `tiled_copy_tiler(...)`: `make_tiled_copy(Copy_Atom<OP,T>{},
//!   THR, VAL)`'s `TiledLayout_TV` and `Tiler_MN`.
//! - `tiled_mma_tv_a(ATOM[, LAYOUT[, PERMS]])`, `tiled_mma_tv_b`, `tiled_mma_tv_c`,
//!   `tiled_mma_tile`, `tiled_mma_thr_layout`: `make_tiled_mma(ATOM{}, LAYOUT, PERMS)`'s
//!   `get_layoutA_TV()` etc., `tile_shape`, `get_thr_layout_vmnk()`. LAYOUT is a layout or a shape
//!   (made a layout as CuTe's `make_layout` does); PERMS a tuple of tilers such as `(_32,_32,_16)`.
//! - `mma_atom(ATOM)`, `copy_atom(OP, T)`, `make_tiled_mma(ATOM[, LAYOUT[, PERMS]])`,
//!   `make_tiled_copy(copy_atom(OP,T), THR, VAL)`, `make_tiled_copy_A/B/C(copy_atom(OP,T), MMA)`: the objects, printed as CuTe's `print` prints
//!   `MMA_Atom<ATOM>{}`, `Copy_Atom<OP,T>{}`, a TiledMMA and a TiledCopy (several lines).
//! - `mma_partition_c(MMA, L, i)` (and `_a`, `_b`): `MMA.get_slice(i).partition_C(T)` for a tensor T
//!   over a counting iterator with layout L, printed as CuTe prints it
//!   (`counting_iter(OFFSET) o LAYOUT`); `partition_shape_c(MMA, SHAPE)` (and `_a`, `_b`);
//!   `copy_partition_s(COPY, L, i)` / `copy_partition_d`: `COPY.get_slice(i).partition_S(T)`. MMA is
//!   a `make_tiled_mma(...)`, COPY a `make_tiled_copy(...)` or an SM90 `make_tma_copy(...)` (a
//!   TiledCopy whose threads are the cluster's CTAs: the SM90 TMA mainloops' `tAgA =
//!   tma_load_a.get_slice(cta).partition_S(gA)` of a TMA coordinate tile, `tAsA = ...partition_D(sA)`).
//! - `upcast<N>(X)`, `downcast<N>(X)` for a layout, a swizzle or a swizzled layout; the GMMA
//!   shared-memory atoms `GMMA::Layout_K_SW128_Atom<half_t>` etc. (bare names).
//! - `composition(L, Swizzle<B,M,S>)`: the swizzle of L's images of the Y and Z bits, composed
//!   with L (CuTe's `make_swizzle<L(yyy), L(zzz)>()`).
//! - `composition(Swizzle<B,M,S>, L)`: CuTe's `ComposedLayout` (`Sw<B,M,S> o _0 o L`), which can be
//!   evaluated at a coordinate like a layout.

use crate::engine::atom::recast::{self, Recastable};
use crate::engine::atom::{copy, mma, partition, tiled_copy, tiled_mma};
use crate::engine::composed_composition::Composite;
use crate::engine::swizzle::{compose_swizzle, ComposedLayout, Swizzle, SwizzledLayout};
use crate::engine::warp_access;
use crate::engine::{Error, Result};
use crate::expr::op::Op;
use crate::expr::parse::{Name, TemplateArg};
use crate::expr::value::{AtomValue, TmaView, Value};

use super::arity;

/// The forms of this area that are not operations of the table (`harness/expr/op.rs`): a bare atom,
/// copy-operation or value-type name (itself), `Swizzle<B,M,S>` and `Swizzle<B,M,S>(x)`. `None`
/// when `name` is none of them.
pub fn form(name: &Name, args: &[Value], called: bool) -> Option<Result<Value>> {
    if name.path.len() == 1 && name.path[0] == "Swizzle" {
        return Some(swizzle(name, args, called));
    }
    if !called {
        if let Some(major) = mode_order(name) {
            return Some(Ok(Value::Atom(AtomValue::Name(major.to_string()))));
        }
        return bare_name(name);
    }
    None
}

/// A mode-order tag (`LayoutLeft`, `LayoutRight`, `GenColMajor`, `GenRowMajor`, with or without
/// `cute::`): its name as the FORMS table spells it, and whether it is row-major.
pub fn mode_order(name: &Name) -> Option<&'static str> {
    if name.targs.is_some() || name.path.len() > 2 || (name.path.len() == 2 && name.path[0] != "cute") {
        return None;
    }
    crate::expr::op::FORMS
        .iter()
        .map(|f| f.0)
        .filter(|f| f.starts_with("Layout") || f.starts_with("Gen"))
        .find(|f| *f == name.base())
}

/// Whether a mode-order tag is row-major (`LayoutRight`, `GenRowMajor`).
pub fn is_row_major(tag: &str) -> bool {
    tag.ends_with("Right") || tag.ends_with("RowMajor")
}

/// `mma_atom(ATOM)`: `MMA_Atom<ATOM>{}`.
pub fn mma_atom(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let name = name_arg(n, &args[0])?;
    let atom = mma::mma_atom(&name)?;
    // An MMA_Atom object instantiates its operation, and with it the op's static_asserts.
    mma::check_atom(&name)?;
    Ok(Value::Atom(AtomValue::Mma(Box::new(atom))))
}

/// `copy_atom(OP, T)`: `Copy_Atom<OP,T>{}`.
pub fn copy_atom(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    // A Copy_Atom object instantiates its operation (CuTe checks the op's static_asserts).
    copy::check_copy_op(&name_arg(n, &args[0])?)?;
    let a = copy::copy_atom(&name_arg(n, &args[0])?, &name_arg(n, &args[1])?)?;
    Ok(Value::Atom(AtomValue::Copy(Box::new(a))))
}

/// `make_tiled_copy_A/B/C(copy_atom(OP,T), MMA)`.
pub fn make_tiled_copy_for(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let Value::Atom(AtomValue::Copy(atom)) = &args[0] else {
        return Err(Error::Type(format!("{n} expects copy_atom(OP,T) first, found {}", args[0].kind())));
    };
    let which = n.chars().last().unwrap_or('C');
    let tc = tiled_copy::make_tiled_copy_for(atom, tiled_mma_arg(n, &args[1])?, which)?;
    Ok(Value::Atom(AtomValue::TiledCopy(Box::new(tc))))
}

/// `mma_partition_a/b/c(MMA, L, i)`.
pub fn mma_partition(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let which = n.chars().last().unwrap_or('c');
    if let Value::Atom(AtomValue::CoordTensor(t)) = &args[1] {
        let r = crate::engine::coord_tensor::mma_partition(
            tiled_mma_arg(n, &args[0])?,
            which,
            t,
            thread_arg(n, &args[2])?,
        )?;
        return Ok(Value::Atom(AtomValue::CoordTensor(r)));
    }
    let (mma, thr) = (tiled_mma_arg(n, &args[0])?, thread_arg(n, &args[2])?);
    let p = partition_of(&args[1], |t| partition::mma_partition_of(mma, which, t, thr))?;
    Ok(Value::Atom(AtomValue::Partition(p)))
}

/// `partition_fragment_C(MMA, SHAPE)`: the layout of CuTe's `make_tensor<FrgTypeC>(partition_shape_C(MMA,
/// SHAPE))` (mma_atom.hpp), compact column-major.
pub fn partition_fragment_c(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let s = partition::mma_partition_shape(tiled_mma_arg(n, &args[0])?, 'c', &args[1].to_int_tuple()?)?;
    Ok(Value::Layout(crate::engine::Layout::col_major(s)?))
}

/// `mma_fragment_a/b/c(MMA, L, i)`: the layout of `MMA.get_slice(i).partition_fragment_X(T)` for a
/// tensor T with layout L (mma_atom.hpp): `make_fragment_like(partition_X(T))` for A and B,
/// `make_tensor<FrgTypeC>(shape(partition_C(T)))` for C. An SM90 GMMA operand read from shared memory
/// has a descriptor fragment (a view of the tensor), which is not modelled.
pub fn mma_fragment(name: &Name, args: &[Value]) -> Result<Value> {
    let v = mma_fragment_of(name, args)?;
    if !crate::engine::release::THR_MMA_FRAGMENTS_QUALIFIED.on() {
        // The 3.3.0.0 wheel's ThrMMA::partition_fragment_X calls make_fragment_X unqualified, a
        // member of its dependent base TiledMMA: no such name at the point of instantiation (the
        // static_asserts of the partition and the traits, refused above, come first).
        let which = name.base().chars().last().unwrap_or('c');
        return Err(Error::Rejected {
            condition: "'make_fragment_X' was not declared in this scope",
            detail: format!("ThrMMA::partition_fragment_{} in CUTLASS 3.3.0.0", which.to_ascii_uppercase()),
        });
    }
    Ok(v)
}

fn mma_fragment_of(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let which = n.chars().last().unwrap_or('c');
    let m = tiled_mma_arg(n, &args[0])?;
    let atom = &m.atom.name;
    let smem = atom.starts_with("SM90") && (atom.contains("_SS") || (which == 'b' && atom.contains("_RS")));
    // make_fragment_C never reads the tensor's layout, only the shape of its partition_C
    // (mma_atom.hpp: `make_tensor<FrgTypeC>(shape(ctensor))`): of a coordinate tensor (the SM100
    // epilogue's TMA coordinate tile, 05_mma_tma_epi_sm100.cu `cta_mma.make_fragment_C(tCgC)`) it
    // is the fragment of the compact layout of that shape. A and B fragments copy the layout
    // (make_fragment_like) and are not modelled for one.
    let coord_c;
    let args = if let Value::Atom(AtomValue::CoordTensor(t)) = &args[1] {
        if which != 'c' {
            return Err(Error::Type(format!("{n} of an identity (coordinate) tensor is not modelled")));
        }
        // The coordinate tensor's own partition_C (CuTe instantiates it, with its checks).
        let p = crate::engine::coord_tensor::mma_partition(m, which, t, thread_arg(n, &args[2])?)?;
        let compact = crate::engine::Layout::col_major(t.layout.shape.clone())?;
        coord_c = [args[0].clone(), Value::Layout(compact), args[2].clone()];
        let q = partition::mma_partition_of(m, which, &tensor_layout(&coord_c[1])?, thread_arg(n, &args[2])?)?;
        if q.layout.shape != p.layout.shape {
            return Err(Error::Type(format!(
                "{n}: partition_C of {t} has shape {}, of its compact layout {}",
                p.layout.shape, q.layout.shape
            )));
        }
        &coord_c[..]
    } else {
        args
    };
    if let Value::Atom(AtomValue::Partition(pt)) = &args[1] {
        return tensor_fragment(n, m, which, pt, thread_arg(n, &args[2])?, smem);
    }
    let (t, thr) = (tensor_layout(&args[1])?, thread_arg(n, &args[2])?);
    // The swizzle a partition kept (before 3.5 its register fragment keeps one too).
    let mut kept = None;
    let p = match (partition::mma_partition_of(m, which, &t, thr), &t) {
        (Ok(p), _) => {
            if let partition::Over::Composed(sw, _) = p.over {
                kept = Some(sw);
            }
            p
        }
        // A register fragment takes only the partition's layout_b (swizzle_layout.hpp:
        // make_fragment_like(ComposedLayout) is make_fragment_like(layout.layout_b())), and
        // layout_b of a slice of `Sw o O o L` is the slice of L: where the swizzled slice itself is
        // not modelled (a MixedBits offset), the fragment is still CuTe's.
        (Err(_), SwizzledLayout::Composed(x)) if !smem => {
            kept = Some(x.swizzle);
            partition::mma_partition_of(m, which, &SwizzledLayout::Plain(x.layout.clone()), thr)?
        }
        (Err(e), _) => return Err(e),
    };
    if which != 'c' && smem {
        let bits = copy::type_bits(&m.atom.val_types[if which == 'a' { 1 } else { 2 }])?;
        return Ok(Value::Layout(partition::gmma_descriptor_fragment(&p, bits)?));
    }
    // make_fragment_like(ComposedLayout) is make_fragment_like(layout_b()) (swizzle_layout.hpp):
    // a partition that kept its swizzle (with a static or a MixedBits offset) gives its layout.
    // A register fragment of a shared-memory tensor whose swizzle is on its pointer (an SM90 RS
    // atom's A from a GMMA smem layout) is `make_fragment_like<T>(tensor.layout())`
    // (tensor_impl.hpp:460-466), and that tensor's layout is the plain L (pointer_flagged.hpp's
    // make_tensor moves the swizzle onto the pointer): the fragment of its layout.
    if !matches!(p.over, partition::Over::Counting | partition::Over::Composed(..) | partition::Over::SmemSwizzle(..)) {
        return Err(Error::Type(format!("{n}: a fragment of a swizzled tensor ({p}) is not modelled")));
    }
    // A UMMA's accumulator lives in tensor memory (FrgTypeC = UMMA::tmem_frg_1sm/2sm, not the
    // weight-stationary `_WS` atoms' tmem_frg_ws).
    let umma = atom.starts_with("SM100_MMA_") && !atom.contains("_WS");
    let l = if which == 'c' && umma {
        let c = copy::type_bits(&m.atom.val_types[3])?;
        crate::engine::atom::tmem::umma_accumulator_fragment(&p.layout, c)?
    } else if which == 'c' {
        crate::engine::Layout::col_major(p.layout.shape.clone())?
    } else {
        let l = crate::engine::make_fragment_like::make_fragment_like(&p.layout)?;
        // Before 3.5 make_fragment_like(Sw o O o L) transfers the swizzle (swizzle_layout.hpp).
        if let (Some(sw), false) = (kept, crate::engine::release::MAKE_FRAGMENT_LIKE_DROPS_THE_SWIZZLE.on()) {
            return Ok(partition::transfer_swizzle(sw, &p.layout, &l)?.into());
        }
        l
    };
    Ok(Value::Layout(l))
}

/// `mma_fragment_a/b/c(MMA, T, i)` of a tensor T that is a partition value (a slice of the
/// position-independent swizzle tensor, the RS mainloop's `partition_fragment_A(sA(_,_,Int<0>{}))`,
/// sm90_mma_tma_gmma_rs_warpspecialized.hpp:554): ThrMMA::partition_fragment_X is
/// `make_fragment_X(partition_X(T))` (mma_atom.hpp); for a value-type FrgTypeA/B that is
/// `make_fragment_like<FrgType>(partition)`, `make_tensor<T>(make_fragment_like(layout()))`
/// (tensor_impl.hpp), and make_fragment_like of a `Sw o O o L` layout is make_fragment_like(L)
/// (swizzle_layout.hpp; before 3.5 it keeps the swizzle); partition_fragment_C is
/// `make_tensor<FrgTypeC>(shape(partition_C(T)))`, compact column-major. A GMMA descriptor
/// fragment and a UMMA's tensor-memory accumulator of such a tensor are not modelled.
fn tensor_fragment(
    n: &str,
    m: &tiled_mma::TiledMma,
    which: char,
    t: &partition::Partition,
    thr: i64,
    smem: bool,
) -> Result<Value> {
    let umma = m.atom.name.starts_with("SM100_MMA_") && !m.atom.name.contains("_WS");
    if (smem && which != 'c') || (umma && which == 'c') {
        return Err(Error::Type(format!(
            "{n} of the tensor {t}: a descriptor or tensor-memory fragment is not modelled"
        )));
    }
    let p = t.partition(|l| partition::mma_partition_of(m, which, l, thr))?;
    if which == 'c' {
        return Ok(Value::Layout(crate::engine::Layout::col_major(p.layout.shape.clone())?));
    }
    let kept = match p.over {
        partition::Over::Composed(sw, _) | partition::Over::PlainSmem(_, Some((sw, _))) => Some(sw),
        _ => None,
    };
    let l = crate::engine::make_fragment_like::make_fragment_like(&p.layout)?;
    if let (Some(sw), false) = (kept, crate::engine::release::MAKE_FRAGMENT_LIKE_DROPS_THE_SWIZZLE.on()) {
        return Ok(partition::transfer_swizzle(sw, &p.layout, &l)?.into());
    }
    Ok(Value::Layout(l))
}

/// `partition_shape_a/b/c(MMA, SHAPE)`.
pub fn partition_shape(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let which = n.chars().last().unwrap_or('c');
    Ok(Value::from_int_tuple(&partition::mma_partition_shape(
        tiled_mma_arg(n, &args[0])?,
        which,
        &args[1].to_int_tuple()?,
    )?))
}

/// `copy_partition_s/d(COPY, L, i)`.
pub fn copy_partition(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let tc = match &args[0] {
        Value::Atom(AtomValue::TiledCopy(tc)) => tc,
        // An SM90 TMA copy is a TiledCopy (copy_traits_sm90_tma.hpp make_tma_copy_tiled): its
        // thread is a CTA of the multicast cluster, its partitions the generic ThrCopy's.
        Value::Atom(AtomValue::Tma(t, TmaView::TiledCopy)) if t.tiled.is_some() => match &t.tiled {
            Some(tc) => tc,
            None => return Err(Error::Type(format!("{n}: the TMA copy has no TiledCopy"))),
        },
        _ => {
            return Err(Error::Type(format!(
                "{n} expects make_tiled_copy(...) or make_tma_copy(...) first, found {}",
                args[0].kind()
            )))
        }
    };
    if let Value::Atom(AtomValue::CoordTensor(t)) = &args[1] {
        let r = crate::engine::coord_tensor::copy_partition(tc, t, thread_arg(n, &args[2])?, n.ends_with('s'))?;
        return Ok(Value::Atom(AtomValue::CoordTensor(r)));
    }
    let (thr, src) = (thread_arg(n, &args[2])?, n.ends_with('s'));
    let p = partition_of(&args[1], |t| partition::copy_partition_of(tc, t, thr, src))?;
    Ok(Value::Atom(AtomValue::Partition(p)))
}

/// `part` of the tensor `v`: a layout's (swizzled or not) counting or shared-memory tensor, or a
/// partition (a tensor itself, `Partition::partition`).
fn partition_of(
    v: &Value,
    part: impl Fn(&crate::engine::swizzle::SwizzledLayout) -> Result<partition::Partition>,
) -> Result<partition::Partition> {
    match v {
        Value::Atom(AtomValue::Partition(p)) => p.partition(part),
        v => part(&tensor_layout(v)?),
    }
}

/// The layout of a tensor to partition: a layout, or a swizzled one (`Sw o _0 o L` is a counting
/// tensor's layout; `Sw o smem_ptr[B] o L` makes a shared-memory tensor with the swizzle on its
/// pointer, as kernels' smem tensors are).
fn tensor_layout(v: &Value) -> Result<SwizzledLayout> {
    Ok(match v {
        Value::Atom(AtomValue::Composed(x)) => SwizzledLayout::Composed(x.clone()),
        v => SwizzledLayout::Plain(v.to_layout()?),
    })
}

/// `retile_S/retile_D(COPY, L)`: the layout of `COPY.get_slice(i).retile_S(T)` for a thread's
/// fragment T with layout L (copy_atom.hpp TiledCopy::retile).
pub fn retile(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let Value::Atom(AtomValue::TiledCopy(tc)) = &args[0] else {
        return Err(Error::Type(format!("{n} expects make_tiled_copy(...) first, found {}", args[0].kind())));
    };
    // A swizzled fragment (before 3.5, [`mma_fragment`]) is retiled through its layout_b.
    if let Value::Atom(AtomValue::Composed(x)) = &args[1] {
        return Ok(partition::retile_composed(tc, x)?.into());
    }
    Ok(Value::Layout(partition::retile(tc, &args[1].to_layout()?)?))
}

/// `composition` where an operand is a swizzle: `composition(Swizzle, L)`, `composition(Sw o _0 o
/// L, B)` or `composition(L, Swizzle)`; `None` when neither operand is one (the algebra's
/// composition then applies).
pub fn composition(args: &[Value]) -> Option<Result<Value>> {
    if let Some(r) = composed_composition(args) {
        return Some(r);
    }
    if args.first().is_some_and(|a| matches!(a, Value::Atom(AtomValue::Swizzle(_) | AtomValue::Composed(_)))) {
        return Some(compose(args));
    }
    match args {
        [l, Value::Atom(AtomValue::Swizzle(sw))] => Some((|| {
            Ok(match crate::engine::swizzle::compose_layout_swizzle(&l.to_layout()?, *sw)? {
                SwizzledLayout::Plain(l) => Value::Layout(l),
                SwizzledLayout::Composed(c) => Value::Atom(AtomValue::Composed(c)),
            })
        })()),
        _ => None,
    }
}

/// A layout, composed layout or nested composed layout as the engine's [`Composite`].
fn composite(v: &Value) -> Option<Composite> {
    Some(match v {
        Value::Layout(l) => Composite::Plain(l.clone()),
        Value::Atom(AtomValue::Composed(c)) => Composite::Composed(c.clone()),
        Value::Atom(AtomValue::Nested(n)) => Composite::Nested(n.clone()),
        _ => return None,
    })
}

fn from_composite(c: Composite) -> Value {
    match c {
        Composite::Plain(l) => Value::Layout(l),
        Composite::Composed(c) => Value::Atom(AtomValue::Composed(c)),
        Composite::Nested(n) => Value::Atom(AtomValue::Nested(n)),
    }
}

/// `composition(A, B)` with B a (nested) composed layout, or A a nested one
/// (engine/composed_composition.rs, layout_composed.hpp): `None` otherwise.
fn composed_composition(args: &[Value]) -> Option<Result<Value>> {
    let composed_rhs = matches!(args.get(1), Some(Value::Atom(AtomValue::Composed(_) | AtomValue::Nested(_))));
    let nested_lhs = matches!(args.first(), Some(Value::Atom(AtomValue::Nested(_))));
    if args.len() != 2 || !(composed_rhs || nested_lhs) {
        return None;
    }
    let (Some(a), Some(b)) = (composite(&args[0]), composite(&args[1])) else {
        return Some(Err(Error::Type(format!(
            "composition of {} with {} is not modelled (a layout, composed or nested composed layout on each side is)",
            args[0].kind(),
            args[1].kind()
        ))));
    };
    Some(crate::engine::composed_composition::composition(&a, &b).map(from_composite))
}

/// A bare name: an atom, a copy operation or a value type evaluates to itself.
fn bare_name(name: &Name) -> Option<Result<Value>> {
    let text = name.to_string();
    if warp_access::Space::parse(&text).is_some()
        || crate::engine::tma::TmaOp::by_name(&text).is_some()
        || crate::engine::tma_im2col::Im2colOp::by_name(&text).is_some()
    {
        return Some(Ok(Value::Atom(AtomValue::Name(text))));
    }
    if let Some(r) = recast::gmma_smem_atom(&text) {
        return Some(r.map(from_recastable));
    }
    let known = mma::mma_atom(&text).is_ok() || copy::copy_traits(&text).is_ok() || copy::type_bits(&text).is_ok();
    if known {
        return Some(Ok(Value::Atom(AtomValue::Name(text))));
    }
    // An operation declared without traits in this release (atom/since.rs; CUTLASS 3.7 declares
    // the SM90 sparse GMMAs, 3.8 their traits): the operation's own static_asserts (a register
    // A that is MN-major) come first (atoms_sparse.cases:60 on 3.7).
    if let Err(Error::Rejected { condition: "MMA_Traits not implemented for this MMA_Operation", .. }) =
        mma::mma_atom(&text)
    {
        if let Err(e) = mma::check_atom(&text) {
            return Some(Err(e));
        }
    }
    // A name the tables know but CuTe's rules refuse (e.g. a GMMA N that needs the extended shapes).
    for r in [mma::mma_atom(&text).map(|_| ()), copy::copy_traits(&text).map(|_| ())] {
        if let Err(e @ Error::Rejected { .. }) = r {
            return Some(Err(e));
        }
    }
    // Names that look like atoms get the atom tables' own refusal rather than "unknown name".
    let base = name.base();
    let looks_sm = base.len() > 3 && base.starts_with("SM") && base.as_bytes()[2].is_ascii_digit();
    if looks_sm || base.starts_with("Universal") {
        let copyish = ["LDSM", "STSM", "MOVM", "CP_ASYNC", "Copy"].iter().any(|k| base.contains(k));
        let err = if copyish { copy::copy_traits(&text).err() } else { mma::mma_atom(&text).err() };
        return err.map(Err);
    }
    None
}

fn name_arg(fname: &str, v: &Value) -> Result<String> {
    match v {
        Value::Atom(AtomValue::Name(n)) => Ok(n.clone()),
        other => Err(Error::Type(format!("{fname} expects an atom or type name, found {}", other.kind()))),
    }
}

/// `mma_layout_a/b/c(ATOM)`, `mma_shape`, `mma_thr_id`: members of `MMA_Traits<ATOM>`.
pub fn mma_member(op: Op, name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let atom = mma::mma_atom(&name_arg(n, &args[0])?)?;
    let operand = match op {
        Op::MmaLayoutA => Some('A'),
        Op::MmaLayoutB => Some('B'),
        Op::MmaLayoutC => Some('C'),
        _ => None,
    };
    if let Some(w) = operand {
        crate::engine::atom::definition::enforce_mma_operand(&atom, w)?;
    }
    Ok(match op {
        Op::MmaLayoutA => Value::Layout(atom.a),
        Op::MmaLayoutB => Value::Layout(atom.b),
        Op::MmaLayoutC => Value::Layout(atom.c),
        Op::MmaShape => Value::from_int_tuple(&atom.shape_mnk),
        _ => Value::Layout(atom.thr_id),
    })
}

/// `mma_layout_e/sfa/sfb(ATOM)`: the `ELayout`, `SFALayout` or `SFBLayout` of `MMA_Traits<ATOM>`
/// (`'E'`, `'S'`, `'T'`), refused where the traits declare no such member (CuTe: "no type named
/// 'ELayout'").
pub fn mma_extra(which: char, name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let text = name_arg(n, &args[0])?;
    let atom = mma::mma_atom(&text)?;
    let extra = mma::mma_extra(&text)?;
    let (member, l) = match which {
        'E' => ("ELayout", extra.e),
        'S' => ("SFALayout", extra.sfa),
        _ => ("SFBLayout", extra.sfb),
    };
    let l = l.ok_or_else(|| {
        Error::Type(format!(
            "MMA_Traits<{text}> has no {member} (only the SM90 sparse GMMA and SM120 sparse atoms declare ELayout, the SM120 block-scaled ones SFALayout/SFBLayout; the SM100 UMMA atoms keep metadata and scale factors in tensor memory)"
        ))
    })?;
    crate::engine::atom::definition::enforce_mma_extra(&atom, which, &l)?;
    Ok(Value::Layout(l))
}

/// `copy_atom_src/dst/ref/thr_id(OP, T)`: members of `Copy_Atom<OP,T>`.
pub fn copy_atom_member(op: Op, name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let atom = copy::copy_atom(&name_arg(n, &args[0])?, &name_arg(n, &args[1])?)?;
    Ok(Value::Layout(match op {
        Op::CopyAtomSrc => atom.src,
        Op::CopyAtomDst => atom.dst,
        Op::CopyAtomRef => atom.ref_,
        _ => atom.thr_id,
    }))
}

/// `copy_traits_src/dst/ref(OP)`: members of `Copy_Traits<OP>`, in bits.
pub fn copy_traits_member(op: Op, name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let (_, s, d, r) = copy::copy_traits(&name_arg(n, &args[0])?)?;
    Ok(Value::Layout(match op {
        Op::CopyTraitsSrc => s,
        Op::CopyTraitsDst => d,
        _ => r,
    }))
}

fn tiled_mma_arg<'a>(n: &str, v: &'a Value) -> Result<&'a tiled_mma::TiledMma> {
    match v {
        Value::Atom(AtomValue::TiledMma(m)) => Ok(m),
        other => Err(Error::Type(format!("{n} expects make_tiled_mma(...) first, found {}", other.kind()))),
    }
}

fn thread_arg(n: &str, v: &Value) -> Result<i64> {
    let i = v.to_int().map_err(|_| Error::Type(format!("{n} expects a thread index, found {}", v.kind())))?;
    Ok(i.value)
}

/// `make_tiled_copy(copy_atom(OP,T), THR, VAL)`.
pub fn make_tiled_copy(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let Value::Atom(AtomValue::Copy(atom)) = &args[0] else {
        return Err(Error::Type(format!("{n} expects copy_atom(OP,T) first, found {}", args[0].kind())));
    };
    // CuTe's default `ValLayout = Layout<_1>` (atom/copy_atom.hpp).
    let one = || crate::engine::Layout::leaf(crate::engine::Int::st(1), crate::engine::Int::st(0));
    let thr = layout_arg(n, &args[1])?;
    let val = args.get(2).map(|a| layout_arg(n, a)).transpose()?.unwrap_or_else(one);
    let tc = tiled_copy::make_tiled_copy(atom, &thr, &val)?;
    Ok(Value::Atom(AtomValue::TiledCopy(Box::new(tc))))
}

/// `make_tmem_copy(OP, T, L)`: CuTe's `make_tmem_copy(OP{}, make_tensor(make_tmem_ptr<T>(0), L))`.
pub fn make_tmem_copy(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let atom = copy::copy_atom(&name_arg(n, &args[0])?, &name_arg(n, &args[1])?)?;
    let l = layout_arg(n, &args[2])?;
    let tc = tiled_copy::make_tmem_copy(&atom, &l)?;
    Ok(Value::Atom(AtomValue::TiledCopy(Box::new(tc))))
}

/// `tiled_copy_tv(OP, T, THR, VAL)` / `tiled_copy_tiler`: `TiledLayout_TV` / `Tiler_MN` of the tiled copy.
pub fn tiled_copy(op: Op, name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let atom = copy::copy_atom(&name_arg(n, &args[0])?, &name_arg(n, &args[1])?)?;
    let (thr, val) = (layout_arg(n, &args[2])?, layout_arg(n, &args[3])?);
    let tc = tiled_copy::make_tiled_copy(&atom, &thr, &val)?;
    let tile = tc.tiler.product()?.value;
    crate::engine::atom::definition::enforce_tv("tiled_copy", &tc.tv, tile, None)?;
    Ok(if op == Op::TiledCopyTv { Value::Layout(tc.tv) } else { Value::from_int_tuple(&tc.tiler) })
}

/// `make_tiled_mma(ATOM[, LAYOUT[, PERMS]])` and its members `tiled_mma_tv_a/b/c`, `tiled_mma_tile`,
/// `tiled_mma_thr_layout`.
pub fn tiled_mma(op: Op, name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let atom = name_arg(n, &args[0])?;
    let layout = args.get(1).map(|a| layout_arg(n, a)).transpose()?;
    let perms = match args.get(2) {
        None => Vec::new(),
        Some(Value::Tuple(items)) => items.iter().map(super::algebra::to_tiler).collect::<Result<_>>()?,
        Some(other) => return Err(Error::Type(format!("{n}: permutations must be a tuple, found {}", other.kind()))),
    };
    let m = tiled_mma::make_tiled_mma(&atom, layout.as_ref(), &perms)?;
    let operand = match op {
        Op::TiledMmaTvA => Some('A'),
        Op::TiledMmaTvB => Some('B'),
        Op::TiledMmaTvC => Some('C'),
        _ => None,
    };
    if let Some(w) = operand {
        let [a, b] = match w {
            'A' => [0, 2],
            'B' => [1, 2],
            _ => [0, 1],
        };
        let tv = match w {
            'A' => m.layout_a_tv()?,
            'B' => m.layout_b_tv()?,
            _ => m.layout_c_tv()?,
        };
        let tile = m.tile_size(a)?.value * m.tile_size(b)?.value;
        crate::engine::atom::definition::enforce_tv("tiled_mma", &tv, tile, Some((&m.atom, w)))?;
    }
    Ok(match op {
        Op::MakeTiledMma => Value::Atom(AtomValue::TiledMma(Box::new(m))),
        Op::TiledMmaTvA => Value::Layout(m.layout_a_tv()?),
        Op::TiledMmaTvB => Value::Layout(m.layout_b_tv()?),
        Op::TiledMmaTvC => Value::Layout(m.layout_c_tv()?),
        Op::TiledMmaTile => Value::from_int_tuple(&m.tile_shape()?),
        _ => Value::Layout(m.thr_layout_vmnk),
    })
}

/// A layout argument; a shape stands for `make_layout(shape)` with CuTe 4.2's strides.
fn layout_arg(n: &str, v: &Value) -> Result<crate::engine::Layout> {
    match v {
        Value::Layout(l) => Ok(l.clone()),
        Value::Int(_) | Value::Tuple(_) => crate::engine::Layout::col_major(v.to_int_tuple()?),
        other => Err(Error::Type(format!("{n} expects a layout or a shape, found {}", other.kind()))),
    }
}

fn from_recastable(r: Recastable) -> Value {
    match r {
        Recastable::Layout(l) => Value::Layout(l),
        Recastable::Swizzle(s) => Value::Atom(AtomValue::Swizzle(s)),
        Recastable::Composed(c) => Value::Atom(AtomValue::Composed(c)),
    }
}

/// `upcast<N>(X)` / `downcast<N>(X)` for a layout, a swizzle or a swizzled layout.
pub fn recast(op: Op, name: &Name, args: &[Value]) -> Result<Value> {
    let f: &str = &name.path[0];
    let n = match name.targs.as_deref() {
        Some([TemplateArg::Int(n)]) => *n,
        _ => return Err(Error::Type(format!("expected {f}<N>(x), got {name}"))),
    };
    let x = match &args[0] {
        Value::Layout(l) => Recastable::Layout(l.clone()),
        Value::Atom(AtomValue::Swizzle(s)) => Recastable::Swizzle(*s),
        Value::Atom(AtomValue::Composed(c)) => Recastable::Composed(c.clone()),
        other => return Err(Error::Type(format!("{f} expects a layout or a swizzle, found {}", other.kind()))),
    };
    let r = if op == Op::Upcast { recast::upcast_any(&x, n)? } else { recast::downcast_any(&x, n)? };
    Ok(from_recastable(r))
}

/// `Swizzle<B,M,S>` (bare) or `Swizzle<B,M,S>(x)`.
fn swizzle(name: &Name, args: &[Value], called: bool) -> Result<Value> {
    let bad = || Error::Type(format!("expected Swizzle<B,M,S> with three integers, got {name}"));
    let t = name.targs.as_ref().ok_or_else(bad)?;
    let ints: Vec<i64> = t
        .iter()
        .map(|a| match a {
            TemplateArg::Int(i) => Ok(*i),
            TemplateArg::Name(_) => Err(bad()),
        })
        .collect::<Result<_>>()?;
    let [b, m, s] = ints[..] else { return Err(bad()) };
    let sw = AtomValue::Swizzle(Swizzle::new(b, m, s)?);
    if !called {
        return Ok(Value::Atom(sw));
    }
    arity("Swizzle", args, 1..=1)?;
    sw.apply(&args[0].to_int_tuple()?)
}

/// `composition(Swizzle, Layout)`, or `composition(Sw o _0 o L, B)`, which is `Sw o _0 o (L o B)`
/// (CuTe composes the inner layout; B may be a layout or a tiler).
fn compose(args: &[Value]) -> Result<Value> {
    match &args[0] {
        Value::Atom(AtomValue::Swizzle(sw)) => {
            let l = args[1].to_layout()?;
            Ok(match compose_swizzle(*sw, &l) {
                SwizzledLayout::Plain(l) => Value::Layout(l),
                SwizzledLayout::Composed(c) => Value::Atom(AtomValue::Composed(c)),
            })
        }
        Value::Atom(AtomValue::Composed(c)) => {
            let inner = crate::engine::composition::composition_tiler(&c.layout, &super::algebra::to_tiler(&args[1])?)?;
            Ok(Value::Atom(AtomValue::Composed(ComposedLayout { swizzle: c.swizzle, offset: c.offset, layout: inner })))
        }
        other => Err(Error::Type(format!("composition expects a swizzle first, found {}", other.kind()))),
    }
}

/// `right_inverse(Sw o O o L)` / `left_inverse` (swizzle_layout.hpp): for a static zero offset
/// `composition(inverse(L), Sw)`, the swizzle read through the inverse (`make_swizzle` of its images
/// of the Y and Z bits) composed with it, e.g. `right_inverse(Sw<3,3,3> o _0 o (_8,_64):(_64,_1))`
/// is `Sw<3,0,-6> o _0 o (_64,_8):(_8,_1)`. Another offset makes `inverse(L) o -O o Sw`, a composed
/// layout whose outer function is a layout, which the engine does not model: refused.
fn inverse_composed(op: Op, c: &ComposedLayout) -> Result<Value> {
    use crate::engine::swizzle::{compose_layout_swizzle, Offset};
    if !matches!(c.offset, Offset::Int(o) if o.is_static_value(0)) {
        return Err(Error::Type(format!(
            "{op} of {c}: CuTe's result for an offset other than _0 (inverse(L) o -offset o swizzle) is not modelled"
        )));
    }
    let inv = if op == Op::RightInverse {
        crate::engine::right_inverse::right_inverse(&c.layout)?
    } else {
        crate::engine::left_inverse::left_inverse(&c.layout)?
    };
    Ok(match compose_layout_swizzle(&inv, c.swizzle)? {
        SwizzledLayout::Plain(l) => Value::Layout(l),
        SwizzledLayout::Composed(c) => Value::Atom(AtomValue::Composed(c)),
    })
}

/// CuTe's operations on `ComposedLayout<Sw,O,L>` (layout_composed.hpp): the divides, products,
/// coalesce, flatten and mode access act on L and keep Sw and O (`composition(Sw, O, op(L, ...))`);
/// size, rank, depth, shape, cosize and complement are L's. `None` when the first argument is not
/// a composed layout or the operation is not one of these.
pub fn on_composed(name: &Name, args: &[Value]) -> Option<Result<Value>> {
    if let (
        Some(Value::Atom(AtomValue::Composed(_) | AtomValue::Nested(_))),
        Some(op @ (Op::FlatDivide | Op::ZippedProduct)),
    ) = (args.first(), Op::lookup(name))
    {
        if !crate::engine::release::COMPOSED_FLAT_DIVIDE_AND_ZIPPED_PRODUCT.on() {
            // CUTLASS 3.3's layout_composed.hpp has no overload of these for ComposedLayout, and
            // layout.hpp's take a Layout: no function matches.
            return Some(Err(Error::Rejected {
                condition: "no matching function (layout_composed.hpp declares no such overload for ComposedLayout before CUTLASS 3.4)",
                detail: format!("{op}({}, ...)", args[0]),
            }));
        }
    }
    if let Some(Value::Atom(AtomValue::Nested(n))) = args.first() {
        return on_nested(name, args, n);
    }
    let Some(Value::Atom(AtomValue::Composed(c))) = args.first() else { return None };
    use Op::*;
    let op = Op::lookup(name)?;
    if matches!(op, RightInverse | LeftInverse) {
        return Some(inverse_composed(op, c));
    }
    let wrap = keeps_the_swizzle(op);
    if !wrap && !answered_by_the_layout(op) {
        return None;
    }
    let mut inner = args.to_vec();
    inner[0] = Value::Layout(c.layout.clone());
    Some(match super::call(name, &inner, true) {
        Ok(Value::Layout(l)) if wrap => Ok(Value::Atom(AtomValue::Composed(ComposedLayout { layout: l, ..c.clone() }))),
        other => other,
    })
}

/// The operations that act on a composed layout's inner layout and keep its swizzle and offset
/// (layout_composed.hpp's generic overloads).
fn keeps_the_swizzle(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        LogicalDivide
            | ZippedDivide
            | TiledDivide
            | FlatDivide
            | LogicalProduct
            | ZippedProduct
            | TiledProduct
            | FlatProduct
            | BlockedProduct
            | RakedProduct
            | TileToShape
            | TileToMmaShape
            | Coalesce
            | Flatten
            | Get
            | Layout
    )
}

/// The queries a composed layout answers with its inner layout's answer.
fn answered_by_the_layout(op: Op) -> bool {
    use Op::*;
    matches!(op, Size | Rank | Depth | Shape | Cosize | Complement)
}

/// The operations of [`on_composed`] on a nested composed layout `Sw o O o X` (X composed):
/// layout_composed.hpp's generic overloads act on `layout_b()` (here X, recursively) and keep Sw and
/// O, or answer X's size, rank, depth, shape, cosize and complement. The inverses (whose generic
/// overload inverts the outer swizzle as a layout) are not modelled: `None`, a type error.
fn on_nested(name: &Name, args: &[Value], n: &crate::engine::composed_composition::Nested) -> Option<Result<Value>> {
    use crate::engine::composed_composition::{Composite, Nested};
    use Op::*;
    let op = Op::lookup(name)?;
    // tile_to_mma_shape of a nested composed layout is not modelled: a type error.
    let wrap = keeps_the_swizzle(op) && op != TileToMmaShape;
    if !wrap && !answered_by_the_layout(op) {
        return None;
    }
    let mut inner = args.to_vec();
    inner[0] = from_composite(n.inner.clone());
    Some(match super::call(name, &inner, true) {
        Ok(v) if wrap => match composite(&v) {
            Some(Composite::Plain(layout)) => {
                Ok(Value::Atom(AtomValue::Composed(ComposedLayout { swizzle: n.swizzle, offset: n.offset, layout })))
            }
            Some(inner) => {
                Ok(Value::Atom(AtomValue::Nested(Box::new(Nested { swizzle: n.swizzle, offset: n.offset, inner }))))
            }
            None => Err(Error::Type(format!("{op} of {n}: the inner result is {}", v.kind()))),
        },
        other => other,
    })
}

/// What `warp_access_offsets` gives: the instruction, the width, the offsets and (cp.async) the
/// destination's offsets.
pub type AccessOffsets = (warp_access::Space, i64, Vec<i64>, Option<Vec<i64>>);

/// The arguments of `warp_access(SPACE, ELEM_BYTES, VECTOR_BYTES, DATA, THREADS)` (and of
/// `warp_access(cp_async[_cg], ELEM_BYTES, VECTOR_BYTES, SRC, DST, THREADS)`): the instruction,
/// the vector width and the 32 threads' byte offsets (`engine::warp_access::lane_offsets`; for
/// cp.async those of the source, then those of the destination).
pub fn warp_access_offsets(args: &[Value]) -> Result<AccessOffsets> {
    let n = Op::WarpAccess.name();
    let space = match &args[0] {
        Value::Atom(AtomValue::Name(s)) => warp_access::Space::parse(s),
        _ => None,
    }
    .ok_or_else(|| {
        Error::Type(format!(
            "{n} expects one of {} first, found {}",
            warp_access::Space::names().collect::<Vec<_>>().join(", "),
            args[0]
        ))
    })?;
    let copy = matches!(space, warp_access::Space::CpAsync { .. });
    let want = if copy { 6 } else { 5 };
    if args.len() != want {
        return Err(Error::Type(format!(
            "{n}({}, ...) takes {want} arguments{}, found {}",
            space.name(),
            if copy { " (SRC and DST layouts)" } else { "" },
            args.len()
        )));
    }
    let elem = args[1].to_int()?.value;
    let vector = args[2].to_int()?.value;
    fn data(v: &Value) -> Result<warp_access::Data<'_>> {
        match v {
            Value::Layout(l) => Ok(warp_access::Data::Plain(l)),
            Value::Atom(AtomValue::Composed(c)) => Ok(warp_access::Data::Swizzled(c)),
            other => Err(Error::Type(format!(
                "{} expects a layout or a swizzled layout as DATA, found {}",
                Op::WarpAccess.name(),
                other.kind()
            ))),
        }
    }
    let threads = args[want - 1].to_layout()?;
    let offsets = warp_access::lane_offsets(elem, vector, data(&args[3])?, &threads)?;
    let dst = if copy { Some(warp_access::lane_offsets(elem, vector, data(&args[4])?, &threads)?) } else { None };
    Ok((space, vector, offsets, dst))
}

/// `warp_access(SPACE, ELEM_BYTES, VECTOR_BYTES, DATA, THREADS)`: the sectors and requests of a
/// warp-wide global load, the wavefronts and bank conflicts of a shared load, store, ldmatrix or
/// stmatrix, or both for a cp.async (`engine::warp_access`).
pub fn warp_access(_: &Name, args: &[Value]) -> Result<Value> {
    let (space, vector, offsets, dst) = warp_access_offsets(args)?;
    Ok(Value::Atom(AtomValue::Access(match dst {
        Some(d) => warp_access::cost_copy(space, &offsets, &d, vector)?,
        None => warp_access::cost(space, &offsets, vector)?,
    })))
}

/// `mma_make_fragment_a/b(MMA, L)`: `ThrMMA::make_fragment_A/B` of the smem tensor
/// `make_tensor(make_smem_ptr(p), L)` (engine/make_fragment_a.rs); `L` a swizzled layout over
/// `smem_ptr_flag` (an smem tensor: CuTe's `static_assert(is_smem<TEngine>::value)`).
pub fn make_fragment_desc(which: char, name: &Name, args: &[Value]) -> Result<Value> {
    let f = name.base();
    let m = tiled_mma_arg(f, &args[0])?;
    let l =
        match &args[1] {
            Value::Atom(AtomValue::Composed(c)) if matches!(c.offset, crate::engine::swizzle::Offset::SmemPtr(_)) => {
                c.layout.clone()
            }
            other => return Err(Error::Rejected {
                condition:
                    "static_assert(is_smem<TEngine>::value, \"Expected SMEM Tensor to construct a UMMA Desc Tensor\")",
                detail: format!("{f} takes an smem layout (Sw o smem_ptr o L), found {}", other.kind()),
            }),
        };
    Ok(Value::Atom(AtomValue::DescTensor(crate::engine::make_fragment_a::make_fragment(m, which, &l)?)))
}

/// `as_position_independent_swizzle_tensor(L)`: of the shared-memory tensor
/// `make_tensor(make_smem_ptr(p), L)` for a layout over `smem_ptr_flag_bits<B>` (its swizzle moves
/// onto the pointer), `engine::as_position_independent_swizzle_tensor`; of a partition, of the
/// partition itself. Any other layout makes a counting tensor, which CuTe refuses.
pub fn as_position_independent_swizzle_tensor(_: &Name, args: &[Value]) -> Result<Value> {
    use crate::engine::swizzle::Offset;
    let t = match &args[0] {
        Value::Atom(AtomValue::Partition(p)) => p.clone(),
        Value::Atom(AtomValue::Composed(x)) => match x.offset {
            Offset::SmemPtr(bits) => partition::Partition {
                offset: crate::engine::Int::dy(0),
                layout: x.layout.clone(),
                over: partition::Over::SmemSwizzle(x.swizzle, bits),
            },
            _ => partition::Partition {
                offset: crate::engine::Int::dy(0),
                layout: x.layout.clone(),
                over: partition::Over::Composed(x.swizzle, x.offset),
            },
        },
        v => partition::Partition {
            offset: crate::engine::Int::dy(0),
            layout: v.to_layout()?,
            over: partition::Over::Counting,
        },
    };
    Ok(Value::Atom(AtomValue::Partition(
        crate::engine::as_position_independent_swizzle_tensor::as_position_independent_swizzle_tensor(&t)?,
    )))
}

#[cfg(test)]
mod tensor_fragment_tests {
    use crate::expr::eval::eval_str;
    use crate::expr::value::{AtomValue, Value};
    use proptest::prelude::*;

    proptest! {
        /// ThrMMA::partition_fragment_A is make_fragment_like of partition_A (mma_atom.hpp), and
        /// make_fragment_like of `Sw o O o L` is make_fragment_like(L) (swizzle_layout.hpp, from
        /// 3.5): the register fragment of a stage of the position-independent swizzle tensor is
        /// make_fragment_like of the layout_b of its partition (mma_partition_a, a separate
        /// operation), as many elements, each once (compact: cosize == size), for SM90 RS and SM80
        /// atoms, every GMMA swizzle atom, stage and thread.
        #[test]
        fn a_stages_fragment_is_the_compact_fragment_of_its_partition(
            major in prop::sample::select(vec!["K", "MN"]),
            sw in prop::sample::select(vec!["INTER", "SW32", "SW64", "SW128"]),
            stages in 1i64..4,
            k in 0i64..3,
            thread in 0i64..256,
            sm90 in any::<bool>(),
        ) {
            let k = k % stages;
            let (mma, threads) = if sm90 {
                ("make_tiled_mma(SM90_64x64x16_F16F16F16_RS<GMMA::Major::K,GMMA::Major::K>,make_layout((_2,_1,_1)))", 256)
            } else {
                ("make_tiled_mma(SM80_16x8x16_F16F16F16F16_TN,make_layout((_2,_2,_1)))", 128)
            };
            let thread = thread % threads;
            let stage = format!(
                "as_position_independent_swizzle_tensor(tile_to_shape(GMMA::Layout_{major}_{sw}_Atom<half_t>,(_128,_64,_{stages})))(_,_,{k})"
            );
            let frag = eval_str(&format!("mma_fragment_a({mma},{stage},{thread})")).unwrap().to_layout().unwrap();
            let part = eval_str(&format!("mma_partition_a({mma},{stage},{thread})")).unwrap();
            let Value::Atom(AtomValue::Partition(p)) = part else { panic!("{part}: not a tensor") };
            let like = eval_str(&format!("make_fragment_like({})", p.layout)).unwrap().to_layout().unwrap();
            prop_assert_eq!(&frag, &like);
            prop_assert_eq!(&frag.shape, &p.layout.shape);
            prop_assert_eq!(frag.cosize().unwrap(), frag.size().unwrap());
        }
    }

    #[test]
    fn a_descriptor_fragment_of_the_position_independent_tensor_is_a_typed_error() {
        let e = eval_str(
            "mma_fragment_b(make_tiled_mma(SM90_64x128x8_F32TF32TF32_RS_TN<>,make_layout((_2,_1,_1))),\
as_position_independent_swizzle_tensor(tile_to_shape(GMMA::Layout_MN_SW32_Atom<tfloat32_t>,(_128,_32,_7),(_2,_1,_3)))(_,_,0),5)",
        )
        .unwrap_err();
        assert!(e.to_string().contains("not modelled"), "{e}");
    }
}
