// copy_check.cu: the copy atoms of `cargo xtask gpu` on real hardware.
//
// The tables (copy_tables.txt) give, for each copy atom, the engine's Src and Dst TV layouts
// evaluated at every (thread, value): the logical index of the element, in units of the value
// type (16-bit for the warp-wide ops, bytes for cp.async). An element tagged with its logical
// index is placed where Src says, moved by the instruction, and must arrive where Dst says:
//  - ldmatrix (SM75_*_LDSM_*): thread t's shared-memory row (its address operand) holds the tags
//    Src(t, v); after the instruction thread t's registers, value v, must hold Dst(t, v).
//  - stmatrix (SM90_*_STSM_*): thread t's registers hold Src(t, v); after it the row thread t
//    addresses must hold Dst(t, v) at position v (rows of the threads the instruction reads).
//  - movmatrix (SM75_U32x1_MOVM_T): registers to registers.
//  - cp.async (SM80_CP_ASYNC_*): each thread's value, global to shared; byte Dst(0, v) of the
//    destination must be byte Src(0, v) of the source; the _ZFILL forms with the predicate off
//    (even threads) must write zeros.
//
// Usage: copy_check TABLES OUT.json
// Exit: 0 all pass, 1 some check failed, 2 usage or CUDA error.
#include <cuda_runtime.h>

#include <cinttypes>
#include <map>

#include "common.hpp"

using namespace mmacheck;

struct CTable {
  std::string op, type, kind, layoutS, layoutD;
  int count = 0, trans = 0, threads = 0;
  std::vector<int> S, D;
};

static std::vector<CTable> read_ctables(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<CTable> out;
  std::string line;
  int lineno = 0;
  auto fail = [&](const std::string& why) { throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + why); };
  if (!std::getline(in, line) || line.rfind("cutecheck-copy-tables 1", 0) != 0) fail("not a cutecheck-copy-tables 1 file");
  ++lineno;
  CTable* cur = nullptr;
  size_t ns = 0, nd = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "atom") {
      out.emplace_back();
      cur = &out.back();
      if (!(ls >> cur->op >> cur->type >> cur->kind >> cur->count >> cur->trans >> cur->threads >> ns >> nd)) fail("bad atom line");
      continue;
    }
    if (!cur) fail("data before the first atom line");
    if (key == "layout") { std::string w, rest; ls >> w; std::getline(ls, rest); (w == "S" ? cur->layoutS : cur->layoutD) = rest.substr(1); }
    else if (key == "S" || key == "D") {
      auto& v = key == "S" ? cur->S : cur->D;
      int x;
      while (ls >> x) { if (x < 0 || x >= 4096) fail("index out of range"); v.push_back(x); }
      if (v.size() != (key == "S" ? ns : nd)) fail(key + ": wrong count");
    } else if (key == "end") cur = nullptr;
    else fail("unknown key " + key);
  }
  return out;
}

// ------------------------------------------------------------------------------------------
// Warp-wide ops: 32 rows of 16 bytes in shared memory, 8 b16 values each.

