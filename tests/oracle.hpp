// The tests' own float64 oracle. It shares no code with the library: it recomputes the f32
// coordinates and weights as semantics.md states them and evaluates the sum exactly in double.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "test_util.hpp"

namespace xt {

struct oracle_axis {
    std::vector<int64_t> near;               // nearest index per output
    std::vector<int64_t> i0, i1;             // linear taps
    std::vector<double> w0, w1;              // the f32 weights, widened
};

inline oracle_axis oracle_make_axis(int64_t I, int64_t O, bool half_pixel) {
    oracle_axis a;
    for (int64_t o = 0; o < O; ++o) {
        float s;
        if (half_pixel) s = ((float)o + 0.5f) * (float)I / (float)O - 0.5f;
        else s = O == 1 ? 0.f : (float)o * (float)(I - 1) / (float)(O - 1);
        int64_t n;
        if (half_pixel) {
            n = ((2 * o + 1) * I) / (2 * O);  // floor((o + 0.5) * I / O), exact in integers
        } else {
            const float r = std::round(s);
            n = r < 0 ? 0 : (int64_t)r;
        }
        a.near.push_back(std::min<int64_t>(std::max<int64_t>(n, 0), I - 1));
        const float t = std::min(std::max(s, 0.f), (float)(I - 1));
        const int64_t lo = (int64_t)std::floor(t);
        const float w1 = t - (float)lo, w0 = 1.f - w1;
        a.i0.push_back(lo);
        a.i1.push_back(std::min<int64_t>(lo + 1, I - 1));
        a.w0.push_back(w0);
        a.w1.push_back(w1);
    }
    return a;
}

struct oracle_shape {
    bool ncx;
    int k;
    int64_t n, c, in[3], out[3];  // spatial padded to D, H, W with 1s
    int64_t index(const int64_t *sp, int64_t ni, int64_t ci, int64_t d, int64_t h, int64_t w) const {
        return ncx ? (((ni * c + ci) * sp[0] + d) * sp[1] + h) * sp[2] + w
                   : (((ni * sp[0] + d) * sp[1] + h) * sp[2] + w) * c + ci;
    }
};

inline oracle_shape oracle_shape_of(const xinterp::op_desc &d, const std::vector<int64_t> &dst) {
    oracle_shape s;
    s.ncx = d.format == xinterp::data_format::ncx;
    s.k = static_cast<int>(d.src_dims.size()) - 2;
    s.n = d.src_dims[0];
    s.c = s.ncx ? d.src_dims[1] : d.src_dims.back();
    for (int i = 0; i < 3; ++i) s.in[i] = s.out[i] = 1;
    for (int i = 0; i < s.k; ++i) {
        s.in[3 - s.k + i] = d.src_dims[(s.ncx ? 2 : 1) + i];
        s.out[3 - s.k + i] = dst[(s.ncx ? 2 : 1) + i];
    }
    return s;
}

// Checks dst against the contract: nearest bit-exact, linear within
// pipe + 0.5 * eps(dst) * (|exact| + pipe) + underflow term (below). Returns the number of violations (first few logged).
inline int64_t oracle_check(const xinterp::op_desc &d, const std::vector<int64_t> &dst_dims, const uint8_t *src,
                            const uint8_t *dst) {
    const oracle_shape s = oracle_shape_of(d, dst_dims);
    const bool hp = d.coordinate_transformation == xinterp::coordinate_transformation_mode::half_pixel;
    oracle_axis ax[3];
    for (int i = 0; i < 3; ++i) ax[i] = oracle_make_axis(s.in[i], s.out[i], hp);
    const size_t es = esize(d.dt);
    const double eps = d.dt == xinterp::data_type::f32 ? std::ldexp(1.0, -23)
                       : d.dt == xinterp::data_type::bf16 ? std::ldexp(1.0, -7) : std::ldexp(1.0, -10);
    // The contract's bound is relative only, which no rounding can meet for results below the
    // dst type's normal range. We add the underflow term of the standard error model: half the
    // subnormal spacing (f32 2^-150, f16 2^-25), or for bf16, whose stores flush subnormal
    // results to zero, the whole subnormal range (2^-126).
    const double under = d.dt == xinterp::data_type::f32 ? std::ldexp(1.0, -150)
                         : d.dt == xinterp::data_type::bf16 ? std::ldexp(1.0, -126) : std::ldexp(1.0, -25);
    int64_t bad = 0;
    for (int64_t ni = 0; ni < s.n; ++ni)
        for (int64_t ci = 0; ci < s.c; ++ci)
            for (int64_t od = 0; od < s.out[0]; ++od)
                for (int64_t oh = 0; oh < s.out[1]; ++oh)
                    for (int64_t ow = 0; ow < s.out[2]; ++ow) {
                        const int64_t di = s.index(s.out, ni, ci, od, oh, ow);
                        if (d.mode == xinterp::mode::nearest) {
                            const int64_t si = s.index(s.in, ni, ci, ax[0].near[od], ax[1].near[oh], ax[2].near[ow]);
                            if (std::memcmp(dst + di * es, src + si * es, es) != 0 && bad++ < 5)
                                ADD_FAILURE() << "nearest mismatch at dst element " << di;
                            continue;
                        }
                        double exact = 0, mag = 0;
                        for (int td = 0; td < (s.k == 3 ? 2 : 1); ++td)
                            for (int th = 0; th < (s.k >= 2 ? 2 : 1); ++th)
                                for (int tw = 0; tw < 2; ++tw) {
                                    const double wd = s.k == 3 ? (td ? ax[0].w1[od] : ax[0].w0[od]) : 1.0;
                                    const double wh = s.k >= 2 ? (th ? ax[1].w1[oh] : ax[1].w0[oh]) : 1.0;
                                    const double ww = tw ? ax[2].w1[ow] : ax[2].w0[ow];
                                    const int64_t id = s.k == 3 ? (td ? ax[0].i1[od] : ax[0].i0[od]) : 0;
                                    const int64_t ih = s.k >= 2 ? (th ? ax[1].i1[oh] : ax[1].i0[oh]) : 0;
                                    const int64_t iw = tw ? ax[2].i1[ow] : ax[2].i0[ow];
                                    const double a = widen(d.dt, src, s.index(s.in, ni, ci, id, ih, iw));
                                    exact += wd * wh * ww * a;
                                    mag += std::fabs(wd * wh * ww) * std::fabs(a);
                                }
                        const double pipe = (2 * s.k + 2) * std::ldexp(1.0, -24) * mag;
                        const double bound = pipe + 0.5 * eps * (std::fabs(exact) + pipe) + under;
                        const double got = widen(d.dt, dst, di);
                        if (!(std::fabs(got - exact) <= bound) && bad++ < 5)
                            ADD_FAILURE() << "linear out of contract at dst element " << di << ": got " << got
                                          << " exact " << exact << " bound " << bound;
                    }
    return bad;
}

}  // namespace xt
