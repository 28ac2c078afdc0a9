// probe_traits.cpp: prints the MMA_Traits layouts of the atoms `cargo xtask gpu` checks, with
// the real CuTe 4.2 headers (host only). Its output is recorded in
// fixtures/gpu/cute_traits_probe.txt; xtask/src/gpu.rs's atom list must match it (a test checks).
//   g++ -std=c++17 -I$CUTE_INCLUDE -I<cuda_runtime/include> ... probe_traits.cpp -o probe && ./probe
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
using namespace cute;
template <class Op> void show(const char* name) {
  using T = MMA_Traits<Op>;
  printf("%s\n", name);
  printf("  MNK "); print(typename T::Shape_MNK{}); printf("\n");
  printf("  A "); print(typename T::ALayout{}); printf("\n");
  printf("  B "); print(typename T::BLayout{}); printf("\n");
  printf("  C "); print(typename T::CLayout{}); printf("\n");
}
#define S(x) show<x>(#x)
int main() {
  S(SM80_16x8x16_F32F16F16F32_TN);
  S(SM80_16x8x16_F32BF16BF16F32_TN);
  S(SM80_16x8x8_F32TF32TF32F32_TN);
  S(SM80_16x8x32_S32S8S8S32_TN);
  S(SM80_16x8x8_F16F16F16F16_TN);
  S(SM80_16x8x32_S32S4S4S32_TN);
  S(SM80_16x8x64_S32S4S4S32_TN);
  S(SM80_8x8x4_F64F64F64F64_TN);
  S(SM80_8x8x128_S32U1U1S32_TN_ANDPOPC);
  S(SM80_16x8x128_S32U1U1S32_TN_ANDPOPC);
  S(SM80_16x8x256_S32U1U1S32_TN_ANDPOPC);
  S(SM80_8x8x128_S32U1U1S32_TN_XORPOPC);
  S(SM80_16x8x128_S32U1U1S32_TN_XORPOPC);
  S(SM80_16x8x256_S32U1U1S32_TN_XORPOPC);
}
