//! Random shared-memory descriptor cases (`make_umma_desc`, `make_gmma_desc`;
//! engine::make_umma_desc and engine::make_gmma_desc), built by construction:
//! - an element type of 8, 16 or 32 bits, a major (K or MN) and a swizzle atom of that major
//!   (INTER, SW32, SW64, SW128; for UMMA MN-major also the 128B/32B-base atom);
//! - UMMA: the SM100 mainloop's form, mode 0 of `tile_to_mma_shape(ATOM<T>, ((MMA_M,MMA_K),M_MMAs,
//!   K_MMAs[,STAGES]))` with MMA_K 256 bits and MMA_M a multiple of the atom, or the whole
//!   `tile_to_shape(ATOM<T>, (M,K))`;
//! - GMMA: one MMA's K-block, `layout(zipped_divide(tile_to_shape(ATOM<T>, (M,KT)), (M,K)), 0)` with
//!   K 256 bits (K-major), or `tile_to_shape(ATOM<T>, (M, 256 bits))` (MN-major).
//!
//! Ill-defined variants (CuTe refuses; the engine must too), about one in four: the other major's
//! atom, a value type of another width than the atom's, a K of 512 or 1024 bits.
//! Admissible means the engine of the release under test accepts the case.

use proptest::prelude::*;

use super::{case_of, Case};

/// Element types with their width in bits.
const TYPES: &[(&str, i64)] =
    &[("half_t", 16), ("bfloat16_t", 16), ("float", 32), ("tfloat32_t", 32), ("int8_t", 8), ("float_e4m3_t", 8)];

/// A random descriptor case.
pub fn desc_case() -> BoxedStrategy<Case> {
    (
        any::<bool>(),
        any::<bool>(),
        0usize..TYPES.len(),
        0usize..5,
        1i64..=4,
        1i64..=4,
        0usize..4,
        any::<bool>(),
        0usize..8,
    )
        .prop_map(|(umma, k_major, ty, sw, m_rep, k_rep, stages, whole, flaw)| {
            let (t, bits) = TYPES[ty];
            let major = if k_major { "K" } else { "MN" };
            // The 128B/32B-base atom exists for UMMA's MN-major only.
            let sw = if sw == 4 && (!umma || k_major) { 3 } else { sw };
            let kind = ["INTER", "SW32", "SW64", "SW128", "SW128_32B"][sw];
            let row_bits = if sw == 4 { 1024 } else { 128 << sw };
            // The atom's extents (MN, K) in elements.
            let (am, ak) = match (k_major, sw) {
                (true, _) => (8, row_bits / bits),
                (false, 4) => (row_bits / bits, 4),
                (false, _) => (row_bits / bits, 8),
            };
            // Flaws: 0 the other major's atom, 1 a type of another width, 2 a K of 512 or 1024 bits.
            let flaw = if flaw < 3 { Some(flaw) } else { None };
            let atom_major = if flaw == Some(0) {
                if k_major {
                    "MN"
                } else {
                    "K"
                }
            } else {
                major
            };
            let atom_t = if flaw == Some(1) {
                if bits == 16 {
                    "float"
                } else {
                    "half_t"
                }
            } else {
                t
            };
            let ns = if umma { "UMMA" } else { "GMMA" };
            let atom = format!("{ns}::Layout_{atom_major}_{kind}_Atom<{atom_t}>");
            let mma_k = if flaw == Some(2) { (256 << k_rep.min(2)) / bits } else { 256 / bits };
            let m = am.max(8) * m_rep;
            let smem = if umma {
                let kt = ak.max(mma_k);
                if whole {
                    format!("tile_to_shape({atom},(_{m},_{}))", kt * k_rep)
                } else {
                    let st = if stages > 0 { format!(",_{}", stages + 1) } else { String::new() };
                    format!("layout(tile_to_mma_shape({atom},((_{m},_{mma_k}),_1,_{k_rep}{st})),0)")
                }
            } else if k_major {
                let kt = ak.max(mma_k) * k_rep;
                format!("layout(zipped_divide(tile_to_shape({atom},(_{m},_{kt})),(_{m},_{mma_k})),0)")
            } else {
                format!("tile_to_shape({atom},(_{m},_{}))", mma_k.max(ak))
            };
            let op = if umma { "make_umma_desc" } else { "make_gmma_desc" };
            let expr = format!("{op}<{ns}::Major::{major}>({t},{smem})");
            let admissible = crate::expr::eval_str(&expr).is_ok();
            case_of(if umma { "make_umma_desc" } else { "make_gmma_desc" }, expr, admissible)
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use proptest::strategy::{Strategy, ValueTree};

    /// The drawn cases parse, most are admissible under 4.2 (the canonical forms of CuTe's
    /// mainloops), and the flawed ones bring refusals of several of CuTe's conditions.
    #[test]
    fn drawn_cases_are_well_formed_and_mostly_admissible() {
        let mut r = super::super::runner(5);
        let s = super::desc_case();
        let (mut yes, mut n) = (0, 0);
        let mut refused = std::collections::BTreeSet::new();
        for _ in 0..300 {
            let c = s.new_tree(&mut r).expect("by construction").current();
            crate::expr::parse(&c.expr).unwrap_or_else(|e| panic!("{}: {e}", c.expr));
            n += 1;
            match crate::expr::eval::eval_str(&c.expr) {
                Ok(_) => yes += usize::from(c.admissible),
                Err(e) => {
                    assert!(!c.admissible, "{}", c.expr);
                    refused.insert(e.to_string().split(": ").next().unwrap_or("").to_string());
                }
            }
        }
        assert!(yes * 2 >= n, "{yes} of {n} admissible");
        assert!(refused.len() >= 3, "refusals drawn: {refused:?}");
    }
}
