//! Random operation cases for differential runs: generation, seeding, sharding and shrinking.
//!
//! Cases are built by construction (prop_compose / prop_flat_map), never by rejection:
//! - operands that make the operation well defined ("admissible"): tilers and composition
//!   right-hand sides made of factors of the left operand's extents, complements of injective
//!   layouts with cotargets that are multiples of their cosize, inverses of compact layouts;
//! - and a share of deliberately ill-defined ones (arbitrary right operands), so rejections and
//!   CuTe's acceptance of undefined inputs are exercised too.
//!
//! The input space drawn (each case lists what it exercises in [`Case::features`], counted per
//! feature by `cargo xtask conformance`):
//! - layouts of ranks 1-6 and depth up to 4, 1-8 leaves; static, dynamic or mixed leaves; extents
//!   with the primes 2, 3, 5 and 7 and large powers of two, sizes up to 2^20; zero strides, size-1
//!   modes, negative strides (static `_-2` and dynamic `-2`): arbitrary layouts take any sign, and
//!   the left operands of compositions, divides and tiles are compact layouts with some strides
//!   negated (still injective, so still admissible);
//! - tilers of `_`, integers and layouts; `L(coord)` at 1-D, top-level and hierarchical
//!   coordinates;
//! - `Swizzle<B,M,S>` (applied, composed with layouts, evaluated, drawn with `print_layout`,
//!   divided, multiplied), `composition(L, Swizzle)`, the GMMA shared-memory layout atoms (printed,
//!   drawn, recast, divided, multiplied, queried);
//! - every MMA atom and copy operation the engine knows, in tiled MMAs and tiled copies;
//! - local_tile / local_partition, each with its offset (`local_tile_offset`);
//! - layouts with basis strides (`fuzz::basis`): identity layouts and compact layouts whose strides
//!   go to random axes (`_4@1`), printed, evaluated, coalesced, composed, divided, tiled and
//!   partitioned (make_identity_layout's arm);
//! - upcast / downcast of layouts, swizzles and swizzled layouts; coalesce / filter under a target
//!   profile; `get` / `layout` with literal mode indices, `shape` / `stride` (aimed at the lines
//!   `cargo xtask coverage` found no run reaching).
//!
//! A run is reproduced exactly by its seed: case `i` of seed `s` is always the same.

mod basis;
mod desc;
pub mod identity;
mod issues;
mod kernel;
mod tma;

pub use kernel::kernel_partition;

use crate::expr::op::{Op, Part};
pub use crate::gen::boundaries;
use proptest::prelude::*;
pub use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::engine::atom::{copy, mma};
use crate::engine::{Int, IntTuple, Layout, Tup, View};
use crate::expr::{parse, Expr};
use crate::gen::Staticness;

/// One generated case: the operation's name and the expression text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub op: &'static str,
    pub expr: String,
    /// True when the operands were built to satisfy the operation's preconditions.
    pub admissible: bool,
    /// What part of CuTe's input space the case exercises ([`features`]).
    pub features: Vec<String>,
}

impl Case {
    pub fn new(op: &'static str, expr: String, admissible: bool) -> Case {
        let features = features(&expr);
        Case { op, expr, admissible, features }
    }
}

/// The features of a case text, from its AST: `neg-stride-static`, `neg-stride-dynamic`,
/// `zero-stride`, `prime-3`/`5`/`7`, `size>=2^10`, `size>=2^16`, `rank>=5`, `depth>=3`, `depth=4`,
/// `dynamic`, `tiler-underscore`, `tiler-int`, `hier-coord`, `swizzle`, `composed`, `gmma-smem-atom`,
/// `print_layout`, `offset`, `recast`, `mode-index`, `profile` (coalesce/filter under a target
/// profile), `mma-atom`, `copy-atom`, `basis-stride` (a basis element or an identity layout), and
/// `atom:NAME` for each atom or copy operation.
pub fn features(text: &str) -> Vec<String> {
    let mut out = std::collections::BTreeSet::new();
    if let Ok(e) = parse(text) {
        walk(&e, &mut out);
    }
    out.into_iter().collect()
}

fn walk(e: &Expr, out: &mut std::collections::BTreeSet<String>) {
    let mut add = |s: &str| {
        out.insert(s.to_string());
    };
    match e {
        Expr::Layout { .. } => {
            if let Ok(l) = crate::expr::eval(e).and_then(|v| v.to_layout()) {
                for (s, d) in l.leaf_pairs() {
                    if d.value < 0 {
                        add(if d.is_static { "neg-stride-static" } else { "neg-stride-dynamic" });
                    }
                    if d.value == 0 {
                        add("zero-stride");
                    }
                    if !s.is_static || !d.is_static {
                        add("dynamic");
                    }
                    for p in [3, 5, 7] {
                        if s.value != 0 && s.value % p == 0 {
                            add(&format!("prime-{p}"));
                        }
                    }
                }
                let n = l.size().map(|i| i.value).unwrap_or(0);
                if n >= 1 << 10 {
                    add("size>=2^10");
                }
                if n >= 1 << 16 {
                    add("size>=2^16");
                }
                if l.rank() >= 5 {
                    add("rank>=5");
                }
                if l.depth() >= 3 {
                    add("depth>=3");
                }
                if l.depth() >= 4 {
                    add("depth=4");
                }
            }
        }
        Expr::Basis { .. } => add("basis-stride"),
        Expr::Apply { target, args, .. } => {
            if args.iter().any(
                |a| matches!(a, Expr::Tuple { items, .. } if items.iter().any(|x| matches!(x, Expr::Tuple { .. }))),
            ) {
                add("hier-coord");
            }
            walk(target, out);
            for a in args {
                walk(a, out);
            }
        }
        Expr::Tuple { items, .. } => {
            for a in items {
                walk(a, out);
            }
        }
        Expr::Call { name, args, .. } => {
            if Op::lookup(name) == Some(Op::MakeIdentityLayout) {
                add("basis-stride");
            }
            if Op::lookup(name) == Some(Op::MakeIdentityTensor) {
                add("identity-tensor");
            }
            let n = name.to_string();
            let simple = name.simple().unwrap_or("");
            if n.starts_with("Swizzle<") {
                add("swizzle");
            }
            if n.starts_with("GMMA::Layout_") {
                add("gmma-smem-atom");
            }
            if Op::lookup(name) == Some(Op::Composition)
                && args
                    .iter()
                    .any(|a| matches!(a, Expr::Call { name, .. } if name.path.len() == 1 && name.path[0] == "Swizzle"))
            {
                add("composed");
            }
            if simple == "print_layout" {
                add("print_layout");
            }
            if simple.ends_with("_offset") {
                add("offset");
            }
            if name.path.len() == 1 && matches!(name.base(), "upcast" | "downcast") {
                add("recast");
            }
            if matches!(simple, "get" | "layout") && args.len() > 1 {
                add("mode-index");
            }
            if matches!(simple, "coalesce" | "filter") && args.len() == 2 {
                add("profile");
            }
            if matches!(
                simple,
                "logical_divide"
                    | "zipped_divide"
                    | "tiled_divide"
                    | "flat_divide"
                    | "composition"
                    | "local_tile"
                    | "local_tile_offset"
            ) {
                if let Some(Expr::Tuple { items, .. }) = args.get(1) {
                    if items.iter().any(|x| matches!(x, Expr::Underscore { .. })) {
                        add("tiler-underscore");
                    }
                    if items.iter().any(|x| matches!(x, Expr::Int { .. })) {
                        add("tiler-int");
                    }
                }
            }
            if args.is_empty() && mma::mma_atom(&n).is_ok() {
                add("mma-atom");
                add(&format!("atom:{n}"));
            } else if args.is_empty() && copy::copy_traits(&n).is_ok() {
                add("copy-atom");
                add(&format!("atom:{n}"));
            }
            for a in args {
                walk(a, out);
            }
        }
        Expr::Ratio { .. } => add("ratio"),
        Expr::Int { .. } | Expr::Underscore { .. } => {}
    }
}

fn staticness() -> impl Strategy<Value = Staticness> {
    prop_oneof![
        6 => Just(Staticness::AllStatic),
        2 => Just(Staticness::AllDynamic),
        2 => Just(Staticness::Mixed),
    ]
}

/// Extents: mostly small ones made of 2 and 3 (so divisibility happens often), then ones with 5
/// and 7, and a few large powers of two.
fn extent() -> impl Strategy<Value = i64> {
    prop_oneof![
        8 => prop::sample::select(vec![1i64, 2, 3, 4, 6, 8, 2, 4]),
        3 => prop::sample::select(vec![5i64, 7, 9, 10, 12, 14, 15, 16, 21, 35]),
        1 => prop::sample::select(vec![32i64, 64, 128, 256, 1024, 4096]),
    ]
}

/// The most coordinates of a generated layout.
const MAX_SIZE: i64 = 1 << 20;

/// Clamp extents so their product stays at or below `max` (a large extent becomes 2).
fn cap_size(exts: &mut [i64], max: i64) {
    let mut acc = 1i64;
    for e in exts.iter_mut() {
        if acc * *e > max {
            *e = if acc * 2 <= max { 2 } else { 1 };
        }
        acc *= *e;
    }
}

/// How many leaves a layout has: mostly 1-4, sometimes 5-8 (ranks 5 and 6, depth 4).
fn leaf_count(max: usize) -> BoxedStrategy<usize> {
    if max <= 4 {
        return (1usize..=max).boxed();
    }
    prop_oneof![6 => 1usize..=4, 3 => 5usize..=6.min(max), 1 => 7usize..=max].boxed()
}

fn leaf(v: i64, s: bool) -> IntTuple {
    IntTuple::leaf(Int::new(v, s))
}

