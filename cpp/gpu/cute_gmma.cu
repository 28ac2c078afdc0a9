// cute_gmma.cu: CuTe's own path for the GMMA atoms of gmma_tables.txt (cute_gmma_common.cuh; the
// generated cute_gmma_part*.cu instantiate it per atom, gen_cute_gmma_parts.hpp lists them).
//
// Usage: cute_gmma GMMA_TABLES OUT.json [--seed S] [--trials T]
// Exit: 0 all pass, 1 some check failed, 2 usage or CUDA error.
#include <chrono>
#include <cinttypes>

#include "cute_gmma_common.cuh"
#include "gen_cute_gmma_parts.hpp"

int main(int argc, char** argv) {
  if (argc < 3) { std::fprintf(stderr, "usage: cute_gmma GMMA_TABLES OUT.json [--seed S] [--trials T]\n"); return 2; }
  std::string out_path = argv[2];
  uint64_t seed = uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  int trials = 8;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--trials" && i + 1 < argc) trials = std::atoi(argv[++i]);
    else { std::fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (trials < 1 || trials > 4096) { std::fprintf(stderr, "--trials must be 1..4096\n"); return 2; }
  // The atom lines of the GMMA tables file: name kind N K KT RS ea eb ec.
  std::map<std::string, OpInfo> ops;
  {
    std::ifstream in(argv[1]);
    if (!in) { std::fprintf(stderr, "error: cannot open %s\n", argv[1]); return 2; }
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("atom ", 0) != 0) continue;
      std::istringstream ls(line.substr(5));
      std::string name, kind, ea, eb, ec;
      int N, K, KT, RS;
      if (!(ls >> name >> kind >> N >> K >> KT >> RS >> ea >> eb >> ec)) { std::fprintf(stderr, "error: bad atom line %s\n", line.c_str()); return 2; }
      try {
        ops[name] = OpInfo{kind, "", 64, N, KT, elem_from(ea), elem_from(eb), elem_from(ec), Combine::Mul};
      } catch (std::exception& e) { std::fprintf(stderr, "error: %s\n", e.what()); return 2; }
    }
  }
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int cc = prop.major * 10 + prop.minor;
  std::printf("device: %s (sm_%d)\nseed: %" PRIu64 "  trials per atom: %d\n", prop.name, cc, seed, trials);
  Rng rng(seed);
  std::vector<Row> rows;
  CUTE_GMMA_PARTS_CALL(rows, ops, rng, trials)
  bool all_pass = true;
  std::string json = "{\n  \"program\": \"cute_gmma\",\n  \"device\": " + json_str(prop.name) + ",\n  \"compute_capability\": " +
                     std::to_string(cc) + ",\n  \"seed\": " + std::to_string(seed) + ",\n  \"trials\": " + std::to_string(trials) +
                     ",\n  \"results\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::printf("%-58s %-9s %-10s %-5s %s\n", r.atom.c_str(), r.check.c_str(),
                std::isnan(r.max_err) ? "-" : json_num(r.max_err).substr(0, 10).c_str(), r.verdict.c_str(), r.detail.c_str());
    if (r.verdict == "FAIL") all_pass = false;
    json += "    {\"atom\": " + json_str(r.atom) + ", \"check\": " + json_str(r.check) + ", \"verdict\": " + json_str(r.verdict) +
            ", \"max_err\": " + json_num(r.max_err) + ", \"detail\": " + json_str(r.detail) + "}" + (i + 1 < rows.size() ? ",\n" : "\n");
  }
  json += "  ],\n  \"all_pass\": " + std::string(all_pass ? "true" : "false") + "\n}\n";
  std::ofstream f(out_path);
  f << json;
  if (!f) { std::fprintf(stderr, "error: cannot write %s\n", out_path.c_str()); return 2; }
  std::printf("%s\n", all_pass ? "cute_gmma: all checks pass" : "cute_gmma: SOME CHECKS FAIL");
  return all_pass ? 0 : 1;
}
