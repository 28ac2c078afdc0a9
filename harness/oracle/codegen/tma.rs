//! C++ for the TMA operations (see `expr/builtins/tma.rs`):
//!
//! - `make_tma_copy(OP, T, GMEM, SMEM[, TILER[, CLUSTER]])` is CuTe's `make_tma_copy(OP{},
//!   make_tensor(make_gmem_ptr(reinterpret_cast<T*>(std::uintptr_t(65536))), GMEM), SMEM[, TILER[,
//!   CLUSTER]])` (a 16-byte aligned address CuTe never reads: the driver records the
//!   `cuTensorMapEncodeTiled` call instead of making a descriptor), and `make_tma_atom` likewise;
//! - `tma_gbasis(X)` is `typename decltype(X)::AuxParams::TmaGmemBasis{}`, `tma_g_stride(X)` is
//!   `X.aux_params_.g_stride_`, and `tma_desc_args(X)` the arguments the driver recorded while X was
//!   made (`cutecheck::tma_encode_args()`, printed by the driver's `cutecheck::print`).

use crate::engine::atom::copy;
use crate::engine::tma::TmaOp;
use crate::expr::op::Op;
use crate::expr::parse::{Expr, Name};

use super::{err, CodegenError, Cpp, Gen, Kind, Role};

fn name_text(e: &Expr) -> Option<String> {
    match e {
        Expr::Call { name, called: false, .. } => Some(name.to_string()),
        _ => None,
    }
}

/// The operands `make_tma_copy`/`make_tma_atom` and the SM100 makers share, leading theirs: the
/// TMA operation by name, the value type, the gmem and smem layouts.
struct Leading {
    tma_op: TmaOp,
    t: String,
    gmem: Cpp,
    smem: Cpp,
}

impl Leading {
    /// `args[0..4]`, each refused as the makers refuse it (`op_expected`: the operation's refusal,
    /// which names the operations the maker takes).
    fn of(g: &mut Gen, args: &[Expr], op_expected: &str) -> Result<Leading, CodegenError> {
        let Some(tma_op) = name_text(&args[0]).and_then(|n| TmaOp::by_name(&n)) else {
            return err(&args[0], op_expected);
        };
        // A type the tables know, TMA's format or not (CuTe refuses the others: "Unknown TMA Format!").
        let Some(t) = name_text(&args[1]).filter(|t| copy::type_bits(t).is_ok()) else {
            return err(&args[1], "expected a value type");
        };
        let gmem = g.layout(&args[2])?;
        let smem = g.layout(&args[3])?;
        Ok(Leading { tma_op, t, gmem, smem })
    }

    /// `OP_NAME(TMA_OP{}, make_tensor(make_gmem_ptr(...), GMEM), SMEM`, the call left open.
    fn call(&self, op: Op) -> String {
        format!(
            "{}({}{{}}, make_tensor(make_gmem_ptr(reinterpret_cast<{}*>(std::uintptr_t(65536))), {}), {}",
            op.name(),
            self.tma_op.name(),
            self.t,
            self.gmem.code,
            self.smem.code
        )
    }
}

/// `make_tma_copy(...)` / `make_tma_atom(...)`.
pub fn make(op: Op, g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let lead = Leading::of(g, args, "expected an SM90 TMA operation (SM90_TMA_LOAD, ...)")?;
    let mut code = lead.call(op);
    if let Some(tiler) = args.get(4) {
        code.push_str(", ");
        code.push_str(&g.tiler(tiler)?.code);
    }
    if let Some(cluster) = args.get(5) {
        code.push_str(", ");
        code.push_str(&g.int_like(cluster, Role::Shape)?.code);
    }
    code.push(')');
    Ok(Cpp::new(code, Kind::Other))
}

/// `make_tma_atom_A/B_sm100(OP, T, GMEM, SMEM, TILER, MMA, CLUSTER)` and
/// `make_tma_copy_A/B/C_sm100(OP, T, GMEM, SMEM, TILER, MMA)`: CuTe's functions of the same names
/// over `make_tensor(make_gmem_ptr(...), GMEM)` and `make_tiled_mma(...)`.
pub fn make_sm100(op: Op, g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let lead = Leading::of(g, args, "expected a TMA operation (SM90_TMA_LOAD, SM100_TMA_2SM_LOAD, ...)")?;
    let tiler = g.tiler(&args[4])?;
    let mma = match &args[5] {
        Expr::Call { name, called: true, .. } if Op::lookup(name) == Some(Op::MakeTiledMma) => {
            g.emit(&args[5], Role::Shape)?.code
        }
        other => return err(other, "expected make_tiled_mma(...)"),
    };
    let mut code = format!("{}, {}, {mma}", lead.call(op), tiler.code);
    if let Some(cluster) = args.get(6) {
        code.push_str(", ");
        code.push_str(&g.emit(cluster, Role::Shape)?.code);
    }
    code.push(')');
    Ok(Cpp::new(code, Kind::Other))
}

