// Every JIT kernel is bitwise equal to the scalar reference (semantics.md), at every tile
// boundary, with buffers fenced by PROT_NONE pages, at 1 and 2 threads.
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

using namespace xinterp;
using xt::problem_builder;

namespace {

// The dispatched kernels' simd_w in f32 lanes (8 at 256 bits, 16 at 512): the tile boundaries
// the sweeps below put C and W around. (After xt::kTestFlavorApplied, from test_util.hpp.)
const int W = get_effective_vector_bits() == 512 ? 16 : 8;
const std::vector<data_type> kTypes = {data_type::f32, data_type::bf16, data_type::f16};
const std::vector<mode> kModes = {mode::nearest, mode::linear};
const std::vector<coordinate_transformation_mode> kCtms = {coordinate_transformation_mode::half_pixel,
                                                           coordinate_transformation_mode::align_corners};
const std::vector<data_format> kFmts = {data_format::ncx, data_format::nxc};

// Whether these tests run in the emulator lane (tests/emu/lane.sh sets this variable in the
// guest only): there zmm code runs ~1000x slower, so the tests with outputs of megabytes check
// a subset, sized to the lane's per-group budget (scripts/test.sh).
bool emulated() { return std::getenv("XINTERP_TEST_BOCHS_F16_TIES") != nullptr; }

// Skips, saying why, where no JIT tier runs, or not the tier and width XINTERP_TEST_FLAVOR names.
#define REQUIRE_AVX2()                                                     \
    if (const std::string why = xt::jit_tier_unavailable(); !why.empty()) GTEST_SKIP() << why

// Bit patterns: values where the reference and the JIT may legally differ only in NaN payload.
bool same_or_both_nan(data_type dt, const uint8_t *a, const uint8_t *b) {
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
int64_t check_case(const op_desc &d, uint32_t seed, bool guard_at_end, bool specials = false) {
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
void for_spellings_and_threads(const std::function<void(int, int)> &body) {
    for (int spelling : {0, 1}) {
        set_gather_spelling_for_testing(spelling);
        clear_cache();
        for (int threads : {1, 2}) {
            omp_set_num_threads(threads);
            body(spelling, threads);
        }
    }
}

std::vector<int64_t> layout(data_format f, int64_t n, int64_t c, const std::vector<int64_t> &sp) {
    std::vector<int64_t> v{n};
    if (f == data_format::ncx) v.push_back(c);
    v.insert(v.end(), sp.begin(), sp.end());
    if (f == data_format::nxc) v.push_back(c);
    return v;
}

std::string describe(const op_desc &d) {
    std::string s = std::string(to_string(d.mode)) + " " + to_string(d.coordinate_transformation) + " " +
                    to_string(d.format) + " " + to_string(d.dt) + " ";
    for (auto x : d.src_dims) s += std::to_string(x) + ",";
    s += "->";
    for (auto x : *d.sizes) s += std::to_string(x) + ",";
    return s;
}

// Sweeps every mode x transform x layout x dtype over the given spatial cases and channels.
void sweep(const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> &cases,
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

}  // namespace

// C (NXC vector loop) and W (NCX vector loop, 16-bit gathers up to the row end) at simd_w-1, simd_w,
// simd_w+1 and 3*simd_w+5, in and out.
TEST(jit_bitwise, tails_1d) {
    REQUIRE_AVX2();
    const std::vector<int64_t> widths{1, W - 1, W, W + 1, 3 * W + 5};
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases;
    for (int64_t i : widths)
        for (int64_t o : widths) cases.push_back({{i}, {o}});
    sweep(cases, {1, W - 1, W, W + 1, 3 * W + 5});
}

TEST(jit_bitwise, ratios_2d) {
    REQUIRE_AVX2();
    sweep({{{1, 1}, {1, 1}},      // 1x1
           {{1, 1}, {5, 5}},      // 1x1 broadcast
           {{6, 10}, {6, 10}},    // identity
           {{5, 7}, {10, 14}},    // 2x up
           {{5, 7}, {15, 21}},    // 3x up
           {{14, 16}, {7, 8}},    // 2x down
           {{21, 35}, {3, 5}},    // 7x down
           {{2, 525}, {3, 5}},    // 525 -> 5
           {{525, 2}, {5, 3}},
           {{15, 15}, {73, 73}},  // 15 -> 73
           {{4, 9}, {9, 4}}},
          {3, W, 2 * W + 1});
}

TEST(jit_bitwise, odd_3d) {
    REQUIRE_AVX2();
    // {3, 9, 5} -> {5, 3, 7} and {4, 21, 6} -> {3, 4, 11} downsample H: the fused H step.
    // {19, 3, 8} -> {2, 2, 30}: D downsampled, NXC f32 direct and 16-bit over W-planes.
    sweep({{{3, 5, 7}, {5, 3, 9}}, {{1, 1, 1}, {2, 3, 4}}, {{7, 3, 5}, {2, 9, 4}}, {{2, 2, 2}, {2, 2, 2}}, {{5, 1, 3}, {1, 4, 17}},
           {{3, 9, 5}, {5, 3, 7}}, {{4, 21, 6}, {3, 4, 11}}, {{19, 3, 8}, {2, 2, 30}}},
          {1, W + 1}, 2);
}

TEST(jit_bitwise, special_values) {
    REQUIRE_AVX2();
    uint32_t seed = 77;
    for (int k = 1; k <= 3; ++k)
        for (auto f : kFmts)
            for (auto m : kModes)
                for (auto t : kTypes) {
                    // up; down (fused H); 8x up with rows of 5 vectors (bf16 blends round in pairs)
                    for (auto io : {std::pair<int64_t, int64_t>{5, 7}, {19, 4}, {5, k < 3 ? 40 : 21}}) {
                        const std::vector<int64_t> in(k, io.first), out(k, io.second);
                        const auto d = problem_builder().src(layout(f, 1, 11, in)).sizes(out).fmt(f).mode(m).dt(t);
                        ASSERT_EQ(check_case(d, ++seed, true, true), 0) << describe(d);
                    }
                }
}

// The thread split never changes a bit: large problems (parallel path) at 1 and 2 threads.
TEST(jit_bitwise, threads_1_and_2) {
    REQUIRE_AVX2();
    const int saved = omp_get_max_threads();
    for (int threads : {1, 2}) {
        omp_set_num_threads(threads);
        for (auto f : kFmts)
            for (auto m : kModes)
                for (auto t : kTypes) {
                    const auto d2 = problem_builder().src(layout(f, 2, 19, {37, 45})).sizes({80, 61}).fmt(f).mode(m).dt(t);
                    ASSERT_EQ(check_case(d2, 5, true), 0) << describe(d2) << " threads=" << threads;
                    const auto d3 = problem_builder().src(layout(f, 1, 9, {9, 17, 23})).sizes({13, 31, 40}).fmt(f).mode(m).dt(t);
                    ASSERT_EQ(check_case(d3, 6, false), 0) << describe(d3) << " threads=" << threads;
                    // 3 planes x 101 rows: the 2-thread split falls inside a plane (plane mode)
                    const auto dp = problem_builder().src(layout(f, 1, 3, {37, 45})).sizes({101, 161}).fmt(f).mode(m).dt(t);
                    ASSERT_EQ(check_case(dp, 7, true), 0) << describe(dp) << " threads=" << threads;
                    // H 161 -> 40 (fused, plane mode): the split falls inside plane 1
                    const auto df = problem_builder().src(layout(f, 1, 3, {161, 45})).sizes({40, 61}).fmt(f).mode(m).dt(t);
                    ASSERT_EQ(check_case(df, 8, false), 0) << describe(df) << " threads=" << threads;
                    // fused 3-D with H-planes: the split falls inside an (plane, od) run; all
                    // five H-planes of a plane in scratch (hvol), and nine, two at a time
                    const auto dh = problem_builder().src(layout(f, 1, 3, {5, 161, 45})).sizes({9, 41, 61}).fmt(f).mode(m).dt(t);
                    ASSERT_EQ(check_case(dh, 9, true), 0) << describe(dh) << " threads=" << threads;
                    const auto dl = problem_builder().src(layout(f, 1, 3, {9, 161, 45})).sizes({5, 41, 61}).fmt(f).mode(m).dt(t);
                    ASSERT_EQ(check_case(dl, 10, false), 0) << describe(dl) << " threads=" << threads;
                }
    }
    omp_set_num_threads(saved);
}

// Buffers that start at odd addresses (1, 2, 4, 8 bytes past alignment) right after a guard.
TEST(jit_bitwise, misaligned_buffers) {
    REQUIRE_AVX2();
    for (size_t mis : {1, 2, 4, 8})
        for (auto f : kFmts)
            for (auto m : kModes)
                for (auto t : kTypes) {
                    const auto d = problem_builder().src(layout(f, 1, 13, {6, 11})).sizes({9, 17}).fmt(f).mode(m).dt(t);
                    primitive_desc jpd(d), rpd(d, impl_kind::reference);
                    xt::guarded_buffer src(jpd.src_bytes(), false, mis), dst(jpd.dst_bytes(), false, mis);
                    std::vector<uint8_t> ref(rpd.dst_bytes());
                    xt::fill_random(t, src.data(), src.size() / xt::esize(t), 3);
                    primitive(jpd).execute(src.data(), dst.data());
                    primitive(rpd).execute(src.data(), ref.data());
                    ASSERT_EQ(std::memcmp(dst.data(), ref.data(), ref.size()), 0) << describe(d) << " misalign=" << mis;
                }
}

// Kernels never depend on the caller's MXCSR (rounding mode, FTZ, DAZ). The bf16 cases
// upsample, so their clean-src rounding (Veltkamp's split, FP ops) runs: under round toward
// zero it would truncate.
TEST(jit_bitwise, independent_of_caller_mxcsr) {
    REQUIRE_AVX2();
    auto bf16_up = [](std::vector<int64_t> src, data_format f) {
        return problem_builder().src(std::move(src)).sizes({18, 22}).fmt(f).mode(mode::linear).dt(data_type::bf16);
    };
    for (const auto &d : {problem_builder().src({1, 7, 9, 12}).sizes({13, 5}).mode(mode::linear).dt(data_type::f16),
                          bf16_up({1, 3, 9, 11}, data_format::ncx), bf16_up({1, 9, 11, 16}, data_format::nxc)}) {
        primitive_desc pd(d);
        std::vector<uint8_t> src(pd.src_bytes()), a(pd.dst_bytes()), b(pd.dst_bytes());
        xt::fill_random(d.d.dt, src.data(), src.size() / 2, 8);
        primitive p(pd);
        p.execute(src.data(), a.data());
        uint32_t saved, odd = 0x1f80 | 0x6000 | 0x8040;  // round toward zero, FTZ, DAZ
        __asm__ volatile("stmxcsr %0" : "=m"(saved));
        __asm__ volatile("ldmxcsr %0" : : "m"(odd));
        p.execute(src.data(), b.data());
        uint32_t after;
        __asm__ volatile("stmxcsr %0" : "=m"(after));
        __asm__ volatile("ldmxcsr %0" : : "m"(saved));
        EXPECT_EQ(after, odd) << "the caller's MXCSR is restored";
        EXPECT_EQ(a, b) << ::testing::PrintToString(d.d.src_dims);
    }
}

TEST(jit_bitwise, runtime_sizes_change_the_kernel) {
    REQUIRE_AVX2();
    const auto d = problem_builder().src({1, 9, 3, 8}).sizes({4, 4}).fmt(data_format::ncx).mode(mode::linear);
    primitive_desc pd(d);
    primitive p(pd);
    const int32_t rs[2] = {17, 5};
    ASSERT_EQ(pd.dst_dims_for(rs, 2), (std::vector<int64_t>{1, 9, 17, 5}));
    std::vector<float> src(pd.src_bytes() / 4), dst(pd.dst_bytes_for(rs, 2) / 4), ref(dst.size());
    xt::fill_random(data_type::f32, reinterpret_cast<uint8_t *>(src.data()), src.size(), 4);
    p.execute(src.data(), rs, 2, dst.data());
    const auto rd = problem_builder().src({1, 9, 3, 8}).sizes({17, 5}).fmt(data_format::ncx).mode(mode::linear);
    primitive_desc rpd(rd, impl_kind::reference);
    primitive(rpd).execute(src.data(), ref.data());
    EXPECT_EQ(std::memcmp(dst.data(), ref.data(), ref.size() * 4), 0);
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
std::string part_asm(const std::string &code, const std::string &part) {
    const std::string head = "; part " + part + ":";
    const size_t at = code.find(head);
    if (at == std::string::npos) return "";
    const size_t end = code.find("; part ", at + head.size());
    return code.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The lines of an asm text that store plainly (a vmov* but vmovnt* whose first operand is
// memory), joined; "" if none.
std::string plain_vector_stores(const std::string &text) {
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
void for_nt_and_threads(const std::function<void(size_t, int)> &body) {
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
void for_nt_and_1_to_3_threads(const std::function<void(size_t, int)> &body) {
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (int t = threads; t <= (threads == 1 ? 1 : 3) && !::testing::Test::HasFatalFailure(); ++t) {
            omp_set_num_threads(t);
            body(nt_bytes, t);
        }
    });
}

// dst >= the NT threshold with store-aligned shapes takes the non-temporal variant (for a
// 32-byte-aligned dst) and must still match the reference bit for bit; an unaligned dst takes
// the other one. NXC linear C = 16 runs separably at bf16 (the blends' NT variant).
TEST(jit_bitwise, non_temporal_stores_for_large_outputs) {
    REQUIRE_AVX2();
    nt_threshold nt;
    for (auto f : kFmts)
        for (auto m : kModes)
            for (auto t : {data_type::f32, data_type::bf16}) {
                // NXC: C = 16 keeps every pixel's vectors aligned; NCX: OW = 512.
                const auto d = f == data_format::nxc
                                   ? problem_builder().src({1, 37, 41, 16}).sizes({291, 453}).fmt(f).mode(m).dt(t)
                                   : problem_builder().src({1, 3, 101, 173}).sizes({1401, 512}).fmt(f).mode(m).dt(t);
                primitive_desc pd(d);
                ASSERT_GE(pd.dst_bytes(), size_t(4) << 20) << describe(d);
                for (bool aligned : {true, false}) {
                    // guarded_buffer puts the tensor's end at the guard page: dst bytes are a
                    // multiple of 32, so the start is 32-byte aligned unless we shift it by 2.
                    xt::guarded_buffer dst(pd.dst_bytes(), aligned, aligned ? 0 : 2);
                    ASSERT_EQ(reinterpret_cast<uintptr_t>(dst.data()) % 32 == 0, aligned);
                    ASSERT_EQ(check_case(d, 11, true), 0) << describe(d);
                    std::vector<uint8_t> src(pd.src_bytes()), ref(pd.dst_bytes());
                    xt::fill_random(t, src.data(), src.size() / xt::esize(t), 12);
                    primitive(pd).execute(src.data(), dst.data());
                    primitive(primitive_desc(d, impl_kind::reference)).execute(src.data(), ref.data());
                    ASSERT_EQ(std::memcmp(dst.data(), ref.data(), ref.size()), 0) << describe(d) << " aligned=" << aligned;
                }
            }
}

// Nearest with NT-sized dst. NXC pixels of whole vectors take the NT row kernel; others (f32
// C = 21, and bf16 C = 24, whose 48-byte pixels once met an aligned NT store at a 16-byte
// boundary and faulted) stream each row from scratch where H upsampling (>= 2x) repeats rows,
// as do NCX rows of OW % simd_w != 0; H downsampling keeps plain stores. Rows of 72 bytes (the copy's shortest
// kind: head, one aligned vector, overlapping tail), repeated rows (H up), rows that never
// repeat (H down), at 1 and 2 threads; the guard pages catch a byte written outside dst.
TEST(jit_bitwise, non_temporal_nxc_nearest_row_stream) {
    REQUIRE_AVX2();
    nt_threshold nt(1);  // every dst counts as large
    const int saved = omp_get_max_threads();
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
        {{5, 7}, {300, 2}}, {{37, 41}, {97, 53}}, {{161, 45}, {40, 61}}, {{3, 5, 7}, {7, 9, 13}}};
    uint32_t seed = 40;
    for (int threads : {1, 2}) {
        omp_set_num_threads(threads);
        for (const auto &cs : cases)
            for (int64_t c : {9, 21, 24, 32})
                for (auto t : kTypes)
                    for (auto ct : kCtms) {
                        const auto d = problem_builder().src(layout(data_format::nxc, 1, c, cs.first)).sizes(cs.second).mode(mode::nearest).ctm(ct).dt(t);
                        const jit_conf cf = make_jit_conf(make_problem(d), cpu_isa::avx2);
                        const bool whole = c * static_cast<int64_t>(xt::esize(t)) % 32 == 0;
                        EXPECT_EQ(cf.nt_eligible, whole) << describe(d);
                        const int64_t row = cs.second.back() * c * static_cast<int64_t>(xt::esize(t));
                        const bool up = cs.second[cs.second.size() - 2] >= 2 * cs.first[cs.first.size() - 2];
                        EXPECT_EQ(cf.nt_stream, !whole && row >= 64 && up) << describe(d);  // 36-byte rows: plain stores
                        ++seed;
                        ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads;
                    }
    }
    // Per-row nearest on the pass engine: NCX rows of OW % simd_w != 0 (over 512 bytes, so not
    // plane mode), and NXC with C < simd_w (flat rows of OW * C elements).
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> wide = {
        {{37, 41}, {97, 301}}, {{161, 45}, {40, 301}}, {{3, 4, 7}, {7, 9, 301}}};
    for (int threads : {1, 2}) {
        omp_set_num_threads(threads);
        for (const auto &cs : wide)
            for (auto f : kFmts)
                for (auto t : kTypes) {
                    const int64_t c = f == data_format::ncx ? 2 : 3;
                    const auto d = problem_builder().src(layout(f, 1, c, cs.first)).sizes(cs.second).fmt(f).mode(mode::nearest).dt(t);
                    const jit_conf cf = make_jit_conf(make_problem(d), cpu_isa::avx2);
                    const bool up = cs.second[cs.second.size() - 2] >= 2 * cs.first[cs.first.size() - 2];
                    EXPECT_TRUE(cf.pass_engine && !cf.plane_mode && !cf.nt_eligible) << describe(d);
                    EXPECT_EQ(cf.nt_stream, up) << describe(d);
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads;
                }
    }
    omp_set_num_threads(saved);
}

// Nearest rows that repeat the row before are copied from it by the generated row copy
// (jit_stream_copy with plain stores), not glibc's memcpy: rows under 64 bytes (head and tail
// moves only), rows of 4112 and 8208 bytes (16 past a multiple of 4096, where memcpy ran 25x
// slower), NXC pixels that are not whole vectors and NCX rows on the pass engine's row mode,
// H and D upsampling, all dtypes, 1 and 2 threads, guard pages on either edge.
TEST(jit_bitwise, nearest_row_copies) {
    REQUIRE_AVX2();
    const int saved = omp_get_max_threads();
    struct shape {
        data_format f;
        int64_t c;
        std::vector<int64_t> in, out;
    };
    const std::vector<shape> shapes = {
        {data_format::nxc, 9, {5, 1}, {17, 1}},          // 36-byte f32 rows
        {data_format::nxc, 54, {15, 38}, {38, 38}},      // 8208-byte f32 rows
        {data_format::nxc, 21, {3, 5, 7}, {7, 9, 7}},    // D and H up
        {data_format::ncx, 2, {30, 1028}, {90, 1028}},   // 4112-byte f32 rows, row mode
        {data_format::ncx, 2, {4, 9, 300}, {9, 20, 300}},
    };
    uint32_t seed = 1200;
    for (int threads : {1, 2}) {
        omp_set_num_threads(threads);
        for (const auto &sh : shapes)
            for (auto t : kTypes) {
                const auto d = problem_builder().src(layout(sh.f, 1, sh.c, sh.in)).sizes(sh.out).fmt(sh.f).mode(mode::nearest).dt(t);
                const auto k = create_kernel(make_problem(d), cpu_isa::avx2);
                bool copies = false;
                for (const auto &pt : k->parts()) copies |= pt.role == "row_copy";
                EXPECT_TRUE(copies) << describe(d) << ": no row copy part";
                ++seed;
                ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads;
            }
    }
    omp_set_num_threads(saved);
}

// NXC nearest with pixels of whole vectors: rows that share a src row come in pairs from the
// row-pair kernel (H up >= 2x; 3x leaves a single row per src row, regenerated), at 1 and 2
// threads (a split can fall between the rows of a pair); with NT stores rows go singly; pixels
// that are not whole vectors copy repeated rows instead.
TEST(jit_bitwise, nxc_nearest_row_pairs) {
    REQUIRE_AVX2();
    auto conf = [](const op_desc &d) { return make_jit_conf(make_problem(d), cpu_isa::avx2); };
    const auto up2 = problem_builder().src({1, 40, 40, 128}).sizes({80, 80}).mode(mode::nearest);
    EXPECT_TRUE(conf(up2).row_pairs && !conf(up2).copy_rows);
    const auto odd = problem_builder().src({1, 33, 33, 17}).sizes({65, 65}).mode(mode::nearest);
    EXPECT_TRUE(!conf(odd).row_pairs && conf(odd).copy_rows);
    const auto up15 = problem_builder().src({1, 40, 40, 16}).sizes({60, 60}).mode(mode::nearest);
    EXPECT_TRUE(!conf(up15).row_pairs && !conf(up15).copy_rows);
    uint32_t seed = 70;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (auto t : kTypes)
            for (int64_t c : {8, 16, 24})
                for (auto ct : kCtms)
                    for (const auto &cs : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
                             {{37, 41}, {74, 83}}, {{13, 20}, {39, 7}}, {{3, 5, 7}, {5, 12, 9}}}) {
                        const auto d = problem_builder().src(layout(data_format::nxc, 2, c, cs.first)).sizes(cs.second).mode(mode::nearest).ctm(ct).dt(t);
                        const bool whole = c * static_cast<int64_t>(xt::esize(t)) % 32 == 0;
                        EXPECT_EQ(conf(d).row_pairs, whole) << describe(d);  // NT executions: single rows
                        ++seed;
                        ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                    }
    });
}

// NCX nearest in plane mode with H upsampling: output rows that repeat a src row are made once
// and stored twice (jit_conf::nearest_row_pairs, the flag in bit 0 of the hrows offsets). The
// 2- and 3-thread splits of 1001 planes x 6 rows end a thread on a pair's first row and start
// the next on its second (both go singly); runs of 3 rows (3x) are a pair and a single. Tails
// at simd_w -/+ 1, 3-D, all dtypes and transforms, and the NT variant (OW 16), which ignores
// the flag. H downsampling has no pairs.
TEST(jit_bitwise, ncx_nearest_plane_row_pairs) {
    REQUIRE_AVX2();
    auto conf = [](const op_desc &d) { return make_jit_conf(make_problem(d), cpu_isa::avx2); };
    auto ncx = [](std::vector<int64_t> src, std::vector<int64_t> out) {
        return problem_builder().src(std::move(src)).sizes(std::move(out)).fmt(data_format::ncx).mode(mode::nearest);
    };
    EXPECT_TRUE(conf(ncx({1, 256, 32, 32}, {64, 64})).nearest_row_pairs);
    EXPECT_FALSE(conf(ncx({1, 3, 20, 16}, {7, 8})).nearest_row_pairs);   // H down
    EXPECT_TRUE(conf(ncx({1, 3, 20, 160}, {40, 512})).nearest_row_pairs);  // 2 KiB rows: row mode, dup kernel
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
        {{1, 1001, 3, 37}, {6, 83}}, {{1, 1001, 3, 8}, {6, 16}}, {{2, 3, 9, 8}, {27, 9}},
        {{1, 2, 5, 9}, {8, 7}},      {{1, 4, 3, 5, 16}, {5, 12, 15}}, {{1, 3, 20, 16}, {7, 8}}};
    uint32_t seed = 900;
    for_nt_and_1_to_3_threads([&](size_t nt_bytes, int threads) {
        for (auto t : kTypes)
            for (auto ct : kCtms)
                for (const auto &cs : cases) {
                    const auto d = ncx(cs.first, cs.second).ctm(ct).dt(t);
                    const jit_conf c = conf(d);
                    ASSERT_TRUE(c.plane_mode) << describe(d);
                    EXPECT_EQ(c.nearest_row_pairs, cs.second[cs.second.size() - 2] > cs.first[cs.first.size() - 2]) << describe(d);
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                }
    });
}

// AVX2 16-bit NCX nearest with windows makes output vectors two at a time (one ymm vpshufb
// over two records' windows, jit_ncx_wpass::nearest_word_pair): rows of 1 to 9 vectors (the
// pairs, the odd vector after them, four-vector trips), tails at simd_w -/+ 1, plane and row
// mode, row pairs (H up) and single rows (H down), and NT stores into rows of 16-byte
// multiples that are not 32-byte ones (OW 24, 264: each pair's halves stored apart), at 1 to
// 3 threads. The listing shows the path taken (vinserti128) where the conf has windows.
TEST(jit_bitwise, ncx_nearest_word_pairs) {
    REQUIRE_AVX2();
    struct cs_t {
        std::vector<int64_t> in, out;
    };
    const std::vector<cs_t> cases = {
        {{3, 5}, {7, 8}},     {{5, 9}, {11, 16}},    {{4, 13}, {9, 24}},   {{6, 20}, {3, 40}},
        {{7, 37}, {15, 56}},  {{2, 40}, {5, 72}},    {{3, 5}, {6, 7}},     {{3, 5}, {6, 9}},
        {{5, 11}, {9, 15}},   {{5, 11}, {9, 17}},    {{4, 20}, {8, 23}},   {{4, 20}, {8, 25}},
        {{3, 30}, {7, 33}},   {{9, 150}, {20, 264}}, {{5, 300}, {11, 520}}, {{3, 4, 9}, {5, 7, 24}},
        {{2, 16}, {2, 16}}};
    uint32_t seed = 2600;
    int64_t windowed = 0;
    for_nt_and_1_to_3_threads([&](size_t nt_bytes, int threads) {
        for (auto t : {data_type::bf16, data_type::f16})
            for (auto ct : kCtms)
                for (const auto &cs : cases) {
                    const auto d = problem_builder().src(layout(data_format::ncx, 1, 3, cs.in)).sizes(cs.out).fmt(data_format::ncx).mode(mode::nearest).ctm(ct).dt(t);
                    const jit_conf c = make_jit_conf(make_problem(d), cpu_isa::avx2);
                    ASSERT_TRUE(c.pass_engine) << describe(d);
                    if (nt_bytes == 0 && threads == 1) {
                        const bool pairs = disassemble(*create_kernel(make_problem(d), cpu_isa::avx2)).find("vinserti128") != std::string::npos;
                        EXPECT_EQ(pairs, c.window && c.ow_full >= 2) << describe(d);
                        windowed += pairs;
                    }
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                }
    });
    EXPECT_GT(windowed, 40);
}

// Nearest in row mode (rows past 512 bytes) with H upsampling: two output rows that repeat a
// src row come from one call of the dup kernel, which stores every vector to both (executions
// with plain stores; the NT variant and the NT stream copy go row by row). Runs of 2 and 3
// rows (224 -> 512: a pair, then a copy of the pair's second row), 8x (a pair and six
// copies), thread splits that end a range on a pair's first row (a row alone) and start the
// next on its second (made afresh: no row before it in the range), tails (OW 291), flat NXC
// rows, 3-D, all dtypes and transforms. Rows that are not whole vectors long (jit_conf::
// copy_aligned) are made once into scratch and copied to each row that repeats them instead:
// the cases cover both kinds at either width.
TEST(jit_bitwise, nearest_row_mode_pairs) {
    REQUIRE_AVX2();
    struct cs_t {
        data_format f;
        int64_t n, c;
        std::vector<int64_t> in, out;
    };
    const std::vector<cs_t> cases = {
        {data_format::ncx, 1, 3, {22, 150}, {51, 512}},   // 2.3x: runs of 2 and 3
        {data_format::ncx, 2, 3, {7, 200}, {56, 300}},    // 8x
        {data_format::ncx, 1, 5, {13, 160}, {27, 291}},   // OW 291: tails; 5 planes of 27 rows split
        {data_format::nxc, 1, 3, {22, 60}, {51, 173}},    // flat rows of 519
        {data_format::ncx, 1, 2, {3, 9, 140}, {5, 20, 300}},   // 3-D: pairs within each od
        {data_format::ncx, 1, 5, {13, 160}, {27, 288}},        // whole vectors: pairs at 512 bits too
        {data_format::nxc, 1, 4, {22, 60}, {51, 176}},         // flat rows of 704
        {data_format::ncx, 1, 2, {3, 9, 140}, {5, 7, 304}}};   // 3-D, D up only
    uint32_t seed = 1700;
    int64_t paired = 0;
    for_nt_and_1_to_3_threads([&](size_t nt_bytes, int threads) {
        for (auto t : kTypes)
            for (auto ct : kCtms)
                for (const auto &cs : cases) {
                    const auto d = problem_builder().src(layout(cs.f, cs.n, cs.c, cs.in)).sizes(cs.out).fmt(cs.f).mode(mode::nearest).ctm(ct).dt(t);
                    const jit_conf c = make_jit_conf(make_problem(d), cpu_isa::avx2);
                    ASSERT_TRUE(c.pass_engine && !c.plane_mode) << describe(d);
                    EXPECT_EQ(c.nearest_row_pairs, cs.out[cs.out.size() - 2] > cs.in[cs.in.size() - 2]) << describe(d);  // H up
                    EXPECT_EQ(c.copy_aligned, c.row_out % 8 != 0) << describe(d);
                    const jit_conf c512 = make_jit_conf(make_problem(d), kernel_isa(cpu_isa::avx512_core));
                    EXPECT_EQ(c512.copy_aligned, c512.row_out % 16 != 0) << describe(d);
                    paired += !c.nt_eligible;
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                }
    });
    EXPECT_GT(paired, 0);
}

// Direct NXC 2-D linear in row pairs: same-taps pairs (2x half_pixel: rows 2i + 1, 2i + 2) and
// chained pairs, with the single row the driver leaves between them, at 1 and 2 threads (a split
// can fall inside a pair) and with NT stores (C % 8 == 0).
TEST(jit_bitwise, nxc_linear_row_pairs) {
    REQUIRE_AVX2();
    auto conf = [](const op_desc &d) { return make_jit_conf(make_problem(d), cpu_isa::avx2); };
    const auto fpn = problem_builder().src({1, 32, 32, 256}).sizes({64, 64}).mode(mode::linear);
    EXPECT_TRUE(conf(fpn).same_pairs && conf(fpn).row_pairs);
    const auto up3 = problem_builder().src({1, 10, 10, 16}).sizes({30, 30}).mode(mode::linear);  // taps repeat 2 in 3
    EXPECT_TRUE(conf(up3).same_pairs);
    const auto down = problem_builder().src({1, 20, 20, 16}).sizes({10, 10}).mode(mode::linear);
    EXPECT_FALSE(conf(down).same_pairs || conf(down).row_pairs);
    uint32_t seed = 90;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (auto t : {data_type::f32, data_type::f16})
            for (int64_t c : {8, 13, 24})
                for (auto ct : kCtms)
                    for (const auto &cs : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
                             {{17, 9}, {34, 18}}, {{10, 7}, {30, 5}}, {{12, 5}, {18, 11}}, {{3, 4}, {7, 9}}}) {
                        const auto d = problem_builder().src(layout(data_format::nxc, 2, c, cs.first)).sizes(cs.second).mode(mode::linear).ctm(ct).dt(t);
                        ++seed;
                        ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                            << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                    }
    });
}

