// The physical floors of each suite case on this machine, measured in the same process as
// xinterp, alternating per repetition (f32 unless --dtype says otherwise, 1 thread unless
// --threads does):
// - read floor: one load from every 64-byte src line that the output needs (the taps of every
//   axis, zero-weight linear taps included: semantics.md needs them for NaN propagation);
// - write floor: the faster of memset and a non-temporal fill of the dst bytes (the stores
//   alone, no loads; NT wins once dst outgrows the cache), both of non-zero bytes.
// No kernel can beat the larger of the two by much; "floor / xinterp" says how close we are, and
// oneDNN's time over the floor (when built with libdnnl-dev) how far any kernel can get ahead
// of oneDNN. The floors use as many threads as xinterp. --scale N instead times xinterp and
// the floors at 1 and N threads, alternating, and prints both speedups: where the floor itself
// does not scale, no kernel does. --large keeps the suite's large cases. Each case first runs
// its contenders untimed, alternating, for --warmup-ms (xbench::warm_up). --dtype bf16 or f16
// gives the 16-bit cases their own floors (half the bytes), for the goal that 16-bit take at
// most 0.6x the f32 time: where 0.6x of f32 is under a 16-bit case's floor, no kernel meets it.
//   bench_floors [--threads N] [--reps N] [--warmup-ms N] [--filter S] [--large] [--scale N]
//                [--dtype f32|bf16|f16]
#include <emmintrin.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../src/numeric.hpp"
#include "bench_util.hpp"
#include "cases.hpp"
#include "dnnl_peer.hpp"

using namespace xinterp;
using xbench::abuf;
using xbench::median;
using xbench::time_us;