/// `tma_im2col_desc_args(OP, T, GMEM, SMEM[, TILER[, MULTICAST]])`: CuTe's
/// `make_im2col_tma_copy(OP{}, make_tensor(make_gmem_ptr(...), GMEM), SMEM[, TILER[, MULTICAST]])`
/// made, then the arguments the driver recorded (`cutecheck::im2col_encode_args()`).
pub fn im2col_desc_args(g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    use crate::engine::tma_im2col::Im2colOp;
    let Some(op) = name_text(&args[0]).and_then(|n| Im2colOp::by_name(&n)) else {
        return err(&args[0], "expected SM90_TMA_LOAD_IM2COL, SM90_TMA_LOAD_IM2COL_MULTICAST or SM90_TMA_STORE_IM2COL");
    };
    let Some(t) = name_text(&args[1]).filter(|t| copy::type_bits(t).is_ok()) else {
        return err(&args[1], "expected a value type");
    };
    let gmem = g.layout(&args[2])?;
    let smem = g.layout(&args[3])?;
    let mut code = format!(
        "make_im2col_tma_copy({}{{}}, make_tensor(make_gmem_ptr(reinterpret_cast<{t}*>(std::uintptr_t(65536))), {}), {}",
        op.name(),
        gmem.code,
        smem.code
    );
    let head = if args.len() >= 11 { args.len() - 7 } else { args.len() };
    if head > 4 {
        code.push_str(", ");
        code.push_str(&g.tiler(&args[4])?.code);
    }
    if head > 5 {
        code.push_str(", ");
        code.push_str(&g.int_like(&args[5], Role::Shape)?.code);
    }
    // The seven convolution offsets, each a tuple of one value per spatial mode.
    for o in &args[head..] {
        code.push_str(", ");
        code.push_str(&g.int_like(o, Role::Shape)?.code);
    }
    code.push(')');
    Ok(Cpp::new(
        format!(
            "[&] {{ auto cutecheck_tma = {code}; (void)cutecheck_tma; return cutecheck::im2col_encode_args(); }}()"
        ),
        Kind::Other,
    ))
}

/// The TMA operand of `tma_gbasis` / `tma_g_stride` / `tma_desc_args`.
fn tma_operand(g: &mut Gen, e: &Expr) -> Result<String, CodegenError> {
    match e {
        Expr::Call { name, called: true, .. }
            if matches!(
                Op::lookup(name),
                Some(
                    Op::MakeTmaCopy
                        | Op::MakeTmaAtom
                        | Op::MakeTmaAtomASm100
                        | Op::MakeTmaAtomBSm100
                        | Op::MakeTmaCopyASm100
                        | Op::MakeTmaCopyBSm100
                        | Op::MakeTmaCopyCSm100
                ),
            ) =>
        {
            Ok(g.emit(e, Role::Shape)?.code)
        }
        _ => err(e, "expected make_tma_copy(...) or make_tma_atom(...)"),
    }
}

/// `tma_gbasis(X)`, `tma_g_stride(X)`, `tma_desc_args(X)`.
pub fn part(op: Op, g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let x = tma_operand(g, &args[0])?;
    let code = match op {
        Op::TmaGbasis => {
            format!("[&] {{ auto cutecheck_tma = {x}; return typename decltype(cutecheck_tma)::AuxParams::TmaGmemBasis{{}}; }}()")
        }
        Op::TmaGStride => format!("[&] {{ auto cutecheck_tma = {x}; return cutecheck_tma.aux_params_.g_stride_; }}()"),
        _ => format!("[&] {{ auto cutecheck_tma = {x}; (void)cutecheck_tma; return cutecheck::tma_encode_args(); }}()"),
    };
    Ok(Cpp::new(code, if op == Op::TmaGbasis { Kind::Layout } else { Kind::Other }))
}

/// `get_tma_tensor(X, SHAPE)`: `X.get_tma_tensor(SHAPE)`, a tensor over an arithmetic-tuple
/// iterator (printed `ArithTuple(_0,_0) o L`; no address).
pub fn get_tma_tensor(g: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let x = tma_operand(g, &args[0])?;
    let shape = g.int_like(&args[1], Role::Shape)?;
    Ok(Cpp::new(
        format!("[&] {{ auto cutecheck_tma = {x}; return cutecheck_tma.get_tma_tensor({}); }}()", shape.code),
        Kind::Tensor,
    ))
}
