// gmma_check.cu: the GMMA (wgmma) check of `cargo xtask gpu` on an sm_90a device.
//
// For each GMMA atom of gmma_tables.txt (the engine's C table, for RS its A register table, and
// the smem byte offsets and descriptors built from the engine's GMMA smem layout atoms):
//  - "table": random A (64 x KT), B (N x KT) and C (64 x N), one warpgroup per trial, the atom's
//    wgmma once per K-block (KT = K * KB), D stored through the engine's C table and compared with
//    the float64/integer reference. A wrong C table, RS A table, smem layout or descriptor gives a
//    wrong product. If it fails, the run is repeated with LBO and SBO swapped in the descriptors
//    and the detail says whether that passes (to tell a descriptor fault from a layout fault).
//  - "ownership": inputs that make D[m][n] = m, then = n: each thread's raw accumulator registers
//    say which (m, n) the hardware gave to (thread, value), independent of the C table, and that
//    must equal the C table's prediction.
//
// Usage: gmma_check TABLES OUT.json [--seed S] [--trials T]
// Exit: 0 all pass, 1 some check failed, 2 usage or CUDA error.
#include <chrono>
#include <cinttypes>

#include "common.hpp"
#include "gmma_common.cuh"
#include "gen_gmma_parts.hpp"

using namespace mmacheck;

struct SmemOp {
  std::string atom, value;
  std::vector<int> off;
  std::vector<uint64_t> desc, alt;
};

struct GTable {
  std::string name, kind, layoutC, layoutA;
  int N = 0, K = 0, KT = 0, RS = 0;
  Elem a = Elem::F16, b = Elem::F16, c = Elem::F32;
  std::vector<int> C, AR;
  SmemOp SA, SB;
};

static std::vector<GTable> read_gtables(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<GTable> out;
  std::string line;
  int lineno = 0;
  auto fail = [&](const std::string& why) { throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + why); };
  if (!std::getline(in, line) || line.rfind("cutecheck-gmma-tables 1", 0) != 0) fail("not a cutecheck-gmma-tables 1 file");
  ++lineno;
  GTable* cur = nullptr;
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
      if (!(ls >> cur->name >> cur->kind >> cur->N >> cur->K >> cur->KT >> cur->RS >> ea >> eb >> ec)) fail("bad atom line");
      try { cur->a = elem_from(ea); cur->b = elem_from(eb); cur->c = elem_from(ec); } catch (std::exception& e) { fail(e.what()); }
      if (cur->N < 8 || cur->N > 256 || cur->K <= 0 || cur->KT % cur->K || cur->KT / cur->K > GMMA_MAX_KB) fail("bad sizes");
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
    auto hexes = [&](std::vector<uint64_t>& v) {
      std::string h;
      while (ls >> h) v.push_back(std::stoull(h, nullptr, 16));
      if (int(v.size()) != cur->KT / cur->K) fail(key + ": one descriptor per K-block");
    };
    int eb = elem_bits(cur->a) / 8;
    if (key == "layout") { std::string w; ls >> w; std::string rest; std::getline(ls, rest); (w == "C" ? cur->layoutC : cur->layoutA) = rest.substr(1); }
    else if (key == "C") ints(cur->C, size_t(64) * cur->N, 64 * cur->N);
    else if (key == "AR") ints(cur->AR, size_t(64) * cur->K, 64 * cur->K);
    else if (key == "SAatom") ls >> cur->SA.atom >> cur->SA.value;
    else if (key == "SBatom") ls >> cur->SB.atom >> cur->SB.value;
    else if (key == "SA") ints(cur->SA.off, size_t(64) * cur->KT, 64 * cur->KT * eb);
    else if (key == "SB") ints(cur->SB.off, size_t(cur->N) * cur->KT, cur->N * cur->KT * eb);
    else if (key == "SAdesc") hexes(cur->SA.desc);
    else if (key == "SAalt") hexes(cur->SA.alt);
    else if (key == "SBdesc") hexes(cur->SB.desc);
    else if (key == "SBalt") hexes(cur->SB.alt);
    else if (key == "end") {
      if (cur->C.empty() || cur->SB.off.empty() || (cur->RS ? cur->AR.empty() : cur->SA.off.empty())) fail("missing table");
      cur = nullptr;
    } else fail("unknown key " + key);
  }
  if (cur) fail("missing end");
  return out;
}

struct GOut { std::vector<uint32_t> tile, raw; };

