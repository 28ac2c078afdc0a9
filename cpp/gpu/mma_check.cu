// mma_check.cu: checks 1 and 3 of `cargo xtask gpu` on real hardware.
//
// Check 1 (engine tables on silicon): for each atom of the tables file, one warp per trial loads
// its A and B fragments from random A (MxK) and B (NxK) tiles through the (lane, value) -> index
// tables, loads C the same way, runs the atom's mma.sync as inline PTX, and stores D through the C
// table. The host compares D with a float64 reference. A wrong table gives a wrong product.
// Check 3 (ownership): the same kernel on inputs that make D[m][n] = m + M*n; each lane's raw D
// registers then tell which (m, n) the hardware gave to (lane, value), independent of the C table,
// and that owner table (lane*100 + value) must equal the tables' prediction.
//
// Usage: mma_check TABLES OUT.json [--seed S] [--trials T]
// Exit: 0 all pass, 1 some check failed, 2 usage or CUDA error.

#include <cuda_runtime.h>

#include <chrono>
#include <cinttypes>
#include <map>

#include "common.hpp"

using namespace mmacheck;

// ---------------------------------------------------------------------------------------------
// The instructions. Each Op has fma(d, a, b, c) on 32-bit register arrays.

#define MMA_OP(NAME, TAG, AR, BR, CR)                                                            \
  struct NAME {                                                                              \
    static constexpr const char* tag = TAG;                                                  \
    static constexpr int AREGS = AR, BREGS = BR, CREGS = CR;                                 \
    __device__ static void fma(uint32_t* d, const uint32_t* a, const uint32_t* b, const uint32_t* c);  \
  };

MMA_OP(Op16816F16, "m16n8k16_f32_f16", 4, 2, 4)
MMA_OP(Op16816BF16, "m16n8k16_f32_bf16", 4, 2, 4)
MMA_OP(Op1688TF32, "m16n8k8_f32_tf32", 4, 2, 4)
MMA_OP(Op16832S8, "m16n8k32_s32_s8", 4, 2, 4)
MMA_OP(Op1688F16F16, "m16n8k8_f16_f16", 2, 1, 2)
MMA_OP(Op16832S4, "m16n8k32_s32_s4", 2, 1, 4)
MMA_OP(Op16864S4, "m16n8k64_s32_s4", 4, 2, 4)
MMA_OP(Op884F64, "m8n8k4_f64", 2, 2, 4)
MMA_OP(Op88128And, "m8n8k128_b1_and", 1, 1, 2)
MMA_OP(Op168128And, "m16n8k128_b1_and", 2, 1, 4)
MMA_OP(Op168256And, "m16n8k256_b1_and", 4, 2, 4)
#ifdef WITH_XOR
MMA_OP(Op88128Xor, "m8n8k128_b1_xor", 1, 1, 2)
MMA_OP(Op168128Xor, "m16n8k128_b1_xor", 2, 1, 4)
MMA_OP(Op168256Xor, "m16n8k256_b1_xor", 4, 2, 4)
#endif

// 4 A regs, 2 B regs, 4 C/D regs (f32 or s32 accumulators)
#define MMA_4_2_4(NAME, INSTR)                                                               \
  __device__ void NAME::fma(uint32_t* d, const uint32_t* a, const uint32_t* b, const uint32_t* c) { \
    asm volatile(INSTR " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"                 \
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),              \
                   "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));                                    \
  }
// 2 A regs, 1 B reg, 4 C/D regs
#define MMA_2_1_4(NAME, INSTR)                                                                    \
  __device__ void NAME::fma(uint32_t* d, const uint32_t* a, const uint32_t* b, const uint32_t* c) { \
    asm volatile(INSTR " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"                            \
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));   \
  }
// 1 A reg, 1 B reg, 2 C/D regs
#define MMA_1_1_2(NAME, INSTR)                                                                    \
  __device__ void NAME::fma(uint32_t* d, const uint32_t* a, const uint32_t* b, const uint32_t* c) { \
    asm volatile(INSTR " {%0,%1}, {%2}, {%3}, {%4,%5};\n"                                            \
                 : "=r"(d[0]), "=r"(d[1])                                                          \
                 : "r"(a[0]), "r"(b[0]), "r"(c[0]), "r"(c[1]));                                    \
  }

