// cutecheck in-process CuTe: the unary operations (and complement / evaluation with an int).
#include "common.hpp"

namespace cutecheck_ffi {
namespace {

using namespace cute;

#define CUTECHECK_UNARY(NAME, OK, EXPR)                                   \
  struct NAME {                                                           \
    static constexpr bool binary = false;                                 \
    template <class PA, class PB>                                         \
    static constexpr bool ok = (OK);                                      \
    template <class A, class B>                                           \
    static auto apply(A const& a, B const&, cc_request const& r) {        \
      (void)r;                                                            \
      return EXPR;                                                        \
    }                                                                     \
  };

CUTECHECK_UNARY(Coalesce, true, coalesce(a))
CUTECHECK_UNARY(Filter, true, filter(a))
CUTECHECK_UNARY(FilterZeros, true, filter_zeros(a))
CUTECHECK_UNARY(Flatten, true, flatten(a))
CUTECHECK_UNARY(Size, true, size(a))
CUTECHECK_UNARY(Cosize, true, cosize(a))
CUTECHECK_UNARY(Rank, true, rank(a))
CUTECHECK_UNARY(Depth, true, depth(a))
CUTECHECK_UNARY(RightInverse, true, right_inverse(a))
// "Left inverse requires static strides." (layout.hpp, left_inverse): never for dynamic ones.
CUTECHECK_UNARY(LeftInverse, false, left_inverse(a))
// "Dynamic-stride complement only for rank-1 layouts" (layout.hpp, detail::complement).
CUTECHECK_UNARY(Complement, PA::leaves == 1, complement(a))
CUTECHECK_UNARY(ComplementTo, PA::leaves == 1, complement(a, int(r.arg)))
CUTECHECK_UNARY(Evaluate, true, a(int(r.arg)))

}  // namespace

CUTECHECK_FFI_OP(find_coalesce, Coalesce)
CUTECHECK_FFI_OP(find_filter, Filter)
CUTECHECK_FFI_OP(find_filter_zeros, FilterZeros)
CUTECHECK_FFI_OP(find_flatten, Flatten)
CUTECHECK_FFI_OP(find_size, Size)
CUTECHECK_FFI_OP(find_cosize, Cosize)
CUTECHECK_FFI_OP(find_rank, Rank)
CUTECHECK_FFI_OP(find_depth, Depth)
CUTECHECK_FFI_OP(find_right_inverse, RightInverse)
CUTECHECK_FFI_OP(find_left_inverse, LeftInverse)
CUTECHECK_FFI_OP(find_complement, Complement)
CUTECHECK_FFI_OP(find_complement_to, ComplementTo)
CUTECHECK_FFI_OP(find_evaluate, Evaluate)

}  // namespace cutecheck_ffi
