// sparse_check.cu: the SM90 sparse GMMA check of `cargo xtask gpu-sparse` on an sm_90a device.
//
// For each atom of the tables file (the engine's C table and ELayout table, the smem byte offsets
// and descriptors of the compressed A and of B from the engine's GMMA smem layout atoms): random
// A (64 x K), B (N x K), C (64 x N) in exact values, A made structured-sparse (2 of every 4
// elements along K kept; 1 of every 2 for tf32, at positions drawn at random), stored compressed;
// each thread's metadata register built from the ELayout table: bits v*32/V.. of thread t hold
// the share of logical element E(t, v) = (m, k) in the 4-bit code of its group (2-bit indices
// i0 | i1 << 2 of the kept elements; tf32: 0b0100 keeps the first, 0b1110 the second). CuTe's
// atom's `fma` runs once per trial; D, stored through the C table, must equal the float64 /
// integer product of the logical A, element by element. With a corrupted tables file (a permuted
// ELayout) every atom must fail.
//
// Usage: sparse_check TABLES OUT.json [--seed S] [--trials T]
// Exit: 0 all pass, 1 some check failed, 2 usage or CUDA error.
#include <chrono>
#include <cinttypes>

#include "common.hpp"
#include "sparse_common.cuh"

using namespace mmacheck;

struct STable {
  std::string name, kind, layoutC, layoutE, atomA, atomB;
  int N = 0, K = 0, NE = 0;
  Elem a = Elem::F16, b = Elem::F16, c = Elem::F32;
  std::vector<int> C, E, SA, SB;
  uint64_t descA = 0, descB = 0;
};

static std::vector<STable> read_stables(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<STable> out;
  std::string line;
  int lineno = 0;
  auto fail = [&](const std::string& why) { throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + why); };
  if (!std::getline(in, line) || line.rfind("cutecheck-sparse-tables 1", 0) != 0) fail("not a cutecheck-sparse-tables 1 file");
  ++lineno;
  STable* cur = nullptr;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "atom") {
      out.emplace_back();
      cur = &out.back();
      std::string ea, eb, ec;
      if (!(ls >> cur->name >> cur->kind >> cur->N >> cur->K >> cur->NE >> ea >> eb >> ec)) fail("bad atom line");
      try { cur->a = elem_from(ea); cur->b = elem_from(eb); cur->c = elem_from(ec); } catch (std::exception& e) { fail(e.what()); }
      if (cur->N < 8 || cur->N > 256 || cur->K <= 0 || (cur->NE != 16 && cur->NE != 32)) fail("bad sizes");
      continue;
    }
    if (!cur) fail("data before the first atom line");
    auto ints = [&](std::vector<int>& v, size_t n, int lim) {
      int x;
      while (ls >> x) {
        if (x < 0 || x >= lim) fail(key + ": entry out of range");
        v.push_back(x);
      }
      if (v.size() != n) fail(key + ": expected " + std::to_string(n) + " entries");
    };
    int eb = elem_bits(cur->a) / 8;
    std::string h;
    if (key == "layout") { std::string w, rest; ls >> w; std::getline(ls, rest); (w == "C" ? cur->layoutC : cur->layoutE) = rest.substr(1); }
    else if (key == "C") ints(cur->C, size_t(64) * cur->N, 64 * cur->N);
    else if (key == "E") ints(cur->E, size_t(128) * cur->NE, 64 * cur->K);
    else if (key == "SAatom") ls >> cur->atomA;
    else if (key == "SBatom") ls >> cur->atomB;
    else if (key == "SA") ints(cur->SA, size_t(64) * cur->K / 2, 64 * cur->K / 2 * eb);
    else if (key == "SB") ints(cur->SB, size_t(cur->N) * cur->K, cur->N * cur->K * eb);
    else if (key == "SAdesc") { ls >> h; cur->descA = std::stoull(h, nullptr, 16); }
    else if (key == "SBdesc") { ls >> h; cur->descB = std::stoull(h, nullptr, 16); }
    else if (key == "end") {
      if (cur->C.empty() || cur->E.empty() || cur->SA.empty() || cur->SB.empty()) fail("missing table");
      cur = nullptr;
    } else fail("unknown key " + key);
  }
  if (cur) fail("missing end");
  return out;
}

