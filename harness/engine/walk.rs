//! Definition walks that skip what they can prove: the brute-force checks of `composition`
//! ([`composition`]), `logical_divide` ([`divide_tile`], [`divide_rows`]), `left_inverse`
//! ([`left_inverse`], with [`injective`]) and `max_common_layout/vector` ([`agree_walk`]) visit
//! every 1-D coordinate of a layout in order, compare
//! two values there and stop at the first failure (the error quotes that coordinate). The
//! functions here visit the same coordinates in the same order but hand the caller only the ones
//! they cannot prove to pass; the caller runs its own per-point code on those, so every result
//! and every error text stays what it was. When a precondition below does not hold, every point
//! is handed over (the walk as before).
//!
//! ## The walk as an odometer ([`walk_leaves`], [`refine`])
//! [`Layout::walk`] reads `c` in `[0, N)` (`N = size`) as `crd2idx` does: over the flat leaves
//! `s_k:d_k`, the digit `c_k = rest % s_k`, `rest /= s_k`, the last leaf taking the rest.
//! Truncating `%` and `/` are odd-symmetric, so a negative extent only flips the sign of every
//! later digit: for `c >= 0` the walk is the layout with the extents `|s_k|` and the strides
//! `sigma_k d_k` (`sigma_k` the sign of `s_0 * .. * s_{k-1}`); with `N = prod |s_k|` every digit
//! stays below its extent, so the extent-1 leaves are 0 and drop out. Two such leaf lists over the
//! same `c` have a common refinement when their prefix products form one divisibility chain: a
//! leaf `s:t` cut into pieces `e_1, e_2, ..` contributes `c_1 t + c_2 (e_1 t) + ..`. A digit of
//! the refinement has an extent `e >= 2`, its 1-D prefix `p` and one stride per walked layout.
//!
//! ## Boxes ([`search`])
//! Fixing the digits from `K` up leaves the box of the digits below `K`: `c` in `c0 + [0, p_K)`,
//! a walked layout in `x0 + sum_{j<K} c_j t_j`. The search goes from the most significant digit
//! down, each digit in increasing order (so `c` increases), asks the caller's certificate about
//! each box, and descends into the boxes it does not certify, down to single points, which go to
//! the caller's per-point check.
//!
//! ## Affine pieces of a 1-D function ([`Affine`])
//! For `A` with flat leaves `n_i:d_i` (every extent but the last `>= 1`), `A(x) = sum_i x_i d_i`
//! over the mixed-radix digits of `x` (the last leaf takes the rest); this is what `crd2idx`,
//! `Eval1d::at` and `composition::eval_flat` compute where they do not fail. A negative extent
//! (nonzero extents but the last) is `|n|` with the strides after it negated, for every `x`, by
//! the odd symmetry of truncating `%` and `/`. Dropping extent-1 leaves (but the last) and
//! merging neighbours `n:d, n':n*d` into `n*n':d` (into the last leaf when the second is last)
//! keeps this function on all integers: on the merged leaves `m_k:e_k` (the last one
//! unbounded), `A(x) = sum_k x_k e_k` over the digits `x_k` of `x >= 0` in that radix, and
//! `A(-x) = -A(x)`.
//!
//! A box `x = x0 + sum_{j<K} c_j t_j` (`0 <= c_j < n_j`) is the same set as
//! `lo + sum_j c'_j |t_j|` with `lo` its least element (`c'_j = c_j`, or `n_j - 1 - c_j` where
//! `t_j < 0`). When `lo >= 0` and no digit carries, i.e. for every bounded level `k`
//! `lo_k + sum_j (n_j - 1) |t_j|_k <= m_k - 1`, the digits of each element are the sums of the
//! digits, so `A(lo + sum c'_j |t_j|) = A(lo) + sum c'_j A(|t_j|)`: `A` is affine on the box with
//! the slope `sign(t_j) A(|t_j|)` per digit ([`Affine::step`]). All elements `<= 0`: the same
//! for `-x` (with `-hi`), and the same slopes by the odd symmetry. A box inside
//! `(-m_0, m_0)` whose steps are all below `m_0` has `A(x) = x e_0` throughout (the same slopes).
//! A certified box then passes iff the slopes match the compared function's strides and the two
//! agree at its corner (one exact evaluation).
//!
//! ## No errors inside a certified box
//! A certificate also shows that the caller's evaluation cannot fail anywhere in the walk:
//! `eval_flat` (i64, [`flat_safe`]) when `max |x| * sum |d_i|` fits in an i64; `Eval1d::at`
//! (CuTe's 32-bit int, [`Eval1dModel`]) when its flat form applies and the sum of the terms'
//! magnitudes, bounded from `max |x|`, is at most `INT_MAX`; then both compute the mixed-radix
//! value above, exactly.
//!
//! `complement`'s ordered / disjoint / injective conditions are shown from the order of strides
//! instead ([`complement_ordered_disjoint_injective`]).
//!
//! `tests` (below) compare every fast walk with the plain one on random layouts, failures
//! included.

use super::int::INT_MAX;
use super::layout::{Layout, Walk, MAX_WALK};

/// One digit of a refined walk: extent (`>= 2`), 1-D prefix, and the strides of the walked
/// layouts (two: `[B, R]` for composition; `[L, L]` for left_inverse).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Digit {
    pub e: i64,
    pub p: i64,
    pub t: [i64; 2],
}

/// `l`'s flat leaves as [`Layout::walk`] reads `[0, size)`: positive extents `>= 2` with the
/// sign-adjusted strides of the module doc, when the walk has `1..=MAX_WALK` coordinates, no
/// extent is 0 and the paired leaves cover the size (not so for a hand-built layout whose stride
/// has fewer leaves than its shape); `None` otherwise.
pub(crate) fn walk_leaves(l: &Layout) -> Option<Vec<(i64, i64)>> {
    let n = l.size().ok()?.value;
    if !(1..=MAX_WALK).contains(&n) {
        return None;
    }
    let (mut sign, mut out, mut size) = (1i64, Vec::with_capacity(8), 1i64);
    for (s, d) in l.leaf_pairs() {
        let (s, d) = (s.value, d.value);
        if s == 0 {
            return None;
        }
        size = size.checked_mul(s.abs())?;
        if s.abs() > 1 {
            out.push((s.abs(), if sign < 0 { d.checked_neg()? } else { d }));
        }
        if s < 0 {
            sign = -sign;
        }
    }
    (size == n).then_some(out)
}

/// The common refinement of two walk leaf lists of the same size (see the module doc), or `None`.
pub(crate) fn refine(a: &[(i64, i64)], b: &[(i64, i64)]) -> Option<Vec<Digit>> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j, mut p) = (0, 0, 1i64);
    let (mut ra, mut ta) = a.first().copied().unwrap_or((1, 0));
    let (mut rb, mut tb) = b.first().copied().unwrap_or((1, 0));
    while i < a.len() && j < b.len() {
        let e = ra.min(rb);
        if ra % e != 0 || rb % e != 0 {
            return None;
        }
        out.push(Digit { e, p, t: [ta, tb] });
        p = p.checked_mul(e)?;
        (ra, ta) = (ra / e, ta.checked_mul(e)?);
        (rb, tb) = (rb / e, tb.checked_mul(e)?);
        if ra == 1 {
            i += 1;
            (ra, ta) = a.get(i).copied().unwrap_or((1, 0));
        }
        if rb == 1 {
            j += 1;
            (rb, tb) = b.get(j).copied().unwrap_or((1, 0));
        }
    }
    (i == a.len() && j == b.len()).then_some(out)
}

