//! `complement(A, cotarget)`: the layout of the positions of `[0, cotarget)` that `A` leaves out,
//! in increasing order (layout.hpp).
//!
//! How CuTe 4.2 computes it (and so the engine, static-ness included):
//! - `A` is replaced by `filter(A)` (static-zero strides and static `_1` extents removed).
//! - If the filtered stride is the static `_0` (nothing left), the result is
//!   `make_layout(coalesce(cotarget))`.
//! - Otherwise, with `R = rank(filter(A))`: CuTe requires static strides when `R > 1`
//!   (["Dynamic-stride complement only for rank-1 layouts"](Error::DynamicStrideComplement)).
//!   Repeatedly take the smallest remaining stride `d` (first one on ties) with its extent `n`:
//!   emit the mode `d / last : last` where `last` is the previous `d * n` (initially `_1`); a
//!   static zero extent is ["Non-injective Layout detected in complement."](Error::NonInjectiveComplement).
//!   The rest is `coalesce(ceil_div(cotarget, d*n))` with compact column-major strides from `d*n`,
//!   and the whole result is `coalesce`d.
//! - `cotarget` may be an integer or an int tuple (a shape); without one it is `cosize(filter(A))`.
//!   With dynamic values CuTe divides without checks (a dynamic zero stride divides by zero at run
//!   time).
//!
//! Postconditions (checked by [`check_postconditions`], CuTe's before ours; a CuTe result that
//! violates one of CuTe's is refused with [`Error::Undefined`], one that fails only ours is
//! returned, "stricter than CuTe"). With `F = filter(A)` and `N = size(cotarget)`:
//! 0. Every extent of `R` is positive [CuTe: layout.hpp complement, `static_assert(not
//!    is_constant<0, decltype(new_shape)>::value, "Non-injective Layout detected in complement.")`
//!    refuses a zero extent; its `@post For all i in [1,size(result))` reads `size(result)` as
//!    the number of the result's coordinates, which a negative extent is not: `(_-2,_-3)` has
//!    "size" 6 but no coordinates]. Checked first, since the walks below are meaningless then.
//! 1. `R` is ordered: `R(i-1) < R(i)` for `1 <= i < size(R)` [CuTe: complement.cpp "Ordered (3)"
//!    `EXPECT_LT(result(i-1), result(i))`; layout.hpp `@post` of complement].
//! 2. `R` is disjoint from `A`: `R(i) != A(j)` for `1 <= i < size(R)`, `0 <= j < size(A)` [CuTe:
//!    complement.cpp "Disjoint (4)" `EXPECT_NE(result(i), layout(j))`; layout.hpp `@post`].
//! 3. `cosize(make_layout(A, R)) >= N` [CuTe: complement.cpp "Lower-bound on the codomain size of
//!    the layout ++ complement (1)"].
//! 4. `cosize(R) <= round_up(N, cosize(A))` [CuTe: complement.cpp "Upper-bound on the codomain size
//!    of the complement (2)"].
//! 5. `size(R) >= N / size(F)` and `cosize(R) >= N / size(F)` (integer division) [CuTe: layout.hpp
//!    `@post size(@a result) >= @a cosize_hi / size(filter(@a layout))`; complement.cpp "Other
//!    observations"]. (complement.cpp's `size(R) <= cosize(R)` follows from 1, and its
//!    `cosize(completed) <= cosize(R) + cosize(A)` holds for every layout; its
//!    `size(complement(completed)) == 1` tests the algorithm again, not a result.)
//! 6. `(F, R)` is injective: `F(j) + R(i)` are pairwise distinct [ours: CuTe only asks 2].
//! 7. `size(F) * size(R) >= N` [ours: with 6, `(F, R)` covers `N` positions; CuTe asks only 3, so
//!    `complement((_4,_6):(_1,_6))` of complement.cpp (`_1:_0`) satisfies CuTe's definition].
//!
//! Fast path ([`verified`], used by every checked entry point): the brute-force check is skipped
//! when the certificate [`super::fast::complement_ok`] holds, otherwise it runs as before. With
//! all extents of `F = filter(A)` and `R` at least 1 and positive strides on the modes of extent
//! above 1: (1) `R`'s modes of extent > 1, in order, have `d_j > sum_{i<j} (n_i - 1) d_i` (each
//! step of the 1-D coordinate then raises `R`), (2) the same holds for the modes of `F` and `R`
//! together sorted by stride (the highest differing digit then decides, so `F(j) + R(i)` are
//! distinct), and (3) `size(F) * size(R) >= size(cotarget)` is computed. These give
//! postconditions 1, 6 and 7, and with them 2 (`R(i) = F(0) + R(i)` and `A(j) = F(j') + R(0)`
//! differ for `i >= 1`), 3 (`size(F) * size(R)` distinct non-negative sums reach
//! `size(cotarget) - 1`) and 5; postcondition 4 is computed directly. For the usual admissible
//! case (sorted strides of `A` each dividing the next one's span) CuTe's result is exactly such
//! a layout. Full argument: `fast.rs`.

