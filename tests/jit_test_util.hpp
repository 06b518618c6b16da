// The helpers the test_jit*.cpp suites share: the bitwise check of one problem against the
// reference (guard pages, specials), the sweeps over modes, transforms, layouts and dtypes, and
// the scoped settings (threads, gather spelling, NT threshold) a test changes and puts back.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <tuple>

#include "../jit/jit_conf.hpp"
#include "../jit/jit_tables.hpp"
#include "../src/jit_kernel_base.hpp"
#include "cpu_isa.hpp"
#include "dump.hpp"
#include "emu/bochs_f16.hpp"
#include "test_util.hpp"

namespace xinterp {
namespace jt {

using xt::problem_builder;

// The dispatched kernels' simd_w in f32 lanes (8 at 256 bits, 16 at 512): the tile boundaries
// the sweeps below put C and W around. (After xt::kTestFlavorApplied, from test_util.hpp.)
inline const int W = get_effective_vector_bits() == 512 ? 16 : 8;
inline const std::vector<data_type> kTypes = {data_type::f32, data_type::bf16, data_type::f16};
inline const std::vector<mode> kModes = {mode::nearest, mode::linear};
inline const std::vector<coordinate_transformation_mode> kCtms = {coordinate_transformation_mode::half_pixel,
                                                                  coordinate_transformation_mode::align_corners};
inline const std::vector<data_format> kFmts = {data_format::ncx, data_format::nxc};

// Whether these tests run in the emulator lane (tests/emu/lane.sh sets this variable in the
// guest only): there zmm code runs ~1000x slower, so the tests with outputs of megabytes check
// a subset, sized to the lane's per-group budget (scripts/test.sh).
inline bool emulated() { return std::getenv("XINTERP_TEST_BOCHS_F16_TIES") != nullptr; }

// Skips, saying why, where no JIT tier runs, or not the tier and width XINTERP_TEST_FLAVOR names.
#define REQUIRE_AVX2()                                                     \
    if (const std::string why = xt::jit_tier_unavailable(); !why.empty()) GTEST_SKIP() << why

// Bit patterns: values where the reference and the JIT may legally differ only in NaN payload.
inline bool same_or_both_nan(data_type dt, const uint8_t *a, const uint8_t *b) {
    if (dt == data_type::f32) {
        float x, y;
        std::memcpy(&x, a, 4);
        std::memcpy(&y, b, 4);
        return std::memcmp(a, b, 4) == 0 || (std::isnan(x) && std::isnan(y));
    }
    uint16_t x, y;
    std::memcpy(&x, a, 2);
    std::memcpy(&y, b, 2);
    const uint16_t em = dt == data_type::bf16 ? 0x7f80 : 0x7c00, mm = dt == data_type::bf16 ? 0x7f : 0x3ff;
    auto nan = [&](uint16_t v) { return (v & em) == em && (v & mm); };
    return x == y || (nan(x) && nan(y));
}

// Runs one problem through the JIT (guard-paged, chosen edge) and the reference; returns the
// number of differing elements. Fails the test if the JIT tier was not used.
inline int64_t check_case(const op_desc &d, uint32_t seed, bool guard_at_end, bool specials = false) {
    primitive_desc jpd(d), rpd(d, impl_kind::reference);
    EXPECT_EQ(jpd.impl_name().rfind("jit:", 0), 0u) << "the sweep must exercise generated code, not " << jpd.impl_name();
    const size_t es = xt::esize(d.dt);
    xt::guarded_buffer src(jpd.src_bytes(), guard_at_end), dst(jpd.dst_bytes(), guard_at_end);
    std::vector<uint8_t> ref(rpd.dst_bytes());
    xt::fill_random(d.dt, src.data(), src.size() / es, seed);
    if (specials) {  // sprinkle NaN, inf, -0 and subnormals
        const uint32_t f32s[] = {0x7fc00001, 0x7f800001, 0x7f800000, 0xff800000, 0x80000000, 0x00000001, 0x807fffff};
        const uint16_t h16s[] = {0x7e01, 0x7c01, 0x7c00, 0xfc00, 0x8000, 0x0001, 0x83ff, 0x7fc1, 0x7f81, 0x7f80, 0x0040};
        std::mt19937 rng(seed);
        for (size_t i = 0; i < src.size() / es; i += 1 + rng() % 5) {
            if (es == 4) std::memcpy(src.data() + 4 * i, &f32s[rng() % 7], 4);
            else std::memcpy(src.data() + 2 * i, &h16s[rng() % 11], 2);
        }
    }
    std::memset(dst.data(), 0xCD, dst.size());
    primitive(jpd).execute(src.data(), dst.data());
    primitive(rpd).execute(src.data(), ref.data());
    // Only in the emulator lane (tests/emu/lane.sh): accept Bochs 2.7's f16 tie bug, classified
    // rigorously (emu/bochs_f16.hpp). Never set on real hardware.
    static const bool bochs = emulated();
    std::vector<float> exact;
    if (bochs && d.dt == data_type::f16 && d.mode != mode::nearest) exact = xt::exact_f32_of_f16(d, src.data());
    int64_t bad = 0;
    for (size_t i = 0; i < ref.size() / es; ++i) {
        bool ok = specials && d.mode != mode::nearest ? same_or_both_nan(d.dt, dst.data() + i * es, ref.data() + i * es)
                                                     : std::memcmp(dst.data() + i * es, ref.data() + i * es, es) == 0;
        if (!ok && !exact.empty()) {
            uint16_t got, want;
            std::memcpy(&got, dst.data() + i * es, 2);
            std::memcpy(&want, ref.data() + i * es, 2);
            ok = xt::bochs_f16_tie(exact[i], got, want);
        }
        if (!ok && bad++ < 3) ADD_FAILURE() << "element " << i << " differs";
    }
    return bad;
}

// Puts back the OpenMP thread count and the gather spelling (and clears the cache, whose key
// has no spelling) when a test that changes them ends, a failed assertion included.
struct threads_and_spelling_restore {
    int threads = omp_get_max_threads();
    ~threads_and_spelling_restore() {
        omp_set_num_threads(threads);
        set_gather_spelling_for_testing(-1);
        clear_cache();
    }
};

// body(spelling, threads) under both gather spellings (the cache cleared for each) at 1 and
// 2 threads; the caller holds a threads_and_spelling_restore.
inline void for_spellings_and_threads(const std::function<void(int, int)> &body) {
    for (int spelling : {0, 1}) {
        set_gather_spelling_for_testing(spelling);
        clear_cache();
        for (int threads : {1, 2}) {
            omp_set_num_threads(threads);
            body(spelling, threads);
        }
    }
}

inline std::vector<int64_t> layout(data_format f, int64_t n, int64_t c, const std::vector<int64_t> &sp) {
    std::vector<int64_t> v{n};
    if (f == data_format::ncx) v.push_back(c);
    v.insert(v.end(), sp.begin(), sp.end());
    if (f == data_format::nxc) v.push_back(c);
    return v;
}

inline std::string describe(const op_desc &d) {
    std::string s = std::string(to_string(d.mode)) + " " + to_string(d.coordinate_transformation) + " " +
                    to_string(d.format) + " " + to_string(d.dt) + " ";
    for (auto x : d.src_dims) s += std::to_string(x) + ",";
    s += "->";
    for (auto x : *d.sizes) s += std::to_string(x) + ",";
    return s;
}

// Sweeps every mode x transform x layout x dtype over the given spatial cases and channels.
inline void sweep(const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> &cases,
                  const std::vector<int64_t> &channels, int64_t n = 1) {
    uint32_t seed = 1;
    for (const auto &cs : cases)
        for (int64_t c : channels)
            for (auto f : kFmts)
                for (auto m : kModes)
                    for (auto ct : kCtms)
                        for (auto t : kTypes) {
                            const auto d = problem_builder().src(layout(f, n, c, cs.first)).sizes(cs.second).fmt(f).mode(m).ctm(ct).dt(t);
                            ++seed;
                            ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d);
                        }
}

// Sets the NT threshold (4 MiB unless given; the default is half the host's LLC) for a scope,
// with the cache cleared around it: the threshold is not in the cache key.
// more: the threshold on more than one thread (0: the same).
struct nt_threshold {
    explicit nt_threshold(size_t bytes = size_t(4) << 20, size_t more = 0) { set(bytes, more); }
    ~nt_threshold() { set(0); }
    static void set(size_t b, size_t more = 0) {
        set_nt_min_bytes_for_testing(b, more);
        clear_cache();
    }
};

// The instructions of part `part` in a dump_asm text ("" if it has none).
inline std::string part_asm(const std::string &code, const std::string &part) {
    const std::string head = "; part " + part + ":";
    const size_t at = code.find(head);
    if (at == std::string::npos) return "";
    const size_t end = code.find("; part ", at + head.size());
    return code.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The lines of an asm text that store plainly (a vmov* but vmovnt* whose first operand is
// memory), joined; "" if none.
inline std::string plain_vector_stores(const std::string &text) {
    std::string out, line;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i < text.size() && text[i] != '\n') {
            line += text[i];
            continue;
        }
        const size_t v = line.find(" vmov");
        if (v != std::string::npos && line.compare(v, 7, " vmovnt") != 0) {
            const std::string first = line.substr(v, line.find(',', v) - v);  // "[..." or "zmmword ptr [..."
            if (first.find('[') != std::string::npos) out += line + "\n";
        }
        line.clear();
    }
    return out;
}

// Runs body(nt_bytes, threads) with no NT stores (nt_bytes 0: the default threshold, which
// these small shapes stay under) and with NT for every dst (1), each at 1 and 2 threads; the
// caller's thread count comes back after. A fatal failure in body (an ASSERT, which returns
// from body only) ends the runs.
inline void for_nt_and_threads(const std::function<void(size_t, int)> &body) {
    const int saved = omp_get_max_threads();
    for (size_t nt_bytes : {size_t(0), size_t(1)}) {
        nt_threshold nt(nt_bytes);
        for (int threads : {1, 2}) {
            omp_set_num_threads(threads);
            body(nt_bytes, threads);
            if (::testing::Test::HasFatalFailure()) break;
        }
        if (::testing::Test::HasFatalFailure()) break;
    }
    omp_set_num_threads(saved);
}

// The same with 3 threads too: body(nt_bytes, threads) for 1, 2 and 3 threads per NT setting.
inline void for_nt_and_1_to_3_threads(const std::function<void(size_t, int)> &body) {
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (int t = threads; t <= (threads == 1 ? 1 : 3) && !::testing::Test::HasFatalFailure(); ++t) {
            omp_set_num_threads(t);
            body(nt_bytes, t);
        }
    });
}

}  // namespace jt
}  // namespace xinterp
