//! Layouts: a shape and a stride of the same nesting, read as a function from coordinates to indices.
//!
//! Definition (CuTe, layout.hpp): for a layout `S:D` and a natural coordinate `c` (congruent to
//! `S`), `L(c) = sum_i c_i * d_i` over the leaves. A coordinate may also be an integer (a 1-D
//! coordinate, split colexicographically: mode 0 fastest) or any partially flattened tuple in
//! between; an integer landing on a tuple mode is split the same way, and the last mode is not
//! reduced modulo its extent (so out-of-range coordinates extend along it, as in CuTe).
//!
//! Invariants of [`Layout`]: `shape` and `stride` are congruent (checked by [`Layout::new`]).

use std::fmt;

use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::{IntTuple, Tup, View};

/// Most coordinates any brute-force walk visits: the definition checks of every operation, the
/// `print_layout` grid, atom tables, pictures. A larger layout is refused as "too large" (a
/// typed error), never walked. The harness's `limits::WALK` is this constant.
pub const MAX_WALK: i64 = 1 << 20;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Layout {
    pub shape: IntTuple,
    pub stride: IntTuple,
}

impl Layout {
    /// A layout from a shape and a congruent stride.
    pub fn new(shape: IntTuple, stride: IntTuple) -> Result<Layout> {
        if !shape.congruent(&stride) {
            return Err(Error::Rejected {
                condition: "Shape and Stride must be congruent",
                detail: format!("{shape} vs {stride}"),
            });
        }
        Ok(Layout { shape, stride })
    }
    /// `make_layout(shape)`: compact column-major strides (LayoutLeft), the first one `_1`.
    pub fn col_major(shape: IntTuple) -> Result<Layout> {
        let stride = shape.compact_col_major(Int::st(1))?;
        Ok(Layout { shape, stride })
    }
    /// `make_layout(shape, LayoutRight{})`: compact row-major strides, the last one `_1`.
    pub fn row_major(shape: IntTuple) -> Result<Layout> {
        let stride = shape.compact_row_major(Int::st(1))?;
        Ok(Layout { shape, stride })
    }
    /// A rank-1 layout `n:d` from two leaves.
    #[inline(always)]
    pub fn leaf(n: Int, d: Int) -> Layout {
        Layout { shape: IntTuple::leaf(n), stride: IntTuple::leaf(d) }
    }
    /// `make_layout(L0, L1, ...)`: the layouts side by side as the modes of a new layout.
    pub fn concat(layouts: &[Layout]) -> Layout {
        Layout {
            shape: IntTuple::tuple_of(layouts.iter().map(|l| &*l.shape)),
            stride: IntTuple::tuple_of(layouts.iter().map(|l| &*l.stride)),
        }
    }
    pub fn rank(&self) -> usize {
        self.shape.rank()
    }
    pub fn depth(&self) -> usize {
        self.shape.depth()
    }
    /// Mode `i` as a layout of its own (CuTe's `layout<i>`).
    pub fn mode(&self, i: usize) -> Result<Layout> {
        Ok(Layout { shape: self.shape.mode(i)?.to_owned(), stride: self.stride.mode(i)?.to_owned() })
    }
    /// Top-level modes as layouts.
    pub fn modes(&self) -> Vec<Layout> {
        self.shape
            .modes()
            .iter()
            .zip(self.stride.modes())
            .map(|(s, d)| Layout { shape: s.to_owned(), stride: d.to_owned() })
            .collect()
    }
    /// `flatten(layout)`: every leaf mode becomes a top-level mode.
    pub fn flatten(&self) -> Layout {
        Layout { shape: self.shape.flatten(), stride: self.stride.flatten() }
    }
    /// (shape, stride) pairs of the leaves, in colexicographic order.
    pub fn leaf_pairs(&self) -> Vec<(Int, Int)> {
        // Congruent or not (a hand-built Layout), the leaves are paired as they come.
        let mut out = Vec::with_capacity(self.shape.nodes().len());
        out.extend(self.shape.leaf_iter().zip(self.stride.leaf_iter()));
        out
    }
    /// The number of coordinates: the product of the shape.
    pub fn size(&self) -> Result<Int> {
        self.shape.product()
    }
    /// The number of coordinates the engine would walk to evaluate or verify this layout: its
    /// size, where a size past CuTe's `int` is [`Error::TooLarge`] (the walk limit), never
    /// [`Error::Overflow`]: a walk is the engine's own check, not CuTe's computation, so it must
    /// not be reported as CuTe overflowing (seed 2027's random #153268,
    /// `logical_product((_15,_4096):(_13,_0),_4096:_-8)`, was refused for overflow in the size of
    /// the pair `(A, complement)` that only the engine's check builds; CuTe answers it).
    pub(crate) fn walk_size(&self) -> Result<i64> {
        match self.size() {
            Ok(n) => Ok(n.value),
            Err(Error::Overflow { .. }) => {
                Err(Error::TooLarge(format!("{self} has more than 2^31 coordinates (limit {MAX_WALK})")))
            }
            Err(e) => Err(e),
        }
    }
    /// CuTe's `cosize(layout) = size(coshape(layout))` (layout.hpp), the engine's only cosize.
    /// From 4.2 `coshape` is the inner product of the extents minus `_1` with the absolute
    /// strides, plus `_1`: `sum (s_i - _1) * |d_i| + _1`, static when every term is (a size-1
    /// extent or a zero stride gives a static 0). Before 4.2 it was the layout with absolute
    /// strides evaluated at its last coordinate, plus `_1` (the same value; dynamic wherever the
    /// size is, except where every dynamic coordinate meets a zero stride): the release switch
    /// `COSHAPE_INNER_PRODUCT`.
    pub fn cosize(&self) -> Result<Int> {
        self.congruent_to_evaluate()?;
        if super::release::COSHAPE_INNER_PRODUCT.on() {
            return self.cosize_of_leaves();
        }
        let abs = Layout { shape: self.shape.clone(), stride: self.stride.map_leaves(&mut |d| Ok(d.abs()?))? };
        Ok(abs.call_int(abs.size()?.sub(Int::st(1))?)?.add(Int::st(1))?)
    }
    /// A layout that is evaluated must be congruent: CuTe's `Layout` leaves the check of its
    /// constructor commented out (layout.hpp, `//static_assert(is_congruent<Shape, Stride>::value,
    /// "Shape and Stride must be congruent")`), so a trait may declare a layout whose stride does
    /// not match its shape (CUTLASS's SM80_16x8x128_S32U1U1S32_TN_XORPOPC ALayout, stride
    /// `((_16,_8))` for the shape `(_32,_2)`); it prints, but `crd2idx` of it (cosize, any value)
    /// does not compile. The engine refuses what CuTe cannot compile instead of pairing the leaves
    /// as they come.
    pub fn congruent_to_evaluate(&self) -> Result<()> {
        if self.shape.congruent(&self.stride) {
            return Ok(());
        }
        Err(Error::MismatchedRanks {
            detail: format!("shape {} vs stride {} (not congruent)", self.shape, self.stride),
        })
    }
    /// [`cosize_pairs`] of the leaves (4.2's formula whatever the release).
    pub(crate) fn cosize_of_leaves(&self) -> Result<Int> {
        cosize_of(self.shape.leaf_iter().zip(self.stride.leaf_iter()))
    }
    /// The value of [`Layout::cosize_of_leaves`] alone, with its 32-bit checks at every step (no
    /// static-ness to track): `None` exactly where it fails.
    pub(crate) fn cosize_value(&self) -> Option<i64> {
        let in_range = |v: i64| (super::int::INT_MIN..=super::int::INT_MAX).contains(&v).then_some(v);
        let mut acc = 0i64;
        for (s, d) in self.shape.leaf_iter().zip(self.stride.leaf_iter()) {
            let (extent, step) = (in_range(s.value.checked_sub(1)?)?, in_range(d.value.checked_abs()?)?);
            acc = in_range(acc.checked_add(in_range(extent.checked_mul(step)?)?)?)?;
        }
        in_range(acc.checked_add(1)?)
    }
    /// Evaluate at a coordinate (1-D integer, top-level tuple or hierarchical tuple).
    pub fn call(&self, coord: &Tup) -> Result<Int> {
        crd2idx(coord, &self.shape, &self.stride)
    }
    /// Evaluate at a 1-D coordinate.
    pub fn call_int(&self, i: Int) -> Result<Int> {
        crd2idx(&IntTuple::leaf(i), &self.shape, &self.stride)
    }
    /// The value at every 1-D coordinate `0..size`, for brute-force checks. Refuses layouts with
    /// more than [`MAX_WALK`] coordinates.
    pub fn values(&self) -> Result<Vec<i64>> {
        Ok(self.walk()?.collect())
    }
    /// The values of [`Layout::values`] one by one, without the vector.
    pub fn walk(&self) -> Result<Walk> {
        self.congruent_to_evaluate()?;
        let n = self.walk_size()?;
        if !(0..=MAX_WALK).contains(&n) {
            return Err(Error::TooLarge(format!("{self} has {n} coordinates (limit {MAX_WALK})")));
        }
        let mut pairs: Vec<(i64, i64)> = self.leaf_pairs().iter().map(|(s, d)| (s.value, d.value)).collect();
        // With every extent >= 1 and i < size, an odometer over the leaves (mode 0 fastest) gives
        // the same mixed-radix digits as the division per leaf, without the divisions. Truncating
        // `%` and `/` are odd-symmetric, so a negative extent only negates every later digit: with
        // no extent 0 (then every |extent| <= size) the odometer runs over `|s|`, later strides
        // negated.
        let odometer = pairs.iter().all(|&(s, d)| s != 0 && d != i64::MIN);
        if odometer {
            let mut sign = 1;
            for p in pairs.iter_mut() {
                let negative = p.0 < 0;
                *p = (p.0.abs(), sign * p.1);
                if negative {
                    sign = -sign;
                }
            }
        }
        Ok(Walk { digits: vec![0; pairs.len()], pairs, odometer, i: 0, n, idx: 0 })
    }
    /// This layout's function on 1-D coordinates, prepared once for a brute-force walk: the same
    /// answers and errors as [`Layout::call_int`] with a dynamic coordinate, without its
    /// per-call recursion and products.
    pub fn eval_1d(&self) -> Eval1d<'_> {
        Eval1d { layout: self, pairs: Eval1d::flat(self) }
    }
}