use super::coalesce::{bw_walk_static, coalesce_shape, coalesce_slice, ModesRef};
use super::error::{Error, Result};
use super::filter::filter;
use super::filter::with_filter;
use super::int::{int32, Int};
use super::int_tuple::{Builder, IntTuple, Step, Tup, View};
use super::layout::cosize_pairs;
use super::layout::{Layout, MAX_WALK};
use super::postcondition::{enforce, Checked, Violation};
use super::runtime::{checks_on, deferred, rt};
use super::tiler::compact_col_major;

/// CuTe's `ceil_div(cotarget, d)` for an int tuple and an integer: fold `d` over the modes.
fn ceil_div_tuple(a: &Tup, b: Int) -> Result<IntTuple> {
    match a.view() {
        View::Leaf(x) => Ok(IntTuple::leaf(rt(x.ceil_div(b), x, b)?)),
        View::Tuple(v) => {
            let mut r = b;
            let mut out = Builder::new();
            for ai in v {
                out.push(&ceil_div_tuple(ai, r)?);
                // ceil_div(rest, ai): an integer over a tuple divides by the tuple's product.
                let p = ai.product()?;
                r = rt(r.ceil_div(p), r, p)?;
            }
            Ok(out.finish())
        }
    }
}

/// CuTe's algorithm for `complement(A, cotarget)` without the definition check.
pub fn complement_unchecked(a: &Layout, cotarget: Option<&Tup>) -> Result<Layout> {
    if let Some(k) = Small::new(a, cotarget) {
        return Ok(k.layout());
    }
    general_unchecked(a, cotarget)
}

/// [`complement_unchecked`] without the small path.
fn general_unchecked(a: &Layout, cotarget: Option<&Tup>) -> Result<Layout> {
    with_filter(a, |f| complement_impl(a, f, cotarget))
}

/// Most leaves of `A` the small path ([`Small`]) takes.
const SMALL: usize = 8;

/// The small path: CuTe's algorithm (the steps of [`complement_impl`] after `filter`) on plain
/// integers in stack arrays, for the common case: `A` of at most [`SMALL`] leaves, every one static
/// with an extent >= 1 and a stride >= 0, and a cotarget of at most [`SMALL`] static leaves, each
/// at least 1 (or none). Every value is
/// then static, so CuTe's static-ness rules reduce to the values. Anything else along the way (a
/// filtered stride of `_0`, a zero extent, a value leaving CuTe's 32-bit range) hands the case
/// back (`None`) to the general path, which computes it, or its error, as before; where the small
/// path answers, it answers the same (property test below).
pub(crate) struct Small {
    /// `F = filter(A)`, its modes by increasing stride, `f[f_lo..f_hi]` (ranges, not shifts:
    /// moving a slice to the front is a `memmove` call).
    f: [(i64, i64); SMALL],
    f_lo: usize,
    f_hi: usize,
    /// `R`, flat, in order (the sorted modes, the rest mode; coalesced).
    r: [(i64, i64); SMALL + 1],
    r_lo: usize,
    r_hi: usize,
    /// `size(cotarget)`, or `cosize(F)` without one.
    n: i64,
    /// `cosize(A)` as [`Layout::cosize_value`] computes it.
    cosize_a: Option<i64>,
}

