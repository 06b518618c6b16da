// Built with -ffp-contract=off (CMakeLists.txt): every multiply and add below is rounded
// exactly where it is written, and the fused steps are the explicit std::fma calls.
#include "reference.hpp"

#include <cstring>
#include <vector>

#include "numeric.hpp"

namespace xinterp {
namespace {

struct tensor_view {
    const problem &p;
    // Element offset of (n, c, d, h, w) for the given spatial dims, in data_format order.
    int64_t offset(const int64_t *sp, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) const {
        if (p.fmt == data_format::ncx) return (((n * p.c + c) * sp[0] + d) * sp[1] + h) * sp[2] + w;
        return (((n * sp[0] + d) * sp[1] + h) * sp[2] + w) * p.c + c;
    }
};

// Tensors may start at any address, so elements are moved with memcpy, never through a
// typed pointer (a misaligned uint16_t or float access is undefined behaviour).
float load(data_type dt, const void *base, int64_t i) {
    const auto *b = static_cast<const unsigned char *>(base);
    if (dt == data_type::f32) {
        float f;
        std::memcpy(&f, b + 4 * i, 4);
        return f;
    }
    uint16_t h;
    std::memcpy(&h, b + 2 * i, 2);
    return dt == data_type::bf16 ? bf16_to_f32(h) : f16_to_f32(h);
}

void store(data_type dt, void *base, int64_t i, float v) {
    auto *b = static_cast<unsigned char *>(base);
    if (dt == data_type::f32) {
        std::memcpy(b + 4 * i, &v, 4);
        return;
    }
    const uint16_t h = dt == data_type::bf16 ? f32_to_bf16(v) : f32_to_f16(v);
    std::memcpy(b + 2 * i, &h, 2);
}

// One 1-D step of the canonical order: r = w0 * a; r = fma(w1, b, r).
inline float lerp(float w0, float a, float w1, float b) {
    float r = w0 * a;
    r = std::fma(w1, b, r);
    return r;
}

void nearest(const problem &p, const void *src, void *dst) {
    const size_t es = dt_size(p.dt);
    std::vector<int64_t> idx[3];
    for (int a = 0; a < 3; ++a)
        for (int64_t o = 0; o < p.out[a]; ++o) idx[a].push_back(nearest_index(o, p.in[a], p.out[a], p.ctm));
    const tensor_view v{p};
    auto *d8 = static_cast<unsigned char *>(dst);
    const auto *s8 = static_cast<const unsigned char *>(src);
    for (int64_t n = 0; n < p.n; ++n)
        for (int64_t c = 0; c < p.c; ++c)
            for (int64_t od = 0; od < p.out[0]; ++od)
                for (int64_t oh = 0; oh < p.out[1]; ++oh)
                    for (int64_t ow = 0; ow < p.out[2]; ++ow) {
                        const int64_t so = v.offset(p.in, n, c, idx[0][od], idx[1][oh], idx[2][ow]);
                        const int64_t dof = v.offset(p.out, n, c, od, oh, ow);
                        std::memcpy(d8 + dof * es, s8 + so * es, es);  // a bit copy: NaN payloads survive
                    }
}

void linear(const problem &p, const void *src, void *dst) {
    std::vector<linear_tap> tap[3];
    for (int a = 0; a < 3; ++a)
        for (int64_t o = 0; o < p.out[a]; ++o) tap[a].push_back(linear_coord(o, p.in[a], p.out[a], p.ctm));
    const tensor_view v{p};
    for (int64_t n = 0; n < p.n; ++n)
        for (int64_t c = 0; c < p.c; ++c)
            for (int64_t od = 0; od < p.out[0]; ++od)
                for (int64_t oh = 0; oh < p.out[1]; ++oh)
                    for (int64_t ow = 0; ow < p.out[2]; ++ow) {
                        const linear_tap &td = tap[0][od], &th = tap[1][oh], &tw = tap[2][ow];
                        // W first ...
                        auto along_w = [&](int64_t d, int64_t h) {
                            const float a = load(p.dt, src, v.offset(p.in, n, c, d, h, tw.i0));
                            const float b = load(p.dt, src, v.offset(p.in, n, c, d, h, tw.i1));
                            return lerp(tw.w0, a, tw.w1, b);
                        };
                        // ... then H ...
                        auto along_h = [&](int64_t d) {
                            if (p.k < 2) return along_w(d, 0);
                            return lerp(th.w0, along_w(d, th.i0), th.w1, along_w(d, th.i1));
                        };
                        // ... then D; padded axes (k < 3) add no step.
                        const float r = p.k < 3 ? along_h(0) : lerp(td.w0, along_h(td.i0), td.w1, along_h(td.i1));
                        store(p.dt, dst, v.offset(p.out, n, c, od, oh, ow), r);
                    }
}

}  // namespace

void reference_execute(const problem &p, const void *src, void *dst) {
    if (p.empty()) return;
    mxcsr_guard guard;
    if (p.algorithm == alg::nearest)
        nearest(p, src, dst);
    else
        linear(p, src, dst);
}

}  // namespace xinterp