// Direct NXC 2-D linear in runs of two chained same-taps pairs (conf.same_run): rows oh .. oh + 3
// from src rows i .. i + 2. OH = 22 at 2x half_pixel: runs start at 1, 5, 9, 13, 17, so the
// 2-thread split at row 11 cuts the third, whose rows then go in pairs and singly; C with a
// tail (the overlapping last vector), C = simd_w, and a whole pair of vectors. With NT-sized
// dst the runs are off (plain-store kernel only).
TEST(jit_bitwise, nxc_linear_same_runs) {
    REQUIRE_AVX2();
    const auto fpn = problem_builder().src({1, 32, 32, 256}).sizes({64, 64}).mode(mode::linear);
    const problem pf = make_problem(fpn);
    const jit_conf cf = make_jit_conf(pf, cpu_isa::avx2);
    ASSERT_EQ(cf.same_run, 2);
    const jit_tables tf = make_jit_tables(pf, cf);
    for (int64_t oh = 0; oh < 64; ++oh)  // 1, 5, .., 57; rows 61, 62 are a lone pair
        EXPECT_EQ(tf.h_run_start[static_cast<size_t>(oh)], oh % 4 == 1 && oh <= 57) << oh;
    const auto ac = problem_builder().src({1, 32, 32, 256}).sizes({64, 64}).mode(mode::linear).ctm(kCtms[1]);
    const problem pa = make_problem(ac);
    const jit_tables ta = make_jit_tables(pa, make_jit_conf(pa, cpu_isa::avx2));
    EXPECT_EQ(std::count(ta.h_run_start.begin(), ta.h_run_start.end(), 1), 0);  // pair weights vary
    uint32_t seed = 140;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (auto t : {data_type::f32, data_type::f16})
            for (int64_t c : {8, 13, 16})
                for (const auto &cs : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
                         {{11, 9}, {22, 18}}, {{6, 3}, {12, 7}}}) {
                    const auto d = problem_builder().src(layout(data_format::nxc, 1, c, cs.first)).sizes(cs.second).mode(mode::linear).dt(t);
                    EXPECT_EQ(make_jit_conf(make_problem(d), cpu_isa::avx2).same_run, 2) << describe(d);
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                        << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                }
    });
}

// The run kernel's pixel pairs (conf.px_pairs; 16-bit at 512 bits, whole channel vectors):
// pixels that read the same W taps two at a time from one load of each tap. The conf: 2x
// half_pixel pairs pixels (1, 2) .. (OW - 3, OW - 2) with 0 and OW - 1 alone; IW = 1 pairs
// (0, 1); none in f32, at 256 bits, with a channel tail, or where under a quarter of the row
// pairs (9 -> 14). 16-bit pixels of whole 64-byte lines (C = 32, 160; native bf16, and f16
// two vectors a line) also get the NT run kernel (conf.run_nt), whose stores are all NT.
// Bitwise in f32, bf16 and f16 at 1 and 2 threads, with and without NT-sized dst, for C of
// one to ten vectors (unrolled pixels and the channel loop's trips and remainders; bf16 32
// channels at a time, C = 48 ending on a single vector), and the dispatched 512-bit
// kernel's 16-bit confs have the pairs.
TEST(jit_bitwise, nxc_run_pixel_pairs) {
    REQUIRE_AVX2();
    auto conf_of = [](const std::vector<int64_t> &in, const std::vector<int64_t> &out, int64_t c, data_type t, kernel_isa k) {
        return make_jit_conf(make_problem(problem_builder().src(layout(data_format::nxc, 1, c, in)).sizes(out).mode(mode::linear).dt(t)), k);
    };
    const kernel_isa core_512(cpu_isa::avx512_core), bf16_512(cpu_isa::avx512_core_bf16);
    const jit_conf fpn = conf_of({32, 32}, {64, 64}, 256, data_type::f16, core_512);
    EXPECT_EQ(fpn.same_run, 2);
    EXPECT_EQ(fpn.px_first, 1);
    EXPECT_EQ(fpn.px_pairs, 31);
    const jit_conf fpn_bf16 = conf_of({32, 32}, {64, 64}, 256, data_type::bf16, bf16_512);
    EXPECT_TRUE(!fpn_bf16.nxc_separable && fpn_bf16.px_first == 1 && fpn_bf16.px_pairs == 31);
    const jit_conf one = conf_of({5, 1}, {10, 2}, 32, data_type::f16, core_512);
    EXPECT_TRUE(one.px_first == 0 && one.px_pairs == 1);
    const jit_conf f32 = conf_of({32, 32}, {64, 64}, 256, data_type::f32, core_512);
    EXPECT_TRUE(f32.same_run == 2 && f32.px_pairs == 0) << "f32";
    EXPECT_EQ(conf_of({32, 32}, {64, 64}, 256, data_type::f16, cpu_isa::avx2).px_pairs, 0) << "256 bits";
    EXPECT_EQ(conf_of({6, 9}, {12, 18}, 40, data_type::f16, core_512).px_pairs, 0) << "a channel tail";
    EXPECT_EQ(conf_of({6, 9}, {12, 14}, 32, data_type::f16, core_512).px_pairs, 0) << "W 9 -> 14";
    {  // NT runs (conf.run_nt): whole 64-byte lines per pixel vector pair
        nt_threshold nt(1);
        EXPECT_TRUE(conf_of({6, 9}, {12, 18}, 32, data_type::bf16, bf16_512).run_nt);
        EXPECT_TRUE(conf_of({6, 9}, {12, 18}, 160, data_type::bf16, bf16_512).run_nt);
        EXPECT_FALSE(conf_of({6, 9}, {12, 18}, 48, data_type::bf16, bf16_512).run_nt) << "a single vector per pixel";
        EXPECT_TRUE(conf_of({6, 9}, {12, 18}, 32, data_type::f16, core_512).run_nt) << "f16: two vectors a line";
        EXPECT_FALSE(conf_of({6, 9}, {12, 18}, 48, data_type::f16, core_512).run_nt) << "f16: an odd vector";
        EXPECT_FALSE(conf_of({6, 9}, {12, 18}, 32, data_type::f32, core_512).run_nt);
        EXPECT_FALSE(conf_of({6, 9}, {12, 18}, 32, data_type::bf16, cpu_isa::avx512_core).run_nt) << "bf16 rounded in integer code";
    }
    EXPECT_FALSE(conf_of({6, 9}, {12, 18}, 32, data_type::bf16, bf16_512).run_nt) << "plain-sized dst";
    struct shape {
        std::vector<int64_t> in, out;
    };
    const std::vector<shape> shapes = {{{6, 9}, {12, 18}}, {{5, 1}, {10, 2}}, {{4, 7}, {8, 14}}};
    uint32_t seed = 3300;
    int saw = 0, saw_run_nt = 0;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (const shape &sh : shapes)
            for (data_type t : kTypes)
                for (int64_t c : {16, 32, 48, 80, 160}) {
                    if (t == data_type::bf16 && c < 32) continue;  // separable there
                    if (emulated() && (threads > 1 || nt_bytes || c > 80)) continue;
                    const auto d = problem_builder().src(layout(data_format::nxc, 1, c, sh.in)).sizes(sh.out).mode(mode::linear).dt(t);
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                        << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                    if (get_effective_vector_bits() != 512) continue;
                    const kernel_isa k = t == data_type::bf16 && get_effective_cpu_isa() >= cpu_isa::avx512_core_bf16 ? bf16_512 : core_512;
                    const jit_conf jc = make_jit_conf(make_problem(d), k);
                    if (jc.nxc_separable || t == data_type::f32) continue;  // bf16 without native rounding: separable
                    EXPECT_GT(jc.px_pairs, 0) << describe(d);
                    saw += jc.px_pairs > 0;
                    if (!jc.run_nt || threads > 1) continue;
                    // The NT run kernel: every vector store NT (its stores are whole lines).
                    const std::string run = part_asm(primitive(primitive_desc(d)).dump_asm(), "row_run_nt");
                    EXPECT_NE(run.find("vmovntdq"), std::string::npos) << describe(d);
                    EXPECT_EQ(plain_vector_stores(run), "") << describe(d);
                    ++saw_run_nt;
                }
    });
    if (get_effective_vector_bits() == 512 && get_effective_cpu_isa() >= cpu_isa::avx512_core) {
        EXPECT_GT(saw, 0);
    }
    if (get_effective_vector_bits() == 512 && get_effective_cpu_isa() >= cpu_isa::avx512_core && !emulated()) {
        EXPECT_GT(saw_run_nt, 0);
    }
}

// NT variants of the direct NXC kernels with bf16 32 words at a time (conf.nt_lines: native
// bf16 at 512 bits, C a multiple of 32, so every 64-byte store is a whole aligned line):
// single rows (H down), chained and same-taps pairs (1.5x, 3x), bitwise at 1 and 2 threads
// with NT stores (C of 6 to 10 vectors, direct in bf16), and the dispatched single-row NT
// part rounds 32 words at once (vcvtne2ps2bf16) into NT stores only. C = 112 (an odd vector
// per pixel) keeps single vectors; separable rows, f16 and bf16 rounded in integer code never
// take it.
TEST(jit_bitwise, nxc_nt_lines) {
    REQUIRE_AVX2();
    auto conf_of = [](int64_t c, data_type t, kernel_isa k) {
        return make_jit_conf(make_problem(problem_builder().src(layout(data_format::nxc, 1, c, {9, 14})).sizes({6, 9}).mode(mode::linear).dt(t)), k);
    };
    {
        nt_threshold nt(1);
        const kernel_isa bf16_512(cpu_isa::avx512_core_bf16);
        EXPECT_TRUE(conf_of(128, data_type::bf16, bf16_512).nt_lines);
        EXPECT_TRUE(conf_of(160, data_type::bf16, bf16_512).nt_lines);
        EXPECT_FALSE(conf_of(112, data_type::bf16, bf16_512).nt_lines) << "an odd vector per pixel";
        EXPECT_FALSE(conf_of(32, data_type::bf16, bf16_512).nt_lines) << "separable";
        EXPECT_FALSE(conf_of(128, data_type::f16, cpu_isa::avx512_core).nt_lines);
        EXPECT_FALSE(conf_of(128, data_type::bf16, cpu_isa::avx512_core).nt_lines);
        EXPECT_FALSE(conf_of(128, data_type::bf16, cpu_isa::avx2).nt_lines);
    }
    EXPECT_FALSE(conf_of(128, data_type::bf16, cpu_isa::avx512_core_bf16).nt_lines) << "plain-sized dst";
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
        {{9, 14}, {6, 9}}, {{6, 9}, {9, 14}}, {{5, 5}, {15, 15}}};
    uint32_t seed = 3400;
    int saw = 0;
    const int saved = omp_get_max_threads();
    nt_threshold nt(1);
    for (int threads : {1, 2}) {
        omp_set_num_threads(threads);
        for (const auto &sh : shapes)
            for (data_type t : {data_type::bf16, data_type::f16})
                for (int64_t c : {96, 112, 128, 160}) {
                    if (emulated() && (threads > 1 || c > 112)) continue;
                    const auto d = problem_builder().src(layout(data_format::nxc, 1, c, sh.first)).sizes(sh.second).mode(mode::linear).dt(t);
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads;
                    primitive_desc pd(d);
                    if (threads > 1 || sh.first[0] < sh.second[0] || pd.vector_bits() != 512 ||
                        get_effective_cpu_isa() < cpu_isa::avx512_core_bf16)
                        continue;
                    const jit_conf jc = make_jit_conf(make_problem(d), cpu_isa::avx512_core_bf16);
                    EXPECT_EQ(jc.nt_lines, t == data_type::bf16 && c % 32 == 0 && !jc.nxc_separable) << describe(d);
                    if (!jc.nt_lines) continue;
                    const std::string row = part_asm(primitive(pd).dump_asm(), "row_nt");
                    EXPECT_NE(row.find("vcvtne2ps2bf16"), std::string::npos) << describe(d);
                    EXPECT_NE(row.find("vmovntdq"), std::string::npos) << describe(d);
                    EXPECT_EQ(plain_vector_stores(row), "") << describe(d);
                    ++saw;
                }
    }
    omp_set_num_threads(saved);
    if (get_effective_vector_bits() == 512 && get_effective_cpu_isa() >= cpu_isa::avx512_core_bf16) {
        EXPECT_GT(saw, 0);
    }
}

// 2-D NXC linear at 512 bits: the channel count picks separable or direct (separable_pays;
// 3-D keeps its rule).
// H up < 4x: native bf16 pixels of 6+ whole vectors go direct (2+ at exactly 2x half_pixel),
// and f16 pixels under 48 channels that end in a tail go separable; at 256 bits bf16 stays
// separable and f16 direct.
// H up >= 4x, 1 MiB of dst or more: f32 pixels of 48+ channels and f16 ones of 80+ go
// direct. Bit for bit at the dispatched tier, with row pairs and same-taps runs, at 1 and 2
// threads and NT-sized dst: on an AVX512-BF16 host at 512 bits this runs the direct bf16
// kernel's pairs and runs (nowhere else: Bochs has no BF16), their channels 32 at a time as
// even and odd halves (words_pair; C = 112: an odd vector left alone; C = 48, direct at
// 2x: unrolled pixels, a pair and a single vector).
TEST(jit_bitwise, nxc_linear_separable_by_channels) {
    auto conf = [](int64_t c, data_type t, kernel_isa k) {
        const auto d = problem_builder().src({1, 30, 30, c}).sizes({60, 60}).mode(mode::linear).dt(t);
        return make_jit_conf(make_problem(d), k);
    };
    const kernel_isa bf16_512(cpu_isa::avx512_core_bf16), core_512(cpu_isa::avx512_core);
    EXPECT_FALSE(conf(128, data_type::bf16, bf16_512).nxc_separable);
    EXPECT_FALSE(conf(96, data_type::bf16, bf16_512).nxc_separable);
    // H up exactly 2x half_pixel (same-taps runs): native bf16 goes direct from C = 32; at
    // 1.5x, below 96 channels, and at 2x align_corners (no runs) it stays separable.
    EXPECT_FALSE(conf(64, data_type::bf16, bf16_512).nxc_separable);
    EXPECT_FALSE(conf(32, data_type::bf16, bf16_512).nxc_separable);
    EXPECT_TRUE(conf(16, data_type::bf16, bf16_512).nxc_separable);
    auto conf15 = [](int64_t c, coordinate_transformation_mode ct) {  // H and W 1.5x, or 2x align_corners
        const auto d = problem_builder().src({1, 30, 30, c}).sizes(ct == kCtms[0] ? std::vector<int64_t>{45, 45} : std::vector<int64_t>{60, 60})
                           .mode(mode::linear).ctm(ct).dt(data_type::bf16);
        return make_jit_conf(make_problem(d), cpu_isa::avx512_core_bf16);
    };
    EXPECT_TRUE(conf15(64, kCtms[0]).nxc_separable);
    EXPECT_FALSE(conf15(96, kCtms[0]).nxc_separable);
    EXPECT_TRUE(conf15(64, kCtms[1]).nxc_separable);
    EXPECT_TRUE(conf(100, data_type::bf16, bf16_512).nxc_separable);        // a tail
    EXPECT_TRUE(conf(128, data_type::bf16, core_512).nxc_separable);        // integer rounding
    EXPECT_TRUE(conf(128, data_type::bf16, cpu_isa::avx2).nxc_separable);
    EXPECT_TRUE(conf(24, data_type::f16, core_512).nxc_separable);
    EXPECT_TRUE(conf(17, data_type::f16, bf16_512).nxc_separable);
    EXPECT_FALSE(conf(64, data_type::f16, core_512).nxc_separable);         // whole vectors
    EXPECT_FALSE(conf(56, data_type::f16, core_512).nxc_separable);         // 48 or more
    EXPECT_FALSE(conf(24, data_type::f16, cpu_isa::avx2).nxc_separable);
    auto conf5x = [](int64_t c, data_type t, kernel_isa k) {  // H 5x
        const auto d = problem_builder().src({1, 20, 30, c}).sizes({100, 60}).mode(mode::linear).dt(t);
        return make_jit_conf(make_problem(d), k);
    };
    EXPECT_FALSE(conf5x(48, data_type::f32, core_512).nxc_separable);
    EXPECT_TRUE(conf5x(32, data_type::f32, core_512).nxc_separable);
    EXPECT_TRUE(conf5x(48, data_type::f32, cpu_isa::avx2).nxc_separable);
    EXPECT_FALSE(conf5x(96, data_type::f16, core_512).nxc_separable);     // 1.1 MiB of dst
    EXPECT_TRUE(conf5x(80, data_type::f16, core_512).nxc_separable);      // 0.9 MiB: stays in L2
    EXPECT_TRUE(conf5x(64, data_type::f16, core_512).nxc_separable);
    EXPECT_TRUE(conf5x(128, data_type::bf16, bf16_512).nxc_separable);
    // 3-D keeps separable rows (the direct kernel's 8 W steps per output vector).
    const auto vol = problem_builder().src({1, 2, 11, 2, 69}).sizes({1, 61, 2}).mode(mode::linear);
    EXPECT_TRUE(make_jit_conf(make_problem(vol), core_512).nxc_separable);
    const auto vol16 = problem_builder().src({1, 4, 64, 64, 128}).sizes({8, 96, 96}).mode(mode::linear).dt(data_type::bf16);
    EXPECT_TRUE(make_jit_conf(make_problem(vol16), bf16_512).nxc_separable);
    REQUIRE_AVX2();
    uint32_t seed = 900;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (const auto &tc : std::vector<std::pair<data_type, int64_t>>{{data_type::bf16, 48},
                                                                        {data_type::bf16, 96},
                                                                        {data_type::bf16, 112},
                                                                        {data_type::bf16, 128},
                                                                        {data_type::f16, 17},
                                                                        {data_type::f16, 40},
                                                                        {data_type::f32, 52},
                                                                        {data_type::f16, 96}})
            for (const auto &cs : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
                     {{11, 9}, {22, 18}}, {{6, 3}, {12, 7}}, {{5, 4}, {7, 9}}, {{4, 5}, {21, 11}}, {{4, 6}, {7, 11}}}) {
                // (H 4 -> 7: rows 2 and 3 a chained pair whose third src row is its own.)
                const auto d = problem_builder().src(layout(data_format::nxc, 1, tc.second, cs.first)).sizes(cs.second)
                                   .mode(mode::linear).dt(tc.first);
                ++seed;
                ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                    << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
            }
        if (W == 16 && get_effective_cpu_isa() >= cpu_isa::avx512_core_bf16 && threads == 1) {
            const auto d = problem_builder().src({1, 11, 9, 112}).sizes({22, 18}).mode(mode::linear).dt(data_type::bf16);
            const std::string code = primitive(primitive_desc(d)).dump_asm();
            const size_t at = code.find(".row_run:");
            ASSERT_NE(at, std::string::npos);
            EXPECT_NE(code.find("vpermw", at), std::string::npos);  // the halves interleaved back
        }
        // H 4.2x with 1 MiB or more of dst: f32 C = 52 and f16 C = 96 direct at 512 bits.
        for (const auto &tc : std::vector<std::pair<data_type, int64_t>>{{data_type::f32, 52}, {data_type::f16, 96}}) {
            const auto d = problem_builder().src({1, 50, 27, tc.second}).sizes({210, 27}).mode(mode::linear).dt(tc.first);
            EXPECT_FALSE(make_jit_conf(make_problem(d), core_512).nxc_separable) << describe(d);
            ++seed;
            ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
        }
    });
}