/// Group a flat list of leaves into a random nesting: at most 6 modes per level, depth up to 4
/// (each group of several leaves nests one level deeper). `cuts` are the random choices.
fn nest(items: Vec<(IntTuple, IntTuple)>, cuts: Vec<usize>) -> (IntTuple, IntTuple) {
    if items.len() == 1 {
        return items.into_iter().next().expect("one item");
    }
    let mut k = 0usize;
    let mut next = move || {
        k += 1;
        cuts.get(k % cuts.len().max(1)).copied().unwrap_or(k * 7919)
    };
    group(items, &mut next, 4)
}

fn group(items: Vec<(IntTuple, IntTuple)>, next: &mut dyn FnMut() -> usize, depth: usize) -> (IntTuple, IntTuple) {
    let n = items.len();
    if n == 1 && depth < 4 {
        return items.into_iter().next().expect("one item");
    }
    // How many modes: every leaf its own mode at the last level, else 2..=min(n,6) groups (the
    // first choice may keep all leaves flat).
    let modes = if depth <= 1 || n <= 2 { n } else { 2 + next() % (n.min(6) - 1) };
    // At the last level every leaf is its own mode (random bounds may coincide and leave a group
    // of several leaves with no level left to nest them in).
    let mut bounds: Vec<usize> = if depth <= 1 {
        (1..n).collect()
    } else {
        (0..modes.saturating_sub(1)).map(|_| 1 + next() % (n - 1)).collect()
    };
    bounds.sort_unstable();
    bounds.dedup();
    let mut parts = Vec::new();
    let mut start = 0;
    for b in bounds.into_iter().chain(std::iter::once(n)) {
        if b > start {
            let g = items[start..b].to_vec();
            parts.push(if g.len() == 1 { g.into_iter().next().expect("one") } else { group(g, next, depth - 1) });
            start = b;
        }
    }
    let (s, d): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
    (IntTuple::tuple(s), IntTuple::tuple(d))
}

fn tagger(st: Staticness, tags: Vec<bool>) -> impl Fn(usize) -> bool {
    move |k| match st {
        Staticness::AllStatic => true,
        Staticness::AllDynamic => false,
        Staticness::Mixed => tags[k % tags.len().max(1)],
    }
}

/// A stride: mostly small and non-negative, a share negative, a few large ones.
fn stride() -> impl Strategy<Value = i64> {
    prop_oneof![6 => 0i64..=16, 2 => -16i64..=-1, 1 => 17i64..=512]
}

/// A layout with up to `max_leaves` leaves grouped into a nesting, arbitrary strides (zeros,
/// repeats and negative ones allowed); indices stay within 32 bits.
fn layout_of(max_leaves: usize) -> impl Strategy<Value = Layout> {
    (staticness(), leaf_count(max_leaves)).prop_flat_map(|(st, n)| {
        (
            prop::collection::vec(extent(), n),
            prop::collection::vec(stride(), n),
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec(any::<usize>(), 8),
            Just(st),
        )
            .prop_map(|(mut exts, mut strides, tags, cuts, st)| {
                cap_size(&mut exts, MAX_SIZE);
                // Keep every index of the layout inside CuTe's 32-bit int.
                let reach: i64 = exts.iter().zip(&strides).map(|(e, d)| (e - 1) * d.abs()).sum();
                if reach >= 1 << 30 {
                    for d in strides.iter_mut() {
                        *d %= 5;
                    }
                }
                let tag = tagger(st, tags);
                let items = (0..exts.len()).map(|k| (leaf(exts[k], tag(k)), leaf(strides[k], tag(k)))).collect();
                let (shape, stride) = nest(items, cuts);
                Layout { shape, stride }
            })
    })
}

/// An arbitrary layout of the full breadth (ranks up to 6, depth up to 4).
fn any_layout() -> impl Strategy<Value = Layout> {
    layout_of(8)
}

/// A compact (injective, contiguous) layout with up to `max_leaves` leaves: extents with strides
/// that are a permutation of the column-major prefix products; with `signed`, some strides are
/// negated (a reversed view: still injective).
fn compact_of(max_leaves: usize, signed: bool) -> impl Strategy<Value = Layout> {
    compact_sized(max_leaves, signed, MAX_SIZE)
}

/// [`compact_of`] with at most `max_size` coordinates.
fn compact_sized(max_leaves: usize, signed: bool, max_size: i64) -> impl Strategy<Value = Layout> {
    (staticness(), leaf_count(max_leaves)).prop_flat_map(move |(st, n)| {
        (
            prop::collection::vec(extent(), n),
            Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec(any::<usize>(), 8),
            prop::collection::vec(prop::bool::weighted(if signed { 0.3 } else { 0.0 }), n),
            Just(st),
        )
            .prop_map(move |(mut exts, order, tags, cuts, neg, st)| {
                cap_size(&mut exts, max_size);
                let n = exts.len();
                let tag = tagger(st, tags);
                let mut strides = vec![0i64; n];
                let mut acc = 1i64;
                for &k in &order {
                    strides[k] = if neg[k] { -acc } else { acc };
                    acc *= exts[k];
                }
                let items = (0..n).map(|k| (leaf(exts[k], tag(k)), leaf(strides[k], tag(k)))).collect();
                let (shape, stride) = nest(items, cuts);
                Layout { shape, stride }
            })
    })
}

/// A compact layout of the full breadth (non-negative strides).
fn compact() -> impl Strategy<Value = Layout> {
    compact_of(8, false)
}

/// A compact layout, some strides negated (the left operand of compositions, divides, tiles), of
/// at most 2^15 coordinates: composing it with a right operand on its boundaries then stays inside
/// CuTe's 32-bit ints (strides up to size times size).
fn signed_compact() -> impl Strategy<Value = Layout> {
    compact_sized(8, true, 1 << 15)
}

/// Whether CuTe's complement takes `a` (complement.hpp: "Dynamic-stride complement only for rank-1
/// layouts"): static strides, or a single leaf.
fn complement_takes(a: &Layout) -> bool {
    static_flag(a) || a.shape.leaves().len() == 1
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

/// One element of a tiler: `_`, an integer `n`, or a layout `k:s`; with the number of elements
/// it takes from its mode (the mode's size for `_`).
#[derive(Clone, Debug)]
enum TilePart {
    Under,
    Int(i64),
    Layout(i64, i64),
}

/// A tiler for `a`'s modes, one element per top-level mode: `_` (where `underscore`; zipped, tiled
/// and flat divides do not take it: CuTe's zip needs rank-2 divided modes), an integer or a layout
/// `k:s` on the mode's [`boundaries`] (admissible) -- built from them, never filtered.
fn tiler_parts(a: &Layout, underscore: bool) -> BoxedStrategy<Vec<TilePart>> {
    let parts: Vec<BoxedStrategy<TilePart>> = a
        .modes()
        .iter()
        .map(|m| {
            let leaves: Vec<i64> = m.shape.leaves().iter().map(|i| i.value).collect();
            let d = boundaries(&leaves);
            let pairs: Vec<(i64, i64)> =
                d.iter().flat_map(|&s| d.iter().filter(move |&&t| t % s == 0).map(move |&t| (s, t / s))).collect();
            (prop::sample::select(d), prop::sample::select(pairs), 0u8..6)
                .prop_map(move |(n, (s, k), how)| match how {
                    0 if underscore => TilePart::Under,
                    0..=2 => TilePart::Int(n),
                    // A tile k:s whose start and end fall on the mode's boundaries.
                    _ => TilePart::Layout(k, s),
                })
                .boxed()
        })
        .collect();
    parts.boxed()
}

fn render_tiler(parts: &[TilePart], st: bool) -> String {
    let v: Vec<String> = parts
        .iter()
        .map(|p| match p {
            TilePart::Under => "_".to_string(),
            TilePart::Int(n) => Int::new(*n, st).to_string(),
            TilePart::Layout(k, s) => format!("{}:{}", Int::new(*k, st), Int::new(*s, st)),
        })
        .collect();
    format!("({})", v.join(","))
}

fn tiler_for(a: &Layout, underscore: bool) -> BoxedStrategy<String> {
    let st = static_flag(a);
    tiler_parts(a, underscore).prop_map(move |p| render_tiler(&p, st)).boxed()
}

/// Two compact layouts for a product; small sizes keep the results walkable.
fn product_pair() -> impl Strategy<Value = (Layout, Layout)> {
    (compact_of(4, false), compact_of(3, false))
}

/// Whether CuTe's product of `a` and `b` stays inside its 32-bit ints: every product (blocked and
/// raked included) takes the complement of `a` in size(a) * cosize(b) (layout.hpp,
/// logical_product), and the result has size(a) * size(b) coordinates. Beyond that CuTe's static
/// arithmetic overflows (undefined behaviour: the oracle reports `Outcome::Overflow`), so no
/// product is defined.
fn product_fits(a: &Layout, b: &Layout) -> bool {
    let v = |x: crate::engine::Result<Int>| x.map(|i| i.value.max(1)).unwrap_or(i64::MAX / 4);
    let (sa, sb, cb) = (v(a.size()), v(b.size()), v(b.cosize()));
    sa.saturating_mul(cb) < 1 << 31 && sa.saturating_mul(sb) < 1 << 31
}

/// Admissible operands of a product: CuTe's complement of `a` exists and the sizes fit.
fn product_admissible(a: &Layout, b: &Layout) -> bool {
    complement_takes(a) && product_fits(a, b)
}

/// A coordinate for a layout of shape `shape`, in range: per mode a 1-D integer or (for a tuple
/// mode) a coordinate of its own, so 1-D, top-level and hierarchical coordinates all occur.
fn coord_for(shape: &Tup, picks: &[u32], k: &mut usize) -> String {
    let mut pick = || {
        *k += 1;
        picks[*k % picks.len()] as i64
    };
    match shape.view() {
        View::Leaf(n) => (pick() % n.value.max(1)).to_string(),
        View::Tuple(items) => {
            if pick() % 3 == 0 {
                let n = shape.product().map(|i| i.value).unwrap_or(1).max(1);
                return (pick() % n).to_string();
            }
            let parts: Vec<String> = items.iter().map(|m| coord_for(m, picks, k)).collect();
            format!("({})", parts.join(","))
        }
    }
}

/// An evaluation `L(c)` of `l` (whose text is `text`) at a random in-range coordinate.
fn evaluation(text: String, shape: IntTuple) -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u32>(), 16).prop_map(move |picks| {
        let c = coord_for(&shape, &picks, &mut 0);
        format!("{text}({c})")
    })
}

