// tma_check.cuh: the GPU side of `cargo xtask gpu-tma` (harness/gpu/tma.rs writes the cases).
//
// One case: an element type T, a global layout G (static or dynamic), a static shared-memory
// layout S (plain, or a GMMA swizzle atom tiled by tile_to_shape), a CTA tiler and a tile
// coordinate, a load or a store. CuTe builds the copy itself (make_tma_copy(SM90_TMA_LOAD or
// SM90_TMA_STORE, G, S, tiler, Int<1>)), the kernel moves the tile at the coordinate
// (tma.get_tma_tensor, local_tile, partition_S/D, copy), and the program reports what arrived:
//
// - load: every shared-memory element after the copy (smem was filled with all-ones bytes first);
// - store: every element of the global allocation after the copy (filled with all-ones first).
//
// Each element carries its own index: global element j holds j+1 (load), shared element i holds
// i+1 (store). Elements narrower than the index are sent in several passes, one digit of
// 8*sizeof(T) bits per pass, and put back together here; all-ones in every pass is "untouched"
// (-1), 0 is the TMA's out-of-bounds zero fill. The observed array is printed run-length coded
// (`start:step:count` arithmetic runs); harness/gpu/tma.rs compares it with the engine.
//
// The cuTensorMapEncodeTiled arguments CuTe passes are captured by redirecting CUTLASS's driver
// wrapper macro to tma_capture::call_cuTensorMapEncodeTiled, which records them (the `args`
// line) and, with --corrupt, perturbs the descriptor before encoding it, one of four ways chosen
// from the case id (the first that applies of kind id % 4, then the next kinds), each printed as a
// `twin` line: `stride` (the byte stride of TMA dimension d >= 1 grows by 16; rank 1: the global
// address moves by 16 bytes, kind `address`), `box` (two box extents, one doubled and one halved:
// the same bytes, so a load's mbarrier still completes), `swizzle` (another swizzle mode the box's
// inner extent allows, for a tile of 256 bytes or more) and `estride` (dimension d >= 1 traversed
// with element stride 2 over a doubled box extent: again the same bytes). --corrupt-stride1 is the
// first runs' twin: always the stride of TMA dimension 1 (rank 1: the address).
//
// Built with -DTMA_HOST_ONLY by g++ (no GPU, no nvcc), the program runs CuTe's host side only:
// it prints the `args` lines (CuTe's descriptor arguments) and no observation.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <string>

#include <cuda.h>
#include <cutlass/cuda_host_adapter.hpp>

