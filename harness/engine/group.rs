//! `group<B,E>(x)`: modes `B..E` of an int tuple or a layout made one mode (the Blackwell
//! epilogue tutorial's `group<0,2>(sC_layout_mn)`, a TMA smem layout of one mode).
//!
//! Definitions (CuTe 4.2 and 4.7):
//! - algorithm/tuple_algorithms.hpp `group<B,E>(t)`: for a tuple of rank `R`, `E == -1` is
//!   `E = R`; with `B <= E` the result is `(t_0, ..., t_{B-1}, (t_B, ..., t_{E-1}), t_E, ...,
//!   t_{R-1})`, the grouped mode present only when `B < E` (`make_seq<(B < E)>`); `B > E` is the
//!   `static_assert(B <= E)`. A non-tuple is a rank-1 tuple (`E == -1` is `group<B,1>`). The
//!   modes are `take<B,E>(t)`, whose `static_assert(0 <= B && B <= E && E <= R)` refuses an `E`
//!   past the rank.
//! - layout.hpp `group<B,E>(Layout) = make_layout(group<B,E>(shape), group<B,E>(stride))`.
//! - layout_composed.hpp `group<B,E>(ComposedLayout<A,O,L>) = composition(A, O, group<B,E>(L))`:
//!   the swizzle and offset kept, the inner layout grouped.
//!
//! Postconditions (checked by [`check_postconditions`]; property tests below):
//! 1. The result has the same leaves, in the same order, as the input (shape and stride), so the
//!    same layout function (`group` only re-nests modes).
//! 2. Its rank is `R - (E - B) + [B < E]`, and for `B < E` its mode `B` is the tuple of the
//!    input's modes `B..E`; the modes before `B` and from `E` on are the input's.

use super::error::{Error, Result};
use super::int_tuple::{IntTuple, Tup};
use super::layout::Layout;
use super::postcondition::{Checked, Violation};

const CITE: &str = "tuple_algorithms.hpp group<B,E>: (t_0..t_{B-1}, (t_B..t_{E-1}), t_E..), layout.hpp and layout_composed.hpp apply it to shape and stride";

/// `E` resolved (`-1` is the rank) and checked as CuTe's static_asserts check it.
fn bounds(rank: usize, b: i64, e: i64) -> Result<(usize, usize)> {
    let e = if e == -1 { rank as i64 } else { e };
    if b > e {
        return Err(Error::Rejected { condition: "static_assert(B <= E)", detail: format!("group<{b},{e}>") });
    }
    if b < 0 || e > rank as i64 {
        return Err(Error::Rejected {
            condition: "static_assert(0 <= B && B <= E && E <= tuple_size<T>::value) (take<B,E>)",
            detail: format!("group<{b},{e}> of a rank-{rank} tuple"),
        });
    }
    Ok((b as usize, e as usize))
}

/// `group<B,E>(t)` of an int tuple.
pub fn group_tuple(t: &Tup, b: i64, e: i64) -> Result<IntTuple> {
    let modes: Vec<&Tup> = t.modes().iter().collect();
    let (b, e) = bounds(modes.len(), b, e)?;
    let mut out: Vec<IntTuple> = modes[..b].iter().map(|m| (*m).to_owned()).collect();
    if b < e {
        out.push(IntTuple::tuple_of(modes[b..e].iter().copied()));
    }
    out.extend(modes[e..].iter().map(|m| (*m).to_owned()));
    Ok(IntTuple::tuple(out))
}

/// `group<B,E>(L)` of a layout.
pub fn group(l: &Layout, b: i64, e: i64) -> Result<Layout> {
    Layout::new(group_tuple(&l.shape, b, e)?, group_tuple(&l.stride, b, e)?)
}

/// The numbered postconditions above.
pub fn check_postconditions(l: &Layout, b: i64, e: i64, r: &Layout) -> Checked {
    if r.shape.leaves() != l.shape.leaves() || r.stride.leaves() != l.stride.leaves() {
        return Err(Violation::cute(CITE, format!("1: the leaves of {r} are not those of {l}")));
    }
    let rank = l.rank();
    let e = if e == -1 { rank as i64 } else { e };
    let (b, e) = (b as usize, e as usize);
    let want = rank - (e - b) + usize::from(b < e);
    if r.rank() != want {
        return Err(Violation::cute(CITE, format!("2: {r} has rank {}, not {want}", r.rank())));
    }
    let (lm, rm) = (l.modes(), r.modes());
    let kept = lm[..b].iter().zip(&rm[..b]).all(|(x, y)| x == y)
        && lm[e..].iter().zip(&rm[want - (rank - e)..]).all(|(x, y)| x == y);
    let grouped = b == e || rm[b] == Layout::concat(&lm[b..e]);
    if !kept || !grouped {
        return Err(Violation::cute(CITE, format!("2: the modes of {r} are not those of {l} grouped {b}..{e}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, Staticness};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Both postconditions hold for every admissible B, E; the layout function is unchanged.
        #[test]
        fn every_postcondition_holds(l in gen::layout(2, 8, 64, Staticness::Mixed), b in 0i64..4, len in -1i64..4) {
            let rank = l.rank() as i64;
            let e = if len == -1 { -1 } else { b + len };
            let r = group(&l, b, e);
            let e_res = if e == -1 { rank } else { e };
            if b > e_res || e_res > rank {
                prop_assert!(r.is_err());
            } else {
                let r = r.unwrap();
                prop_assert!(check_postconditions(&l, b, e, &r).is_ok(), "{:?}", check_postconditions(&l, b, e, &r));
                if l.shape.is_static() {
                    prop_assert_eq!(r.values().unwrap(), l.values().unwrap());
                }
            }
        }

        /// A result whose grouped mode is left ungrouped fails postcondition 2.
        #[test]
        fn an_ungrouped_result_fails(l in gen::layout(2, 8, 64, Staticness::AllStatic)) {
            prop_assume!(l.rank() >= 2);
            prop_assert!(check_postconditions(&l, 0, 2, &l).is_err());
        }
    }

    #[test]
    fn the_tutorials_smem_layout() {
        let st = |v: &[i64]| IntTuple::of_leaves(v.iter().map(|&x| crate::int::Int::st(x)));
        let l = Layout::new(
            IntTuple::tuple([st(&[8, 16]), st(&[32, 2])]),
            IntTuple::tuple([st(&[32, 256]), st(&[1, 4096])]),
        )
        .unwrap();
        assert_eq!(group(&l, 0, 2).unwrap().to_string(), "(((_8,_16),(_32,_2))):(((_32,_256),(_1,_4096)))");
        assert_eq!(group(&l, 1, 1).unwrap(), l);
        assert!(group(&l, 1, 0).unwrap_err().to_string().contains("B <= E"));
        assert!(group(&l, 0, 3).unwrap_err().to_string().contains("take<B,E>"));
    }
}