// 16-bit nearest rows with windows at 512 bits (jit_ncx_wpass::nearest_word_pair): two
// records' windows in one zmm, one vpermw, one 64-byte store (two 32-byte NT stores where rows
// are not whole pairs), the last odd vector and the tail alone; short windows (rows under 16
// elements, loaded under a mask) a vector at a time. With H up (rows written twice), NT-sized
// dst and 1 and 2 threads, NCX rows and NXC flat rows (C = 3), bit for bit; at 512 bits the
// kernels spell vpermw.
TEST(jit_bitwise, nearest_word_pairs) {
    REQUIRE_AVX2();
    bool saw = false, any512 = false;
    uint32_t seed = 1300;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (auto t : {data_type::bf16, data_type::f16})
            for (auto f : kFmts)
                for (auto ct : kCtms)
                    for (const auto &cs : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
                             {{5, 7}, {11, 16}}, {{6, 9}, {12, 32}}, {{4, 13}, {9, 33}}, {{7, 20}, {14, 47}},
                             {{3, 30}, {7, 64}}, {{5, 31}, {5, 65}}, {{4, 5}, {8, 33}}, {{9, 40}, {18, 96}}}) {
                        const auto d = problem_builder().src(layout(f, 1, 3, cs.first))
                                           .sizes(cs.second).fmt(f).mode(mode::nearest).ctm(ct).dt(t);
                        ++seed;
                        ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                        primitive_desc pd(d);
                        any512 = any512 || pd.vector_bits() == 512;
                        saw = saw || primitive(pd).dump_asm().find("vpermw") != std::string::npos;
                    }
    });
    EXPECT_EQ(saw, any512) << "the 512-bit 16-bit nearest rows pick words with vpermw, and only they";
}

// 512-bit rows whose vectors' taps span 17-32 src elements (W down by under 2x) select each
// tap set from two windows with vpermt2ps (jit_conf::window2) instead of gathering: NCX rows
// and NXC flat rows, nearest and linear, every dtype, rows of exactly 32 src elements (the
// first that qualify) and 31 (gathers), tails, fused H steps (H down), planes, 3-D, NaN and
// inf bits through nearest, both transforms, 1 and 2 threads with NT stores. The conf picks
// window2 at 512 bits only, and the 512-bit kernels spell vpermt2ps.
TEST(jit_bitwise, two_window_rows) {
    auto conf = [](int64_t iw, int64_t ow, kernel_isa k) {
        const auto d = problem_builder().src({1, 2, 5, iw}).sizes({7, ow}).fmt(data_format::ncx).mode(mode::linear);
        return make_jit_conf(make_problem(d), k);
    };
    const kernel_isa core_512(cpu_isa::avx512_core);
    EXPECT_TRUE(conf(39, 36, core_512).window2 && !conf(39, 36, core_512).window);
    EXPECT_TRUE(conf(32, 17, core_512).window2);
    EXPECT_FALSE(conf(31, 17, core_512).window2);      // under 2 * simd_w src elements
    EXPECT_FALSE(conf(100, 40, core_512).window2);     // 2.5x down: 40 elements per vector
    EXPECT_FALSE(conf(20, 40, core_512).window2);      // up: one window serves
    EXPECT_FALSE(conf(39, 36, cpu_isa::avx2).window2);
    // NXC pixels of C <= 4 take flat rows with two windows over narrow pixels; C = 12 keeps
    // narrow pixels.
    auto nxc = [](int64_t c, mode m) {
        return make_problem(problem_builder().src({1, 100, 300, c}).sizes({70, 200}).mode(m));
    };
    for (mode m : kModes) {
        EXPECT_TRUE(jit_uses_pass_engine(nxc(4, m), core_512));
        EXPECT_TRUE(make_jit_conf(nxc(4, m), core_512).window2);
        EXPECT_FALSE(jit_uses_pass_engine(nxc(12, m), core_512));
    }
    REQUIRE_AVX2();
    bool saw = false, any512 = false;
    uint32_t seed = 1500;
    using shape = std::tuple<data_format, int64_t, std::vector<int64_t>, std::vector<int64_t>>;
    const std::vector<shape> shapes = {
        {data_format::ncx, 3, {5, 39}, {7, 36}}, {data_format::ncx, 2, {9, 32}, {4, 17}},
        {data_format::ncx, 2, {6, 31}, {6, 17}}, {data_format::ncx, 1, {8, 100}, {5, 51}},
        {data_format::ncx, 2, {30, 64}, {9, 63}}, {data_format::ncx, 2, {4, 6, 50}, {3, 4, 33}},
        {data_format::ncx, 1, {40, 97}, {40, 60}}, {data_format::nxc, 3, {5, 40}, {8, 27}},
        {data_format::nxc, 2, {6, 70}, {3, 41}}};
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (auto t : kTypes)
            for (auto m : kModes)
                for (auto ct : kCtms)
                    for (const shape &sh : shapes) {
                        const auto &[f, c, in, out] = sh;
                        const auto d = problem_builder().src(layout(f, 1, c, in)).sizes(out).fmt(f).mode(m).ctm(ct).dt(t);
                        ++seed;
                        ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                            << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                        primitive_desc pd(d);
                        any512 = any512 || pd.vector_bits() == 512;
                        saw = saw || primitive(pd).dump_asm().find("vpermt2ps") != std::string::npos;
                    }
    });
    EXPECT_EQ(saw, any512) << "the 512-bit rows take two windows, and only they";
}

// Direct NXC 2-D linear at 512 bits: f32 pixels of 25+ channels that end off a cache line
// (C % 16 != 0) go a row at a time, without row pairs or same-taps runs; narrower ones, whole
// lines, f16, 256 bits and 3-D D pairs keep theirs. (Outputs past 1.5 MiB: under it, f32
// pixels of 17-39 channels off a line go separable where H goes up 1.5x or more, checked
// here too.) Bit for bit at the dispatched tier, at 1 and 2 threads.
TEST(jit_bitwise, nxc_linear_pairs_by_pixel_lines) {
    auto conf = [](int64_t c, data_type t, kernel_isa k, std::vector<int64_t> in = {100, 100}, std::vector<int64_t> out = {200, 200}) {
        const auto d = problem_builder().src(layout(data_format::nxc, 1, c, in)).sizes(out).mode(mode::linear).dt(t);
        return make_jit_conf(make_problem(d), k);
    };
    const kernel_isa core_512(cpu_isa::avx512_core);
    for (int64_t c : {25, 47, 100, 217}) {
        const jit_conf j = conf(c, data_type::f32, core_512);
        EXPECT_TRUE(!j.nxc_separable && !j.same_pairs && !j.row_pairs && j.same_run == 0) << "C = " << c;
    }
    EXPECT_TRUE(conf(17, data_type::f32, core_512).same_pairs);
    EXPECT_TRUE(conf(24, data_type::f32, core_512).same_pairs);
    EXPECT_TRUE(conf(128, data_type::f32, core_512).same_pairs);
    EXPECT_TRUE(conf(217, data_type::f32, cpu_isa::avx2).same_pairs);
    EXPECT_FALSE(conf(52, data_type::f16, core_512).nxc_separable);
    EXPECT_TRUE(conf(52, data_type::f16, core_512).same_pairs);
    EXPECT_TRUE(conf(217, data_type::f32, core_512, {5, 10, 10}, {10, 20, 20}).d_pairs);
    // Separable under 1.5 MiB (separable_pays): c17, c23's 47x61, 40x40 -> 60x60 C = 39;
    // not C = 40 or 48, H up 1.25x, 256 bits, f16, nor past 1.5 MiB (C = 31 120x120).
    EXPECT_TRUE(conf(17, data_type::f32, core_512, {33, 33}, {65, 65}).nxc_separable);
    EXPECT_TRUE(conf(23, data_type::f32, core_512, {31, 29}, {47, 61}).nxc_separable);
    EXPECT_TRUE(conf(39, data_type::f32, core_512, {40, 40}, {60, 60}).nxc_separable);
    for (int64_t c : {40, 48}) EXPECT_FALSE(conf(c, data_type::f32, core_512, {33, 33}, {65, 65}).nxc_separable) << c;
    EXPECT_FALSE(conf(27, data_type::f32, core_512, {80, 80}, {100, 100}).nxc_separable);
    EXPECT_FALSE(conf(17, data_type::f32, cpu_isa::avx2, {33, 33}, {65, 65}).nxc_separable);
    EXPECT_FALSE(conf(31, data_type::f32, core_512, {60, 60}, {120, 120}).nxc_separable);
    REQUIRE_AVX2();
    threads_and_spelling_restore restore;
    uint32_t seed = 950;
    for (int threads : {1, 2}) {
        omp_set_num_threads(threads);
        for (int64_t c : {24, 25, 33, 217})
            for (auto ct : {coordinate_transformation_mode::half_pixel, coordinate_transformation_mode::align_corners})
                for (const auto &cs : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
                         {{9, 1}, {40, 5}}, {{6, 5}, {12, 10}}, {{5, 7}, {11, 9}}, {{60, 70}, {130, 141}}}) {
                    if (cs.first[0] == 60 && c != 24) continue;  // 1.76 MB: the direct kernel's C = 24 (emulated lane: once)
                    const auto d = problem_builder().src(layout(data_format::nxc, 1, c, cs.first)).sizes(cs.second)
                                       .mode(mode::linear).ctm(ct).dt(data_type::f32);
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads;
                }
    }
}

// Direct NXC 3-D linear in D pairs: rows (od, oh) and (od + 1, oh) with the same D taps share
// their W and H steps. At 1 and 2 threads (a split can separate a pair's rows, which then go
// singly), with NT-sized dst (both of a pair's rows take NT stores; pixels that are not whole
// vectors stream both rows through scratch, jit_conf::nt_stream). The
// shapes keep W-planes over the separable path's limits (f32 128 KiB, f16 4 MiB at 256 bits),
// so the direct kernel runs (at 256 bits f32 with NT-sized dst only where OW * C ends off a
// ymm, C = 13: the others take W rows in blocks, nxc_d_pair_cols). Then separable NXC in row
// mode with D pairs (16-bit at 512 bits).
TEST(jit_bitwise, nxc_linear_d_pairs) {
    REQUIRE_AVX2();
    auto conf = [](const op_desc &d) { return make_jit_conf(make_problem(d), cpu_isa::avx2); };
    EXPECT_TRUE(conf(problem_builder().src({1, 16, 64, 64, 32}).sizes({32, 128, 128}).mode(mode::linear)).d_pairs);
    EXPECT_FALSE(conf(problem_builder().src({1, 16, 64, 64, 32}).sizes({8, 128, 128}).mode(mode::linear)).d_pairs);  // D down
    {  // bf16 is separable: the plane blends' pairs, or with NT stores W rows in column blocks
        const auto vol = problem_builder().src({1, 16, 64, 64, 32}).sizes({32, 128, 128}).mode(mode::linear).dt(data_type::bf16);
        nt_threshold plain(size_t(1) << 40);
        const jit_conf planes = conf(vol);
        EXPECT_TRUE(planes.nxc_separable && planes.plane_mode && planes.d_pairs);
        nt_threshold nt(1);
        const jit_conf rows = conf(vol);
        EXPECT_TRUE(rows.nxc_separable && !rows.plane_mode && rows.d_pairs && rows.d_cols == 32);
    }
    {  // 16-bit at 512 bits: W-planes up to 1.5 MiB, past it W rows with D pairs (row mode)
        const kernel_isa core_512(cpu_isa::avx512_core), bf16_512(cpu_isa::avx512_core_bf16);
        auto vol16 = [](int64_t c, data_type t, int64_t od = 32) {
            return make_problem(problem_builder().src({1, 16, 64, 64, c}).sizes({od, 128, 128}).mode(mode::linear).dt(t));
        };
        for (data_type t : {data_type::f16, data_type::bf16}) {
            const kernel_isa k = t == data_type::bf16 ? bf16_512 : core_512;
            const jit_conf big = make_jit_conf(vol16(32, t), k), fits = make_jit_conf(vol16(24, t), k);  // 2 and 1.5 MiB
            EXPECT_TRUE(big.nxc_separable && !big.plane_mode && big.d_pairs && big.n_slots == 4);
            EXPECT_TRUE(fits.nxc_separable && fits.plane_mode);
            const jit_conf down = make_jit_conf(vol16(32, t, 8), k);  // D down: rows, no pairs
            EXPECT_TRUE(down.nxc_separable && !down.plane_mode && !down.d_pairs);
            nt_threshold plain(size_t(1) << 40);
            const jit_conf ymm = make_jit_conf(vol16(32, t), cpu_isa::avx2);  // 256 bits, plain stores: planes up to 4 MiB
            EXPECT_TRUE(ymm.nxc_separable && ymm.plane_mode);
        }
        EXPECT_FALSE(make_jit_conf(vol16(32, data_type::f32), core_512).nxc_separable);  // f32: the direct kernel
    }
    {  // NT executions take the pairs, both rows NT: the NT pair parts store nothing plainly
        nt_threshold nt(1);
        const auto big = problem_builder().src({1, 4, 64, 16, 8}).sizes({8, 130, 32}).mode(mode::linear);
        EXPECT_TRUE(conf(big).d_pairs && conf(big).nt_eligible && conf(big).pairs_nt);
        const auto big16 = problem_builder().src({1, 2, 128, 16, 256}).sizes({5, 129, 16}).mode(mode::linear).dt(data_type::f16);
        EXPECT_TRUE(conf(big16).d_pairs && conf(big16).nt_eligible && conf(big16).pairs_nt);
        std::vector<op_desc> nt_descs = {big};  // f32 C = 8: W-planes; C = 256: the direct kernel
        for (data_type t : kTypes) {
            nt_descs.push_back(big16);
            nt_descs.back().dt = t;
        }
        for (const op_desc &d : nt_descs) {
            const std::string code = primitive(primitive_desc(d)).dump_asm();
            const std::vector<std::string> nt_pairs = {"row_dpair_nt", "blend_hd2_nt", "plane_blend_hd2_nt", "blend_hd2_cols_nt"};
            int seen = 0;
            for (const std::string &part : nt_pairs) {
                const std::string text = part_asm(code, part);
                if (text.empty()) continue;
                ++seen;
                EXPECT_NE(text.find("vmovnt"), std::string::npos) << describe(d) << " " << part;
                EXPECT_EQ(plain_vector_stores(text), "") << describe(d) << " " << part;
            }
            EXPECT_EQ(seen, 1) << describe(d) << ": one NT pair part";
        }
        // Pixels that are not whole vectors: 3-D rows stream through scratch (D pairs too),
        // 2-D rows keep plain stores.
        const auto odd = problem_builder().src({1, 4, 64, 16, 13}).sizes({9, 70, 21}).mode(mode::linear);
        EXPECT_TRUE(conf(odd).d_pairs && !conf(odd).nt_eligible && conf(odd).nt_stream && conf(odd).scratch_bytes >= 2 * conf(odd).dst_row_bytes);
        EXPECT_FALSE(conf(problem_builder().src({1, 64, 16, 13}).sizes({70, 21}).mode(mode::linear)).nt_stream);
    }
    {  // under the default thresholds a dst that fits the LLC keeps plain stores
        nt_threshold restore(0);
        const auto odd = problem_builder().src({1, 4, 64, 16, 13}).sizes({9, 70, 21}).mode(mode::linear);
        EXPECT_FALSE(conf(odd).nt_stream);
    }
    uint32_t seed = 120;
    struct shape {
        std::vector<int64_t> in, out;
        int64_t c;
        data_type t;
    };
    const std::vector<shape> shapes = {
        {{3, 64, 16}, {6, 65, 33}, 8, data_type::f32},   // D 2x: pairs (1, 2), (3, 4)
        {{4, 64, 16}, {9, 70, 21}, 13, data_type::f32},  // D 2.25x, C with a tail
        {{3, 66, 11}, {7, 40, 23}, 24, data_type::f32},  // H down, D 2.33x
        {{2, 128, 16}, {5, 129, 16}, 260, data_type::f16}};
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (const shape &sh : shapes)
            for (auto ct : kCtms) {
                if (sh.t == data_type::f16 && (threads == 2 || ct != kCtms[0])) continue;  // the big one once per NT setting
                if (emulated() && (threads == 2 || ct != kCtms[0] || sh.t == data_type::f16)) continue;
                const auto d = problem_builder().src(layout(data_format::nxc, 1, sh.c, sh.in)).sizes(sh.out).mode(mode::linear).ctm(ct).dt(sh.t);
                // rows of whole ymm with NT-sized dst go separable (nxc_d_pair_cols): f32, and
                // 16-bit rows not half a page off (C = 260: 8320 bytes, 128 past two pages)
                const bool half_page = sh.out[2] * sh.c * 2 % jit_conf::kAliasPage == jit_conf::kAliasPage / 2;
                const bool rows = nt_bytes == 1 && sh.out[2] * sh.c % 8 == 0 && (sh.t == data_type::f32 || !half_page);
                EXPECT_TRUE(conf(d).d_pairs && conf(d).nxc_separable == rows) << describe(d);
                ++seed;
                ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                    << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
            }
    });
    // Row mode with D pairs (16-bit at 512 bits, W-planes over 1.5 MiB: 2 x 40 rows of 60
    // pixels of C = 90, 1.7 MB). D 2x: od 1 and 2 pair, which 2 threads split (each then goes
    // singly); D down: no pairs. C = 90 ends on a 10-lane tail. At 256 bits the same shapes
    // take W-planes, checked all the same.
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> rows = {
        {{2, 40, 30}, {4, 41, 60}}, {{4, 40, 30}, {3, 41, 60}}};
    bool any512 = false, saw_pairs = false;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (const auto &[in, out] : rows)
            for (data_type t : {data_type::bf16, data_type::f16})
                for (auto ct : kCtms) {
                    if (emulated() && (threads == 2 || nt_bytes == 0 || ct != kCtms[0])) continue;
                    const auto d = problem_builder().src(layout(data_format::nxc, 1, 90, in)).sizes(out).mode(mode::linear).ctm(ct).dt(t);
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                        << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                    primitive_desc pd(d);
                    if (pd.vector_bits() != 512) continue;
                    any512 = true;
                    const std::string code = primitive(pd).dump_asm();
                    EXPECT_EQ(code.find("; part plane_blend") == std::string::npos && code.find("; part wrow") != std::string::npos, true)
                        << describe(d) << ": W rows, not W-planes";
                    saw_pairs = saw_pairs || code.find("; part blend_hd2") != std::string::npos;
                }
    });
    EXPECT_EQ(saw_pairs, any512) << "the 512-bit row mode blends D pairs";
}

// Separable NXC D pairs column block by column block (jit_conf::d_cols; NT stores: 16-bit
// at 512 bits with W-planes over 1.5 MiB; at 256 bits f32 with W-planes over 128 KiB and
// 16-bit unless its dst rows are half a page off (these shapes' are not; C = 32 at OW = 96,
// 6 KiB rows, keeps W-planes), whose blocks follow from 64-byte pairs of ymm: C = 48 21
// pixels, OW = 70 ending on 7; C = 40 24 ending on 4; C = 32 32 ending on 22 at OW = 1590). C = 48: blocks of 20 pixels (4 KiB W rows, widths kept to
// 64-byte pairs), OW = 70 in 20, 20, 20 and a last block of 10; C = 32: 4 blocks of 32;
// C = 40: blocks of 24 (unit 4), OW = 100 ending on 4; IH = 2, where a block's first rows
// are W rows the block before also held (its slots must not be taken for them). D 2 -> 4 (od
// 1 and 2 pair) and 1 -> 2 (od 0 and 1, both clamped to slice 0); 2 threads split the pairs
// (singles, whole rows). Chains of pairs go in groups (jit_conf::d_group): D 4 -> 8 (pairs
// (0, 1), then (3, 4) and (5, 6) on slices 1-2 and 2-3, one group; od 2 and 7 single) and
// 5 -> 10 (a group, then the pair (7, 8) alone; align_corners: (0, 1), a group of (3, 4) and
// (5, 6), then (7, 8)), C = 32 in blocks of 32 pixels (OW = 1590 ending on 22); at 2
// threads the 5 -> 10 split leaves a group to the second thread. Bitwise at 1 and 2 threads
// with NT stores, and at 2 threads with plain ones on the same kernels (whole rows); the
// dispatched kernels (16-bit at 512 bits, f32 and the page-row 16-bit ones at 256) have the
// block parts.
TEST(jit_bitwise, nxc_d_pair_cols) {
    REQUIRE_AVX2();
    struct shape {
        std::vector<int64_t> in, out;
        int64_t c, cols, last;
        bool emu;  // in the emulator lane's subset (emulated())
        int64_t cols256, last256;  // the blocks at 256 bits (f32, and 16-bit of page rows)
    };
    // 16-bit dst rows not half a page off, which 256-bit 16-bit kernels need for blocks
    auto rows16 = [](const shape &sh) { return sh.out[2] * sh.c * 2 % jit_conf::kAliasPage != jit_conf::kAliasPage / 2; };
    const std::vector<shape> shapes = {{{2, 64, 35}, {4, 64, 70}, 48, 20, 10, true, 21, 7},
                                       {{1, 50, 64}, {2, 50, 128}, 32, 32, 32, false, 32, 32},
                                       {{1, 50, 50}, {2, 51, 100}, 40, 24, 4, true, 24, 4},
                                       {{1, 2, 1050}, {2, 4, 2100}, 48, 20, 20, true, 21, 21},
                                       {{4, 4, 795}, {8, 8, 1590}, 32, 32, 22, false, 32, 22},
                                       {{5, 4, 800}, {10, 8, 1600}, 32, 32, 32, false, 32, 32}};
    for (const shape &sh : shapes) {  // f32 at 256 bits: W rows in blocks where the dst takes NT stores
        const problem p = make_problem(problem_builder().src(layout(data_format::nxc, 1, sh.c, sh.in)).sizes(sh.out).mode(mode::linear));
        {
            nt_threshold plain(size_t(1) << 40);
            EXPECT_FALSE(make_jit_conf(p, cpu_isa::avx2).nxc_separable) << sh.c << ": plain stores, the direct kernel";
        }
        nt_threshold nt(1);
        const jit_conf c = make_jit_conf(p, cpu_isa::avx2);
        EXPECT_TRUE(c.nxc_separable && !c.plane_mode && c.pairs_nt) << sh.c;
        EXPECT_EQ(c.d_cols, sh.cols256) << sh.c;
        EXPECT_EQ(c.d_group, jit_conf::kDGroup) << sh.c;
        EXPECT_EQ(d_cols_conf(c, p, sh.out[2] - (sh.out[2] - 1) / sh.cols256 * sh.cols256).OW, sh.last256) << sh.c;
        EXPECT_FALSE(make_jit_conf(p, cpu_isa::avx512_core).nxc_separable) << sh.c << ": 512 bits, the direct kernel";
    }
    for (data_type t : {data_type::bf16, data_type::f16}) {  // 16-bit rows half a page off keep W-planes
        nt_threshold nt(1);
        const auto at = [&](int64_t c, int64_t ow) {
            return make_jit_conf(make_problem(problem_builder().src(layout(data_format::nxc, 1, c, {16, 48, ow / 2})).sizes({32, 96, ow}).mode(mode::linear).dt(t)),
                                 cpu_isa::avx2);
        };
        EXPECT_TRUE(at(32, 96).plane_mode && at(32, 96).d_cols == 0) << "C = 32, 6 KiB rows";
        EXPECT_TRUE(at(48, 96).nxc_separable && !at(48, 96).plane_mode && at(48, 96).d_cols > 0) << "C = 48, 9 KiB rows";
    }
    {
        const kernel_isa bf16_512(cpu_isa::avx512_core_bf16), core_512(cpu_isa::avx512_core);
        for (const shape &sh : shapes)
            for (data_type t : {data_type::bf16, data_type::f16}) {
                const problem p = make_problem(problem_builder().src(layout(data_format::nxc, 1, sh.c, sh.in)).sizes(sh.out).mode(mode::linear).dt(t));
                const kernel_isa k = t == data_type::bf16 ? bf16_512 : core_512;
                {
                    nt_threshold plain(size_t(1) << 40);
                    EXPECT_EQ(make_jit_conf(p, k).d_cols, 0) << sh.c << ": plain stores, whole rows";
                }
                nt_threshold nt(1);
                const jit_conf c = make_jit_conf(p, k);
                EXPECT_TRUE(c.nxc_separable && !c.plane_mode && c.pairs_nt) << sh.c;
                EXPECT_EQ(c.d_cols, sh.cols) << sh.c;
                EXPECT_EQ(c.d_group, jit_conf::kDGroup) << sh.c;
                const jit_conf last = d_cols_conf(c, p, sh.out[2] - (sh.out[2] - 1) / sh.cols * sh.cols);
                EXPECT_EQ(last.OW, sh.last == sh.cols ? sh.cols : sh.last) << sh.c;
                EXPECT_EQ(last.row_out, last.OW * sh.c);
                // 256 bits: the same blocks as f32's, or W-planes for rows half a page off
                EXPECT_EQ(make_jit_conf(p, cpu_isa::avx2).d_cols, rows16(sh) ? sh.cols256 : 0) << sh.c;
            }
    }
    uint32_t seed = 3100;
    int saw_cols = 0, saw_last = 0, want_cols = 0, want_last = 0;
    // Runs: {one thread, NT}, {two threads, NT}, {two threads, plain stores on the same
    // kernels (the NT threshold for more threads past the dst)}; f16 and align_corners in the
    // first only. In the emulator lane the first run's half_pixel bf16 cases of three shapes.
    const int saved = omp_get_max_threads();
    for (int run = 0; run < 3 && !::testing::Test::HasFatalFailure(); ++run) {
        const int threads = run == 0 ? 1 : 2;
        nt_threshold nt(1, run == 2 ? size_t(1) << 40 : 1);
        omp_set_num_threads(threads);
        for (const shape &sh : shapes)
            for (data_type t : {data_type::bf16, data_type::f16, data_type::f32})
                for (auto ct : kCtms) {
                    if (run > 0 && (t == data_type::f16 || ct != kCtms[0])) continue;
                    if (emulated() && (run > 0 || ct != kCtms[0] || t != data_type::bf16 || !sh.emu)) continue;
                    const auto d = problem_builder().src(layout(data_format::nxc, 1, sh.c, sh.in)).sizes(sh.out).mode(mode::linear).ctm(ct).dt(t);
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " run " << run;
                    primitive_desc pd(d);
                    const bool ymm = pd.vector_bits() == 256;
                    if (run != 0 || (ymm ? t != data_type::f32 && !rows16(sh) : t == data_type::f32)) continue;
                    const std::string code = primitive(pd).dump_asm();
                    saw_cols += code.find("; part blend_hd2_cols_nt") != std::string::npos;
                    ++want_cols;
                    if ((ymm ? sh.last256 == sh.cols256 : sh.last == sh.cols)) continue;
                    saw_last += code.find("; part blend_hd2_cols_last_nt") != std::string::npos;
                    ++want_last;
                }
    }
    omp_set_num_threads(saved);
    EXPECT_EQ(saw_cols, want_cols) << "every shape, dtype and transform in blocks";
    EXPECT_EQ(saw_last, want_last) << "narrower last blocks";
    EXPECT_GE(want_last, 2) << "a narrower last block, checked (f32 at 256 bits, 16-bit at 512)";
}