/// The digits of one walk leaf list, the same strides twice.
fn digits_of(a: &[(i64, i64)]) -> Option<Vec<Digit>> {
    let mut p = 1i64;
    let mut out = Vec::with_capacity(a.len());
    for &(e, t) in a {
        out.push(Digit { e, p, t: [t, t] });
        p = p.checked_mul(e)?;
    }
    Some(out)
}

/// `sum_j (e_j - 1) |t_j|` for stride `w`: a bound of `|x - x0|` over the whole walk.
fn span_abs(d: &[Digit], w: usize) -> Option<i64> {
    d.iter().try_fold(0i64, |acc, g| acc.checked_add((g.e - 1).checked_mul(g.t[w].checked_abs()?)?))
}

/// Visit the points `(c, x)` of the walk over `digits` (`x[w] = sum_j c_j t_j[w]`) in increasing
/// `c`, skipping the boxes `cert(K, len, c0, x0)` certifies (the box of the digits below `K - 1`
/// and `len` values of digit `K - 1`, at the corner `c0, x0`; asked only for `1 <= K <= top`),
/// handing every other point to `point`, and stopping at its first error. A box of a digit's full
/// extent that is not certified is halved along that digit (for extents of 4 and more) before
/// its values are visited one by one.
pub(crate) fn search<E>(
    digits: &[Digit],
    top: usize,
    cert: &mut impl FnMut(usize, i64, i64, [i64; 2]) -> bool,
    point: &mut impl FnMut(i64, [i64; 2]) -> Result<(), E>,
) -> Result<(), E> {
    struct S<'a, C, P> {
        d: &'a [Digit],
        top: usize,
        cert: &'a mut C,
        point: &'a mut P,
    }
    impl<C: FnMut(usize, i64, i64, [i64; 2]) -> bool, P: FnMut(i64, [i64; 2]) -> Result<(), E>, E> S<'_, C, P> {
        fn level(&mut self, k: usize, c: i64, x: [i64; 2]) -> Result<(), E> {
            if k == 0 {
                return (self.point)(c, x);
            }
            let g = self.d[k - 1];
            if k <= self.top && (self.cert)(k, g.e, c, x) {
                return Ok(());
            }
            if k <= self.top && g.e >= 4 {
                let h = g.e / 2;
                self.range(k, h, c, x)?;
                return self.range(k, g.e - h, c + h * g.p, [x[0] + h * g.t[0], x[1] + h * g.t[1]]);
            }
            self.values(k, g.e, c, x)
        }
        /// `len` values of digit `k - 1` from the corner.
        fn range(&mut self, k: usize, len: i64, c: i64, x: [i64; 2]) -> Result<(), E> {
            if len >= 2 && (self.cert)(k, len, c, x) {
                return Ok(());
            }
            if len >= 4 {
                let (g, h) = (self.d[k - 1], len / 2);
                self.range(k, h, c, x)?;
                return self.range(k, len - h, c + h * g.p, [x[0] + h * g.t[0], x[1] + h * g.t[1]]);
            }
            self.values(k, len, c, x)
        }
        fn values(&mut self, k: usize, len: i64, c: i64, x: [i64; 2]) -> Result<(), E> {
            let g = self.d[k - 1];
            let (mut c, mut x) = (c, x);
            for v in 0..len {
                if v > 0 {
                    c += g.p;
                    x = [x[0] + g.t[0], x[1] + g.t[1]];
                }
                self.level(k - 1, c, x)?;
            }
            Ok(())
        }
    }
    S { d: digits, top, cert, point }.level(digits.len(), 0, [0, 0])
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

/// The affine pieces of a 1-D function given by flat leaves (see the module doc).
#[derive(Debug)]
pub(crate) struct Affine {
    /// Merged leaves: prefix `P_k`, piece length `P_k m_k` (`None`: unbounded, the last leaf or
    /// beyond the i64 range), stride `e_k`.
    levels: Vec<(i64, Option<i64>, i64)>,
}

impl Affine {
    /// `None` when an extent but the last is 0 (or there are no leaves). A negative extent flips
    /// the sign of every later digit (truncating `%` and `/` are odd-symmetric, for every `x`):
    /// it counts as `|n|` with the later strides negated.
    pub(crate) fn new(pairs: &[(i64, i64)]) -> Option<Affine> {
        let r = pairs.len();
        if r == 0 || pairs[..r - 1].iter().any(|&(n, _)| n == 0) {
            return None;
        }
        // (extent, stride) merged; extent None for the last leaf (takes the rest).
        let mut merged: Vec<(Option<i64>, i64)> = Vec::with_capacity(r);
        let mut sign = 1i64;
        for (i, &(n, d)) in pairs.iter().enumerate() {
            let last = i + 1 == r;
            let d = if sign < 0 { d.checked_neg()? } else { d };
            if n < 0 {
                sign = -sign;
            }
            let n = n.abs();
            if n == 1 && !last {
                continue;
            }
            if let Some(&(Some(pn), pd)) = merged.last() {
                if pn.checked_mul(pd) == Some(d) {
                    let m = if last { None } else { pn.checked_mul(n) };
                    if last || m.is_some() {
                        *merged.last_mut().expect("a leaf") = (m, pd);
                        continue;
                    }
                }
            }
            merged.push((if last { None } else { Some(n) }, d));
        }
        let mut levels = Vec::with_capacity(merged.len());
        let mut p = Some(1i64);
        for (n, d) in merged {
            let Some(pk) = p else { break };
            let len = n.and_then(|n| pk.checked_mul(n));
            levels.push((pk, len, d));
            p = len;
        }
        Some(Affine { levels })
    }
    /// `A(t)` by the radix (exact for every integer `t`): the slope of a box digit of stride `t`.
    pub(crate) fn step(&self, t: i64) -> Option<i64> {
        let x = t.checked_abs()?;
        let mut acc = 0i64;
        for k in 0..self.levels.len() {
            acc = acc.checked_add(self.digit(k, x).checked_mul(self.levels[k].2)?)?;
        }
        Some(t.signum() * acc)
    }
    /// The digit of `x >= 0` at level `k`.
    fn digit(&self, k: usize, x: i64) -> i64 {
        match self.levels[k] {
            (p, Some(len), _) => (x % len) / p,
            (p, None, _) => x / p,
        }
    }
    /// Whether `A` is affine with the slopes [`Affine::step`] on the box of `b` at the corner `x0`
    /// with one more digit of stride `t` and `m + 1` values (`m = 0`: none; see the module doc).
    pub(crate) fn box_ok(&self, b: &BoxPlan, x0: i64, t: i64, m: i64) -> bool {
        let (Some(step), Some(at)) = (m.checked_mul(t), t.checked_abs()) else { return false };
        let (Some(lo), Some(hi)) = (x0.checked_add(b.lo + step.min(0)), x0.checked_add(b.hi + step.max(0))) else {
            return false;
        };
        let low_only = b.low_only && (m == 0 || self.levels[0].1.is_none_or(|l| at < l));
        if low_only && self.levels[0].1.is_none_or(|l| lo > -l && hi < l) {
            return true;
        }
        let x = if lo >= 0 {
            lo
        } else if hi <= 0 {
            -hi
        } else {
            return false;
        };
        self.levels.iter().enumerate().zip(&b.carry).all(|((k, &(p, len, _)), &dk)| match len {
            Some(len) => {
                let extra = m.checked_mul(self.digit(k, at));
                extra.and_then(|e| self.digit(k, x).checked_add(dk)?.checked_add(e)).is_some_and(|v| v < len / p)
            }
            None => true,
        })
    }
    /// [`Affine::box_ok`] for the box of level `k` of `boxes` (a [`plan`]) with its top digit `g`
    /// (stride `g.t[w]`) cut to `len` values.
    pub(crate) fn cut_ok(&self, boxes: &[Option<BoxPlan>], k: usize, g: &Digit, w: usize, len: i64, x0: i64) -> bool {
        match (&boxes[k], &boxes[k - 1]) {
            (Some(b), _) if len == g.e => self.box_ok(b, x0, 0, 0),
            (Some(_), Some(base)) => self.box_ok(base, x0, g.t[w], len - 1),
            _ => false,
        }
    }
}