// One trial: the problem (A logical, made sparse), the compressed A and the metadata registers.
struct Sparse {
  Problem p;
  std::vector<double> Ac;        // 64 x K/2, column-major
  std::vector<uint32_t> E;       // 128 registers
};

static Sparse sparsify(const STable& t, const OpInfo& op, Rng& rng) {
  Sparse s{random_problem(op, 64, t.N, t.K, rng), std::vector<double>(64 * t.K / 2, 0.0), std::vector<uint32_t>(128, 0)};
  bool tf32 = t.a == Elem::TF32;
  int gs = tf32 ? 2 : 4, keep = tf32 ? 1 : 2, groups = t.K / gs;
  std::vector<int> code(64 * groups);
  for (int m = 0; m < 64; ++m)
    for (int g = 0; g < groups; ++g) {
      int i0, i1 = -1;
      if (tf32) i0 = int(rng.next() % 2);
      else {
        static const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
        int q = int(rng.next() % 6);
        i0 = pairs[q][0]; i1 = pairs[q][1];
      }
      for (int j = 0; j < gs; ++j)
        if (j != i0 && j != i1) s.p.A[m + 64 * (g * gs + j)] = 0;
      s.Ac[m + 64 * (g * keep)] = s.p.A[m + 64 * (g * gs + i0)];
      if (!tf32) s.Ac[m + 64 * (g * keep + 1)] = s.p.A[m + 64 * (g * gs + i1)];
      code[m + 64 * g] = tf32 ? (i0 == 0 ? 0x4 : 0xE) : (i0 | (i1 << 2));
    }
  int bpv = 32 / t.NE;
  uint32_t mask = (1u << bpv) - 1;
  for (int th = 0; th < 128; ++th)
    for (int v = 0; v < t.NE; ++v) {
      int idx = t.E[th * t.NE + v], m = idx % 64, k = idx / 64;
      uint32_t share = (uint32_t(code[m + 64 * (k / gs)]) >> ((k % gs) * bpv)) & mask;
      s.E[th] |= share << (v * bpv);
    }
  return s;
}

