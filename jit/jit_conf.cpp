// The shape arithmetic of make_jit_conf: the engine (direct NXC kernel or pass engine), its rows,
// tables and scratch. Which kernel pays where is jit_conf_rules.cpp; how rows are stored and
// grouped once they are known, jit_conf_stores.cpp. jit_conf_parts.hpp holds what they share.
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
#include "jit_conf_parts.hpp"
#include "jit_tables.hpp"

namespace xinterp {

namespace {
std::atomic<int> g_gather_spelling{-1};

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

namespace conf_detail {
void set_row_lengths(jit_conf &c, int64_t row_in, int64_t row_out) {
    const int64_t w = c.simd_w;
    c.row_in = row_in;
    c.row_out = row_out;
    c.ow_full = row_out / w;
    c.ow_tail = row_out % w;
    c.ow_pad = (row_out + w - 1) / w * w;
    c.ow_vecs = c.ow_pad / w;
}

void set_flat_rows(jit_conf &c, int64_t flat_c) {
    c.flat_c = flat_c;
    set_row_lengths(c, c.IW * flat_c, c.OW * flat_c);
}

bool insert_spelling(cpu_isa isa) {
    const int spelling = g_gather_spelling.load();
    return isa == cpu_isa::avx2 && (spelling < 0 ? host_features().slow_gathers : spelling == 1);
}

void set_flat(jit_conf &c, const problem &p, int64_t row_in, int64_t row_out) {
    const int64_t w = c.simd_w;
    c.flat = true;
    c.flat_w = false;
    c.flat_c = 1;
    set_row_lengths(c, row_in, row_out);
    c.window = c.window2 = c.shuf_windows = c.pair_tail = false;
    c.pair_vecs = 0;
    c.gather_by_insert = insert_spelling(c.isa);
    // Linear: 2^k index vectors and the weights; nearest: a header (unused) and one index
    // vector, the pass engine's nearest record, which nearest_vector reads.
    c.rec_bytes = static_cast<int>((c.algorithm == alg::linear ? (1 << c.k) + 2 * c.k : 2) * w * 4);
    c.up2_first = c.up2_groups = 0;
    c.per_first = c.per_periods = c.per_step = 0;
    c.per_p = 0;
    c.per_pairs = c.per_inlane = c.per_lane_split = false;
    c.h2_pairs = c.fuse_h = c.plane_mode = c.hvol = c.wplane_cols = c.cols_inlane = false;
    c.d_pairs = c.h_pairs = c.h_runs = c.pairs_nt = c.nearest_row_pairs = c.plane_lines = c.row_lines = c.blend_lines = false;
    c.nt_eligible = c.nt_by_src = c.nt_stream = c.plane_stream = c.copy_aligned = false;
    c.prefetch_bytes = 0;
    c.par_min_bytes = c.algorithm == alg::linear ? jit_conf::kParMinFlat : jit_conf::kParMinFlatNearest;
    c.n_slots = c.n_wplanes = 0;
    c.d_cols = 0;
    c.d_group = 0;
    c.wplane_bytes = 0;
    c.scratch_bytes = 0;
    c.rows = p.n * p.c;
    c.src_row_bytes = c.row_in * c.esize;
    c.dst_row_bytes = c.row_out * c.esize;
}

h_links scan_h_links(const problem &p, int axis) {
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

// Output o of a 2x half_pixel axis away from its clamped edges: 2j blends src j - 1 and j with
// weights (0.25, 0.75), 2j + 1 src j and j + 1 with (0.75, 0.25). The up2 W run and the h2 H
// rows are checked against exactly this, tap by tap, so the fixed-weight code computes the
// reference's bits.
bool is_up2_tap(int64_t o, const linear_tap &t) {
    const int64_t j = o / 2;
    return o % 2 == 0 ? t.i0 == j - 1 && t.i1 == j && t.w0 == 0.25f && t.w1 == 0.75f
                      : t.i0 == j && t.i1 == j + 1 && t.w0 == 0.75f && t.w1 == 0.25f;
}
}  // namespace conf_detail

using namespace conf_detail;

namespace {
// jit_conf::px_segs: the pixel pairs that share their W taps in a row of c.OW pixels starting
// at output column s, for every s in starts (column blocks: each block the kernel serves), in
// up to max_segs segments from the row's start: where pixels o and o + 1 pair, they and the
// pairs that follow them make a segment, unless the pairs from pixel o + 1 run longer; else
// pixel o goes singly. Kept where the pairs cover at least half the row.
void set_px_pairs(jit_conf &c, const problem &p, int max_segs, const std::vector<int64_t> &starts = {0}) {
    c.n_px_segs = 0;
    auto pair_at = [&](int64_t o) {  // pixels o and o + 1 of every block
        for (const int64_t s : starts)
            if (o + 1 >= c.OW || s + o + 1 >= p.out[2] || !w_tap(p, s + o).same_taps(w_tap(p, s + o + 1))) return false;
        return true;
    };
    auto run_at = [&](int64_t o) {  // the pairs from pixel o on
        int64_t n = 0;
        while (pair_at(o + 2 * n)) ++n;
        return n;
    };
    int64_t o = 0, singles = 0, paired = 0;
    while (o + 1 < c.OW && c.n_px_segs < max_segs) {
        const int64_t n = run_at(o);
        if (n == 0 || run_at(o + 1) > n) {  // a pixel on, the pairs run longer (2x: 1, 2 .. against 0, 1)
            ++singles, ++o;
            continue;
        }
        c.px_segs[c.n_px_segs++] = {singles, n};
        paired += 2 * n, o += 2 * n, singles = 0;
    }
    if (2 * paired < c.OW) c.n_px_segs = 0;
}

// jit_conf::up2_*: the longest run of full vectors whose every lane is_up2_tap, in groups of
// two vectors.
void set_up2_run(jit_conf &c, const problem &p) {
    auto vec_ok = [&](int64_t v) {
        for (int64_t o = v * c.simd_w; o < (v + 1) * c.simd_w; ++o)
            if (!is_up2_tap(o, w_tap(p, o))) return false;
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
template <typename Rec>
void set_inlane_windows(jit_conf &c, Rec &&record) {
    if (c.simd_w != 8 || c.dt != data_type::f32 || c.per_p == 0) return;
    auto fits = [&](bool split) {
        for (int ph = 0; ph < c.per_p; ++ph) {
            const pass_record rec = record(c.per_first + ph);
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
void set_periodic_run(jit_conf &c, const problem &p) {
    const int64_t lo = c.OW / 4, hi = std::min<int64_t>(c.OW, lo + 8);
    int64_t px = 0;
    for (int64_t d = 1; d <= 64 && hi + d <= c.OW && px == 0; ++d) {
        const int64_t q = w_tap(p, lo + d).i0 - w_tap(p, lo).i0;
        bool same = true;
        for (int64_t o = lo; o < hi && same; ++o) {
            const linear_tap a = w_tap(p, o), b = w_tap(p, o + d);
            same = b.w0 == a.w0 && b.w1 == a.w1 && b.i0 - a.i0 == q && b.i1 - a.i1 == q;
        }
        if (same) px = d;
    }
    if (px == 0) return;
    const int64_t elems = px * c.flat_c, per = elems / std::gcd(elems, static_cast<int64_t>(c.simd_w));
    if (per > jit_conf::kPerMax) return;
    // The records on demand, the last per + 1 kept: the scan reads vectors v and v - per only
    // (a record per vector of a long row had cost 272 bytes each: 285 MB for 8400000 outputs).
    std::vector<pass_record> ring(static_cast<size_t>(per + 1));
    std::vector<int64_t> held(static_cast<size_t>(per + 1), -1);
    auto r = [&](int64_t v) -> const pass_record & {
        const size_t k = static_cast<size_t>(v % (per + 1));
        if (held[k] != v) make_pass_record(c, p, true, v, ring[k]), held[k] = v;
        return ring[k];
    };
    const size_t lanes = static_cast<size_t>(c.simd_w) * 4;
    auto repeats = [&](int64_t v, int64_t u, int64_t step) {  // v - u = per: two slots
        const pass_record &a = r(v), &b = r(u);
        return a.base[0] - b.base[0] == step && a.base[1] - b.base[1] == step &&
               std::memcmp(a.ia, b.ia, lanes) == 0 && std::memcmp(a.ib, b.ib, lanes) == 0 &&
               std::memcmp(a.w0, b.w0, lanes) == 0 && std::memcmp(a.w1, b.w1, lanes) == 0;
    };
    for (int64_t v = per; v < c.ow_full;) {
        const int64_t step = r(v).base[0] - r(v - per).base[0];
        int64_t e = v;
        while (e < c.ow_full && repeats(e, e - per, step)) ++e;
        const int64_t f = v - per, periods = (e - f) / per;
        if (periods >= 2 && periods * per >= 4 && periods > c.per_periods) {
            c.per_first = f, c.per_periods = periods, c.per_step = step, c.per_p = static_cast<int>(per);
            // One window for both taps only if every vector of the run pairs (pair_vecs is a
            // prefix); the two-window path reads each record's own tap-1 window, pairs or not.
            c.per_pairs = f + periods * per <= c.pair_vecs;
            const int64_t base0 = r(f).base[0];
            for (int64_t ph = 0; ph < per; ++ph)
                for (int t = 0; t < 2; ++t) c.per_rel[ph][t] = r(f + ph).base[t] - base0;
        }
        v = std::max(e, v + 1);
    }
    set_inlane_windows(c, [&](int64_t v) { return r(v); });
}
}  // namespace

void set_gather_spelling_for_testing(int spelling) { g_gather_spelling.store(spelling); }

size_t nt_min_bytes(int threads) {
    if (const size_t o = g_nt_min_override.load()) return threads > 1 ? g_nt_min_override_more.load() : o;
    static const std::pair<size_t, size_t> v = nt_min_default();
    return threads > 1 ? v.second : v.first;
}

namespace {
// Whether XINTERP_NT_MIN_BYTES (read once, as nt_min_default does) or the test override sets
// the NT threshold, which then is the whole rule.
bool nt_min_set() {
    static const bool env = std::getenv("XINTERP_NT_MIN_BYTES") != nullptr;
    return env || g_nt_min_override.load();
}
}  // namespace

bool nt_pays(const problem &p, int threads) {
    if (p.dst_bytes >= nt_min_bytes(threads)) return true;
    if (threads > 1 || nt_min_set()) return false;
    return p.dst_bytes >= kNtSrcFloor && p.src_bytes + p.dst_bytes >= static_cast<size_t>(usable_llc_bytes());
}

size_t stream_min_bytes(int threads) {
    const size_t nt = nt_min_bytes(threads);
    if (nt_min_set()) return nt;
    return std::max(nt, static_cast<size_t>(usable_llc_bytes()));
}

void set_nt_min_bytes_for_testing(size_t bytes, size_t bytes_more) {
    g_nt_min_override_more.store(bytes_more ? bytes_more : bytes);
    g_nt_min_override.store(bytes);
}

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

namespace {
// The direct NXC kernel: pixels of C channels, their W table, and whether it runs separably.
void set_direct(jit_conf &c, const problem &p, kernel_isa k, const h_links &hl, const h_links &dl) {
    const bool lin = c.algorithm == alg::linear;
    const cpu_isa isa = c.isa;
    const int64_t w = c.simd_w;
    c.c_full = c.C / w;
    c.c_tail = c.C % w;
    c.narrow = lin && c.C < w;  // nearest pixels under a vector: gen_nxc_nearest's small copies
    if (c.narrow) {
        c.edge_px = narrow_edge_px(p, w, isa != cpu_isa::avx2);
        // A forward pixel's store: a vector (AVX2), at 512 bits an xmm or ymm up to C = 8
        // (jit_interp_kernel::lanes_for); its spill covers ceil(lanes / C) - 1 pixels after it.
        const int64_t lanes = isa != cpu_isa::avx2 && c.C <= 8 ? (c.C <= 4 ? 4 : 8) : w;
        c.span_edge_px = (lanes + c.C - 1) / c.C - 1;
        if (isa == cpu_isa::avx2)  // edge pixels load the vectors that end at their taps' pixels' ends
            c.span_min_px = c.span_edge_px + first_where(0, c.OW, [&](int64_t o) { return narrow_edge_loads_fit(p, o, w); });
    }
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
    // at 16x64x64 -> 32x128x128 C = 16 and 8x32x32 -> 16x64x64 C = 32, odd 3-D C = 40 1.16-1.22x).
    // f32 rows lost 1.15-1.6x (with NT stores its pairs are off: pairs_nt, jit_conf_stores.cpp).
    // f32 at 256 bits takes the rows too where the dst takes NT stores on one thread (whole ymm
    // rows, D pairs: d_cols, jit_conf_stores.cpp, where the rows are long), for the direct kernel
    // makes 8 W steps per output vector and is compute-bound there. bench_ab on the Zen 3 dev VM
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
    // 512-bit f32 pixels that end off a cache line (C % 16 != 0) take W-planes past half
    // kPlaneBudget too, up to kNxcPlanesF32Split: the direct kernel's pixel vectors split a
    // line at nearly every tap load and store (8 taps per output vector; with every store
    // moved to an aligned line, timing only, 18x16x9 -> 49x10x38 C = 241 ran 0.78-0.88x the
    // time, where C = 240 takes 0.3-0.4x), while the W-planes' rows start on lines and the plane
    // blends store whole aligned lines (jit_ncx_vblend::aligned_row). xinterp bench
    // on the Xeon dev VM (Emerald Rapids, 2 MiB L2), planes against the direct kernel,
    // alternating, 1 thread: the random sweep's 5x16x3 -> 22x25x15 C = 229 (440 KB of
    // planes, 0.68x oneDNN) 0.65x the time, 1x30x9 -> 2x113x7 C = 290 0.39x, 4x30x30 ->
    // 5x40x40 C = 17 0.58x, 8x30x30 -> 16x60x60 C = 20 0.53-0.64x, C = 24-300 at 1.5-5x
    // (190-590 KB of planes) 0.62-0.95x, 8x40x40 -> 16x80x80 C = 50 (1.3 MB) 0.47-0.65x,
    // 16x64x64 -> 32x128x128 C = 25 (1.6 MB) 0.74-0.77x, C = 17, 33 and 90 with 2.7-4.9 MB
    // of planes 0.58-0.83x, 8x160x160 -> 16x320x320 C = 33 (13.5 MB) 0.59x; 2 threads
    // 0.50-0.84x. Pixels of whole lines keep the direct kernel: C = 16-128 at 2x (D pairs)
    // ran planes 1.08-1.45x the time, and 1.2-1.4x off 2x (C = 64, 128). So does D not going
    // up, where a W-plane serves about one od: the sweep's 2x4x27 -> 2x6x109 C = 157 ran
    // planes 1.25x the time (17x3x5 -> 11x2x8 C = 193 0.93x). Past kNxcPlanesF32Split:
    // unmeasured, direct.
    const bool split_px_planes = w == 16 && c.dt == data_type::f32 && c.C % w != 0 && c.k == 3 && p.out[0] > p.in[0];
    const bool d_rarely_shared = c.k == 3 && dl.rarely_shared(p, 0);
    // Those pixels where H collapses to one output row (OH = 1) and od repeat their D taps go
    // separable in row mode with D pairs: the od of a run read the same four W rows (two
    // slices, two H taps), which the LRU keeps, so each src row's W step serves the whole run
    // where the direct kernel redoes it per od (no output rows share src rows, so the rule
    // below, keyed on H, leaves it the direct kernel). Same VM, against the direct kernel:
    // the sweep's 38x5x56 -> 167x1x13 C = 68 (0.86-0.92x oneDNN) 0.49x the time, 8x2x14 ->
    // 63x1x79 C = 60 0.58x, 10x6x30 -> 40x1x60 C = 17 0.50x, 4x3x10 -> 30x1x10 C = 200 0.69x;
    // whole lines ran it 0.9-1.6x (C = 32-128), and so did OH > 1 with H down (5x12x40 ->
    // 15x3x80 C = 17 1.05x, 6x30x20 -> 15x10x50 C = 100 1.8x).
    if (lin && c.k == 3 && !c.narrow && split_px_planes && p.out[1] == 1 && d_taps_repeat(p, dl)) {
        c.nxc_separable = true;
        c.d_pairs = true;
    } else if (lin && c.k == 3 && !c.narrow && !hl.rarely_shared(p) && !(d_rarely_shared && c.dt == data_type::f32)) {
        const int64_t pad = (c.OW * c.C + w - 1) / w * w, planes = 2 * p.in[1] * pad * 4;
        const int64_t max16 = w == 16 ? jit_conf::kNxcPlanes16Zmm : jit_conf::kNxcPlanes16;
        const int64_t row_elems = c.OW * c.C;
        const bool repeat = d_taps_repeat(p, dl);
        const bool nt_rows = w == 8 && row_elems % w == 0 && nt_pays(p) && repeat;
        const bool rows16 = nt_rows && c.esize == 2 && row_elems * c.esize % jit_conf::kAliasPage != jit_conf::kAliasPage / 2 &&
                            4 * row_elems * 4 > jit_conf::kRunMinBytes;
        const int64_t max32 = split_px_planes ? jit_conf::kNxcPlanesF32Split : jit_conf::kPlaneBudget / 2;
        if (!rows16 && planes <= (c.esize == 2 ? max16 : max32)) {
            c.nxc_separable = c.plane_mode = true;
        } else if ((w == 16 && c.esize == 2) || (nt_rows && c.esize == 4) || rows16) {
            c.nxc_separable = true;
            c.d_pairs = repeat;
        }
    }
    // 2-D pairs, not for 512-bit f32 pixels of 25+ channels that end off a cache line (C % 16
    // != 0): there every store crosses a line, and two output rows written a vector each in
    // turn ran slower than one row at a time. A/B on the Xeon dev VM (Emerald Rapids)
    // (bench_ab, single rows against pairs and runs, 1 thread, dst in L2): 33x33 -> 65x65 C =
    // 25-90 0.43-0.96x the time (median of two runs each: C = 25 0.69x, 47 0.56x, 63 0.67x, 90
    // 0.72x), 30x30 -> 60x60 C = 100 0.77x, C = 188 0.83x, C = 217 0.67x, 40x10 -> 80x20 C =
    // 217 0.63x, 100x100 -> 200x200 C = 25 0.87x, the sweep's 251x1 -> 1690x5 C = 217 (7.3 MB)
    // 0.70x; C = 17-24 ran 0.90-1.39x single, so their pairs stay, as do pixels of whole lines
    // (C = 128: 1.12x single) and f16, whose 32-byte stores ran 1.33-1.86x single even off a
    // line. 3-D D pairs stay too (C = 40-150 1.01-1.42x single; C = 217 0.68-1.02x).
    const bool split_px_rows = w == 16 && c.dt == data_type::f32 && c.C % w != 0 && c.C >= 25;
    c.row_pairs = lin && c.k == 2 && !c.nxc_separable && !split_px_rows && hl.chained * 4 >= p.out[1];
    c.same_pairs = lin && c.k == 2 && !c.nxc_separable && !split_px_rows && hl.same * 4 >= p.out[1];
    // Runs of two same-taps pairs (jit_conf.hpp, same_run). A/B on the dev VM against pairs
    // alone: fpn_2x and yolo_2x NXC f32 0.87-0.90x the time, f16 0.79-0.88x. Runs of three
    // and four ran f32 up to 1.6x slower: fpn_2x's dst rows lie 64 KiB apart and its src
    // rows 32 KiB, so the 2M + M + 1 streams of a pixel fall into one L1 set (8 ways).
    const int64_t row_out = c.OW * c.C * c.esize, row_in = c.IW * c.C * c.esize;
    if (c.same_pairs && 4 * row_out < (int64_t(1) << 31) && 2 * row_in < (int64_t(1) << 31)) c.same_run = 2;
    // Pixel pairs in the runs (jit_conf.hpp, px_segs). bench_ab on the Xeon dev VM, both
    // orders: fpn_2x and yolo_2x NXC 16-bit 0.90-1.00x the time, C = 32-128 0.86-0.93x;
    // f32 ran 1.07-1.09x slower at 16x16 -> 32x32 C = 128 and even elsewhere, so it keeps
    // single pixels.
    if (c.same_run && w == 16 && c.esize == 2 && c.c_tail == 0 && !c.narrow) set_px_pairs(c, p, 1);
    if (lin && c.k == 3 && !c.nxc_separable && c.dt != data_type::bf16)  // bf16 is separable anyway
        c.d_pairs = d_taps_repeat(p, dl);
    // Nearest, pixels of whole vectors: rows that repeat their src row come in pairs from
    // one call (H up >= 2x; not with NT stores: jit_conf_stores.cpp), and any other repeat is
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
        // The W step's pixel pairs (jit_conf.hpp, px_segs). bench_ab on the Xeon dev VM
        // against single pixels, both shim orders: vol_2x NXC bf16 0.84-0.93x the time, f16
        // 0.87-0.96x; 16x56x56 -> 32x112x112 C = 32 and 16x64x64 -> 32x128x128 C = 48
        // 0.92-0.95x; plane mode (16x32x32 -> 32x64x64 C = 32) 0.97-1.00x; avx512_core
        // kernels 0.89-1.00x. AVX2 f16 ran 1.06x slower (bf16 there has even/odd blocks).
        // Pixels with a channel tail and ratios off 2x (segments), against single pixels
        // (same VM and method): c17 f32 0.93-0.98x, 16-bit 0.85-0.92x; c23 f32 0.94-0.99x,
        // 16-bit 0.86-0.91x; 60x60 -> 120x120 C = 17 0.88-0.98x; r15to73 0.94-1.00x.
        if (w == 16 && c.c_full > 0 && !c.narrow) set_px_pairs(c, p, jit_conf::kPxSegs);
        c.n_slots = 2 * c.nd;
        c.scratch_bytes = c.n_slots * c.ow_pad * 4;
        if (c.plane_mode) {
            c.wplane_bytes = p.in[1] * c.ow_pad * 4;
            c.n_wplanes = 2;
            c.n_slots = 0;
            c.scratch_bytes = c.n_wplanes * c.wplane_bytes;
        }
    }
}

// The pass engine (NCX, and NXC pixels under a vector): flat rows, their windows and runs, the
// W-planes or rows that the blends read.
void set_pass(jit_conf &c, const problem &p, const h_links &hl) {
    const bool lin = c.algorithm == alg::linear;
    const int64_t w = c.simd_w;
    set_flat_rows(c, p.fmt == data_format::ncx ? 1 : c.C);
    // The scans take the W taps from the formula: no W axis (24 bytes an output, linear).
    scan_windows(c, p);
    c.shuf_windows = lin && c.window && c.esize == 2 && w == 8;
    c.gather_by_insert = !c.window && insert_spelling(c.isa);
    // Taps are neighbours wherever i0 < IW - 1, and i0 never falls as o grows: the pairs end
    // at the first output clamped to the last column, found by bisection.
    if (lin && c.gather_by_insert && c.flat_c == 1 && c.IW >= 2) {
        const int64_t lo = first_clamped_column(p);  // flat_c 1: row_out columns
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
        set_up2_run(c, p);
    if (lin && c.window && !c.fuse_h && !c.unit_w && c.up2_groups == 0 && c.ow_full >= 4) set_periodic_run(c, p);
    // W rows in scratch slots for the blends; 1-D rows are final, straight to dst.
    c.n_slots = lin && !c.fuse_h && c.k >= 2 ? 2 * c.nd : 0;
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
    // Prefetch of the next src row (jit_conf.hpp, prefetch_bytes). bench_ab on the Zen 3 dev
    // VM against none, f32 NCX, warm and --cold (src out of the LLC in the alternating loop
    // either way where the two dsts and src outgrow it). Row mode: 78x376 -> 22x705 C = 216
    // (rows of 1.5 KB) 0.83x and 0.81x the time, 200x200 -> 50x300 C = 64 0.94x and 0.67-0.72x,
    // 300x1000 -> 100x1200 C = 32 0.89x and 0.95x, 1080x1920 -> 300x500 C = 3 0.99x and 0.92x,
    // img_down 1.00-1.02x; whole 7.5 KB rows ran 1.07-1.32x slower warm, the first 2 KiB let
    // the hardware take the rest; to L2 rather than L1 measured the same. Plane mode, nearest:
    // 64x64 -> 16x80 C = 256 0.85x and 0.66x, 200x200 -> 50x100 C = 64 0.69x and 0.49x,
    // 100x500 -> 40x120 C = 32 0.98x and 0.91x; fused linear: 78x376 -> 22x705 0.78-0.80x
    // and 0.86-0.92x, 200x200 -> 50x300 0.80-0.85x and 0.56-0.60x, but rows of 7.5 KB
    // (1080x1920 -> 300x500, img_down) 0.87-1.14x, so plane mode prefetches short rows only.
    // A src that stays in L2 gains nothing: odd3d (14 KB) ran 1.08-1.14x slower.
    const bool dense = c.row_in * c.esize <= 64 * c.row_out && p.src_bytes >= jit_conf::kPrefetchMinSrc;
    if (!lin && !c.plane_mode && dense) c.prefetch_bytes = std::min(c.src_row_bytes, jit_conf::kPrefetchRowBytes);
    const bool tabled = lin ? c.fuse_h : !c.nearest_row_pairs;
    if (c.plane_mode && tabled && p.out[1] < p.in[1] && dense && c.src_row_bytes <= jit_conf::kPrefetchRowBytes)
        c.prefetch_bytes = c.src_row_bytes;
}

// jit_conf::span_units: the direct NXC row kernels' pixels; the final W pass's output vectors in
// row mode, where its regions are the pairs prefix, the rest, the computed range and an up2 or
// periodic run, which a span takes in whole groups (span_cut). Only below kSpanMaxRows rows: spans
// serve rows that the threads do not divide, fewer than 16 a thread (jit_kernel_base::spans_now),
// and the span-capable kernels count at run time what the others have as immediates. img_down
// nearest NCX f32 (672 rows of 28 vectors) ran 1.07x the time with them on 1 thread (bench_ab, 31
// reps, both 154 -> 164 us and 121 -> 129 us); above 256 rows, 16 threads or fewer never take
// spans.
int64_t span_units(const jit_conf &c, const problem &p) {
    if (c.flat || c.rows >= jit_conf::kSpanMaxRows) return 0;
    if (!c.pass_engine) return c.nxc_separable ? 0 : c.OW;
    const bool final_rows = c.algorithm == alg::nearest || p.k == 1;
    const bool rows = !c.plane_mode && !c.h2_pairs && !c.fuse_h && !c.hvol;
    return final_rows && rows ? c.ow_vecs : 0;
}

// jit_conf::calc_first and calc_end, where the kernel can compute the taps (see there).
std::atomic<int> g_calc_taps{-1};  // set_calc_taps_for_testing

void set_calc_taps(jit_conf &c, const problem &p) {
    const auto ctm = p.ctm;
    const bool hp = ctm == coordinate_transformation_mode::half_pixel;
    // Linear: windows, or the gather path's pairs. Nearest: windows or hardware gathers, row
    // mode only (plane mode's rows are 512 bytes at most).
    const bool near = c.algorithm == alg::nearest;
    const bool hw_gathers = !c.window && !c.window2 && !c.gather_by_insert;  // vgatherdps
    const bool taps = near ? !c.plane_mode && ((c.window && !c.short_window()) || hw_gathers)
                           : (c.window && !c.short_window()) || c.gather_by_insert || hw_gathers;
    // Flat rows (NXC, C < simd_w) whose vectors hold whole columns: C dividing simd_w.
    const int64_t fc = c.flat_c;
    const bool cols = fc == 1 || (c.window && c.simd_w % fc == 0);
    // 16-bit: windows on the 512-bit generator (linear: words widened as they load, then the
    // f32 path; nearest: vpermw); the 256-bit one's byte-control windows keep their tables
    // (jit_conf.hpp).
    const bool dt_ok = c.dt == data_type::f32 || (c.window && c.isa != cpu_isa::avx2);
    const bool can = c.pass_engine && taps && dt_ok && cols &&
                     !c.unit_w && (near || c.window || hw_gathers || c.pair_vecs > 0) &&
                     !c.fuse_h && !c.h2_pairs && !c.wplane_cols && !c.flat && !c.flat_w &&
                     c.row_in < (int64_t(1) << 31) && c.OW < (int64_t(1) << 31);
    const int mode = g_calc_taps.load();
    if (!can || mode == 0) return;
    const int64_t w = c.simd_w, I = c.IW, O = c.OW, px = w / fc;  // columns a vector
    // s and i0 never fall as o grows (each f32 step rounds monotonically). Windows: up to the
    // first vector with a clamped lane (i1 = i0) or whose tap-1 window (from lane 0's element
    // i0 * C, plus C) would pass the row's end; the gather path: its pairs.
    // Nearest: up to the first vector with a lane at the last src column (roundf(s) >= I - 1,
    // where the clamp could act) or whose window (simd_w elements from lane 0's i * C) would
    // pass the row's end.
    const int64_t end = near                    ? std::min(c.ow_full, first_last_src_column(p) / px)
                        : c.window || hw_gathers ? std::min(c.ow_full, first_clamped_column(p) / px)
                                                 : c.pair_vecs;
    c.calc_first = first_where(0, end, [&](int64_t v) { return src_coord(v * px, I, O, ctm) >= 0.f; });
    c.calc_end = first_where(c.calc_first, end, [&](int64_t v) {
        if (near) return c.window && nearest_index(v * px, I, O, ctm) * fc > c.row_in - w;
        return c.window && linear_coord(v * px, I, O, ctm).i0 * fc > c.row_in - fc - w;
    });
    // An up2 or periodic run [u0, u1) reads no records either: the range keeps to the larger
    // side of it (its f32 weights stop repeating as s grows a binade, so the run may hold
    // only part of the row: 24000 -> 48000's up2 groups cover vectors 1-2794 of 6000).
    const auto [u0, u1] = run_vectors(c);
    if (u1 > u0) {
        const int64_t before = std::min(c.calc_end, u0) - c.calc_first, after = c.calc_end - std::max(c.calc_first, u1);
        if (before >= after) c.calc_end = std::max(c.calc_first, std::min(c.calc_end, u0));
        else c.calc_first = std::max(c.calc_first, u1);
    }
    // The gather path's records only where they would not stay in the LLC (jit_conf.hpp).
    // 16-bit windows compute for more per output (linear: each vector rounded and stored
    // alone; nearest: 16 words a vector where records pair them): only where the records
    // would not stay in the LLC either (jit_conf.hpp).
    const int64_t min_bytes = c.esize == 2                ? one_thread_llc_bytes() / 4
                              : near || hw_gathers ? (c.rows == 1 ? jit_conf::kCalcNearestRowMinBytes : jit_conf::kCalcMinBytes)
                              : c.window           ? jit_conf::kCalcMinBytes
                                                   : one_thread_llc_bytes() / 4;
    if (c.calc_end <= c.calc_first || (mode == -1 && (c.calc_end - c.calc_first) * c.rec_bytes < min_bytes)) {
        c.calc_first = c.calc_end = 0;
        return;
    }
    c.calc_half = hp;
    c.row_lines = false;  // computed vectors store as the row kernel has them
    c.calc_int = mode == 2 || O > (int64_t(1) << (hp ? 23 : 24));
    c.calc_mul = hp ? (float)I : (float)(I - 1);
    c.calc_div = hp ? (float)O : (float)(O - 1);
}

}  // namespace

void set_calc_taps_for_testing(int mode) { g_calc_taps.store(mode); }

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
    c.pass_engine = jit_uses_pass_engine(p, k);
    const h_links hl = lin && c.k >= 2 ? scan_h_links(p) : h_links{};
    const h_links dl = lin && c.k == 3 ? scan_h_links(p, 0) : h_links{};  // the D axis
    // The engine and its rows first: the stores and groups are chosen from them.
    if (!c.pass_engine) set_direct(c, p, k, hl, dl);
    else set_pass(c, p, hl);
    set_stores(c, p);
    set_groups(c, p, hl, dl);
    set_calc_taps(c, p);
    c.span_units = span_units(c, p);
    c.span_grain = c.pass_engine ? 2 : 1;
    c.ok = true;
    return c;
}

jit_conf d_cols_conf(const jit_conf &c, const problem &p, int64_t px) {
    jit_conf b = c;
    b.OW = px;
    set_flat_rows(b, b.C);
    b.d_cols = 0;
    if (c.n_px_segs > 0) {  // the pairs of every block this width serves
        std::vector<int64_t> starts;
        if (px == c.d_cols)
            for (int64_t s = 0; s + px <= c.OW; s += px) starts.push_back(s);
        else
            starts.push_back(c.OW - px);
        set_px_pairs(b, p, jit_conf::kPxSegs, starts);
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
