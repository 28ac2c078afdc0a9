//! The products (layout.hpp): `logical_product`, `zipped_product`, `tiled_product`,
//! `flat_product`, `blocked_product`, `raked_product`.
//!
//! Definitions (CuTe 4.2):
//! - `logical_product(A, B)` for a layout `B`:
//!   `make_layout(A, composition(complement(A, size(A) * cosize(B)), B))`: `B`'s layout of
//!   copies of `A`. `cosize` is CuTe's `size(coshape)`: `sum (s_i - _1) * |d_i| + _1` (static
//!   when every term is). For a tiler: a tuple multiplies mode by mode and keeps `A`'s further
//!   modes (more elements than modes is "logical_product: Too many modes in tiler."); `_` leaves
//!   the mode; an integer `n` is the layout `n:_1`.
//! - `zipped_product`, `tiled_product`, `flat_product`: `logical_product` followed by the same
//!   `zip2_by` gathering and unpacking as the divides.
//! - `blocked_product(A, B)` / `raked_product(A, B)` for layouts: with `R = max(rank A, rank B)`,
//!   both padded to rank `R` with `_1:_0` modes, `P = logical_product(A', B')` (as whole layouts),
//!   and the result's mode `i` is `(A'_i, P1_i)` (blocked) or `(P1_i, A'_i)` (raked), where `P1`
//!   is mode 1 of `P`.
//!
//! Postconditions of `logical_product(A, B)` for a layout `B` (checked by
//! [`check_postconditions`]; the complement and composition inside are checked against their own
//! definitions and a violation is [`Error::Undefined`]):
//! 1. `rank(R) == 2`, mode 0 of `R` is `A` itself.
//! 2. Mode 1 of `R` is `C o B` with `C = complement(A, size(A) * cosize(B))`: `R(0, j) == C(B(j))`.
//! 3. `R` is injective when `A` and `B` are: `(A, C)` is injective and `C o B` reorders `C`'s
//!    distinct values.
//!
//! Fast path: as for the divides, the complement and the composition inside are certified
//! analytically (see `fast`); CuTe's computation runs once and the brute-force checks run only
//! when a certificate does not apply (results and errors unchanged).
//!
//! Postconditions of `blocked_product` / `raked_product` (checked by [`check_blocked`]):
//! 1. `rank(R) == max(rank A, rank B)` and each mode is rank 2 with `A`'s mode (padded) in
//!    position 0 (blocked) or 1 (raked).
//! 2. As a function `R` equals `logical_product(A', B')` with the mode pairs regrouped: for every
//!    `i < size(A')`, `j < size(B')`, `R` at the coordinate made of `A'`'s and `P1`'s
//!    coordinates mode by mode equals `A'(i) + P1(j)`.
//!
//! This module gathers the products for existing callers; each lives in its own module
//! (`logical_product`, `zipped_product`, `tiled_product`, `flat_product`, `blocked_product`,
//! `raked_product`), with its definition, numbered postconditions and `check_postconditions`.

pub use super::blocked_product::{blocked_product, check_blocked};
pub use super::flat_product::flat_product;
pub(crate) use super::logical_product::cosize_pairs;
pub use super::logical_product::{check_postconditions, cosize, logical_product, logical_product_layout, logical_product_unchecked};
pub use super::raked_product::raked_product;
pub use super::tiled_product::tiled_product;
pub use super::zipped_product::zipped_product;

#[cfg(test)]
mod tests {
    use crate::engine::test_util::{l, t};
    use super::*;
    use crate::engine::Error;

    #[test]
    fn real_cute_probes() {
        // Printed by real CuTe 4.2 (g++ probe, /tmp/probe/p1.cases).
        let (a, b) = (l("(_2,_2):(_1,_2)"), l("(_3,_4):(_1,_3)"));
        let r = blocked_product(&a, &b).unwrap();
        assert_eq!(r.to_string(), "((_2,_3),(_2,_4)):((_1,_4),(_2,_12))");
        check_blocked(&a, &b, &r, false).unwrap();
        let r = raked_product(&a, &b).unwrap();
        assert_eq!(r.to_string(), "((_3,_2),(_4,_2)):((_4,_1),(_12,_2))");
        check_blocked(&a, &b, &r, true).unwrap();
        assert_eq!(blocked_product(&l("_2:_1"), &l("_3:_1")).unwrap().to_string(), "((_2,_3)):((_1,_2))");
        assert_eq!(raked_product(&l("_2:_1"), &l("_3:_1")).unwrap().to_string(), "((_3,_2)):((_2,_1))");
        assert_eq!(blocked_product(&a, &l("_3:_1")).unwrap().to_string(), "((_2,_3),(_2,_1)):((_1,_4),(_2,_0))");
        let (a1, b1) = (l("_2:1"), l("(_1):(_2)"));
        let r = blocked_product(&a1, &b1).unwrap();
        assert_eq!(r.to_string(), "((_2,(_1))):((1,(4)))");
        check_blocked(&a1, &b1, &r, false).unwrap();
        let r = logical_product(&a, &t("(_3,_4)")).unwrap();
        assert_eq!(r.to_string(), "((_2,_3),(_2,(_2,_2))):((_1,_2),(_2,(_1,_4)))");
        check_postconditions(&a, &t("(_3,_4)"), &r).unwrap();
        assert_eq!(zipped_product(&a, &t("(_3,_4)")).unwrap().to_string(), "((_2,_2),(_3,(_2,_2))):((_1,_2),(_2,(_1,_4)))");
        assert_eq!(tiled_product(&a, &t("(_3,_4)")).unwrap().to_string(), "((_2,_2),_3,(_2,_2)):((_1,_2),_2,(_1,_4))");
        assert_eq!(flat_product(&a, &t("(_3,_4)")).unwrap().to_string(), "(_2,_2,_3,(_2,_2)):(_1,_2,_2,(_1,_4))");
        let e = logical_product(&l("_2:_2"), &t("_3:_1")).unwrap_err();
        assert!(matches!(e, Error::ShapeDivisibility { .. }), "{e}");
    }

    #[test]
    fn each_product_has_its_own_check() {
        // The results are real CuTe 4.2 prints (see real_cute_probes); each check accepts its own
        // operation's result and rejects the others' forms.
        use crate::engine::{blocked_product as bp, flat_product as fp, raked_product as rp};
        use crate::engine::{tiled_product as tp, zipped_product as zp};
        let (a, tt) = (l("(_2,_2):(_1,_2)"), t("(_3,_4)"));
        let (z, ti, fl) = (zipped_product(&a, &tt).unwrap(), tiled_product(&a, &tt).unwrap(), flat_product(&a, &tt).unwrap());
        zp::check_postconditions(&a, &tt, &z).unwrap();
        tp::check_postconditions(&a, &tt, &ti).unwrap();
        fp::check_postconditions(&a, &tt, &fl).unwrap();
        assert!(zp::check_postconditions(&a, &tt, &ti).is_err());
        assert!(tp::check_postconditions(&a, &tt, &fl).is_err());
        assert!(fp::check_postconditions(&a, &tt, &z).is_err());
        let b = l("(_3,_4):(_1,_3)");
        let (bl, ra) = (blocked_product(&a, &b).unwrap(), raked_product(&a, &b).unwrap());
        bp::check_postconditions(&a, &b, &bl).unwrap();
        rp::check_postconditions(&a, &b, &ra).unwrap();
        assert!(bp::check_postconditions(&a, &b, &ra).is_err());
        assert!(rp::check_postconditions(&a, &b, &bl).is_err());
    }
}
