#!/usr/bin/env bash
# Installs the built tree into a scratch prefix, then builds and runs a consumer against it,
# once through the CMake package and once through pkg-config.
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
libdir=$(find "$work/prefix" -name 'libxinterp.so*' -printf '%h\n' | head -1)
cmake -S "$src/examples/consumer" -B "$work/cm" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cm" >/dev/null
LD_LIBRARY_PATH="$libdir" "$work/cm/consumer"
PKG_CONFIG_PATH="$libdir/pkgconfig" g++ "$src/examples/consumer/main.cpp" -o "$work/pc" \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs xinterp)
LD_LIBRARY_PATH="$libdir" "$work/pc"