impl Small {
    /// The small path for `complement(A, cotarget)`, where it applies.
    #[inline(always)]
    fn new(a: &Layout, cotarget: Option<&Tup>) -> Option<Small> {
        let mut cot = [0i64; SMALL];
        let Some(c) = cotarget else { return Small::of(a, None) };
        let mut k = 0;
        for leaf in c.leaf_iter() {
            *cot.get_mut(k)? = leaf.is_static.then_some(leaf.value)?;
            k += 1;
        }
        Small::of(a, Some(&cot[..k]))
    }

    /// The small path for `complement(A, cotarget)` with the static leaves of the cotarget (an
    /// integer or a shape: `ceil_div` folds through its leaves as through its modes, since
    /// `ceil_div(ceil_div(r, x), y) == ceil_div(r, x * y)` for positive integers), or without one.
    #[inline(always)]
    pub(crate) fn of(a: &Layout, cot: Option<&[i64]>) -> Option<Small> {
        // filter(A): A's leaves, a static `_0` stride making its extent `_1`, then coalesce.
        let mut f = [(0i64, 0i64); SMALL];
        let mut k = 0;
        let mut cosize_a = Some(0i64);
        for step in a.shape.zip_steps(&a.stride)? {
            if let Step::Leaf(s, d) = step {
                if !s.is_static || !d.is_static || s.value < 1 || d.value < 0 {
                    return None;
                }
                cosize_a = cosize_a.and_then(|c| int32(c.checked_add(int32((s.value - 1).checked_mul(d.value))?)));
                *f.get_mut(k)? = (if d.value == 0 { 1 } else { s.value }, d.value);
                k += 1;
            }
        }
        if k == 0 {
            return None;
        }
        let cosize_a = cosize_a.and_then(|c| int32(c.checked_add(1)));
        let (w, tuple) = bw_walk_static(&mut f[..k])?;
        let (f_lo, f_hi) = (w, k);
        let nf = k - w;
        let fm = &mut f[f_lo..f_hi];
        if (!tuple && fm[0].1 == 0) || fm.iter().any(|&(s, d)| s < 1 || d < 1) {
            return None;
        }
        let n = match cot {
            None => {
                fm.iter().try_fold(0i64, |acc, &(s, d)| int32(acc.checked_add(int32((s - 1).checked_mul(d))?)))? + 1
            }
            Some(c) if !c.is_empty() && c.iter().all(|&c| c >= 1) => {
                c.iter().try_fold(1i64, |acc, &c| int32(acc.checked_mul(c)))?
            }
            Some(_) => return None,
        };
        let n = int32(Some(n))?;
        // The modes by increasing stride, the first on ties (CuTe takes the minimum each time);
        // sorted in place, since nothing below depends on F's order.
        for i in 1..nf {
            let mut j = i;
            while j > 0 && fm[j - 1].1 > fm[j].1 {
                fm.swap(j - 1, j);
                j -= 1;
            }
        }
        let mut r = [(0i64, 0i64); SMALL + 1];
        let mut last = 1i64;
        for (k, &(s, d)) in fm.iter().enumerate() {
            let new_shape = d / last;
            if new_shape == 0 {
                return None;
            }
            r[k] = (new_shape, last);
            last = int32(d.checked_mul(s))?;
        }
        // The rest: coalesce(ceil_div(cotarget, last)) (the product of the static leaves) with
        // compact strides from `last`.
        let rest = match cot {
            None => (n + last - 1) / last,
            Some(c) => {
                let (mut rest, mut q) = (1i64, last);
                for &c in c {
                    rest = int32(rest.checked_mul((c + q - 1) / q))?;
                    q = (q + c - 1) / c;
                }
                rest
            }
        };
        r[nf] = (rest, if rest == 1 { 0 } else { last });
        let (w, _) = bw_walk_static(&mut r[..=nf])?;
        Some(Small { f, f_lo, f_hi, r, r_lo: w, r_hi: nf + 1, n, cosize_a })
    }

    /// `R`'s flat modes (one is a leaf mode).
    pub(crate) fn modes(&self) -> &[(i64, i64)] {
        &self.r[self.r_lo..self.r_hi]
    }

