//! `ThrMMA::make_fragment_A(tCsA)` / `make_fragment_B(tCsB)` of a shared-memory tensor that is
//! already in the MMA's partitioned shape `((MMA_M,MMA_K), NumMma_M, NumMma_K, ...)` (the
//! Blackwell tutorials' `cta_mma.make_fragment_A(shared_storage.tensor_sA())`), for an MMA whose
//! operand is read from shared memory through descriptors (SM100 UMMA `*_SS`, SM90 GMMA `*_SS`,
//! and the B operand of SM90 `*_RS` / SM100 `*_TS`): the tensor of descriptors CuTe hands to
//! `cute::gemm`.
//!
//! Definitions (CuTe 4.2 and 4.7):
//! 1. mma_atom.hpp `MMA_Atom::make_fragment_A(atensor)`: `CUTE_STATIC_ASSERT_V(rank(atensor) >=
//!    Int<3>{})` ("VMK"), `CUTE_STATIC_ASSERT_V(size<0>(atensor) == size<1>(LayoutA_TV{}))`; when
//!    `FrgTypeA` has a dereference (a descriptor flag: `UMMA::smem_desc<Major>`,
//!    `GMMA::smem_desc<Major>`), `make_tensor<FrgTypeA>(atensor)`. `ThrMMA` and `TiledMMA` inherit
//!    it from the atom (the thread index is not read). B likewise with `LayoutB_TV`.
//! 2. atom/mma_traits_sm100.hpp `MakeTensor<UMMA::smem_desc<Major>>` (and mma_traits_sm90_gmma.hpp
//!    for GMMA): `make_tensor(DescriptorIterator{make_umma_desc<Major>(tensor<0>(smem))},
//!    replace<0>(recast<uint128_t const>(smem).layout(), Layout<_1,_0>{}))`: the layout is the
//!    smem tensor's (the swizzle is on the pointer, pointer_flagged.hpp) upcast to 128-bit units
//!    (`recast_layout<T, uint128_t>` is `upcast<128 / bits(T)>`), its mode 0 (one MMA's operand)
//!    replaced by `_1:_0` (one descriptor).
//! 3. `print(DescriptorIterator)` is `"UMMA::DescriptorIterator"` (`"GMMA::DescriptorIterator"`),
//!    without the descriptor's value, so `print(tensor)` is `UMMA::DescriptorIterator o L`: no
//!    address in it (02_mma_tma_sm100.cu's comment: `tCrA: UMMA::DescriptorIterator o
//!    (_1,_1,_4):(_0,_0,_2)`).
//!
//! Refusals (typed, naming CuTe's condition): rank below 3; `size<0>` not the atom's values per
//! thread; an operand that is not a descriptor (a register fragment, whose print holds a run-time
//! address); a layout the upcast refuses (its divisibility condition).
//!
//! Postconditions (checked by [`check_postconditions`]; property tests below):
//! 1. The result has the input's rank; mode 0 is `_1:_0`; modes 1.. have the input's shape.
//! 2. For modes 1.., each stride is the input's stride divided by `128 / bits` (an index into
//!    128-bit units: the descriptor offset CuTe adds, `DescriptorIterator::operator+`), `_0`
//!    staying `_0`.

use std::fmt;

use super::atom::copy::{type_bits, upcast};
use super::atom::tiled_mma::TiledMma;
use super::error::{Error, Result};
use super::int::Int;
use super::layout::Layout;
use super::postcondition::{Checked, Violation};

const CITE: &str = "mma_traits_sm100.hpp / mma_traits_sm90_gmma.hpp MakeTensor<smem_desc>: replace<0>(recast<uint128_t const>(smem).layout(), Layout<_1,_0>{})";

/// A tensor of MMA descriptors: its iterator's printed name and its layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescTensor {
    /// `UMMA::DescriptorIterator` or `GMMA::DescriptorIterator`.
    pub iter: &'static str,
    pub layout: Layout,
}

impl fmt::Display for DescTensor {
    /// Definition 3.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o {}", self.iter, self.layout)
    }
}

/// The descriptor iterator of operand `which` ('a' or 'b') of the atom named `name`, if that
/// operand is read from shared memory through descriptors.
fn descriptor_of(name: &str, which: char) -> Option<&'static str> {
    if name.contains("SPARSE") || name.contains("_SP") && name.contains("SM90") {
        return None;
    }
    let base = name.split('<').next().unwrap_or(name);
    let smem = base.ends_with("_SS") || (which == 'b' && (base.ends_with("_RS") || base.ends_with("_TS")));
    if !smem {
        return None;
    }
    if base.starts_with("SM100_MMA_") {
        Some("UMMA::DescriptorIterator")
    } else if base.starts_with("SM90_") {
        Some("GMMA::DescriptorIterator")
    } else {
        None
    }
}

