// common.hpp: host-side pieces shared by the GPU checks (no CUDA needed, so it also builds and is
// tested with plain g++): the table file reader, element encodings, the random inputs, the float64
// reference, the error measure and a small JSON writer.
//
// Conventions (the same as CuTe's TV layouts): a table entry for (lane, value) is a column-major
// index into the atom's tile: A is MxK (index m + M*k), B is NxK (index n + N*k), C/D is MxN
// (index m + M*n). Every element travels as its raw bit pattern in a uint64_t.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace mmacheck {

// ---------------------------------------------------------------------------------------------
// Element kinds

enum class Elem { F16, BF16, TF32, F32, F64, S8, U8, S4, U4, B1, S32, S16, E4M3, E5M2 };

inline int elem_bits(Elem e) {
  switch (e) {
    case Elem::F16: case Elem::BF16: case Elem::S16: return 16;
    case Elem::TF32: case Elem::F32: case Elem::S32: return 32;
    case Elem::F64: return 64;
    case Elem::S8: case Elem::U8: case Elem::E4M3: case Elem::E5M2: return 8;
    case Elem::S4: case Elem::U4: return 4;
    case Elem::B1: return 1;
  }
  return 0;
}

inline const char* elem_name(Elem e) {
  switch (e) {
    case Elem::F16: return "f16"; case Elem::BF16: return "bf16"; case Elem::TF32: return "tf32";
    case Elem::F32: return "f32"; case Elem::F64: return "f64"; case Elem::S8: return "s8";
    case Elem::U8: return "u8"; case Elem::S4: return "s4"; case Elem::U4: return "u4";
    case Elem::B1: return "b1"; case Elem::S32: return "s32"; case Elem::S16: return "s16";
    case Elem::E4M3: return "e4m3"; case Elem::E5M2: return "e5m2";
  }
  return "?";
}

// The element of a code the tables files use (`cargo xtask gpu`, elem_of); throws if unknown.
inline Elem elem_from(const std::string& code) {
  for (Elem e : {Elem::F16, Elem::BF16, Elem::TF32, Elem::F32, Elem::F64, Elem::S8, Elem::U8, Elem::S4, Elem::U4,
                 Elem::B1, Elem::S32, Elem::S16, Elem::E4M3, Elem::E5M2})
    if (code == elem_name(e)) return e;
  throw std::runtime_error("unknown element code " + code);
}

inline bool elem_is_int(Elem e) {
  return e == Elem::S8 || e == Elem::U8 || e == Elem::S4 || e == Elem::U4 || e == Elem::B1 || e == Elem::S32 ||
         e == Elem::S16;
}

// How the products are combined: ordinary multiply-add, or the b1 popc forms.
enum class Combine { Mul, AndPopc, XorPopc };

inline Combine combine_from(const std::string& c) {
  if (c == "mul") return Combine::Mul;
  if (c == "and") return Combine::AndPopc;
  if (c == "xor") return Combine::XorPopc;
  throw std::runtime_error("unknown combine " + c);
}

// One instruction as the tables file describes it (its `atom` and `instr` lines).
struct OpInfo {
  std::string tag;   // the generated code's kind
  std::string ptx;   // the instruction
  int M, N, K;
  Elem a, b, c;      // c is also d
  Combine combine;
};

// Values per lane of each fragment: the fragment's elements over 32 lanes.
inline int vals_per_lane(int rows, int cols, Elem e) { (void)e; return rows * cols / 32; }

// 32-bit registers per lane of a fragment with n values of element e.
inline int regs_for(int n, Elem e) { return (n * elem_bits(e) + 31) / 32; }

// ---------------------------------------------------------------------------------------------
// Encodings: value (double) <-> raw bits. Encoders accept only exactly representable values.

inline uint64_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bits_f32(uint64_t b) { uint32_t u = uint32_t(b); float f; std::memcpy(&f, &u, 4); return f; }
inline uint64_t f64_bits(double d) { uint64_t u; std::memcpy(&u, &d, 8); return u; }
inline double bits_f64(uint64_t b) { double d; std::memcpy(&d, &b, 8); return d; }

