//! Nested tuples of integers (CuTe's IntTuple): shapes, strides and coordinates.
//!
//! An [`IntTuple`] is either one [`Int`] leaf or a tuple of IntTuples. Printing follows CuTe's
//! `print`: no spaces, 1-tuples keep their parentheses (`(_4)`), the empty tuple is `()`.

use std::fmt;

use super::error::{Error, Result};
use super::int::Int;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum IntTuple {
    Leaf(Int),
    Tuple(Vec<IntTuple>),
}

impl From<Int> for IntTuple {
    fn from(i: Int) -> Self {
        IntTuple::Leaf(i)
    }
}

impl IntTuple {
    /// A static leaf `_v`.
    pub fn st(v: i64) -> IntTuple {
        IntTuple::Leaf(Int::st(v))
    }
    /// A dynamic leaf `v`.
    pub fn dy(v: i64) -> IntTuple {
        IntTuple::Leaf(Int::dy(v))
    }
    pub fn tuple(items: impl IntoIterator<Item = IntTuple>) -> IntTuple {
        IntTuple::Tuple(items.into_iter().collect())
    }
    pub fn is_tuple(&self) -> bool {
        matches!(self, IntTuple::Tuple(_))
    }
    pub fn as_leaf(&self) -> Option<Int> {
        match self {
            IntTuple::Leaf(i) => Some(*i),
            IntTuple::Tuple(_) => None,
        }
    }
    /// Top-level modes: a leaf is its own single mode (CuTe: `get<0>(x) == x` for an integer).
    pub fn modes(&self) -> &[IntTuple] {
        match self {
            IntTuple::Leaf(_) => std::slice::from_ref(self),
            IntTuple::Tuple(v) => v,
        }
    }
    /// CuTe's `rank`: 1 for a leaf, the number of top-level elements for a tuple.
    pub fn rank(&self) -> usize {
        match self {
            IntTuple::Leaf(_) => 1,
            IntTuple::Tuple(v) => v.len(),
        }
    }
    /// CuTe's `depth`: 0 for a leaf, 1 + the largest depth of the elements for a tuple.
    pub fn depth(&self) -> usize {
        match self {
            IntTuple::Leaf(_) => 0,
            IntTuple::Tuple(v) => 1 + v.iter().map(IntTuple::depth).max().unwrap_or(0),
        }
    }
    /// Mode `i` (CuTe's `get<i>`).
    pub fn mode(&self, i: usize) -> Result<&IntTuple> {
        self.modes().get(i).ok_or_else(|| Error::OutOfRange(format!("mode {i} of {self}")))
    }
    /// All leaves, depth first (CuTe's `flatten` followed by iteration).
    pub fn leaves(&self) -> Vec<Int> {
        let mut out = Vec::new();
        self.push_leaves(&mut out);
        out
    }
    fn push_leaves(&self, out: &mut Vec<Int>) {
        match self {
            IntTuple::Leaf(i) => out.push(*i),
            IntTuple::Tuple(v) => v.iter().for_each(|x| x.push_leaves(out)),
        }
    }
    /// CuTe's `flatten`: a leaf stays a leaf; a tuple becomes the tuple of its leaves.
    pub fn flatten(&self) -> IntTuple {
        match self {
            IntTuple::Leaf(_) => self.clone(),
            IntTuple::Tuple(_) => IntTuple::Tuple(self.leaves().into_iter().map(IntTuple::Leaf).collect()),
        }
    }
    /// CuTe's `product`/`size` of an int tuple: the product of all leaves; `_1` for `()`.
    pub fn product(&self) -> Result<Int> {
        self.fold_product(Ok(Int::st(1)))
    }
    /// `acc` times every leaf, depth first (the fold of [`IntTuple::product`], without allocating).
    pub fn fold_product(&self, acc: Result<Int>) -> Result<Int> {
        match self {
            IntTuple::Leaf(i) => acc?.mul(*i),
            IntTuple::Tuple(v) => v.iter().fold(acc, |acc, x| x.fold_product(acc)),
        }
    }
    /// Same nesting structure (CuTe's `congruent`).
    pub fn congruent(&self, other: &IntTuple) -> bool {
        match (self, other) {
            (IntTuple::Leaf(_), IntTuple::Leaf(_)) => true,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }
    /// CuTe's `weakly_congruent(self, other)`: `self` is a coarser structure of `other`
    /// (a leaf of `self` may stand for a whole subtree of `other`).
    pub fn weakly_congruent(&self, other: &IntTuple) -> bool {
        match (self, other) {
            (IntTuple::Leaf(_), _) => true,
            (IntTuple::Tuple(_), IntTuple::Leaf(_)) => false,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.weakly_congruent(y))
            }
        }
    }
    /// Rebuild a tuple of the same structure as `self` from a flat list of leaves.
    pub fn unflatten_like(&self, flat: &[Int]) -> Result<IntTuple> {
        let mut it = flat.iter().copied();
        let out = self.rebuild(&mut it)?;
        if it.next().is_some() {
            return Err(Error::MismatchedRanks { detail: format!("too many leaves for {self}") });
        }
        Ok(out)
    }
    fn rebuild(&self, it: &mut impl Iterator<Item = Int>) -> Result<IntTuple> {
        match self {
            IntTuple::Leaf(_) => it
                .next()
                .map(IntTuple::Leaf)
                .ok_or_else(|| Error::MismatchedRanks { detail: format!("too few leaves for {self}") }),
            IntTuple::Tuple(v) => Ok(IntTuple::Tuple(v.iter().map(|x| x.rebuild(it)).collect::<Result<_>>()?)),
        }
    }
    /// Apply `f` to every leaf, keeping the structure.
    pub fn map_leaves(&self, f: &mut impl FnMut(Int) -> Result<Int>) -> Result<IntTuple> {
        match self {
            IntTuple::Leaf(i) => Ok(IntTuple::Leaf(f(*i)?)),
            IntTuple::Tuple(v) => Ok(IntTuple::Tuple(v.iter().map(|x| x.map_leaves(f)).collect::<Result<_>>()?)),
        }
    }
    /// True when every leaf is static.
    pub fn is_static(&self) -> bool {
        match self {
            IntTuple::Leaf(i) => i.is_static,
            IntTuple::Tuple(v) => v.iter().all(IntTuple::is_static),
        }
    }
    /// CuTe's `compact_col_major(shape, current)` (LayoutLeft): the exclusive prefix product of the
    /// leaves in colexicographic order, starting from `current` (`_1` for default strides), with
    /// the structure of `self`. Static-ness follows the arithmetic: `(1,8)` gives `(_1,1)`.
    pub fn compact_col_major(&self, current: Int) -> Result<IntTuple> {
        if let IntTuple::Leaf(n) = self {
            // The loop below on one leaf, without the buffers.
            return Ok(IntTuple::Leaf(if n.is_static_value(1) { Int::st(0) } else { current }));
        }
        // The product after the last leaf is never needed (and may overflow where CuTe's doesn't).
        let leaves = self.leaves();
        let mut strides = Vec::with_capacity(leaves.len());
        let mut acc = current;
        for (k, n) in leaves.iter().enumerate() {
            if n.is_static_value(1) {
                strides.push(Int::st(0)); // CuTe (stride.hpp): a static _1 extent gets stride _0
                continue;
            }
            strides.push(acc);
            if k + 1 < leaves.len() {
                acc = acc.mul(*n)?;
            }
        }
        self.unflatten_like(&strides)
    }
    /// CuTe's `compact_row_major(shape, current)` (LayoutRight): the prefix product taken from the
    /// last leaf backwards.
    pub fn compact_row_major(&self, current: Int) -> Result<IntTuple> {
        let leaves = self.leaves();
        let mut strides = vec![current; leaves.len()];
        let mut acc = current;
        for (k, n) in leaves.iter().enumerate().rev() {
            if n.is_static_value(1) {
                strides[k] = Int::st(0); // CuTe (stride.hpp): a static _1 extent gets stride _0
                continue;
            }
            strides[k] = acc;
            if k > 0 {
                acc = acc.mul(*n)?;
            }
        }
        self.unflatten_like(&strides)
    }
}

