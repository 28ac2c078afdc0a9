//! `get_tma_tensor(g_shape)`: the coordinate tensor a TMA copy's kernel partitions in place of the
//! global-memory tensor (the Blackwell tutorials' `tma_atom_A.get_tma_tensor(shape(mA))`, the
//! Hopper tutorial's `tma_a.get_tma_tensor(make_shape(M,K))`): each element is the TMA coordinate
//! of that gmem element, which the copy hands to the `cp.async.bulk.tensor` instruction.
//!
//! Definition (CuTe 4.2 and 4.7, atom/copy_traits_sm90_tma.hpp, every TMA Copy_Traits: SM90_TMA_LOAD,
//! SM90_TMA_LOAD_MULTICAST, SM90_TMA_STORE, SM90_TMA_REDUCE_ADD, and the SM100 2-SM loads of
//! copy_traits_sm100_tma.hpp, whose traits hold the same `aux_params_`):
//!
//! ```text
//! get_tma_tensor(GShape const& g_shape) const {
//!   static_assert(is_congruent<decltype(g_shape), decltype(aux_params_.g_stride_)>::value);
//!   return make_coord_tensor(make_layout(g_shape, aux_params_.g_stride_));
//! }
//! ```
//!
//! `aux_params_.g_stride_` is [`crate::tma::TmaCopy::g_stride`] (module `tma`, step 4: for each
//! gmem mode the basis element of the TMA mode that holds it), and `make_coord_tensor(L)` is
//! [`crate::coord_tensor::make_coord_tensor`] (the iterator at the all-`_0` arithmetic tuple of
//! `L`'s codomain). A `Copy_Atom` and a `TiledCopy` inherit the member from the traits, so the
//! result is the same for `make_tma_atom`, `make_tma_copy` and the SM100 makers.
//! The Blackwell tutorials print it (02_mma_tma_sm100.cu: `mA: ArithTuple(_0,_0) o
//! (512,256):(_1@1,_1@0)`).
//!
//! Refusal: a shape not congruent with `g_stride_` (the `static_assert`): [`Error::Rejected`]
//! naming `is_congruent<GShape, g_stride_>`.
//!
//! Postconditions (checked by [`check_postconditions`]; property tests below):
//! 1. The tensor's layout is `g_shape : g_stride_` and its iterator is the all-`_0` arithmetic
//!    tuple of the codomain (definition).
//! 2. Element `c` of the tensor, for every coordinate `c` of `g_shape`, is the TMA coordinate
//!    `sum_j c_j * g_stride_j` (`make_coord_tensor`: "each element its coordinate" under the
//!    layout; copy_traits_sm90_tma.hpp passes these coordinates to the TMA instruction): stepping
//!    gmem mode `j` by one steps the TMA coordinate by `g_stride_j` exactly.

use super::coord_tensor::{make_coord_tensor, CoordTensor};
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::{IntTuple, Tup};
use super::postcondition::{Checked, Violation};
use super::scaled_basis::{BasisLayout, BasisValue};
use super::tma::TmaCopy;

const CITE: &str =
    "copy_traits_sm90_tma.hpp get_tma_tensor: make_coord_tensor(make_layout(g_shape, aux_params_.g_stride_))";

/// `tma.get_tma_tensor(g_shape)`.
pub fn get_tma_tensor(tma: &TmaCopy, g_shape: &IntTuple) -> Result<CoordTensor> {
    let layout = BasisLayout::new(g_shape.clone(), tma.g_stride.clone()).map_err(|_| Error::Rejected {
        condition: "static_assert(is_congruent<decltype(g_shape), decltype(aux_params_.g_stride_)>::value)",
        detail: format!("get_tma_tensor's shape {g_shape} is not congruent with the TMA's g_stride_ {}", tma.g_stride),
    })?;
    make_coord_tensor(layout)
}

/// The numbered postconditions above; `limit` bounds the coordinates visited in 2.
pub fn check_postconditions(tma: &TmaCopy, g_shape: &IntTuple, r: &CoordTensor, limit: usize) -> Checked {
    if r.layout.shape != *g_shape || r.layout.stride != tma.g_stride {
        return Err(Violation::cute(CITE, format!("1: the layout {} is not {g_shape}:{}", r.layout, tma.g_stride)));
    }
    fn all_zero(v: &BasisValue) -> bool {
        match v {
            BasisValue::Int(i) => i.is_static_value(0),
            BasisValue::Basis(_) => false,
            BasisValue::Tuple(t) => t.iter().all(all_zero),
        }
    }
    if !all_zero(&r.iter) {
        return Err(Violation::cute(CITE, format!("1: the iterator {} is not all _0", r.iter)));
    }
    let pairs = r.layout.leaf_pairs();
    let n = r.layout.size().map_err(|e| Violation::unverifiable(e.to_string()))?.value;
    for i in 0..(n.max(0) as usize).min(limit) as i64 {
        // The natural coordinate of i, leaf by leaf (column-major), and its TMA coordinate.
        let mut rest = i;
        let mut expect = BasisValue::Int(Int::st(0));
        let mut coord = Vec::with_capacity(pairs.len());
        for (s, d) in &pairs {
            let c = if s.value > 0 { rest % s.value } else { 0 };
            rest = if s.value > 0 { rest / s.value } else { 0 };
            coord.push(Int::dy(c));
            expect = expect
                .add(&d.scale(Int::dy(c)).map_err(|e| Violation::unverifiable(e.to_string()))?)
                .map_err(|e: Error| Violation::unverifiable(e.to_string()))?;
        }
        let flat = IntTuple::of_leaves(coord);
        let got = r.layout.call(&flat_to_shape(&flat, g_shape)).map_err(|e| Violation::unverifiable(e.to_string()))?;
        let got = r.iter.add(&got).map_err(|e| Violation::unverifiable(e.to_string()))?;
        if !super::scaled_basis::same_point(&got, &expect) {
            return Err(Violation::cute(CITE, format!("2: element {i} is {got}, its TMA coordinate is {expect}")));
        }
    }
    Ok(())
}

