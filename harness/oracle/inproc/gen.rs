//! Random dynamic cases for the in-process oracle (`cargo xtask conformance --dynamic-cases N`).
//!
//! Every case is an operation the in-process library instantiates on all-dynamic layouts of its
//! menu of nesting profiles (a leaf; rank 1-3 with int, pair or triple modes; rank 4 of ints).
//! Like harness/fuzz.rs, operands are built by construction: compact layouts, composition and
//! divide right operands whose modes start and end on the left operand's mixed-radix boundaries
//! (`fuzz::boundaries`), complements of compact layouts to multiples of their cosize
//! ("admissible"), and a share of arbitrary operands ("ill-defined"). Cases where CuTe
//! static_asserts on every dynamic operand (complement of several dynamic strides, and so the
//! divides by and products of such layouts; left_inverse) are not drawn: they are not dynamic
//! cases for CuTe and the compiled driver's random cases cover them.
//!
//! Case `i` of seed `s` is a pure function of `(s, i)` (its own small RNG), so `--shard K/N` picks
//! cases `i % N == K` without drawing the others, and a run is reproduced by its seed.

use crate::expr::op::{Op, Part};
use crate::gen::boundaries;

/// One generated case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynCase {
    /// The operation's name ([`EVALUATE`] for an evaluation).
    pub op: &'static str,
    pub expr: String,
    pub admissible: bool,
}

/// splitmix64: a tiny, good-enough generator for case values (also `cargo xtask fuzz`'s).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64, index: u64) -> Rng {
        let mut r = Rng(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0xD1B5_4A32_D192_ED03);
        r.next();
        r
    }
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next() % den < num
    }
}

/// A nesting profile: mode widths (1 int, 2 pair, 3 triple); empty for a bare leaf.
type Profile = Vec<usize>;

fn any_profile(r: &mut Rng) -> Profile {
    match r.below(10) {
        0 => vec![],
        1 => vec![1, 1, 1, 1],
        k => {
            let rank = 1 + (k - 2) % 3;
            (0..rank).map(|_| r.pick(&[1, 1, 2, 2, 3])).collect()
        }
    }
}

fn single_leaf_profile(r: &mut Rng) -> Profile {
    if r.chance(1, 2) {
        vec![]
    } else {
        vec![1]
    }
}

fn leaves(p: &Profile) -> usize {
    if p.is_empty() {
        1
    } else {
        p.iter().sum()
    }
}

/// `shape:stride` of profile `p` with these leaf values (all dynamic).
fn spell(p: &Profile, shape: &[i64], stride: &[i64]) -> String {
    let tuple = |v: &[i64]| -> String {
        if p.is_empty() {
            return v[0].to_string();
        }
        let mut s = String::from("(");
        let mut k = 0;
        for (m, &w) in p.iter().enumerate() {
            if m > 0 {
                s.push(',');
            }
            if w == 1 {
                s.push_str(&v[k].to_string());
            } else {
                s.push('(');
                s.push_str(&v[k..k + w].iter().map(i64::to_string).collect::<Vec<_>>().join(","));
                s.push(')');
            }
            k += w;
        }
        s.push(')');
        s
    };
    format!("{}:{}", tuple(shape), tuple(stride))
}

const EXTENTS: &[i64] = &[1, 2, 3, 4, 6, 8, 2, 4];
/// Largest size of a drawn layout (as the static fuzzer's four leaves of at most 8 allow), so the
/// engine's definition checks stay cheap; a leaf that would pass it is drawn again from what fits.
const MAX_SIZE: i64 = 4096;

fn extents(r: &mut Rng, n: usize) -> Vec<i64> {
    let mut size = 1;
    (0..n)
        .map(|_| {
            let mut e = r.pick(EXTENTS);
            if size * e > MAX_SIZE {
                let fits: Vec<i64> = EXTENTS.iter().copied().filter(|&x| size * x <= MAX_SIZE).collect();
                e = if fits.is_empty() { 1 } else { r.pick(&fits) };
            }
            size *= e;
            e
        })
        .collect()
}

