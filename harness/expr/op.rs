//! The operations of the expression language, as one enum: [`Op`]. Each variant is declared once,
//! in the table below, with its name (as CuTe spells it), its area, its argument count, the
//! template arguments it takes (`upcast<N>`) and its operand kinds as the language spells them.
//!
//! Every layer that does something per operation matches on `Op` exhaustively, with no `_` arm,
//! so adding a variant here is a compile error at each place that needs code for it:
//!
//! - the engine entry: `expr::builtins::entry`;
//! - the C++ emitter: `oracle::codegen::emitter`;
//! - the definition check: `definition::checker`;
//! - the random-case generator: `fuzz::generator`;
//! - pycute's spelling: `oracle::pycute::spelling::spelling`;
//! - the CuTe DSL's form: `oracle::dsl::spelling::dsl_form`;
//! - the in-process ABI's form: `oracle::inproc::gen::ffi_form` (the C++ table, cpp/ffi/ops_generated.inc,
//!   and the DSL worker's lists are written from these by `cargo xtask sourcegen`; tests/sourcegen.rs
//!   fails when a checked-in one is stale).
//!
//! A layer that has nothing for an operation says so with [`Part::Absent`] and the reason
//! (tests/operations.rs fails on a reason that says nothing). Forms that are not operations (a
//! bare atom or type name, `Swizzle<B,M,S>`, the whole cases `print_layout(L)` and
//! `print_svg(X)`, an evaluation `L(c)`) are handled by the areas' `form` functions, the case
//! printer and the evaluator; the names among them are listed in [`FORMS`].

use std::sync::OnceLock;

use super::parse::Name;

/// One layer's part for an operation: present, or absent with the reason.
#[derive(Clone, Copy, Debug)]
pub enum Part<T> {
    Has(T),
    Absent(&'static str),
}

impl<T: Copy> Part<T> {
    pub fn get(&self) -> Option<T> {
        match self {
            Part::Has(t) => Some(*t),
            Part::Absent(_) => None,
        }
    }
    /// Why the part is absent (`None` when present).
    pub fn reason(&self) -> Option<&'static str> {
        match self {
            Part::Has(_) => None,
            Part::Absent(why) => Some(why),
        }
    }
}

/// Which builtins / codegen file an operation's functions live in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area {
    /// Construction and queries (`core.rs`).
    Core,
    /// The layout algebra (`algebra.rs`).
    Algebra,
    /// MMA and copy atoms, tiled MMAs and copies, swizzles (`atoms.rs`).
    Atoms,
}

/// Names that the builtins and the code generator handle without being operations.
pub const FORMS: &[(&str, &str)] = &[
    ("Swizzle", "Swizzle<B,M,S> is a value and Swizzle<B,M,S>(x) its application (atoms::form)"),
    ("LayoutLeft", "a mode order: make_layout(shape, LayoutLeft), tile_to_shape(L, shape, LayoutLeft) (atoms::form)"),
    (
        "LayoutRight",
        "a mode order: make_layout(shape, LayoutRight), tile_to_shape(L, shape, LayoutRight) (atoms::form)",
    ),
    ("GenColMajor", "a mode order, CuTe's alias of LayoutLeft (atoms::form)"),
    ("GenRowMajor", "a mode order, CuTe's alias of LayoutRight (atoms::form)"),
    ("global", "the memory space warp_access(global, ...) names (atoms::form)"),
    ("shared", "the memory space warp_access(shared, ...) names (atoms::form)"),
    ("st_shared", "the instruction warp_access(st_shared, ...) names: st.shared (atoms::form)"),
    ("ldmatrix_x1", "the instruction warp_access(ldmatrix_x1, ...) names (atoms::form)"),
    ("ldmatrix_x2", "the instruction warp_access(ldmatrix_x2, ...) names (atoms::form)"),
    ("ldmatrix_x4", "the instruction warp_access(ldmatrix_x4, ...) names (atoms::form)"),
    ("ldmatrix_x1_trans", "the instruction warp_access(ldmatrix_x1_trans, ...) names (atoms::form)"),
    ("ldmatrix_x2_trans", "the instruction warp_access(ldmatrix_x2_trans, ...) names (atoms::form)"),
    ("ldmatrix_x4_trans", "the instruction warp_access(ldmatrix_x4_trans, ...) names (atoms::form)"),
    ("stmatrix_x1", "the instruction warp_access(stmatrix_x1, ...) names (atoms::form)"),
    ("stmatrix_x2", "the instruction warp_access(stmatrix_x2, ...) names (atoms::form)"),
    ("stmatrix_x4", "the instruction warp_access(stmatrix_x4, ...) names (atoms::form)"),
    ("stmatrix_x1_trans", "the instruction warp_access(stmatrix_x1_trans, ...) names (atoms::form)"),
    ("stmatrix_x2_trans", "the instruction warp_access(stmatrix_x2_trans, ...) names (atoms::form)"),
    ("stmatrix_x4_trans", "the instruction warp_access(stmatrix_x4_trans, ...) names (atoms::form)"),
    ("cp_async", "the instruction warp_access(cp_async, ...) names: cp.async.ca (atoms::form)"),
    ("cp_async_cg", "the instruction warp_access(cp_async_cg, ...) names: cp.async.cg (atoms::form)"),
    ("print_layout", "a whole case, print_layout(L): CuTe's grid (cli::eval_line, codegen::case_body)"),
    (
        "print_svg",
        "a whole case, print_svg(X): CuTe's picture of an MMA atom or tiled MMA (codegen::case_body, svg.rs)",
    ),
];

