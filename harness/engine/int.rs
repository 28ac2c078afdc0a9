//! Integers that remember whether CuTe would know them at compile time.
//!
//! CuTe has two kinds of integer leaves: `Int<N>` (static, printed `_N`) and plain `int`
//! (dynamic, printed `N`). The kind is part of the value here, because CuTe's results depend on it
//! (coalesce only merges what static values prove mergeable, and so on).
//!
//! Arithmetic follows CuTe's `integral_constant.hpp`:
//! 1. static op static is static;
//! 2. anything involving a dynamic operand is dynamic, except the special cases CuTe spells out:
//!    `_0 * x`, `x * _0`, `_0 / x`, `_0 % x`, `x % _1` (and `x % _-1`) are the static `_0`.
//!
//! CuTe's ints are 32-bit `int`s; a result outside that range is an [`Error::Overflow`], never a
//! wrap or a panic.
//!
//! # Overflow audit
//!
//! Every path where the engine refuses for overflow, the CuTe computation it models, CuTe's type
//! there and the test that guards it. CuTe's type is `int` throughout: a static `Int<N>` is
//! `C<int(N)>` and `C<a> op C<b>` is `C<a op b>` with `a op b` an `int` expression
//! (integral_constant.hpp); a dynamic leaf of a case is an `int` (the oracle's C++ spells it so);
//! mixed arithmetic is `int`. Nothing in the layout algebra promotes to 64 bits for the values a
//! case can hold. The engine computes each step in i64 and refuses a result outside `int`, in
//! CuTe's order, so it refuses exactly where CuTe's arithmetic overflows (undefined behaviour,
//! which the compiled oracle reports through UBSan: `Outcome::Overflow`). The error names the
//! arithmetic and the innermost operation of the case (`integer overflow in multiplication in
//! max_common_layout`).
//!
//! | refusal path | CuTe's computation (source) | type | guarded by |
//! |---|---|---|---|
//! | [`Int::add`], [`Int::sub`], [`Int::mul`] | `C<a> op C<b>`, `int op int` (integral_constant.hpp) | `int` | `tests::arithmetic_overflows_exactly_past_int` |
//! | [`Int::div`], [`Int::rem`] (`INT_MIN / -1`, `INT_MIN % -1`), [`Int::abs`] (`abs(INT_MIN)`) | `/`, `%`, `abs` (integral_constant.hpp, math.hpp) | `int` | `tests::the_edges_of_int` (`INT_MIN % -1` was answered `0` before this audit) |
//! | [`Int::lcm`] | `(t / gcd(t,u)) * u` (numeric/math.hpp), same order | `int` | `tests::arithmetic_overflows_exactly_past_int` |
//! | [`Int::ceil_div`] | `(a + b - Int<1>{}) / b` (int_tuple.hpp), `a + b` first | `int` | `tests::arithmetic_overflows_exactly_past_int` (before this audit only the quotient was checked) |
//! | `IntTuple::product` (`size`, every size) | the fold `(u * ... * t)` (algorithm/functional.hpp:231) | `int` | tests/cute_overflow.rs (`size((_65536,_32768))`, dynamic too) |
//! | `IntTuple::compact_col_major` / `compact_row_major` (`make_layout(shape)`, compact strides) | `detail::compact`: `current * shape` after every leaf but a static `_1`, the last included (stride.hpp:305) | `int` | tests/cute_overflow.rs::ubsan_agrees_with_the_engine_near_int_max (`make_layout` cases; before, the engine skipped the last product and answered where CuTe overflows) |
//! | `Layout::cosize` | 4.2: `coshape` = inner product of `shape - 1` and `abs(stride)`, plus 1; before 4.2: `L(size - 1) + 1` with absolute strides (layout.hpp) | `int` | tests/cute_overflow.rs (`cosize` cases near 2^31) |
//! | composition's strides and extents | `rest_stride * curr_stride` (layout.hpp:1108, composition_impl; max_common_layout and max_common_vector reach it through composition with a right inverse) | `int` | tests/cute_overflow.rs (the seed-2027 and seed-3032 cases of issue 30) |
//! | the products (logical, zipped, tiled, flat, blocked, raked) | `complement(block, size(block) * cosize(tiler))` (layout.hpp:1656) | `int` | tests/cute_overflow.rs (`raked_product`, `zipped_product`, `logical_product` cases) |
//! | complement | the products and `ceil_div`s of complement (layout.hpp) | `int` | tests/cute_overflow.rs (`complement` cases) |
//! | `Swizzle::new` (`swizzle mask`) | `constant<int, bit_msk{} << (num_base + max(0,num_shft))>` and `zzz_msk` (swizzle.hpp): a shift into bit 31 is defined in C++17, one past it is not, so `BBits + MBase + abs(SShift) <= 32` | `int` | `swizzle::tests::a_mask_past_int_is_an_overflow` (the engine refused 32 before this audit; CuTe prints `Sw<1,0,31>`) |
//! | `upcast` of a swizzled smem layout (`smem_ptr_flag_bits<B*N>`) | `smem_ptr_flag_bits<B*N>` (pointer_flagged.hpp) | `int` template argument | checked in `int` by `atom::recast::upcast_any` (i64 before this audit; no test reaches 2^31 bits) |
//! | none: the size of a layout the engine walks (`Layout::walk_size`: `composition::walkable`, `Layout::values`) | not CuTe's: the engine's own checks (e.g. the pair `(A, complement)` of a product, which CuTe never sizes) | - | past `int` it is `Error::TooLarge` (the walk limit), never `Error::Overflow`: `composition::tests::a_walk_past_int_is_too_large_not_an_overflow` (seed 2027 random #153268, refused for overflow where CuTe answers, found by tests/cute_overflow.rs::ubsan_agrees_with_every_engine_overflow_refusal_of_random_cases) |
//!
//! Measured against CuTe 4.2 under UBSan (tests/cute_overflow.rs, 200 cases with sizes just
//! below, at and above 2^31): every engine refusal for overflow (49) is a case where CuTe
//! overflows; the cases where CuTe overflows and the engine does not refuse for overflow (17)
//! are all the engine's walk limit (`unsupported: too large`, no answer); none where the engine
//! answers. On random cases (the same test file, `CUTECHECK_OVERFLOW_CASES=200000
//! CUTECHECK_OVERFLOW_SEED=2027`): the engine refused 54 of 200,000 for overflow; CuTe overflowed
//! in 36, refused first (a static_assert) in 17 and answered 1, the walk-size case above, which
//! is no longer refused for overflow.

