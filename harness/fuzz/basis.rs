//! Random cases over layouts with basis strides (`engine::scaled_basis`), built by construction:
//! - an integer compact layout `A` (some strides negated) whose every stride leaf `d` becomes
//!   `d@j` for an axis `j` in 0..3 (so `A`'s shape, and every operand built for `A`, fits), or the
//!   identity layout of `A`'s shape (`make_identity_layout(S)`);
//! - on it: the layout printed, `L(c)` at an in-range coordinate, `coalesce`, `composition` with an
//!   admissible right operand or tiler for `A`, `logical_divide` likewise, the zipped / tiled /
//!   flat divides by an admissible tiler, and (on identity layouts of flat shapes) `local_tile` /
//!   `local_partition` with their offsets, the coordinate of the part's first element.
//!
//! Every operand is admissible (the operations' conditions depend on the shapes only, which are
//! `A`'s); the axis a stride goes to never mixes depths, so every sum CuTe forms compiles.

use proptest::prelude::*;

use super::{admissible_rhs, case_of, evaluation, signed_compact, tiler_for, Case};
use crate::engine::int_tuple::{IntTuple, Tup, View};
use crate::engine::Layout;
use crate::expr::op::Op;

/// The stride text of `a`'s strides sent to the axes `axes` (in preorder, cycled).
fn basis_stride(d: &Tup, axes: &[u32], k: &mut usize) -> String {
    match d.view() {
        View::Leaf(i) => {
            let j = axes[*k % axes.len()];
            *k += 1;
            format!("{i}@{j}")
        }
        View::Tuple(v) => {
            let parts: Vec<String> = v.iter().map(|x| basis_stride(x, axes, k)).collect();
            format!("({})", parts.join(","))
        }
    }
}

/// A basis layout standing for `a` (its shape): identity, or `a`'s strides along random axes.
fn basis_of(a: Layout) -> impl Strategy<Value = (Layout, String, IntTuple)> {
    (any::<bool>(), prop::collection::vec(0u32..3, 1..6)).prop_map(move |(identity, axes)| {
        let text = if identity {
            format!("make_identity_layout({})", a.shape)
        } else {
            format!("{}:{}", a.shape, basis_stride(&a.stride, &axes, &mut 0))
        };
        (a.clone(), text, a.shape.clone())
    })
}

/// An identity layout of a flat static shape of rank 1-3 with a tile per mode dividing it, a tile
/// coordinate in range, and a thread layout per mode dividing it (row- or column-major).
fn tiled_identity() -> impl Strategy<Value = (String, String, String, String, i64)> {
    let mode = (prop::sample::select(vec![2i64, 4, 8, 16, 6, 12]), any::<u32>(), any::<u32>(), any::<u32>());
    (prop::collection::vec(mode, 1..=3), any::<bool>(), any::<u32>(), any::<bool>()).prop_map(
        |(modes, st, pick, row)| {
            let int = |v: i64| if st { format!("_{v}") } else { v.to_string() };
            let divisor = |n: i64, p: u32| {
                let ds: Vec<i64> = (1..=n).filter(|d| n % d == 0).collect();
                ds[p as usize % ds.len()]
            };
            let shape: Vec<String> = modes.iter().map(|m| int(m.0)).collect();
            let tiles: Vec<i64> = modes.iter().map(|m| divisor(m.0, m.1)).collect();
            let coord: Vec<String> =
                modes.iter().zip(&tiles).map(|(m, t)| (m.2 as i64 % (m.0 / t)).to_string()).collect();
            let thr: Vec<i64> = modes.iter().map(|m| divisor(m.0, m.3)).collect();
            let threads: i64 = thr.iter().product();
            let tup = |v: &[String]| if v.len() == 1 { v[0].clone() } else { format!("({})", v.join(",")) };
            let thr_shape: Vec<String> = thr.iter().map(|t| format!("_{t}")).collect();
            let mut strides = vec![0i64; thr.len()];
            let mut acc = 1;
            let order: Vec<usize> = if row { (0..thr.len()).rev().collect() } else { (0..thr.len()).collect() };
            for k in order {
                strides[k] = acc;
                acc *= thr[k];
            }
            let thr_stride: Vec<String> = strides.iter().map(|d| format!("_{d}")).collect();
            (
                format!("make_identity_layout({})", tup(&shape)),
                format!("({})", tiles.iter().map(|t| format!("_{t}")).collect::<Vec<_>>().join(",")),
                tup(&coord),
                format!("{}:{}", tup(&thr_shape), tup(&thr_stride)),
                (pick as i64) % threads,
            )
        },
    )
}

