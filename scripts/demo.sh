#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the demo (create a primitive,
# execute it, check it against the reference, print timing and the kernel's asm head).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target xinterp_demo xinterp_cli
"$build/xinterp_demo"