inline double decode_f16(uint64_t b) {
  int sign = (b >> 15) & 1, ex = (b >> 10) & 0x1f, man = b & 0x3ff;
  double v;
  if (ex == 0) v = std::ldexp(double(man), -24);
  else if (ex == 31) v = man ? NAN : INFINITY;
  else v = std::ldexp(double(man | 0x400), ex - 25);
  return sign ? -v : v;
}

inline uint64_t encode_f16(double x) {
  if (x == 0) return std::signbit(x) ? 0x8000 : 0;
  uint64_t sign = x < 0 ? 0x8000 : 0;
  double a = std::fabs(x);
  int e;
  std::frexp(a, &e);            // a = f * 2^e, f in [0.5, 1)
  int ex = e - 1 + 15;          // biased exponent for a = 1.m * 2^(e-1)
  if (ex < 1 || ex > 30) throw std::runtime_error("f16 encode: out of the normal range");
  double man = std::ldexp(a, 10 - (e - 1)) - 1024.0;
  if (man != std::floor(man)) throw std::runtime_error("f16 encode: not exactly representable");
  return sign | (uint64_t(ex) << 10) | uint64_t(man);
}

inline double decode_bf16(uint64_t b) { return bits_f32((b & 0xffff) << 16); }
inline uint64_t encode_bf16(double x) {
  float f = float(x);
  if (double(f) != x) throw std::runtime_error("bf16 encode: not a float");
  uint64_t u = f32_bits(f);
  if (u & 0xffff) throw std::runtime_error("bf16 encode: not exactly representable");
  return u >> 16;
}

inline uint64_t encode_tf32(double x) {
  float f = float(x);
  uint64_t u = f32_bits(f);
  if (double(f) != x || (u & 0x1fff)) throw std::runtime_error("tf32 encode: not exactly representable");
  return u;
}

// An fp8 value (E4M3: 4 exponent bits, bias 7, no infinities; E5M2: 5, bias 15): exact values only.
inline double decode_fp8(uint64_t b, int ebits, int mbits, int bias) {
  int sign = (b >> 7) & 1, ex = int((b >> mbits) & ((1u << ebits) - 1)), man = int(b & ((1u << mbits) - 1));
  double v = ex == 0 ? std::ldexp(double(man), 1 - bias - mbits) : std::ldexp(double(man | (1 << mbits)), ex - bias - mbits);
  return sign ? -v : v;
}
inline uint64_t encode_fp8(double x, int ebits, int mbits, int bias) {
  for (uint64_t b = 0; b < 256; ++b) {
    if (ebits == 4 && (b & 0x7f) == 0x7f) continue;           // E4M3 NaN
    if (ebits == 5 && ((b >> 2) & 0x1f) == 0x1f) continue;    // E5M2 inf/NaN
    if (decode_fp8(b, ebits, mbits, bias) == x && std::signbit(decode_fp8(b, ebits, mbits, bias)) == std::signbit(x)) return b;
  }
  throw std::runtime_error("fp8 encode: not exactly representable");
}

inline uint64_t encode(Elem e, double x) {
  switch (e) {
    case Elem::F16: return encode_f16(x);
    case Elem::BF16: return encode_bf16(x);
    case Elem::TF32: return encode_tf32(x);
    case Elem::F32: {
      float f = float(x);
      if (double(f) != x) throw std::runtime_error("f32 encode: not exactly representable");
      return f32_bits(f);
    }
    case Elem::F64: return f64_bits(x);
    case Elem::S8: case Elem::U8: return uint64_t(int64_t(x)) & 0xff;
    case Elem::S4: case Elem::U4: return uint64_t(int64_t(x)) & 0xf;
    case Elem::S16: return uint64_t(int64_t(x)) & 0xffff;
    case Elem::E4M3: return encode_fp8(x, 4, 3, 7);
    case Elem::E5M2: return encode_fp8(x, 5, 2, 15);
    case Elem::B1: return uint64_t(int64_t(x)) & 0x1;
    case Elem::S32: return uint64_t(int64_t(x)) & 0xffffffffu;
  }
  return 0;
}

