#!/usr/bin/env bash
# README command 2: install what is missing, build everything, run the whole test suite:
#   1. the main build's ctest (unit, golden, oracle, JIT bitwise, cache, W^X, ISA, CLI, package)
#   2. the hardening lanes (scripts/sanitize.sh): ASan+UBSan+LSan suite, TSan stress, fuzz smoke
#   3. the AVX-512 lane (tests/emu/lane.sh): the avx512_core kernels, bit for bit against the
#      reference, under Bochs with an AVX-512 CPU model (first use builds the guest kernel, ~5 min)
# XINTERP_QUICK=1 runs step 1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${BUILD_DIR:-build}
jobs=$(nproc)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"
if [ "${XINTERP_QUICK:-0}" != 1 ]; then
  bash scripts/sanitize.sh asan tsan fuzz
  echo "== lane avx512-emu: avx512_core kernels under Bochs (tigerlake)"
  bash tests/emu/lane.sh "$build"
  # The gtest JIT sweeps too (Bochs' f16 tie bug classified by tests/emu/bochs_f16.hpp).
  EMU_TARGET=xinterp_tests bash tests/emu/lane.sh "$build" \
    --gtest_filter='jit_bitwise.tails_1d:jit_bitwise.ratios_2d:jit_bitwise.odd_3d:jit_bitwise.special_values:jit_bitwise.threads_1_and_2:jit_bitwise.runtime_sizes*:cache_test.*'
fi
