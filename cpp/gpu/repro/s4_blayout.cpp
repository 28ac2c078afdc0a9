// Reproducer (finding 1 of fixtures/gpu/README.md), host only: CuTe 4.2's
// MMA_Traits<SM80_16x8x32_S32S4S4S32_TN>::BLayout maps two (thread, value) pairs to one element of
// the 8x32 B tile and never reaches 96 of its 256 elements.
//   g++ -std=c++17 -I$CUTE_INCLUDE -I<cuda include> s4_blayout.cpp -o s4 && ./s4
#include <cute/atom/mma_traits_sm80.hpp>
#include <cstdio>
#include <vector>
int main() {
  using namespace cute;
  auto b = typename MMA_Traits<SM80_16x8x32_S32S4S4S32_TN>::BLayout{};
  print(b); printf("\n");
  std::vector<int> hits(256, 0);
  for (int t = 0; t < 32; ++t)
    for (int v = 0; v < 8; ++v) ++hits[b(t, v)];
  int twice = 0, never = 0;
  for (int h : hits) { twice += h > 1; never += h == 0; }
  printf("B(0,4) = %d, B(1,0) = %d; %d elements hit twice, %d never\n", int(b(0, 4)), int(b(1, 0)), twice, never);
  return twice || never ? 1 : 0;  // 1: the layout is not a bijection
}
