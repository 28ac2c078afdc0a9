//! Values of the expression language and their CuTe-style printing.

use std::fmt;

use crate::engine::{Error, Int, IntTuple, Layout, Result};

/// What an expression evaluates to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A static or dynamic integer.
    Int(Int),
    /// CuTe's `_` (Underscore).
    Underscore,
    /// A tuple: an int tuple when every leaf is an Int, otherwise a tuple of layouts (a tiler).
    Tuple(Vec<Value>),
    Layout(Layout),
    /// Atom names, swizzles and swizzled layouts (see builtins/atoms.rs).
    Atom(super::builtins::atoms::AtomValue),
}

impl Value {
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Underscore => "_",
            Value::Tuple(_) => "a tuple",
            Value::Layout(_) => "a layout",
            Value::Atom(a) => a.kind(),
        }
    }
    /// This value as an int tuple (an integer or a tuple of only integers).
    pub fn to_int_tuple(&self) -> Result<IntTuple> {
        match self {
            Value::Int(i) => Ok(IntTuple::Leaf(*i)),
            Value::Tuple(v) => Ok(IntTuple::Tuple(v.iter().map(Value::to_int_tuple).collect::<Result<_>>()?)),
            other => Err(Error::Type(format!("expected an int tuple, found {}", other.kind()))),
        }
    }
    pub fn to_int(&self) -> Result<Int> {
        match self {
            Value::Int(i) => Ok(*i),
            other => Err(Error::Type(format!("expected an integer, found {}", other.kind()))),
        }
    }
    pub fn to_layout(&self) -> Result<Layout> {
        match self {
            Value::Layout(l) => Ok(l.clone()),
            other => Err(Error::Type(format!("expected a layout, found {}", other.kind()))),
        }
    }
    pub fn from_int_tuple(t: &IntTuple) -> Value {
        match t {
            IntTuple::Leaf(i) => Value::Int(*i),
            IntTuple::Tuple(v) => Value::Tuple(v.iter().map(Value::from_int_tuple).collect()),
        }
    }
}

impl From<Layout> for Value {
    fn from(l: Layout) -> Self {
        Value::Layout(l)
    }
}
impl From<Int> for Value {
    fn from(i: Int) -> Self {
        Value::Int(i)
    }
}

impl fmt::Display for Value {
    /// CuTe's `print` of the corresponding C++ object.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Underscore => f.write_str("_"),
            Value::Layout(l) => write!(f, "{l}"),
            Value::Atom(a) => write!(f, "{a}"),
            Value::Tuple(v) => crate::engine::int_tuple::write_tuple(f, v),
        }
    }
}