namespace {

// The src indices one axis needs: nearest's index, or linear's two taps, per output index.
std::vector<int64_t> axis_taps(int64_t in, int64_t out, bool linear) {
    std::vector<int64_t> v;
    for (int64_t o = 0; o < out; ++o) {
        if (linear) {
            const linear_tap t = linear_coord(o, in, out, coordinate_transformation_mode::half_pixel);
            v.push_back(t.i0);
            v.push_back(t.i1);
        } else {
            v.push_back(nearest_index(o, in, out, coordinate_transformation_mode::half_pixel));
        }
    }
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

// Byte offsets (one per line) of every src line the output needs, in elements of es bytes.
std::vector<int64_t> needed_lines(const xbench::shape_case &sc, bool linear, bool ncx, int64_t es) {
    std::vector<int64_t> in = sc.in, out = sc.out;
    while (in.size() < 3) in.insert(in.begin(), 1), out.insert(out.begin(), 1);
    const auto d = axis_taps(in[0], out[0], linear), h = axis_taps(in[1], out[1], linear), w = axis_taps(in[2], out[2], linear);
    std::vector<int64_t> lines;
    const int64_t planes = ncx ? sc.n * sc.c : sc.n, pix_bytes = ncx ? es : es * sc.c;
    for (int64_t pl = 0; pl < planes; ++pl)
        for (int64_t id : d)
            for (int64_t ih : h) {
                const int64_t row = ((pl * in[0] + id) * in[1] + ih) * in[2] * pix_bytes;
                for (int64_t iw : w) {
                    const int64_t first = (row + iw * pix_bytes) / 64, last = (row + (iw + 1) * pix_bytes - 1) / 64;
                    for (int64_t l = first; l <= last; ++l)
                        if (lines.empty() || lines.back() != l * 64) lines.push_back(l * 64);
                }
            }
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    return lines;
}

// 16-byte NT stores (SSE2: every x86-64 has them), then the fence that publishes them.
void nt_fill(uint8_t *p, size_t bytes, int v) {
    const __m128i x = _mm_set1_epi8(static_cast<char>(v));
    size_t i = 0;
    for (; i + 64 <= bytes; i += 64) {  // p is 64-byte aligned
        _mm_stream_si128(reinterpret_cast<__m128i *>(p + i), x);
        _mm_stream_si128(reinterpret_cast<__m128i *>(p + i + 16), x);
        _mm_stream_si128(reinterpret_cast<__m128i *>(p + i + 32), x);
        _mm_stream_si128(reinterpret_cast<__m128i *>(p + i + 48), x);
    }
    std::memset(p + i, v, bytes - i);
    _mm_sfence();
}

// f(b, e) on `threads` contiguous pieces of [0, n), piece starts a multiple of `align`: the
// floors move their bytes with as many threads as xinterp gets.
template <typename F>
void split(int threads, size_t n, size_t align, F &&f) {
    if (threads == 1) return f(size_t{0}, n);
#pragma omp parallel num_threads(threads)
    {
        const size_t per = ((n + threads - 1) / threads + align - 1) / align * align;
        const size_t b = std::min(n, per * omp_get_thread_num()), e = std::min(n, b + per);
        if (b < e) f(b, e);
    }
}

// One case's contenders, each timed at a given thread count: xinterp, the three floors (read,
// memset, NT fill), and oneDNN.
struct contenders {
    primitive_desc pd;
    primitive prim;
    abuf src, dst, other, dnnl_dst;
    std::vector<int64_t> lines;
#ifdef XINTERP_HAVE_DNNL
    xbench::dnnl_peer peer;
#endif
    contenders(const xbench::shape_case &c, bool lin, bool nc, data_type dt)
        : pd(xbench::make_desc(c, lin, nc, dt)),
          prim(pd),
          src(pd.src_bytes()),
          dst(pd.dst_bytes()),
          other(pd.dst_bytes()),  // the NT fill's own: on dst it would evict what the others find cached
          dnnl_dst(pd.dst_bytes()),
          lines(needed_lines(c, lin, nc, dt == data_type::f32 ? 4 : 2))
#ifdef XINTERP_HAVE_DNNL
          ,
          peer(c, nc, lin, dt, src.data(), dnnl_dst.data())
#endif
    {
        const int es = dt == data_type::f32 ? 4 : 2;
        xbench::fill_normal(es, dt == data_type::bf16, src.data(), pd.src_bytes() / es);
    }
    bool have_dnnl() const {
#ifdef XINTERP_HAVE_DNNL
        return peer.ok;
#else
        return false;
#endif
    }
    double xinterp(int threads) {
        omp_set_num_threads(threads);  // execute() asks OpenMP for its thread count each time
        return time_us([&] { prim.execute(src.data(), dst.data()); });
    }
    double onednn(int threads) {
        omp_set_num_threads(threads);
#ifdef XINTERP_HAVE_DNNL
        return time_us([&] { peer.run(); });
#else
        return 0;
#endif
    }
    // Four independent sums per thread: the loads, not an add chain, set the pace.
    double read(int threads) {
        return time_us([&] {
            split(threads, lines.size(), 4, [&](size_t b, size_t e) {
                float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
                size_t i = b;
                for (; i + 4 <= e; i += 4) {
                    a0 += *reinterpret_cast<const float *>(src.data() + lines[i]);
                    a1 += *reinterpret_cast<const float *>(src.data() + lines[i + 1]);
                    a2 += *reinterpret_cast<const float *>(src.data() + lines[i + 2]);
                    a3 += *reinterpret_cast<const float *>(src.data() + lines[i + 3]);
                }
                for (; i < e; ++i) a0 += *reinterpret_cast<const float *>(src.data() + lines[i]);
                sink_.store(a0 + a1 + a2 + a3, std::memory_order_relaxed);
            });
        });
    }
    // Non-zero bytes, as an output has: on the dev VM an NT fill of zeros ran 2x faster than of
    // any other byte (64 MiB: 1.45 ms against 3.1 ms).
    double memset_(int threads, int r) {
        return time_us([&] { split(threads, pd.dst_bytes(), 64, [&](size_t b, size_t e) { std::memset(dst.data() + b, 1 + (r & 1), e - b); }); });
    }
    double ntfill(int threads, int r) {
        return time_us([&] { split(threads, pd.dst_bytes(), 64, [&](size_t b, size_t e) { nt_fill(other.data() + b, e - b, 1 + (r & 1)); }); });
    }
    static double floor_of(double rd, double ms, double nf) { return std::max(rd, std::min(ms, nf)); }

private:
    static inline std::atomic<float> sink_{0};  // keeps the loads; any thread may write it
};

constexpr const char *kUsage =
    "usage: bench_floors [--threads N] [--reps N] [--warmup-ms N] [--filter S] [--large] [--scale N] [--dtype f32|bf16|f16]\n";

}  // namespace

int main(int argc, char **argv) {
    xbench::run_flags f(15);
    int scale = 0;
    bool large_only = false;
    std::string dtype = "f32";
    for (int i = 1; i < argc; ++i) {
        if (f.parse(argc, argv, i)) continue;
        const std::string a = argv[i];
        if (a == "--scale" && i + 1 < argc) scale = std::atoi(argv[++i]);
        else if (a == "--large") large_only = true;
        else if (a == "--dtype" && i + 1 < argc) dtype = argv[++i];
        else {
            std::fprintf(stderr, "%s", kUsage);
            return 2;
        }
    }
    const int threads = f.threads, reps = f.reps;
    if (dtype != "f32" && dtype != "bf16" && dtype != "f16") {
        std::fprintf(stderr, "bench_floors: --dtype '%s' is not f32, bf16 or f16\n%s", dtype.c_str(), kUsage);
        return 2;
    }
    const data_type dt = dtype == "f32" ? data_type::f32 : dtype == "bf16" ? data_type::bf16 : data_type::f16;
    if (!f.valid() || scale < 0 || scale == 1) {
        std::fprintf(stderr, "bench_floors: --threads and --reps must be >= 1, --warmup-ms >= 0, --scale >= 2\n%s", kUsage);
        return 2;
    }
    if (scale) {
        std::printf("# scaling, 1 against %d threads, alternating, reps=%d warmup=%d ms %s; medians in microseconds;\n", scale, reps,
                    f.warmup_ms, dtype.c_str());
        std::printf("# floor = max(read, min(memset, ntfill)) at that thread count; speedup = 1-thread time / %d-thread time\n", scale);
        std::printf("%-10s %-7s %-3s %10s %10s %8s %10s %10s %8s\n", "case", "mode", "fmt", "x_1", "x_n", "x_spd", "floor_1",
                    "floor_n", "floor_spd");
    } else {
        std::printf("# threads=%d reps=%d warmup=%d ms %s; medians in microseconds; floor = max(read, min(memset, ntfill));\n",
                    threads, reps, f.warmup_ms, dtype.c_str());
        std::printf("# onednn/floor: the most any kernel can be ahead of oneDNN without beating the floor\n");
        std::printf("%-10s %-7s %-3s %10s %10s %10s %10s %9s %10s %12s\n", "case", "mode", "fmt", "xinterp", "read", "memset",
                    "ntfill", "floor/x", "onednn", "onednn/floor");
    }
    for (const auto &sc : xbench::suite()) {
        if (f.skips(sc.name)) continue;
        if (large_only && !sc.large) continue;
        for (bool linear : {false, true})
            for (bool ncx : {true, false}) {
                contenders k(sc, linear, ncx, dt);
                const char *mode = linear ? "linear" : "nearest", *fmt = ncx ? "NCX" : "NXC";
                if (scale) {
                    // Each timed run follows an untimed one of itself (the steady state of an op
                    // run again and again), so each finds dst where its own kind of stores left
                    // it: plain stores leave a dst that fits the LLC cached, NT stores in DRAM.
                    // Run right after the other thread count's run, a contender inherits that
                    // run's choice instead (xinterp picks NT stores by thread count).
                    auto steady = [](auto &&run) {
                        run();
                        return run();
                    };
                    std::vector<double> x1, xn, f1, fn;
                    auto round = [&](int r, bool keep) {
                        const double a = steady([&] { return k.xinterp(1); }), b = steady([&] { return k.xinterp(scale); });
                        const double c = contenders::floor_of(steady([&] { return k.read(1); }), steady([&] { return k.memset_(1, r); }),
                                                              steady([&] { return k.ntfill(1, r); }));
                        const double d = contenders::floor_of(steady([&] { return k.read(scale); }),
                                                              steady([&] { return k.memset_(scale, r); }),
                                                              steady([&] { return k.ntfill(scale, r); }));
                        if (keep) x1.push_back(a), xn.push_back(b), f1.push_back(c), fn.push_back(d);
                    };
                    int w = 0;
                    xbench::warm_up(f.warmup_ms, [&] { round(w++, false); });
                    for (int r = 0; r < reps; ++r) round(r, true);
                    const double a = median(x1), b = median(xn), c = median(f1), d = median(fn);
                    std::printf("%-10s %-7s %-3s %10.1f %10.1f %8.2f %10.1f %10.1f %8.2f\n", sc.name.c_str(), mode, fmt, a, b, a / b, c,
                                d, c / d);
                    continue;
                }
                std::vector<double> tx, tr, tw, tn, td;
                auto round = [&](int r, bool keep) {
                    const double x = k.xinterp(threads), rd = k.read(threads), ms = k.memset_(threads, r), nf = k.ntfill(threads, r);
                    const double o = k.have_dnnl() ? k.onednn(threads) : 0;
                    if (!keep) return;
                    tx.push_back(x), tr.push_back(rd), tw.push_back(ms), tn.push_back(nf);
                    if (k.have_dnnl()) td.push_back(o);
                };
                int w = 0;
                xbench::warm_up(f.warmup_ms, [&] { round(w++, false); });
                for (int r = 0; r < reps; ++r) round(r, true);
                const double x = median(tx), fl = contenders::floor_of(median(tr), median(tw), median(tn));
                char dn[32] = "-", dr[32] = "-";
                if (!td.empty()) {
                    std::snprintf(dn, sizeof dn, "%.1f", median(td));
                    std::snprintf(dr, sizeof dr, "%.2f", median(td) / fl);
                }
                std::printf("%-10s %-7s %-3s %10.1f %10.1f %10.1f %10.1f %9.2f %10s %12s\n", sc.name.c_str(), mode, fmt, x,
                            median(tr), median(tw), median(tn), fl / x, dn, dr);
            }
    }
    return 0;
}
