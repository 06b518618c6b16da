// The characteristic shape suite (issue: Performance): real-model shapes plus the tails and
// odd ratios benchdnn uses. Spatial dims only; each runs x {nearest, linear} x {NCX, NXC} x dtype.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../src/cli/synthetic.hpp"
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

// A random shape, as bench_sweep draws them (and bench_isas --sweep): 1-3 spatial dims, C
// 1-299, src dims up to 4000 / 400 / 64 per axis by rank, each axis scaled by 0.1-8x; drawn
// again until src + dst in f32 is 4 KB to 48 MB. Log-uniform throughout.
template <class Rng>
shape_case random_shape(Rng &rng) {
    auto uniform = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
    for (;;) {
        shape_case c{"random", 1, 0, {}, {}, false};
        const int k = 1 + static_cast<int>(rng() % 3);
        c.c = static_cast<int64_t>(std::exp(uniform(0, std::log(300))));
        for (int i = 0; i < k; ++i) {
            const int64_t in = static_cast<int64_t>(std::exp(uniform(0, std::log(k == 3 ? 64 : k == 2 ? 400 : 4000))));
            c.in.push_back(in);
            c.out.push_back(std::max<int64_t>(1, static_cast<int64_t>(in * std::exp(uniform(std::log(0.1), std::log(8))))));
        }
        double si = 4.0 * c.c, so = 4.0 * c.c;
        for (int i = 0; i < k; ++i) si *= c.in[i], so *= c.out[i];
        if (si + so <= 48e6 && si + so >= 4e3) return c;
    }
}

// "35x33x24"
inline std::string dims_str(const std::vector<int64_t> &v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
    return s;
}

// "C=212,35x33x24,5x49x14" -> a case (N = 1); false on anything else (bench_sweep and
// bench_ab --shape).
inline bool parse_shape(const std::string &a, xbench::shape_case &c) {
    auto list = [](const std::string &t, std::vector<int64_t> &v) {
        size_t i = 0;
        while (i < t.size()) {
            size_t end = t.find('x', i);
            if (end == std::string::npos) end = t.size();
            char *stop = nullptr;
            const std::string tok = t.substr(i, end - i);
            const long long x = std::strtoll(tok.c_str(), &stop, 10);
            if (tok.empty() || *stop || x < 1) return false;
            v.push_back(x);
            i = end + 1;
        }
        return !v.empty() && v.size() <= 3;
    };
    const size_t p1 = a.find(','), p2 = p1 == std::string::npos ? p1 : a.find(',', p1 + 1);
    c.n = 1;
    char *stop = nullptr;
    const std::string cs = a.substr(0, p1);
    if (p2 == std::string::npos || cs.rfind("C=", 0) != 0) return false;
    c.c = std::strtoll(cs.c_str() + 2, &stop, 10);
    return *stop == 0 && c.c >= 1 && list(a.substr(p1 + 1, p2 - p1 - 1), c.in) && list(a.substr(p2 + 1), c.out) &&
           c.in.size() == c.out.size();
}

using xinterp::cli::fill_normal;  // the data xinterp bench uses too

}  // namespace xbench