/// `Swizzle<B,M,S>`: B in 0..=3, M in 0..=4, |S| >= B (CuTe's condition), either sign of S;
/// with `valid` false, |S| < B (refused by CuTe's static_assert).
fn swizzle(valid: bool) -> impl Strategy<Value = (i64, i64, i64)> {
    (0i64..=3, 0i64..=4, 0i64..=3, any::<bool>()).prop_map(move |(b, m, extra, neg)| {
        let s = if valid { b + extra } else { (b + 1 + extra).min(3) };
        let b = if valid { b } else { s + 1 };
        let s = if neg && s > 0 { -s } else { s };
        (b, m, s)
    })
}

fn swizzle_text((b, m, s): (i64, i64, i64)) -> String {
    format!("Swizzle<{b},{m},{s}>")
}

/// Swizzles and composed layouts: `Swizzle<B,M,S>(x)`, `composition(Sw, L)` printed, evaluated,
/// drawn, divided and multiplied, `composition(L, Sw)`; the GMMA shared-memory layout atoms
/// printed, drawn, recast, divided, multiplied and queried.
fn swizzled() -> BoxedStrategy<Case> {
    let apply = (swizzle(true), any::<u32>()).prop_map(|(sw, x)| {
        let n = 1i64 << (sw.0 + sw.1 + sw.2.abs() + 1);
        Case::new("swizzle", format!("{}({})", swizzle_text(sw), x as i64 % n), true)
    });
    let bad = swizzle(false).prop_map(|sw| Case::new("swizzle", format!("{}(5)", swizzle_text(sw)), false));
    let composed = (swizzle(true), compact_of(4, false), 0u8..4).prop_flat_map(|(sw, l, how)| {
        let c = format!("composition({},{l})", swizzle_text(sw));
        let shape = l.shape.clone();
        let st = static_flag(&l);
        let t = tiler_parts_or_unit(&l);
        (Just((c, how, l)), evaluation(String::new(), shape), t, compact_of(3, false), 0usize..10).prop_map(
            move |((c, how, l), at, tiler, b, f)| match how {
                0 => Case::new("composition", c, true),
                1 => Case::new("evaluate", format!("{c}{at}"), true),
                2 if l.rank() == 2 && l.size().is_ok_and(|n| n.value <= 1024) => {
                    Case::new("print_layout", format!("print_layout({c})"), true)
                }
                2 | 3 => {
                    let f = [
                        Op::LogicalDivide,
                        Op::ZippedDivide,
                        Op::TiledDivide,
                        Op::FlatDivide,
                        Op::LogicalProduct,
                        Op::ZippedProduct,
                        Op::TiledProduct,
                        Op::FlatProduct,
                        Op::BlockedProduct,
                        Op::RakedProduct,
                    ][f];
                    let divide = matches!(f, Op::LogicalDivide | Op::ZippedDivide | Op::TiledDivide | Op::FlatDivide);
                    let rhs = if divide { render_tiler(&tiler, st) } else { b.to_string() };
                    Case::new(
                        f.name(),
                        format!("{f}({c},{rhs})"),
                        divide
                            || (complement_takes(&l)
                                && matches!(f, Op::LogicalProduct | Op::BlockedProduct | Op::RakedProduct)),
                    )
                }
                _ => unreachable!(),
            },
        )
    });
    // composition(L, Sw): CuTe reads L at the swizzle's masks (make_swizzle); defined when the bit
    // counts match, which random operands need not meet.
    let layout_swizzle = (compact_of(4, false), swizzle(true))
        .prop_map(|(l, sw)| Case::new("composition", format!("composition({l},{})", swizzle_text(sw)), false));
    const TYPES: &[&str] = &["half_t", "bfloat16_t", "float", "tfloat32_t", "int8_t", "uint8_t", "double"];
    let gmma = (
        prop::sample::select(vec!["MN", "K"]),
        prop::sample::select(vec!["INTER", "SW32", "SW64", "SW128"]),
        prop::sample::select(TYPES.to_vec()),
        0usize..12,
        prop::sample::select(vec![1i64, 2, 4]),
        compact_of(2, false),
    )
        .prop_map(|(major, sw, ty, how, n, b)| {
            let atom = format!("GMMA::Layout_{major}_{sw}_Atom<{ty}>");
            let bits = format!("GMMA::Layout_{major}_{sw}_Atom_Bits");
            let static_b = b.shape.is_static() && b.stride.is_static();
            match how {
                0 => Case::new("gmma-smem-atom", atom, true),
                1 => Case::new("gmma-smem-atom", bits, true),
                2 => Case::new("print_layout", format!("print_layout({atom})"), true),
                3 => Case::new("upcast", format!("upcast<{n}>({atom})"), true),
                4 => Case::new("downcast", format!("downcast<{n}>({atom})"), true),
                5 => Case::new(
                    "query",
                    format!("{}({atom})", [Op::Size, Op::Cosize, Op::Rank, Op::Depth][n as usize % 4]),
                    true,
                ),
                6 => Case::new("tiled_divide", format!("tiled_divide({atom},(_8,_8))"), true),
                7 => Case::new("logical_divide", format!("logical_divide({atom},(_4,_))"), true),
                8 => Case::new("blocked_product", format!("blocked_product({atom},{b})"), static_b),
                9 => Case::new("raked_product", format!("raked_product({atom},{b})"), static_b),
                10 => Case::new("coalesce", format!("coalesce({atom})"), true),
                _ => Case::new("get", format!("get({atom},{})", n % 2), true),
            }
        });
    prop_oneof![2 => apply, 1 => bad, 6 => composed, 1 => layout_swizzle, 4 => gmma].boxed()
}

/// [`tiler_parts`] without `_` (the divides of composed layouts include zipped ones).
fn tiler_parts_or_unit(l: &Layout) -> BoxedStrategy<Vec<TilePart>> {
    tiler_parts(l, false)
}

