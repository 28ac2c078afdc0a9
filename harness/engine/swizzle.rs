//! CuTe's `Swizzle<B,M,S>` and the composed layout `Swizzle o offset o Layout`.
//!
//! Definition (CuTe, swizzle.hpp): with `mask = 2^B - 1`, the Y bits are
//! `yyy = mask << (M + max(0,S))` and the Z bits `zzz = mask << (M - min(0,S))`;
//! `Sw(x) = x ^ ((x & yyy) >> S)` (a negative S shifts left). CuTe requires
//! `M >= 0` ("MBase must be positive."), `B >= 0` ("BBits must be positive.") and
//! `|S| >= B` ("abs(SShift) must be more than BBits.").
//!
//! `composition(Sw, L)` is CuTe's `ComposedLayout<Sw, _0, L>`, printed `Sw<B,M,S> o _0 o L`, whose
//! value at a coordinate c is `Sw(0 + L(c))`; `composition(Swizzle<0,M,S>, L)` is `L` itself.
//!
//! `composition(L, Sw)` makes the swizzle whose Y and Z bits are `L(yyy)` and `L(zzz)` (CuTe's
//! `make_swizzle`: B = popcount, M = the smaller count of trailing zeros, S their difference;
//! "Number of bits in Y and Z don't match" otherwise) and composes it with `L`; both images must be
//! static (they are `make_swizzle`'s template arguments, swizzle_layout.hpp).
//!
//! Postconditions: `Sw` is an involution (`Sw(Sw(x)) == x`) and only changes Z bits, so it
//! permutes every aligned block of `2^(M + B + |S|)` integers.

use std::fmt;

use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::Tup;
use super::layout::Layout;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle {
    pub b: i32,
    pub m: i32,
    pub s: i32,
}

impl Swizzle {
    pub fn new(b: i64, m: i64, s: i64) -> Result<Swizzle> {
        let rej = |condition: &'static str| Err(Error::Rejected { condition, detail: format!("Swizzle<{b},{m},{s}>") });
        if m < 0 {
            return rej("MBase must be positive.");
        }
        if b < 0 {
            return rej("BBits must be positive.");
        }
        if s.abs() < b {
            return rej("abs(SShift) must be more than BBits.");
        }
        // swizzle.hpp: `constant<int, bit_msk{} << (num_base + max(0,num_shft))>` (and zzz_msk).
        // In C++17 a left shift into the sign bit is defined (the bits, read as an `int`), so
        // CuTe accepts `BBits + MBase + abs(SShift) == 32` (`Sw<1,0,31>` prints); one bit more is
        // a shift past the width, which no constant expression allows (g++: "right operand of
        // shift expression '(1 << 32)' is greater than or equal to the precision 32").
        if m + b + s.abs() > 32 {
            return Err(Error::Overflow { what: "swizzle mask", op: "Swizzle" });
        }
        Ok(Swizzle { b: b as i32, m: m as i32, s: s as i32 })
    }
    /// CuTe's `yyy_msk`, an `int`: the bits of `bit_msk << (MBase + max(0,SShift))` read as
    /// 32-bit (a mask reaching bit 31 is negative, as in CuTe).
    pub fn yyy_mask(&self) -> i64 {
        ((((1i64 << self.b) - 1) << (self.m + self.s.max(0))) as u32 as i32).into()
    }
    /// CuTe's `zzz_msk`, an `int` like [`Swizzle::yyy_mask`].
    pub fn zzz_mask(&self) -> i64 {
        ((((1i64 << self.b) - 1) << (self.m - self.s.min(0))) as u32 as i32).into()
    }
    /// `Sw(x)`.
    pub fn apply(&self, x: i64) -> i64 {
        let y = x & self.yyy_mask();
        let shifted = if self.s >= 0 { y >> self.s } else { y << (-self.s) };
        x ^ shifted
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.b, self.m, self.s)
    }
}

/// The middle of a composed layout: an integer offset, or CuTe's `smem_ptr_flag_bits<B>` (the
/// marker of a shared-memory layout whose swizzle acts on addresses of B-bit elements; printed
/// `smem_ptr[Bb](unset)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offset {
    Int(Int),
    SmemPtr(i64),
    /// `MixedBits<S,F>{d}` (swizzle.hpp): the offset a slice through a kept swizzle's bits at a
    /// run-time coordinate leaves (swizzle_layout.hpp slice_and_offset); bits `f` dynamic (`d`,
    /// within `f`), the rest static (`s`). Its value is `s | d`.
    Mixed {
        s: u32,
        f: u32,
        d: u32,
    },
}

impl fmt::Display for Offset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Offset::Int(i) => write!(f, "{i}"),
            Offset::SmemPtr(b) => write!(f, "smem_ptr[{b}b](unset)"),
            // swizzle.hpp print(MixedBits): "M_%u|(%u&%u)=%u", S, dynamic_int_, F, uint32_t(m).
            Offset::Mixed { s, f: m, d } => write!(f, "M_{s}|({d}&{m})={}", s | d),
        }
    }
}

/// `ComposedLayout<Swizzle, Offset, Layout>`: coordinate -> `swizzle(offset + layout(c))`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComposedLayout {
    pub swizzle: Swizzle,
    pub offset: Offset,
    pub layout: Layout,
}

