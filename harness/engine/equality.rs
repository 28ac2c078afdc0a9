//! CuTe's `operator==` on the values it prints: integers (`int`, `C<n>`), static ratios
//! (`R<a,b>`, printed `_a/_b`), basis elements with an integer or ratio value (`ScaledBasis<T,N...>`,
//! printed `v@N...`), and tuples of them (int tuples and `ArithmeticTuple`s).
//!
//! Definitions (CuTe 4.2 and 4.7: numeric/integral_constant.hpp, numeric/integral_ratio.hpp,
//! container/tuple.hpp, numeric/arithmetic_tuple.hpp):
//! 1. `C<a> == C<b>` is `bool_constant<a == b>` (printed `_1`/`_0`); an `int` on either side gives
//!    the built-in `bool` (printed `1`/`0`).
//! 2. `R<a,b> == R<x,y>` compares the reduced numerators and denominators, `R<a,b> == C<c>` (either
//!    order) is `bool_constant<num == c && den == 1>`; there is no `R == int`: a compile error.
//! 3. Two tuples of different sizes are `false_type`; of one size, `(true_type && ... && (a_i ==
//!    b_i))` (before 3.5, [`crate::release::TUPLE_EQUALITY_NEEDS_EQUAL_RANKS`]: v3.4.1
//!    container/tuple.hpp `detail::equal_impl<I>` walked the left tuple, `(a_I == b_I) &&
//!    equal_impl<I+1>`, ending in `true_type` where the left tuple ends and in `false_type` where
//!    only the right one does, so a left tuple that is a prefix of the right one compares true:
//!    `(1,_2) == (1,_2,_3)` is `1`, `(1,_2,_3) == (1,_2)` is `_0`), where `C<false> && x` and `x && C<false>` are `C<false>` for any integral `x`,
//!    `C<a> && C<b>` is `C<a && b>`, and anything else is the built-in `bool`. A tuple and a
//!    non-tuple are `false_type` (an `ArithmeticTuple` is a tuple).
//! 4. `(v@N...) == (w@M...)` is `false_type` when the mode lists differ in length, else in 4.2
//!    `bool_constant<(N == M && ...)>{} && v == w`: the value comparison is formed even when the
//!    modes differ, so `2@0 == _1/_16@1` does not compile (`int == R<1,16>`). From 4.7 (CUTLASS PR
//!    #3427 for issue #3393, [`crate::release::BASIS_EQUALITY_FORMS_VALUES_ONLY_WHEN_MATCHED`]) the
//!    value comparison is formed only when the modes match, else `false_type`. A basis element
//!    compared with anything that is not one is `false_type`.
//!
//! Postconditions (checked by [`check`], property tests below):
//! 1. `a == a` is true for every operand CuTe can compare with itself (reflexivity), static
//!    exactly when `a` has no dynamic integer.
//! 2. `a == b` and `b == a` agree: the same truth, the same staticness, or both refused.
//! 3. A static `true` implies `a` and `b` print the same up to the spelling of ratios
//!    (`R<2,4>` is `R<1,2>`).
//!
//! Before 3.5 postconditions 2 and 3 hold only where every pair of tuples compared has one rank
//! (definition 3's prefix walk); [`check`] checks them there only.

use std::fmt;

use super::error::{Error, Result};
use super::int::Int;
use super::postcondition::{Checked, Violation};
use super::scaled_basis::{write_modes, BasisValue, ScaledBasis};

/// `R<num,den>` as written (CuTe prints the template arguments unreduced), along the modes of a
/// basis element (outermost first, as [`ScaledBasis::modes`]); no modes is the bare ratio.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RatioBasis {
    pub num: i64,
    pub den: i64,
    pub modes: Vec<u32>,
}

impl RatioBasis {
    /// `R<num,den>`: refused for a zero denominator, as CuTe's `static_assert(d != 0)`.
    pub fn new(num: i64, den: i64, modes: Vec<u32>) -> Result<RatioBasis> {
        if den == 0 {
            return Err(Error::Rejected { condition: "d != 0", detail: format!("R<{num},{den}>") });
        }
        Ok(RatioBasis { num, den, modes })
    }