/// The values of a layout at `0..size` in order ([`Layout::walk`]).
pub struct Walk {
    pairs: Vec<(i64, i64)>,
    digits: Vec<i64>,
    odometer: bool,
    i: i64,
    n: i64,
    /// The odometer's current value.
    idx: i64,
}

impl Iterator for Walk {
    type Item = i64;
    fn next(&mut self) -> Option<i64> {
        if self.i >= self.n {
            return None;
        }
        let i = self.i;
        self.i += 1;
        if !self.odometer {
            // The colexicographic split, the last leaf taking the rest (crd2idx on an integer).
            let (mut rest, mut idx) = (i, 0i64);
            for (k, &(s, d)) in self.pairs.iter().enumerate() {
                let c = if k + 1 == self.pairs.len() || s == 0 { rest } else { rest % s };
                if k + 1 < self.pairs.len() && s != 0 {
                    rest /= s;
                }
                idx += c * d;
            }
            return Some(idx);
        }
        let out = self.idx;
        let last = self.pairs.len().saturating_sub(1);
        for (k, &(s, d)) in self.pairs.iter().enumerate() {
            self.digits[k] += 1;
            self.idx += d;
            if self.digits[k] < s || k == last {
                break;
            }
            self.idx -= s * d;
            self.digits[k] = 0;
        }
        Some(out)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (self.n - self.i) as usize;
        (left, Some(left))
    }
}

