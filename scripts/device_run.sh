#!/usr/bin/env bash
# One run on a lent device machine's host CPU (a many-core x86 server part, often with AVX-512,
# AVX512-BF16/FP16 and AMX): the JIT suites natively at every tier and width, the soaks on up to
# all its cores, then the bench report's C++ parts on one pinned core and the thread scaling.
# That machine has no packages, so the executables travel with their shared libraries:
#   ../shared/tools/device-isa-check.sh prepare build build/tests/xinterp_tests \
#       build/tests/xinterp_soak build/bench/bench_peers build/bench/bench_floors \
#       build/bench/bench_dtypes build/bench/bench_isas build/bench/bench_sweep build/xinterp
# then the device tool's run: command "bash scripts/device_run.sh", carry [".device"], about
# 5 minutes on a 16-core host. Everything lands in at most 8 files under $OUT (the tool brings
# back a handful): run.log (CPU, xinterp info, test and soak results, timings), tests.txt
# (the gtest tails), peers.txt, floors.txt, dtypes.txt, isas.txt, sweep.txt, scaling.txt
# (the thread scaling, then the NT threshold's runs: NT for every dst, then plain).
# DEVICE_RUN_QUICK=1: a few seconds of each step, for a dry run here.
set -u
cd "$(dirname "$0")/.."
d=$PWD/.device
O=${OUT:-/tmp/device-run}
mkdir -p "$O"
[ -x "$d/lib/ld-linux-x86-64.so.2" ] || { echo "no .device/: run device-isa-check.sh prepare first" | tee "$O/run.log"; exit 1; }
quick=${DEVICE_RUN_QUICK:-0}
soak_s=60 soak16_s=45 reps=15
[ "$quick" = 1 ] && soak_s=3 soak16_s=3 reps=3
cores=$(nproc)
# Each carried executable runs under the carried loader and libraries: "${ld[@]}" "$d/bin/EXE"
# (an array, so that env, timeout and taskset can start it too).
ld=("$d/lib/ld-linux-x86-64.so.2" --library-path "$d/lib")
log() { echo "$*" | tee -a "$O/run.log"; }
t0=$(date +%s)
: > "$O/run.log"
: > "$O/tests.txt"
{
  echo "== cpu"
  lscpu | grep -E 'Model name|Socket|Core|Thread|NUMA node\(s\)|L1d|L2|L3'
  echo "cores: $cores"
  grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E 'avx|amx|fma|f16c' | tr '\n' ' '
  echo
  echo "== xinterp info"
  "${ld[@]}" "$d/bin/xinterp" info
} >> "$O/run.log" 2>&1

# The JIT suites at every tier and width (those the host lacks skip, saying why), the whole
# suite at the default tier, and the JIT suites with every core's thread: in parallel, 2 OMP
# threads each but the last; the soaks beside them.
jit='jit_bitwise.*:bf16_clean.*:edges.*'
[ "$quick" = 1 ] && jit='jit_bitwise.tails_1d:jit_bitwise.threads_1_and_2:edges.*'
suite() {  # name, OMP threads, XINTERP_TEST_FLAVOR or "", gtest filter or ""
  local out="$O/test_$1.tmp"
  OMP_NUM_THREADS=$2 XINTERP_TEST_FLAVOR=$3 "${ld[@]}" "$d/bin/xinterp_tests" ${4:+--gtest_filter="$4"} > "$out" 2>&1
  echo "exit=$?" >> "$out"
}
suite default 2 "" "$([ "$quick" = 1 ] && echo "$jit")" &
for f in avx2 avx512_core/256 avx512_core/512 avx512_core_bf16/256 avx512_core_bf16/512; do
  suite "${f//\//_}" 2 "$f" "$jit" &
