//! `cute::lazy::transform(T, fn)` (algorithm/tensor_algorithms.hpp, CUTLASS 4.0 and later) of a
//! coordinate tensor with the one predicate kernels give it: `[&](auto c) { return elem_less(c,
//! shape_S); }` (the tiled_copy_if tutorial's `P`, which guards its copies). The language cannot
//! write a lambda, so the predicate is named: [`Predicate::ElemLess`].
//!
//! Definitions (CUTLASS 4.0 to 4.7, tensor_algorithms.hpp and pointer_base.hpp):
//! 1. `lazy::transform(t, fn) = make_tensor(make_transform_iter(fn, t.data()), t.layout())`: the
//!    layout is the tensor's, the iterator wraps the tensor's.
//! 2. `transform_iter + i` is `transform_iter{fn, ptr + i}` and `*it` is `fn(*ptr)`: a tile, thread
//!    part or slice of the transform tensor is the transform tensor of the same part of the inner
//!    tensor (tensor_impl.hpp's partitions only add offsets to the iterator and compute layouts).
//! 3. `print(transform_iter)` is `"trans_"` then the inner iterator's print:
//!    `trans_ArithTuple(_0,_0) o (528,300):(_1@0,_1@1)`.
//! 4. `elem_less(a, b)` (int_tuple.hpp): for integers `a < b`; for tuples every mode of `a` is
//!    `elem_less` than the mode of `b` at its place, `a` may be shorter (true once `a` is
//!    exhausted) but not longer (false once `b` is).
//! 5. Before 4.0 there is no `cute::lazy` namespace ([`crate::release::LAZY_TRANSFORM_DECLARED`]).
//!
//! Postcondition (tests/identity_tensor.rs, property test): element `j` of a part of
//! `lazy_transform_elem_less(C, S)` is `elem_less(C'(j), S)` for the same part `C'` of `C`, so over
//! `make_identity_tensor(S')` tiled by `B` the block at `(bx, by)` holds exactly
//! `min(B_m, S_m - bx B_m) * min(B_n, S_n - by B_n)` true elements where `S = S'` (the in-bounds
//! coordinates the tutorial's predicate admits).

use std::fmt;

use super::coord_tensor::CoordTensor;
use super::error::{Error, Result};
use super::int_tuple::{IntTuple, Tup, View};
use super::scaled_basis::BasisValue;

/// The predicates a transform tensor is made with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Predicate {
    /// `[&](auto c) { return elem_less(c, shape); }`.
    ElemLess(IntTuple),
}

/// `make_tensor(make_transform_iter(fn, t.data()), t.layout())` of a coordinate tensor `t`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransformTensor {
    pub inner: CoordTensor,
    pub pred: Predicate,
}

impl fmt::Display for TransformTensor {
    /// Definition 3.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trans_{}", self.inner)
    }
}

/// `cute::lazy::transform(t, pred)` (definitions 1 and 5).
pub fn lazy_transform(t: &CoordTensor, pred: Predicate) -> Result<TransformTensor> {
    if !super::release::LAZY_TRANSFORM_DECLARED.on() {
        return Err(Error::Rejected {
            condition: "'lazy' is not a member of 'cute'",
            detail: format!("cute::lazy::transform is new in CUTLASS 4.0 (modelled: {})", super::release::current()),
        });
    }
    Ok(TransformTensor { inner: t.clone(), pred })
}

/// `elem_less(a, b)` (definition 4).
pub fn elem_less(a: &BasisValue, b: &Tup) -> Result<bool> {
    match (a.as_arithmetic_tuple(), b.view()) {
        (BasisValue::Int(x), View::Leaf(y)) => Ok(x.value < y.value),
        (BasisValue::Tuple(xs), View::Tuple(ys)) => {
            for i in 0.. {
                if i == xs.len() {
                    return Ok(true);
                }
                if i == ys.len() {
                    return Ok(false);
                }
                if !elem_less(&xs[i], &ys[i])? {
                    return Ok(false);
                }
            }
            unreachable!("the loop returns")
        }
        (x, _) => Err(Error::Type(format!("elem_less of {x} and {b}: a tuple against an integer"))),
    }
}

impl TransformTensor {
    /// The same part of the inner tensor, transformed (definition 2).
    pub fn map(&self, part: impl FnOnce(&CoordTensor) -> Result<CoordTensor>) -> Result<TransformTensor> {
        Ok(TransformTensor { inner: part(&self.inner)?, pred: self.pred.clone() })
    }

    /// `T(i)`: the predicate of the inner tensor's element `i` (definition 2).
    pub fn at_index(&self, i: i64) -> Result<bool> {
        let c = self.inner.at_index(i)?;
        match &self.pred {
            Predicate::ElemLess(s) => elem_less(&c, s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coord_tensor::make_identity_tensor;
    use crate::test_util::tup;

    #[test]
    fn the_tutorials_predicate_tensor_prints_as_cute() {
        // tiled_copy_if.cu: P = lazy::transform(make_identity_tensor(shape_S), elem_less(_, shape_S)).
        let c = make_identity_tensor(&tup("(528,300)")).unwrap();
        let p = lazy_transform(&c, Predicate::ElemLess(tup("(528,300)"))).unwrap();
        assert_eq!(p.to_string(), "trans_ArithTuple(_0,_0) o (528,300):(_1@0,_1@1)");
        assert!(p.at_index(0).unwrap());
        let q = lazy_transform(&c, Predicate::ElemLess(tup("(500,300)"))).unwrap();
        assert!(!q.at_index(527).unwrap());
        assert!(q.at_index(499).unwrap());
        // elem_less: a shorter tuple is less once exhausted, a longer one is not.
        assert!(elem_less(&BasisValue::Tuple(vec![]), &tup("(1,2)")).unwrap());
        assert!(elem_less(&c.at_index(0).unwrap(), &tup("(1)")).is_ok_and(|x| !x));
    }
}
