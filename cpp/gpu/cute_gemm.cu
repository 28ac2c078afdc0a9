// cute_gemm.cu: check 2 of `cargo xtask gpu`, the product through CuTe's own path for every
// mma.sync atom of the engine's list that CuTe compiles for the device (the generated
// cute_part*.cu files; gen_cute_parts.hpp lists them), each for two atom grids, compared with
// the float64 reference.
//
// Usage: cute_gemm TABLES OUT.json [--seed S] [--trials T]
// Exit: 0 all pass, 1 some check failed, 2 usage or CUDA error.

#include <chrono>
#include <cinttypes>

#include "cute_gemm_common.cuh"
#include "gen_cute_parts.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: cute_gemm TABLES OUT.json [--seed S] [--trials T]\n");
    return 2;
  }
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
  std::map<std::string, AtomTable> tabs;
  try {
    for (auto& t : read_tables(tables_path)) tabs[t.name] = t;
  } catch (std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int cc = prop.major * 10 + prop.minor;
  std::printf("device: %s (sm_%d)\nseed: %" PRIu64 "  trials per atom and grid: %d\n", prop.name, cc, seed, trials);
  std::printf("%-48s %-13s %-12s %-5s %s\n", "atom", "check", "max error", "verdict", "detail");

  Rng rng(seed);
  std::vector<Row> rows;
  CUTE_PARTS_CALL(rows, tabs, rng, trials)
  bool all_pass = true;
  std::string json = "{\n  \"program\": \"cute_gemm\",\n  \"device\": " + json_str(prop.name) +
                     ",\n  \"compute_capability\": " + std::to_string(cc) + ",\n  \"seed\": " + std::to_string(seed) +
                     ",\n  \"trials\": " + std::to_string(trials) + ",\n  \"results\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::printf("%-48s %-13s %-12s %-5s %s\n", r.atom.c_str(), r.check.c_str(),
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