/// A layout's function on 1-D coordinates ([`Layout::eval_1d`]).
pub struct Eval1d<'a> {
    layout: &'a Layout,
    /// The flat (extent, stride) leaves when the flat split is exactly `crd2idx`'s.
    pairs: Option<Vec<(i64, i64)>>,
}

impl Eval1d<'_> {
    /// `crd2idx` of an integer splits it over each tuple, mode 0 fastest, the last mode taking the
    /// rest; on the flat leaves that is the same split (truncating `%` and `/` are odd-symmetric, so
    /// negative coordinates agree too) provided no tuple is empty (an empty last mode drops the
    /// rest), no extent is 0 (a division by zero there), and no product of extents can overflow
    /// (then none of `crd2idx`'s partial products does). Otherwise `None`: use `crd2idx`.
    fn flat(l: &Layout) -> Option<Vec<(i64, i64)>> {
        fn no_empty(t: &Tup) -> bool {
            match t.view() {
                View::Leaf(_) => true,
                View::Tuple(v) => !v.is_empty() && v.iter().all(no_empty),
            }
        }
        if !no_empty(&l.shape) || !l.shape.congruent(&l.stride) {
            return None;
        }
        let pairs: Vec<(i64, i64)> = l.leaf_pairs().iter().map(|(s, d)| (s.value, d.value)).collect();
        let mut size = 1i64;
        for &(s, _) in &pairs {
            size = size.checked_mul(s).filter(|p| *p != 0 && p.abs() <= super::int::INT_MAX)?;
        }
        Some(pairs)
    }

    /// `L(x)`, as `L.call_int(Int::dy(x))?.value`.
    pub fn at(&self, x: i64) -> Result<i64> {
        if let Some(pairs) = &self.pairs {
            // Each term and every partial sum (in any order) stays within CuTe's int range when
            // the sum of the terms' magnitudes does: then crd2idx's checked arithmetic succeeds
            // with the same value.
            let fast = || -> Option<i64> {
                if !(super::int::INT_MIN..=super::int::INT_MAX).contains(&x) {
                    return None;
                }
                let (mut rest, mut acc, mut mag) = (x, 0i64, 0i64);
                for (k, &(s, d)) in pairs.iter().enumerate() {
                    let c = if k + 1 == pairs.len() { rest } else { rest % s };
                    if k + 1 < pairs.len() {
                        rest /= s;
                    }
                    let term = c.checked_mul(d)?;
                    mag = mag.checked_add(term.checked_abs()?)?;
                    acc += term; // |acc| <= mag
                }
                (mag <= super::int::INT_MAX).then_some(acc)
            };
            if let Some(v) = fast() {
                return Ok(v);
            }
        }
        Ok(self.layout.call_int(Int::dy(x))?.value)
    }
}

