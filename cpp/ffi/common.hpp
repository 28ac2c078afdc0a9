// cutecheck in-process CuTe: the menu of nesting profiles, layouts built from flat values, CuTe's
// print() captured into the caller's buffer, and the dispatch tables of one operation.
//
// Each operation is a struct with
//   template <class PA, class PB> static constexpr bool ok;   // is (PA, PB) instantiated?
//   template <class A, class B> static auto apply(A const& a, B const& b, cc_request const& r);
// (unary operations take PB = B = NoOperand). `ok` is false exactly where CuTe static_asserts on
// every all-dynamic operand of those profiles (complement needs one leaf or static strides, left
// inverse needs static strides; divides take the complement of the tiler, products of the block),
// so those cases go to the compiled driver, which reports CuTe's own message.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <tuple>
#include <utility>

#include <cute/layout.hpp>
#include <cute/util/print.hpp>

#include "cutecheck_ffi.h"

namespace cutecheck_ffi {

// A profile: a leaf, or a tuple whose modes are ints (width 1), pairs (2) or triples (3) of ints.
struct Leaf {
  static constexpr int leaves = 1;
};
template <int... W>
struct Tup {
  static constexpr int leaves = (W + ... + 0);
  static constexpr int width[sizeof...(W)] = {W...};
  static constexpr int offset(std::size_t i) {
    int s = 0;
    for (std::size_t k = 0; k < i; ++k) s += width[k];
    return s;
  }
};
struct NoOperand {
  static constexpr int leaves = 0;
};

template <class P>
constexpr bool is_leaf = std::is_same_v<P, Leaf>;
// Rank of a profile (a leaf counts as rank 1, as CuTe's rank of an integer).
template <class P>
constexpr int rank_of = 1;
template <int... W>
constexpr int rank_of<Tup<W...>> = sizeof...(W);

// The menu, in code order: a leaf; every profile of rank 1-3 whose modes are ints, pairs or
// triples of ints (in that order, first mode most significant); the rank-4 tuple of ints.
using Profiles = std::tuple<Leaf,
                            Tup<1>,
                            Tup<2>,
                            Tup<3>,
                            Tup<1, 1>,
                            Tup<1, 2>,
                            Tup<1, 3>,
                            Tup<2, 1>,
                            Tup<2, 2>,
                            Tup<2, 3>,
                            Tup<3, 1>,
                            Tup<3, 2>,
                            Tup<3, 3>,
                            Tup<1, 1, 1>,
                            Tup<1, 1, 2>,
                            Tup<1, 1, 3>,
                            Tup<1, 2, 1>,
                            Tup<1, 2, 2>,
                            Tup<1, 2, 3>,
                            Tup<1, 3, 1>,
                            Tup<1, 3, 2>,
                            Tup<1, 3, 3>,
                            Tup<2, 1, 1>,
                            Tup<2, 1, 2>,
                            Tup<2, 1, 3>,
                            Tup<2, 2, 1>,
                            Tup<2, 2, 2>,
                            Tup<2, 2, 3>,
                            Tup<2, 3, 1>,
                            Tup<2, 3, 2>,
                            Tup<2, 3, 3>,
                            Tup<3, 1, 1>,
                            Tup<3, 1, 2>,
                            Tup<3, 1, 3>,
                            Tup<3, 2, 1>,
                            Tup<3, 2, 2>,
                            Tup<3, 2, 3>,
                            Tup<3, 3, 1>,
                            Tup<3, 3, 2>,
                            Tup<3, 3, 3>,
                            Tup<1, 1, 1, 1>>;
constexpr int kProfiles = std::tuple_size<Profiles>::value;
template <int P>
using Profile = std::tuple_element_t<P, Profiles>;

template <int Off, int W>
auto mode_of(int32_t const* v) {
  if constexpr (W == 1) {
    return int(v[Off]);
  } else if constexpr (W == 2) {
    return cute::make_shape(int(v[Off]), int(v[Off + 1]));
  } else {
    return cute::make_shape(int(v[Off]), int(v[Off + 1]), int(v[Off + 2]));
  }
}

template <class P, std::size_t... I>
auto tuple_of(int32_t const* v, std::index_sequence<I...>) {
  return cute::make_shape(mode_of<P::offset(I), P::width[I]>(v)...);
}

// The layout of profile P with the operand's values (all dynamic ints).
template <class P>
auto build(cc_layout const& l) {
  if constexpr (std::is_same_v<P, Leaf>) {
    return cute::make_layout(int(l.shape[0]), int(l.stride[0]));
  } else if constexpr (std::is_same_v<P, NoOperand>) {
    return 0;
  } else {
    constexpr std::size_t R = sizeof(P::width) / sizeof(int);
    return cute::make_layout(tuple_of<P>(l.shape, std::make_index_sequence<R>{}),
                             tuple_of<P>(l.stride, std::make_index_sequence<R>{}));
  }
}

// The stream capture() has open (so a signal handler's recovery can close it).
inline FILE* g_capture = nullptr;

// Run `f` (which calls CuTe's print) with stdout sent into out[0..cap).
template <class F>
int32_t capture(char* out, std::size_t cap, std::size_t* len, F&& f) {
  *len = 0;
  if (cap < 2) return CC_TRUNCATED;
  FILE* mem = fmemopen(out, cap, "w");
  if (mem == nullptr) return CC_IO_ERROR;
  FILE* saved = stdout;
  stdout = mem;
  g_capture = mem;
  f();
  std::fflush(mem);
  long n = std::ftell(mem);
  stdout = saved;
  g_capture = nullptr;
  std::fclose(mem);
  if (n < 0) return CC_IO_ERROR;
  if (static_cast<std::size_t>(n) >= cap - 1) {
    *len = cap - 1;
    return CC_TRUNCATED;
  }
  *len = static_cast<std::size_t>(n);
  out[n] = '\0';
  return CC_OK;
}

using Fn = int32_t (*)(cc_request const&, char*, std::size_t, std::size_t*);

template <class Op, class PA, class PB>
int32_t call(cc_request const& r, char* out, std::size_t cap, std::size_t* len) {
  auto a = build<PA>(r.a);
  auto b = build<PB>(r.b);
  return capture(out, cap, len, [&] {
    auto&& result = Op::apply(a, b, r);
    cute::print(result);
  });
}

template <class Op, std::size_t I>
constexpr Fn entry() {
  if constexpr (Op::binary) {
    using PA = Profile<int(I) / kProfiles>;
    using PB = Profile<int(I) % kProfiles>;
    if constexpr (Op::template ok<PA, PB>) {
      return &call<Op, PA, PB>;
    } else {
      return nullptr;
    }
  } else {
    using PA = Profile<int(I)>;
    if constexpr (Op::template ok<PA, NoOperand>) {
      return &call<Op, PA, NoOperand>;
    } else {
      return nullptr;
    }
  }
}

template <class Op, std::size_t... I>
constexpr std::array<Fn, sizeof...(I)> table(std::index_sequence<I...>) {
  return {entry<Op, I>()...};
}

// One operation's table: kProfiles entries (unary) or kProfiles^2 (binary, a-major).
template <class Op>
struct Table {
  static constexpr std::size_t n = Op::binary ? kProfiles * kProfiles : kProfiles;
  static constexpr std::array<Fn, n> fns = table<Op>(std::make_index_sequence<n>{});
  static Fn find(int32_t pa, int32_t pb) {
    if (pa < 0 || pa >= kProfiles) return nullptr;
    if (!Op::binary) return fns[pa];
    if (pb < 0 || pb >= kProfiles) return nullptr;
    return fns[pa * kProfiles + pb];
  }
};

// Every TU defines one or more ops with this macro: the function api.cpp dispatches to.
#define CUTECHECK_FFI_OP(FN, OP)                                     \
  cutecheck_ffi::Fn FN(int32_t pa, int32_t pb) {                      \
    return cutecheck_ffi::Table<OP>::find(pa, pb);                    \
  }

// The lookup functions of every op (defined in the op TUs), one per row of ops_generated.inc.
#define CC_FFI_OP(ID, NAME, BINARY, FIND) Fn FIND(int32_t, int32_t);
#include "ops_generated.inc"
#undef CC_FFI_OP

}  // namespace cutecheck_ffi
