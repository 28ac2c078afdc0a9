//! The layout engine: CuTe's integers, int tuples, layouts and the algebra on them.
//!
//! One module per CuTe operation (named as in CuTe); each module's doc gives the definition and
//! numbered postconditions, and `tests/properties.rs` checks every postcondition with proptest.

pub mod as_position_independent_swizzle_tensor;
pub mod atom;
pub mod blocked_product;
pub mod coalesce;
pub mod complement;
pub mod composed_composition;
pub mod composition;
pub mod coord_tensor;
pub mod dice;
pub mod equality;
pub mod error;
pub mod fast;
pub mod filter;
pub mod flat_divide;
pub mod flat_product;
pub mod gen;
pub mod get_tma_tensor;
pub mod group;
pub mod int;
pub mod int_tuple;
pub mod layout;
pub mod lazy_transform;
pub mod left_inverse;
pub mod local_partition;
pub mod local_tile;
pub mod logical_divide;
pub mod logical_product;
pub mod make_fragment_a;
pub mod make_fragment_like;
pub mod make_gmma_desc;
pub mod make_instr_desc;
pub mod make_umma_desc;
pub mod max_alignment;
pub mod max_common;
pub mod postcondition;
pub mod product_each;
pub mod raked_product;
pub mod release;
pub mod right_inverse;
pub(crate) mod runtime;
pub mod scaled_basis;
pub mod slice;
pub mod swizzle;
pub mod swizzle_slice;
pub mod tile;
pub mod tile_to_mma_shape;
pub mod tile_to_shape;
pub mod tiled_divide;
pub mod tiled_product;
pub mod tiler;
pub mod tma;
pub mod tma_im2col;
pub mod tma_sm100;
pub(crate) mod walk;
pub mod warp_access;
pub mod zipped_divide;
pub mod zipped_product;

pub use error::{Error, Result};
pub use int::Int;
pub use int_tuple::{IntTuple, Tup, View};
pub use layout::{print_layout, Layout};
pub use runtime::without_definition_checks;
pub use tiler::Tiler;

#[cfg(test)]
pub(crate) mod test_util;
