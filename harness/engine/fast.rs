//! Analytic certificates: O(rank) sufficient conditions under which a result of CuTe's algorithm
//! is known to satisfy an operation's postconditions, so that the brute-force check (a walk over
//! every coordinate) can be skipped. A certificate never decides a refusal: when it does not
//! apply, the caller runs the brute-force `check_postconditions` as before, so every result and
//! every error stays what it was; only the common case gets cheaper.
//!
//! The certificates look at the operands and the *result* (not at how the result was computed),
//! so they do not depend on the engine's algorithm being right. `tests` (below) checks on random
//! operands, admissible ones included, that a certificate never accepts a result that the
//! brute-force check rejects.
//!
//! Everything here works on small stack buffers ([`Flat`]); operands with more leaves than fit
//! simply fall back to the brute-force check.
//!
//! ## Composition `R = A o B` ([`composition_ok`])
//!
//! Let `A`'s flat leaves be `n_0:d_0 .. n_{r-1}:d_{r-1}` (as `crd2idx` reads a 1-D index `x >= 0`:
//! mixed-radix digits `x_i = (x / (n_0..n_{i-1})) % n_i` for `i < r-1`, the last leaf takes the
//! quotient, `A(x) = sum x_i d_i`). Conditions:
//! 1. `shape(R)` is compatible with `shape(B)` (postcondition 2, checked exactly, O(rank)), and
//!    `size(B) <= MAX_WALK`; every extent of `A` (but the last), `B` and `R` is `>= 1`, every
//!    stride of `B` is `>= 0` unless `A` has a single leaf `n:d` (then `A(x) = x*d` for every
//!    integer `x`, negative ones included, and step 2 below is that product).
//! 2. For each leaf `s:t` of `B` with `t > 0`, the walk over `A`'s leaves with a rest extent `S = s`
//!    and rest stride `T = t` only meets divisible steps: at leaf `i < r-1` either `n_i | T`
//!    (the digit is always 0; `T /= n_i`) or `T | n_i` (then with `m = n_i / T`: if `m >= S`, the
//!    digit is `c*T` for `c < S` and `S = 1`; else `m | S`, the digit is `c_0*T` for the `c_0 < m`
//!    part of `c` and `S /= m`, `T = 1`). So `A(c*t)` is exactly the flat layout `L` of the
//!    segments `m : T*d_i` (plus `S : T*d_{r-1}` at the end), and each digit of `A` stays below a
//!    known maximum `D_i` for this leaf. A leaf with `t == 0` is the constant 0, `L = s:0`.
//! 3. `R`'s sub-layout at that leaf of `B` (flattened) equals `L` as a function on `[0, s)`:
//!    both reduce to the same canonical form (drop extent-1 modes, merge neighbours `n:d, n':d'`
//!    with `n*d == d'`, each step preserving the function and the size).
//! 4. No carries between the leaves of `B`: for each `i < r-1`, the sum over `B`'s leaves of `D_i`
//!    is at most `n_i - 1`. Then for `x = B(c) = sum_k c_k t_k` the digits of `x` are the sums of the
//!    leaves' digits, so `A(B(c)) = sum_k A(c_k t_k) = sum_k R_k(c_k) = R(c)`, which is
//!    postcondition 1. The bound `sum_i (sum_k D_i) |d_i|` (the last leaf's quotient included) is
//!    computed with checked arithmetic, so the brute-force evaluation of `A(B(c))` cannot overflow
//!    where the certificate accepts.
//!
//! ## Complement `R = complement(A, cotarget)` ([`complement_ok`])
//!
//! With `F = filter(A)`: every extent of `F` and `R` is `>= 1`, every mode of extent `> 1` has a
//! stride `> 0`, `size(F) * size(R) <= MAX_WALK` (as the brute-force check requires), and
//! 1. `R`'s modes of extent `> 1` in order satisfy `d_j > sum_{i<j} (n_i - 1) d_i`: a step of the
//!    1-D coordinate raises one digit `j` by one and resets the lower ones, changing `R` by
//!    `d_j - sum_{i<j} (n_i - 1) d_i > 0`, so `R` is strictly increasing (postcondition 1);
//! 2. the modes of extent `> 1` of `F` and `R` together, sorted by stride, satisfy the same
//!    inequality: two different coordinates differ at a highest sorted digit `j`, where the
//!    difference `(a - b) d_j` outweighs everything below, so `F(j) + R(i)` are distinct
//!    (postcondition 6);
//! 3. `size(F) * size(R) >= size(cotarget)` is computed directly (postcondition 7).
//!
//! These show complement's postconditions 1, 6 and 7 and with them CuTe's 2, 3 and 5 (see
//! `complement`); its postcondition 4 (`cosize(R) <= round_up(size(cotarget), cosize(A))`) is
//! computed next to the certificate by `complement::certified`.

