//! Named functions of the expression language. Every operation is a variant of `expr::op::Op`
//! (its argument count is the enum's); its engine entry is [`entry`]'s arm for it (a function of
//! one of the area files here: `core`, `algebra`, `atoms`). Besides operations, the atom area
//! has forms that are values rather than calls: bare atom / copy-operation / value-type names and
//! `Swizzle<B,M,S>` (see [`atoms::form`]).

use crate::engine::{Error, Result};
pub use crate::expr::op::{Op, Part};

use super::parse::Name;
use super::value::Value;

pub mod algebra;
pub mod atoms;
pub mod basis;
pub mod core;
pub mod desc;
pub mod tma;

/// Call the builtin `name` with evaluated arguments; `called` is false for a bare name.
pub fn call(name: &Name, args: &[Value], called: bool) -> Result<Value> {
    if let Some(r) = atoms::form(name, args, called) {
        return r;
    }
    if let Some(r) = atoms::on_composed(name, args) {
        return r;
    }
    let Some(op) = Op::lookup(name) else {
        let hint = did_you_mean(&name.to_string()).map_or(String::new(), |n| format!(" (did you mean '{n}'?)"));
        return Err(Error::Type(format!("unknown function or name '{name}'{hint}")));
    };
    let (lo, hi) = op.arity();
    arity(op.name(), args, lo..=hi)?;
    if let Some(r) = basis::on_transform(name, op, args) {
        return r;
    }
    if let Some(r) = basis::call(op, args) {
        return r;
    }
    match entry(op) {
        // An overflow names the innermost CuTe operation that computed it.
        Part::Has(f) => f(name, args).map_err(|e| match e {
            Error::Overflow { what, op: "" } => Error::Overflow { what, op: op.name() },
            e => e,
        }),
        Part::Absent(why) => Err(Error::Type(format!("the engine has no {op}: {why}"))),
    }
}

/// The operation whose name is nearest to `name` (edit distance at most 2, and at most a third of
/// the name), for an unknown name's error.
pub fn did_you_mean(name: &str) -> Option<&'static str> {
    let limit = 2.min(name.chars().count() / 3).max(1);
    Op::ALL
        .iter()
        .map(|op| (edit_distance(name, op.name()), op.name()))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, n)| (*d, n.len()))
        .map(|(_, n)| n)
}

/// Levenshtein distance by characters (names are short: one row of the table is kept).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != *cb)).min(row[j] + 1).min(up + 1);
            diag = up;
        }
    }
    row[b.len()]
}

/// Check the argument count of a builtin.
pub fn arity(name: &str, args: &[Value], n: std::ops::RangeInclusive<usize>) -> Result<()> {
    if n.contains(&args.len()) {
        Ok(())
    } else {
        Err(Error::Type(format!("{name} takes {}..={} arguments, got {}", n.start(), n.end(), args.len())))
    }
}

/// The engine entry: the called name (with its template arguments) and the evaluated arguments.
pub type Eval = fn(&Name, &[Value]) -> Result<Value>;

