// host_test.cpp: the host-side pieces of the GPU checks without a GPU (tests/gpu_tables.rs
// builds it with g++): for every atom of the tables file `cargo xtask gpu` wrote (argv[1]), the
// file reads back with the right sizes, the ownership inputs give D = m + M*n in the float64
// reference and are representable, the split ownership inputs (GMMA) give D = m and D = n, and
// random inputs survive encode/decode.
#include "common.hpp"

using namespace mmacheck;

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: host_test TABLES\n"); return 2; }
  int fails = 0;
  std::vector<AtomTable> tables;
  try {
    tables = read_tables(argv[1]);
  } catch (std::exception& e) {
    std::printf("tables: %s\n", e.what());
    return 1;
  }
  for (auto& t : tables) {
    const OpInfo& op = t.op;
    const char* tag = t.name.c_str();
    Problem p;
    if (!ownership_problem(op, op.M, op.N, op.K, p)) { std::printf("%s: no ownership encoding\n", tag); ++fails; continue; }
    Reference r = reference(op, p);
    for (int i = 0; i < op.M * op.N; ++i)
      if (r.D[i] != i) { std::printf("%s: ownership D[%d] = %g\n", tag, i, r.D[i]); ++fails; break; }
    try {
      for (double x : p.A) if (decode(op.a, encode(op.a, x)) != x) { std::printf("%s: A %g\n", tag, x); ++fails; break; }
      for (double x : p.B) if (decode(op.b, encode(op.b, x)) != x) { std::printf("%s: B %g\n", tag, x); ++fails; break; }
      if (op.combine == Combine::Mul && op.K >= 8)
        for (int which = 0; which < 2; ++which) {
          Problem q;
          if (!ownership_split(op, op.M, op.N, op.K, which, q)) { std::printf("%s: no split encoding\n", tag); ++fails; break; }
          Reference rq = reference(op, q);
          for (int i = 0; i < op.M * op.N; ++i)
            if (rq.D[i] != (which == 0 ? i % op.M : i / op.M)) { std::printf("%s: split %d D[%d] = %g\n", tag, which, i, rq.D[i]); ++fails; break; }
          for (double x : q.A) if (decode(op.a, encode(op.a, x)) != x) { std::printf("%s: split A %g\n", tag, x); ++fails; break; }
          for (double x : q.B) if (decode(op.b, encode(op.b, x)) != x) { std::printf("%s: split B %g\n", tag, x); ++fails; break; }
        }
      Rng g(12345);
      Problem q = random_problem(op, op.M, op.N, op.K, g);
      for (double x : q.A) if (decode(op.a, encode(op.a, x)) != x) { std::printf("%s: random A %g\n", tag, x); ++fails; break; }
      for (double x : q.B) if (decode(op.b, encode(op.b, x)) != x) { std::printf("%s: random B %g\n", tag, x); ++fails; break; }
      for (double x : q.C) if (decode(op.c, encode(op.c, x)) != x) { std::printf("%s: random C %g\n", tag, x); ++fails; break; }
      // The f16-accumulating atoms' reference must be exact in f16 (11 significant bits).
      if (op.c == Elem::F16)
        for (double d : reference(op, q).D) if (decode_f16(encode_f16(d)) != d) { std::printf("%s: D %g not f16\n", tag, d); ++fails; break; }
    } catch (std::exception& e) {
      std::printf("%s: %s\n", tag, e.what());
      ++fails;
    }
  }
  std::printf("%zu atoms read\n", tables.size());
  std::printf("host_test: %d failures\n", fails);
  return fails != 0;
}
