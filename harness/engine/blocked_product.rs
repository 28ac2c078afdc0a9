//! `blocked_product(A, B)` for layouts (layout.hpp), and the helpers it shares with
//! `raked_product`.
//!
//! Definition (CuTe 4.2): with `R = max(rank A, rank B)`, both padded to rank `R` with `_1:_0`
//! modes, `P = logical_product(A', B')` (as whole layouts), and the result's mode `i` is
//! `(A'_i, P1_i)`, where `P1` is mode 1 of `P` (CuTe's `zip(A', P1)`).
//!
//! Before CUTLASS 3.8 ([`PRODUCTS_KEEP_MODES`]) each mode of the result was coalesced (the same
//! function, fewer modes); postcondition 1's "rank-2 modes" is then not checked.
//!
//! Postconditions of `blocked_product` / `raked_product` (checked by [`check_blocked`]; this module's [`check_postconditions`] is the blocked case):
//! 1. `rank(R) == max(rank A, rank B)` and each mode is rank 2 with `A`'s mode (padded) in
//!    position 0 (blocked) or 1 (raked).
//! 2. As a function `R` equals `logical_product(A', B')` with the mode pairs regrouped: for every
//!    `i < size(A')`, `j < size(B')`, `R` at the coordinate made of `A'`'s and `P1`'s
//!    coordinates mode by mode equals `A'(i) + P1(j)`.
//!
//! Sources: CuTe's [layout.hpp: blocked_product `@post rank(@a result) == cute::max(rank(@a block),
//! rank(@a tiler))`, and its defining code: zip of the block with logical_product(block, tiler)'s mode 1].

use super::coalesce::coalesce_by;
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::Layout;
use super::logical_product::{logical_product_layout, product_layout};
use super::postcondition::{Checked, Violation};
use super::release::{PRODUCTS_COALESCE_BY_A_TUPLE, PRODUCTS_KEEP_MODES};
use super::runtime::{deferred, Mode};
const CITE_BLOCKED: &str = "layout.hpp blocked_product/raked_product: @post rank(result) == max(rank(block), rank(tiler)); defined as zip of the block and logical_product(block, tiler)'s mode 1 (raked: the other order)";

/// CuTe's `append<R>(layout)`: pad with `_1:_0` modes up to rank `r` (a leaf layout of rank 1 is
/// left as it is when `r == 1`).
pub(crate) fn pad(l: &Layout, r: usize) -> Layout {
    if l.rank() >= r {
        return l.clone();
    }
    let mut m = l.modes();
    m.resize(r, Layout::leaf(Int::st(1), Int::st(0)));
    Layout::concat(&m)
}

pub(crate) fn block_raked(a: &Layout, b: &Layout, raked: bool) -> Result<Layout> {
    let r = a.rank().max(b.rank());
    let (ap, bp) = (pad(a, r), pad(b, r));
    let out = deferred(|| {
        let p = product_layout(&ap, &bp, Mode::Unchecked)?;
        let p1 = p.mode(1)?;
        let (first, second) = if raked { (p1, ap.clone()) } else { (ap.clone(), p1) };
        // CuTe's zip(first, second): a non-tuple first gives the single mode (first, second);
        // otherwise both must be tuples of one rank, zipped mode by mode.
        if !first.shape.is_tuple() {
            return Ok(Layout::concat(&[Layout::concat(&[first, second])]));
        }
        if !second.shape.is_tuple() || second.rank() != first.rank() {
            return Err(Error::MismatchedRanks { detail: format!("zip of {first} with {second}") });
        }
        let modes: Vec<Layout> =
            first.modes().into_iter().zip(second.modes()).map(|(x, y)| Layout::concat(&[x, y])).collect();
        Ok(Layout::concat(&modes))
    })?;
    // The definition checks come after CuTe's whole computation.
    logical_product_layout(&ap, &bp)?;
    if PRODUCTS_KEEP_MODES.on() {
        return Ok(out);
    }
    // Before 3.4 the profile was repeat<R>(_1), an integer for R = 1: the whole result coalesced
    // ([`PRODUCTS_COALESCE_BY_A_TUPLE`]).
    if r == 1 && !PRODUCTS_COALESCE_BY_A_TUPLE.on() {
        return super::coalesce::coalesce(&out);
    }
    // Before 3.8: coalesce(zip(...), tuple_repeat<R>(_1)), each mode coalesced on its own.
    coalesce_by(&out, &IntTuple::tuple(vec![IntTuple::st(1); r]))
}

