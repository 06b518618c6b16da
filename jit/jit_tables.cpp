#include "jit_tables.hpp"

#include <algorithm>
#include <cstring>

namespace xinterp {

axis_table make_axis(const problem &p, int axis) {
    axis_table t;
    const int64_t I = p.in[axis], O = p.out[axis];
    const size_t n = static_cast<size_t>(O);
    if (p.algorithm == alg::linear) {
        t.lin.resize(n);
        for (size_t o = 0; o < n; ++o) t.lin[o] = linear_coord(static_cast<int64_t>(o), I, O, p.ctm);
    } else {
        t.nearest.resize(n);
        for (size_t o = 0; o < n; ++o) t.nearest[o] = nearest_index(static_cast<int64_t>(o), I, O, p.ctm);
    }
    return t;
}

void make_pass_record(const jit_conf &c, const problem &p, bool lin, int64_t v, pass_record &r) {
    const int64_t sw = c.simd_w, fc = c.flat_c, I = p.in[2], O = p.out[2];
    // Flat-row output element e = o * fc + ch takes src elements i0(o) * fc + ch and
    // i1(o) * fc + ch; (o, ch) are stepped along e, not divided out per element.
    const int64_t first = v * sw, n_real = std::min(c.row_out, first + sw) - first;
    const int64_t o0 = first / fc, ch0 = first % fc;
    int64_t t0[16], t1[16];  // per real lane: the src elements of taps 0 and 1
    linear_tap t{};  // column o's, made once for its channels
    for (int64_t l = 0, o = o0, ch = ch0; l < n_real; ++l) {
        if (l == 0 || ch == 0) {
            if (lin) t = linear_coord(o, I, O, p.ctm);
            else t.i0 = t.i1 = nearest_index(o, I, O, p.ctm);
        }
        t0[l] = t.i0 * fc + ch, t1[l] = t.i1 * fc + ch;
        r.w0[l] = t.w0, r.w1[l] = t.w1;  // nearest: zeroed below
        if (++ch == fc) ch = 0, ++o;
    }
    // Window bases: the lowest tap of the vector, moved left so the window stays in the row.
    r.base[0] = r.base[1] = 0;
    if (c.window || c.window2) {
        const int64_t span = c.window2 ? 2 * sw : sw;
        int64_t lo[2] = {c.row_in, c.row_in};
        for (int64_t l = 0; l < n_real; ++l) lo[0] = std::min(lo[0], t0[l]), lo[1] = std::min(lo[1], t1[l]);
        for (int i = 0; i < 2; ++i) r.base[i] = std::max<int64_t>(0, std::min(lo[i], c.row_in - span));  // short rows: 0
    }
    // Padding lanes point at the bases with weight 0.
    for (int64_t l = 0; l < sw; ++l) {
        const bool real = l < n_real;
        r.ia[l] = static_cast<int32_t>(real ? t0[l] - r.base[0] : 0);
        r.ib[l] = static_cast<int32_t>(real ? t1[l] - r.base[1] : 0);
        if (!real || !lin) r.w0[l] = r.w1[l] = 0.f;
    }
}

namespace {
// The 128-bit lanes' 4-element windows of lane taps ix (elements from a base), each window
// holding [ix[l], ix[l] + span] for its four lanes; false where one does not fit.
bool fit_lanes(const int32_t *ix, int32_t span, int64_t last, int32_t (&off)[2], int32_t (&idx)[8]) {
    for (int lane = 0; lane < 2; ++lane) {
        int32_t lo = ix[4 * lane], hi = lo;
        for (int l = 4 * lane; l < 4 * lane + 4; ++l) {
            lo = std::min(lo, ix[l]);
            hi = std::max(hi, ix[l] + span);
        }
        // The window [at, at + 3] holds [lo, hi]; moved left where it would pass `last`.
        const int32_t at = static_cast<int32_t>(std::min<int64_t>(lo, last - 3));
        if (hi - lo > 3 || at < 0 || hi > last) return false;
        off[lane] = at;
        for (int l = 4 * lane; l < 4 * lane + 4; ++l) idx[l] = ix[l] - at;
    }
    return true;
}
}  // namespace

bool lane_windows(const jit_conf &c, const pass_record &r, int64_t last, int32_t (&off)[2], int32_t (&idx)[2][8]) {
    if (c.simd_w != 8 || !fit_lanes(r.ia, static_cast<int32_t>(c.flat_c), last, off, idx[0])) return false;
    for (int l = 0; l < 8; ++l) idx[1][l] = idx[0][l] + static_cast<int32_t>(c.flat_c);
    return true;
}

bool tap_lane_windows(const jit_conf &c, const pass_record &r, int tap, int64_t last, int32_t (&off)[2], int32_t (&idx)[8]) {
    return c.simd_w == 8 && fit_lanes(tap == 0 ? r.ia : r.ib, 0, last, off, idx);
}

namespace {

// log2 of the lowest set bit of a nonzero float (its quantum: the float is an odd multiple).
int quantum_log2(float w) {
    uint32_t b;
    std::memcpy(&b, &w, 4);
    const uint32_t e = (b >> 23) & 0xff, m = b & 0x7fffffu;
    return e == 0 ? -149 + __builtin_ctz(m) : static_cast<int>(e) - 150 + __builtin_ctz(m | 0x800000u);
}

// The smallest quantum among an axis's nonzero weights, as log2 (0 for nearest axes).
int axis_quantum_log2(const axis_table &t) {
    int q = 0;
    for (const linear_tap &x : t.lin)
        for (float w : {x.w0, x.w1})
            if (w != 0.f) q = std::min(q, quantum_log2(w));
    return q;
}

// Why kFlagBf16Clean is exact (jit_tables::bf16_clean_lo/hi). Every f32 value of the canonical
// order is zero or a multiple of P = Q_src * Q_w * Q_h * Q_d, Q_* being the least quantum of
// the nonzero src values and of each axis's weights: a product of multiples of two powers of
// two is a multiple of their product, so is a sum of such multiples, and rounding to f32 keeps
// a multiple of P (a value needing a finer quantum than its binade allows is already exact).
// With P >= 2^-126 no value is denormal. A nonzero bf16 of biased exponent E has quantum at
// least 2^(E - 134), so E >= 8 - log2(Q_w * Q_h * Q_d) suffices. |src| < 2^110 (E <= 236) keeps
// every value at most 2^110 (weights are at most 1 + 2^-24 in sum per axis), so none is inf or
// NaN, and each is within the range (biased exponent <= 237) where the AVX2 kernels' Veltkamp
// rounding is exact (jit_io::round_bf16_clean): the plain rounding is then exactly
// VCVTNEPS2BF16.
void set_bf16_clean_bounds(jit_tables &t, const axis_table &w) {
    const int e_min = 8 - (axis_quantum_log2(t.d) + axis_quantum_log2(t.h) + axis_quantum_log2(w));
    constexpr int kEMax = 236;
    if (e_min > kEMax) return;  // weights too fine: no src can be proven clean
    t.bf16_clean_lo = static_cast<uint16_t>(e_min << 7);
    t.bf16_clean_hi = static_cast<uint16_t>((kEMax << 7) | 0x7f);
}

template <typename T>
void put(table_bytes &v, size_t at, T x) {
    std::memcpy(v.data() + at, &x, sizeof(T));
}

// Output f's lane of a flat record of c (jit_conf::flat, or flat_w's wplane_flat_conf;
// c.rec_bytes per simd_w outputs): 2^n_axes s32 src indices idx[j] in slots j, then w0 and w1
// of each axis, W first.
void put_flat_lane(table_bytes &t, const jit_conf &c, int64_t f, const int64_t *idx, const linear_tap *const *axes,
                   int n_axes) {
    const size_t V = static_cast<size_t>(c.simd_w) * 4, rec = static_cast<size_t>(f / c.simd_w * c.rec_bytes),
                 l = static_cast<size_t>(f % c.simd_w), taps = size_t(1) << n_axes;
    for (size_t j = 0; j < taps; ++j) put<int32_t>(t, rec + j * V + 4 * l, static_cast<int32_t>(idx[j]));
    for (size_t a = 0; a < static_cast<size_t>(n_axes); ++a) {
        put<float>(t, rec + (taps + 2 * a) * V + 4 * l, axes[a]->w0);
        put<float>(t, rec + (taps + 2 * a + 1) * V + 4 * l, axes[a]->w1);
    }
}
}  // namespace

jit_tables make_jit_tables(const problem &p, const jit_conf &c) {
    jit_tables t;
    t.d = make_axis(p, 0);
    t.h = make_axis(p, 1);
    if (c.plane_mode && p.algorithm == alg::nearest) {
        zeroed(t.hrows, static_cast<size_t>(p.out[1] * 8));
        // Offsets are even (esize >= 2), so bit 0 is free for the row-pair flag: set on the first
        // row of each pair, pairing a run of rows with one src row from its start. The pair's
        // second row keeps a plain record, for thread splits that start there.
        bool second = false;
        for (int64_t oh = 0; oh < p.out[1]; ++oh) {
            const bool pair = !second && c.nearest_row_pairs && oh + 1 < p.out[1] && t.h.nearest[oh + 1] == t.h.nearest[oh];
            put<int64_t>(t.hrows, static_cast<size_t>(oh * 8), t.h.nearest[oh] * c.src_row_bytes | (pair ? 1 : 0));
            second = pair;
        }
    } else if (c.plane_mode) {
        const int64_t pitch = c.fuse_h || c.h2_pairs ? c.src_row_bytes : (c.flat_w ? c.OW : c.ow_pad) * 4;
        zeroed(t.hrows, static_cast<size_t>(p.out[1] * 24));
        for (int64_t oh = 0; oh < p.out[1]; ++oh) {
            const size_t at = static_cast<size_t>(oh * 24);
            put<int64_t>(t.hrows, at, t.h.lin[oh].i0 * pitch);
            put<int64_t>(t.hrows, at + 8, t.h.lin[oh].i1 * pitch);
            put<float>(t.hrows, at + 16, t.h.lin[oh].w0);
            put<float>(t.hrows, at + 20, t.h.lin[oh].w1);
        }
    }
    if (c.hvol) {
        const int64_t pitch = c.ow_pad * 4;
        zeroed(t.drows, static_cast<size_t>(p.out[0] * p.out[1] * 24));
        for (int64_t od = 0; od < p.out[0]; ++od)
            for (int64_t oh = 0; oh < p.out[1]; ++oh) {
                const size_t at = static_cast<size_t>((od * p.out[1] + oh) * 24);
                put<int64_t>(t.drows, at, t.d.lin[od].i0 * c.wplane_bytes + oh * pitch);
                put<int64_t>(t.drows, at + 8, t.d.lin[od].i1 * c.wplane_bytes + oh * pitch);
                put<float>(t.drows, at + 16, t.d.lin[od].w0);
                put<float>(t.drows, at + 20, t.d.lin[od].w1);
            }
    }
    if (c.d_pairs) {
        zeroed(t.d_pair_start, static_cast<size_t>(p.out[0]));
        for (int64_t od = 0; od + 1 < p.out[0]; ++od) {
            const linear_tap &x = t.d.lin[od], &y = t.d.lin[od + 1];
            const bool second = od > 0 && t.d_pair_start[od - 1];
            t.d_pair_start[od] = !second && x.same_taps(y);
        }
    }
    if (c.same_run > 0) {
        const int64_t m = c.same_run, oh_n = p.out[1];
        zeroed(t.h_run_start, static_cast<size_t>(oh_n));
        auto run_at = [&](int64_t oh) {
            const linear_tap &a = t.h.lin[oh], &b = t.h.lin[oh + 1];
            for (int64_t k = 0; k < m; ++k) {
                const linear_tap &x = t.h.lin[oh + 2 * k], &y = t.h.lin[oh + 2 * k + 1];
                const bool taps = x.i0 == a.i0 + k && x.i1 == x.i0 + 1 && y.same_taps(x);
                if (!taps || x.w0 != a.w0 || x.w1 != a.w1 || y.w0 != b.w0 || y.w1 != b.w1) return false;
            }
            return true;
        };
        for (int64_t oh = 0; oh + 2 * m <= oh_n;) {
            if (run_at(oh)) {
                t.h_run_start[static_cast<size_t>(oh)] = 1;
                oh += 2 * m;
            } else {
                ++oh;
            }
        }
    }
    // The pass engine's W records take their taps straight from the formula, without a whole
    // W axis (24 bytes an output, linear; 8 nearest): rows whose taps the kernel computes keep
    // a few records (jit_conf::calc_first), and a long row's axis had been a fifth of its
    // creation (600000 -> 882000 nearest).
    const bool lin = p.algorithm == alg::linear;
    const bool records = c.pass_engine && !c.flat && !c.flat_w;
    const bool clean = lin && p.dt == data_type::bf16 && !c.native_bf16;  // native: no fixups to skip
    const axis_table w = records && !clean ? axis_table{} : make_axis(p, 2);
    if (clean) set_bf16_clean_bounds(t, w);
    if (c.flat) {  // jit_conf::flat: per output vector, linear: 2^k index vectors, then W, H, D
                   // weights; nearest: a header, then the index vector
        const int64_t taps = int64_t(1) << c.k, oh_n = p.out[1], ow_n = p.out[2], V = c.simd_w * 4;
        auto at = [&](int64_t d, int64_t h, int64_t x) { return (d * p.in[1] + h) * p.in[2] + x; };  // in the plane
        zeroed(t.wtab, static_cast<size_t>(c.ow_vecs * c.rec_bytes));  // tail lanes: element 0, weights 0
        for (int64_t f = 0; f < c.row_out; ++f) {
            const int64_t ow = f % ow_n, oh = f / ow_n % oh_n, od = f / (ow_n * oh_n);
            if (!lin) {
                put<int32_t>(t.wtab, static_cast<size_t>(f / c.simd_w * c.rec_bytes + V + 4 * (f % c.simd_w)),
                             static_cast<int32_t>(at(t.d.nearest[od], t.h.nearest[oh], w.nearest[ow])));
                continue;
            }
            const linear_tap &tw = w.lin[ow], &th = t.h.lin[oh], &td = t.d.lin[od];
            int64_t idx[8];
            for (int64_t j = 0; j < taps; ++j) idx[j] = at(j & 4 ? td.i1 : td.i0, j & 2 ? th.i1 : th.i0, j & 1 ? tw.i1 : tw.i0);
            const linear_tap *axes[3] = {&tw, &th, &td};
            put_flat_lane(t.wtab, c, f, idx, axes, c.k);
        }
    } else if (c.flat_w) {  // jit_conf::flat_w: the records of the W pass wplane_flat_conf makes (k = 1)
        const jit_conf f = wplane_flat_conf(c, p);
        zeroed(t.wtab, static_cast<size_t>(f.ow_vecs * f.rec_bytes));
        for (int64_t o = 0; o < f.row_out; ++o) {
            const linear_tap &tw = w.lin[o % c.OW];
            const int64_t row = o / c.OW * p.in[2], idx[2] = {row + tw.i0, row + tw.i1};
            const linear_tap *axes[1] = {&tw};
            put_flat_lane(t.wtab, f, o, idx, axes, 1);
        }
    } else if (!c.pass_engine) {
        const int64_t px = c.C * c.esize;
        zeroed(t.wtab, static_cast<size_t>(c.OW * c.wtab_stride));
        for (int64_t o = 0; o < c.OW; ++o) {
            const size_t at = static_cast<size_t>(o * c.wtab_stride);
            if (lin) {
                put<int64_t>(t.wtab, at, w.lin[o].i0 * px);
                put<int64_t>(t.wtab, at + 8, w.lin[o].i1 * px);
                put<float>(t.wtab, at + 16, w.lin[o].w0);
                put<float>(t.wtab, at + 20, w.lin[o].w1);
            } else {
                put<int64_t>(t.wtab, at, w.nearest[o] * px);
            }
        }
    } else {
        const int64_t sw = c.simd_w;
        const size_t V = static_cast<size_t>(sw) * 4;
        zeroed(t.wtab, static_cast<size_t>(stored_record(c, c.ow_vecs) * c.rec_bytes));
        // Lane l's window index k into the slot at `at`: a dword, or vpshufb controls (AVX2
        // 16-bit windows: nearest, and linear with jit_conf::shuf_windows). Those pick the word
        // (bytes 2k, 2k + 1 into lane l's two bytes), or for bf16 linear put it into the top
        // half of lane l's dword, which is its f32.
        const bool word_ctrl = c.shuf_windows || (!lin && c.window && c.esize == 2 && sw == 8);
        // AVX-512 16-bit nearest windows: vpermw word controls, record v's 16 then record
        // v + 1's (plus 16, the pair's upper window) in the same 64 bytes (jit_ncx_wpass).
        const bool word_idx = !lin && c.window && c.esize == 2 && sw == 16;
        auto put_index = [&](size_t at, int64_t l, int32_t k) {
            if (word_idx) {
                put<uint16_t>(t.wtab, at + 2 * l, static_cast<uint16_t>(k));
            } else if (word_ctrl && lin && c.dt == data_type::bf16) {
                put<uint32_t>(t.wtab, at + 4 * l, 0x8080u | uint32_t(2 * k) << 16 | uint32_t(2 * k + 1) << 24);
            } else if (word_ctrl) {
                t.wtab[at + 2 * l] = static_cast<uint8_t>(2 * k);
                t.wtab[at + 2 * l + 1] = static_cast<uint8_t>(2 * k + 1);
            } else {
                put<int32_t>(t.wtab, at + 4 * l, k);
            }
        };
        pass_record r;
        for (int64_t v = 0; v < c.ow_vecs; ++v) {
            if (v == c.calc_first && c.calc_end > v) v = c.calc_end;  // computed: no records
            if (v == c.ow_vecs) break;
            const size_t rec = static_cast<size_t>(stored_record(c, v) * c.rec_bytes);
            make_pass_record(c, p, lin, v, r);
            if (c.window || c.window2) {
                put<int32_t>(t.wtab, rec, static_cast<int32_t>(r.base[0]));
                put<int32_t>(t.wtab, rec + 4, static_cast<int32_t>(r.base[1]));
            }
            // Column lane windows (jit_conf::cols_inlane): a pair record's ia and ib hold the
            // in-lane controls of taps 0 and 1, and bytes 8-15 the lanes' window offsets.
            int32_t off[2], idx[2][8];
            const bool pair = v < window_pair_vecs(c);
            if (c.cols_inlane && pair && lane_windows(c, r, c.row_in - 1 - r.base[0], off, idx)) {
                put<int32_t>(t.wtab, rec + 8, off[0]);
                put<int32_t>(t.wtab, rec + 12, off[1]);
                for (int64_t l = 0; l < sw; ++l) {
                    put<int32_t>(t.wtab, rec + V + 4 * l, idx[0][l]);
                    put<int32_t>(t.wtab, rec + 2 * V + 4 * l, idx[1][l]);
                    put<float>(t.wtab, rec + 3 * V + 4 * l, r.w0[l]);
                    put<float>(t.wtab, rec + 4 * V + 4 * l, r.w1[l]);
                }
                continue;
            }
            for (int64_t l = 0; l < sw; ++l) {
                put_index(rec + V, l, r.ia[l]);
                // 16-bit nearest: also in the upper half of the stored record before's controls,
                // which the word-pair path reads as one 32-byte vpshufb control (jit_ncx_wpass).
                // None before the first stored record (computed vectors 0 on: calc_first 0).
                const bool before = rec >= static_cast<size_t>(c.rec_bytes);
                if (word_ctrl && !lin && before) put_index(rec - c.rec_bytes + V + 16, l, r.ia[l]);
                if (word_idx && before) put_index(rec - c.rec_bytes + V + 32, l, 16 + r.ia[l]);
                if (lin) {
                    put_index(rec + 2 * V, l, r.ib[l]);
                    put<float>(t.wtab, rec + 3 * V + 4 * l, r.w0[l]);
                    put<float>(t.wtab, rec + 4 * V + 4 * l, r.w1[l]);
                }
            }
        }
    }
    return t;
}

}  // namespace xinterp