/// One random case with basis strides (see the module doc).
pub fn basis_case() -> BoxedStrategy<Case> {
    let on = || signed_compact().prop_flat_map(basis_of);
    let c = case_of;
    prop_oneof![
        1 => on().prop_map(move |(_, l, _)| c("make_identity_layout", l, true)),
        2 => on().prop_flat_map(|(_, l, s)| evaluation(l, s)).prop_map(move |e| c("evaluate", e, true)),
        2 => on().prop_map(move |(_, l, _)| c("coalesce", format!("coalesce({l})"), true)),
        2 => on()
            .prop_flat_map(|(a, l, _)| (Just(l), admissible_rhs(&a, false)))
            .prop_map(move |(l, b)| c("composition", format!("composition({l},{b})"), true)),
        2 => on()
            .prop_flat_map(|(a, l, _)| (Just(l), tiler_for(&a, true)))
            .prop_map(move |(l, t)| c("composition", format!("composition({l},{t})"), true)),
        2 => on()
            .prop_flat_map(|(a, l, _)| (Just(l), admissible_rhs(&a, true)))
            .prop_map(move |(l, b)| c("logical_divide", format!("logical_divide({l},{b})"), true)),
        2 => on()
            .prop_flat_map(|(a, l, _)| (Just(l), tiler_for(&a, true)))
            .prop_map(move |(l, t)| c("logical_divide", format!("logical_divide({l},{t})"), true)),
        3 => (on().prop_flat_map(|(a, l, _)| (Just(l), tiler_for(&a, false))), 0..3usize).prop_map(
            move |((l, t), k)| {
                let op = [Op::ZippedDivide, Op::TiledDivide, Op::FlatDivide][k];
                c(op.name(), format!("{op}({l},{t})"), true)
            }
        ),
        3 => (tiled_identity(), 0..4usize).prop_map(move |((l, tile, coord, thr, idx), k)| {
            let op = [Op::LocalTile, Op::LocalTileOffset, Op::LocalPartition, Op::LocalPartitionOffset][k];
            if k < 2 {
                c(op.name(), format!("{op}({l},{tile},{coord})"), true)
            } else {
                c(op.name(), format!("{op}({l},{thr},{idx})"), true)
            }
        }),
    ]
    .boxed()
}

/// One operand of `equal` as the language spells it: an integer (static or not), a ratio `_n/_d`,
/// a basis element with an integer or ratio value along 1-2 modes, or a tuple of them.
fn equality_operand() -> impl Strategy<Value = String> {
    let int = (0i64..3, any::<bool>()).prop_map(|(v, s)| if s { format!("_{v}") } else { v.to_string() });
    let ratio = (1i64..5, 1i64..5).prop_map(|(n, d)| format!("_{n}/_{d}"));
    let value = prop_oneof![2 => int.clone(), 1 => ratio.clone()];
    let modes = prop::collection::vec(0u32..2, 1..3);
    let basis = (value, modes).prop_map(|(v, m)| {
        let m: Vec<String> = m.iter().map(|x| format!("@{x}")).collect();
        format!("{v}{}", m.join(""))
    });
    let leaf = prop_oneof![2 => int, 1 => ratio, 3 => basis];
    leaf.prop_recursive(2, 6, 3, |inner| prop::collection::vec(inner, 1..3).prop_map(|v| format!("({})", v.join(","))))
}

/// `equal(a, b)`: two drawn operands, or one compared with itself (a true result, static or not),
/// or with a copy whose first mode index or ratio is changed. Admissible where the modelled release's
/// CuTe compiles the comparison (an `int` against a ratio does not; before 4.7 not even under
/// different modes).
pub fn equality_case() -> BoxedStrategy<Case> {
    (equality_operand(), equality_operand(), 0u8..3)
        .prop_map(|(a, b, pick)| {
            let b = match pick {
                0 => b,
                1 => a.clone(),
                _ => a.replacen("@0", "@1", 1).replacen("/_1", "/_2", 1),
            };
            let expr = format!("equal({a},{b})");
            let admissible = crate::expr::eval_str(&expr).is_ok();
            case_of(Op::Equal.name(), expr, admissible)
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use proptest::strategy::{Strategy, ValueTree};

    /// Every drawn case is admissible: the engine answers it (no refusal), as real CuTe 4.2 did
    /// for 597 distinct cases of seed 11 (the commit that added this generator).
    #[test]
    fn the_engine_answers_every_drawn_case() {
        let mut r = super::super::runner(11);
        let s = super::basis_case();
        for _ in 0..300 {
            let c = s.new_tree(&mut r).expect("by construction").current();
            let v = crate::expr::eval::eval_str(&c.expr);
            assert!(v.is_ok(), "{}: {:?}", c.expr, v);
        }
    }
}
