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
# The counters: the first run's four for the loads; for the other instructions the shared-memory
# wavefronts and bank conflicts of their own op (and of the op ncu may file them under), for
# cp.async also its global sectors and requests; plus the shared totals. Each is asked for only
# when this ncu knows it (ncu --query-metrics, kept as metrics.txt).
ncu --query-metrics > "$OUT/metrics.txt" 2>&1 || true
grep -q l1tex__ "$OUT/metrics.txt" || ncu --query-metrics --chip "$(ncu --list-chips 2>/dev/null | tr ', ' '\n\n' | grep -m1 gh100 || echo gh100)" > "$OUT/metrics.txt" 2>&1 || true
have() { grep -qE "^[[:space:]]*$1([[:space:]]|$)" "$OUT/metrics.txt"; }
LOADS=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics_for() {
  local group=$1 list="" m
  local ops=""
  case $group in
    ld) echo "$LOADS"; return ;;
    st) ops="st" ;;
    ldsm) ops="ldsm ld" ;;
    stsm) ops="stsm st" ;;
    cp) ops="ldgsts" ;;
  esac
  local cands="l1tex__data_pipe_lsu_wavefronts_mem_shared l1tex__data_bank_conflicts_pipe_lsu_mem_shared"
  for o in $ops; do cands="$cands l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$o l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$o"; done
  if [ "$group" = cp ]; then
    for w in sectors requests; do for sfx in "" _cache_access _cache_bypass; do cands="$cands l1tex__t_${w}_pipe_lsu_mem_global_op_ldgsts$sfx"; done; done
  fi
  for m in $cands; do have "$m" && list="$list,$m.sum"; done
  echo "${list#,}"
}
group_of() {
  case $1 in
    g|s) echo ld ;;
    ss) echo st ;;
    lm*) echo ldsm ;;
    sm*) echo stsm ;;
    cp*) echo cp ;;
    *) echo bad ;;
  esac
}
# ncu in chunks of CHUNK cases (default 250) of one group of instructions (one ncu.csv block
# each, appended in order), stopping before a chunk when DEADLINE seconds (default: none) have
# passed: what was measured comes back.
CHUNK=${CHUNK:-250}
DEADLINE=${DEADLINE:-0}
start=$(date +%s)
rm -f "$WORK"/chunk_*
grep -v '^#' "$CASES" | awk -v chunk="$CHUNK" -v dir="$WORK" '
  function group(k) { if (k == "g" || k == "s") return "ld"; if (k == "ss") return "st"; if (k ~ /^lm/) return "ldsm"; if (k ~ /^sm/) return "stsm"; if (k ~ /^cp/) return "cp"; return "bad" }
  { g = group($2); if (g != last || n >= chunk) { c++; n = 0; last = g } n++; f = sprintf("%s/chunk_%04d_%s", dir, c, g); print > f }'
: > "$OUT/ncu.csv"
rc=0
for c in "$WORK"/chunk_*; do
  now=$(( $(date +%s) - start ))
  if [ "$DEADLINE" != 0 ] && [ "$now" -ge "$DEADLINE" ]; then echo "deadline: stopped before $(basename "$c")" | tee -a "$OUT/device.txt"; break; fi
  METRICS=$(metrics_for "${c##*_}")
  [ -n "$METRICS" ] || { echo "no metrics for $(basename "$c")"; rc=2; break; }
  echo "$(basename "$c"): $METRICS" >> "$OUT/device.txt"
  ncu --clock-control none --metrics "$METRICS" --csv --page raw --print-units base "$BIN" "$c" >> "$OUT/ncu.csv" 2>> "$OUT/ncu.err" || { rc=$?; echo "$(basename "$c"): ncu exit $rc" | tee -a "$OUT/device.txt"; [ "${KEEP_GOING:-0}" = 1 ] || break; }
  echo "$(basename "$c"): $(( $(date +%s) - start )) s"
done
echo "ncu: exit $rc, $(( $(date +%s) - start )) s" | tee -a "$OUT/device.txt"
[ $rc = 0 ] || { tail -20 "$OUT/ncu.err"; exit 2; }
exit 0
