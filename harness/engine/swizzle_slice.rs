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
//! hitting Y and Z, keeping the swizzle with a static or a `MixedBits` offset (a run-time
//! coordinate through the swizzle's bits: `Offset::Mixed`, printed `M_S|(d&F)=v`), and the decay
//! to a plain layout; a layout whose offset is already MixedBits (a slice of such a slice, or a
//! CUTLASS 3.3 partition of a swizzled layout) enters `O ^ to_mixed_bits(...)` with that offset
//! (kernel_forms.cases on 3.3.0.0: `Sw<2,3,3> o M_0|(128&200)=128 o ...` sliced at `(_,_,_,0)`
//! keeps its offset).
//!
//! Postconditions (checked by [`check_postconditions`]): for every `i < size(R)`, with `full(i)`
//! the coordinate made of `i`'s coordinates at the `_` positions of `c` and `c`'s integers
//! elsewhere, `R(i) + offset == (Sw o O o L)(full(i))` [the defining property of a slice of a
//! tensor: the sliced tensor at `i` is the whole tensor at `full(i)`, tensor_impl.hpp].

use super::composition::composition;
use super::dice::dice;
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::{IntTuple, Tup, View};
use super::layout::{crd2idx, Layout};
use super::postcondition::{Checked, Violation};
use super::slice::{slice, Coord};
use super::swizzle::{ComposedLayout, Offset, SwizzledLayout};

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
pub fn slice_and_offset(c: &Coord, x: &ComposedLayout) -> Result<(SwizzledLayout, Int)> {
    if let (Offset::SmemPtr(_), true) = (x.offset, super::release::SMEM_FLAG_SLICE_KEEPS_OFFSET.on()) {
        // From 4.6 (pointer_flagged.hpp): slice L alone; the offset stays in the layout (the flag
        // is Int<0>, so flag + offset is the offset, static only when it is).
        let (sliced, off) = super::slice::slice_and_offset(c, &x.layout)?;
        let offset = if off.is_static_value(0) { x.offset } else { Offset::Int(off) };
        return Ok((
            SwizzledLayout::Composed(ComposedLayout { swizzle: x.swizzle, offset, layout: sliced }),
            Int::st(0),
        ));
    }
    if all_under(c) {
        return Ok((
            SwizzledLayout::Composed(ComposedLayout { layout: slice(c, &x.layout)?, ..x.clone() }),
            Int::st(0),
        ));
    }
    // CuTe's smem_ptr_flag_bits<B> derives from Int<0>: in `O ^ to_mixed_bits(...)` it is `_0`,
    // and the sliced layout's offset is a plain `_0` (a real-CuTe probe of a tiled GMMA atom).
    // A MixedBits offset (a slice of a slice, CUTLASS 3.3's partitions) enters CuTe's
    // `O ^ to_mixed_bits(...)` as it is.
    if !matches!(x.offset, Offset::Int(o) if o.is_static_value(0))
        && !matches!(x.offset, Offset::SmemPtr(_) | Offset::Mixed { .. })
    {
        return Err(not_modelled("a slice with an offset other than _0", x));
    }
    let (b, m, s) = (x.swizzle.b as i64, x.swizzle.m as i64, x.swizzle.s.abs() as i64);
    if b == 0 {
        return Err(not_modelled("a swizzle of no bits", x));
    }
    let shape = IntTuple::of_static([1 << m, 1 << b, 1 << (s - b), 1 << b, 1].into_iter());
    let st = |v: [i64; 5]| IntTuple::of_static(v.into_iter());
    let size = 1i64 << (m + b + s);
    let anti = Layout { shape: shape.clone(), stride: st([1, 0, 1 << (m + b), 0, size]) };
    let only = Layout { shape, stride: st([0, 1 << m, 0, 1 << (m + s), 0]) };
    let sliced = slice(c, &x.layout)?;
    let diced = dice(c, &x.layout)?;
    let coord = diced_coord(c);
    // The projections `only_zy o diced`, `anti_zy o diced` and `only_zy o sliced` are steps of
    // CuTe's algorithm, read at one coordinate each: CuTe's composition as it computes it. Where
    // one is not the composition by definition (a diced or sliced layout whose leaves carry past a
    // mode of the projection: CUTLASS 3.5-3.7 coalesce tile_to_shape's result, so a thread's
    // (_8,_16):(_8,_32) walks columns past the row, partition_swizzled.cases:16), the slice
    // itself is checked against its definition before it is returned.
    let mut exact = true;
    let mut project = |a: &Layout, b: &Layout| -> Result<Layout> {
        match composition(a, b) {
            Err(Error::Undefined { .. }) => {
                exact = false;
                super::composition::composition_unchecked(a, b)
            }
            r => r,
        }
    };
    let only_diced = project(&only, &diced)?;
    let base = match x.offset {
        Offset::Int(o) if o.is_static => Mixed::St(o.value as u32),
        // smem_ptr_flag_bits<B> derives from Int<0>.
        Offset::SmemPtr(_) => Mixed::St(0),
        Offset::Int(_) => return Err(not_modelled("a slice with a dynamic offset", x)),
        Offset::Mixed { s, f, d } => Mixed::Mb { s, f, d },
    };
    let offset_only_zy = base.xor(to_mixed_bits(&only_diced, &coord, x)?);
    let anti_diced = project(&anti, &diced)?;
    let offset_anti_zy = crd2idx(&coord, &anti_diced.shape, &anti_diced.stride)?;
    let only_sliced = project(&only, &sliced)?;
    let verified = |r: (SwizzledLayout, Int)| -> Result<(SwizzledLayout, Int)> {
        if !exact && super::runtime::checks_on() {
            super::postcondition::enforce("slice_and_offset", check_postconditions(c, x, &r.0, r.1))?;
        }
        Ok(r)
    };
    let n = only_sliced.size()?;
    let active = only_sliced.call_int(n.sub(Int::st(1))?)?;
    if active.is_static && active.value & !x.swizzle.apply(active.value) != 0 {
        // Hits Y and Z: the swizzle stays, with the new offset.
        let offset = match offset_only_zy {
            Mixed::St(o) => Offset::Int(Int::st(o as i32 as i64)),
            Mixed::Mb { s, f, d } => Offset::Mixed { s, f, d },
        };
        return verified((
            SwizzledLayout::Composed(ComposedLayout { swizzle: x.swizzle, offset, layout: sliced }),
            offset_anti_zy,
        ));
    }
    // Decay to a plain layout: the swizzle's strides at this offset, composed with the slice.
    let sw = x.swizzle;
    let (z, y) = (sw.zzz_mask() & -sw.zzz_mask(), sw.yyy_mask() & -sw.yyy_mask());
    let strides = |z_first: bool| -> Vec<Int> {
        (0..b)
            .map(|i| {
                let (cond, t, f) = if z_first {
                    (offset_only_zy.and_is_zero((y << i) as u32), z << i, -z << i)
                } else {
                    (offset_only_zy.and_is_zero((z << i) as u32), (y + z) << i, (y - z) << i)
                };
                // conditional_return: a static condition picks a static value; a dynamic one an int.
                match cond {
                    // Before 3.6 a negative (Y-Z) << I is a run-time int ([`SWIZZLE_STRIDES_MULTIPLY`]).
                    Some(c) => {
                        let v = if c { t } else { f };
                        if !z_first && v < 0 && !super::release::SWIZZLE_STRIDES_MULTIPLY.on() {
                            Int::dy(v)
                        } else {
                            Int::st(v)
                        }
                    }
                    None if t == f => Int::st(t),
                    None => Int::dy(if offset_only_zy.value() & ((if z_first { y } else { z } << i) as u32) == 0 {
                        t
                    } else {
                        f
                    }),
                }
            })
            .collect()
    };
    let (lo, hi) = (strides(z < y), strides(z > y));
    let twos = || if b == 1 { IntTuple::st(2) } else { IntTuple::tuple((0..b).map(|_| IntTuple::st(2))) };
    let group = |v: Vec<Int>| {
        if v.len() == 1 {
            IntTuple::leaf(v[0])
        } else {
            IntTuple::tuple(v.into_iter().map(IntTuple::leaf))
        }
    };
    let sw_layout = Layout {
        shape: IntTuple::tuple([IntTuple::st(1 << m), twos(), IntTuple::st(1 << (s - b)), twos(), IntTuple::st(1)]),
        stride: IntTuple::tuple([
            IntTuple::st(1),
            group(lo),
            IntTuple::st(1 << (m + b)),
            group(hi),
            IntTuple::st(size),
        ]),
    };
    let layout = composition(&sw_layout, &sliced)?;
    let swizzled = Int::new(sw.apply(offset_only_zy.value() as i32 as i64), offset_only_zy.is_static());
    let offset = if swizzled.is_static && offset_anti_zy.is_static {
        swizzled.add(offset_anti_zy)?
    } else {
        Int::dy(swizzled.value).add(offset_anti_zy)?
    };
    verified((SwizzledLayout::Plain(layout), offset))
}

