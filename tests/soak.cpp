// Randomized differential soak: random descriptors, the best JIT tier against the reference, bit
// for bit (memcmp, NaN payloads included), for as long as asked. The fixed gtest sweeps cover the
// shapes we thought of; this draws the ones we did not, biased to the edges where the drivers
// switch paths: axes of 1-9 elements, 1 -> 1, 2x and 4x, single outputs, C of 1-9 and up to
// 299, N of 2-3, 1-3 threads (--max-threads: up to N). A quarter of the cases hold NaN, inf,
// huge, denormal and -0 src values; a third give scales instead of sizes, a third a runtime
// sizes tensor near the sizes.
// src and dst sit against PROT_NONE pages (alternating edges), so a stray access faults.
//   xinterp_soak [--seconds S] [--seed N] [--max-threads N] [--calc-taps]   (exit 1 on the
//   first mismatch, with its descriptor). --max-threads (default 3) draws 1..N threads per
//   case: a many-core host's thread splits (rows per thread down to one, threads past the
//   rows). --calc-taps computes the W taps wherever the kernel can (jit_conf::calc_first),
//   however few records the rows have, so the drawn shapes reach that path too.
// Run it with XINTERP_NT_MIN_BYTES=4096 to put the non-temporal variants nearly everywhere.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../jit/jit_conf.hpp"
#include "guarded_buffer.hpp"
#include "xinterp/xinterp.hpp"

using namespace xinterp;

namespace {

struct drawn {
    op_desc d;
    std::vector<int32_t> runtime;  // empty: none
    int threads;
    bool specials;
};

std::string describe(const drawn &c) {
    std::string s = std::string(to_string(c.d.dt)) + " " + to_string(c.d.mode) + " " + to_string(c.d.coordinate_transformation) +
                    " " + to_string(c.d.format) + " src";
    for (auto v : c.d.src_dims) s += " " + std::to_string(v);
    if (c.d.sizes) {
        s += " sizes";
        for (auto v : *c.d.sizes) s += " " + std::to_string(v);
    } else {
        s += " scales";
        for (auto v : *c.d.scales) s += " " + std::to_string(v);
    }
    if (!c.runtime.empty()) {
        s += " runtime";
        for (auto v : c.runtime) s += " " + std::to_string(v);
    }
    return s + " threads " + std::to_string(c.threads) + (c.specials ? " specials" : "");
}

class drawer {
public:
    drawer(uint64_t seed, int max_threads) : rng_(seed), max_threads_(max_threads) {}
    int uniform(int a, int b) { return a + static_cast<int>(rng_() % static_cast<uint64_t>(b - a + 1)); }
    double real(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng_); }

    // A case of at most 3 M elements on either side.
    drawn draw() {
        for (;;) {
            const int k = uniform(1, 3), maxd = k == 1 ? 3000 : k == 2 ? 300 : 40;
            const int64_t n = uniform(0, 5) ? 1 : uniform(2, 3);
            const int64_t c = uniform(0, 2) == 0 ? uniform(1, 9) : static_cast<int64_t>(std::exp(real(0, std::log(300))));
            std::vector<int64_t> in(k), out(k);
            double ei = static_cast<double>(n * c), eo = ei;
            for (int i = 0; i < k; ++i) {
                const int r = uniform(0, 9);
                in[i] = r < 3 ? uniform(1, 9) : r < 8 ? uniform(10, std::min(80, maxd)) : uniform(std::min(80, maxd), maxd);
                switch (uniform(0, 9)) {
                    case 0: out[i] = in[i]; break;
                    case 1: out[i] = 2 * in[i]; break;
                    case 2: out[i] = uniform(1, 9); break;
                    case 3: out[i] = 1; break;
                    case 4: out[i] = 4 * in[i]; break;
                    default: out[i] = std::max<int64_t>(1, static_cast<int64_t>(in[i] * std::exp(real(std::log(0.1), std::log(8)))));
                }
                ei *= in[i], eo *= out[i];
            }
            if (ei > 3e6 || eo > 3e6) continue;
            drawn x;
            op_desc &d = x.d;
            d.dt = static_cast<data_type>(uniform(0, 2));
            const bool lin = uniform(0, 1);
            d.mode = !lin ? mode::nearest : uniform(0, 3) ? mode::linear : k == 1 ? mode::linear : k == 2 ? mode::bilinear : mode::trilinear;
            d.coordinate_transformation = uniform(0, 3) ? coordinate_transformation_mode::half_pixel : coordinate_transformation_mode::align_corners;
            d.format = uniform(0, 1) ? data_format::ncx : data_format::nxc;
            d.src_dims = {n};
            if (d.format == data_format::ncx) d.src_dims.push_back(c);
            d.src_dims.insert(d.src_dims.end(), in.begin(), in.end());
            if (d.format == data_format::nxc) d.src_dims.push_back(c);
            const int how = uniform(0, 2);  // sizes, scales, or sizes and a runtime sizes tensor
            std::vector<float> sc(k);
            double es = static_cast<double>(n * c);  // dst elements with the scales
            for (int i = 0; i < k && how == 1; ++i) {
                sc[i] = static_cast<float>(real(0.1, 8));
                int64_t o = static_cast<int64_t>(static_cast<float>(in[i]) * sc[i]);  // the op's rule
                if (o < 1) sc[i] = 1.f, o = in[i];
                es *= static_cast<double>(o);
            }
            if (how == 1 && es <= 3e6) d.scales = sc;
            else d.sizes = out;
            if (how == 2)
                for (int i = 0; i < k; ++i) x.runtime.push_back(static_cast<int32_t>(std::max<int64_t>(1, out[i] + uniform(-2, 2))));
            x.threads = uniform(1, max_threads_);
            x.specials = uniform(0, 3) == 0;
            return x;
        }
    }