use super::int::Int;
use super::int_tuple::{Step, Tup};
use super::layout::{Layout, MAX_WALK};

/// Most flat leaves a certificate handles; larger operands use the brute-force checks.
const CAP: usize = 24;

/// A small buffer of flat `(extent, stride)` modes on the stack, at most [`CAP`] (an `ArrayVec`:
/// not initialised until pushed, no heap case to test on each access).
#[derive(Clone)]
pub(crate) struct Flat {
    items: arrayvec::ArrayVec<(i64, i64), CAP>,
}

/// The canonical form of a [`Flat`], mode by mode ([`Flat::canonical`]): greedily from the
/// left, each mode of extent > 1 absorbs the following ones while `n*d == d'` (checked).
struct Canonical<'a> {
    rest: &'a [(i64, i64)],
}

impl Iterator for Canonical<'_> {
    type Item = (i64, i64);
    fn next(&mut self) -> Option<(i64, i64)> {
        let skip = |r: &mut &[(i64, i64)]| {
            while r.first().is_some_and(|m| m.0 == 1) {
                *r = &r[1..];
            }
        };
        skip(&mut self.rest);
        let (&(mut n, d), rest) = self.rest.split_first()?;
        self.rest = rest;
        loop {
            skip(&mut self.rest);
            let Some(&(n2, d2)) = self.rest.first() else { break };
            match (n.checked_mul(d), n.checked_mul(n2)) {
                (Some(end), Some(m)) if end == d2 => {
                    n = m;
                    self.rest = &self.rest[1..];
                }
                _ => break,
            }
        }
        Some((n, d))
    }
}

impl Flat {
    pub(crate) fn new() -> Flat {
        Flat { items: arrayvec::ArrayVec::new() }
    }
    pub(crate) fn push(&mut self, m: (i64, i64)) -> Option<()> {
        self.items.try_push(m).ok()
    }
    pub(crate) fn as_slice(&self) -> &[(i64, i64)] {
        &self.items
    }
    /// The leaves of a shape/stride pair (congruent), depth first.
    pub(crate) fn of(shape: &Tup, stride: &Tup) -> Option<Flat> {
        let mut f = Flat::new();
        f.extend(shape, stride)?;
        Some(f)
    }
    fn extend(&mut self, shape: &Tup, stride: &Tup) -> Option<()> {
        shape.try_zip_leaves(stride, |s, d| self.push((s.value, d.value)))
    }
    /// The canonical form: extent-1 modes dropped, neighbours `n:d, n':n*d` merged (streamed).
    fn canonical(&self) -> Canonical<'_> {
        Canonical { rest: self.as_slice() }
    }
    fn product(&self) -> Option<i64> {
        self.as_slice().iter().try_fold(1i64, |acc, &(n, _)| acc.checked_mul(n))
    }
}

/// `true` when the certificate for `composition(A, B) == R` applies (see the module doc); then
/// `composition::check_postconditions(a, b, r)` holds.
pub fn composition_ok(a: &Layout, b: &Layout, r: &Layout) -> bool {
    composition_cert(a, b, r).is_some()
}

