// cute_gemm.cu: check 2 of `cargo xtask gpu`, the product through CuTe's own path
// (make_tiled_mma, partition_A/B/C, gemm; cute_path.hpp), for one warp and for a 2x2 grid of
// warps, compared with the float64 reference on fresh random inputs.
//
// Usage: cute_gemm OUT.json [--seed S] [--trials T]
// Exit: 0 all pass, 1 some check failed, 2 usage or CUDA error.

#include <cuda_runtime.h>

#include <chrono>
#include <cinttypes>

#include "common.hpp"
#include "cute_path.hpp"
#include "fixed_traits.hpp"

using namespace mmacheck;

template <class Op, class TA, class TB, class TC, int WM, int WN>
__global__ void cute_kernel(void* A, void* B, void* C, void* D) {
  cute_path_body<Op, TA, TB, TC, WM, WN>(int(threadIdx.x), A, B, C, D);
}

// Element i of a dense array of w-bit elements sits at bits [i*w, i*w+w) of little-endian memory
// (CuTe's subbyte arrays and ordinary arrays alike).
static std::vector<uint8_t> pack_dense(const std::vector<uint64_t>& bits, int w) {
  std::vector<uint8_t> out((bits.size() * w + 7) / 8, 0);
  for (size_t i = 0; i < bits.size(); ++i)
    for (int j = 0; j < w; ++j)
      if ((bits[i] >> j) & 1) {
        size_t b = i * w + j;
        out[b / 8] |= uint8_t(1u << (b % 8));
      }
  return out;
}

static std::vector<uint64_t> unpack_dense(const std::vector<uint8_t>& bytes, size_t n, int w) {
  std::vector<uint64_t> out(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (int j = 0; j < w; ++j) {
      size_t b = i * w + j;
      if ((bytes[b / 8] >> (b % 8)) & 1) out[i] |= uint64_t(1) << j;
    }
  return out;
}

// A NaN (or, for s32, a value far outside any result here) of each output type.
static uint64_t poison_of(Elem e) {
  switch (e) {
    case Elem::F16: return 0x7fff;
    case Elem::F32: return 0x7fbadbad;
    case Elem::S32: return 0xdeadbeef;
    default: return 0x7ff4deadbeefdeadull;
  }
}

struct Row {
  std::string atom, check, verdict, detail;
  double max_err, ratio;
};

template <class Op, class TA, class TB, class TC, int WM, int WN>
static Row run_cute(const char* name, const char* tag, Rng& rng, int trials) {
  const OpInfo* op = find_op(tag);
  Row row{name, WM == 1 ? "cute-1warp" : "cute-2x2", "PASS", "", 0, 0};
  const int M = WM * op->M, N = WN * op->N, K = op->K;
  int failing = 0, bad = 0, unwritten = 0;
  std::string first;
  for (int t = 0; t < trials; ++t) {
    Problem p = random_problem(*op, M, N, K, rng);
    std::vector<uint64_t> a, b, c;
    for (double x : p.A) a.push_back(encode(op->a, x));
    for (double x : p.B) b.push_back(encode(op->b, x));
    for (double x : p.C) c.push_back(encode(op->c, x));
    auto pa = pack_dense(a, elem_bits(op->a)), pb = pack_dense(b, elem_bits(op->b)), pc = pack_dense(c, elem_bits(op->c));
    auto pd = pack_dense(std::vector<uint64_t>(M * N, poison_of(op->c)), elem_bits(op->c));
    void *dA, *dB, *dC, *dD;
    CK(cudaMalloc(&dA, pa.size())); CK(cudaMalloc(&dB, pb.size()));
    CK(cudaMalloc(&dC, pc.size())); CK(cudaMalloc(&dD, pd.size()));
    CK(cudaMemcpy(dA, pa.data(), pa.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, pb.data(), pb.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, pc.data(), pc.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dD, pd.data(), pd.size(), cudaMemcpyHostToDevice));
    cute_kernel<Op, TA, TB, TC, WM, WN><<<1, 32 * WM * WN>>>(dA, dB, dC, dD);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(pd.data(), dD, pd.size(), cudaMemcpyDeviceToHost));
    CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dC)); CK(cudaFree(dD));
    std::vector<uint64_t> got = unpack_dense(pd, size_t(M) * N, elem_bits(op->c));
    for (auto& g : got)
      if (g == poison_of(op->c)) g = POISON;
    Compare cmp = compare(op->c, got, reference(*op, p));
    row.max_err = std::max(row.max_err, cmp.max_err);
    row.ratio = std::max(row.ratio, cmp.max_ratio);
    if (cmp.bad || cmp.unwritten) {
      ++failing;
      if (first.empty()) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "; first: trial %d D(%d,%d) = %.9g, want %.9g", t, cmp.first_bad % M,
                      cmp.first_bad / M, cmp.first_got, cmp.first_want);
        first = buf;
      }
    }
    bad += cmp.bad;
    unwritten += cmp.unwritten;
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "%dx%dx%d tile, %d warps, %d/%d trials wrong, %d elements off, %d unwritten", M, N, K,
                WM * WN, failing, trials, bad, unwritten);
  row.detail = buf + first;
  row.verdict = failing ? "FAIL" : "PASS";
  return row;
}

