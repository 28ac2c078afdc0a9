// cutecheck oracle driver: runs the cases of one generated translation unit (see driver.hpp).
//
// Usage: <binary>            run every case
//        <binary> ID ...     run only the cases with these ids
// Each case runs in a forked child with a time limit of $CUTECHECK_CASE_TIMEOUT seconds (20).
#include "driver.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

cutecheck::TmaEncodeArgs recorded{};
cutecheck::Im2colEncodeArgs recorded_im2col{};

const char* name_of(int v, const char* const* names, int n) { return v >= 0 && v < n ? names[v] : "?"; }

void print_list(const char* key, const std::uint64_t* v, unsigned n) {
  std::printf(",%s=(", key);
  for (unsigned k = 0; k < n; ++k) std::printf(k ? ",%llu" : "%llu", static_cast<unsigned long long>(v[k]));
  std::printf(")");
}

void print_list(const char* key, const unsigned* v, unsigned n) {
  std::printf(",%s=(", key);
  for (unsigned k = 0; k < n; ++k) std::printf(k ? ",%u" : "%u", v[k]);
  std::printf(")");
}

// cuda.h's enumerators in the order of their values (both encoders' arguments).
const char* const types[] = {"UINT8",   "UINT16",      "UINT32",       "INT32",         "UINT64",       "INT64",
                                      "FLOAT16", "FLOAT32",     "FLOAT64",      "BFLOAT16",      "FLOAT32_FTZ",  "TFLOAT32",
                                      "TFLOAT32_FTZ", "16U4_ALIGN8B", "16U4_ALIGN16B", "16U6_ALIGN16B"};
const char* const interleaves[] = {"NONE", "16B", "32B"};
const char* const swizzles[] = {"NONE", "32B", "64B", "128B", "128B_ATOM_32B", "128B_ATOM_32B_FLIP_8B", "128B_ATOM_64B"};
const char* const l2[] = {"NONE", "L2_64B", "L2_128B", "L2_256B"};
const char* const oob[] = {"NONE", "NAN_REQUEST_ZERO_FMA"};

}  // namespace

cutecheck::TmaEncodeArgs cutecheck::tma_encode_args() { return recorded; }

void cutecheck::print(TmaEncodeArgs const& a) {
  if (a.calls == 0) {
    std::printf("no cuTensorMapEncodeTiled call");
    return;
  }
  unsigned r = a.rank <= 5 ? a.rank : 5;
  std::printf("cuTensorMapEncodeTiled(dataType=%s,rank=%u", name_of(a.data_type, types, 16), a.rank);
  print_list("globalDim", a.global_dim, r);
  print_list("globalStrides", a.global_strides, r > 0 ? r - 1 : 0);
  print_list("boxDim", a.box_dim, r);
  print_list("elementStrides", a.element_strides, r);
  std::printf(",interleave=%s,swizzle=%s,l2Promotion=%s,oobFill=%s)", name_of(a.interleave, interleaves, 3),
              name_of(a.swizzle, swizzles, 7), name_of(a.l2_promotion, l2, 4), name_of(a.oob_fill, oob, 2));
  if (a.calls > 1) std::printf(" (%d calls)", a.calls);
}

// CuTe's host code calls this (CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL, driver.hpp) to build a TMA
// descriptor; no GPU driver is linked: record the arguments, leave the descriptor zero.
extern "C" CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                                                   void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                                                   const cuuint32_t* box, const cuuint32_t* element_strides,
                                                   CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                                   CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  (void)map;
  (void)address;
  recorded.calls += 1;
  recorded.data_type = static_cast<int>(type);
  recorded.rank = rank;
  for (unsigned k = 0; k < 5; ++k) {
    bool in = k < rank;
    recorded.global_dim[k] = in ? dims[k] : 0;
    recorded.global_strides[k] = in && k + 1 < rank ? strides[k] : 0;
    recorded.box_dim[k] = in ? box[k] : 0;
    recorded.element_strides[k] = in ? element_strides[k] : 0;
  }
  recorded.interleave = static_cast<int>(interleave);
  recorded.swizzle = static_cast<int>(swizzle);
  recorded.l2_promotion = static_cast<int>(l2);
  recorded.oob_fill = static_cast<int>(oob);
  return CUDA_SUCCESS;
}

cutecheck::Im2colEncodeArgs cutecheck::im2col_encode_args() { return recorded_im2col; }