/// The engine entry of each operation (an exhaustive match: a new operation is a compile error here).
pub fn entry(op: Op) -> Part<Eval> {
    use crate::engine::{blocked_product, flat_divide, flat_product, logical_divide, logical_product, max_common};
    use crate::engine::{raked_product, tiled_divide, tiled_product, zipped_divide, zipped_product};
    use crate::expr::builtins;
    use Part::Has;
    match op {
        Op::MakeLayout => Has(builtins::core::make_layout),
        Op::MakeLayoutRight => Has(builtins::core::make_layout_right),
        Op::Size => Has(builtins::core::size),
        Op::Cosize => Has(builtins::core::cosize),
        Op::Rank => Has(builtins::core::rank),
        Op::Depth => Has(builtins::core::depth),
        Op::Shape => Has(builtins::core::shape),
        Op::Stride => Has(builtins::core::stride),
        Op::Get => Has(builtins::core::get),
        Op::Layout => Has(builtins::core::get),
        Op::Group => Has(builtins::core::group),
        Op::MmaMakeFragmentA => Has(|n, a| builtins::atoms::make_fragment_desc('a', n, a)),
        Op::MmaMakeFragmentB => Has(|n, a| builtins::atoms::make_fragment_desc('b', n, a)),
        Op::Flatten => Has(builtins::core::flatten),
        Op::ProductEach => Has(builtins::core::product_each),
        Op::MakeIdentityLayout => Has(builtins::basis::make_identity_layout),
        Op::MakeIdentityTensor => Has(builtins::basis::make_identity_tensor),
        Op::MakeBasisLike => Has(builtins::basis::make_basis_like),
        Op::Equal => Has(builtins::basis::equal),
        Op::TileToShape => Has(builtins::algebra::tile_to_shape),
        Op::TileToMmaShape => Has(builtins::algebra::tile_to_mma_shape),
        Op::MakeLayoutLike => {
            Has(|n, a| builtins::algebra::of_tensor_layout(n, a, crate::engine::make_fragment_like::make_layout_like))
        }
        Op::MakeFragmentLike => {
            Has(|n, a| builtins::algebra::of_tensor_layout(n, a, crate::engine::make_fragment_like::make_fragment_like))
        }
        Op::PartitionFragmentC => Has(builtins::atoms::partition_fragment_c),
        Op::MmaFragmentA => Has(builtins::atoms::mma_fragment),
        Op::RetileS | Op::RetileD => Has(builtins::atoms::retile),
        Op::MmaFragmentB => Has(builtins::atoms::mma_fragment),
        Op::MmaFragmentC => Has(builtins::atoms::mma_fragment),
        Op::Slice => Has(builtins::algebra::slice),
        Op::Dice => Has(builtins::algebra::dice),
        Op::SliceAndOffset => Has(builtins::algebra::slice_and_offset),
        Op::MakeTmaCopy => Has(builtins::tma::make_tma_copy),
        Op::MakeTmaAtomASm100 => Has(|n, a| builtins::tma::make_sm100(Op::MakeTmaAtomASm100, n, a)),
        Op::MakeTmaAtomBSm100 => Has(|n, a| builtins::tma::make_sm100(Op::MakeTmaAtomBSm100, n, a)),
        Op::MakeTmaCopyASm100 => Has(|n, a| builtins::tma::make_sm100(Op::MakeTmaCopyASm100, n, a)),
        Op::MakeTmaCopyBSm100 => Has(|n, a| builtins::tma::make_sm100(Op::MakeTmaCopyBSm100, n, a)),
        Op::MakeTmaCopyCSm100 => Has(|n, a| builtins::tma::make_sm100(Op::MakeTmaCopyCSm100, n, a)),
        Op::MakeTmaAtom => Has(builtins::tma::make_tma_atom),
        Op::TmaGbasis => Has(builtins::tma::tma_gbasis),
        Op::TmaGStride => Has(builtins::tma::tma_g_stride),
        Op::GetTmaTensor => Has(builtins::tma::get_tma_tensor),
        Op::LazyTransformElemLess => Has(builtins::basis::lazy_transform_elem_less),
        Op::AsPositionIndependentSwizzleTensor => Has(builtins::atoms::as_position_independent_swizzle_tensor),
        Op::TmaDescArgs => Has(builtins::tma::tma_desc_args),
        Op::MakeGmmaDesc => Has(|n, a| builtins::desc::make_desc(Op::MakeGmmaDesc, n, a)),
        Op::MakeUmmaDesc => Has(|n, a| builtins::desc::make_desc(Op::MakeUmmaDesc, n, a)),
        Op::MakeInstrDesc => Has(builtins::desc::make_instr_desc),
        Op::TmaIm2colDescArgs => Has(builtins::tma::tma_im2col_desc_args),
        Op::WarpAccess => Has(builtins::atoms::warp_access),
        Op::Coalesce => Has(builtins::algebra::coalesce),
        Op::Filter => Has(builtins::algebra::filter),
        Op::FilterZeros => Has(builtins::algebra::filter_zeros),
        Op::Composition => Has(builtins::algebra::composition),
        Op::Complement => Has(builtins::algebra::complement),
        Op::RightInverse => Has(builtins::algebra::right_inverse),
        Op::LeftInverse => Has(builtins::algebra::left_inverse),
        Op::LogicalDivide => Has(|n, a| {
            builtins::algebra::by_tiler_view(n, a, logical_divide::logical_divide, logical_divide::small_view)
        }),
        Op::ZippedDivide => {
            Has(|n, a| builtins::algebra::by_tiler_view(n, a, zipped_divide::zipped_divide, zipped_divide::small_view))
        }
        Op::TiledDivide => Has(|n, a| {
            builtins::algebra::divide_tensor(a, tiled_divide::tiled_divide)
                .unwrap_or_else(|| builtins::algebra::by_tiler(n, a, tiled_divide::tiled_divide))
        }),
        Op::FlatDivide => Has(|n, a| builtins::algebra::by_tiler(n, a, flat_divide::flat_divide)),
        Op::LogicalProduct => Has(|n, a| builtins::algebra::by_tiler(n, a, logical_product::logical_product)),
        Op::ZippedProduct => Has(|n, a| builtins::algebra::by_tiler(n, a, zipped_product::zipped_product)),
        Op::TiledProduct => Has(|n, a| builtins::algebra::by_tiler(n, a, tiled_product::tiled_product)),
        Op::FlatProduct => Has(|n, a| builtins::algebra::by_tiler(n, a, flat_product::flat_product)),
        Op::BlockedProduct => Has(|n, a| builtins::algebra::of_layouts(n, a, blocked_product::blocked_product)),
        Op::RakedProduct => Has(|n, a| builtins::algebra::of_layouts(n, a, raked_product::raked_product)),
        Op::MaxCommonVector => Has(builtins::algebra::max_common_vector),
        Op::MaxCommonLayout => Has(|n, a| builtins::algebra::of_layouts(n, a, max_common::max_common_layout)),
        Op::LocalTile => Has(builtins::algebra::local_tile),
        Op::LocalPartition => Has(builtins::algebra::local_partition),
        Op::LocalTileOffset => Has(builtins::algebra::local_tile_offset),
        Op::LocalPartitionOffset => Has(builtins::algebra::local_partition_offset),
        Op::MmaLayoutA => Has(|n, a| builtins::atoms::mma_member(Op::MmaLayoutA, n, a)),
        Op::MmaLayoutB => Has(|n, a| builtins::atoms::mma_member(Op::MmaLayoutB, n, a)),
        Op::MmaLayoutC => Has(|n, a| builtins::atoms::mma_member(Op::MmaLayoutC, n, a)),
        Op::MmaShape => Has(|n, a| builtins::atoms::mma_member(Op::MmaShape, n, a)),
        Op::MmaThrId => Has(|n, a| builtins::atoms::mma_member(Op::MmaThrId, n, a)),
        Op::MakeTmemCopy => Has(builtins::atoms::make_tmem_copy),
        Op::MmaLayoutE => Has(|n, a| builtins::atoms::mma_extra('E', n, a)),
        Op::MmaLayoutSfa => Has(|n, a| builtins::atoms::mma_extra('S', n, a)),
        Op::MmaLayoutSfb => Has(|n, a| builtins::atoms::mma_extra('T', n, a)),
        Op::CopyAtomSrc => Has(|n, a| builtins::atoms::copy_atom_member(Op::CopyAtomSrc, n, a)),
        Op::CopyAtomDst => Has(|n, a| builtins::atoms::copy_atom_member(Op::CopyAtomDst, n, a)),
        Op::CopyAtomRef => Has(|n, a| builtins::atoms::copy_atom_member(Op::CopyAtomRef, n, a)),
        Op::CopyAtomThrId => Has(|n, a| builtins::atoms::copy_atom_member(Op::CopyAtomThrId, n, a)),
        Op::CopyTraitsSrc => Has(|n, a| builtins::atoms::copy_traits_member(Op::CopyTraitsSrc, n, a)),
        Op::CopyTraitsDst => Has(|n, a| builtins::atoms::copy_traits_member(Op::CopyTraitsDst, n, a)),
        Op::CopyTraitsRef => Has(|n, a| builtins::atoms::copy_traits_member(Op::CopyTraitsRef, n, a)),
        Op::MmaAtom => Has(builtins::atoms::mma_atom),
        Op::CopyAtom => Has(builtins::atoms::copy_atom),
        Op::MakeTiledCopy => Has(builtins::atoms::make_tiled_copy),
        Op::MakeTiledCopyA => Has(builtins::atoms::make_tiled_copy_for),
        Op::MakeTiledCopyB => Has(builtins::atoms::make_tiled_copy_for),
        Op::MakeTiledCopyC => Has(builtins::atoms::make_tiled_copy_for),
        Op::MmaPartitionA => Has(builtins::atoms::mma_partition),
        Op::MmaPartitionB => Has(builtins::atoms::mma_partition),
        Op::MmaPartitionC => Has(builtins::atoms::mma_partition),
        Op::PartitionShapeA => Has(builtins::atoms::partition_shape),
        Op::PartitionShapeB => Has(builtins::atoms::partition_shape),
        Op::PartitionShapeC => Has(builtins::atoms::partition_shape),
        Op::CopyPartitionS => Has(builtins::atoms::copy_partition),
        Op::CopyPartitionD => Has(builtins::atoms::copy_partition),
        Op::MakeTiledMma => Has(|n, a| builtins::atoms::tiled_mma(Op::MakeTiledMma, n, a)),
        Op::TiledCopyTv => Has(|n, a| builtins::atoms::tiled_copy(Op::TiledCopyTv, n, a)),
        Op::TiledCopyTiler => Has(|n, a| builtins::atoms::tiled_copy(Op::TiledCopyTiler, n, a)),
        Op::TiledMmaTvA => Has(|n, a| builtins::atoms::tiled_mma(Op::TiledMmaTvA, n, a)),
        Op::TiledMmaTvB => Has(|n, a| builtins::atoms::tiled_mma(Op::TiledMmaTvB, n, a)),
        Op::TiledMmaTvC => Has(|n, a| builtins::atoms::tiled_mma(Op::TiledMmaTvC, n, a)),
        Op::TiledMmaTile => Has(|n, a| builtins::atoms::tiled_mma(Op::TiledMmaTile, n, a)),
        Op::TiledMmaThrLayout => Has(|n, a| builtins::atoms::tiled_mma(Op::TiledMmaThrLayout, n, a)),
        Op::Upcast => Has(|n, a| builtins::atoms::recast(Op::Upcast, n, a)),
        Op::Downcast => Has(|n, a| builtins::atoms::recast(Op::Downcast, n, a)),
    }
}

#[cfg(test)]
mod did_you_mean_tests {
    use super::*;

    #[test]
    fn an_unknown_name_gets_the_nearest_operation() {
        assert_eq!(edit_distance("coalesc", "coalesce"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(did_you_mean("coalesc"), Some("coalesce"));
        assert_eq!(did_you_mean("compositon"), Some("composition"));
        assert_eq!(did_you_mean("logical_divid"), Some("logical_divide"));
        assert_eq!(did_you_mean("zzzzzzzz"), None);
        let e = crate::expr::eval::eval_str("coalesc(_2:_1)").unwrap_err().to_string();
        assert!(e.contains("unknown function or name 'coalesc' (did you mean 'coalesce'?)"), "{e}");
    }
}
