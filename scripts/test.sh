#!/usr/bin/env bash
# README command 2: install what is missing, build everything, run the whole test suite:
#   1. the main build's ctest (unit, golden, oracle, JIT bitwise, cache, W^X, ISA, CLI, package)
#   2. the hardening lanes (scripts/sanitize.sh): ASan+UBSan+LSan suite, TSan stress, fuzz smoke
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
fi
