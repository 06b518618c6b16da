// The characteristic shape suite (issue: Performance): real-model shapes plus the tails and
// odd ratios benchdnn uses. Spatial dims only; each runs x {nearest, linear} x {NCX, NXC} x dtype.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "xinterp/xinterp.hpp"

namespace xbench {

struct shape_case {
    std::string name;
    int64_t n, c;
    std::vector<int64_t> in, out;  // spatial
    bool large;                    // counted in the "large cases" thread-scaling goal
};

inline const std::vector<shape_case> &suite() {
    static const std::vector<shape_case> s = {
        {"fpn_2x", 1, 256, {32, 32}, {64, 64}, false},
        {"yolo_2x", 1, 128, {40, 40}, {80, 80}, false},
        {"img_down", 1, 3, {1080, 1920}, {224, 224}, true},
        {"img_up", 1, 3, {224, 224}, {512, 512}, true},
        {"seg_8x", 1, 21, {64, 64}, {512, 512}, true},
        {"vol_2x", 1, 32, {16, 64, 64}, {32, 128, 128}, true},
        {"c17", 1, 17, {33, 33}, {65, 65}, false},
        {"c23", 1, 23, {31, 29}, {47, 61}, false},
        {"r525to5", 1, 16, {525, 525}, {5, 5}, false},
        {"r15to73", 1, 16, {15, 15}, {73, 73}, false},
        {"odd3d", 1, 5, {7, 9, 11}, {13, 5, 17}, false},
    };
    return s;
}

inline std::vector<int64_t> layout_dims(bool ncx, int64_t n, int64_t c, const std::vector<int64_t> &sp) {
    std::vector<int64_t> v{n};
    if (ncx) v.push_back(c);
    v.insert(v.end(), sp.begin(), sp.end());
    if (!ncx) v.push_back(c);
    return v;
}

inline xinterp::op_desc make_desc(const shape_case &c, bool linear, bool ncx, xinterp::data_type dt) {
    xinterp::op_desc d;
    d.src_dims = layout_dims(ncx, c.n, c.c, c.in);
    d.dt = dt;
    d.mode = linear ? xinterp::mode::linear : xinterp::mode::nearest;
    d.format = ncx ? xinterp::data_format::ncx : xinterp::data_format::nxc;
    d.sizes = c.out;
    return d;
}

// Realistic data: normal values of magnitude 0.25..4 with random signs, in the dtype's encoding.
// (A byte pattern would make many bf16 values subnormal, and since kernels never flush
// subnormals, every operation on one takes a microcode assist: that measures the data.)
inline void fill_normal(int esize, bool bf16, uint8_t *p, size_t n) {
    uint32_t x = 12345;
    auto rnd = [&] { return x = x * 1664525u + 1013904223u; };
    for (size_t i = 0; i < n; ++i) {
        const uint32_t r = rnd();
        if (esize == 4) {
            const uint32_t bits = (r & 0x80000000u) | ((125u + (r >> 8) % 4) << 23) | (r & 0x7fffffu);
            std::memcpy(p + 4 * i, &bits, 4);
        } else {
            const uint16_t h = bf16 ? static_cast<uint16_t>(((r >> 16) & 0x8000u) | ((125u + (r >> 8) % 4) << 7) | (r & 0x7fu))
                                    : static_cast<uint16_t>(((r >> 16) & 0x8000u) | ((13u + (r >> 8) % 4) << 10) | (r & 0x3ffu));
            std::memcpy(p + 2 * i, &h, 2);
        }
    }
}

}  // namespace xbench
