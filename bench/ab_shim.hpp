// The C interface of bench_ab's shim (ab_shim.cpp): one library build behind plain C calls, so
// that bench_ab can load two builds side by side (each shim in its own link namespace) and
// time them in one process.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {
// A problem: N, C, k spatial dims (in, out), linear or nearest, NCX or NXC, dtype 0 f32,
// 1 bf16, 2 f16; threads for its executions.
struct xab_case {
    int64_t n, c;
    int k;
    int64_t in[3], out[3];
    int linear, ncx, dt, threads;
};
// A primitive for the case, or null with the library's message in err.
void *xab_create(const xab_case *c, char *err, size_t err_len);
size_t xab_src_bytes(const void *h);
size_t xab_dst_bytes(const void *h);
const char *xab_kernel(const void *h);  // the kernel's name
void xab_execute(void *h, const void *src, void *dst);
void xab_destroy(void *h);
}
