//! `slice_and_offset(c, Sw o O o L)` for a swizzled composed layout (swizzle_layout.hpp), what
//! `sA(_,_,k)` does to a swizzled shared-memory layout.
//!
//! Definition (CuTe 4.2, cute/swizzle_layout.hpp `slice_and_offset(Coord, ComposedLayout<Swizzle<B,M,S>,
//! Offset,Layout>)`):
//! - a coordinate of `_` only: `(composition(Sw, O, slice(c, L)), _0)`;
//! - otherwise, with `sw = make_layout((2^M, 2^B, 2^(|S|-B), 2^B, 1))`, its projections
//!   `anti_zy` (strides `(1, 0, 2^(M+B), 0, size)`: the bits the swizzle leaves alone) and
//!   `only_zy` (strides `(0, 2^M, 0, 2^(M+|S|), 0)`: its Y and Z bits), `sliced = slice(c, L)`,
//!   `diced = dice(c, L)` at `dice(c, c)`: the new offset is `O ^ to_mixed_bits(only_zy o diced,
//!   dice(c, c))` and the pointer offset `(anti_zy o diced)(dice(c, c))`; when the sliced layout's
//!   swizzle bits `a = (only_zy o sliced)(size - 1)` hit Y and Z together (`a & ~Sw(a) != 0`), the
//!   result is `composition(Sw, new offset, sliced)`; otherwise CuTe decays it to a plain layout
//!   with swizzled strides.
//!
//! Modelled: the coordinate of `_` only, and the slice that consumes no swizzle bit (`only_zy o
//! diced` has zero strides, so the new offset is CuTe's `_0 ^ _0 = _0` for a static zero offset or
//! a shared-memory `smem_ptr_flag_bits<B>`, which derives from `Int<0>`) of a layout that keeps
//! hitting Y and Z; the rest (a MixedBits offset, the decay to a plain layout) is refused as not
//! modelled.
//!
//! Postconditions (checked by [`check_postconditions`]): for every `i < size(R)`, with `full(i)`
//! the coordinate made of `i`'s coordinates at the `_` positions of `c` and `c`'s integers
//! elsewhere, `R(i) + offset == (Sw o O o L)(full(i))` [the defining property of a slice of a
//! tensor: the sliced tensor at `i` is the whole tensor at `full(i)`, tensor_impl.hpp].

use super::composition::composition;
use super::dice::dice;
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::{crd2idx, Layout};
use super::postcondition::{Checked, Violation};
use super::slice::{slice, Coord};
use super::swizzle::{ComposedLayout, Offset};

const CITE: &str = "swizzle_layout.hpp slice_and_offset(Coord, ComposedLayout<Swizzle,...>): the slice of a tensor at i is the tensor at the full coordinate";

fn all_under(c: &Coord) -> bool {
    match c {
        Coord::Under => true,
        Coord::Int(_) => false,
        Coord::Tuple(v) => v.iter().all(all_under),
    }
}

fn not_modelled(what: &str, c: &ComposedLayout) -> Error {
    Error::Type(format!("slicing {c}: {what} is not modelled"))
}

/// The integers of a coordinate (CuTe's `dice(c, c)`), as an int tuple.
fn diced_coord(c: &Coord) -> IntTuple {
    fn lift(c: &Coord, out: &mut Vec<IntTuple>) {
        match c {
            Coord::Under => {}
            Coord::Int(i) => out.push(IntTuple::leaf(*i)),
            Coord::Tuple(v) => v.iter().for_each(|x| lift(x, out)),
        }
    }
    match c {
        Coord::Int(i) => IntTuple::leaf(*i),
        _ => {
            let mut out = Vec::new();
            lift(c, &mut out);
            IntTuple::tuple(out)
        }
    }
}

