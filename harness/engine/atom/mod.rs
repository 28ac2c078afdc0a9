//! CuTe's atoms: MMA atoms (`MMA_Traits`), copy atoms (`Copy_Traits`, `Copy_Atom`), their
//! ownership tables, and the tilings built from them (`make_tiled_copy`, `make_tiled_mma`).
//!
//! Atoms are named exactly as CuTe's C++ spells them, so one text serves the engine and the
//! oracle's generated C++ alike.

pub mod copy;
pub mod lit;
pub mod mma;
pub mod name;
pub mod partition;
pub mod recast;
pub mod table;
pub mod tiled_copy;
pub mod tiled_mma;

pub use copy::{copy_atom, CopyAtom};
pub use mma::{mma_atom, mma_atom_names, MmaAtom};
pub use table::{atom_table, AtomTable, OperandTable};

