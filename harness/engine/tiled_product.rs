//! `tiled_product(A, tiler)` (layout.hpp).
//!
//! Definition (CuTe 4.2): the zipped product with mode 1 unpacked: `((t0,t1,..),r0,r1,..)`.
//!
//! Postconditions (checked by [`check_postconditions`]), with `Z` CuTe's `zipped_product(A, T)`:
//! 1. `Z` satisfies the postconditions of `zipped_product`.
//! 2. `R` is `Z` with mode 1 unpacked: each unpacked mode of rank above 1 is replaced by its
//!    modes, a mode of rank 1 is kept whole (CuTe slices it with a single `_`).
//! 3. `R` and `Z` are the same function of the 1-D coordinate: `R(i) == Z(i)` for all `i`.
//!
//! Sources: 1 inherits `zipped_product`'s; 2 and 3 are CuTe's [layout.hpp: "Same as
//! zipped_product, but unpacks the second mode"].
//!
//! Before 3.4 ([`TILED_PRODUCT_UNPACKS_THE_RESULT_RANK`] off) CuTe sliced with as many `_` as the
//! tiler has modes (`repeat<rank(tile)>(_)`): a tiler of rank 1 keeps `Z` whole, and a tiler of
//! rank R > 1 whose `Z` has a second mode of another rank is "Mismatched Ranks"; 2 reads "unpacked"
//! that way.

use super::error::{Error, Result};
use super::layout::Layout;
use super::logical_product::logical_product_unchecked;
use super::postcondition::{Checked, Violation};
use super::release::TILED_PRODUCT_UNPACKS_THE_RESULT_RANK;
use super::tile::{check_unpacked, tile_unzip, unpack};
use super::tiler::Tiler;
use super::zipped_product::zipped_product;

/// `tiled_product(A, tiler)`.
pub fn tiled_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    unpack_by_release(&zipped_product(a, t)?, t)
}

/// The number of `_` CuTe 3.3 slices the zipped product's second mode with: `rank(tile)`.
fn tiler_rank(t: &Tiler) -> usize {
    match t {
        Tiler::Tuple(items) => items.len(),
        Tiler::Layout(b) => b.rank(),
        Tiler::Int(_) | Tiler::Underscore => 1,
    }
}

/// `Z(_, repeat<rank<1>(Z)>(_))`, before 3.4 `Z(_, repeat<rank(tile)>(_))`.
fn unpack_by_release(z: &Layout, t: &Tiler) -> Result<Layout> {
    if TILED_PRODUCT_UNPACKS_THE_RESULT_RANK.on() {
        return unpack(z, false);
    }
    match tiler_rank(t) {
        1 => Ok(z.clone()),
        r if z.mode(1)?.rank() == r => unpack(z, false),
        r => Err(Error::MismatchedRanks {
            detail: format!(
                "tiled_product slices {z}'s second mode of rank {} with {r} underscores (rank(tile))",
                z.mode(1)?.rank()
            ),
        }),
    }
}

/// Check the numbered postconditions of `tiled_product(A, tiler) == R`.
pub fn check_postconditions(a: &Layout, t: &Tiler, r: &Layout) -> Checked {
    let z = tile_unzip(&logical_product_unchecked(a, t)?, t)?;
    super::zipped_product::check_postconditions(a, t, &z).map_err(|v| v.context("1: "))?;
    if TILED_PRODUCT_UNPACKS_THE_RESULT_RANK.on() {
        return check_unpacked(&z, r, false);
    }
    let want = unpack_by_release(&z, t)?;
    if *r != want {
        return Err(Violation::cute(
            "layout.hpp (3.3): tiled_product is div(_, repeat<rank(tile)>(_))",
            format!("2: {r} is not {z} sliced so ({want})"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::{with_release, Release};
    use crate::test_util::{l, t};

    /// CuTe 3.3 (snapshots/versions/3.3.0.0/probes_agree.snap) against 3.4 and later.
    #[test]
    fn before_3_4_the_tiler_rank_slices() {
        let v33 = Release::new(3, 3, 0, 0);
        let cases = [
            ("3:5", "5", "(3,(5,1)):(5,(_1,15))", "(3,5,1):(5,_1,15)"),
            ("(_2,_3):(_3,_6)", "(_1)", "((_2),(_1,_3)):((_3),(_0,_6))", "((_2),_1,_3):((_3),_0,_6)"),
        ];
        for (a, tl, old, new) in cases {
            let (a, tl) = (l(a), t(tl));
            let r = with_release(v33, || tiled_product(&a, &tl)).unwrap();
            assert_eq!(r.to_string(), old);
            with_release(v33, || check_postconditions(&a, &tl, &r)).unwrap();
            assert_eq!(tiled_product(&a, &tl).unwrap().to_string(), new);
            assert!(check_postconditions(&a, &tl, &r).is_err(), "3.3's form is not 3.4's");
        }
        // A tuple tiler of rank 2 over a rank-3 block: 2 underscores against 3 modes.
        let (a, tl) = (l("((_3,_1),_4,_2):((_8,_0),_2,_1)"), t("(_4,2:2)"));
        let e = with_release(v33, || tiled_product(&a, &tl));
        assert!(matches!(e, Err(Error::MismatchedRanks { .. })), "{e:?}");
        assert_eq!(tiled_product(&a, &tl).unwrap().rank(), 4);
    }
}
