// tma_check.cu: main of the TMA check (see tma_check.cuh). The cases are generated into the work
// folder by `cargo xtask gpu-tma` (tma_parts.cuh, tma_part*.cu; a part built with -DONLY_CASE=N holds case N alone).
//
//   tma_check [--corrupt | --corrupt-stride1] [--from K] [--out FILE]
//
// Runs cases K.. in order, printing per case its `args` line (CuTe's cuTensorMapEncodeTiled
// arguments) and its `case` line (what the copy moved). Exit 0 when every case ran, 2 after a
// CUDA error (the case's line says which; tma_run.sh restarts after it).
#include "tma_check.cuh"
#include "tma_parts.cuh"

int main(int argc, char** argv) {
  tma_check::Ctx ctx;
  int from = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--corrupt")) ctx.corrupt = 2;
    else if (!strcmp(argv[i], "--corrupt-stride1")) ctx.corrupt = 1;
    else if (!strcmp(argv[i], "--from") && i + 1 < argc) from = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      ctx.out = fopen(argv[++i], "a");
      if (!ctx.out) { perror("--out"); return 2; }
    } else {
      fprintf(stderr, "usage: tma_check [--corrupt | --corrupt-stride1] [--from K] [--out FILE]\n");
      return 2;
    }
  }
  tma_capture::corrupt() = ctx.corrupt;
#if defined(TMA_HOST_ONLY)
  alignas(4096) static char fake[4096];
  ctx.dglobal = fake;
#else
  if (cudaMalloc(&ctx.dglobal, tma_check::GLOBAL_ALLOC) != cudaSuccess ||
      cudaMalloc(&ctx.dsmem, tma_check::SMEM_LIMIT) != cudaSuccess || cudaMalloc(&ctx.dstatus, sizeof(int)) != cudaSuccess) {
    fprintf(ctx.out, "error cudaMalloc\n");
    return 2;
  }
#endif
  fprintf(ctx.out, "run cases=%d from=%d corrupt=%d\n", TMA_NCASES, from, ctx.corrupt);
  fflush(ctx.out);
  for (int id = from; id < TMA_NCASES; ++id) {
    auto f = TMA_CASES[id];
    if (!f) {
      fprintf(ctx.out, "case %d error not-built\n", id);
      continue;
    }
    int r = f(ctx);
    fflush(ctx.out);
    if (r == 2) return 2;
  }
  fprintf(ctx.out, "done\n");
  return 0;
}