/// A box of the digits below some `K`: the lowest and highest offset from its corner, whether
/// every step is below `m_0`, and per level the largest sum of digits its steps add.
#[derive(Debug)]
pub(crate) struct BoxPlan {
    lo: i64,
    hi: i64,
    low_only: bool,
    carry: Vec<i64>,
}

/// Per box level `K` (index `K`, 0 the empty box) over the walked stride `w`: the box, `None`
/// from the first digit whose slope ([`Affine::step`]) does not match `want(j, slope)`; the
/// slopes; the highest `K` with a box.
type Plan = (Vec<Option<BoxPlan>>, Vec<i64>, usize);

fn plan(a: &Affine, d: &[Digit], w: usize, mut want: impl FnMut(usize, i64) -> bool) -> Plan {
    let (mut out, mut slopes) = (Vec::with_capacity(d.len() + 1), Vec::with_capacity(d.len()));
    let mut b = Some(BoxPlan { lo: 0, hi: 0, low_only: true, carry: vec![0; a.levels.len()] });
    out.push(b.as_ref().map(|b| BoxPlan { lo: b.lo, hi: b.hi, low_only: b.low_only, carry: b.carry.clone() }));
    let mut top = 0;
    for (j, dg) in d.iter().enumerate() {
        let t = dg.t[w];
        let s = a.step(t);
        b = b.zip(s).filter(|&(_, s)| want(j, s)).and_then(|(mut b, _)| {
            let step = (dg.e - 1).checked_mul(t)?;
            b.lo = b.lo.checked_add(step.min(0))?;
            b.hi = b.hi.checked_add(step.max(0))?;
            let x = t.checked_abs()?;
            b.low_only &= a.levels[0].1.is_none_or(|l| x < l);
            for k in 0..a.levels.len() {
                b.carry[k] = b.carry[k].checked_add((dg.e - 1).checked_mul(a.digit(k, x))?)?;
            }
            Some(b)
        });
        let Some(s) = s else { break };
        slopes.push(s);
        if b.is_some() {
            top = j + 1;
        }
        out.push(b.as_ref().map(|b| BoxPlan { lo: b.lo, hi: b.hi, low_only: b.low_only, carry: b.carry.clone() }));
    }
    out.resize_with(d.len() + 1, || None);
    (out, slopes, top)
}

/// Whether `eval_flat(pairs, x)` (composition's brute-force evaluation, i64 with checks) is the
/// exact mixed-radix value, never `None`, for every `|x| <= z`.
pub(crate) fn flat_safe(pairs: &[(i64, i64)], z: i64) -> bool {
    let sum = pairs.iter().try_fold(0i64, |acc, &(_, d)| acc.checked_add(d.checked_abs()?));
    sum.and_then(|s| s.checked_mul(z)).is_some_and(|b| b < i64::MAX / 2)
}

/// `composition::check_postconditions`' walk: `point(c, B(c), R(c))` for each `c` in `[0, size(B))`
/// (the walks `bw`, `rw` of `B` and `R`), in order, stopping at its first error; the points shown
/// to pass (`R(c) == eval(B(c))`, with `eval` = `composition::eval_flat` on `apairs`, A's flat
/// leaves) are skipped.
pub(crate) fn composition<E>(
    apairs: &[(i64, i64)],
    eval: impl Fn(i64) -> Option<i64>,
    b: &Layout,
    r: &Layout,
    bw: Walk,
    rw: Walk,
    mut point: impl FnMut(i64, i64, i64) -> Result<(), E>,
) -> Result<(), E> {
    if let Some((digits, aff, (boxes, _, top))) = composition_fast(apairs, |z| flat_safe(apairs, z), b, r) {
        let mut cert = |k: usize, len: i64, _c: i64, x: [i64; 2]| {
            aff.cut_ok(&boxes, k, &digits[k - 1], 0, len, x[0]) && eval(x[0]) == Some(x[1])
        };
        return search(&digits, top, &mut cert, &mut |c, x| point(c, x[0], x[1]));
    }
    for (c, (bc, rc)) in bw.zip(rw).enumerate() {
        point(c as i64, bc, rc)?;
    }
    Ok(())
}

/// The plan of a walk of `B` and `R` against `A` (flat leaves `apairs`) whose evaluation is
/// exact and never fails for `|x| <= z` when `safe(z)`.
fn composition_fast(
    apairs: &[(i64, i64)],
    safe: impl Fn(i64) -> bool,
    b: &Layout,
    r: &Layout,
) -> Option<(Vec<Digit>, Affine, Plan)> {
    let aff = Affine::new(apairs)?;
    let (bl, rl) = (walk_leaves(b)?, walk_leaves(r)?);
    let digits = refine(&bl, &rl)?;
    // The walks' own values stay far inside i64, and the evaluation of A never fails.
    let (zb, _) = (span_abs(&digits, 0)?, span_abs(&digits, 1)?);
    if !safe(zb) {
        return None;
    }
    let p = plan(&aff, &digits, 0, |j, s| s == digits[j].t[1]);
    (p.2 > 0).then_some((digits, aff, p))
}

/// `Eval1d::at` on `l` where it is the exact mixed-radix value: [`Eval1dModel::safe`].
pub(crate) struct Eval1dModel {
    pairs: Vec<(i64, i64)>,
    /// `Eval1d`'s flat form applies (no empty tuple, congruent, every partial product of the
    /// extents nonzero and within CuTe's int).
    flat: bool,
}

impl Eval1dModel {
    pub(crate) fn new(l: &Layout) -> Eval1dModel {
        fn no_empty(t: &super::int_tuple::Tup) -> bool {
            !t.is_tuple() || (t.rank() > 0 && (0..t.rank()).all(|i| t.mode(i).is_ok_and(no_empty)))
        }
        let pairs: Vec<(i64, i64)> = l.leaf_pairs().iter().map(|(s, d)| (s.value, d.value)).collect();
        let mut size = Some(1i64);
        for &(s, _) in &pairs {
            size = size.and_then(|p| p.checked_mul(s)).filter(|p| *p != 0 && p.abs() <= INT_MAX);
        }
        let flat = size.is_some() && no_empty(&l.shape) && l.shape.congruent(&l.stride) && !pairs.is_empty();
        Eval1dModel { pairs, flat }
    }
    /// Whether `Eval1d::at(x)` is `Ok` with the exact value for every `|x| <= z` ([`Self::bound`]
    /// exists).
    pub(crate) fn safe(&self, z: i64) -> bool {
        self.bound(z).is_some()
    }
    /// A bound of `|A(x)|` for `|x| <= z`, when `Eval1d::at(x)` is `Ok` with the exact value for
    /// every such `x`: the sum of the terms' magnitudes is at most `sum_i min(|n_i| - 1, z / |P_i|)
    /// |d_i|` (the last leaf `(z / |P|) |d|`), which must be at most `INT_MAX`.
    pub(crate) fn bound(&self, z: i64) -> Option<i64> {
        if !self.flat || !(0..=INT_MAX).contains(&z) {
            return None;
        }
        let r = self.pairs.len();
        let (mut p, mut mag) = (1i64, 0i64);
        for (i, &(n, d)) in self.pairs.iter().enumerate() {
            let n = n.abs();
            let c = if i + 1 == r { z / p } else { (n - 1).min(z / p) };
            mag = d
                .checked_abs()
                .and_then(|d| c.checked_mul(d))
                .and_then(|t| mag.checked_add(t))
                .filter(|m| *m <= INT_MAX)?;
            if i + 1 < r {
                p *= n; // |p| <= INT_MAX (flat)
            }
        }
        Some(mag)
    }
    pub(crate) fn affine(&self) -> Option<Affine> {
        Affine::new(&self.pairs)
    }
}