    /// `R` as a layout (CuTe's print of a coalesced layout: one mode is a leaf layout).
    #[inline(always)]
    pub(crate) fn layout(&self) -> Layout {
        let r = &self.r[self.r_lo..self.r_hi];
        if let [(s, d)] = r {
            return Layout::leaf(Int::st(*s), Int::st(*d));
        }
        Layout { shape: IntTuple::of_static(r.iter().map(|m| m.0)), stride: IntTuple::of_static(r.iter().map(|m| m.1)) }
    }

    /// The checks of [`complement`]'s fast path on these values: the analytic certificate
    /// (`fast::complement_ok`: extents and strides, `size(F) * size(R)` between `N` and
    /// `MAX_WALK`, which also makes `(F, R)` walkable, and the two stride orders) and
    /// postcondition 4. Where it holds, [`complement`]'s own path accepts the same layout.
    #[inline(always)]
    fn certified(&self) -> bool {
        let (f, r) = (&self.f[self.f_lo..self.f_hi], &self.r[self.r_lo..self.r_hi]);
        if f.iter().chain(r).any(|&(s, d)| s < 1 || (s > 1 && d <= 0)) {
            return false;
        }
        let size = |m: &[(i64, i64)]| m.iter().try_fold(1i64, |acc, &(s, _)| acc.checked_mul(s));
        let Some(total) = size(f).zip(size(r)).and_then(|(x, y)| x.checked_mul(y)) else { return false };
        if total > MAX_WALK || total < self.n {
            return false;
        }
        // The stride orders (`fast::increasing`): R's modes of extent > 1 in order, then those of
        // F and R together by stride. Where R's pass, their strides increase, and F's are sorted
        // (checked here), so the second order is a merge of the two, with no buffer to sort.
        let mut span = 0i64;
        for &(s, d) in r.iter().filter(|m| m.0 > 1) {
            if d <= span {
                return false;
            }
            let Some(x) = (s - 1).checked_mul(d).and_then(|x| span.checked_add(x)) else { return false };
            span = x;
        }
        if f.windows(2).any(|w| w[0].1 > w[1].1) {
            return false;
        }
        let (mut fi, mut ri) = (f.iter().filter(|m| m.0 > 1).peekable(), r.iter().filter(|m| m.0 > 1).peekable());
        let mut span = 0i64;
        loop {
            let (s, d) = match (fi.peek(), ri.peek()) {
                (Some(a), Some(b)) if a.1 <= b.1 => *fi.next().expect("peeked"),
                (_, Some(_)) => *ri.next().expect("peeked"),
                (Some(_), None) => *fi.next().expect("peeked"),
                (None, None) => break,
            };
            if d <= span {
                return false;
            }
            let Some(x) = (s - 1).checked_mul(d).and_then(|x| span.checked_add(x)) else { return false };
            span = x;
        }
        // Postcondition 4: cosize(R) <= round_up(N, cosize(A)).
        let cosize_r = r.iter().try_fold(0i64, |acc, &(s, d)| int32(acc.checked_add(int32((s - 1).checked_mul(d))?)));
        match (self.cosize_a, cosize_r.and_then(|c| int32(c.checked_add(1)))) {
            (Some(ca), Some(cr)) => round_up(self.n, ca).is_some_and(|u| cr <= u),
            _ => false,
        }
    }
}

