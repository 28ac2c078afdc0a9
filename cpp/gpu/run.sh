#!/usr/bin/env bash
# run.sh: the GPU side of `cargo xtask gpu`; needs nvcc, nvidia-smi and a GPU, but no Rust.
#
#   run.sh SRC_DIR WORK_DIR CUTE_INCLUDE MODE [SEED]
#
# SRC_DIR holds this folder's sources; WORK_DIR holds the tables files that `cargo xtask gpu`
# wrote (tables.txt, tables_xor.txt, tables_corrupt.txt) and receives the binaries, logs and
# results_*.json. MODE: normal (checks 1-3), corrupt (check 1 on the corrupted tables), all (both).
# The architecture is the device's own (nvidia-smi's compute_cap). Exit: 0 all pass, 1 some
# check failed (or, in corrupt mode, some corruption went unnoticed), 2 build/run error, 3 no GPU.
set -u
SRC=$1 WORK=$2 INC=$3 MODE=$4 SEED=${5:-}
cd "$WORK" || exit 2
command -v nvcc >/dev/null || { echo "run.sh: no nvcc on PATH"; exit 3; }
command -v nvidia-smi >/dev/null || { echo "run.sh: no nvidia-smi on PATH"; exit 3; }
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
[ -n "$CAP" ] || { echo "run.sh: nvidia-smi lists no GPU"; exit 3; }
ARCH=sm_$CAP
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -1)"
  echo "nvcc: $(nvcc --version | tail -2 | tr '\n' ' ')"
  echo "arch: $ARCH"
  echo "host: $(uname -srm)"
} | tee device.txt

SEEDARG=()
[ -n "$SEED" ] && SEEDARG=(--seed "$SEED")
NVCC=(nvcc -std=c++17 -O2 -arch="$ARCH" -I"$SRC" -I"$INC" --expt-relaxed-constexpr)
rc=0

build() {  # build NAME SOURCE EXTRA...
  local name=$1 src=$2; shift 2
  echo "== build $name ($ARCH)"
  if "${NVCC[@]}" "$@" "$SRC/$src" -o "$name" >"build_$name.log" 2>&1; then
    echo "   ok"; return 0
  else
    echo "   FAILED (build_$name.log):"; head -30 "build_$name.log"; return 1
  fi
}

# The three builds run side by side; the xor build is separate so that a toolchain that
# rejects xor.popc for this architecture only loses those atoms.
if [ "$MODE" = normal ] || [ "$MODE" = all ]; then
  build mma_check_xor mma_check.cu -DWITH_XOR > build_xor.out 2>&1 & PX=$!
  build cute_gemm cute_gemm.cu > build_cute.out 2>&1 & PC=$!
fi
build mma_check mma_check.cu || exit 2
if [ "$MODE" = normal ] || [ "$MODE" = all ]; then
  HAVE_XOR=0; wait $PX && HAVE_XOR=1; cat build_xor.out
  HAVE_CUTE=0; wait $PC && HAVE_CUTE=1; cat build_cute.out
  echo "== check 1 + 3: engine tables on silicon, ownership"
  ./mma_check tables.txt results_tables.json "${SEEDARG[@]}" 2>&1 | tee run_tables.log
  r=${PIPESTATUS[0]}; [ $r -gt $rc ] && rc=$r
  if [ -s tables_xor.txt ]; then
    echo "== check 1 + 3, b1 xor.popc atoms (own process: an illegal instruction must not stop the rest)"
    if [ $HAVE_XOR = 1 ]; then
      ./mma_check_xor tables_xor.txt results_xor.json "${SEEDARG[@]}" 2>&1 | tee run_xor.log
      r=${PIPESTATUS[0]}; [ $r = 2 ] && echo "xor.popc run failed with a CUDA error (rc 2): see run_xor.log"
      [ $r = 1 ] && rc=$(( rc > 1 ? rc : 1 ))
    else
      echo "xor.popc atoms not built: see build_mma_check_xor.log"
    fi
  fi
  echo "== check 2: CuTe make_tiled_mma + gemm"
  if [ $HAVE_CUTE = 1 ]; then
    ./cute_gemm results_cute.json "${SEEDARG[@]}" 2>&1 | tee run_cute.log
    r=${PIPESTATUS[0]}; [ $r -gt $rc ] && rc=$r
  else
    rc=2
  fi
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
