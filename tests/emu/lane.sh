#!/usr/bin/env bash
# The AVX-512 execution lane: runs tests/emu/emu_sweep.cpp under Bochs 2.7 with an AVX-512 CPU
# model (tigerlake) on this AVX2 machine, via tests/emu/run-avx512.sh. Debian ships libcpuinfo
# and libZydis only as shared libraries, so the program travels with every library it loads
# and this machine's dynamic loader, started by a busybox-sh wrapper.
#   bash tests/emu/lane.sh [BUILD_DIR] [ARGS...]     (EMU_TARGET picks another test target,
#                                                    e.g. EMU_TARGET=xinterp_tests ARGS=--gtest_filter=...;
#                                                    EMU_ENV=NAME=VALUE sets one more guest variable;
#                                                    EMU_NO_BUILD=1 when the target is built already,
#                                                    as for runs in parallel on one build dir)
# First use on a machine builds the guest kernel (~4.5 min, cached in $AVX512_EMU_CACHE).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
target=${EMU_TARGET:-xinterp_emu_sweep}
if [ "${EMU_NO_BUILD:-0}" != 1 ]; then cmake --build "$build" --target "$target" >/dev/null; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lib"
exe=$(find "$build/tests" -name "$target" -type f -perm -u+x | head -1)
cp "$exe" "$work/sweep"
ldd "$exe" | awk '/=> \//{print $3}' | xargs -I{} cp -L {} "$work/lib/"
cp -L /lib64/ld-linux-x86-64.so.2 "$work/lib/"
printf '#!/bin/sh\nexec /data/lib/ld-linux-x86-64.so.2 --library-path /data/lib /data/sweep "$@"\n' > "$work/wrap.sh"
chmod +x "$work/wrap.sh"
# The runner warns that the wrapper is not static: expected, the libraries travel with it.
bash tests/emu/run-avx512.sh --cpu tigerlake --timeout "${EMU_TIMEOUT:-1500}" --env XINTERP_TEST_BOCHS_F16_TIES=1 ${EMU_ENV:+--env "$EMU_ENV"} \
  --add "$work/lib:/data/lib" --add "$work/sweep:/data/sweep" "$work/wrap.sh" "$@" 2> >(grep -v 'not static' >&2)
