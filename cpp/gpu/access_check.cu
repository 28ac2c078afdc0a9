// access_check.cu: one warp, one load, per case, for `cargo xtask gpu --access` (run under ncu by
// access_run.sh). Reads the cases file the xtask wrote, one case a line:
//
//   ID KIND VECTOR_BYTES O0 O1 ... O31 [D0 ... D31]
//
// KIND: g ld.global, s ld.shared, ss st.shared, lmN / lmNt ldmatrix.xN (.trans), smN / smNt
// stmatrix.xN (.trans), cp / cpg cp.async.ca / .cg (global O -> shared D); Ot thread t's byte
// offset (for ldmatrix / stmatrix the address of the row thread t gives).
//
// and launches, in file order, one kernel per case: 32 threads, thread t loads VECTOR_BYTES bytes
// at byte offset Ot from a 1024-byte-aligned base (cudaMalloc'd global memory, or dynamic shared
// memory). The offsets are a __grid_constant__ kernel parameter (read through the constant bank,
// not by a load), and the loaded value is stored to global memory, so the measured load is the
// kernel's only load. The load is inline PTX of exactly the width asked (ld.global / ld.shared
// .u8, .u16, .b32, .v2.b32, .v4.b32), volatile so it is neither removed nor merged.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct Offsets {
  unsigned o[32];
};

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      exit(2);                                                                            \
    }                                                                                     \
  } while (0)

template <int V, bool SHARED>
__device__ __forceinline__ uint4 load(const char* gbase, unsigned off) {
  uint4 r = make_uint4(0, 0, 0, 0);
  if (SHARED) {
    extern __shared__ __align__(1024) char smem[];
    unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem)) + off;
    if (V == 1) { unsigned short x; asm volatile("ld.shared.u8 %0, [%1];" : "=h"(x) : "r"(a)); r.x = x; }
    if (V == 2) { unsigned short x; asm volatile("ld.shared.u16 %0, [%1];" : "=h"(x) : "r"(a)); r.x = x; }
    if (V == 4) asm volatile("ld.shared.b32 %0, [%1];" : "=r"(r.x) : "r"(a));
    if (V == 8) asm volatile("ld.shared.v2.b32 {%0,%1}, [%2];" : "=r"(r.x), "=r"(r.y) : "r"(a));
    if (V == 16) asm volatile("ld.shared.v4.b32 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "r"(a));
  } else {
    const char* p = gbase + off;
    if (V == 1) { unsigned short x; asm volatile("ld.global.u8 %0, [%1];" : "=h"(x) : "l"(p)); r.x = x; }
    if (V == 2) { unsigned short x; asm volatile("ld.global.u16 %0, [%1];" : "=h"(x) : "l"(p)); r.x = x; }
    if (V == 4) asm volatile("ld.global.b32 %0, [%1];" : "=r"(r.x) : "l"(p));
    if (V == 8) asm volatile("ld.global.v2.b32 {%0,%1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p));
    if (V == 16) asm volatile("ld.global.v4.b32 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  }
  return r;
}

template <int V, bool SHARED>
__global__ void warp_load(const char* gbase, const __grid_constant__ Offsets offs, uint4* out) {
  uint4 r = load<V, SHARED>(gbase, offs.o[threadIdx.x]);
  out[threadIdx.x] = r;
}

struct Offsets2 {
  unsigned s[32];
  unsigned d[32];
};

__device__ __forceinline__ unsigned smem_base() {
  extern __shared__ __align__(1024) char smem[];
  return static_cast<unsigned>(__cvta_generic_to_shared(smem));
}

// st.shared of V bytes.
template <int V>
__global__ void warp_store(const __grid_constant__ Offsets offs, uint4* out) {
  unsigned a = smem_base() + offs.o[threadIdx.x];
  unsigned x = threadIdx.x + 1;
  unsigned short h = static_cast<unsigned short>(x);
  if (V == 1) asm volatile("st.shared.u8 [%0], %1;" ::"r"(a), "h"(h) : "memory");
  if (V == 2) asm volatile("st.shared.u16 [%0], %1;" ::"r"(a), "h"(h) : "memory");
  if (V == 4) asm volatile("st.shared.b32 [%0], %1;" ::"r"(a), "r"(x) : "memory");
  if (V == 8) asm volatile("st.shared.v2.b32 [%0], {%1,%2};" ::"r"(a), "r"(x), "r"(x) : "memory");
  if (V == 16) asm volatile("st.shared.v4.b32 [%0], {%1,%2,%3,%4};" ::"r"(a), "r"(x), "r"(x), "r"(x), "r"(x) : "memory");
}

// ldmatrix.sync.aligned.m8n8.xX[.trans].shared.b16: thread t gives the address of a 16-byte row.
template <int X, int T>
__global__ void warp_ldsm(const __grid_constant__ Offsets offs, uint4* out) {
  unsigned a = smem_base() + offs.o[threadIdx.x];
  uint4 r = make_uint4(0, 0, 0, 0);
  if (X == 1 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r.x) : "r"(a));
  if (X == 1 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r.x) : "r"(a));
  if (X == 2 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r.x), "=r"(r.y) : "r"(a));
  if (X == 2 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r.x), "=r"(r.y) : "r"(a));
  if (X == 4 && !T)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "r"(a));
  if (X == 4 && T)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "r"(a));
  out[threadIdx.x] = r;
}