/// CuTe's algorithm on `f = filter(A)` (given as flat modes).
pub(crate) fn complement_impl(a: &Layout, f: ModesRef<'_>, cotarget: Option<&Tup>) -> Result<Layout> {
    let own;
    let cot = match cotarget {
        Some(c) => c,
        None => {
            own = IntTuple::leaf(cosize_pairs(f.modes)?);
            &own
        }
    };
    if !f.tuple && f.modes[0].1.is_static_value(0) {
        let shape = coalesce_shape(cot)?;
        let stride = compact_col_major(&shape, Int::st(1))?;
        return Layout::new(shape, stride);
    }
    let modes = f.modes;
    let r = modes.len();
    if r > 1 && !modes.iter().all(|p| p.1.is_static) {
        return Err(Error::DynamicStrideComplement);
    }
    // The leaves of ((res_s),rest_shape):((res_d),rest_stride), in order: step k emits
    // (d_k / last, last) with `last` the previous step's d*n (first `_1`). A mode taken is marked
    // in `used` (CuTe removes it from the tuple; the others keep their order).
    let mut leaves: smallvec::SmallVec<[(Int, Int); 10]> = smallvec::SmallVec::new();
    let mut used: smallvec::SmallVec<[bool; 16]> = smallvec::smallvec![false; r];
    let mut last = Int::st(1);
    for _ in 0..r - 1 {
        // cute::min over all remaining strides, then the first index holding it.
        let remaining = || modes.iter().zip(&used).filter(|(_, &u)| !u).map(|(p, _)| p);
        let min = remaining().map(|p| p.1).reduce(Int::min).expect("non-empty");
        let idx = modes.iter().zip(&used).position(|(p, &u)| !u && p.1.value == min.value).expect("present");
        let new_shape = rt(min.div(last), min, last)?;
        let new_stride = min.mul(modes[idx].0)?;
        if new_shape.is_static_value(0) && injectivity_checked() {
            return Err(Error::NonInjectiveComplement { detail: format!("stride {min} of {a} after {last}") });
        }
        used[idx] = true;
        leaves.push((new_shape, last));
        last = new_stride;
    }
    let (n, d) = modes[used.iter().position(|&u| !u).expect("one mode left")];
    let new_shape = rt(d.div(last), d, last)?;
    if new_shape.is_static_value(0) && injectivity_checked() {
        return Err(Error::NonInjectiveComplement { detail: format!("stride {d} of {a} after {last}") });
    }
    leaves.push((new_shape, last));
    let new_stride = d.mul(n)?;
    let rest_shape = coalesce_shape(&ceil_div_tuple(cot, new_stride)?)?;
    let rest_stride = compact_col_major(&rest_shape, new_stride)?;
    // coalesce(((res_s),rest_shape):((res_d),rest_stride)) reads only the leaves, in this order.
    leaves.extend(rest_shape.leaf_iter().zip(rest_stride.leaf_iter()));
    Ok(coalesce_slice(&mut leaves)?.to_layout())
}

/// Whether the modelled release refuses a static zero extent ("Non-injective Layout detected in
/// complement."): from 3.4 ([`crate::release::COMPLEMENT_CHECKS_INJECTIVITY`]); 3.3 emits the `_0`
/// mode, and the result (size 0) is then refused by the postconditions as undefined.
fn injectivity_checked() -> bool {
    crate::release::COMPLEMENT_CHECKS_INJECTIVITY.on()
}

/// `complement(A, cotarget)`; refuses results that violate the definition.
#[inline(always)]
pub fn complement(a: &Layout, cotarget: Option<&Tup>) -> Result<Layout> {
    if !checks_on() {
        return deferred(|| complement_unchecked(a, cotarget));
    }
    // (Not `Option::filter`, which would move the arrays.)
    if let Some(k) = &Small::new(a, cotarget) {
        if k.certified() {
            return Ok(k.layout());
        }
    }
    general(a, cotarget)
}

/// [`complement`]'s small path for an integer cotarget, read from the argument as it is (the
/// builtin's entry, before an int tuple is built); `None`: take [`complement`].
#[inline(always)]
pub fn small_int(a: &Layout, n: Int) -> Option<Layout> {
    if !checks_on() || !n.is_static {
        return None;
    }
    let k = &Small::of(a, Some(&[n.value]))?;
    k.certified().then(|| k.layout())
}

/// [`complement`] (with the checks on) without the small path.
#[inline(never)]
fn general(a: &Layout, cotarget: Option<&Tup>) -> Result<Layout> {
    with_filter(a, |f| {
        let r = deferred(|| complement_impl(a, f, cotarget))?;
        walkable_pair(f, &r)?;
        if certificate(f, cotarget, &r) && upper_bound_holds(a, cotarget, &r) {
            return Ok(r);
        }
        enforce("complement", check_postconditions(a, cotarget, &r))?;
        Ok(r)
    })
}

