//! CuTe's atoms: MMA atoms (`MMA_Traits`), copy atoms (`Copy_Traits`, `Copy_Atom`), their
//! ownership tables, and the tilings built from them (`make_tiled_copy`, `make_tiled_mma`).
//!
//! Atoms are named exactly as CuTe's C++ spells them, so one text serves the engine and the
//! oracle's generated C++ alike.
//!
//! - [`mma`]: `MMA_Traits` of every SM61/70/75/80/89/90 warp-level atom, the SM90 GMMA families
//!   (base header N, SS and RS, both majors) and `UniversalFMA`.
//! - [`umma`]: the SM100 UMMA atoms (F16/BF16, TF32, S8, F8F6F4, MXF8F6F4, MXF4; SS and TS; one
//!   SM and 2x1SM), with the refusals of their traits and, apart, of `MMA_Atom` ([`mma::check_atom`]).
//! - [`sm120`]: the SM120 F8F6F4 and block-scaled warp-level atoms.
//! - [`tmem`]: the SM100 tensor-memory copy operations (`SM100_TMEM_LOAD/STORE_...`).
//! - [`copy`]: `Copy_Traits` (bits) and `Copy_Atom<Op,T>` (values) for UniversalCopy, cp.async,
//!   ldmatrix/movmatrix/stmatrix and the auto-vectorizing copies.
//! - [`table`]: (thread, value) -> (row, col) ownership tables (`cutecheck atom-table`).
//! - [`tiled_copy`], [`tiled_mma`]: `make_tiled_copy[_A/B/C]`, `make_tiled_mma` and their TV layouts.
//! - [`partition`]: per-thread partitions (`partition_A/B/C`, `partition_S/D`, `partition_shape_X`).
//! - [`recast`]: `upcast`/`downcast` of layouts and swizzles, GMMA shared-memory layout atoms.
//! - [`definition`]: what an MMA atom, a copy atom and a tiled TV layout must satisfy (refused otherwise).
//! - [`lit`], [`name`]: layout literals for the tables; atom names split into base and arguments.

pub mod copy;
pub mod definition;
pub mod lit;
pub mod mma;
pub mod name;
pub mod partition;
pub mod recast;
pub mod since;
pub mod sm120;
pub mod table;
pub mod tiled_copy;
pub mod tiled_mma;
pub mod tmem;
pub mod umma;

pub use copy::{copy_atom, CopyAtom};

/// Refuse an atom the modelled release does not have yet; the releases come from
/// [`since::SINCE`]. CuTe refuses with "'NAME' was not declared in this scope" when the operation
/// itself is missing and, for an MMA operation declared without traits, with the static_assert
/// `condition` names ("MMA_Traits not implemented for this MMA_Operation.").
pub fn check_declared(base: &str, condition: &'static str) -> crate::Result<()> {
    // The release tables know a struct by its own name, without its namespace.
    let base = base.rsplit("::").next().unwrap_or(base);
    match since::SINCE.iter().find(|(n, _)| *n == base) {
        Some((_, first)) if !crate::release::since(*first) => Err(crate::Error::Rejected {
            condition,
            detail: format!("{base} first appears in CUTLASS {first} (modelled: {})", crate::release::current()),
        }),
        _ => Ok(()),
    }
}
pub use mma::{mma_atom, mma_atom_names, MmaAtom};
pub use table::{atom_table, AtomTable, OperandTable};
