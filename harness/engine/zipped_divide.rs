//! `zipped_divide(A, tiler)` (layout.hpp).
//!
//! Definition (CuTe 4.2): `logical_divide` followed by CuTe's `zip2_by` along the tiler: for a
//! tuple tiler the tile parts of the divided modes are gathered into mode 0 and their rest parts
//! (then `A`'s untouched modes) into mode 1: `((t0,t1,..),(r0,r1,..,x,y))`. A mode selected by a
//! non-tuple tiler element must itself be rank 2 (so `_` on a leaf mode is refused, as CuTe
//! fails to compile it). For a non-tuple tiler the result is the logical divide itself.
//!
//! Postconditions (checked by [`check_postconditions`]), with `L` CuTe's `logical_divide(A, T)`:
//! 1. `L` satisfies the postconditions of `logical_divide` (so every element is where the divide
//!    puts it).
//! 2. `R` is `L` regrouped by `zip2_by` along `T`: the same sub-layouts, tile parts in mode 0 and
//!    rest parts then untouched modes in mode 1.
//! 3. `size(R) == size(L)`.
//!
//! Sources: 1 inherits `logical_divide`'s (CuTe's and ours, as cited there); 2 and 3 are CuTe's
//! [layout.hpp: `zipped_divide := tile_unzip(logical_divide(layout, tiler), tiler)`].
//!
//! Fast path: as for `logical_divide` (the certificates of `fast`), run once inside the zipped
//! computation; the checked `logical_divide` runs only when a certificate does not apply.

use std::cell::Cell;

use super::postcondition::{cite, Checked, Violation};
use super::error::Result;
use super::layout::Layout;
use super::logical_divide::{divide_tiler, logical_divide, logical_divide_unchecked};
use super::runtime::{checks_on, deferred, Mode};
use super::tile::tile_unzip;
use super::tiler::Tiler;

/// `zipped_divide(A, tiler)`.
///
/// CuTe's whole computation (including `zip2_by`, whose rank errors are compile-time errors) runs
/// before the definition checks of `logical_divide`.
pub fn zipped_divide(a: &Layout, t: &Tiler) -> Result<Layout> {
    let ok = Cell::new(true);
    let z = deferred(|| tile_unzip(&divide_tiler(a, t, Mode::Certify(&ok))?, t))?;
    if !ok.get() && checks_on() {
        logical_divide(a, t)?;
    }
    Ok(z)
}

/// CuTe's algorithm for `zipped_divide(A, tiler)` without the definition checks.
pub fn zipped_divide_unchecked(a: &Layout, t: &Tiler) -> Result<Layout> {
    tile_unzip(&logical_divide_unchecked(a, t)?, t)
}

/// Check the numbered postconditions of `zipped_divide(A, tiler) == R`.
pub fn check_postconditions(a: &Layout, t: &Tiler, r: &Layout) -> Checked {
    let l = logical_divide_unchecked(a, t)?;
    super::logical_divide::check_postconditions(a, t, &l).map_err(|v| v.context("1: "))?;
    let want = tile_unzip(&l, t)?;
    if *r != want {
        return Err(Violation::cute(cite::ZIP, format!("2: {r} is not {l} regrouped along {t} ({want})")));
    }
    let (n, m) = (r.size()?.value, l.size()?.value);
    if n != m {
        return Err(Violation::cute(cite::ZIP, format!("3: size({r}) = {n} != size({l}) = {m}")));
    }
    Ok(())
}
