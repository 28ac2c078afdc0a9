//! `flat_product(A, tiler)` (layout.hpp).
//!
//! Definition (CuTe 4.2): the zipped product with both modes unpacked: `(t0,t1,..,r0,r1,..)`.
//!
//! Postconditions (checked by [`check_postconditions`]), with `Z` CuTe's `zipped_product(A, T)`:
//! 1. `Z` satisfies the postconditions of `zipped_product`.
//! 2. `R` is `Z` with modes 0 and 1 unpacked: each unpacked mode of rank above 1 is replaced by its
//!    modes, a mode of rank 1 is kept whole (CuTe slices it with a single `_`).
//! 3. `R` and `Z` are the same function of the 1-D coordinate: `R(i) == Z(i)` for all `i`.
//!
//! Sources: 1 inherits `zipped_product`'s; 2 and 3 are CuTe's [layout.hpp: "Same as
//! zipped_product, but unpacks both modes"].

use super::error::Result;
use super::layout::Layout;
use super::logical_product::logical_product_unchecked;
use super::postcondition::Checked;
use super::tile::{check_unpacked, tile_unzip, unpack};
use super::tiler::Tiler;
use super::zipped_product::zipped_product;

/// `flat_product(A, tiler)`.
pub fn flat_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    // layout.hpp declares flat_product from 3.4 ([`crate::release::FLAT_PRODUCT_DECLARED`]).
    if !crate::release::FLAT_PRODUCT_DECLARED.on() {
        return Err(crate::Error::Rejected {
            condition: "'flat_product' was not declared in this scope",
            detail: format!("flat_product is new in CUTLASS 3.4 (modelled: {})", crate::release::current()),
        });
    }
    unpack(&zipped_product(a, t)?, true)
}

/// Check the numbered postconditions of `flat_product(A, tiler) == R`.
pub fn check_postconditions(a: &Layout, t: &Tiler, r: &Layout) -> Checked {
    let z = tile_unzip(&logical_product_unchecked(a, t)?, t)?;
    super::zipped_product::check_postconditions(a, t, &z).map_err(|v| v.context("1: "))?;
    check_unpacked(&z, r, true)
}
