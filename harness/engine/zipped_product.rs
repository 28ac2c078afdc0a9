//! `zipped_product(A, tiler)` (layout.hpp).
//!
//! Definition (CuTe 4.2): `logical_product` followed by CuTe's `zip2_by` along the tiler (as for
//! `zipped_divide`): the tile parts of the multiplied modes are gathered into mode 0, their
//! repetition parts (then `A`'s untouched modes) into mode 1.
//!
//! Postconditions (checked by [`check_postconditions`]), with `P` CuTe's `logical_product(A, T)`:
//! 1. `P` satisfies the postconditions of `logical_product`.
//! 2. `R` is `P` regrouped by `zip2_by` along `T`.
//! 3. `size(R) == size(P)`.
//!
//! Sources: 1 inherits `logical_product`'s (CuTe's and ours, as cited there); 2 and 3 are CuTe's
//! [layout.hpp: `zipped_product := tile_unzip(logical_product(block, tiler), tiler)`].
//!
//! Fast path: the certificates of `logical_product` run inside the zipped computation; the
//! checked `logical_product` runs only when one does not apply.

use std::cell::Cell;

use super::error::Result;
use super::layout::Layout;
use super::logical_product::{logical_product, logical_product_unchecked, product_tiler};
use super::postcondition::{cite, Checked, Violation};
use super::runtime::{checks_on, deferred, Mode};
use super::tile::tile_unzip;
use super::tiler::Tiler;

/// `zipped_product(A, tiler)`: CuTe's whole computation (including `zip2_by`) runs before the
/// definition checks of `logical_product`.
pub fn zipped_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    let ok = Cell::new(true);
    let z = deferred(|| tile_unzip(&product_tiler(a, t, Mode::Certify(&ok))?, t))?;
    if !ok.get() && checks_on() {
        logical_product(a, t)?;
    }
    Ok(z)
}

/// Check the numbered postconditions of `zipped_product(A, tiler) == R`.
pub fn check_postconditions(a: &Layout, t: &Tiler, r: &Layout) -> Checked {
    let p = logical_product_unchecked(a, t)?;
    super::logical_product::check_postconditions(a, t, &p).map_err(|v| v.context("1: "))?;
    let want = tile_unzip(&p, t)?;
    if *r != want {
        return Err(Violation::cute(cite::ZIP, format!("2: {r} is not {p} regrouped along {t} ({want})")));
    }
    let (n, m) = (r.size()?.value, p.size()?.value);
    if n != m {
        return Err(Violation::cute(cite::ZIP, format!("3: size({r}) = {n} != size({p}) = {m}")));
    }
    Ok(())
}