namespace tma_capture {

struct Args {
  bool valid = false;
  int dtype = 0, rank = 0;
  long long addr_off = 0;
  unsigned long long dims[5] = {}, strides[4] = {};
  unsigned box[5] = {}, estr[5] = {};
  int interleave = 0, swizzle = 0, l2 = 0, oob = 0;
  int result = 0;
};

inline Args& last() { static Args a; return a; }
// 0: no perturbation, 1: --corrupt-stride1, 2: --corrupt (the four kinds).
inline int& corrupt() { static int c = 0; return c; }
inline int& case_id() { static int c = 0; return c; }
inline long long& tile_bytes() { static long long b = 0; return b; }
// The perturbation applied to the last descriptor (the `twin` line), empty when none.
inline std::string& twin() { static std::string t; return t; }

// Bytes of an element of CUtensorMapDataType `dtype` (cuda.h order: UINT8, UINT16, UINT32, INT32,
// UINT64, INT64, FLOAT16, FLOAT32, FLOAT64, BFLOAT16, ...).
inline int dtype_bytes(int dtype) {
  static const int b[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  return dtype >= 0 && dtype < 13 ? b[dtype] : 1;
}

// Span in bytes of CUtensorMapSwizzle `sw` (NONE: no limit).
inline int swizzle_span(int sw) { return sw == 1 ? 32 : sw == 2 ? 64 : sw == 0 ? 1 << 30 : 128; }

// Applies perturbation `kind` (0 stride, 1 box, 2 swizzle, 3 estride) to the arrays; false when
// it does not apply to this descriptor.
inline bool perturb(int kind, int id, int rank, int elem, unsigned long long* s, unsigned* b, unsigned* e, int& sw,
                    long long& addr_shift, std::string& what) {
  char buf[96];
  if (kind == 0) {
    if (rank >= 2) {
      int d = 1 + (id / 4) % (rank - 1);
      s[d - 1] += 16;
      snprintf(buf, sizeof buf, "kind=stride dim=%d", d);
    } else {
      addr_shift = 16;
      snprintf(buf, sizeof buf, "kind=address dim=0");
    }
    what = buf;
    return true;
  }
  if (kind == 1) {
    for (int j = rank - 1; j >= 0; --j) {
      if (b[j] < 2 || b[j] % 2) continue;
      if (j == 0 && ((b[0] / 2) * elem) % 16) continue;
      for (int i = 0; i < rank; ++i) {
        if (i == j || b[i] * 2 > 256) continue;
        if (i == 0 && (long long)b[0] * 2 * elem > swizzle_span(sw)) continue;
        b[i] *= 2;
        b[j] /= 2;
        snprintf(buf, sizeof buf, "kind=box dim=%d,%d", i, j);
        what = buf;
        return true;
      }
    }
    return false;
  }
  if (kind == 2) {
    if (tile_bytes() < 256) return false;
    long long inner = (long long)b[0] * elem;
    int to = -1;
    if (sw != 0) to = 0;
    else
      for (int c = 1; c <= 3 && to < 0; ++c)
        if (inner <= swizzle_span(c)) to = c;
    if (to < 0) return false;
    snprintf(buf, sizeof buf, "kind=swizzle dim=%d,%d", sw, to);
    sw = to;
    what = buf;
    return true;
  }
  for (int d = rank - 1; d >= 1; --d) {
    if (b[d] * 2 > 256 || b[d] < 2) continue;
    b[d] *= 2;
    e[d] = 2;
    snprintf(buf, sizeof buf, "kind=estride dim=%d", d);
    what = buf;
    return true;
  }
  return false;
}
inline char*& base() { static char* b = nullptr; return b; }

template <class Map, class Fmt, class Rank, class Addr, class Dims, class Strides, class Box, class EStr,
          class Il, class Sw, class L2, class Oob>
CUresult call_cuTensorMapEncodeTiled(Map* map, Fmt fmt, Rank rank, Addr addr, Dims dims, Strides strides, Box box,
                                     EStr estr, Il il, Sw sw, L2 l2, Oob oob) {
  Args& a = last();
  a = Args{};
  a.valid = true;
  a.dtype = int(fmt);
  a.rank = int(rank);
  a.addr_off = (long long)((char*)addr - base());
  for (int i = 0; i < a.rank && i < 5; ++i) {
    a.dims[i] = (unsigned long long)dims[i];
    a.box[i] = (unsigned)box[i];
    a.estr[i] = (unsigned)estr[i];
    if (i + 1 < a.rank) a.strides[i] = (unsigned long long)strides[i];
  }
  a.interleave = int(il);
  a.swizzle = int(sw);
  a.l2 = int(l2);
  a.oob = int(oob);
#if defined(TMA_HOST_ONLY)
  (void)map;
  return CUresult(0);
#else
  cuuint64_t d[5], s[4];
  cuuint32_t b[5], e[5];
  for (int i = 0; i < a.rank; ++i) {
    d[i] = a.dims[i];
    b[i] = a.box[i];
    e[i] = a.estr[i];
    if (i + 1 < a.rank) s[i] = a.strides[i];
  }
  void* gaddr = (void*)addr;
  twin().clear();
  auto swz = sw;
  if (corrupt() == 1) {
    if (a.rank >= 2) s[0] += 16;
    else gaddr = (void*)((char*)addr + 16);
    twin() = a.rank >= 2 ? "kind=stride dim=1" : "kind=address dim=0";
  } else if (corrupt() == 2) {
    unsigned long long ss[4] = {};
    unsigned bb[5] = {}, ee[5] = {};
    for (int i = 0; i < a.rank; ++i) {
      bb[i] = b[i];
      ee[i] = e[i];
      if (i + 1 < a.rank) ss[i] = s[i];
    }
    int swi = int(sw);
    long long shift = 0;
    std::string what;
    int want = case_id() % 4;
    for (int k = 0; k < 4; ++k) {
      int kind = (want + k) % 4;
      if (perturb(kind, case_id(), a.rank, dtype_bytes(a.dtype), ss, bb, ee, swi, shift, what)) break;
    }
    for (int i = 0; i < a.rank; ++i) {
      b[i] = bb[i];
      e[i] = ee[i];
      if (i + 1 < a.rank) s[i] = ss[i];
    }
    gaddr = (void*)((char*)addr + shift);
    swz = decltype(sw)(swi);
    twin() = what;
  }
  if (corrupt()) {
    char buf[256];
    int n = snprintf(buf, sizeof buf, " strides=");
    for (int i = 0; i + 1 < a.rank; ++i) n += snprintf(buf + n, sizeof buf - n, "%s%llu", i ? "," : "", (unsigned long long)s[i]);
    n += snprintf(buf + n, sizeof buf - n, " box=");
    for (int i = 0; i < a.rank; ++i) n += snprintf(buf + n, sizeof buf - n, "%s%u", i ? "," : "", (unsigned)b[i]);
    n += snprintf(buf + n, sizeof buf - n, " estr=");
    for (int i = 0; i < a.rank; ++i) n += snprintf(buf + n, sizeof buf - n, "%s%u", i ? "," : "", (unsigned)e[i]);
    snprintf(buf + n, sizeof buf - n, " swizzle=%d", int(swz));
    twin() += buf;
  }
  CUresult r = cutlass::call_cuTensorMapEncodeTiled(map, fmt, (cuuint32_t)a.rank, gaddr, d, s, b, e, il, swz, l2, oob);
  a.result = int(r);
  return r;
#endif
}

}  // namespace tma_capture

#undef CUTLASS_CUDA_DRIVER_WRAPPER_CALL
#define CUTLASS_CUDA_DRIVER_WRAPPER_CALL(func) tma_capture::call_##func

#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>

namespace tma_check {

using namespace cute;

// Bytes of global memory the program allocates once (cases stay below GLOBAL_LIMIT bytes; the
// rest is slack a corrupted descriptor may reach).
constexpr size_t GLOBAL_ALLOC = size_t(96) << 20;
constexpr size_t GLOBAL_SLACK = size_t(1) << 20;
constexpr size_t SMEM_LIMIT = 160 * 1024;

struct Ctx {
  FILE* out = stdout;
  int corrupt = 0;
  char* dglobal = nullptr;  // device allocation (or a fake aligned address host-only)
  uint8_t* dsmem = nullptr;  // device buffer: shared memory in (store) / out (load)
  int* dstatus = nullptr;
};

inline void print_args(Ctx& ctx, int id) {
  auto& a = tma_capture::last();
  if (!a.valid) {
    fprintf(ctx.out, "args %d none\n", id);
    return;
  }
  fprintf(ctx.out, "args %d dtype=%d rank=%d addr=%lld dims=", id, a.dtype, a.rank, a.addr_off);
  for (int i = 0; i < a.rank; ++i) fprintf(ctx.out, "%s%llu", i ? "," : "", a.dims[i]);
  fprintf(ctx.out, " strides=");
  for (int i = 0; i + 1 < a.rank; ++i) fprintf(ctx.out, "%s%llu", i ? "," : "", a.strides[i]);
  fprintf(ctx.out, " box=");
  for (int i = 0; i < a.rank; ++i) fprintf(ctx.out, "%s%u", i ? "," : "", a.box[i]);
  fprintf(ctx.out, " estr=");
  for (int i = 0; i < a.rank; ++i) fprintf(ctx.out, "%s%u", i ? "," : "", a.estr[i]);
  fprintf(ctx.out, " interleave=%d swizzle=%d l2=%d oob=%d result=%d\n", a.interleave, a.swizzle, a.l2, a.oob,
          a.result);
  if (!tma_capture::twin().empty()) fprintf(ctx.out, "twin %d %s\n", id, tma_capture::twin().c_str());
}

// Arithmetic runs: `start:step:count` tokens.
inline void print_runs(FILE* f, std::vector<long long> const& v) {
  size_t i = 0;
  while (i < v.size()) {
    long long start = v[i];
    if (i + 1 == v.size()) {
      fprintf(f, " %lld:0:1", start);
      break;
    }
    long long step = v[i + 1] - v[i];
    size_t j = i + 1;
    while (j + 1 < v.size() && v[j + 1] - v[j] == step) ++j;
    fprintf(f, " %lld:%lld:%zu", start, step, j - i + 1);
    i = j + 1;
  }
}

// The digit `pass` of `x` in `bytes`-byte digits, little-endian, into dst.
inline void put_digit(uint8_t* dst, unsigned long long x, int bytes, int pass) {
  unsigned long long d = bytes >= 8 ? x : (x >> (8 * bytes * pass));
  for (int b = 0; b < bytes; ++b) dst[b] = uint8_t(d >> (8 * b));
}
inline unsigned long long get_digit(uint8_t const* src, int bytes) {
  unsigned long long d = 0;
  for (int b = 0; b < bytes; ++b) d |= (unsigned long long)src[b] << (8 * b);
  return d;
}

#if !defined(TMA_HOST_ONLY)

__device__ inline bool wait_phase(uint64_t* bar, int phase) {
  uint32_t a = cute::cast_smem_ptr_to_uint(bar);
  uint64_t t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (true) {
    uint32_t done;
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(a), "r"(phase)
        : "memory");
    if (done) return true;
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > 1000000000ull) return false;  // 1 s
  }
}

