#!/usr/bin/env bash
# Regenerates the README performance table in one session: bench_peers (xinterp vs oneDNN vs
# memcpy, alternating, same process), then bench/torch_peer.py (xinterp vs PyTorch, alternating
# per case) merged into the best-of-peers table, then bench_floors (each case's read and write
# floors on this machine, and oneDNN's distance to them), bench_floors --scale 2 (the large cases
# and their floors at 1 and 2 threads), bench_dtypes (the real-model cases in f32, bf16 and f16,
# alternating in one process), bench_isas (the tiers and widths the host runs), bench_sweep
# (150 random shapes against oneDNN) and bench/creation.py (creation costs); bench/tables.py
# turns the outputs into the README's tables ($out/tables.md). 1 thread unless THREADS is set.
#   bash bench/report.sh [BUILD_DIR]     (installs the peers, libdnnl-dev and python3-torch, with
#                                        scripts/deps.sh --peers, and configures BUILD_DIR to see them)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
threads=${THREADS:-1}
out=${OUT_DIR:-$build/bench-report}
mkdir -p "$out"
bash scripts/deps.sh --peers
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target bench_peers bench_floors bench_dtypes bench_isas bench_sweep xinterp_cli >/dev/null
"$build/bench/bench_peers" --threads "$threads" --reps 15 | tee "$out/peers.txt"
/usr/bin/python3 bench/torch_peer.py --build "$build" --threads "$threads" --reps 15 --peers "$out/peers.txt" | tee "$out/torch.txt"
# The physical floors of each case (read the needed src lines; write the dst bytes), same process.
"$build/bench/bench_floors" --threads "$threads" --reps 15 | tee "$out/floors.txt"
# Thread scaling of the large cases beside their floors' own, alternating in one process.
"$build/bench/bench_floors" --large --scale 2 --reps 9 | tee "$out/scaling.txt"
# 16-bit against f32: the same problem in the three dtypes, alternating, same process.
"$build/bench/bench_dtypes" --threads "$threads" --reps 18 | tee "$out/dtypes.txt"
# The JIT tiers and widths this host runs, against each other (skipped with one tier).
"$build/bench/bench_isas" --threads "$threads" --reps 11 | tee "$out/isas.txt"
# Random shapes against oneDNN: the cases the suite does not name.
"$build/bench/bench_sweep" --shapes 150 --threads "$threads" | tee "$out/sweep.txt"
# Creation: cold (tables + JIT) and cache-hit costs over the suite in f32 and bf16.
/usr/bin/python3 bench/creation.py --build "$build" | tee "$out/creation.txt"
/usr/bin/python3 bench/tables.py "$out" > "$out/tables.md"
echo "report: the README tables are in $out/tables.md"