/// `walkable(make_layout(f, r))` without building the pair: the size is folded over the leaves of
/// `f` then `r` (as `size` of the pair would), and the pair is only built for the error message.
fn walkable_pair(f: ModesRef<'_>, r: &Layout) -> Result<()> {
    let n = r.shape.fold_product(f.modes.iter().try_fold(Int::st(1), |acc, m| acc.mul(m.0)).map_err(Error::from));
    match n {
        Ok(n) if n.value <= MAX_WALK => Ok(()),
        _ => super::composition::walkable(&Layout::concat(&[f.to_layout(), r.clone()])),
    }
}

/// [`check_postconditions`] for `complement(A, cotarget) == R`, answered in O(rank) when the
/// analytic certificate ([`super::fast::complement_ok`]) and postcondition 4 hold.
pub fn verified(a: &Layout, cotarget: Option<&Tup>, r: &Layout) -> Checked {
    if certified(a, cotarget, r) {
        return Ok(());
    }
    check_postconditions(a, cotarget, r)
}

/// Whether the analytic certificate shows the postconditions of `complement(A, cotarget) == R`
/// (it shows 1-3 and 5-7, postcondition 4 is computed directly).
pub(crate) fn certified(a: &Layout, cotarget: Option<&Tup>, r: &Layout) -> bool {
    with_filter(a, |f| Ok(certificate(f, cotarget, r))).unwrap_or(false) && upper_bound_holds(a, cotarget, r)
}

/// [`super::fast::complement_ok`] for `f = filter(A)`, with the cotarget's size.
fn certificate(f: ModesRef<'_>, cotarget: Option<&Tup>, r: &Layout) -> bool {
    let cot = match cotarget {
        Some(c) => c.product(),
        None => cosize_pairs(f.modes),
    };
    matches!(cot, Ok(n) if super::fast::complement_ok(f.modes, n.value, r))
}

/// The size of the cotarget: `size(cotarget)`, or `cosize(filter(A))` without one.
fn cotarget_size(a: &Layout, cotarget: Option<&Tup>) -> Result<i64> {
    Ok(match cotarget {
        Some(c) => c.product()?.value,
        None => cosize_pairs(&filter(a)?.leaf_pairs())?.value,
    })
}

/// Postcondition 4: `cosize(R) <= round_up(size(cotarget), cosize(A))`.
fn upper_bound_holds(a: &Layout, cotarget: Option<&Tup>, r: &Layout) -> bool {
    let (Ok(n), Some(ca), Some(cr)) = (cotarget_size(a, cotarget), a.cosize_value(), r.cosize_value()) else {
        return false;
    };
    round_up(n, ca).is_some_and(|u| cr <= u)
}

fn round_up(n: i64, m: i64) -> Option<i64> {
    if m <= 0 {
        return None;
    }
    n.checked_add(m - 1).map(|x| x / m * m)
}

const CITE_EXTENTS: &str = "layout.hpp complement: static_assert(not is_constant<0, decltype(new_shape)>::value, \"Non-injective Layout detected in complement.\"); @post For all i in [1,size(result)) (size(result) counts coordinates, so extents are positive)";
const CITE_ORDERED: &str =
    "test/unit/cute/core/complement.cpp, Ordered (3): EXPECT_LT(result(i-1), result(i)); layout.hpp @post of complement";
const CITE_DISJOINT: &str =
    "test/unit/cute/core/complement.cpp, Disjoint (4): EXPECT_NE(result(i), layout(j)) for i >= 1; layout.hpp @post of complement";
const CITE_LOWER: &str =
    "test/unit/cute/core/complement.cpp (1): EXPECT_GE(cosize(make_layout(layout, result)), size(cotarget))";
const CITE_UPPER: &str =
    "test/unit/cute/core/complement.cpp (2): EXPECT_LE(cosize(result), round_up(size(cotarget), cosize(layout)))";
const CITE_SIZE: &str = "layout.hpp @post size(result) >= cosize_hi / size(filter(layout)); complement.cpp other observations (size and cosize of result)";
const OURS_INJECTIVE: &str = "(filter(A), R) injective; CuTe asks only that R avoid A's image";
const OURS_COVERS: &str = "size(filter(A)) * size(R) >= size(cotarget); CuTe asks only cosize(A, R) >= size(cotarget)";

