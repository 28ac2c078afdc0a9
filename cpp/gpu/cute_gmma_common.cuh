// cute_gmma_common.cuh: CuTe's own path for the GMMA atoms (`cute_gmma`): shared-memory tensors in
// CuTe's GMMA layout atoms (tile_to_shape of GMMA::Layout_*_Atom, the same atoms the engine's
// tables were built from), make_tiled_mma with the SM90 GMMA atom, partition_A/B/C, descriptor
// (SS) or register (RS) fragments, cute::gemm between warpgroup_arrive / commit / wait, and the
// accumulators stored through partition_C; compared with the float64 reference.
#pragma once
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>

#include "cute_gemm_common.cuh"

template <class Op, class TA, class TB, class TC, int N, int KT, class AtomA, class AtomB, bool RS>
__global__ void cute_gmma_kernel(const void* pA, const void* pB, const void* pC, void* pD, int offB) {
  using namespace cute;
  extern __shared__ uint8_t smem_raw[];
  uint32_t raw = uint32_t(__cvta_generic_to_shared(smem_raw));
  uint8_t* base = smem_raw + (((raw + 1023u) & ~1023u) - raw);
  auto sLA = tile_to_shape(AtomA{}, make_shape(Int<64>{}, Int<KT>{}));
  auto sLB = tile_to_shape(AtomB{}, make_shape(Int<N>{}, Int<KT>{}));
  Tensor sA = make_tensor(make_smem_ptr(reinterpret_cast<TA*>(base)), sLA);
  Tensor sB = make_tensor(make_smem_ptr(reinterpret_cast<TB*>(base + offB)), sLB);
  Tensor gA = make_tensor(make_gmem_ptr(reinterpret_cast<const TA*>(pA) + size_t(blockIdx.x) * 64 * KT), make_layout(make_shape(Int<64>{}, Int<KT>{})));
  Tensor gB = make_tensor(make_gmem_ptr(reinterpret_cast<const TB*>(pB) + size_t(blockIdx.x) * N * KT), make_layout(make_shape(Int<N>{}, Int<KT>{})));
  Tensor gC = make_tensor(make_gmem_ptr(reinterpret_cast<const TC*>(pC) + size_t(blockIdx.x) * 64 * N), make_layout(make_shape(Int<64>{}, Int<N>{})));
  Tensor gD = make_tensor(make_gmem_ptr(reinterpret_cast<TC*>(pD) + size_t(blockIdx.x) * 64 * N), make_layout(make_shape(Int<64>{}, Int<N>{})));
  for (int i = threadIdx.x; i < 64 * KT; i += 128) sA(i) = gA(i);
  for (int i = threadIdx.x; i < N * KT; i += 128) sB(i) = gB(i);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  auto tiled = make_tiled_mma(Op{});
  auto thr = tiled.get_thread_slice(threadIdx.x);
  Tensor tCsA = thr.partition_A(sA);
  Tensor tCsB = thr.partition_B(sB);
  Tensor tCrA = thr.make_fragment_A(tCsA);
  Tensor tCrB = thr.make_fragment_B(tCsB);
  Tensor tCgC = thr.partition_C(gC);
  Tensor tCgD = thr.partition_C(gD);
  Tensor tCrC = thr.make_fragment_C(tCgC);
  copy(tCgC, tCrC);
  if constexpr (RS) copy(tCsA, tCrA);
  warpgroup_fence_operand(tCrC);
  warpgroup_arrive();
  gemm(tiled, tCrA, tCrB, tCrC);
  warpgroup_commit_batch();
  warpgroup_wait<0>();
  warpgroup_fence_operand(tCrC);
  copy(tCrC, tCgD);
}

template <class Op, class TA, class TB, class TC, int N, int KT, class AtomA, class AtomB, bool RS>
Row run_cute_gmma(const char* name, const std::map<std::string, OpInfo>& ops, Rng& rng, int trials) {
  auto it = ops.find(name);
  if (it == ops.end()) return Row{name, "cute-gmma", "FAIL", "atom missing from the tables file", NAN, NAN};
  const OpInfo& op = it->second;
  using namespace cute;
  int bytesA = int(cosize(tile_to_shape(AtomA{}, make_shape(Int<64>{}, Int<KT>{}))) * sizeof_bits_v<TA> / 8);
  int bytesB = int(cosize(tile_to_shape(AtomB{}, make_shape(Int<N>{}, Int<KT>{}))) * sizeof_bits_v<TB> / 8);
  int offB = (bytesA + 1023) / 1024 * 1024;
  size_t smem = size_t(offB) + bytesB + 1024;
  auto kern = cute_gmma_kernel<Op, TA, TB, TC, N, KT, AtomA, AtomB, RS>;
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  std::vector<Problem> probs;
  std::vector<uint64_t> a, b, c;
  for (int t = 0; t < trials; ++t) {
    probs.push_back(random_problem(op, 64, N, KT, rng));
    for (double x : probs.back().A) a.push_back(encode(op.a, x));
    for (double x : probs.back().B) b.push_back(encode(op.b, x));
    for (double x : probs.back().C) c.push_back(encode(op.c, x));
  }
  auto pa = pack_dense(a, elem_bits(op.a)), pb = pack_dense(b, elem_bits(op.b)), pc = pack_dense(c, elem_bits(op.c));
  auto pd = pack_dense(std::vector<uint64_t>(size_t(trials) * 64 * N, poison_of(op.c)), elem_bits(op.c));
  void *dA, *dB, *dC, *dD;
  CK(cudaMalloc(&dA, pa.size())); CK(cudaMalloc(&dB, pb.size()));
  CK(cudaMalloc(&dC, pc.size())); CK(cudaMalloc(&dD, pd.size()));
  CK(cudaMemcpy(dA, pa.data(), pa.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, pb.data(), pb.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dC, pc.data(), pc.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dD, pd.data(), pd.size(), cudaMemcpyHostToDevice));
  kern<<<trials, 128, smem>>>(dA, dB, dC, dD, offB);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(pd.data(), dD, pd.size(), cudaMemcpyDeviceToHost));
  CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dC)); CK(cudaFree(dD));
  std::vector<uint64_t> got = unpack_dense(pd, size_t(trials) * 64 * N, elem_bits(op.c));
  Row row{name, "cute-gmma", "PASS", "", 0, 0};
  int failing = 0, bad = 0;
  std::string first;
  for (int t = 0; t < trials; ++t) {
    std::vector<uint64_t> g(got.begin() + size_t(t) * 64 * N, got.begin() + size_t(t + 1) * 64 * N);
    for (auto& x : g) if (x == poison_of(op.c)) x = POISON;
    Compare cmp = compare(op.c, g, reference(op, probs[t]));
    row.max_err = std::max(row.max_err, cmp.max_err);
    row.ratio = std::max(row.ratio, cmp.max_ratio);
    if (cmp.bad || cmp.unwritten) {
      if (!failing) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "; first: trial %d D(%d,%d) = %.9g, want %.9g", t, cmp.first_bad % 64, cmp.first_bad / 64,
                      cmp.first_got, cmp.first_want);
        first = buf;
      }
      ++failing;
    }
    bad += cmp.bad + cmp.unwritten;
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "64x%dx%d, %d/%d trials wrong, %d elements off", N, KT, failing, trials, bad);
  row.detail = buf + first;
  row.verdict = failing ? "FAIL" : "PASS";
  return row;
}
