// cutecheck oracle: the header every generated case needs, built once as a precompiled header.
// driver.hpp first: its defines must precede CuTe's headers (see there).

#include "driver.hpp"
#include <cute/tensor.hpp>
