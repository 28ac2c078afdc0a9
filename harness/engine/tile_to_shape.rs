//! `tile_to_shape(block, trg_shape[, ord_shape])` (layout.hpp) and the ordered layout it tiles
//! with, `make_ordered_layout(shape, order)` (layout.hpp, through stride.hpp's `compact_order`).
//!
//! Definition (CuTe 4.2, cute/layout.hpp `tile_to_shape`): with `R = rank(trg_shape)`
//! (`static_assert` "Rank of layout must be <= rank of target shape." when `rank(block) > R`),
//! `padded = append<R>(block)` (`_1:_0` modes), `block_shape = product_each(shape(padded))`,
//! `target_shape = product_each(trg_shape)`; where `target_shape` is static, every mode of the
//! block must divide it ("tile_to_shape: block shape does not divide the target shape."; a
//! dynamic block mode against a static target has no static answer: CuTe does not compile it);
//! `product_shape = ceil_div(target_shape, block_shape)` mode by mode, and the result is
//! `blocked_product(padded, make_ordered_layout(product_shape, ord_shape))`. The default order
//! is `LayoutLeft` (column-major: the block repeats along mode 0 first); `GenRowMajor` /
//! `LayoutRight` repeats along the last mode first; a `Step<...>` order repeats along the mode
//! with the smallest step first.
//!
//! `make_ordered_layout(shape, order) = make_layout(shape, compact_order(shape, order))`
//! (stride.hpp): each leaf `o` of `order` (weakly congruent to `shape`; "Need equal rank of shape
//! and order") gets the compact column-major strides of its part of `shape`, starting at the
//! product of the sizes of the parts whose order is smaller; dynamic orders count as larger than
//! every static one, in their left-to-right order. A static `_1` extent gets stride `_0`.
//!
//! CUTLASS 3.3 checks divisibility otherwise: `sum(transform(target_shape, block_shape,
//! modulus{})) == _0` static_asserted for every target ("Layout shape does not divide the target
//! shape."), so a run-time remainder does not compile
//! ([`super::release::TILE_TO_SHAPE_CHECKS_STATIC_TARGETS_ONLY`]; v3.3.0 layout.hpp tile_to_shape).
//!
//! Before CUTLASS 3.8 the result was coalesced by `product_shape` (each mode coalesced on its own),
//! which is what the blocked product of those releases did itself
//! ([`super::release::PRODUCTS_KEEP_MODES`]); a swizzled or composed block
//! (`ComposedLayout<A,O,B>`, layout_composed.hpp) keeps `A` and `O`: `composition(A, O,
//! tile_to_shape(B, trg_shape, ord_shape))` (the expression language's composed-layout rule).
//!
//! Postconditions (checked by [`check_postconditions`]):
//! 1. `rank(R) == rank(trg_shape)` [layout.hpp: blocked_product's `@post rank(result) ==
//!    max(rank(block), rank(tiler))`, the tiler being rank R];
//! 2. the size of mode i of R is `product(block_i) * ceil_div(product(trg_i), product(block_i))`,
//!    hence `product(trg_i)` when the block divides the target [layout.hpp tile_to_shape: `@post
//!    compatible(trg_shape, shape(result))` in size];
//! 3. R is `blocked_product(padded, O)` as a function, with `O =
//!    make_ordered_layout(product_shape, ord_shape)` [layout.hpp tile_to_shape's defining code;
//!    checked by [`super::blocked_product::check_blocked`]];
//! 4. where the orders are distinct (column- or row-major, or a Step with distinct static steps),
//!    `O` is compact: a bijection of `0..size(O)`, and a mode with a smaller order has a smaller
//!    stride [layout.hpp make_ordered_layout: "Make a compact layout with shape @a shape and
//!    strides following the order induced by @a order"].

use super::blocked_product::{blocked_product, check_blocked, pad};
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::{IntTuple, Tup, View};
use super::layout::Layout;
use super::postcondition::{Checked, Violation};
use super::product_each::product_each;

const CITE: &str = "layout.hpp tile_to_shape: blocked_product(append<R>(block), make_ordered_layout(ceil_div(product_each(trg_shape), product_each(shape(block))), ord_shape)); @post compatible(trg_shape, shape(result))";
const CITE_ORDERED: &str =
    "layout.hpp make_ordered_layout: a compact layout with strides following the order induced by @a order";