fn composition_cert(a: &Layout, b: &Layout, r: &Layout) -> Option<()> {
    let pa = Flat::of(&a.shape, &a.stride)?;
    let mut st = CompState::new(pa.as_slice())?;
    st.walk(b, r)?;
    st.finish()
}

/// The composition certificate's state along `B`'s leaves (see the module doc): [`CompState::new`]
/// on `A`'s flat leaves, [`CompState::leaf`] for each leaf of `B` with `R`'s modes there, then
/// [`CompState::finish`]. (`composition`'s small path feeds it leaf by leaf as it computes.)
pub(crate) struct CompState<'a> {
    pa: &'a [(i64, i64)],
    /// Per leaf of `A` (but the last): the sum over `B`'s leaves of the largest digit.
    digits: [i64; CAP],
    /// The sum over `B`'s leaves of the largest quotient reaching `A`'s last leaf.
    quotient: i64,
    /// `size(B)` so far.
    size: i64,
}

impl<'a> CompState<'a> {
    /// The state before `B`'s first leaf, for `A`'s flat leaves `pa`; `None` where the certificate
    /// does not apply (no leaves, or an extent below 1 but the last).
    pub(crate) fn new(pa: &'a [(i64, i64)]) -> Option<CompState<'a>> {
        let ra = pa.len();
        if ra == 0 || pa[..ra - 1].iter().any(|&(n, _)| n < 1) {
            return None;
        }
        Some(CompState { pa, digits: [0; CAP], quotient: 0, size: 1 })
    }

    /// After the last leaf of `B`: `size(B) <= MAX_WALK`, no carries, and the bound on `A(B(c))`.
    pub(crate) fn finish(&self) -> Option<()> {
        if self.size > MAX_WALK {
            return None;
        }
        let ra = self.pa.len();
        let mut bound = 0i64;
        for (i, &(n, d)) in self.pa.iter().enumerate() {
            let dig = if i + 1 == ra {
                self.quotient
            } else {
                if self.digits[i] > n - 1 {
                    return None;
                }
                self.digits[i]
            };
            bound = bound.checked_add(dig.checked_mul(d.checked_abs()?)?)?;
        }
        Some(())
    }

    /// `B` and `R` side by side in preorder: a tuple of `B` must meet a tuple of `R` of the same
    /// rank, and a leaf `s:t` of `B` meets `R`'s whole sub-layout there, `rk` flattened, which
    /// [`CompState::leaf`] checks (its size `s` included). Together that is postcondition 2,
    /// `compatible(shape(B), shape(R))`: equal ranks down to `B`'s leaves, equal sizes at them.
    fn walk(&mut self, b: &Layout, r: &Layout) -> Option<()> {
        let mut rs = r.shape.zip_steps(&r.stride)?;
        for step in b.shape.zip_steps(&b.stride)? {
            match (step, rs.next()?) {
                (Step::Open(n), Step::Open(m)) if n == m => {}
                (Step::Open(_), _) => return None,
                (Step::Leaf(s, t), first) => {
                    // R's whole subtree here: a leaf, or a tuple whose `left` elements follow.
                    let mut rk = Flat::new();
                    let mut left = 0;
                    let mut step = first;
                    loop {
                        match step {
                            Step::Open(k) => left += k,
                            Step::Leaf(x, y) => rk.push((x.value, y.value))?,
                        }
                        if left == 0 {
                            break;
                        }
                        left -= 1;
                        step = rs.next()?;
                    }
                    self.leaf(s, t, rk.as_slice())?;
                }
            }
        }
        rs.next().is_none().then_some(())
    }

    /// The leaf `s:t` of `B`, where `R` has the flat modes `rk`.
    pub(crate) fn leaf(&mut self, s: Int, t: Int, rk: &[(i64, i64)]) -> Option<()> {
        let (s, t) = (s.value, t.value);
        // A negative stride only where `A` is one leaf: `A(x) = x * d` for every integer `x`.
        if s < 1 || (t < 0 && self.pa.len() > 1) || rk.iter().any(|&(n, _)| n < 1) {
            return None;
        }
        self.size = self.size.checked_mul(s)?;
        let mut l = Flat::new();
        if t == 0 {
            l.push((s, 0))?;
        } else {
            let ra = self.pa.len();
            let (mut rest_s, mut rest_t) = (s, t);
            for i in 0..ra - 1 {
                if rest_s == 1 {
                    break;
                }
                let (n, d) = self.pa[i];
                if rest_t % n == 0 {
                    rest_t /= n;
                } else if n % rest_t == 0 {
                    let m = n / rest_t;
                    let take = if m >= rest_s {
                        rest_s
                    } else if rest_s % m == 0 {
                        m
                    } else {
                        return None;
                    };
                    l.push((take, rest_t.checked_mul(d)?))?;
                    self.digits[i] = self.digits[i].checked_add((take - 1).checked_mul(rest_t)?)?;
                    rest_s /= take;
                    rest_t = 1;
                } else {
                    return None;
                }
            }
            if rest_s > 1 {
                l.push((rest_s, rest_t.checked_mul(self.pa[ra - 1].1)?))?;
                self.quotient = self.quotient.checked_add((rest_s - 1).checked_mul(rest_t.checked_abs()?)?)?;
            }
        }
        let rk_size = rk.iter().try_fold(1i64, |acc, &(n, _)| acc.checked_mul(n));
        (l.canonical().eq(Canonical { rest: rk }) && rk_size == Some(s)).then_some(())
    }
}

/// `true` when `a` and `b` are the same function on `[0, size)` by their canonical forms: with
/// every extent `>= 1`, dropping extent-1 leaves and merging neighbours `n:d, n':n*d` into
/// `n*n':d` preserve the function on `[0, size)` (the merged digit is `c + c'*n`), so equal
/// canonical forms of equal size are the same function. `false` says nothing (walk instead).
pub fn same_function(a: &Layout, b: &Layout) -> bool {
    let (Some(fa), Some(fb)) = (Flat::of(&a.shape, &a.stride), Flat::of(&b.shape, &b.stride)) else { return false };
    let positive = |f: &Flat| f.as_slice().iter().all(|&(n, _)| n >= 1);
    positive(&fa)
        && positive(&fb)
        && fa.product().is_some()
        && fa.product() == fb.product()
        && fa.canonical().eq(fb.canonical())
}

/// `true` when `L(R(i)) == i` for every `i < size(R)` (right_inverse's postcondition 1) follows
/// from the composition certificate: `R` read as `B` and the identity on `shape(R)` (its
/// column-major layout) as the result, i.e. `composition(L, R) == col_major(shape(R))` as functions
/// on `[0, size(R))` (see the module doc).
pub fn right_inverse_ok(l: &Layout, r: &Layout) -> bool {
    Layout::col_major(r.shape.clone()).is_ok_and(|id| composition_ok(l, r, &id))
}

/// `true` when `R(L(i)) == i` for every `i < size(L)` follows from the composition certificate
/// (`composition(R, L) == col_major(shape(L))` on `[0, size(L))`): then `L` is injective and both
/// of left_inverse's postconditions hold (`L(R(L(i))) == L(i)` follows from `R(L(i)) == i`).
pub fn left_inverse_ok(l: &Layout, r: &Layout) -> bool {
    Layout::col_major(l.shape.clone()).is_ok_and(|id| composition_ok(r, l, &id))
}

/// `true` when the certificate for `complement(A, cotarget) == R` applies, with `f = filter(A)`
/// and `cot` the size of the cotarget (see the module doc); then
/// `complement::check_postconditions(a, cotarget, r)` holds.
pub fn complement_ok(f: &[(Int, Int)], cot: i64, r: &Layout) -> bool {
    complement_cert(f, cot, r).is_some()
}

/// Whether modes (extent > 1, positive strides) in this order have each stride above the span of
/// the ones before: `d_j > sum_{i<j} (n_i - 1) d_i`.
fn increasing(modes: &[(i64, i64)]) -> Option<()> {
    let mut span = 0i64;
    for &(n, d) in modes {
        if d <= span {
            return None;
        }
        span = span.checked_add((n - 1).checked_mul(d)?)?;
    }
    Some(())
}

fn complement_cert(f: &[(Int, Int)], cot: i64, r: &Layout) -> Option<()> {
    let mut pf = Flat::new();
    for &(n, d) in f {
        pf.push((n.value, d.value))?;
    }
    let pr = Flat::of(&r.shape, &r.stride)?;
    if pf.as_slice().iter().chain(pr.as_slice()).any(|&(n, d)| n < 1 || (n > 1 && d <= 0)) {
        return None;
    }
    let total = pf.product()?.checked_mul(pr.product()?)?;
    if total > MAX_WALK || total < cot {
        return None;
    }
    // R's modes of extent > 1 (checked alone first), then F's, in one buffer.
    let mut all = Flat::new();
    for &m in pr.as_slice().iter().filter(|m| m.0 > 1) {
        all.push(m)?;
    }
    increasing(all.as_slice())?;
    for &m in pf.as_slice().iter().filter(|m| m.0 > 1) {
        all.push(m)?;
    }
    all.items.sort_unstable_by_key(|m| m.1);
    increasing(all.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, Staticness};
    use crate::IntTuple;
    use crate::{complement, composition, filter};
    use proptest::prelude::*;

    fn st() -> impl Strategy<Value = Staticness> {
        prop_oneof![Just(Staticness::AllStatic), Just(Staticness::AllDynamic), Just(Staticness::Mixed)]
    }

    /// The certificate never accepts a result that the brute-force check rejects.
    fn comp_sound(a: &Layout, b: &Layout) -> Result<bool, TestCaseError> {
        let Ok(r) = crate::without_definition_checks(|| composition::composition_unchecked(a, b)) else {
            return Ok(false);
        };
        let fast = composition_ok(a, b, &r);
        if fast {
            prop_assert_eq!(composition::check_postconditions(a, b, &r), Ok(()), "{} o {} = {}", a, b, r);
        }
        Ok(fast)
    }

    fn comp_sound_cot(a: &Layout, cot: &Tup) -> Result<bool, TestCaseError> {
        let Ok(r) = complement::complement_unchecked(a, Some(cot)) else { return Ok(false) };
        // complement::certified: this certificate plus postcondition 4 (computed directly).
        let fast = complement::certified(a, Some(cot), &r);
        if fast {
            prop_assert_eq!(
                complement::check_postconditions(a, Some(cot), &r),
                Ok(()),
                "complement({}, {}) = {}",
                a,
                cot,
                r
            );
        }
        Ok(fast)
    }

    /// `L(R(i)) == i` on `[0, size(R))`, walked.
    fn walk_right(l: &Layout, r: &Layout) -> bool {
        r.values().is_ok_and(|v| {
            v.iter().enumerate().all(|(i, &x)| l.call_int(Int::dy(x)).is_ok_and(|y| y.value == i as i64))
        })
    }

    /// `R(L(i)) == i` on `[0, size(L))`, walked.
    fn walk_left(l: &Layout, r: &Layout) -> bool {
        l.values().is_ok_and(|v| {
            v.iter().enumerate().all(|(i, &x)| r.call_int(Int::dy(x)).is_ok_and(|y| y.value == i as i64))
        })
    }

    /// The inverse certificates never accept a pair the walk rejects: CuTe's inverse, and the same
    /// with one stride changed (so that rejected pairs are tried too).
    fn inverses_sound(l: &Layout, bump: i64) -> Result<(), TestCaseError> {
        let bumped = |r: &Layout| {
            let mut k = 0;
            let stride = r.stride.map_leaves(&mut |d| {
                k += 1;
                if k == 1 {
                    Ok(d.add(Int::st(bump))?)
                } else {
                    Ok(d)
                }
            });
            stride.map(|stride| Layout { shape: r.shape.clone(), stride })
        };
        if let Ok(r) = crate::right_inverse::right_inverse_unchecked(l) {
            for r in [Ok(r.clone()), bumped(&r)].into_iter().flatten() {
                if right_inverse_ok(l, &r) {
                    prop_assert!(walk_right(l, &r), "right_inverse certificate accepts {} for {}", r, l);
                }
            }
        }
        if let Ok(r) = crate::left_inverse::left_inverse_unchecked(l) {
            for r in [Ok(r.clone()), bumped(&r)].into_iter().flatten() {
                if left_inverse_ok(l, &r) {
                    prop_assert!(walk_left(l, &r), "left_inverse certificate accepts {} for {}", r, l);
                }
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn composition_certificate_is_sound_arbitrary(
            s in st(),
            (a, b) in st().prop_flat_map(|s| (gen::small_layout(6, 12, s), gen::small_layout(6, 12, s))),
        ) {
            let _ = s;
            comp_sound(&a, &b)?;
        }

        #[test]
        fn composition_certificate_is_sound_admissible(
            (a, b) in st().prop_flat_map(|s| (gen::small_compact(4, 1, s), gen::small_compact(3, 1, s))),
            scale in 1i64..4,
        ) {
            // Compact operands (and B scaled) are the admissible common case: the certificate
            // should mostly apply, and must agree with the brute-force check when it does.
            let bs = Layout { shape: b.shape.clone(), stride: b.stride.map_leaves(&mut |d| Ok(d.mul(Int::st(scale))?)).unwrap() };
            comp_sound(&a, &b)?;
            comp_sound(&a, &bs)?;
        }

        #[test]
        fn inverse_certificates_are_sound_arbitrary(l in st().prop_flat_map(|s| gen::small_layout(6, 12, s)), bump in -3i64..4) {
            inverses_sound(&l, bump)?;
        }

        #[test]
        fn inverse_certificates_are_sound_admissible(
            l in st().prop_flat_map(|s| gen::small_compact(4, 2, s)),
            bump in -3i64..4,
        ) {
            inverses_sound(&l, bump)?;
        }

        #[test]
        fn composition_certificate_is_sound_negative_strides(
            (n, d) in (1i64..9, -9i64..10),
            b in st().prop_flat_map(|s| gen::small_layout(6, 12, s)),
            flip in any::<u32>(),
        ) {
            // B with some strides negated: accepted only when A is one leaf (A(x) = x*d).
            let mut k = 0;
            let stride = b.stride.map_leaves(&mut |t| {
                k += 1;
                if flip >> (k % 32) & 1 == 1 { Ok(Int::new(-t.value, t.is_static).mul(Int::st(1))?) } else { Ok(t) }
            }).unwrap();
            let b = Layout { shape: b.shape.clone(), stride };
            comp_sound(&Layout::leaf(Int::st(n), Int::st(d)), &b)?;
            comp_sound(&Layout::leaf(Int::dy(n), Int::dy(d)), &b)?;
        }

        #[test]
        fn same_function_is_sound(
            a in st().prop_flat_map(|s| gen::small_layout(6, 12, s)),
            b in st().prop_flat_map(|s| gen::small_layout(6, 12, s)),
        ) {
            // Against coalesce(a) (mostly accepted) and an unrelated b (mostly not).
            let c = crate::without_definition_checks(|| crate::coalesce::coalesce(&a)).unwrap();
            for other in [&c, &b] {
                if same_function(&a, other) {
                    prop_assert_eq!(a.values().unwrap(), other.values().unwrap(), "{} vs {}", a, other);
                }
            }
        }

        #[test]
        fn complement_certificate_is_sound(
            a in st().prop_flat_map(|s| gen::small_layout(5, 16, s)),
            cot in 1i64..200,
        ) {
            comp_sound_cot(&a, &IntTuple::dy(cot))?;
            comp_sound_cot(&a, &IntTuple::tuple([IntTuple::dy(cot % 7 + 1), IntTuple::st(cot % 5 + 1)]))?;
        }

        #[test]
        fn complement_certificate_is_sound_admissible(
            a in st().prop_flat_map(|s| gen::small_compact(4, 2, s)),
            k in 1i64..4,
        ) {
            let n = a.cosize().unwrap().value * k;
            comp_sound_cot(&a, &IntTuple::dy(n))?;
        }
    }

    #[test]
    fn certificates_apply_on_the_bench_mix() {
        let l = |t: &str| crate::test_util::l(t);
        for (a, b) in [
            ("(_6,_2):(_8,_2)", "(_4,_3):(_3,_1)"),
            ("(_4,_8):(_8,_1)", "(_8,_4):(_4,_1)"),
            ("(_16,_8):(_1,_16)", "((_2,_2),(_8,_4)):((_1,_16),(_2,_32))"),
        ] {
            let (a, b) = (l(a), l(b));
            let r = composition::composition_unchecked(&a, &b).unwrap();
            assert!(composition_ok(&a, &b, &r), "{a} o {b} = {r}");
        }
        // The chapter's refused case: CuTe's (_2,_2):(_32,_2) is not _6,_2):(_8,_2) o _4:_4.
        let (a, b) = (l("(_6,_2):(_8,_2)"), l("_4:_4"));
        let r = composition::composition_unchecked(&a, &b).unwrap();
        assert!(!composition_ok(&a, &b, &r));
        let a = l("(_4,_2,_2):(_2,_16,_64)");
        let r = complement::complement_unchecked(&a, Some(&IntTuple::st(512))).unwrap();
        assert!(complement_ok(&filter::filter(&a).unwrap().leaf_pairs(), 512, &r), "{r}");
    }

    #[test]
    fn inverse_certificates_apply_on_large_layouts() {
        // Cases of the whole-command mix whose walk took 0.1-0.4 s each (2^17-2^20 coordinates).
        use crate::{left_inverse, right_inverse};
        let l = |t: &str| crate::test_util::l(t);
        let l1 = l("(((_4,(_3,_14)),_9),(_2,_128,_2),_1):(((_21504,(_1,_1536)),_86016),(_3,_12,_6),_1536)");
        let r = right_inverse::right_inverse_unchecked(&l1).unwrap();
        assert!(right_inverse_ok(&l1, &r), "{r}");
        let l2 = l("(_4096,_8,(_4,(_2,_2)),((_2,_1),_1)):(_16,_2,(_65536,(_524288,_262144)),((_1,_2),_1))");
        let r = right_inverse::right_inverse_unchecked(&l2).unwrap();
        assert!(right_inverse_ok(&l2, &r), "{r}");
        let l3 = l("((_3,_15),(_1024,_21),_1):((_1,_63),(_945,_3),_967680)");
        let r = left_inverse::left_inverse_unchecked(&l3).unwrap();
        assert!(left_inverse_ok(&l3, &r), "{r}");
        // A one-leaf A composed with negative strides (688,128 coordinates).
        let (a, b) = (l("7:7"), l("(((_6,_4096),_7),_4):(((_-14,_12),_8),_432)"));
        let r = crate::composition::composition_unchecked(&a, &b).unwrap();
        assert!(composition_ok(&a, &b, &r), "{r}");
        // Not injective (stride _0): no certificate, the walk decides.
        let l4 = l("(_4,_8):(_0,_1)");
        let r = left_inverse::left_inverse_unchecked(&l4).unwrap();
        assert!(!left_inverse_ok(&l4, &r));
    }
}
