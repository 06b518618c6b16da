#!/usr/bin/env python3
"""The README's performance tables, in Markdown, from one bench/report.sh output directory.

    python3 bench/tables.py build/bench-report > tables.md

Reads torch.txt (the merged best-of-peers table of bench/torch_peer.py: f32, and bf16 where a
peer takes it), dtypes.txt
(bench_dtypes: f32, bf16 and f16 alternating in one process), floors.txt and, when present,
scaling.txt (bench_floors --scale). Writes nothing else; numbers are copied, not re-derived.
"""
import sys

REAL = ("fpn_2x", "yolo_2x", "img_down", "img_up", "seg_8x", "vol_2x")


def rows_of(path, width):
    """Whitespace-split data lines of a bench text file with `width` fields."""
    out = []
    for line in open(path):
        f = line.split()
        if line.startswith("#") or len(f) != width or f[0] == "case":
            continue
        out.append(f)
    return out


def main(d):
    rows = {}
    for line in open(f"{d}/torch.txt"):
        if line.startswith("| ") and not line.startswith("| case"):
            f = [x.strip() for x in line.strip().strip("|").split("|")]
            rows[(f[0], f[1], f[2], f[3])] = f[4:]
    print("| case | mode | layout | xinterp µs | vs oneDNN | vs PyTorch | vs best peer | memcpy(dst) / xinterp |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for (c, m, l, dt), v in rows.items():
        if dt == "f32":
            print(f"| {c} | {m} | {l} | {v[0]} | {v[1]} | {v[2]} | {v[3]} | {v[4]} |")
    print()
    # bf16, where oneDNN has a peer for it (an AVX512-BF16 host) or PyTorch does (linear).
    bf16 = [(k, v) for k, v in rows.items() if k[3] == "bf16" and (v[1] != "n/a" or v[2] != "n/a")]
    if bf16:
        print("| case | mode | layout | xinterp µs | vs oneDNN | vs PyTorch | vs best peer | memcpy(dst) / xinterp |")
        print("|---|---|---|---:|---:|---:|---:|---:|")
        for (c, m, l, dt), v in bf16:
            print(f"| {c} | {m} | {l} | {v[0]} | {v[1]} | {v[2]} | {v[3]} | {v[4]} |")
        print()
    print("| case | mode | layout | f32 µs | bf16 µs (÷f32) | f16 µs (÷f32) | bf16 vs PyTorch |")
    print("|---|---|---|---:|---:|---:|---:|")
    for f in rows_of(f"{d}/dtypes.txt", 8):
        c, m, l = f[0], f[1], f[2]
        print(f"| {c} | {m} | {l} | {float(f[3]):.0f} | {float(f[4]):.0f} ({f[5]}) | {float(f[6]):.0f} ({f[7]}) "
              f"| {rows[(c, m, l, 'bf16')][2]} |")
    print()
    print("| case | mode | layout | xinterp µs | read floor µs | write floor µs | floor / xinterp | oneDNN µs | oneDNN / floor |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for f in rows_of(f"{d}/floors.txt", 10):
        if f[0] in REAL:
            x, rd, ms, nt, r = map(float, f[3:8])
            print(f"| {f[0]} | {f[1]} | {f[2]} | {x:.1f} | {rd:.1f} | {min(ms, nt):.1f} | {r:.2f} | {f[8]} | {f[9]} |")
    try:
        scaling = rows_of(f"{d}/scaling.txt", 9)
    except FileNotFoundError:
        return
    print()
    print("| case | mode | layout | 1 thread µs | 2 threads µs | speedup | floor, 1 thread µs | floor, 2 threads µs | floor speedup |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for f in scaling:
        print(f"| {f[0]} | {f[1]} | {f[2]} | {f[3]} | {f[4]} | {f[5]} | {f[6]} | {f[7]} | {f[8]} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: tables.py REPORT_DIR")
    main(sys.argv[1])