/// `blocked_product(A, B)` for layouts.
pub fn blocked_product(a: &Layout, b: &Layout) -> Result<Layout> {
    block_raked(a, b, false)
}

/// Check the numbered postconditions of `blocked_product(A, B) == R` (`raked` false) or
/// `raked_product(A, B) == R` (`raked` true).
pub fn check_blocked(a: &Layout, b: &Layout, r: &Layout, raked: bool) -> Checked {
    let rank = a.rank().max(b.rank());
    let keeps_modes = PRODUCTS_KEEP_MODES.on();
    // Before 3.4 a rank-1 product is coalesced whole: any rank.
    let whole = rank == 1 && !PRODUCTS_COALESCE_BY_A_TUPLE.on();
    if (r.rank() != rank && !whole) || (keeps_modes && r.modes().iter().any(|m| m.rank() != 2)) {
        return Err(Violation::cute(CITE_BLOCKED, format!("1: {r} is not {rank} rank-2 modes")));
    }
    let ap = pad(a, rank);
    let ka = usize::from(raked);
    let p = logical_product_layout(&ap, &pad(b, rank))?;
    let p1 = p.mode(1)?;
    // The zipped parts: one per result mode (a leaf-shaped first operand of CuTe's zip pairs
    // with the whole of the other one).
    let by_mode = if raked { p1.shape.is_tuple() } else { ap.shape.is_tuple() };
    let parts = |l: &Layout| if by_mode { l.modes() } else { vec![l.clone()] };
    let (amodes, pmodes) = (parts(&ap), parts(&p1));
    let rm = r.modes();
    for (k, m) in amodes.iter().enumerate().filter(|_| keeps_modes) {
        if rm[k].mode(ka)? != *m {
            return Err(Violation::cute(
                CITE_BLOCKED,
                format!("1: mode {k} of {r} does not hold {m} in position {ka}"),
            ));
        }
    }
    // Split a 1-D index into one 1-D coordinate per part.
    let split = |ms: &[Layout], mut i: i64| -> Result<Vec<i64>> {
        let mut out = Vec::new();
        for m in ms {
            let n = m.size()?.value;
            out.push(i % n);
            i /= n;
        }
        Ok(out)
    };
    let (av, pv) = (ap.values()?, p1.values()?);
    for (i, &x) in av.iter().enumerate() {
        for (j, &y) in pv.iter().enumerate() {
            let (ci, cj) = (split(&amodes, i as i64)?, split(&pmodes, j as i64)?);
            // One 1-D coordinate per mode (valid for the pair modes and for coalesced ones).
            let mut coord = Vec::with_capacity(rank);
            for k in 0..rank {
                let (na, np) = (amodes[k].size()?.value, pmodes[k].size()?.value);
                coord.push(IntTuple::dy(if raked { cj[k] + np * ci[k] } else { ci[k] + na * cj[k] }));
            }
            let coord = if rank == 1 { coord.pop().expect("one mode") } else { IntTuple::tuple(coord) };
            let got = r.call(&coord)?.value;
            if got != x + y {
                return Err(Violation::cute(
                    CITE_BLOCKED,
                    format!("2: {r}{coord} = {got} but {ap}({i}) + {p1}({j}) = {}", x + y),
                ));
            }
        }
    }
    Ok(())
}

/// Check the numbered postconditions of `blocked_product(A, B) == R`.
pub fn check_postconditions(a: &Layout, b: &Layout, r: &Layout) -> Checked {
    check_blocked(a, b, r, false)
}