use std::fmt;

use super::error::Error;

/// The failure of one integer operation: small, so that `IntResult<Int>` is returned in registers
/// (the engine's [`Error`] is 48 bytes); `?` turns it into [`Error::Overflow`] or
/// [`Error::DivisionByZero`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntError {
    Overflow(Op),
    DivisionByZero,
}

/// The operation that overflowed (named in [`Error::Overflow`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Addition,
    Subtraction,
    Multiplication,
    Division,
    Remainder,
    Abs,
    Lcm,
    CeilDiv,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Addition => "addition",
            Op::Subtraction => "subtraction",
            Op::Multiplication => "multiplication",
            Op::Division => "division",
            Op::Remainder => "remainder",
            Op::Abs => "abs",
            Op::Lcm => "lcm",
            Op::CeilDiv => "ceil_div",
        }
    }
}

impl From<IntError> for Error {
    fn from(e: IntError) -> Error {
        match e {
            IntError::Overflow(op) => Error::Overflow { what: op.name(), op: "" },
            IntError::DivisionByZero => Error::DivisionByZero,
        }
    }
}

/// The result of one integer operation.
pub type IntResult<T> = std::result::Result<T, IntError>;

/// One integer leaf of an int tuple: its value and whether it is static (`_N`) or dynamic (`N`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Int {
    pub value: i64,
    pub is_static: bool,
}

/// The smallest and largest values CuTe's 32-bit `int` can hold.
pub const INT_MIN: i64 = i32::MIN as i64;
pub const INT_MAX: i64 = i32::MAX as i64;