/// Tiled copies and tiled MMAs over every atom and copy operation the engine knows (static
/// layouts, as CuTe needs), and the atoms' own members.
/// Admissible: the value layout holds a whole number of copy instructions' worth of values and
/// the thread layout a whole number of the atom's threads; the MMA atom layout is a small (M,N,1)
/// grid, with permutations that are multiples of the atom's tile. Ill-defined: a value layout of
/// the wrong size.
fn atoms() -> BoxedStrategy<Case> {
    let copies: Vec<(String, String, i64, i64)> = copy::copy_atom_cases()
        .into_iter()
        // The SM100 TMEM loads and stores (engine::atom::tmem).
        .chain(crate::engine::atom::tmem::tmem_copy_cases())
        .filter_map(|(op, t)| {
            let a = copy::copy_atom(&op, &t).ok()?;
            let thr = a.thr_id.size().ok()?.value;
            let vals = a.ref_.mode(1).ok()?.size().ok()?.value;
            Some((op, t, thr, vals))
        })
        .collect();
    let pow2 = || prop::sample::select(vec![1i64, 2, 4, 8, 16, 32]);
    let copy = (prop::sample::select(copies), pow2(), pow2(), any::<bool>(), any::<bool>(), 0u8..8, 0usize..9)
        .prop_map(|((op, ty, thr_n, per), tm, tn, thr_row_major, val_along_m, k, f)| {
            // Threads: a multiple of the atom's thread count.
            let tn = if tm * tn < thr_n { thr_n / tm.min(thr_n) } else { tn };
            let well_sized = k < 6;
            let n_vals = if well_sized { per * [1, 1, 1, 2, 2, 4][k as usize] } else { per * 3 / 2 + 1 };
            let thr =
                if thr_row_major { format!("(_{tm},_{tn}):(_{tn},_1)") } else { format!("(_{tm},_{tn}):(_1,_{tm})") };
            let val = if val_along_m { format!("(_{n_vals},_1):(_1,_0)") } else { format!("(_1,_{n_vals}):(_0,_1)") };
            let ok = well_sized && (tm * tn) % thr_n == 0;
            match f {
                0..=2 => Case::new("tiled_copy_tv", format!("tiled_copy_tv({op},{ty},{thr},{val})"), ok),
                3 | 4 => Case::new("tiled_copy_tiler", format!("tiled_copy_tiler({op},{ty},{thr},{val})"), ok),
                5 => Case::new(
                    "copy_atom",
                    format!("{}({op},{ty})", [Op::CopyAtomSrc, Op::CopyAtomDst, Op::CopyAtomRef][k as usize % 3]),
                    true,
                ),
                6 => Case::new("copy_atom", format!("copy_atom({op},{ty})"), true),
                7 => Case::new("make_tiled_copy", format!("make_tiled_copy(copy_atom({op},{ty}),{thr},{val})"), ok),
                _ => Case::new("copy_atom", format!("copy_atom_thr_id({op},{ty})"), true),
            }
        });
    let names = mma::mma_atom_names();
    let warpgroup = |n: &str| n.starts_with("SM90_64x") || n.starts_with("SM90::GMMA::SPARSE::");
    let mut warp: Vec<String> = names.iter().filter(|n| !warpgroup(n)).cloned().collect();
    // The SM120 warp-level F8F6F4 and block-scaled atoms (engine::atom::sm120).
    warp.extend(crate::engine::atom::sm120::sm120_atom_names());
    let gmma: Vec<String> = names.iter().filter(|n| warpgroup(n)).cloned().collect();
    // The SM100 UMMA atoms (engine::atom::umma), one issuing thread (or SM pair) per tile.
    let umma = crate::engine::atom::umma::umma_atom_names();
    let atom = prop_oneof![prop::sample::select(warp), prop::sample::select(gmma), prop::sample::select(umma)];
    let mma = (
        atom,
        prop::sample::select(vec![1i64, 2, 4]),
        prop::sample::select(vec![1i64, 2]),
        any::<bool>(),
        0usize..10,
        1i64..=2,
        1i64..=2,
    )
        .prop_map(|(atom, m, n, n_major, f, pm, pk)| {
            // A warpgroup atom alone already has up to 2^20 (thread, value) pairs: the engine's
            // walk limit (limits::WALK); no larger tilings of it.
            let gmma =
                atom.starts_with("SM90_64x") || atom.starts_with("SM90::GMMA::SPARSE::") || atom.starts_with("SM100_");
            let (m, n, pm, pk) = if gmma { (1, 1, 1, 1) } else { (m, n, pm, pk) };
            let layout = if n_major { format!("(_{m},_{n},_1):(_{n},_1,_0)") } else { format!("(_{m},_{n},_1)") };
            // Permutations: multiples of the tiled atom's M and K, `_` for N.
            let perms = mma::mma_atom(&atom)
                .ok()
                .and_then(|a| a.mnk().ok())
                .map(|[am, _, ak]| format!(",(_{},_,_{})", am * m * pm, ak * pk))
                .unwrap_or_default();
            let perms = if f >= 5 { perms } else { String::new() };
            // An atom whose own traits break the atom's definition (CuTe 4.2's int4 m16n8k32
            // BLayout) makes no tiled MMA admissible.
            // Nor, before 4.1, an atom with a thread-ID layout that is not compact (SM70): the
            // pre-4.2 tiled layouts do not cover their tile (known.rs,
            // tiled-mma-thr-id-not-compact-before-4.2).
            // Nor an atom the modelled release does not declare yet (SM100 before 3.8).
            let declared = crate::engine::atom::mma::mma_atom(&atom).is_ok();
            let ok = declared
                && crate::known::mma_atom_meets_definition(&atom)
                && !crate::known::mma_thr_id_not_compact_before_4_2(&atom);
            match f % 5 {
                _ if f == 9 => {
                    // One member of the atom: admissible where the release declares traits that
                    // take these operand types (a complex SM100 _SCALED atom has them only from
                    // 4.4), the whole atom where `MMA_Atom` accepts it too, an operand layout
                    // where it meets the atom's definition.
                    let member =
                        [Op::MmaLayoutA, Op::MmaLayoutB, Op::MmaLayoutC, Op::MmaShape, Op::MmaThrId, Op::MmaAtom]
                            [(m + n) as usize % 6];
                    let member_ok = declared
                        && (member != Op::MmaAtom || crate::engine::atom::mma::check_atom(&atom).is_ok())
                        && (![Op::MmaLayoutA, Op::MmaLayoutB, Op::MmaLayoutC].contains(&member)
                            || crate::known::mma_atom_meets_definition(&atom));
                    Case::new("mma_atom", format!("{member}({atom})"), member_ok)
                }
                0 => Case::new("tiled_mma_tv_a", format!("tiled_mma_tv_a({atom},{layout}{perms})"), ok),
                1 => Case::new("tiled_mma_tv_b", format!("tiled_mma_tv_b({atom},{layout}{perms})"), ok),
                2 => Case::new("tiled_mma_tv_c", format!("tiled_mma_tv_c({atom},{layout}{perms})"), ok),
                3 => Case::new("tiled_mma_tile", format!("tiled_mma_tile({atom},{layout}{perms})"), ok),
                _ => Case::new("tiled_mma_thr_layout", format!("tiled_mma_thr_layout({atom},{layout}{perms})"), ok),
            }
        });
    prop_oneof![copy, mma].boxed()
}

/// The Blackwell and sparse atoms on their own arm, so that a run of a few hundred cases meets
/// them: the SM100 UMMA atoms of every family and form (dense, `_SCALED`, `_SS_SPARSE`,
/// interleaved complex; engine::atom::umma) and the SM120 and SM90 sparse atoms, each with one
/// member (`mma_layout_e/sfa/sfb` where the traits declare them), and the SM100 TMEM, UTCCP,
/// 8-bit ldmatrix/stmatrix, 256-bit and LOAD_STAT copy atoms' members. Every name is one the tables accept; a case is admissible where the
/// drawing release declares the atom (a release without it refuses on both sides).
fn blackwell() -> BoxedStrategy<Case> {
    use crate::engine::atom::{sm120, tmem, umma};
    let mma_names: Vec<String> = umma::umma_atom_names()
        .into_iter()
        .chain(sm120::sm120_atom_names())
        .chain(mma::sparse_gmma_names().into_iter().step_by(7))
        .collect();
    let mma = (prop::sample::select(mma_names), 0usize..8).prop_map(|(atom, k)| {
        // Admissible where the release declares the atom (its traits resolve) and, for the whole
        // atom and its tilings, MMA_Atom accepts it.
        let traits_ok = mma::mma_atom(&atom).is_ok();
        let atom_ok = traits_ok && mma::check_atom(&atom).is_ok();
        let extra = mma::mma_extra(&atom).unwrap_or_default();
        let has = [extra.e.is_some(), extra.sfa.is_some(), extra.sfb.is_some()];
        let ops = [Op::MmaLayoutE, Op::MmaLayoutSfa, Op::MmaLayoutSfb];
        let op = match k {
            0..=2 if has[k] => ops[k],
            0 | 6 => Op::MmaLayoutA,
            1 => Op::MmaLayoutB,
            2 => Op::MmaLayoutC,
            3 => Op::MmaShape,
            4 => Op::MmaThrId,
            5 => Op::MmaAtom,
            _ => return Case::new("tiled_mma_tv_c", format!("tiled_mma_tv_c({atom})"), atom_ok),
        };
        let ok = if op == Op::MmaAtom { atom_ok } else { traits_ok };
        Case::new("mma_atom", format!("{op}({atom})"), ok)
    });
    let copies: Vec<(String, String)> = tmem::tmem_copy_cases()
        .into_iter()
        .chain(
            tmem::utccp_ops().into_iter().flat_map(|o| [(o.clone(), "float".to_string()), (o, "half_t".to_string())]),
        )
        // The SM100 8-bit ldmatrix/stmatrix, 256-bit and LOAD_STAT copies (issue 27).
        .chain(copy::sm100_copy_cases())
        .collect();
    let copy = (prop::sample::select(copies), 0usize..5).prop_map(|((op, ty), k)| {
        let f = [Op::CopyAtomSrc, Op::CopyAtomDst, Op::CopyAtomRef, Op::CopyAtomThrId, Op::CopyAtom][k];
        let ok = copy::copy_atom(&op, &ty).is_ok();
        Case::new("copy_atom", format!("{f}({op},{ty})"), ok)
    });
    prop_oneof![3 => mma, 1 => copy].boxed()
}

/// local_tile and local_partition of a compact layout (some strides negated), each with its
/// offset: tilers on the modes' boundaries with in-range tile coordinates (`_` keeps a mode),
/// thread layouts whose modes are such tile sizes, in-range thread indices.
fn local() -> BoxedStrategy<Case> {
    let tile = signed_compact()
        .prop_flat_map(|a| {
            let t = tiler_parts(&a, false);
            (Just(a), t, prop::collection::vec(any::<u32>(), 8), any::<bool>())
        })
        .prop_map(|(a, parts, picks, off)| {
            let st = static_flag(&a);
            let coord: Vec<String> = parts
                .iter()
                .zip(a.modes())
                .enumerate()
                .map(|(k, (p, m))| {
                    let size = m.size().map(|i| i.value).unwrap_or(1);
                    let t = match p {
                        TilePart::Under => size,
                        TilePart::Int(n) | TilePart::Layout(n, _) => *n,
                    };
                    let tiles = (size / t.max(1)).max(1);
                    if picks[k % 8] % 5 == 0 {
                        "_".to_string()
                    } else {
                        (picks[(k + 3) % 8] as i64 % tiles).to_string()
                    }
                })
                .collect();
            let f = if off { "local_tile_offset" } else { "local_tile" };
            Case::new(f, format!("{f}({a},{},({}))", render_tiler(&parts, st), coord.join(",")), true)
        });
    let partition = signed_compact()
        .prop_flat_map(|a| {
            let sizes: Vec<BoxedStrategy<i64>> = a
                .modes()
                .iter()
                .map(|m| {
                    let leaves: Vec<i64> = m.shape.leaves().iter().map(|i| i.value).collect();
                    let size = m.size().map(|i| i.value).unwrap_or(1);
                    let d: Vec<i64> = boundaries(&leaves).into_iter().filter(|b| size % b == 0).collect();
                    prop::sample::select(d).boxed()
                })
                .collect();
            (Just(a), sizes, any::<bool>(), any::<u32>(), any::<bool>())
        })
        .prop_map(|(a, sizes, right, i, off)| {
            let st = static_flag(&a);
            let shape: Vec<String> = sizes.iter().map(|&n| Int::new(n, st).to_string()).collect();
            let shape = format!("({})", shape.join(","));
            let thr = if right { format!("make_layout_right({shape})") } else { format!("make_layout({shape})") };
            let n: i64 = sizes.iter().product();
            let f = if off { "local_partition_offset" } else { "local_partition" };
            Case::new(f, format!("{f}({a},{thr},{})", i as i64 % n.max(1)), true)
        });
    prop_oneof![tile, partition].boxed()
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
    Case::new(op, expr, admissible)
}

