#include "jit_tables.hpp"

#include <cstring>

namespace xinterp {
namespace {

axis_table make_axis(const problem &p, int axis) {
    axis_table t;
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
    const axis_table w = make_axis(p, 2);
    const bool lin = p.algorithm == alg::linear;
    if (c.fmt == data_format::nxc) {
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
        const size_t n = static_cast<size_t>(c.ow_pad);
        t.wtab.assign((lin ? 4 : 1) * n * 4, 0);  // zero padding: index 0, weight 0
        for (int64_t o = 0; o < c.OW; ++o) {
            const size_t at = static_cast<size_t>(o) * 4;
            if (lin) {
                put<int32_t>(t.wtab, at, static_cast<int32_t>(w.lin[o].i0));
                put<int32_t>(t.wtab, at + n * 4, static_cast<int32_t>(w.lin[o].i1));
                put<float>(t.wtab, at + 2 * n * 4, w.lin[o].w0);
                put<float>(t.wtab, at + 3 * n * 4, w.lin[o].w1);
            } else {
                put<int32_t>(t.wtab, at, static_cast<int32_t>(w.nearest[o]));
            }
        }
    }
    return t;
}

}  // namespace xinterp