// The separable NXC W step's pixel pairs (conf.px_pairs at 512 bits, whole channel vectors;
// jit_interp_kernel::w_pixel_pairs). The conf: vol_2x's rows pair pixels (1, 2) .. (125, 126);
// its 32-pixel column blocks (d_cols_conf) pair (1, 2) .. (29, 30) in every block, and a last
// block of 16 pixels (OW = 112) (1, 2) .. (13, 14); none at 256 bits, with a channel tail, or
// at W 9 -> 14. Bitwise in every dtype at 1 and 2 threads, with and without NT-sized dst, for
// C of one to five vectors (unrolled pixels, and the channel loop past four), 3-D 2x and
// 9 -> 14 in W (no pairs) with D and H up; the dispatched 512-bit separable confs have them.
TEST(jit_bitwise, nxc_w_step_pixel_pairs) {
    REQUIRE_AVX2();
    auto problem_of = [](const std::vector<int64_t> &in, const std::vector<int64_t> &out, int64_t c, data_type t) {
        return make_problem(problem_builder().src(layout(data_format::nxc, 1, c, in)).sizes(out).mode(mode::linear).dt(t));
    };
    const kernel_isa bf16_512(cpu_isa::avx512_core_bf16);
    {
        nt_threshold nt(1);
        const problem vol = problem_of({16, 64, 64}, {32, 128, 128}, 32, data_type::bf16);
        const jit_conf c = make_jit_conf(vol, bf16_512);
        EXPECT_TRUE(c.nxc_separable && c.px_first == 1 && c.px_pairs == 63);
        ASSERT_EQ(c.d_cols, 32);
        const jit_conf blk = d_cols_conf(c, vol, 32);
        EXPECT_TRUE(blk.px_first == 1 && blk.px_pairs == 15) << blk.px_first << " " << blk.px_pairs;
        const problem p112 = problem_of({16, 56, 56}, {32, 112, 112}, 32, data_type::f16);
        const jit_conf c112 = make_jit_conf(p112, kernel_isa(cpu_isa::avx512_core));
        ASSERT_EQ(c112.d_cols, 32);
        const jit_conf last = d_cols_conf(c112, p112, 16);
        EXPECT_TRUE(last.OW == 16 && last.px_first == 1 && last.px_pairs == 7) << last.px_first << " " << last.px_pairs;
        EXPECT_EQ(make_jit_conf(vol, cpu_isa::avx2).px_pairs, 0) << "256 bits";
    }
    EXPECT_EQ(make_jit_conf(problem_of({3, 9, 12}, {6, 18, 24}, 40, data_type::bf16), bf16_512).px_pairs, 0) << "a channel tail";
    EXPECT_EQ(make_jit_conf(problem_of({3, 9, 9}, {6, 18, 14}, 32, data_type::bf16), bf16_512).px_pairs, 0) << "W 9 -> 14";
    struct shape {
        std::vector<int64_t> in, out;
        bool pairs;
    };
    const std::vector<shape> shapes = {{{3, 9, 12}, {6, 18, 24}, true}, {{2, 5, 9}, {4, 10, 14}, false}};
    uint32_t seed = 3700;
    int saw = 0;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (const shape &sh : shapes)
            for (data_type t : kTypes)
                for (int64_t c : {16, 32, 48, 80}) {
                    if (emulated() && (threads > 1 || nt_bytes || c > 48 || t != data_type::bf16)) continue;
                    const auto d = problem_builder().src(layout(data_format::nxc, 1, c, sh.in)).sizes(sh.out).mode(mode::linear).dt(t);
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                        << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                    primitive_desc pd(d);
                    if (pd.vector_bits() != 512) continue;
                    const kernel_isa k = t == data_type::bf16 && get_effective_cpu_isa() >= cpu_isa::avx512_core_bf16 ? bf16_512
                                                                                                           : kernel_isa(cpu_isa::avx512_core);
                    const jit_conf jc = make_jit_conf(make_problem(d), k);
                    if (!jc.nxc_separable) continue;
                    EXPECT_EQ(jc.px_pairs > 0, sh.pairs) << describe(d);
                    saw += jc.px_pairs > 0;
                }
    });
    if (get_effective_vector_bits() == 512 && get_effective_cpu_isa() >= cpu_isa::avx512_core) {
        EXPECT_GT(saw, 0) << "separable 512-bit kernels with pixel pairs ran";
    }
}

// The NXC row kernels' channel loop (vector_loop): four vectors per trip, then the rest. C of
// 4 to 9 full vectors (at the dispatched width), with and without the overlapping tail, so the
// trips end on each remainder, through each kernel (its conf checked at AVX2): the single row
// (H down), chained and same-taps pairs (3x up), same-taps runs (2x up), D pairs (3-D W-planes
// over the separable limit, f32/f16; f32 W rows with NT stores) and the separable W rows (3-D
// small planes, and bf16), at 1 and 2 threads and with NT stores.
TEST(jit_bitwise, nxc_linear_channel_loop_remainders) {
    REQUIRE_AVX2();
    struct shape {
        std::vector<int64_t> in, out;
        std::function<bool(const jit_conf &)> kernel;  // f32's
    };
    const std::vector<shape> shapes = {
        {{7, 3}, {3, 5}, [](const jit_conf &k) { return !k.row_pairs && !k.same_pairs && !k.nxc_separable; }},
        {{3, 3}, {9, 7}, [](const jit_conf &k) { return k.row_pairs && k.same_pairs; }},
        {{5, 2}, {10, 4}, [](const jit_conf &k) { return k.same_run == 2; }},
        // direct, or with NT-sized dst where OW * C fills whole ymm, separable W rows
        {{2, 24, 12}, {5, 24, 25}, [](const jit_conf &k) { return k.d_pairs && k.nxc_separable == (k.pairs_nt && k.OW * k.C % 8 == 0); }},
        {{2, 4, 3}, {5, 4, 4}, [](const jit_conf &k) { return k.nxc_separable; }},
    };
    uint32_t seed = 700;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (int64_t c : {4 * W, 5 * W + 3, 6 * W + 1, 7 * W, 9 * W - 1})
            for (const shape &sh : shapes)
                for (auto t : kTypes) {
                    const auto d = problem_builder().src(layout(data_format::nxc, 1, c, sh.in)).sizes(sh.out).mode(mode::linear).dt(t);
                    if (t == data_type::f32) {
                        EXPECT_TRUE(sh.kernel(make_jit_conf(make_problem(d), cpu_isa::avx2))) << describe(d);
                    }
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                        << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                }
    });
}

// At 512 bits the moves that touch no more than a pixel's last bytes: NXC linear tails of 1-8
// channels in an xmm or ymm (tail_lanes; separable W rows and direct rows), narrow pixels of
// up to 8 channels likewise (narrow_loop), and nearest pixel rests as the widest piece and the
// narrowest that covers the rest (4 bytes past 32 for C = 9 f32 and C = 17 16-bit). Bit for
// bit in every dtype at the dispatched tier; on a 512-bit host the f32 listings hold the xmm /
// ymm loads and the 4-byte moves.
TEST(jit_bitwise, narrow_moves_at_512) {
    REQUIRE_AVX2();
    const bool zmm = get_effective_vector_bits() == 512 && get_effective_cpu_isa() >= cpu_isa::avx512_core;
    auto listing = [](const op_desc &d) { return primitive(primitive_desc(d)).dump_asm(); };
    uint32_t seed = 3500;
    int looked = 0;
    // Linear tails: separable 2x up (W rows) and direct H down (single rows).
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {{{9, 9}, {17, 17}}, {{12, 10}, {7, 6}}};
    for (int64_t tail : {1, 3, 4, 5, 8, 9})
        for (const auto &sh : shapes)
            for (auto t : kTypes) {
                const auto d = problem_builder().src(layout(data_format::nxc, 1, 16 + tail, sh.first)).sizes(sh.second).mode(mode::linear).dt(t);
                ++seed;
                ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d);
                if (!zmm || t != data_type::f32 || tail > 8) continue;
                const std::string want = tail <= 4 ? "vmovups xmm" : "vmovups ymm";
                EXPECT_NE(listing(d).find(want), std::string::npos) << describe(d) << ": " << want;
                ++looked;
            }
    // Narrow pixels (H and W down: the direct kernel's narrow path).
    for (int64_t c : {2, 3, 4, 5, 7, 8, 9})
        for (auto t : kTypes) {
            const auto d = problem_builder().src(layout(data_format::nxc, 1, c, {13, 40})).sizes({6, 17}).mode(mode::linear).dt(t);
            ++seed;
            ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d);
            if (!zmm || t != data_type::f32 || c > 8) continue;
            const jit_conf jc = make_jit_conf(make_problem(d), get_effective_cpu_isa());
            if (!jc.narrow) continue;
            const std::string want = c <= 4 ? "vmovups xmm" : "vmovups ymm";
            EXPECT_NE(listing(d).find(want), std::string::npos) << describe(d) << ": " << want;
            ++looked;
        }
    // Nearest pixel rests: 1-D W up and down, 2-D up.
    for (const auto &[c, t] : {std::pair{int64_t(9), data_type::f32}, {17, data_type::bf16}, {17, data_type::f16}, {9, data_type::bf16}})
        for (const auto &sh : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
                 {{283}, {2061}}, {{139}, {87}}, {{9, 11}, {17, 23}}}) {
            const auto d = problem_builder().src(layout(data_format::nxc, 1, c, sh.first)).sizes(sh.second).mode(mode::nearest).dt(t);
            ++seed;
            ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d);
            const int64_t bytes = c * static_cast<int64_t>(dt_size(t));
            if (!zmm || (bytes != 36 && bytes != 34)) continue;
            const std::string code = listing(d);
            if (code.find("; part row:") == std::string::npos) continue;  // flat rows (windows), not pixels
            EXPECT_NE(code.find("vmovd xmm"), std::string::npos) << describe(d) << ": the 4-byte second move";
            ++looked;
        }
    if (zmm) {
        EXPECT_GE(looked, 12) << "listings checked at 512 bits";
    }
}

// Linear problems, one per (shape, dtype, ctm), at each NT setting and thread count
// (for_nt_and_threads): skip(d, threads) leaves one out, expect(d, conf) checks its kernel's
// configuration, and its output must be the reference's bits (specials in every other case).
struct layout_shape {
    data_format f;
    int64_t c;
    std::vector<int64_t> in, out;
};
void sweep_linear(const std::vector<layout_shape> &shapes, uint32_t seed, const std::function<bool(const op_desc &, int)> &skip,
                  const std::function<void(const op_desc &, const jit_conf &)> &expect) {
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (const layout_shape &sh : shapes)
            for (auto t : kTypes)
                for (auto ct : kCtms) {
                    const auto d = problem_builder().src(layout(sh.f, 1, sh.c, sh.in)).sizes(sh.out).fmt(sh.f).mode(mode::linear).ctm(ct).dt(t);
                    if (skip(d, threads)) continue;
                    expect(d, make_jit_conf(make_problem(d), cpu_isa::avx2));
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 2 == 1), 0)
                        << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                }
    });
}

// 3-D plane-mode blends in D pairs (NCX, separable NXC): planes od and od + 1 with the same D
// taps from one call, sharing each vector's H steps. OW across simd_w and the bf16 pair width
// (8, 16) with tails, odd D ratios, both ctms, 1 and 2 threads (odd plane counts, so a split
// cuts pairs, which then go singly); with NT stores (the second half of for_nt_and_threads)
// the pairs too: f32 stores od + 1 with NT stores, 16-bit plainly.
TEST(jit_bitwise, plane_blend_d_pairs) {
    REQUIRE_AVX2();
    const std::vector<layout_shape> shapes = {
        {data_format::ncx, 3, {3, 5, 4}, {7, 9, 7}},     // D 2.33x, OW = simd_w - 1
        {data_format::ncx, 1, {4, 6, 8}, {9, 12, 16}},   // OW = 2 simd_w: one bf16 pair
        {data_format::ncx, 5, {2, 7, 9}, {5, 13, 17}},   // OW = 2 simd_w + 1
        {data_format::ncx, 2, {5, 3, 3}, {11, 6, 9}},    // OW = simd_w + 1
        {data_format::nxc, 3, {3, 4, 5}, {6, 8, 11}},    // C < simd_w: flat rows of 33
        {data_format::nxc, 16, {3, 8, 8}, {7, 16, 16}},  // separable NXC (bf16: lane split)
        {data_format::nxc, 24, {2, 6, 5}, {5, 12, 10}}};
    sweep_linear(shapes, 700, [](const op_desc &, int) { return false; },
                 [](const op_desc &d, const jit_conf &c) {
                     if (!c.pass_engine && !c.nxc_separable) return;  // f32/f16 NXC C >= simd_w: direct
                     EXPECT_TRUE(c.plane_mode && !c.fuse_h) << describe(d);
                     EXPECT_TRUE(c.d_pairs) << describe(d);
                     EXPECT_EQ(c.pairs_nt, c.nt_eligible) << describe(d);
                 });
    // D down: no pairs.
    const auto down = problem_builder().src({1, 2, 16, 8, 8}).sizes({8, 16, 16}).fmt(data_format::ncx).mode(mode::linear);
    EXPECT_FALSE(make_jit_conf(make_problem(down), cpu_isa::avx2).d_pairs);
}

// The aligned-line sweeps below: each case (mode m) in every dtype (big cases in f32 only: the
// emulated lane runs these tests too) and transform, specials, 1 and 2 threads (these rows
// never take NT stores: they are not whole vectors), dst against a guard page at either end.
// Expects the 512-bit kernels' code from `part` (the part that stores the rows) on to permute
// neighbouring vectors into lines (vpermt2ps, vpermt2w) exactly where aligned(case, dtype)
// says; returns how many 512-bit kernels had that part.
int sweep_aligned_rows(const std::vector<layout_shape> &cases, const std::vector<bool> &big, mode m, uint32_t seed,
                       const std::string &part, const std::function<bool(const layout_shape &, data_type)> &aligned) {
    int seen = 0;
    const int saved = omp_get_max_threads();
    for (int threads : {1, 2}) {
        omp_set_num_threads(threads);
        for (auto t : kTypes)
            for (auto ct : kCtms)
                for (size_t i = 0; i < cases.size(); ++i) {
                    const layout_shape &cs = cases[i];
                    if (big[i] && t != data_type::f32) continue;
                    const auto d = problem_builder().src(layout(cs.f, 1, cs.c, cs.in)).sizes(cs.out).fmt(cs.f).mode(m).ctm(ct).dt(t);
                    ++seed;
                    EXPECT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads;
                    primitive_desc pd(d);
                    if (pd.vector_bits() != 512) continue;
                    const std::string code = primitive(pd).dump_asm();
                    const size_t at = code.find(part);
                    if (at == std::string::npos) continue;
                    ++seen;
                    EXPECT_EQ(code.find("vpermt2", at) != std::string::npos, aligned(cs, t)) << describe(d);
                }
    }
    omp_set_num_threads(saved);
    return seen;
}

// Whether the dispatched tier rounds bf16 natively (the bf16 tier and up; below it, integer
// rounding, whose blends keep split stores).
bool bf16_native() { return get_effective_cpu_isa() >= cpu_isa::avx512_core_bf16; }

// Rows (NCX: OW; flat NXC: OW * C) that are not whole 64-byte lines and at least two lines
// long, of a dst of min_bytes or more.
bool rows_not_lines(const layout_shape &cs, data_type t, int64_t min_bytes) {
    const int64_t es = xt::esize(t), lanes = 64 / es, row = cs.out.back() * (cs.f == data_format::nxc ? cs.c : 1);
    int64_t dst = cs.c * es;
    for (int64_t o : cs.out) dst *= o;
    return row % lanes != 0 && row >= 2 * lanes && dst >= min_bytes;
}

// The 512-bit blends of rows that are not whole lines long store aligned lines, each two
// neighbouring line-sized vectors combined by a vpermt2ps (16-bit: vpermt2w) at the row's
// run-time misalignment, line 0 and the last two under masks (jit_ncx_vblend::aligned_row):
// f32 rows in plane and row mode, 2-D and 3-D (H and D steps), H pairs and D pairs (two
// outputs of different misalignment), separable NXC and flat NXC rows, rows of 2 vectors and 1
// element up to 2 vectors and 15; 16-bit rows of 512 words or more (shorter ones, and bf16
// rounded without the bf16 tier, keep split stores).
TEST(jit_bitwise, blend_rows_stored_aligned) {
    REQUIRE_AVX2();
    const std::vector<layout_shape> cases = {
        {data_format::ncx, 2, {40, 33}, {57, 47}},             // plane mode, rows of 2 vectors + 15
        {data_format::ncx, 1, {3, 40}, {5, 33}},               // 2 vectors + 1
        {data_format::nxc, 5, {20, 30}, {37, 41}},             // flat NXC rows of 205
        {data_format::ncx, 2, {5, 20, 50}, {10, 40, 90}},      // 3-D planes, D pairs
        {data_format::ncx, 1, {200, 100}, {400, 333}},         // row mode, H pairs
        {data_format::nxc, 39, {88, 8}, {360, 3}},             // separable NXC, H pairs
        {data_format::ncx, 1, {4, 120, 300}, {6, 121, 301}},  // 3-D row mode
        // 16-bit rows of 512 words or more (jit_conf::kBlendLinesMinWords)
        {data_format::ncx, 1, {20, 300}, {41, 555}},         // 17 lines + 11 words: the last from one record
        {data_format::nxc, 3, {10, 200}, {21, 301}},         // flat NXC rows of 903
        {data_format::nxc, 17, {9, 33}, {19, 65}},           // separable NXC, c17's rows of 1105
        {data_format::ncx, 1, {3, 4, 300}, {6, 9, 513}},     // 3-D, rows of 16 lines + 1 word
        {data_format::ncx, 1, {84, 600}, {168, 777}}};       // H pairs (row mode: a 263 KB W-plane)
    const std::vector<bool> big = {false, false, false, false, true, true, true, false, false, false, false, false};
    const int seen = sweep_aligned_rows(cases, big, mode::linear, 2600, "blend", [](const layout_shape &cs, data_type t) {
        const int64_t row = cs.out.back() * (cs.f == data_format::nxc ? cs.c : 1);
        return rows_not_lines(cs, t, 0) && (t == data_type::f32 || row >= jit_conf::kBlendLinesMinWords) &&
               (t != data_type::bf16 || bf16_native());
    });
    EXPECT_TRUE(W != 16 || seen >= 2 * int(kCtms.size() * cases.size())) << seen << " 512-bit blends";
}

// The 512-bit nearest plane rows that are not whole lines long store aligned lines
// (jit_ncx_wpass::aligned_row): each line-sized vector combined with the one before by a
// vpermt2ps (16-bit: vpermt2w) at the row's run-time misalignment; with a row pair, the second
// row's lines from the same vectors at its own misalignment. f32 rows of 2 vectors + 1 up to 7
// vectors + 15 (the plane-mode limit), tails that push the last line past the line's lanes
// (t + m > lanes), H up (pairs) and down (singles; a thread's rows may end on a pair's first
// row), 3-D, flat NXC rows; 16-bit rows of 65 and 73 words (an odd count of records: the last
// line-sized vector from one; 73 from short windows, src rows of 15) and 127 (an even count),
// the shorter ones on the old path, as is a dst under jit_conf::kLinesMinBytes.
TEST(jit_bitwise, nearest_plane_rows_stored_aligned) {
    REQUIRE_AVX2();
    const std::vector<layout_shape> cases = {
        {data_format::ncx, 8, {33, 33}, {65, 65}},       // c17's: 4 vectors + 1, pairs
        {data_format::ncx, 12, {31, 29}, {47, 61}},      // c23's: 3 vectors + 13
        {data_format::ncx, 7, {15, 15}, {73, 73}},       // r15to73's: 4 vectors + 9
        {data_format::ncx, 50, {9, 20}, {20, 33}},       // 2 vectors + 1
        {data_format::ncx, 42, {40, 40}, {17, 47}},      // 2 vectors + 15, H down: single rows
        {data_format::ncx, 5, {30, 100}, {61, 127}},     // 7 vectors + 15
        {data_format::ncx, 16, {3, 5, 20}, {7, 9, 37}},  // 3-D, D and H up
        {data_format::nxc, 3, {100, 11}, {900, 13}},     // flat NXC rows of 39
        {data_format::ncx, 2, {33, 33}, {65, 65}}};      // under kLinesMinBytes: split stores
    const int seen = sweep_aligned_rows(cases, std::vector<bool>(cases.size(), false), mode::nearest, 3100, "part wplane",
                                        [](const layout_shape &cs, data_type t) { return rows_not_lines(cs, t, jit_conf::kLinesMinBytes); });
    EXPECT_TRUE(W != 16 || seen >= 2 * int(kTypes.size() * kCtms.size()) * 7) << seen << " 512-bit plane-mode kernels";
}

