// cutecheck in-process CuTe: composition of two dynamic layouts, every pair of profiles.
#include "binary.hpp"

namespace cutecheck_ffi {
namespace {
CUTECHECK_BINARY(Composition, true, composition(a, b))
}  // namespace
CUTECHECK_FFI_OP(find_composition, Composition)
}  // namespace cutecheck_ffi
