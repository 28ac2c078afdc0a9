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
//! Postconditions: see the `logical_product` module; each cites its source (CUTLASS's
//! test/unit/cute/core/logical_product.cpp and layout.hpp's definition are CuTe's; the complement inside
//! and injectivity are ours, "stricter than CuTe", never refused).
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

    #[test]
    fn each_product_has_its_own_check() {
        // The results are real CuTe 4.2 prints (fixtures/cases/probes_modules.cases); each check accepts its own
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
