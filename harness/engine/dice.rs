//! `dice(c, layout)` (layout.hpp over underscore.hpp's `dice` of int tuples): the complement of
//! `slice`, keeping the modes paired with an integer and dropping those paired with `_`.
//!
//! Definition (CuTe 4.2, cute/underscore.hpp and layout.hpp): `dice(c, L) = make_layout(dice(c,
//! shape(L)), dice(c, stride(L)))` where, for int tuples, `dice(_, b) = ()`, `dice(i, b) = b` for
//! an integer `i`, and for a tuple `c` (rank equal to `b`'s, static_assert "Mismatched Ranks")
//! `dice(c, b) = filter_tuple(c, b, lift_dice)`: each mode paired with an integer is kept as one
//! mode, each paired with `_` dropped, and a nested coordinate contributes its kept sub-modes
//! (flattened one level, as `filter_tuple` concatenates).
//!
//! Postconditions (checked by [`check_postconditions`]):
//! 1. the modes of the result are exactly the sub-layouts of `L` that `c` pairs with an integer,
//!    in order (for an integer `c`, `L` itself; for `_`, `():()`) [underscore.hpp dice];
//! 2. hence `size(result)` is the product of their sizes, and `slice(c, L)` and `dice(c, L)`
//!    together hold every leaf of `L` once [underscore.hpp: "Dice keeps only the elements of
//!    Tuple B that are paired with an Int"].

use super::error::{Error, Result};
use super::layout::Layout;
use super::postcondition::{Checked, Violation};
use super::slice::{slice, Coord};

const CITE: &str =
    "underscore.hpp dice: keeps only the elements of Tuple B that are paired with an Int (filter_tuple of lift_dice)";

fn lift(c: &Coord, l: &Layout, out: &mut Vec<Layout>) -> Result<()> {
    match c {
        Coord::Under => {}
        Coord::Int(_) => out.push(l.clone()),
        Coord::Tuple(v) => {
            // CuTe: get<I> of a non-tuple mode is "Index out of range"; tuples of two ranks are
            // "Mismatched Ranks".
            if !l.shape.is_tuple() {
                return Err(Error::OutOfRange(format!("a coordinate of rank {} for the mode {l}", v.len())));
            }
            if v.len() != l.rank() {
                return Err(Error::MismatchedRanks {
                    detail: format!("dicing {l} with a coordinate of rank {}", v.len()),
                });
            }
            for (ci, m) in v.iter().zip(l.modes()) {
                lift(ci, &m, out)?;
            }
        }
    }
    Ok(())
}

/// CuTe's `dice(c, layout)`.
pub fn dice(c: &Coord, l: &Layout) -> Result<Layout> {
    match c {
        Coord::Under => Ok(Layout::concat(&[])),
        Coord::Int(_) => Ok(l.clone()),
        Coord::Tuple(_) => {
            let mut out = Vec::new();
            lift(c, l, &mut out)?;
            Ok(Layout::concat(&out))
        }
    }
}

/// The numbered postconditions above for `dice(c, l) == r`.
pub fn check_postconditions(c: &Coord, l: &Layout, r: &Layout) -> Checked {
    let mut kept = Vec::new();
    match c {
        Coord::Int(_) if r == l => return Ok(()),
        Coord::Int(_) => return Err(Violation::cute(CITE, format!("1: dice of an integer is {l} itself, not {r}"))),
        _ => lift(c, l, &mut kept).map_err(|e| Violation::unverifiable(e.to_string()))?,
    }
    if r.rank() != kept.len() && !(kept.is_empty() && r.rank() == 0) {
        return Err(Violation::cute(CITE, format!("1: {r} has {} modes, not the {} kept", r.rank(), kept.len())));
    }
    for (i, (m, k)) in r.modes().iter().zip(&kept).enumerate() {
        if m != k {
            return Err(Violation::cute(CITE, format!("1: mode {i} of {r} is {m}, not {k}")));
        }
    }
    let s = slice(c, l).map_err(|e| Violation::unverifiable(e.to_string()))?;
    let leaves = |x: &Layout| x.shape.leaf_count();
    if leaves(&s) + leaves(r) != leaves(l) {
        return Err(Violation::cute(CITE, format!("2: slice {s} and dice {r} do not hold the leaves of {l} once")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{l, t};
    use proptest::prelude::*;

    fn c(text: &str) -> Coord {
        Coord::from_tiler(&t(text)).unwrap()
    }

    #[test]
    fn keeps_the_integer_modes() {
        let a = l("((_2,_3),_4,_5):((_1,_2),_6,_24)");
        assert_eq!(dice(&c("(_,1,_)"), &a).unwrap().to_string(), "(_4):(_6)");
        assert_eq!(dice(&c("((1,_),_,2)"), &a).unwrap().to_string(), "(_2,_5):(_1,_24)");
        assert_eq!(dice(&c("3"), &a).unwrap(), a);
        assert_eq!(dice(&Coord::Under, &a).unwrap().to_string(), "():()");
        assert!(dice(&c("(1,_)"), &a).is_err(), "Mismatched Ranks");
    }

    proptest! {
        #[test]
        fn every_postcondition_holds(
            a in crate::gen::small_layout(4, 8, crate::gen::Staticness::Mixed),
            picks in prop::collection::vec(any::<bool>(), 8),
        ) {
            let cs: Vec<Coord> = (0..a.rank()).map(|i| if picks[i % 8] { Coord::Under } else { Coord::Int(crate::Int::dy(0)) }).collect();
            let coord = if a.shape.is_tuple() { Coord::Tuple(cs) } else { cs[0].clone() };
            let r = dice(&coord, &a).unwrap();
            prop_assert_eq!(check_postconditions(&coord, &a, &r), Ok(()));
        }
    }
}