// 512-bit 16-bit blends store two vectors at a time (jit_ncx_vblend::row, zpairs): 32 words
// rounded by vcvtne2ps2bf16 (bf16 tier) or two vcvtps2ph, one 64-byte store. Rows of 1 to 9
// vectors and tails (remainders 0-3 of the 4-vector trip, an odd vector left alone), rows of
// whole pairs and of an odd vector count with NT stores (the second half of
// for_nt_and_threads: a pair's halves then go apart), H pairs in row mode, 3-D D pairs,
// separable NXC rows; every dtype, both transforms, 1 and 2 threads. On a 512-bit tier that
// rounds bf16 natively, its 16-bit blends of rows of two vectors or more spell the pair.
TEST(jit_bitwise, blend_word_pairs) {
    REQUIRE_AVX2();
    const std::vector<layout_shape> shapes = {
        {data_format::ncx, 2, {9, 12}, {20, 16}},        // 1 vector
        {data_format::ncx, 2, {9, 20}, {20, 48}},        // 3: NT halves apart
        {data_format::ncx, 1, {9, 40}, {19, 64}},        // 4: one trip, NT whole
        {data_format::ncx, 2, {7, 50}, {15, 101}},       // 6 + 5
        {data_format::ncx, 1, {6, 70}, {13, 144}},       // 9: a trip, a pair, an odd one
        {data_format::ncx, 1, {3, 4, 40}, {6, 9, 80}},   // 3-D, D pairs, 5 vectors
        {data_format::ncx, 1, {66, 600}, {132, 1008}},   // row mode (a 266 KB W-plane), H pairs, 63 vectors
        {data_format::nxc, 16, {9, 9}, {19, 17}}};       // separable NXC bf16 (rows of 272)
    // The row-mode shape once per NT setting and thread count, the transforms in turn (the
    // emulated lane runs this test too).
    sweep_linear(
        shapes, 3300,
        [](const op_desc &d, int threads) {
            const bool big = (*d.sizes)[1] > 1000;
            return big && (threads == 2) != (d.coordinate_transformation == kCtms[0]);
        },
        [](const op_desc &, const jit_conf &) {});
    if (W != 16 || get_effective_cpu_isa() < cpu_isa::avx512_core_bf16) return;
    for (const auto &sh : shapes) {
        const auto d = problem_builder().src(layout(sh.f, 1, sh.c, sh.in)).sizes(sh.out).fmt(sh.f).mode(mode::linear).dt(data_type::bf16);
        const std::string code = primitive(primitive_desc(d)).dump_asm();
        const size_t at = code.find("blend");
        if (at == std::string::npos || sh.out.back() < 32) continue;
        EXPECT_NE(code.find("vcvtne2ps2bf16", at), std::string::npos) << describe(d);
    }
}

// Separable 2-D in row mode (the W-row LRU) with H pairs: rows oh and oh + 1 with the same H
// taps from one blend2 call. NCX and flat NXC rows too long for plane mode, separable NXC
// (bf16 at 2x, every dtype at 4x and up); OW tails; odd OH at 2 threads, so a split cuts
// pairs. Executions with NT stores (the second half of for_nt_and_threads) take the pairs too,
// both rows NT: at 512 bits bf16's rows of 272 words (17 vectors) store each pair in halves.
TEST(jit_bitwise, blend_h_pairs) {
    REQUIRE_AVX2();
    const std::vector<layout_shape> shapes = {
        {data_format::nxc, 16, {9, 9}, {19, 17}},      // separable bf16 at 2x (f32, f16: direct)
        {data_format::nxc, 24, {4, 6}, {17, 25}},      // separable at 4x
        {data_format::nxc, 3, {30, 400}, {71, 900}},   // flat rows of 2700: row mode
        {data_format::ncx, 2, {40, 1100}, {97, 2100}}};  // W-plane 336 KiB: row mode
    sweep_linear(
        shapes, 800,
        [](const op_desc &d, int threads) {
            if (d.format == data_format::nxc && d.src_dims.back() == 16 && d.dt != data_type::bf16) return true;
            const bool big = (*d.sizes)[1] > 100;  // once per NT setting and thread count, ctms in turn
            return big && (threads == 2) != (d.coordinate_transformation == kCtms[0]);
        },
        [](const op_desc &d, const jit_conf &c) {
            EXPECT_TRUE((c.pass_engine || c.nxc_separable) && !c.plane_mode && !c.fuse_h) << describe(d);
            EXPECT_TRUE(c.h_pairs && c.pairs_nt == c.nt_eligible) << describe(d);
        });
    // H down: no pairs.
    const auto down = problem_builder().src({1, 2, 80, 1100}).sizes({40, 2100}).fmt(data_format::ncx).mode(mode::linear);
    EXPECT_FALSE(make_jit_conf(make_problem(down), cpu_isa::avx2).h_pairs);
}

// Separable 2-D in row mode with H runs (conf.h_runs): rows with the same H taps (3 to 5 here)
// from one blend_run call, column block by column block. NXC rows of 5376 elements (5 blocks
// and a part block), flat NXC rows of 4203 (at 256 bits a 3-element tail; at 512 they take
// blend lines, so pairs), NCX rows of 4128 in row mode (W-planes of 330 KB); 1 and 2 threads
// (a split cuts a run), NT and plain stores.
TEST(jit_bitwise, blend_h_runs) {
    REQUIRE_AVX2();
    const std::vector<layout_shape> shapes = {
        {data_format::nxc, 21, {9, 40}, {40, 256}},
        {data_format::nxc, 3, {20, 500}, {64, 1401}},
        {data_format::ncx, 2, {20, 1000}, {64, 4128}}};
    sweep_linear(shapes, 1300, [](const op_desc &, int) { return false; },
                 [](const op_desc &d, const jit_conf &c) {  // AVX2's conf: no blend lines
                     EXPECT_TRUE(c.h_pairs && c.h_runs && !c.plane_mode) << describe(d);
                 });
    for (int i : {0, 2})  // whole lines at 512 bits too: the dispatched kernels have the run part
        for (auto t : kTypes) {
            const layout_shape &sh = shapes[i];
            const auto d = problem_builder().src(layout(sh.f, 1, sh.c, sh.in)).sizes(sh.out).fmt(sh.f).mode(mode::linear).dt(t);
            EXPECT_NE(primitive(primitive_desc(d)).dump_asm().find("; part blend_run"), std::string::npos) << describe(d);
        }
    auto runs = [](int64_t c, std::vector<int64_t> in, std::vector<int64_t> out) {
        const auto d = problem_builder().src(layout(data_format::nxc, 1, c, in)).sizes(out).mode(mode::linear);
        return make_jit_conf(make_problem(d), cpu_isa::avx2).h_runs;
    };
    EXPECT_FALSE(runs(21, {9, 40}, {17, 256}));  // H up under 3x: pairs
    EXPECT_FALSE(runs(5, {8, 64}, {64, 512}));   // W rows of 10 KB: both in L1
}

// Linear W-planes made column by column (conf.wplane_cols): each column pair's records in
// registers, then down the slab's rows; AVX2 f32 pair vectors from two lane windows
// (conf.cols_inlane), the row's last ones moved left. An odd count of vectors (the last
// column alone), tails, records whose taps need two windows (align_corners' and half_pixel's
// clamped right edge), a periodic run of more than two phases (5/3), W just over simd_w, 3-D
// slabs, flat NXC rows, a 500-vector row; 1 and 2 threads.
TEST(jit_bitwise, wplane_columns) {
    REQUIRE_AVX2();
    const std::vector<layout_shape> shapes = {
        {data_format::ncx, 3, {33, 33}, {65, 65}},   // c17's ratio: 9 vectors (odd), tail of 1
        {data_format::ncx, 2, {31, 29}, {47, 61}},   // c23's: 8 vectors, tail of 5
        {data_format::ncx, 2, {9, 30}, {20, 50}},    // 5/3: a periodic run of 5 phases
        {data_format::ncx, 3, {5, 10}, {11, 9}},     // W down: align_corners' last tap in two windows
        {data_format::ncx, 1, {4, 15}, {9, 73}},     // r15to73's W
        {data_format::ncx, 2, {3, 5, 11}, {7, 9, 17}},  // 3-D: slabs of one src D slice
        {data_format::nxc, 3, {7, 11}, {15, 23}},    // flat NXC rows of 33 -> 69
        {data_format::ncx, 1, {2, 1900}, {3, 4000}}};  // 500 vectors a row: the group loops, not unrolled code
    int columns = 0, lanes = 0, runs = 0;  // align_corners 33 -> 65 is exactly 2x: f32 in-lane periodic rows
    sweep_linear(shapes, 900, [](const op_desc &, int) { return false; },
                 [&](const op_desc &d, const jit_conf &c) {
                     // Only periodic runs of one or two pair vectors with lane windows keep rows.
                     EXPECT_EQ(c.wplane_cols, !(c.per_inlane && !c.per_lane_split && c.per_p <= 2)) << describe(d);
                     columns += c.wplane_cols;
                     lanes += c.cols_inlane;
                     ++runs;
                 });
    EXPECT_GE(columns, runs - 8);  // 2 in-lane cases x 2 NT settings x 2 thread counts
    EXPECT_GE(lanes, 20);          // f32 columns with lane windows (the last ones moved left)
    const auto c17 = problem_builder().src({1, 3, 33, 33}).sizes({65, 65}).fmt(data_format::ncx).mode(mode::linear);
    EXPECT_TRUE(make_jit_conf(make_problem(c17), cpu_isa::avx2).cols_inlane);
    // W-planes past kColsBudget keep rows (seg_8x: 128 KiB, rows 2 KiB apart).
    const auto seg = problem_builder().src({1, 2, 64, 64}).sizes({512, 512}).fmt(data_format::ncx).mode(mode::linear).dt(data_type::bf16);
    const jit_conf cs = make_jit_conf(make_problem(seg), cpu_isa::avx2);
    EXPECT_TRUE(cs.plane_mode && !cs.wplane_cols);
    // Exact 2x keeps its up2 groups; f32 in-lane periodic runs (4x) keep rows.
    const auto up2 = problem_builder().src({1, 2, 9, 30}).sizes({20, 60}).fmt(data_format::ncx).mode(mode::linear);
    EXPECT_FALSE(make_jit_conf(make_problem(up2), cpu_isa::avx2).wplane_cols);
    const auto x4 = problem_builder().src({1, 2, 20, 20}).sizes({80, 80}).fmt(data_format::ncx).mode(mode::linear);
    const jit_conf c4 = make_jit_conf(make_problem(x4), cpu_isa::avx2);
    EXPECT_TRUE(c4.per_inlane);
    EXPECT_FALSE(c4.wplane_cols);
}

namespace {
using spatial_shapes = std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>;

// Every case of the spatial shapes (in, out) at N = 2 and each C of cs, in format f, all modes,
// transforms and dtypes, under both gather spellings at 1 and 2 threads, must give the
// reference's bits (specials every other case). Its AVX2 kernel must run as a problem whose
// text contains want(shape index, C, mode), keeping its own name, or as itself where want is
// empty.
void sweep_views(data_format f, const spatial_shapes &shapes, const std::vector<int64_t> &cs, uint32_t seed,
                 const std::function<std::string(size_t, int64_t, mode)> &want) {
    for_spellings_and_threads([&](int spelling, int threads) {
        for (size_t i = 0; i < shapes.size(); ++i)
            for (int64_t c : cs)
                for (auto m : kModes)
                    for (auto ct : kCtms)
                        for (auto t : kTypes) {
                            const auto d = problem_builder().src(layout(f, 2, c, shapes[i].first)).sizes(shapes[i].second)
                                               .fmt(f).mode(m).ctm(ct).dt(t);
                            ++seed;
                            ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 2 == 1), 0)
                                << describe(d) << " spelling " << spelling << " threads " << threads;
                            const auto k = create_kernel(make_problem(d), cpu_isa::avx2);
                            const std::string w = want(i, c, m);
                            if (w.empty()) {
                                EXPECT_EQ(k->runs_as(), "") << describe(d);
                            } else {
                                EXPECT_NE(k->runs_as().find(w), std::string::npos) << describe(d) << ": " << k->runs_as();
                                EXPECT_EQ(k->name(), make_kernel_name(make_problem(d), cpu_isa::avx2)) << "the view keeps its own name";
                            }
                        }
    });
}
}  // namespace

// NCX with spatial axes of 1 -> 1 at the end runs as a view (jit_drivers.cpp): every axis
// unit, as NXC N x 1.. x C; else without the trailing unit axes, the linear W pass taking their
// step (fma(0, a, a)) on each tap. The step turns +-inf into NaN and keeps -0, so the specials
// (every other case) tell a view that merely dropped the axes. Both gather spellings, all
// dtypes, modes and transforms, 1 and 2 threads, and shapes that must not be views.
TEST(jit_bitwise, ncx_unit_axes_views) {
    REQUIRE_AVX2();
    const threads_and_spelling_restore restore;
    struct shape {
        std::vector<int64_t> in, out;
        std::string runs_as;  // a fragment of the view's problem; empty: not a view
    };
    const std::vector<shape> shapes = {
        {{1}, {1}, "NXC 2x1x"},                       // 1-D, every axis unit
        {{1, 1}, {1, 1}, "NXC 2x1x1x"},                // 2-D, every axis unit
        {{1, 1, 1}, {1, 1, 1}, "NXC 2x1x1x1x"},
        {{37, 1}, {9, 1}, "NCX 2x"},                   // H down (fused H step in the W pass)
        {{9, 1}, {37, 1}, "NCX 2x"},                   // H up (window path)
        {{61, 1}, {61, 1}, "NCX 2x"},                  // H identity: both taps on the same element
        {{250, 1}, {500, 1}, "NCX 2x"},                // H 2x: no up2 groups under the unit step
        {{5, 17, 1}, {7, 3, 1}, "NCX 2x"},             // 3-D -> 2-D
        {{6, 1, 1}, {11, 1, 1}, "NCX 2x"},             // 3-D -> 1-D: two trailing unit axes
        {{5, 1, 9}, {3, 1, 13}, ""},                   // a unit H with W not unit: not a view
        {{1, 7}, {1, 3}, ""},
        {{4, 1}, {4, 2}, ""},                          // W 1 -> 2: not unit
    };
    spatial_shapes spatial;
    for (const auto &sh : shapes) spatial.push_back({sh.in, sh.out});
    sweep_views(data_format::ncx, spatial, {1, 3, 9}, 900, [&](size_t i, int64_t, mode) { return shapes[i].runs_as; });
    // The unit step is the W pass's only blend: the runs with their own code stay off.
    auto up2 = problem_builder().src({1, 2, 250}).sizes({500}).fmt(data_format::ncx).mode(mode::linear);
    const jit_conf plain = make_jit_conf(make_problem(up2), cpu_isa::avx2), unit = make_jit_conf(make_problem(up2), cpu_isa::avx2, true);
    EXPECT_GT(plain.up2_groups, 0);
    EXPECT_TRUE(unit.unit_w);
    EXPECT_EQ(unit.up2_groups, 0);
    EXPECT_EQ(unit.per_p, 0);
    EXPECT_FALSE(unit.wplane_cols);
    EXPECT_FALSE(make_jit_conf(make_problem(up2.mode(mode::nearest)), cpu_isa::avx2, true).unit_w) << "nearest has no step to take";
}

// Every NCX linear case of the spatial shapes (in, out) at N = 2, C = 1 and 3, both
// transforms and all dtypes, under both gather spellings at 1 and 2 threads: expect(desc,
// AVX2 conf, shape index, spelling) checks the conf, then the case must give the reference's
// bits (specials every other case, guard pages on alternating edges).
namespace {
void sweep_ncx_linear(const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> &shapes, uint32_t seed,
                      const std::function<void(const op_desc &, const jit_conf &, size_t, int)> &expect) {
    for_spellings_and_threads([&](int spelling, int threads) {
        for (size_t i = 0; i < shapes.size(); ++i)
            for (int64_t c : {1, 3})
                for (auto ct : kCtms)
                    for (auto t : kTypes) {
                        const op_desc d = problem_builder().src(layout(data_format::ncx, 2, c, shapes[i].first)).sizes(shapes[i].second)
                                              .fmt(data_format::ncx).mode(mode::linear).ctm(ct).dt(t);
                        expect(d, make_jit_conf(make_problem(d), cpu_isa::avx2), i, spelling);
                        ++seed;
                        ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 2 == 1), 0)
                            << describe(d) << " spelling " << spelling << " threads " << threads;
                    }
    });
}
}  // namespace

// NCX linear with outputs of 1-3 columns, (plane, od) slices of at most two vectors in rows
// shorter than one, or 2-D fused rows that would gather every lane for few outputs, walks each
// plane's whole output volume flat, every lane gathering its own taps (jit_conf::flat): 2-D
// and 3-D, H down (fused rows) and up, volumes that end in a tail vector, all dtypes and
// transforms, specials every other case, both gather spellings (16-bit: dword gathers or
// word inserts, both in place), 1 and 2 threads; and the shapes that keep rows (rows of a whole
// vector, slices over two vectors, rows read by windows, gathered rows of 7).
TEST(jit_bitwise, ncx_flat_volumes) {
    REQUIRE_AVX2();
    const threads_and_spelling_restore restore;
    struct shape {
        std::vector<int64_t> in, out;
        bool flat;
    };
    const std::vector<shape> shapes = {
        {{37, 7}, {9, 1}, true},           // H down: fused rows of 1
        {{41, 5}, {13, 3}, true},          // fused rows of 3, 39 outputs: a tail of 7
        {{9, 3}, {37, 1}, true},           // H up, 1 column
        {{7, 2}, {3, 2}, true},            // 6 outputs: the tail alone
        {{6, 5, 4}, {3, 7, 2}, true},      // 3-D, H up with 2 columns: slices of 14
        {{41, 9, 5}, {16, 3, 1}, true},    // 3-D, 48 outputs
        {{5, 30, 2}, {7, 12, 1}, true},
        {{24, 4, 39}, {4, 1, 4}, true},    // 3-D, D down, slices of one row of 4
        {{5, 8, 9}, {3, 3, 5}, true},      // slices of 15 (a vector and a tail)
        {{6, 6}, {4, 4}, true},            // 2-D plane of 16, rows of 4
        {{3, 3}, {2, 7}, true},            // rows of 7, W up
        {{9, 3}, {37, 2}, false},          // H up with 2 columns, 74 outputs: rows stay
        {{221, 2}, {69, 4}, true},         // fused rows of 4 that gather every lane
        {{200, 4}, {40, 6}, true},         // ... of 6, 1.33x the loads by rows
        {{200, 6}, {40, 7}, false},        // ... of 7, 1.14x: rows stay
        {{200, 8}, {40, 6}, false},        // fused rows read by windows stay rows
        {{4, 14, 3}, {2, 7, 6}, true},     // 3-D fused rows that gather, D down
        {{3, 14, 3}, {6, 7, 6}, false},    // ... D up: od share H steps, rows stay
        {{12, 12, 5}, {5, 4, 6}, true},    // slices of 24, D down: fused rows that gather
        {{12, 12, 12}, {20, 4, 6}, false}, // slices of 24, D up: rows stay
        {{10, 10}, {2, 8}, false},         // rows of a whole vector stay rows
    };
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> spatial;
    for (const auto &sh : shapes) spatial.push_back({sh.in, sh.out});
    sweep_ncx_linear(spatial, 1500, [&](const op_desc &d, const jit_conf &cf, size_t i, int) {
        EXPECT_EQ(cf.flat, shapes[i].flat) << describe(d) << " fused " << cf.fuse_h;
    });
    // The same rule at 512 bits: rows of 8 use half a vector.
    const auto gathered3 = problem_builder().src({1, 111, 4, 14, 52}).sizes({2, 7, 8}).fmt(data_format::ncx).mode(mode::linear);
    EXPECT_TRUE(make_jit_conf(make_problem(gathered3), kernel_isa(cpu_isa::avx512_core)).flat);
    EXPECT_FALSE(make_jit_conf(make_problem(gathered3), cpu_isa::avx2).flat);  // rows of one whole vector
}

// Flat volumes of src planes past 2^18 elements: the taps are read in place, so any volume the
// s32 gather indices reach goes flat (r525to5 ran 0.42-0.44x the time flat at 512 bits). With
// the insert spelling the half_pixel rows of r525to5 keep their tap pairs (one load for both
// taps) and stay rows; align_corners clamps the last column (no pair vector) and goes flat.
// Both spellings, transforms and dtypes, 1 and 2 threads, at the dispatched width; not in the
// emulator lane (the code is the small volumes' and the src fills would take minutes there).
TEST(jit_bitwise, ncx_flat_volumes_of_large_planes) {
    REQUIRE_AVX2();
    const threads_and_spelling_restore restore;
    struct shape {
        std::vector<int64_t> in, out;
        bool pairs;  // half_pixel keeps tap-pair rows under the insert spelling
    };
    const shape shapes[] = {{{525, 525}, {5, 5}, true}, {{700, 600}, {40, 2}, false}, {{40, 100, 100}, {7, 4, 2}, false}};
    uint32_t seed = 4400;
    for_spellings_and_threads([&](int spelling, int threads) {
        for (const shape &sh : shapes)
            for (auto ct : kCtms)
                for (auto t : kTypes) {
                    const op_desc d = problem_builder().src(layout(data_format::ncx, 1, 1, sh.in)).sizes(sh.out)
                                          .fmt(data_format::ncx).mode(mode::linear).ctm(ct).dt(t);
                    const bool rows = sh.pairs && spelling == 1 && ct == coordinate_transformation_mode::half_pixel;
                    EXPECT_EQ(make_jit_conf(make_problem(d), cpu_isa::avx2).flat, !rows) << describe(d) << " spelling " << spelling;
                    if (W == 16) {
                        EXPECT_TRUE(make_jit_conf(make_problem(d), cpu_isa::avx512_core).flat) << describe(d);
                    }
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " spelling " << spelling << " threads " << threads;
                }
    });
}

// NXC with C = 1 runs as NCX N x 1 x X.. (jit_drivers.cpp, single_channel_view) where NCX has
// a path for its short rows: the unit-axis view (then a view of a view) or the flat volumes.
// Elsewhere, with C > 1 and with every axis unit, it stays NXC. All dtypes, modes and
// transforms, specials every other case, both gather spellings, 1 and 2 threads.
TEST(jit_bitwise, nxc_single_channel_views) {
    REQUIRE_AVX2();
    const threads_and_spelling_restore restore;
    struct shape {
        std::vector<int64_t> in, out;
        std::string runs_as;  // with C = 1, a fragment of the problem it runs as; empty: none
        std::string linear_runs_as;  // where linear differs (flat is linear only)
    };
    const std::vector<shape> shapes = {
        {{38, 38, 1}, {91, 16, 1}, "NCX 2x1x38x38->", "NCX 2x1x38x38->"},  // then without the unit W
        {{9, 1}, {37, 1}, "NCX 2x1x9->", "NCX 2x1x9->"},
        {{5, 17, 1}, {7, 3, 1}, "NCX 2x1x5x17->", "NCX 2x1x5x17->"},
        // Nearest always runs as NCX (single_channel_view); linear where a path differs.
        {{381, 3}, {142, 1}, "NCX 2x1x381x3->", "NCX 2x1x381x3->"},  // linear: flat (1 column)
        {{6, 6}, {4, 4}, "NCX 2x1x6x6->", "NCX 2x1x6x6->"},          // linear: flat (a small slice)
        {{30, 20}, {100, 5}, "NCX 2x1x30x20->", ""},                 // linear rows: stays NXC
        {{26, 232}, {85, 23}, "NCX 2x1x26x232->", ""},               // nearest: no narrow pixels
        {{1, 1}, {1, 1}, "", ""},                                    // every axis unit: stays NXC
    };
    spatial_shapes spatial;
    for (const auto &sh : shapes) spatial.push_back({sh.in, sh.out});
    sweep_views(data_format::nxc, spatial, {1, 3}, 2200, [&](size_t i, int64_t c, mode m) {
        return c > 1 ? std::string() : m == mode::nearest ? shapes[i].runs_as : shapes[i].linear_runs_as;
    });
}

// Puts the narrow-pixel rules back (and clears the cache, whose key does not hold them) when a
// test that forces them ends, a failed assertion included.
struct narrow_restore {
    ~narrow_restore() {
        set_narrow_for_testing(-1);
        clear_cache();
    }
};

