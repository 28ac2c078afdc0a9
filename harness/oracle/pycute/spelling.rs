//! pycute's spelling of the expression language: the Python text of a case, written from the AST,
//! and pycute's name for each operation.

use crate::expr::op::{Op, Part};
use crate::expr::Expr;

/// The Python text of an expression for pycute, written from the AST (integers, `_` as `None`,
/// tuples, `Layout(shape, stride)`, and the calls [`spelling`] names), or
/// why pycute has no counterpart. Used by `conformance --pycute` and the whole-command bench.
pub fn pycute_text(e: &Expr) -> std::result::Result<String, String> {
    Ok(match e {
        Expr::Int { value, .. } => value.to_string(),
        Expr::Underscore { .. } => "None".into(),
        Expr::Tuple { items, .. } => {
            let v: Vec<String> = items.iter().map(pycute_text).collect::<std::result::Result<_, _>>()?;
            format!("({},)", v.join(","))
        }
        Expr::Layout { shape, stride, .. } => format!("Layout({},{})", pycute_text(shape)?, pycute_text(stride)?),
        Expr::Call { name, args, called: true, .. } => {
            // The spelling comes from the operation's entry in the table of operations.
            let n = Op::lookup(name)
                .and_then(|op| spelling(op).get())
                .ok_or_else(|| format!("pycute has no {}", name.base()))?;
            let v: Vec<String> = args.iter().map(pycute_text).collect::<std::result::Result<_, _>>()?;
            format!("{n}({})", v.join(","))
        }
        Expr::Apply { target, args, .. } if args.len() == 1 => {
            format!("({})({})", pycute_text(target)?, pycute_text(&args[0])?)
        }
        _ => return Err("no pycute form".into()),
    })
}