static GOut run_gmma(GLauncher L, const GTable& t, const OpInfo& op, const std::vector<Problem>& probs, bool alt) {
  int T = int(probs.size());
  std::vector<uint32_t> A, B, C;
  for (auto& p : probs) {
    for (double x : p.A) A.push_back(uint32_t(encode(op.a, x)));
    for (double x : p.B) B.push_back(uint32_t(encode(op.b, x)));
    for (double x : p.C) C.push_back(uint32_t(encode(op.c, x)));
  }
  int eb = elem_bits(t.a) / 8;
  int bytesA = t.RS ? 0 : 64 * t.KT * eb;
  GDims s{t.N, t.K, t.KT, t.KT / t.K, t.K / 2, elem_bits(t.a), elem_bits(t.b), (bytesA + 1023) / 1024 * 1024, {}, {}};
  for (int j = 0; j < s.KB; ++j) {
    if (!t.RS) s.descA[j] = alt ? t.SA.alt[j] : t.SA.desc[j];
    s.descB[j] = alt ? t.SB.alt[j] : t.SB.desc[j];
  }
  size_t smem = size_t(s.offB) + size_t(t.N) * t.KT * eb + 1024;
  int NC = t.N / 2;
  uint32_t *dA, *dB, *dC, *dT, *dR;
  int *oA, *oB, *tA, *tC;
  auto put = [](auto*& d, const auto& v) {
    CK(cudaMalloc(&d, sizeof(v[0]) * (v.size() ? v.size() : 1)));
    if (v.size()) CK(cudaMemcpy(d, v.data(), sizeof(v[0]) * v.size(), cudaMemcpyHostToDevice));
  };
  put(dA, A); put(dB, B); put(dC, C);
  std::vector<uint32_t> poisonT(size_t(T) * 64 * t.N, 0xdeadbeefu), poisonR(size_t(T) * 128 * NC, 0xdeadbeefu);
  put(dT, poisonT); put(dR, poisonR);
  put(oA, t.SA.off); put(oB, t.SB.off); put(tA, t.AR); put(tC, t.C);
  L(T, s, smem, dA, dB, dC, oA, oB, tA, tC, dT, dR);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  GOut o{std::vector<uint32_t>(poisonT.size()), std::vector<uint32_t>(poisonR.size())};
  CK(cudaMemcpy(o.tile.data(), dT, 4 * o.tile.size(), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(o.raw.data(), dR, 4 * o.raw.size(), cudaMemcpyDeviceToHost));
  for (void* p : {(void*)dA, (void*)dB, (void*)dC, (void*)dT, (void*)dR, (void*)oA, (void*)oB, (void*)tA, (void*)tC}) cudaFree(p);
  return o;
}

// Check 1 over `trials` problems: (failing trials, worst compare).
static std::pair<int, Compare> judge(const OpInfo& op, const std::vector<Problem>& probs, const GOut& o, int M, int N) {
  Compare worst;
  int failing = 0;
  for (size_t i = 0; i < probs.size(); ++i) {
    std::vector<uint64_t> got(size_t(M) * N);
    for (int j = 0; j < M * N; ++j) {
      uint32_t x = o.tile[i * M * N + j];
      got[j] = x == 0xdeadbeefu ? POISON : (op.c == Elem::F16 ? (x & 0xffff) : x);
      if (op.c == Elem::F16 && x == 0xdeadbeefu) got[j] = POISON;
    }
    Compare c = compare(op.c, got, reference(op, probs[i]));
    if (c.bad || c.unwritten) {
      if (!failing) { worst.first_bad = c.first_bad; worst.first_got = c.first_got; worst.first_want = c.first_want; }
      ++failing;
    }
    worst.max_err = std::max(worst.max_err, c.max_err);
    worst.max_ratio = std::max(worst.max_ratio, c.max_ratio);
    worst.bad += c.bad;
    worst.unwritten += c.unwritten;
  }
  return {failing, worst};
}

int main(int argc, char** argv) {
  if (argc < 3) { std::fprintf(stderr, "usage: gmma_check TABLES OUT.json [--seed S] [--trials T]\n"); return 2; }
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
  std::vector<GTable> tables;
  try { tables = read_gtables(tables_path); } catch (std::exception& e) { std::fprintf(stderr, "error: %s\n", e.what()); return 2; }
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int cc = prop.major * 10 + prop.minor;
  std::printf("device: %s (sm_%d)\nseed: %" PRIu64 "  trials per atom: %d\n", prop.name, cc, seed, trials);
  auto L = glaunchers();
  Rng rng(seed);
  bool all_pass = true;
  std::string json = "{\n  \"program\": \"gmma_check\",\n  \"device\": " + json_str(prop.name) + ",\n  \"compute_capability\": " +
                     std::to_string(cc) + ",\n  \"seed\": " + std::to_string(seed) + ",\n  \"trials\": " + std::to_string(trials) +
                     ",\n  \"results\": [\n";
  bool first = true;
  auto row = [&](const GTable& t, const char* check, const std::string& verdict, double err, const std::string& detail) {
    std::printf("%-58s %-9s %-10s %-5s %s\n", t.name.c_str(), check, std::isnan(err) ? "-" : json_num(err).substr(0, 10).c_str(),
                verdict.c_str(), detail.c_str());
    if (verdict == "FAIL") all_pass = false;
    std::string smem = "A " + (t.RS ? std::string("registers ") + t.layoutA : t.SA.atom + " = " + t.SA.value) + ", B " + t.SB.atom + " = " + t.SB.value;
    json += std::string(first ? "" : ",\n") + "    {\"atom\": " + json_str(t.name) + ", \"check\": " + json_str(check) +
            ", \"verdict\": " + json_str(verdict) + ", \"max_err\": " + json_num(err) + ", \"detail\": " + json_str(detail) +
            ", \"smem\": " + json_str(smem) + ", \"layout_c\": " + json_str(t.layoutC) + "}";
    first = false;
  };
  for (const GTable& t : tables) {
    auto it = L.find(t.kind);
    if (it == L.end()) { row(t, "table", "FAIL", NAN, "kernel " + t.kind + " not built"); continue; }
    OpInfo op{t.kind, "", 64, t.N, t.KT, t.a, t.b, t.c, Combine::Mul};
    std::vector<Problem> probs;
    for (int i = 0; i < trials; ++i) probs.push_back(random_problem(op, 64, t.N, t.KT, rng));
    GOut o = run_gmma(it->second, t, op, probs, false);
    auto [failing, w] = judge(op, probs, o, 64, t.N);
    char buf[400];
    if (failing) {
      GOut o2 = run_gmma(it->second, t, op, probs, true);
      auto [f2, w2] = judge(op, probs, o2, 64, t.N);
      std::snprintf(buf, sizeof buf, "%d/%d trials wrong, %d elements off, %d unwritten; first D(%d,%d) = %.9g, want %.9g; with LBO/SBO swapped: %s",
                    failing, trials, w.bad, w.unwritten, w.first_bad % 64, w.first_bad / 64, w.first_got, w.first_want,
                    f2 ? "still wrong" : "PASSES (descriptor fault, not a layout fault)");
      (void)w2;
    } else {
      std::snprintf(buf, sizeof buf, "%d trials x 64x%dx%d (%d K-blocks), all within bound", trials, t.N, t.KT, t.KT / t.K);
    }
    row(t, "table", failing ? "FAIL" : "PASS", w.max_err, buf);
    // Ownership: D = m, then D = n.
    std::vector<int> mh(128 * (t.N / 2), -1), nh(128 * (t.N / 2), -1);
    bool encodable = true;
    for (int which = 0; which < 2 && encodable; ++which) {
      Problem p;
      if (!ownership_split(op, 64, t.N, t.KT, which, p)) { encodable = false; break; }
      GOut ow = run_gmma(it->second, t, op, {p}, false);
      for (size_t i = 0; i < mh.size(); ++i) {
        uint32_t x = ow.raw[i];
        double v = x == 0xdeadbeefu ? -1 : decode(op.c, op.c == Elem::F16 ? (x & 0xffff) : x);
        (which == 0 ? mh : nh)[i] = v == std::floor(v) ? int(v) : -1;
      }
    }
    if (!encodable) { row(t, "ownership", "SKIP", NAN, "no exact encoding"); continue; }
    int mism = 0, first_bad = -1;
    for (size_t i = 0; i < mh.size(); ++i) {
      int want = t.C[i];
      if (mh[i] < 0 || nh[i] < 0 || mh[i] + 64 * nh[i] != want) { if (first_bad < 0) first_bad = int(i); ++mism; }
    }
    if (mism) {
      int i = first_bad;
      std::snprintf(buf, sizeof buf, "%d of %zu (thread, value) owners differ from the C table; first: thread %d value %d holds (%d,%d), table says (%d,%d)",
                    mism, mh.size(), i / (t.N / 2), i % (t.N / 2), mh[i], nh[i], t.C[i] % 64, t.C[i] / 64);
    } else {
      std::snprintf(buf, sizeof buf, "all %zu (thread, value) -> (m, n) owners equal the engine's C table", mh.size());
    }
    row(t, "ownership", mism ? "FAIL" : "PASS", NAN, buf);
  }
  json += "\n  ],\n  \"all_pass\": " + std::string(all_pass ? "true" : "false") + "\n}\n";
  std::ofstream f(out_path);
  f << json;
  if (!f) { std::fprintf(stderr, "error: cannot write %s\n", out_path.c_str()); return 2; }
  std::printf("%s\n", all_pass ? "gmma_check: all checks pass" : "gmma_check: SOME CHECKS FAIL");
  return all_pass ? 0 : 1;
}
