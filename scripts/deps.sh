#!/usr/bin/env bash
# Installs, with apt-get, whichever of the Debian 12 packages xinterp needs are missing.
# Idempotent: prints nothing to install on a machine that has them all. Needs root.
#   bash scripts/deps.sh [--peers]   (--peers: also the benchmarks' peers, for bench/report.sh:
#                                     oneDNN with the OpenCL headers its CMake config asks for,
#                                     and PyTorch; large, so only on request)
set -euo pipefail
pkgs=(g++ cmake ninja-build pkg-config libxbyak-dev libcpuinfo-dev libzydis-dev
      googletest libgtest-dev libbenchmark-dev
      clang libclang-rt-14-dev libomp-14-dev)   # the sanitizer and fuzz lanes
if [ "${1:-}" = --peers ]; then pkgs+=(libdnnl-dev ocl-icd-opencl-dev python3-torch); fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
