//! The shared-memory matrix descriptors CuTe's host code computes (engine::make_gmma_desc,
//! engine::make_umma_desc):
//!
//! - `make_gmma_desc<GMMA::Major::K>(T, L)`: `GMMA::make_gmma_desc<GMMA::Major::K>` of
//!   `make_tensor(make_smem_ptr(T*), L)`, printed by CuTe's `print(GmmaDescriptor)`;
//! - `make_umma_desc<UMMA::Major::MN>(T, L)`: `UMMA::make_umma_desc<UMMA::Major::MN>` of the same
//!   tensor, its `SmemDescriptor` printed in the format engine::make_umma_desc documents.
//!
//! `L` is a plain layout or one over the shared-memory marker (`UMMA::Layout_K_SW128_Atom<T>`
//! tiled by `tile_to_shape` / `tile_to_mma_shape`, a mode of one by `layout(X,0)`, ...). Both
//! print the line CuTe's host `cast_smem_ptr_to_uint` prints first (its start address is 0 on the
//! host).

use crate::engine::make_gmma_desc::{make_gmma_desc, Major, OnHost, SmemTensor};
use crate::engine::make_umma_desc::make_umma_desc;
use crate::engine::{Error, Result};
use crate::expr::op::Op;
use crate::expr::parse::{Name, TemplateArg};
use crate::expr::value::{AtomValue, Value};

/// The namespace of an operation's `Major` (`GMMA`, `UMMA`).
fn namespace(op: Op) -> &'static str {
    if op == Op::MakeGmmaDesc {
        "GMMA"
    } else {
        "UMMA"
    }
}

/// The operands of `make_gmma_desc<M>(T, L)` / `make_umma_desc<M>(T, L)`: the major and the tensor.
pub fn operands(op: Op, name: &Name, args: &[Value]) -> Result<(Major, SmemTensor)> {
    let ns = namespace(op);
    let major = match name.targs.as_deref() {
        Some([TemplateArg::Name(m)]) => Major::parse(&m.to_string(), ns),
        _ => None,
    }
    .ok_or_else(|| Error::Type(format!("{op} takes <{ns}::Major::K> or <{ns}::Major::MN>, got {name}")))?;
    let Some(Value::Atom(AtomValue::Name(t))) = args.first() else {
        return Err(Error::Type(format!("{op} expects a value type first (half_t, float, ...)")));
    };
    let tensor = match args.get(1) {
        Some(Value::Layout(l)) => SmemTensor::plain(t, l.clone())?,
        Some(Value::Atom(AtomValue::Composed(c))) => SmemTensor::composed(t, c)?,
        other => {
            return Err(Error::Type(format!(
                "{op} expects a shared-memory layout second, found {}",
                other.map_or("nothing", Value::kind)
            )))
        }
    };
    Ok((major, tensor))
}

/// `make_instr_desc(ATOM)`: `MMA_Atom<ATOM>{}.idesc_` (engine::make_instr_desc).
pub fn make_instr_desc(_: &Name, args: &[Value]) -> Result<Value> {
    let Some(Value::Atom(AtomValue::Name(atom))) = args.first() else {
        return Err(Error::Type("make_instr_desc expects an SM100 UMMA atom name".to_string()));
    };
    Ok(Value::Atom(AtomValue::InstrDesc(crate::engine::make_instr_desc::make_instr_desc(atom)?)))
}

/// `make_gmma_desc<M>(T, L)` and `make_umma_desc<M>(T, L)`.
pub fn make_desc(op: Op, name: &Name, args: &[Value]) -> Result<Value> {
    let since = crate::engine::atom::recast::UMMA_SMEM_ATOMS_SINCE;
    if op == Op::MakeUmmaDesc && !crate::engine::release::since(since) {
        let r = crate::engine::release::current();
        // 'UMMA' is not declared: nothing of the call compiles.
        return Err(Error::Rejected {
            condition: "'UMMA' has not been declared",
            detail: format!("make_umma_desc first appears in CUTLASS {since} (modelled: {r})"),
        });
    }
    let (major, tensor) = operands(op, name, args)?;
    Ok(Value::Atom(match op {
        Op::MakeGmmaDesc => AtomValue::GmmaDesc(OnHost(make_gmma_desc(major, &tensor)?.desc)),
        _ => AtomValue::UmmaDesc(OnHost(make_umma_desc(major, &tensor)?.desc)),
    }))
}
