#!/usr/bin/env bash
# tma_run.sh: the GPU side of `cargo xtask gpu-tma`; needs nvcc and a GPU (or, with `host`, only
# g++ and the CUDA headers), no Rust.
#
#   tma_run.sh DIR          build tma_check from DIR (tma_check.cu{,h}, tma_parts.cuh,
#                           tma_part*.cu), run it (results.txt) and its corrupted twin
#                           (results_corrupt.txt); device.txt, build.log
#   tma_run.sh host DIR     g++ -DTMA_HOST_ONLY: CuTe's host side only (host_args.txt): every
#                           case's make_tma_copy and partitions, no GPU
#
# CUTE_INCLUDE: the CUTLASS include folder; CUDA_INCLUDES (host mode): the CUDA header folders,
# colon-separated. A part that fails to build is built case by case (-DONLY_CASE=N); a case that
# does not build reports `error not-built`. A run that stops (an assert in CuTe's host code, a
# CUDA error) is restarted after the case it stopped in, which reports `error crashed`.
# REUSE=1 keeps a tma_check already built in DIR. Exit: 0 done, 2 build error, 3 no GPU.
set -u
# Runs $BIN over every case into $1 (flags $2), restarting after a case that stops it.
run_all() {
  local out=$1 flag=$2 from=0 rc last
  rm -f "$out"
  while :; do
    $BIN $flag --from $from --out "$out"
    rc=$?
    [ $rc -eq 0 ] && break
    last=$(grep -E '^(begin|args|case) [0-9]+' "$out" | tail -1)
    id=$(echo "$last" | awk '{print $2}')
    [ -n "$id" ] || break
    case $last in
      begin*|args*) echo "case $id error crashed rc=$rc" >> "$out" ;;
    esac
    from=$((id + 1))
    [ $from -lt "$N" ] || break
  done
}
if [ "${1:-}" = host ]; then
  DIR=$2
  cd "$DIR" || exit 2
  INC=""
  IFS=: read -ra dirs <<< "${CUDA_INCLUDES:-}"
  for d in "${dirs[@]}"; do INC="$INC -I$d"; done
  CXX=${CXX:-g++}
  FLAGS="-std=c++17 -O0 -x c++ -DTMA_HOST_ONLY -D__CUDACC_VER_MAJOR__=12 -D__CUDACC_VER_MINOR__=9 -I. -I$CUTE_INCLUDE $INC"
  objs=""
  for f in tma_check.cu tma_part*.cu; do
    o=host_${f%.cu}.o
    objs="$objs $o"
    $CXX $FLAGS -c "$f" -o "$o" > "host_${f%.cu}.log" 2>&1 &
    while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-2}" ]; do sleep 1; done
  done
  wait
  fail=0
  for f in host_*.log; do [ -s "$f" ] && grep -q "error" "$f" && { echo "host build failed: $f"; fail=1; }; done
  [ $fail = 0 ] || exit 2
  $CXX -o tma_host $objs || exit 2
  N=$(grep -c '^extern int tma_case_' tma_parts.cuh)
  BIN=./tma_host run_all host_args.txt ""
  exit 0
fi
DIR=$1
cd "$DIR" || exit 2
command -v nvcc >/dev/null || { echo "tma_run.sh: no nvcc on PATH"; exit 3; }
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
[ -n "$CAP" ] || { echo "tma_run.sh: nvidia-smi lists no GPU"; exit 3; }
ARCH=sm_${CAP}
[ "$CAP" = 90 ] && ARCH=sm_90a
N=$(grep -c '^extern int tma_case_' tma_parts.cuh)
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -1)"
  echo "nvcc: $(nvcc --version | tail -2 | tr '\n' ' ')"
  echo "arch: $ARCH"
  echo "cases: $N"
} | tee -a device.txt
if [ -n "${REUSE:-}" ] && [ -x tma_check ]; then
  echo "build: reused" | tee -a device.txt
else
  NV="nvcc -std=c++17 -O1 -arch=$ARCH --expt-relaxed-constexpr -I. -I$CUTE_INCLUDE"
  JOBS=${JOBS:-$(nproc)}
  t0=$(date +%s)
  : > build.log
  for f in tma_check.cu tma_part*.cu; do
    ( $NV -c "$f" -o "${f%.cu}.o" > "${f%.cu}.log" 2>&1 || echo "FAILED $f" >> build.log ) &
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 1; done
  done
  wait
  grep -q "FAILED tma_check.cu" build.log && { cat tma_check.log; exit 2; }
  # A part that failed: its cases one by one.
  for f in $(grep FAILED build.log | awk '{print $2}'); do
    head -c 3000 "${f%.cu}.log" >> build.log
    for id in $(grep -o '^#if !defined(ONLY_CASE) || ONLY_CASE == [0-9]*' "$f" | awk '{print $NF}'); do
      ( $NV -DONLY_CASE=$id -c "$f" -o "case_$id.o" > "case_$id.log" 2>&1 || { echo "FAILED case $id" >> build.log; rm -f "case_$id.o"; } ) &
      while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 1; done
    done
    wait
    rm -f "${f%.cu}.o"
  done
  objs=$(ls tma_check.o tma_part*.o case_*.o 2>/dev/null)
  nvcc -arch=$ARCH -o tma_check $objs >> build.log 2>&1 || { cat build.log; exit 2; }
  echo "build: $(( $(date +%s) - t0 )) s, $(grep -c 'FAILED case' build.log) cases not built" | tee -a device.txt
fi
t0=$(date +%s)
BIN=./tma_check run_all results.txt ""
echo "run: $(( $(date +%s) - t0 )) s" | tee -a device.txt
t0=$(date +%s)
BIN=./tma_check run_all results_corrupt.txt --corrupt
echo "corrupt run: $(( $(date +%s) - t0 )) s" | tee -a device.txt
exit 0
