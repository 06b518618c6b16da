// Timing helpers and flags the bench binaries share (bench_peers, bench_floors, bench_dtypes).
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace xbench {

using clk = std::chrono::steady_clock;

// On the dev VM a buffer of a few MiB takes 10-30 runs (a few ms) to reach its steady-state
// speed: memcpy of 3.1 MiB went 240 -> 95 us over its first 30 runs, an xinterp kernel writing
// the same bytes 120 -> 76 us over 10, PyTorch's 1.9 ms -> 100 us over 30 (page faults of a
// fresh output first). One untimed run left the first timed ones in that ramp, and a process
// that timed only 15 runs (the PyTorch rounds' `xinterp bench`) reported the ramp's median.
// So every contender first runs untimed, alternating as in the timed loop, for this long.
constexpr int kWarmupMs = 50;

// Calls round() untimed until ms milliseconds have passed, and at least once.
template <typename F>
inline void warm_up(int ms, F &&round) {
    const auto end = clk::now() + std::chrono::milliseconds(ms);
    do round();
    while (clk::now() < end);
}

// 64-byte aligned: oneDNN's kernels use aligned non-temporal stores on user buffers and fault
// on the 16-byte alignment std::vector gives.
struct abuf {
    uint8_t *p;
    size_t n;
    explicit abuf(size_t bytes) : p(static_cast<uint8_t *>(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64))), n(bytes) {
        if (!p) throw std::bad_alloc();
        std::memset(p, 0, n);
    }
    ~abuf() { std::free(p); }
    abuf(const abuf &) = delete;
    abuf &operator=(const abuf &) = delete;
    uint8_t *data() { return p; }
    size_t size() const { return n; }
    uint8_t &operator[](size_t i) { return p[i]; }
};

// The flags every bench binary takes: --threads N, --reps N, --filter SUBSTR (of the case
// name), --warmup-ms N (untimed rounds of every contender before the timed ones; see
// warm_up). parse: whether argv[i] is one of them, its value then consumed; a value that is
// not a number reads as 0, which valid() rejects (--warmup-ms 0 is allowed: one round).
struct run_flags {
    int threads = 1, reps, warmup_ms = kWarmupMs;
    std::string filter;
    explicit run_flags(int default_reps) : reps(default_reps) {}
    bool parse(int argc, char **argv, int &i) {
        const std::string a = argv[i];
        auto value = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (a == "--threads") threads = std::atoi(value().c_str());
        else if (a == "--reps") reps = std::atoi(value().c_str());
        else if (a == "--filter") filter = value();
        else if (a == "--warmup-ms") warmup_ms = std::atoi(value().c_str());
        else return false;
        return true;
    }
    bool valid() const { return threads >= 1 && reps >= 1 && warmup_ms >= 0; }
    bool skips(const std::string &name) const { return !filter.empty() && name.find(filter) == std::string::npos; }
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
