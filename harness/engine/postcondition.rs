//! Violations of an operation's definition, with where each condition comes from.
//!
//! Every numbered postcondition of an engine module cites its source: CuTe itself (a CUTLASS unit
//! test, `test/unit/cute/core/*.cpp`, and what it checks; or an `@post` comment / the defining
//! code of a CuTe header) or ours (a condition the engine adds, "stricter than CuTe"). A
//! `check_postconditions` function returns the first violated condition as a [`Violation`] and
//! checks CuTe's conditions before ours, so a violation of ours means every CuTe condition held.
//!
//! The engine refuses a result ([`super::Error::Undefined`]) only for a violation of CuTe's
//! definition (or a result that cannot be verified at all); a result that fails only one of our
//! conditions is returned as CuTe computes it, and triage does not blame CuTe for it.

use std::fmt;

use super::error::{Error, Result};

/// Where a condition of a definition comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// CuTe's own definition: the citation names the unit test (file and what it checks) or the
    /// header comment / defining code.
    Cute(&'static str),
    /// A condition of ours, stricter than CuTe (the reason it is kept).
    Ours(&'static str),
    /// Not a condition: the check could not be carried out (an operand or the result cannot be
    /// evaluated, or is too large to walk).
    Unverifiable,
}

/// One violated condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The condition's number and what failed, e.g. `3: R(1) = 4 >= R(2) = 2`.
    pub condition: String,
    pub source: Source,
}

/// What a definition check answers.
pub type Checked = std::result::Result<(), Violation>;

