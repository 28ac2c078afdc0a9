// gmma_common.cuh: the device side of the GMMA check (`gmma_check`). One warpgroup (128 threads)
// per trial writes A (SS only) and B into shared memory at the byte offsets `cargo xtask gpu`
// computed from the engine's GMMA smem layout atoms (GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom),
// loads C into the accumulator registers through the engine's C table (and, for RS, A into
// registers through the engine's A table), issues the atom's wgmma (inline PTX, generated per atom
// in gmma_part*.cu) once per K-block with the host-built smem descriptors, and stores D through
// the C table (and raw, per thread and value, for the ownership check).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <string>

constexpr int GMMA_MAX_KB = 8;

struct GDims {
  int N, K, KT, KB, nA, wA, wB;
  int offB;                      // byte offset of B's region from the 1024-aligned smem base
  uint64_t descA[GMMA_MAX_KB], descB[GMMA_MAX_KB];
};

__device__ __forceinline__ void gpack(uint32_t* r, int v, int w, uint32_t x) {
  uint32_t mask = w == 32 ? 0xffffffffu : ((1u << w) - 1);
  r[(v * w) / 32] |= (x & mask) << ((v * w) % 32);
}
__device__ __forceinline__ uint32_t gunpack(const uint32_t* r, int v, int w) {
  uint32_t mask = w == 32 ? 0xffffffffu : ((1u << w) - 1);
  return (r[(v * w) / 32] >> ((v * w) % 32)) & mask;
}

__device__ __forceinline__ void store_elem(uint8_t* p, uint32_t x, int bytes) {
  for (int b = 0; b < bytes; ++b) p[b] = uint8_t(x >> (8 * b));
}

template <class G>
__global__ void gmma_kernel(GDims s, const uint32_t* A, const uint32_t* B, const uint32_t* C, const int* offA,
                            const int* offB, const int* tA, const int* tC, uint32_t* Dtile, uint32_t* Draw) {
  extern __shared__ uint8_t smem_raw[];
  uint32_t raw_addr = uint32_t(__cvta_generic_to_shared(smem_raw));
  uint32_t base = (raw_addr + 1023u) & ~1023u;
  uint8_t* sA = smem_raw + (base - raw_addr);
  uint8_t* sB = sA + s.offB;
  const int tid = threadIdx.x, trial = blockIdx.x;
  A += size_t(trial) * 64 * s.KT;
  B += size_t(trial) * s.N * s.KT;
  C += size_t(trial) * 64 * s.N;
  Dtile += size_t(trial) * 64 * s.N;
  Draw += size_t(trial) * 128 * G::NC;
  if (!G::RS)
    for (int i = tid; i < 64 * s.KT; i += 128) store_elem(sA + offA[i], A[i], s.wA / 8);
  for (int i = tid; i < s.N * s.KT; i += 128) store_elem(sB + offB[i], B[i], s.wB / 8);
  // Ordinary stores that the tensor cores read next: the async proxy must see them.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();

  uint32_t d[G::DREGS];
#pragma unroll
  for (int r = 0; r < G::DREGS; ++r) d[r] = 0;
#pragma unroll
  for (int v = 0; v < G::NC; ++v) gpack(d, v, G::WC, C[tC[tid * G::NC + v]]);
  uint32_t a[GMMA_MAX_KB][4];
  for (int j = 0; j < GMMA_MAX_KB; ++j)
    for (int r = 0; r < 4; ++r) a[j][r] = 0;
  if (G::RS)
    for (int j = 0; j < s.KB; ++j)
      for (int v = 0; v < s.nA; ++v) {
        int idx = tA[tid * s.nA + v];          // m + 64 k within the block
        int m = idx % 64, k = idx / 64;
        gpack(a[j], v, s.wA, A[m + 64 * (j * s.K + k)]);
      }
#pragma unroll
  for (int r = 0; r < G::DREGS; ++r) asm volatile("" : "+r"(d[r])::"memory");
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  for (int j = 0; j < s.KB; ++j) {
    uint64_t da = s.descA[j] + ((base >> 4) & 0x3fff);
    uint64_t db = s.descB[j] + (((base + s.offB) >> 4) & 0x3fff);
    G::mma(d, a[j], da, db);
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
  for (int r = 0; r < G::DREGS; ++r) asm volatile("" : "+r"(d[r])::"memory");
#pragma unroll
  for (int v = 0; v < G::NC; ++v) {
    uint32_t x = gunpack(d, v, G::WC);
    Dtile[tC[tid * G::NC + v]] = x;
    Draw[tid * G::NC + v] = x;
  }
}

using GLauncher = void (*)(int, GDims, size_t, const uint32_t*, const uint32_t*, const uint32_t*, const int*, const int*,
                           const int*, const int*, uint32_t*, uint32_t*);

template <class G>
void glaunch(int trials, GDims s, size_t smem, const uint32_t* A, const uint32_t* B, const uint32_t* C, const int* oA,
             const int* oB, const int* tA, const int* tC, uint32_t* Dt, uint32_t* Dr) {
  cudaFuncSetAttribute(gmma_kernel<G>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  gmma_kernel<G><<<trials, 128, smem>>>(s, A, B, C, oA, oB, tA, tC, Dt, Dr);
}
