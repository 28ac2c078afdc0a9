//! Random operation cases for differential runs: generation, seeding, sharding and shrinking.
//!
//! Cases are built by construction (prop_compose / prop_flat_map), never by rejection:
//! - operands that make the operation well defined ("admissible"): tilers and composition
//!   right-hand sides made of factors of the left operand's extents, complements of injective
//!   layouts with cotargets that are multiples of their cosize, inverses of compact layouts;
//! - and a share of deliberately ill-defined ones (arbitrary right operands), so rejections and
//!   CuTe's acceptance of undefined inputs are exercised too.
//!
//! Leaves are static, dynamic or mixed; layouts have ranks 1-4, depth up to 3, zero strides and
//! size-1 modes. A run is reproduced exactly by its seed: case `i` of seed `s` is always the same.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::engine::{Int, IntTuple, Layout};
use crate::gen::Staticness;

/// One generated case: the operation's name and the expression text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub op: &'static str,
    pub expr: String,
    /// True when the operands were built to satisfy the operation's preconditions.
    pub admissible: bool,
}

fn staticness() -> impl Strategy<Value = Staticness> {
    prop_oneof![
        6 => Just(Staticness::AllStatic),
        2 => Just(Staticness::AllDynamic),
        2 => Just(Staticness::Mixed),
    ]
}

/// Small extents with few prime factors, so that divisibility happens often.
fn extent() -> impl Strategy<Value = i64> {
    prop_oneof![Just(1i64), Just(2), Just(3), Just(4), Just(6), Just(8), Just(2), Just(4)]
}

fn leaf(v: i64, s: bool) -> IntTuple {
    IntTuple::Leaf(Int::new(v, s))
}

/// Group a flat list of leaves into a random nesting of depth <= 3 (ranks 1-4 per level).
fn nest(items: Vec<(IntTuple, IntTuple)>, cuts: Vec<usize>) -> (IntTuple, IntTuple) {
    if items.len() == 1 {
        return items.into_iter().next().expect("one item");
    }
    // Split the top level into at most 4 groups at the given cut points; groups of one stay leaves.
    let n = items.len();
    let mut bounds: Vec<usize> = cuts.into_iter().map(|c| 1 + c % (n - 1)).collect();
    bounds.sort_unstable();
    bounds.dedup();
    bounds.truncate(3);
    let mut groups = Vec::new();
    let mut start = 0;
    for b in bounds.into_iter().chain(std::iter::once(n)) {
        if b > start {
            groups.push(items[start..b].to_vec());
            start = b;
        }
    }
    let parts: Vec<(IntTuple, IntTuple)> = groups
        .into_iter()
        .map(|g| {
            if g.len() == 1 {
                g.into_iter().next().expect("one")
            } else {
                let (s, d): (Vec<_>, Vec<_>) = g.into_iter().unzip();
                (IntTuple::Tuple(s), IntTuple::Tuple(d))
            }
        })
        .collect();
    let (s, d): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
    (IntTuple::Tuple(s), IntTuple::Tuple(d))
}

prop_compose! {
    /// A layout with 1-4 leaves grouped into a nesting, arbitrary strides (zeros and repeats allowed).
    fn any_layout()(st in staticness(), n in 1usize..=4)
        (exts in prop::collection::vec(extent(), n), strides in prop::collection::vec(0i64..=16, n),
         tags in prop::collection::vec(any::<bool>(), n), cuts in prop::collection::vec(any::<usize>(), 0..3),
         st in Just(st)) -> Layout {
        let n = exts.len();
        let tag = |k: usize| match st { Staticness::AllStatic => true, Staticness::AllDynamic => false, Staticness::Mixed => tags[k] };
        let items = (0..n).map(|k| (leaf(exts[k], tag(k)), leaf(strides[k], tag(k)))).collect();
        let (shape, stride) = nest(items, cuts);
        Layout { shape, stride }
    }
}

