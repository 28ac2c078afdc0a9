// Reproducer (finding 2 of fixtures/gpu/README.md), host only: CuTe 4.2's
// MMA_Traits<SM80_16x8x128_S32U1U1S32_TN_ANDPOPC>::ALayout nests its value stride one level too
// deep, and any evaluation fails to compile.
//   g++ -std=c++17 -fsyntax-only -I$CUTE_INCLUDE -I<cuda include> b1_alayout.cpp
//   -> static assertion failed: "Mismatched Ranks" (crd2idx)
#include <cute/atom/mma_traits_sm80.hpp>
int main() {
  using namespace cute;
  auto a = typename MMA_Traits<SM80_16x8x128_S32U1U1S32_TN_ANDPOPC>::ALayout{};
  return int(a(0, 0));
}