inline double decode(Elem e, uint64_t b) {
  switch (e) {
    case Elem::F16: return decode_f16(b);
    case Elem::BF16: return decode_bf16(b);
    case Elem::TF32: case Elem::F32: return bits_f32(b);
    case Elem::F64: return bits_f64(b);
    case Elem::S8: return double(int8_t(uint8_t(b)));
    case Elem::U8: return double(uint8_t(b));
    case Elem::S4: { int v = int(b & 0xf); return double(v >= 8 ? v - 16 : v); }
    case Elem::U4: return double(b & 0xf);
    case Elem::S16: return double(int16_t(uint16_t(b)));
    case Elem::E4M3: return decode_fp8(b & 0xff, 4, 3, 7);
    case Elem::E5M2: return decode_fp8(b & 0xff, 5, 2, 15);
    case Elem::B1: return double(b & 1);
    case Elem::S32: return double(int32_t(uint32_t(b)));
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Random numbers: splitmix64, seeded from the command line or the clock (the seed is printed).

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // uniform integer in [lo, hi]
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo + 1)); }
  double unit() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

// A random input value of element e. For the floating kinds the values are small multiples of a
// power of two, so every product and every partial sum of one atom is exact in the accumulator
// type (the reference then differs from a correct result only by the hardware's rounding, if any).
// `f16_out` narrows the range for the f16-accumulating atom (whose sums must fit 11 bits).
inline double random_value(Rng& r, Elem e, bool f16_out) {
  switch (e) {
    case Elem::F16: case Elem::BF16: case Elem::TF32:
      return f16_out ? double(r.range(-2, 2)) : std::ldexp(double(r.range(-64, 64)), -6);
    case Elem::E4M3: case Elem::E5M2:
      return f16_out ? double(r.range(-2, 2)) : std::ldexp(double(r.range(-8, 8)), -2);
    case Elem::F32: return std::ldexp(double(r.range(-64, 64)), -6);
    case Elem::F64: return 2.0 * r.unit() - 1.0;
    case Elem::S8: return double(r.range(-128, 127));
    case Elem::U8: return double(r.range(0, 255));
    case Elem::S4: return double(r.range(-8, 7));
    case Elem::U4: return double(r.range(0, 15));
    case Elem::S16: return double(r.range(-32768, 32767));
    case Elem::B1: return double(r.range(0, 1));
    case Elem::S32: return double(r.range(-(1 << 20), 1 << 20));
  }
  return 0;
}

inline double random_c(Rng& r, Elem c) {
  if (c == Elem::F16) return std::ldexp(double(r.range(-16, 16)), -3);
  return random_value(r, c, false);
}

// ---------------------------------------------------------------------------------------------
// A problem: the values of A (MxK), B (NxK), C (MxN), column-major, and the float64 reference.

struct Problem {
  int M, N, K;
  std::vector<double> A, B, C;
};

inline Problem random_problem(const OpInfo& op, int M, int N, int K, Rng& r) {
  Problem p{M, N, K, {}, {}, {}};
  bool f16_out = op.c == Elem::F16;
  for (int i = 0; i < M * K; ++i) p.A.push_back(random_value(r, op.a, f16_out));
  for (int i = 0; i < N * K; ++i) p.B.push_back(random_value(r, op.b, f16_out));
  for (int i = 0; i < M * N; ++i) p.C.push_back(random_c(r, op.c));
  return p;
}

// The ownership problem (check 3): D[m][n] = m + M*n exactly, with every element within its type's
// range. Column block 1 of K carries m in chunks against a neutral B; block 2 carries M*n in chunks
// against a neutral A. "Neutral" is 1 for products and and.popc, and 0 for xor.popc (where the
// chunks face zeros: popc(x ^ 0) = x for a bit). Returns false if K is too small for the type.
// The largest integer chunk both input types hold exactly.
inline double exact_chunk(Elem e) {
  switch (e) {
    case Elem::S4: return 7;
    case Elem::U4: return 15;
    case Elem::B1: return 1;
    case Elem::S8: return 127;
    case Elem::U8: return 255;
    case Elem::E4M3: case Elem::E5M2: return 8;   // 1..8: exact in both fp8 formats
    default: return 1024;
  }
}