/// Postcondition 0: every extent of `R` is positive. A divide whose complement fails it is checked
/// by its own definition, since the composition walk over `(B, C)` has no coordinates then
/// (logical_divide(((_4,_6,_1),_3):((_1,_12,_72),_4),_128:_-10), found by the three-way run).
pub(crate) fn extents_positive(r: &Layout) -> Checked {
    match r.shape.leaves().into_iter().find(|e| e.value < 1) {
        Some(e) => Err(Violation::cute(CITE_EXTENTS, format!("0: {r} has the extent {e}, not positive"))),
        None => Ok(()),
    }
}

/// Check the numbered postconditions of `complement(A, cotarget) == R` (CuTe's 0-5 first, then
/// ours 6-7).
pub fn check_postconditions(a: &Layout, cotarget: Option<&Tup>, r: &Layout) -> Checked {
    extents_positive(r)?;
    let f = filter(a)?;
    let rv = r.values()?;
    // 1, 2 and 6 (and the walks they take) by the stride order, where it shows them (super::walk).
    let shown = super::walk::complement_ordered_disjoint_injective(a, &f, r);
    if let Some(i) = (1..rv.len()).filter(|_| !shown).find(|&i| rv[i - 1] >= rv[i]) {
        return Err(Violation::cute(
            CITE_ORDERED,
            format!("1: {r} is not ordered: R({}) = {} >= R({i}) = {}", i - 1, rv[i - 1], rv[i]),
        ));
    }
    let mut av = if shown { Vec::new() } else { a.values()? };
    av.sort_unstable();
    if let Some(i) = (1..rv.len()).filter(|_| !shown).find(|&i| av.binary_search(&rv[i]).is_ok()) {
        return Err(Violation::cute(CITE_DISJOINT, format!("2: {r}({i}) = {} is also a value of {a}", rv[i])));
    }
    let cot = cotarget_size(a, cotarget)?;
    let completed = Layout::concat(&[a.clone(), r.clone()]);
    let cc = cosize_pairs(&completed.leaf_pairs())?.value;
    if cc < cot {
        return Err(Violation::cute(CITE_LOWER, format!("3: cosize({completed}) = {cc} < size of the cotarget {cot}")));
    }
    let (ca, cr) = (cosize_pairs(&a.leaf_pairs())?.value, cosize_pairs(&r.leaf_pairs())?.value);
    match round_up(cot, ca) {
        Some(u) if cr <= u => {}
        _ => {
            return Err(Violation::cute(
                CITE_UPPER,
                format!("4: cosize({r}) = {cr} > round_up({cot}, cosize({a}) = {ca})"),
            ))
        }
    }
    let fs = f.size()?.value.max(1);
    let rs = r.size()?.value;
    if rs < cot / fs || cr < cot / fs {
        return Err(Violation::cute(
            CITE_SIZE,
            format!("5: size({r}) = {rs} or cosize = {cr} < {cot} / size({f}) = {}", cot / fs),
        ));
    }
    let fv = f.values()?;
    let total = (fv.len() as i64).saturating_mul(rv.len() as i64);
    if total > MAX_WALK {
        return Err(Violation::unverifiable(format!("6: ({f},{r}) has {total} coordinates, too many to verify")));
    }
    let mut all: Vec<i64> = Vec::with_capacity(if shown { 0 } else { total as usize });
    for &x in rv.iter().filter(|_| !shown) {
        for &y in &fv {
            all.push(x + y);
        }
    }
    all.sort_unstable();
    if let Some(w) = all.windows(2).find(|w| w[0] == w[1]) {
        return Err(Violation::ours(OURS_INJECTIVE, format!("6: ({f},{r}) is not injective: {} is hit twice", w[0])));
    }
    if total < cot {
        return Err(Violation::ours(OURS_COVERS, format!("7: size({f}) * size({r}) = {total} < {cot}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::l;

    fn t(text: &str) -> IntTuple {
        crate::test_util::tup(text)
    }

    #[test]
    fn chapter_cases() {
        // The chapter's table / layout_compose.py (same in real CuTe 4.2).
        for (a, cot, want) in [("_4:_2", "_24", "(_2,_3):(_1,_8)"), ("(_2,_2):(_1,_6)", "_24", "(_3,_2):(_2,_12)")] {
            let (a, cot) = (l(a), t(cot));
            assert_eq!(complement(&a, Some(&cot)).unwrap().to_string(), want);
            // Both take the small path, certified.
            assert!(Small::new(&a, Some(&cot)).is_some_and(|k| k.certified() && k.layout().to_string() == want));
        }
    }

    use crate::gen::{self, Staticness};
    use proptest::prelude::*;

    fn st() -> impl Strategy<Value = Staticness> {
        prop_oneof![4 => Just(Staticness::AllStatic), 1 => Just(Staticness::AllDynamic), 1 => Just(Staticness::Mixed)]
    }

    /// Operands for the small path: arbitrary layouts (mostly refused or uncertified) and compact
    /// ones scaled (the admissible common case), with no cotarget, a static or dynamic integer,
    /// or a shape.
    fn operands() -> impl Strategy<Value = (Layout, Option<IntTuple>)> {
        let a = prop_oneof![
            st().prop_flat_map(|s| gen::layout(3, 12, 80, s)),
            (st(), 1i64..5).prop_flat_map(|(s, k)| gen::small_compact(4, k, s)),
        ];
        let cot = prop_oneof![
            1 => Just(None),
            4 => (-2i64..700).prop_map(|n| Some(IntTuple::st(n))),
            1 => (1i64..700).prop_map(|n| Some(IntTuple::dy(n))),
            2 => gen::small_shape(9, Staticness::AllStatic).prop_map(Some),
            1 => gen::small_shape(6, Staticness::Mixed).prop_map(Some),
        ];
        (a, cot)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// Where the small path answers, it answers as the general path: the same layout, and,
        /// where it certifies the result, the general path's certificate holds too; the checked
        /// and unchecked entry points give the general paths' layouts and errors.
        #[test]
        fn the_small_path_is_the_general_path((a, cot) in operands()) {
            let cot = cot.as_deref();
            let unchecked = general_unchecked(&a, cot);
            if let Some(k) = Small::new(&a, cot) {
                prop_assert_eq!(Ok(k.layout()), unchecked.clone(), "complement({}, {:?})", a, cot.map(|c| c.to_string()));
                if k.certified() {
                    let r = k.layout();
                    let shown = with_filter(&a, |f| Ok(certificate(f, cot, &r))).unwrap() && upper_bound_holds(&a, cot, &r);
                    prop_assert!(shown, "complement({}, {:?}) = {}: certified by the small path only", a, cot.map(|c| c.to_string()), r);
                }
            }
            prop_assert_eq!(complement_unchecked(&a, cot), unchecked);
            prop_assert_eq!(complement(&a, cot), general(&a, cot));
        }

        /// The small path's certificate on arbitrary modes (not only CuTe's results: overlapping
        /// and out-of-order ones too) says what `fast::complement_ok` and postcondition 4 say.
        #[test]
        fn the_small_certificate_is_the_certificate(
            f in prop::collection::vec((1i64..5, 0i64..40), 1..5),
            r in prop::collection::vec((1i64..6, 0i64..200), 1..5),
            n in 1i64..300,
        ) {
            let mut f = f;
            f.sort_by_key(|m| m.1);
            let mut k = Small { f: [(0, 0); SMALL], f_lo: 0, f_hi: f.len(), r: [(0, 0); SMALL + 1], r_lo: 0, r_hi: r.len(), n, cosize_a: None };
            k.f[..f.len()].copy_from_slice(&f);
            k.r[..r.len()].copy_from_slice(&r);
            let layout = |m: &[(i64, i64)]| Layout { shape: IntTuple::of_static(m.iter().map(|x| x.0)), stride: IntTuple::of_static(m.iter().map(|x| x.1)) };
            let (fl, rl) = (layout(&f), layout(&r));
            k.cosize_a = fl.cosize_value();
            let fi: Vec<(Int, Int)> = f.iter().map(|&(s, d)| (Int::st(s), Int::st(d))).collect();
            let want = super::super::fast::complement_ok(&fi, n, &rl)
                && matches!((fl.cosize_value(), rl.cosize_value()), (Some(ca), Some(cr)) if round_up(n, ca).is_some_and(|u| cr <= u));
            prop_assert_eq!(k.certified(), want, "F = {}, R = {}, N = {}", fl, rl, n);
        }
    }
}