/// CuTe's `crd2idx(coord, shape, stride)`.
pub fn crd2idx(coord: &Tup, shape: &Tup, stride: &Tup) -> Result<Int> {
    match (coord.view(), shape.view(), stride.view()) {
        (View::Tuple(c), View::Tuple(s), View::Tuple(d)) => {
            if c.len() != s.len() {
                return Err(Error::MismatchedRanks {
                    detail: format!("coordinate {coord} does not match shape {shape}"),
                });
            }
            let mut acc = Int::st(0);
            for ((ci, si), di) in c.iter().zip(s).zip(d) {
                acc = acc.add(crd2idx(ci, si, di)?)?;
            }
            Ok(acc)
        }
        (View::Leaf(c), View::Tuple(s), View::Tuple(d)) => {
            // Split an integer over the modes, mode 0 fastest; the last mode takes the rest.
            if s.is_empty() {
                return Ok(Int::st(0));
            }
            let mut rest = c;
            let mut acc = Int::st(0);
            for (k, (si, di)) in s.iter().zip(d).enumerate() {
                if k + 1 == s.len() {
                    acc = acc.add(crd2idx(&IntTuple::leaf(rest), si, di)?)?;
                } else {
                    let n = si.product()?;
                    acc = acc.add(crd2idx(&IntTuple::leaf(rest.rem(n)?), si, di)?)?;
                    rest = rest.div(n)?;
                }
            }
            Ok(acc)
        }
        (View::Leaf(c), View::Leaf(_), View::Leaf(d)) => Ok(c.mul(d)?),
        _ => Err(Error::MismatchedRanks { detail: format!("coordinate {coord} does not match shape {shape}") }),
    }
}

