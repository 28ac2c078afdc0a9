//! `composition` where the right-hand side is a swizzled (composed) layout, and what it makes:
//! a composed layout whose inner layout is itself composed.
//!
//! CuTe's rules (layout_composed.hpp, 3.3 through 4.7 alike):
//! - `composition(ComposedLayout<A,O,B> a, Tiler b)` is `composition(a.layout_a(), a.offset(),
//!   composition(a.layout_b(), b))`: the outer swizzle and offset stay, the inner layout is composed
//!   with the tiler, whatever the tiler is (a layout, a swizzle, another composed layout);
//! - `composition(Layout a, ComposedLayout<A,O,B> b)` requires `b.offset() == Int<0>{}`
//!   (CUTE_STATIC_ASSERT_V, "Require offset == 0.") and is `composition(composition(a,
//!   b.layout_a()), b.layout_b())`: the swizzle read through `a` (swizzle_layout.hpp
//!   `composition(Layout, Swizzle)`, `make_swizzle<a(yyy), a(zzz)>()`), then the inner layout.
//!
//! So `composition(Sw<2,0,3> o _0 o L, Sw<2,0,-3> o _0 o L)` is the nested
//! `Sw<2,0,3> o _0 o Sw<2,0,3> o _0 o (_8,_8):(_1,_8)` (CUTLASS's
//! test/unit/cute/core/composition.cpp, "Swizzle composition"), printed as CuTe prints a
//! ComposedLayout: `layout_a o offset o layout_b`, the inner composed layout printed in place.
//!
//! Definition (the test's own check, test_composition: `EXPECT_EQ(layoutR(i),
//! layoutA(layoutB(i)))` for `i < size(B)`): every result is checked pointwise against the two
//! operands' values and refused when it differs.

use std::fmt;

use crate::error::{Error, Result};
use crate::postcondition::{enforce, Checked, Violation};
use crate::swizzle::{compose_layout_swizzle, ComposedLayout, Offset, Swizzle, SwizzledLayout};
use crate::{Int, Layout};

/// A layout, a composed layout `Sw o O o L`, or a composed layout whose inner layout is composed
/// (`Sw o O o Sw' o O' o L`, any depth).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Composite {
    Plain(Layout),
    Composed(ComposedLayout),
    Nested(Box<Nested>),
}

/// `ComposedLayout<Swizzle, Offset, ComposedLayout<...>>`: `swizzle(offset + inner(c))`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nested {
    pub swizzle: Swizzle,
    pub offset: Offset,
    /// A [`Composite::Composed`] or [`Composite::Nested`], never plain (that is a ComposedLayout).
    pub inner: Composite,
}

impl From<SwizzledLayout> for Composite {
    fn from(s: SwizzledLayout) -> Composite {
        match s {
            SwizzledLayout::Plain(l) => Composite::Plain(l),
            SwizzledLayout::Composed(c) => Composite::Composed(c),
        }
    }
}

impl fmt::Display for Composite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Composite::Plain(l) => write!(f, "{l}"),
            Composite::Composed(c) => write!(f, "{c}"),
            Composite::Nested(n) => write!(f, "{n}"),
        }
    }
}

impl fmt::Display for Nested {
    /// layout_composed.hpp print(ComposedLayout): `layout_a o offset o layout_b`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o {} o {}", self.swizzle, self.offset, self.inner)
    }
}

fn int_offset(o: &Offset, whole: &dyn fmt::Display) -> Result<i64> {
    match o {
        Offset::Int(i) => Ok(i.value),
        Offset::Mixed { s, d, .. } => Ok((s | d) as i64),
        Offset::SmemPtr(_) => Err(Error::Rejected {
            condition: "a layout over smem_ptr_flag is applied to a pointer, not evaluated",
            detail: whole.to_string(),
        }),
    }
}