/// Arbitrary strides (zeros and repeats allowed).
fn any_layout(r: &mut Rng, p: &Profile) -> (String, Vec<i64>) {
    let n = leaves(p);
    let e = extents(r, n);
    let d: Vec<i64> = (0..n).map(|_| r.below(17) as i64).collect();
    (spell(p, &e, &d), e)
}

/// A compact layout: strides a permutation of the column-major prefix products.
fn compact(r: &mut Rng, p: &Profile) -> (String, Vec<i64>, i64) {
    let n = leaves(p);
    let e = extents(r, n);
    let mut order: Vec<usize> = (0..n).collect();
    for k in (1..n).rev() {
        order.swap(k, r.below(k + 1));
    }
    let mut d = vec![0i64; n];
    let mut acc = 1;
    for &k in &order {
        d[k] = acc;
        acc *= e[k];
    }
    (spell(p, &e, &d), e, acc)
}

/// A right operand of profile `p` whose leaves each start and end on `a`'s boundaries, no larger
/// in all than `a` (so the engine's brute-force definition checks stay small).
fn on_boundaries(r: &mut Rng, p: &Profile, a_extents: &[i64]) -> String {
    let b = boundaries(a_extents);
    let pairs: Vec<(i64, i64)> =
        b.iter().flat_map(|&s| b.iter().filter(move |&&t| t % s == 0).map(move |&t| (t / s, s))).collect();
    let mut budget: i64 = a_extents.iter().product::<i64>().max(1);
    let (mut e, mut d) = (Vec::new(), Vec::new());
    for _ in 0..leaves(p) {
        let fits: Vec<(i64, i64)> = pairs.iter().copied().filter(|&(n, _)| n <= budget).collect();
        let (n, s) = if fits.is_empty() { (1, 1) } else { r.pick(&fits) };
        budget /= n.max(1);
        e.push(n);
        d.push(s);
    }
    spell(p, &e, &d)
}

/// What the in-process library (cpp/ffi) instantiates for an operation, on all-dynamic layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ffi {
    /// `op(a)`.
    Unary,
    /// `op(a)` and `op(a, int(arg))` (two rows of the ABI's table: `complement(a)` and
    /// `complement(a, n)`, the second named `<OP>_TO`).
    UnaryOrTo,
    /// `op(a, b)`.
    Binary,
}

