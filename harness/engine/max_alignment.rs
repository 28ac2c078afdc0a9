//! `max_alignment(layout)` (layout.hpp) and the vector width of CuTe's auto-vectorizing copy
//! (`copy(src, dst)`, algorithm/copy.hpp), the width one thread's `copy` moves per instruction.
//!
//! Definition (CuTe 4.2, layout.hpp): "the largest N for which upcast<N>(layout) will compile",
//! computed as: `flat = coalesce(layout)`; dynamic extents become 1 and dynamic strides 0
//! (`filter_layout`); `permuted = logical_divide(filter_layout, right_inverse(filter_layout))`;
//! the result is `gcd(size<0>(permuted), stride<1>(permuted))`, CuTe's gcd folding a tuple
//! stride over its elements (int_tuple.hpp).
//!
//! `copy(src, dst)` of two tensors with static layouts is
//! `AutoVectorizingCopyWithAssumedAlignment<128>` (copy.hpp): with `common =
//! max_common_vector(src, dst)`, when `common > 1`, `align_bits = gcd(max_alignment(src),
//! max_alignment(dst), 128)` (a tensor's alignment is its pointer's, `_0` for a raw or
//! gmem/smem pointer, gcd'd with `max_alignment(layout) * sizeof_bits<T>`) and `vec_bits =
//! gcd(common * sizeof_bits<T>, align_bits)`; the copy moves `vec_bits` at a time when that is a
//! multiple of 8 larger than `T`, and one `T` at a time otherwise.
//!
//! Postconditions (tests below): `max_alignment` is at least 1 and divides every static stride of
//! the coalesced layout but the unit one, and the unit-stride extent (upcast<N>'s divisibility);
//! the copy's width is a multiple of the element, at most 128 bits (or one element) and at most
//! `common` elements. The SASS check (`gpu::vector`) holds [`copy_vector_bits`] against nvcc's
//! output: the width of each load CuTe's `copy` emits.

use super::coalesce::coalesce;
use super::error::Result;
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::Layout;
use super::logical_divide::logical_divide_layout;
use super::max_common::max_common_vector;
use super::right_inverse::right_inverse;

/// CuTe's `max_alignment(layout)`.
pub fn max_alignment(layout: &Layout) -> Result<i64> {
    let flat = coalesce(layout)?;
    let pairs = flat.leaf_pairs();
    let shape: Vec<IntTuple> =
        pairs.iter().map(|(s, _)| IntTuple::leaf(if s.is_static { *s } else { Int::st(1) })).collect();
    let stride: Vec<IntTuple> =
        pairs.iter().map(|(_, d)| IntTuple::leaf(if d.is_static { *d } else { Int::st(0) })).collect();
    let filter_layout = Layout::new(IntTuple::tuple(shape), IntTuple::tuple(stride))?;
    let permuted = logical_divide_layout(&filter_layout, &right_inverse(&filter_layout)?)?;
    let size0 = permuted.mode(0)?.size()?;
    // CuTe's gcd folds a tuple argument over its elements (int_tuple.hpp).
    let stride1 = permuted.mode(1)?;
    Ok(stride1.leaf_pairs().iter().fold(size0, |g, (_, d)| g.gcd(*d)).value)
}

/// The bits one `copy(src, dst)` instruction moves for static layouts of `elem_bits`-bit
/// elements (`AutoVectorizingCopyWithAssumedAlignment<128>`).
pub fn copy_vector_bits(src: &Layout, dst: &Layout, elem_bits: i64) -> Result<i64> {
    let common = max_common_vector(src, dst)?.value;
    if common <= 1 {
        return Ok(elem_bits);
    }
    let g = |a: i64, b: i64| Int::dy(a).gcd(Int::dy(b)).value;
    let align_bits = g(g(max_alignment(src)? * elem_bits, max_alignment(dst)? * elem_bits), 128);
    let vec_bits = g(common * elem_bits, align_bits);
    Ok(if vec_bits % 8 == 0 && elem_bits < vec_bits { vec_bits } else { elem_bits })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::l;

    /// Postconditions: `N >= 1`, and `N` divides every static stride of the coalesced layout but
    /// the unit one (upcast<N>'s divisibility on strides), and the extent of a unit-stride mode.
    #[test]
    fn alignment_divides_the_strides_and_the_contiguous_run() {
        for text in
            ["(_8,_8):(_1,_16)", "(_8,_8):(_1,_9)", "(_16):(_2)", "(_4,_2):(_1,_4)", "(_2,(_2,_4)):(_8,(_1,_16))"]
        {
            let lay = l(text);
            let n = max_alignment(&lay).unwrap();
            assert!(n >= 1, "{text}");
            for (s, d) in coalesce(&lay).unwrap().leaf_pairs() {
                if d.value == 1 {
                    assert_eq!(s.value % n, 0, "{text}: {n} divides the unit-stride extent {s}");
                } else if s.value > 1 {
                    assert_eq!(d.value % n, 0, "{text}: {n} divides stride {d}");
                }
            }
        }
    }

    #[test]
    fn the_vector_never_exceeds_128_bits_nor_the_common_vector() {
        for (s, d) in [
            ("(_8):(_1)", "(_8):(_1)"),
            ("(_2,_2):(_1,_16)", "(_2,_2):(_1,_2)"),
            ("(_4,_4):(_4,_1)", "(_4,_4):(_1,_4)"),
        ] {
            for bits in [8, 16, 32, 64] {
                let (s, d) = (l(s), l(d));
                let v = copy_vector_bits(&s, &d, bits).unwrap();
                let common = max_common_vector(&s, &d).unwrap().value;
                assert!(v <= 128.max(bits) && v % bits == 0 && v <= common.max(1) * bits, "{s} {d} {bits}: {v}");
            }
        }
    }
}