// The generators of the operations: each entry of the table of operations (`harness/expr/op.rs`)
// names one of these (or says why it has none). Each gives admissible operands and, where the
// operation has preconditions, a share of ill-defined ones.

/// `op(L)` for an arbitrary layout: coalesce, filter, filter_zeros, flatten, and the queries
/// size, cosize, rank, depth.
pub fn unary(op: Op) -> BoxedStrategy<Case> {
    any_layout().prop_map(move |l| case_of(op.name(), format!("{op}({l})"), true)).boxed()
}

/// `L(c)` at a 1-D, top-level or hierarchical coordinate `c` inside the domain: a form of the
/// expression language, not an operation.
pub fn evaluate() -> BoxedStrategy<Case> {
    any_layout()
        .prop_flat_map(|l| {
            let text = l.to_string();
            evaluation(text, l.shape.clone())
        })
        .prop_map(move |e| case_of("evaluate", e, true))
        .boxed()
}

/// `print_layout(L)` of a rank-2 layout (any strides; small enough to draw is admissible).
pub fn print_layout() -> BoxedStrategy<Case> {
    (layout_of(4), layout_of(3))
        .prop_map(move |(a, b)| {
            let l = Layout::concat(&[a, b]);
            let small = l.size().is_ok_and(|n| n.value <= 4096);
            let l = if small { l } else { Layout::concat(&[l.mode(0).unwrap_or_else(|_| l.clone())]) };
            case_of("print_layout", format!("print_layout({l})"), small)
        })
        .boxed()
}

/// composition with an admissible right operand, an admissible tiler, or an arbitrary layout.
pub fn composition() -> BoxedStrategy<Case> {
    let c = case_of;
    prop_oneof![
        4 => signed_compact()
            .prop_flat_map(|a| {
                let b = admissible_rhs(&a, false);
                (Just(a), b)
            })
            .prop_map(move |(a, b)| c("composition", format!("composition({a},{b})"), true)),
        4 => signed_compact()
            .prop_flat_map(|a| {
                let t = tiler_for(&a, true);
                (Just(a), t)
            })
            .prop_map(move |(a, t)| c("composition", format!("composition({a},{t})"), true)),
        1 => (any_layout(), layout_of(4)).prop_map(move |(a, b)| c("composition", format!("composition({a},{b})"), false)),
    ]
    .boxed()
}

/// complement of compact layouts (cotarget a multiple of the cosize, or none), and of arbitrary
/// layouts with arbitrary cotargets.
pub fn complement() -> BoxedStrategy<Case> {
    let c = case_of;
    prop_oneof![
        4 => compact()
            .prop_flat_map(|a| {
                let cos = a.cosize().map(|i| i.value).unwrap_or(1).max(1);
                (Just(a), 1i64..=3).prop_map(move |(a, k)| (a, cos * k))
            })
            .prop_map(move |(a, m)| {
                let st = static_flag(&a);
                c("complement", format!("complement({a},{})", Int::new(m, st)), complement_takes(&a))
            }),
        4 => compact().prop_map(move |a| c("complement", format!("complement({a})"), complement_takes(&a))),
        1 => any_layout().prop_map(move |a| c("complement", format!("complement({a})"), false)),
        1 => (any_layout(), 1i64..=64).prop_map(move |(a, m)| {
            let st = static_flag(&a);
            c("complement", format!("complement({a},{})", Int::new(m, st)), false)
        }),
    ]
    .boxed()
}

/// right_inverse / left_inverse of compact layouts, and of arbitrary ones.
pub fn inverse(op: Op) -> BoxedStrategy<Case> {
    prop_oneof![
        // CuTe: "Left inverse requires static strides." Before 3.9 left_inverse is the right
        // inverse of (L, complement(L)), which needs L's sorted strides to nest (a padded
        // row-major (_128,_192):(_256,_1) has none: known.rs complement-strides-do-not-nest).
        6 => compact().prop_map(move |a| {
            let left = static_flag(&a) && (crate::engine::release::INVERSES_SORTED.on() || !crate::known::strides_do_not_nest(&a));
            case_of(op.name(), format!("{op}({a})"), op == Op::RightInverse || left)
        }),
        1 => signed_compact().prop_map(move |a| case_of(op.name(), format!("{op}({a})"), false)),
        1 => any_layout().prop_map(move |a| case_of(op.name(), format!("{op}({a})"), false)),
    ]
    .boxed()
}

/// logical_divide by an admissible layout, an admissible tiler, or an arbitrary layout.
pub fn logical_divide() -> BoxedStrategy<Case> {
    let c = case_of;
    prop_oneof![
        4 => signed_compact()
            .prop_flat_map(|a| {
                let b = admissible_rhs(&a, true);
                (Just(a), b)
            })
            .prop_map(move |(a, b)| c("logical_divide", format!("logical_divide({a},{b})"), true)),
        4 => signed_compact()
            .prop_flat_map(|a| {
                let t = tiler_for(&a, true);
                (Just(a), t)
            })
            .prop_map(move |(a, t)| c("logical_divide", format!("logical_divide({a},{t})"), true)),
        1 => (compact(), layout_of(4)).prop_map(move |(a, b)| c("logical_divide", format!("logical_divide({a},{b})"), false)),
    ]
    .boxed()
}

/// zipped / tiled / flat divide by an admissible tiler without `_`.
pub fn regrouped_divide(op: Op) -> BoxedStrategy<Case> {
    signed_compact()
        .prop_flat_map(|a| {
            let t = tiler_for(&a, false);
            (Just(a), t)
        })
        .prop_map(move |(a, t)| case_of(op.name(), format!("{op}({a},{t})"), true))
        .boxed()
}

/// logical_product of two compact layouts, or of arbitrary ones.
pub fn logical_product() -> BoxedStrategy<Case> {
    let c = case_of;
    prop_oneof![
        6 => product_pair().prop_map(move |(a, b)| c("logical_product", format!("logical_product({a},{b})"), product_admissible(&a, &b))),
        // A reversed view times a layout: the complement of a layout with negative strides.
        1 => (compact_of(3, true), compact_of(2, false))
            .prop_map(move |(a, b)| c("logical_product", format!("logical_product({a},{b})"), false)),
        1 => (layout_of(4), layout_of(3)).prop_map(move |(a, b)| c("logical_product", format!("logical_product({a},{b})"), false)),
    ]
    .boxed()
}

/// blocked_product / raked_product of two compact layouts.
/// `tile_to_shape(block, shape[, order])` as shared-memory layouts are made: a compact block, a
/// GMMA shared-memory atom or `composition(Swizzle, block)`, tiled to a shape whose modes are
/// multiples of the block's (plus up to two stage modes), in column-major order, `GenRowMajor` or a
/// `Step` permutation; sometimes in CuTe's C++ spelling (`make_shape(Int<N>{},...)`, `Step<...>{}`).
/// Ill-defined: a static target mode the block does not divide (CuTe's static_assert).
pub fn tile_to_shape() -> BoxedStrategy<Case> {
    const TYPES: &[&str] = &["half_t", "bfloat16_t", "float", "int8_t", "tfloat32_t"];
    let gmma = (
        prop::sample::select(vec!["MN", "K"]),
        prop::sample::select(vec!["INTER", "SW32", "SW64", "SW128"]),
        prop::sample::select(TYPES.to_vec()),
    )
        .prop_map(|(major, sw, ty)| format!("GMMA::Layout_{major}_{sw}_Atom<{ty}>"));
    // Static blocks (CuTe's blocked product needs static strides for a rank > 1 complement).
    fn static_of(l: Layout) -> Layout {
        let st = |t: &crate::engine::Tup| t.map_leaves(&mut |i| Ok(crate::engine::Int::st(i.value))).expect("no error");
        Layout { shape: st(&l.shape), stride: st(&l.stride) }
    }
    let plain = compact_sized(3, false, 64).prop_map(|l| static_of(l).to_string());
    let swz = (swizzle(true), compact_sized(3, false, 64))
        .prop_map(|(sw, l)| format!("composition({},{})", swizzle_text(sw), static_of(l)));
    let block = prop_oneof![2 => plain, 2 => gmma, 1 => swz];
    (
        block,
        prop::collection::vec(1i64..=4, 4),
        0usize..=2,
        prop::collection::vec(1i64..=4, 2),
        0usize..6,
        Just(()).prop_perturb(|_, mut rng| {
            let mut p: Vec<usize> = (0..5).collect();
            for i in (1..p.len()).rev() {
                p.swap(i, (rng.next_u32() as usize) % (i + 1));
            }
            p
        }),
        any::<bool>(),
    )
        .prop_map(|(block, mult, stages, stage_n, how, perm, cpp)| {
            // The block's layout, for its mode sizes (the plain block or the one inside).
            let l = match crate::expr::eval_str(&block) {
                Ok(crate::expr::Value::Layout(l)) => l,
                Ok(crate::expr::Value::Atom(crate::expr::value::AtomValue::Composed(c))) => c.layout,
                _ => return Case::new("tile_to_shape", format!("tile_to_shape({block},(_8,_8))"), false),
            };
            let sizes: Vec<i64> = if l.shape.is_tuple() {
                l.modes().iter().map(|m| m.size().map_or(1, |s| s.value)).collect()
            } else {
                vec![l.size().map_or(1, |s| s.value)]
            };
            let bad = how == 5;
            let mut target: Vec<i64> = sizes.iter().zip(&mult).map(|(s, m)| s * m).collect();
            if bad {
                // A mode the block does not divide (block sizes above 1 only).
                if let Some(k) = sizes.iter().position(|&s| s > 1) {
                    target[k] = sizes[k] * mult[k] + 1;
                }
            }
            target.extend(stage_n.iter().take(stages));
            let r = target.len();
            // A dynamic block mode has no static answer to CuTe's divisibility check against a
            // static target: such a block is tiled to a dynamic target (no check at all).
            let dynamic = !l.shape.is_static() || how == 1;
            let int = |t: &i64| match (cpp, dynamic) {
                (true, false) => format!("Int<{t}>{{}}"),
                (false, false) => format!("_{t}"),
                (_, true) => t.to_string(),
            };
            let shape = if cpp {
                format!("make_shape({})", target.iter().map(int).collect::<Vec<_>>().join(", "))
            } else {
                format!("({})", target.iter().map(int).collect::<Vec<_>>().join(","))
            };
            let steps: Vec<usize> = perm.iter().copied().filter(|&p| p < r).collect();
            let order = match how {
                2 => ",GenRowMajor".to_string(),
                3 | 4 if cpp => {
                    format!(",Step<{}>{{}}", steps.iter().map(|s| format!("_{}", s + 1)).collect::<Vec<_>>().join(","))
                }
                3 | 4 => format!(",({})", steps.iter().map(|s| format!("_{}", s + 1)).collect::<Vec<_>>().join(",")),
                _ => String::new(),
            };
            let divides = !bad || dynamic || sizes.iter().all(|&s| s <= 1);
            Case::new("tile_to_shape", format!("tile_to_shape({block},{shape}{order})"), divides)
        })
        .boxed()
}

