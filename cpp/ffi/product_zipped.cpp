// cutecheck in-process CuTe: zipped_product of two layouts. It takes complement(block, ...), which CuTe
// allows for a dynamic block of one leaf only ("Dynamic-stride complement only for rank-1 layouts").
#include "binary.hpp"

namespace cutecheck_ffi {
namespace {
CUTECHECK_BINARY(Op, PA::leaves == 1, zipped_product(a, b))
}  // namespace
CUTECHECK_FFI_OP(find_zipped_product, Op)
}  // namespace cutecheck_ffi