inline bool ownership_problem(const OpInfo& op, int M, int N, int K, Problem& p) {
  double lim = std::min(exact_chunk(op.a), exact_chunk(op.b));
  double one = op.combine == Combine::XorPopc ? 0 : 1;
  p = Problem{M, N, K, std::vector<double>(M * K, 0.0), std::vector<double>(N * K, 0.0),
              std::vector<double>(M * N, 0.0)};
  int k1 = int(std::ceil((M - 1) / lim));
  int k2 = int(std::ceil(double(M) * (N - 1) / lim));
  if (k1 + k2 > K) return false;
  for (int m = 0; m < M; ++m) {
    double rest = m;
    for (int k = 0; k < k1; ++k) { double c = std::min(lim, rest); p.A[m + M * k] = c; rest -= c; }
    for (int k = k1; k < k1 + k2; ++k) p.A[m + M * k] = one;
  }
  for (int n = 0; n < N; ++n) {
    for (int k = 0; k < k1; ++k) p.B[n + N * k] = one;
    double rest = double(M) * n;
    for (int k = k1; k < k1 + k2; ++k) { double c = std::min(lim, rest); p.B[n + N * k] = c; rest -= c; }
  }
  return true;
}

// The two-run ownership problem of the GMMA check (accumulators that cannot hold m + M*n exactly,
// e.g. f16 with N = 256): `which` 0 gives D[m][n] = m, 1 gives D[m][n] = n, each a sum of
// power-of-two chunks no larger than the input type holds exactly, against a neutral 1.
inline bool ownership_split(const OpInfo& op, int M, int N, int K, int which, Problem& p) {
  // Power-of-two chunks both input types hold exactly (fp8: the largest normal power of two).
  auto pow2 = [](Elem e) -> double {
    switch (e) {
      case Elem::E4M3: return 256;
      case Elem::E5M2: return 32768;
      default: { double l = 1; while (l * 2 <= exact_chunk(e)) l *= 2; return l; }
    }
  };
  double lim = std::min(pow2(op.a), pow2(op.b));
  p = Problem{M, N, K, std::vector<double>(M * K, 0.0), std::vector<double>(N * K, 0.0),
              std::vector<double>(M * N, 0.0)};
  int rows = which == 0 ? M : N;
  auto chunks = [&](int x) {
    std::vector<double> c;
    for (double bit = 1; bit <= x; bit *= 2)
      if (int(x) & int(bit))
        for (double left = bit; left > 0; left -= std::min(lim, left)) c.push_back(std::min(lim, left));
    return c;
  };
  size_t slots = 0;
  for (int r = 0; r < rows; ++r) slots = std::max(slots, chunks(r).size());
  if (int(slots) > K) return false;
  for (int r = 0; r < rows; ++r) {
    auto c = chunks(r);
    for (size_t k = 0; k < slots; ++k) {
      double v = k < c.size() ? c[k] : 0;
      if (which == 0) p.A[r + M * k] = v; else p.B[r + N * k] = v;
    }
  }
  int other = which == 0 ? N : M;
  for (int r = 0; r < other; ++r)
    for (size_t k = 0; k < slots; ++k) {
      if (which == 0) p.B[r + N * k] = 1; else p.A[r + M * k] = 1;
    }
  return true;
}

// Reference D = A*B^T + C in float64 (popc forms for b1), with a per-element error bound.
struct Reference {
  std::vector<double> D, tol;
};

