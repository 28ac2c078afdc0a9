#!/usr/bin/env bash
# access_run.sh: the GPU side of `cargo xtask gpu --access`; needs nvcc, ncu and a GPU, no Rust.
#
#   access_run.sh SRC_DIR CASES OUT_DIR
#
# Builds access_check.cu for the device's architecture, dumps its SASS (the loads it runs), and
# runs it under Nsight Compute on CASES (one kernel launch per case, in file order), writing
# OUT_DIR/device.txt, OUT_DIR/ncu.csv (ncu's raw CSV: per launch, the four counters) and
# OUT_DIR/sass.txt. Exit: 0 done, 2 build/run error, 3 no GPU.
set -u
SRC=$1 CASES=$2 OUT=$3
mkdir -p "$OUT"
command -v nvcc >/dev/null || { echo "access_run.sh: no nvcc on PATH"; exit 3; }
command -v ncu >/dev/null || { echo "access_run.sh: no ncu on PATH"; exit 3; }
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
[ -n "$CAP" ] || { echo "access_run.sh: nvidia-smi lists no GPU"; exit 3; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -1)"
  echo "nvcc: $(nvcc --version | tail -2 | tr '\n' ' ')"
  echo "ncu: $(ncu --version | tail -1)"
  echo "arch: sm_$CAP"
  echo "cases: $(grep -vc '^#' "$CASES")"
} | tee "$OUT/device.txt"
WORK=${WORK:-$PWD}
BIN=$WORK/access_check
nvcc -std=c++17 -O2 -arch=sm_$CAP -o "$BIN" "$SRC/access_check.cu" || exit 2
cuobjdump --dump-sass "$BIN" | grep -E "Function|LDG|LDS|LD\.|LDC|STG" > "$OUT/sass.txt"
METRICS=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
# ncu in chunks of CHUNK cases (default 250; one ncu.csv block each, appended in order), stopping
# before a chunk when DEADLINE seconds (default: none) have passed: what was measured comes back.
CHUNK=${CHUNK:-250}
DEADLINE=${DEADLINE:-0}
start=$(date +%s)
grep -v '^#' "$CASES" | split -l "$CHUNK" -d -a 4 - "$WORK/chunk_"
: > "$OUT/ncu.csv"
rc=0
for c in "$WORK"/chunk_*; do
  now=$(( $(date +%s) - start ))
  if [ "$DEADLINE" != 0 ] && [ "$now" -ge "$DEADLINE" ]; then echo "deadline: stopped before $(basename "$c")" | tee -a "$OUT/device.txt"; break; fi
  ncu --clock-control none --metrics "$METRICS" --csv --page raw --print-units base "$BIN" "$c" >> "$OUT/ncu.csv" 2>> "$OUT/ncu.err" || { rc=$?; break; }
  echo "$(basename "$c"): $(( $(date +%s) - start )) s"
done
echo "ncu: exit $rc, $(( $(date +%s) - start )) s" | tee -a "$OUT/device.txt"
[ $rc = 0 ] || { tail -20 "$OUT/ncu.err"; exit 2; }
exit 0