    /// The reduced `(num, den)`, `den >= 1` (`R::num`, `R::den`).
    pub fn reduced(&self) -> (i64, i64) {
        let g = gcd(self.num.unsigned_abs(), self.den.unsigned_abs()).max(1) as i64;
        let sign = self.num.signum() * self.den.signum();
        (sign * self.num.abs() / g, self.den.abs() / g)
    }
}

impl fmt::Display for RatioBasis {
    /// `print(R<a,b>)`: `print(C<a>{}); print("/"); print(C<b>{})`, then the modes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "_{}/_{}", self.num, self.den)?;
        write_modes(f, &self.modes)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// An operand of `==`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    Int(Int),
    Ratio(i64, i64),
    /// A basis element: its value (an `Int` or a `Ratio`) and modes, outermost first.
    Basis(Box<Operand>, Vec<u32>),
    Tuple(Vec<Operand>),
}

impl Operand {
    /// From the basis arithmetic's values (integers, basis elements, tuples of them).
    pub fn from_basis(v: &BasisValue) -> Operand {
        match v {
            BasisValue::Int(i) => Operand::Int(*i),
            BasisValue::Basis(ScaledBasis { value, modes }) => {
                Operand::Basis(Box::new(Operand::Int(*value)), modes.clone())
            }
            BasisValue::Tuple(t) => Operand::Tuple(t.iter().map(Operand::from_basis).collect()),
        }
    }

    /// From a ratio or a ratio-valued basis element.
    pub fn from_ratio(r: &RatioBasis) -> Operand {
        let (n, d) = r.reduced();
        let ratio = Operand::Ratio(n, d);
        if r.modes.is_empty() {
            ratio
        } else {
            Operand::Basis(Box::new(ratio), r.modes.clone())
        }
    }

