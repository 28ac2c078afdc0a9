// cutecheck in-process CuTe: blocked_product of two layouts. It takes complement(block, ...), which CuTe
// allows for a dynamic block of one leaf only ("Dynamic-stride complement only for rank-1 layouts").
#include "binary.hpp"

namespace cutecheck_ffi {
namespace {
// A rank-1 tuple block with an integer tiler: "Mismatched Ranks" (zip in blocked_product).
CUTECHECK_BINARY(Op, PA::leaves == 1 && !(rank_of<PA> == 1 && !is_leaf<PA> && is_leaf<PB>), blocked_product(a, b))
}  // namespace
CUTECHECK_FFI_OP(find_blocked_product, Op)
}  // namespace cutecheck_ffi
