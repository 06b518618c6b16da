#include "jit_tables.hpp"

#include <algorithm>
#include <cstring>

namespace xinterp {
namespace {

axis_table make_axis(const problem &p, int axis) {
    axis_table t;
    if (p.algorithm == alg::linear) t.lin.reserve(static_cast<size_t>(p.out[axis]));
    else t.nearest.reserve(static_cast<size_t>(p.out[axis]));
    for (int64_t o = 0; o < p.out[axis]; ++o) {
        if (p.algorithm == alg::linear)
            t.lin.push_back(linear_coord(o, p.in[axis], p.out[axis], p.ctm));
        else
            t.nearest.push_back(nearest_index(o, p.in[axis], p.out[axis], p.ctm));
    }
    return t;
}

template <typename T>
void put(std::vector<uint8_t> &v, size_t at, T x) {
    std::memcpy(v.data() + at, &x, sizeof(T));
}

}  // namespace

jit_tables make_jit_tables(const problem &p, const jit_conf &c) {
    jit_tables t;
    t.d = make_axis(p, 0);
    t.h = make_axis(p, 1);
    if (c.plane_mode && p.algorithm == alg::nearest) {
        t.hrows.assign(static_cast<size_t>(p.out[1] * 8), 0);
        for (int64_t oh = 0; oh < p.out[1]; ++oh)
            put<int64_t>(t.hrows, static_cast<size_t>(oh * 8), t.h.nearest[oh] * c.src_row_bytes);
    } else if (c.plane_mode) {
        const int64_t pitch = c.fuse_h ? c.src_row_bytes : c.ow_pad * 4;
        t.hrows.assign(static_cast<size_t>(p.out[1] * 24), 0);
        for (int64_t oh = 0; oh < p.out[1]; ++oh) {
            const size_t at = static_cast<size_t>(oh * 24);
            put<int64_t>(t.hrows, at, t.h.lin[oh].i0 * pitch);
            put<int64_t>(t.hrows, at + 8, t.h.lin[oh].i1 * pitch);
            put<float>(t.hrows, at + 16, t.h.lin[oh].w0);
            put<float>(t.hrows, at + 20, t.h.lin[oh].w1);
        }
    }
    const axis_table w = make_axis(p, 2);
    const bool lin = p.algorithm == alg::linear;
    if (!c.pass_engine) {
        const int64_t px = c.C * c.esize;
        t.wtab.assign(static_cast<size_t>(c.OW * c.wtab_stride), 0);
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
        const int64_t sw = c.simd_w, fc = c.flat_c;
        const size_t V = static_cast<size_t>(sw) * 4;
        // The flat-row taps of output element e = ow * fc + ch.
        auto i0 = [&](int64_t e) { return (lin ? w.lin[e / fc].i0 : w.nearest[e / fc]) * fc + e % fc; };
        auto i1 = [&](int64_t e) { return (lin ? w.lin[e / fc].i1 : w.nearest[e / fc]) * fc + e % fc; };
        t.wtab.assign(static_cast<size_t>(c.ow_vecs * c.rec_bytes), 0);
        for (int64_t v = 0; v < c.ow_vecs; ++v) {
            const size_t rec = static_cast<size_t>(v * c.rec_bytes);
            const int64_t first = v * sw, last = std::min(c.row_out, first + sw);
            // Window bases: the lowest tap of the vector, moved left so the window stays in the row.
            int64_t base[2] = {0, 0};
            if (c.window) {
                int64_t lo[2] = {c.row_in, c.row_in};
                for (int64_t e = first; e < last; ++e) lo[0] = std::min(lo[0], i0(e)), lo[1] = std::min(lo[1], i1(e));
                for (int i = 0; i < 2; ++i) base[i] = std::min(lo[i], c.row_in - sw);
                put<int32_t>(t.wtab, rec, static_cast<int32_t>(base[0]));
                put<int32_t>(t.wtab, rec + 4, static_cast<int32_t>(base[1]));
            }
            for (int64_t l = 0; l < sw; ++l) {
                const int64_t e = first + l;
                const bool real = e < last;
                if (lin) {
                    const linear_tap &tap = w.lin[real ? e / fc : 0];
                    put<int32_t>(t.wtab, rec + V + 4 * l, static_cast<int32_t>((real ? i0(e) : base[0]) - base[0]));
                    put<int32_t>(t.wtab, rec + 2 * V + 4 * l, static_cast<int32_t>((real ? i1(e) : base[1]) - base[1]));
                    put<float>(t.wtab, rec + 3 * V + 4 * l, real ? tap.w0 : 0.f);
                    put<float>(t.wtab, rec + 4 * V + 4 * l, real ? tap.w1 : 0.f);
                } else {
                    const int64_t i = (real ? i0(e) : base[0]) - base[0];
                    if (c.window && c.esize == 2 && sw == 8) {  // AVX2 vpshufb control: two bytes per lane
                        t.wtab[rec + V + 2 * l] = static_cast<uint8_t>(2 * i);
                        t.wtab[rec + V + 2 * l + 1] = static_cast<uint8_t>(2 * i + 1);
                    } else {
                        put<int32_t>(t.wtab, rec + V + 4 * l, static_cast<int32_t>(i));
                    }
                }
            }
        }
    }
    return t;
}

}  // namespace xinterp