prop_compose! {
    /// A compact (injective, contiguous) layout: extents with strides that are a permutation of the
    /// column-major prefix products.
    fn compact()(st in staticness(), n in 1usize..=4)
        (exts in prop::collection::vec(extent(), n), order in Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
         tags in prop::collection::vec(any::<bool>(), n), cuts in prop::collection::vec(any::<usize>(), 0..3),
         st in Just(st)) -> Layout {
        let n = exts.len();
        let tag = |k: usize| match st { Staticness::AllStatic => true, Staticness::AllDynamic => false, Staticness::Mixed => tags[k] };
        let mut strides = vec![0i64; n];
        let mut acc = 1i64;
        for &k in &order { strides[k] = acc; acc *= exts[k]; }
        let items = (0..n).map(|k| (leaf(exts[k], tag(k)), leaf(strides[k], tag(k)))).collect();
        let (shape, stride) = nest(items, cuts);
        Layout { shape, stride }
    }
}

/// A right operand admissible for composing with (or dividing) a layout of `size` coordinates:
/// a compact layout over a factorisation of a divisor of `size`, so every mode falls on the
/// left operand's mode boundaries after refinement. Static like `is_static`.
fn admissible_rhs(size: i64, is_static: bool) -> impl Strategy<Value = Layout> {
    let divisors: Vec<i64> = (1..=size.max(1)).filter(|d| size % d == 0).collect();
    (prop::sample::select(divisors), any::<bool>(), 1i64..=4).prop_map(move |(d, two, step)| {
        // Either one mode d:1 or, when d splits, two modes (a,b):(1,a) or a strided a:step.
        let l = |n: i64, s: i64| Layout::leaf(Int::new(n, is_static), Int::new(s, is_static));
        if two {
            if let Some(a) = (2..d).find(|a| d % a == 0) {
                return Layout::concat(&[l(a, 1), l(d / a, a)]);
            }
        }
        if size % (d * step) == 0 {
            l(d, step)
        } else {
            l(d, 1)
        }
    })
}

fn static_flag(l: &Layout) -> bool {
    l.shape.is_static() && l.stride.is_static()
}

/// The operations the fuzzer generates, each with admissible and ill-defined operand strategies.
pub fn case() -> BoxedStrategy<Case> {
    let c = |op: &'static str, expr: String, admissible: bool| Case { op, expr, admissible };
    prop_oneof![
        any_layout().prop_map(move |l| c("coalesce", format!("coalesce({l})"), true)),
        any_layout().prop_map(move |l| c("filter", format!("filter({l})"), true)),
        compact()
            .prop_flat_map(|a| {
                let n = a.size().map(|i| i.value).unwrap_or(1);
                let st = static_flag(&a);
                (Just(a), admissible_rhs(n, st))
            })
            .prop_map(move |(a, b)| c("composition", format!("composition({a},{b})"), true)),
        (any_layout(), any_layout()).prop_map(move |(a, b)| c("composition", format!("composition({a},{b})"), false)),
        compact()
            .prop_flat_map(|a| {
                let cos = a.cosize().map(|i| i.value).unwrap_or(1).max(1);
                (Just(a), 1i64..=3)
                    .prop_map(move |(a, k)| (a, cos * k))
            })
            .prop_map(move |(a, m)| {
                let st = static_flag(&a);
                c("complement", format!("complement({a},{})", Int::new(m, st)), true)
            }),
        any_layout().prop_map(move |a| c("complement", format!("complement({a})"), false)),
        compact().prop_map(move |a| c("right_inverse", format!("right_inverse({a})"), true)),
        compact().prop_map(move |a| c("left_inverse", format!("left_inverse({a})"), true)),
        compact()
            .prop_flat_map(|a| {
                let n = a.size().map(|i| i.value).unwrap_or(1);
                let st = static_flag(&a);
                (Just(a), admissible_rhs(n, st))
            })
            .prop_map(move |(a, b)| c("logical_divide", format!("logical_divide({a},{b})"), true)),
        (compact(), compact()).prop_map(move |(a, b)| c("logical_product", format!("logical_product({a},{b})"), true)),
        (compact(), compact()).prop_map(move |(a, b)| c("blocked_product", format!("blocked_product({a},{b})"), true)),
        (compact(), compact()).prop_map(move |(a, b)| c("raked_product", format!("raked_product({a},{b})"), true)),
        (compact(), any_layout()).prop_map(move |(a, b)| c("logical_divide", format!("logical_divide({a},{b})"), false)),
    ]
    .boxed()
}