impl Composite {
    /// The size of the domain: the innermost layout's.
    pub fn size(&self) -> Result<Int> {
        match self {
            Composite::Plain(l) => l.size(),
            Composite::Composed(c) => c.layout.size(),
            Composite::Nested(n) => n.inner.size(),
        }
    }
    /// The value at a coordinate of the innermost layout's shape.
    pub fn call(&self, coord: &crate::Tup) -> Result<Int> {
        match self {
            Composite::Plain(l) => l.call(coord),
            Composite::Composed(c) => c.call(coord),
            Composite::Nested(n) => {
                let i = Int::new(int_offset(&n.offset, n)?, matches!(n.offset, Offset::Int(o) if o.is_static))
                    .add(n.inner.call(coord)?)?;
                Ok(Int::new(n.swizzle.apply(i.value), i.is_static))
            }
        }
    }
    /// The value at the 1-D coordinate `i`.
    pub fn at(&self, i: i64) -> Result<i64> {
        match self {
            Composite::Plain(l) => Ok(l.call_int(Int::dy(i))?.value),
            Composite::Composed(c) => {
                Ok(c.swizzle.apply(int_offset(&c.offset, c)? + c.layout.call_int(Int::dy(i))?.value))
            }
            Composite::Nested(n) => Ok(n.swizzle.apply(int_offset(&n.offset, n)? + n.inner.at(i)?)),
        }
    }
}

/// `composition(sw, offset, inner)` as layout_composed.hpp builds it: a ComposedLayout around a
/// plain inner layout, a nested one around a composed inner layout.
fn wrap(swizzle: Swizzle, offset: Offset, inner: Composite) -> Composite {
    match inner {
        Composite::Plain(layout) => Composite::Composed(ComposedLayout { swizzle, offset, layout }),
        inner => Composite::Nested(Box::new(Nested { swizzle, offset, inner })),
    }
}

/// CuTe's algorithm for `composition(a, b)` where either side may be composed (the right-hand
/// side a layout, a composed or a nested composed layout), unchecked.
fn compose_unchecked(a: &Composite, b: &Composite) -> Result<Composite> {
    match (a, b) {
        (Composite::Plain(a), Composite::Plain(b)) => Ok(Composite::Plain(crate::composition::composition(a, b)?)),
        (Composite::Composed(c), b) => {
            Ok(wrap(c.swizzle, c.offset, compose_unchecked(&Composite::Plain(c.layout.clone()), b)?))
        }
        (Composite::Nested(n), b) => Ok(wrap(n.swizzle, n.offset, compose_unchecked(&n.inner, b)?)),
        (Composite::Plain(a), Composite::Composed(c)) => {
            require_zero_offset(&c.offset, b)?;
            let sa: Composite = compose_layout_swizzle(a, c.swizzle)?.into();
            compose_unchecked(&sa, &Composite::Plain(c.layout.clone()))
        }
        (Composite::Plain(a), Composite::Nested(n)) => {
            require_zero_offset(&n.offset, b)?;
            let sa: Composite = compose_layout_swizzle(a, n.swizzle)?.into();
            compose_unchecked(&sa, &n.inner)
        }
    }
}

/// `CUTE_STATIC_ASSERT_V(b.offset() == Int<0>{}, "Require offset == 0.")`: a static zero only (a
/// run-time offset is no static assertion's operand).
fn require_zero_offset(o: &Offset, b: &Composite) -> Result<()> {
    if matches!(o, Offset::Int(i) if i.is_static_value(0)) {
        return Ok(());
    }
    Err(Error::Rejected { condition: "Require offset == 0.", detail: format!("composition(Layout, {b})") })
}

/// `composition(a, b)` with a composed operand (see the module comment), its result checked
/// against the definition.
pub fn composition(a: &Composite, b: &Composite) -> Result<Composite> {
    let r = compose_unchecked(a, b)?;
    enforce("composition", check_postconditions(a, b, &r))?;
    Ok(r)
}

/// The most coordinates the pointwise check walks.
const MAX_WALK: i64 = 1 << 16;