/// A value of CuTe's bit arithmetic on offsets (swizzle.hpp): a static integer `C<s>`, or a
/// `MixedBits<S,F>` whose bits `F` are dynamic (`d`, within `F`) and the rest static (`S`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mixed {
    St(u32),
    Mb { s: u32, f: u32, d: u32 },
}

impl Mixed {
    /// `make_mixed_bits(C<s>, d, C<f>)` for a dynamic `d`: static bits take precedence; no dynamic
    /// flag left is a static int (`C<s> | (d & C<0>)`, and `d & _0` is `_0`).
    fn make(s: u32, d: u32, f: u32) -> Mixed {
        let f = f & !s;
        if f == 0 {
            Mixed::St(s)
        } else {
            Mixed::Mb { s, f, d: d & f }
        }
    }
    fn value(self) -> u32 {
        match self {
            Mixed::St(s) => s,
            Mixed::Mb { s, d, .. } => s | d,
        }
    }
    fn is_static(self) -> bool {
        matches!(self, Mixed::St(_))
    }
    /// `operator^` (swizzle.hpp's truth tables for MixedBits and C).
    fn xor(self, o: Mixed) -> Mixed {
        match (self, o) {
            (Mixed::St(a), Mixed::St(b)) => Mixed::St(a ^ b),
            (Mixed::Mb { s, f, d }, Mixed::St(k)) | (Mixed::St(k), Mixed::Mb { s, f, d }) => {
                Mixed::make((!s & k & !f) | (s & !k), (s | d) ^ k, f)
            }
            (Mixed::Mb { s: s0, f: f0, d: d0 }, Mixed::Mb { s: s1, f: f1, d: d1 }) => {
                Mixed::make((!s0 & s1 & !f0) | (s0 & !s1 & !f1), (s0 | d0) ^ (s1 | d1), f0 | f1)
            }
        }
    }
    /// `(self & C<k>) == Int<0>`: `Some` when CuTe's answer is a static bool, `None` when dynamic.
    fn and_is_zero(self, k: u32) -> Option<bool> {
        match self {
            Mixed::St(s) => Some(s & k == 0),
            Mixed::Mb { s, f, d } => match Mixed::make(s & k, d, f & k) {
                Mixed::St(v) => Some(v == 0),
                Mixed::Mb { .. } => None,
            },
        }
    }
}

