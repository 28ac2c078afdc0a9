// access_check.cu: one warp, one load, per case, for `cargo xtask gpu --access` (run under ncu by
// access_run.sh). Reads the cases file the xtask wrote, one case a line:
//
//   ID SPACE VECTOR_BYTES O0 O1 ... O31      (SPACE: g global, s shared; Ot thread t's byte offset)
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

typedef void (*Kernel)(const char*, const Offsets, uint4*);

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
  char line[4096];
  long n = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    char* p = line;
    long id = strtol(p, &p, 10);
    while (*p == ' ') ++p;
    char space = *p++;
    int v = (int)strtol(p, &p, 10);
    Offsets o;
    unsigned long top = 0;
    for (int t = 0; t < 32; ++t) {
      o.o[t] = (unsigned)strtoul(p, &p, 10);
      if (o.o[t] > top) top = o.o[t];
    }
    Kernel k = kernel(space, v);
    if (!k || top + 16 > (space == 's' ? (unsigned long)SHARED_BYTES : GLOBAL_BYTES)) {
      fprintf(stderr, "case %ld: bad space/width/offset (%c %d, max offset %lu)\n", id, space, v, top);
      return 2;
    }
    k<<<1, 32, space == 's' ? SHARED_BYTES : 0>>>(gbase, o, out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    ++n;
  }
  printf("access_check: %ld kernels launched\n", n);
  return 0;
}
