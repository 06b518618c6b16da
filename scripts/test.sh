#!/usr/bin/env bash
# README command 2: install what is missing, build everything, run the whole test suite:
#   1. the main build's ctest (unit, golden, oracle, JIT bitwise, cache, W^X, ISA, CLI, package)
#   2. the hardening lanes (scripts/sanitize.sh): ASan+UBSan+LSan suite, TSan stress, fuzz smoke
#   3. the AVX-512 lane (tests/emu/lane.sh): the avx512_core kernels, bit for bit against the
#      reference, under Bochs with an AVX-512 CPU model (first use builds the guest kernel, ~5 min)
# Ends with one line "xinterp: N passed, 0 failed, S skipped" over every step (skips say why in
# their test output). XINTERP_QUICK=1 runs step 1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${BUILD_DIR:-build}
jobs=$(nproc)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
passed=0 skipped=0
# Adds the counts a step printed: ctest "... out of N" (whose N includes skipped tests, listed
# as "(Skipped)"), gtest "[  PASSED  ] N tests", or a plain "N passed, 0 failed". A skip is
# counted as a skip, never a pass. A failing step has already stopped the script (set -e).
count() {
  local n s
  n=$(grep -hoE 'tests passed, 0 tests failed out of [0-9]+|\[  PASSED  \] [0-9]+ test|^[0-9]+ passed, 0 failed' "$1" |
      grep -oE '[0-9]+' | awk '{ if ($0 != 0) s += $0 } END { print s + 0 }')
  s=$(grep -cE '^[[:space:]]+[0-9]+ - .*\(Skipped\)' "$1" || true)
  passed=$((passed + n - s))
  skipped=$((skipped + s))
}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs" | tee "$logs/main"
count "$logs/main"
if [ "${XINTERP_QUICK:-0}" != 1 ]; then
  bash scripts/sanitize.sh asan tsan fuzz | tee "$logs/lanes"
  count "$logs/lanes"
  passed=$((passed + 1))  # the fuzz smoke run: it exits non-zero on any crash
  echo "== lane avx512-emu: avx512_core kernels under Bochs (tigerlake)"
  # The sweep (tests/emu/emu_sweep.cpp) and the gtest JIT sweeps (Bochs' f16 tie bug classified
  # by tests/emu/bochs_f16.hpp), the latter in seven guest runs of under three minutes of emulated
  # time each: one guest run of them all went idle for good in its last test, about 200 s in,
  # while each part passes alone. The seventh came out of the second and fourth, which had
  # grown to 185 and 188 s of test time (Xeon dev VM, 2026-12-06): now about 114, 113 and
  # 147. At 512 bits for every problem (XINTERP_TEST_FLAVOR): Bochs'
  # tigerlake model may count as a slow-gather Intel model, where automatic hints would give
  # W-downsampled rows the 256-bit kernels. Where the main ctest already ran the JIT suites
  # natively at avx512_core/512 (a host with AVX-512: the flavors of tests/CMakeLists.txt),
  # these groups would run the same tests again under emulation (~12 min of a ~34 min run on
  # the Sapphire Rapids class VM), so each is skipped there, saying why. The sweep runs in the
  # guest on every host, so the lane's tooling stays exercised.
  # Bochs emulates on one thread, so the guest runs go $jobs at a time (each has its own work
  # directory; the guest kernel's cache is built under a lock): on the 2-core Zen 3 dev VM the
  # sweep and six groups took 14 min one after another, and .ci/run 29 min; two at a time,
  # .ci/run 19 min.
  native=0
  if grep -qE 'avx512_core(_512)?/jit_bitwise\.random_ratio_sweep .*Passed' "$logs/main"; then native=1; fi
  cmake --build "$build" --target xinterp_emu_sweep xinterp_tests >/dev/null
  runs=("")  # the sweep, then the gtest groups
  for filter in \
    'jit_bitwise.tails_1d:jit_bitwise.ratios_2d:jit_bitwise.odd_3d:jit_bitwise.special_values:jit_bitwise.threads_1_and_2:jit_bitwise.runtime_sizes*:jit_bitwise.linear_tap_pairs:cache_test.*' \
    'jit_bitwise.non_temporal_nxc_nearest_row_stream:jit_bitwise.nxc_nearest_row_pairs:jit_bitwise.nxc_linear_row_pairs:jit_bitwise.nxc_linear_same_runs:jit_bitwise.nxc_run_pixel_pairs:jit_bitwise.nxc_nt_lines:jit_bitwise.linear_up2_groups:jit_bitwise.linear_h2_pairs:jit_bitwise.linear_periodic_run' \
    'jit_bitwise.nxc_linear_d_pairs:jit_bitwise.nxc_d_pair_cols:jit_bitwise.row_spans:jit_bitwise.row_spans_through_runs:jit_bitwise.nxc_linear_separable_by_channels:jit_bitwise.nxc_linear_pairs_by_pixel_lines:jit_bitwise.nxc_w_step_pixel_pairs' \
    'jit_bitwise.ncx_unit_axes_views:jit_bitwise.nxc_split_pixel_planes:jit_bitwise.nxc_single_channel_views:jit_bitwise.ncx_flat_volumes:jit_bitwise.ncx_nearest_flat_volumes:jit_bitwise.ncx_flat_wplanes:jit_bitwise.nxc_narrow_pixels:jit_bitwise.two_window_rows:jit_bitwise.narrow_moves_at_512' \
    'jit_bitwise.nearest_plane_stream:jit_bitwise.linear_plane_stream:jit_bitwise.linear_computed_taps:jit_bitwise.nearest_computed_taps' \
    'jit_bitwise.plane_blend_d_pairs:jit_bitwise.blend_h_pairs:jit_bitwise.blend_rows_stored_aligned:jit_bitwise.nearest_plane_rows_stored_aligned:jit_bitwise.nearest_row_mode_rows_stored_aligned:jit_bitwise.blend_word_pairs:jit_bitwise.wplane_columns:jit_bitwise.nearest_row_mode_pairs:jit_bitwise.nearest_word_pairs' \
    'jit_bitwise.random_ratio_sweep:jit_bitwise.prefetched_rows:bf16_clean.*'; do
    if [ "$native" = 1 ]; then
      echo "skipped: emulated gtest group '$filter': this host ran these tests natively at avx512_core/512 in the main ctest"
      skipped=$((skipped + 1))
    else
      runs+=("$filter")
    fi
  done
  emu_run() {  # run i of runs: its output in $logs/emu_$i, its exit status in $logs/emu_$i.rc
    local rc=0
    if [ -z "${runs[$1]}" ]; then
      EMU_NO_BUILD=1 bash tests/emu/lane.sh "$build" > "$logs/emu_$1" 2>&1 || rc=$?
    else
      EMU_NO_BUILD=1 EMU_ENV=XINTERP_TEST_FLAVOR=avx512_core/512 EMU_TARGET=xinterp_tests \
        bash tests/emu/lane.sh "$build" --gtest_filter="${runs[$1]}" > "$logs/emu_$1" 2>&1 || rc=$?
    fi
    echo "$rc" > "$logs/emu_$1.rc"
  }
  running=0
  for i in "${!runs[@]}"; do
    if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
    echo "emulated run $i started: ${runs[$i]:-the sweep (tests/emu/emu_sweep.cpp)}"
    emu_run "$i" &
    running=$((running + 1))
  done
  wait || true
  emu_failed=0
  for i in "${!runs[@]}"; do
    cat "$logs/emu_$i"
    count "$logs/emu_$i"
    if [ "$(cat "$logs/emu_$i.rc" 2>/dev/null || echo 1)" != 0 ]; then
      echo "FAILED: emulated run $i ${runs[$i]:+(gtest group '${runs[$i]}')}"
      emu_failed=1
    fi
  done
  [ "$emu_failed" = 0 ]
fi
echo "xinterp: $passed passed, 0 failed, $skipped skipped"
