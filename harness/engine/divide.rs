//! The divides (layout.hpp): `logical_divide`, `zipped_divide`, `tiled_divide`, `flat_divide`.
//!
//! Definitions (CuTe 4.2):
//! - `logical_divide(A, B)` for a layout `B`:
//!   `composition(A, make_layout(B, complement(B, shape(coalesce(A)))))`, a rank-2 layout
//!   `(tile, rest)`. For a tiler: a tuple divides mode `i` of `A` by element `i` and keeps `A`'s
//!   further modes (more elements than modes is "logical_divide: Too many modes in tiler."); `_`
//!   leaves the mode; an integer `n` is the layout `n:_1`.
//! - `zipped_divide(A, T)`: `logical_divide` followed by CuTe's `zip2_by` along the tiler: for a
//!   tuple tiler the tile parts of the divided modes are gathered into mode 0 and their rest parts
//!   (then `A`'s untouched modes) into mode 1: `((t0,t1,..),(r0,r1,..,x,y))`. A mode selected by a
//!   non-tuple tiler element must itself be rank 2 (so `_` on a leaf mode is refused, as CuTe
//!   fails to compile it).
//! - `tiled_divide`: the zipped result with mode 1 unpacked: `((t0,t1,..),r0,r1,..)`.
//! - `flat_divide`: both modes unpacked: `(t0,t1,..,r0,r1,..)`. A mode of rank 1 is not unpacked
//!   (CuTe slices it with a single `_`).
//!
//! Postconditions: see the `logical_divide` module; each cites its source (CUTLASS's
//! test/unit/cute/core/logical_divide.cpp and layout.hpp's definition are CuTe's; the complement inside
//! and injectivity are ours, "stricter than CuTe", never refused).
//!
//! Fast path: a divide reduces to a complement and a composition, each with its analytic
//! certificate (see `composition`, `complement` and `fast`). CuTe's computation runs once
//! (`Mode::Certify`); when every complement and composition inside is certified (and small
//! enough to verify) the result is returned, since every brute-force check would pass; otherwise
//! the checked computation runs as before, so results and errors are unchanged.
//!
//! This module gathers the four divides for existing callers; each lives in its own module
//! (`logical_divide`, `zipped_divide`, `tiled_divide`, `flat_divide`, helpers in `tile`), with its
//! definition, numbered postconditions and `check_postconditions`.

pub use super::flat_divide::flat_divide;
pub use super::logical_divide::{check_postconditions, logical_divide, logical_divide_layout, logical_divide_unchecked};
pub use super::tiled_divide::tiled_divide;
pub use super::zipped_divide::{zipped_divide, zipped_divide_unchecked};

#[cfg(test)]
mod tests {
    use crate::engine::test_util::{l, t};
    use super::*;

    #[test]
    fn chapter_cases() {
        // The chapter's table (identical to real CuTe 4.2's prints).
        let a = l("_24:_1");
        let r = logical_divide(&a, &t("_4:_2")).unwrap();
        assert_eq!(r.to_string(), "(_4,(_2,_3)):(_2,(_1,_8))");
        check_postconditions(&a, &t("_4:_2"), &r).unwrap();
        let a = l("(_16,_8):(_1,_16)");
        assert_eq!(zipped_divide(&a, &t("(_2,_2)")).unwrap().to_string(), "((_2,_2),(_8,_4)):((_1,_16),(_2,_32))");
        assert_eq!(zipped_divide(&a, &t("(_16,_2)")).unwrap().to_string(), "((_16,_2),(_1,_4)):((_1,_16),(_0,_32))");
        let r = logical_divide(&a, &t("(_16,_2)")).unwrap();
        check_postconditions(&a, &t("(_16,_2)"), &r).unwrap();
    }

    #[test]
    fn each_divide_has_its_own_check() {
        // The results are real CuTe 4.2 prints (fixtures/cases/probes_modules.cases); each check accepts its own
        // operation's result and rejects the others' forms.
        use crate::engine::{flat_divide as fd, tiled_divide as td, zipped_divide as zd};
        let (a, tt) = (l("(_16,_8,_2):(_1,_16,_128)"), t("(_2,_2)"));
        let (z, ti, fl) = (zipped_divide(&a, &tt).unwrap(), tiled_divide(&a, &tt).unwrap(), flat_divide(&a, &tt).unwrap());
        zd::check_postconditions(&a, &tt, &z).unwrap();
        td::check_postconditions(&a, &tt, &ti).unwrap();
        fd::check_postconditions(&a, &tt, &fl).unwrap();
        assert!(zd::check_postconditions(&a, &tt, &ti).is_err());
        assert!(td::check_postconditions(&a, &tt, &z).is_err());
        assert!(fd::check_postconditions(&a, &tt, &ti).is_err());
        let a = l("(_16,_8):(_1,_16)");
        let tt = t("_4:_2");
        zd::check_postconditions(&a, &tt, &zipped_divide(&a, &tt).unwrap()).unwrap();
        td::check_postconditions(&a, &tt, &tiled_divide(&a, &tt).unwrap()).unwrap();
        fd::check_postconditions(&a, &tt, &flat_divide(&a, &tt).unwrap()).unwrap();
    }
}