/// `make_fragment_A(T)` (`which == 'a'`) or `make_fragment_B(T)` (`'b'`) of the smem tensor whose
/// layout (the swizzle moved to the pointer) is `l`.
pub fn make_fragment(mma: &TiledMma, which: char, l: &Layout) -> Result<DescTensor> {
    let (tv, val) = match which {
        'a' => (&mma.atom.a, &mma.atom.val_types[1]),
        _ => (&mma.atom.b, &mma.atom.val_types[2]),
    };
    let op = if which == 'a' { "make_fragment_A" } else { "make_fragment_B" };
    let iter = descriptor_of(&mma.atom.name, which).ok_or_else(|| Error::Rejected {
        condition: "a register fragment (make_fragment_like<FrgType>), whose print holds its run-time address",
        detail: format!("{op} of {}: the operand is not an smem descriptor", mma.atom.name),
    })?;
    if l.rank() < 3 {
        return Err(Error::Rejected {
            condition: "CUTE_STATIC_ASSERT_V(rank(tensor) >= Int<3>{})",
            detail: format!("{op} of rank-{} {l}", l.rank()),
        });
    }
    let (m0, vals) = (l.mode(0)?.size()?, tv.mode(1)?.size()?);
    if m0.value != vals.value {
        return Err(Error::Rejected {
            condition: "CUTE_STATIC_ASSERT_V(size<0>(tensor) == size<1>(LayoutX_TV{}))",
            detail: format!("{op}: size<0> of {l} is {m0}, the atom's values per thread {vals}"),
        });
    }
    let bits = type_bits(val)?;
    if bits <= 0 || 128 % bits != 0 {
        return Err(Error::Type(format!("{op}: value type {val} does not divide 128 bits")));
    }
    let u = upcast(l, 128 / bits)?;
    let mut modes = u.modes();
    modes[0] = Layout::leaf(Int::st(1), Int::st(0));
    Ok(DescTensor { iter, layout: Layout::concat(&modes) })
}

/// The numbered postconditions above, for `r` made from `l` with `bits`-bit values.
pub fn check_postconditions(l: &Layout, bits: i64, r: &DescTensor) -> Checked {
    if r.layout.rank() != l.rank() || r.layout.mode(0).ok() != Some(Layout::leaf(Int::st(1), Int::st(0))) {
        return Err(Violation::cute(CITE, format!("1: {} is not {l} with mode 0 _1:_0", r.layout)));
    }
    let n = 128 / bits;
    for (k, (lm, rm)) in l.modes().iter().zip(r.layout.modes()).enumerate().skip(1) {
        if lm.shape.leaves() != rm.shape.leaves() {
            return Err(Violation::cute(CITE, format!("1: mode {k} of {} is not {lm}'s shape", r.layout)));
        }
        for (dl, dr) in lm.stride.leaves().iter().zip(rm.stride.leaves()) {
            let ok = if dl.value == 0 { dr.value == 0 } else { dl.value % n == 0 && dr.value == dl.value / n };
            if !ok {
                return Err(Violation::cute(CITE, format!("2: mode {k}: stride {dr} is not {dl} / {n}")));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::int_tuple::IntTuple;
    use proptest::prelude::*;

    fn umma() -> TiledMma {
        crate::atom::tiled_mma::make_tiled_mma(
            "SM100_MMA_F16BF16_SS<cutlass::half_t,cutlass::half_t,float,128,256,UMMA::Major::K,UMMA::Major::K>",
            None,
            &[],
        )
        .unwrap()
    }

    fn st(v: &[i64]) -> IntTuple {
        IntTuple::of_leaves(v.iter().map(|&x| Int::st(x)))
    }

    /// The tutorial's sA: `((_128,_16),_1,_4):((_64,_1),_0,_16)` of half_t.
    fn tutorial(k: i64) -> Layout {
        Layout::new(
            IntTuple::tuple([st(&[128, 16]), IntTuple::leaf(Int::st(1)), IntTuple::leaf(Int::st(k))]),
            IntTuple::tuple([st(&[64, 1]), IntTuple::leaf(Int::st(0)), IntTuple::leaf(Int::st(16))]),
        )
        .unwrap()
    }

    #[test]
    fn the_tutorials_fragment() {
        let r = make_fragment(&umma(), 'a', &tutorial(4)).unwrap();
        assert_eq!(r.to_string(), "UMMA::DescriptorIterator o (_1,_1,_4):(_0,_0,_2)");
        assert!(check_postconditions(&tutorial(4), 16, &r).is_ok());
        // Rank 2: the static assert.
        let e = make_fragment(&umma(), 'a', &tutorial(4).mode(0).unwrap()).unwrap_err();
        assert!(e.to_string().contains("rank(tensor) >= Int<3>"), "{e}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// Both postconditions hold for any number of K blocks and stages; a wrong stride fails.
        #[test]
        fn every_postcondition_holds(k in 1i64..9, stages in 1i64..5) {
            let mut modes = tutorial(k).modes();
            modes.push(Layout::leaf(Int::st(stages), Int::st(16 * 128 * k * 8)));
            let l = Layout::concat(&modes);
            let r = make_fragment(&umma(), 'b', &Layout::new(
                IntTuple::tuple([st(&[256, 16]), IntTuple::leaf(Int::st(1)), IntTuple::leaf(Int::st(k)), IntTuple::leaf(Int::st(stages))]),
                IntTuple::tuple([st(&[64, 1]), IntTuple::leaf(Int::st(0)), IntTuple::leaf(Int::st(16)), IntTuple::leaf(Int::st(32768))]),
            ).unwrap()).unwrap();
            prop_assert_eq!(r.layout.rank(), 4);
            let ra = make_fragment(&umma(), 'a', &l).unwrap();
            prop_assert!(check_postconditions(&l, 16, &ra).is_ok(), "{:?}", check_postconditions(&l, 16, &ra));
            let mut bad = ra.clone();
            bad.layout = l.clone();
            prop_assert!(check_postconditions(&l, 16, &bad).is_err());
        }
    }
}