template <class T, bool Store, class SL, class Tma, class GShape, class Tiler, class Coord>
__global__ void tma_kernel(CUTE_GRID_CONSTANT Tma const tma, GShape gshape, Tiler tiler, Coord tc, uint8_t* sio,
                           int nbytes, int* status) {
  extern __shared__ uint8_t smem_raw[];
  __shared__ uint64_t bar;  // 8-byte aligned, as an mbarrier must be
  uint8_t* base = (uint8_t*)(((uintptr_t)smem_raw + 1023) & ~uintptr_t(1023));
  T* sp = reinterpret_cast<T*>(base);
  Tensor sA = make_tensor(make_smem_ptr(sp), SL{});
  Tensor mA = tma.get_tma_tensor(gshape);
  Tensor gA = local_tile(mA, tiler, tc);
  auto cta = tma.get_slice(Int<0>{});
  if constexpr (!Store) {
    for (int i = threadIdx.x; i < nbytes; i += blockDim.x) base[i] = 0xff;
    cute::tma_store_fence();  // fence.proxy.async.shared::cta: the fill before the TMA's writes
    if (threadIdx.x == 0) {
      cute::initialize_barrier(bar, 1);
      cutlass::arch::fence_barrier_init();
    }
    __syncthreads();
    Tensor tAgA = cta.partition_S(gA);
    Tensor tAsA = cta.partition_D(sA);
    if (threadIdx.x == 0) {
      cute::set_barrier_transaction_bytes(bar, uint32_t(sizeof(T) * size(SL{})));
      copy(tma.with(bar), tAgA, tAsA);
    }
    bool ok = wait_phase(&bar, 0);
    if (!ok && threadIdx.x == 0) *status = 1;
    __syncthreads();
    for (int i = threadIdx.x; i < nbytes; i += blockDim.x) sio[i] = base[i];
  } else {
    for (int i = threadIdx.x; i < nbytes; i += blockDim.x) base[i] = sio[i];
    cute::tma_store_fence();
    __syncthreads();
    Tensor tBsB = cta.partition_S(sA);
    Tensor tBgB = cta.partition_D(gA);
    if (threadIdx.x == 0) {
      copy(tma, tBsB, tBgB);
      cute::tma_store_arrive();
      cute::tma_store_wait<0>();
    }
    __syncthreads();
  }
}

