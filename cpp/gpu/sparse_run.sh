#!/usr/bin/env bash
# sparse_run.sh: the GPU side of `cargo xtask gpu-sparse`; needs nvcc, nvidia-smi and an sm_90
# GPU, but no Rust.
#
#   sparse_run.sh SRC_DIR WORK_DIR CUTE_INCLUDE [SEED]
#
# WORK_DIR holds what the xtask generated (sparse_tables.txt, sparse_tables_corrupt.txt,
# gen_sparse_parts.hpp, sparse_part*.cu) and receives the binary, logs, device.txt,
# results_sparse.json (every atom must PASS) and results_sparse_corrupt.json (every atom must
# FAIL). Exit: 0 both as they must be, 1 not, 2 build/run error, 3 no sm_90 GPU.
set -u
SRC=$(cd "$1" && pwd) WORK=$2 INC=$3 SEED=${4:-}
cd "$WORK" || exit 2
command -v nvcc >/dev/null || { echo "sparse_run.sh: no nvcc on PATH"; exit 3; }
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
[ "$CAP" = 90 ] || { echo "sparse_run.sh: no sm_90 GPU (compute_cap '$CAP')"; exit 3; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -1)"
  echo "nvcc: $(nvcc --version | tail -2 | tr '\n' ' ')"
  echo "arch: -gencode=arch=compute_90a,code=sm_90a"
} | tee device.txt
export NVCC_FLAGS="-std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -I$SRC -I$PWD -I$INC --expt-relaxed-constexpr"
mkdir -p obj
UNITS="$SRC/sparse_check.cu $(ls "$PWD"/sparse_part*.cu)"
t0=$(date +%s)
echo $UNITS | tr ' ' '\n' | xargs -P "$(nproc)" -I{} sh -c 'n=$(basename {} .cu); nvcc $NVCC_FLAGS -c {} -o obj/$n.o > obj/$n.log 2>&1 || { echo "FAILED $n"; head -40 obj/$n.log; }' | tee build.log
nvcc $NVCC_FLAGS obj/*.o -o sparse_check > build_link.log 2>&1 || { echo "link FAILED"; cat build_link.log; exit 2; }
echo "built in $(( $(date +%s) - t0 )) s"
SEEDARG=()
[ -n "$SEED" ] && SEEDARG=(--seed "$SEED")
./sparse_check sparse_tables.txt results_sparse.json "${SEEDARG[@]}" 2>&1 | tee run_sparse.log
rc=${PIPESTATUS[0]}
./sparse_check sparse_tables_corrupt.txt results_sparse_corrupt.json "${SEEDARG[@]}" 2>&1 | tee run_sparse_corrupt.log
r=${PIPESTATUS[0]}
if [ $r = 2 ]; then rc=2
elif grep -q '"verdict": "PASS"' results_sparse_corrupt.json; then
  echo "corrupt run: some permuted metadata layout still PASSED"; [ $rc -lt 1 ] && rc=1
else
  echo "corrupt run: every permuted metadata layout failed, as it must"
fi
exit $rc