/// A value in CuTe's 32-bit `int` range, for the small paths' plain-integer arithmetic ([`Int`]'s
/// checked arithmetic refuses the rest the same way).
#[inline(always)]
pub(crate) fn int32(v: Option<i64>) -> Option<i64> {
    v.filter(|v| (INT_MIN..=INT_MAX).contains(v))
}

// `add`, `mul`, ... return Result (CuTe's ints overflow at 32 bits), so they cannot be the std ops traits.
#[allow(clippy::should_implement_trait)]
impl Int {
    /// A static integer `_v`.
    pub const fn st(value: i64) -> Int {
        Int { value, is_static: true }
    }
    /// A dynamic integer `v`.
    pub const fn dy(value: i64) -> Int {
        Int { value, is_static: false }
    }
    /// An integer with the given static-ness.
    pub const fn new(value: i64, is_static: bool) -> Int {
        Int { value, is_static }
    }
    pub fn is_static_value(&self, v: i64) -> bool {
        self.is_static && self.value == v
    }

    fn checked(value: Option<i64>, what: Op) -> IntResult<i64> {
        match value {
            Some(v) if (INT_MIN..=INT_MAX).contains(&v) => Ok(v),
            _ => Err(IntError::Overflow(what)),
        }
    }

    fn both(a: Int, b: Int) -> bool {
        a.is_static && b.is_static
    }

    pub fn add(self, o: Int) -> IntResult<Int> {
        Ok(Int::new(Self::checked(self.value.checked_add(o.value), Op::Addition)?, Self::both(self, o)))
    }
    pub fn sub(self, o: Int) -> IntResult<Int> {
        Ok(Int::new(Self::checked(self.value.checked_sub(o.value), Op::Subtraction)?, Self::both(self, o)))
    }
    pub fn mul(self, o: Int) -> IntResult<Int> {
        if self.is_static_value(0) || o.is_static_value(0) {
            return Ok(Int::st(0));
        }
        Ok(Int::new(Self::checked(self.value.checked_mul(o.value), Op::Multiplication)?, Self::both(self, o)))
    }
    /// C++ integer division (truncating). Division by zero is an error (CuTe would trap).
    pub fn div(self, o: Int) -> IntResult<Int> {
        if self.is_static_value(0) {
            return Ok(Int::st(0));
        }
        if o.value == 0 {
            return Err(IntError::DivisionByZero);
        }
        Ok(Int::new(Self::checked(self.value.checked_div(o.value), Op::Division)?, Self::both(self, o)))
    }
    /// C++ remainder (sign of the dividend).
    pub fn rem(self, o: Int) -> IntResult<Int> {
        if self.is_static_value(0) || (o.is_static && (o.value == 1 || o.value == -1)) {
            return Ok(Int::st(0));
        }
        if o.value == 0 {
            return Err(IntError::DivisionByZero);
        }
        // `INT_MIN % -1` overflows in C++ as `INT_MIN / -1` does (UBSan reports it).
        if self.value == INT_MIN && o.value == -1 {
            return Err(IntError::Overflow(Op::Remainder));
        }
        Ok(Int::new(Self::checked(self.value.checked_rem(o.value), Op::Remainder)?, Self::both(self, o)))
    }
    pub fn min(self, o: Int) -> Int {
        Int::new(self.value.min(o.value), Self::both(self, o))
    }
    pub fn max(self, o: Int) -> Int {
        Int::new(self.value.max(o.value), Self::both(self, o))
    }
    pub fn abs(self) -> IntResult<Int> {
        Ok(Int::new(Self::checked(self.value.checked_abs(), Op::Abs)?, self.is_static))
    }
    pub fn gcd(self, o: Int) -> Int {
        let (mut a, mut b) = (self.value.unsigned_abs(), o.value.unsigned_abs());
        while b != 0 {
            (a, b) = (b, a % b);
        }
        Int::new(a as i64, Self::both(self, o))
    }
    pub fn lcm(self, o: Int) -> IntResult<Int> {
        if self.value == 0 || o.value == 0 {
            return Ok(Int::new(0, Self::both(self, o)));
        }
        let g = self.gcd(o).value;
        let v = (self.value / g).checked_mul(o.value).map(i64::abs);
        Ok(Int::new(Self::checked(v, Op::Lcm)?, Self::both(self, o)))
    }
    /// `ceil_div(a, b) = (a + b - 1) / b` for positive operands, as CuTe computes it.
    pub fn ceil_div(self, o: Int) -> IntResult<Int> {
        if o.value == 0 {
            return Err(IntError::DivisionByZero);
        }
        // Each step in `int`, as CuTe computes `(a + b - Int<1>{}) / b`: `a + b` may overflow
        // where the quotient would fit (the engine used to check only the quotient).
        let v = int32(self.value.checked_add(o.value))
            .and_then(|x| int32(x.checked_sub(1)))
            .and_then(|x| x.checked_div(o.value));
        Ok(Int::new(Self::checked(v, Op::CeilDiv)?, Self::both(self, o)))
    }
}

