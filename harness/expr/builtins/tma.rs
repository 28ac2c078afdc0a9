//! The TMA operations (`engine::tma`): `make_tma_copy(OP, T, GMEM, SMEM[, CLUSTER])`,
//! `make_tma_copy(OP, T, GMEM, SMEM, TILER, CLUSTER)` and `make_tma_atom(OP, T, GMEM, SMEM,
//! TILER[, CLUSTER])`, CuTe's functions and overloads of the same names with
//! the global tensor written as its element type and layout, and the parts of the result CuTe's
//! host code computed: `tma_gbasis(X)` (`AuxParams::TmaGmemBasis`), `tma_g_stride(X)`
//! (`aux_params_.g_stride_`) and `tma_desc_args(X)` (what CuTe passed to `cuTensorMapEncodeTiled`).

use crate::engine::tma::{self, SmemLayout, TmaArgs, TmaOp};
use crate::engine::{Error, Result};
use crate::expr::op::Op;
use crate::expr::parse::Name;
use crate::expr::value::{AtomValue, TmaView, Value};

use super::algebra::to_tiler;

fn name_of<'a>(f: &str, v: &'a Value) -> Result<&'a str> {
    match v {
        Value::Atom(AtomValue::Name(n)) => Ok(n),
        other => Err(Error::Type(format!("{f} expects a TMA operation and a value type name, found {}", other.kind()))),
    }
}

/// The operands of `make_tma_copy` / `make_tma_atom`.
pub fn args_of(f: &str, args: &[Value], atom: bool) -> Result<TmaArgs> {
    let op_name = name_of(f, &args[0])?;
    let op = TmaOp::by_name(op_name)
        .ok_or_else(|| Error::Type(format!("{f}: {op_name} is not a TMA operation (SM90_TMA_LOAD, ...)")))?;
    // An operation newer than the modelled release (atom/since.rs: SM90_TMA_REDUCE_ADD from 3.5).
    crate::engine::atom::check_declared(op.name(), "not declared in this release")?;
    let val_type = name_of(f, &args[1])?.to_string();
    let gmem = args[2].to_layout().map_err(|_| Error::Type(format!("{f}: the gmem operand must be a layout")))?;
    let smem = match &args[3] {
        Value::Layout(l) => SmemLayout::Plain(l.clone()),
        Value::Atom(AtomValue::Composed(c)) => SmemLayout::Swizzled(c.clone()),
        other => return Err(Error::Type(format!("{f}: the smem operand must be a layout, found {}", other.kind()))),
    };
    // CuTe's overloads: make_tma_copy(op, g, s[, cluster]) and (op, g, s, tiler, cluster);
    // make_tma_atom(op, g, s, tiler[, cluster]).
    if atom && args.len() == 5 && !crate::engine::release::MAKE_TMA_ATOM_CLUSTER_DEFAULT.on() {
        return Err(Error::Rejected {
            condition: "no matching function for call to 'make_tma_atom'",
            detail: format!(
                "make_tma_atom takes a cluster size before CUTLASS 3.5.1 (modelled: {})",
                crate::engine::release::current()
            ),
        });
    }
    let (tiler, cluster) = match (atom, args.len()) {
        (false, 5) => (None, args.get(4)),
        _ => (args.get(4), args.get(5)),
    };
    let cta_tiler = tiler.map(to_tiler).transpose()?;
    let cluster = cluster.map(Value::to_int_tuple).transpose()?;
    Ok(TmaArgs { op, val_type, gmem, smem, cta_tiler, cluster })
}

