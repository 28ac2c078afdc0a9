//! `raked_product(A, B)` for layouts (layout.hpp).
//!
//! Definition (CuTe 4.2): with `R = max(rank A, rank B)`, both padded to rank `R` with `_1:_0`
//! modes, `P = logical_product(A', B')` (as whole layouts), and the result's mode `i` is
//! `(P1_i, A'_i)`, where `P1` is mode 1 of `P` (CuTe's `zip(P1, A')`): the copies of `A` are
//! interleaved ("raked") instead of kept in blocks.
//!
//! Postconditions (checked by [`check_postconditions`]):
//! 1. `rank(R) == max(rank A, rank B)` and each mode is rank 2 with `A`'s mode (padded) in
//!    position 1.
//! 2. As a function `R` equals `logical_product(A', B')` with the mode pairs regrouped: for every
//!    `i < size(A')`, `j < size(B')`, `R` at the coordinate made of `P1`'s and `A'`'s coordinates
//!    mode by mode equals `A'(i) + P1(j)`.
//!
//! Sources: CuTe's [layout.hpp: raked_product `@post rank(@a result) == cute::max(rank(@a block),
//! rank(@a tiler))`, and its defining code: zip of logical_product(block, tiler)'s mode 1 with the block].

use super::blocked_product::{block_raked, check_blocked};
use super::error::Result;
use super::layout::Layout;
use super::postcondition::Checked;

/// `raked_product(A, B)` for layouts.
pub fn raked_product(a: &Layout, b: &Layout) -> Result<Layout> {
    block_raked(a, b, true)
}

/// Check the numbered postconditions of `raked_product(A, B) == R`.
pub fn check_postconditions(a: &Layout, b: &Layout, r: &Layout) -> Checked {
    check_blocked(a, b, r, true)
}