MMA_4_2_4(Op16816F16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
MMA_4_2_4(Op16816BF16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
MMA_4_2_4(Op1688TF32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")
MMA_4_2_4(Op16832S8, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")
MMA_4_2_4(Op16864S4, "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32")
MMA_4_2_4(Op168256And, "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc")
MMA_2_1_4(Op16832S4, "mma.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32")
MMA_2_1_4(Op168128And, "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc")
MMA_1_1_2(Op88128And, "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc")
#ifdef WITH_XOR
MMA_4_2_4(Op168256Xor, "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc")
MMA_2_1_4(Op168128Xor, "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc")
MMA_1_1_2(Op88128Xor, "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc")
#endif

__device__ void Op1688F16F16::fma(uint32_t* d, const uint32_t* a, const uint32_t* b, const uint32_t* c) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};\n"
               : "=r"(d[0]), "=r"(d[1])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]));
}

// f64: one double of A and of B, two of C/D; each double travels as two 32-bit words (lo, hi).
__device__ void Op884F64::fma(uint32_t* d, const uint32_t* a, const uint32_t* b, const uint32_t* c) {
  double a0 = __hiloint2double(int(a[1]), int(a[0]));
  double b0 = __hiloint2double(int(b[1]), int(b[0]));
  double c0 = __hiloint2double(int(c[1]), int(c[0]));
  double c1 = __hiloint2double(int(c[3]), int(c[2]));
  double d0, d1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};\n"
               : "=d"(d0), "=d"(d1)
               : "d"(a0), "d"(b0), "d"(c0), "d"(c1));
  d[0] = uint32_t(__double2loint(d0)); d[1] = uint32_t(__double2hiint(d0));
  d[2] = uint32_t(__double2loint(d1)); d[3] = uint32_t(__double2hiint(d1));
}

// ---------------------------------------------------------------------------------------------
// The kernel: one warp per trial (blockIdx.x). Value v of a fragment with element width W bits
// sits at bits [v*W, v*W+W) of the fragment's registers (64-bit elements: two registers, lo first),
// which is how CuTe's register fragments are laid out.

__device__ __forceinline__ void pack(uint32_t* r, int v, int w, uint64_t x) {
  if (w == 64) { r[2 * v] = uint32_t(x); r[2 * v + 1] = uint32_t(x >> 32); return; }
  uint32_t mask = w == 32 ? 0xffffffffu : ((1u << w) - 1);
  r[(v * w) / 32] |= (uint32_t(x) & mask) << ((v * w) % 32);
}

__device__ __forceinline__ uint64_t unpack(const uint32_t* r, int v, int w) {
  if (w == 64) return uint64_t(r[2 * v]) | (uint64_t(r[2 * v + 1]) << 32);
  uint32_t mask = w == 32 ? 0xffffffffu : ((1u << w) - 1);
  return (r[(v * w) / 32] >> ((v * w) % 32)) & mask;
}

struct Dims { int M, N, K, nA, nB, nC, wA, wB, wC; };

template <class Op>
__global__ void mma_kernel(Dims s, const uint64_t* A, const uint64_t* B, const uint64_t* C,
                           const int* tA, const int* tB, const int* tC, uint64_t* Dtile, uint64_t* Draw) {
  int lane = threadIdx.x, t = blockIdx.x;
  A += size_t(t) * s.M * s.K; B += size_t(t) * s.N * s.K; C += size_t(t) * s.M * s.N;
  Dtile += size_t(t) * s.M * s.N; Draw += size_t(t) * 32 * s.nC;
  uint32_t a[Op::AREGS], b[Op::BREGS], c[Op::CREGS], d[Op::CREGS];
  for (int i = 0; i < Op::AREGS; ++i) a[i] = 0;
  for (int i = 0; i < Op::BREGS; ++i) b[i] = 0;
  for (int i = 0; i < Op::CREGS; ++i) { c[i] = 0; d[i] = 0; }
  for (int v = 0; v < s.nA; ++v) pack(a, v, s.wA, A[tA[lane * s.nA + v]]);
  for (int v = 0; v < s.nB; ++v) pack(b, v, s.wB, B[tB[lane * s.nB + v]]);
  for (int v = 0; v < s.nC; ++v) pack(c, v, s.wC, C[tC[lane * s.nC + v]]);
  Op::fma(d, a, b, c);
  for (int v = 0; v < s.nC; ++v) {
    uint64_t x = unpack(d, v, s.wC);
    Dtile[tC[lane * s.nC + v]] = x;
    Draw[lane * s.nC + v] = x;
  }
}