done
suite "threads$cores" "$cores" "" "$jit" &
soak() {  # name, env assignment or "", soak args
  local name=$1 envs=$2
  shift 2
  env $envs "${ld[@]}" "$d/bin/xinterp_soak" "$@" > "$O/soak_$name.tmp" 2>&1
  echo "exit=$?" >> "$O/soak_$name.tmp"
}
soak default "" --seconds "$soak_s" --seed 81 &
soak nt "XINTERP_NT_MIN_BYTES=4096" --seconds "$soak_s" --seed 82 &
soak core "XINTERP_MAX_CPU_ISA=avx512_core" --seconds "$soak_s" --seed 83 &
wait
# Then all of the cores' threads, alone on the machine.
soak "threads$cores" "" --seconds "$soak16_s" --seed 84 --max-threads "$cores"
soak "threads${cores}_nt" "XINTERP_NT_MIN_BYTES=4096" --seconds "$soak16_s" --seed 85 --max-threads "$cores"
log "== tests and soaks, done at $(($(date +%s) - t0)) s"
for f in "$O"/test_*.tmp; do
  n=$(basename "$f" .tmp)
  log "$n: $(grep -hE '^\[  PASSED  \]|^\[  FAILED  \] [0-9]+|^\[  SKIPPED \] [0-9]+' "$f" | tr '\n' ' ')$(tail -1 "$f")"
  { echo "== $n"; tail -40 "$f"; } >> "$O/tests.txt"
done
for f in "$O"/soak_*.tmp; do
  log "$(basename "$f" .tmp): $(grep -h 'xinterp_soak\|MISMATCH\|error' "$f" | tr '\n' ' ')$(tail -1 "$f")"
done
rm -f "$O"/test_*.tmp "$O"/soak_*.tmp

# The bench report's C++ parts, 1 thread on one core (the pinning keeps a 16-core host's
# scheduler from moving it), then the scaling to 2 and to every core.
pin=$((cores > 3 ? 3 : 0))
bench() {  # output file, seconds allowed, exe and args
  local out=$1 lim=$2
  shift 2
  OMP_NUM_THREADS=1 timeout "$lim" taskset -c "$pin" "${ld[@]}" "$d/bin/$@" > "$O/$out" 2>&1
  log "$out: exit $? at $(($(date +%s) - t0)) s; $(grep -h '^# geomean' "$O/$out" | head -2 | tr '\n' ' ')"
}
filter=()
[ "$quick" = 1 ] && filter=(--filter c17)
bench peers.txt 150 bench_peers --threads 1 --reps "$reps" "${filter[@]}"
bench floors.txt 90 bench_floors --threads 1 --reps "$reps" "${filter[@]}"
bench dtypes.txt 90 bench_dtypes --threads 1 --reps "$reps" "${filter[@]}"
bench isas.txt 90 bench_isas --threads 1 --reps "$reps" "${filter[@]}"
bench sweep.txt 90 bench_sweep --shapes "$([ "$quick" = 1 ] && echo 5 || echo 150)" --threads 1
{
  for n in 2 "$cores"; do
    timeout 90 "${ld[@]}" "$d/bin/bench_floors" --large --scale "$n" \
      --reps "$([ "$quick" = 1 ] && echo 1 || echo 9)" ${filter[@]+"${filter[@]}"}
  done
} > "$O/scaling.txt" 2>&1
log "scaling.txt: exit $? at $(($(date +%s) - t0)) s"
# The NT threshold (jit/README.md, Large outputs) is set from the LLC that cpuinfo shows, which on a
# many-core VM is a guess: seg_8x (22 MiB), fpn_2x (4 MiB) and the large cases again with NT
# stores for every dst and with plain stores for every dst, beside the default runs above,
# on one pinned core (bench_peers: each dst cold between its runs) and on every core
# (bench_floors: warm). Appended to scaling.txt.
{
  for nt in 4096 1099511627776; do
    for c in seg_8x fpn_2x; do
      echo "== XINTERP_NT_MIN_BYTES=$nt bench_peers --filter $c, 1 thread"
      XINTERP_NT_MIN_BYTES=$nt OMP_NUM_THREADS=1 timeout 60 taskset -c "$pin" "${ld[@]}" "$d/bin/bench_peers" \
        --threads 1 --reps "$reps" --dtype f32 --filter "$([ "$quick" = 1 ] && echo c17 || echo $c)"
    done
    echo "== XINTERP_NT_MIN_BYTES=$nt bench_floors --large --scale $cores"
    XINTERP_NT_MIN_BYTES=$nt timeout 90 "${ld[@]}" "$d/bin/bench_floors" --large --scale "$cores" \
      --reps "$([ "$quick" = 1 ] && echo 1 || echo 9)" ${filter[@]+"${filter[@]}"}
  done
} >> "$O/scaling.txt" 2>&1
log "NT threshold runs (scaling.txt): exit $? at $(($(date +%s) - t0)) s"
log "== done at $(($(date +%s) - t0)) s"