void cutecheck::print(Im2colEncodeArgs const& a) {
  if (a.calls == 0) {
    std::printf("no cuTensorMapEncodeIm2col call");
    return;
  }
  unsigned r = a.rank <= 5 ? a.rank : 5;
  unsigned spatial = r >= 2 ? r - 2 : 0;
  std::printf("cuTensorMapEncodeIm2col(dataType=%s,rank=%u", name_of(a.data_type, types, 16), a.rank);
  print_list("globalDim", a.global_dim, r);
  print_list("globalStrides", a.global_strides, r > 0 ? r - 1 : 0);
  std::printf(",pixelBoxLowerCorner=(");
  for (unsigned k = 0; k < spatial; ++k) std::printf(k ? ",%d" : "%d", a.lower_corner[k]);
  std::printf("),pixelBoxUpperCorner=(");
  for (unsigned k = 0; k < spatial; ++k) std::printf(k ? ",%d" : "%d", a.upper_corner[k]);
  std::printf("),channelsPerPixel=%u,pixelsPerColumn=%u", a.channels_per_pixel, a.pixels_per_column);
  print_list("elementStrides", a.element_strides, r);
  std::printf(",interleave=%s,swizzle=%s,l2Promotion=%s,oobFill=%s)", name_of(a.interleave, interleaves, 3),
              name_of(a.swizzle, swizzles, 7), name_of(a.l2_promotion, l2, 4), name_of(a.oob_fill, oob, 2));
  if (a.calls > 1) std::printf(" (%d calls)", a.calls);
}

// CuTe's im2col host code (copy_traits_sm90_im2col.hpp, make_im2col_tma_copy_desc) calls this:
// record the arguments, as cuTensorMapEncodeTiled above.
extern "C" CUresult CUDAAPI cuTensorMapEncodeIm2col(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                                                    void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                                                    const int* lower, const int* upper, cuuint32_t channels,
                                                    cuuint32_t pixels, const cuuint32_t* element_strides,
                                                    CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                                    CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  (void)map;
  (void)address;
  recorded_im2col.calls += 1;
  recorded_im2col.data_type = static_cast<int>(type);
  recorded_im2col.rank = rank;
  for (unsigned k = 0; k < 5; ++k) {
    bool in = k < rank;
    recorded_im2col.global_dim[k] = in ? dims[k] : 0;
    recorded_im2col.global_strides[k] = in && k + 1 < rank ? strides[k] : 0;
    recorded_im2col.element_strides[k] = in ? element_strides[k] : 0;
  }
  for (unsigned k = 0; k < 3; ++k) {
    bool in = k + 2 < rank;
    recorded_im2col.lower_corner[k] = in ? lower[k] : 0;
    recorded_im2col.upper_corner[k] = in ? upper[k] : 0;
  }
  recorded_im2col.channels_per_pixel = channels;
  recorded_im2col.pixels_per_column = pixels;
  recorded_im2col.interleave = static_cast<int>(interleave);
  recorded_im2col.swizzle = static_cast<int>(swizzle);
  recorded_im2col.l2_promotion = static_cast<int>(l2);
  recorded_im2col.oob_fill = static_cast<int>(oob);
  return CUDA_SUCCESS;
}

// CUTLASS 4.7's make_tma_copy_desc asks the driver's version (and then edits the descriptor it
// got for drivers <= 13010); without a CUDA runtime linked, answer a newer one. Weak: a linked
// runtime's own definition wins.
extern "C" __attribute__((weak)) cudaError_t CUDARTAPI cudaDriverGetVersion(int* version) {
  *version = 13020;
  return cudaSuccess;
}

// CUTLASS 4.3's make_tma_copy_desc asks the same through the driver API (cuDriverGetVersion);
// the same answer. Weak: a linked driver's own definition wins.
extern "C" __attribute__((weak)) CUresult CUDAAPI cuDriverGetVersion(int* version) {
  *version = 13020;
  return CUDA_SUCCESS;
}

namespace {

bool selected(int id, int argc, char** argv) {
  if (argc <= 1) return true;
  for (int k = 1; k < argc; ++k) {
    if (std::atoi(argv[k]) == id) return true;
  }
  return false;
}

unsigned case_timeout() {
  const char* t = std::getenv("CUTECHECK_CASE_TIMEOUT");
  int n = t ? std::atoi(t) : 0;
  return n > 0 ? static_cast<unsigned>(n) : 20u;
}

void run_one(const cutecheck::Case& c) {
  std::printf("\n@@cutecheck-begin %d\n", c.id);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    // No child: run in-process (a crash then ends the batch; the runner retries the rest).
    c.fn();
    std::printf("\n@@cutecheck-end %d ok\n", c.id);
    std::fflush(stdout);
    return;
  }
  if (pid == 0) {
    // Child: an assert's message goes to stderr; send it into the case's record.
    dup2(1, 2);
    // A case that loops forever is ended by SIGALRM (reported as signal 14).
    alarm(case_timeout());
    c.fn();
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    std::printf("\n@@cutecheck-end %d ok\n", c.id);
  } else if (WIFSIGNALED(status)) {
    std::printf("\n@@cutecheck-end %d signal %d\n", c.id, WTERMSIG(status));
  } else {
    std::printf("\n@@cutecheck-end %d exit %d\n", c.id, WEXITSTATUS(status));
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  for (int k = 0; k < cutecheck_num_cases; ++k) {
    if (selected(cutecheck_cases[k].id, argc, argv)) run_one(cutecheck_cases[k]);
  }
  return 0;
}