/// CuTe's `slice_and_offset(c, Sw o O o L)`, where modelled (see the module doc).
pub fn slice_and_offset(c: &Coord, x: &ComposedLayout) -> Result<(ComposedLayout, Int)> {
    if all_under(c) {
        return Ok((ComposedLayout { layout: slice(c, &x.layout)?, ..x.clone() }, Int::st(0)));
    }
    // CuTe's smem_ptr_flag_bits<B> derives from Int<0>: in `O ^ to_mixed_bits(...)` it is `_0`,
    // and the sliced layout's offset is a plain `_0` (a real-CuTe probe of a tiled GMMA atom).
    if !matches!(x.offset, Offset::Int(o) if o.is_static_value(0)) && !matches!(x.offset, Offset::SmemPtr(_)) {
        return Err(not_modelled("a slice with an offset other than _0", x));
    }
    let (b, m, s) = (x.swizzle.b as i64, x.swizzle.m as i64, x.swizzle.s.abs() as i64);
    let shape = IntTuple::of_static([1 << m, 1 << b, 1 << (s - b), 1 << b, 1].into_iter());
    let st = |v: [i64; 5]| IntTuple::of_static(v.into_iter());
    let size = 1i64 << (m + b + s);
    let anti = Layout { shape: shape.clone(), stride: st([1, 0, 1 << (m + b), 0, size]) };
    let only = Layout { shape, stride: st([0, 1 << m, 0, 1 << (m + s), 0]) };
    let sliced = slice(c, &x.layout)?;
    let diced = dice(c, &x.layout)?;
    let coord = diced_coord(c);
    let only_diced = composition(&only, &diced)?;
    if only_diced.stride.leaves().iter().any(|d| !d.is_static_value(0)) {
        return Err(not_modelled("a slice that moves the swizzle's bits (a MixedBits offset)", x));
    }
    let anti_diced = composition(&anti, &diced)?;
    let offset = crd2idx(&coord, &anti_diced.shape, &anti_diced.stride)?;
    let only_sliced = composition(&only, &sliced)?;
    let n = only_sliced.size()?.value;
    let active = only_sliced.call_int(Int::dy(n - 1))?.value;
    if active & !x.swizzle.apply(active) == 0 {
        return Err(not_modelled("a slice that CuTe decays to a plain layout", x));
    }
    Ok((ComposedLayout { swizzle: x.swizzle, offset: Offset::Int(Int::st(0)), layout: sliced }, offset))
}

/// The postcondition above for `slice_and_offset(c, x) == (r, off)`.
pub fn check_postconditions(c: &Coord, x: &ComposedLayout, r: &ComposedLayout, off: Int) -> Checked {
    let err = |e: Error| Violation::unverifiable(e.to_string());
    let n = r.layout.size().map_err(err)?.value;
    if n > super::layout::MAX_WALK {
        return Err(Violation::unverifiable(format!("too large: {n} coordinates")));
    }
    // The kept sub-layouts, in order: the same walk as slice's.
    let kept = slice(c, &x.layout).map_err(err)?;
    for i in 0..n {
        let sub = kept.modes();
        let mut rest = i;
        let mut vals = Vec::new();
        for k in &sub {
            let s = k.size().map_err(err)?.value;
            vals.push(IntTuple::dy(rest % s));
            rest /= s;
        }
        let full = fill(c, &mut vals.into_iter()).map_err(err)?;
        let want = x.call(&full).map_err(err)?.value;
        let got = r.call(&IntTuple::dy(i)).map_err(err)?.value + off.value;
        if got == want {
            continue;
        }
        return Err(Violation::cute(CITE, format!("{r}({i}) + {off} = {got} but {x}{full} = {want}")));
    }
    Ok(())
}

fn fill(c: &Coord, vals: &mut impl Iterator<Item = IntTuple>) -> Result<IntTuple> {
    Ok(match c {
        Coord::Under => vals.next().ok_or_else(|| Error::OutOfRange("too few kept modes".into()))?,
        Coord::Int(i) => IntTuple::leaf(*i),
        Coord::Tuple(v) => IntTuple::tuple(v.iter().map(|x| fill(x, vals)).collect::<Result<Vec<_>>>()?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swizzle::Swizzle;
    use crate::test_util::{l, t};

    #[test]
    fn stage_slices_keep_the_swizzle() {
        let x = ComposedLayout {
            swizzle: Swizzle { b: 3, m: 3, s: 3 },
            offset: Offset::Int(Int::st(0)),
            layout: l("((_8,_16),((_8,_8),_1),(_1,_3)):((_8,_512),((_1,_64),_0),(_0,_8192))"),
        };
        for k in 0..3 {
            let c = Coord::from_tiler(&t(&format!("(_,_,{k})"))).unwrap();
            let (r, off) = slice_and_offset(&c, &x).unwrap();
            assert_eq!(off.value, 8192 * k);
            check_postconditions(&c, &x, &r, off).unwrap();
        }
        let c = Coord::from_tiler(&t("(_,_,_)")).unwrap();
        let (r, off) = slice_and_offset(&c, &x).unwrap();
        check_postconditions(&c, &x, &r, off).unwrap();
        // A slice through the swizzle's bits is refused, not guessed.
        let c = Coord::from_tiler(&t("(3,_,_)")).unwrap();
        assert!(slice_and_offset(&c, &x).is_err());
    }
}
