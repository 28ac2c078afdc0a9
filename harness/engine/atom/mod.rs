//! CuTe's atoms: MMA atoms (`MMA_Traits`), copy atoms (`Copy_Traits`, `Copy_Atom`), their
//! ownership tables, and the tilings built from them (`make_tiled_copy`, `make_tiled_mma`).
//!
//! Atoms are named exactly as CuTe's C++ spells them, so one text serves the engine and the
//! oracle's generated C++ alike.

pub mod copy;
pub mod lit;
pub mod mma;
pub mod name;
pub mod table;
pub mod tiled_copy;
pub mod tiled_mma;

pub use copy::{copy_atom, CopyAtom};
pub use mma::{mma_atom, mma_atom_names, MmaAtom};
pub use table::{atom_table, AtomTable, OperandTable};

use crate::engine::{Int, IntTuple, Layout, Result};

/// CuTe 4.2's `make_layout(shape)`: compact column-major strides, where a static `_1` extent gets
/// the stride `_0` and does not advance the running product (stride.hpp, `compact`).
pub fn make_layout(shape: &IntTuple) -> Result<Layout> {
    let mut acc = Int::st(1);
    let stride = shape.map_leaves(&mut |n| {
        if n.is_static_value(1) {
            return Ok(Int::st(0));
        }
        let here = acc;
        acc = acc.mul(n)?;
        Ok(here)
    })?;
    Ok(Layout { shape: shape.clone(), stride })
}