// NXC linear with C < simd_w on the direct kernel (jit_conf::narrow): each pixel a full
// vector from its taps' pixels, stored whole over the pixels after it; a row's last edge_px
// pixels loaded backwards, their lanes moved down and stored exactly (AVX2), or loaded and
// stored under an opmask of C lanes (AVX-512). First the rule's picks at both widths, then the
// kernel forced on wherever a row can take it, at the dispatched width: C = 2, 3, 5 and 7 (and
// 9, 12 and 15 under 16 lanes), edges of 1 to 4 pixels and rows that are all edge, W up and
// down, 1-D to 3-D, the pair, run and D-pair kernels (2x H and D), all dtypes and transforms,
// specials every third case, 1 to 3 threads, guard pages after src and dst or before them.
TEST(jit_bitwise, nxc_narrow_pixels) {
    REQUIRE_AVX2();
    const narrow_restore restore_narrow;
    const threads_and_spelling_restore restore_threads;
    auto conf_at = [](const op_desc &d, kernel_isa k) { return make_jit_conf(make_problem(d), k); };
    auto conf = [&](const op_desc &d) { return conf_at(d, cpu_isa::avx2); };
    auto nxc = [](int64_t c, std::vector<int64_t> in, std::vector<int64_t> out, data_type t = data_type::f32) {
        return problem_builder().src(layout(data_format::nxc, 1, c, in)).sizes(std::move(out)).mode(mode::linear).dt(t);
    };
    EXPECT_TRUE(conf(nxc(3, {1080, 1920}, {224, 224})).narrow);  // img_down
    EXPECT_TRUE(conf(nxc(7, {18, 10, 31}, {5, 3, 14})).narrow);
    EXPECT_TRUE(conf(nxc(5, {90, 300}, {30, 100}, data_type::bf16)).narrow);
    EXPECT_FALSE(conf(nxc(3, {90, 300}, {30, 100}, data_type::bf16)).narrow);  // emulated rounding: C >= 4
    // Rounded natively (the bf16 tier's 256-bit kernels), bf16 takes f32's rule.
    const kernel_isa bf16_ymm(cpu_isa::avx512_core_bf16, true);
    EXPECT_TRUE(conf_at(nxc(3, {90, 300}, {30, 100}, data_type::bf16), bf16_ymm).narrow);
    EXPECT_TRUE(conf_at(nxc(3, {1080, 1920}, {224, 224}, data_type::bf16), bf16_ymm).narrow);
    EXPECT_FALSE(conf(nxc(3, {224, 224}, {512, 512})).narrow);     // W up: windows
    EXPECT_FALSE(conf(nxc(3, {16, 40, 60}, {16, 30, 40})).narrow);  // 3-D, W-planes shared
    EXPECT_FALSE(conf(nxc(9, {1, 367}, {1, 122})).narrow);          // C >= 8: whole vectors at 256 bits
    // At 512 bits: C up to 15; bf16 rounded in integer code from C = 3, natively from 2.
    const kernel_isa zmm(cpu_isa::avx512_core), bf16_zmm(cpu_isa::avx512_core_bf16);
    for (int64_t c : {3, 9, 15}) {
        const jit_conf z = conf_at(nxc(c, {1, 367}, {1, 122}), zmm);
        EXPECT_TRUE(z.narrow && !z.pass_engine && z.edge_px > 0) << "C = " << c;
    }
    EXPECT_FALSE(conf_at(nxc(16, {1, 367}, {1, 122}), zmm).narrow);  // a whole vector
    EXPECT_TRUE(conf_at(nxc(3, {1080, 1920}, {224, 224}, data_type::bf16), zmm).narrow);
    EXPECT_FALSE(conf_at(nxc(2, {90, 300}, {30, 100}, data_type::bf16), zmm).narrow);
    EXPECT_TRUE(conf_at(nxc(2, {90, 300}, {30, 100}, data_type::bf16), bf16_zmm).narrow);
    EXPECT_FALSE(conf_at(nxc(4, {16, 40, 60}, {16, 30, 40}, data_type::bf16), zmm).narrow);  // 3-D shared: C >= 6
    EXPECT_FALSE(conf_at(nxc(3, {16, 40, 60}, {16, 30, 40}), zmm).narrow);
    EXPECT_FALSE(conf_at(nxc(3, {224, 224}, {512, 512}), zmm).narrow);  // W up: windows
    // Windows whose W table outgrows L1 (20 bytes per output) yield from C = 4, at both widths.
    for (const kernel_isa k : {kernel_isa(cpu_isa::avx2), zmm}) {
        EXPECT_TRUE(conf_at(nxc(6, {1, 2837}, {1, 20614}), k).narrow) << k.vector_bits();
        EXPECT_TRUE(conf_at(nxc(4, {100, 283}, {200, 2061}), k).narrow) << k.vector_bits();
        EXPECT_FALSE(conf_at(nxc(3, {1, 2837}, {1, 20614}), k).narrow) << k.vector_bits();  // C = 3 keeps them
        EXPECT_FALSE(conf_at(nxc(6, {64, 64}, {128, 128}), k).narrow) << k.vector_bits();    // 15 KB
    }
    EXPECT_TRUE(conf_at(nxc(12, {1, 2837}, {1, 20614}), zmm).narrow);
    EXPECT_FALSE(conf_at(nxc(12, {64, 64}, {128, 128}), zmm).narrow);  // 30 KB
    // Big tables whose W steps serve 3+ output rows each (16-bit at 512 bits: 2+) stay flat
    // where C * (1.5 + 14 / r) < 80 (flat_table_amortized): 8x up at any C, 3x up to C = 12.
    for (const kernel_isa k : {kernel_isa(cpu_isa::avx2), zmm}) {
        EXPECT_FALSE(conf_at(nxc(5, {64, 64}, {512, 512}), k).narrow) << k.vector_bits();  // 51 KB
        EXPECT_TRUE(conf_at(nxc(5, {64, 64}, {128, 512}), k).narrow) << k.vector_bits();   // r = 2
        EXPECT_EQ(conf_at(nxc(5, {64, 64}, {128, 512}, data_type::f16), k).narrow, k.vector_bits() == 256);
    }
    EXPECT_TRUE(conf_at(nxc(10, {64, 64}, {128, 512}, data_type::f16), zmm).narrow);  // 85 at r = 2
    EXPECT_FALSE(conf_at(nxc(12, {64, 64}, {512, 512}), zmm).narrow);
    EXPECT_FALSE(conf_at(nxc(10, {64, 200}, {192, 600}), zmm).narrow);
    EXPECT_TRUE(conf_at(nxc(14, {64, 200}, {192, 600}), zmm).narrow);
    for (auto t : kTypes) {  // the flat rows with a big table, 8x up, bit for bit
        const auto up8 = nxc(5, {6, 520}, {48, 540}, t);
        EXPECT_FALSE(conf(up8).narrow) << describe(up8);
        EXPECT_EQ(check_case(up8, 91u, true), 0) << describe(up8);
    }
    for (int64_t c : {6, 12}) {
        const auto big = nxc(c, {3, 2837}, {2, 20614}).dt(data_type::f16);
        EXPECT_EQ(check_case(big, 77u + static_cast<uint32_t>(c), true), 0) << describe(big);
    }
    set_narrow_for_testing(1);
    clear_cache();
    EXPECT_FALSE(conf(nxc(3, {9, 2}, {4, 1})).narrow);  // a src row of 6 elements
    // Masked edges need no backward load: the same row is narrow at 512 bits, all edge.
    const jit_conf short_row = conf_at(nxc(3, {9, 2}, {4, 1}), zmm);
    EXPECT_TRUE(short_row.narrow && short_row.edge_px == 1);
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
        {{13}, {5}},        {{40}, {17}},          {{4}, {9}},           {{9, 13}, {4, 6}},
        {{6, 31}, {12, 14}}, {{5, 40}, {5, 40}},   {{7, 8}, {3, 2}},     {{11, 6}, {22, 3}},
        {{3, 5, 17}, {6, 4, 7}}, {{5, 6, 9}, {3, 4, 20}}, {{2, 3, 12}, {2, 3, 1}}};
    std::vector<int64_t> channels = {2, 3, 5, 7};
    if (W == 16) channels.insert(channels.end(), {9, 12, 15});
    uint32_t seed = 3100;
    int64_t narrow = 0, edges = 0, runs = 0, d_pairs = 0;
    for (int threads : {1, 2, 3}) {
        omp_set_num_threads(threads);
        for (int64_t c : channels)
            for (auto t : kTypes)
                for (auto ct : kCtms)
                    for (const auto &cs : cases) {
                        const auto d = nxc(c, cs.first, cs.second, t).ctm(ct);
                        const primitive_desc pd(d);
                        const jit_conf cf = conf_at(d, kernel_isa(pd.isa(), pd.runs_ymm()));
                        narrow += cf.narrow;
                        edges += cf.narrow && cf.edge_px == cs.second.back();
                        runs += cf.narrow && cf.same_run > 0;
                        d_pairs += cf.narrow && cf.d_pairs;
                        ++seed;
                        ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads;
                    }
    }
    const int64_t narrow_c = std::count_if(channels.begin(), channels.end(), [](int64_t c) { return c < W; });
    EXPECT_GT(narrow, 3 * narrow_c * 3 * 2 * 9);  // most shapes of every C, dtype and transform
    EXPECT_GT(edges, 0);                          // rows that are all edge
    EXPECT_GT(runs, 0);                           // same-taps runs (2x H half_pixel)
    EXPECT_GT(d_pairs, 0);                        // D pairs (2x D)
}

// Nearest NXC with C < simd_w on the direct kernel (narrow_nearest_pays): each pixel copied by
// two overlapping moves (one for 2 bytes). First the rule's picks, then forced on wherever a
// row can take it: every C from 1 to simd_w - 1 at the dispatched width (pixels of 2 to 60
// bytes: word, dword, qword, xmm and ymm pieces), W up and down, 1-D to 3-D (row pairs and
// row copies with H up), all dtypes and transforms, 1 and 2 threads, guard pages after or
// before the buffers.
TEST(jit_bitwise, nxc_nearest_narrow_pixels) {
    REQUIRE_AVX2();
    const narrow_restore restore_narrow;
    const threads_and_spelling_restore restore_threads;
    auto nxc = [](int64_t c, std::vector<int64_t> in, std::vector<int64_t> out, data_type t = data_type::f32) {
        return problem_builder().src(layout(data_format::nxc, 1, c, in)).sizes(std::move(out)).mode(mode::nearest).dt(t);
    };
    auto direct = [](const op_desc &d) { return !make_jit_conf(make_problem(d), cpu_isa::avx2).pass_engine; };
    EXPECT_TRUE(direct(nxc(3, {1080, 1920}, {224, 224})));  // img_down: the flat rows gather
    EXPECT_TRUE(direct(nxc(5, {40}, {17}, data_type::bf16)));
    EXPECT_FALSE(direct(nxc(3, {224, 224}, {512, 512})));  // img_up: windows
    EXPECT_FALSE(direct(nxc(3, {15, 15}, {15, 15})));      // identity: windows
    // Windows whose table outgrows 192 KiB (8 bytes per output) yield from C = 6, at both widths.
    for (const kernel_isa k : {kernel_isa(cpu_isa::avx2), kernel_isa(cpu_isa::avx512_core)}) {
        auto direct_at = [&](const op_desc &d) { return !make_jit_conf(make_problem(d), k).pass_engine; };
        EXPECT_TRUE(direct_at(nxc(6, {1, 2837}, {1, 20614}))) << k.vector_bits();
        EXPECT_FALSE(direct_at(nxc(3, {1, 2837}, {1, 20614}))) << k.vector_bits();  // C = 3 keeps them
        EXPECT_FALSE(direct_at(nxc(6, {64, 200}, {128, 600}))) << k.vector_bits();    // 29 KB
        EXPECT_FALSE(direct_at(nxc(6, {100, 283}, {200, 2061}))) << k.vector_bits();  // 99 KB
    }
    EXPECT_FALSE(make_jit_conf(make_problem(nxc(9, {1, 2837}, {1, 20614})), cpu_isa::avx512_core).pass_engine);
    EXPECT_EQ(check_case(nxc(9, {2, 2837}, {3, 20614}, data_type::bf16), 4099, true), 0);
    set_narrow_for_testing(1);
    clear_cache();
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
        {{13}, {5}}, {{4}, {9}}, {{1}, {3}}, {{9, 13}, {4, 6}}, {{3, 5}, {7, 12}}, {{3, 5, 17}, {6, 4, 7}}, {{2, 3, 12}, {2, 3, 1}}};
    uint32_t seed = 4100;
    for (int threads : {1, 2}) {
        omp_set_num_threads(threads);
        for (int64_t c = 1; c < W; ++c)
            for (auto t : kTypes)
                for (auto ct : kCtms)
                    for (const auto &cs : cases) {
                        const auto d = nxc(c, cs.first, cs.second, t).ctm(ct);
                        EXPECT_TRUE(direct(d) || c >= 8) << describe(d);  // (AVX2's conf: C < 8 there)
                        ++seed;
                        ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads;
                    }
    }
}

// NCX linear W-planes on the gather path with rows of one vector or less are made flat
// (jit_conf::flat_w), the blends reading rows OW elements apart: 2-D and 3-D, OW from 1 to 8,
// W up and down, planes whose flat length ends in a tail, all dtypes and transforms, specials every
// other case, both spellings, 1 and 2 threads.
TEST(jit_bitwise, ncx_flat_wplanes) {
    REQUIRE_AVX2();
    const threads_and_spelling_restore restore;
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
        {{23, 2}, {41, 3}}, {{30, 3}, {60, 3}}, {{9, 5}, {17, 7}}, {{12, 7}, {19, 8}},
        {{33, 6}, {40, 1}}, {{7, 4}, {15, 2}}, {{3, 20, 6}, {5, 30, 8}}, {{4, 9, 3}, {3, 13, 5}},
    };
    sweep_ncx_linear(shapes, 1800, [&](const op_desc &d, const jit_conf &cf, size_t, int) {
        EXPECT_EQ(cf.flat_w, !cf.flat)
            << describe(d) << " plane " << cf.plane_mode << " fused " << cf.fuse_h << " window " << cf.window;
    });
}

// The gather path has two spellings (vgatherdps; index loads + vinsertps, chosen on AMD): both
// read the same elements, so both must give the reference's bits on every host.
TEST(jit_bitwise, both_gather_spellings) {
    REQUIRE_AVX2();
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases;
    for (int64_t i : {1, W - 1, 3 * W + 5, 61})
        for (int64_t o : {1, W + 1, 2 * W + 3}) cases.push_back({{i}, {o}});  // downsampling and IW < simd_w
    cases.push_back({{21, 35}, {3, 5}});     // fused H step
    cases.push_back({{5, 35}, {9, 5}});      // plane mode, W gathered
    cases.push_back({{3, 5, 35}, {4, 9, 5}});
    for (int spelling : {0, 1}) {
        set_gather_spelling_for_testing(spelling);
        clear_cache();
        sweep(cases, {1, 3});
    }
    set_gather_spelling_for_testing(-1);
    clear_cache();
}

// Tap pairs: where i1 = i0 + 1 in every lane, one load brings both taps (the insert spelling:
// one load from i0 per lane; the window path: one window for both). The pairs stop at the
// first vector that holds a clamped output (align_corners' last one, half_pixel upsampling's
// last few), whose lanes load each tap apart; the tail pairs too when all its real lanes
// qualify. The last src row sits against a guard page: a pair that read past the row would
// fault.
TEST(jit_bitwise, linear_tap_pairs) {
    REQUIRE_AVX2();
    struct spelling_reset {  // also when an assertion ends the test early
        ~spelling_reset() {
            set_gather_spelling_for_testing(-1);
            clear_cache();
        }
    } reset;
    auto conf = [](std::vector<int64_t> src, std::vector<int64_t> out, coordinate_transformation_mode ct, data_format f) {
        const auto d = problem_builder().src(src).sizes(out).fmt(f).mode(mode::linear).ctm(ct);
        return make_jit_conf(make_problem(d), cpu_isa::avx2);
    };
    const auto hp = coordinate_transformation_mode::half_pixel, ac = coordinate_transformation_mode::align_corners;
    set_gather_spelling_for_testing(1);
    const jit_conf img = conf({1, 3, 1080, 1920}, {224, 224}, hp, data_format::ncx);
    EXPECT_EQ(img.ow_full, 28);
    EXPECT_EQ(img.pair_vecs, 28);
    EXPECT_EQ(conf({1, 3, 1080, 1920}, {224, 224}, ac, data_format::ncx).pair_vecs, 27);  // o = 223 is column 1919
    EXPECT_EQ(conf({1, 1, 3}, {17}, hp, data_format::ncx).pair_vecs, 1);  // o >= 14 clamp to column 2
    EXPECT_FALSE(conf({1, 1, 3}, {17}, hp, data_format::ncx).pair_tail);
    const jit_conf r525 = conf({1, 16, 525, 525}, {5, 5}, hp, data_format::ncx);  // all tail
    EXPECT_EQ(r525.pair_vecs, 0);
    EXPECT_TRUE(r525.pair_tail);
    EXPECT_EQ(conf({1, 3, 1080, 1920}, {224, 224}, hp, data_format::nxc).pair_vecs, 0);  // flat rows: taps C apart
    // Window pairs (any spelling): both taps in one window of tap 0's base.
    const jit_conf up = conf({1, 3, 224, 224}, {512, 512}, hp, data_format::ncx);
    EXPECT_TRUE(up.window);
    EXPECT_EQ(up.ow_full, 64);
    EXPECT_EQ(up.pair_vecs, 63);  // o = 511 is column 223
    const jit_conf up3 = conf({1, 224, 224, 3}, {512, 512}, hp, data_format::nxc);  // flat_c 3
    EXPECT_TRUE(up3.window);
    EXPECT_GT(up3.pair_vecs, 0);  // a prefix: it ends at the first vector whose taps span 9+ elements
    EXPECT_LT(up3.pair_vecs, up3.ow_full);
    EXPECT_EQ(conf({1, 3, 40, 40}, {80, 80}, ac, data_format::ncx).pair_vecs, 9);
    const jit_conf down4 = conf({1, 3, 64, 64}, {16, 16}, hp, data_format::ncx);  // taps 4 apart: no window
    EXPECT_FALSE(down4.window);
    EXPECT_EQ(down4.pair_vecs, 2);  // gather pairs
    set_gather_spelling_for_testing(0);
    EXPECT_EQ(conf({1, 3, 1080, 1920}, {224, 224}, hp, data_format::ncx).pair_vecs, 0);
    EXPECT_EQ(conf({1, 3, 64, 64}, {16, 16}, hp, data_format::ncx).pair_vecs, 0);
    EXPECT_EQ(conf({1, 3, 224, 224}, {512, 512}, hp, data_format::ncx).pair_vecs, 63);  // window pairs either way
    set_gather_spelling_for_testing(1);
    clear_cache();
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
        {{61}, {16}}, {{61}, {19}}, {{3}, {17}}, {{2}, {9}},  // edges inside and after the pairs
        {{525, 525}, {5, 5}}, {{61}, {5}},                    // pairs in the tail
        {{40, 61}, {7, 16}},                                  // fused H step
        {{5, 61}, {9, 24}},                                   // plane mode
        {{3, 5, 61}, {4, 9, 16}},
        {{24}, {61}}, {{9, 40}, {17, 80}}};                   // window pairs
    uint32_t seed = 300;
    for (const auto &cs : cases)
        for (auto ct : kCtms)
            for (auto t : kTypes) {
                const auto d = problem_builder().src(layout(data_format::ncx, 1, 2, cs.first)).sizes(cs.second).fmt(data_format::ncx).mode(mode::linear).ctm(ct).dt(t);
                const jit_conf c = make_jit_conf(make_problem(d), cpu_isa::avx2);
                EXPECT_TRUE(c.gather_by_insert || c.window) << describe(d);
                ++seed;
                ASSERT_EQ(check_case(d, seed, true, seed % 3 == 0), 0) << describe(d) << " pair_vecs=" << c.pair_vecs;
            }
}

namespace {
// The conf of a linear problem at a tier, for the conf asserts below.
jit_conf linear_conf(std::vector<int64_t> src, std::vector<int64_t> out, cpu_isa isa = cpu_isa::avx2,
                     coordinate_transformation_mode ct = coordinate_transformation_mode::half_pixel,
                     data_format f = data_format::ncx) {
    const auto d = problem_builder().src(src).sizes(out).fmt(f).mode(mode::linear).ctm(ct);
    return make_jit_conf(make_problem(d), isa);
}
// The tier whose kernels a sweep runs on this host.
jit_conf host_conf(const op_desc &d) {
    return make_jit_conf(make_problem(d), best_host_isa() >= cpu_isa::avx512_core ? cpu_isa::avx512_core : cpu_isa::avx2);
}
}  // namespace

// Linear W upsampling by exactly 2x (half_pixel, NCX): groups of two vectors from fixed
// weights and three unaligned loads, no table (jit_conf::up2_*). The run starts after vector 0
// (output 0 is clamped) and stops short of the clamped right edge; the W pass's other vectors,
// pairs or not, come before and after it. Swept around simd_w for both tiers' widths, 1-D (the
// W pass writes dst, in dtype, NT or not), 2-D and 3-D (W-planes and W rows), with specials.
TEST(jit_bitwise, linear_up2_groups) {
    REQUIRE_AVX2();
    const auto hp = coordinate_transformation_mode::half_pixel;
    const jit_conf fpn = linear_conf({1, 256, 32, 32}, {64, 64}, cpu_isa::avx2);
    EXPECT_EQ(fpn.up2_first, 1);   // vector 0 holds output 0, whose taps are clamped
    EXPECT_EQ(fpn.up2_groups, 3);  // vectors 1-6; 7 holds output 63 (clamped)
    const jit_conf fpn512 = linear_conf({1, 256, 32, 32}, {64, 64}, cpu_isa::avx512_core);
    EXPECT_EQ(fpn512.up2_first, 1);
    EXPECT_EQ(fpn512.up2_groups, 1);  // vectors 1-2 of 4
    EXPECT_EQ(linear_conf({1, 3, 40, 40}, {80, 80}, cpu_isa::avx2).up2_groups, 4);  // vectors 1-8 of 10
    EXPECT_EQ(linear_conf({1, 3, 40, 40}, {80, 80}, cpu_isa::avx2, coordinate_transformation_mode::align_corners).up2_groups, 0);
    EXPECT_EQ(linear_conf({1, 3, 40, 40}, {80, 81}, cpu_isa::avx2).up2_groups, 0);        // not exactly 2x
    EXPECT_EQ(linear_conf({1, 40, 40, 3}, {80, 80}, cpu_isa::avx2, coordinate_transformation_mode::half_pixel, data_format::nxc).up2_groups, 0);  // flat_c 3
    EXPECT_EQ(linear_conf({1, 3, 12}, {24}, cpu_isa::avx2).up2_groups, 0);  // vectors 1 and 2 of 3: 2 is the edge
    EXPECT_EQ(linear_conf({1, 3, 13}, {26}, cpu_isa::avx2).up2_groups, 1);
    EXPECT_TRUE(linear_conf({1, 3, 1080, 40}, {224, 80}, cpu_isa::avx2).fuse_h);  // fused: up2 not generated
    int64_t seen = 0;
    uint32_t seed = 700;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (auto t : kTypes)
            for (const auto &sp : std::vector<std::vector<int64_t>>{
                     {12}, {13}, {15}, {16}, {17}, {24}, {25}, {31}, {32}, {33}, {40}, {47},
                     {5, 16}, {7, 17}, {9, 33}, {3, 40}, {3, 5, 24}, {2, 3, 17}}) {
                std::vector<int64_t> out(sp);
                for (auto &x : out) x *= 2;
                const auto d = problem_builder().src(layout(data_format::ncx, 1, 3, sp)).sizes(out).fmt(data_format::ncx).mode(mode::linear).ctm(hp).dt(t);
                seen += host_conf(d).up2_groups > 0;
                ++seed;
                ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
            }
    });
    EXPECT_GT(seen, 0);
}