// stmatrix.sync.aligned.m8n8.xX[.trans].shared.b16 (sm_90).
template <int X, int T>
__global__ void warp_stsm(const __grid_constant__ Offsets offs, uint4* out) {
  unsigned a = smem_base() + offs.o[threadIdx.x];
  unsigned x = threadIdx.x + 1;
  if (X == 1 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(a), "r"(x) : "memory");
  if (X == 1 && T) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(a), "r"(x) : "memory");
  if (X == 2 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" ::"r"(a), "r"(x), "r"(x) : "memory");
  if (X == 2 && T) asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};" ::"r"(a), "r"(x), "r"(x) : "memory");
  if (X == 4 && !T)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(a), "r"(x), "r"(x), "r"(x), "r"(x) : "memory");
  if (X == 4 && T)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(a), "r"(x), "r"(x), "r"(x), "r"(x) : "memory");
}

// cp.async.{ca,cg}.shared.global [dst], [src], V; then commit and wait.
template <int V, int CG>
__global__ void warp_cp(const char* gbase, const __grid_constant__ Offsets2 offs) {
  unsigned d = smem_base() + offs.d[threadIdx.x];
  const char* p = gbase + offs.s[threadIdx.x];
  if (CG) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(p) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(d), "l"(p), "n"(V) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
}

typedef void (*Kernel)(const char*, const Offsets, uint4*);
typedef void (*Kernel1)(const Offsets, uint4*);
typedef void (*KernelCp)(const char*, const Offsets2);

static Kernel1 store_kernel(int v) {
  switch (v) {
    case 1: return warp_store<1>;
    case 2: return warp_store<2>;
    case 4: return warp_store<4>;
    case 8: return warp_store<8>;
    case 16: return warp_store<16>;
  }
  return nullptr;
}

static Kernel1 matrix_kernel(bool load, int x, bool t) {
  if (load) {
    if (x == 1) return t ? warp_ldsm<1, 1> : warp_ldsm<1, 0>;
    if (x == 2) return t ? warp_ldsm<2, 1> : warp_ldsm<2, 0>;
    if (x == 4) return t ? warp_ldsm<4, 1> : warp_ldsm<4, 0>;
  } else {
    if (x == 1) return t ? warp_stsm<1, 1> : warp_stsm<1, 0>;
    if (x == 2) return t ? warp_stsm<2, 1> : warp_stsm<2, 0>;
    if (x == 4) return t ? warp_stsm<4, 1> : warp_stsm<4, 0>;
  }
  return nullptr;
}

static KernelCp cp_kernel(int v, bool cg) {
  if (cg) return v == 16 ? warp_cp<16, 1> : nullptr;
  switch (v) {
    case 4: return warp_cp<4, 0>;
    case 8: return warp_cp<8, 0>;
    case 16: return warp_cp<16, 0>;
  }
  return nullptr;
}

static Kernel kernel(char space, int v) {
  bool s = space == 's';
  switch (v) {
    case 1: return s ? warp_load<1, true> : warp_load<1, false>;
    case 2: return s ? warp_load<2, true> : warp_load<2, false>;
    case 4: return s ? warp_load<4, true> : warp_load<4, false>;
    case 8: return s ? warp_load<8, true> : warp_load<8, false>;
    case 16: return s ? warp_load<16, true> : warp_load<16, false>;
  }
  return nullptr;
}

