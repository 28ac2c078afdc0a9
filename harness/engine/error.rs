//! Typed errors of the engine. Where CuTe rejects a case at compile time, the variant's message is
//! CuTe's own static_assert text, so a user can match the engine's refusal to the compiler's.

/// Everything the engine can refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An intermediate or final integer left CuTe's 32-bit `int` range: `what` the arithmetic
    /// (`multiplication`, ...), `op` the CuTe operation computing it (`max_common_layout`; empty
    /// until the expression layer names it).
    #[error("integer overflow in {what}{} (CuTe's ints are 32-bit)", in_op(op))]
    Overflow { what: &'static str, op: &'static str },
    #[error("division by zero")]
    DivisionByZero,
    /// CuTe: `static_assert(... "Shape Divisibility Condition")` (composition, layout.hpp).
    #[error("Shape Divisibility Condition: {detail}")]
    ShapeDivisibility { detail: String },
    /// CuTe: `static_assert(... "Stride Divisibility Condition")` (composition, layout.hpp).
    #[error("Stride Divisibility Condition: {detail}")]
    StrideDivisibility { detail: String },
    /// CuTe: `static_assert(... "Divisibility Condition")` (shape_div, int_tuple.hpp).
    #[error("Divisibility Condition: {detail}")]
    Divisibility { detail: String },
    /// CuTe: `static_assert(... "Non-injective Layout detected in complement.")`.
    #[error("Non-injective Layout detected in complement: {detail}")]
    NonInjectiveComplement { detail: String },
    /// CuTe: `static_assert(R == 1 || is_static<Stride>, "Dynamic-stride complement only for rank-1 layouts")`.
    #[error("Dynamic-stride complement only for rank-1 layouts")]
    DynamicStrideComplement,
    /// CuTe: `static_assert(is_static<Stride>, "Left inverse requires static strides.")`.
    #[error("Left inverse requires static strides.")]
    LeftInverseDynamicStride,
    /// CuTe: "Mismatched Ranks" / "Mismatched ranks" and the like.
    #[error("Mismatched Ranks: {detail}")]
    MismatchedRanks { detail: String },
    /// CuTe: "logical_divide: Too many modes in tiler." / "logical_product: Too many modes in tiler."
    #[error("{op}: Too many modes in tiler.")]
    TooManyModes { op: &'static str },
    /// CuTe accepts the case, but the operation's definition does not hold for any layout of the
    /// result's form; the engine refuses rather than produce a wrong layout.
    #[error("{op} is not defined here: {reason}")]
    Undefined { op: &'static str, reason: String },
    /// A case CuTe's compile-time requirements reject for another reason (named in `detail`).
    #[error("{condition}: {detail}")]
    Rejected { condition: &'static str, detail: String },
    /// Wrong kind of argument for an operation (e.g. a layout where an int was needed).
    #[error("type error: {0}")]
    Type(String),
    /// A coordinate outside a layout's domain, or a mode index out of range.
    #[error("index out of range: {0}")]
    OutOfRange(String),
    /// Shapes too large for the engine to walk (size over the configured limit).
    #[error("too large: {0}")]
    TooLarge(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// ` in OP` for an overflow whose CuTe operation is known.
fn in_op(op: &str) -> String {
    if op.is_empty() {
        String::new()
    } else {
        format!(" in {op}")
    }
}