/// The mode order of `tile_to_shape` / `make_ordered_layout`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// `LayoutLeft` / `GenColMajor` (the default).
    ColMajor,
    /// `LayoutRight` / `GenRowMajor`.
    RowMajor,
    /// A `Step<...>` (any int tuple, static or dynamic leaves).
    Steps(IntTuple),
}

/// CuTe's `compact_order(shape, order)` for a `Step` order (stride.hpp).
pub fn compact_order(shape: &Tup, order: &Tup) -> Result<IntTuple> {
    // Pair each leaf of `order` with the product of its part of `shape`.
    let mut parts: Vec<(Int, Int)> = Vec::new();
    pair_leaves(shape, order, &mut parts)?;
    let max_order = parts.iter().filter(|(_, o)| o.is_static).map(|(_, o)| o.value).fold(0, i64::max);
    let ref_order: Vec<i64> = parts
        .iter()
        .enumerate()
        .map(|(k, (_, o))| if o.is_static { o.value } else { max_order + 1 + k as i64 })
        .collect();
    let mut k = 0usize;
    build_strides(shape, order, &parts, &ref_order, &mut k)
}

fn pair_leaves(shape: &Tup, order: &Tup, out: &mut Vec<(Int, Int)>) -> Result<()> {
    match order.view() {
        View::Leaf(o) => out.push((shape.product()?, o)),
        View::Tuple(os) => {
            let View::Tuple(ss) = shape.view() else {
                return Err(Error::MismatchedRanks {
                    detail: format!("Need equal rank of shape and order: {shape} vs {order}"),
                });
            };
            if ss.len() != os.len() {
                return Err(Error::MismatchedRanks {
                    detail: format!("Need equal rank of shape and order: {shape} vs {order}"),
                });
            }
            for (s, o) in ss.iter().zip(os.iter()) {
                pair_leaves(s, o, out)?;
            }
        }
    }
    Ok(())
}

fn build_strides(shape: &Tup, order: &Tup, parts: &[(Int, Int)], ref_order: &[i64], k: &mut usize) -> Result<IntTuple> {
    match order.view() {
        View::Leaf(_) => {
            let me = ref_order[*k];
            *k += 1;
            // CuTe's product(transform(ref_shape, ref_order, o < order ? s : _1)): a fold from _1.
            let mut start = Int::st(1);
            for ((s, _), &o) in parts.iter().zip(ref_order) {
                start = start.mul(if o < me { *s } else { Int::st(1) })?;
            }
            shape.compact_col_major(start)
        }
        View::Tuple(os) => {
            let ss = shape.modes();
            let items: Vec<IntTuple> = ss
                .iter()
                .zip(os.iter())
                .map(|(s, o)| build_strides(s, o, parts, ref_order, k))
                .collect::<Result<_>>()?;
            Ok(IntTuple::tuple(items))
        }
    }
}

/// CuTe's `make_ordered_layout(shape, order)` (and `make_layout(shape, LayoutLeft/LayoutRight)`).
pub fn make_ordered_layout(shape: &Tup, order: &Order) -> Result<Layout> {
    match order {
        Order::ColMajor => Layout::col_major(shape.to_owned()),
        Order::RowMajor => Layout::row_major(shape.to_owned()),
        Order::Steps(o) => Ok(Layout { shape: shape.to_owned(), stride: compact_order(shape, o)? }),
    }
}