/// The flat coordinate `flat` (one entry per leaf) nested as `shape` is.
fn flat_to_shape(flat: &Tup, shape: &Tup) -> IntTuple {
    let leaves: Vec<Int> = flat.leaf_iter().collect();
    let mut k = 0;
    shape
        .map_leaves(&mut |_| {
            k += 1;
            Ok(leaves[k - 1])
        })
        .expect("as many leaves")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiler::Tiler;
    use crate::tma::{make_tma_atom, make_tma_copy, SmemLayout, TmaArgs, TmaOp};
    use proptest::prelude::*;

    use crate::test_util::flat as l;

    /// A TMA load of a row- or column-major gmem matrix (leading dimension padded to 16 bytes)
    /// into a compact smem tile of the same major mode.
    fn args() -> impl Strategy<Value = TmaArgs> {
        ((2u32..=6, 2u32..=6), any::<bool>(), (1i64..4, 0i64..3), any::<bool>()).prop_map(
            |((a, b), col, (mult, extra), atom)| {
                let (tm, tk) = (1i64 << a, 1i64 << b);
                let (mg, kg) = (tm * mult + extra, tk * mult + extra);
                let (gmem, smem) = if col {
                    (l(&[mg, kg], &[1, (mg + 7) / 8 * 8], true), l(&[tm, tk], &[1, tm], false))
                } else {
                    (l(&[mg, kg], &[(kg + 7) / 8 * 8, 1], true), l(&[tm, tk], &[tk, 1], false))
                };
                TmaArgs {
                    op: if atom { TmaOp::Load } else { TmaOp::Store },
                    val_type: "half_t".into(),
                    gmem,
                    smem: SmemLayout::Plain(smem),
                    cta_tiler: Some(Tiler::from_shape(&IntTuple::of_leaves([Int::st(tm), Int::st(tk)]))),
                    cluster: None,
                }
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Both postconditions hold for the TMA tensor of every TMA atom and copy made here.
        #[test]
        fn every_postcondition_holds(a in args(), atom in any::<bool>()) {
            let t = if atom { make_tma_atom(&a).unwrap() } else { make_tma_copy(&a).unwrap() };
            let r = get_tma_tensor(&t, &a.gmem.shape).unwrap();
            prop_assert!(check_postconditions(&t, &a.gmem.shape, &r, 4096).is_ok(), "{:?}", check_postconditions(&t, &a.gmem.shape, &r, 4096));
        }

        /// A stride that is not the TMA's fails postcondition 1, and an element moved fails 2.
        #[test]
        fn a_wrong_tensor_fails_the_check(a in args()) {
            let t = make_tma_atom(&a).unwrap();
            let r = get_tma_tensor(&t, &a.gmem.shape).unwrap();
            let mut bad = r.clone();
            bad.layout.stride = match &r.layout.stride {
                BasisValue::Tuple(v) => BasisValue::Tuple(v.iter().rev().cloned().collect()),
                other => other.clone(),
            };
            prop_assert!(check_postconditions(&t, &a.gmem.shape, &bad, 4096).is_err());
            let mut moved = r.clone();
            moved.iter = r.iter.add(&BasisValue::Int(Int::st(0))).unwrap();
            moved.iter = match &moved.iter {
                BasisValue::Tuple(v) => BasisValue::Tuple(
                    v.iter().enumerate().map(|(k, x)| if k == 0 { BasisValue::Int(Int::dy(1)) } else { x.clone() }).collect(),
                ),
                other => other.clone(),
            };
            prop_assert!(check_postconditions(&t, &a.gmem.shape, &moved, 4096).is_err());
        }
    }

    /// The Blackwell tutorial's A: a K-major 512x256 half_t matrix into the 128x64 SW128 K-major
    /// tile is `ArithTuple(_0,_0) o (512,256):(_1@1,_1@0)` (02_mma_tma_sm100.cu's printed comment).
    #[test]
    fn the_tutorials_tensor() {
        let c = crate::swizzle::ComposedLayout {
            swizzle: crate::swizzle::Swizzle { b: 3, m: 4, s: 3 },
            offset: crate::swizzle::Offset::SmemPtr(16),
            layout: l(&[128, 64], &[64, 1], false),
        };
        let a = TmaArgs {
            op: TmaOp::Load,
            val_type: "cutlass::half_t".into(),
            gmem: l(&[512, 256], &[256, 1], true),
            smem: SmemLayout::Swizzled(c),
            cta_tiler: Some(Tiler::from_shape(&IntTuple::of_leaves([Int::st(128), Int::st(64)]))),
            cluster: None,
        };
        let t = make_tma_atom(&a).unwrap();
        let r = get_tma_tensor(&t, &a.gmem.shape).unwrap();
        assert_eq!(r.to_string(), "ArithTuple(_0,_0) o (512,256):(_1@1,_1@0)");
        assert!(check_postconditions(&t, &a.gmem.shape, &r, 1 << 20).is_ok());
        // Not congruent: the static_assert.
        let e = get_tma_tensor(&t, &IntTuple::of_leaves([Int::dy(512), Int::dy(256), Int::dy(2)])).unwrap_err();
        assert!(e.to_string().contains("is_congruent"), "{e}");
    }
}