// Periodic W runs (jit_conf::per_*): records that repeat every per_p vectors up to a base step
// keep their permutes and weights in registers (per_p <= 2), or go phase by phase in blocks of
// kPerBlockBytes of output (per_p > 2; with NT stores, reread from the run's first records).
// Swept over integer and rational ratios, pairs (one window) and not (8 outputs from 7 src:
// both taps need 9 elements), NCX and NXC flat rows, 1-D (the W pass writes dst: every dtype,
// NT), 2-D and 3-D, runs of several blocks and a partial one, with specials and guard pages.
TEST(jit_bitwise, linear_periodic_run) {
    REQUIRE_AVX2();
    const jit_conf up = linear_conf({1, 3, 224, 224}, {512, 512});
    EXPECT_EQ(up.per_p, 2);  // 16 outputs from 7 src: two vectors
    EXPECT_EQ(up.per_step, 7);
    EXPECT_EQ(up.per_first, 1);
    EXPECT_EQ(up.per_periods, 30);
    EXPECT_TRUE(up.per_pairs);
    // Lane windows (per_inlane): outputs 0-3 take src 0-2 of the period, 4-7 src 1-3, then
    // 8-11 src 3-5 and 12-15 src 4-6 (half_pixel, 7/16 src per output, clamped at neither end).
    EXPECT_TRUE(up.per_inlane);
    EXPECT_FALSE(up.per_lane_split);
    EXPECT_EQ(up.per_lane_off[0][0][1] - up.per_lane_off[0][0][0], 1);
    EXPECT_EQ(up.per_lane_off[1][0][0] - up.per_lane_off[0][0][0], 3);
    for (int ph = 0; ph < 2; ++ph)
        for (int l = 0; l < 8; ++l) {
            EXPECT_LE(up.per_lane_idx[ph][1][l], 3);
            EXPECT_EQ(up.per_lane_idx[ph][1][l], up.per_lane_idx[ph][0][l] + 1);
        }
    const jit_conf up512 = linear_conf({1, 3, 224, 224}, {512, 512}, cpu_isa::avx512_core);
    EXPECT_EQ(up512.per_p, 1);  // one zmm
    EXPECT_EQ(up512.per_step, 7);
    EXPECT_FALSE(up512.per_inlane);
    const jit_conf seg = linear_conf({1, 21, 64, 64}, {512, 512});
    EXPECT_EQ(seg.per_p, 1);
    EXPECT_EQ(seg.per_step, 1);
    EXPECT_TRUE(seg.per_inlane);
    // 16-bit windows select with vpshufb on AVX2 (the tables then hold byte controls).
    auto dt_conf = [](data_type dt, cpu_isa isa) {
        return make_jit_conf(make_problem(problem_builder().src({1, 3, 224, 224}).sizes({512, 512}).fmt(data_format::ncx)
                                              .mode(mode::linear).dt(dt)),
                             isa);
    };
    EXPECT_TRUE(dt_conf(data_type::bf16, cpu_isa::avx2).shuf_windows);
    EXPECT_TRUE(dt_conf(data_type::f16, cpu_isa::avx2).shuf_windows);
    EXPECT_FALSE(dt_conf(data_type::f32, cpu_isa::avx2).shuf_windows);
    EXPECT_FALSE(dt_conf(data_type::bf16, cpu_isa::avx512_core).shuf_windows);
    const jit_conf r87 = linear_conf({1, 3, 70}, {80});  // not pairs
    EXPECT_EQ(r87.per_p, 1);
    EXPECT_EQ(r87.per_step, 7);
    EXPECT_FALSE(r87.per_pairs);
    EXPECT_TRUE(r87.per_lane_split);  // 8 outputs from 7 src: four from at most four per tap
    EXPECT_FALSE(linear_conf({1, 3, 70}, {40}).per_inlane);  // downsampling: lanes 7 src apart
    EXPECT_EQ(linear_conf({1, 3, 17}, {65}, cpu_isa::avx2, coordinate_transformation_mode::align_corners).per_step, 2);  // o / 4
    auto nxc = [](std::vector<int64_t> src, std::vector<int64_t> out, cpu_isa isa) {
        return linear_conf(src, out, isa, coordinate_transformation_mode::half_pixel, data_format::nxc);
    };
    const jit_conf up3 = nxc({1, 224, 224, 3}, {512, 512}, cpu_isa::avx2);  // flat rows, C = 3
    EXPECT_EQ(up3.per_p, 6);  // 48 elements: phase by phase
    EXPECT_EQ(up3.per_step, 21);
    EXPECT_GE(up3.per_periods * up3.per_p, 180);
    // Each tap's lanes within four elements, but not both taps' (tap 1 is 3 elements on):
    // two lane windows per tap, at the same in-lane selects for both taps (i1 = i0 + 1 there).
    EXPECT_FALSE(up3.per_pairs);
    EXPECT_TRUE(up3.per_inlane && up3.per_lane_split);
    // Window offsets count from the run's first tap-0 element; each lane's window + select is
    // its output element's tap: element e = 3 * ow + ch takes src 3 * i(ow) + ch.
    auto tap_elem = [](int64_t e, int t) {
        const linear_tap x = linear_coord(e / 3, 224, 512, coordinate_transformation_mode::half_pixel);
        return (t == 0 ? x.i0 : x.i1) * 3 + e % 3;
    };
    int64_t base = INT64_MAX;
    for (int l = 0; l < 8; ++l) base = std::min(base, tap_elem(up3.per_first * 8 + l, 0));
    for (int ph = 0; ph < up3.per_p; ++ph)
        for (int t = 0; t < 2; ++t)
            for (int l = 0; l < 8; ++l) {
                EXPECT_LE(up3.per_lane_idx[ph][t][l], 3) << ph;
                EXPECT_EQ(base + up3.per_lane_off[ph][t][l / 4] + up3.per_lane_idx[ph][t][l],
                          tap_elem((up3.per_first + ph) * 8 + l, t))
                    << ph << " " << t << " " << l;
            }
    EXPECT_EQ(nxc({1, 224, 224, 3}, {512, 512}, cpu_isa::avx512_core).per_p, 3);
    EXPECT_EQ(nxc({1, 224, 224, 5}, {512, 512}, cpu_isa::avx2).per_p, 0);  // 80 elements: 10 vectors, over kPerMax
    // 21 -> 48, C = 3: the run's vectors 1-12 go past the pairs (vectors 0-4), so each reads its
    // own tap-1 window; one window for both (per_pairs) would read past it. A run needs two
    // periods: a single one repeats nothing.
    const jit_conf past = nxc({1, 2, 21, 3}, {4, 48}, cpu_isa::avx2);
    EXPECT_EQ(past.pair_vecs, 5);
    EXPECT_EQ(past.per_p, 6);
    EXPECT_EQ(past.per_periods, 2);
    EXPECT_FALSE(past.per_pairs);
    // 1400 -> 3200, C = 3: a run of 6-vector periods over several whole blocks and a partial
    // one, for f32 scratch rows (192 bytes per period) and 16-bit dst (1-D: 96).
    const jit_conf blocks = nxc({1, 2, 1400, 3}, {3, 3200}, cpu_isa::avx2);
    EXPECT_EQ(blocks.per_p, 6);
    EXPECT_GE(blocks.per_periods * 96, 2 * jit_conf::kPerBlockBytes);
    EXPECT_NE(blocks.per_periods % (jit_conf::kPerBlockBytes / 192), 0);
    EXPECT_NE(blocks.per_periods % (jit_conf::kPerBlockBytes / 96), 0);
    EXPECT_EQ(linear_conf({1, 3, 32, 32}, {64, 64}).per_periods, 0);  // 2x: up2 groups instead
    EXPECT_EQ(linear_conf({1, 3, 33, 33}, {65, 65}).per_periods, 0);  // no repeat
    uint32_t seed = 1100;
    int64_t seen = 0;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (auto t : kTypes)
            for (auto ct : kCtms)
                for (const auto &cs : std::vector<std::tuple<std::vector<int64_t>, std::vector<int64_t>, int64_t>>{
                         {{70}, {80}, 1}, {{28}, {32}, 1}, {{7}, {56}, 1}, {{13}, {52}, 1}, {{9}, {33}, 1}, {{24}, {120}, 1},
                         {{41}, {96}, 1}, {{56}, {128}, 1}, {{24}, {192}, 1}, {{98}, {112}, 1},  // runs of 4+ zmm vectors too
                         {{5, 14}, {11, 16}, 1}, {{6, 28}, {9, 64}, 1}, {{3, 4, 21}, {5, 7, 48}, 1},
                         // NXC flat rows (C < simd_w): periods of 3-6 vectors read from memory
                         {{56}, {128}, 3}, {{24}, {192}, 3}, {{4, 56}, {7, 128}, 2}, {{35}, {80}, 3},
                         {{2, 21}, {4, 48}, 3},  // a run that starts on pairs and goes past them
                         {{1400}, {3200}, 3}, {{2, 1400}, {3, 3200}, 3}}) {  // runs of several blocks
                    const int64_t fc = std::get<2>(cs);  // 1: NCX, C = 3; else NXC with C = fc
                    const data_format f = fc == 1 ? data_format::ncx : data_format::nxc;
                    const auto d = problem_builder().src(layout(f, 1, fc == 1 ? 3 : fc, std::get<0>(cs))).sizes(std::get<1>(cs)).fmt(f).mode(mode::linear).ctm(ct).dt(t);
                    seen += host_conf(d).per_periods > 0;
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                }
    });
    EXPECT_GT(seen, 0);
}

// Random shapes against the reference, weighted towards the ratios the special paths take
// (2x: up2 and h2; 16/7 and 8/3: periodic runs; 4x), with random sizes besides: every mode,
// layout (NXC C < 8: flat rows), transform, dtype, rank 1-3 and 1-3 threads, guard pages and
// special values. Fixed seeds; it found a periodic run that assumed pairs past pair_vecs.
TEST(jit_bitwise, random_ratio_sweep) {
    REQUIRE_AVX2();
    std::mt19937 rng(4242);
    const int saved = omp_get_max_threads();
    for (int it = 0; it < 1000 && !HasFatalFailure(); ++it) {
        const bool ncx = rng() % 3 != 0;
        const int k = 1 + static_cast<int>(rng() % 3);
        const int64_t cap = k == 3 ? 12 : 48;
        std::vector<int64_t> in(k), out(k);
        for (int i = 0; i < k; ++i) {
            in[i] = 1 + static_cast<int64_t>(rng() % cap);
            switch (rng() % 6) {
                case 0: out[i] = 2 * in[i]; break;
                case 1: out[i] = in[i] * 16 / 7 + static_cast<int64_t>(rng() % 2); break;
                case 2: out[i] = 4 * in[i]; break;
                case 3: out[i] = in[i] * 8 / 3; break;
                default: out[i] = 1 + static_cast<int64_t>(rng() % (2 * cap + 16));
            }
            out[i] = std::max<int64_t>(out[i], 1);
        }
        const data_format f = ncx ? data_format::ncx : data_format::nxc;
        const int64_t c = ncx ? 1 + rng() % 4 : 1 + rng() % 9;
        const auto d = problem_builder()
                           .src(layout(f, 1 + rng() % 2, c, in))
                           .sizes(out)
                           .fmt(f)
                           .mode(kModes[rng() % 2])
                           .ctm(kCtms[rng() % 2])
                           .dt(kTypes[rng() % 3]);
        omp_set_num_threads(1 + static_cast<int>(rng() % 3));
        const uint32_t seed = 5000 + static_cast<uint32_t>(it);
        ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d);
    }
    omp_set_num_threads(saved);
}

// The same check over wide problems: C up to 300 (NXC: many vectors and a tail per pixel),
// src rows up to 300 (1-D) and 70 (2-D), so plane mode, h2, the row and plane pairs and the
// periodic runs meet multi-vector rows and 2- and 3-thread ranges; ratios 2x, 4x, 16/7, 1x, /2
// and random, per axis or one for all, at most 2^20 dst elements. Fixed seeds.
TEST(jit_bitwise, random_wide_sweep) {
    REQUIRE_AVX2();
    std::mt19937 rng(777);
    const int saved = omp_get_max_threads();
    // XINTERP_TEST_WIDE_CASES runs a prefix, as the emulator needs (tests/emu/lane.sh: about
    // 0.6 s a case there, 3 ms here).
    const char *env = std::getenv("XINTERP_TEST_WIDE_CASES");
    const int cases = env ? std::max(1, std::atoi(env)) : 1000;
    int done = 0, h2 = 0, planes = 0, row_pairs = 0;
    for (int it = 0; done < cases && !HasFatalFailure(); ++it) {
        const bool fpn_like = it % 8 == 0;  // 2-D linear NCX 2x half_pixel: h2's problems
        const int k = fpn_like ? 2 : 1 + static_cast<int>(rng() % 3);
        const int64_t cap = k == 3 ? 12 : k == 2 ? 70 : 300;
        const int shared = rng() % 2 ? static_cast<int>(rng() % 6) : -1;  // one ratio for all axes
        std::vector<int64_t> in(k), out(k);
        int64_t elems = 1;
        for (int i = 0; i < k; ++i) {
            in[i] = 1 + static_cast<int64_t>(rng() % cap);
            const int64_t ratio[] = {2 * in[i], 4 * in[i], in[i] * 16 / 7, in[i], in[i] / 2, 1 + static_cast<int64_t>(rng() % (2 * cap))};
            const int kind = fpn_like ? 0 : shared >= 0 ? shared : static_cast<int>(rng() % 6);
            out[i] = std::max<int64_t>(ratio[kind], 1);
            elems *= out[i];
        }
        const data_format f = fpn_like ? data_format::ncx : kFmts[rng() % 2];
        const int64_t n = 1 + rng() % 2, c = rng() % 4 ? 1 + rng() % 40 : 1 + rng() % 300;
        if (n * c * elems > (int64_t(1) << 20)) continue;
        const mode m = fpn_like ? mode::linear : kModes[rng() % 2];
        const auto ctm = kCtms[!fpn_like && rng() % 4 == 0];
        const auto d = problem_builder().src(layout(f, n, c, in)).sizes(out).fmt(f).mode(m).ctm(ctm).dt(kTypes[rng() % 3]);
        omp_set_num_threads(1 + static_cast<int>(rng() % 3));
        const uint32_t seed = 9000 + static_cast<uint32_t>(it);
        ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << omp_get_max_threads();
        const jit_conf jc = host_conf(d);
        h2 += jc.h2_pairs;
        planes += jc.plane_mode;
        row_pairs += jc.nearest_row_pairs || jc.h_pairs;
        ++done;
    }
    omp_set_num_threads(saved);
    if (cases < 1000) return;  // a prefix need not reach every path
    EXPECT_GT(h2, 0);  // the sweep reaches the paths it is for (97, 532 and 111 on AVX2)
    EXPECT_GT(planes, 0);
    EXPECT_GT(row_pairs, 0);
}

// Fused 3-D volumes whose H-planes all fit (jit_conf::hvol): per range and plane, the slices
// its rows use, then one blend call. D up, down (slices skipped), 1 -> n and n -> 1, identity;
// 23 planes, so 2- and 3-thread ranges start and end inside planes and inside od runs; every
// dtype and layout, specials, and the NT blend.
TEST(jit_bitwise, fused_volumes_in_one_blend_call) {
    REQUIRE_AVX2();
    const int saved = omp_get_max_threads();
    uint32_t seed = 300;
    int seen = 0;
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
        {{7, 9, 11}, {13, 5, 17}}, {{20, 30, 30}, {5, 12, 40}}, {{1, 19, 9}, {4, 6, 9}},
        {{6, 17, 8}, {1, 5, 8}}, {{5, 21, 13}, {5, 7, 29}}};
    for (int threads : {1, 2, 3})
        for (bool nt : {false, true}) {
            nt_threshold th(nt ? 1 : size_t(1) << 40);
            omp_set_num_threads(threads);
            for (const auto &cs : cases)
                for (auto f : kFmts)
                    for (auto t : kTypes) {
                        const int64_t c = f == data_format::ncx ? 23 : 3;  // NXC: small-C flat rows
                        const auto d = problem_builder().src(layout(f, 1, c, cs.first)).sizes(cs.second).fmt(f).mode(mode::linear).dt(t);
                        seen += host_conf(d).hvol;
                        ++seed;
                        ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt;
                    }
        }
    omp_set_num_threads(saved);
    EXPECT_GT(seen, 90) << seen;  // most take the hvol path (162 of the 180 on AVX2)
}

// 2-D linear NCX, 2x both ways (jit_conf::h2_pairs): row pairs from the h2 part, column block
// by column block with W steps in registers; rows 0, OH - 1 and pairs a thread range cuts from
// the fused W+H pass. Swept over IH (1 pair up), IW around the tiers' widths (record vectors
// before, after and in the tail), N and C planes, 1 to 3 threads (ranges that start and end
// mid-plane, on odd and even rows), planes in bands of h2_band pairs (rows 0 and OH - 1 in the
// first and last band only), all dtypes, with specials. 512-bit 16-bit line blocks: rows of
// even and odd vector counts, tails in a block's second vector and alone.
TEST(jit_bitwise, linear_h2_pairs) {
    REQUIRE_AVX2();
    {
        nt_threshold nt(size_t(1) << 40);  // fpn's 4 MiB dst may reach the host's NT threshold
        EXPECT_TRUE(linear_conf({1, 256, 32, 32}, {64, 64}).h2_pairs);
        EXPECT_TRUE(linear_conf({1, 128, 40, 40}, {80, 80}).h2_pairs);
        EXPECT_TRUE(linear_conf({1, 256, 32, 32}, {64, 64}, cpu_isa::avx512_core).h2_pairs);
    }
    EXPECT_FALSE(linear_conf({1, 3, 40, 40}, {80, 80}, cpu_isa::avx2, coordinate_transformation_mode::align_corners).h2_pairs);
    EXPECT_FALSE(linear_conf({1, 3, 40, 40}, {81, 80}).h2_pairs);       // H not 2x
    EXPECT_FALSE(linear_conf({1, 3, 40, 40}, {120, 80}).h2_pairs);      // H 3x
    EXPECT_FALSE(linear_conf({1, 3, 40, 6}, {80, 12}).h2_pairs);        // no up2 group (OW 12: one full vector)
    EXPECT_FALSE(linear_conf({1, 3, 200, 200}, {400, 400}).h2_pairs);   // a 625 KiB dst plane
    EXPECT_FALSE(linear_conf({1, 3, 4, 40, 40}, {8, 80, 80}).h2_pairs);  // 3-D
    {
        nt_threshold nt(1);  // NT-eligible dst (OW 80 keeps rows store-aligned): no h2
        EXPECT_FALSE(linear_conf({1, 128, 40, 40}, {80, 80}).h2_pairs);
    }
    {
        // Bands of kH2BandBytes of output rows, kH2BandMin pairs at least: f32 rows of 1 KiB
        // take 6 pairs per call, of 4 KiB 4; fpn's rows (256 bytes) 24 of its 31.
        nt_threshold nt(size_t(1) << 40);
        EXPECT_EQ(linear_conf({1, 16, 128, 128}, {256, 256}).h2_band, 6);
        EXPECT_EQ(linear_conf({1, 4, 32, 512}, {64, 1024}).h2_band, 4);
        EXPECT_EQ(linear_conf({1, 256, 32, 32}, {64, 64}).h2_band, 24);
    }
    const int saved = omp_get_max_threads();
    uint32_t seed = 900;
    int64_t seen = 0, banded = 0;
    for (int threads : {1, 2, 3}) {
        omp_set_num_threads(threads);
        for (auto t : kTypes)
            for (const auto &cs : std::vector<std::pair<int64_t, std::vector<int64_t>>>{
                     {1, {2, 16}}, {3, {3, 13}}, {2, {5, 17}}, {3, {7, 24}}, {1, {16, 25}}, {2, {9, 33}}, {3, {4, 40}}, {1, {17, 47}},
                     // over 64 KiB, so threads split: at 2 and 3 threads these ranges start or end
                     // on even rows inside a plane, whose rows then run alone
                     {1, {35, 256}}, {2, {21, 200}}}) {
                const std::vector<int64_t> out{2 * cs.second[0], 2 * cs.second[1]};
                const auto d = problem_builder().src(layout(data_format::ncx, 1 + (seed % 2), cs.first, cs.second)).sizes(out).fmt(data_format::ncx).mode(mode::linear).dt(t);
                const jit_conf hc = host_conf(d);
                seen += hc.h2_pairs;
                banded += hc.h2_pairs && hc.h2_band < cs.second[0] - 1;  // a plane's pairs in more than one call
                ++seed;
                ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads;
            }
        if (HasFatalFailure()) break;
    }
    omp_set_num_threads(saved);
    EXPECT_GT(seen, 0);
    EXPECT_GT(banded, 0);
    // 512-bit 16-bit (f16, native bf16): line blocks, each row's two vectors rounded as 32
    // words and stored at once (jit_ncx_wpass::h2_lines); the sweep above checked their bits.
    if (W != 16 || get_effective_cpu_isa() < cpu_isa::avx512_core_bf16) return;
    for (const auto &cs : std::vector<std::pair<int64_t, int64_t>>{{40, 80}, {47, 94}, {50, 100}}) {
        for (auto t : {data_type::bf16, data_type::f16}) {
            const auto d = problem_builder().src({1, 2, cs.first, cs.first}).sizes({cs.second, cs.second}).fmt(data_format::ncx).mode(mode::linear).dt(t);
            const std::string code = primitive(primitive_desc(d)).dump_asm();
            const size_t at = code.find(".h2:");
            ASSERT_NE(at, std::string::npos) << describe(d);
            EXPECT_NE(code.find(t == data_type::bf16 ? "vcvtne2ps2bf16" : "vinserti64x4", at), std::string::npos) << describe(d);
        }
    }
}

// 16-bit rows on the gather path are read in place in both spellings, with no scratch of their
// own: word inserts, or dword gathers that leave the row's last element to a broadcast.
TEST(jit_conf, sixteen_bit_gathers_read_in_place) {
    const auto d = problem_builder().src({1, 3, 1080, 1920}).sizes({224, 224}).fmt(data_format::ncx).mode(mode::linear).dt(data_type::bf16);
    const problem p = make_problem(d);
    for (int spelling : {0, 1}) {
        set_gather_spelling_for_testing(spelling);
        const jit_conf c = make_jit_conf(p, cpu_isa::avx2);
        ASSERT_TRUE(c.ok);
        EXPECT_FALSE(c.window);
        EXPECT_EQ(c.gather_by_insert, spelling == 1);
        // H 1080 -> 224 shares no src row between output rows: fused, straight to dst.
        EXPECT_TRUE(c.fuse_h);
        EXPECT_EQ(c.scratch_bytes, 0);
    }
    set_gather_spelling_for_testing(-1);
}

// The dword gathers of 16-bit rows leave each row's last element to a broadcast: a lane whose
// tap it is would read 2 bytes past the row, past the buffer on its last row, which these
// cases put against a guard page. align_corners maps the last output there; linear half_pixel
// downsampling clamps tap 1 there. NCX rows and NXC flat rows (C < simd_w), W downsampled past
// the windows, one-element rows, a flat volume; the gather-instruction spelling at every tier
// (forced at AVX2, whose default is the insert spelling where gathers are slow), 1 and 2 threads.
TEST(jit_bitwise, sixteen_bit_gathers_end_at_the_row) {
    REQUIRE_AVX2();
    const threads_and_spelling_restore restore;
    set_gather_spelling_for_testing(0);
    clear_cache();
    struct shape { std::vector<int64_t> src, out; data_format f; };
    const shape shapes[] = {{{1, 2, 3, 525}, {2, 5}, data_format::ncx},  {{1, 1, 5, 700}, {4, 33}, data_format::ncx},
                            {{1, 3, 2, 1}, {3, 1}, data_format::ncx},    {{1, 2, 90, 3}, {2, 7}, data_format::nxc},
                            {{1, 1, 61, 5}, {1, 17}, data_format::nxc},  {{1, 2, 3, 9, 70}, {2, 3, 4}, data_format::ncx}};
    int gathered = 0;
    for (data_type t : {data_type::bf16, data_type::f16})
        for (mode m : {mode::nearest, mode::linear})
            for (auto ct : {coordinate_transformation_mode::half_pixel, coordinate_transformation_mode::align_corners})
                for (const shape &sh : shapes) {
                    if (sh.src.size() == 5 && m == mode::linear) continue;  // NCX 3-D linear: the flat volume below
                    op_desc d = problem_builder().src(sh.src).sizes(sh.out).fmt(sh.f).mode(m).ctm(ct).dt(t);
                    const primitive_desc pd(d);
                    const jit_conf c = make_jit_conf(make_problem(d), kernel_isa(pd.isa(), pd.runs_ymm()));
                    gathered += c.pass_engine && !c.window;
                    for (int threads : {1, 2}) {
                        omp_set_num_threads(threads);
                        ASSERT_EQ(check_case(d, 7u + threads, true, threads == 2), 0) << describe(d) << " threads " << threads;
                    }
                }
    const auto vol = problem_builder().src({1, 2, 3, 9, 70}).sizes({2, 3, 4}).fmt(data_format::ncx).mode(mode::linear).dt(data_type::bf16);
    const primitive_desc vpd(vol);
    EXPECT_TRUE(make_jit_conf(make_problem(vol), kernel_isa(vpd.isa(), vpd.runs_ymm())).flat) << describe(vol);
    EXPECT_EQ(check_case(vol, 3, true), 0) << describe(vol);
    EXPECT_GE(gathered, 24) << "most cases must take the gather path";
}

// AVX-512 rows shorter than a vector are one window each (jit_conf::short_window), at base 0;
// AVX2 gathers them. Any row_in < 16 at 512 bits: W up, down, nearest, 16-bit, NXC flat rows.
TEST(jit_conf, short_rows_are_one_window_at_512_bits) {
    struct shape { std::vector<int64_t> src, out; data_format f; mode m; data_type t; };
    const shape shapes[] = {{{1, 3, 7, 5}, {9, 13}, data_format::ncx, mode::linear, data_type::f32},
                            {{1, 3, 9, 11}, {5, 17}, data_format::ncx, mode::linear, data_type::bf16},
                            {{1, 3, 4, 15}, {8, 73}, data_format::ncx, mode::nearest, data_type::f16},
                            {{1, 2, 9, 2, 7}, {3, 5, 12}, data_format::ncx, mode::linear, data_type::f32},
                            {{1, 6, 2, 7}, {12, 5}, data_format::nxc, mode::linear, data_type::f32}};  // flat rows of 14
    for (const shape &sh : shapes) {
        const problem p = make_problem(problem_builder().src(sh.src).sizes(sh.out).fmt(sh.f).mode(sh.m).dt(sh.t));
        const jit_conf z = make_jit_conf(p, cpu_isa::avx512_core), y = make_jit_conf(p, kernel_isa(cpu_isa::avx512_core, true));
        ASSERT_TRUE(z.ok);
        ASSERT_FALSE(z.flat) << p.str() << ": a flat volume, no rows";
        EXPECT_LT(z.row_in, 16) << p.str();
        EXPECT_TRUE(z.short_window()) << p.str();
        EXPECT_FALSE(y.short_window()) << p.str() << ": 256-bit rows load whole vectors only";
        const jit_tables t = make_jit_tables(p, z);
        for (int64_t v = 0; v < z.ow_vecs; ++v) {  // every record's window bases are the row's start
            int32_t base[2];
            std::memcpy(base, t.wtab.data() + v * z.rec_bytes, 8);
            EXPECT_EQ(base[0], 0) << p.str() << " vector " << v;
            EXPECT_EQ(base[1], 0) << p.str() << " vector " << v;
        }
    }
    // A row of a whole vector or more is not short.
    EXPECT_FALSE(make_jit_conf(make_problem(problem_builder().src({1, 3, 7, 16}).sizes({9, 31}).fmt(data_format::ncx).mode(mode::linear)),
                               cpu_isa::avx512_core).short_window());
}