/// `left_inverse::check_postconditions`' walk: `point(i, L(i))` for `i` in `[0, size(L))` (the
/// walk `lw` of `L`) in order, stopping at the first error; skipped are the points shown to pass
/// `L(R(L(i))) == L(i)` and, when `injective`, `R(L(i)) == i`, with `Eval1d::at` of `R` and `L`
/// (`er`, `el`) succeeding.
pub(crate) fn left_inverse<E>(
    l: &Layout,
    r: &Layout,
    injective: bool,
    lw: Walk,
    er: &super::layout::Eval1d,
    el: &super::layout::Eval1d,
    mut point: impl FnMut(i64, i64) -> Result<(), E>,
) -> Result<(), E> {
    if let Some(f) = left_inverse_fast(l, r, injective) {
        let LeftPlan { digits, sb, ar, al, p1, p2, top } = f;
        let mut cert = |k: usize, len: i64, c: i64, x: [i64; 2]| {
            if !ar.cut_ok(&p1, k, &digits[k - 1], 0, len, x[0]) {
                return false;
            }
            let Ok(back) = er.at(x[0]) else { return false };
            if (injective && back != c) || !al.cut_ok(&p2, k, &sb[k - 1], 0, len, back) {
                return false;
            }
            el.at(back) == Ok(x[0])
        };
        return search(&digits, top, &mut cert, &mut |c, x| point(c, x[0]));
    }
    for (i, x) in lw.enumerate() {
        point(i as i64, x)?;
    }
    Ok(())
}

struct LeftPlan {
    digits: Vec<Digit>,
    /// The digits with the slopes of `R(L(.))` as strides.
    sb: Vec<Digit>,
    ar: Affine,
    al: Affine,
    /// Per box level: the box of `L`'s values, for `R`.
    p1: Vec<Option<BoxPlan>>,
    /// Per box level: the box of `R(L(.))`'s values, for `L`.
    p2: Vec<Option<BoxPlan>>,
    top: usize,
}

fn left_inverse_fast(l: &Layout, r: &Layout, injective: bool) -> Option<LeftPlan> {
    let (mr, ml) = (Eval1dModel::new(r), Eval1dModel::new(l));
    let (ar, al) = (mr.affine()?, ml.affine()?);
    let digits = digits_of(&walk_leaves(l)?)?;
    // Every L(i) is within zl, every R(L(i)) within zr (a bound of the terms' magnitudes).
    let zl = span_abs(&digits, 0)?;
    let zr = mr.bound(zl)?; // also: R is safe up to zl
    if !ml.safe(zr) {
        return None;
    }
    // R(L(.)) has the slopes of R over L's boxes (each = the digit's prefix when injective);
    // L over those must have L's own strides.
    let (p1, sb, top1) = plan(&ar, &digits, 0, |j, s| !injective || s == digits[j].p);
    let sb: Vec<Digit> = sb.iter().zip(&digits).map(|(&s, g)| Digit { e: g.e, p: g.p, t: [s, s] }).collect();
    let (p2, _, top2) = plan(&al, &sb, 0, |j, s| s == digits[j].t[0]);
    let top = top1.min(top2);
    (top > 0).then_some(LeftPlan { digits, sb, ar, al, p1, p2, top })
}

/// Whether `l` is injective on `[0, size)`, where it is easy to tell: `Some(true)` when its walk
/// leaves sorted by `|stride|` each exceed the span of the ones before (two coordinates differ at
/// a highest sorted digit, whose step outweighs all below); `Some(false)` when a leaf has stride
/// 0, or two leaves `n_i:d_i, n_j:d_j` have `|d_j| / g < n_i` and `|d_i| / g < n_j`
/// (`g = gcd`): the digits `|d_j| / g` at `i` and `|d_i| / g` at `j` give the same value as one
/// of them alone (same signs) or as 0 (opposite signs). `None`: walk and sort.
pub(crate) fn injective(l: &Layout) -> Option<bool> {
    let mut w = walk_leaves(l)?;
    if w.iter().any(|&(_, d)| d == 0) {
        return Some(false);
    }
    for m in w.iter_mut() {
        m.1 = m.1.checked_abs()?; // the same answer with every stride's sign (see above)
    }
    w.sort_unstable_by_key(|&(_, d)| d);
    let mut span = 0i64;
    let mut increasing = true;
    for &(n, d) in &w {
        if d <= span {
            increasing = false;
            break;
        }
        span = span.checked_add((n - 1).checked_mul(d)?)?;
    }
    if increasing {
        return Some(true);
    }
    for i in 0..w.len() {
        for j in i + 1..w.len() {
            let ((ni, di), (nj, dj)) = (w[i], w[j]);
            let g = gcd(di, dj);
            if dj / g < ni && di / g < nj {
                return Some(false);
            }
        }
    }
    None
}

/// logical_divide's check of `R(i, 0) == A(B(i))` (`check_layout`): `point(i)` for `i` in
/// `[0, n)` in order, `n = size(B)`, stopping at its first error, except for the boxes of `i`
/// shown to pass (`Eval1d::at` of `A` (`ea`) exact and `Ok` on `B`'s values, and equal to the walk
/// of `R0` there), as in [`composition`].
pub(crate) fn divide_tile<E>(
    a: &Layout,
    b: &Layout,
    r0: &Layout,
    ea: &super::layout::Eval1d,
    n: usize,
    mut point: impl FnMut(usize) -> Result<(), E>,
) -> Result<(), E> {
    let m = Eval1dModel::new(a);
    if let Some((digits, aff, (boxes, _, top))) = composition_fast(&m.pairs, |z| m.safe(z), b, r0) {
        if digits.iter().map(|g| g.e).product::<i64>() == n as i64 {
            let mut cert = |k: usize, len: i64, _c: i64, x: [i64; 2]| {
                aff.cut_ok(&boxes, k, &digits[k - 1], 0, len, x[0]) && ea.at(x[0]) == Ok(x[1])
            };
            return search(&digits, top, &mut cert, &mut |c, _| point(c as usize));
        }
    }
    (0..n).try_for_each(point)
}

