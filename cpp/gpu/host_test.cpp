// host_test.cpp: the host-side pieces of the GPU checks without a GPU (tests/gpu_tables.rs
// builds it with g++): every instruction's ownership inputs give D = m + M*n in the float64
// reference and are representable, random inputs survive encode/decode, and the tables file
// `cargo xtask gpu` wrote (argv[1]) reads back with the right sizes.
#include "common.hpp"

using namespace mmacheck;

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: host_test TABLES\n"); return 2; }
  int fails = 0;
  for (auto& op : all_ops()) {
    Problem p;
    if (!ownership_problem(op, op.M, op.N, op.K, p)) { std::printf("%s: no ownership encoding\n", op.tag); ++fails; continue; }
    Reference r = reference(op, p);
    for (int i = 0; i < op.M * op.N; ++i)
      if (r.D[i] != i) { std::printf("%s: ownership D[%d] = %g\n", op.tag, i, r.D[i]); ++fails; break; }
    try {
      for (double x : p.A) if (decode(op.a, encode(op.a, x)) != x) { std::printf("%s: A %g\n", op.tag, x); ++fails; break; }
      for (double x : p.B) if (decode(op.b, encode(op.b, x)) != x) { std::printf("%s: B %g\n", op.tag, x); ++fails; break; }
      Rng g(12345);
      Problem q = random_problem(op, op.M, op.N, op.K, g);
      for (double x : q.A) if (decode(op.a, encode(op.a, x)) != x) { std::printf("%s: random A %g\n", op.tag, x); ++fails; break; }
      for (double x : q.B) if (decode(op.b, encode(op.b, x)) != x) { std::printf("%s: random B %g\n", op.tag, x); ++fails; break; }
      for (double x : q.C) if (decode(op.c, encode(op.c, x)) != x) { std::printf("%s: random C %g\n", op.tag, x); ++fails; break; }
      // The f16-accumulating atom's reference must be exact in f16 (11 significant bits).
      if (op.c == Elem::F16)
        for (double d : reference(op, q).D) if (decode_f16(encode_f16(d)) != d) { std::printf("%s: D %g not f16\n", op.tag, d); ++fails; break; }
    } catch (std::exception& e) {
      std::printf("%s: %s\n", op.tag, e.what());
      ++fails;
    }
  }
  try {
    auto tables = read_tables(argv[1]);
    for (auto& t : tables) {
      const OpInfo* op = find_op(t.kind);
      if (!op || op->M != t.M || op->N != t.N || op->K != t.K) { std::printf("%s: kind/size mismatch\n", t.name.c_str()); ++fails; }
    }
    std::printf("%zu atoms read\n", tables.size());
  } catch (std::exception& e) {
    std::printf("tables: %s\n", e.what());
    ++fails;
  }
  std::printf("host_test: %d failures\n", fails);
  return fails != 0;
}