using Launcher = void (*)(int, Dims, const uint64_t*, const uint64_t*, const uint64_t*, const int*,
                          const int*, const int*, uint64_t*, uint64_t*);

template <class Op>
void launch(int trials, Dims s, const uint64_t* A, const uint64_t* B, const uint64_t* C, const int* tA,
            const int* tB, const int* tC, uint64_t* Dt, uint64_t* Dr) {
  mma_kernel<Op><<<trials, 32>>>(s, A, B, C, tA, tB, tC, Dt, Dr);
}

static std::map<std::string, Launcher> launchers() {
  std::map<std::string, Launcher> m;
  m[Op16816F16::tag] = launch<Op16816F16>;
  m[Op16816BF16::tag] = launch<Op16816BF16>;
  m[Op1688TF32::tag] = launch<Op1688TF32>;
  m[Op16832S8::tag] = launch<Op16832S8>;
  m[Op1688F16F16::tag] = launch<Op1688F16F16>;
  m[Op16832S4::tag] = launch<Op16832S4>;
  m[Op16864S4::tag] = launch<Op16864S4>;
  m[Op884F64::tag] = launch<Op884F64>;
  m[Op88128And::tag] = launch<Op88128And>;
  m[Op168128And::tag] = launch<Op168128And>;
  m[Op168256And::tag] = launch<Op168256And>;
#ifdef WITH_XOR
  m[Op88128Xor::tag] = launch<Op88128Xor>;
  m[Op168128Xor::tag] = launch<Op168128Xor>;
  m[Op168256Xor::tag] = launch<Op168256Xor>;
#endif
  return m;
}

// ---------------------------------------------------------------------------------------------
// Host side.

template <class T>
struct DevBuf {
  T* p = nullptr;
  size_t n = 0;
  explicit DevBuf(size_t n_) : n(n_) { CK(cudaMalloc(&p, sizeof(T) * (n ? n : 1))); }
  ~DevBuf() { cudaFree(p); }
  void put(const std::vector<T>& v) { CK(cudaMemcpy(p, v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice)); }
  std::vector<T> get() const {
    std::vector<T> v(n);
    CK(cudaMemcpy(v.data(), p, sizeof(T) * n, cudaMemcpyDeviceToHost));
    return v;
  }
};

struct RunOut {
  std::vector<uint64_t> tile, raw;
};

// Runs `problems.size()` trials of one atom in one launch, outputs poisoned first.
static RunOut run_atom(Launcher L, const OpInfo& op, const AtomTable& t, const std::vector<Problem>& problems) {
  int T = int(problems.size());
  std::vector<uint64_t> A, B, C;
  for (auto& p : problems) {
    for (double x : p.A) A.push_back(encode(op.a, x));
    for (double x : p.B) B.push_back(encode(op.b, x));
    for (double x : p.C) C.push_back(encode(op.c, x));
  }
  DevBuf<uint64_t> dA(A.size()), dB(B.size()), dC(C.size()), dT(size_t(T) * t.M * t.N), dR(size_t(T) * 32 * t.nC);
  DevBuf<int> tA(t.A.size()), tB(t.B.size()), tC(t.C.size());
  dA.put(A); dB.put(B); dC.put(C);
  tA.put(t.A); tB.put(t.B); tC.put(t.C);
  dT.put(std::vector<uint64_t>(dT.n, POISON));
  dR.put(std::vector<uint64_t>(dR.n, POISON));
  Dims s{t.M, t.N, t.K, t.nA, t.nB, t.nC, elem_bits(op.a), elem_bits(op.b), elem_bits(op.c)};
  L(T, s, dA.p, dB.p, dC.p, tA.p, tB.p, tC.p, dT.p, dR.p);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  return RunOut{dT.get(), dR.get()};
}