/// `idx2crd(coord, shape)`'s leaves (int_tuple.hpp / layout.hpp): an integer split over a tuple
/// shape column-major; a leaf of static extent 1 is `_0`; otherwise `(idx / d) % s`.
fn idx2crd_leaves(c: &Tup, shape: &Tup, out: &mut Vec<Int>) -> Result<()> {
    match (c.view(), shape.view()) {
        (View::Tuple(cs), View::Tuple(ss)) if cs.len() == ss.len() => {
            for (ci, si) in cs.iter().zip(ss) {
                idx2crd_leaves(ci, si, out)?;
            }
            Ok(())
        }
        (View::Leaf(i), _) => {
            let mut d = Int::st(1);
            for s in shape.leaves() {
                out.push(if s.is_static_value(1) { Int::st(0) } else { i.div(d)?.rem(s)? });
                d = d.mul(s)?;
            }
            Ok(())
        }
        _ => Err(Error::MismatchedRanks { detail: format!("coordinate {c} does not match shape {shape}") }),
    }
}

/// `to_mixed_bits(layout, coord)`: the XOR over leaves of `make_mixed_bits(_0, c*d, (s-1)*d)`.
fn to_mixed_bits(l: &Layout, coord: &IntTuple, x: &ComposedLayout) -> Result<Mixed> {
    let mut cs = Vec::new();
    idx2crd_leaves(coord, &l.shape, &mut cs)?;
    let mut acc: Option<Mixed> = None;
    for ((s, d), c) in l.leaf_pairs().into_iter().zip(cs) {
        if !s.is_static || !d.is_static {
            return Err(not_modelled("a slice of a dynamic layout through the swizzle's bits", x));
        }
        let span = s.value * d.value;
        if span != 0 && (span < 0 || span & (span - 1) != 0) {
            return Err(Error::Rejected { condition: "Requires pow2 shape*stride.", detail: x.to_string() });
        }
        let cd = c.mul(d)?;
        let f = ((s.value - 1) * d.value) as u32;
        let leaf = if cd.is_static { Mixed::St(cd.value as u32 & f) } else { Mixed::make(0, cd.value as u32, f) };
        acc = Some(match acc {
            None => leaf,
            Some(a) => a.xor(leaf),
        });
    }
    Ok(acc.unwrap_or(Mixed::St(0)))
}