/// The operands of `make_tma_atom_A/B_sm100` (7) and `make_tma_copy_A/B/C_sm100` (6):
/// `(OP, T, GMEM, SMEM, TILER, MMA[, CLUSTER_VMNK])`.
pub fn sm100_args_of(op: Op, args: &[Value]) -> Result<crate::engine::tma_sm100::Sm100Args> {
    use crate::engine::tma_sm100::{Operand, Sm100Args};
    let f = op.name();
    let base = args_of(f, &args[..4], false)?;
    let operand = match op {
        Op::MakeTmaAtomASm100 | Op::MakeTmaCopyASm100 => Operand::A,
        Op::MakeTmaAtomBSm100 | Op::MakeTmaCopyBSm100 => Operand::B,
        _ => Operand::C,
    };
    let tiler = to_tiler(&args[4])?;
    let mma = match &args[5] {
        Value::Atom(AtomValue::TiledMma(m)) => (**m).clone(),
        other => return Err(Error::Type(format!("{f} expects make_tiled_mma(...) sixth, found {}", other.kind()))),
    };
    let cluster = match args.get(6) {
        None => None,
        Some(Value::Layout(l)) => Some(l.shape.clone()),
        Some(v) => Some(v.to_int_tuple()?),
    };
    Ok(Sm100Args {
        op: base.op,
        val_type: base.val_type,
        gmem: base.gmem,
        smem: base.smem,
        operand,
        tiler,
        mma,
        cluster,
    })
}

/// `make_tma_atom_A/B_sm100(...)` (the Copy_Atom) and `make_tma_copy_A/B/C_sm100(...)` (the
/// TiledCopy).
pub fn make_sm100(op: Op, _: &Name, args: &[Value]) -> Result<Value> {
    let a = sm100_args_of(op, args)?;
    let atom = matches!(op, Op::MakeTmaAtomASm100 | Op::MakeTmaAtomBSm100);
    Ok(if atom {
        Value::Atom(AtomValue::Tma(Box::new(crate::engine::tma_sm100::make_tma_atom_sm100(&a)?), TmaView::Atom))
    } else {
        Value::Atom(AtomValue::Tma(Box::new(crate::engine::tma_sm100::make_tma_copy_sm100(&a)?), TmaView::TiledCopy))
    })
}

/// `make_tma_copy(...)`: the TiledCopy.
pub fn make_tma_copy(name: &Name, args: &[Value]) -> Result<Value> {
    let a = args_of(name.base(), args, false)?;
    Ok(Value::Atom(AtomValue::Tma(Box::new(tma::make_tma_copy(&a)?), TmaView::TiledCopy)))
}

/// `make_tma_atom(...)`: the Copy_Atom (the same host computation, the multicast count
/// `size(cluster)`).
pub fn make_tma_atom(name: &Name, args: &[Value]) -> Result<Value> {
    // copy_traits_sm90_tma.hpp declares make_tma_atom from 3.4 (MAKE_TMA_ATOM_DECLARED).
    if !crate::engine::release::MAKE_TMA_ATOM_DECLARED.on() {
        return Err(Error::Rejected {
            condition: "'make_tma_atom' was not declared in this scope",
            detail: format!("make_tma_atom is new in CUTLASS 3.4 (modelled: {})", crate::engine::release::current()),
        });
    }
    let a = args_of(name.base(), args, true)?;
    Ok(Value::Atom(AtomValue::Tma(Box::new(tma::make_tma_atom(&a)?), TmaView::Atom)))
}

fn the_tma<'a>(f: &str, v: &'a Value) -> Result<&'a tma::TmaCopy> {
    match v {
        Value::Atom(AtomValue::Tma(t, _)) => Ok(t),
        other => {
            Err(Error::Type(format!("{f} expects make_tma_copy(...) or make_tma_atom(...), found {}", other.kind())))
        }
    }
}

/// `tma_gbasis(X)`: `AuxParams::TmaGmemBasis{}`.
pub fn tma_gbasis(name: &Name, args: &[Value]) -> Result<Value> {
    if !crate::engine::release::TMA_GMEM_BASIS_TYPE.on() {
        return Err(Error::Rejected {
            condition: "'TmaGmemBasis' in 'using AuxParams = struct cute::AuxTmaParams<...>' does not name a type",
            detail: format!(
                "AuxTmaParams has no TmaGmemBasis before CUTLASS 3.4 (modelled: {})",
                crate::engine::release::current()
            ),
        });
    }
    Ok(Value::Atom(AtomValue::BasisLayout(the_tma(name.base(), &args[0])?.gbasis.clone())))
}