/// max_common's checks, `A(x_i) == i` and `B(x_i) == i` for `i` in order: with `inv = None`, `x_i`
/// is the walk of `r` (`check_layout`); with `inv = Some(L)`, `x_i = L(i)` for `i < n` (`Eval1d`,
/// `check_vector`). `None` when the boxes do not apply (the caller walks as before); else the
/// walk with the boxes shown to pass skipped (`A`, `B` and `L` evaluated exactly and without an
/// error, affine with slope 1 per step of `i` through `L`), `point(i, x_i)` on every other `i`,
/// stopping at its first error.
pub(crate) fn agree_walk<E>(
    a: &Layout,
    b: &Layout,
    r: &Layout,
    inv: Option<i64>,
    mut point: impl FnMut(i64, i64) -> Result<(), E>,
) -> Option<Result<(), E>> {
    let (ma, mb) = (Eval1dModel::new(a), Eval1dModel::new(b));
    let (aa, ab) = (ma.affine()?, mb.affine()?);
    let (ea, eb, er) = (a.eval_1d(), b.eval_1d(), r.eval_1d());
    let mr = Eval1dModel::new(r);
    // The steps of i, and (through L) of x.
    let (digits, zx, stage1) = match inv {
        None => {
            let d = digits_of(&walk_leaves(r)?)?;
            let z = span_abs(&d, 0)?;
            (d, z, None)
        }
        Some(n) => {
            let d = vec![Digit { e: n.max(1), p: 1, t: [1, 1] }];
            let ar = mr.affine()?;
            let z = mr.bound(n.checked_sub(1)?)?;
            let (p1, sl, top1) = plan(&ar, &d, 0, |_, _| true);
            (d, z, Some((ar, p1, sl, top1)))
        }
    };
    if !ma.safe(zx) || !mb.safe(zx) {
        return None;
    }
    let d2: Vec<Digit> = match &stage1 {
        None => digits.clone(),
        Some((_, _, sl, _)) => sl.iter().zip(&digits).map(|(&s, g)| Digit { e: g.e, p: g.p, t: [s, s] }).collect(),
    };
    let (pa, _, topa) = plan(&aa, &d2, 0, |j, s| s == digits[j].p);
    let (pb, _, topb) = plan(&ab, &d2, 0, |j, s| s == digits[j].p);
    let top = topa.min(topb).min(stage1.as_ref().map_or(usize::MAX, |s| s.3));
    if top == 0 {
        return None;
    }
    let mut cert = |k: usize, len: i64, c: i64, x: [i64; 2]| {
        let x0 = match &stage1 {
            None => x[0],
            Some((ar, p1, _, _)) => {
                if !ar.cut_ok(p1, k, &digits[k - 1], 0, len, x[0]) {
                    return false;
                }
                let Ok(x0) = er.at(x[0]) else { return false };
                x0
            }
        };
        aa.cut_ok(&pa, k, &d2[k - 1], 0, len, x0)
            && ab.cut_ok(&pb, k, &d2[k - 1], 0, len, x0)
            && ea.at(x0) == Ok(c)
            && eb.at(x0) == Ok(c)
    };
    Some(search(&digits, top, &mut cert, &mut |c, x| point(c, x[0])))
}

/// `true` when complement's postconditions 1 (`R` ordered), 2 (`R(i) != A(j)` for `i >= 1`) and 6
/// (`F(j) + R(i)` distinct, `F = filter(A)`) hold and the walks of `A`, `F` and `R` succeed, by
/// the order of strides (as `fast::complement_ok`, without its size conditions): every extent of
/// `F` and `R` is `>= 1` with a positive stride where it is above 1; `R`'s modes of extent `> 1`
/// in order each exceed the span of the ones before (a step of the 1-D coordinate raises one
/// digit and resets the lower ones, so `R` increases); the modes of `F` and `R` together sorted by
/// stride do too (two different coordinates differ at a highest sorted digit, whose step
/// outweighs all below: 6); the same for the modes of `A` (extent `> 1`, stride `!= 0`, which
/// must be positive) with `R`'s, so `R(i) = 0 + R(i)` and `A(j) = A(j) + R(0)` differ for `i >= 1`
/// (2). `false` says nothing.
pub(crate) fn complement_ordered_disjoint_injective(a: &Layout, f: &Layout, r: &Layout) -> bool {
    fn increasing(mut modes: Vec<(i64, i64)>, sort: bool) -> Option<()> {
        if sort {
            modes.sort_unstable_by_key(|m| m.1);
        }
        let mut span = 0i64;
        for (n, d) in modes {
            if d <= span {
                return None;
            }
            span = span.checked_add((n - 1).checked_mul(d)?)?;
        }
        Some(())
    }
    let walks = |l: &Layout| walk_leaves(l).is_some();
    let pairs = |l: &Layout| -> Vec<(i64, i64)> { l.leaf_pairs().iter().map(|(s, d)| (s.value, d.value)).collect() };
    let (pa, pf, pr) = (pairs(a), pairs(f), pairs(r));
    let ok = |m: &[(i64, i64)]| m.iter().all(|&(n, d)| n >= 1 && (n == 1 || d > 0));
    if !walks(a) || !walks(f) || !walks(r) || !ok(&pf) || !ok(&pr) {
        return false;
    }
    let big = |m: &[(i64, i64)]| m.iter().copied().filter(|&(n, d)| n > 1 && d != 0).collect::<Vec<_>>();
    let (ba, bf, br) = (big(&pa), big(&pf), big(&pr));
    if ba.iter().any(|&(n, d)| n < 1 || d < 0) || pa.iter().any(|&(n, _)| n < 1) {
        return false;
    }
    let both = |x: &[(i64, i64)]| x.iter().chain(&br).copied().collect::<Vec<_>>();
    increasing(br.clone(), false).is_some()
        && increasing(both(&bf), true).is_some()
        && increasing(both(&ba), true).is_some()
}

/// logical_divide's check of `R(i, j) == A(B(i) + C(j))` (`check_layout`), one row `j` at a time
/// in order: `row(j)` runs the caller's check of row `j`, except for the rows shown to pass.
/// With `x_i = B(i)` (`bv`), `y_j = C(j)` (`cv`), `P_i = Eval1d(R0)(i)`, `Q_j = Eval1d(R1)(j)`
/// (`R0`, `R1` the modes of the result), where no evaluation of `A`, `R0`, `R1` or sum
/// `P_i + Q_j` can fail ([`Eval1dModel::safe`]), so that `P` and `Q` are the walks of `R0` and
/// `R1`: the points are `B`'s walk refined with `R0`'s then `C`'s refined with `R1`'s, the rows
/// are the points of the latter, and a box of rows (with all of `B`'s digits below) where `A` is
/// affine with the slopes of `R0` and `R1` passes iff `A(x_0 + y_j) == P_0 + Q_j` (`P_0 = 0`) at
/// its corner `j`; a single row the same with `B`'s digits alone.
#[allow(clippy::too_many_arguments)]
pub(crate) fn divide_rows<E>(
    a: &Layout,
    b: &Layout,
    c: &Layout,
    r0: &Layout,
    r1: &Layout,
    ea: &super::layout::Eval1d,
    bv: &[i64],
    cv: &[i64],
    mut row: impl FnMut(usize) -> Result<(), E>,
) -> Result<(), E> {
    let Some(f) = divide_fast(a, b, c, r0, r1, bv, cv) else {
        return (0..cv.len()).try_for_each(row);
    };
    let DivPlan { aff, boxes, nb, rows, top } = f;
    let x0 = bv[0];
    let at_corner = |y: i64, q: i64| ea.at(x0 + y) == Ok(q);
    search(
        &rows,
        top,
        &mut |k, len, _, x| aff.cut_ok(&boxes, nb + k, &rows[k - 1], 0, len, x0 + x[0]) && at_corner(x[0], x[1]),
        &mut |j, x| {
            let one_row = boxes[nb].as_ref().is_some_and(|b| aff.box_ok(b, x0 + x[0], 0, 0));
            if one_row && at_corner(x[0], x[1]) {
                Ok(())
            } else {
                row(j as usize)
            }
        },
    )
}

