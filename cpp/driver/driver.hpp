// cutecheck oracle driver: the fixed part of every generated translation unit.
//
// A generated TU defines one function per case and a table of them, then links with driver.cpp,
// whose main() runs each case in a forked child so a crash (SIGFPE, a failed assert) loses only
// that case. Every case's output is framed by marker lines the Rust runner parses:
//
//   @@cutecheck-begin <id>
//   <whatever CuTe's print() wrote>
//   @@cutecheck-end <id> ok | signal <n> | exit <n>
//
// Nothing in this file or driver.cpp depends on the cases; the generator only emits case bodies.
#pragma once

// Host-only compiles (g++, clang++) let CuTe's TMA code encode its descriptors as under nvcc 12.9:
// copy_traits_sm90_tma.hpp calls cuTensorMapEncodeTiled only when __CUDACC_VER_MAJOR__ >= 12, and
// CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL makes it call the function directly, which driver.cpp
// defines: it records the arguments (cutecheck::tma_encode_args) instead of building a descriptor.
#if !defined(__CUDACC_VER_MAJOR__)
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 9
#endif
#if !defined(CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL)
#define CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL 1
#endif

#include <cstdint>

namespace cutecheck {

// The arguments of the last cuTensorMapEncodeTiled call (the tensor map and address left out).
struct TmaEncodeArgs {
  int calls;  // how many calls the case made
  int data_type;
  unsigned rank;
  std::uint64_t global_dim[5];
  std::uint64_t global_strides[5];
  unsigned box_dim[5];
  unsigned element_strides[5];
  int interleave;
  int swizzle;
  int l2_promotion;
  int oob_fill;
};

// What the case's cuTensorMapEncodeTiled calls recorded so far.
TmaEncodeArgs tma_encode_args();

// One line: cuTensorMapEncodeTiled(dataType=FLOAT16,rank=2,globalDim=(256,1024),...), the
// enumerators named as cuda.h names them without their common prefix.
void print(TmaEncodeArgs const& a);

// The arguments of the last cuTensorMapEncodeIm2col call (CuTe's make_im2col_tma_copy_desc).
struct Im2colEncodeArgs {
  int calls;
  int data_type;
  unsigned rank;
  std::uint64_t global_dim[5];
  std::uint64_t global_strides[5];
  int lower_corner[3];
  int upper_corner[3];
  unsigned channels_per_pixel;
  unsigned pixels_per_column;
  unsigned element_strides[5];
  int interleave;
  int swizzle;
  int l2_promotion;
  int oob_fill;
};

// What the case's cuTensorMapEncodeIm2col calls recorded so far.
Im2colEncodeArgs im2col_encode_args();

// One line: cuTensorMapEncodeIm2col(dataType=FLOAT16,rank=4,globalDim=(...),...,channelsPerPixel=64,...).
void print(Im2colEncodeArgs const& a);

using CaseFn = void (*)();

struct Case {
  int id;
  CaseFn fn;
};

}  // namespace cutecheck

// Defined by the generated translation unit.
extern const cutecheck::Case cutecheck_cases[];
extern const int cutecheck_num_cases;
