#!/usr/bin/env python3
"""PyTorch peer for the characteristic suite.

Per case it alternates torch.nn.functional.interpolate (in this process) with
`xinterp bench --json` (a child process, same machine, same moment), and prints the per-case
medians, the ratio torch/xinterp and the geometric mean. With --peers FILE (the output of
bench_peers from the same session) it also prints the best-of-peers table for the README.

    python3 bench/torch_peer.py --build build [--threads 1] [--reps 7] [--dtype f32] [--peers FILE]

Mapping: half_pixel nearest is torch 'nearest-exact'; linear is linear/bilinear/trilinear with
align_corners=False. NCX is contiguous, NXC is channels_last(_3d) (3-D tensors: a permuted view).
Exits 0 with a clear message when torch is not importable.
"""
import argparse
import math
import statistics
import sys
import time

from suite import suite, xinterp_json

try:
    import torch
    import torch.nn.functional as F
except Exception as e:  # noqa: BLE001 - any import failure means: no peer
    print(f"# torch peer: SKIPPED, torch is not importable ({e}); install python3-torch")
    sys.exit(0)


TORCH_DT = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def torch_time(n, c, sp_in, sp_out, linear, ncx, dt, reps, warmup_ms):
    x = torch.rand([n, c] + sp_in).to(TORCH_DT[dt])
    k = len(sp_in)
    if not ncx:
        if k == 2:
            x = x.contiguous(memory_format=torch.channels_last)
        elif k == 3:
            x = x.contiguous(memory_format=torch.channels_last_3d)
        else:
            x = x.permute(0, 2, 1).contiguous().permute(0, 2, 1)
    mode = ("linear", "bilinear", "trilinear")[k - 1] if linear else "nearest-exact"
    kw = {"align_corners": False} if linear else {}
    try:
        F.interpolate(x, size=sp_out, mode=mode, **kw)
    except RuntimeError as e:
        return None, str(e).split("\n")[0]
    # Untimed calls for warmup_ms, as `xinterp bench --warmup-ms` does on its side: a fresh
    # output's page faults and the first runs' slow phase (1.9 ms -> 100 us over ~30 calls for
    # yolo_2x nearest NXC) stay out of the medians.
    end = time.perf_counter() + warmup_ms / 1e3
    while time.perf_counter() < end:
        F.interpolate(x, size=sp_out, mode=mode, **kw)
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        F.interpolate(x, size=sp_out, mode=mode, **kw)
        ts.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(ts), ""


def parse_peers(path):
    """bench_peers rows -> {(case, mode, fmt, dt): (xinterp_us, oneDNN/xinterp or None, memcpy/xinterp)}

    The ratios come from bench_peers' own columns, computed from unrounded medians: recomputing
    them from the printed (rounded) times turns 1.1 us vs 1.8 us into 1.1 vs 2."""
    rows = {}
    for line in open(path):
        f = line.split()
        if len(f) < 11 or line.startswith("#") or f[0] == "case":
            continue
        r_od = None if f[6] == "-" else float(f[6])
        rows[(f[0], f[1], f[2], f[3])] = (float(f[4]), r_od, 1.0 / float(f[8]))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternating rounds per case (torch, then xinterp); each side's time is the median of its rounds' medians")
    ap.add_argument("--warmup-ms", type=int, default=50,
                    help="untimed runs of each side, per round, before its timed ones")
    ap.add_argument("--dtype", default="all")
    ap.add_argument("--filter", default="")
    ap.add_argument("--peers", help="bench_peers output of this session, for the best-of-peers table")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    print(f"# torch {torch.__version__}, threads={a.threads}, reps={a.reps} x {a.rounds} alternating rounds, "
          f"warmup {a.warmup_ms} ms per side and round; "
          "medians in us; ratio = torch / xinterp")
    print(f"{'case':10} {'mode':7} {'fmt':3} {'dt':4} {'xinterp':>10} {'torch':>10} {'ratio':>7}")
    logs, rows = [], []
    for name, n, c, sp_in, sp_out in suite(a.build):
        if a.filter and a.filter not in name:
            continue
        for dt in ("f32", "bf16", "f16"):
            if a.dtype != "all" and dt != a.dtype:
                continue
            for linear in (False, True):
                for ncx in (True, False):
                    # Rounds alternate the two sides, so a drift of this VM hits both alike.
                    t_runs, x_runs, why = [], [], ""
                    for _ in range(a.rounds):
                        tt, why = torch_time(n, c, sp_in, sp_out, linear, ncx, dt, a.reps, a.warmup_ms)
                        if tt:
                            t_runs.append(tt)
                        x_runs.append(xinterp_json(a.build, n, c, sp_in, sp_out, linear, ncx, dt, a.reps, a.threads,
                                                  a.warmup_ms)["median_us"])
                    tt = statistics.median(t_runs) if t_runs else None
                    xt = statistics.median(x_runs)
                    mode, fmt = ("linear" if linear else "nearest"), ("NCX" if ncx else "NXC")
                    ratio = tt / xt if tt else None
                    if ratio:
                        logs.append(math.log(ratio))
                    rows.append((name, mode, fmt, dt, xt, tt))
                    print(f"{name:10} {mode:7} {fmt:3} {dt:4} {xt:10.1f} {tt if tt else float('nan'):10.1f} "
                          f"{ratio if ratio else float('nan'):7.2f} {why}", flush=True)
    if logs:
        print(f"# geomean torch/xinterp: {math.exp(sum(logs) / len(logs)):.2f}x over {len(logs)} cases")
    if a.peers:
        peers = parse_peers(a.peers)
        print("\n| case | mode | layout | dtype | xinterp µs | vs oneDNN | vs PyTorch | vs best peer | vs memcpy(dst) |")
        print("|---|---|---|---|---:|---:|---:|---:|---:|")
        best_logs = []
        for name, mode, fmt, dt, xt_torch_run, tt in rows:
            p = peers.get((name, mode, fmt, dt))
            if not p:
                continue
            xt, r_od, r_mc = p
            # Each ratio comes from its own same-process alternating run.
            r_t = tt / xt_torch_run if tt else None
            best = min(r for r in (r_od, r_t) if r) if (r_od or r_t) else None
            if best:
                best_logs.append(math.log(best))
            fmt_r = lambda r: f"{r:.2f}x" if r else "n/a"  # noqa: E731
            print(f"| {name} | {mode} | {fmt} | {dt} | {xt:.1f} | {fmt_r(r_od)} | {fmt_r(r_t)} | {fmt_r(best)} | {r_mc:.2f}x |")
        if best_logs:
            print(f"\n# geomean speedup over the best peer: {math.exp(sum(best_logs) / len(best_logs)):.2f}x over "
                  f"{len(best_logs)} cases; min {math.exp(min(best_logs)):.2f}x")


if __name__ == "__main__":
    main()
