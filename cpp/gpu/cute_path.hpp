// cute_path.hpp: check 2's device code, CuTe's own route to the product: make_tiled_mma over a
// WM x WN grid of atoms, partition_A/B/C of global tensors, register fragments, cute::gemm, and
// the copy back. Written as a CUTE_HOST_DEVICE function so that plain g++ can type-check every
// instantiation without nvcc (tests/gpu_tables.rs does).
//
// Global tensors are column-major: A is (WM*M)xK, B is (WN*N)xK, C and D are (WM*M)x(WN*N).
#pragma once

#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm61.hpp>
#include <cute/atom/mma_traits_sm70.hpp>
#include <cute/atom/mma_traits_sm75.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm89.hpp>
#include <cute/atom/mma_traits_sm90.hpp>

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