/// The parts of `tile_to_shape` that the result and its check share: the padded block and the
/// ordered layout it is tiled with.
fn parts(block: &Layout, trg: &Tup, order: &Order) -> Result<(Layout, Layout)> {
    let r = trg.rank();
    if block.rank() > r {
        return Err(Error::Rejected {
            condition: "Rank of layout must be <= rank of target shape.",
            detail: format!("{block} to {trg}"),
        });
    }
    if let (Order::Steps(o), false) = (order, super::release::DYNAMIC_MODE_ORDER.on()) {
        // Before 3.5 compact_order's conditional_return(o < order, product(s), _1) with a dynamic
        // comparison returns two types: an order with a dynamic leaf does not compile.
        if o.leaves().iter().any(|x| !x.is_static) {
            return Err(Error::Rejected {
                condition: "inconsistent deduction for auto return type (conditional_return of a dynamic mode order)",
                detail: format!("tile_to_shape's order {o} before CUTLASS 3.5"),
            });
        }
    }
    let padded = pad(block, r);
    let block_shape = product_each(&padded.shape)?;
    let target_shape = product_each(trg)?;
    let (bs, ts) = (block_shape.leaves(), target_shape.leaves());
    if !super::release::TILE_TO_SHAPE_CHECKS_STATIC_TARGETS_ONLY.on() {
        // CuTe 3.3: `sum(transform(target_shape, block_shape, modulus{})) == _0` is static_asserted
        // whatever the target. `t % b` is static when both are, when b is a static `_1` and when t
        // is a static `_0` (integral_constant.hpp's mixed special cases); any other run-time term
        // makes the sum a run-time bool, which CUTE_STATIC_ASSERT_V cannot read.
        let static_term =
            |b: &Int, t: &Int| (b.is_static && t.is_static) || b.is_static_value(1) || t.is_static_value(0);
        if let Some((b, t)) = bs.iter().zip(&ts).find(|(b, t)| !static_term(b, t)) {
            return Err(Error::Rejected {
                condition:
                    "tile_to_shape: CUTE_STATIC_ASSERT_V of a run-time divisibility ('value' is not a member of 'bool')",
                detail: format!("{t} % {b} in {target_shape} % {block_shape} before CUTLASS 3.4"),
            });
        }
        if bs.iter().zip(&ts).any(|(b, t)| b.is_static && t.is_static && (b.value == 0 || t.value % b.value != 0)) {
            return Err(Error::Rejected {
                condition: "Layout shape does not divide the target shape.",
                detail: format!("{block_shape} into {target_shape}"),
            });
        }
    } else if target_shape.is_static() {
        for (b, t) in bs.iter().zip(&ts) {
            if !b.is_static {
                return Err(Error::Rejected {
                    condition:
                        "tile_to_shape: a dynamic block mode against a static target has no static evenly_divides",
                    detail: format!("{block} to {trg}"),
                });
            }
            if b.value == 0 || t.value % b.value != 0 {
                return Err(Error::Rejected {
                    condition: "tile_to_shape: block shape does not divide the target shape.",
                    detail: format!("{block_shape} into {target_shape}"),
                });
            }
        }
    }
    let product_shape = IntTuple::of_leaves(
        ts.iter().zip(&bs).map(|(t, b)| t.ceil_div(*b)).collect::<std::result::Result<Vec<_>, _>>()?,
    );
    let ordered = make_ordered_layout(&product_shape, order)?;
    Ok((padded, ordered))
}

/// CuTe's `tile_to_shape(block, trg_shape, ord_shape)` for a layout block.
pub fn tile_to_shape(block: &Layout, trg: &Tup, order: &Order) -> Result<Layout> {
    let (padded, ordered) = parts(block, trg, order)?;
    let out = blocked_product(&padded, &ordered)?;
    if trg.rank() == 1 && !super::release::PRODUCTS_COALESCE_BY_A_TUPLE.on() {
        // CuTe 3.3: the rank-1 blocked product is coalesced whole (an integer profile), and
        // tile_to_shape's own `coalesce(result, product_shape)`, by the 1-tuple product_each
        // makes, coalesces its first mode into a mode of its own: `tile_to_shape(_8:_1,_32)` is
        // `(_32):(_1)` (from 3.4 the blocked product keeps the tuple itself and that coalesce
        // changes nothing).
        let mut modes = if out.shape.is_tuple() { out.modes() } else { vec![out] };
        modes[0] = super::coalesce::coalesce(&modes[0])?;
        return Ok(Layout::concat(&modes));
    }
    Ok(out)
}

/// Whether the order's leaves are distinct (then the ordered layout is compact).
fn distinct(order: &Order) -> bool {
    match order {
        Order::ColMajor | Order::RowMajor => true,
        Order::Steps(o) => {
            let l = o.leaves();
            let mut v: Vec<i64> = l.iter().map(|i| i.value).collect();
            v.sort_unstable();
            v.dedup();
            l.iter().all(|i| i.is_static) && v.len() == l.len()
        }
    }
}