/// The in-process library's form of each operation (an exhaustive match: a new operation is a
/// compile error here). Its rows of the ABI's table (`enum cc_op`, api.cpp's `kOps`) are written
/// from this by `cargo xtask sourcegen` into cpp/ffi/ops_generated.inc ([`abi_rows`]); the C++ of
/// each operation (`find_<name>`, in the op TUs) is hand-written.
pub fn ffi_form(op: Op) -> Part<Ffi> {
    use Ffi::{Binary, Unary, UnaryOrTo};
    use Part::{Absent, Has};
    const CORE: &str = "not instantiated in cpp/ffi: a construction or mode query, which the compiled driver covers";
    const ATOMS: &str = "not instantiated in cpp/ffi: atoms are static types, with no all-dynamic operands";
    match op {
        Op::MakeLayout => Absent(CORE),
        Op::MakeLayoutRight => Absent(CORE),
        Op::MakeIdentityTensor => Absent("not instantiated in cpp/ffi: its result is a tensor over an arithmetic-tuple iterator, which the ABI cannot return; the compiled driver covers it"),
        Op::MakeIdentityLayout => Absent("not instantiated in cpp/ffi: its operands are int tuples only and its result has basis strides, which the ABI cannot return; the compiled driver covers it"),
        Op::Equal => Absent("not instantiated in cpp/ffi: its operands are basis elements and ratios, static types the ABI cannot pass; the compiled driver covers it"),
        Op::MakeBasisLike => Absent("not instantiated in cpp/ffi: its result is a tuple of basis elements, which the ABI cannot return; the compiled driver covers it"),
        Op::Size => Has(Unary),
        Op::Cosize => Has(Unary),
        Op::Rank => Has(Unary),
        Op::Depth => Has(Unary),
        Op::Shape => Absent(CORE),
        Op::Stride => Absent(CORE),
        Op::Get => Absent(CORE),
        Op::Layout => Absent(CORE),
        Op::Group => Absent("not instantiated in cpp/ffi: a template-argument operation; the compiled driver covers it"),
        Op::MmaMakeFragmentA => Absent("not instantiated in cpp/ffi: an MMA fragment type of an smem tensor; the compiled driver covers it"),
        Op::MmaMakeFragmentB => Absent("not instantiated in cpp/ffi: an MMA fragment type of an smem tensor; the compiled driver covers it"),
        Op::Flatten => Has(Unary),
        Op::Slice => Absent("not in the in-process ABI: cpp/ffi has no slice entry; its cases run through the compiled driver"),
        Op::Dice => Absent("not in the in-process ABI: cpp/ffi has no dice entry; its cases run through the compiled driver"),
        Op::SliceAndOffset => Absent("not in the in-process ABI: cpp/ffi has no slice_and_offset entry; its cases run through the compiled driver"),
        Op::MakeLayoutLike => Absent("not in the in-process ABI: cpp/ffi has no make_layout_like entry; its cases run through the compiled driver"),
        Op::MakeFragmentLike => Absent("not in the in-process ABI: cpp/ffi has no make_fragment_like entry; its cases run through the compiled driver"),
        Op::RetileS | Op::RetileD => Absent(ATOMS),
        Op::PartitionFragmentC => Absent("not in the in-process ABI: cpp/ffi has no partition_fragment_C entry; its cases run through the compiled driver"),
        Op::MmaFragmentA => Absent("not in the in-process ABI: cpp/ffi has no mma_fragment_a entry; its cases run through the compiled driver"),
        Op::MmaFragmentB => Absent("not in the in-process ABI: cpp/ffi has no mma_fragment_b entry; its cases run through the compiled driver"),
        Op::MmaFragmentC => Absent("not in the in-process ABI: cpp/ffi has no mma_fragment_c entry; its cases run through the compiled driver"),
        Op::TileToShape => Absent(
            "not in the in-process ABI: cpp/ffi has no tile_to_shape entry; its cases run through the compiled driver",
        ),
        Op::TileToMmaShape => Absent(
            "not in the in-process ABI: cpp/ffi has no tile_to_mma_shape entry; its cases run through the compiled driver",
        ),
        Op::MakeTmaCopy => Absent("not instantiated in cpp/ffi: a TMA needs a tensor, a TiledCopy type and the driver's cuTensorMapEncodeTiled capture; the compiled driver covers it"),
        Op::MakeTmaAtomASm100 => Absent("not instantiated in cpp/ffi: a TMA needs a tensor, a TiledMMA, a TiledCopy type and the driver's cuTensorMapEncodeTiled capture; the compiled driver covers it"),
        Op::MakeTmaAtomBSm100 => Absent("not instantiated in cpp/ffi: a TMA needs a tensor, a TiledMMA, a TiledCopy type and the driver's cuTensorMapEncodeTiled capture; the compiled driver covers it"),
        Op::MakeTmaCopyASm100 => Absent("not instantiated in cpp/ffi: a TMA needs a tensor, a TiledMMA, a TiledCopy type and the driver's cuTensorMapEncodeTiled capture; the compiled driver covers it"),
        Op::MakeTmaCopyBSm100 => Absent("not instantiated in cpp/ffi: a TMA needs a tensor, a TiledMMA, a TiledCopy type and the driver's cuTensorMapEncodeTiled capture; the compiled driver covers it"),
        Op::MakeTmaCopyCSm100 => Absent("not instantiated in cpp/ffi: a TMA needs a tensor, a TiledMMA, a TiledCopy type and the driver's cuTensorMapEncodeTiled capture; the compiled driver covers it"),
        Op::MakeTmaAtom => Absent("not instantiated in cpp/ffi: a TMA needs a tensor, a TiledCopy type and the driver's cuTensorMapEncodeTiled capture; the compiled driver covers it"),
        Op::TmaGbasis => Absent("not instantiated in cpp/ffi: a TMA needs a tensor, a TiledCopy type and the driver's cuTensorMapEncodeTiled capture; the compiled driver covers it"),
        Op::AsPositionIndependentSwizzleTensor => Absent("not instantiated in cpp/ffi: its result is a shared-memory tensor, which the ABI cannot return; the compiled driver covers it"),
        Op::LazyTransformElemLess => Absent("not instantiated in cpp/ffi: its result is a tensor over a transform iterator holding a lambda, which the ABI cannot return; the compiled driver covers it"),
        Op::GetTmaTensor => Absent("not instantiated in cpp/ffi: a TMA needs a tensor and the driver's cuTensorMapEncodeTiled capture; the compiled driver covers it"),
        Op::TmaGStride => Absent("not instantiated in cpp/ffi: a TMA needs a tensor, a TiledCopy type and the driver's cuTensorMapEncodeTiled capture; the compiled driver covers it"),
        Op::TmaIm2colDescArgs => Absent("not instantiated in cpp/ffi: an im2col TMA needs a tensor, a TiledCopy type and the driver's cuTensorMapEncodeIm2col capture; the compiled driver covers it"),
        Op::MakeGmmaDesc => Absent("not instantiated in cpp/ffi: a descriptor needs a shared-memory tensor type per case; the compiled driver covers it"),
        Op::MakeUmmaDesc => Absent("not instantiated in cpp/ffi: a descriptor needs a shared-memory tensor type per case; the compiled driver covers it"),
        Op::MakeInstrDesc => Absent("not instantiated in cpp/ffi: an MMA atom type per case; the compiled driver covers it"),
        Op::TmaDescArgs => Absent("not instantiated in cpp/ffi: a TMA needs a tensor, a TiledCopy type and the driver's cuTensorMapEncodeTiled capture; the compiled driver covers it"),
        Op::WarpAccess => Absent("CuTe has no warp_access: it is cutecheck's analysis of a warp's memory access, proven against the H200's ncu counters (fixtures/gpu/h200-access), not against CuTe"),
        Op::ProductEach => Absent(
            "not in the in-process ABI: cpp/ffi has no product_each entry; its cases run through the compiled driver",
        ),
        Op::Coalesce => Has(Unary),
        Op::Filter => Has(Unary),
        Op::FilterZeros => Has(Unary),
        Op::Composition => Has(Binary),
        Op::Complement => Has(UnaryOrTo),
        Op::RightInverse => Has(Unary),
        Op::LeftInverse => Has(Unary),
        Op::LogicalDivide => Has(Binary),
        Op::ZippedDivide => Has(Binary),
        Op::TiledDivide => Has(Binary),
        Op::FlatDivide => Has(Binary),
        Op::LogicalProduct => Has(Binary),
        Op::ZippedProduct => Has(Binary),
        Op::TiledProduct => Has(Binary),
        Op::FlatProduct => Has(Binary),
        Op::BlockedProduct => Has(Binary),
        Op::RakedProduct => Has(Binary),
        Op::MaxCommonVector => Absent("not instantiated in cpp/ffi yet: the compiled driver covers it"),
        Op::MaxCommonLayout => Absent("not instantiated in cpp/ffi yet: the compiled driver covers it"),
        Op::LocalTile => Absent("not instantiated in cpp/ffi: it works on tensors, the library on layouts"),
        Op::LocalPartition => Absent("not instantiated in cpp/ffi: it works on tensors, the library on layouts"),
        Op::LocalTileOffset => Absent("not instantiated in cpp/ffi: it works on tensors, the library on layouts"),
        Op::LocalPartitionOffset => Absent("not instantiated in cpp/ffi: it works on tensors, the library on layouts"),
        Op::MmaLayoutA => Absent(ATOMS),
        Op::MmaLayoutB => Absent(ATOMS),
        Op::MmaLayoutC => Absent(ATOMS),
        Op::MmaShape => Absent(ATOMS),
        Op::MmaThrId => Absent(ATOMS),
        Op::MakeTmemCopy => Absent(ATOMS),
        Op::MmaLayoutE => Absent(ATOMS),
        Op::MmaLayoutSfa => Absent(ATOMS),
        Op::MmaLayoutSfb => Absent(ATOMS),
        Op::CopyAtomSrc => Absent(ATOMS),
        Op::CopyAtomDst => Absent(ATOMS),
        Op::CopyAtomRef => Absent(ATOMS),
        Op::CopyAtomThrId => Absent(ATOMS),
        Op::CopyTraitsSrc => Absent(ATOMS),
        Op::CopyTraitsDst => Absent(ATOMS),
        Op::CopyTraitsRef => Absent(ATOMS),
        Op::MmaAtom => Absent(ATOMS),
        Op::CopyAtom => Absent(ATOMS),
        Op::MakeTiledCopy => Absent(ATOMS),
        Op::MakeTiledCopyA => Absent(ATOMS),
        Op::MakeTiledCopyB => Absent(ATOMS),
        Op::MakeTiledCopyC => Absent(ATOMS),
        Op::MmaPartitionA => Absent(ATOMS),
        Op::MmaPartitionB => Absent(ATOMS),
        Op::MmaPartitionC => Absent(ATOMS),
        Op::PartitionShapeA => Absent(ATOMS),
        Op::PartitionShapeB => Absent(ATOMS),
        Op::PartitionShapeC => Absent(ATOMS),
        Op::CopyPartitionS => Absent(ATOMS),
        Op::CopyPartitionD => Absent(ATOMS),
        Op::MakeTiledMma => Absent(ATOMS),
        Op::TiledCopyTv => Absent(ATOMS),
        Op::TiledCopyTiler => Absent(ATOMS),
        Op::TiledMmaTvA => Absent(ATOMS),
        Op::TiledMmaTvB => Absent(ATOMS),
        Op::TiledMmaTvC => Absent(ATOMS),
        Op::TiledMmaTile => Absent(ATOMS),
        Op::TiledMmaThrLayout => Absent(ATOMS),
        Op::Upcast => Absent("not instantiated in cpp/ffi: recasts take swizzles and template arguments"),
        Op::Downcast => Absent("not instantiated in cpp/ffi: recasts take swizzles and template arguments"),
    }
}

