//! How the CuTe DSL oracle sends each operation: [`dsl_form`], an exhaustive match on [`Op`] (a new
//! operation is a compile error here), [`Part::Absent`] with the reason where the DSL oracle has
//! no form of it.
//!
//! The worker (`worker.py`) gets its list of the names it may be asked, and the DSL property of
//! each atom member, from this table: `cargo xtask sourcegen` writes them into the generated block
//! of worker.py (tests/sourcegen.rs fails when the block is stale). The worker keeps its own
//! implementation of each plain call (its `OPS` table of functions).

use crate::expr::op::{Op, Part};

/// How a case of an operation is sent to the worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DslForm {
    /// A plain call, `["c", name, [args]]`: the worker's function of that name (`get` is
    /// evaluated by the worker's `build` itself, with literal mode indices).
    Call,
    /// A member of an MMA atom, `["m", name, atom]`: the DSL `MmaAtom`'s property of that name.
    Mma(&'static str),
    /// A member of a copy atom, `["k", name, atom]`: the DSL `CopyAtom`'s property of that name.
    Copy(&'static str),
}

/// The DSL oracle's form of each operation (an exhaustive match: a new operation is a compile
/// error here).
pub fn dsl_form(op: Op) -> Part<DslForm> {
    use DslForm::{Call, Copy, Mma};
    use Part::{Absent, Has};
    const TILED: &str = "not translated: the DSL oracle builds single MMA and copy atoms, not tiled ones";
    const PARTITION: &str = "not translated: partitioning works on tensors, and the DSL oracle sends layouts only";
    const TRAITS: &str =
        "the copy traits' layouts are in bits, and the DSL's CopyAtom gives its layouts in elements only";
    match op {
        Op::MakeLayout => Has(Call),
        Op::MakeLayoutRight => Has(Call),
        Op::MakeIdentityLayout => Absent("not translated: the DSL worker sends integer layouts only, no basis strides"),
        Op::MakeIdentityTensor => Absent("not translated: the DSL worker sends integer layouts only, no tensors over arithmetic-tuple iterators"),
        Op::MakeBasisLike => Absent("not translated: the DSL worker sends integer layouts only, no basis strides"),
        Op::Equal => Absent("not translated: the DSL's == is Python's or an MLIR predicate, not CuTe C++'s operator== with its static results"),
        Op::Size => Has(Call),
        Op::Cosize => Has(Call),
        Op::Rank => Has(Call),
        Op::Depth => Has(Call),
        Op::Shape => Has(Call),
        Op::Stride => Has(Call),
        Op::Get => Has(Call),
        Op::Layout => Absent("not translated: the worker has no function for layout(L, i, ...), only for get"),
        Op::Group => Absent("not translated: the DSL's group_modes takes run-time indices; not sent"),
        Op::MmaMakeFragmentA => Absent("not translated: the DSL worker sends layouts only; a descriptor tensor needs an smem tensor"),
        Op::MmaMakeFragmentB => Absent("not translated: the DSL worker sends layouts only; a descriptor tensor needs an smem tensor"),
        Op::Flatten => Has(Call),
        Op::MakeTmaCopy => Absent("not translated: the DSL worker sends layouts only; TMA atoms need a global tensor and a GPU-side descriptor"),
        Op::MakeTmaAtomASm100 => Absent("not translated: the DSL worker sends layouts only; TMA atoms need a global tensor and a GPU-side descriptor"),
        Op::MakeTmaAtomBSm100 => Absent("not translated: the DSL worker sends layouts only; TMA atoms need a global tensor and a GPU-side descriptor"),
        Op::MakeTmaCopyASm100 => Absent("not translated: the DSL worker sends layouts only; TMA atoms need a global tensor and a GPU-side descriptor"),
        Op::MakeTmaCopyBSm100 => Absent("not translated: the DSL worker sends layouts only; TMA atoms need a global tensor and a GPU-side descriptor"),
        Op::MakeTmaCopyCSm100 => Absent("not translated: the DSL worker sends layouts only; TMA atoms need a global tensor and a GPU-side descriptor"),
        Op::MakeTmaAtom => Absent("not translated: the DSL worker sends layouts only; TMA atoms need a global tensor and a GPU-side descriptor"),
        Op::TmaGbasis => Absent("not translated: the DSL worker sends layouts only; TMA atoms need a global tensor and a GPU-side descriptor"),
        Op::AsPositionIndependentSwizzleTensor => Absent("not translated: the DSL worker sends layouts only, no shared-memory tensors"),
        Op::LazyTransformElemLess => Absent("not translated: the DSL worker sends integer layouts only, no tensors over iterators"),
        Op::GetTmaTensor => Absent("not translated: the DSL worker sends layouts only; TMA atoms need a global tensor and a GPU-side descriptor"),
        Op::TmaGStride => Absent("not translated: the DSL worker sends layouts only; TMA atoms need a global tensor and a GPU-side descriptor"),
        Op::TmaIm2colDescArgs => Absent("not translated: the DSL worker sends layouts only; an im2col TMA needs a global tensor and a GPU-side descriptor"),
        Op::MakeGmmaDesc => Absent("not translated: the DSL worker sends layouts only; a GMMA descriptor is made from a shared-memory tensor"),
        Op::MakeUmmaDesc => Absent("not translated: the DSL worker sends layouts only; a UMMA descriptor is made from a shared-memory tensor"),
        Op::MakeInstrDesc => Absent("not translated: the DSL worker sends layouts only; an instruction descriptor belongs to an SM100 MMA atom"),
        Op::TmaDescArgs => Absent("not translated: the DSL worker sends layouts only; TMA atoms need a global tensor and a GPU-side descriptor"),
        Op::WarpAccess => Absent("CuTe has no warp_access: it is cutecheck's analysis of a warp's memory access, proven against the H200's ncu counters (fixtures/gpu/h200-access), not against CuTe"),
        Op::ProductEach => Absent("not translated: the DSL worker has no product_each call yet"),
        Op::Slice => Absent("not translated: the DSL worker has no slice call yet"),
        Op::Dice => Absent("not translated: the DSL worker has no dice call yet"),
        Op::SliceAndOffset => Absent("not translated: the DSL worker has no slice_and_offset call yet"),
        Op::MakeLayoutLike => Absent("not translated: the DSL worker has no make_layout_like call yet"),
        Op::MakeFragmentLike => Absent("not translated: the DSL worker has no make_fragment_like call yet"),
        Op::PartitionFragmentC => Absent("not translated: the DSL worker has no partition_fragment_C call yet"),
        Op::RetileS | Op::RetileD => Absent("not translated: the DSL worker has no retile call yet"),
        Op::MmaFragmentA => Absent("not translated: the DSL worker has no mma_fragment_a call yet"),
        Op::MmaFragmentB => Absent("not translated: the DSL worker has no mma_fragment_b call yet"),
        Op::MmaFragmentC => Absent("not translated: the DSL worker has no mma_fragment_c call yet"),
        Op::TileToShape => Absent(
            "not translated: the DSL worker has no tile_to_shape call yet (cute.tile_to_shape exists in the DSL)",
        ),
        Op::TileToMmaShape => Absent("not translated: the DSL worker has no UMMA tile_to_mma_shape call"),
        Op::Coalesce => Has(Call),
        Op::Filter => Has(Call),
        Op::FilterZeros => Has(Call),
        Op::Composition => Has(Call),
        Op::Complement => Has(Call),
        Op::RightInverse => Has(Call),
        Op::LeftInverse => Has(Call),
        Op::LogicalDivide => Has(Call),
        Op::ZippedDivide => Has(Call),
        Op::TiledDivide => Has(Call),
        Op::FlatDivide => Has(Call),
        Op::LogicalProduct => Has(Call),
        Op::ZippedProduct => Has(Call),
        Op::TiledProduct => Has(Call),
        Op::FlatProduct => Has(Call),
        Op::BlockedProduct => Has(Call),
        Op::RakedProduct => Has(Call),
        Op::MaxCommonVector => Has(Call),
        Op::MaxCommonLayout => Has(Call),
        Op::LocalTile => Absent("not translated: local_tile works on a tensor, and the DSL oracle sends layouts only"),
        Op::LocalPartition => {
            Absent("not translated: local_partition works on a tensor, and the DSL oracle sends layouts only")
        }
        Op::LocalTileOffset => Absent("not translated: the offset of a tensor's pointer needs tensors in the DSL"),
        Op::LocalPartitionOffset => Absent("not translated: the offset of a tensor's pointer needs tensors in the DSL"),
        Op::MmaLayoutA => Has(Mma("tv_layout_A")),
        Op::MmaLayoutB => Has(Mma("tv_layout_B")),
        Op::MmaLayoutC => Has(Mma("tv_layout_C")),
        Op::MmaShape => Has(Mma("shape_mnk")),
        Op::MmaThrId => Has(Mma("thr_id")),
        Op::MakeTmemCopy => Absent("not translated: a whole TiledCopy prints as C++ text"),
        Op::MmaLayoutE => Absent("the DSL's MmaAtom has no metadata layout member"),
        Op::MmaLayoutSfa => Absent("the DSL's MmaAtom has no scale-factor layout member"),
        Op::MmaLayoutSfb => Absent("the DSL's MmaAtom has no scale-factor layout member"),
        Op::CopyAtomSrc => Has(Copy("layout_src_tv")),
        Op::CopyAtomDst => Has(Copy("layout_dst_tv")),
        Op::CopyAtomRef => Absent("the DSL's CopyAtom has no reference layout (only layout_src_tv and layout_dst_tv)"),
        Op::CopyAtomThrId => Has(Copy("thr_id")),
        Op::CopyTraitsSrc => Absent(TRAITS),
        Op::CopyTraitsDst => Absent(TRAITS),
        Op::CopyTraitsRef => Absent(TRAITS),
        Op::MmaAtom => Absent("not translated: a whole atom prints as C++ text; the DSL oracle compares its members"),
        Op::CopyAtom => Absent("not translated: a whole atom prints as C++ text; the DSL oracle compares its members"),
        Op::MakeTiledCopy => Absent(TILED),
        Op::MakeTiledCopyA => Absent(TILED),
        Op::MakeTiledCopyB => Absent(TILED),
        Op::MakeTiledCopyC => Absent(TILED),
        Op::MmaPartitionA => Absent(PARTITION),
        Op::MmaPartitionB => Absent(PARTITION),
        Op::MmaPartitionC => Absent(PARTITION),
        Op::PartitionShapeA => Absent(TILED),
        Op::PartitionShapeB => Absent(TILED),
        Op::PartitionShapeC => Absent(TILED),
        Op::CopyPartitionS => Absent(PARTITION),
        Op::CopyPartitionD => Absent(PARTITION),
        Op::MakeTiledMma => Absent(TILED),
        Op::TiledCopyTv => Absent(TILED),
        Op::TiledCopyTiler => Absent(TILED),
        Op::TiledMmaTvA => Absent(TILED),
        Op::TiledMmaTvB => Absent(TILED),
        Op::TiledMmaTvC => Absent(TILED),
        Op::TiledMmaTile => Absent(TILED),
        Op::TiledMmaThrLayout => Absent(TILED),
        Op::Upcast => Absent("not translated: the DSL oracle sends no swizzles and no template arguments (upcast<N>)"),
        Op::Downcast => {
            Absent("not translated: the DSL oracle sends no swizzles and no template arguments (downcast<N>)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_are_well_formed() {
        let mut calls = 0;
        for &op in Op::ALL {
            match dsl_form(op) {
                Part::Has(DslForm::Call) => calls += 1,
                Part::Has(DslForm::Mma(p) | DslForm::Copy(p)) => {
                    assert!(p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{op}: {p}")
                }
                Part::Absent(why) => assert!(why.split_whitespace().count() >= 4, "{op}: {why}"),
            }
        }
        assert!(calls >= 20, "{calls}");
    }
}
