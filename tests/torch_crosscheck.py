#!/usr/bin/env python3
"""Cross-check `xinterp run` against PyTorch's F.interpolate on random data.

Nearest (half_pixel) must equal torch 'nearest-exact' bit for bit. Linear (half_pixel and
align_corners) must agree within a few f32 ulps: torch evaluates in another order, so the
bits may differ, but the values must not. Exits 77 (ctest: skipped) with a clear message when
torch or numpy is not importable.

    python3 tests/torch_crosscheck.py BUILD_DIR/xinterp
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except Exception as e:  # noqa: BLE001
    print(f"SKIPPED: torch cross-check needs torch and numpy ({e}); apt-get install python3-torch")
    sys.exit(77)

cli = sys.argv[1]
rng = np.random.default_rng(7)
cases = [  # (src NCX shape, sizes)
    ((1, 3, 4), (2,)), ((2, 5, 9), (17,)), ((1, 4, 5, 7), (9, 3)), ((2, 3, 6, 6), (13, 11)),
    ((1, 2, 3, 5, 4), (7, 4, 9)), ((1, 8, 15, 15), (73, 73)), ((1, 2, 40, 525), (5, 5)),
]
failures = checked = 0
with tempfile.TemporaryDirectory() as tmp:
    for shape, sizes in cases:
        x = rng.uniform(-4, 4, size=shape).astype(np.float32)
        k = len(sizes)
        for mode, ctm in (("nearest", "half_pixel"), ("linear", "half_pixel"), ("linear", "align_corners")):
            for fmt in ("NCX", "NXC"):
                src = x if fmt == "NCX" else np.ascontiguousarray(np.moveaxis(x, 1, -1))
                np.save(os.path.join(tmp, "in.npy"), src)
                subprocess.run([cli, "run", "--src", os.path.join(tmp, "in.npy"), "--dst", os.path.join(tmp, "out.npy"),
                                "--mode", mode, "--coordinate-transformation-mode", ctm, "--data-format", fmt,
                                "--sizes", ",".join(map(str, sizes))], check=True)
                got = np.load(os.path.join(tmp, "out.npy"))
                if fmt == "NXC":
                    got = np.moveaxis(got, -1, 1)
                tmode = "nearest-exact" if mode == "nearest" else ("linear", "bilinear", "trilinear")[k - 1]
                kw = {} if mode == "nearest" else {"align_corners": ctm == "align_corners"}
                want = F.interpolate(torch.from_numpy(x), size=sizes, mode=tmode, **kw).numpy()
                checked += 1
                if mode == "nearest":
                    ok = np.array_equal(got.view(np.uint32), want.view(np.uint32))
                else:
                    ok = np.allclose(got, want, rtol=4e-6, atol=4e-6 * 4)
                if not ok:
                    failures += 1
                    err = np.max(np.abs(got.astype(np.float64) - want))
                    print(f"MISMATCH {shape}->{sizes} {mode} {ctm} {fmt}: max |diff| {err:g}")
print(f"torch cross-check (torch {torch.__version__}): {checked - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
