#!/usr/bin/env python3
"""Primitive creation costs over the suite (issue goal: cold <= 50 us median, cache hit <= 1 us).

Runs `xinterp bench --json` once per suite case x {nearest, linear} x {NCX, NXC} x {f32, bf16}
and summarises create_us (median cold creation: tables + JIT, cache miss) and cache_hit_us.
  python3 bench/creation.py --build BUILD_DIR
"""
import argparse
import statistics

from suite import suite, xinterp_json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    a = ap.parse_args()
    cold, hit, slow = [], [], []
    for name, n, c, sp_in, sp_out in suite(a.build):
        for ncx in (True, False):
            for mode in ("nearest", "linear"):
                for dt in ("f32", "bf16"):
                    j = xinterp_json(a.build, n, c, sp_in, sp_out, mode == "linear", ncx, dt, 1, 1, warmup_ms=0)
                    cold.append(j["create_us"])
                    hit.append(j["cache_hit_us"])
                    if j["create_us"] > 50:
                        slow.append(f'{j["kernel"]} ({name} {mode} {"NCX" if ncx else "NXC"} {dt}): {j["create_us"]:.1f} us')
    print(f"# creation over {len(cold)} kernels (the suite in f32 and bf16), 1 thread")
    print(f"cold (cache miss, tables + JIT): min {min(cold):.1f} us, median {statistics.median(cold):.1f} us, "
          f"max {max(cold):.1f} us; {len(slow)} over 50 us")
    for s in slow:
        print(f"  over 50 us: {s}")
    print(f"cache hit: min {min(hit):.2f} us, median {statistics.median(hit):.2f} us, max {max(hit):.2f} us")


if __name__ == "__main__":
    main()