inline Reference reference(const OpInfo& op, const Problem& p) {
  Reference ref;
  double eps;
  switch (op.c) {
    case Elem::F32: eps = 0x1.0p-20; break;   // inputs are chosen so that the sums are exact;
    case Elem::F16: eps = 0x1.0p-11; break;   // the bound only allows for the hardware's rounding
    case Elem::F64: eps = 0x1.0p-50; break;
    default: eps = 0; break;                  // integers: exact
  }
  for (int n = 0; n < p.N; ++n)
    for (int m = 0; m < p.M; ++m) {
      double acc = p.C[m + p.M * n], mag = std::fabs(acc);
      for (int k = 0; k < p.K; ++k) {
        double a = p.A[m + p.M * k], b = p.B[n + p.N * k], t = 0;
        switch (op.combine) {
          case Combine::Mul: t = a * b; break;
          case Combine::AndPopc: t = double(int(a) & int(b)); break;
          case Combine::XorPopc: t = double(int(a) ^ int(b)); break;
        }
        acc += t;
        mag += std::fabs(t);
      }
      ref.D.push_back(acc);
      ref.tol.push_back(eps * mag);
    }
  return ref;
}

// ---------------------------------------------------------------------------------------------
// The tables file written by `cargo xtask gpu`.

struct AtomTable {
  std::string name;    // CuTe's MMA operation, e.g. SM80_16x8x16_F32F16F16F32_TN
  std::string kind;    // the generated instruction's name
  int M = 0, N = 0, K = 0, T = 32, nA = 0, nB = 0, nC = 0;
  int groups = 1, gstride = 0;  // copies of the atom in one warp, lane offset between them
  OpInfo op;
  std::vector<int> lanes;       // ThrID: logical thread -> lane
  std::string layoutA, layoutB, layoutC, source, note;
  std::vector<int> A, B, C;   // [thread * nX + value] -> column-major tile index
};

inline std::vector<AtomTable> read_tables(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open tables file " + path);
  std::vector<AtomTable> out;
  std::string line;
  int lineno = 0;
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + why);
  };
  if (!std::getline(in, line) || line.rfind("cutecheck-mma-tables 2", 0) != 0) fail("not a cutecheck-mma-tables 2 file");
  ++lineno;
  AtomTable* cur = nullptr;
  auto rest_of = [](const std::string& l, size_t words) {
    size_t pos = 0;
    for (size_t i = 0; i < words; ++i) {
      pos = l.find(' ', pos);
      if (pos == std::string::npos) return std::string();
      ++pos;
    }
    return l.substr(pos);
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "atom") {
      out.emplace_back();
      cur = &out.back();
      if (!(ls >> cur->name >> cur->kind >> cur->M >> cur->N >> cur->K >> cur->T >> cur->nA >> cur->nB >> cur->nC)) fail("bad atom line");
      if (cur->M <= 0 || cur->N <= 0 || cur->K <= 0 || cur->T <= 0 || cur->T > 32 || cur->M * cur->K != cur->T * cur->nA ||
          cur->N * cur->K != cur->T * cur->nB || cur->M * cur->N != cur->T * cur->nC)
        fail("atom sizes do not give whole fragments over its threads");
      continue;
    }
    if (!cur) fail("data before the first atom line");
    if (key == "instr") {
      std::string ea, eb, ec, comb;
      if (!(ls >> cur->op.ptx >> ea >> eb >> ec >> comb >> cur->groups >> cur->gstride)) fail("bad instr line");
      try {
        cur->op.a = elem_from(ea); cur->op.b = elem_from(eb); cur->op.c = elem_from(ec); cur->op.combine = combine_from(comb);
      } catch (std::exception& e) { fail(e.what()); }
      cur->op.tag = cur->kind; cur->op.M = cur->M; cur->op.N = cur->N; cur->op.K = cur->K;
      if (cur->groups < 1 || cur->groups * cur->T > 32) fail("groups x threads exceed a warp");
      continue;
    }
    if (key == "lanes") {
      int x;
      while (ls >> x) {
        if (x < 0 || x >= 32) fail("lane out of the warp");
        cur->lanes.push_back(x);
      }
      if (int(cur->lanes.size()) != cur->T) fail("lanes: expected one per thread");
      continue;
    }
    if (key == "source") cur->source = rest_of(line, 1);
    else if (key == "note") cur->note = rest_of(line, 1);
    else if (key == "layout") {
      std::string which;
      ls >> which;
      std::string text = rest_of(line, 2);
      if (which == "A") cur->layoutA = text; else if (which == "B") cur->layoutB = text;
      else if (which == "C") cur->layoutC = text; else fail("layout of what?");
    } else if (key == "A" || key == "B" || key == "C") {
      auto& v = key == "A" ? cur->A : key == "B" ? cur->B : cur->C;
      int n = key == "A" ? cur->nA : key == "B" ? cur->nB : cur->nC;
      int rows = key == "A" ? cur->M : key == "B" ? cur->N : cur->M;
      int cols = key == "C" ? cur->N : cur->K;
      int x;
      while (ls >> x) {
        if (x < 0 || x >= rows * cols) fail(key + " table entry out of the tile");
        v.push_back(x);
      }
      if (int(v.size()) != cur->T * n) fail(key + " table: expected " + std::to_string(cur->T * n) + " entries");
    } else if (key == "end") {
      if (int(cur->A.size()) != cur->T * cur->nA || int(cur->B.size()) != cur->T * cur->nB || int(cur->C.size()) != cur->T * cur->nC ||
          int(cur->lanes.size()) != cur->T || cur->op.ptx.empty())
        fail("atom " + cur->name + " is missing a table, its lanes or its instr line");
      cur = nullptr;
    } else {
      fail("unknown key " + key);
    }
  }
  if (cur) fail("missing end");
  return out;
}