/// Slicing with `_`: `slice(c, L)` (also as `L(c)`), `dice(c, L)`, `slice_and_offset(c, L)` for an
/// arbitrary layout and a coordinate congruent to it at the top level (each mode `_`, an integer
/// inside it, or, for a nested mode, a tuple of those per sub-mode). Ill-defined: a coordinate of
/// another rank (CuTe's "Mismatched Ranks").
pub fn slicing(op: Op) -> BoxedStrategy<Case> {
    fn coord(l: &Layout, picks: &[u32], k: &mut usize, depth: usize) -> String {
        let mut pick = || {
            *k += 1;
            picks[*k % picks.len()]
        };
        let p = pick();
        if p % 3 == 0 {
            return "_".into();
        }
        if depth < 2 && l.shape.is_tuple() && p % 3 == 2 {
            let parts: Vec<String> = l.modes().iter().map(|m| coord(m, picks, k, depth + 1)).collect();
            return format!("({})", parts.join(","));
        }
        let n = l.size().map_or(1, |s| s.value).max(1);
        (i64::from(pick()) % n).to_string()
    }
    (any_layout(), prop::collection::vec(any::<u32>(), 16), 0u32..8)
        .prop_map(move |(l, picks, how)| {
            let mut k = 0;
            let top: Vec<String> = if l.shape.is_tuple() {
                l.modes().iter().map(|m| coord(m, &picks, &mut k, 1)).collect()
            } else {
                vec![coord(&l, &picks, &mut k, 1)]
            };
            let bad = how == 7 && l.shape.is_tuple();
            let mut parts = top.clone();
            if bad {
                parts.push("_".into());
            }
            let c = if l.shape.is_tuple() || bad { format!("({})", parts.join(",")) } else { parts[0].clone() };
            let text = if op == Op::Slice && how % 2 == 1 && l.shape.is_tuple() {
                // CuTe's Layout::operator() with several arguments, at least one of them `_`.
                let mut args = parts.clone();
                if !args.iter().any(|a| a.contains('_')) {
                    args[0] = "_".into();
                }
                format!("{l}({})", args.join(","))
            } else {
                format!("{op}({c},{l})")
            };
            case_of(op.name(), text, !bad)
        })
        .boxed()
}

pub fn blocked(op: Op) -> BoxedStrategy<Case> {
    product_pair()
        .prop_map(move |(a, b)| case_of(op.name(), format!("{op}({a},{b})"), product_admissible(&a, &b)))
        .boxed()
}

/// zipped / tiled / flat product by a compact layout, or by mode (`(B)`).
pub fn regrouped_product(op: Op) -> BoxedStrategy<Case> {
    prop_oneof![
        4 => product_pair().prop_map(move |(a, b)| case_of(op.name(), format!("{op}({a},{b})"), product_admissible(&a, &b))),
        // By-mode products: mode 0 of `a` alone need not be compact, so the complement CuTe
        // composes `b` with may not divide; ill-defined in general.
        1 => product_pair().prop_map(move |(a, b)| case_of(op.name(), format!("{op}({a},({b}))"), false)),
    ]
    .boxed()
}

/// `coalesce(L, profile)` / `filter(L, profile)`: by-mode simplification under a target profile
/// (CuTe's transform_layout over the profile): `_1` per top-level mode of an arbitrary layout,
/// or one `_1` (the whole layout).
pub fn profiled(op: Op) -> BoxedStrategy<Case> {
    (any_layout(), any::<bool>())
        .prop_map(move |(l, whole)| {
            let profile =
                if whole || l.rank() == 1 { "_1".to_string() } else { format!("({})", vec!["_1"; l.rank()].join(",")) };
            case_of(op.name(), format!("{op}({l},{profile})"), true)
        })
        .boxed()
}

/// coalesce / filter of an arbitrary layout, alone or under a target profile ([`profiled`]).
pub fn simplify(op: Op) -> BoxedStrategy<Case> {
    prop_oneof![3 => unary(op), 1 => profiled(op)].boxed()
}

/// `get(L, i...)` and `layout(L, i...)` with literal mode indices inside L's nesting (one index,
/// or two into a nested mode), and `shape(L)` / `stride(L)`, of arbitrary layouts.
pub fn mode_query(op: Op) -> BoxedStrategy<Case> {
    (any_layout(), any::<u32>(), any::<u32>(), any::<bool>())
        .prop_map(move |(l, i, j, deep)| {
            if matches!(op, Op::Shape | Op::Stride) {
                return case_of(op.name(), format!("{op}({l})"), true);
            }
            let i = i as usize % l.rank().max(1);
            let mut idx = i.to_string();
            if let Ok(m) = l.mode(i) {
                if deep && m.shape.rank() > 1 {
                    idx = format!("{i},{}", j as usize % m.shape.rank());
                }
            }
            case_of(op.name(), format!("{op}({l},{idx})"), true)
        })
        .boxed()
}

/// `upcast<N>(x)` / `downcast<N>(x)` of arbitrary layouts (negative and zero strides included),
/// swizzles and swizzled layouts. Admissible (layout.hpp's upcast/downcast): for upcast, every
/// static stride is 0 or divides or is divided by N ("Divisibility condition") and every dynamic
/// one is a multiple of N (safe_div); for downcast, a static stride 1 somewhere ("Downcast
/// requires adjacent elements").
pub fn recast(op: Op) -> BoxedStrategy<Case> {
    let n = || prop::sample::select(vec![2i64, 4, 8, 16]);
    let layout = (n(), any_layout()).prop_map(move |(n, l)| {
        let pairs = l.leaf_pairs();
        let ok = if op == Op::Downcast {
            pairs.iter().any(|(_, d)| d.is_static && d.value == 1)
        } else {
            pairs.iter().all(|(_, d)| {
                if d.is_static {
                    d.value == 0 || d.value % n == 0 || n % d.value == 0
                } else {
                    d.value % n == 0
                }
            })
        };
        case_of(op.name(), format!("{op}<{n}>({l})"), ok)
    });
    let sw = (n(), swizzle(true), compact_of(3, false), any::<bool>()).prop_map(move |(n, sw, l, composed)| {
        let x = if composed { format!("composition({},{l})", swizzle_text(sw)) } else { swizzle_text(sw) };
        case_of(op.name(), format!("{op}<{n}>({x})"), !composed || static_flag(&l))
    });
    prop_oneof![3 => layout, 1 => sw].boxed()
}

/// max_common_vector / max_common_layout of two compact layouts, or of arbitrary ones.
pub fn max_common(op: Op) -> BoxedStrategy<Case> {
    prop_oneof![
        (compact(), compact()).prop_map(move |(a, b)| case_of(op.name(), format!("{op}({a},{b})"), true)),
        (any_layout(), any_layout()).prop_map(move |(a, b)| case_of(op.name(), format!("{op}({a},{b})"), false)),
    ]
    .boxed()
}

fn pow2() -> impl Strategy<Value = i64> {
    prop::sample::select(vec![1i64, 2, 4, 8, 16, 32])
}

