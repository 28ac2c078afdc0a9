// cutecheck in-process CuTe: how a binary operation is declared (one TU per group of operations).
#pragma once
#include "common.hpp"

// OK is a condition on the profiles PA (left operand) and PB (right operand).
#define CUTECHECK_BINARY(NAME, OK, EXPR)                                  \
  struct NAME {                                                           \
    static constexpr bool binary = true;                                  \
    template <class PA, class PB>                                         \
    static constexpr bool ok = (OK);                                      \
    template <class A, class B>                                           \
    static auto apply(A const& a, B const& b, cc_request const&) {        \
      using namespace cute;                                               \
      return EXPR;                                                        \
    }                                                                     \
  };