    fn has_dynamic(&self) -> bool {
        match self {
            Operand::Int(i) => !i.is_static,
            Operand::Ratio(..) => false,
            Operand::Basis(v, _) => v.has_dynamic(),
            Operand::Tuple(t) => t.iter().any(Operand::has_dynamic),
        }
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Int(i) => i.write_to(f),
            // A whole ratio is compared as the integer it equals (definition 2).
            Operand::Ratio(n, 1) => write!(f, "_{n}"),
            Operand::Ratio(n, d) => write!(f, "_{n}/_{d}"),
            Operand::Basis(v, m) => {
                write!(f, "{v}")?;
                write_modes(f, m)
            }
            Operand::Tuple(t) => {
                f.write_str("(")?;
                for (k, x) in t.iter().enumerate() {
                    if k > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Definition 3's `&&` of two comparison results (each `_0`/`_1` static or `0`/`1` dynamic).
fn and(x: Int, y: Int) -> Int {
    let v = i64::from(x.value != 0 && y.value != 0);
    if x.is_static_value(0) || y.is_static_value(0) {
        Int::st(0)
    } else {
        Int::new(v, x.is_static && y.is_static)
    }
}

fn no_operator(a: &Operand, b: &Operand) -> Error {
    Error::Rejected { condition: "no operator== for an int and a cute::R", detail: format!("{a} == {b}") }
}

/// `a == b` as CuTe evaluates it: `_1`/`_0` for a static result, `1`/`0` for a `bool`; `Err` where
/// it does not compile. `values_only_when_matched` is definition 4's 4.7 behaviour (the engine
/// passes [`crate::release::BASIS_EQUALITY_FORMS_VALUES_ONLY_WHEN_MATCHED`]).
pub fn equal_with(a: &Operand, b: &Operand, values_only_when_matched: bool) -> Result<Int> {
    equal_in(a, b, values_only_when_matched, true)
}

/// `a == b` with definition 3's tuple rule of 3.5 and later (`equal_ranks_only`) or before 3.5
/// (the left tuple's prefix walk).
pub fn equal_in(a: &Operand, b: &Operand, values_only_when_matched: bool, equal_ranks_only: bool) -> Result<Int> {
    use Operand as O;
    let eq = |p: &Operand, q: &Operand| equal_in(p, q, values_only_when_matched, equal_ranks_only);
    match (a, b) {
        (O::Tuple(x), O::Tuple(y)) => {
            if x.len() != y.len() && equal_ranks_only {
                return Ok(Int::st(0));
            }
            let mut acc = Int::st(1);
            for (p, q) in x.iter().zip(y) {
                acc = and(acc, eq(p, q)?);
            }
            // Before 3.5 the walk ends in false_type where the right tuple ends first.
            if x.len() > y.len() {
                acc = and(acc, Int::st(0));
            }
            Ok(acc)
        }
        (O::Basis(v, n), O::Basis(w, m)) => {
            if n.len() != m.len() {
                return Ok(Int::st(0));
            }
            let same = n == m;
            if !same && values_only_when_matched {
                return Ok(Int::st(0));
            }
            let values = eq(v, w)?;
            Ok(and(Int::st(i64::from(same)), values))
        }
        (O::Basis(..), _) | (_, O::Basis(..)) => Ok(Int::st(0)),
        (O::Tuple(_), _) | (_, O::Tuple(_)) => Ok(Int::st(0)),
        (O::Int(x), O::Int(y)) => Ok(Int::new(i64::from(x.value == y.value), x.is_static && y.is_static)),
        (O::Ratio(n, d), O::Ratio(p, q)) => Ok(Int::st(i64::from(n == p && d == q))),
        (O::Ratio(n, d), O::Int(c)) | (O::Int(c), O::Ratio(n, d)) => {
            if c.is_static {
                Ok(Int::st(i64::from(*n == c.value && *d == 1)))
            } else {
                Err(no_operator(a, b))
            }
        }
    }
}

/// `a == b` in the current release (definitions 3's and 4's switches).
pub fn equal(a: &Operand, b: &Operand) -> Result<Int> {
    use crate::release::{BASIS_EQUALITY_FORMS_VALUES_ONLY_WHEN_MATCHED, TUPLE_EQUALITY_NEEDS_EQUAL_RANKS};
    equal_in(a, b, BASIS_EQUALITY_FORMS_VALUES_ONLY_WHEN_MATCHED.on(), TUPLE_EQUALITY_NEEDS_EQUAL_RANKS.on())
}

/// Whether every pair of tuples that `a == b` compares has one rank (where definition 3's rule
/// before 3.5 is that of 3.5 and later).
fn ranks_agree(a: &Operand, b: &Operand) -> bool {
    match (a, b) {
        (Operand::Tuple(x), Operand::Tuple(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| ranks_agree(p, q)),
        (Operand::Basis(v, _), Operand::Basis(w, _)) => ranks_agree(v, w),
        _ => true,
    }
}

/// Postconditions 1-3 of `r == equal(a, b)`.
pub fn check(a: &Operand, b: &Operand, r: &Result<Int>) -> Checked {
    const SRC: &str = "numeric/arithmetic_tuple.hpp, container/tuple.hpp: operator==";
    let mut v: Vec<String> = Vec::new();
    // Before 3.5 (definition 3) tuples of unequal ranks compare by the left one's prefix.
    let symmetric = crate::release::TUPLE_EQUALITY_NEEDS_EQUAL_RANKS.on() || ranks_agree(a, b);
    let swapped = equal(b, a);
    match (r, &swapped) {
        _ if !symmetric => {}
        (Ok(x), Ok(y)) if x == y => {}
        (Err(_), Err(_)) => {}
        _ => v.push(format!("{a} == {b} is {r:?} but {b} == {a} is {swapped:?}")),
    }
    for x in [a, b] {
        if let Ok(s) = equal(x, x) {
            if s.value != 1 || s.is_static == x.has_dynamic() {
                v.push(format!("{x} == {x} is {s:?}"));
            }
        }
    }
    if let Ok(t) = r {
        if symmetric && t.is_static && t.value == 1 && a.to_string() != b.to_string() {
            v.push(format!("{a} == {b} is a static true but they differ"));
        }
    }
    match v.into_iter().next() {
        None => Ok(()),
        Some(c) => Err(Violation::cute(SRC, c)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::{with_release, Release};
    use proptest::prelude::*;

    fn e(v: i64, st: bool, modes: &[u32]) -> Operand {
        Operand::Basis(Box::new(Operand::Int(Int::new(v, st))), modes.to_vec())
    }
    fn r(n: i64, d: i64, modes: &[u32]) -> Operand {
        Operand::from_ratio(&RatioBasis::new(n, d, modes.to_vec()).unwrap())
    }

    #[test]
    fn definitions_as_cute_4_2_and_4_7_print_them() {
        // Measured with g++ on the v4.2.0 and v4.7.0 headers: `E<0>{} == E<1>{}` prints _0,
        // `ScaledBasis<int,0>{2} == ScaledBasis<int,0>{2}` 1, `... == ScaledBasis<int,1>{2}` _0,
        // `ScaledBasis<int,0>{2} == ScaledBasis<R<1,16>,1>{}` fails in 4.2 (no operator== for
        // int and R<1,16>) and prints _0 in 4.7.
        for matched in [false, true] {
            assert_eq!(equal_with(&e(1, true, &[0]), &e(1, true, &[1]), matched).unwrap(), Int::st(0));
            assert_eq!(equal_with(&e(1, true, &[0]), &e(1, true, &[0]), matched).unwrap(), Int::st(1));
            assert_eq!(equal_with(&e(2, false, &[0]), &e(2, false, &[0]), matched).unwrap(), Int::dy(1));
            assert_eq!(equal_with(&e(2, false, &[0]), &e(2, false, &[1]), matched).unwrap(), Int::st(0));
            assert!(equal_with(&e(2, false, &[0]), &r(1, 16, &[0]), matched).is_err());
        }
        assert!(equal_with(&e(2, false, &[0]), &r(1, 16, &[1]), false).is_err());
        assert_eq!(equal_with(&e(2, false, &[0]), &r(1, 16, &[1]), true).unwrap(), Int::st(0));
        assert_eq!(equal_with(&r(2, 4, &[]), &r(1, 2, &[]), false).unwrap(), Int::st(1));
        assert_eq!(equal_with(&r(4, 2, &[]), &Operand::Int(Int::st(2)), false).unwrap(), Int::st(1));
        let t = |v: Vec<Operand>| Operand::Tuple(v);
        let i = |v: i64, s: bool| Operand::Int(Int::new(v, s));
        assert_eq!(
            equal_with(&t(vec![i(1, false), i(2, true)]), &t(vec![i(1, false), i(2, true)]), false).unwrap(),
            Int::dy(1)
        );
        assert_eq!(
            equal_with(&t(vec![i(1, false), i(2, true)]), &t(vec![i(1, false), i(3, true)]), false).unwrap(),
            Int::st(0)
        );
        assert_eq!(equal_with(&t(vec![i(1, false)]), &t(vec![i(1, false), i(3, true)]), false).unwrap(), Int::st(0));
        assert_eq!(equal_with(&t(vec![i(1, false)]), &i(1, false), false).unwrap(), Int::st(0));
        assert_eq!(RatioBasis::new(2, 4, vec![0, 1]).unwrap().to_string(), "_2/_4@1@0");
        assert!(RatioBasis::new(1, 0, vec![]).is_err());
    }

    #[test]
    fn the_switch_selects_the_release() {
        let (a, b) = (e(2, false, &[0]), r(1, 16, &[1]));
        with_release(Release::new(4, 2, 0, 0), || assert!(equal(&a, &b).is_err()));
        with_release(Release::new(4, 7, 0, 0), || assert_eq!(equal(&a, &b).unwrap(), Int::st(0)));
    }

    #[test]
    fn tuples_of_unequal_ranks_before_3_5() {
        // fixtures/cases/basis_equality.cases, recorded on v3.4.1 and the 3.3.0.0 wheel:
        // equal((1,_2),(1,_2,_3)) prints 1 there, _0 from 3.5.
        let t = |v: Vec<Operand>| Operand::Tuple(v);
        let i = |v: i64, s: bool| Operand::Int(Int::new(v, s));
        let short = t(vec![i(1, false), i(2, true)]);
        let long = t(vec![i(1, false), i(2, true), i(3, true)]);
        let st = t(vec![i(1, true), i(2, true)]);
        let st_long = t(vec![i(1, true), i(2, true), i(3, true)]);
        for (old, a, b, want) in [
            (true, &short, &long, Int::dy(1)),
            (true, &long, &short, Int::st(0)),
            (true, &st, &st_long, Int::st(1)),
            (true, &t(vec![]), &long, Int::st(1)),
            (true, &t(vec![i(2, false)]), &long, Int::dy(0)),
            (false, &short, &long, Int::st(0)),
            (false, &st, &st_long, Int::st(0)),
        ] {
            let r = with_release(Release::new(if old { 3 } else { 4 }, 4, 0, 0), || equal(a, b));
            assert_eq!(r.unwrap(), want, "{a} == {b}, old: {old}");
        }
        // The postconditions the prefix walk keeps (2 and 3 only where the ranks agree).
        with_release(Release::new(3, 4, 0, 0), || {
            assert!(check(&short, &long, &equal(&short, &long)).is_ok());
            assert!(check(&st, &st_long, &equal(&st, &st_long)).is_ok());
            assert!(check(&short, &short, &equal(&short, &short)).is_ok());
        });
    }

    fn leaf() -> impl Strategy<Value = Operand> {
        let int = (0i64..4, any::<bool>()).prop_map(|(v, s)| Operand::Int(Int::new(v, s)));
        let ratio = (1i64..4, 1i64..4).prop_map(|(n, d)| r(n, d, &[]));
        let value = prop_oneof![int.clone(), ratio];
        let basis = (value, prop::collection::vec(0u32..3, 1..3)).prop_map(|(v, m)| Operand::Basis(Box::new(v), m));
        prop_oneof![int, basis, (1i64..4, 1i64..4).prop_map(|(n, d)| r(n, d, &[]))]
    }

    fn operand() -> impl Strategy<Value = Operand> {
        leaf().prop_recursive(2, 8, 3, |inner| prop::collection::vec(inner, 0..3).prop_map(Operand::Tuple))
    }

    proptest! {
        #[test]
        fn postconditions_hold_in_every_release(a in operand(), b in operand(), k in 0usize..3) {
            let rel = [Release::new(3, 4, 0, 0), Release::new(4, 2, 0, 0), Release::new(4, 7, 0, 0)][k];
            with_release(rel, || {
                let res = equal(&a, &b);
                prop_assert!(check(&a, &b, &res).is_ok(), "{a} == {b}: {res:?}");
                prop_assert!(check(&a, &a, &equal(&a, &a)).is_ok());
                Ok(())
            })?;
        }

        #[test]
        fn the_fix_only_turns_refusals_into_false(a in operand(), b in operand()) {
            let (old, new) = (equal_with(&a, &b, false), equal_with(&a, &b, true));
            match (&old, &new) {
                (Ok(x), Ok(y)) => prop_assert_eq!(x, y),
                (Err(_), Ok(y)) => prop_assert_eq!(*y, Int::st(0)),
                (Err(_), Err(_)) => {}
                (Ok(_), Err(_)) => prop_assert!(false, "{a} == {b}: 4.7 refuses what 4.2 accepts"),
            }
        }
    }
}