/// `tma_g_stride(X)`: `aux_params_.g_stride_`.
pub fn tma_g_stride(name: &Name, args: &[Value]) -> Result<Value> {
    Ok(Value::from_basis(the_tma(name.base(), &args[0])?.g_stride.clone()))
}

/// `get_tma_tensor(X, shape)`: `X.get_tma_tensor(shape)` (engine/get_tma_tensor.rs).
pub fn get_tma_tensor(name: &Name, args: &[Value]) -> Result<Value> {
    let t = the_tma(name.base(), &args[0])?;
    let shape = args[1].to_int_tuple()?;
    Ok(Value::Atom(AtomValue::CoordTensor(crate::engine::get_tma_tensor::get_tma_tensor(t, &shape)?)))
}

/// The operands of `tma_im2col_desc_args` (`make_im2col_tma_copy`'s).
pub fn im2col_args_of(f: &str, args: &[Value]) -> Result<crate::engine::tma_im2col::Im2colArgs> {
    use crate::engine::tma_im2col::{Im2colArgs, Im2colOp};
    let op_name = name_of(f, &args[0])?;
    let op = Im2colOp::by_name(op_name).ok_or_else(|| {
        Error::Type(format!(
            "{f}: {op_name} is not an SM90 im2col TMA (SM90_TMA_LOAD_IM2COL[_MULTICAST], SM90_TMA_STORE_IM2COL)"
        ))
    })?;
    let val_type = name_of(f, &args[1])?.to_string();
    let gmem = args[2].to_layout().map_err(|_| Error::Type(format!("{f}: the gmem operand must be a layout")))?;
    let smem = match &args[3] {
        Value::Layout(l) => SmemLayout::Plain(l.clone()),
        Value::Atom(AtomValue::Composed(c)) => SmemLayout::Swizzled(c.clone()),
        other => return Err(Error::Type(format!("{f}: the smem operand must be a layout, found {}", other.kind()))),
    };
    // CuTe's overloads: (op, t, s[, tiler[, multicast]]) and the same followed by the seven
    // offsets (lower_corner_whd, upper_corner_whd, lower_padding_whd, upper_padding_whd,
    // stride_whd, lower_srt, stride_srt).
    let (head, offsets) = match args.len() {
        n @ 4..=6 => (n, None),
        n @ 11..=13 => (n - 7, Some(&args[n - 7..])),
        n => {
            return Err(Error::Type(format!("{f}: {n} operands; CuTe's overloads take 4 to 6, or those and 7 offsets")))
        }
    };
    let cta_tiler = if head > 4 { Some(to_tiler(&args[4])?) } else { None };
    let multicast = if head > 5 { Some(args[5].to_int()?) } else { None };
    let offsets = match offsets {
        None => None,
        Some(o) => {
            let v = |k: usize| -> Result<Vec<crate::engine::Int>> { Ok(o[k].to_int_tuple()?.leaf_iter().collect()) };
            Some(crate::engine::tma_im2col::Im2colOffsets {
                lower_corner: v(0)?,
                upper_corner: v(1)?,
                lower_padding: v(2)?,
                upper_padding: v(3)?,
                stride_whd: v(4)?,
                lower_srt: v(5)?,
                stride_srt: v(6)?,
            })
        }
    };
    Ok(Im2colArgs { op, val_type, gmem, smem, cta_tiler, multicast, offsets })
}

/// `tma_im2col_desc_args(...)`: the arguments of `cuTensorMapEncodeIm2col`.
pub fn tma_im2col_desc_args(name: &Name, args: &[Value]) -> Result<Value> {
    let a = im2col_args_of(name.base(), args)?;
    let d = crate::engine::tma_im2col::im2col_descriptor(&a)?;
    Ok(Value::Atom(AtomValue::Im2colDesc(Box::new(d))))
}

/// `tma_desc_args(X)`: the arguments of `cuTensorMapEncodeTiled`.
pub fn tma_desc_args(name: &Name, args: &[Value]) -> Result<Value> {
    Ok(Value::Atom(AtomValue::TmaDesc(Box::new(the_tma(name.base(), &args[0])?.desc.clone()))))
}