/// The form `L(i)` (an evaluation, not an operation): the ABI's last row.
pub const EVALUATE: &str = "evaluate";

/// One row of the in-process ABI's table of operations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbiRow {
    /// The enum's name without `CC_OP_` (`COMPLEMENT_TO`).
    pub id: String,
    /// The expression language's name (`cc_ffi_op_name`).
    pub name: &'static str,
    /// Whether the row reads the second layout `b`.
    pub binary: bool,
    /// The op TU's lookup function (`find_complement_to`).
    pub find: String,
    /// What the row evaluates (`complement(a, int(arg))`), for the generated file's comment.
    pub call: String,
}

/// The rows of the ABI's table, in the order of `enum cc_op`: every operation [`ffi_form`] has,
/// in `Op::ALL`'s order, then the evaluation.
pub fn abi_rows() -> Vec<AbiRow> {
    let row = |name: &'static str, suffix: &str, binary: bool, call: String| AbiRow {
        id: format!("{name}{suffix}").to_ascii_uppercase(),
        name,
        binary,
        find: format!("find_{name}{suffix}"),
        call,
    };
    let mut rows = Vec::new();
    for &op in Op::ALL {
        let n = op.name();
        match ffi_form(op) {
            Part::Has(Ffi::Unary) => rows.push(row(n, "", false, format!("{n}(a)"))),
            Part::Has(Ffi::UnaryOrTo) => {
                rows.push(row(n, "", false, format!("{n}(a)")));
                rows.push(row(n, "_to", false, format!("{n}(a, int(arg))")));
            }
            Part::Has(Ffi::Binary) => rows.push(row(n, "", true, format!("{n}(a, b)"))),
            Part::Absent(_) => {}
        }
    }
    rows.push(row(EVALUATE, "", false, "a(int(arg))".into()));
    rows
}