template <int X, bool T> __device__ void ldsm(uint32_t* r, uint32_t addr);
template <int X, bool T> __device__ void stsm(const uint32_t* r, uint32_t addr);
#define LDSM_DEF(X, T, SUF, REGS, OUTS)                                                                 \
  template <> __device__ void ldsm<X, T>(uint32_t* r, uint32_t addr) {                                  \
    asm volatile("ldmatrix.sync.aligned.m8n8.x" #X SUF ".shared.b16 " REGS ", [%" #X "];\n" : OUTS : "r"(addr)); \
  }
#define R1 "{%0}"
#define R2 "{%0,%1}"
#define R4 "{%0,%1,%2,%3}"
#define O1 "=r"(r[0])
#define O2 "=r"(r[0]), "=r"(r[1])
#define O4 "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
LDSM_DEF(1, false, "", R1, O1)
LDSM_DEF(2, false, "", R2, O2)
LDSM_DEF(4, false, "", R4, O4)
LDSM_DEF(1, true, ".trans", R1, O1)
LDSM_DEF(2, true, ".trans", R2, O2)
LDSM_DEF(4, true, ".trans", R4, O4)
#define STSM_DEF(X, T, SUF, REGS, INS)                                                                  \
  template <> __device__ void stsm<X, T>(const uint32_t* r, uint32_t addr) {                            \
    asm volatile("stmatrix.sync.aligned.m8n8.x" #X SUF ".shared.b16 [%0], " REGS ";\n" ::"r"(addr), INS : "memory"); \
  }
#define S1 "{%1}"
#define S2 "{%1,%2}"
#define S4 "{%1,%2,%3,%4}"
#define I1 "r"(r[0])
#define I2 "r"(r[0]), "r"(r[1])
#define I4 "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
STSM_DEF(1, false, "", S1, I1)
STSM_DEF(2, false, "", S2, I2)
STSM_DEF(4, false, "", S4, I4)
STSM_DEF(1, true, ".trans", S1, I1)
STSM_DEF(2, true, ".trans", S2, I2)
STSM_DEF(4, true, ".trans", S4, I4)

// mode 0: ldmatrix, 1: stmatrix, 2: movmatrix. S/D: nS and nD values per thread.
template <int X, bool T>
__global__ void warp_kernel(int mode, const int* S, int nS, const int* D, int nD, uint16_t* out_regs, uint16_t* out_rows) {
  __shared__ __align__(16) uint16_t rows[32 * 8];
  int t = threadIdx.x;
  for (int v = 0; v < 8; ++v) rows[t * 8 + v] = 0xffff;
  __syncwarp();
  uint32_t r[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
  uint32_t addr = uint32_t(__cvta_generic_to_shared(rows + t * 8));
  if (mode == 0) {
    for (int v = 0; v < nS; ++v) rows[t * 8 + v] = uint16_t(S[t * nS + v]);
    __syncwarp();
    ldsm<X, T>(r, addr);
  } else if (mode == 1) {
    for (int v = 0; v < nS; ++v) r[v / 2] = (r[v / 2] & ~(0xffffu << (16 * (v % 2)))) | (uint32_t(S[t * nS + v]) << (16 * (v % 2)));
    stsm<X, T>(r, addr);
    __syncwarp();
  } else {
    uint32_t a = 0;
    for (int v = 0; v < nS; ++v) a |= uint32_t(S[t * nS + v]) << (16 * v);
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(r[0]) : "r"(a));
  }
  for (int v = 0; v < 8; ++v) out_regs[t * 8 + v] = uint16_t(r[v / 2] >> (16 * (v % 2)));
  __syncwarp();
  for (int v = 0; v < 8; ++v) out_rows[t * 8 + v] = rows[t * 8 + v];
}

// ------------------------------------------------------------------------------------------
// cp.async: BYTES per thread, .ca or .cg, with the zero-fill form's src-size operand.

template <int BYTES, bool CG, bool ZFILL>
__global__ void cp_kernel(const uint8_t* src, uint8_t* out) {
  __shared__ __align__(16) uint8_t sm[32 * 16];
  int t = threadIdx.x;
  for (int b = 0; b < BYTES; ++b) sm[t * BYTES + b] = 0xab;
  __syncwarp();
  uint32_t s = uint32_t(__cvta_generic_to_shared(sm + t * BYTES));
  const uint8_t* g = src + t * BYTES;
  if (ZFILL) {
    int size = (t % 2) ? BYTES : 0;
    if (CG) asm volatile("cp.async.cg.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(g), "n"(BYTES), "r"(size));
    else asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(g), "n"(BYTES), "r"(size));
  } else {
    if (CG) asm volatile("cp.async.cg.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(g), "n"(BYTES));
    else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(g), "n"(BYTES));
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncwarp();
  for (int b = 0; b < BYTES; ++b) out[t * BYTES + b] = sm[t * BYTES + b];
}

using CpLaunch = void (*)(const uint8_t*, uint8_t*);
template <int B, bool CG, bool Z> void cp_launch(const uint8_t* s, uint8_t* o) { cp_kernel<B, CG, Z><<<1, 32>>>(s, o); }
using WarpLaunch = void (*)(int, const int*, int, const int*, int, uint16_t*, uint16_t*);
template <int X, bool T> void warp_launch(int m, const int* S, int nS, const int* D, int nD, uint16_t* r, uint16_t* w) {
  warp_kernel<X, T><<<1, 32>>>(m, S, nS, D, nD, r, w);
}

int main(int argc, char** argv) {
  if (argc < 3) { std::fprintf(stderr, "usage: copy_check TABLES OUT.json\n"); return 2; }
  std::vector<CTable> tables;
  try { tables = read_ctables(argv[1]); } catch (std::exception& e) { std::fprintf(stderr, "error: %s\n", e.what()); return 2; }
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int cc = prop.major * 10 + prop.minor;
  std::printf("device: %s (sm_%d)\n", prop.name, cc);
  bool all_pass = true, first = true;
  std::string json = "{\n  \"program\": \"copy_check\",\n  \"device\": " + json_str(prop.name) + ",\n  \"compute_capability\": " +
                     std::to_string(cc) + ",\n  \"results\": [\n";
  auto row = [&](const CTable& t, const char* check, bool ok, const std::string& detail) {
    std::string op = t.op, suffix;
    if (op.size() > 11 && op.compare(op.size() - 11, 11, "(corrected)") == 0) { op = op.substr(0, op.size() - 11); suffix = "(corrected)"; }
    std::string atom = "Copy_Atom<" + op + "," + t.type + ">" + suffix;
    std::printf("%-46s %-10s %-5s %s\n", atom.c_str(), check, ok ? "PASS" : "FAIL", detail.c_str());
    if (!ok) all_pass = false;
    json += std::string(first ? "" : ",\n") + "    {\"atom\": " + json_str(atom) + ", \"check\": " + json_str(check) +
            ", \"verdict\": " + json_str(ok ? "PASS" : "FAIL") + ", \"max_err\": null, \"detail\": " + json_str(detail) +
            ", \"src\": " + json_str(t.layoutS) + ", \"dst\": " + json_str(t.layoutD) + "}";
    first = false;
  };
  std::map<int, WarpLaunch> ld = {{1, warp_launch<1, false>}, {2, warp_launch<2, false>}, {4, warp_launch<4, false>}};
  std::map<int, WarpLaunch> ldt = {{1, warp_launch<1, true>}, {2, warp_launch<2, true>}, {4, warp_launch<4, true>}};
  for (const CTable& t : tables) {
    char buf[300];
    if (t.kind == "cpasync") {
      bool cg = t.op.find("CACHEGLOBAL") != std::string::npos, z = t.trans != 0;
      CpLaunch L = nullptr;
      if (t.count == 4) L = z ? cp_launch<4, false, true> : cp_launch<4, false, false>;
      if (t.count == 8) L = z ? cp_launch<8, false, true> : cp_launch<8, false, false>;
      if (t.count == 16) L = cg ? (z ? cp_launch<16, true, true> : cp_launch<16, true, false>) : (z ? cp_launch<16, false, true> : cp_launch<16, false, false>);
      if (!L || int(t.S.size()) != t.count || int(t.D.size()) != t.count) { row(t, "cp.async", false, "no kernel for this size"); continue; }
      std::vector<uint8_t> in(32 * t.count), out(32 * t.count);
      for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(i * 37 + 11);
      uint8_t *dI, *dO;
      CK(cudaMalloc(&dI, in.size())); CK(cudaMalloc(&dO, out.size()));
      CK(cudaMemcpy(dI, in.data(), in.size(), cudaMemcpyHostToDevice));
      CK(cudaMemset(dO, 0x5a, out.size()));
      L(dI, dO);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(out.data(), dO, out.size(), cudaMemcpyDeviceToHost));
      cudaFree(dI); cudaFree(dO);
      int bad = 0;
      for (int th = 0; th < 32; ++th)
        for (int v = 0; v < t.count; ++v) {
          bool zero = z && th % 2 == 0;
          uint8_t want = zero ? 0 : in[th * t.count + t.S[v]];
          if (out[th * t.count + t.D[v]] != want) ++bad;
        }
      std::snprintf(buf, sizeof buf, "%d threads x %d bytes%s: %d bytes misplaced", 32, t.count, z ? " (even threads zero-filled)" : "", bad);
      row(t, "cp.async", bad == 0, buf);
      continue;
    }
    int nS = int(t.S.size()) / 32, nD = int(t.D.size()) / 32;
    int mode = t.kind == "ldsm" ? 0 : t.kind == "stsm" ? 1 : 2;
    WarpLaunch L = (t.trans ? ldt : ld)[t.count];
    if (mode == 2) L = warp_launch<1, false>;
    int *dS, *dD;
    uint16_t *dR, *dW;
    CK(cudaMalloc(&dS, 4 * t.S.size())); CK(cudaMalloc(&dD, 4 * t.D.size()));
    CK(cudaMalloc(&dR, 2 * 256)); CK(cudaMalloc(&dW, 2 * 256));
    CK(cudaMemcpy(dS, t.S.data(), 4 * t.S.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dD, t.D.data(), 4 * t.D.size(), cudaMemcpyHostToDevice));
    L(mode, dS, nS, dD, nD, dR, dW);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<uint16_t> regs(256), rows(256);
    CK(cudaMemcpy(regs.data(), dR, 512, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(rows.data(), dW, 512, cudaMemcpyDeviceToHost));
    cudaFree(dS); cudaFree(dD); cudaFree(dR); cudaFree(dW);
    int bad = 0, checked = 0, fb_t = -1, fb_v = -1, fb_got = 0, fb_want = 0;
    for (int th = 0; th < 32; ++th)
      for (int v = 0; v < nD; ++v) {
        if (mode == 1 && th >= 8 * t.count) continue;   // rows the instruction does not address
        int got = mode == 1 ? rows[th * 8 + v] : regs[th * 8 + v];
        ++checked;
        if (got != t.D[th * nD + v]) { if (fb_t < 0) { fb_t = th; fb_v = v; fb_got = got; fb_want = t.D[th * nD + v]; } ++bad; }
      }
    if (bad)
      std::snprintf(buf, sizeof buf, "%d of %d (thread, value) hold the wrong element; first: thread %d value %d holds %d, Dst says %d",
                    bad, checked, fb_t, fb_v, fb_got, fb_want);
    else
      std::snprintf(buf, sizeof buf, "all %d (thread, value) of the destination hold the element Dst names", checked);
    row(t, mode == 1 ? "smem" : "registers", bad == 0, buf);
  }
  json += "\n  ],\n  \"all_pass\": " + std::string(all_pass ? "true" : "false") + "\n}\n";
  std::ofstream f(argv[2]);
  f << json;
  if (!f) { std::fprintf(stderr, "error: cannot write %s\n", argv[2]); return 2; }
  std::printf("%s\n", all_pass ? "copy_check: all checks pass" : "copy_check: SOME CHECKS FAIL");
  return all_pass ? 0 : 1;
}
