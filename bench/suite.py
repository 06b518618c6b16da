"""What the Python bench scripts share: the suite as bench_peers lists it, and one
`xinterp bench --json` run."""
import json
import subprocess


def suite(build):
    """[(name, n, c, spatial_in, spatial_out)] from `bench_peers --list`."""
    out = subprocess.run([f"{build}/bench/bench_peers", "--list"], check=True, capture_output=True, text=True).stdout
    cases = []
    for line in out.strip().splitlines():
        left, right = line.split("->")
        name, n, c, *sp_in = left.split()
        cases.append((name, int(n), int(c), [int(x) for x in sp_in], [int(x) for x in right.split()]))
    return cases


def xinterp_json(build, n, c, sp_in, sp_out, linear, ncx, dt, iters, threads, warmup_ms=50):
    """The JSON line of one `xinterp bench` run (median_us, create_us, cache_hit_us, ...);
    untimed executions for warmup_ms first."""
    shape = [n, c] + sp_in if ncx else [n] + sp_in + [c]
    cmd = [f"{build}/xinterp", "bench", "--src-shape", ",".join(map(str, shape)), "--mode",
           "linear" if linear else "nearest", "--data-format", "NCX" if ncx else "NXC",
           "--sizes", ",".join(map(str, sp_out)), "--dtype", dt, "--iters", str(iters),
           "--threads", str(threads), "--warmup-ms", str(warmup_ms), "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    return json.loads(out)
