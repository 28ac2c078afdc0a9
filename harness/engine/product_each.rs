//! `product_each` (int_tuple.hpp).
//!
//! Definition (CuTe 4.2, cute/int_tuple.hpp): `product_each(t) = transform(wrap(t), product)`:
//! the product of each top-level mode of an int tuple, as a tuple; an integer is wrapped first,
//! so `product_each(4)` is the 1-tuple `(4)`. Each product is CuTe's `product` (a fold of `*`
//! from the static `_1`: static exactly when every leaf of the mode is static).
//!
//! Postconditions (checked by [`check_postconditions`]; CuTe's, int_tuple.hpp's defining code):
//! 1. `rank(result) == rank(wrap(t))`, and every mode of the result is a leaf;
//! 2. mode `i` of the result is `product(get<i>(wrap(t)))`, value and static-ness;
//! 3. hence `product(result) == product(t)`.

use super::error::Result;
use super::int_tuple::{IntTuple, Tup};
use super::postcondition::{Checked, Violation};

const CITE: &str = "cute/int_tuple.hpp product_each: transform(wrap(t), product)";

/// CuTe's `product_each(t)`.
pub fn product_each(t: &Tup) -> Result<IntTuple> {
    let modes: Vec<IntTuple> = t.modes().iter().map(|m| m.product().map(IntTuple::leaf)).collect::<Result<_>>()?;
    Ok(IntTuple::tuple(modes))
}

/// The postconditions above, on an operand `t` and a result `r`.
pub fn check_postconditions(t: &Tup, r: &Tup) -> Checked {
    let (want, got) = (t.modes(), r.modes());
    if r.as_leaf().is_some() || want.len() != got.len() {
        return Err(Violation::cute(
            CITE,
            format!("1: rank {} of {r}, not {} (the modes of {t})", got.len(), want.len()),
        ));
    }
    for (i, (m, x)) in want.iter().zip(got.iter()).enumerate() {
        let p = m.product().map_err(|e| Violation::cute(CITE, format!("2: product of mode {i} of {t}: {e}")))?;
        if x.as_leaf() != Some(p) {
            return Err(Violation::cute(CITE, format!("2: mode {i} of {r} is {x}, not product({m}) = {p}")));
        }
    }
    let (pt, pr) = (t.product(), r.product());
    if pt.as_ref().map(|i| i.value).ok() != pr.as_ref().map(|i| i.value).ok() {
        return Err(Violation::cute(CITE, format!("3: product of {r} differs from product of {t}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, Staticness};
    use crate::test_util::tup;
    use proptest::prelude::*;

    #[test]
    fn products_of_each_mode() {
        assert_eq!(product_each(&tup("(_2,(_3,_4),5)")).unwrap().to_string(), "(_2,_12,5)");
        assert_eq!(product_each(&tup("4")).unwrap().to_string(), "(4)");
        assert_eq!(product_each(&tup("((_2,3),_1)")).unwrap().to_string(), "(6,_1)");
        assert!(check_postconditions(&tup("(_2,_3)"), &tup("(_2,3)")).is_err(), "static-ness is part of it");
        assert!(check_postconditions(&tup("(_2,_3)"), &tup("_6")).is_err(), "a leaf is no tuple of products");
    }

    proptest! {
        #[test]
        fn every_postcondition_holds(
            t in prop_oneof![Just(Staticness::AllStatic), Just(Staticness::AllDynamic), Just(Staticness::Mixed)]
                .prop_flat_map(|st| gen::shape(3, 8, st))
        ) {
            let r = product_each(&t).unwrap();
            prop_assert_eq!(check_postconditions(&t, &r), Ok(()));
        }
    }
}
