// Timing helpers the bench binaries share (bench_peers, bench_floors).
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace xbench {

using clk = std::chrono::steady_clock;

// 64-byte aligned: oneDNN's kernels use aligned non-temporal stores on user buffers and fault
// on the 16-byte alignment std::vector gives.
struct abuf {
    uint8_t *p;
    size_t n;
    explicit abuf(size_t bytes) : p(static_cast<uint8_t *>(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64))), n(bytes) {
        std::memset(p, 0, n);
    }
    ~abuf() { std::free(p); }
    abuf(const abuf &) = delete;
    abuf &operator=(const abuf &) = delete;
    uint8_t *data() { return p; }
    size_t size() const { return n; }
    uint8_t &operator[](size_t i) { return p[i]; }
};

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? NAN : v[v.size() / 2];
}

template <typename F>
inline double time_us(F &&f) {
    const auto t0 = clk::now();
    f();
    return std::chrono::duration<double, std::micro>(clk::now() - t0).count();
}

}  // namespace xbench
