// make_jit_conf's last choices (jit_conf.cpp), once the engine and its rows are known: how rows
// are stored (NT stores, streams through scratch, whole aligned lines; set_stores) and grouped
// (D and H pairs, column blocks, flat volumes; set_groups).
#include <algorithm>
#include <numeric>

#include "jit_conf.hpp"
#include "jit_conf_parts.hpp"
#include "jit_tables.hpp"

namespace xinterp {
namespace conf_detail {

namespace {
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

// Scratch for what a stream copy reads (jit_conf::stream_off), `bytes` of it on a line after
// what scratch holds already.
void reserve_stream(jit_conf &c, int64_t bytes) {
    c.stream_off = (c.scratch_bytes + 63) / 64 * 64;
    c.scratch_bytes = c.stream_off + bytes;
}
}  // namespace

void set_stores(jit_conf &c, const problem &p) {
    const bool lin = c.algorithm == alg::linear;
    const int64_t w = c.simd_w;
    // Full-vector stores are simd_w lanes: 32 bytes (f32) or 16 bytes (16-bit); every one stays
    // aligned when the per-pixel (NXC) or per-row (NCX) span is a whole number of vectors. NXC
    // nearest copies a pixel in simd_w * 4-byte vectors whatever the dtype, so there the pixel
    // must be whole vectors of bytes (bf16 C = 24 is not).
    const bool nxc_nearest = !lin && !c.pass_engine;
    const bool aligned = nxc_nearest ? c.c_bytes % (w * 4) == 0
                                     : (c.pass_engine || c.nxc_separable ? c.row_out : c.C) % w == 0;
    const bool big = nt_pays(p);
    c.nt_eligible = big && aligned;
    c.nt_by_src = c.nt_eligible && p.dst_bytes < nt_min_bytes();
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
    // through scratch once and saves nothing). Only where dst passes stream_min_bytes, as the
    // 3-D linear rows below: under the usable LLC plain stores leave dst there, and the Xeon
    // dev VM (Emerald Rapids; 4 MiB NT threshold, 16 MiB of LLC counted on) wrote such rows
    // faster plainly than through scratch. bench_ab against streaming from nt_min_bytes, both
    // orders, 1 thread: NXC 27x85 -> 73x674 C = 24 (4.7 MB) 0.83x the time, 73x155 ->
    // 195x1049 C = 12 (9.8 MB) f32 0.79-0.81x and 16-bit 0.84-0.86x, 70x77 -> 147x165 C = 142
    // (13.8 MB) 0.84-0.88x, 20x85 -> 160x674 C = 24 (10.4 MB, 8x up) 0.89-0.93x, 100x300 ->
    // 400x1201 C = 4 NCX and NXC 0.90-0.91x, seg_8x NXC bf16 (11 MB) 0.94-0.96x; 2 threads
    // (8 MiB threshold) 0.81-0.90x where it applies; NXC 200x500 -> 600x1503 C = 2 (7.2 MB,
    // flat rows of 12 KB) 0.96-1.04x. Past the LLC the stream stays: 100x100 -> 400x400 C =
    // 40 (25.6 MB) ran 1.9x slower plainly and 1000x1000 -> 3000x3000 C = 1 (36 MB) 2.5x.
    // Nearest rows at 512 bits that the W pass stores as whole aligned lines (plane_lines,
    // row_lines below): rows of two lines or more that are not whole lines, f32 or 16-bit with
    // windows, a dst of kLinesMinBytes or more.
    const int64_t lanes = 64 / c.esize;
    const bool nearest_lines = !lin && c.pass_engine && w == 16 && !c.flat && (c.esize == 4 || c.window) &&
                               c.row_out % lanes != 0 && c.row_out >= 2 * lanes && p.dst_bytes >= jit_conf::kLinesMinBytes;
    if (!lin && !c.plane_mode) {
        const bool repeats = p.out[1] >= 2 * p.in[1];
        c.nt_stream = big && p.dst_bytes >= stream_min_bytes() && repeats && !c.nt_eligible && c.dst_row_bytes >= 64 &&
                      c.dst_row_bytes <= jit_conf::kStreamRowMax;
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
        // Where the W pass can store the rows as lines itself (row_lines), it does, row pairs
        // and all, unless rows repeat twice or more on average and fit L1 with their records
        // (kLinesCopyRowMax): against the trip through scratch (Xeon dev VM, bench_ab both
        // orders, xinterp bench alternating), 21x266 -> 57x1195 C = 15 (rows of 71 KB) 0.73-0.80x
        // the time, 3x163 -> 4x890 C = 9 f32 0.59x (16-bit even), 30x1000 -> 40x1001 C = 5
        // 0.65-0.69x, 96x14 -> 160x31 C = 13 NXC 0.56x, 108x233 -> 207x362 C = 4 (1.9x up) f32
        // 0.96x, 16-bit 0.75-0.81x; 2 threads 0.62-0.80x. But 224x224 -> 500x500 C = 3 NCX (2.2x
        // up, rows of 2 KB) 1.09-1.20x (NXC even), 3-D 10x20x150 -> 20x40x300 C = 4 (rows four
        // times over) and 100x150 -> 200x300, 300x1000 -> 600x1001 (2x) even, so those copy.
        const bool up = 4 * p.out[0] >= 5 * p.in[0] || 4 * p.out[1] >= 5 * p.in[1];
        const bool up2 = p.out[0] >= 2 * p.in[0] || p.out[1] >= 2 * p.in[1];
        const bool lines_in_place = nearest_lines && !(up2 && c.dst_row_bytes <= jit_conf::kLinesCopyRowMax);
        c.copy_aligned = c.pass_engine && up && c.row_out % w != 0 && c.dst_row_bytes <= jit_conf::kStreamRowMax && !lines_in_place;
        // The row, then its first 64 bytes again (jit_stream_copy.hpp).
        if (c.nt_stream || c.copy_aligned) reserve_stream(c, c.dst_row_bytes + 64);
    }
    // NCX nearest planes likewise (jit_conf.hpp, plane_stream), from twice that size: plane
    // mode's plain stores had run 9x54x12 -> 62x257x69 C = 10 (44 MB, the random sweep's 0.93x
    // case against oneDNN) at 8.5 GB/s, rows of 276 bytes whose split lines reach DRAM. Xeon dev
    // VM (Emerald Rapids), bench_ab against plain stores, 1 thread: 3-D NCX f32 10x40x30 ->
    // 40x120x90 C = 48 (83 MB) 0.45-0.46x the time and bf16 0.52-0.72x, 16x64x60 -> 64x128x120
    // C = 32 (126 MB) 0.51x, 16-bit 0.45-0.47x, 20x40x30 -> 80x160x120 C = 8 (49 MB) 0.52-0.58x,
    // 30x40x15 -> 240x400x30 C = 4 (46 MB) 0.32-0.44x, 40x100x20 -> 200x400x40 C = 3 (38 MB)
    // 0.64x, 2-D 20x600x30 -> 100x2000x60 C = 2 bf16 (48 MB) 0.50x; 44 MB C = 10 0.49-0.61x
    // (0.89-1.08x in between, when this VM's LLC held more of it), 2-D 100x30 -> 400x90 C =
    // 256 (37 MB) 0.85-1.22x; under 32 MiB it lost: 31 MB 0.81-1.08x, 22-25 MB 1.10-1.55x. On
    // 2 threads it was mixed (46 and 83 MB 0.79x and 0.88x, but 37 and 44 MB 1.19-1.53x and
    // bf16 41 MB 1.09-1.15x), so executions on more threads store in place
    // (jit_pass_driver.cpp). NXC flat planes (rows of 480 bytes: 38 and 46 MB) ran 1.09x slower
    // streamed and keep plain stores.
    // The 3-D linear plane blends likewise (run_planes: W-planes, not fused), two planes
    // of scratch for a D pair's two: bench_ab, both orders, 1 thread, the shapes above in
    // linear NCX f32 (44-126 MB) 0.67-0.85x the time, 16-bit 41-63 MB 0.76-0.91x (once f16
    // 1.22x).
    const bool blend_planes = lin && c.k == 3 && !c.fuse_h && !c.h2_pairs;
    if ((!lin || blend_planes) && c.plane_mode && !c.nt_eligible && p.fmt == data_format::ncx) {
        const int64_t plane = p.out[1] * c.dst_row_bytes;
        const size_t from = 2 * stream_min_bytes();
        c.plane_stream = big && p.dst_bytes >= from && plane >= 64 && plane <= jit_conf::kStreamRowMax;
        if (c.plane_stream) reserve_stream(c, (lin ? 2 : 1) * plane);  // a plane per stream call (jit_copy_args::rows = 1)
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
        if (c.nt_stream) reserve_stream(c, 2 * c.dst_row_bytes);
    }
    // Nearest plane rows at 512 bits that are not whole lines long, stored as whole aligned lines
    // (jit_conf.hpp, plane_lines). bench_ab against the split stores (Xeon dev VM): f32 c17 NCX
    // 0.66-0.69x the time, c23 0.69x, r15to73 0.67-0.68x, 20x30 -> 40x127 C = 8 0.55x, 32x32 ->
    // 64x50 C = 256 0.81x, 20x20 -> 50x33 C = 16 0.85x, 50x50 identity 0.89x, 80x200 -> 40x100 C =
    // 64 0.95-1.03x; 16-bit 40x127 0.65-0.75x, 40x30 -> 100x100 C = 64 0.74x, 100x40 -> 200x120 C =
    // 3 0.74-0.76x, c17 and r15to73 0.92-0.96x, 40x10 -> 100x70 C = 64 1.03x. Rows of under two
    // lines (f32 17-31 elements, 16-bit 33-63) ran 1.0-1.4x slower, and so did outputs that stay in
    // L1 (16-bit 7x9x11 -> 13x5x67 C = 5, 43 KB: 1.2-1.3x), whose split stores cost little.
    // The linear blends likewise (jit_conf.hpp, blend_lines): f32 rows of 2 vectors or more
    // (224x224 -> 300x300 C = 3 0.64-0.67x the time; bench/RESULTS.md: run 27), 16-bit rows of 512
    // words or more (bf16 natively rounded, f16), against split stores: 100x700 -> 200x1500 C = 3
    // NCX 0.71-0.78x, NXC 0.69-0.70x; 300x300 -> 600x600 C = 2 0.74-0.79x; 100x100 -> 200x200 C =
    // 17 NXC 0.82x; c17 NXC (flat rows of 1105) 0.85-0.94x, c23 NXC 0.87x; 100x100 -> 150x150 C = 5
    // NXC (750) 0.90-0.96x. Shorter 16-bit rows lost: 300 words 1.04x, 111 1.10-1.15x, c17 NCX (65)
    // 1.21-1.43x, r15to73 NCX (73) 1.27-1.52x; there a 32-byte store splits half the time at most,
    // and the row's setup outweighs it.
    // Nearest rows in row mode on plane_lines' limits (jit_conf.hpp, row_lines; in place of
    // copy_aligned above). bench_ab against split stores (Xeon dev VM, both orders, every
    // dtype): 13x26 -> 16x206 C = 14 NXC 0.58-0.74x the time (the random sweep's 0.87x case
    // against oneDNN: 1.45x after), 40x300 -> 47x555 C = 2 NCX 0.60-0.69x,
    // 300x400 -> 310x410 C = 5 NXC 0.90-0.95x (2 threads 0.43-0.46x), 1080x1920 -> 1000x1900
    // C = 3 0.96-0.99x; H down (40x400 -> 17x777) and one 1-D row (14000 -> 33001) even.
    c.blend_lines = lin && (c.pass_engine || c.nxc_separable) && w == 16 && (c.esize == 4 || c.words_round()) &&
                    c.row_out % lanes != 0 && c.row_out >= (c.esize == 4 ? 2 * lanes : jit_conf::kBlendLinesMinWords);
    c.plane_lines = nearest_lines && c.plane_mode;
    c.row_lines = nearest_lines && !c.plane_mode && !c.copy_aligned;
}

void set_groups(jit_conf &c, const problem &p, const h_links &hl, const h_links &dl) {
    const bool lin = c.algorithm == alg::linear;
    const int64_t w = c.simd_w;
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
        pass_record r;
        int32_t off[2], idx[2][8];
        bool all = true;
        for (int64_t v = 0; v < window_pair_vecs(c) && all; ++v) {
            make_pass_record(c, p, true, v, r);
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
    // Nearest flat volumes (jit_conf::flat, nearest): rows shorter than a vector cost a call
    // (row mode) or a trip of the plane kernel's row loop (plane mode, a call per (plane, od))
    // each, with a partial store; flat, every lane gathers its element from the plane, a full
    // vector at a time, one call per plane. Where the (plane, od) slices are small (OH * OW
    // within two vectors) or H is not upsampled; H upsampling over larger slices keeps the row
    // pairs, which store a row twice from one gather. bench_ab on the Zen 3 dev VM against
    // rows, f32 / bf16 / f16: 41x10x5 -> 13x2x1 C = 214 (the seed-97 sweep, 2.2x oneDNN) 0.18 /
    // 0.15 / 0.14x the time (61 -> 11 us), 49x1x4 -> 50x1x6 C = 21 0.30-0.31x, 4x40x40 ->
    // 8x30x5 C = 16 0.51-0.67x, 30x200x200 -> 10x100x3 C = 4 0.62-0.76x, 500x300 -> 100x1
    // C = 16 0.47-0.57x, 64x64 -> 64x6 C = 32 0.71-0.88x, r525to5 0.69-0.74x, 100x100 -> 50x7
    // C = 16 0.87-0.92x, 1000x1000 -> 500x7 C = 3 0.93-0.97x, 2000x2000 -> 1000x5 C = 1
    // 0.75-0.98x. With H up over larger slices rows won: 8x8x8 -> 16x16x4 C = 8 1.37-1.62x the
    // time flat, 224x224 -> 512x4 C = 3 0.74-1.03x, so those stay rows. At 512 bits the rule
    // is scaled (rows under 16), not measured (emulated for its bits only).
    if (!lin && c.pass_engine && p.fmt == data_format::ncx && c.k >= 2 && c.OW < w &&
        (p.out[1] * c.OW <= 2 * w || p.out[1] <= p.in[1]) &&
        p.out[0] * p.out[1] * p.out[2] <= jit_conf::kFlatMaxOut && p.in[0] * p.in[1] * p.in[2] < jit_conf::kFlatMaxIn)
        set_flat(c, p, p.in[0] * p.in[1] * p.in[2], p.out[0] * p.out[1] * p.out[2]);
    // Flat W-planes (jit_conf::flat_w).
    if (lin && c.pass_engine && !c.flat && !c.unit_w && c.flat_c == 1 && c.plane_mode && !c.fuse_h && !c.h2_pairs && !c.window &&
        c.ow_vecs == 1 && p.in[1] * c.OW <= jit_conf::kFlatWMaxOut)
        c.flat_w = true;
}

}  // namespace conf_detail
}  // namespace xinterp