/// How [`Int::write_to`] prints the dynamic integers 0 to 99.
const SMALL: [&str; 100] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20",
    "21", "22", "23", "24", "25", "26", "27", "28", "29", "30", "31", "32", "33", "34", "35", "36", "37", "38", "39",
    "40", "41", "42", "43", "44", "45", "46", "47", "48", "49", "50", "51", "52", "53", "54", "55", "56", "57", "58",
    "59", "60", "61", "62", "63", "64", "65", "66", "67", "68", "69", "70", "71", "72", "73", "74", "75", "76", "77",
    "78", "79", "80", "81", "82", "83", "84", "85", "86", "87", "88", "89", "90", "91", "92", "93", "94", "95", "96",
    "97", "98", "99",
];

/// How [`Int::write_to`] prints the static integers `_0` to `_99`.
const SMALL_STATIC: [&str; 100] = [
    "_0", "_1", "_2", "_3", "_4", "_5", "_6", "_7", "_8", "_9", "_10", "_11", "_12", "_13", "_14", "_15", "_16", "_17",
    "_18", "_19", "_20", "_21", "_22", "_23", "_24", "_25", "_26", "_27", "_28", "_29", "_30", "_31", "_32", "_33",
    "_34", "_35", "_36", "_37", "_38", "_39", "_40", "_41", "_42", "_43", "_44", "_45", "_46", "_47", "_48", "_49",
    "_50", "_51", "_52", "_53", "_54", "_55", "_56", "_57", "_58", "_59", "_60", "_61", "_62", "_63", "_64", "_65",
    "_66", "_67", "_68", "_69", "_70", "_71", "_72", "_73", "_74", "_75", "_76", "_77", "_78", "_79", "_80", "_81",
    "_82", "_83", "_84", "_85", "_86", "_87", "_88", "_89", "_90", "_91", "_92", "_93", "_94", "_95", "_96", "_97",
    "_98", "_99",
];