/// CuTe's print of a tuple: `(a,b,c)`, no spaces, 1-tuples keep their parentheses, `()` empty.
/// Every tuple-like value (int tuples, tilers, expression values) prints through this.
pub fn write_tuple<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: impl IntoIterator<Item = T>) -> fmt::Result {
    f.write_str("(")?;
    for (k, x) in items.into_iter().enumerate() {
        if k > 0 {
            f.write_str(",")?;
        }
        x.fmt(f)?;
    }
    f.write_str(")")
}

impl fmt::Display for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntTuple::Leaf(i) => i.fmt(f),
            IntTuple::Tuple(v) => write_tuple(f, v),
        }
    }
}

/// CuTe's `compatible(a, b)` (int_tuple.hpp): `a` a leaf and equal sizes, or both tuples of one rank with
/// compatible modes.
pub fn compatible(a: &IntTuple, b: &IntTuple) -> bool {
    match (a, b) {
        (IntTuple::Leaf(x), IntTuple::Leaf(y)) => x.value == y.value,
        (IntTuple::Leaf(_), _) => match (a.product(), b.product()) {
            (Ok(x), Ok(y)) => x.value == y.value,
            _ => false,
        },
        (IntTuple::Tuple(x), IntTuple::Tuple(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| compatible(p, q)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_keeps_one_tuples() {
        assert_eq!(IntTuple::tuple([IntTuple::st(4)]).to_string(), "(_4)");
        assert_eq!(IntTuple::tuple([]).to_string(), "()");
        let t = IntTuple::tuple([IntTuple::dy(4), IntTuple::tuple([IntTuple::st(2), IntTuple::dy(4)])]);
        assert_eq!(t.to_string(), "(4,(_2,4))");
        assert_eq!(t.rank(), 2);
        assert_eq!(t.depth(), 2);
        assert_eq!(t.product().unwrap(), Int::dy(32));
    }

    #[test]
    fn compact_strides_follow_static_rules() {
        let s = IntTuple::tuple([IntTuple::dy(1), IntTuple::dy(8)]);
        assert_eq!(s.compact_col_major(Int::st(1)).unwrap().to_string(), "(_1,1)");
        let s = IntTuple::tuple([IntTuple::st(4), IntTuple::st(8)]);
        assert_eq!(s.compact_row_major(Int::st(1)).unwrap().to_string(), "(_8,_1)");
    }
}
