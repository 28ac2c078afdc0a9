#!/usr/bin/env bash
# run.sh: the GPU side of `cargo xtask gpu`; needs nvcc, nvidia-smi and a GPU, but no Rust.
#
#   run.sh SRC_DIR WORK_DIR CUTE_INCLUDE MODE [SEED]
#
# SRC_DIR holds this folder's sources and the code `cargo xtask gpu` generated (gen_*.cuh/hpp,
# cute_part*.cu, gmma_part*.cu); WORK_DIR holds the tables files it wrote (tables.txt,
# tables_corrupt.txt, gmma_tables.txt, copy_tables.txt) and receives the binaries, logs and
# results_*.json. MODE: normal (all checks), corrupt (check 1 on the corrupted tables), all (both).
# The architecture is the device's own (nvidia-smi's compute_cap; sm_90 builds as sm_90a, which
# wgmma needs). Exit: 0 all pass, 1 some check failed (or, in corrupt mode, some corruption went
# unnoticed), 2 build/run error, 3 no GPU.
set -u
SRC=$1 WORK=$2 INC=$3 MODE=$4 SEED=${5:-}
cd "$WORK" || exit 2
command -v nvcc >/dev/null || { echo "run.sh: no nvcc on PATH"; exit 3; }
command -v nvidia-smi >/dev/null || { echo "run.sh: no nvidia-smi on PATH"; exit 3; }
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
[ -n "$CAP" ] || { echo "run.sh: nvidia-smi lists no GPU"; exit 3; }
if [ "$CAP" = 90 ]; then GENCODE=-gencode=arch=compute_90a,code=sm_90a; else GENCODE=-arch=sm_$CAP; fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -1)"
  echo "nvcc: $(nvcc --version | tail -2 | tr '\n' ' ')"
  echo "arch: $GENCODE"
  echo "host: $(uname -srm)"
} | tee device.txt

SEEDARG=()
[ -n "$SEED" ] && SEEDARG=(--seed "$SEED")
export NVCC_FLAGS="-std=c++17 -O2 $GENCODE -I$SRC -I$INC --expt-relaxed-constexpr"
JOBS=$(nproc 2>/dev/null || echo 4)
mkdir -p obj
rc=0

# Every translation unit in parallel; each log under obj/.
UNITS="mma_check copy_check"
if [ "$MODE" != corrupt ]; then
  UNITS="$UNITS cute_gemm $(cd "$SRC" && ls cute_part*.cu | sed 's/\.cu$//')"
  [ "$CAP" = 90 ] && UNITS="$UNITS gmma_check $(cd "$SRC" && ls gmma_part*.cu | sed 's/\.cu$//') cute_gmma $(cd "$SRC" && ls cute_gmma_part*.cu | sed 's/\.cu$//')"
fi
echo "== build ($JOBS jobs): $(echo $UNITS | wc -w) units"
t0=$(date +%s)
echo $UNITS | tr ' ' '\n' | xargs -P "$JOBS" -I{} sh -c 'nvcc $NVCC_FLAGS -c "'"$SRC"'/{}.cu" -o obj/{}.o > obj/{}.log 2>&1 || echo "   FAILED {} (obj/{}.log)"' | tee build.log
link() {  # link NAME OBJECTS...
  local name=$1; shift
  nvcc $NVCC_FLAGS "$@" -o "$name" > "build_$name.log" 2>&1 || { echo "   link FAILED $name"; head -30 obj/*.log "build_$name.log"; return 1; }
}
link mma_check obj/mma_check.o || exit 2
link copy_check obj/copy_check.o || rc=2
if [ "$MODE" != corrupt ]; then
  link cute_gemm obj/cute_gemm.o obj/cute_part*.o || rc=2
  if [ "$CAP" = 90 ]; then
    link gmma_check obj/gmma_check.o obj/gmma_part*.o || rc=2
    link cute_gmma obj/cute_gmma.o obj/cute_gmma_part*.o || rc=2
  fi
fi
echo "   built in $(( $(date +%s) - t0 )) s"

runprog() {  # runprog LOGNAME PROG ARGS...: keep the highest exit code (1 fail, 2 error)
  local log=$1; shift
  if [ ! -x "./$1" ]; then echo "$1 not built"; rc=2; return; fi
  "./$@" 2>&1 | tee "$log"
  local r=${PIPESTATUS[0]}
  [ $r -gt $rc ] && rc=$r
}
if [ "$MODE" = normal ] || [ "$MODE" = all ]; then
  echo "== check 1 + 3: engine tables on silicon, ownership (mma.sync)"
  runprog run_tables.log mma_check tables.txt results_tables.json "${SEEDARG[@]}"
  echo "== check 2: CuTe make_tiled_mma + gemm"
  runprog run_cute.log cute_gemm tables.txt results_cute.json "${SEEDARG[@]}"
  if [ "$CAP" = 90 ]; then
    echo "== GMMA: wgmma through the engine's C / A tables and smem layout atoms"
    runprog run_gmma.log gmma_check gmma_tables.txt results_gmma.json "${SEEDARG[@]}"
    echo "== GMMA through CuTe: make_tiled_mma + gemm with warpgroup fences, smem in CuTe's GMMA layout atoms"
    runprog run_cute_gmma.log cute_gmma gmma_tables.txt results_cute_gmma.json "${SEEDARG[@]}"
  fi
  echo "== copy atoms: ldmatrix, stmatrix, movmatrix, cp.async"
  runprog run_copy.log copy_check copy_tables.txt results_copy.json
fi
if [ "$MODE" = corrupt ] || [ "$MODE" = all ]; then
  echo "== check 1 on deliberately corrupted A tables (every atom must FAIL)"
  ./mma_check tables_corrupt.txt results_corrupt.json "${SEEDARG[@]}" 2>&1 | tee run_corrupt.log
  r=${PIPESTATUS[0]}
  if [ $r = 2 ]; then rc=2
  elif grep -q '"check": "table", "verdict": "PASS"' results_corrupt.json; then
    echo "corrupt run: some corrupted table still PASSED check 1"; [ $rc -lt 1 ] && rc=1
  else
    echo "corrupt run: every corrupted table failed check 1, as it must"
  fi
fi
exit $rc