int main(int argc, char** argv) {
  if (argc < 3) { std::fprintf(stderr, "usage: sparse_check TABLES OUT.json [--seed S] [--trials T]\n"); return 2; }
  std::string tables_path = argv[1], out_path = argv[2];
  uint64_t seed = uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  int trials = 8;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--trials" && i + 1 < argc) trials = std::atoi(argv[++i]);
    else { std::fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (trials < 1 || trials > 4096) { std::fprintf(stderr, "--trials must be 1..4096\n"); return 2; }
  std::vector<STable> tables;
  try { tables = read_stables(tables_path); } catch (std::exception& e) { std::fprintf(stderr, "error: %s\n", e.what()); return 2; }
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int cc = prop.major * 10 + prop.minor;
  std::printf("device: %s (sm_%d)\nseed: %" PRIu64 "  trials per atom: %d\n", prop.name, cc, seed, trials);
  auto& L = sregistry();
  Rng rng(seed);
  bool all_pass = true;
  std::string json = "{\n  \"program\": \"sparse_check\",\n  \"device\": " + json_str(prop.name) + ",\n  \"compute_capability\": " +
                     std::to_string(cc) + ",\n  \"seed\": " + std::to_string(seed) + ",\n  \"trials\": " + std::to_string(trials) +
                     ",\n  \"results\": [\n";
  bool first = true;
  for (const STable& t : tables) {
    std::string verdict = "FAIL", detail;
    double err = NAN;
    auto it = L.find(t.kind);
    if (it == L.end()) detail = "kernel " + t.kind + " not built";
    else try {
      OpInfo op{t.kind, "", 64, t.N, t.K, t.a, t.b, t.c, Combine::Mul};
      std::vector<Sparse> probs;
      for (int i = 0; i < trials; ++i) probs.push_back(sparsify(t, op, rng));
      std::vector<uint32_t> A, B, C, E;
      for (auto& s : probs) {
        for (double x : s.Ac) A.push_back(uint32_t(encode(op.a, x)));
        for (double x : s.p.B) B.push_back(uint32_t(encode(op.b, x)));
        for (double x : s.p.C) C.push_back(uint32_t(encode(op.c, x)));
        E.insert(E.end(), s.E.begin(), s.E.end());
      }
      int eb = elem_bits(t.a) / 8, KC = t.K / 2;
      SDims d{t.N, t.K, KC, elem_bits(t.a), elem_bits(t.b), (64 * KC * eb + 1023) / 1024 * 1024, t.descA, t.descB};
      size_t smem = size_t(d.offB) + size_t(t.N) * t.K * eb + 1024;
      uint32_t *dA, *dB, *dC, *dE, *dT;
      int *oA, *oB, *tC;
      auto put = [](auto*& p, const auto& v) {
        CK(cudaMalloc(&p, sizeof(v[0]) * v.size()));
        CK(cudaMemcpy(p, v.data(), sizeof(v[0]) * v.size(), cudaMemcpyHostToDevice));
      };
      std::vector<uint32_t> poison(size_t(trials) * 64 * t.N, 0xdeadbeefu);
      put(dA, A); put(dB, B); put(dC, C); put(dE, E); put(dT, poison); put(oA, t.SA); put(oB, t.SB); put(tC, t.C);
      it->second(trials, d, smem, dA, dB, dC, dE, oA, oB, tC, dT);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<uint32_t> tile(poison.size());
      CK(cudaMemcpy(tile.data(), dT, 4 * tile.size(), cudaMemcpyDeviceToHost));
      for (void* p : {(void*)dA, (void*)dB, (void*)dC, (void*)dE, (void*)dT, (void*)oA, (void*)oB, (void*)tC}) cudaFree(p);
      int failing = 0, bad = 0, unwritten = 0;
      double max_err = 0;
      char buf[400] = "";
      for (int i = 0; i < trials; ++i) {
        std::vector<uint64_t> got(size_t(64) * t.N);
        for (int j = 0; j < 64 * t.N; ++j) {
          uint32_t x = tile[size_t(i) * 64 * t.N + j];
          got[j] = x == 0xdeadbeefu ? POISON : (op.c == Elem::F16 ? (x & 0xffff) : x);
        }
        Compare c = compare(op.c, got, reference(op, probs[i].p));
        if (c.bad || c.unwritten) {
          if (!failing)
            std::snprintf(buf, sizeof buf, "first D(%d,%d) = %.9g, want %.9g", c.first_bad % 64, c.first_bad / 64, c.first_got, c.first_want);
          ++failing;
        }
        bad += c.bad;
        unwritten += c.unwritten;
        max_err = std::max(max_err, c.max_err);
      }
      err = max_err;
      char all[600];
      if (failing) std::snprintf(all, sizeof all, "%d/%d trials wrong, %d elements off, %d unwritten; %s", failing, trials, bad, unwritten, buf);
      else std::snprintf(all, sizeof all, "%d trials x 64x%dx%d (A %s compressed, B %s), every element of D as the engine's A/B/C/E layouts predict", trials, t.N, t.K, t.atomA.c_str(), t.atomB.c_str());
      detail = all;
      verdict = failing ? "FAIL" : "PASS";
    } catch (std::exception& e) {
      detail = std::string("error: ") + e.what();
    }
    std::printf("%-70s %-10s %-5s %s\n", t.name.c_str(), std::isnan(err) ? "-" : json_num(err).substr(0, 10).c_str(), verdict.c_str(), detail.c_str());
    if (verdict == "FAIL") all_pass = false;
    json += std::string(first ? "" : ",\n") + "    {\"atom\": " + json_str(t.name) + ", \"check\": \"sparse\", \"verdict\": " + json_str(verdict) +
            ", \"max_err\": " + json_num(err) + ", \"detail\": " + json_str(detail) + ", \"layout_e\": " + json_str(t.layoutE) + "}";
    first = false;
  }
  json += "\n  ],\n  \"all_pass\": " + std::string(all_pass ? "true" : "false") + "\n}\n";
  std::ofstream f(out_path);
  f << json;
  if (!f) { std::fprintf(stderr, "error: cannot write %s\n", out_path.c_str()); return 2; }
  std::printf("%s\n", all_pass ? "sparse_check: all checks pass" : "sparse_check: SOME CHECKS FAIL");
  return all_pass ? 0 : 1;
}