/// The postcondition above for `slice_and_offset(c, x) == (r, off)`.
pub fn check_postconditions(c: &Coord, x: &ComposedLayout, r: &SwizzledLayout, off: Int) -> Checked {
    let err = |e: Error| Violation::unverifiable(e.to_string());
    let n = match r {
        SwizzledLayout::Plain(l) => l.size(),
        SwizzledLayout::Composed(r) => r.layout.size(),
    }
    .map_err(err)?
    .value;
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
        let at = IntTuple::dy(i);
        let got = match r {
            SwizzledLayout::Plain(l) => l.call(&at),
            SwizzledLayout::Composed(r) => r.call(&at),
        }
        .map_err(err)?
        .value
            + off.value;
        if got == want {
            continue;
        }
        let r = match r {
            SwizzledLayout::Plain(l) => l.to_string(),
            SwizzledLayout::Composed(r) => r.to_string(),
        };
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
        // A slice through the swizzle's bits decays to a plain layout whose strides are the
        // swizzle's at that offset (real CuTe 4.2 prints ((_8,_16),(_1,_3)):((8,_512),(_0,_8192))
        // and offset 88 for thread-like coordinate 3 of mode 0; fixtures/cases/partition_swizzled.cases).
        for k in 0..8 {
            let c = Coord::from_tiler(&t(&format!("({k},_,_)"))).unwrap();
            let (r, off) = slice_and_offset(&c, &x).unwrap();
            assert!(matches!(r, SwizzledLayout::Plain(_)), "{k}");
            check_postconditions(&c, &x, &r, off).unwrap();
        }
    }

    #[test]
    fn a_kept_swizzle_takes_a_mixed_bits_offset() {
        // sm80_mma_multistage.hpp's tf32 B operand: the stage slice (_,_,0) of
        // Sw<3,2,3> o _0 o ((_4,_16,_2),(_1,(_2,_2)),(_4,_4,(_1,_3))) at a dynamic thread coordinate
        // keeps the swizzle with a MixedBits offset (what CuTe prints as `M_S|(d&F)=v`).
        let x = ComposedLayout {
            swizzle: Swizzle { b: 3, m: 2, s: 3 },
            offset: Offset::Int(Int::st(0)),
            layout: l(
                "((_4,_16,_2),(_1,(_2,_2)),(_4,_4,(_1,_3))):((_32,_1,_0),(_0,(_128,_16)),(_256,_1024,(_0,_4096)))",
            ),
        };
        let c = Coord::from_tiler(&t("((1,5,_),(_,_),(_,_,_))")).unwrap();
        let (r, off) = slice_and_offset(&c, &x).unwrap();
        let SwizzledLayout::Composed(k) = &r else { panic!("decayed to a plain layout") };
        assert!(matches!(k.offset, Offset::Mixed { .. }), "{k}");
        assert!(k.to_string().starts_with("Sw<3,2,3> o M_"), "{k}");
        check_postconditions(&c, &x, &r, off).unwrap();
    }

    #[test]
    fn mixed_bits_follow_cutes_truth_tables() {
        // A dynamic bit XOR a static one stays dynamic; static bits take precedence in make.
        let m = Mixed::make(0, 0b1010, 0b1110);
        assert_eq!(m, Mixed::Mb { s: 0, f: 0b1110, d: 0b1010 });
        assert_eq!(m.xor(Mixed::St(0b0001)), Mixed::Mb { s: 0b0001, f: 0b1110, d: 0b1010 });
        assert_eq!(m.xor(Mixed::St(0b0001)).value(), 0b1011);
        assert_eq!(Mixed::make(0b0010, 5, 0b0010), Mixed::St(0b0010));
        assert_eq!(m.and_is_zero(0b0001), Some(true));
        assert_eq!(m.and_is_zero(0b0010), None);
        assert_eq!(Mixed::St(4).and_is_zero(4), Some(false));
    }

    proptest::proptest! {
        /// Every slice of a tiled swizzled stage layout by integers in any modes (static or
        /// dynamic) is CuTe's slice: the sliced tensor at i is the tensor at the full coordinate.
        #[test]
        fn every_slice_is_the_tensor_at_the_full_coordinate(
            sw in proptest::sample::select(vec![(3, 3, 3), (2, 3, 3), (3, 4, 3), (2, 4, 3), (1, 4, 3), (3, 3, -3)]),
            picks in proptest::collection::vec(proptest::option::of((0i64..16, proptest::bool::ANY)), 3),
        ) {
            let (b, m, s) = sw;
            let x = ComposedLayout {
                swizzle: crate::swizzle::Swizzle { b, m, s },
                offset: Offset::Int(Int::st(0)),
                layout: l("((_8,_16),(_64,_1),(_1,_3)):((_64,_512),(_1,_0),(_0,_8192))"),
            };
            let modes: Vec<String> = picks.iter().zip([128i64, 64, 3]).map(|(p, n)| match p {
                None => "_".to_string(),
                Some((v, st)) => format!("{}{}", if *st { "_" } else { "" }, v % n),
            }).collect();
            let c = Coord::from_tiler(&t(&format!("({})", modes.join(",")))).unwrap();
            // Every such slice is modelled (a kept swizzle with a MixedBits offset included).
            let (r, off) = slice_and_offset(&c, &x).unwrap();
            check_postconditions(&c, &x, &r, off).unwrap();
            // A MixedBits offset is CuTe's make_mixed_bits: its dynamic bits lie within F, F and
            // the static bits S are disjoint, and it prints `M_S|(d&F)=S|d`.
            if let SwizzledLayout::Composed(ComposedLayout { offset: Offset::Mixed { s, f, d }, .. }) = &r {
                proptest::prop_assert!(*f != 0 && d & !f == 0 && s & f == 0, "M_{s}|({d}&{f})");
                proptest::prop_assert_eq!(Offset::Mixed { s: *s, f: *f, d: *d }.to_string(), format!("M_{s}|({d}&{f})={}", s | d));
            }
        }
    }
}