// ---------------------------------------------------------------------------------------------
// Comparison of one device result with the reference.

struct Compare {
  double max_err = 0;     // max |D - ref|
  double max_ratio = 0;   // max |D - ref| / max(tol, tiny): > 1 fails
  int unwritten = 0;      // elements the kernel never stored (poison left)
  int bad = 0;            // elements outside the bound
  int first_bad = -1;     // column-major index of the first bad element
  double first_got = 0, first_want = 0;
};

constexpr uint64_t POISON = 0xDEADBEEFDEADBEEFull;

inline Compare compare(Elem c, const std::vector<uint64_t>& got_bits, const Reference& ref) {
  Compare r;
  for (size_t i = 0; i < ref.D.size(); ++i) {
    if (got_bits[i] == POISON) {
      ++r.unwritten;
      if (r.first_bad < 0) { r.first_bad = int(i); r.first_got = NAN; r.first_want = ref.D[i]; }
      continue;
    }
    double got = decode(c, got_bits[i]);
    double err = std::fabs(got - ref.D[i]);
    if (std::isnan(got)) err = INFINITY;
    if (err > r.max_err) r.max_err = err;
    double ratio = err == 0 ? 0 : err / std::max(ref.tol[i], 1e-300);
    if (ratio > r.max_ratio) r.max_ratio = ratio;
    if (err > ref.tol[i]) {
      ++r.bad;
      if (r.first_bad < 0) { r.first_bad = int(i); r.first_got = got; r.first_want = ref.D[i]; }
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Minimal JSON output.

inline std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') { o += '\\'; o += ch; }
    else if (ch == '\n') o += "\\n";
    else if (uint8_t(ch) < 0x20) { char buf[8]; std::snprintf(buf, sizeof buf, "\\u%04x", ch); o += buf; }
    else o += ch;
  }
  return o + "\"";
}

inline std::string json_num(double x) {
  if (std::isnan(x)) return "null";
  if (std::isinf(x)) return x > 0 ? "1e308" : "-1e308";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

}  // namespace mmacheck

#if defined(__CUDACC__)
// Every CUDA call and launch of the GPU programs goes through CK: a failure prints the call site
// and exits with 2 (a build or CUDA error for `cargo xtask gpu`).
#define CK(call)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__,   \
                   __LINE__, cudaGetErrorString(e_));                                         \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)
#endif