impl fmt::Display for Layout {
    /// CuTe's `print(layout)`: `shape:stride`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl Layout {
    /// `Display` into any writer (a `String` directly, without a `Formatter`).
    pub fn write_to<W: fmt::Write + ?Sized>(&self, f: &mut W) -> fmt::Result {
        self.shape.write_to(f)?;
        f.write_str(":")?;
        self.stride.write_to(f)
    }
}

/// [`Layout::cosize`]'s formula from 4.2 on, from the flat (extent, stride) leaves.
pub(crate) fn cosize_pairs(pairs: &[(Int, Int)]) -> Result<Int> {
    cosize_of(pairs.iter().copied())
}

/// [`cosize_pairs`] of any sequence of leaves.
fn cosize_of(pairs: impl Iterator<Item = (Int, Int)>) -> Result<Int> {
    let mut acc = Int::st(0);
    for (s, d) in pairs {
        acc = acc.add(s.sub(Int::st(1))?.mul(d.abs()?)?)?;
    }
    Ok(acc.add(Int::st(1))?)
}

/// CuTe's `print_layout` (util/print_tensor.hpp): the layout on one line, then an ASCII grid of a
/// rank-2 layout with `+----+` borders, one row per coordinate of mode 0.
pub fn print_layout(layout: &Layout) -> Result<String> {
    print_grid(&layout.to_string(), layout, &|c| layout.call(c))
}