impl Violation {
    /// A violation of CuTe's own definition (`cite`: test file and check, or header).
    pub fn cute(cite: &'static str, condition: impl Into<String>) -> Violation {
        Violation { condition: condition.into(), source: Source::Cute(cite) }
    }
    /// A violation of a condition of ours only ("stricter than CuTe").
    pub fn ours(why: &'static str, condition: impl Into<String>) -> Violation {
        Violation { condition: condition.into(), source: Source::Ours(why) }
    }
    /// The check could not be done.
    pub fn unverifiable(condition: impl Into<String>) -> Violation {
        Violation { condition: condition.into(), source: Source::Unverifiable }
    }
    /// Whether the violated condition is one of CuTe's (then the result is wrong by CuTe's own
    /// definition).
    pub fn is_cute(&self) -> bool {
        matches!(self.source, Source::Cute(_))
    }
    /// Whether only a condition of ours is violated ("stricter than CuTe").
    pub fn is_ours(&self) -> bool {
        matches!(self.source, Source::Ours(_))
    }
    /// Whether the engine refuses a result with this violation: CuTe's conditions and unverifiable
    /// results, never ours alone.
    pub fn refuses(&self) -> bool {
        !self.is_ours()
    }
    /// The same violation, its condition text prefixed (e.g. with the part of a composite check).
    pub fn context(self, prefix: impl fmt::Display) -> Violation {
        Violation { condition: format!("{prefix}{}", self.condition), source: self.source }
    }
    /// The same condition, reported as ours: a part's CuTe condition that the enclosing
    /// operation's own definition (as CuTe tests it) does not require.
    pub fn as_ours(self, why: &'static str) -> Violation {
        match self.source {
            Source::Cute(_) => Violation { condition: self.condition, source: Source::Ours(why) },
            _ => self,
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Cute(c) => write!(f, "CuTe's definition: {c}"),
            Source::Ours(w) => write!(f, "ours, stricter than CuTe: {w}"),
            Source::Unverifiable => f.write_str("not verifiable"),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", self.condition, self.source)
    }
}

impl From<Error> for Violation {
    fn from(e: Error) -> Violation {
        Violation::unverifiable(e.to_string())
    }
}

impl From<super::int::IntError> for Violation {
    fn from(e: super::int::IntError) -> Violation {
        Violation::from(Error::from(e))
    }
}

impl From<Violation> for String {
    fn from(v: Violation) -> String {
        v.to_string()
    }
}

/// The engine's verdict on a checked result of `op`: refused ([`Error::Undefined`]) when it
/// violates CuTe's definition or cannot be verified; accepted when it satisfies the definition or
/// fails only a condition of ours.
pub fn enforce(op: &'static str, r: Checked) -> Result<()> {
    match r {
        Err(v) if v.refuses() => Err(Error::Undefined { op, reason: v.to_string() }),
        _ => Ok(()),
    }
}

/// Only CuTe's verdict: a violation of a condition of ours alone ("stricter than CuTe") counts as
/// satisfied. What the engine promises for every result it returns.
pub fn cute_only(r: Checked) -> Checked {
    match r {
        Err(v) if v.is_ours() => Ok(()),
        other => other,
    }
}

/// Citations shared by several modules.
pub mod cite {
    pub const COMPOSITION_COMPATIBLE: &str =
        "test/unit/cute/core/composition.cpp (EXPECT_TRUE(compatible(layoutB, layoutR))); layout.hpp @post compatible(rhs, result)";
    pub const COMPOSITION_VALUES: &str =
        "test/unit/cute/core/composition.cpp (EXPECT_EQ(layoutR(c), layoutA(layoutB(c))) for c < size(B)); layout.hpp @post result(c) = lhs(rhs(c))";
    pub const COMPOSITION_TILER: &str =
        "layout.hpp composition(layout, tiler): a tuple tiler composes mode by mode (transform_layout), _ keeps the mode";
    pub const DIVIDE_RANK: &str = "test/unit/cute/core/logical_divide.cpp (ASSERT_EQ(rank(layoutR), 2))";
    pub const DIVIDE_COMPATIBLE: &str =
        "test/unit/cute/core/logical_divide.cpp (ASSERT_TRUE(compatible(layoutB, layout<0>(layoutR))))";
    pub const DIVIDE_DEFINITION: &str =
        "layout.hpp logical_divide := composition(layout, make_layout(tiler, complement(tiler, shape(coalesce(layout))))), with composition's @post result(c) = lhs(rhs(c))";
    pub const PRODUCT_RANK: &str = "test/unit/cute/core/logical_product.cpp (ASSERT_EQ(rank(layoutR), 2))";
    pub const PRODUCT_MODE0: &str =
        "test/unit/cute/core/logical_product.cpp (ASSERT_TRUE(layoutA == layout<0>(layoutR)))";
    pub const PRODUCT_COMPATIBLE: &str =
        "test/unit/cute/core/logical_product.cpp (ASSERT_TRUE(compatible(layoutB, layout<1>(layoutR))))";
    pub const PRODUCT_DEFINITION: &str =
        "layout.hpp logical_product := make_layout(block, composition(complement(block, size(block)*cosize(tiler)), tiler)), with composition's @post result(c) = lhs(rhs(c))";
    pub const TILER_FORMS: &str =
        "layout.hpp logical_divide/logical_product(layout, tiler): a tuple tiler applies by mode (transform_layout), _ returns the layout";
    pub const ZIP: &str = "layout.hpp zipped_*/tiled_*/flat_*: tile_unzip(logical_*(layout, tiler), tiler) then the slices that unpack modes";
    pub const LOCAL: &str =
        "tensor_impl.hpp local_tile := inner_partition (zipped_divide, then slice mode 1 by the coordinate), local_partition := outer_partition (zipped_divide, then slice mode 0)";
    pub const INNER_COMPLEMENT: &str =
        "CuTe's tests of the divides and products do not check the complement inside (only its composition)";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cute_violations_refuse() {
        assert!(enforce("x", Ok(())).is_ok());
        assert!(enforce("x", Err(Violation::ours("why", "3: too small"))).is_ok());
        let e = enforce("x", Err(Violation::cute("t.cpp (check)", "1: wrong"))).unwrap_err();
        assert_eq!(e.to_string(), "x is not defined here: 1: wrong [CuTe's definition: t.cpp (check)]");
        assert!(enforce("x", Err(Violation::from(Error::DivisionByZero))).is_err());
        assert!(Violation::cute("c", "m").as_ours("w").is_ours());
    }
}
