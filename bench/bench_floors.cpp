// The physical floors of each suite case on this machine, measured in the same process as
// xinterp, alternating per repetition (f32, 1 thread unless --threads says otherwise):
// - read floor: one load from every 64-byte src line that the output needs (the taps of every
//   axis, zero-weight linear taps included: semantics.md needs them for NaN propagation);
// - write floor: the faster of memset and a non-temporal fill of the dst bytes (the stores
//   alone, no loads; NT wins once dst outgrows the cache), both of non-zero bytes.
// No kernel can beat the larger of the two by much; "floor / xinterp" says how close we are.
//   bench_floors [--threads N] [--reps N] [--filter S]
#include <emmintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../src/numeric.hpp"
#include "bench_util.hpp"
#include "cases.hpp"

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

// Byte offsets (one per line) of every src line the output needs, f32.
std::vector<int64_t> needed_lines(const xbench::shape_case &sc, bool linear, bool ncx) {
    std::vector<int64_t> in = sc.in, out = sc.out;
    while (in.size() < 3) in.insert(in.begin(), 1), out.insert(out.begin(), 1);
    const auto d = axis_taps(in[0], out[0], linear), h = axis_taps(in[1], out[1], linear), w = axis_taps(in[2], out[2], linear);
    std::vector<int64_t> lines;
    const int64_t planes = ncx ? sc.n * sc.c : sc.n, pix_bytes = ncx ? 4 : 4 * sc.c;
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

}  // namespace

int main(int argc, char **argv) {
    int threads = 1, reps = 15;
    std::string filter;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
        else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
        else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_floors [--threads N] [--reps N] [--filter S]\n");
            return 2;
        }
    }
    if (threads < 1 || reps < 1) {
        std::fprintf(stderr, "bench_floors: --threads and --reps must be >= 1\n");
        return 2;
    }
    omp_set_num_threads(threads);
    std::printf("# threads=%d reps=%d f32; medians in microseconds; floor = max(read, min(memset, ntfill))\n", threads, reps);
    std::printf("%-10s %-7s %-3s %10s %10s %10s %10s %9s\n", "case", "mode", "fmt", "xinterp", "read", "memset", "ntfill", "floor/x");
    for (const auto &sc : xbench::suite()) {
        if (!filter.empty() && sc.name.find(filter) == std::string::npos) continue;
        for (bool linear : {false, true})
            for (bool ncx : {true, false}) {
                const primitive_desc pd(xbench::make_desc(sc, linear, ncx, data_type::f32));
                const primitive prim(pd);
                // The NT fill gets a buffer of its own: on dst it would evict the lines that
                // xinterp and memset find in cache between repetitions.
                abuf src(pd.src_bytes()), dst(pd.dst_bytes()), other(pd.dst_bytes());
                xbench::fill_normal(4, false, src.data(), pd.src_bytes() / 4);
                const std::vector<int64_t> lines = needed_lines(sc, linear, ncx);
                volatile float sink = 0;
                auto touch = [&]() {  // four independent sums: the loads, not an add chain, set the pace
                    float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
                    size_t i = 0;
                    const size_t n = lines.size();
                    for (; i + 4 <= n; i += 4) {
                        a0 += *reinterpret_cast<const float *>(src.data() + lines[i]);
                        a1 += *reinterpret_cast<const float *>(src.data() + lines[i + 1]);
                        a2 += *reinterpret_cast<const float *>(src.data() + lines[i + 2]);
                        a3 += *reinterpret_cast<const float *>(src.data() + lines[i + 3]);
                    }
                    for (; i < n; ++i) a0 += *reinterpret_cast<const float *>(src.data() + lines[i]);
                    sink = a0 + a1 + a2 + a3;
                };
                std::vector<double> tx, tr, tw, tn;
                prim.execute(src.data(), dst.data());  // warm-up
                for (int r = 0; r < reps; ++r) {
                    tx.push_back(time_us([&] { prim.execute(src.data(), dst.data()); }));
                    tr.push_back(time_us(touch));
                    // Non-zero bytes, as an output has: on the dev VM an NT fill of zeros ran
                    // 2x faster than of any other byte (64 MiB: 1.45 ms against 3.1 ms).
                    tw.push_back(time_us([&] { std::memset(dst.data(), 1 + (r & 1), pd.dst_bytes()); }));
                    tn.push_back(time_us([&] { nt_fill(other.data(), pd.dst_bytes(), 1 + (r & 1)); }));
                }
                const double x = median(tx), rd = median(tr), ms = median(tw), nf = median(tn);
                std::printf("%-10s %-7s %-3s %10.1f %10.1f %10.1f %10.1f %9.2f\n", sc.name.c_str(), linear ? "linear" : "nearest",
                            ncx ? "NCX" : "NXC", x, rd, ms, nf, std::max(rd, std::min(ms, nf)) / x);
                (void)sink;
            }
    }
    return 0;
}