/// The grid of [`print_layout`] for anything with `layout`'s shape and cosize whose value at a
/// coordinate is `at(c)` (a composed layout prints its own first line, `head`).
pub fn print_grid(head: &str, layout: &Layout, at: &dyn Fn(&Tup) -> Result<Int>) -> Result<String> {
    use std::fmt::Write;
    if layout.rank() != 2 {
        return Err(Error::Rejected { condition: "print_layout needs rank(layout) == 2", detail: layout.to_string() });
    }
    // CuTe's loops `for (int m = 0; m < size<0>(layout); ++m)` run no times for a negative
    // extent: no rows, no columns.
    let (m, n) = (layout.mode(0)?.size()?.value.max(0), layout.mode(1)?.size()?.value.max(0));
    if m * n > MAX_WALK {
        return Err(Error::TooLarge(format!("{layout} is too large to draw")));
    }
    let cos = layout.cosize()?.value;
    // CuTe's num_digits (util/print.hpp): 1 below 10 (negative numbers included), up to 10.
    let digits = (1..10).find(|&k| cos < 10i64.pow(k)).unwrap_or(10) as usize;
    let w = digits + 2;
    let dashes = "+".to_string() + &"-".repeat(w);
    let mut out = String::new();
    let _ = writeln!(out, "{head}");
    out.push_str("    ");
    for j in 0..n {
        let _ = write!(out, "  {:>width$} ", j, width = w - 2);
    }
    out.push('\n');
    let border = format!("    {}+\n", dashes.repeat(n as usize));
    for i in 0..m {
        out.push_str(&border);
        let _ = write!(out, "{i:2}  ");
        for j in 0..n {
            let v = at(&IntTuple::tuple([IntTuple::dy(i), IntTuple::dy(j)]))?;
            let _ = write!(out, "| {:>width$} ", v.value, width = w - 2);
        }
        out.push_str("|\n");
    }
    out.push_str(&border);
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Any nesting (empty tuples included) of leaves with extents and strides of either sign,
    /// zero and values near CuTe's int limits.
    fn raw_layout() -> impl Strategy<Value = Layout> {
        nested_layouts(prop_oneof![
            -3i64..9,
            Just(0),
            Just(1 << 20),
            Just(-(1 << 16)),
            Just(super::super::int::INT_MAX)
        ])
    }

    /// Any nesting (empty tuples included, depth up to 3) of dynamic leaves whose extents and
    /// strides are drawn from `int`.
    pub(crate) fn nested_layouts(int: impl Strategy<Value = i64> + Clone + 'static) -> impl Strategy<Value = Layout> {
        let leaf = (int.clone(), int).prop_map(|(s, d)| (IntTuple::dy(s), IntTuple::dy(d)));
        leaf.prop_recursive(3, 12, 4, |inner| {
            prop::collection::vec(inner, 0..4).prop_map(|v| {
                let (s, d): (Vec<_>, Vec<_>) = v.into_iter().unzip();
                (IntTuple::tuple(s), IntTuple::tuple(d))
            })
        })
        .prop_map(|(shape, stride)| Layout { shape, stride })
    }

    proptest! {
        #[test]
        fn cosize_value_is_the_value_of_cosize_of_leaves(l in raw_layout()) {
            prop_assert_eq!(l.cosize_value(), l.cosize_of_leaves().ok().map(|c| c.value), "{}", l);
        }

        #[test]
        fn eval_1d_is_call_int(l in raw_layout(), xs in prop::collection::vec(prop_oneof![-100i64..100, any::<i32>().prop_map(i64::from), any::<i64>()], 1..12)) {
            let e = l.eval_1d();
            for x in xs {
                let (fast, slow) = (e.at(x), l.call_int(Int::dy(x)).map(|v| v.value));
                prop_assert_eq!(fast, slow, "{}({})", l, x);
            }
        }
    }

    #[test]
    fn values_are_call_int() {
        for t in [
            "((_2,_3),_4):((_1,_12),_2)",
            "(_3,(_2),_5):(_7,(_1),_0)",
            "(4,(2,4)):(-2,(1,-8))",
            "(_1,(_1,3)):(_5,(_0,-7))",
        ] {
            let l: Layout = crate::test_util::l(t);
            let v = l.values().unwrap();
            assert_eq!(v.len() as i64, l.size().unwrap().value);
            for (i, x) in v.into_iter().enumerate() {
                assert_eq!(x, l.call_int(Int::dy(i as i64)).unwrap().value, "{l}({i})");
            }
        }
    }

    fn chapter_h() -> Layout {
        let s = IntTuple::tuple([IntTuple::dy(4), IntTuple::tuple([IntTuple::dy(2), IntTuple::dy(4)])]);
        let d = IntTuple::tuple([IntTuple::dy(2), IntTuple::tuple([IntTuple::dy(1), IntTuple::dy(8)])]);
        Layout::new(s, d).unwrap()
    }

    #[test]
    fn print_layout_of_a_negative_extent_draws_no_cells() {
        // Used to panic ("capacity overflow") on `"-".repeat(-1 as usize)`.
        let l = Layout::new(
            IntTuple::tuple([IntTuple::dy(4), IntTuple::dy(-1)]),
            IntTuple::tuple([IntTuple::dy(1), IntTuple::dy(4)]),
        )
        .unwrap();
        let p = print_layout(&l).unwrap();
        assert!(p.starts_with("(4,-1):(1,4)\n"), "{p}");
        // Four rows with no cells, as CuTe's loops draw them.
        assert_eq!(p.lines().filter(|r| r.trim() == "+").count(), 5, "{p}");
        let l = Layout::new(
            IntTuple::tuple([IntTuple::dy(-3), IntTuple::dy(-1)]),
            IntTuple::tuple([IntTuple::dy(1), IntTuple::dy(4)]),
        )
        .unwrap();
        assert_eq!(print_layout(&l).unwrap().lines().count(), 3);
    }

    #[test]
    fn chapter_coordinates() {
        // The chapter: h((1,5)) = 19, h((1,(1,2))) = 19, h(5) = 3, 1-D 0..7 -> 0,2,4,6,1,3,5,7.
        let h = chapter_h();
        let c = |t: IntTuple| h.call(&t).unwrap().value;
        assert_eq!(c(IntTuple::tuple([IntTuple::dy(1), IntTuple::dy(5)])), 19);
        assert_eq!(c(IntTuple::tuple([IntTuple::dy(1), IntTuple::tuple([IntTuple::dy(1), IntTuple::dy(2)])])), 19);
        assert_eq!(c(IntTuple::dy(5)), 3);
        assert_eq!(&h.values().unwrap()[..8], &[0, 2, 4, 6, 1, 3, 5, 7]);
        assert_eq!(h.size().unwrap().value, 32);
        assert_eq!(h.cosize().unwrap().value, 32);
        assert_eq!(h.mode(1).unwrap().to_string(), "(2,4):(1,8)");
    }

    #[test]
    fn one_cosize_formula() {
        // Layout::cosize is the engine's only cosize (complement and logical_product use it too).
        // Its value is the largest index of the layout with absolute strides, plus one; it is
        // static exactly when every (s - 1) * |d| term is (a size-1 extent or a zero stride gives
        // a static 0). Real CuTe's prints of these cases: fixtures/cases/cosize.cases.
        let lay = |s: &[(i64, bool)], d: &[(i64, bool)]| {
            let t = |v: &[(i64, bool)]| IntTuple::of_leaves(v.iter().map(|&(x, st)| Int::new(x, st)));
            Layout::new(t(s), t(d)).unwrap()
        };
        for (l, want) in [
            (lay(&[(4, false), (2, true)], &[(0, true), (1, true)]), (2, true)),
            (lay(&[(4, true), (2, true)], &[(-1, true), (4, true)]), (8, true)),
            (lay(&[(1, true), (4, false)], &[(3, true), (0, true)]), (1, true)),
            (lay(&[(4, false), (2, true)], &[(1, true), (4, true)]), (8, false)),
        ] {
            let c = l.cosize().unwrap();
            assert_eq!((c.value, c.is_static), want, "cosize({l})");
            let abs =
                Layout::new(l.shape.clone(), IntTuple::of_leaves(l.leaf_pairs().iter().map(|(_, d)| d.abs().unwrap())))
                    .unwrap();
            assert_eq!(c.value, abs.values().unwrap().into_iter().max().unwrap() + 1, "cosize({l})");
            assert_eq!(cosize_pairs(&l.leaf_pairs()).unwrap(), c);
            // Before 4.2 (COSHAPE_INNER_PRODUCT off) the value is the same, and dynamic wherever
            // a dynamic coordinate meets a non-zero stride.
            let old = crate::release::with_release(crate::release::Release::new(3, 8, 0, 0), || l.cosize()).unwrap();
            assert_eq!(old.value, c.value, "cosize({l}) before 4.2");
        }
        let l = lay(&[(4, false), (2, true)], &[(0, true), (1, true)]);
        let old = crate::release::with_release(crate::release::Release::new(3, 8, 0, 0), || l.cosize()).unwrap();
        assert!(!old.is_static && l.cosize().unwrap().is_static, "{old:?}");
    }
}