impl ComposedLayout {
    fn int_offset(&self) -> Result<Int> {
        match self.offset {
            Offset::Int(i) => Ok(i),
            // MixedBits converts to uint32_t as `S | dynamic_int_`, a run-time value.
            Offset::Mixed { s, d, .. } => Ok(Int::dy((s | d) as i64)),
            Offset::SmemPtr(_) => Err(Error::Rejected {
                condition: "a layout over smem_ptr_flag is applied to a pointer, not evaluated",
                detail: self.to_string(),
            }),
        }
    }
    pub fn call(&self, coord: &Tup) -> Result<Int> {
        let i = self.int_offset()?.add(self.layout.call(coord)?)?;
        Ok(Int::new(self.swizzle.apply(i.value), i.is_static))
    }
    /// Values at the 1-D coordinates `0..size`, for brute-force checks.
    pub fn values(&self) -> Result<Vec<i64>> {
        let off = self.int_offset()?.value;
        Ok(self.layout.values()?.into_iter().map(|i| self.swizzle.apply(off + i)).collect())
    }
}

impl fmt::Display for ComposedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o {} o {}", self.swizzle, self.offset, self.layout)
    }
}

/// The result of `composition(swizzle, layout)`: the layout itself for a zero-bit swizzle,
/// else the composed layout with offset `_0`.
pub enum SwizzledLayout {
    Plain(Layout),
    Composed(ComposedLayout),
}

pub fn compose_swizzle(sw: Swizzle, layout: &Layout) -> SwizzledLayout {
    if sw.b == 0 {
        SwizzledLayout::Plain(layout.clone())
    } else {
        SwizzledLayout::Composed(ComposedLayout {
            swizzle: sw,
            offset: Offset::Int(Int::st(0)),
            layout: layout.clone(),
        })
    }
}

/// CuTe's `make_swizzle<Y, Z>()`: the swizzle whose Y bits are `y` and Z bits `z`.
pub fn make_swizzle(y: i64, z: i64) -> Result<Swizzle> {
    if !(0..=u32::MAX as i64).contains(&y) || !(0..=u32::MAX as i64).contains(&z) {
        return Err(Error::Rejected {
            condition: "make_swizzle needs 32-bit masks",
            detail: format!("Y = {y}, Z = {z}"),
        });
    }
    let (y, z) = (y as u32, z as u32);
    if y.count_ones() != z.count_ones() {
        return Err(Error::Rejected {
            condition: "Number of bits in Y and Z don't match",
            detail: format!("Y = {y:#b}, Z = {z:#b}"),
        });
    }
    let (ty, tz) = (y.trailing_zeros() as i64, z.trailing_zeros() as i64);
    let b = y.count_ones() as i64;
    let m = ty.min(tz) % 32;
    let s = ty - tz;
    let sw = Swizzle::new(b, m, s)?;
    if (y | z) as i64 != sw.yyy_mask() | sw.zzz_mask() {
        return Err(Error::Rejected { condition: "Something went wrong.", detail: format!("make_swizzle<{y},{z}>") });
    }
    Ok(sw)
}

/// `composition(L, Swizzle<B,M,S>)`: CuTe reads the layout at the swizzle's Y and Z masks,
/// `make_swizzle<L(yyy), L(zzz)>()`, and composes that swizzle with `L`.
pub fn compose_layout_swizzle(layout: &Layout, sw: Swizzle) -> Result<SwizzledLayout> {
    let y = layout.call_int(Int::st(sw.yyy_mask()))?;
    let z = layout.call_int(Int::st(sw.zzz_mask()))?;
    // `make_swizzle<active_Y, active_Z>()` takes the images as template arguments: a layout that
    // maps the masks to dynamic integers has no such call (CuTe does not compile it).
    if !y.is_static || !z.is_static {
        return Err(Error::Rejected {
            condition:
                "composition(Layout, Swizzle) needs L(yyy) and L(zzz) static (make_swizzle's template arguments)",
            detail: format!("{layout} at {} and {}", sw.yyy_mask(), sw.zzz_mask()),
        });
    }
    Ok(compose_swizzle(make_swizzle(y.value, z.value)?, layout))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CuTe (4.2, g++ 12) prints `Sw<1,0,31>`, `Sw<1,1,30>` and `Sw<2,0,30>` (masks reaching bit
    /// 31) and refuses `Swizzle<1,1,31>` ("right operand of shift expression '(1 << 32)' is
    /// greater than or equal to the precision 32"), as `cutecheck eval --both` showed.
    #[test]
    fn a_mask_past_int_is_an_overflow() {
        for (b, m, s) in [(1, 0, 31), (1, 1, 30), (2, 0, 30), (1, 0, -31)] {
            let sw = Swizzle::new(b, m, s).unwrap();
            assert!(sw.yyy_mask() < 0 || sw.zzz_mask() < 0, "{sw}: a mask reaches bit 31");
        }
        for (b, m, s) in [(1, 1, 31), (2, 0, 31), (1, 0, 32), (4, 10, 20)] {
            assert!(matches!(Swizzle::new(b, m, s), Err(Error::Overflow { .. })), "Swizzle<{b},{m},{s}>");
        }
        assert_eq!(Swizzle::new(3, 4, 3).unwrap().yyy_mask(), 0b111 << 7);
    }

    #[test]
    fn involution_and_permutation() {
        for (b, m, s) in [(1, 0, 1), (2, 0, 3), (3, 3, 3), (2, 1, -3), (3, 4, 3)] {
            let sw = Swizzle::new(b, m, s).unwrap();
            let n = 1i64 << (m + b + s.abs());
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = sw.apply(x);
                assert_eq!(sw.apply(y), x);
                assert!((0..n).contains(&y));
                seen[y as usize] = true;
            }
            assert!(seen.iter().all(|&v| v));
        }
        assert!(Swizzle::new(3, 0, 2).is_err());
        assert!(Swizzle::new(1, -1, 1).is_err());
        assert!(Swizzle::new(20, 20, 20).is_err());
    }
}