static const size_t GLOBAL_BYTES = 64u << 20;  // offsets below 64 MiB
static const int SHARED_BYTES = 200 * 1024;    // offsets below 200 KiB

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: access_check CASES\n");
    return 2;
  }
  FILE* f = fopen(argv[1], "r");
  if (!f) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  char* gbuf;
  uint4* out;
  CHECK(cudaMalloc(&gbuf, GLOBAL_BYTES + 1024));
  CHECK(cudaMemset(gbuf, 1, GLOBAL_BYTES + 1024));
  CHECK(cudaMalloc(&out, 32 * sizeof(uint4)));
  const char* gbase = reinterpret_cast<const char*>((reinterpret_cast<size_t>(gbuf) + 1023) & ~size_t(1023));
  for (char sp : {'g', 's'})
    for (int v : {1, 2, 4, 8, 16}) CHECK(cudaFuncSetAttribute(kernel(sp, v), cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED_BYTES));
  for (int v : {1, 2, 4, 8, 16}) CHECK(cudaFuncSetAttribute(store_kernel(v), cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED_BYTES));
  for (int l = 0; l < 2; ++l)
    for (int x : {1, 2, 4})
      for (int t = 0; t < 2; ++t) CHECK(cudaFuncSetAttribute(matrix_kernel(l, x, t), cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED_BYTES));
  for (int v : {4, 8, 16}) CHECK(cudaFuncSetAttribute(cp_kernel(v, false), cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED_BYTES));
  CHECK(cudaFuncSetAttribute(cp_kernel(16, true), cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED_BYTES));
  char line[8192];
  long n = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    char* p = line;
    long id = strtol(p, &p, 10);
    while (*p == ' ') ++p;
    char kind[8] = {0};
    int k = 0;
    while (*p && *p != ' ' && k < 7) kind[k++] = *p++;
    int v = (int)strtol(p, &p, 10);
    bool cp = kind[0] == 'c';
    Offsets2 o2;
    unsigned long top = 0, topd = 0;
    for (int t = 0; t < 32; ++t) {
      o2.s[t] = (unsigned)strtoul(p, &p, 10);
      if (o2.s[t] > top) top = o2.s[t];
    }
    if (cp)
      for (int t = 0; t < 32; ++t) {
        o2.d[t] = (unsigned)strtoul(p, &p, 10);
        if (o2.d[t] > topd) topd = o2.d[t];
      }
    Offsets o;
    memcpy(o.o, o2.s, sizeof o.o);
    bool ok = true;
    if (!strcmp(kind, "g") || !strcmp(kind, "s")) {
      Kernel kk = kernel(kind[0], v);
      ok = kk && top + 16 <= (kind[0] == 's' ? (unsigned long)SHARED_BYTES : GLOBAL_BYTES);
      if (ok) kk<<<1, 32, kind[0] == 's' ? SHARED_BYTES : 0>>>(gbase, o, out);
    } else if (!strcmp(kind, "ss")) {
      Kernel1 kk = store_kernel(v);
      ok = kk && top + 16 <= (unsigned long)SHARED_BYTES;
      if (ok) kk<<<1, 32, SHARED_BYTES>>>(o, out);
    } else if ((kind[0] == 'l' || kind[0] == 's') && kind[1] == 'm') {
      Kernel1 kk = matrix_kernel(kind[0] == 'l', kind[2] - '0', kind[3] == 't');
      ok = kk && v == 16 && top + 16 <= (unsigned long)SHARED_BYTES;
      if (ok) kk<<<1, 32, SHARED_BYTES>>>(o, out);
    } else if (cp) {
      KernelCp kk = cp_kernel(v, kind[2] == 'g');
      ok = kk && top + 16 <= GLOBAL_BYTES && topd + 16 <= (unsigned long)SHARED_BYTES;
      if (ok) kk<<<1, 32, SHARED_BYTES>>>(gbase, o2);
    } else {
      ok = false;
    }
    if (!ok) {
      fprintf(stderr, "case %ld: bad kind/width/offset (%s %d, max offsets %lu %lu)\n", id, kind, v, top, topd);
      return 2;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    ++n;
  }
  printf("access_check: %ld kernels launched\n", n);
  return 0;
}
