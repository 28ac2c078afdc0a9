// cutecheck in-process CuTe: raked_product of two layouts. It takes complement(block, ...), which CuTe
// allows for a dynamic block of one leaf only ("Dynamic-stride complement only for rank-1 layouts").
#include "binary.hpp"

namespace cutecheck_ffi {
namespace {
// Ranks at most 1 with an integer on either side: "Mismatched Ranks" (zip in raked_product).
CUTECHECK_BINARY(Op, PA::leaves == 1 && !(rank_of<PA> <= 1 && rank_of<PB> <= 1 && (is_leaf<PA> || is_leaf<PB>)), raked_product(a, b))
}  // namespace
CUTECHECK_FFI_OP(find_raked_product, Op)
}  // namespace cutecheck_ffi