macro_rules! operations {
    ($($var:ident = $name:literal, $area:ident, ($lo:literal, $hi:literal), $targs:expr, $operands:literal;)*) => {
        /// An operation of the expression language.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Op {
            $($var,)*
        }

        impl Op {
            /// Every operation, in the table's order.
            pub const ALL: &'static [Op] = &[$(Op::$var,)*];

            /// The name, as CuTe spells the function.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Op::$var => $name,)*
                }
            }

            /// The area (builtins / codegen file) of its functions.
            pub const fn area(self) -> Area {
                match self {
                    $(Op::$var => Area::$area,)*
                }
            }

            /// Smallest and largest argument count (both sides check it before calling).
            pub const fn arity(self) -> (usize, usize) {
                match self {
                    $(Op::$var => ($lo, $hi),)*
                }
            }

            /// The template arguments the name takes (`<N>`), or none.
            pub const fn targs(self) -> Option<&'static str> {
                match self {
                    $(Op::$var => $targs,)*
                }
            }

            /// The operand kinds, as the expression language spells them.
            pub const fn operands(self) -> &'static str {
                match self {
                    $(Op::$var => $operands,)*
                }
            }
        }
    };
}

// name, area, arity, template arguments, operand kinds
operations! {
    MakeLayout = "make_layout", Core, (1, 8), None, "(shape[, stride]) or (L0, L1, ...)";
    MakeLayoutRight = "make_layout_right", Core, (1, 1), None, "(shape)";
    Size = "size", Core, (1, 1), None, "(L) or (int tuple)";
    Cosize = "cosize", Core, (1, 1), None, "(L)";
    Rank = "rank", Core, (1, 1), None, "(L) or (int tuple)";
    Depth = "depth", Core, (1, 1), None, "(L) or (int tuple)";
    Shape = "shape", Core, (1, 1), None, "(L)";
    Stride = "stride", Core, (1, 1), None, "(L)";
    Get = "get", Core, (2, 8), None, "(x, i, j, ...) with literal indices";
    Layout = "layout", Core, (2, 8), None, "(L, i, j, ...) with literal indices";
    Flatten = "flatten", Core, (1, 1), None, "(L) or (int tuple)";
    Coalesce = "coalesce", Algebra, (1, 2), None, "(L[, profile])";
    Filter = "filter", Algebra, (1, 2), None, "(L[, profile])";
    FilterZeros = "filter_zeros", Algebra, (1, 1), None, "(L)";
    Composition = "composition", Algebra, (2, 2), None, "(L, layout or tiler); a swizzle on either side is the atom area's";
    Complement = "complement", Algebra, (1, 2), None, "(L[, cotarget])";
    RightInverse = "right_inverse", Algebra, (1, 1), None, "(L)";
    LeftInverse = "left_inverse", Algebra, (1, 1), None, "(L)";
    LogicalDivide = "logical_divide", Algebra, (2, 2), None, "(L, layout or tiler)";
    ZippedDivide = "zipped_divide", Algebra, (2, 2), None, "(L, layout or tiler)";
    TiledDivide = "tiled_divide", Algebra, (2, 2), None, "(L, layout or tiler)";
    FlatDivide = "flat_divide", Algebra, (2, 2), None, "(L, layout or tiler)";
    LogicalProduct = "logical_product", Algebra, (2, 2), None, "(L, layout or tiler)";
    ZippedProduct = "zipped_product", Algebra, (2, 2), None, "(L, layout or tiler)";
    TiledProduct = "tiled_product", Algebra, (2, 2), None, "(L, layout or tiler)";
    FlatProduct = "flat_product", Algebra, (2, 2), None, "(L, layout or tiler)";
    BlockedProduct = "blocked_product", Algebra, (2, 2), None, "(L, L)";
    RakedProduct = "raked_product", Algebra, (2, 2), None, "(L, L)";
    MaxCommonVector = "max_common_vector", Algebra, (2, 2), None, "(L, L)";
    MaxCommonLayout = "max_common_layout", Algebra, (2, 2), None, "(L, L)";
    LocalTile = "local_tile", Algebra, (3, 4), None, "(L, tiler, coord[, projection Step])";
    LocalPartition = "local_partition", Algebra, (3, 4), None, "(L, thread layout, index[, projection Step])";
    LocalTileOffset = "local_tile_offset", Algebra, (3, 4), None, "(L, tiler, coord[, projection Step])";
    LocalPartitionOffset = "local_partition_offset", Algebra, (3, 4), None, "(L, thread layout, index[, projection Step])";
    MmaLayoutA = "mma_layout_a", Atoms, (1, 1), None, "(MMA atom name)";
    MmaLayoutB = "mma_layout_b", Atoms, (1, 1), None, "(MMA atom name)";
    MmaLayoutC = "mma_layout_c", Atoms, (1, 1), None, "(MMA atom name)";
    MmaShape = "mma_shape", Atoms, (1, 1), None, "(MMA atom name)";
    MmaThrId = "mma_thr_id", Atoms, (1, 1), None, "(MMA atom name)";
    MmaLayoutE = "mma_layout_e", Atoms, (1, 1), None, "(sparse MMA atom name): its traits' ELayout, the metadata's (thread, value) -> (M,K)";
    MmaLayoutSfa = "mma_layout_sfa", Atoms, (1, 1), None, "(block-scaled MMA atom name): its traits' SFALayout, (thread, value) -> (M,K)";
    MmaLayoutSfb = "mma_layout_sfb", Atoms, (1, 1), None, "(block-scaled MMA atom name): its traits' SFBLayout, (thread, value) -> (N,K)";
    MakeTmemCopy = "make_tmem_copy", Atoms, (3, 3), None, "(TMEM load or store op, value type, TMEM layout): make_tmem_copy(OP{}, make_tensor(make_tmem_ptr<T>(0), L)), a TiledCopy";
    CopyAtomSrc = "copy_atom_src", Atoms, (2, 2), None, "(copy op, value type)";
    CopyAtomDst = "copy_atom_dst", Atoms, (2, 2), None, "(copy op, value type)";
    CopyAtomRef = "copy_atom_ref", Atoms, (2, 2), None, "(copy op, value type)";
    CopyAtomThrId = "copy_atom_thr_id", Atoms, (2, 2), None, "(copy op, value type)";
    CopyTraitsSrc = "copy_traits_src", Atoms, (1, 1), None, "(copy op)";
    CopyTraitsDst = "copy_traits_dst", Atoms, (1, 1), None, "(copy op)";
    CopyTraitsRef = "copy_traits_ref", Atoms, (1, 1), None, "(copy op)";
    MmaAtom = "mma_atom", Atoms, (1, 1), None, "(MMA atom name)";
    CopyAtom = "copy_atom", Atoms, (2, 2), None, "(copy op, value type)";
    MakeTiledCopy = "make_tiled_copy", Atoms, (2, 3), None, "(copy_atom(OP,T), thread layout[, value layout]), the value layout Layout<_1> when left out";
    MakeTiledCopyA = "make_tiled_copy_A", Atoms, (2, 2), None, "(copy_atom(OP,T), make_tiled_mma(...))";
    MakeTiledCopyB = "make_tiled_copy_B", Atoms, (2, 2), None, "(copy_atom(OP,T), make_tiled_mma(...))";
    MakeTiledCopyC = "make_tiled_copy_C", Atoms, (2, 2), None, "(copy_atom(OP,T), make_tiled_mma(...))";
    MmaPartitionA = "mma_partition_a", Atoms, (3, 3), None, "(make_tiled_mma(...), L, thread index)";
    MmaPartitionB = "mma_partition_b", Atoms, (3, 3), None, "(make_tiled_mma(...), L, thread index)";
    MmaPartitionC = "mma_partition_c", Atoms, (3, 3), None, "(make_tiled_mma(...), L, thread index)";
    PartitionShapeA = "partition_shape_a", Atoms, (2, 2), None, "(make_tiled_mma(...), shape)";
    PartitionShapeB = "partition_shape_b", Atoms, (2, 2), None, "(make_tiled_mma(...), shape)";
    PartitionShapeC = "partition_shape_c", Atoms, (2, 2), None, "(make_tiled_mma(...), shape)";
    CopyPartitionS = "copy_partition_s", Atoms, (3, 3), None, "(make_tiled_copy(...) or make_tma_copy(...), L, thread index (a TMA copy's: the CTA in the cluster))";
    CopyPartitionD = "copy_partition_d", Atoms, (3, 3), None, "(make_tiled_copy(...) or make_tma_copy(...), L, thread index (a TMA copy's: the CTA in the cluster))";
    MakeTiledMma = "make_tiled_mma", Atoms, (1, 3), None, "(MMA atom name[, atom layout or shape[, permutations]])";
    TiledCopyTv = "tiled_copy_tv", Atoms, (4, 4), None, "(copy op, value type, thread layout, value layout)";
    TiledCopyTiler = "tiled_copy_tiler", Atoms, (4, 4), None, "(copy op, value type, thread layout, value layout)";
    TiledMmaTvA = "tiled_mma_tv_a", Atoms, (1, 3), None, "(MMA atom name[, atom layout or shape[, permutations]])";
    TiledMmaTvB = "tiled_mma_tv_b", Atoms, (1, 3), None, "(MMA atom name[, atom layout or shape[, permutations]])";
    TiledMmaTvC = "tiled_mma_tv_c", Atoms, (1, 3), None, "(MMA atom name[, atom layout or shape[, permutations]])";
    TiledMmaTile = "tiled_mma_tile", Atoms, (1, 3), None, "(MMA atom name[, atom layout or shape[, permutations]])";
    TiledMmaThrLayout = "tiled_mma_thr_layout", Atoms, (1, 3), None, "(MMA atom name[, atom layout or shape[, permutations]])";
    Upcast = "upcast", Atoms, (1, 1), Some("<N>"), "<N>(layout, swizzle or swizzled layout)";
    Downcast = "downcast", Atoms, (1, 1), Some("<N>"), "<N>(layout, swizzle or swizzled layout)";
    Group = "group", Core, (1, 1), Some("<B,E>"), "<B,E>(layout, swizzled layout or int tuple): modes B..E made one mode (E = -1: to the end)";
    ProductEach = "product_each", Core, (1, 1), None, "(int tuple)";
    Slice = "slice", Algebra, (2, 2), None, "(coordinate with _, L): the modes c pairs with _ (also L(_,2))";
    Dice = "dice", Algebra, (2, 2), None, "(coordinate with _, L): the modes c pairs with an integer";
    SliceAndOffset = "slice_and_offset", Algebra, (2, 2), None, "(coordinate with _, L): (slice(c, L), L(c with _ as 0))";
    MakeLayoutLike = "make_layout_like", Algebra, (1, 1), None, "(L)";
    MakeFragmentLike = "make_fragment_like", Algebra, (1, 1), None, "(L): the layout of CuTe's make_fragment_like";
    PartitionFragmentC = "partition_fragment_C", Atoms, (2, 2), None, "(make_tiled_mma(...), shape): the fragment's layout";
    MmaFragmentA = "mma_fragment_a", Atoms, (3, 3), None, "(make_tiled_mma(...), L, thread index): get_slice(i).partition_fragment_A's layout";
    MmaFragmentB = "mma_fragment_b", Atoms, (3, 3), None, "(make_tiled_mma(...), L, thread index): get_slice(i).partition_fragment_B's layout";
    MmaFragmentC = "mma_fragment_c", Atoms, (3, 3), None, "(make_tiled_mma(...), L, thread index): get_slice(i).partition_fragment_C's layout";
    MmaMakeFragmentA = "mma_make_fragment_a", Atoms, (2, 2), None, "(make_tiled_mma(...) of an SM100/SM90 *_SS MMA, smem swizzled layout in the MMA's partitioned shape ((MMA_M,MMA_K),M,K,...)): ThrMMA::make_fragment_A(make_tensor(make_smem_ptr(p), L)), a tensor of smem descriptors (UMMA::DescriptorIterator o L')";
    MmaMakeFragmentB = "mma_make_fragment_b", Atoms, (2, 2), None, "(make_tiled_mma(...) of an SM100/SM90 MMA reading B from smem, smem swizzled layout ((MMA_N,MMA_K),N,K,...)): ThrMMA::make_fragment_B of its smem tensor, a tensor of smem descriptors";
    RetileS = "retile_S", Atoms, (2, 2), None, "(make_tiled_copy(...), fragment layout): ThrCopy::retile_S's layout";
    RetileD = "retile_D", Atoms, (2, 2), None, "(make_tiled_copy(...), fragment layout): ThrCopy::retile_D's layout";
    TileToShape = "tile_to_shape", Algebra, (2, 3), None, "(L or swizzled layout, shape[, Step tuple or GenColMajor/GenRowMajor])";
    TileToMmaShape = "tile_to_mma_shape", Algebra, (2, 3), None, "(L or swizzled layout (an SM100 smem atom), MMA tile shape ((MMA_M,MMA_K),M_MMAs,K_MMAs,...)[, Step tuple or GenColMajor/GenRowMajor]): CUTLASS 4's UMMA::tile_to_mma_shape";
    MakeIdentityLayout = "make_identity_layout", Core, (1, 1), None, "(shape): the layout shape:make_basis_like(shape)";
    MakeIdentityTensor = "make_identity_tensor", Core, (1, 1), None, "(shape): the tensor make_coord_tensor(make_identity_layout(shape)), each element its coordinate; its partitions (local_tile, local_partition, copy_partition_s/d, mma_partition_a/b/c, T(_,i)) are tensors";
    MakeBasisLike = "make_basis_like", Core, (1, 1), None, "(shape): E<i,j,...> at each leaf";
    Equal = "equal", Core, (2, 2), None, "(a, b): CuTe's a == b on integers, ratios _a/_b, basis elements v@N (integer or ratio v), int tuples and arithmetic tuples: _1/_0 static, 1/0 a bool";
    MakeTmaCopy = "make_tma_copy", Atoms, (4, 6), None, "(SM90_TMA_LOAD|SM90_TMA_LOAD_MULTICAST|SM90_TMA_STORE|SM90_TMA_REDUCE_ADD, value type, gmem layout, smem layout or swizzled layout[, cluster size]) or (..., smem layout, CTA tiler, cluster size), as CuTe's overloads: CuTe's TiledCopy";
    MakeTmaAtom = "make_tma_atom", Atoms, (5, 6), None, "(TMA op, value type, gmem layout, smem layout, CTA tiler[, cluster size]): CuTe's Copy_Atom";
    MakeTmaAtomASm100 = "make_tma_atom_A_sm100", Atoms, (7, 7), None, "(SM90_TMA_LOAD|SM90_TMA_LOAD_MULTICAST|SM90_TMA_STORE|SM100_TMA_2SM_LOAD|SM100_TMA_2SM_LOAD_MULTICAST, value type, gmem layout (M,K,...), smem layout, MMA tiler (TILE_M,TILE_N,TILE_K), make_tiled_mma(...), cluster shape (V,M,N,K)): CuTe's Copy_Atom for a UMMA's A";
    MakeTmaAtomBSm100 = "make_tma_atom_B_sm100", Atoms, (7, 7), None, "(TMA op, value type, gmem layout (N,K,...), smem layout, MMA tiler (TILE_M,TILE_N,TILE_K), make_tiled_mma(...), cluster shape (V,M,N,K)): CuTe's Copy_Atom for a UMMA's B";
    MakeTmaCopyASm100 = "make_tma_copy_A_sm100", Atoms, (6, 6), None, "(TMA op, value type, gmem layout (M,K,...), smem layout, cluster tiler (TILE_M,TILE_N,TILE_K), make_tiled_mma(...)): CuTe's TiledCopy for a UMMA's A";
    MakeTmaCopyBSm100 = "make_tma_copy_B_sm100", Atoms, (6, 6), None, "(TMA op, value type, gmem layout (N,K,...), smem layout, cluster tiler (TILE_M,TILE_N,TILE_K), make_tiled_mma(...)): CuTe's TiledCopy for a UMMA's B";
    MakeTmaCopyCSm100 = "make_tma_copy_C_sm100", Atoms, (6, 6), None, "(SM90_TMA_LOAD|SM90_TMA_STORE|SM100_TMA_2SM_LOAD, value type, gmem layout (M,N,...), smem layout, cluster tiler (TILE_M,TILE_N,TILE_K), make_tiled_mma(...)): CuTe's TiledCopy for a UMMA's C";
    TmaGbasis = "tma_gbasis", Atoms, (1, 1), None, "(make_tma_copy(...) or make_tma_atom(...)): AuxParams::TmaGmemBasis, box coordinate -> gmem mode";
    TmaGStride = "tma_g_stride", Atoms, (1, 1), None, "(make_tma_copy(...) or make_tma_atom(...)): aux_params_.g_stride_, gmem mode -> TMA coordinate";
    GetTmaTensor = "get_tma_tensor", Atoms, (2, 2), None, "(make_tma_atom(...), make_tma_copy(...) or an SM100 TMA maker, gmem shape congruent with its g_stride_): X.get_tma_tensor(shape), the coordinate tensor make_coord_tensor(make_layout(shape, g_stride_)) a TMA kernel partitions; its partitions are tensors";
    TmaDescArgs = "tma_desc_args", Atoms, (1, 1), None, "(make_tma_copy(...) or make_tma_atom(...)): the arguments CuTe passes to cuTensorMapEncodeTiled";
    TmaIm2colDescArgs = "tma_im2col_desc_args", Atoms, (4, 13), None, "(SM90_TMA_LOAD_IM2COL|SM90_TMA_LOAD_IM2COL_MULTICAST|SM90_TMA_STORE_IM2COL, value type, gmem layout ((W,H,...,N),C), smem layout or swizzled layout[, CTA tiler[, multicast]][, lower_corner_whd, upper_corner_whd, lower_padding_whd, upper_padding_whd, stride_whd, lower_srt, stride_srt]): the arguments CuTe's make_im2col_tma_copy passes to cuTensorMapEncodeIm2col";
    MakeGmmaDesc = "make_gmma_desc", Atoms, (2, 2), Some("<GMMA::Major::K|MN>"), "<GMMA::Major::K|MN>(value type, smem layout: plain, or over smem_ptr_flag such as tile_to_shape(GMMA::Layout_K_SW128_Atom<T>,...)): GMMA::make_gmma_desc of make_tensor(make_smem_ptr(T*), L), the GmmaDescriptor CuTe's host code makes, printed by CuTe's print";
    MakeUmmaDesc = "make_umma_desc", Atoms, (2, 2), Some("<UMMA::Major::K|MN>"), "<UMMA::Major::K|MN>(value type, smem layout: plain, or over smem_ptr_flag such as layout(tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<T>,...),0)): UMMA::make_umma_desc of make_tensor(make_smem_ptr(T*), L), the SmemDescriptor CuTe's host code makes (CUTLASS 3.8+)";
    MakeInstrDesc = "make_instr_desc", Atoms, (1, 1), None, "(SM100 UMMA atom name: dense, _SCALED, _SS_SPARSE and interleaved complex forms): the instruction descriptor its traits hold (MMA_Atom<Op>{}.idesc_: UMMA::make_instr_desc, or make_instr_desc_block_scaled for MXF8F6F4/MXF4/MXF4NVF4)";
    AsPositionIndependentSwizzleTensor = "as_position_independent_swizzle_tensor", Atoms, (1, 1), None, "(shared-memory swizzled layout over smem_ptr_flag, such as tile_to_shape(GMMA::Layout_K_SW128_Atom<T>,...)): as_position_independent_swizzle_tensor of make_tensor(make_smem_ptr(p), L), the plain pointer over Sw' o _0 o L; its partitions and slices are tensors";
    LazyTransformElemLess = "lazy_transform_elem_less", Core, (2, 2), None, "(identity or coordinate tensor C, shape S): cute::lazy::transform(C, [&](auto c) { return elem_less(c, S); }), the predicate tensor kernels guard copies with (CUTLASS 4.0+), printed trans_ITER o L; its tiles, thread parts and slices are transform tensors";
    WarpAccess = "warp_access", Atoms, (5, 6), None, "(instruction: global, shared, st_shared, ldmatrix_xN[_trans], stmatrix_xN[_trans], cp_async[_cg]; element bytes, vector bytes, data layout or swizzled layout (cp.async: source, then destination), thread layout of 32)";
}

