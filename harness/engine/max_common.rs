//! `max_common_layout(A, B)` and `max_common_vector(A, B)` (layout.hpp): the largest run of
//! contiguous indices on which `A` and `B` agree, found through `right_inverse(B)`.
//!
//! How CuTe 4.2 computes them: `inv = right_inverse(B)`, `common = coalesce(composition(A, inv))`.
//! If mode 0 of `common` has a static extent and the static stride `_1`, `max_common_vector` is
//! that extent and `max_common_layout` is `composition(inv, layout<0>(common))`; otherwise they
//! are `_1` and `_1:_0`.
//!
//! Postconditions (checked by [`check_layout`] and [`check_vector`]; both CuTe's):
//! 1. `max_common_layout`: `A(R(i)) == i` and `B(R(i)) == i` for every `0 <= i < size(R)`
//!    [CuTe: layout.hpp `@post For all 0 <= i < size(R), a(R(i)) == i and b(R(i)) == i`].
//! 2. `max_common_vector`: `N >= 1` is static, and with `inv = right_inverse(B)`:
//!    `A(inv(n)) == n` and `B(inv(n)) == n` for every `0 <= n < N` [CuTe: layout.hpp `@returns
//!    Int<N> with N >= 1`, `@post For all 0 <= n < N, a(b.get_1d_coord(n)) == n`;
//!    `b.get_1d_coord(n)` is `inv(n)`, and `B(inv(n)) == n` is right_inverse's definition].
//!
//! The compositions inside are CuTe's algorithm as is; the result is refused with
//! [`Error::Undefined`] if it violates the postcondition above.

use super::coalesce::coalesce;
use super::composition::composition_unchecked;
use super::error::Result;
use super::int::Int;
use super::layout::{Layout, MAX_WALK};
use super::postcondition::{enforce, Checked, Violation};
use super::right_inverse::right_inverse;
use super::runtime::deferred;
const CITE_MCL: &str = "layout.hpp max_common_layout @post For all 0 <= i < size(R), a(R(i)) == i and b(R(i)) == i";
const CITE_MCV: &str =
    "layout.hpp max_common_vector @returns Int<N> with N >= 1, @post For all 0 <= n < N, a(b.get_1d_coord(n)) == n";

fn common(a: &Layout, b: &Layout) -> Result<(Layout, Option<Layout>)> {
    let inv = right_inverse(b)?;
    let common = coalesce(&composition_unchecked(a, &inv)?)?;
    let m0 = common.mode(0)?;
    let ok =
        matches!((m0.shape.as_leaf(), m0.stride.as_leaf()), (Some(s), Some(d)) if s.is_static && d.is_static_value(1));
    Ok((inv, ok.then_some(m0)))
}

/// CuTe's `max_common_layout(a, b)`.
pub fn max_common_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    let r = match deferred(|| common(a, b))? {
        (inv, Some(m0)) => deferred(|| composition_unchecked(&inv, &m0))?,
        (_, None) => Layout::leaf(Int::st(1), Int::st(0)),
    };
    if super::runtime::checks_on() {
        enforce("max_common_layout", check_layout(a, b, &r))?;
    }
    Ok(r)
}

/// CuTe's `max_common_vector(a, b)`.
pub fn max_common_vector(a: &Layout, b: &Layout) -> Result<Int> {
    let n = match deferred(|| common(a, b))? {
        (_, Some(m0)) => m0.shape.as_leaf().expect("leaf mode"),
        (_, None) => Int::st(1),
    };
    if super::runtime::checks_on() {
        enforce("max_common_vector", check_vector(a, b, n))?;
    }
    Ok(n)
}

fn agree(a: &Layout, b: &Layout, x: i64, i: i64, cite: &'static str) -> Checked {
    let av = a.call_int(Int::dy(x))?.value;
    let bv = b.call_int(Int::dy(x))?.value;
    if av != i || bv != i {
        return Err(Violation::cute(cite, format!("A({x}) = {av}, B({x}) = {bv}, expected both {i}")));
    }
    Ok(())
}

/// Check postcondition 1 of `max_common_layout(a, b) == r`.
pub fn check_layout(a: &Layout, b: &Layout, r: &Layout) -> Checked {
    let rv = r.values()?;
    let check = |i: i64, x: i64| agree(a, b, x, i, CITE_MCL).map_err(|v| v.context(format!("1: at {r}({i}): ")));
    // Every i in order, skipping the boxes shown to pass (super::walk), where that applies.
    if let Some(checked) = super::walk::agree_walk(a, b, r, None, check) {
        return checked;
    }
    for (i, x) in rv.into_iter().enumerate() {
        check(i as i64, x)?;
    }
    Ok(())
}

/// Check postcondition 2 of `max_common_vector(a, b) == n`.
pub fn check_vector(a: &Layout, b: &Layout, n: Int) -> Checked {
    if !n.is_static || n.value < 1 {
        return Err(Violation::cute(CITE_MCV, format!("2: {n} is not a static positive integer")));
    }
    if n.value > MAX_WALK {
        return Err(Violation::unverifiable(format!(
            "2: too large: checking N = {n} would walk more than {MAX_WALK} coordinates"
        )));
    }
    let inv = right_inverse(b)?;
    let check = |i: i64, _: i64| -> Checked {
        let x = inv.call_int(Int::dy(i))?.value;
        agree(a, b, x, i, CITE_MCV).map_err(|v| v.context(format!("2: at n = {i}: ")))
    };
    // Every n in order, skipping the boxes shown to pass (super::walk), where that applies.
    if let Some(checked) = super::walk::agree_walk(a, b, &inv, Some(n.value), check) {
        return checked;
    }
    (0..n.value).try_for_each(|i| check(i, 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::l;

    #[test]
    fn the_vector_check_walks_at_most_max_walk() {
        // Used to walk 2^31 coordinates (30 s); now refused at once as too large to verify.
        let big = l("_2147483647:_1");
        let start = std::time::Instant::now();
        let e = max_common_vector(&big, &big).unwrap_err().to_string();
        assert!(e.contains("too large"), "{e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(5), "{:?}", start.elapsed());
        // Unchecked, CuTe's answer is still given.
        let n = crate::without_definition_checks(|| max_common_vector(&big, &big)).unwrap();
        assert_eq!(n.to_string(), "_2147483647");
    }
}
