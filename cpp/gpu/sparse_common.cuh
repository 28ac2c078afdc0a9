// sparse_common.cuh: the device side of the sparse GMMA check (`sparse_check`, `cargo xtask
// gpu-sparse`). One warpgroup (128 threads) per trial writes the compressed A (64 x K/2) and B
// (N x K) into shared memory at the byte offsets the xtask computed from the engine's GMMA smem
// layout atoms, loads C into the accumulators through the engine's C table, takes its metadata
// register (built on the host from the engine's ELayout), calls CuTe's sparse GMMA atom's own
// `fma` (generated per atom in sparse_part*.cu) and stores D through the C table.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>

#include <cute/arch/mma_sm90_gmma_sparse.hpp>

#include "gmma_common.cuh"  // gpack, gunpack, store_elem: the dense check's register and smem helpers

using namespace cute;  // the atoms' template arguments are spelled GMMA::... (cute::SM90::GMMA)
using namespace cute::SM90;

struct SDims {
  int N, K, KC, wA, wB;
  int offB;  // byte offset of B's region from the 1024-aligned smem base
  uint64_t descA, descB;
};

template <class G>
__global__ void sparse_kernel(SDims s, const uint32_t* A, const uint32_t* B, const uint32_t* C, const uint32_t* E,
                              const int* offA, const int* offB, const int* tC, uint32_t* Dtile) {
  extern __shared__ uint8_t smem_raw[];
  uint32_t raw_addr = uint32_t(__cvta_generic_to_shared(smem_raw));
  uint32_t base = (raw_addr + 1023u) & ~1023u;
  uint8_t* sA = smem_raw + (base - raw_addr);
  uint8_t* sB = sA + s.offB;
  const int tid = threadIdx.x, trial = blockIdx.x;
  A += size_t(trial) * 64 * s.KC;
  B += size_t(trial) * s.N * s.K;
  C += size_t(trial) * 64 * s.N;
  E += size_t(trial) * 128;
  Dtile += size_t(trial) * 64 * s.N;
  for (int i = tid; i < 64 * s.KC; i += 128) store_elem(sA + offA[i], A[i], s.wA / 8);
  for (int i = tid; i < s.N * s.K; i += 128) store_elem(sB + offB[i], B[i], s.wB / 8);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  uint32_t d[G::DREGS];
#pragma unroll
  for (int r = 0; r < G::DREGS; ++r) d[r] = 0;
#pragma unroll
  for (int v = 0; v < G::NC; ++v) gpack(d, v, G::WC, C[tC[tid * G::NC + v]]);
  uint32_t e = E[tid];
#pragma unroll
  for (int r = 0; r < G::DREGS; ++r) asm volatile("" : "+r"(d[r])::"memory");
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  G::mma(d, s.descA + ((base >> 4) & 0x3fff), s.descB + (((base + s.offB) >> 4) & 0x3fff), e);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
  for (int r = 0; r < G::DREGS; ++r) asm volatile("" : "+r"(d[r])::"memory");
#pragma unroll
  for (int v = 0; v < G::NC; ++v) Dtile[tC[tid * G::NC + v]] = gunpack(d, v, G::WC);
}

using SLauncher = void (*)(int, SDims, size_t, const uint32_t*, const uint32_t*, const uint32_t*, const uint32_t*,
                           const int*, const int*, const int*, uint32_t*);

// The launcher table: each generated unit registers its atoms as it is loaded, so that a unit
// that did not build leaves only its own atoms out ("kernel not built").
inline std::map<std::string, SLauncher>& sregistry() {
  static std::map<std::string, SLauncher> m;
  return m;
}
inline bool sregister(const char* kind, SLauncher l) {
  sregistry()[kind] = l;
  return true;
}

template <class G>
void slaunch(int trials, SDims s, size_t smem, const uint32_t* A, const uint32_t* B, const uint32_t* C,
             const uint32_t* E, const int* oA, const int* oB, const int* tC, uint32_t* Dt) {
  cudaFuncSetAttribute(sparse_kernel<G>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  sparse_kernel<G><<<trials, 128, smem>>>(s, A, B, C, E, oA, oB, tC, Dt);
}