impl Op {
    /// The operation `name` calls, if any (template arguments must match the operation's `targs`).
    pub fn lookup(name: &Name) -> Option<Op> {
        if name.path.len() != 1 {
            return None;
        }
        let op = Op::by_name(&name.path[0])?;
        (op.targs().is_some() == name.targs.is_some()).then_some(op)
    }

    /// The operation named `n` (an index keyed by the names; Fx hashing, as rustc's own symbol
    /// tables use, since the keys are short trusted strings and the lookup is on every call).
    pub fn by_name(n: &str) -> Option<Op> {
        static INDEX: OnceLock<rustc_hash::FxHashMap<&'static str, Op>> = OnceLock::new();
        INDEX.get_or_init(|| Op::ALL.iter().map(|&o| (o.name(), o)).collect()).get(n).copied()
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_name_finds_every_operation_and_nothing_else() {
        for &op in Op::ALL {
            assert_eq!(Op::by_name(op.name()), Some(op), "{op}");
            // Near misses: a prefix, an extension, one byte changed.
            let name = op.name();
            assert!(Op::by_name(&name[..name.len() - 1]).is_none_or(|o| o.name() != name));
            assert!(Op::by_name(&format!("{name}x")).is_none());
            let mut changed = name.as_bytes().to_vec();
            changed[0] ^= 0x20;
            assert!(Op::by_name(std::str::from_utf8(&changed).unwrap()).is_none(), "{op}");
        }
        assert!(Op::by_name("").is_none());
    }

    #[test]
    fn names_and_metadata_are_well_formed() {
        let mut seen = std::collections::BTreeSet::new();
        for &op in Op::ALL {
            assert!(seen.insert(op.name()), "{op} is declared twice");
            let (lo, hi) = op.arity();
            assert!(lo <= hi, "{op}: arity {:?}", op.arity());
            assert!(!op.operands().trim().is_empty(), "{op}: no operand kinds");
            assert!(op.name().chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{op}");
        }
        assert_eq!(seen.len(), Op::ALL.len());
    }
}