    // src values: normal-ish, or (specials) with NaN, inf, huge, denormal and -0 mixed in.
    void fill(data_type dt, uint8_t *p, size_t elems, bool specials) {
        std::normal_distribution<float> nd(0.f, 3.f);
        const uint32_t f32s[] = {0x7fc00001, 0x7f800001, 0x7f800000, 0xff800000, 0x80000000, 0x00000001, 0x7f7fffff, 0x807fffff};
        const uint16_t bf16s[] = {0x7fc1, 0x7f81, 0x7f80, 0xff80, 0x8000, 0x0001, 0x7f7f, 0x807f};
        const uint16_t f16s[] = {0x7e01, 0x7c01, 0x7c00, 0xfc00, 0x8000, 0x0001, 0x7bff, 0x83ff};
        for (size_t i = 0; i < elems; ++i) {
            const bool sp = specials && rng_() % 20 == 0;
            const float f = nd(rng_);
            uint32_t u;
            std::memcpy(&u, &f, 4);
            if (dt == data_type::f32) {
                if (sp) u = f32s[rng_() % 8];
                std::memcpy(p + 4 * i, &u, 4);
            } else {
                uint16_t h = dt == data_type::bf16 ? static_cast<uint16_t>(u >> 16) : static_cast<uint16_t>(rng_() & 0xbbff);
                if (sp) h = dt == data_type::bf16 ? bf16s[rng_() % 8] : f16s[rng_() % 8];
                std::memcpy(p + 2 * i, &h, 2);
            }
        }
    }

private:
    std::mt19937_64 rng_;
    int max_threads_;
};

}  // namespace

int main(int argc, char **argv) {
    double seconds = 60;
    uint64_t seed = 1;
    int max_threads = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
        else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--max-threads" && i + 1 < argc) max_threads = std::atoi(argv[++i]);
        else if (a == "--calc-taps") set_calc_taps_for_testing(1);
        else {
            std::fprintf(stderr, "usage: xinterp_soak [--seconds S] [--seed N] [--max-threads N] [--calc-taps]\n");
            return 2;
        }
    }
    if (!(seconds > 0)) {
        std::fprintf(stderr, "xinterp_soak: --seconds must be > 0\n");
        return 2;
    }
    if (max_threads < 1 || max_threads > 1024) {
        std::fprintf(stderr, "xinterp_soak: --max-threads must be 1..1024, got %d\n", max_threads);
        return 2;
    }
    drawer dr(seed, max_threads);
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    long cases = 0, rejected = 0;
    std::string isa;
    while (std::chrono::steady_clock::now() < end) {
        const drawn c = dr.draw();
        try {
            const primitive_desc jpd(c.d), rpd(c.d, impl_kind::reference);
            isa = jpd.impl_name() + "/" + std::to_string(jpd.vector_bits());
            const bool rt = !c.runtime.empty();
            const size_t out = rt ? jpd.dst_bytes_for(c.runtime.data(), c.runtime.size()) : jpd.dst_bytes();
            const size_t es = c.d.dt == data_type::f32 ? 4 : 2;
            const bool at_end = cases % 2 == 0;
            xt::guarded_buffer src(jpd.src_bytes(), at_end), dst(out, at_end);
            std::vector<uint8_t> ref(out);
            dr.fill(c.d.dt, src.data(), src.size() / es, c.specials);
            std::memset(dst.data(), 0xCD, out);
            omp_set_num_threads(c.threads);
            const primitive jit(jpd), r(rpd);
            if (rt) {
                jit.execute(src.data(), c.runtime.data(), c.runtime.size(), dst.data());
                r.execute(src.data(), c.runtime.data(), c.runtime.size(), ref.data());
            } else {
                jit.execute(src.data(), dst.data());
                r.execute(src.data(), ref.data());
            }
            ++cases;
            if (std::memcmp(dst.data(), ref.data(), out) != 0) {
                std::printf("MISMATCH after %ld cases: %s (%s)\n", cases, describe(c).c_str(), jpd.kernel_name().c_str());
                return 1;
            }
        } catch (const error &e) {
            // A drawn runtime sizes tensor or scale may be one the op rejects; the rejection
            // must name the field, which the shape tests check. Count it and draw again.
            ++rejected;
            if (std::strlen(e.what()) == 0) {
                std::printf("an error without a message: %s\n", describe(c).c_str());
                return 1;
            }
        }
    }
    std::printf("xinterp_soak: seed %llu, %.0f s, %ld cases on %s, 1-%d threads, 0 mismatches (%ld descriptors rejected)\n",
                static_cast<unsigned long long>(seed), seconds, cases, isa.c_str(), max_threads, rejected);
    return cases > 0 ? 0 : 1;
}
