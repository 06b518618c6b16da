#!/usr/bin/env bash
# The hardening lanes, each in its own build directory:
#   asan  - the whole test suite under ASan + UBSan (LeakSanitizer on), gcc, but for the JIT
#           suites' reruns at the host's other tiers and widths
#   tsan  - the concurrency stress test under TSan, gcc
#   fuzz  - the libFuzzer target (clang, ASan + UBSan) for FUZZ_SECONDS (default 60) on the
#           committed corpus; a crash leaves its input in $FUZZ_ARTIFACTS for a regression test
# Usage: bash scripts/sanitize.sh [asan] [tsan] [fuzz]   (default: all three)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
lanes=("$@")
[ ${#lanes[@]} -gt 0 ] || lanes=(asan tsan fuzz)
jobs=$(nproc)
common=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXINTERP_BUILD_BENCH=OFF -DXINTERP_LIBRARY_TYPE=STATIC)
for lane in "${lanes[@]}"; do
  case "$lane" in
    asan)
      echo "== lane asan: whole suite under ASan + UBSan + LSan"
      cmake -S . -B build-asan "${common[@]}" -DXINTERP_SANITIZE=address,undefined >/dev/null
      cmake --build build-asan -j "$jobs"
      # Not the JIT suites' reruns at the host's other tiers and widths (avx2/..., avx512_core.../):
      # ASan sees the drivers and tables, which they share with the default run, not the
      # generated code, which the guard pages of every run check.
      ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j "$jobs" -E '^avx(2|512_core[a-z0-9_]*)/'
      ;;
    tsan)
      echo "== lane tsan: 8-thread create/execute/drop stress, cache capacity 4"
      cmake -S . -B build-tsan "${common[@]}" -DXINTERP_SANITIZE=thread >/dev/null
      cmake --build build-tsan -j "$jobs" --target xinterp_tests
      # One OpenMP thread: libgomp is not TSan-instrumented; the stress threads are ours.
      OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1 \
        build-tsan/tests/xinterp_tests --gtest_repeat=3 --gtest_filter='stress.*:cache_test.concurrent*:resources.concurrent*:wx.never*'
      ;;
    fuzz)
      echo "== lane fuzz: libFuzzer + ASan + UBSan, ${FUZZ_SECONDS:-60} s"
      cmake -S . -B build-fuzz "${common[@]}" -DCMAKE_CXX_COMPILER=clang++ -DXINTERP_FUZZ=ON \
        -DXINTERP_BUILD_TESTS=OFF -DXINTERP_SANITIZE=address,undefined >/dev/null
      cmake --build build-fuzz -j "$jobs" --target fuzz_interp
      art=${FUZZ_ARTIFACTS:-build-fuzz/artifacts}
      mkdir -p "$art" build-fuzz/corpus
      cp tests/fuzz/corpus/* build-fuzz/corpus/
      OMP_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=1 build-fuzz/tests/fuzz/fuzz_interp build-fuzz/corpus \
        -max_total_time="${FUZZ_SECONDS:-60}" -artifact_prefix="$art/" -print_final_stats=1 2>&1 | tail -15
      ;;
    *) echo "unknown lane '$lane' (asan, tsan, fuzz)"; exit 2 ;;
  esac
done
