// cute_path.hpp: check 2's device code, CuTe's own route to the product: make_tiled_mma over a
// WM x WN grid of warps, partition_A/B/C of global tensors, register fragments, cute::gemm, and
// the copy back. Written as a CUTE_HOST_DEVICE function so that plain g++ can type-check every
// instantiation without nvcc (tests/gpu_tables.rs does).
//
// Global tensors are column-major: A is (WM*M)xK, B is (WN*N)xK, C and D are (WM*M)x(WN*N).
#pragma once

#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm80.hpp>

template <class Op, class TA, class TB, class TC, int WM, int WN>
CUTE_HOST_DEVICE void cute_path_body(int tid, void* pA, void* pB, void* pC, void* pD) {
  using namespace cute;
  using MNK = typename MMA_Traits<Op>::Shape_MNK;
  constexpr int M = WM * size<0>(MNK{});
  constexpr int N = WN * size<1>(MNK{});
  constexpr int K = size<2>(MNK{});
  auto tiled = make_tiled_mma(Op{}, Layout<Shape<Int<WM>, Int<WN>, _1>>{});
  Tensor gA = make_tensor(make_gmem_ptr<TA>(pA), make_layout(make_shape(Int<M>{}, Int<K>{})));
  Tensor gB = make_tensor(make_gmem_ptr<TB>(pB), make_layout(make_shape(Int<N>{}, Int<K>{})));
  Tensor gC = make_tensor(make_gmem_ptr<TC>(pC), make_layout(make_shape(Int<M>{}, Int<N>{})));
  Tensor gD = make_tensor(make_gmem_ptr<TC>(pD), make_layout(make_shape(Int<M>{}, Int<N>{})));
  auto thr = tiled.get_slice(tid);
  Tensor tCgA = thr.partition_A(gA);
  Tensor tCgB = thr.partition_B(gB);
  Tensor tCgC = thr.partition_C(gC);
  Tensor tCgD = thr.partition_C(gD);
  Tensor tCrA = thr.partition_fragment_A(gA);
  Tensor tCrB = thr.partition_fragment_B(gB);
  Tensor tCrC = thr.partition_fragment_C(gC);
  copy(tCgA, tCrA);
  copy(tCgB, tCrB);
  copy(tCgC, tCrC);
  gemm(tiled, tCrA, tCrB, tCrC);
  copy(tCrC, tCgD);
}

// The atoms check 2 runs: (CuTe operation, gmem types). The 16x8x128 b1 atoms are absent on
// purpose: their ALayout in CuTe 4.2 has a stride that is not congruent with its shape, and any
// use of it fails to compile (crd2idx: "Mismatched Ranks"); see fixtures/gpu/README.md.
#define CUTE_PATH_ATOMS(X)                                                                          \
  X(SM80_16x8x16_F32F16F16F32_TN, cute::half_t, cute::half_t, float)                                \
  X(SM80_16x8x16_F32BF16BF16F32_TN, cute::bfloat16_t, cute::bfloat16_t, float)                      \
  X(SM80_16x8x8_F32TF32TF32F32_TN, cute::tfloat32_t, cute::tfloat32_t, float)                       \
  X(SM80_16x8x32_S32S8S8S32_TN, int8_t, int8_t, int32_t)                                            \
  X(SM80_16x8x8_F16F16F16F16_TN, cute::half_t, cute::half_t, cute::half_t)                          \
  X(SM80_16x8x32_S32S4S4S32_TN, cute::int4b_t, cute::int4b_t, int32_t)                              \
  X(SM80_16x8x64_S32S4S4S32_TN, cute::int4b_t, cute::int4b_t, int32_t)                              \
  X(SM80_8x8x4_F64F64F64F64_TN, double, double, double)                                             \
  X(SM80_8x8x128_S32U1U1S32_TN_ANDPOPC, cute::uint1b_t, cute::uint1b_t, int32_t)                    \
  X(SM80_16x8x256_S32U1U1S32_TN_ANDPOPC, cute::uint1b_t, cute::uint1b_t, int32_t)

// XOR forms: CuTe 4.2 compiles their mma.sync only for __CUDA_ARCH__ <= 890 (elsewhere the
// atom hits CUTE_INVALID_CONTROL_PATH), so check 2 runs them only on such devices.
#define CUTE_PATH_XOR_ATOMS(X)                                                                      \
  X(SM80_8x8x128_S32U1U1S32_TN_XORPOPC, cute::uint1b_t, cute::uint1b_t, int32_t)                    \
  X(SM80_16x8x256_S32U1U1S32_TN_XORPOPC, cute::uint1b_t, cute::uint1b_t, int32_t)