/// tiled_copy_tv / tiled_copy_tiler over a few common copy atoms (static layouts, as CuTe needs).
/// Admissible: the value layout holds exactly one copy instruction's worth of values;
/// ill-defined: a value layout of the wrong size.
pub fn tiled_copy(op: Op) -> BoxedStrategy<Case> {
    (
        prop::sample::select(COPIES.to_vec()),
        prop::sample::select(TYPES.to_vec()),
        pow2(),
        pow2(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(move |((cop, bits), (ty, tbits), tm, tn, thr_row_major, val_along_m, well_sized)| {
            let per = (bits / tbits).max(1);
            let n_vals = if well_sized { per } else { per * 3 };
            let thr =
                if thr_row_major { format!("(_{tm},_{tn}):(_{tn},_1)") } else { format!("(_{tm},_{tn}):(_1,_{tm})") };
            let val = if val_along_m { format!("(_{n_vals},_1):(_1,_0)") } else { format!("(_1,_{n_vals}):(_0,_1)") };
            case_of(op.name(), format!("{op}({cop},{ty},{thr},{val})"), well_sized && per * tbits == bits)
        })
        .boxed()
}

/// tiled_mma_tv_a/b/c / tiled_mma_tile over a few common MMA atoms, with an atom layout that is a
/// small (M,N,1) grid of warps.
pub fn tiled_mma(op: Op) -> BoxedStrategy<Case> {
    (
        prop::sample::select(MMAS.to_vec()),
        prop::sample::select(vec![1i64, 2, 4]),
        prop::sample::select(vec![1i64, 2, 4]),
        any::<bool>(),
    )
        .prop_map(move |(atom, m, n, n_major)| {
            let layout = if n_major { format!("(_{m},_{n},_1):(_{n},_1,_0)") } else { format!("(_{m},_{n},_1)") };
            case_of(op.name(), format!("{op}({atom},{layout})"), true)
        })
        .boxed()
}

/// The forms the fuzzer generates besides the table's operation generators, with their weights:
/// `L(c)`, `print_layout`, local_tile / local_partition with their offsets, swizzles and composed
/// layouts, every MMA and copy atom the engine knows in tiled MMAs / copies, the Blackwell and
/// sparse atoms' members ([`blackwell`]), and kernels' swizzled shared-memory tiles partitioned by
/// tiled copies ([`kernel_partition`]).
fn forms() -> Vec<(u32, BoxedStrategy<Case>)> {
    vec![
        (4, evaluate()),
        (2, print_layout()),
        (6, local()),
        (6, swizzled()),
        (16, atoms()),
        (4, blackwell()),
        (4, kernel_partition()),
    ]
}

/// Random cases: every operation that has a generator ([`generator`]), drawn with its weight, plus the forms of [`forms`].
pub fn case() -> BoxedStrategy<Case> {
    let mut arms = forms();
    for &op in Op::ALL {
        if let Part::Has((weight, generate)) = generator(op) {
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
        .map(|_| {
            Box::new(s.new_tree(&mut r).expect("case strategies never reject")) as Box<dyn ValueTree<Value = Case>>
        })
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
pub fn shrink(
    mut tree: Box<dyn ValueTree<Value = Case>>,
    mut still_fails: impl FnMut(&Case) -> bool,
    budget: usize,
) -> Case {
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
        let atom_area = |op: &str| Op::by_name(op).is_some_and(|o| o.area() == crate::expr::op::Area::Atoms);
        let atoms: Vec<Case> = cases(5, 600, (0, 1)).into_iter().map(|(_, c)| c).filter(|c| atom_area(c.op)).collect();
        assert!(atoms.len() >= 10, "only {} atom cases", atoms.len());
        assert!(
            atoms.iter().any(|c| c.op.starts_with("tiled_mma")) && atoms.iter().any(|c| c.op.starts_with("tiled_copy"))
        );
        for c in atoms.iter().filter(|c| c.admissible) {
            crate::expr::eval_str(&c.expr).unwrap_or_else(|e| panic!("{}: {e}", c.expr));
        }
    }

    #[test]
    fn tile_to_shape_cases_are_drawn_and_admissible_ones_evaluate() {
        let mut runner = runner(3);
        let strategy = tile_to_shape();
        let (mut good, mut bad) = (0, 0);
        for _ in 0..400 {
            let c = strategy.new_tree(&mut runner).expect("a case").current();
            parse(&c.expr).unwrap_or_else(|e| panic!("{}: {e}", c.expr));
            let r = crate::expr::eval_str(&c.expr);
            if c.admissible {
                good += 1;
                r.unwrap_or_else(|e| panic!("{}: {e}", c.expr));
            } else {
                bad += 1;
                assert!(r.is_err(), "{} is ill-defined but evaluates", c.expr);
            }
        }
        assert!(good > 250 && bad > 10, "{good} admissible, {bad} ill-defined");
    }

    #[test]
    fn slicing_cases_are_drawn_and_admissible_ones_evaluate() {
        let mut runner = runner(4);
        for op in [Op::Slice, Op::Dice, Op::SliceAndOffset] {
            let strategy = slicing(op);
            for _ in 0..150 {
                let c = strategy.new_tree(&mut runner).expect("a case").current();
                let r = crate::expr::eval_str(&c.expr);
                if c.admissible {
                    r.unwrap_or_else(|e| panic!("{}: {e}", c.expr));
                } else {
                    assert!(r.is_err(), "{} is ill-defined but evaluates", c.expr);
                }
            }
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
        let weight =
            |e: &str| -> i64 { e.split(|c: char| !c.is_ascii_digit()).filter_map(|x| x.parse::<i64>().ok()).sum() };
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
            dynamic |=
                c.expr.chars().zip(c.expr.chars().skip(1)).any(|(a, b)| (a == '(' || a == ',') && b.is_ascii_digit());
            // The engine answers every case (a value or a typed error), never panics.
            if std::panic::catch_unwind(|| eval_str(&c.expr)).expect("no panic").is_err() {
                rejected += 1;
            }
            let _ = e;
        }
        // Admissible compositions and divides are defined: the engine (which refuses undefined
        // ones with Error::Undefined) accepts them.
        for (_, c) in all.iter().filter(|(_, c)| {
            c.admissible
                && matches!(c.op, "composition" | "logical_divide" | "zipped_divide" | "tiled_divide" | "flat_divide")
        }) {
            assert!(eval_str(&c.expr).is_ok(), "{}: {:?}", c.expr, eval_str(&c.expr).err().map(|e| e.to_string()));
        }
        for op in [
            "coalesce",
            "composition",
            "complement",
            "right_inverse",
            "left_inverse",
            "logical_divide",
            "zipped_divide",
            "tiled_divide",
            "flat_divide",
            "logical_product",
            "blocked_product",
            "raked_product",
            "max_common_vector",
            "max_common_layout",
        ] {
            assert!(ops.contains(op), "{op} missing from {ops:?}");
        }
        assert!(deep && zero && dynamic, "deep {deep} zero {zero} dynamic {dynamic}");
        // A share, not all, of the cases are refused by the engine.
        assert!(rejected > 0 && rejected < all.len() / 2, "{rejected} of {}", all.len());
    }
}

#[cfg(test)]
mod breadth {
    use super::*;

    /// The input space the issue names is drawn by construction in a run of a few thousand cases.
    #[test]
    fn every_feature_is_drawn() {
        let all = cases(12, 3000, (0, 1));
        let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for (_, c) in &all {
            for f in &c.features {
                *counts.entry(if f.starts_with("atom:") { "atom:*" } else { f.as_str() }).or_default() += 1;
            }
        }
        for f in [
            "neg-stride-static",
            "neg-stride-dynamic",
            "zero-stride",
            "prime-3",
            "prime-5",
            "prime-7",
            "size>=2^10",
            "size>=2^16",
            "rank>=5",
            "depth>=3",
            "depth=4",
            "dynamic",
            "tiler-underscore",
            "tiler-int",
            "hier-coord",
            "swizzle",
            "composed",
            "gmma-smem-atom",
            "print_layout",
            "offset",
            "mma-atom",
            "copy-atom",
            "recast",
            "mode-index",
            "profile",
        ] {
            assert!(counts.get(f).is_some_and(|&n| n >= 5), "{f}: {:?} in {counts:?}", counts.get(f));
        }
        let atoms: std::collections::BTreeSet<&str> = all
            .iter()
            .flat_map(|(_, c)| c.features.iter().filter(|f| f.starts_with("atom:")).map(String::as_str))
            .collect();
        assert!(atoms.len() >= 100, "{} distinct atoms", atoms.len());
        // The admissible share stays high.
        let adm = all.iter().filter(|(_, c)| c.admissible).count();
        assert!(adm * 10 >= all.len() * 7, "{adm} of {} admissible", all.len());
    }
}

/// The TMA cases (fuzz::tma), one in ten the forms of CuTe users' reports (fuzz::issues:
/// coalesce after prepend, slices of swizzled tiles, left inverses of TMEM-like layouts), and one in
/// ten the shared-memory descriptors (fuzz::desc).
fn tma_and_reported_forms() -> BoxedStrategy<Case> {
    prop_oneof![6 => tma::tma_case(), 2 => tma::sm100_case(), 1 => issues::issue_case(), 1 => desc::desc_case()].boxed()
}

/// A random-case generator.
pub type Generate = fn() -> BoxedStrategy<Case>;

/// The random-case generator of each operation and its weight in the mix (an exhaustive match: a new
/// operation is a compile error here).
pub fn generator(op: Op) -> Part<(u32, Generate)> {
    use crate::expr::op::Part::{Absent, Has};
    use crate::fuzz;
    match op {
        Op::MakeLayout => Absent("a constructor: the literals of every generated case already build layouts; its cases are in fixtures/cases"),
        Op::MakeLayoutRight => Absent("a constructor: the literals of every generated case already build layouts; its cases are in fixtures/cases"),
        Op::MakeIdentityLayout => Has((10, basis::basis_case)),
        Op::MakeIdentityTensor => Has((6, fuzz::identity::identity_tensor_case)),
        Op::Equal => Has((2, basis::equality_case)),
        Op::MakeBasisLike => Absent("its strides are drawn inside the basis-stride cases (fuzz::basis, make_identity_layout's arm): identity layouts and literal strides along random axes"),
        Op::Size => Has((1, || fuzz::unary(Op::Size))),
        Op::Cosize => Has((1, || fuzz::unary(Op::Cosize))),
        Op::Rank => Has((1, || fuzz::unary(Op::Rank))),
        Op::Depth => Has((1, || fuzz::unary(Op::Depth))),
        Op::Shape => Has((1, || fuzz::mode_query(Op::Shape))),
        Op::Stride => Has((1, || fuzz::mode_query(Op::Stride))),
        Op::Get => Has((2, || fuzz::mode_query(Op::Get))),
        Op::Layout => Has((2, || fuzz::mode_query(Op::Layout))),
        Op::Group => Absent("drawn as a kernel form (kernel_forms suite); template arguments are not drawn"),
        Op::MmaMakeFragmentA => Absent("drawn as a kernel form (kernel_forms suite: the Blackwell tutorials' SharedStorage tensors)"),
        Op::MmaMakeFragmentB => Absent("drawn as a kernel form (kernel_forms suite: the Blackwell tutorials' SharedStorage tensors)"),
        Op::Flatten => Has((4, || fuzz::unary(Op::Flatten))),
        Op::Slice => Has((1, || fuzz::slicing(Op::Slice))),
        Op::Dice => Has((1, || fuzz::slicing(Op::Dice))),
        Op::SliceAndOffset => Has((1, || fuzz::slicing(Op::SliceAndOffset))),
        Op::MakeLayoutLike => Absent("not generated yet: its cases are in fixtures/cases/fragments.cases"),
        Op::MakeFragmentLike => Absent("not generated yet: its cases are in fixtures/cases/fragments.cases"),
        Op::PartitionFragmentC => Absent("not generated yet: its cases are in fixtures/cases/fragments.cases"),
        Op::RetileS | Op::RetileD => Absent("not generated yet: its cases are in fixtures/cases/partition_swizzled.cases"),
        Op::MmaFragmentA => Absent("not generated yet: its cases are in fixtures/cases/fragments.cases"),
        Op::MmaFragmentB => Absent("not generated yet: its cases are in fixtures/cases/fragments.cases"),
        Op::MmaFragmentC => Absent("not generated yet: its cases are in fixtures/cases/fragments.cases"),
        Op::TileToShape => Has((2, fuzz::tile_to_shape)),
        Op::TileToMmaShape => Absent("not generated: cases from the Blackwell tutorials (fixtures/cases/kernel_forms.cases) and the engine's property test"),
        Op::MakeTmaCopy => Has((7, tma_and_reported_forms)),
        Op::MakeTmaAtomASm100 => Absent("drawn by make_tma_copy's arm (fuzz::tma::sm100_case)"),
        Op::MakeTmaAtomBSm100 => Absent("drawn by make_tma_copy's arm (fuzz::tma::sm100_case)"),
        Op::MakeTmaCopyASm100 => Absent("drawn by make_tma_copy's arm (fuzz::tma::sm100_case)"),
        Op::MakeTmaCopyBSm100 => Absent("drawn by make_tma_copy's arm (fuzz::tma::sm100_case)"),
        Op::MakeTmaCopyCSm100 => Absent("drawn by make_tma_copy's arm (fuzz::tma::sm100_case)"),
        Op::MakeTmaAtom => Absent("drawn by make_tma_copy's arm (fuzz::tma)"),
        Op::TmaGbasis => Absent("drawn by make_tma_copy's arm (fuzz::tma)"),
        Op::AsPositionIndependentSwizzleTensor => Absent("drawn as a kernel form (kernel_forms suite: wgmma_sm90.cu's sA_); its operand is a GMMA smem layout, which the swizzled-layout arms draw"),
        Op::LazyTransformElemLess => Absent("drawn as a kernel form (kernel_forms suite: tiled_copy_if.cu's P); its tensor is make_identity_tensor's, which fuzz::identity draws"),
        Op::GetTmaTensor => Absent("drawn as a kernel form (kernel_forms suite); its operand is make_tma_copy's arm's (fuzz::tma)"),
        Op::TmaGStride => Absent("drawn by make_tma_copy's arm (fuzz::tma)"),
        Op::TmaIm2colDescArgs => Has((2, tma::im2col_case)),
        Op::MakeGmmaDesc => Absent("drawn by make_tma_copy's arm (fuzz::desc: canonical and perturbed shared-memory layouts)"),
        Op::MakeUmmaDesc => Absent("drawn by make_tma_copy's arm (fuzz::desc: canonical and perturbed shared-memory layouts)"),
        Op::MakeInstrDesc => Absent("drawn by make_tma_copy's arm (fuzz::desc: listed UMMA atoms of every form, M, N, majors and negates redrawn)"),
        Op::TmaDescArgs => Absent("drawn by make_tma_copy's arm (fuzz::tma)"),
        Op::WarpAccess => Absent("not generated: CuTe has no warp_access to compare with; its random cases are the GPU check's (cutecheck::gpu::access)"),
        Op::ProductEach => Absent("not generated: a new arm would change the random cases of every seed; its cases are in fixtures/cases/product_each.cases"),
        Op::Coalesce => Has((4, || fuzz::simplify(Op::Coalesce))),
        Op::Filter => Has((4, || fuzz::simplify(Op::Filter))),
        Op::FilterZeros => Has((4, || fuzz::unary(Op::FilterZeros))),
        Op::Composition => Has((36, fuzz::composition)),
        Op::Complement => Has((24, fuzz::complement)),
        Op::RightInverse => Has((12, || fuzz::inverse(Op::RightInverse))),
        Op::LeftInverse => Has((12, || fuzz::inverse(Op::LeftInverse))),
        Op::LogicalDivide => Has((27, fuzz::logical_divide)),
        Op::ZippedDivide => Has((3, || fuzz::regrouped_divide(Op::ZippedDivide))),
        Op::TiledDivide => Has((3, || fuzz::regrouped_divide(Op::TiledDivide))),
        Op::FlatDivide => Has((3, || fuzz::regrouped_divide(Op::FlatDivide))),
        Op::LogicalProduct => Has((8, fuzz::logical_product)),
        Op::ZippedProduct => Has((4, || fuzz::regrouped_product(Op::ZippedProduct))),
        Op::TiledProduct => Has((4, || fuzz::regrouped_product(Op::TiledProduct))),
        Op::FlatProduct => Has((4, || fuzz::regrouped_product(Op::FlatProduct))),
        Op::BlockedProduct => Has((2, || fuzz::blocked(Op::BlockedProduct))),
        Op::RakedProduct => Has((2, || fuzz::blocked(Op::RakedProduct))),
        Op::MaxCommonVector => Has((6, || fuzz::max_common(Op::MaxCommonVector))),
        Op::MaxCommonLayout => Has((6, || fuzz::max_common(Op::MaxCommonLayout))),
        Op::LocalTile => Absent("not generated yet: coordinates must match the zipped divide's rest modes; cases in fixtures/cases/layout_partition.cases, properties in tests/properties.rs"),
        Op::LocalPartition => Absent("not generated yet: thread layouts must tile L; cases in fixtures/cases/layout_partition.cases, properties in tests/properties.rs"),
        Op::LocalTileOffset => Absent("generated with local_tile by fuzz.rs's local() form (tilers on the modes' boundaries, coordinates in range)"),
        Op::LocalPartitionOffset => Absent("generated with local_partition by fuzz.rs's local() form (thread layouts that tile L, indices in range)"),
        Op::MmaLayoutA => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::MmaLayoutB => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::MmaLayoutC => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::MmaShape => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::MmaThrId => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::MakeTmemCopy => Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_tmem_copy.cases"),
        Op::MmaLayoutE => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::MmaLayoutSfa => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::MmaLayoutSfb => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::CopyAtomSrc => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::CopyAtomDst => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::CopyAtomRef => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::CopyAtomThrId => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::CopyTraitsSrc => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::CopyTraitsDst => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::CopyTraitsRef => Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        Op::MmaAtom => Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        Op::CopyAtom => Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        Op::MakeTiledCopy => Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        Op::MakeTiledCopyA => Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        Op::MakeTiledCopyB => Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        Op::MakeTiledCopyC => Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        Op::MmaPartitionA => Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        Op::MmaPartitionB => Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        Op::MmaPartitionC => Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        Op::PartitionShapeA => Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        Op::PartitionShapeB => Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        Op::PartitionShapeC => Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        Op::CopyPartitionS => Absent("drawn by the kernel_partition form of the mix (fuzz::kernel_partition: swizzled smem tiles partitioned by gmem tiled copies), not by an operation generator; more cases in fixtures/cases/atoms_partition.cases and kernel_forms.cases"),
        Op::CopyPartitionD => Absent("drawn by the kernel_partition form of the mix (fuzz::kernel_partition: swizzled smem tiles partitioned by gmem tiled copies), not by an operation generator; more cases in fixtures/cases/atoms_partition.cases and kernel_forms.cases"),
        Op::MakeTiledMma => Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        Op::TiledCopyTv => Has((4, || fuzz::tiled_copy(Op::TiledCopyTv))),
        Op::TiledCopyTiler => Has((2, || fuzz::tiled_copy(Op::TiledCopyTiler))),
        Op::TiledMmaTvA => Has((2, || fuzz::tiled_mma(Op::TiledMmaTvA))),
        Op::TiledMmaTvB => Has((1, || fuzz::tiled_mma(Op::TiledMmaTvB))),
        Op::TiledMmaTvC => Has((2, || fuzz::tiled_mma(Op::TiledMmaTvC))),
        Op::TiledMmaTile => Has((1, || fuzz::tiled_mma(Op::TiledMmaTile))),
        Op::TiledMmaThrLayout => Absent("not generated yet: the thread layout is a rank-4 (V,M,N,K) layout the random atom grids would add little to; cases in fixtures/cases/atoms_tiled.cases"),
        Op::Upcast => Has((2, || fuzz::recast(Op::Upcast))),
        Op::Downcast => Has((2, || fuzz::recast(Op::Downcast))),
    }
}