// CuTe operation name -> the tables file's kind tag.
#define TAG_SM80_16x8x16_F32F16F16F32_TN "m16n8k16_f32_f16"
#define TAG_SM80_16x8x16_F32BF16BF16F32_TN "m16n8k16_f32_bf16"
#define TAG_SM80_16x8x8_F32TF32TF32F32_TN "m16n8k8_f32_tf32"
#define TAG_SM80_16x8x32_S32S8S8S32_TN "m16n8k32_s32_s8"
#define TAG_SM80_16x8x8_F16F16F16F16_TN "m16n8k8_f16_f16"
#define TAG_SM80_16x8x32_S32S4S4S32_TN "m16n8k32_s32_s4"
#define TAG_SM80_16x8x64_S32S4S4S32_TN "m16n8k64_s32_s4"
#define TAG_SM80_8x8x4_F64F64F64F64_TN "m8n8k4_f64"
#define TAG_SM80_8x8x128_S32U1U1S32_TN_ANDPOPC "m8n8k128_b1_and"
#define TAG_SM80_16x8x256_S32U1U1S32_TN_ANDPOPC "m16n8k256_b1_and"
#define TAG_SM80_8x8x128_S32U1U1S32_TN_XORPOPC "m8n8k128_b1_xor"
#define TAG_SM80_16x8x256_S32U1U1S32_TN_XORPOPC "m16n8k256_b1_xor"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cute_gemm OUT.json [--seed S] [--trials T]\n");
    return 2;
  }
  std::string out_path = argv[1];
  uint64_t seed = uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  int trials = 8;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--trials" && i + 1 < argc) trials = std::atoi(argv[++i]);
    else { std::fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (trials < 1 || trials > 4096) { std::fprintf(stderr, "--trials must be 1..4096\n"); return 2; }
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int cc = prop.major * 10 + prop.minor;
  std::printf("device: %s (sm_%d)\nseed: %" PRIu64 "  trials per atom and shape: %d\n", prop.name, cc, seed, trials);
  std::printf("%-40s %-11s %-12s %-5s %s\n", "atom", "check", "max error", "verdict", "detail");

  Rng rng(seed);
  std::vector<Row> rows;
#define RUN(OP, TA, TB, TC)                                                     \
  rows.push_back(run_cute<cute::OP, TA, TB, TC, 1, 1>(#OP, TAG_##OP, rng, trials)); \
  rows.push_back(run_cute<cute::OP, TA, TB, TC, 2, 2>(#OP, TAG_##OP, rng, trials));
  CUTE_PATH_ATOMS(RUN)
  // The two faulty atoms with corrected traits (fixed_traits.hpp), through the same CuTe path.
  rows.push_back(run_cute<SM80_16x8x32_S32S4S4S32_TN_FIXED, cute::int4b_t, cute::int4b_t, int32_t, 1, 1>(
      "SM80_16x8x32_S32S4S4S32_TN(corrected)", "m16n8k32_s32_s4", rng, trials));
  rows.push_back(run_cute<SM80_16x8x32_S32S4S4S32_TN_FIXED, cute::int4b_t, cute::int4b_t, int32_t, 2, 2>(
      "SM80_16x8x32_S32S4S4S32_TN(corrected)", "m16n8k32_s32_s4", rng, trials));
  rows.push_back(run_cute<SM80_16x8x128_S32U1U1S32_TN_ANDPOPC_FIXED, cute::uint1b_t, cute::uint1b_t, int32_t, 1, 1>(
      "SM80_16x8x128_S32U1U1S32_TN_ANDPOPC(corrected)", "m16n8k128_b1_and", rng, trials));
  rows.push_back(run_cute<SM80_16x8x128_S32U1U1S32_TN_ANDPOPC_FIXED, cute::uint1b_t, cute::uint1b_t, int32_t, 2, 2>(
      "SM80_16x8x128_S32U1U1S32_TN_ANDPOPC(corrected)", "m16n8k128_b1_and", rng, trials));
  if (cc < 90) {
    CUTE_PATH_XOR_ATOMS(RUN)
  } else {
#define SKIPX(OP, TA, TB, TC)                                                                                  \
  rows.push_back(Row{#OP, "cute-1warp", "SKIP",                                                                \
                     "CuTe 4.2 compiles this atom's mma.sync only for __CUDA_ARCH__ <= 890", NAN, NAN});
    CUTE_PATH_XOR_ATOMS(SKIPX)
  }
#undef RUN
  bool all_pass = true;
  std::string json = "{\n  \"program\": \"cute_gemm\",\n  \"device\": " + json_str(prop.name) +
                     ",\n  \"compute_capability\": " + std::to_string(cc) + ",\n  \"seed\": " + std::to_string(seed) +
                     ",\n  \"trials\": " + std::to_string(trials) + ",\n  \"results\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::printf("%-40s %-11s %-12s %-5s %s\n", r.atom.c_str(), r.check.c_str(),
                std::isnan(r.max_err) ? "-" : json_num(r.max_err).substr(0, 12).c_str(), r.verdict.c_str(), r.detail.c_str());
    if (r.verdict == "FAIL") all_pass = false;
    json += "    {\"atom\": " + json_str(r.atom) + ", \"check\": " + json_str(r.check) + ", \"verdict\": " +
            json_str(r.verdict) + ", \"max_err\": " + json_num(r.max_err) + ", \"max_err_over_tol\": " +
            json_num(r.ratio) + ", \"detail\": " + json_str(r.detail) + "}" + (i + 1 < rows.size() ? ",\n" : "\n");
  }
  json += "  ],\n  \"all_pass\": " + std::string(all_pass ? "true" : "false") + "\n}\n";
  std::ofstream f(out_path);
  f << json;
  if (!f) { std::fprintf(stderr, "error: cannot write %s\n", out_path.c_str()); return 2; }
  std::printf("%s\n", all_pass ? "cute_gemm: all checks pass" : "cute_gemm: SOME CHECKS FAIL");
  return all_pass ? 0 : 1;
}
