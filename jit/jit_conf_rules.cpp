// Which kernel pays where, as measured: narrow NXC pixels on the direct kernel against the pass
// engine's flat rows, and NXC linear separable against direct. make_jit_conf (jit_conf.cpp) asks
// these before it lays anything out.
#include <atomic>

#include "../src/numeric.hpp"
#include "jit_conf.hpp"
#include "jit_conf_parts.hpp"

namespace xinterp {

namespace {
std::atomic<int> g_narrow{-1};  // set_narrow_for_testing
std::atomic<int> g_separable{-1};  // set_separable_for_testing
}  // namespace

void set_narrow_for_testing(int mode) { g_narrow.store(mode); }
void set_separable_for_testing(int mode) { g_separable.store(mode); }

namespace conf_detail {
// jit_conf::edge_px for narrow pixels of w lanes: from the first output pixel whose forward
// loads (w elements from the start of a tap's pixel) or store (w from its own) would leave the
// row, to the row's end; -1 where one of those cannot load backwards either (w elements ending
// at a tap's pixel's end would start before the row). Masked (512 bits): edge pixels load and
// store their C lanes under an opmask, so there is nothing to load backwards.
// The taps never fall as o grows (numeric.hpp), so both conditions hold from some pixel on
// (found by bisection: a scan from pixel 0 had been a tenth of a long row's creation), and the
// lowest tap of the edge is its first pixel's.
int64_t narrow_edge_px(const problem &p, int64_t w, bool masked) {
    const int64_t C = p.c, IW = p.in[2], OW = p.out[2];
    const int64_t first = first_where(0, OW, [&](int64_t o) {
        const linear_tap t = w_tap(p, o);
        return (OW - o) * C < w || std::max(t.i0, t.i1) * C + w > IW * C;
    });
    if (first < OW && !masked && !narrow_edge_loads_fit(p, first, w)) return -1;
    return OW - first;
}
}  // namespace conf_detail

using namespace conf_detail;

namespace {
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
    scan_windows(f, p);
    return f.window || (f.window2 && p.c <= 4);
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

// Nearest f32 flat rows at 512 bits whose table outgrows L1 (kNarrowTableMax) where each output row
// makes its own W pass (1-D, or 2-D with H up less than 2x: no row pairs or copies) read the whole
// table from L2 per row, 2 bytes for each byte stored, and narrow pixels (8 bytes of record per
// pixel) beat them from C = 6. Xeon dev VM (Emerald Rapids), bench_ab, narrow against the windows,
// both orders, table size in brackets: 53x216 -> 26x1620 C = 10 (130 KB; the sweep's 0.88x case
// against oneDNN) 0.78-0.87x the time, 53x216 -> 53x1620 0.87x, 60x300 -> 60x900 C = 9 (65 KB)
// 0.86-0.88x, C = 11, 14 and 15 0.85-0.86x, 60x300 -> 40x900 C = 14 0.82-0.86x, 100x200 -> 100x300
// C = 15 0.89x, 50x100 -> 50x400 C = 11 0.85x, 40x400 -> 60x1200 C = 12 0.88-0.92x, 40x1000 ->
// 40x2000 C = 6 0.88-0.96x; 2 threads 0.86-0.97x; C = 13 60x300 -> 60x900 0.96-1.02x (once 1.14x).
// Under L1 it was mixed: 60x300 -> 60x900 C = 6 (43 KB) 0.81x and 100x100 -> 70x600 C = 8 (38 KB)
// 0.80x, but C = 4, 5 and 7 (29-39 KB) 1.00-1.03x and 64x64 -> 64x128 C = 14 (14 KB) 1.04x, so the
// rule starts at L1. With rows in pairs (53x216 -> 106x1620) 0.98x, so those keep the 192 KiB rule.
// 16-bit narrow pixels lost at C <= 12 (1.4-2.6x the time at 60x300 -> 60x900 C = 4-7, 30x60 ->
// 30x200 C = 12), so 16-bit keeps it too, as 256 bits (unmeasured) does.
bool unshared_window_table(const problem &p, int64_t w) {
    if (w != 16 || p.dt != data_type::f32 || p.c < 6 || p.k == 3 || p.out[1] >= 2 * p.in[1]) return false;
    const int64_t outputs = (p.out[2] * p.c + w - 1) / w * w;  // whole records
    return outputs * 8 > jit_conf::kNarrowTableMax;
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
// (img_up NXC C = 3) and stay, unless their table is big (big_window_table), or (f32 at 512
// bits) outgrows L1 where rows do not repeat (unshared_window_table).
bool narrow_nearest_pays(const problem &p, kernel_isa k) {
    const cpu_isa isa = k.generator();
    const int64_t w = simd_w_of(isa);
    if (p.fmt != data_format::nxc || p.algorithm != alg::nearest || p.c >= w || !flat_rows_fit(p, p.c)) return false;
    if (const int forced = g_narrow.load(); forced >= 0) return forced == 1;
    return big_window_table(p, w) || unshared_window_table(p, w) || !flat_rows_have_windows(p, isa);
}
}  // namespace

bool jit_uses_pass_engine(const problem &p, kernel_isa k) {
    const cpu_isa isa = k.generator();
    return p.fmt == data_format::ncx || (p.c < simd_w_of(isa) && !narrow_pays(p, k) && !narrow_nearest_pays(p, k));
}

namespace conf_detail {
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
//   pass kSepF16RowsMax under 2.5x up: C = 8-128 at 1.25-2x 0.68-0.96x the time (C % 8 != 0 at
//   2x: C = 12 0.87x, 17 0.80x; c17 0.78-0.79x, c23 0.89-0.95x), at 2.5-3.5x 0.48-0.84x (C = 64
//   100x100 -> 250x250, 8 MB, 0.84x), 200x200 -> 300x300 C = 17 (W rows of 2 x 20 KB) 0.78x,
//   800x300 -> 1200x450 C = 9 (2 x 16 KB, 9.7 MB) 0.73-0.75x; but C = 128 at 40x40 -> 50x50 (2
//   x 25.6 KB) 1.08x, C = 8 500x500 -> 750x750 (2 x 24 KB, 9 MB) 1.12-1.14x, C = 24 300x300 ->
//   450x450 (2 x 43 KB) 1.24x, and H down 1.13-1.39x; C = 16 500x200 -> 750x300 (2 x 19 KB, 7.2
//   MB) ran even. Nor past kSepF16MaxBytes of dst: on 2 threads (xinterp bench, old and new
//   builds alternating) 400x400 -> 1000x1000 C = 16 (30.5 MiB) ran 1.01-1.05x the time
//   separable, 200x200 -> 500x500 C = 64 1.03-1.05x and 300x300 -> 750x750 C = 32 (34 MiB, NT
//   stores) 1.30x, where 1 thread had them at 0.88-0.93x; under it 2 threads kept the gains (C
//   = 24 200x200 -> 500x500, 12 MB, 0.83x; C = 9 9.7 MB 0.71x). f16's direct kernel converts
//   every tap's pixel with vcvtph2ps for each output row that reads it; the W rows convert each
//   src pixel once.
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
// With H down (OH < IH: a src row serves under two output rows, so the separable rows save
// under one W step per src row and pay their f32 round trip), 16-bit pixels of 32+ channels
// go direct, native bf16 and f16 alike. xinterp bench on the Xeon dev VM, separable rule
// against direct, alternating (medians of 4 processes each), 1 thread: the random sweep's
// 41x187 -> 24x212 C = 41 bf16 (0.64x oneDNN) 0.51-0.62x the time, f16 0.57x; 19x84 ->
// 13x256 C = 35 0.67x (f16 0.70x), C = 32 0.56x; 216x118 -> 208x68 C = 102 0.74x; 100x100
// -> 70x70 C = 64 0.63x, -> 90x90 0.65x; 30x30 -> 20x45 C = 200 0.54x; 120x120 -> 100x180
// C = 48 0.59x; C = 32-80 elsewhere 0.85-1.00x (f16 C = 33-45 0.79-0.96x), C = 56 and 64 at
// 80 -> 60 and 50 -> 45 1.04-1.07x; 2 threads 0.57-0.88x (C = 56 1.07x). Under 32 channels
// they go direct where a W row (f32) is kSepRowDirect or more, which the blends then read
// from L2: the bf16 sweep's 201x314 -> 158x750 C = 27 (81 KB rows, 0.71x oneDNN) 0.60x the
// time (f16 0.57x, 2 threads 0.72x), 132x165 -> 77x304 C = 24 (29 KB, 0.82x oneDNN) 0.74x
// (f16 0.64x), C = 16-28 with rows of 24-61 KB 0.57-0.78x; under it the separable rows stay:
// C = 17-24 with rows of 7-11 KB ran direct 1.03-1.28x.
// With H up under 4x, native bf16 pixels of 80+ channels that do not fill whole vectors go
// direct too where a W row (f32) is kSepRowDirect or more: same VM and method, the bf16
// sweep's 164x98 -> 193x155 C = 259 (0.86x oneDNN) 0.71x the time, C = 85-259 at 1.2-2x
// (rows of 24-62 KB) 0.53-0.93x (30x30 -> 60x60 C = 90, 100 and 200 0.57-0.70x, 32x32 ->
// 64x64 C = 113 0.56x), 2 threads 0.54-0.87x. Narrower pixels stay separable (C =
// 70 and 78 with rows of 17-19 KB 0.95-1.12x direct, C = 24-50 with rows of 40-96 KB
// 0.77-1.07x), and so do smaller rows (C = 87 and 129 with rows of 12-16 KB 0.97-1.31x).
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
constexpr int64_t kSepRowDirect = int64_t(16) << 10;     // 512-bit 16-bit: W rows the direct kernel beats
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
        const bool big_rows = p.out[2] * p.c * 4 >= kSepRowDirect;  // a W row, f32
        if ((native_bf16 || p.dt == data_type::f16) && p.out[1] < p.in[1] && (p.c >= 32 || big_rows)) return false;
        if (!up4 && native_bf16) return !(p.c % 16 == 0 && (p.c >= 96 || (p.c >= 32 && up2_runs))) && !(p.c >= 80 && big_rows);
        if (!up4 && p.dt == data_type::f16) return p.c % 16 != 0 && p.c < 48;
    }
    return up4 || p.dt == data_type::bf16;
}
}  // namespace conf_detail

}  // namespace xinterp