static void print_owner_table(const std::vector<int>& owner, int M, int N, bool lane_only) {
  for (int m = 0; m < M; ++m) {
    std::printf("    ");
    for (int n = 0; n < N; ++n) {
      int o = owner[m + M * n];
      if (o < 0) std::printf(lane_only ? "  ?" : "     ?");
      else if (lane_only) std::printf(" %2d", o / 100);
      else std::printf(" %5d", o);
    }
    std::printf("\n");
  }
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: mma_check TABLES OUT.json [--seed S] [--trials T]\n");
    return 2;
  }
  std::string tables_path = argv[1], out_path = argv[2];
  uint64_t seed = uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  int trials = 16;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--trials" && i + 1 < argc) trials = std::atoi(argv[++i]);
    else { std::fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (trials < 1 || trials > 4096) { std::fprintf(stderr, "--trials must be 1..4096\n"); return 2; }

  std::vector<AtomTable> tables;
  try {
    tables = read_tables(tables_path);
  } catch (std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }

  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int drv = 0, rt = 0;
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  int cc = prop.major * 10 + prop.minor;
  std::printf("device: %s (sm_%d), CUDA driver API %d, runtime %d\n", prop.name, cc, drv, rt);
  std::printf("seed: %" PRIu64 "  trials per atom: %d\n", seed, trials);

  auto L = launchers();
  std::string json = "{\n  \"program\": \"mma_check\",\n";
  json += "  \"device\": " + json_str(prop.name) + ",\n  \"compute_capability\": " + std::to_string(cc) + ",\n";
  json += "  \"cuda_driver_api\": " + std::to_string(drv) + ",\n  \"cuda_runtime\": " + std::to_string(rt) + ",\n";
  json += "  \"seed\": " + std::to_string(seed) + ",\n  \"trials\": " + std::to_string(trials) + ",\n";
  json += "  \"results\": [\n";
  bool first_row = true, all_pass = true;
  auto add_row = [&](const AtomTable& t, const char* check, const std::string& verdict, double max_err,
                     double max_ratio, const std::string& detail) {
    std::printf("%-40s %-9s %-12s %-5s %s\n", t.name.c_str(), check,
                std::isnan(max_err) ? "-" : json_num(max_err).substr(0, 12).c_str(), verdict.c_str(), detail.c_str());
    if (verdict == "FAIL") all_pass = false;
    json += std::string(first_row ? "" : ",\n") + "    {\"atom\": " + json_str(t.name) + ", \"kind\": " + json_str(t.kind) +
            ", \"check\": " + json_str(check) + ", \"verdict\": " + json_str(verdict) + ", \"max_err\": " +
            json_num(max_err) + ", \"max_err_over_tol\": " + json_num(max_ratio) + ", \"detail\": " + json_str(detail) +
            ", \"source\": " + json_str(t.source) + ", \"note\": " + json_str(t.note) + "}";
    first_row = false;
  };

  std::printf("%-40s %-9s %-12s %-5s %s\n", "atom", "check", "max error", "verdict", "detail");
  Rng rng(seed);
  std::vector<std::string> owner_json;
  for (const AtomTable& t : tables) {
    const OpInfo* op = find_op(t.kind);
    if (!op) { add_row(t, "tables", "FAIL", NAN, NAN, "unknown kind " + t.kind); continue; }
    if (op->M != t.M || op->N != t.N || op->K != t.K) {
      add_row(t, "tables", "FAIL", NAN, NAN, "tile size differs from the instruction's");
      continue;
    }
    auto it = L.find(t.kind);
    if (it == L.end()) {
      add_row(t, "table", "SKIP", NAN, NAN, "instruction not built into this binary (see build log)");
      add_row(t, "ownership", "SKIP", NAN, NAN, "instruction not built into this binary (see build log)");
      continue;
    }
    // Check 1: random trials.
    std::vector<Problem> probs;
    for (int i = 0; i < trials; ++i) probs.push_back(random_problem(*op, t.M, t.N, t.K, rng));
    RunOut out = run_atom(it->second, *op, t, probs);
    Compare worst;
    int failing_trials = 0, first_fail_trial = -1;
    for (int i = 0; i < trials; ++i) {
      Reference ref = reference(*op, probs[i]);
      std::vector<uint64_t> got(out.tile.begin() + size_t(i) * t.M * t.N, out.tile.begin() + size_t(i + 1) * t.M * t.N);
      Compare c = compare(op->c, got, ref);
      if (c.bad || c.unwritten) {
        ++failing_trials;
        if (first_fail_trial < 0) { first_fail_trial = i; worst.first_bad = c.first_bad; worst.first_got = c.first_got; worst.first_want = c.first_want; }
      }
      worst.max_err = std::max(worst.max_err, c.max_err);
      worst.max_ratio = std::max(worst.max_ratio, c.max_ratio);
      worst.unwritten += c.unwritten;
      worst.bad += c.bad;
    }
    {
      std::string detail;
      char buf[256];
      if (failing_trials) {
        int m = worst.first_bad % t.M, n = worst.first_bad / t.M;
        std::snprintf(buf, sizeof buf, "%d/%d trials wrong, %d elements off, %d unwritten; first: trial %d D(%d,%d) = %.9g, want %.9g",
                      failing_trials, trials, worst.bad, worst.unwritten, first_fail_trial, m, n, worst.first_got, worst.first_want);
      } else {
        std::snprintf(buf, sizeof buf, "%d trials, all %d elements within bound", trials, trials * t.M * t.N);
      }
      detail = buf;
      add_row(t, "table", failing_trials ? "FAIL" : "PASS", worst.max_err, worst.max_ratio, detail);
    }
    // Check 3: ownership.
    Problem own;
    if (!ownership_problem(*op, t.M, t.N, t.K, own)) {
      add_row(t, "ownership", "SKIP", NAN, NAN, "no exact m + M*n encoding for this instruction");
      continue;
    }
    RunOut o = run_atom(it->second, *op, t, {own});
    std::vector<int> seen(t.M * t.N, -1), predicted(t.M * t.N, -1);
    int mism = 0, clash = 0, undecodable = 0;
    for (int lane = 0; lane < 32; ++lane)
      for (int v = 0; v < t.nC; ++v) {
        predicted[t.C[lane * t.nC + v]] = lane * 100 + v;
        uint64_t bits = o.raw[lane * t.nC + v];
        double x = bits == POISON ? -1 : decode(op->c, bits);
        if (x < 0 || x >= t.M * t.N || x != std::floor(x)) { ++undecodable; continue; }
        int idx = int(x);  // = m + M*n
        if (seen[idx] >= 0) ++clash;
        seen[idx] = lane * 100 + v;
      }
    for (int i = 0; i < t.M * t.N; ++i) mism += seen[i] != predicted[i];
    bool ok = mism == 0 && clash == 0 && undecodable == 0;
    char buf[200];
    std::snprintf(buf, sizeof buf, "%d of %d owners differ from the C table, %d clashes, %d undecodable",
                  mism, t.M * t.N, clash, undecodable);
    add_row(t, "ownership", ok ? "PASS" : "FAIL", NAN, NAN, buf);
    std::string oj = "    {\"atom\": " + json_str(t.name) + ", \"M\": " + std::to_string(t.M) + ", \"N\": " +
                     std::to_string(t.N) + ", \"owner_col_major\": [";
    for (int i = 0; i < t.M * t.N; ++i) oj += (i ? "," : "") + std::to_string(seen[i]);
    oj += "], \"predicted_col_major\": [";
    for (int i = 0; i < t.M * t.N; ++i) oj += (i ? "," : "") + std::to_string(predicted[i]);
    oj += "]}";
    owner_json.push_back(oj);
    if (&t == &tables.front() || !ok) {
      std::printf("  hardware owner of each D element (lane*100+value), %s:\n", t.name.c_str());
      print_owner_table(seen, t.M, t.N, false);
      std::printf("  the same, lanes only (the chapter's table):\n");
      print_owner_table(seen, t.M, t.N, true);
    }
  }
  json += "\n  ],\n  \"ownership\": [\n";
  for (size_t i = 0; i < owner_json.size(); ++i) json += owner_json[i] + (i + 1 < owner_json.size() ? ",\n" : "\n");
  json += "  ],\n  \"all_pass\": " + std::string(all_pass ? "true" : "false") + "\n}\n";
  std::ofstream f(out_path);
  f << json;
  if (!f) { std::fprintf(stderr, "error: cannot write %s\n", out_path.c_str()); return 2; }
  std::printf("%s\n", all_pass ? "mma_check: all checks pass" : "mma_check: SOME CHECKS FAIL");
  return all_pass ? 0 : 1;
}
