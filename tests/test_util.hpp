// Shared test helpers: guard-paged buffers, random data per dtype, problem builders.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "guarded_buffer.hpp"
#include "xinterp/xinterp.hpp"

namespace xt {

inline uint32_t fbits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bitsf(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Independent of the library's conversions (these are the tests' own).
inline double widen(xinterp::data_type dt, const uint8_t *p, size_t i) {
    if (dt == xinterp::data_type::f32) { float f; std::memcpy(&f, p + 4 * i, 4); return f; }
    uint16_t h; std::memcpy(&h, p + 2 * i, 2);
    if (dt == xinterp::data_type::bf16) return bitsf(static_cast<uint32_t>(h) << 16);
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 0) return s * std::ldexp(m, -24);
    if (e == 31) return m ? NAN : s * INFINITY;
    return s * std::ldexp(1024 + m, e - 25);
}

// Finite random values in [-range, range], in the dtype's encoding.
inline void fill_random(xinterp::data_type dt, uint8_t *p, size_t n, uint32_t seed, float range = 4.f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-range, range);
    for (size_t i = 0; i < n; ++i) {
        const float f = u(rng);
        if (dt == xinterp::data_type::f32) {
            std::memcpy(p + 4 * i, &f, 4);
        } else if (dt == xinterp::data_type::bf16) {
            const uint16_t h = static_cast<uint16_t>(fbits(f) >> 16);  // truncation: any bf16 is fine
            std::memcpy(p + 2 * i, &h, 2);
        } else {
            // a random finite f16 (exponent < 31), sign and magnitude limited by range ~ 4
            uint16_t h = static_cast<uint16_t>(rng() & 0x83ff) | static_cast<uint16_t>((rng() % 17) << 10);
            std::memcpy(p + 2 * i, &h, 2);
        }
    }
}

inline size_t esize(xinterp::data_type dt) { return dt == xinterp::data_type::f32 ? 4 : 2; }

// A problem builder in the XNNPACK tester style.
struct problem_builder {
    xinterp::op_desc d;
    problem_builder() { d.sizes = std::vector<int64_t>{}; }
    problem_builder &src(std::vector<int64_t> v) { d.src_dims = std::move(v); return *this; }
    problem_builder &sizes(std::vector<int64_t> v) { d.sizes = std::move(v); d.scales.reset(); return *this; }
    problem_builder &scales(std::vector<float> v) { d.scales = std::move(v); d.sizes.reset(); return *this; }
    problem_builder &dt(xinterp::data_type v) { d.dt = v; return *this; }
    problem_builder &mode(xinterp::mode v) { d.mode = v; return *this; }
    problem_builder &ctm(xinterp::coordinate_transformation_mode v) { d.coordinate_transformation = v; return *this; }
    problem_builder &fmt(xinterp::data_format v) { d.format = v; return *this; }
    operator const xinterp::op_desc &() const { return d; }
};

// XINTERP_TEST_FLAVOR=TIER[/BITS] (ctest's runs at each tier and width the host has,
// tests/CMakeLists.txt): caps the dispatcher at TIER and, for an AVX-512 TIER, picks its width
// (cpu_isa_hints prefer_ymm for 256, prefer_zmm for 512), before any test or static in a file
// that includes this header. One variable because ctest's gtest discovery cannot pass two.
inline const bool kTestFlavorApplied = [] {
    const char *f = std::getenv("XINTERP_TEST_FLAVOR");
    if (!f || !*f) return false;
    const std::string s(f);
    const size_t slash = s.find('/');
    xinterp::set_max_cpu_isa(xinterp::cpu_isa_from_name(s.substr(0, slash)));
    if (slash != std::string::npos)
        xinterp::set_cpu_isa_hints(s.substr(slash + 1) == "256" ? xinterp::cpu_isa_hints::prefer_ymm : xinterp::cpu_isa_hints::prefer_zmm);
    return true;
}();

// Why the JIT tests cannot run as asked, or "" if they can. Without AVX2 there is no JIT tier
// at all; under XINTERP_TEST_FLAVOR the dispatcher must pick exactly that tier and width (a cap
// at a tier the host lacks would silently run a lower one, and pass under the wrong name).
inline std::string jit_tier_unavailable() {
    using xinterp::cpu_isa;
    const cpu_isa got = xinterp::get_effective_cpu_isa();
    const int bits = xinterp::get_effective_vector_bits();
    if (got == cpu_isa::none) return "no JIT tier runs here (host lacks AVX2+FMA+F16C, or XINTERP_MAX_CPU_ISA=none)";
    const char *f = std::getenv("XINTERP_TEST_FLAVOR");
    if (!f || !*f) return "";
    const std::string want(f), have = std::string(xinterp::cpu_isa_name(got)) + "/" + std::to_string(bits);
    if (want == have || want == xinterp::cpu_isa_name(got)) return "";
    return "XINTERP_TEST_FLAVOR=" + want + " but this host runs " + have + " there";
}

// Expects `fn` to throw xinterp::error with status `st` and a message containing `frag`.
template <typename F>
void expect_error(F &&fn, xinterp::status st, const std::string &frag) {
    try {
        fn();
        ADD_FAILURE() << "expected an error containing '" << frag << "'";
    } catch (const xinterp::error &e) {
        EXPECT_EQ(e.get_status(), st) << e.what();
        EXPECT_NE(std::string(e.what()).find(frag), std::string::npos) << "message: " << e.what() << "\nwanted: " << frag;
    }
}

}  // namespace xt