struct DivPlan {
    aff: Affine,
    /// Per level the boxes of `B`'s digits then the rows' digits (a [`plan`]).
    boxes: Vec<Option<BoxPlan>>,
    /// `B`'s digits.
    nb: usize,
    /// The rows' digits: `C`'s walk refined with `R1`'s (strides `[C, R1]`).
    rows: Vec<Digit>,
    /// The highest level of rows' digits with a box.
    top: usize,
}

fn divide_fast(
    a: &Layout,
    b: &Layout,
    c: &Layout,
    r0: &Layout,
    r1: &Layout,
    bv: &[i64],
    cv: &[i64],
) -> Option<DivPlan> {
    let (ma, m0, m1) = (Eval1dModel::new(a), Eval1dModel::new(r0), Eval1dModel::new(r1));
    let aff = ma.affine()?;
    let bd = refine(&walk_leaves(b)?, &walk_leaves(r0)?)?;
    let rows = refine(&walk_leaves(c)?, &walk_leaves(r1)?)?;
    let n = |d: &[Digit]| d.iter().map(|g| g.e).product::<i64>();
    if n(&bd) != bv.len() as i64 || n(&rows) != cv.len() as i64 || bv.first() != Some(&0) {
        return None;
    }
    let amax = |v: &[i64]| v.iter().map(|x| x.checked_abs()).try_fold(0i64, |m, x| Some(m.max(x?)));
    let (zx, zy) = (amax(bv)?, amax(cv)?);
    // Every A(x_i + y_j), P_i, Q_j and P_i + Q_j is computed exactly and without an error.
    let (zp, zq) = (m0.bound(bv.len() as i64 - 1)?, m1.bound(cv.len() as i64 - 1)?);
    if !ma.safe(zx.checked_add(zy)?) || zp.checked_add(zq)? > INT_MAX {
        return None;
    }
    let nb = bd.len();
    let mut all = bd;
    all.extend(rows.iter().copied());
    span_abs(&all, 0)?;
    span_abs(&all, 1)?;
    let (boxes, _, top) = plan(&aff, &all, 0, |j, s| s == all[j].t[1]);
    boxes[nb].as_ref()?;
    Some(DivPlan { aff, boxes, nb, rows, top: top - nb })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::int::Int;
    use crate::int_tuple::IntTuple;
    use proptest::prelude::*;

    /// Any nesting of leaves with extents and strides of either sign, zero and large values.
    fn raw_layout() -> impl Strategy<Value = Layout> {
        crate::layout::tests::nested_layouts(
            prop_oneof![4 => -3i64..9, 1 => Just(0), 1 => Just(1 << 12), 1 => Just(-(1 << 10)), 1 => Just(INT_MAX)],
        )
    }

    proptest! {
        #[test]
        fn walk_leaves_are_the_walk(l in raw_layout()) {
            if let Some(w) = walk_leaves(&l) {
                let d = digits_of(&w).unwrap();
                let mut got = Vec::new();
                let _ = search(&d, 0, &mut |_, _, _, _| false, &mut |c, x| -> Result<(), ()> { got.push((c, x[0])); Ok(()) });
                let want: Vec<(i64, i64)> = l.walk().unwrap().enumerate().map(|(i, x)| (i as i64, x)).collect();
                prop_assert_eq!(got, want, "{}", l);
            }
        }

        #[test]
        fn the_walk_is_crd2idx(l in raw_layout()) {
            // Layout::walk's odometer (negative extents included) against crd2idx at each point.
            if let Ok(w) = l.walk() {
                for (i, x) in w.enumerate().take(5000) {
                    if let Ok(v) = l.call_int(Int::dy(i as i64)) {
                        prop_assert_eq!(x, v.value, "{}({})", l, i);
                    }
                }
            }
        }

        #[test]
        fn carry_free_boxes_are_affine(l in raw_layout(), x0 in -5000i64..5000, d in prop::collection::vec((2i64..5, -300i64..300), 1..4)) {
            let m = Eval1dModel::new(&l);
            let Some(aff) = m.affine() else { return Ok(()) };
            let digits = digits_of(&d).unwrap();
            let (boxes, slopes, top) = plan(&aff, &digits, 0, |_, _| true);
            let e = l.eval_1d();
            let z = x0.abs() + d.iter().map(|&(n, t)| (n - 1) * t.abs()).sum::<i64>();
            if top == 0 || !m.safe(z) {
                return Ok(());
            }
            let Some(bx) = &boxes[top] else { return Ok(()) };
            if !aff.box_ok(bx, x0, 0, 0) {
                return Ok(());
            }
            let a0 = e.at(x0).unwrap();
            search(&digits[..top], 0, &mut |_, _, _, _| false, &mut |c, x| -> Result<(), TestCaseError> {
                let want = a0 + digits[..top].iter().zip(&slopes).map(|(g, s)| (c / g.p) % g.e * s).sum::<i64>();
                prop_assert_eq!(e.at(x0 + x[0]), Ok(want), "{}: {} + {}", l, x0, x[0]);
                Ok(())
            })?;
        }

        #[test]
        fn safe_eval_1d_is_the_flat_value(l in raw_layout(), xs in prop::collection::vec(prop_oneof![-100i64..100, any::<i32>().prop_map(i64::from)], 1..8)) {
            let m = Eval1dModel::new(&l);
            let e = l.eval_1d();
            for x in xs {
                if m.safe(x.abs()) {
                    let v = e.at(x);
                    prop_assert!(v.is_ok(), "{}({})", l, x);
                    prop_assert_eq!(v.clone().ok(), super::super::composition::eval_flat(&m.pairs, x), "{}({})", l, x);
                    prop_assert!(v.unwrap().abs() <= m.bound(x.abs()).unwrap());
                }
            }
        }

        #[test]
        fn injective_is_the_sort(l in raw_layout()) {
            if let (Some(fast), Ok(v)) = (injective(&l), l.values()) {
                let mut s = v.clone();
                s.sort_unstable();
                s.dedup();
                prop_assert_eq!(fast, s.len() == v.len(), "{}", l);
            }
        }
    }

    use crate::gen::{self, Staticness};
    use crate::postcondition::{Checked, Violation};
    use crate::{composition, left_inverse};

    /// A small layout with extents and strides of either sign (extents in `-3..=5`, never 0),
    /// strides in `-12..=12` or large: at most 5 leaves.
    fn signed_layout() -> BoxedStrategy<Layout> {
        let ext = prop_oneof![4 => 1i64..=5, 1 => -3i64..=-1];
        let strd = prop_oneof![6 => -12i64..=12, 1 => Just(1 << 12), 1 => Just(-(1 << 20))];
        let leaf = (ext, strd).prop_map(|(s, d)| (IntTuple::st(s), IntTuple::st(d)));
        let inner = prop_oneof![
            leaf.clone(),
            prop::collection::vec(leaf.clone(), 1..=2).prop_map(|v| {
                let (s, d): (Vec<_>, Vec<_>) = v.into_iter().unzip();
                (IntTuple::tuple(s), IntTuple::tuple(d))
            })
        ];
        prop_oneof![1 => leaf, 3 => prop::collection::vec(inner, 1..=3).prop_map(|v| {
            let (s, d): (Vec<_>, Vec<_>) = v.into_iter().unzip();
            (IntTuple::tuple(s), IntTuple::tuple(d))
        })]
        .prop_map(|(shape, stride)| Layout { shape, stride })
        .boxed()
    }

    /// Up to three leaves with extents up to 16 (so that digits are cut in halves), either sign.
    fn wide_layout() -> BoxedStrategy<Layout> {
        let ext = prop_oneof![4 => 1i64..=16, 1 => -9i64..=-1];
        let strd = prop_oneof![4 => -20i64..=40, 1 => (1i64..8).prop_map(|k| k * 16)];
        prop::collection::vec((ext, strd), 1..=3)
            .prop_map(|v| {
                let (s, d): (Vec<_>, Vec<_>) = v.into_iter().map(|(s, d)| (IntTuple::st(s), IntTuple::st(d))).unzip();
                Layout { shape: IntTuple::tuple(s), stride: IntTuple::tuple(d) }
            })
            .boxed()
    }

    /// Compact (bijective, then scaled) layouts, whose compositions and inverses mostly pass.
    fn admissible() -> BoxedStrategy<Layout> {
        (prop_oneof![Just(Staticness::AllStatic), Just(Staticness::Mixed)], 1i64..4)
            .prop_flat_map(|(s, k)| gen::small_compact(5, k, s))
            .boxed()
    }

    /// `l` with leaf `k` (mod the leaf count) of its stride moved by `bump`.
    fn bumped(l: &Layout, k: usize, bump: i64) -> Layout {
        let n = l.leaf_pairs().len().max(1);
        let mut i = 0;
        let stride = l.stride.map_leaves(&mut |d| {
            i += 1;
            Ok(if i - 1 == k % n { Int::new(d.value + bump, d.is_static) } else { d })
        });
        Layout { shape: l.shape.clone(), stride: stride.unwrap() }
    }

    /// composition::check_postconditions as it was: every coordinate walked.
    fn composition_walked(a: &Layout, b: &Layout, r: &Layout) -> Checked {
        use crate::postcondition::cite;
        if !crate::int_tuple::compatible(&b.shape, &r.shape) {
            return Err(Violation::cute(
                cite::COMPOSITION_COMPATIBLE,
                format!("2: shape of {r} is not compatible with the shape of {b}"),
            ));
        }
        let n = b.size()?.value;
        if n > MAX_WALK {
            return Err(Violation::unverifiable(format!("1: {b} has {n} coordinates, too many to verify")));
        }
        let pairs: Vec<(i64, i64)> = a.leaf_pairs().iter().map(|(s, d)| (s.value, d.value)).collect();
        for (c, (bc, rc)) in b.walk()?.zip(r.walk()?).enumerate() {
            let want = composition::eval_flat(&pairs, bc)
                .ok_or_else(|| Violation::unverifiable(format!("1: {a}({bc}) overflows")))?;
            if rc != want {
                return Err(Violation::cute(
                    cite::COMPOSITION_VALUES,
                    format!("1: {r}({c}) = {rc} but {a}({b}({c})) = {a}({bc}) = {want}"),
                ));
            }
        }
        Ok(())
    }

    /// left_inverse::check_postconditions as it was (its certificate first, then every point).
    fn left_inverse_walked(layout: &Layout, r: &Layout) -> Checked {
        if crate::fast::left_inverse_ok(layout, r) {
            return Ok(());
        }
        let lv = layout.values()?;
        let mut seen = lv.clone();
        seen.sort_unstable();
        seen.dedup();
        let injective = seen.len() == lv.len();
        let (er, el) = (r.eval_1d(), layout.eval_1d());
        for (i, &x) in lv.iter().enumerate() {
            let back = er.at(x)?;
            let again = el.at(back)?;
            if again != x {
                return Err(Violation::cute("quasi", format!("1: {layout}({r}({layout}({i}))) = {again} != {x}")));
            }
            if injective && back != i as i64 {
                return Err(Violation::cute("left", format!("2: {r}({layout}({i})) = {back} != {i}")));
            }
        }
        Ok(())
    }

    /// The same answer, the cited source aside (the walked copy cites shorthands).
    fn same(fast: Checked, slow: Checked) -> Result<(), TestCaseError> {
        let strip = |c: Checked| c.map_err(|v| (v.is_cute(), v.is_ours(), v.condition));
        prop_assert_eq!(strip(fast), strip(slow));
        Ok(())
    }

    fn composition_same(a: &Layout, b: &Layout, k: usize, bump: i64) -> Result<(), TestCaseError> {
        let r = crate::without_definition_checks(|| composition::composition_unchecked(a, b));
        let mut rs = vec![b.clone(), bumped(b, k, bump)];
        if let Ok(r) = r {
            rs.push(bumped(&r, k, bump));
            rs.push(r);
        }
        for r in rs {
            same(composition::check_postconditions(a, b, &r), composition_walked(a, b, &r))?;
        }
        Ok(())
    }

    fn left_inverse_same(l: &Layout, k: usize, bump: i64) -> Result<(), TestCaseError> {
        let Ok(r) = left_inverse::left_inverse_unchecked(l) else { return Ok(()) };
        for r in [bumped(&r, k, bump), r] {
            same(left_inverse::check_postconditions(l, &r), left_inverse_walked(l, &r))?;
            // The walk alone (without fast.rs's certificate in front), point by point.
            let Ok(lw) = l.walk() else { continue };
            let lv = l.values().unwrap();
            let mut seen = lv.clone();
            seen.sort_unstable();
            seen.dedup();
            let injective = seen.len() == lv.len();
            let (er, el) = (r.eval_1d(), l.eval_1d());
            let point = |i: i64, x: i64| -> Checked {
                let back = er.at(x)?;
                let again = el.at(back)?;
                if again != x {
                    return Err(Violation::cute("quasi", format!("1: {i} {again} != {x}")));
                }
                if injective && back != i {
                    return Err(Violation::cute("left", format!("2: {back} != {i}")));
                }
                Ok(())
            };
            let slow = lv.iter().enumerate().try_for_each(|(i, &x)| point(i as i64, x));
            same(super::left_inverse(l, &r, injective, lw, &er, &el, point), slow)?;
        }
        Ok(())
    }

    /// logical_divide's double loop walked plainly, and through [`divide_rows`] (rows) and
    /// [`divide_tile`] (its first loop), with logical_divide's own per-point checks.
    fn divide_same(a: &Layout, b: &Layout, c: &Layout, r0: &Layout, r1: &Layout) -> Result<(), TestCaseError> {
        use crate::logical_divide::{check_row, check_tile};
        let (Ok(bv), Ok(cv)) = (b.values(), c.values()) else { return Ok(()) };
        if r1.values().map(|v| v.len()) != Ok(cv.len()) {
            return Ok(()); // check_layout stops before the loop
        }
        let r = Layout::concat(&[r0.clone(), r1.clone()]); // named in the violations only
        let (ea, e0, e1) = (a.eval_1d(), r0.eval_1d(), r1.eval_1d());
        let row = |j: usize| check_row(a, &r, (&ea, &e0, &e1), &bv, &cv, j);
        let slow: Checked = (0..cv.len()).try_for_each(row);
        let fast = divide_rows(a, b, c, r0, r1, &ea, &bv, &cv, row);
        same(fast, slow)?;
        // The first loop of check_layout: R(i, 0) == A(B(i)), walked and boxed.
        let r0v = r0.values().unwrap_or_default();
        let tile = |i: usize| check_tile(a, b, &r, &ea, &bv, &r0v, i);
        let slow: Checked = (0..bv.len()).try_for_each(tile);
        same(divide_tile(a, b, r0, &ea, bv.len(), tile), slow)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

        #[test]
        fn composition_walk_is_the_plain_walk_signed(a in signed_layout(), b in signed_layout(), k in 0usize..6, bump in -3i64..4) {
            composition_same(&a, &b, k, bump)?;
        }

        #[test]
        fn composition_walk_is_the_plain_walk_admissible(a in admissible(), b in admissible(), k in 0usize..6, bump in -2i64..3) {
            composition_same(&a, &b, k, bump)?;
        }

        #[test]
        fn composition_walk_is_the_plain_walk_wide(a in prop_oneof![wide_layout(), admissible()], b in wide_layout(), k in 0usize..6, bump in -2i64..3) {
            composition_same(&a, &b, k, bump)?;
        }

        #[test]
        fn left_inverse_walk_is_the_plain_walk_wide(l in wide_layout(), k in 0usize..6, bump in -2i64..3) {
            left_inverse_same(&l, k, bump)?;
        }

        #[test]
        fn left_inverse_walk_is_the_plain_walk(l in prop_oneof![signed_layout(), admissible()], k in 0usize..6, bump in -2i64..3) {
            left_inverse_same(&l, k, bump)?;
        }

        #[test]
        fn divide_rows_are_the_double_loop(
            a in prop_oneof![signed_layout(), admissible()],
            b in prop_oneof![signed_layout(), admissible()],
            c in signed_layout(),
            k in 0usize..6,
            bump in -2i64..3,
        ) {
            // R's modes as the divide computes them (A o B, A o C), and perturbed.
            let r0 = crate::without_definition_checks(|| composition::composition_unchecked(&a, &b)).unwrap_or_else(|_| b.clone());
            let r1 = crate::without_definition_checks(|| composition::composition_unchecked(&a, &c)).unwrap_or_else(|_| c.clone());
            divide_same(&a, &b, &c, &r0, &r1)?;
            divide_same(&a, &b, &c, &bumped(&r0, k, bump), &r1)?;
            divide_same(&a, &b, &c, &r0, &bumped(&r1, k, bump))?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

        #[test]
        fn complement_order_is_the_walk(
            a in prop_oneof![signed_layout(), admissible()],
            cot in prop::option::of(1i64..300),
            k in 0usize..6,
            bump in -2i64..3,
        ) {
            // CuTe's complement and the same perturbed: where the stride order shows 1, 2 and 6,
            // the walks succeed and find them.
            let cot = cot.map(IntTuple::st);
            let Ok(r) = crate::complement::complement_unchecked(&a, cot.as_deref()) else { return Ok(()) };
            let Ok(f) = crate::filter::filter(&a) else { return Ok(()) };
            for r in [bumped(&r, k, bump), r] {
                if !complement_ordered_disjoint_injective(&a, &f, &r) {
                    continue;
                }
                let (av, fv, rv) = (a.values().unwrap(), f.values().unwrap(), r.values().unwrap());
                prop_assert!(rv.windows(2).all(|w| w[0] < w[1]), "1: {}", r);
                prop_assert!(rv.iter().skip(1).all(|x| !av.contains(x)), "2: {} {}", a, r);
                let mut all: Vec<i64> = rv.iter().flat_map(|x| fv.iter().map(move |y| x + y)).collect();
                all.sort_unstable();
                prop_assert!(all.windows(2).all(|w| w[0] != w[1]), "6: {} {}", f, r);
            }
        }
    }

    /// max_common's checks as they were: every point with crd2idx.
    fn agree_walked(a: &Layout, b: &Layout, x: i64, i: i64) -> Checked {
        let av = a.call_int(Int::dy(x))?.value;
        let bv = b.call_int(Int::dy(x))?.value;
        if av != i || bv != i {
            return Err(Violation::cute("mc", format!("A({x}) = {av}, B({x}) = {bv}, expected both {i}")));
        }
        Ok(())
    }

    fn max_common_same(a: &Layout, b: &Layout, k: usize, bump: i64, n: i64) -> Result<(), TestCaseError> {
        use crate::max_common;
        let unchecked = |f: &dyn Fn() -> crate::Result<Layout>| crate::without_definition_checks(f);
        if let Ok(r) = unchecked(&|| max_common::max_common_layout(a, b)) {
            for r in [bumped(&r, k, bump), r] {
                let slow = || -> Checked {
                    for (i, x) in r.values()?.into_iter().enumerate() {
                        agree_walked(a, b, x, i as i64).map_err(|v| v.context(format!("1: at {r}({i}): ")))?;
                    }
                    Ok(())
                };
                same(max_common::check_layout(a, b, &r), slow())?;
            }
        }
        let slow = || -> Checked {
            let inv = crate::right_inverse::right_inverse(b)?;
            for i in 0..n {
                let x = inv.call_int(Int::dy(i))?.value;
                agree_walked(a, b, x, i).map_err(|v| v.context(format!("2: at n = {i}: ")))?;
            }
            Ok(())
        };
        same(max_common::check_vector(a, b, Int::st(n)), slow())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

        #[test]
        fn max_common_walks_are_the_plain_walks(
            a in prop_oneof![wide_layout(), admissible(), signed_layout()],
            b in prop_oneof![wide_layout(), admissible(), signed_layout()],
            same_ab in any::<bool>(),
            k in 0usize..6,
            bump in -2i64..3,
            n in 1i64..200,
        ) {
            let b = if same_ab { bumped(&a, k + 1, bump) } else { b };
            max_common_same(&a, &b, k, bump, n)?;
            max_common_same(&a, &a, k, bump, n)?;
        }
    }

    #[test]
    fn mix_lines_take_the_fast_paths() {
        // Lines of the whole-command mix whose walks took 0.1-27 ms each.
        let l = |t: &str| crate::test_util::l(t);
        let (a, f, r) = (l("(_64,_2):(_133,_13)"), l("(_64,_2):(_133,_13)"), l("(_13,_5):(_1,_26)"));
        assert!(complement_ordered_disjoint_injective(&a, &f, &r));
        let (a, bc) = (l("_4096:_1"), l("((_4,(_128,_4),_1),(_-12,_-5,_4)):((_284,(_0,_-12),_-7),(_1,_-48,_1136))"));
        let pairs: Vec<(i64, i64)> = a.leaf_pairs().iter().map(|(s, d)| (s.value, d.value)).collect();
        assert!(composition_fast(&pairs, |z| flat_safe(&pairs, z), &bc, &bc)
            .is_some_and(|(d, _, (_, _, top))| top == d.len()));
        let li = l("(_4096,(_4,_2),_1):(_8,(_2,_-1),_32768)");
        let r = left_inverse::left_inverse_unchecked(&li).unwrap();
        assert!(left_inverse_fast(&li, &r, injective(&li).unwrap()).is_some());
    }

    #[test]
    fn refine_cuts_both() {
        let d = refine(&[(4, 1), (2, 8)], &[(2, 3), (4, 5)]).unwrap();
        assert_eq!(
            d.iter().map(|g| (g.e, g.p, g.t)).collect::<Vec<_>>(),
            vec![(2, 1, [1, 3]), (2, 2, [2, 5]), (2, 4, [8, 10])]
        );
        assert!(refine(&[(6, 1)], &[(4, 1)]).is_none());
        assert!(refine(&[(6, 1)], &[(4, 1), (3, 1)]).is_none());
        let _ = Int::st(0);
    }
}
