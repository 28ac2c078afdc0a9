//! `as_position_independent_swizzle_tensor(T)` (pointer_flagged.hpp): a shared-memory tensor whose
//! swizzle is on its pointer (`make_tensor(make_smem_ptr(p), Sw o smem_ptr[B] o L)` moves the
//! swizzle onto the pointer, `Sw_smem_ptr[Bb](p) o L`) as a plain pointer over a swizzled layout,
//! `smem_ptr[Bb](p) o Sw' o _0 o L`, so that its partitions and slices keep the swizzle in their
//! layouts rather than in a pointer whose address they move (the Hopper tutorial
//! wgmma_sm90.cu: `sA_ = as_position_independent_swizzle_tensor(sA)`, `tAsA =
//! thr_copy_a.partition_D(sA_)`).
//!
//! Definition (CUTLASS 3.3 to 4.7, the same in every release modelled):
//! 1. A tensor whose swizzle has no bits (`Swizzle<0,M,S>`, `num_bits == 0`) is returned as it is.
//! 2. Otherwise `make_tensor(make_smem_ptr<T>(raw_pointer_cast(data())), composition(Sw', _0,
//!    layout()))` with `Sw' = recast_layout<uint8_t, T>(Sw)` (swizzle_layout.hpp): for `T` of
//!    `B = 8k` bits `upcast<k>(Sw)`, `Swizzle<b, m - log2 k, s>` while `m >= log2 k`, else
//!    `Swizzle<max(b + m - log2 k, 0), 0, s>`; for `B < 8` `downcast<8/B>(Sw)`, `Swizzle<b, m +
//!    log2(8/B), s>`. The pointer is the tensor's own (not moved).
//! 3. A tensor that is not in shared memory is refused: `static_assert(is_smem<Tensor>,
//!    "Expected smem tensor.")`.
//!
//! Postcondition (property test below): the new tensor addresses what the old one does, the
//! reason the recast exists ("Recast swizzle from acting on byte-addressed pointers to elements of
//! type-T"): for the base address `p` aligned to the swizzle (CuTe asserts `(p & mask) == 0` in a
//! debug build), element `i` of the old tensor is at byte `Sw(p + L(i) * B/8)` and of the new one
//! at `p + Sw'(L(i)) * B/8`, for every `i` in the layout's domain.

use super::atom::partition::{Over, Partition, SMEM_BASE};
use super::error::{Error, Result};
use super::int::Int;
use super::swizzle::{Offset, Swizzle};

/// `recast_layout<uint8_t, uint_bit_t<bits>>(sw)` (definition 2).
pub fn recast_from_bytes(sw: Swizzle, bits: i64) -> Result<Swizzle> {
    let log2 = |n: i64| 63 - n.leading_zeros() as i32;
    if bits <= 0 || (bits % 8 != 0 && 8 % bits != 0) || (bits % 8 == 0 && (bits / 8).count_ones() != 1) {
        return Err(Error::Type(format!("a recast of a swizzle from bytes to {bits}-bit elements is not modelled")));
    }
    if bits >= 8 {
        let k = log2(bits / 8);
        let m = sw.m - k;
        if m >= 0 {
            Ok(Swizzle { b: sw.b, m, s: sw.s })
        } else {
            Ok(Swizzle { b: (sw.b + m).max(0), m: 0, s: sw.s })
        }
    } else {
        Ok(Swizzle { b: sw.b, m: sw.m + log2(8 / bits), s: sw.s })
    }
}

/// `as_position_independent_swizzle_tensor(T)` of a tensor `T` (definitions 1-3): a shared-memory
/// tensor whose swizzle is on its pointer (a partition over `Over::SmemSwizzle`, as
/// `make_tensor(make_smem_ptr(p), Sw o smem_ptr[B] o L)` makes one) becomes a plain pointer over
/// `Sw' o _0 o L`.
pub fn as_position_independent_swizzle_tensor(t: &Partition) -> Result<Partition> {
    match &t.over {
        Over::SmemSwizzle(sw, _) if sw.b == 0 => Ok(t.clone()),
        Over::SmemSwizzle(sw, bits) => Ok(Partition {
            offset: t.offset,
            layout: t.layout.clone(),
            over: Over::PlainSmem(*bits, Some((recast_from_bytes(*sw, *bits)?, Offset::Int(Int::st(0))))),
        }),
        Over::PlainSmem(..) => Err(Error::Type(format!(
            "as_position_independent_swizzle_tensor of {t}, already position-independent, is not modelled"
        ))),
        Over::Counting | Over::Composed(..) => {
            Err(Error::Rejected { condition: "Expected smem tensor.", detail: format!("{t}") })
        }
    }
}

