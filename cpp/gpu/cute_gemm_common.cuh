// cute_gemm_common.cuh: check 2 of `cargo xtask gpu`, the product through CuTe's own path
// (make_tiled_mma over WM x WN atoms, partition_A/B/C, gemm; cute_path.hpp), compared with the
// float64 reference on fresh random inputs. The generated cute_part*.cu files instantiate it for
// every atom of the engine's list that CuTe enables on the device.
#pragma once
#include <cuda_runtime.h>

#include <map>

#include "common.hpp"
#include "cute_path.hpp"

using namespace mmacheck;


// Element i of a dense array of w-bit elements sits at bits [i*w, i*w+w) of little-endian memory
// (CuTe's subbyte arrays and ordinary arrays alike).
inline std::vector<uint8_t> pack_dense(const std::vector<uint64_t>& bits, int w) {
  std::vector<uint8_t> out((bits.size() * w + 7) / 8, 0);
  for (size_t i = 0; i < bits.size(); ++i)
    for (int j = 0; j < w; ++j)
      if ((bits[i] >> j) & 1) {
        size_t b = i * w + j;
        out[b / 8] |= uint8_t(1u << (b % 8));
      }
  return out;
}

inline std::vector<uint64_t> unpack_dense(const std::vector<uint8_t>& bytes, size_t n, int w) {
  std::vector<uint64_t> out(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (int j = 0; j < w; ++j) {
      size_t b = i * w + j;
      if ((bytes[b / 8] >> (b % 8)) & 1) out[i] |= uint64_t(1) << j;
    }
  return out;
}

// A NaN (or, for s32, a value far outside any result here) of each output type.
inline uint64_t poison_of(Elem e) {
  switch (e) {
    case Elem::F16: return 0x7fff;
    case Elem::F32: return 0x7fbadbad;
    case Elem::S32: return 0xdeadbeef;
    default: return 0x7ff4deadbeefdeadull;
  }
}

template <class Op, class TA, class TB, class TC, int WM, int WN>
__global__ void cute_kernel(void* A, void* B, void* C, void* D) {
  cute_path_body<Op, TA, TB, TC, WM, WN>(int(threadIdx.x), A, B, C, D);
}

struct Row {
  std::string atom, check, verdict, detail;
  double max_err, ratio;
};

template <class Op, class TA, class TB, class TC, int WM, int WN>
Row run_cute(const char* name, const char* label, const std::map<std::string, AtomTable>& tabs, Rng& rng, int trials) {
  auto it = tabs.find(name);
  if (it == tabs.end()) return Row{name, label, "FAIL", "atom missing from the tables file", NAN, NAN};
  const OpInfo* op = &it->second.op;
  const int threads = it->second.T * WM * WN;
  Row row{name, label, "PASS", "", 0, 0};
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
    cute_kernel<Op, TA, TB, TC, WM, WN><<<1, threads>>>(dA, dB, dC, dD);
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
  std::snprintf(buf, sizeof buf, "%dx%dx%d tile, %d threads, %d/%d trials wrong, %d elements off, %d unwritten", M, N, K,
                threads, failing, trials, bad, unwritten);
  row.detail = buf + first;
  row.verdict = failing ? "FAIL" : "PASS";
  return row;
}

