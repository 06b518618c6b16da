#include "jit_conf.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "../src/cpu_isa.hpp"
#include "../src/numeric.hpp"
#include "jit_tables.hpp"

namespace xinterp {

namespace {
int simd_w_of(cpu_isa isa) { return isa >= cpu_isa::avx512_core ? 16 : 8; }

std::atomic<int> g_gather_spelling{-1};
std::atomic<int> g_narrow{-1};  // set_narrow_for_testing
std::atomic<int> g_separable{-1};  // set_separable_for_testing

// Rows of row_in src and row_out dst elements, in vectors of simd_w lanes.
void set_row_lengths(jit_conf &c, int64_t row_in, int64_t row_out) {
    const int64_t w = c.simd_w;
    c.row_in = row_in;
    c.row_out = row_out;
    c.ow_full = row_out / w;
    c.ow_tail = row_out % w;
    c.ow_pad = (row_out + w - 1) / w * w;
    c.ow_vecs = c.ow_pad / w;
}

// Rows as flat runs of W * flat_c elements.
void set_flat_rows(jit_conf &c, int64_t flat_c) {
    c.flat_c = flat_c;
    set_row_lengths(c, c.IW * flat_c, c.OW * flat_c);
}

// How a gather is spelled where no window serves (jit_conf::gather_by_insert).
bool insert_spelling(cpu_isa isa) {
    const int spelling = g_gather_spelling.load();
    return isa == cpu_isa::avx2 && (spelling < 0 ? host_features().slow_gathers : spelling == 1);
}

// jit_conf::flat (and wplane_flat_conf): a flat row of row_in src and row_out dst elements,
// every other pass-engine path off.
void set_flat(jit_conf &c, const problem &p, int64_t row_in, int64_t row_out) {
    const int64_t w = c.simd_w;
    c.flat = true;
    c.flat_w = false;
    c.flat_c = 1;
    set_row_lengths(c, row_in, row_out);
    c.window = c.window2 = c.shuf_windows = c.pair_tail = false;
    c.pair_vecs = 0;
    c.gather_by_insert = insert_spelling(c.isa);
    c.rec_bytes = static_cast<int>(((1 << c.k) + 2 * c.k) * w * 4);
    c.up2_first = c.up2_groups = 0;
    c.per_first = c.per_periods = c.per_step = 0;
    c.per_p = 0;
    c.per_pairs = c.per_inlane = c.per_lane_split = false;
    c.h2_pairs = c.fuse_h = c.plane_mode = c.hvol = c.wplane_cols = c.cols_inlane = false;
    c.d_pairs = c.h_pairs = c.h_runs = c.pairs_nt = c.nearest_row_pairs = c.plane_lines = c.blend_lines = false;
    c.nt_eligible = c.nt_stream = c.copy_aligned = false;
    c.n_slots = c.n_wplanes = 0;
    c.d_cols = 0;
    c.d_group = 0;
    c.wplane_bytes = 0;
    c.scratch_bytes = 0;
    c.rows = p.n * p.c;
    c.src_row_bytes = c.row_in * c.esize;
    c.dst_row_bytes = c.row_out * c.esize;
}

// jit_conf::window, window2, pair_vecs and pair_tail of flat rows (set_flat_rows): the window
// path needs each vector's i0 (and i1) within simd_w consecutive elements, the two-window path
// (512 bits, rows of 2 * simd_w or more) within 2 * simd_w. taps(o): output column
// o's W taps (nearest: its index in both). A row shorter than a vector is one window on
// AVX-512, loaded under an opmask (jit_conf::short_window); AVX2 has no cheap masked load.
template <class Taps>
void scan_windows(jit_conf &c, const Taps &taps, bool lin) {
    const int64_t w = c.simd_w;
    c.window = c.row_in >= w || c.isa >= cpu_isa::avx512_core;
    bool window2 = w == 16 && c.row_in >= 2 * w;  // jit_conf::window2, while it holds
    bool pairs_open = lin;  // still counting window pairs (see pair_vecs)
    for (int64_t v = 0; v < c.ow_vecs && (c.window || window2); ++v) {
        int64_t lo[2] = {INT64_MAX, INT64_MAX}, hi[2] = {-1, -1};
        bool neighbours = true;
        int64_t col = -1, tap[2] = {0, 0};  // output column o and its src columns i0, i1
        // (o, ch) of element e: stepped along e, not divided out per element
        const int64_t end = std::min(c.row_out, (v + 1) * w);
        for (int64_t e = v * w, o = e / c.flat_c, ch = e % c.flat_c; e < end; ++e) {
            if (o != col) {  // a column's taps serve all its flat_c channels
                col = o;
                const linear_tap t = taps(o);
                tap[0] = t.i0, tap[1] = t.i1;
                neighbours = neighbours && lin && t.i1 == t.i0 + 1;
            }
            for (int i = 0; i < 2; ++i) {
                const int64_t ix = tap[i] * c.flat_c + ch;
                lo[i] = std::min(lo[i], ix), hi[i] = std::max(hi[i], ix);
            }
            if (++ch == c.flat_c) ch = 0, ++o;
        }
        c.window = c.window && hi[0] - lo[0] < w && hi[1] - lo[1] < w;
        window2 = window2 && hi[0] - lo[0] < 2 * w && hi[1] - lo[1] < 2 * w;
        pairs_open = pairs_open && neighbours && hi[1] - lo[0] < w;
        if (pairs_open && v < c.ow_full) ++c.pair_vecs;
        else if (pairs_open) c.pair_tail = true;
    }
    if (!c.window) c.pair_vecs = 0, c.pair_tail = false;
    c.window2 = !c.window && window2;
}

std::atomic<size_t> g_nt_min_override{0}, g_nt_min_override_more{0};

// {one thread, more}: XINTERP_NT_MIN_BYTES for both where it is set.
std::pair<size_t, size_t> nt_min_default() {
    const int64_t llc = usable_llc_bytes(), llc1 = one_thread_llc_bytes(), floor = int64_t(4) << 20;
    // One thread: half its LLC share on AMD, a quarter on Intel. More threads: the whole LLC on
    // the Zen 3 dev VM (AMD without AVX-512), half of it elsewhere (jit_conf.hpp).
    const bool amd = host_features().amd, whole_on_more = amd && !avx512_on_256bit_units();
    const int64_t one = std::max(floor, amd ? llc1 / 2 : llc1 / 4), more = std::max(floor, whole_on_more ? llc : llc / 2);
    if (std::getenv("XINTERP_NT_MIN_BYTES")) {
        const size_t v = static_cast<size_t>(env_nonneg_int("XINTERP_NT_MIN_BYTES", one));
        return {v, v};
    }
    return {static_cast<size_t>(one), static_cast<size_t>(more)};
}
}  // namespace

void set_gather_spelling_for_testing(int spelling) { g_gather_spelling.store(spelling); }
void set_narrow_for_testing(int mode) { g_narrow.store(mode); }
void set_separable_for_testing(int mode) { g_separable.store(mode); }

size_t nt_min_bytes(int threads) {
    if (const size_t o = g_nt_min_override.load()) return threads > 1 ? g_nt_min_override_more.load() : o;
    static const std::pair<size_t, size_t> v = nt_min_default();
    return threads > 1 ? v.second : v.first;
}

size_t stream_min_bytes(int threads) {
    const size_t nt = nt_min_bytes(threads);
    if (g_nt_min_override.load() || std::getenv("XINTERP_NT_MIN_BYTES")) return nt;
    return std::max(nt, static_cast<size_t>(usable_llc_bytes()));
}

void set_nt_min_bytes_for_testing(size_t bytes, size_t bytes_more) {
    g_nt_min_override_more.store(bytes_more ? bytes_more : bytes);
    g_nt_min_override.store(bytes);
}

namespace {
// How consecutive output rows' taps on one axis relate (linear, one pass; H unless told):
// `shared`, rows that share a src row with the row before (each a W-row cache hit); `chained`,
// rows whose i0 is the row before's i1, and `same`, rows with the row before's two taps (row
// pairs for the direct NXC kernel; on the D axis, D pairs).
struct h_links {
    int64_t shared = 0, chained = 0, same = 0;
    bool rarely_shared(const problem &p, int axis = 1) const { return shared * 4 <= p.out[axis]; }
};

h_links scan_h_links(const problem &p, int axis = 1) {
    h_links r;
    linear_tap a = linear_coord(0, p.in[axis], p.out[axis], p.ctm);
    for (int64_t o = 1; o < p.out[axis]; ++o) {
        const linear_tap b = linear_coord(o, p.in[axis], p.out[axis], p.ctm);
        r.shared += b.i0 == a.i0 || b.i0 == a.i1 || b.i1 == a.i0 || b.i1 == a.i1;
        r.chained += a.i1 == b.i0;
        r.same += a.same_taps(b);
        a = b;
    }
    return r;
}

// D pairs pay where at least a quarter of the od repeat the taps of the od before
// (jit_conf::d_pairs: the direct NXC kernel and the 3-D plane blends alike). d: the D axis's
// scan_h_links.
bool d_taps_repeat(const problem &p, const h_links &d) { return d.same * 4 >= p.out[0]; }

// The flat rows' limits (jit_can_serve): gathers take signed 32-bit element indices scaled by
// 4, and records use 32-bit offsets. fc: elements per W column (1 for NCX, C for NXC).
bool flat_rows_fit(const problem &p, int64_t fc) {
    return p.in[2] * fc < (int64_t(1) << 28) && p.out[2] * fc < (int64_t(1) << 26);
}

// Output column o's W taps, as make_axis has them. The narrow-pixel rules build no table of
// their own (make_jit_conf makes one for the flat rows only).
linear_tap w_tap(const problem &p, int64_t o) { return linear_coord(o, p.in[2], p.out[2], p.ctm); }

// jit_conf::px_pairs: the first pixel (0 or 1) from which the most consecutive pixel pairs
// share their W taps, and how many do, in a row of c.OW pixels starting at output column s
// for every s in starts (column blocks: each block the kernel serves); kept where they cover
// at least half the row.
void set_px_pairs(jit_conf &c, const problem &p, const std::vector<int64_t> &starts = {0}) {
    c.px_first = c.px_pairs = 0;
    int64_t best = 0, first = 0;
    for (int64_t f = 0; f < 2; ++f) {
        auto pair_at = [&](int64_t j) {  // pixels f + 2j and f + 2j + 1 of every block
            for (const int64_t s : starts) {
                const int64_t o = s + f + 2 * j;
                if (f + 2 * j + 1 >= c.OW || o + 1 >= p.out[2] || !w_tap(p, o).same_taps(w_tap(p, o + 1))) return false;
            }
            return true;
        };
        int64_t n = 0;
        while (pair_at(n)) ++n;
        if (n > best) best = n, first = f;
    }
    if (best * 4 < c.OW) return;
    c.px_first = first;
    c.px_pairs = best;
}

// Whether flat rows of p.c channels would have windows at isa (scan_windows), from p's W taps
// alone (nearest: its index as both): the narrow-pixel rules ask before any table is built.
// Two windows (window2, 512 bits) count for C <= 4: against narrow pixels, flat rows that
// select from two windows took 0.2-0.97x the time there (Xeon dev VM, xinterp bench
// alternating, both modes, f32 and bf16: 540x960 -> 360x640 C = 3 0.40-0.97x, 100x300 ->
// 70x200 C = 4 0.30-0.86x, 64x128 -> 40x100 C = 2 0.19-0.60x; bench_ab, every dtype:
// 300x400 -> 250x300 C = 4 0.38-0.91x, 1080x1920 -> 720x1280 C = 3 0.63-0.86x, f32 linear
// 0.86-1.11x), but 0.64-1.13x at C = 8 and 1.07-1.43x at C = 12 (100x200 -> 80x120), where a
// vector holds one or two pixels and a narrow pixel is a vector already.
bool flat_rows_have_windows(const problem &p, cpu_isa isa) {
    jit_conf f;
    f.isa = isa, f.simd_w = simd_w_of(isa), f.IW = p.in[2], f.OW = p.out[2];
    set_flat_rows(f, p.c);
    const bool lin = p.algorithm == alg::linear;
    scan_windows(f, [&](int64_t o) {
        if (lin) return w_tap(p, o);
        const int64_t i = nearest_index(o, p.in[2], p.out[2], p.ctm);
        return linear_tap{i, i, 1.f, 0.f};
    }, lin);
    return f.window || (f.window2 && p.c <= 4);
}

// jit_conf::edge_px for narrow pixels of w lanes: from the first output pixel whose forward
// loads (w elements from the start of a tap's pixel) or store (w from its own) would leave the
// row, to the row's end; -1 where one of those cannot load backwards either (w elements ending
// at a tap's pixel's end would start before the row). Masked (512 bits): edge pixels load and
// store their C lanes under an opmask, so there is nothing to load backwards.
int64_t narrow_edge_px(const problem &p, int64_t w, bool masked) {
    const int64_t C = p.c, IW = p.in[2], OW = p.out[2];
    int64_t first = OW;
    for (int64_t o = 0; o < OW && first == OW; ++o) {
        const linear_tap t = w_tap(p, o);
        if ((OW - o) * C < w || std::max(t.i0, t.i1) * C + w > IW * C) first = o;
    }
    for (int64_t o = first; o < OW && !masked; ++o) {
        const linear_tap t = w_tap(p, o);
        if (std::min(t.i0, t.i1) * C + C < w) return -1;
    }
    return OW - first;
}

// Whether the flat rows' W table (a record of index vectors and weights per output vector of
// w lanes: 20 bytes per output) outgrows L1 for pixels of 4 channels or more. Their windows
// then stream it for every output row, and narrow pixels (24 bytes of record per pixel) beat
// them. Ice Lake Xeon VM, bench_ab, narrow against flat windows, table size in brackets: at 512
// bits C = 12 1 x 2837 -> 1 x 20614 (5 MB) 0.36-0.4x the time, C = 9 (3.7 MB) 0.53-0.58x,
// 100 x 283 -> 200 x 2061 C = 7, 8, 12 (0.29-0.5 MB) 0.51-0.99x, C = 10 and 14 64 x 200 ->
// 128 x 600 (120-170 KB) 0.48-0.77x, C = 12 1 x 283 -> 1 x 2061 (49 KB) 0.85-0.93x; at 256 bits
// C = 4-7 2837 -> 20614 0.35-0.79x, C = 7 64 x 400 -> 128 x 1400 (196 KB) 0.63-0.65x, C = 4
// 2061 (165 KB) 0.76x in f32, 1.08x in f16. Under L1 the windows win: C = 6-12 64 x 64 ->
// 128 x 128 (15-30 KB) took 1.04-2.0x the time narrow, and at 60 KB C = 10 was 0.55x narrow in
// f32 and 1.22x in f16. C = 3 keeps its windows at any size (1 x 2837 -> 1 x 20614, 1.24 MB:
// 1.7x the time narrow): a pixel's vector serves too few channels.
// Nearest records take 8 bytes per output (an index vector and the window base), and its
// pixels are two moves each: from C = 6 and 4x the table (Ice Lake Xeon VM, bench_ab, pixels
// against windows, both widths): 1 x 2837 -> 1 x 20614 C = 6, 7 and 9 (1-1.5 MB) 0.49-0.88x
// the time, 100 x 283 -> 200 x 2061 C = 12 (198 KB) 0.86-1.01x; C = 6 there (99 KB) took
// 1.10-1.23x as pixels, C = 4 0.83-1.05x, C = 3 1 x 2837 -> 1 x 20614 2.2-3.9x.
bool big_window_table(const problem &p, int64_t w) {
    const bool lin = p.algorithm == alg::linear;
    const int64_t outputs = (p.out[2] * p.c + w - 1) / w * w;  // whole records
    if (lin) return p.c >= 4 && outputs * 20 > jit_conf::kNarrowTableMax;
    return p.c >= 6 && outputs * 8 > 4 * jit_conf::kNarrowTableMax;
}

// Whether a 2-D flat row's W step, big table and all (big_window_table), is shared by enough
// output rows to cost less than narrow pixels. Per output row, in cycles per 16 outputs: the
// blend ~1.5, the W step ~14 (its table's 20 bytes per output from L2, the loads, permutes
// and FMAs) over r = OH / IH rows; a narrow pixel ~5 per 16-lane vector, one per pixel. Flat
// wins where C * (1.5 + 14 / r) < 80, taken from r = 3 on (16-bit at 512 bits: r = 2, whose
// narrow pixels widen and round a 16-lane vector each). Xeon dev VM (Emerald Rapids),
// bench_ab, flat against narrow: 64x64 -> 512x512 (r = 8) C = 5-12 f32 0.62-0.70x the time,
// f16 and bf16 0.18-0.53x (2 threads 0.30-0.65x; AVX2 kernels, C = 5: 0.28-0.76x); 64x200
// -> 192x600 C = 10 (r = 3) f32 0.99x, 16-bit 0.51-0.60x (AVX2 C = 7: 0.56-0.96x); 64x200 ->
// 256x600 C = 14 (r = 4) 0.78-0.89x with the same stores (where the flat rows' dst takes NT
// stores and the narrow pixels' cannot, 16-bit ran 1.2-1.4x: NT stores at 4 MiB on this VM).
// Narrow stays at C = 14 and r = 3 (f32 0.92-1.23x flat), C = 10-14 at r = 2 (f32
// 1.05-1.54x), one src row per output row (1 x 2837 -> 1 x 20614 C = 12: 1.8-3.4x), and at
// f32 at r = 2 under the limit too, where the Ice Lake VM had narrow ahead for C = 7-12
// (above) and here C = 7 and 9 ran 1.03-1.25x flat (C = 4 and 5 0.57-1.11x). 16-bit at
// r = 2 (alternating runs, three each): 100x283 -> 200x2061 C = 4 0.32-0.43x, C = 7
// 0.58-0.82x, C = 9 0.67-1.24x; 64x200 -> 128x600 C = 5 0.38-0.56x, C = 8 0.57-0.87x (the
// Ice Lake VM's f16 C = 4 at 256 bits: narrow 1.08x). At 256 bits f16 at r = 2 ran
// 1.28-1.73x flat here (C = 5, 7), so there 16-bit keeps r = 3.
bool flat_table_amortized(const problem &p, int64_t w) {
    const int64_t r_min = p.dt != data_type::f32 && w == 16 ? 2 : 3;
    if (p.k != 2 || p.out[1] < r_min * p.in[1]) return false;
    const double r = static_cast<double>(p.out[1]) / static_cast<double>(p.in[1]);
    return static_cast<double>(p.c) * (1.5 + 14.0 / r) < 80.0;
}

// Narrow pixels (jit_conf::narrow) where the flat rows would gather every lane (no windows),
// or where their windows' table is big (big_window_table).
// A/B on the dev VM, 1 thread, against those flat rows (jit/README.md, Narrow pixels): f32 and f16
// take 0.25-0.8x the time wherever the W step gathers, but C = 2 and 3 in 3-D whose W-planes
// serve many output rows (16 x 40 x 60 -> 16 x 30 x 40: 1.1-1.6x); bf16's widening and
// emulated rounding cost more per pixel (2-2.5x f32's), so it needs C >= 4, and 6 in such 3-D.
// Rounded natively (the bf16 tier's 256-bit kernels) bf16 takes f32's rule: on the Zen 4 dev
// VM img_down NXC bf16 (C = 3) ran 0.70x the time of the flat rows, 18x310 -> 5x140 C = 3
// 0.65x, 30x300 -> 10x100 C = 2 0.93x. With windows the flat rows make a vector of outputs from
// one load and a permute (C = 3, 224 x 224 -> 512 x 512: 105 us flat, 299 us narrow). Only rows
// the flat rows could take (their limits in jit_can_serve), so narrow pixels change which
// kernel serves a problem, never whether one does; and H of under 2^24 rows, so the scans here
// stay bounded.
// At 512 bits (C < 16; Ice Lake Xeon VM, bench_ab against the flat rows' 16-lane gathers):
// f32 and f16 0.09-0.9x the time on the same rule (C = 8-15 0.09-0.64x; 3-D shared C = 3
// 1.0x, stays flat); bf16 rounded in integer code from C = 3 (C = 3 0.65-0.84x, C = 2
// 0.9-1.14x) and 6 in such 3-D (C = 4 1.35x, 5 1.0x). Native bf16 at 512 bits takes f32's
// rule by the 256-bit kernels' measurement (no host with AVX512-BF16 and full-width units has
// measured it).
bool narrow_pays(const problem &p, kernel_isa k) {
    const cpu_isa isa = k.generator();
    const int64_t w = simd_w_of(isa);
    if (p.fmt != data_format::nxc || p.algorithm != alg::linear || p.c < 2 || p.c >= w) return false;
    if (!flat_rows_fit(p, p.c) || p.out[1] >= (int64_t(1) << 24)) return false;
    if (narrow_edge_px(p, w, isa != cpu_isa::avx2) < 0) return false;
    if (const int forced = g_narrow.load(); forced >= 0) return forced == 1;
    if ((!big_window_table(p, w) || flat_table_amortized(p, w)) && flat_rows_have_windows(p, isa)) return false;
    const bool fused = p.k >= 2 && scan_h_links(p).rarely_shared(p);
    const bool bf16 = p.dt == data_type::bf16 && k.tier < cpu_isa::avx512_core_bf16;  // emulated rounding
    const int64_t min_c = p.k == 3 && !fused ? (bf16 ? 6 : 4) : (bf16 ? (w == 8 ? 4 : 3) : 2);
    return p.c >= min_c;
}

// Nearest NXC with C < simd_w on the direct kernel: each pixel copied whole by two overlapping
// moves, where the flat rows would gather every lane (no windows: W down, or odd ratios).
// Against the flat rows' element-by-element gathers, img_down NXC (C = 3, 1080 x 1920 ->
// 224 x 224) took 0.84x the time in bf16 and f16 at 256 bits and 0.98x in f32 (0.84x run back
// to back alone), 0.37-0.71x at 512 bits (Zen 4 dev VM, bench_ab; jit/README.md: Nearest pixels).
// Where windows serve, the flat rows make a vector of outputs from one load and a permute
// (img_up NXC C = 3) and stay, unless their table is big (big_window_table).
bool narrow_nearest_pays(const problem &p, kernel_isa k) {
    const cpu_isa isa = k.generator();
    const int64_t w = simd_w_of(isa);
    if (p.fmt != data_format::nxc || p.algorithm != alg::nearest || p.c >= w || !flat_rows_fit(p, p.c)) return false;
    if (const int forced = g_narrow.load(); forced >= 0) return forced == 1;
    return big_window_table(p, w) || !flat_rows_have_windows(p, isa);
}
}  // namespace

bool jit_uses_pass_engine(const problem &p, kernel_isa k) {
    const cpu_isa isa = k.generator();
    return p.fmt == data_format::ncx || (p.c < simd_w_of(isa) && !narrow_pays(p, k) && !narrow_nearest_pays(p, k));
}

namespace {

// NXC linear (k >= 2, direct-kernel layout), measured on the dev VM (AMD EPYC, Zen 3),
// separable vs direct, same process, alternating:
// - bf16 0.52-0.68x on every suite shape: the direct kernel widens and interpolates every tap
//   per output row and is compute-bound; separable does the W step once per src row;
// - f32 and f16 gain where a W row serves many output rows (8x up: 0.67-0.78x); at 2x with
//   whole-vector pixels they were 0.92-1.20x, so there the direct kernel stays.
// Never where rows are rarely shared: the direct kernel is that fusion already.
// AVX2 kernels under 4x up, bench_ab against the direct kernel (both builds in one process,
// 2-D, C = 8-128 at 40x40 -> 50x50 .. 100x100, 30x30 -> 90x90 and 20x20 -> 70x70, and larger):
// - f16 goes separable wherever H goes up, but at exactly 2x half_pixel with whole-vector
//   pixels (the direct kernel's same-taps runs: C = 8-128 0.96-1.04x) and where the two W rows
//   pass kSepF16RowsMax under 2.5x up: C = 8-128 at 1.25-2x 0.68-0.96x the time (C % 8 != 0
//   at 2x: C = 12 0.87x, 17 0.80x; c17 0.78-0.79x, c23 0.89-0.95x), at 2.5-3.5x 0.48-0.84x
//   (C = 64 100x100 -> 250x250, 8 MB, 0.84x), 200x200 -> 300x300 C = 17 (W rows of 2 x 20 KB)
//   0.78x, 800x300 -> 1200x450 C = 9 (2 x 16 KB, 9.7 MB) 0.73-0.75x; but C = 128 at 40x40 ->
//   50x50 (2 x 25.6 KB) 1.08x, C = 8 500x500 -> 750x750 (2 x 24 KB, 9 MB) 1.12-1.14x, C = 24
//   300x300 -> 450x450 (2 x 43 KB) 1.24x, and H down 1.13-1.39x; C = 16 500x200 -> 750x300
//   (2 x 19 KB, 7.2 MB) ran even. Nor past kSepF16MaxBytes of dst: on 2 threads (xinterp
//   bench, old and new builds alternating) 400x400 -> 1000x1000 C = 16 (30.5 MiB) ran
//   1.01-1.05x the time separable, 200x200 -> 500x500 C = 64 1.03-1.05x and 300x300 ->
//   750x750 C = 32 (34 MiB, NT stores) 1.30x, where 1 thread had them at 0.88-0.93x; under it
//   2 threads kept the gains (C = 24 200x200 -> 500x500, 12 MB, 0.83x; C = 9 9.7 MB 0.71x). f16's direct kernel converts every tap's pixel with vcvtph2ps for
//   each output row that reads it; the W rows convert each src pixel once.
// - f32 goes separable from 2.5x up with pixels of up to 32 channels and outputs of up to
//   kSepF32SmallBytes: C = 8-32 0.63-0.91x the time (C = 24 at 40x40 -> 100x100, 0.96 MB,
//   1.02x), where 2 MB ran 1.00x, 5.8 MB 1.08x and 13-23 MB (NT stores) 1.18-1.46x, C = 48
//   and up 0.92-1.33x. Under 2.5x, pixels of C < 24 whose last vector holds 1-4 channels of
//   its own (the direct kernel computes 8 lanes for them) and outputs of up to
//   kSepF32TailBytes, not at exactly 2x half_pixel: C = 9-12, 17, 18, 20 at 40x40 -> 50x50,
//   60x60, 33x33 -> 65x65 (c17 0.92-0.98x) and 64x64 -> 96x96 0.78-0.95x, both orders
//   0.82-0.94x; not C = 13-15, 19, 21-23 (tails of 5-7: 0.86-1.09x), C = 25 (1.04x),
//   outputs past 512 KiB (C = 12-22 at 100x100 -> 150x150, 1.1-1.8 MB: 0.99-1.16x; 627 KB
//   0.92-0.99x) or exactly 2x (C = 8, 12, 17: 0.99-1.23x). The AVX-512 tiers' 256-bit kernels
//   keep the rules above.
// At 512 bits (w = 16) the channel count moves both 16-bit choices in 2-D (3-D keeps the rule
// above). Native bf16 (vcvtneps2bf16 stores) goes direct for pixels of 6+ whole vectors: A/B
// on the Sapphire Rapids class VM, 2-D H up < 4x, yolo_2x NXC bf16 (C = 128) 0.52-0.62x the
// time, fpn_2x (256) 0.67-0.71x, C = 96-192 at 30x30 -> 60x60 0.50-0.86x and at 20x24 ->
// 40x36 0.86-1.01x, while C = 16-64 ran 0.99-1.43x and C = 80 0.90-1.07x. f16 goes
// separable for pixels under 48 channels that end in a tail: c17 and c23 0.88-0.89x, C =
// 17-40 0.63-0.94x (C = 33 once 1.13x), where C = 56-100 ran 0.98-1.55x and whole-vector
// pixels 0.99-1.20x. Since the direct kernel takes bf16 in 32-channel halves (jit_interp_kernel
// words_pair), H up exactly 2x half_pixel (row pairs with the same taps, in runs) goes direct
// from C = 32: bench_ab on the Xeon dev VM (Emerald Rapids), both orders, against
// separable: 64x64 -> 128x128 C = 32 0.75-0.89x, 90x90 -> 180x180 C = 32 0.73-0.75x, 50x50
// -> 100x100 C = 48 0.93-0.95x, 48x48 -> 96x96 C = 64 0.70-0.74x, 40x40 -> 80x80 C = 80
// 0.81-0.87x; at 1.5x C = 32 ran 1.31x direct, C = 64 and 80 1.04x.
//
// With H up 4x or more, 2-D 512-bit f32 pixels of 48+ channels and f16 ones of 80+ go direct:
// the W step a separable row saves is then less than its trip through scratch. A/B on the
// same VM against separable: C = 48-217 f32 0.68-0.96x the time (the sweep's 251x1 -> 1690x5
// C = 217 0.86x, 45x140 -> 237x77 C = 188 0.68x, 80x14 -> 365x19 C = 52 0.85x), f16 C =
// 80-217 0.72-1.02x; narrower pixels ran 0.85-2.44x direct (seg_8x, C = 21: 1.96x). Only for
// outputs of 1 MiB or more (all of the above): under 0.5 MiB direct ran f32 0.92-1.43x and
// f16 1.29-1.92x (38x1 -> 173x1 C = 139, 20x5 -> 100x5 C = 128, 20x6 -> 100x12 C = 96), where
// the separable rows stay in L2. Not 3-D, where the direct kernel makes 8 W steps per output
// vector: 2x11x2 -> 1x61x2 C = 69 f32 ran 1.54x the time direct.
//
// 512-bit f32 pixels of 17-39 channels that end off a line (C % 16 != 0), H up 1.5x or more,
// outputs up to kSepF32MaxBytes go separable too, since the blends of flat rows store whole
// aligned lines (jit_ncx_vblend::aligned_row) where the direct kernel's pixel vectors split
// theirs and make every W step per output row. bench_ab on the Xeon dev VM (Emerald Rapids),
// against direct: c17 (33x33 -> 65x65) 0.73-0.75x the time, c23 0.62-0.63x, 30x30 -> 40x40
// C = 17 0.74x, 40x40 -> 60x60 C = 19 0.72x, 60x60 -> 120x120 C = 17 0.66x, 64x64 -> 96x96
// C = 20 0.70x, C = 25 65x65 0.72x, C = 31 0.86x, 40x40 -> 80x80 C = 33 0.79x and C = 35
// 0.84x, 64x64 -> 128x128 C = 21 (1.4 MB) 0.86x, 60x60 -> 130x130 C = 23 (1.5 MB) 0.88x.
// Direct stays for C = 40-47 (65x65: 0.99-1.10x), H up 1.25x (80x80 -> 100x100 C = 27:
// 1.09x) and outputs past 1.5 MiB, whose W-planes leave L2 (C = 31 120x120, 1.8 MB: 1.20x;
// C = 17 200x200 and 300x300: 1.12x and 1.20x; C = 40 150x150: 1.09x).
constexpr int64_t kSepF32MaxBytes = int64_t(3) << 19;  // 1.5 MiB
constexpr int64_t kSepF32SmallBytes = int64_t(1) << 20;  // AVX2 f32 from 2.5x up
constexpr int64_t kSepF16RowsMax = int64_t(40) << 10;    // AVX2 f16 under 2.5x up
constexpr int64_t kSepF16MaxBytes = int64_t(16) << 20;   // AVX2 f16 under 4x up
constexpr int64_t kSepF32TailBytes = int64_t(1) << 19;   // AVX2 f32 pixels with a short tail
bool separable_pays(const problem &p, const h_links &h, kernel_isa k, bool native_bf16) {
    const int64_t w = simd_w_of(k.generator());
    if (h.rarely_shared(p) || g_separable.load() == 0) return false;
    const bool up4 = p.out[1] >= 4 * p.in[1];
    const bool up2_runs = p.out[1] == 2 * p.in[1] && p.ctm == coordinate_transformation_mode::half_pixel;
    if (k.tier == cpu_isa::avx2 && p.k == 2) {  // the rules measured on the Zen 3 dev VM (above)
        const bool up = p.out[1] > p.in[1], up25 = 2 * p.out[1] >= 5 * p.in[1];
        const int64_t w_rows = 2 * p.out[2] * p.c * 4;  // a row's two f32 W rows
        if (p.dt == data_type::f16 && !up4)
            return up && !(up2_runs && p.c % 8 == 0) && (up25 || w_rows <= kSepF16RowsMax) && p.dst_bytes <= kSepF16MaxBytes;
        if (p.dt == data_type::f32 && up25 && p.c <= 32 && p.dst_bytes <= kSepF32SmallBytes) return true;
        const int64_t tail = p.c % 8;  // lanes a pixel's last vector holds of its own (1-7), else 0
        if (p.dt == data_type::f32 && up && !up2_runs && tail >= 1 && tail <= 4 && p.c < 24 && p.dst_bytes <= kSepF32TailBytes)
            return true;
    }
    if (w == 16 && p.k == 2) {  // the channel rules, measured in 2-D
        if (p.dt == data_type::f32 && p.c % 16 != 0 && p.c < 40 && 2 * p.out[1] >= 3 * p.in[1] && p.dst_bytes <= kSepF32MaxBytes)
            return true;
        const bool big = p.dst_bytes >= (int64_t(1) << 20);
        if (up4 && big && p.dt == data_type::f32) return p.c < 48;
        if (up4 && big && p.dt == data_type::f16) return p.c < 80;
        if (!up4 && native_bf16) return !(p.c % 16 == 0 && (p.c >= 96 || (p.c >= 32 && up2_runs)));
        if (!up4 && p.dt == data_type::f16) return p.c % 16 != 0 && p.c < 48;
    }
    return up4 || p.dt == data_type::bf16;
}

// Output o of a 2x half_pixel axis away from its clamped edges: 2j blends src j - 1 and j with
// weights (0.25, 0.75), 2j + 1 src j and j + 1 with (0.75, 0.25). The up2 W run and the h2 H
// rows are checked against exactly this, tap by tap, so the fixed-weight code computes the
// reference's bits.
bool is_up2_tap(int64_t o, const linear_tap &t) {
    const int64_t j = o / 2;
    return o % 2 == 0 ? t.i0 == j - 1 && t.i1 == j && t.w0 == 0.25f && t.w1 == 0.75f
                      : t.i0 == j && t.i1 == j + 1 && t.w0 == 0.75f && t.w1 == 0.25f;
}

// jit_conf::up2_*: the longest run of full vectors whose every lane is_up2_tap, in groups of
// two vectors.
void set_up2_run(jit_conf &c, const axis_table &wt) {
    auto vec_ok = [&](int64_t v) {
        for (int64_t o = v * c.simd_w; o < (v + 1) * c.simd_w; ++o)
            if (!is_up2_tap(o, wt.lin[o])) return false;
        return true;
    };
    int64_t first = 0;
    while (first < c.ow_full && !vec_ok(first)) ++first;
    int64_t end = first;
    while (end < c.ow_full && vec_ok(end)) ++end;
    c.up2_first = first;
    c.up2_groups = (end - first) / 2;
}

// jit_conf::per_inlane: every phase's lanes fit 4-element windows inside its 8-element ones
// (so the lane loads read nothing the window loads would not). A run of pairs takes both taps
// from one pair of lane windows or keeps its vpermps (one 32-byte load); off the pairs each tap
// takes its own (per_lane_split).
void set_inlane_windows(jit_conf &c, const std::vector<pass_record> &r) {
    if (c.simd_w != 8 || c.dt != data_type::f32 || c.per_p == 0) return;
    auto fits = [&](bool split) {
        for (int ph = 0; ph < c.per_p; ++ph) {
            const pass_record &rec = r[static_cast<size_t>(c.per_first + ph)];
            int32_t off[2][2];
            // Inside the phase's 8-element windows: the run walks windows, not the row's end.
            if (split) {
                for (int t = 0; t < 2; ++t)
                    if (!tap_lane_windows(c, rec, t, 7, off[t], c.per_lane_idx[ph][t])) return false;
            } else if (!lane_windows(c, rec, 7, off[0], c.per_lane_idx[ph])) {
                return false;
            }
            for (int t = 0; t < 2; ++t)  // pairs: tap 1 reads tap 0's windows
                for (int lane = 0; lane < 2; ++lane)
                    c.per_lane_off[ph][t][lane] = split ? c.per_rel[ph][t] + off[t][lane] : c.per_rel[ph][0] + off[0][lane];
        }
        return true;
    };
    if (c.per_pairs) c.per_inlane = fits(false);
    else c.per_inlane = c.per_lane_split = fits(true);
}

// jit_conf::per_*. The period is guessed from the taps: the smallest shift p (output columns)
// under which 8 outputs from OW / 4 on (past the left clamp) keep their weights and shift
// their taps alike; per_p is then the vectors that hold a whole number of such periods. The
// guess is checked on the records themselves (as jit_tables lays them out), vector by vector,
// and the longest run of at least 4 vectors and 2 periods kept.
void set_periodic_run(jit_conf &c, const axis_table &w) {
    const int64_t lo = c.OW / 4, hi = std::min<int64_t>(c.OW, lo + 8);
    int64_t px = 0;
    for (int64_t p = 1; p <= 64 && hi + p <= c.OW && px == 0; ++p) {
        const int64_t q = w.lin[lo + p].i0 - w.lin[lo].i0;
        bool same = true;
        for (int64_t o = lo; o < hi && same; ++o) {
            const linear_tap &a = w.lin[o], &b = w.lin[o + p];
            same = b.w0 == a.w0 && b.w1 == a.w1 && b.i0 - a.i0 == q && b.i1 - a.i1 == q;
        }
        if (same) px = p;
    }
    if (px == 0) return;
    const int64_t elems = px * c.flat_c, per = elems / std::gcd(elems, static_cast<int64_t>(c.simd_w));
    if (per > jit_conf::kPerMax) return;
    std::vector<pass_record> r(static_cast<size_t>(c.ow_full));
    for (int64_t v = 0; v < c.ow_full; ++v) make_pass_record(c, w, true, v, r[static_cast<size_t>(v)]);
    const size_t lanes = static_cast<size_t>(c.simd_w) * 4;
    auto repeats = [&](int64_t v, int64_t u, int64_t step) {
        const pass_record &a = r[v], &b = r[u];
        return a.base[0] - b.base[0] == step && a.base[1] - b.base[1] == step &&
               std::memcmp(a.ia, b.ia, lanes) == 0 && std::memcmp(a.ib, b.ib, lanes) == 0 &&
               std::memcmp(a.w0, b.w0, lanes) == 0 && std::memcmp(a.w1, b.w1, lanes) == 0;
    };
    for (int64_t v = per; v < c.ow_full;) {
        const int64_t step = r[v].base[0] - r[v - per].base[0];
        int64_t e = v;
        while (e < c.ow_full && repeats(e, e - per, step)) ++e;
        const int64_t f = v - per, periods = (e - f) / per;
        if (periods >= 2 && periods * per >= 4 && periods > c.per_periods) {
            c.per_first = f, c.per_periods = periods, c.per_step = step, c.per_p = static_cast<int>(per);
            // One window for both taps only if every vector of the run pairs (pair_vecs is a
            // prefix); the two-window path reads each record's own tap-1 window, pairs or not.
            c.per_pairs = f + periods * per <= c.pair_vecs;
            for (int64_t ph = 0; ph < per; ++ph)
                for (int t = 0; t < 2; ++t) c.per_rel[ph][t] = r[f + ph].base[t] - r[f].base[0];
        }
        v = std::max(e, v + 1);
    }
    set_inlane_windows(c, r);
}

// jit_conf::h2_pairs: every output row but the first and last is_up2_tap (rows 2j + 1 and
// 2j + 2 both blend src rows j and j + 1); those two read rows (0, 1) and (I - 1, I - 1), and
// their weights go into conf.
bool h_is_up2(const problem &p, jit_conf &c) {
    const int64_t I = p.in[1], O = p.out[1];
    if (p.ctm != coordinate_transformation_mode::half_pixel || O != 2 * I || I < 2) return false;
    const linear_tap head = linear_coord(0, I, O, p.ctm), tail = linear_coord(O - 1, I, O, p.ctm);
    if (head.i0 != 0 || head.i1 != 1 || tail.i0 != I - 1 || tail.i1 != I - 1) return false;
    for (int64_t o = 1; o + 1 < O; ++o)
        if (!is_up2_tap(o, linear_coord(o, I, O, p.ctm))) return false;
    c.h2_head_w[0] = head.w0, c.h2_head_w[1] = head.w1;
    c.h2_tail_w[0] = tail.w0, c.h2_tail_w[1] = tail.w1;
    return true;
}
}  // namespace

bool jit_can_serve(const problem &p, kernel_isa k, std::string *why_not) {
    std::string why;
    const cpu_isa isa = k.generator();
    if (isa != cpu_isa::avx2 && isa != cpu_isa::avx512_core && isa != cpu_isa::avx512_core_bf16) {
        why = std::string("no kernels for ") + cpu_isa_name(k.tier) + " in this build";
    } else if (p.fmt == data_format::nxc && p.c >= simd_w_of(isa)) {
        // Per-pixel byte offsets live in int64 tables; the channel loop adds immediates.
        // (Narrow pixels take only rows the flat rows' limits below admit, so they need no
        // check of their own, and choosing a tier, which every descriptor does even on a
        // cache hit, never runs their rule.)
        if (p.c > (int64_t(1) << 28)) why = "C = " + std::to_string(p.c) + " exceeds the JIT limit 2^28";
    } else if (!flat_rows_fit(p, p.fmt == data_format::ncx ? 1 : p.c)) {
        why = "W (" + std::to_string(p.in[2]) + " -> " + std::to_string(p.out[2]) + ") exceeds the JIT row limits";
    }
    if (!why.empty() && why_not) *why_not = why;
    return why.empty();
}

jit_conf make_jit_conf(const problem &p, kernel_isa k, bool unit_w) {
    jit_conf c;
    const cpu_isa isa = k.generator();
    c.isa = isa;
    c.native_bf16 = p.dt == data_type::bf16 && k.tier >= cpu_isa::avx512_core_bf16;
    c.unit_w = unit_w && p.algorithm == alg::linear;
    c.dt = p.dt;
    c.algorithm = p.algorithm;
    c.fmt = p.fmt;
    c.k = p.k;
    c.esize = static_cast<int>(dt_size(p.dt));
    c.simd_w = simd_w_of(isa);
    const bool lin = p.algorithm == alg::linear;
    c.nh = lin && p.k >= 2 ? 2 : 1;
    c.nd = lin && p.k >= 3 ? 2 : 1;
    c.n_taps = c.nh * c.nd;
    c.C = p.c;
    c.IW = p.in[2];
    c.OW = p.out[2];
    if (!jit_can_serve(p, k, &c.why_not)) return c;
    const int64_t w = c.simd_w;
    c.pass_engine = jit_uses_pass_engine(p, k);
    const h_links hl = lin && c.k >= 2 ? scan_h_links(p) : h_links{};
    const h_links dl = lin && c.k == 3 ? scan_h_links(p, 0) : h_links{};  // the D axis
    if (!c.pass_engine) {
        c.c_full = c.C / w;
        c.c_tail = c.C % w;
        c.narrow = lin && c.C < w;  // nearest pixels under a vector: gen_nxc_nearest's small copies
        if (c.narrow) c.edge_px = narrow_edge_px(p, w, isa != cpu_isa::avx2);
        c.c_bytes = c.C * c.esize;
        c.wtab_stride = lin ? 24 : 8;
        c.rows = p.n * p.out[0] * p.out[1];
        c.src_row_bytes = c.IW * c.C * c.esize;
        c.dst_row_bytes = c.OW * c.C * c.esize;
        c.nxc_separable = lin && c.k >= 2 && !c.narrow && separable_pays(p, hl, k, c.native_bf16);
        // 3-D with shared rows: separable over W-planes (plane mode, as for NCX) where they pay.
        // The direct kernel makes 8 W steps per output vector; the LRU of 4 W rows makes each
        // src row's W step again for every od that uses its slice. A/B on the dev VM against
        // the better of those: f32 0.5x with W-planes of 96 KiB, even at 256 KiB, 2.2x slower
        // at 512 KiB (L2 is 512 KiB); 16-bit 0.66-0.81x up to 8 MiB, capped at 4 MiB of
        // per-thread scratch (vol_2x: 2 MiB). Not for f32 where neighbouring od rarely share
        // a D slice (D downsampled): each W-plane then serves one od, and its trip through L2
        // costs more than the direct kernel's extra W steps. A/B on the Sapphire Rapids class
        // VM (two runs each): 19x3x8 -> 2x2x30 C = 144 0.39x, 0.56x the time (oneDNN had
        // taken 0.43x ours); 12x20x20 -> 6x24x24 C = 32 0.65x, 0.88x; 12x20x20 -> 4x30x30
        // C = 16 0.85x, 1.06x; 16x64x64 -> 8x128x128 C = 32 and 9x16x16 -> 3x32x32 C = 64
        // 0.99-1.01x. 16-bit keeps its planes: bf16's separable rows ran those 0.72-1.15x,
        // f16's direct kernel 0.8-1.95x.
        // 16-bit at 512 bits keeps W-planes up to 1.5 MiB only: two planes of 2 MiB or more
        // fill the L2 (2 MiB a core on the Sapphire Rapids class and Xeon dev VMs). Past it the
        // W steps go row by row through the LRU of four W rows, in D pairs where od repeat
        // their D taps (d_pairs: each src row's W step once per pair, each H step once for
        // both od). Xeon dev VM (Emerald Rapids), bench_ab against the kernels before: bf16,
        // which kept its planes, vol_2x 0.57-0.71x the time (7.5 -> 4.3 ms), 16x56x56 ->
        // 32x112x112 C = 32 (1.5 MiB planes) 0.64x, 8x64x64 -> 16x128x128 C = 48 0.62-0.68x,
        // D down (16x64x64 -> 8x128x128 C = 32, no pairs) 0.72x; f16, which had taken the
        // direct kernel's D pairs there (themselves 0.62-0.74x of its planes), D down
        // 0.64-0.76x, and with D pairs a wash: vol_2x 0.85-1.33x over eleven A/Bs, both
        // kernels moving between 3.8 and 5.6 ms from run to run (bf16's direct kernel ran
        // 1.2-1.5x the time of its rows). Planes of 1.5 MiB and less stay (rows 0.93-0.97x
        // at 16x64x64 -> 32x128x128 C = 16 and 8x32x32 -> 16x64x64 C = 32, odd 3-D C = 40
        // 1.16-1.22x). f32 rows lost 1.15-1.6x (with NT stores its pairs are off, below).
        // f32 at 256 bits takes the rows too where the dst takes NT stores on one thread (whole
        // ymm rows, D pairs: d_cols below where the rows are long), for the direct kernel makes
        // 8 W steps per output vector and is compute-bound there. bench_ab on the Zen 3 dev VM
        // against the direct kernel, both shim orders, 1 thread: vol_2x NXC 0.54-0.58x the time
        // (6.8-7.9 -> 3.9-4.3 ms; its NT fill 3.0 ms), C = 48 0.52-0.55x, C = 16 0.40-0.42x,
        // C = 8 0.19-0.20x; 16 MiB dsts of whole rows (no blocks): 16x64x32 -> 32x128x64
        // C = 16 0.42-0.50x, 16x128x32 -> 32x256x64 C = 8 0.28-0.31x; 10x50x50 -> 20x100x100
        // C = 24 0.85-0.92x. On 2 threads vol_2x, C = 48 and C = 16 0.52-0.66x; the 16 MiB dsts,
        // which take plain stores there, 1.06-1.26x with both dsts alternating through the LLC
        // (`xinterp bench`, one dst kept warm: 0.70-0.87x). Plain stores alone gained nothing
        // (8x32x32 -> 16x64x64 C = 32, 8 MiB: 1.05-1.18x; C = 40 and 100 0.83-0.87x), nor D
        // down (0.96-0.99x, no pairs).
        // 16-bit at 256 bits takes them before its planes where they go in column blocks with
        // NT stores, unless its dst rows are half a page off (rows16): a plane blend's f32
        // loads run at twice its 16-bit stores' byte rate, so their addresses sweep past the NT
        // stores still queued (4K aliasing: jit_kernel_base::thread_scratch), where group_rows
        // keeps a block's W rows 512 bytes ahead of its stores for the whole call on page
        // rows; rows off a page start each row oh elsewhere. Rows half a page off (row bytes
        // 2 KiB mod 4 KiB: every other row oh starts 2 KiB from the lead) keep planes: C = 24
        // vol_2x (6 KiB rows) 1.15-1.24x the time of planes; bench_ab on the Zen 3 dev VM, both
        // orders, 16x64x64 -> 32x128x128 C = 40 1.10-1.21x, 8x96x96 -> 16x192x192 C = 16
        // 0.94-1.40x, 16x48x48 -> 32x96x96 C = 32 0.93-1.22x. Other offsets take rows:
        // 16x48x48 -> 32x96x96 C = 48 (9 KiB rows) 0.80-0.88x, C = 40 0.68-0.85x, C = 56
        // 0.78-0.90x, 8x48x48 -> 16x96x96 C = 72 0.69-0.92x; on 2 threads (plain stores,
        // whole rows) C = 48 0.98-1.09x, C = 72 1.05-1.08x. Page rows, against planes:
        // vol_2x NXC bf16 0.65-0.79x, f16 0.63-0.66x (1 thread; 2 threads 0.72-0.86x);
        // 16x32x64 -> 32x64x128 C = 64 0.60-0.63x (2 threads 0.58-0.77x); 8x64x64 ->
        // 16x128x128 C = 48 (24 MiB) 0.70-0.88x, on 2 threads (plain stores, whole rows)
        // 0.97-1.07x.
        const bool d_rarely_shared = c.k == 3 && dl.rarely_shared(p, 0);
        if (lin && c.k == 3 && !c.narrow && !hl.rarely_shared(p) && !(d_rarely_shared && c.dt == data_type::f32)) {
            const int64_t pad = (c.OW * c.C + w - 1) / w * w, planes = 2 * p.in[1] * pad * 4;
            const int64_t max16 = w == 16 ? jit_conf::kNxcPlanes16Zmm : jit_conf::kNxcPlanes16;
            const int64_t row_elems = c.OW * c.C;
            const bool repeat = d_taps_repeat(p, dl);
            const bool nt_rows = w == 8 && row_elems % w == 0 && p.dst_bytes >= nt_min_bytes() && repeat;
            const bool rows16 = nt_rows && c.esize == 2 && row_elems * c.esize % jit_conf::kAliasPage != jit_conf::kAliasPage / 2 &&
                                4 * row_elems * 4 > jit_conf::kRunMinBytes;
            if (!rows16 && (c.esize == 2 ? planes <= max16 : planes <= jit_conf::kPlaneBudget / 2)) {
                c.nxc_separable = c.plane_mode = true;
            } else if ((w == 16 && c.esize == 2) || (nt_rows && c.esize == 4) || rows16) {
                c.nxc_separable = true;
                c.d_pairs = repeat;
            }
        }
        // 2-D pairs, not for 512-bit f32 pixels of 25+ channels that end off a cache line
        // (C % 16 != 0): there every store crosses a line, and two output rows written a
        // vector each in turn ran slower than one row at a time. A/B on the Xeon dev VM (Emerald Rapids)
        // (bench_ab, single rows against pairs and runs, 1 thread, dst in L2): 33x33 -> 65x65
        // C = 25-90 0.43-0.96x the time (median of two runs each: C = 25 0.69x, 47 0.56x, 63
        // 0.67x, 90 0.72x), 30x30 -> 60x60 C = 100 0.77x, C = 188 0.83x, C = 217 0.67x, 40x10
        // -> 80x20 C = 217 0.63x, 100x100 -> 200x200 C = 25 0.87x, the sweep's 251x1 -> 1690x5
        // C = 217 (7.3 MB) 0.70x; C = 17-24 ran 0.90-1.39x single, so their pairs stay, as
        // do pixels of whole lines (C = 128: 1.12x single) and f16, whose 32-byte stores ran
        // 1.33-1.86x single even off a line. 3-D D pairs stay too (C = 40-150 1.01-1.42x
        // single; C = 217 0.68-1.02x).
        const bool split_px_rows = w == 16 && c.dt == data_type::f32 && c.C % w != 0 && c.C >= 25;
        c.row_pairs = lin && c.k == 2 && !c.nxc_separable && !split_px_rows && hl.chained * 4 >= p.out[1];
        c.same_pairs = lin && c.k == 2 && !c.nxc_separable && !split_px_rows && hl.same * 4 >= p.out[1];
        // Runs of two same-taps pairs (jit_conf.hpp, same_run). A/B on the dev VM against pairs
        // alone: fpn_2x and yolo_2x NXC f32 0.87-0.90x the time, f16 0.79-0.88x. Runs of three
        // and four ran f32 up to 1.6x slower: fpn_2x's dst rows lie 64 KiB apart and its src
        // rows 32 KiB, so the 2M + M + 1 streams of a pixel fall into one L1 set (8 ways).
        const int64_t row_out = c.OW * c.C * c.esize, row_in = c.IW * c.C * c.esize;
        if (c.same_pairs && 4 * row_out < (int64_t(1) << 31) && 2 * row_in < (int64_t(1) << 31)) c.same_run = 2;
        // Pixel pairs in the runs (jit_conf.hpp, px_pairs). bench_ab on the Xeon dev VM, both
        // orders: fpn_2x and yolo_2x NXC 16-bit 0.90-1.00x the time, C = 32-128 0.86-0.93x;
        // f32 ran 1.07-1.09x slower at 16x16 -> 32x32 C = 128 and even elsewhere, so it keeps
        // single pixels.
        if (c.same_run && w == 16 && c.esize == 2 && c.c_tail == 0 && !c.narrow) set_px_pairs(c, p);
        if (lin && c.k == 3 && !c.nxc_separable && c.dt != data_type::bf16)  // bf16 is separable anyway
            c.d_pairs = d_taps_repeat(p, dl);
        // Nearest, pixels of whole vectors: rows that repeat their src row come in pairs from
        // one call (H up >= 2x; not with NT stores, below), and any other repeat is
        // regenerated; pixels that are not whole vectors copy a repeated row instead. A/B on
        // the dev VM against copying: pairs ran yolo_2x f32 0.89x, bf16 0.73x, fpn_2x f32
        // 0.7-0.9x; copying ran 0.45-0.9x the time of regenerating on c17, c23 and bf16
        // C = 21, whose per-pixel tails cost more than a memcpy of the row.
        if (!lin) {
            c.row_pairs = c.c_bytes % (w * 4) == 0 && p.out[1] >= 2 * p.in[1];
            c.copy_rows = c.c_bytes % (w * 4) != 0;
        }
        if (c.nxc_separable) {  // scratch rows and the blends see flat rows of OW * C elements
            set_flat_rows(c, c.C);
            c.bf16_even_odd = c.dt == data_type::bf16 && w == 8 && c.C % 16 == 0;
            // The W step's pixel pairs (jit_conf.hpp, px_pairs). bench_ab on the Xeon dev VM
            // against single pixels, both shim orders: vol_2x NXC bf16 0.84-0.93x the time, f16
            // 0.87-0.96x; 16x56x56 -> 32x112x112 C = 32 and 16x64x64 -> 32x128x128 C = 48
            // 0.92-0.95x; plane mode (16x32x32 -> 32x64x64 C = 32) 0.97-1.00x; avx512_core
            // kernels 0.89-1.00x. AVX2 f16 ran 1.06x slower (bf16 there has even/odd blocks).
            if (w == 16 && c.c_tail == 0 && !c.narrow) set_px_pairs(c, p);
            c.n_slots = 2 * c.nd;
            c.scratch_bytes = c.n_slots * c.ow_pad * 4;
            if (c.plane_mode) {
                c.wplane_bytes = p.in[1] * c.ow_pad * 4;
                c.n_wplanes = 2;
                c.n_slots = 0;
                c.scratch_bytes = c.n_wplanes * c.wplane_bytes;
            }
        }
    } else {
        set_flat_rows(c, p.fmt == data_format::ncx ? 1 : c.C);
        const axis_table wt = make_axis(p, 2);  // the W taps, shared by the scans below
        scan_windows(c, [&](int64_t o) { return lin ? wt.lin[o] : linear_tap{wt.nearest[o], wt.nearest[o], 1.f, 0.f}; }, lin);
        c.shuf_windows = lin && c.window && c.esize == 2 && w == 8;
        c.gather_by_insert = !c.window && insert_spelling(isa);
        // Taps are neighbours wherever i0 < IW - 1, and i0 never falls as o grows: the pairs end
        // at the first output clamped to the last column, found by bisection.
        if (lin && c.gather_by_insert && c.flat_c == 1 && c.IW >= 2) {
            int64_t lo = 0, hi = c.row_out;  // [lo, hi): the first clamped output, or row_out
            while (lo < hi) {
                const int64_t mid = lo + (hi - lo) / 2;
                if (wt.lin[mid].i0 < c.IW - 1) lo = mid + 1;
                else hi = mid;
            }
            c.pair_vecs = std::min(lo / w, c.ow_full);
            c.pair_tail = c.ow_tail > 0 && lo == c.row_out;
        }
        // Record: a simd_w*4-byte header (window bases), then index vectors and weights.
        c.rec_bytes = static_cast<int>(w * 4 * (lin ? 5 : 2));
        c.fuse_h = lin && c.k >= 2 && hl.rarely_shared(p);
        // unit_w: the runs below blend taps with their own code, which does not take the unit
        // W step (jit_conf.hpp); only blend_w does.
        if (lin && c.window && c.flat_c == 1 && !c.fuse_h && !c.unit_w && p.ctm == coordinate_transformation_mode::half_pixel &&
            c.OW == 2 * c.IW)
            set_up2_run(c, wt);
        if (lin && c.window && !c.fuse_h && !c.unit_w && c.up2_groups == 0 && c.ow_full >= 4) set_periodic_run(c, wt);
        c.n_slots = lin && !c.fuse_h ? 2 * c.nd : 0;
        int64_t rows_bytes = lin ? (c.n_slots + (c.k == 3 && c.fuse_h ? 2 : 0)) * c.ow_pad * 4 : 0;
        if (lin && c.k >= 2 && !c.fuse_h) {
            c.wplane_bytes = p.in[1] * c.ow_pad * 4;
            c.n_wplanes = c.k == 3 ? 2 : 1;
            c.plane_mode = c.n_wplanes * c.wplane_bytes <= jit_conf::kPlaneBudget;
            if (c.plane_mode) {
                c.n_slots = 0;
                rows_bytes = c.n_wplanes * c.wplane_bytes;
            }
        }
        // Nearest: only for short rows. Longer rows are better served by the per-row driver,
        // which copies an output row that repeats its predecessor's src row (A/B on this VM:
        // 2 KiB rows ran 1.5-2.1x slower in plane mode, rows up to 512 bytes 0.79-1.0x). Row
        // pairs (H upsampling) in both modes (jit_conf.hpp).
        if (!lin) c.plane_mode = c.row_out * c.esize <= 512;
        c.nearest_row_pairs = !lin && p.out[1] > p.in[1];
        // Fused 2-D: the fused W+H pass itself loops over the rows (no W-planes needed).
        if (lin && c.k == 2 && c.fuse_h) c.plane_mode = true;
        // Fused 3-D: per src D slice, one fused call makes an H-plane of all OH rows; per
        // (plane, od), one blend call forms the D step of two H-planes, from a 24-byte record
        // per row built by the driver after the planes. Per row it was two fused calls and a
        // blend, and every H row was made again for each od that uses its slice. Where a
        // plane's ID H-planes all fit kVolBudget (hvol), each slice has its own slot and one
        // blend call per range and plane reads the records from jit_tables::drows.
        if (lin && c.k == 3 && c.fuse_h) {
            c.wplane_bytes = p.out[1] * c.ow_pad * 4;
            c.hvol = p.in[0] * c.wplane_bytes <= jit_conf::kVolBudget;
            c.n_wplanes = c.hvol ? static_cast<int>(p.in[0]) : 2;
            c.plane_mode = c.n_wplanes * c.wplane_bytes <= jit_conf::kPlaneBudget;
            if (c.plane_mode) rows_bytes = c.n_wplanes * c.wplane_bytes + (c.hvol ? 0 : p.out[1] * 24);
        }
        c.scratch_bytes = rows_bytes;
        const int64_t planes = p.fmt == data_format::ncx ? p.n * p.c : p.n;
        c.rows = planes * p.out[0] * p.out[1];
        c.src_row_bytes = c.row_in * c.esize;
        c.dst_row_bytes = c.row_out * c.esize;
    }
    // Full-vector stores are simd_w lanes: 32 bytes (f32) or 16 bytes (16-bit); every one stays
    // aligned when the per-pixel (NXC) or per-row (NCX) span is a whole number of vectors. NXC
    // nearest copies a pixel in simd_w * 4-byte vectors whatever the dtype, so there the pixel
    // must be whole vectors of bytes (bf16 C = 24 is not).
    const bool nxc_nearest = !lin && !c.pass_engine;
    const bool aligned = nxc_nearest ? c.c_bytes % (w * 4) == 0
                                     : (c.pass_engine || c.nxc_separable ? c.row_out : c.C) % w == 0;
    const bool big = p.dst_bytes >= nt_min_bytes();
    c.nt_eligible = big && aligned;
    // NT runs (jit_conf.hpp, run_nt). bench_ab on the Xeon dev VM against the NT executions
    // before (runs plain-only, so NT rows went as same-taps pairs, first row NT), both shim
    // orders, 1 thread: 64x64 -> 128x128 C = 256 bf16 (8 MiB) 0.77-0.87x the time warm and
    // 0.65-0.76x from a cold cache, 128x128 -> 256x256 C = 64 0.69-0.84x and 0.63-0.67x,
    // 160x160 -> 320x320 C = 32 0.65-0.70x and 0.69-0.70x. f16 runs NT with its 32-byte
    // stores (two per line, eight lines open at once) ran those shapes 4.8-6.7x slower; with
    // two vectors joined into one 64-byte line (store_f16_line) 0.75-0.93x warm and
    // 0.50-0.72x cold, so f16 takes NT runs that way.
    // NT variants with bf16 words in whole lines (jit_conf.hpp, nt_lines). bench_ab against
    // single vectors, both orders, 1 thread: 64x64 -> 96x96 C = 256 bf16 0.74-0.80x the time,
    // 48x48 -> 144x144 C = 256 0.81x, 100x100 -> 150x150 C = 128 0.82x; from a cold cache
    // 0.88-1.28x over 14 A/Bs (median 0.97x, DRAM-bound). The pairs keep their second row
    // plain: both NT measured the same.
    c.nt_lines = c.nt_eligible && c.native_bf16 && w == 16 && c.C % 32 == 0 && !c.nxc_separable && !c.narrow && !c.pass_engine;
    const bool f16_lines = c.nt_eligible && c.dt == data_type::f16 && w == 16 && c.C % 32 == 0 && !c.narrow;
    c.run_nt = c.same_run && (c.nt_lines || f16_lines);
    // With NT stores NXC nearest rows go singly: the pair kernel's two interleaved NT streams
    // ran vol_2x NXC 1.3x slower (more write-combining buffers open at once). So the pair
    // kernel has no NT variant, and serves only the executions with plain stores (below
    // nt_min_bytes(threads), as an NT-eligible dst is on more threads up to the whole LLC).
    if (c.up2_groups > 0 && c.k == 2 && c.plane_mode && !c.nt_eligible && p.out[1] * c.dst_row_bytes <= jit_conf::kPlaneBudget &&
        h_is_up2(p, c)) {
        c.h2_pairs = true;
        c.h2_band = std::max(jit_conf::kH2BandMin, jit_conf::kH2BandBytes / (2 * c.dst_row_bytes));
        c.scratch_bytes = 0;  // no W-plane; the edge rows' fused pass reads src in place (no staging: window path)
    }
    // Nearest rows that cannot take aligned NT stores stream through scratch instead (per-row
    // drivers only: plane mode writes a plane of short rows per call), where H upsampling by 2x
    // or more repeats each row. A/B on the dev VM, against plain stores: 8-9x up 1.3-1.5x
    // faster, 2x up 1.0-1.2x; 1.5x up 0.95x and H down 0.85x (each row then pays the trip
    // through scratch once and saves nothing).
    if (!lin && !c.plane_mode) {
        const bool repeats = p.out[1] >= 2 * p.in[1];
        c.nt_stream = big && repeats && !c.nt_eligible && c.dst_row_bytes >= 64 && c.dst_row_bytes <= jit_conf::kStreamRowMax;
        // Rows that split lines, made once in scratch and copied with aligned stores
        // (jit_conf.hpp, copy_aligned). bench_ab against the row kernel and its pairs (Xeon
        // dev VM, 512 bits, f32/bf16/f16): 108x233 -> 207x362 C = 4 0.60/0.61/0.61x the time
        // (the sweep's worst case, 0.38-0.67x oneDNN), 224x224 -> 500x500 C = 3 0.62-0.64x,
        // 480x640 -> 600x900 C = 2 0.52-0.89x (NXC 0.61-0.92x), 110x82 -> 144x156 C = 19 f32
        // 0.82x (16-bit 0.97x), 27x75 -> 44x138 C = 39 f32 0.74x, 76x211 -> 111x138 C = 36
        // f32 0.80x (16-bit 0.99-1.07x), NXC 96x14 -> 160x31 C = 13 0.52-0.66x, 100x150 ->
        // 200x300 C = 3 0.55-0.72x, 3-D 10x20x150 -> 20x40x300 C = 4 NCX 0.64-0.67x, 30x1000
        // -> 40x1001 C = 5 0.73-0.96x. Only where H or D goes up by 1.25x or more: rows that
        // rarely repeat pay the trip through scratch for little (30x1000 -> 31x1001: 1.05-1.48x).
        const bool up = 4 * p.out[0] >= 5 * p.in[0] || 4 * p.out[1] >= 5 * p.in[1];
        c.copy_aligned = c.pass_engine && up && c.row_out % w != 0 && c.dst_row_bytes <= jit_conf::kStreamRowMax;
        if (c.nt_stream || c.copy_aligned) {
            c.stream_off = (c.scratch_bytes + 63) / 64 * 64;
            c.scratch_bytes = c.stream_off + c.dst_row_bytes;
        }
    }
    // Direct NXC 3-D linear rows that cannot take aligned NT stores (pixels that are not whole
    // vectors) stream through scratch where dst passes stream_min_bytes: each call writes its
    // row (or a D pair's two) there, and the stream copy takes them to dst with NT stores.
    // Xeon dev VM (Emerald Rapids), bench_ab against plain stores, f32: 16x64x64 ->
    // 32x128x128 C = 24 (50 MB) 0.34-0.36x the time (15.1 -> 5.5 ms; oneDNN had taken 0.84x
    // ours), C = 40 0.55-0.66x, C = 20 0.92-1.03x; 8x64x64 -> 16x128x128 C = 24 0.39-0.51x,
    // C = 56 0.68x; 16x60x60 -> 32x120x120 C = 24 0.55x; 9x50x50 -> 34x99x99 C = 24 (32 MB)
    // 0.56x, but -> 17x99x99 (16 MB, under the LLC) 1.17-1.18x. 2-D rows, whose pairs write
    // neighbouring rows, gained nothing (C = 24 512x512 and 1024x1024, C = 21 600x600, C = 40
    // 400x400: 0.80-1.27x; narrow C = 12 16-bit 1.36-1.61x), so they keep plain stores.
    if (lin && c.k == 3 && !c.pass_engine && !c.nxc_separable) {
        c.nt_stream = p.dst_bytes >= stream_min_bytes() && !c.nt_eligible &&
                      c.dst_row_bytes >= 64 && 2 * c.dst_row_bytes <= jit_conf::kStreamRowMax;
        if (c.nt_stream) {
            c.stream_off = (c.scratch_bytes + 63) / 64 * 64;
            c.scratch_bytes = c.stream_off + 2 * c.dst_row_bytes;
        }
    }
    // Nearest plane rows at 512 bits that are not whole lines long, stored as whole aligned
    // lines (jit_conf.hpp, plane_lines). bench_ab against the split stores (Xeon dev VM): f32
    // c17 NCX 0.66-0.69x the time, c23 0.69x, r15to73 0.67-0.68x, 20x30 -> 40x127 C = 8
    // 0.55x, 32x32 -> 64x50 C = 256 0.81x, 20x20 -> 50x33 C = 16 0.85x, 50x50 identity 0.89x,
    // 80x200 -> 40x100 C = 64 0.95-1.03x; 16-bit 40x127 0.65-0.75x, 40x30 -> 100x100 C = 64
    // 0.74x, 100x40 -> 200x120 C = 3 0.74-0.76x, c17 and r15to73 0.92-0.96x, 40x10 -> 100x70
    // C = 64 1.03x. Rows of under two lines (f32 17-31 elements, 16-bit 33-63) ran 1.0-1.4x
    // slower, and so did outputs that stay in L1 (16-bit 7x9x11 -> 13x5x67 C = 5, 43 KB:
    // 1.2-1.3x), whose split stores cost little.
    // The linear blends likewise (jit_conf.hpp, blend_lines): f32 rows of 2 vectors or more
    // (224x224 -> 300x300 C = 3 0.64-0.67x the time; bench/RESULTS.md: run 27), 16-bit rows of 512 words
    // or more (bf16 natively rounded, f16), against split stores: 100x700 -> 200x1500 C = 3
    // NCX 0.71-0.78x, NXC 0.69-0.70x; 300x300 -> 600x600 C = 2 0.74-0.79x; 100x100 ->
    // 200x200 C = 17 NXC 0.82x; c17 NXC (flat rows of 1105) 0.85-0.94x, c23 NXC 0.87x; 100x100
    // -> 150x150 C = 5 NXC (750) 0.90-0.96x. Shorter 16-bit rows lost: 300 words 1.04x, 111
    // 1.10-1.15x, c17 NCX (65) 1.21-1.43x, r15to73 NCX (73) 1.27-1.52x; there a 32-byte store
    // splits half the time at most, and the row's setup outweighs it.
    {
        const int64_t lanes = 64 / c.esize;
        c.blend_lines = lin && (c.pass_engine || c.nxc_separable) && w == 16 &&
                        (c.esize == 4 || c.words_round()) && c.row_out % lanes != 0 &&
                        c.row_out >= (c.esize == 4 ? 2 * lanes : jit_conf::kBlendLinesMinWords);
        c.plane_lines = !lin && c.pass_engine && c.plane_mode && w == 16 && !c.flat && (c.esize == 4 || c.window) &&
                        c.row_out % lanes != 0 && c.row_out >= 2 * lanes && p.dst_bytes >= jit_conf::kLinesMinBytes;
    }
    // 3-D plane-mode blends (NCX, separable NXC): od pairs with the same D taps share the H
    // steps of their four W-plane rows (jit_conf.hpp, d_pairs). A/B on the dev VM, dst in
    // cache (1-4 MiB): 0.70-0.83x the time in all dtypes, NCX and NXC; odd3d 0.83-1.06x.
    // With NT stores both outputs take NT ones (c.pairs_nt). f32 pairs against single NT rows
    // and planes, bench_ab on the Xeon dev VM (Emerald Rapids), both shim orders: vol_2x NXC
    // (direct) 0.74-0.81x on one thread, 0.60-0.86x on two, AVX2 kernels 0.72-0.75x; NCX
    // (plane blends) 0.89-0.99x on one, 0.94-1.10x on two, AVX2 0.94-0.99x. 16-bit pairs had
    // kept od + 1 plain (measured with the dst rewritten in place, where the plain half is
    // still in this VM's LLC, 260 MiB shown: both NT 0.90-1.0x on one thread, 1.0-1.12x on
    // two). From a cold cache (bench_ab --cold, as in a loop where other work runs between
    // executions, which an NT-sized dst assumes) both NT ran vol_2x 16-bit 0.77-0.91x on one
    // thread, 0.74-0.85x on two, AVX2 kernels 0.77-0.97x, 256-bit EVEX 0.85-0.97x; in
    // bench_dtypes (three dtypes in turn) NCX 0.54-0.64x f32's time against 0.71-0.94x.
    if (lin && c.k == 3 && c.plane_mode && !c.fuse_h) c.d_pairs = d_taps_repeat(p, dl);
    c.pairs_nt = c.d_pairs && c.nt_eligible;
    // Separable NXC D pairs with NT stores column block by column block (jit_conf.hpp,
    // d_cols) where the four W rows pass kRunMinBytes. bench_ab on the Xeon dev VM (Emerald
    // Rapids) against whole rows, both shim orders, vol_2x NXC (W rows of 16 KiB, blocks of
    // 32 pixels): bf16 0.78-0.88x the time, f16 0.80-0.84x, from a cold cache and not; C = 48
    // (blocks of 20 pixels) 0.89-0.97x; 2 threads 0.82-1.22x (median ~0.97). Executions with
    // plain stores keep whole rows: blocks ran them 0.90-1.11x (cold: 1.06-1.08x), the dst
    // rows' RFO streams broken into 2 KiB pieces.
    if (c.nxc_separable && c.pairs_nt && !c.plane_mode && c.n_slots * c.ow_pad * 4 > jit_conf::kRunMinBytes) {
        const int64_t lanes2 = 2 * w, unit = lanes2 / std::gcd(c.C, lanes2);  // block widths keep 64-byte pairs
        const int64_t px = jit_conf::kColBlockBytes / (c.C * 4) / unit * unit;
        if (c.row_out % lanes2 == 0 && px > 0 && px < c.OW) c.d_cols = px;
    }
    // Chains of D pairs in groups of two (jit_conf.hpp, d_group): vol_2x's 14 chained pairs
    // W-step 21 slices' rows instead of 28. bench_ab on the Xeon dev VM against pairs one at a
    // time, both shim orders, three times each: vol_2x NXC bf16 0.86-0.92x the time, f16
    // 0.89-0.93x; avx512_core kernels (bf16 rounded by hand) 0.94-1.01x, f16 0.92-0.99x;
    // 2 threads 0.92-1.00x; C = 48 0.92-1.02x. In `xinterp bench` runs, groups of 3 and 4
    // (4 KiB blocks, or 2 KiB) took vol_2x bf16 1.02-1.07x the time of groups of two, 7 (1 KiB
    // blocks) 1.33x: the 2 * (d_group + 1) block rows leave L1, or the calls get short.
    if (c.d_cols) {
        c.d_group = jit_conf::kDGroup;
        const int64_t page = jit_conf::kAliasPage, slot = (d_cols_conf(c, p, c.d_cols).ow_pad * 4 + page - 1) / page * page;
        const int64_t group_slots = 2 * (c.d_group + 1) * slot + page;  // whole pages, placed (group_rows)
        c.scratch_bytes = std::max(c.scratch_bytes, group_slots);
    }
    // Linear W-planes column by column (jit_conf.hpp, wplane_cols). A/B on the dev VM against
    // row by row: c17, c23 and r15to73 NCX 0.93-0.96x the time in f32, 0.90-0.93x in f16 and
    // 0.78-0.95x in bf16; 3-D and flat NXC (C = 3, 5) 0.86-0.95x. Periodic runs: 5/3
    // 0.78-0.89x, 8/3 and 4x 16-bit 0.94-0.98x; f32 with lane windows (4x, 8x, 8/3)
    // 0.98-1.02x, so those keep rows. W-planes past L1 gave 0.89-1.0x, but seg_8x NCX bf16
    // (128 KiB, rows 2 KiB apart, so a column's rows share two L1 sets) 1.10-1.16x: the
    // columns stop at kColsBudget.
    c.wplane_cols = lin && c.pass_engine && c.plane_mode && !c.fuse_h && !c.h2_pairs && !c.unit_w && c.window && c.up2_groups == 0 &&
                    !(c.per_inlane && !c.per_lane_split && c.per_p <= 2) && c.wplane_bytes <= jit_conf::kColsBudget;
    // AVX2 f32 columns with lane windows (jit_conf.hpp, cols_inlane) where every pair vector's
    // lanes fit them. A/B on the dev VM against vpermps columns: c17, c23 and r15to73 NCX
    // 0.90-0.96x the time (two runs of 80 rounds), 5/3 0.96x.
    if (c.wplane_cols && c.simd_w == 8 && c.dt == data_type::f32) {
        const axis_table wt = make_axis(p, 2);
        pass_record r;
        int32_t off[2], idx[2][8];
        bool all = true;
        for (int64_t v = 0; v < window_pair_vecs(c) && all; ++v) {
            make_pass_record(c, wt, true, v, r);
            all = lane_windows(c, r, c.row_in - 1 - r.base[0], off, idx);
        }
        c.cols_inlane = all;
    }
    // Separable 2-D in row mode: rows with the same H taps in pairs (jit_conf.hpp, h_pairs).
    // A/B on the dev VM: img_up linear 0.89-0.99x the time (NCX, NXC, all dtypes), r15to73
    // NXC f32 0.85x, 64 -> 256 NXC C = 21 f32 0.77x, fpn_2x NXC bf16 0.93-0.95x. Executions
    // with NT stores take them too, both rows NT (c.pairs_nt): bench_ab
    // against single NT rows on the Xeon dev VM (Emerald Rapids), both shim orders: seg_8x
    // NXC (21 MiB f32) f32 0.93-0.96x, bf16 0.82-0.88x, f16 0.92x; 128 -> 512 C = 24 NXC
    // 0.90-0.92x; 1080x1920 -> 2160x3840 C = 3 (NCX and NXC rows) 0.93-1.06x; 2 threads
    // 0.93-0.98x. The second row plain instead ran 0.73-0.88x where the dst fit this VM's
    // LLC (260 MiB shown) but 1.33-1.63x at 1080p, where it did not.
    const bool row_mode = (c.pass_engine || c.nxc_separable) && !c.plane_mode && !c.fuse_h && !c.h2_pairs;
    if (lin && c.k == 2 && row_mode) c.h_pairs = hl.same * 4 >= p.out[1];
    if (c.h_pairs) c.pairs_nt = c.nt_eligible;
    // Runs of same-taps rows column block by column block (jit_conf.hpp, h_runs) against H
    // pairs, bench_ab on the Xeon dev VM, NT stores: seg_8x NXC (W rows of 43 KB) bf16
    // 0.74-0.81x the time, f16 0.74-0.86x, f32 0.91-0.95x (2 threads 0.85-0.93x; the AVX2
    // kernels 0.79-0.95x, both orders); 32x32 ->
    // 256x256 C = 21 16-bit 0.73-0.74x; 128 -> 512 C = 24 0.83-0.98x; 270x480 -> 1080x1920
    // C = 3 0.95-0.99x. Blocks of 1-16 KiB ran alike. W rows that fit L1 together (C = 5, 7 at
    // 512 wide: 20 and 28 KB) gained nothing (0.98-1.09x). Rows of blend_lines keep pairs:
    // the aligned lines start from each row's misalignment, which a block does not carry.
    c.h_runs = c.h_pairs && !c.blend_lines && 2 * c.ow_pad * 4 > jit_conf::kRunMinBytes && p.out[1] >= 3 * p.in[1];
    // Flat volumes (jit_conf::flat): thin rows, or small (plane, od) slices. Slices, A/B on the
    // dev VM against rows (same process, alternating; medians of 61-400, C = 32-64):
    // - 3-D, OH * OW <= 16: 24x4x39 -> 4x1x4 0.4-0.65x the time, 40x4x5 -> 26x1x6 0.58x,
    //   20x6x6 -> 10x2x4 0.6x, 17x10x10 -> 9x4x4 0.7-0.85x, 64x3x3 -> 128x2x2 0.75-0.8x,
    //   6x5x4 -> 3x7x2 0.77x, 15x3x4 and 3x4x4 0.83-0.9x; bf16 and f16 0.4-0.9x (2 threads
    //   0.55-0.9x); f32 on 2 threads 0.65-0.75x. Past it rows win: 20x4x6 (24) took 2.8x
    //   the time flat, 8x4x8 1.65x.
    // - 2-D: 6x6 -> 4x4 0.7x, 3x3 -> 2x7 0.75x, 50x50 and 100x6 -> 4x4 0.8x, 30x30 -> 8x2 and
    //   20x20 -> 3x5 1.0x; rows of a whole vector stay rows (40x40 -> 2x8: 1.4x flat,
    //   10x10x10 -> 10x2x8: 1.9x), and so do larger slices (12x12 -> 6x6: 1.7x, 7x7: 1.9x).
    // - 2-D fused rows (H down) whose W pass gathers every lane (no windows, no tap pairs)
    //   load 4 * simd_w * ow_vecs src elements per row of OW outputs; flat loads 4 per output,
    //   so it goes flat where that is 1.3x fewer loads or better: 221x2 -> 69x4 (C = 21)
    //   0.5x the time, 151x2 -> 29x4 0.6x, 200x4 -> 40x6 0.45-0.7x, 153x2 -> 42x9 0.47x,
    //   230x2 -> 98x9 0.58x; at the same loads it was even (200x5 -> 40x8 and 200x6 -> 40x7:
    //   1.0x), and rows with windows or pairs stay rows (200x8 -> 40x6: 2.2x the time flat,
    //   100x16 -> 20x4 1.2x). 3-D only where od rarely share a D slice (D down about 2x
    //   or more), since elsewhere rows share the H step between od (D pairs: 12x12x12 ->
    //   20x4x6 took 2.8x the time flat). Xeon dev VM (bench_ab, 512 bits, f32/bf16/f16):
    //   4x14x52 -> 2x7x8 C = 111 0.53/0.44/0.42x the time (70 -> 37 us; oneDNN had taken
    //   0.6x ours), 8x32x100 -> 4x16x20 0.69-0.78x, 6x20x70 -> 3x10x12 0.73-0.90x.
    const bool thin = 8 * c.OW <= (c.fuse_h ? 3 : 1) * w;
    const bool small_slices = c.OW < w && p.out[1] * c.OW <= 2 * w;
    const bool gathered_rows = (c.k == 2 || (c.k == 3 && dl.rarely_shared(p, 0))) && c.fuse_h && !c.window && !c.window2 &&
                               c.pair_vecs == 0 && !c.pair_tail && 10 * w * c.ow_vecs >= 13 * c.OW;
    if (lin && c.pass_engine && p.fmt == data_format::ncx && c.k >= 2 && !c.unit_w && (thin || small_slices || gathered_rows) &&
        p.out[0] * p.out[1] * p.out[2] <= jit_conf::kFlatMaxOut && p.in[0] * p.in[1] * p.in[2] < jit_conf::kFlatMaxIn)
        set_flat(c, p, p.in[0] * p.in[1] * p.in[2], p.out[0] * p.out[1] * p.out[2]);
    // Flat W-planes (jit_conf::flat_w).
    if (lin && c.pass_engine && !c.flat && !c.unit_w && c.flat_c == 1 && c.plane_mode && !c.fuse_h && !c.h2_pairs && !c.window &&
        c.ow_vecs == 1 && p.in[1] * c.OW <= jit_conf::kFlatWMaxOut)
        c.flat_w = true;
    c.ok = true;
    return c;
}

jit_conf d_cols_conf(const jit_conf &c, const problem &p, int64_t px) {
    jit_conf b = c;
    b.OW = px;
    set_flat_rows(b, b.C);
    b.d_cols = 0;
    if (c.px_pairs > 0) {  // the pairs of every block this width serves
        std::vector<int64_t> starts;
        if (px == c.d_cols)
            for (int64_t s = 0; s + px <= c.OW; s += px) starts.push_back(s);
        else
            starts.push_back(c.OW - px);
        set_px_pairs(b, p, starts);
    }
    return b;
}

jit_conf wplane_flat_conf(const jit_conf &c, const problem &p) {
    jit_conf f = c;
    f.k = 1;  // one axis: W
    set_flat(f, p, p.in[1] * p.in[2], p.in[1] * p.out[2]);
    return f;
}

}  // namespace xinterp
