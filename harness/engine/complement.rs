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

use super::coalesce::{coalesce_shape, coalesce_slice, ModesRef};
use super::filter::with_filter;
use super::layout::cosize_pairs;
use super::error::{Error, Result};
use super::postcondition::{enforce, Checked, Violation};
use super::filter::filter;
use super::int::Int;
use super::int_tuple::{Builder, IntTuple, Tup, View};
use super::layout::{Layout, MAX_WALK};
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
    with_filter(a, |f| complement_impl(a, f, cotarget))
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
        if new_shape.is_static_value(0) {
            return Err(Error::NonInjectiveComplement { detail: format!("stride {min} of {a} after {last}") });
        }
        used[idx] = true;
        leaves.push((new_shape, last));
        last = new_stride;
    }
    let (n, d) = modes[used.iter().position(|&u| !u).expect("one mode left")];
    let new_shape = rt(d.div(last), d, last)?;
    if new_shape.is_static_value(0) {
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

/// `complement(A, cotarget)`; refuses results that violate the definition.
pub fn complement(a: &Layout, cotarget: Option<&Tup>) -> Result<Layout> {
    if !checks_on() {
        return deferred(|| complement_unchecked(a, cotarget));
    }
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
const CITE_LOWER: &str = "test/unit/cute/core/complement.cpp (1): EXPECT_GE(cosize(make_layout(layout, result)), size(cotarget))";
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
        return Err(Violation::cute(CITE_ORDERED, format!("1: {r} is not ordered: R({}) = {} >= R({i}) = {}", i - 1, rv[i - 1], rv[i])));
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
        _ => return Err(Violation::cute(CITE_UPPER, format!("4: cosize({r}) = {cr} > round_up({cot}, cosize({a}) = {ca})"))),
    }
    let fs = f.size()?.value.max(1);
    let rs = r.size()?.value;
    if rs < cot / fs || cr < cot / fs {
        return Err(Violation::cute(CITE_SIZE, format!("5: size({r}) = {rs} or cosize = {cr} < {cot} / size({f}) = {}", cot / fs)));
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
    use crate::engine::test_util::l;
    use super::*;
    use crate::expr::eval_str;

    fn t(text: &str) -> IntTuple {
        eval_str(text).unwrap().to_int_tuple().unwrap()
    }

    #[test]
    fn chapter_cases() {
        // The chapter's table / layout_compose.py (same in real CuTe 4.2).
        assert_eq!(complement(&l("_4:_2"), Some(&t("_24"))).unwrap().to_string(), "(_2,_3):(_1,_8)");
        assert_eq!(complement(&l("(_2,_2):(_1,_6)"), Some(&t("_24"))).unwrap().to_string(), "(_3,_2):(_2,_12)");
    }
}