// Plane mode: linear NCX whose W-planes fit the budget, or fused 2-D.
TEST(jit_conf, plane_mode_for_small_planes) {
    auto conf = [](int64_t c, std::vector<int64_t> in, std::vector<int64_t> out) {
        std::vector<int64_t> src{1, c};
        src.insert(src.end(), in.begin(), in.end());
        const auto d = problem_builder().src(src).sizes(out).fmt(data_format::ncx).mode(mode::linear);
        return make_jit_conf(make_problem(d), cpu_isa::avx2);
    };
    const jit_conf c17 = conf(17, {33, 33}, {65, 65});
    EXPECT_TRUE(c17.plane_mode);
    EXPECT_FALSE(c17.h2_pairs);
    EXPECT_EQ(c17.n_wplanes, 1);
    EXPECT_EQ(c17.wplane_bytes, 33 * 72 * 4);  // ow_pad 72
    EXPECT_EQ(c17.scratch_bytes, c17.wplane_bytes);
    {
        nt_threshold nt(size_t(1) << 40);  // fpn's 4 MiB dst may reach the host's NT threshold
        const jit_conf fpn = conf(256, {32, 32}, {64, 64});  // 2x both ways: h2 pairs, no W-plane
        EXPECT_TRUE(fpn.plane_mode && fpn.h2_pairs);
        EXPECT_EQ(fpn.scratch_bytes, 0);
    }
    const jit_conf vol = conf(32, {16, 64, 64}, {32, 128, 128});
    EXPECT_TRUE(vol.plane_mode);
    EXPECT_EQ(vol.n_wplanes, 2);
    EXPECT_FALSE(conf(3, {224, 224}, {512, 512}).plane_mode);  // 224 x 512 f32 rows: 448 KiB
    const jit_conf down = conf(3, {1080, 1920}, {224, 224});  // fused H step, one call per plane
    EXPECT_TRUE(down.fuse_h && down.plane_mode);
    EXPECT_EQ(down.n_wplanes, 0);
    EXPECT_FALSE(conf(3, {9, 1080, 1920}, {5, 224, 224}).plane_mode);  // fused 3-D, 2 x 196 KiB H-planes: per row
    const jit_conf odd = conf(5, {7, 9, 11}, {13, 5, 17});  // fused 3-D (H 9 -> 5): H-planes of 5 rows
    EXPECT_TRUE(odd.fuse_h && odd.plane_mode && odd.hvol);  // all 7 of a plane's, 3.4 KiB
    EXPECT_EQ(odd.n_wplanes, 7);
    EXPECT_EQ(odd.wplane_bytes, 5 * 24 * 4);
    EXPECT_EQ(odd.scratch_bytes, 7 * odd.wplane_bytes);
    const jit_conf deep = conf(3, {9, 161, 45}, {5, 41, 61});  // 9 H-planes of 10.25 KiB: two in an LRU
    EXPECT_TRUE(deep.fuse_h && deep.plane_mode && !deep.hvol);
    EXPECT_EQ(deep.n_wplanes, 2);
    EXPECT_EQ(deep.scratch_bytes, 2 * deep.wplane_bytes + 41 * 24);
    EXPECT_FALSE(conf(3, {15}, {73}).plane_mode);                // 1-D
}

// Which linear problems fuse the H step: H downsampling whose output rows share no src row.
TEST(jit_conf, fused_h_step_only_without_row_reuse) {
    auto conf = [](std::vector<int64_t> in, std::vector<int64_t> out, coordinate_transformation_mode ct) {
        std::vector<int64_t> src{1, 3};
        src.insert(src.end(), in.begin(), in.end());
        const auto d = problem_builder().src(src).sizes(out).fmt(data_format::ncx).mode(mode::linear).ctm(ct);
        return make_jit_conf(make_problem(d), cpu_isa::avx2);
    };
    const auto hp = coordinate_transformation_mode::half_pixel, ac = coordinate_transformation_mode::align_corners;
    EXPECT_TRUE(conf({1080, 1920}, {224, 224}, hp).fuse_h);
    EXPECT_TRUE(conf({525, 525}, {5, 40}, hp).fuse_h);  // {5, 5}: a flat volume (ncx_flat_volumes)
    EXPECT_TRUE(conf({14, 16}, {7, 8}, hp).fuse_h);    // 2x down: taps (2oh, 2oh + 1)
    EXPECT_TRUE(conf({9, 9, 5}, {5, 3, 7}, ac).fuse_h);  // 3-D: H 9 -> 3
    EXPECT_FALSE(conf({32, 32}, {64, 64}, hp).fuse_h);   // 2x up: each src row serves 2 rows
    EXPECT_FALSE(conf({6, 10}, {6, 10}, hp).fuse_h);     // identity: w1 = 0, taps (i, i + 1)
    EXPECT_FALSE(conf({5, 7}, {3, 9}, hp).fuse_h);       // 5 -> 3: rows 1 and 2 share src row 3
    EXPECT_FALSE(conf({7}, {3}, hp).fuse_h);             // 1-D: no H step
}

// The fused H step's non-temporal variant: an NCX output of 4 MiB from 4x H downsampling.
// Plane mode's NT variants: short NCX rows (512 bytes), nearest and linear.
TEST(jit_bitwise, non_temporal_plane_mode) {
    REQUIRE_AVX2();
    nt_threshold nt;
    for (auto m : kModes)
        for (auto t : kTypes) {
            const int64_t ow = 512 / static_cast<int64_t>(xt::esize(t));
            const auto d = problem_builder().src({1, 64, 33, 40}).sizes({257 * 4 / static_cast<int64_t>(xt::esize(t)), ow}).fmt(data_format::ncx).mode(m).dt(t);
            const jit_conf c = make_jit_conf(make_problem(d), cpu_isa::avx2);
            EXPECT_TRUE(c.plane_mode && c.nt_eligible) << describe(d);
            ASSERT_EQ(check_case(d, 13, true), 0) << describe(d);
        }
}

// The direct NXC row kernel rounds bf16 in pairs of channel vectors; its NT variant stores a
// pair as one ymm when C % 16 == 0 and as two xmm halves otherwise. H 4x down keeps bf16 off
// the separable path.
TEST(jit_bitwise, non_temporal_direct_nxc_bf16_pairs) {
    REQUIRE_AVX2();
    nt_threshold nt;
    for (int64_t c : {32, 24}) {
        const auto d = problem_builder().src({1, 96, 40, c}).sizes({24, 4096}).mode(mode::linear).dt(data_type::bf16);
        const jit_conf cf = make_jit_conf(make_problem(d), cpu_isa::avx2);
        EXPECT_TRUE(cf.nt_eligible && !cf.nxc_separable && !cf.pass_engine) << describe(d);
        ASSERT_EQ(check_case(d, 31, true, true), 0) << describe(d);
    }
}

// The direct NXC linear row kernel's NT variant (f32 at 2x: not separable).
TEST(jit_bitwise, non_temporal_direct_nxc_linear) {
    REQUIRE_AVX2();
    nt_threshold nt;
    const auto d = problem_builder().src({1, 181, 181, 16}).sizes({362, 362}).mode(mode::linear);
    const jit_conf c = make_jit_conf(make_problem(d), cpu_isa::avx2);
    EXPECT_TRUE(c.nt_eligible);
    EXPECT_FALSE(c.nxc_separable);
    EXPECT_TRUE(c.row_pairs);  // 2x half_pixel: the row-pair kernel's NT variant too
    ASSERT_EQ(check_case(d, 9, true), 0) << describe(d);
}

TEST(jit_bitwise, non_temporal_fused_h) {
    REQUIRE_AVX2();
    nt_threshold nt;
    for (auto t : kTypes) {
        const int64_t w = 8192 / static_cast<int64_t>(xt::esize(t));  // 8 KiB rows
        const auto d = problem_builder().src({1, 1, 4 * 512, w}).sizes({512, w}).fmt(data_format::ncx).mode(mode::linear).dt(t);
        primitive_desc pd(d);
        ASSERT_GE(pd.dst_bytes(), size_t(4) << 20);
        EXPECT_TRUE(make_jit_conf(make_problem(d), cpu_isa::avx2).fuse_h);
        EXPECT_TRUE(make_jit_conf(make_problem(d), cpu_isa::avx2).nt_eligible);
        ASSERT_EQ(check_case(d, 5, true), 0) << describe(d);
    }
}

// The LLC counted on: what the OS reports, at most 16 MiB (AMD) or 8 MiB (Intel) per logical
// processor sharing it.
TEST(jit_conf, usable_llc_caps_a_vm_share_of_a_socket_cache) {
    const int64_t mib = int64_t(1) << 20;
    EXPECT_EQ(usable_llc_bytes(32 * mib, 2, true), 32 * mib);    // the Zen 3/4 dev VMs: 32 MiB over 2
    EXPECT_EQ(usable_llc_bytes(96 * mib, 16, true), 96 * mib);   // a Zen 4 X3D CCD: 96 MiB over 8 cores, 16 threads
    EXPECT_EQ(usable_llc_bytes(260 * mib, 2, false), 16 * mib);  // the Xeon dev VM: its socket's 260 MiB over 2
    EXPECT_EQ(usable_llc_bytes(48 * mib, 2, false), 16 * mib);   // the Ice Lake Xeon VM: 48 MiB over 2
    EXPECT_EQ(usable_llc_bytes(30 * mib, 24, false), 30 * mib);  // a 12-core Xeon's own L3
    EXPECT_EQ(usable_llc_bytes(260 * mib, 0, false), 260 * mib); // sharing unknown: no cap
    EXPECT_EQ(usable_llc_bytes(0, 2, true), 0);
    const cpu_features &f = host_features();
    EXPECT_EQ(usable_llc_bytes(), usable_llc_bytes(f.llc_bytes, f.llc_sharers, f.amd));
}

// One thread counts the share of at most two logical processors, whatever the VM's count.
TEST(jit_conf, one_thread_counts_two_sharers_at_most) {
    const int64_t mib = int64_t(1) << 20;
    EXPECT_EQ(one_thread_llc_bytes(300 * mib, 16, false), 16 * mib);  // a 16-core Xeon VM: 128 MiB for all, 16 for one
    EXPECT_EQ(one_thread_llc_bytes(260 * mib, 2, false), 16 * mib);   // the Xeon dev VM: as before
    EXPECT_EQ(one_thread_llc_bytes(32 * mib, 2, true), 32 * mib);     // the Zen 3/4 dev VMs: as before
    EXPECT_EQ(one_thread_llc_bytes(32 * mib, 16, true), 32 * mib);    // a Zen CCD's own L3
    EXPECT_EQ(one_thread_llc_bytes(8 * mib, 8, false), 8 * mib);      // a small client L3
    EXPECT_EQ(one_thread_llc_bytes(260 * mib, 0, false), 16 * mib);   // sharing unknown: two
    const cpu_features &f = host_features();
    EXPECT_EQ(one_thread_llc_bytes(), one_thread_llc_bytes(f.llc_bytes, f.llc_sharers, f.amd));
    EXPECT_LE(one_thread_llc_bytes(), usable_llc_bytes());  // never more than all of the threads count on
}

// The NT threshold: half one thread's LLC share on one thread (Intel: a quarter), and on more
// the whole usable LLC on Zen 3 and half elsewhere, at least 4 MiB (unless
// XINTERP_NT_MIN_BYTES or the test override says otherwise, for every thread count).
TEST(jit_conf, nt_threshold_follows_the_last_level_cache) {
    if (std::getenv("XINTERP_NT_MIN_BYTES")) GTEST_SKIP() << "XINTERP_NT_MIN_BYTES is set: the default is not in effect";
    const size_t llc = static_cast<size_t>(usable_llc_bytes()), llc1 = static_cast<size_t>(one_thread_llc_bytes());
    const size_t mib4 = size_t(4) << 20;
    const size_t one = host_features().amd ? llc1 / 2 : llc1 / 4;  // Intel: a quarter on one thread
    EXPECT_EQ(nt_min_bytes(), std::max(mib4, one));
    EXPECT_EQ(nt_min_bytes(1), std::max(mib4, one));
    const size_t more = host_features().amd && !avx512_on_256bit_units() ? llc : llc / 2;  // Zen 3: the whole LLC
    EXPECT_EQ(nt_min_bytes(2), std::max(mib4, more));
    EXPECT_EQ(nt_min_bytes(16), std::max(mib4, more));
    set_nt_min_bytes_for_testing(12345);
    EXPECT_EQ(nt_min_bytes(1), 12345u);
    EXPECT_EQ(nt_min_bytes(2), 12345u);
    set_nt_min_bytes_for_testing(0);
    const auto d = problem_builder().src({1, 1, 64, 1024}).sizes({64, 1024}).fmt(data_format::ncx).mode(mode::nearest);
    const problem p = make_problem(d);  // 256 KiB of dst
    EXPECT_FALSE(make_jit_conf(p, cpu_isa::avx2).nt_eligible);
    set_nt_min_bytes_for_testing(p.dst_bytes);
    EXPECT_TRUE(make_jit_conf(p, cpu_isa::avx2).nt_eligible);
    set_nt_min_bytes_for_testing(0);
    // seg_8x nearest NXC (C = 21 f32: 84-byte pixels) streams its 43008-byte rows through scratch.
    const auto seg = problem_builder().src({1, 64, 64, 21}).sizes({512, 512}).mode(mode::nearest);
    set_nt_min_bytes_for_testing(make_problem(seg).dst_bytes);
    const jit_conf s = make_jit_conf(make_problem(seg), cpu_isa::avx2);
    EXPECT_TRUE(s.nt_stream && !s.nt_eligible);
    EXPECT_EQ(s.scratch_bytes, 512 * 21 * 4);
    set_nt_min_bytes_for_testing(0);
    EXPECT_EQ(make_jit_conf(make_problem(seg), cpu_isa::avx2).nt_stream, make_problem(seg).dst_bytes >= nt_min_bytes());
}

// A dst NT-sized on one thread but not on two (nt_min_bytes): the NT variants and the stream
// copy exist, and a 2-thread execution takes the plain kernels and writes repeated rows itself
// (rows copied, NXC row pairs, NCX plane pairs) and the pair blends that NT executions skip
// (H pairs, f32 D pairs). Either way the bits are the reference's.
TEST(jit_bitwise, nt_on_one_thread_plain_on_two) {
    REQUIRE_AVX2();
    const int saved = omp_get_max_threads();
    nt_threshold nt(1, size_t(1) << 40);
    uint32_t seed = 1300;
    for (auto t : kTypes)
        for (problem_builder b : {
                 problem_builder().src({1, 40, 40, 21}).sizes({200, 160}).mode(mode::nearest),  // NXC stream (C 21)
                 problem_builder().src({1, 40, 40, 16}).sizes({80, 80}).mode(mode::nearest),   // NXC pairs / NT rows
                 problem_builder().src({1, 40, 40, 16}).sizes({80, 80}).mode(mode::linear),    // NXC linear
                 problem_builder().src({1, 16, 40, 40}).sizes({80, 80}).fmt(data_format::ncx).mode(mode::nearest),
                 problem_builder().src({1, 3, 40, 150}).sizes({160, 600}).fmt(data_format::ncx).mode(mode::nearest),
                 problem_builder().src({1, 16, 40, 40}).sizes({80, 80}).fmt(data_format::ncx).mode(mode::linear),
                 problem_builder().src({1, 1, 40, 1100}).sizes({81, 2104}).fmt(data_format::ncx).mode(mode::linear),  // H pairs
                 problem_builder().src({1, 4, 9, 20, 20}).sizes({17, 40, 40}).fmt(data_format::ncx).mode(mode::linear)}) {
            b.dt(t);
            const jit_conf c = make_jit_conf(make_problem(b), cpu_isa::avx2);
            EXPECT_TRUE(c.nt_eligible || c.nt_stream) << describe(b);
            for (int threads : {1, 2}) {
                omp_set_num_threads(threads);
                ++seed;
                ASSERT_EQ(check_case(b, seed, seed % 2 == 0), 0) << describe(b) << " threads=" << threads;
            }
        }
    omp_set_num_threads(saved);
}

// NXC linear runs separably (W rows once, then blends) for bf16, for >= 4x H upsampling and
// for 3-D whose W-planes fit, where it was measured to pay; otherwise the direct row kernel.
TEST(jit_conf, separable_nxc_where_it_pays) {
    auto conf = [](int64_t c, std::vector<int64_t> in, std::vector<int64_t> out, data_type t) {
        std::vector<int64_t> src{1};
        src.insert(src.end(), in.begin(), in.end());
        src.push_back(c);
        return make_jit_conf(make_problem(problem_builder().src(src).sizes(out).mode(mode::linear).dt(t)), cpu_isa::avx2);
    };
    EXPECT_TRUE(conf(256, {32, 32}, {64, 64}, data_type::bf16).nxc_separable);
    EXPECT_FALSE(conf(256, {32, 32}, {64, 64}, data_type::f32).nxc_separable);
    EXPECT_FALSE(conf(256, {32, 32}, {64, 64}, data_type::f16).nxc_separable);
    EXPECT_TRUE(conf(21, {64, 64}, {512, 512}, data_type::f32).nxc_separable);   // 8x
    EXPECT_TRUE(conf(32, {16, 64, 64}, {32, 128, 128}, data_type::bf16).nxc_separable);
    EXPECT_FALSE(conf(256, {525, 525}, {5, 5}, data_type::bf16).nxc_separable);  // no shared rows
    EXPECT_FALSE(conf(4, {32, 32}, {64, 64}, data_type::bf16).nxc_separable);    // C < simd_w: pass engine
    EXPECT_FALSE(conf(16, {32}, {64}, data_type::bf16).nxc_separable);           // 1-D
    // Direct 2-D f32/f16 whose H taps chain pairwise use the row-pair kernel.
    EXPECT_TRUE(conf(256, {32, 32}, {64, 64}, data_type::f32).row_pairs);
    EXPECT_FALSE(conf(256, {32, 32}, {64, 64}, data_type::bf16).row_pairs);  // separable
    EXPECT_FALSE(conf(16, {15, 15}, {73, 73}, data_type::f32).row_pairs);     // >= 4x: separable
    EXPECT_FALSE(conf(16, {8, 8, 8}, {16, 16, 16}, data_type::f32).row_pairs);  // 3-D
    // 3-D: W-planes where they fit (f32 up to 128 KiB for both, 16-bit up to 4 MiB).
    const jit_conf small = conf(24, {8, 16, 16}, {16, 32, 32}, data_type::f32);  // 2 x 48 KiB
    EXPECT_TRUE(small.nxc_separable && small.plane_mode);
    EXPECT_EQ(small.n_wplanes, 2);
    EXPECT_EQ(small.wplane_bytes, 16 * 32 * 24 * 4);
    EXPECT_EQ(small.scratch_bytes, 2 * small.wplane_bytes);
    {  // 2 x 1 MiB: direct with plain stores; with NT ones W rows in blocks (nxc_d_pair_cols)
        nt_threshold plain(size_t(1) << 40);
        EXPECT_FALSE(conf(32, {16, 64, 64}, {32, 128, 128}, data_type::f32).nxc_separable);
        nt_threshold nt(1);
        const jit_conf rows = conf(32, {16, 64, 64}, {32, 128, 128}, data_type::f32);
        EXPECT_TRUE(rows.nxc_separable && !rows.plane_mode && rows.d_pairs && rows.d_cols == 32);
    }
    {  // 16-bit: planes up to 4 MiB; with NT stores W rows in blocks where dst rows are whole pages
        nt_threshold plain(size_t(1) << 40);
        const jit_conf vol16 = conf(32, {16, 64, 64}, {32, 128, 128}, data_type::f16);
        EXPECT_TRUE(vol16.nxc_separable && vol16.plane_mode);
        nt_threshold nt(1);
        const jit_conf rows16 = conf(32, {16, 64, 64}, {32, 128, 128}, data_type::f16);
        EXPECT_TRUE(rows16.nxc_separable && !rows16.plane_mode && rows16.d_cols == 32);
        EXPECT_TRUE(conf(24, {16, 64, 64}, {32, 128, 128}, data_type::f16).plane_mode);  // 6 KiB rows
    }
    const jit_conf huge = conf(32, {4, 256, 256}, {8, 512, 512}, data_type::bf16);  // 2 x 64 MiB
    EXPECT_TRUE(huge.nxc_separable && !huge.plane_mode);                              // the W-row LRU
    {  // f16 past 4 MiB of planes: the direct kernel, or with NT stores W rows in blocks
        nt_threshold plain(size_t(1) << 40);
        EXPECT_FALSE(conf(32, {4, 256, 256}, {8, 512, 512}, data_type::f16).nxc_separable);
        nt_threshold nt(1);
        EXPECT_TRUE(conf(32, {4, 256, 256}, {8, 512, 512}, data_type::f16).d_cols > 0);
    }
    // f32 with D downsampled (no od shares a slice with the od before): the direct kernel;
    // 16-bit keeps its W-planes.
    EXPECT_FALSE(conf(144, {19, 3, 8}, {2, 2, 30}, data_type::f32).plane_mode);
    EXPECT_FALSE(conf(32, {12, 20, 20}, {6, 24, 24}, data_type::f32).nxc_separable);
    EXPECT_TRUE(conf(144, {19, 3, 8}, {2, 2, 30}, data_type::f16).plane_mode);
    EXPECT_TRUE(conf(144, {19, 3, 8}, {2, 2, 30}, data_type::bf16).plane_mode);
    EXPECT_TRUE(conf(144, {5, 3, 8}, {7, 2, 30}, data_type::f32).plane_mode);  // D up: shared
    const jit_conf s = conf(21, {64, 64}, {512, 512}, data_type::f32);
    EXPECT_EQ(s.row_out, 512 * 21);
    EXPECT_EQ(s.n_slots, 2);
    EXPECT_EQ(s.scratch_bytes, 2 * s.ow_pad * 4);
}

// The tables and the per-thread scratch start on 64-byte lines. With malloc's 16 bytes, the
// kernels' whole-vector loads of records and W rows spanned two lines every other load or
// none, by where the heap put them: two kernels of one problem (100x100 -> 300x300 NXC, C = 3)
// took 1.12x apart in one process, whichever was created first. The scratch's place within a
// page follows the dst (jit_kernel_base::thread_scratch: 4K aliasing).
TEST(jit_conf, tables_and_scratch_on_lines) {
    auto aligned = [](const void *p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; };
    const std::vector<problem_builder> cases = {
        problem_builder().src({1, 224, 224, 3}).sizes({512, 512}).fmt(data_format::nxc).mode(mode::linear),
        problem_builder().src({1, 3, 224, 224}).sizes({512, 512}).fmt(data_format::ncx).mode(mode::linear),
        problem_builder().src({1, 32, 32, 256}).sizes({64, 64}).fmt(data_format::nxc).mode(mode::linear),
        problem_builder().src({1, 2, 5, 7, 9}).sizes({9, 13, 17}).fmt(data_format::ncx).mode(mode::linear),
        problem_builder().src({1, 3, 9, 30}).sizes({20, 50}).fmt(data_format::ncx).mode(mode::nearest),
        problem_builder().src({1, 21, 64, 64}).sizes({512, 512}).fmt(data_format::ncx).mode(mode::linear).dt(data_type::bf16)};
    int tables = 0;
    for (const problem_builder &b : cases)
        for (cpu_isa isa : {cpu_isa::avx2, cpu_isa::avx512_core}) {
            const problem p = make_problem(b);
            const jit_conf c = make_jit_conf(p, isa);
            // Three builds: three fresh allocations of each table, wherever the heap puts them.
            for (int k = 0; k < 3; ++k) {
                const jit_tables t = make_jit_tables(p, c);
                for (const table_bytes *v : {&t.wtab, &t.hrows, &t.drows, &t.d_pair_start, &t.h_run_start}) {
                    if (v->empty()) continue;
                    EXPECT_TRUE(aligned(v->data())) << describe(b);
                    ++tables;
                }
            }
        }
    EXPECT_GE(tables, 24);
    // Growing scratch (a new allocation each time) and shrinking requests (the old one kept),
    // placed half a page past the dst in bits 11:0 (rounded down to a line), whatever the dst.
    int sizes = 0;
    for (int64_t bytes : {int64_t(100), int64_t(4096), int64_t(70000), int64_t(1) << 20, int64_t(24), int64_t(300000)})
        for (uintptr_t dst_at : {uintptr_t(0x10000), uintptr_t(0x10040), uintptr_t(0x7ff0), uintptr_t(0x12345)}) {
            uint8_t *s = detail::jit_kernel_base::thread_scratch(bytes, dst_at);
            EXPECT_TRUE(aligned(s)) << bytes;
            EXPECT_EQ(reinterpret_cast<uintptr_t>(s) % 4096, (dst_at + 2048) % 4096 / 64 * 64) << bytes << " " << dst_at;
            s[0] = 1, s[bytes - 1] = 1;  // the whole request is usable (ASan checks the ends)
            ++sizes;
        }
    EXPECT_EQ(sizes, 24);
}