/// The unary operations a case draws from, in the draw's order (reordering changes every seed's
/// cases). Not drawn: left_inverse, on which CuTe static_asserts for dynamic operands.
const UNARY: &[Op] = &[
    Op::Coalesce,
    Op::Filter,
    Op::FilterZeros,
    Op::Flatten,
    Op::Size,
    Op::Cosize,
    Op::Rank,
    Op::Depth,
    Op::RightInverse,
];
/// The divides, in the draw's order.
const DIVIDES: &[Op] = &[Op::LogicalDivide, Op::ZippedDivide, Op::TiledDivide, Op::FlatDivide];
/// The products, in the draw's order.
const PRODUCTS: &[Op] =
    &[Op::LogicalProduct, Op::ZippedProduct, Op::TiledProduct, Op::FlatProduct, Op::BlockedProduct, Op::RakedProduct];

/// Case `index` of `seed`.
pub fn case(seed: u64, index: u64) -> DynCase {
    let r = &mut Rng::new(seed, index);
    let c = |op: Op, expr: String, admissible: bool| DynCase { op: op.name(), expr, admissible };
    match r.below(16) {
        0..=2 => {
            let op = r.pick(UNARY);
            let p = any_profile(r);
            let l = if r.chance(1, 2) { compact(r, &p).0 } else { any_layout(r, &p).0 };
            c(op, format!("{op}({l})"), true)
        }
        3 => {
            let p = any_profile(r);
            let (l, e) = any_layout(r, &p);
            let size: i64 = e.iter().product();
            let i = r.below(size.max(1) as usize);
            DynCase { op: EVALUATE, expr: format!("{l}({i})"), admissible: true }
        }
        4 | 5 => {
            let op = Op::Complement;
            let p = single_leaf_profile(r);
            if r.chance(2, 3) {
                let (l, _, cos) = compact(r, &p);
                let k = 1 + r.below(3) as i64;
                if r.chance(1, 2) {
                    c(op, format!("{op}({l},{})", cos * k), true)
                } else {
                    c(op, format!("{op}({l})"), true)
                }
            } else {
                let (l, _) = any_layout(r, &p);
                c(op, format!("{op}({l},{})", 1 + r.below(64)), false)
            }
        }
        6..=9 => {
            let op = Op::Composition;
            let pa = any_profile(r);
            let pb = any_profile(r);
            if r.chance(3, 4) {
                let (a, e, _) = compact(r, &pa);
                let b = on_boundaries(r, &pb, &e);
                c(op, format!("{op}({a},{b})"), leaves(&pb) == 1)
            } else {
                let (a, _) = any_layout(r, &pa);
                let (b, _) = any_layout(r, &pb);
                c(op, format!("{op}({a},{b})"), false)
            }
        }
        10..=12 => {
            let op = r.pick(DIVIDES);
            let pa = any_profile(r);
            let pb = single_leaf_profile(r);
            if r.chance(3, 4) {
                let (a, e, _) = compact(r, &pa);
                let b = on_boundaries(r, &pb, &e);
                c(op, format!("{op}({a},{b})"), true)
            } else {
                let (a, _, _) = compact(r, &pa);
                let (b, _) = any_layout(r, &pb);
                c(op, format!("{op}({a},{b})"), false)
            }
        }
        _ => {
            let op = r.pick(PRODUCTS);
            let pa = single_leaf_profile(r);
            let mut pb = any_profile(r);
            // CuTe's zip in blocked/raked_product needs matching ranks ("Mismatched Ranks", a
            // compile-time rejection): a rank-1 tuple block with an integer tiler, and for
            // raked_product an integer with anything of rank 1.
            let rank = |p: &Profile| p.len().max(1);
            let bad = |pb: &Profile| match op {
                Op::BlockedProduct => pa.len() == 1 && pb.is_empty(),
                Op::RakedProduct => rank(&pa) <= 1 && rank(pb) <= 1 && (pa.is_empty() || pb.is_empty()),
                _ => false,
            };
            while bad(&pb) {
                pb = any_profile(r);
            }
            if r.chance(3, 4) {
                let (a, _, _) = compact(r, &pa);
                let (b, _, _) = compact(r, &pb);
                c(op, format!("{op}({a},{b})"), true)
            } else {
                let (a, _) = any_layout(r, &pa);
                let (b, _) = any_layout(r, &pb);
                c(op, format!("{op}({a},{b})"), false)
            }
        }
    }
}