/// test/unit/cute/core/composition.cpp test_composition: `R(i) == A(B(i))` for `i < size(B)`.
pub fn check_postconditions(a: &Composite, b: &Composite, r: &Composite) -> Checked {
    let n = b.size()?.value;
    if n > MAX_WALK {
        return Err(Violation::unverifiable(format!(
            "{b} has {n} coordinates; the engine verifies at most {MAX_WALK}"
        )));
    }
    let rn = r.size()?.value;
    if rn != n {
        return Err(Violation::cute(
            crate::postcondition::cite::COMPOSITION_VALUES,
            format!("1: size(R) = {rn} != size(B) = {n}"),
        ));
    }
    for i in 0..n {
        let (got, want) = (r.at(i)?, a.at(b.at(i)?)?);
        if got != want {
            return Err(Violation::cute(
                crate::postcondition::cite::COMPOSITION_VALUES,
                format!("2: R({i}) = {got} != A(B({i})) = {want}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::l;

    fn sw(b: i64, m: i64, s: i64, layout: &str) -> Composite {
        Composite::Composed(ComposedLayout {
            swizzle: Swizzle::new(b, m, s).unwrap(),
            offset: Offset::Int(Int::st(0)),
            layout: l(layout),
        })
    }

    /// CUTLASS's composition.cpp "Swizzle composition" cases, as CuTe 3.3 and 4.2 print them
    /// (g++ 12, host-only).
    #[test]
    fn the_unit_tests_swizzle_compositions() {
        let a = Composite::Plain(l("(_8,_8):(_8,_1)"));
        let b = sw(2, 0, -3, "(_8,_8):(_8,_1)");
        assert_eq!(composition(&a, &b).unwrap().to_string(), "Sw<2,0,3> o _0 o (_8,_8):(_1,_8)");
        let a = sw(2, 0, 3, "(_8,_8):(_8,_1)");
        assert_eq!(composition(&a, &b).unwrap().to_string(), "Sw<2,0,3> o _0 o Sw<2,0,3> o _0 o (_8,_8):(_1,_8)");
    }

    /// A composed right-hand side needs a static zero offset.
    #[test]
    fn a_right_hand_side_with_an_offset_is_refused() {
        let b = Composite::Composed(ComposedLayout {
            swizzle: Swizzle::new(2, 0, 3).unwrap(),
            offset: Offset::Int(Int::st(4)),
            layout: l("(_8,_8):(_8,_1)"),
        });
        let e = composition(&Composite::Plain(l("(_8,_8):(_8,_1)")), &b).unwrap_err();
        assert!(matches!(e, Error::Rejected { condition: "Require offset == 0.", .. }), "{e}");
    }

    /// A wrong result is refused: the check compares every value.
    #[test]
    fn the_check_sees_a_wrong_result() {
        let a = Composite::Plain(l("(_8,_8):(_8,_1)"));
        let b = sw(2, 0, -3, "(_8,_8):(_8,_1)");
        let wrong = sw(2, 0, -3, "(_8,_8):(_1,_8)");
        assert!(check_postconditions(&a, &b, &wrong).unwrap_err().is_cute());
    }

    proptest::proptest! {
        /// Composing any of these layouts with a swizzled layout, and a swizzled layout with
        /// another (nesting them), gives a result whose every value is A(B(i)).
        #[test]
        fn composed_compositions_are_pointwise(
            swa in proptest::sample::select(vec![(1, 0, 1), (2, 0, 3), (2, 0, -3), (1, 2, 2), (3, 0, 3), (2, 1, 3)]),
            swb in proptest::sample::select(vec![(1, 0, 1), (2, 0, 3), (2, 0, -3), (1, 2, 2), (3, 0, 3), (2, 1, 3)]),
            la in proptest::sample::select(vec!["(_8,_8):(_8,_1)", "(_8,_8):(_1,_8)", "(_4,_16):(_16,_1)", "_64:_1", "(_2,_32):(_32,_1)"]),
            lb in proptest::sample::select(vec!["(_8,_8):(_8,_1)", "(_8,_8):(_1,_8)", "(_4,_16):(_16,_1)", "_64:_1", "(_16,_4):(_1,_16)"]),
            nest_a in proptest::bool::ANY,
        ) {
            let b = sw(swb.0, swb.1, swb.2, lb);
            let a = if nest_a { sw(swa.0, swa.1, swa.2, la) } else { Composite::Plain(l(la)) };
            // CuTe refuses what make_swizzle cannot build; what it builds is checked here.
            if let Ok(r) = compose_unchecked(&a, &b) {
                proptest::prop_assert!(check_postconditions(&a, &b, &r).is_ok(), "{a} o {b} = {r}");
            }
        }
    }
}
