//! Tilers: what CuTe's by-mode operations (composition, divides, products, local_tile) accept as
//! their second argument.
//!
//! A tiler is a layout, an integer `n` (meaning the layout `n:_1`, with `n`'s static-ness), the
//! underscore `_` (leave this mode alone), or a tuple of tilers applied mode by mode (a shape such as
//! `(_2,_2)` is a tuple of integers). Printing follows CuTe's `print` of the corresponding C++
//! object: `_4:_2`, `_2`, `_`, `(_2,_4:_2,_)`.

use std::fmt;

use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::{IntTuple, Tup, View};
use super::layout::Layout;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tiler {
    Layout(Layout),
    /// `n`, standing for the layout `n:_1`.
    Int(Int),
    /// `_`: the mode is left as it is.
    Underscore,
    /// Mode-by-mode tilers.
    Tuple(Vec<Tiler>),
}

impl Tiler {
    /// A shape used as a tiler: each leaf `n` becomes the tiler `n` (the layout `n:_1`).
    pub fn from_shape(shape: &Tup) -> Tiler {
        match shape.view() {
            View::Leaf(i) => Tiler::Int(i),
            View::Tuple(v) => Tiler::Tuple(v.iter().map(Tiler::from_shape).collect()),
        }
    }

    /// A tiler that is not a tuple as the layout it stands for (`n` is `make_layout(n)`: `n:_1`,
    /// or `_1:_0` for the static `_1`); `None` for `_` and tuples.
    pub fn as_layout(&self) -> Option<Layout> {
        match self {
            Tiler::Layout(l) => Some(l.clone()),
            Tiler::Int(n) => Some(Layout::leaf(*n, if n.is_static_value(1) { Int::st(0) } else { Int::st(1) })),
            _ => None,
        }
    }

    /// CuTe's `make_layout(tiler)` for a tuple of layouts/ints: each mode's layout side by side.
    /// `_` has no layout form and is refused.
    pub fn to_layout(&self) -> Result<Layout> {
        match self {
            Tiler::Tuple(v) => Ok(Layout::concat(&v.iter().map(Tiler::to_layout).collect::<Result<Vec<_>>>()?)),
            Tiler::Underscore => Err(Error::Type("_ has no layout form".into())),
            t => Ok(t.as_layout().expect("layout or int")),
        }
    }

    /// CuTe's `shape(tiler)` after `make_layout`: the guide for `zip2_by` in zipped divides.
    pub fn is_tuple(&self) -> bool {
        matches!(self, Tiler::Tuple(_))
    }
}

/// CuTe's `compact_major<LayoutLeft>(shape, current)` (stride.hpp): exclusive prefix products of
/// the extents starting from `current`, except that a static `_1` extent gets the stride `_0`.
pub fn compact_col_major(shape: &Tup, current: Int) -> Result<IntTuple> {
    shape.compact_col_major(current)
}

/// A tiler as the small paths read it, borrowed (the builtins hand it over without building a
/// [`Tiler`]): one element, or a tuple of them.
#[derive(Clone, Copy)]
pub enum TilerView<'a> {
    One(Elem<'a>),
    Tuple(&'a [Elem<'a>]),
}

/// An element of a [`TilerView`]: a layout, or an integer `n` (the layout `make_layout(n)`).
#[derive(Clone, Copy)]
pub enum Elem<'a> {
    Layout(&'a Layout),
    Int(Int),
}

impl<'a> Elem<'a> {
    /// The layout it stands for, as [`Tiler::as_layout`] (`n:_1`, or `_1:_0` for `_1`).
    pub fn layout(self) -> std::borrow::Cow<'a, Layout> {
        match self {
            Elem::Layout(l) => std::borrow::Cow::Borrowed(l),
            Elem::Int(n) => std::borrow::Cow::Owned(Tiler::Int(n).as_layout().expect("an integer")),
        }
    }
}

impl Tiler {
    /// This tiler as an [`Elem`], where it is a layout or an integer.
    pub fn elem(&self) -> Option<Elem<'_>> {
        match self {
            Tiler::Layout(l) => Some(Elem::Layout(l)),
            Tiler::Int(n) => Some(Elem::Int(*n)),
            _ => None,
        }
    }
}

impl From<Layout> for Tiler {
    fn from(l: Layout) -> Self {
        Tiler::Layout(l)
    }
}

impl fmt::Display for Tiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tiler::Layout(l) => write!(f, "{l}"),
            Tiler::Int(i) => write!(f, "{i}"),
            Tiler::Underscore => f.write_str("_"),
            Tiler::Tuple(v) => crate::int_tuple::write_tuple(f, v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_col_major_like_cute() {
        // Real CuTe 4.2 (g++ probe): make_layout((_1,_4)) = (_1,_4):(_0,_1),
        // make_layout((_4,_1,_2)) = (_4,_1,_2):(_1,_0,_4), make_layout((1,_4)) = (1,_4):(_1,1).
        let s = |t: &[IntTuple]| IntTuple::tuple(t.iter().cloned());
        let d = |t: IntTuple| compact_col_major(&t, Int::st(1)).unwrap().to_string();
        assert_eq!(d(s(&[IntTuple::st(1), IntTuple::st(4)])), "(_0,_1)");
        assert_eq!(d(s(&[IntTuple::st(4), IntTuple::st(1), IntTuple::st(2)])), "(_1,_0,_4)");
        assert_eq!(d(s(&[IntTuple::dy(1), IntTuple::st(4)])), "(_1,1)");
        assert_eq!(Tiler::Int(Int::st(1)).as_layout().unwrap().to_string(), "_1:_0");
    }

    #[test]
    fn prints_like_cute() {
        // CuTe prints a tuple of a layout, an Int and an Underscore as (_4:_2,_2,_).
        let t = Tiler::Tuple(vec![
            Tiler::Layout(Layout::leaf(Int::st(4), Int::st(2))),
            Tiler::Int(Int::st(2)),
            Tiler::Underscore,
        ]);
        assert_eq!(t.to_string(), "(_4:_2,_2,_)");
        assert_eq!(Tiler::from_shape(&IntTuple::tuple([IntTuple::st(2), IntTuple::dy(3)])).to_string(), "(_2,3)");
    }
}