/// The indices of cases `0..n` in shard `k` of `of` (case `i` goes to shard `i % of`).
pub fn shard_indices(n: usize, shard: (usize, usize)) -> impl Iterator<Item = usize> {
    let (k, of) = (shard.0, shard.1.max(1));
    (0..n).filter(move |i| i % of == k)
}

/// Cases `0..n` of `seed` in shard `k` of `of` ([`shard_indices`]).
pub fn cases(seed: u64, n: usize, shard: (usize, usize)) -> impl Iterator<Item = (usize, DynCase)> {
    shard_indices(n, shard).map(move |i| (i, case(seed, i as u64)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drawn_operations_are_the_librarys() {
        for &op in UNARY {
            assert!(matches!(ffi_form(op), Part::Has(Ffi::Unary)), "{op}");
        }
        for &op in DIVIDES.iter().chain(PRODUCTS).chain(&[Op::Composition]) {
            assert!(matches!(ffi_form(op), Part::Has(Ffi::Binary)), "{op}");
        }
        assert!(matches!(ffi_form(Op::Complement), Part::Has(Ffi::UnaryOrTo)));
        // Every operation the library has is drawn, but left_inverse (see UNARY).
        let drawn: Vec<Op> = UNARY.iter().chain(DIVIDES).chain(PRODUCTS).copied().collect();
        for &op in Op::ALL {
            if ffi_form(op).get().is_some() && ![Op::Composition, Op::Complement, Op::LeftInverse].contains(&op) {
                assert!(drawn.contains(&op), "{op} is in the library but never drawn");
            }
        }
        let rows = abi_rows();
        assert_eq!(rows.last().map(|r| r.name), Some(EVALUATE));
        assert!(rows.iter().any(|r| r.id == "COMPLEMENT_TO" && r.find == "find_complement_to"));
    }

    #[test]
    fn cases_reproduce_parse_and_cover_the_operations() {
        let a: Vec<_> = cases(3, 3000, (0, 1)).collect();
        assert_eq!(a, cases(3, 3000, (0, 1)).collect::<Vec<_>>());
        assert_ne!(a[..50], cases(4, 50, (0, 1)).collect::<Vec<_>>()[..]);
        let mut ops = std::collections::BTreeSet::new();
        for (_, c) in &a {
            let e = crate::expr::parse(&c.expr).unwrap_or_else(|e| panic!("{}: {e}", c.expr));
            // All dynamic: no `_N` anywhere.
            assert!(
                !c.expr.contains('_')
                    || c.expr.contains("_divide")
                    || c.expr.contains("_product")
                    || c.expr.contains("_inverse")
                    || c.expr.contains("filter_zeros"),
                "{}",
                c.expr
            );
            let _ = e;
            ops.insert(c.op);
        }
        for op in [
            "coalesce",
            "composition",
            "complement",
            "evaluate",
            "logical_divide",
            "flat_divide",
            "logical_product",
            "raked_product",
            "right_inverse",
            "cosize",
        ] {
            assert!(ops.contains(op), "{op} missing from {ops:?}");
        }
        assert!(a.iter().any(|(_, c)| !c.admissible) && a.iter().any(|(_, c)| c.admissible));
        // Shards partition the run.
        let mut joined: Vec<_> = (0..3).flat_map(|k| cases(3, 3000, (k, 3))).collect();
        joined.sort_by_key(|(i, _)| *i);
        assert_eq!(a, joined);
    }
}