impl fmt::Display for Int {
    /// CuTe's print: `_N` for a static integer, `N` for a dynamic one (`_-1` for a negative static).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl Int {
    /// [`Int`]'s `Display` into any writer (a `String` directly, without a `Formatter`).
    #[inline]
    pub fn write_to<W: fmt::Write + ?Sized>(&self, f: &mut W) -> fmt::Result {
        // Written without the formatting machinery (as `write!(f, "_{}", v)` does, the caller's
        // width and fill do not apply): this is every number the engine prints. Below 100 (most
        // numbers) one string of a table, else digit by digit into a stack buffer.
        if let Ok(v) = usize::try_from(self.value) {
            if v < 100 {
                return f.write_str(if self.is_static { SMALL_STATIC[v] } else { SMALL[v] });
            }
        }
        let mut buf = [0u8; 21];
        let mut at = buf.len();
        let mut v = self.value.unsigned_abs();
        loop {
            at -= 1;
            buf[at] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        if self.value < 0 {
            at -= 1;
            buf[at] = b'-';
        }
        if self.is_static {
            f.write_str("_")?;
        }
        f.write_str(std::str::from_utf8(&buf[at..]).expect("ASCII digits"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_cute_print() {
        for (i, want) in [
            (Int::st(0), "_0"),
            (Int::dy(0), "0"),
            (Int::st(-1), "_-1"),
            (Int::dy(1234567), "1234567"),
            (Int::st(i64::MIN), "_-9223372036854775808"),
            (Int::dy(i64::MAX), "9223372036854775807"),
        ] {
            assert_eq!(i.to_string(), want);
            assert_eq!(format!("{i:>30}"), want, "the caller's width does not apply, as before");
        }
    }

    #[test]
    fn the_table_of_small_integers_prints_as_the_digits() {
        // 0..100 come from SMALL/SMALL_STATIC, the rest digit by digit: both as `{}` prints them.
        for v in -150..250 {
            assert_eq!(Int::dy(v).to_string(), format!("{v}"));
            assert_eq!(Int::st(v).to_string(), format!("_{v}"));
        }
    }

    #[test]
    fn prints_like_cute() {
        assert_eq!(Int::st(4).to_string(), "_4");
        assert_eq!(Int::dy(4).to_string(), "4");
        assert_eq!(Int::st(-1).to_string(), "_-1");
    }

    #[test]
    fn static_zero_absorbs_dynamic() {
        assert_eq!(Int::st(0).mul(Int::dy(7)).unwrap(), Int::st(0));
        assert_eq!(Int::dy(7).mul(Int::st(0)).unwrap(), Int::st(0));
        assert_eq!(Int::dy(7).rem(Int::st(1)).unwrap(), Int::st(0));
        assert_eq!(Int::st(1).mul(Int::dy(7)).unwrap(), Int::dy(7));
    }

    proptest::proptest! {
        /// Near 2^31 on both sides: each operation refuses exactly when CuTe's `int` arithmetic,
        /// in CuTe's order, leaves `int` (computed exactly in i128 here).
        #[test]
        fn arithmetic_overflows_exactly_past_int(
            a in (1i64 << 15)..(1i64 << 17),
            d in -3i64..=3,
            sa in proptest::bool::ANY,
            sb in proptest::bool::ANY,
            neg in proptest::bool::ANY,
        ) {
            let fits = |v: i128| (INT_MIN as i128..=INT_MAX as i128).contains(&v);
            let b = (1i64 << 31) / a + d;
            let (x, y) = (Int::new(if neg { -a } else { a }, sa), Int::new(b, sb));
            let (p, q) = (x.value as i128, y.value as i128);
            proptest::prop_assert_eq!(x.mul(y).is_ok(), fits(p * q));
            let big = Int::new(INT_MAX - a + d, sa);
            proptest::prop_assert_eq!(big.add(y).is_ok(), fits(big.value as i128 + q));
            proptest::prop_assert_eq!(Int::new(-big.value, sa).sub(y).is_ok(), fits(-(big.value as i128) - q));
            // ceil_div adds first: (a + b - 1) / b.
            proptest::prop_assert_eq!(big.ceil_div(y).is_ok(), fits(big.value as i128 + q) && fits(big.value as i128 + q - 1));
            // lcm: (t / gcd(t, u)) * u.
            let g = x.gcd(y).value as i128;
            proptest::prop_assert_eq!(x.lcm(y).is_ok(), fits((p / g * q).abs()));
        }
    }

    #[test]
    fn the_edges_of_int() {
        assert!(Int::dy(INT_MIN).div(Int::dy(-1)).is_err());
        assert!(Int::dy(INT_MIN).rem(Int::dy(-1)).is_err());
        assert!(Int::dy(INT_MIN).abs().is_err());
        assert_eq!(Int::dy(INT_MIN + 1).abs().unwrap(), Int::dy(INT_MAX));
        assert_eq!(Int::st(46340).mul(Int::st(46341)).unwrap(), Int::st(2147441940));
        assert!(Int::st(46341).mul(Int::st(46341)).is_err());
    }

    #[test]
    fn overflow_is_an_error() {
        assert!(matches!(Int::dy(INT_MAX).add(Int::dy(1)), Err(IntError::Overflow(_))));
        assert!(matches!(Int::st(1 << 20).mul(Int::st(1 << 20)), Err(IntError::Overflow(_))));
        assert!(matches!(Int::dy(1).div(Int::dy(0)), Err(IntError::DivisionByZero)));
    }
}