/// pycute's name of each operation (an exhaustive match: a new operation is a compile error here).
pub fn spelling(op: Op) -> Part<&'static str> {
    use Part::{Absent, Has};
    match op {
        Op::MakeIdentityLayout => Absent("pycute (the nvidia-cutlass wheel) has no ScaledBasis strides"),
        Op::MakeIdentityTensor => Absent("pycute (the nvidia-cutlass wheel) has no tensors nor ScaledBasis strides"),
        Op::MakeBasisLike => Absent("pycute (the nvidia-cutlass wheel) has no ScaledBasis strides"),
        Op::Equal => Absent("pycute's == is Python's on its tuples: it has no ScaledBasis, no R<a,b> and no static/dynamic bool to print"),
        Op::MakeLayout => {
            Absent("not translated: pycute's make_layout is not cross-checked by the conformance run yet")
        }
        Op::MakeLayoutRight => Absent("pycute (the nvidia-cutlass wheel) has no LayoutRight"),
        Op::Size => Has("size"),
        Op::Cosize => Has("cosize"),
        Op::Rank => {
            Absent("not translated: pycute's rank is an int-tuple helper the conformance run does not cross-check")
        }
        Op::Depth => {
            Absent("not translated: pycute's depth is an int-tuple helper the conformance run does not cross-check")
        }
        Op::Shape => Absent("not translated: pycute layouts expose .shape/.stride attributes, not functions"),
        Op::Stride => Absent("not translated: pycute layouts expose .shape/.stride attributes, not functions"),
        Op::Get => Absent("not translated: pycute indexes with [] rather than a function"),
        Op::Layout => Absent("not translated: pycute indexes with [] rather than a function"),
        Op::Group => Absent("not translated: pycute has no group<B,E>"),
        Op::MmaMakeFragmentA => Absent("pycute (the nvidia-cutlass wheel) has no MMA atoms"),
        Op::MmaMakeFragmentB => Absent("pycute (the nvidia-cutlass wheel) has no MMA atoms"),
        Op::Flatten => Absent("not translated: pycute's flatten is an int-tuple helper, not a layout operation"),
        Op::MakeTmaCopy => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::MakeTmaAtomASm100 => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::MakeTmaAtomBSm100 => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::MakeTmaCopyASm100 => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::MakeTmaCopyBSm100 => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::MakeTmaCopyCSm100 => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::MakeTmaAtom => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::TmaGbasis => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::AsPositionIndependentSwizzleTensor => Absent("pycute (the nvidia-cutlass wheel) has no tensors nor swizzled pointers"),
        Op::LazyTransformElemLess => Absent("pycute (the nvidia-cutlass wheel) has no tensors"),
        Op::GetTmaTensor => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::TmaGStride => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::TmaIm2colDescArgs => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::MakeGmmaDesc => Absent("pycute (the nvidia-cutlass wheel) has no GMMA descriptors"),
        Op::MakeUmmaDesc => Absent("pycute (the nvidia-cutlass wheel) has no UMMA descriptors"),
        Op::MakeInstrDesc => Absent("pycute (the nvidia-cutlass wheel) has no SM100 MMA atoms"),
        Op::TmaDescArgs => Absent("pycute (the nvidia-cutlass wheel) has no TMA atoms"),
        Op::WarpAccess => Absent("CuTe has no warp_access: it is cutecheck's analysis of a warp's memory access, proven against the H200's ncu counters (fixtures/gpu/h200-access), not against CuTe"),
        Op::ProductEach => Absent("pycute (the nvidia-cutlass wheel) has no product_each"),
        Op::Slice => Absent("not translated: pycute slices with [] on a layout, not with a slice function"),
        Op::Dice => Absent("not translated: pycute slices with [] on a layout, not with a dice function"),
        Op::SliceAndOffset => {
            Absent("not translated: pycute slices with [] on a layout, not with a slice_and_offset function")
        }
        Op::MakeLayoutLike => Absent("pycute (the nvidia-cutlass wheel) has no make_layout_like"),
        Op::MakeFragmentLike => Absent("pycute (the nvidia-cutlass wheel) has no make_fragment_like"),
        Op::PartitionFragmentC => Absent("pycute (the nvidia-cutlass wheel) has no partition_fragment_C"),
        Op::RetileS | Op::RetileD => Absent("pycute has no copy atoms"),
        Op::MmaFragmentA => Absent("pycute (the nvidia-cutlass wheel) has no mma_fragment_a"),
        Op::MmaFragmentB => Absent("pycute (the nvidia-cutlass wheel) has no mma_fragment_b"),
        Op::MmaFragmentC => Absent("pycute (the nvidia-cutlass wheel) has no mma_fragment_c"),
        Op::TileToShape => Absent("pycute (the nvidia-cutlass wheel) has no tile_to_shape"),
        Op::TileToMmaShape => Absent("pycute (the nvidia-cutlass wheel) has no tile_to_mma_shape"),
        Op::Coalesce => Has("coalesce"),
        Op::Filter => Has("filter"),
        Op::FilterZeros => Absent("pycute (the nvidia-cutlass wheel) has no filter_zeros"),
        Op::Composition => Has("composition"),
        Op::Complement => Has("complement"),
        Op::RightInverse => Has("right_inverse"),
        Op::LeftInverse => Has("left_inverse"),
        Op::LogicalDivide => Has("logical_divide"),
        Op::ZippedDivide => Has("zipped_divide"),
        Op::TiledDivide => Has("tiled_divide"),
        Op::FlatDivide => Absent("pycute (the nvidia-cutlass wheel) has no flat_divide"),
        Op::LogicalProduct => Has("logical_product"),
        Op::ZippedProduct => Has("zipped_product"),
        Op::TiledProduct => Has("tiled_product"),
        Op::FlatProduct => Absent("pycute (the nvidia-cutlass wheel) has no flat_product"),
        Op::BlockedProduct => Absent("pycute (the nvidia-cutlass wheel) has no blocked_product"),
        Op::RakedProduct => Absent("pycute (the nvidia-cutlass wheel) has no raked_product"),
        Op::MaxCommonVector => Absent("pycute (the nvidia-cutlass wheel) has no max_common_vector"),
        Op::MaxCommonLayout => Absent("pycute (the nvidia-cutlass wheel) has no max_common_layout"),
        Op::LocalTile => Absent("not translated: pycute has no tensors (local_tile works on a tensor)"),
        Op::LocalPartition => Absent("not translated: pycute has no tensors (local_partition works on a tensor)"),
        Op::LocalTileOffset => Absent("not translated: pycute has no tensors"),
        Op::LocalPartitionOffset => Absent("not translated: pycute has no tensors"),
        Op::MmaLayoutA => Absent("pycute has no MMA or copy atoms"),
        Op::MmaLayoutB => Absent("pycute has no MMA or copy atoms"),
        Op::MmaLayoutC => Absent("pycute has no MMA or copy atoms"),
        Op::MmaShape => Absent("pycute has no MMA or copy atoms"),
        Op::MmaThrId => Absent("pycute has no MMA or copy atoms"),
        Op::MakeTmemCopy => Absent("pycute has no MMA or copy atoms"),
        Op::MmaLayoutE => Absent("pycute has no MMA or copy atoms"),
        Op::MmaLayoutSfa => Absent("pycute has no MMA or copy atoms"),
        Op::MmaLayoutSfb => Absent("pycute has no MMA or copy atoms"),
        Op::CopyAtomSrc => Absent("pycute has no MMA or copy atoms"),
        Op::CopyAtomDst => Absent("pycute has no MMA or copy atoms"),
        Op::CopyAtomRef => Absent("pycute has no MMA or copy atoms"),
        Op::CopyAtomThrId => Absent("pycute has no MMA or copy atoms"),
        Op::CopyTraitsSrc => Absent("pycute has no MMA or copy atoms"),
        Op::CopyTraitsDst => Absent("pycute has no MMA or copy atoms"),
        Op::CopyTraitsRef => Absent("pycute has no MMA or copy atoms"),
        Op::MmaAtom => Absent("pycute has no MMA or copy atoms"),
        Op::CopyAtom => Absent("pycute has no MMA or copy atoms"),
        Op::MakeTiledCopy => Absent("pycute has no MMA or copy atoms"),
        Op::MakeTiledCopyA => Absent("pycute has no MMA or copy atoms"),
        Op::MakeTiledCopyB => Absent("pycute has no MMA or copy atoms"),
        Op::MakeTiledCopyC => Absent("pycute has no MMA or copy atoms"),
        Op::MmaPartitionA => Absent("pycute has no MMA or copy atoms"),
        Op::MmaPartitionB => Absent("pycute has no MMA or copy atoms"),
        Op::MmaPartitionC => Absent("pycute has no MMA or copy atoms"),
        Op::PartitionShapeA => Absent("pycute has no MMA or copy atoms"),
        Op::PartitionShapeB => Absent("pycute has no MMA or copy atoms"),
        Op::PartitionShapeC => Absent("pycute has no MMA or copy atoms"),
        Op::CopyPartitionS => Absent("pycute has no MMA or copy atoms"),
        Op::CopyPartitionD => Absent("pycute has no MMA or copy atoms"),
        Op::MakeTiledMma => Absent("pycute has no MMA or copy atoms"),
        Op::TiledCopyTv => Absent("pycute has no MMA or copy atoms"),
        Op::TiledCopyTiler => Absent("pycute has no MMA or copy atoms"),
        Op::TiledMmaTvA => Absent("pycute has no MMA or copy atoms"),
        Op::TiledMmaTvB => Absent("pycute has no MMA or copy atoms"),
        Op::TiledMmaTvC => Absent("pycute has no MMA or copy atoms"),
        Op::TiledMmaTile => Absent("pycute has no MMA or copy atoms"),
        Op::TiledMmaThrLayout => Absent("pycute has no MMA or copy atoms"),
        Op::Upcast => Absent("pycute has no MMA or copy atoms"),
        Op::Downcast => Absent("pycute has no MMA or copy atoms"),
    }
}
