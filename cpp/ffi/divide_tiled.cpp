// cutecheck in-process CuTe: tiled_divide by a layout. It takes complement(tiler, ...), which CuTe
// allows for a dynamic tiler of one leaf only ("Dynamic-stride complement only for rank-1 layouts").
#include "binary.hpp"

namespace cutecheck_ffi {
namespace {
CUTECHECK_BINARY(Op, PB::leaves == 1, tiled_divide(a, b))
}  // namespace
CUTECHECK_FFI_OP(find_tiled_divide, Op)
}  // namespace cutecheck_ffi
