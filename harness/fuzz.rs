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
pub use proptest::strategy::ValueTree;
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
    // Depth 3: sometimes the first two leaves of a group of three or more nest one level deeper.
    let deep = cuts.first().is_some_and(|c| c % 3 == 0);
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
            } else if deep && g.len() >= 3 {
                let (s0, d0): (Vec<_>, Vec<_>) = g[..2].iter().cloned().unzip();
                let (mut s, mut d): (Vec<_>, Vec<_>) = g[2..].iter().cloned().unzip();
                s.insert(0, IntTuple::Tuple(s0));
                d.insert(0, IntTuple::Tuple(d0));
                (IntTuple::Tuple(s), IntTuple::Tuple(d))
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

/// The coordinate counts at which a right operand may start or end a mode when composing with a
/// layout of shape `leaves` (in mode order): `P_k * e` for the prefix product `P_k` of the first
/// `k` extents and `e` a divisor of extent `k`. A mode `n:s` with `s` and `s*n` in this set meets
/// CuTe's divisibility conditions (the shape and stride divisibility of composition).
pub fn boundaries(leaves: &[i64]) -> Vec<i64> {
    let mut out = vec![1i64];
    let mut p = 1i64;
    for &x in leaves {
        for e in 1..=x.max(1) {
            if x % e == 0 {
                out.push(p * e);
            }
        }
        p *= x.max(1);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A right operand admissible for composing with (or dividing) `a`: one mode `n:s` with `s` and
/// `s*n` in [`boundaries`] of `a`'s shape, so composition's divisibility conditions hold; or two
/// such modes (in either order) whose images sit in separate digits of `a`'s mixed radix
/// (`s0*n0` divides `s1`), so `A(B0(i)+B1(j)) = A(B0(i)) + A(B1(j))` and the by-mode result is
/// `A o B`. For a divide (`divide` true) the pair is contiguous, `(x,y):(1,x)`, so the complement
/// is defined too (and needs static strides). Static like `a`.
fn admissible_rhs(a: &Layout, divide: bool) -> impl Strategy<Value = Layout> {
    let leaves: Vec<i64> = a.shape.leaves().iter().map(|i| i.value).collect();
    let d = boundaries(&leaves);
    let pairs: Vec<(i64, i64)> =
        d.iter().flat_map(|&s| d.iter().filter(move |&&t| t % s == 0).map(move |&t| (s, t / s))).collect();
    let mut chains: Vec<(i64, i64, i64, i64)> = Vec::new();
    for &(s0, n0) in &pairs {
        for &(s1, n1) in &pairs {
            if s1 % (s0 * n0) == 0 && (!divide || (s0 == 1 && s1 == n0 && n1 > 1 && n0 > 1)) {
                chains.push((s0, n0, s1, n1));
            }
        }
    }
    if chains.is_empty() {
        chains.push((1, 1, 1, 1));
    }
    let st = static_flag(a);
    let l = move |n: i64, s: i64| Layout::leaf(Int::new(n, st), Int::new(s, st));
    (prop::sample::select(pairs), prop::sample::select(chains), 0u8..4).prop_map(
        move |((s, n), (s0, n0, s1, n1), how)| match how {
            // CuTe's complement of a rank-2 layout needs static strides.
            0 if !divide || st => Layout::concat(&[l(n0, s0), l(n1, s1)]),
            1 if !divide => Layout::concat(&[l(n1, s1), l(n0, s0)]),
            1 if st => Layout::concat(&[l(n0, s0), l(n1, s1)]),
            _ => l(n, s),
        },
    )
}

fn static_flag(l: &Layout) -> bool {
    l.shape.is_static() && l.stride.is_static()
}

/// A tiler for `a`, one element per top-level mode: `_` (where `underscore`; zipped, tiled and
/// flat divides do not take it: CuTe's zip needs rank-2 divided modes), an integer or a layout
/// `k:s` on the mode's [`boundaries`] (admissible) -- built from them, never filtered.
fn tiler_for(a: &Layout, underscore: bool) -> BoxedStrategy<String> {
    let st = static_flag(a);
    let parts: Vec<BoxedStrategy<String>> = a
        .modes()
        .iter()
        .map(|m| {
            let leaves: Vec<i64> = m.shape.leaves().iter().map(|i| i.value).collect();
            let d = boundaries(&leaves);
            let pairs: Vec<(i64, i64)> =
                d.iter().flat_map(|&s| d.iter().filter(move |&&t| t % s == 0).map(move |&t| (s, t / s))).collect();
            (prop::sample::select(d), prop::sample::select(pairs), 0u8..6)
                .prop_map(move |(n, (s, k), how)| match how {
                    0 if underscore => "_".to_string(),
                    0..=2 => Int::new(n, st).to_string(),
                    // A tile k:s whose start and end fall on the mode's boundaries.
                    _ => format!("{}:{}", Int::new(k, st), Int::new(s, st)),
                })
                .boxed()
        })
        .collect();
    parts.prop_map(|v| format!("({})", v.join(","))).boxed()
}

/// Two compact layouts for a product; small sizes keep the results walkable.
fn product_pair() -> impl Strategy<Value = (Layout, Layout)> {
    (compact(), compact())
}

// Operand tables of the atom generators.
// (copy op, its bits per instruction)
const COPIES: &[(&str, i64)] = &[
    ("UniversalCopy<uint32_t>", 32),
    ("UniversalCopy<uint64_t>", 64),
    ("UniversalCopy<uint128_t>", 128),
    ("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", 128),
    ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", 128),
];
const TYPES: &[(&str, i64)] = &[("half_t", 16), ("bfloat16_t", 16), ("float", 32), ("int8_t", 8)];
const MMAS: &[&str] = &[
    "SM80_16x8x16_F32F16F16F32_TN",
    "SM80_16x8x8_F16F16F16F16_TN",
    "SM80_16x8x8_F32TF32TF32F32_TN",
    "SM80_16x8x32_S32S8S8S32_TN",
    "SM80_8x8x4_F64F64F64F64_TN",
    "SM75_16x8x8_F32F16F16F32_TN",
];

fn case_of(op: &'static str, expr: String, admissible: bool) -> Case {
    Case { op, expr, admissible }
}

// The generators of the operations: each entry of the table of operations (`harness/ops.rs`)
// names one of these (or says why it has none). Each gives admissible operands and, where the
// operation has preconditions, a share of ill-defined ones.

/// `op(L)` for an arbitrary layout: coalesce, filter, filter_zeros, flatten, and the queries
/// size, cosize, rank, depth.
pub fn unary(op: &'static str) -> BoxedStrategy<Case> {
    any_layout().prop_map(move |l| case_of(op, format!("{op}({l})"), true)).boxed()
}

/// `L(i)` for a coordinate `i < size(L)`: a form of the expression language, not an operation.
pub fn evaluate() -> BoxedStrategy<Case> {
    any_layout()
        .prop_flat_map(|l| {
            let n = l.size().map(|i| i.value).unwrap_or(1).max(1);
            (Just(l), 0..n)
        })
        .prop_map(move |(l, i)| case_of("evaluate", format!("{l}({i})"), true))
        .boxed()
}

/// composition with an admissible right operand, an admissible tiler, or an arbitrary layout.
pub fn composition() -> BoxedStrategy<Case> {
    let c = case_of;
    prop_oneof![
        compact()
            .prop_flat_map(|a| {
                let b = admissible_rhs(&a, false);
                (Just(a), b)
            })
            .prop_map(move |(a, b)| c("composition", format!("composition({a},{b})"), true)),
        compact()
            .prop_flat_map(|a| {
                let t = tiler_for(&a, true);
                (Just(a), t)
            })
            .prop_map(move |(a, t)| c("composition", format!("composition({a},{t})"), true)),
        (any_layout(), any_layout()).prop_map(move |(a, b)| c("composition", format!("composition({a},{b})"), false)),
    ]
    .boxed()
}

/// complement of compact layouts (cotarget a multiple of the cosize, or none), and of arbitrary
/// layouts with arbitrary cotargets.
pub fn complement() -> BoxedStrategy<Case> {
    let c = case_of;
    prop_oneof![
        compact()
            .prop_flat_map(|a| {
                let cos = a.cosize().map(|i| i.value).unwrap_or(1).max(1);
                (Just(a), 1i64..=3).prop_map(move |(a, k)| (a, cos * k))
            })
            .prop_map(move |(a, m)| {
                let st = static_flag(&a);
                c("complement", format!("complement({a},{})", Int::new(m, st)), true)
            }),
        compact().prop_map(move |a| c("complement", format!("complement({a})"), true)),
        any_layout().prop_map(move |a| c("complement", format!("complement({a})"), false)),
        (any_layout(), 1i64..=64).prop_map(move |(a, m)| {
            let st = static_flag(&a);
            c("complement", format!("complement({a},{})", Int::new(m, st)), false)
        }),
    ]
    .boxed()
}

/// right_inverse / left_inverse of compact layouts, and of arbitrary ones.
pub fn inverse(op: &'static str) -> BoxedStrategy<Case> {
    prop_oneof![
        compact().prop_map(move |a| case_of(op, format!("{op}({a})"), true)),
        any_layout().prop_map(move |a| case_of(op, format!("{op}({a})"), false)),
    ]
    .boxed()
}

/// logical_divide by an admissible layout, an admissible tiler, or an arbitrary layout.
pub fn logical_divide() -> BoxedStrategy<Case> {
    let c = case_of;
    prop_oneof![
        compact()
            .prop_flat_map(|a| {
                let b = admissible_rhs(&a, true);
                (Just(a), b)
            })
            .prop_map(move |(a, b)| c("logical_divide", format!("logical_divide({a},{b})"), true)),
        compact()
            .prop_flat_map(|a| {
                let t = tiler_for(&a, true);
                (Just(a), t)
            })
            .prop_map(move |(a, t)| c("logical_divide", format!("logical_divide({a},{t})"), true)),
        (compact(), any_layout()).prop_map(move |(a, b)| c("logical_divide", format!("logical_divide({a},{b})"), false)),
    ]
    .boxed()
}

/// zipped / tiled / flat divide by an admissible tiler without `_`.
pub fn regrouped_divide(op: &'static str) -> BoxedStrategy<Case> {
    compact()
        .prop_flat_map(|a| {
            let t = tiler_for(&a, false);
            (Just(a), t)
        })
        .prop_map(move |(a, t)| case_of(op, format!("{op}({a},{t})"), true))
        .boxed()
}

/// logical_product of two compact layouts, or of arbitrary ones.
pub fn logical_product() -> BoxedStrategy<Case> {
    let c = case_of;
    prop_oneof![
        product_pair().prop_map(move |(a, b)| c("logical_product", format!("logical_product({a},{b})"), true)),
        (any_layout(), any_layout()).prop_map(move |(a, b)| c("logical_product", format!("logical_product({a},{b})"), false)),
    ]
    .boxed()
}

/// blocked_product / raked_product of two compact layouts.
pub fn blocked(op: &'static str) -> BoxedStrategy<Case> {
    product_pair().prop_map(move |(a, b)| case_of(op, format!("{op}({a},{b})"), true)).boxed()
}

/// zipped / tiled / flat product by a compact layout, or by mode (`(B)`).
pub fn regrouped_product(op: &'static str) -> BoxedStrategy<Case> {
    prop_oneof![
        product_pair().prop_map(move |(a, b)| case_of(op, format!("{op}({a},{b})"), true)),
        // By-mode products: mode 0 of `a` alone need not be compact, so the complement CuTe
        // composes `b` with may not divide; ill-defined in general.
        product_pair().prop_map(move |(a, b)| case_of(op, format!("{op}({a},({b}))"), false)),
    ]
    .boxed()
}

/// max_common_vector / max_common_layout of two compact layouts, or of arbitrary ones.
pub fn max_common(op: &'static str) -> BoxedStrategy<Case> {
    prop_oneof![
        (compact(), compact()).prop_map(move |(a, b)| case_of(op, format!("{op}({a},{b})"), true)),
        (any_layout(), any_layout()).prop_map(move |(a, b)| case_of(op, format!("{op}({a},{b})"), false)),
    ]
    .boxed()
}

fn pow2() -> impl Strategy<Value = i64> {
    prop::sample::select(vec![1i64, 2, 4, 8, 16, 32])
}

/// tiled_copy_tv / tiled_copy_tiler over a few common copy atoms (static layouts, as CuTe needs).
/// Admissible: the value layout holds exactly one copy instruction's worth of values;
/// ill-defined: a value layout of the wrong size.
pub fn tiled_copy(op: &'static str) -> BoxedStrategy<Case> {
    (prop::sample::select(COPIES.to_vec()), prop::sample::select(TYPES.to_vec()), pow2(), pow2(), any::<bool>(), any::<bool>(), any::<bool>())
        .prop_map(move |((cop, bits), (ty, tbits), tm, tn, thr_row_major, val_along_m, well_sized)| {
            let per = (bits / tbits).max(1);
            let n_vals = if well_sized { per } else { per * 3 };
            let thr = if thr_row_major { format!("(_{tm},_{tn}):(_{tn},_1)") } else { format!("(_{tm},_{tn}):(_1,_{tm})") };
            let val = if val_along_m { format!("(_{n_vals},_1):(_1,_0)") } else { format!("(_1,_{n_vals}):(_0,_1)") };
            case_of(op, format!("{op}({cop},{ty},{thr},{val})"), well_sized && per * tbits == bits)
        })
        .boxed()
}

/// tiled_mma_tv_a/b/c / tiled_mma_tile over a few common MMA atoms, with an atom layout that is a
/// small (M,N,1) grid of warps.
pub fn tiled_mma(op: &'static str) -> BoxedStrategy<Case> {
    (prop::sample::select(MMAS.to_vec()), prop::sample::select(vec![1i64, 2, 4]), prop::sample::select(vec![1i64, 2, 4]), any::<bool>())
        .prop_map(move |(atom, m, n, n_major)| {
            let layout = if n_major { format!("(_{m},_{n},_1):(_{n},_1,_0)") } else { format!("(_{m},_{n},_1)") };
            case_of(op, format!("{op}({atom},{layout})"), true)
        })
        .boxed()
}

/// The forms the fuzzer generates besides operations, with their weights: `L(i)`.
fn forms() -> Vec<(u32, BoxedStrategy<Case>)> {
    vec![(4, evaluate())]
}

/// Random cases: every operation whose entry in the table of operations (`harness/ops.rs`) has
/// a generator, drawn with the entry's weight, plus the forms of [`forms`].
pub fn case() -> BoxedStrategy<Case> {
    let mut arms = forms();
    for op in crate::ops::OPS {
        if let crate::ops::Part::Has((weight, generate)) = op.generate {
            arms.push((weight, generate()));
        }
    }
    proptest::strategy::Union::new_weighted(arms).boxed()
}

/// A case's proptest value tree (kept so the case can be shrunk).
pub type CaseTree = Box<dyn ValueTree<Value = Case>>;

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
    fn atom_cases_are_drawn_and_admissible_ones_evaluate() {
        let atom_area = |op: &str| crate::ops::by_name(op).is_some_and(|o| o.area == crate::ops::Area::Atoms);
        let atoms: Vec<Case> = cases(5, 600, (0, 1)).into_iter().map(|(_, c)| c).filter(|c| atom_area(c.op)).collect();
        assert!(atoms.len() >= 10, "only {} atom cases", atoms.len());
        assert!(atoms.iter().any(|c| c.op.starts_with("tiled_mma")) && atoms.iter().any(|c| c.op.starts_with("tiled_copy")));
        for c in atoms.iter().filter(|c| c.admissible) {
            crate::expr::eval_str(&c.expr).unwrap_or_else(|e| panic!("{}: {e}", c.expr));
        }
    }

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
        // Simpler: the sum of the integers in the case does not grow.
        let weight = |e: &str| -> i64 { e.split(|c: char| !c.is_ascii_digit()).filter_map(|x| x.parse::<i64>().ok()).sum() };
        let before = tree.current().expr.clone();
        let small = shrink(Box::new(tree), |c| c.op == "composition", 500);
        assert_eq!(small.op, "composition");
        assert!(weight(&small.expr) <= weight(&before), "{} vs {before}", small.expr);
    }
}

#[cfg(test)]
mod coverage {
    use super::*;
    use crate::expr::{eval_str, parse};

    #[test]
    fn cases_cover_the_shapes_and_ops_the_brief_names() {
        let all = cases(5, 1500, (0, 1));
        let mut ops = std::collections::BTreeSet::new();
        let (mut deep, mut zero, mut dynamic, mut rejected) = (false, false, false, 0);
        for (_, c) in &all {
            ops.insert(c.op);
            let e = parse(&c.expr).unwrap_or_else(|e| panic!("{}: {e}", c.expr));
            deep |= c.expr.contains("(((");
            zero |= c.expr.contains(",_0") || c.expr.contains(":_0") || c.expr.contains(",0)");
            dynamic |= c.expr.chars().zip(c.expr.chars().skip(1)).any(|(a, b)| (a == '(' || a == ',') && b.is_ascii_digit());
            // The engine answers every case (a value or a typed error), never panics.
            if std::panic::catch_unwind(|| eval_str(&c.expr)).expect("no panic").is_err() {
                rejected += 1;
            }
            let _ = e;
        }
        // Admissible compositions and divides are defined: the engine (which refuses undefined
        // ones with Error::Undefined) accepts them.
        for (_, c) in all.iter().filter(|(_, c)| c.admissible && matches!(c.op, "composition" | "logical_divide" | "zipped_divide" | "tiled_divide" | "flat_divide")) {
            assert!(eval_str(&c.expr).is_ok(), "{}: {:?}", c.expr, eval_str(&c.expr).err().map(|e| e.to_string()));
        }
        for op in ["coalesce", "composition", "complement", "right_inverse", "left_inverse", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "blocked_product", "raked_product", "max_common_vector", "max_common_layout"] {
            assert!(ops.contains(op), "{op} missing from {ops:?}");
        }
        assert!(deep && zero && dynamic, "deep {deep} zero {zero} dynamic {dynamic}");
        // A share, not all, of the cases are refused by the engine.
        assert!(rejected > 0 && rejected < all.len() / 2, "{rejected} of {}", all.len());
    }
}