/// The numbered postconditions above for `tile_to_shape(block, trg, order) == r`.
pub fn check_postconditions(block: &Layout, trg: &Tup, order: &Order, r: &Layout) -> Checked {
    let rank = trg.rank();
    if r.rank() != rank {
        return Err(Violation::cute(CITE, format!("1: rank of {r} is not rank({trg}) = {rank}")));
    }
    let (padded, ordered) = parts(block, trg, order).map_err(|e| Violation::unverifiable(e.to_string()))?;
    let bs = product_each(&padded.shape).map_err(|e| Violation::unverifiable(e.to_string()))?;
    let ts = product_each(trg).map_err(|e| Violation::unverifiable(e.to_string()))?;
    for (i, (b, t)) in bs.leaves().iter().zip(ts.leaves()).enumerate() {
        let want = b.value * ((t.value + b.value - 1) / b.value.max(1));
        let got = r.mode(i).and_then(|m| m.size()).map_err(|e| Violation::unverifiable(e.to_string()))?;
        if got.value != want {
            return Err(Violation::cute(CITE, format!("2: mode {i} of {r} has size {}, not {want}", got.value)));
        }
    }
    check_blocked(&padded, &ordered, r, false).map_err(|v| v.context("3: "))?;
    if distinct(order) {
        let vals = ordered.values().map_err(|e| Violation::unverifiable(e.to_string()))?;
        let mut seen = vec![false; vals.len()];
        for &v in &vals {
            if v < 0 || v as usize >= seen.len() || std::mem::replace(&mut seen[v as usize], true) {
                return Err(Violation::cute(
                    CITE_ORDERED,
                    format!("4: {ordered} is not a bijection of 0..{}", vals.len()),
                ));
            }
        }
        if let Order::Steps(o) = order {
            let pairs = ordered.modes().into_iter().zip(o.leaves()).collect::<Vec<_>>();
            for (m, a) in &pairs {
                for (n, b) in &pairs {
                    let (sm, sn) = (m.size().map(|s| s.value).unwrap_or(1), n.size().map(|s| s.value).unwrap_or(1));
                    let first =
                        |l: &Layout| l.leaf_pairs().into_iter().find(|(s, _)| s.value != 1).map(|(_, d)| d.value);
                    if let (true, true, Some(dm), Some(dn)) = (a.value < b.value, sm > 1 && sn > 1, first(m), first(n))
                    {
                        if dm >= dn {
                            return Err(Violation::cute(
                                CITE_ORDERED,
                                format!(
                                    "4: in {ordered} a mode of order {} has stride {dm} >= {dn} of order {}",
                                    a.value, b.value
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, Staticness};
    use crate::test_util::{l, tup};
    use proptest::prelude::*;

    fn tts(b: &str, s: &str, o: Order) -> String {
        tile_to_shape(&l(b), &tup(s), &o).map(|r| r.to_string()).unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn ordered_layouts_as_the_header_documents() {
        // The examples of layout.hpp's make_ordered_layout comment.
        let o = make_ordered_layout(&tup("(_2,_2,_2,_2)"), &Order::Steps(tup("(_0,_2,_3,_1)"))).unwrap();
        assert_eq!(o.to_string(), "(_2,_2,_2,_2):(_1,_4,_8,_2)");
        let o = make_ordered_layout(&tup("(2,3,4,5)"), &Order::Steps(tup("(_2,67,42,_50)"))).unwrap();
        assert_eq!(o.to_string(), "(2,3,4,5):(_1,10,30,2)");
    }

    #[test]
    fn smem_atoms_tiled_to_cta_shapes() {
        // The GMMA K-major SW128 half_t atom's layout tiled to (_128,_64,_3), as SM90 mainloops do.
        assert_eq!(
            tts("(_8,_64):(_64,_1)", "(_128,_64,_3)", Order::ColMajor),
            "((_8,_16),(_64,_1),(_1,_3)):((_64,_512),(_1,_0),(_0,_8192))"
        );
        assert_eq!(
            tts("(_8,_64):(_64,_1)", "(_128,_64,_3)", Order::Steps(tup("(_2,_1,_3)"))),
            "((_8,_16),(_64,_1),(_1,_3)):((_64,_512),(_1,_0),(_0,_8192))"
        );
        assert_eq!(tts("(_8,_32):(_32,_1)", "(_16,_64)", Order::RowMajor), "((_8,_2),(_32,_2)):((_32,_512),(_1,_256))");
        assert!(tts("(_8,_64):(_64,_1)", "(_100,_64)", Order::ColMajor).contains("does not divide"));
        assert!(tts("(_8,_64,_2):(_64,_1,_0)", "(_128,_64)", Order::ColMajor).contains("Rank of layout"));
    }

    /// CuTe 3.3 keeps a rank-1 target's result a 1-tuple (tile_to_shape.cases's header:
    /// `tile_to_shape(_8:_1,_32)` is `(_32):(_1)` on the 3.3.0.0 wheel), as 3.4 does.
    #[test]
    fn a_rank_1_target_keeps_its_tuple_in_3_3() {
        let v33 = crate::release::Release::new(3, 3, 0, 0);
        let (b, t) = (l("_8:_1"), tup("_32"));
        let old = crate::release::with_release(v33, || tile_to_shape(&b, &t, &Order::ColMajor)).unwrap();
        assert_eq!(old.to_string(), "(_32):(_1)");
        crate::release::with_release(v33, || check_postconditions(&b, &t, &Order::ColMajor, &old)).unwrap();
        let v34 = crate::release::Release::new(3, 4, 0, 0);
        let new = crate::release::with_release(v34, || tile_to_shape(&b, &t, &Order::ColMajor)).unwrap();
        assert_eq!(new.to_string(), "(_32):(_1)");
        let blocked = crate::release::with_release(v33, || blocked_product(&b, &l("(_4):(_1)"))).unwrap();
        assert_eq!(blocked.to_string(), "_32:_1", "3.3's blocked product itself is coalesced whole");
    }

    /// CuTe 3.3 static_asserts `sum(target % block) == _0` for every target (tile_to_shape.cases
    /// lines 25-30 as recorded on the 3.3.0.0 wheel); 3.4 checks static targets only.
    #[test]
    fn divisibility_is_static_asserted_for_every_target_in_3_3() {
        let v33 = crate::release::Release::new(3, 3, 0, 0);
        let at33 = |b: &str, t: &str| crate::release::with_release(v33, || tts(b, t, Order::ColMajor));
        assert!(at33("(_8,_64):(_64,_1)", "(128,64)").contains("'value' is not a member of 'bool'"));
        assert!(at33("(8,_64):(_64,_1)", "(128,_64)").contains("'value' is not a member of 'bool'"));
        assert!(at33("(_8,_64):(_64,_1)", "(_100,_64)").contains("Layout shape does not divide the target shape."));
        // A run-time target over a static `_1` block mode has a static remainder `_0`.
        assert!(!at33("(_8,_1):(_1,_0)", "(_16,16)").starts_with("error"));
        assert!(!at33("(_8,_64):(_64,_1)", "(_16,_64)").starts_with("error"));
        assert!(!tts("(_8,_64):(_64,_1)", "(128,64)", Order::ColMajor).starts_with("error"), "3.4 on: not checked");
    }

    proptest! {
        #[test]
        fn every_postcondition_holds(
            block in gen::small_compact(4, 1, Staticness::AllStatic),
            mult in prop::collection::vec(1i64..4, 1..4),
            steps in prop::collection::vec(0i64..4, 8),
            how in 0usize..3,
        ) {
            // A target each of whose modes is a multiple of the block's.
            let bs = product_each(&pad(&block, mult.len().max(block.rank())).shape).unwrap().leaves();
            let trg = IntTuple::of_leaves(bs.iter().zip(mult.iter().chain(std::iter::repeat(&1))).map(|(b, m)| Int::st(b.value * m)));
            let order = match how {
                0 => Order::ColMajor,
                1 => Order::RowMajor,
                _ => Order::Steps(IntTuple::of_leaves(steps.iter().take(bs.len()).map(|&s| Int::st(s)))),
            };
            let r = tile_to_shape(&block, &trg, &order).unwrap();
            prop_assert_eq!(check_postconditions(&block, &trg, &order, &r), Ok(()));
        }
    }
}
