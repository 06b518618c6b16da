// What jit_conf.cpp, jit_conf_rules.cpp and jit_conf_stores.cpp share: make_jit_conf's helpers
// and stages. Internal to the library (namespace conf_detail); tests reach the rules through
// make_jit_conf and the *_for_testing knobs only.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>

#include "../src/numeric.hpp"
#include "../src/problem.hpp"
#include "jit_conf.hpp"

namespace xinterp {
namespace conf_detail {

inline int simd_w_of(cpu_isa isa) { return isa >= cpu_isa::avx512_core ? 16 : 8; }

// How consecutive output rows' taps on one axis relate (linear, one pass; H unless told):
// `shared`, rows that share a src row with the row before (each a W-row cache hit); `chained`,
// rows whose i0 is the row before's i1, and `same`, rows with the row before's two taps (row
// pairs for the direct NXC kernel; on the D axis, D pairs).
struct h_links {
    int64_t shared = 0, chained = 0, same = 0;
    bool rarely_shared(const problem &p, int axis = 1) const { return shared * 4 <= p.out[axis]; }
};

h_links scan_h_links(const problem &p, int axis = 1);

// D pairs pay where at least a quarter of the od repeat the taps of the od before
// (jit_conf::d_pairs: the direct NXC kernel and the 3-D plane blends alike). d: the D axis's
// scan_h_links.
inline bool d_taps_repeat(const problem &p, const h_links &d) { return d.same * 4 >= p.out[0]; }

// The flat rows' limits (jit_can_serve): gathers take signed 32-bit element indices scaled by
// 4, and records use 32-bit offsets. fc: elements per W column (1 for NCX, C for NXC).
inline bool flat_rows_fit(const problem &p, int64_t fc) {
    return p.in[2] * fc < (int64_t(1) << 28) && p.out[2] * fc < (int64_t(1) << 26);
}

// Output column o's W taps, as make_axis has them. The narrow-pixel rules build no table of
// their own (make_jit_conf makes one for the flat rows only).
inline linear_tap w_tap(const problem &p, int64_t o) { return linear_coord(o, p.in[2], p.out[2], p.ctm); }

// The first v in [lo, hi) with pred(v), or hi; pred false then true as v grows (the taps'
// conditions: they never fall as o grows).
template <typename Pred>
int64_t first_where(int64_t lo, int64_t hi, Pred pred) {
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (pred(mid)) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

// The first output column clamped to the last src column (i0 = IW - 1, so i1 = i0), or OW:
// where tap pairs end, found by bisection.
inline int64_t first_clamped_column(const problem &p) {
    return first_where(0, p.out[2], [&](int64_t o) { return w_tap(p, o).i0 >= p.in[2] - 1; });
}

// Nearest's twin: the first output column whose src index is the last src column (where the
// clamp could act), or OW.
inline int64_t first_last_src_column(const problem &p) {
    return first_where(0, p.out[2], [&](int64_t o) { return nearest_index(o, p.in[2], p.out[2], p.ctm) >= p.in[2] - 1; });
}

// Whether a narrow edge pixel at output column o (AVX2: each tap the w elements that end at
// its pixel's end, C channels a pixel) loads inside the src row: its lower tap's pixel ends w
// or more elements in. Never true before some o, always after (the taps never fall).
inline bool narrow_edge_loads_fit(const problem &p, int64_t o, int64_t w) {
    const linear_tap t = w_tap(p, o);
    return std::min(t.i0, t.i1) * p.c + p.c >= w;
}

// Rows of row_in src and row_out dst elements, in vectors of simd_w lanes.
void set_row_lengths(jit_conf &c, int64_t row_in, int64_t row_out);
// Rows as flat runs of W * flat_c elements.
void set_flat_rows(jit_conf &c, int64_t flat_c);
// How a gather is spelled where no window serves (jit_conf::gather_by_insert).
bool insert_spelling(cpu_isa isa);
// jit_conf::flat (and wplane_flat_conf): a flat row of row_in src and row_out dst elements,
// every other pass-engine path off.
void set_flat(jit_conf &c, const problem &p, int64_t row_in, int64_t row_out);
// The up2 W run and the h2 H rows (jit_conf.cpp).
bool is_up2_tap(int64_t o, const linear_tap &t);

// jit_conf::window, window2, pair_vecs and pair_tail of p's flat rows (set_flat_rows): the
// window path needs each vector's i0 (and i1) within simd_w consecutive elements, the
// two-window path (512 bits, rows of 2 * simd_w or more) within 2 * simd_w. Nearest counts its
// index as both taps. A row shorter than a vector is one window on AVX-512, loaded under an
// opmask (jit_conf::short_window); AVX2 has no cheap masked load.
// The taps come from the formula (numeric.hpp): i0 never falls as o grows (each f32 step
// rounds monotonically) and i1 = min(i0 + 1, I - 1), so a vector's lowest elements are in its
// first column (from its first channel) or the next one (channel 0), its highest in its last
// column (to its last channel) or the one before (channel flat_c - 1), and it has neighbour
// taps in every column where its last column has them. It takes those columns' taps only: two
// where flat_c divides the vector (whole columns). Every column's taps, from a W axis, had
// been two thirds of a long row's creation (600000 -> 882000: 5.7 of 8 ms; NXC C = 2 160000
// -> 441000, scanned twice: 6.6 ms).
inline void scan_windows(jit_conf &c, const problem &p) {
    const bool lin = p.algorithm == alg::linear;
    auto taps = [&](int64_t o) {
        if (lin) return w_tap(p, o);
        const int64_t i = nearest_index(o, p.in[2], p.out[2], p.ctm);
        return linear_tap{i, i, 1.f, 0.f};
    };
    const int64_t w = c.simd_w, fc = c.flat_c;
    c.window = c.row_in >= w || c.isa >= cpu_isa::avx512_core;
    bool window2 = w == 16 && c.row_in >= 2 * w;  // jit_conf::window2, while it holds
    bool pairs_open = lin;  // still counting window pairs (see pair_vecs)
    for (int64_t v = 0; v < c.ow_vecs && (c.window || window2); ++v) {
        const int64_t e0 = v * w, e1 = std::min(c.row_out, e0 + w);  // the vector's elements
        const int64_t first = e0 / fc, ch0 = e0 % fc, last = (e1 - 1) / fc, ch1 = (e1 - 1) % fc;
        const linear_tap a = taps(first), b = last == first ? a : taps(last);
        int64_t lo[2] = {a.i0 * fc + ch0, a.i1 * fc + ch0}, hi[2] = {b.i0 * fc + ch1, b.i1 * fc + ch1};
        if (last > first && ch0 > 0) {  // the next column from channel 0
            const linear_tap n = first + 1 == last ? b : taps(first + 1);
            lo[0] = std::min(lo[0], n.i0 * fc), lo[1] = std::min(lo[1], n.i1 * fc);
        }
        if (last > first && ch1 < fc - 1) {  // the column before to channel flat_c - 1
            const linear_tap n = last - 1 == first ? a : taps(last - 1);
            hi[0] = std::max(hi[0], n.i0 * fc + fc - 1), hi[1] = std::max(hi[1], n.i1 * fc + fc - 1);
        }
        const bool neighbours = lin && b.i1 == b.i0 + 1;
        c.window = c.window && hi[0] - lo[0] < w && hi[1] - lo[1] < w;
        window2 = window2 && hi[0] - lo[0] < 2 * w && hi[1] - lo[1] < 2 * w;
        pairs_open = pairs_open && neighbours && hi[1] - lo[0] < w;
        if (pairs_open && v < c.ow_full) ++c.pair_vecs;
        else if (pairs_open) c.pair_tail = true;
    }
    if (!c.window) c.pair_vecs = 0, c.pair_tail = false;
    c.window2 = !c.window && window2;
}

// The rules (jit_conf_rules.cpp).
// jit_conf::edge_px of narrow pixels of w lanes, or -1 where they cannot serve the row.
int64_t narrow_edge_px(const problem &p, int64_t w, bool masked);
// Whether the direct NXC linear kernel runs separably (W rows once per src row, then blends).
bool separable_pays(const problem &p, const h_links &h, kernel_isa k, bool native_bf16);

// The last stages (jit_conf_stores.cpp): how rows are stored, then how they are grouped.
void set_stores(jit_conf &c, const problem &p);
void set_groups(jit_conf &c, const problem &p, const h_links &hl, const h_links &dl);

}  // namespace conf_detail
}  // namespace xinterp