/// The runner for seed `seed`: every case it draws is a pure function of the seed.
pub fn runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// Case trees for cases `0..n` of `seed` (kept so a failing case can be shrunk later).
pub fn case_trees(seed: u64, n: usize) -> Vec<Box<dyn ValueTree<Value = Case>>> {
    let mut r = runner(seed);
    let s = case();
    (0..n)
        .map(|_| Box::new(s.new_tree(&mut r).expect("case strategies never reject")) as Box<dyn ValueTree<Value = Case>>)
        .collect()
}

/// Cases `0..n` of `seed` that belong to shard `k` of `of` (case `i` goes to shard `i % of`).
pub fn cases(seed: u64, n: usize, shard: (usize, usize)) -> Vec<(usize, Case)> {
    let (k, of) = shard;
    case_trees(seed, n)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| of <= 1 || i % of == k)
        .map(|(i, t)| (i, t.current()))
        .collect()
}

/// Shrink a failing case: walk proptest's simplify/complicate steps, keeping a simpler case
/// whenever `still_fails` says the disagreement persists. `budget` bounds the number of checks
/// (each may ask real CuTe). Returns the smallest failing case found.
pub fn shrink(mut tree: Box<dyn ValueTree<Value = Case>>, mut still_fails: impl FnMut(&Case) -> bool, budget: usize) -> Case {
    let mut best = tree.current();
    let mut checks = 0;
    while checks < budget && tree.simplify() {
        checks += 1;
        let cand = tree.current();
        if still_fails(&cand) {
            best = cand;
        } else {
            // Back off until a failing state or no more steps.
            loop {
                if checks >= budget || !tree.complicate() {
                    return best;
                }
                checks += 1;
                let cand = tree.current();
                if still_fails(&cand) {
                    best = cand;
                    break;
                }
            }
        }
    }
    best
}

/// Parse `K/N` (shard K of N, 0-based K).
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s.split_once('/').ok_or_else(|| format!("shard `{s}`: expected K/N"))?;
    let (k, n): (usize, usize) = (
        k.trim().parse().map_err(|_| format!("shard `{s}`: K is not a number"))?,
        n.trim().parse().map_err(|_| format!("shard `{s}`: N is not a number"))?,
    );
    if n == 0 || k >= n {
        return Err(format!("shard `{s}`: need 0 <= K < N"));
    }
    Ok((k, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::parse;

    #[test]
    fn seeds_reproduce_and_cases_parse() {
        let a = cases(7, 200, (0, 1));
        let b = cases(7, 200, (0, 1));
        assert_eq!(a, b);
        assert_ne!(a, cases(8, 200, (0, 1)));
        for (_, c) in &a {
            parse(&c.expr).unwrap_or_else(|e| panic!("{}: {e}", c.expr));
        }
        let ops: std::collections::BTreeSet<_> = a.iter().map(|(_, c)| c.op).collect();
        assert!(ops.len() >= 8, "{ops:?}");
        assert!(a.iter().any(|(_, c)| !c.admissible));
    }

    #[test]
    fn shards_partition_the_run() {
        let all = cases(3, 50, (0, 1));
        let mut joined: Vec<_> = (0..3).flat_map(|k| cases(3, 50, (k, 3))).collect();
        joined.sort_by_key(|(i, _)| *i);
        assert_eq!(all, joined);
        assert!(parse_shard("3/3").is_err());
        assert_eq!(parse_shard("1/4"), Ok((1, 4)));
    }

    #[test]
    fn shrinking_reaches_a_smaller_failing_case() {
        // A predicate that fails for any composition: shrinking keeps it a composition case while
        // simplifying the operands.
        let mut r = runner(11);
        let s = case();
        let tree = loop {
            let t = s.new_tree(&mut r).unwrap();
            if t.current().op == "composition" && t.current().expr.len() > 40 {
                break t;
            }
        };
        let before = tree.current().expr.len();
        let small = shrink(Box::new(tree), |c| c.op == "composition", 500);
        assert_eq!(small.op, "composition");
        assert!(small.expr.len() <= before, "{} vs {before}", small.expr);
    }
}
