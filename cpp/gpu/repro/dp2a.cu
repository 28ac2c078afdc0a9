// Reproducer (finding 4 of fixtures/gpu/README.md): CuTe 4.2's SM61_DP2A does not assemble.
// Its fma is `asm volatile("dp2a.s32.s32 %0, %1, %2, %3;" ...)`; PTX requires a .lo or .hi mode
// on dp2a, and its b operand is four 8-bit values while MMA_Traits<SM61_DP2A> declares int16_t B.
//   nvcc -std=c++17 -arch=sm_90 -I$CUTE_INCLUDE -c dp2a.cu
//   -> ptxas error   : '.hi/.lo' modifier required for instruction 'dp2a'
#include <cute/arch/mma_sm61.hpp>

__global__ void k(int32_t* out, uint32_t a, uint32_t b, int32_t c) {
  int32_t d;
  cute::SM61_DP2A::fma(d, a, b, c);
  out[0] = d;
}
