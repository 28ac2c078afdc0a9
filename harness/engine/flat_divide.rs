//! `flat_divide(A, tiler)` (layout.hpp).
//!
//! Definition (CuTe 4.2): the zipped result with both modes unpacked: `(t0,t1,..,r0,r1,..)`.
//!
//! Postconditions (checked by [`check_postconditions`]), with `Z` CuTe's `zipped_divide(A, T)`:
//! 1. `Z` satisfies the postconditions of `zipped_divide`.
//! 2. `R` is `Z` with modes 0 and 1 unpacked: each unpacked mode of rank above 1 is replaced by its
//!    modes, a mode of rank 1 is kept whole (CuTe slices it with a single `_`).
//! 3. `R` and `Z` are the same function of the 1-D coordinate: `R(i) == Z(i)` for all `i`.
//!
//! Sources: 1 inherits `zipped_divide`'s; 2 and 3 are CuTe's [layout.hpp: "Same as zipped_divide,
//! but unpacks both modes"].
//!
//! A printed result judged without the engine's own zipped result ([`check_printed`], what
//! triage uses for a layout tiler): CuTe computes `result(repeat<R0>(_), repeat<R1>(_))` on
//! `result = zipped_divide(A, B)`, which for a layout (or integer) `B` is the logical divide
//! `(tile, rest)` itself [layout.hpp: `tile_unzip` along a tiler that is not a tuple leaves the
//! layout as it is]. The flat text does not say where the tile ends, so the check regroups every
//! split of R's modes into `(tile, rest)` that this slice can have produced (a part of one mode
//! is that mode kept whole, so it has rank 1; a part of several modes is their tuple) and whose
//! tile is compatible with `B` [CuTe: logical_divide.cpp `ASSERT_TRUE(compatible(layoutB,
//! layout<0>(layoutR)))`]; R satisfies the definition when one such regrouping satisfies
//! `logical_divide`'s postconditions.

use super::error::Result;
use super::int_tuple::compatible;
use super::layout::Layout;
use super::postcondition::{cite, Checked, Violation};
use super::tile::{check_unpacked, unpack};
use super::tiler::Tiler;
use super::zipped_divide::{zipped_divide, zipped_divide_unchecked};

/// `flat_divide(A, tiler)`.
pub fn flat_divide(a: &Layout, t: &Tiler) -> Result<Layout> {
    unpack(&zipped_divide(a, t)?, true)
}

/// Check the numbered postconditions of `flat_divide(A, tiler) == R`.
pub fn check_postconditions(a: &Layout, t: &Tiler, r: &Layout) -> Checked {
    let z = zipped_divide_unchecked(a, t)?;
    super::zipped_divide::check_postconditions(a, t, &z).map_err(|v| v.context("1: "))?;
    check_unpacked(&z, r, true)
}

/// The `(tile, rest)` layouts `flat_divide(A, B)` for a layout `B` can have been unpacked from to
/// give `r` (see the module doc): for each split of `r`'s modes, a part of one mode is that mode
/// when its rank is 1 (`_` keeps a mode of rank 1 whole; a mode of higher rank is unpacked), a part
/// of several modes their tuple; only splits whose tile is compatible with `B`.
pub fn regroupings(b: &Layout, r: &Layout) -> Vec<Layout> {
    let m = r.modes();
    let part = |p: &[Layout]| match p {
        [one] if one.rank() == 1 => Some(one.clone()),
        [_] => None,
        _ => Some(Layout::concat(p)),
    };
    (1..m.len())
        .filter_map(|k| Some((part(&m[..k])?, part(&m[k..])?)))
        .filter(|(tile, _)| compatible(&b.shape, &tile.shape))
        .map(|(tile, rest)| Layout::concat(&[tile, rest]))
        .collect()
}

/// Check a printed `flat_divide(A, B) == R` for a layout (or integer) tiler `B` against the
/// definition, without the engine's own result: `Ok` when one of its [`regroupings`] satisfies
/// `logical_divide`'s postconditions; else the violation of the best one (a condition of ours
/// before one of CuTe's), or, when there is none, a violation of CuTe's compatibility condition.
pub fn check_printed(a: &Layout, b: &Layout, r: &Layout) -> Checked {
    let t = Tiler::Layout(b.clone());
    let mut best: Option<Violation> = None;
    for l in regroupings(b, r) {
        match super::logical_divide::check_postconditions(a, &t, &l) {
            Ok(()) => return Ok(()),
            Err(v) => {
                if best.as_ref().is_none_or(|w| w.refuses() && !v.refuses()) {
                    best = Some(v);
                }
            }
        }
    }
    Err(best.unwrap_or_else(|| {
        Violation::cute(
            cite::DIVIDE_COMPATIBLE,
            format!("2: no split of the modes of {r} into (tile, rest) has a tile compatible with {b}"),
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::l;

    /// The splits of the engine's own flat results (what CuTe prints for these defined divides,
    /// fixtures/cases/flat_divide.cases): only the ones the slice can have produced and whose tile
    /// is compatible with B are tried, and the engine's result passes.
    #[test]
    fn regroupings_follow_the_slice_and_b() {
        for (a, b, splits) in [
            // (4,2,(1,1),(1,2)): the tile is (4,2) (4 alone is not compatible with 8; (1,2) is
            // one mode of rank 2, so it cannot be the whole rest).
            ("(4,4):(1,4)", "8:1", 1),
            // (((4,2)),(1,1),(1,2)): a rank-1 B keeps the tile whole.
            ("(4,4):(1,4)", "(8):(1)", 1),
            // (2,1,4): 2 then (1,4), or (2,1) then 4.
            ("8:1", "2:1", 2),
            ("(_16,_8):(_1,_16)", "(_2,_4):(_1,_16)", 1),
        ] {
            let (a, b) = (l(a), l(b));
            let r = flat_divide(&a, &Tiler::Layout(b.clone())).unwrap();
            assert_eq!(regroupings(&b, &r).len(), splits, "{r}");
            check_printed(&a, &b, &r).unwrap();
        }
        // A flat result with its modes moved is not the divide.
        let (a, b) = (l("(4,4):(1,4)"), l("8:1"));
        let r = flat_divide(&a, &Tiler::Layout(b.clone())).unwrap();
        let mut m = r.modes();
        m.swap(0, 1);
        assert!(check_printed(&a, &b, &Layout::concat(&m)).unwrap_err().is_cute());
        // A rank-1 result has no split.
        let v = check_printed(&a, &b, &l("16:1")).unwrap_err();
        assert!(v.is_cute() && v.condition.contains("no split"), "{v}");
    }
}