#define TMA_CUDA(x)                                                                    \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(ctx.out, "case %d error cuda %s (%s)\n", id, cudaGetErrorName(e_), #x); \
      fflush(ctx.out);                                                                 \
      return 2;                                                                        \
    }                                                                                  \
  } while (0)

#endif

// Runs one case. Returns 0 when it ran (whatever it observed), 2 on a CUDA error.
template <class T, bool Store, class SL, class GLayout, class Tiler, class Coord>
int run_case(Ctx& ctx, int id, GLayout const& g, Tiler const& tiler, Coord const& tc) {
  constexpr int E = int(sizeof(T));
  size_t gcos = size_t(cosize(g));
  size_t scount = size_t(size(SL{}));
  size_t sbytes = scount * E;
  size_t alloc = ((gcos * E + 15) / 16) * 16 + GLOBAL_SLACK;
  if (alloc > GLOBAL_ALLOC || sbytes > SMEM_LIMIT) {
    fprintf(ctx.out, "case %d error too-large global=%zu smem=%zu\n", id, alloc, sbytes);
    return 0;
  }
  fprintf(ctx.out, "begin %d\n", id);
  fflush(ctx.out);
  tma_capture::base() = ctx.dglobal;
  tma_capture::last() = tma_capture::Args{};
  tma_capture::twin().clear();
  tma_capture::case_id() = id;
  tma_capture::tile_bytes() = (long long)sbytes;
  Tensor gtensor = make_tensor(make_gmem_ptr(reinterpret_cast<T*>(ctx.dglobal)), g);
  using Op = conditional_t<Store, SM90_TMA_STORE, SM90_TMA_LOAD>;
  auto tma = make_tma_copy(Op{}, gtensor, SL{}, tiler, Int<1>{});
  print_args(ctx, id);
#if defined(TMA_HOST_ONLY)
  {
    // The kernel's partitioning, instantiated on the host (a compile check of what it uses).
    Tensor sA = make_tensor(make_smem_ptr(reinterpret_cast<T*>(ctx.dglobal)), SL{});
    Tensor mA = tma.get_tma_tensor(shape(g));
    Tensor gA = local_tile(mA, tiler, tc);
    auto cta = tma.get_slice(Int<0>{});
    Tensor tAgA = cta.partition_S(sA);
    auto n1 = size(cta.partition_S(gA));
    auto n2 = size(cta.partition_D(sA));
    auto n3 = size(cta.partition_D(gA));
    fprintf(ctx.out, "host %d tma_values %d %d %d %d\n", id, int(size(tAgA)), int(n1), int(n2), int(n3));
  }
  return 0;
#else
  size_t nelem = alloc / E;
  size_t maxval = (Store ? scount : nelem) + 1;  // the largest index+1 sent
  int passes = 1;
  if (E < 8) {
    while (true) {
      int bits = 8 * E * passes;
      if (bits >= 63 || ((1ull << bits) - 1) > maxval) break;
      ++passes;
    }
  }
  std::vector<unsigned long long> acc(Store ? nelem : scount, 0);
  std::vector<uint8_t> hg(alloc), hs(sbytes);
  int status = 0;
  auto kernel = tma_kernel<T, Store, SL, decltype(tma), decltype(shape(g)), Tiler, Coord>;
  TMA_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sbytes + 1024)));
  for (int p = 0; p < passes; ++p) {
    if (Store) {
      memset(hg.data(), 0xff, alloc);
      for (size_t i = 0; i < scount; ++i) put_digit(&hs[i * E], i + 1, E, p);
    } else {
      for (size_t j = 0; j < nelem; ++j) put_digit(&hg[j * E], j + 1, E, p);
    }
    TMA_CUDA(cudaMemcpy(ctx.dglobal, hg.data(), alloc, cudaMemcpyHostToDevice));
    if (Store) TMA_CUDA(cudaMemcpy(ctx.dsmem, hs.data(), sbytes, cudaMemcpyHostToDevice));
    TMA_CUDA(cudaMemset(ctx.dstatus, 0, sizeof(int)));
    kernel<<<1, 128, sbytes + 1024>>>(tma, shape(g), tiler, tc, ctx.dsmem, int(sbytes), ctx.dstatus);
    TMA_CUDA(cudaGetLastError());
    TMA_CUDA(cudaDeviceSynchronize());
    int st = 0;
    TMA_CUDA(cudaMemcpy(&st, ctx.dstatus, sizeof(int), cudaMemcpyDeviceToHost));
    status |= st;
    if (Store) {
      TMA_CUDA(cudaMemcpy(hg.data(), ctx.dglobal, alloc, cudaMemcpyDeviceToHost));
      for (size_t j = 0; j < nelem; ++j) acc[j] |= get_digit(&hg[j * E], E) << (E >= 8 ? 0 : 8 * E * p);
    } else {
      TMA_CUDA(cudaMemcpy(hs.data(), ctx.dsmem, sbytes, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < scount; ++i) acc[i] |= get_digit(&hs[i * E], E) << (E >= 8 ? 0 : 8 * E * p);
    }
  }
  int bits = E >= 8 ? 64 : 8 * E * passes;
  unsigned long long ones = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  std::vector<long long> obs(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) obs[i] = acc[i] == ones ? -1 : (long long)acc[i];
  fprintf(ctx.out, "case %d %s passes=%d %s n=%zu", id, Store ? "store" : "load", passes,
          status ? "timeout" : "ok", obs.size());
  print_runs(ctx.out, obs);
  fprintf(ctx.out, "\n");
  fflush(ctx.out);
  return 0;
#endif
}

}  // namespace tma_check

// The generated parts define `int tma_case_N(tma_check::Ctx&)` (0: ran, 2: CUDA error);
// tma_parts.cuh declares them weak, so a build without some of them still links.
