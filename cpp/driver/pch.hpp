// cutecheck oracle: the header every generated case needs, built once as a precompiled header.

#include <cute/tensor.hpp>
