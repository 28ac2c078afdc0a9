// fixed_traits.hpp: two CuTe 4.2 atoms with their faulty layout replaced, so that check 2 can show
// the correction working through CuTe's own path (make_tiled_mma, partition, gemm). Each is a new
// operation type that inherits the instruction from CuTe's, and traits that inherit CuTe's and
// override only the faulty layout. See fixtures/gpu/README.md.
#pragma once

#include <cute/atom/mma_traits_sm80.hpp>

// CuTe 4.2's BLayout ((_4,_8),(_8)):((_32,_1),(_8)) maps (lane 0, value 4) and (lane 1, value 0)
// to the same element of the 8x32 B tile; mma.m16n8k32 .s4 gives lane t*4+g the column
// k = 8t + i of row n = g, i.e. a thread stride of 64 (as CuTe's own 8x8x32 s4 atom has).
struct SM80_16x8x32_S32S4S4S32_TN_FIXED : cute::SM80_16x8x32_S32S4S4S32_TN {};
// CuTe 4.2's ALayout ((_4,_8),(_32,_2)):((_512,_1),((_16,_8))) nests the value stride one level
// too deep (not congruent with its shape); every use fails to compile.
struct SM80_16x8x128_S32U1U1S32_TN_ANDPOPC_FIXED : cute::SM80_16x8x128_S32U1U1S32_TN_ANDPOPC {};

namespace cute {
template <>
struct MMA_Traits<SM80_16x8x32_S32S4S4S32_TN_FIXED> : MMA_Traits<SM80_16x8x32_S32S4S4S32_TN> {
  using BLayout = Layout<Shape<Shape<_4, _8>, Shape<_8>>, Stride<Stride<_64, _1>, Stride<_8>>>;
};
template <>
struct MMA_Traits<SM80_16x8x128_S32U1U1S32_TN_ANDPOPC_FIXED> : MMA_Traits<SM80_16x8x128_S32U1U1S32_TN_ANDPOPC> {
  using ALayout = Layout<Shape<Shape<_4, _8>, Shape<_32, _2>>, Stride<Stride<_512, _1>, Stride<_16, _8>>>;
};
}  // namespace cute