/// The postcondition on `old` and `new = as_position_independent_swizzle_tensor(old)`: `None`
/// when it holds (both at [`SMEM_BASE`]).
pub fn check_postcondition(old: &Partition, new: &Partition) -> Result<Option<String>> {
    let Over::SmemSwizzle(sw, bits) = old.over else {
        return Ok(Some(format!("{old} is not a shared-memory tensor with a swizzled pointer")));
    };
    let new_sw = match &new.over {
        Over::SmemSwizzle(s, b) if s.b == 0 && *b == bits => None,
        Over::PlainSmem(b, Some((s, Offset::Int(o)))) if *b == bits && o.value == 0 => Some(*s),
        _ => return Ok(Some(format!("{new} is not a plain shared-memory pointer over a swizzled layout"))),
    };
    let base = SMEM_BASE + old.offset.value * bits / 8;
    for i in 0..old.layout.size()?.value {
        let li = old.layout.call_int(Int::dy(i))?.value;
        let want = sw.apply(base + li * bits / 8);
        let nb = SMEM_BASE + new.offset.value * bits / 8;
        let got = match new_sw {
            Some(s) => nb + s.apply(li) * bits / 8,
            None => nb + li * bits / 8,
        };
        if got != want {
            return Ok(Some(format!("element {i}: {old} addresses byte {want:#x}, {new} byte {got:#x}")));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn smem(sw: Swizzle, bits: i64, l: &str) -> Partition {
        Partition {
            offset: Int::dy(0),
            layout: crate::atom::lit::layout(l).unwrap(),
            over: Over::SmemSwizzle(sw, bits),
        }
    }

    #[test]
    fn the_hopper_tutorials_tile_prints_as_cute() {
        // GMMA::Layout_MN_SW128_Atom<half_t> is Sw<3,4,3> o smem_ptr[16b] o (_64,_8):(_1,_64):
        // over half_t elements the swizzle is Sw<3,3,3>.
        let t = smem(Swizzle { b: 3, m: 4, s: 3 }, 16, "(_64,_8):(_1,_64)");
        let r = as_position_independent_swizzle_tensor(&t).unwrap();
        assert_eq!(r.to_string(), "smem_ptr[16b](0x10000) o Sw<3,3,3> o _0 o (_64,_8):(_1,_64)");
        assert_eq!(check_postcondition(&t, &r).unwrap(), None);
        // No swizzle bits: the tensor itself (definition 1).
        let t = smem(Swizzle { b: 0, m: 4, s: 3 }, 16, "(_8,_8):(_8,_1)");
        assert_eq!(as_position_independent_swizzle_tensor(&t).unwrap(), t);
        // Not shared memory (definition 3).
        let c = Partition { over: Over::Counting, ..t };
        assert!(matches!(as_position_independent_swizzle_tensor(&c), Err(Error::Rejected { .. })));
    }

    proptest! {
        /// The postcondition on every swizzle of GMMA's and UMMA's atoms and the element widths
        /// kernels use, over column- and row-major tiles.
        #[test]
        fn every_postcondition_holds(b in 0i32..4, m in 3i32..6, s in 3i32..5, bits in prop::sample::select(vec![8i64, 16, 32, 64]), rows in 1i64..5, row_major in any::<bool>()) {
            let sw = Swizzle { b, m, s };
            let (r, c) = (8 * rows, 64);
            let l = if row_major { format!("(_{r},_{c}):(_{c},_1)") } else { format!("(_{r},_{c}):(_1,_{r})") };
            let t = smem(sw, bits, &l);
            let n = as_position_independent_swizzle_tensor(&t).unwrap();
            prop_assert_eq!(check_postcondition(&t, &n).unwrap(), None);
        }
    }
}
