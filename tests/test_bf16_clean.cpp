// kFlagBf16Clean (jit/jit_conf.hpp): bf16 linear kernels round with a plain
// round-to-nearest-even (AVX2: Veltkamp's split), without the NaN and denormal fixups, when
// one pass over src proves no result can need them (jit_tables::bf16_clean_lo/hi, the proof in jit_tables.cpp).
// The bounds, then both sides of each: src at the bounds takes the plain rounding and still
// equals the reference; one step outside, where a result would be denormal, it must not.
#include <omp.h>

#include <cstring>
#include <vector>

#include "../jit/jit_conf.hpp"
#include "../jit/jit_tables.hpp"
#include "bf16_scan.hpp"
#include "cpu_isa.hpp"
#include "test_util.hpp"

using namespace xinterp;
using xt::problem_builder;

namespace {

// Skips, saying why, where no JIT tier runs, or not the tier and width XINTERP_TEST_FLAVOR names.
#define REQUIRE_AVX2()                                                     \
    if (const std::string why = xt::jit_tier_unavailable(); !why.empty()) GTEST_SKIP() << why

op_desc bf16_linear(std::vector<int64_t> src, std::vector<int64_t> out, data_format f = data_format::ncx) {
    return problem_builder().src(std::move(src)).sizes(std::move(out)).fmt(f).mode(mode::linear).dt(data_type::bf16);
}

jit_tables tables_of(const op_desc &d) {
    const problem p = make_problem(d);
    return make_jit_tables(p, make_jit_conf(p, cpu_isa::avx2));
}

// A bf16 of biased exponent e, with the given 7-bit mantissa and sign.
uint16_t bf16(int e, int mant, bool neg = false) { return static_cast<uint16_t>((neg ? 0x8000 : 0) | (e << 7) | (mant & 0x7f)); }

// Runs d on src through the JIT at `threads` and through the reference: every element equal
// (NaN: both NaN). Returns whether the execution took kFlagBf16Clean.
bool run(const op_desc &d, const std::vector<uint16_t> &src, int threads) {
    primitive_desc jpd(d), rpd(d, impl_kind::reference);
    EXPECT_EQ(jpd.impl_name().rfind("jit:", 0), 0u);
    EXPECT_EQ(src.size() * 2, jpd.src_bytes());
    xt::guarded_buffer s(jpd.src_bytes(), true), dst(jpd.dst_bytes(), threads % 2 == 0);
    std::memcpy(s.data(), src.data(), s.size());
    std::vector<uint16_t> ref(rpd.dst_bytes() / 2), got(ref.size());
    const int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    const uint64_t before = detail::bf16_clean_executions_for_testing();
    primitive(jpd).execute(s.data(), dst.data());
    const bool clean = detail::bf16_clean_executions_for_testing() > before;
    omp_set_num_threads(saved);
    primitive(rpd).execute(s.data(), ref.data());
    std::memcpy(got.data(), dst.data(), dst.size());
    int bad = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const bool nan_both = (ref[i] & 0x7fff) > 0x7f80 && (got[i] & 0x7fff) > 0x7f80;
        if (ref[i] != got[i] && !nan_both && bad++ < 3)
            ADD_FAILURE() << "element " << i << ": got 0x" << std::hex << got[i] << ", reference 0x" << ref[i] << std::dec
                          << " (threads=" << threads << ", clean=" << clean << ")";
    }
    return clean;
}

// Random bf16s of biased exponents in [e_lo, e_hi], random mantissas and signs.
std::vector<uint16_t> random_bf16(size_t n, int e_lo, int e_hi, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint16_t> v(n);
    for (auto &x : v) x = bf16(e_lo + static_cast<int>(rng() % static_cast<uint32_t>(e_hi - e_lo + 1)), static_cast<int>(rng()), rng() & 1);
    return v;
}

size_t src_words(const op_desc &d) { return primitive_desc(d).src_bytes() / 2; }

// Whether d's kernel rounds by emulation, the only rounding with a clean path: the
// avx512_core_bf16 tier's VCVTNEPS2BF16 has no fixups to skip, so its kernels never scan src
// and never take kFlagBf16Clean, and must still equal the reference on the same inputs.
bool emulated_rounding(const op_desc &d) { return primitive_desc(d).isa() < cpu_isa::avx512_core_bf16; }

// Upsampling shapes of each rank and both layouts, some with src lengths off the scan's 16 words.
std::vector<op_desc> shapes() {
    return {bf16_linear({1, 3, 37}, {74}),                                   // 1-D, 111 words
            bf16_linear({1, 2, 9, 11}, {18, 22}),                           // 2-D NCX, W pass + blend
            bf16_linear({1, 9, 11, 3}, {18, 22}, data_format::nxc),         // small-C NXC (flat rows)
            bf16_linear({1, 5, 6, 17}, {10, 12}, data_format::nxc),         // direct NXC, a channel tail
            bf16_linear({1, 4, 16, 16}, {32, 32}),                          // h2 pairs
            bf16_linear({1, 2, 3, 5, 7}, {6, 10, 14}),                      // 3-D NCX
            bf16_linear({1, 3, 4, 5, 19}, {7, 9, 41}, data_format::nxc),   // 3-D NXC, odd ratios
            // Separable NXC, C % 16 == 0: even/odd W rows (jit_conf::bf16_even_odd)
            bf16_linear({1, 6, 7, 16}, {12, 15}, data_format::nxc),
            bf16_linear({2, 3, 5, 48}, {13, 9}, data_format::nxc),
            bf16_linear({1, 3, 4, 5, 32}, {6, 8, 11}, data_format::nxc)};
}

}  // namespace

// The lowest clean exponent is 8 - log2 of the product of each axis's least weight quantum:
// 2x half_pixel weights are 1/4 and 3/4 (quantum 2^-2) per axis; the highest is 236 (|x| < 2^110).
TEST(bf16_clean, bounds_from_the_weights) {
    EXPECT_EQ(tables_of(bf16_linear({1, 3, 37}, {74})).bf16_clean_lo, 10 << 7);
    EXPECT_EQ(tables_of(bf16_linear({1, 2, 9, 11}, {18, 22})).bf16_clean_lo, 12 << 7);
    EXPECT_EQ(tables_of(bf16_linear({1, 2, 3, 5, 7}, {6, 10, 14})).bf16_clean_lo, 14 << 7);
    EXPECT_EQ(tables_of(bf16_linear({1, 2, 3, 5, 7}, {6, 10, 14})).bf16_clean_hi, (236 << 7) | 0x7f);
    // 3 -> 7 (half_pixel): s = (o + 0.5) * 3/7 - 0.5 in f32, weights with quanta down to 2^-24.
    const uint16_t lo = tables_of(bf16_linear({1, 1, 3}, {7})).bf16_clean_lo;
    EXPECT_GE(lo, 20 << 7);
    EXPECT_LE(lo, 32 << 7);
    // Identity (weights 1 and 0) leaves the lowest normal exponent plus the 7 mantissa bits.
    EXPECT_EQ(tables_of(bf16_linear({1, 1, 5}, {5})).bf16_clean_lo, 8 << 7);
    // Neither f32, f16 nor nearest rounds this way.
    EXPECT_EQ(tables_of(problem_builder().src({1, 3, 37}).sizes({74}).fmt(data_format::ncx).mode(mode::linear)).bf16_clean_lo, 0);
    EXPECT_EQ(tables_of(problem_builder().src({1, 3, 37}).sizes({74}).fmt(data_format::ncx).mode(mode::linear).dt(data_type::f16)).bf16_clean_lo, 0);
    EXPECT_EQ(tables_of(problem_builder().src({1, 3, 37}).sizes({74}).fmt(data_format::ncx).dt(data_type::bf16)).bf16_clean_lo, 0);
}

// The even/odd shapes above really take that layout on AVX2, and the others do not.
TEST(bf16_clean, even_odd_rows_where_c_is_a_multiple_of_16) {
    int split = 0;
    for (const op_desc &d : shapes()) {
        const jit_conf c = make_jit_conf(make_problem(d), cpu_isa::avx2);
        EXPECT_EQ(c.bf16_even_odd, d.format == data_format::nxc && d.src_dims.back() % 16 == 0)
            << ::testing::PrintToString(d.src_dims);
        split += c.bf16_even_odd;
    }
    EXPECT_EQ(split, 3);
    // Never on AVX-512 (16 lanes widen in order), nor for f16.
    EXPECT_FALSE(make_jit_conf(make_problem(shapes().back()), cpu_isa::avx512_core).bf16_even_odd);
    op_desc f16 = shapes().back();
    f16.dt = data_type::f16;
    EXPECT_FALSE(make_jit_conf(make_problem(f16), cpu_isa::avx2).bf16_even_odd);
}

// src at the lowest and highest clean exponents, mixed signs (cancellation): the plain
// rounding is taken (where the rounding is emulated: emulated_rounding) and equals the
// reference. One exponent under the lowest or over the highest, and any zero-exponent or
// inf/NaN word anywhere (first, inside, the scan's tail), the fixups run.
TEST(bf16_clean, both_sides_of_the_bounds) {
    REQUIRE_AVX2();
    uint32_t seed = 1;
    for (const op_desc &d : shapes()) {
        const jit_tables t = tables_of(d);
        const int e_lo = t.bf16_clean_lo >> 7, e_hi = t.bf16_clean_hi >> 7;
        const size_t n = src_words(d);
        const bool clean = emulated_rounding(d);  // what src within the bounds takes
        for (int threads : {1, 2, 3}) {
            SCOPED_TRACE(::testing::Message() << "src " << ::testing::PrintToString(d.src_dims) << " threads " << threads);
            EXPECT_EQ(run(d, random_bf16(n, e_lo, e_lo, ++seed), threads), clean);
            EXPECT_EQ(run(d, random_bf16(n, e_lo, e_lo + 2, ++seed), threads), clean);
            EXPECT_EQ(run(d, random_bf16(n, e_hi - 1, e_hi, ++seed), threads), clean);
            std::vector<uint16_t> zeros = random_bf16(n, e_lo, e_lo + 30, ++seed);
            for (size_t i = 0; i < n; i += 3) zeros[i] = i % 2 ? 0x8000 : 0;
            EXPECT_EQ(run(d, zeros, threads), clean);
            EXPECT_FALSE(run(d, random_bf16(n, e_lo - 1, e_lo - 1, ++seed), threads));
            EXPECT_FALSE(run(d, random_bf16(n, e_hi + 1, e_hi + 1, ++seed), threads));
            for (uint16_t odd : {uint16_t(0x0001), uint16_t(0x807f), uint16_t(0x7f80), uint16_t(0xffc1)})
                for (size_t at : {size_t(0), n / 2, n - 1}) {
                    std::vector<uint16_t> v = random_bf16(n, e_lo, e_lo + 30, ++seed);
                    v[at] = odd;
                    EXPECT_FALSE(run(d, v, threads)) << "0x" << std::hex << odd << " at " << std::dec << at;
                }
        }
    }
}

// A src one exponent under the bound whose results are denormal: 1-D 2x, output 2j + 1 is
// 0.75 * a + 0.25 * b = 2^-127 for a = (1 + 2^-7) 2^-118 (exponent 9), b = -(1.5 + 2^-7) 2^-117.
// VCVTNEPS2BF16 flushes it to +0; the plain rounding would give the denormal 0x0040. So the
// fixups must run here, and a bound one lower would fail this test.
TEST(bf16_clean, denormal_results_one_exponent_under_the_bound) {
    REQUIRE_AVX2();
    const op_desc d = bf16_linear({1, 1, 64}, {128});
    ASSERT_EQ(tables_of(d).bf16_clean_lo, 10 << 7);
    std::vector<uint16_t> v(64);
    for (size_t j = 0; j < v.size(); ++j) v[j] = j % 2 ? bf16(10, 0x41, true) : bf16(9, 0x01);
    for (int threads : {1, 2}) EXPECT_FALSE(run(d, v, threads));
    primitive_desc pd(d);
    std::vector<uint16_t> out(pd.dst_bytes() / 2);
    primitive(pd).execute(v.data(), out.data());
    EXPECT_EQ(out[1], 0) << "0.75 a + 0.25 b = 2^-127 is denormal: +0";
}

// The src pass itself, against a scalar rule: every length from 0 to 100 words (its 32-word
// steps and scalar tail), a misaligned start, each word in turn at each side of each bound
// (lo - 1, lo, hi, hi + 1, either sign), zeros of either sign anywhere.
TEST(bf16_clean, src_pass_finds_any_word_outside_the_bounds) {
    REQUIRE_AVX2();
    const uint16_t lo = 10 << 7, hi = (236 << 7) | 0x7f;
    std::vector<uint8_t> raw(2 * 101 + 1);
    for (size_t n = 0; n <= 100; ++n) {
        auto *p = reinterpret_cast<const uint16_t *>(raw.data() + 1);  // odd address: unaligned loads
        std::vector<uint16_t> w(n);
        for (size_t i = 0; i < n; ++i) w[i] = static_cast<uint16_t>(i % 3 == 0 ? (i % 2 ? 0x8000 : 0) : lo + 7 * i);
        auto scan = [&] {
            if (n > 0) std::memcpy(raw.data() + 1, w.data(), 2 * n);
            return detail::bf16_magnitudes_within(p, n, lo, hi);
        };
        ASSERT_TRUE(scan()) << "n " << n;
        for (size_t at = 0; at < n; ++at)
            for (uint16_t v : {uint16_t(lo - 1), lo, hi, uint16_t(hi + 1)})
                for (uint16_t sign : {uint16_t(0), uint16_t(0x8000)}) {
                    const uint16_t keep = w[at];
                    w[at] = static_cast<uint16_t>(v | sign);
                    EXPECT_EQ(scan(), v == lo || v == hi) << "n " << n << " at " << at << " word 0x" << std::hex << w[at];
                    w[at] = keep;
                }
    }
}

// Downsampling reads a fraction of src: no pass over it, the fixups run.
TEST(bf16_clean, no_scan_where_src_outgrows_dst) {
    REQUIRE_AVX2();
    const op_desc d = bf16_linear({1, 2, 40, 40}, {13, 17});
    const jit_tables t = tables_of(d);
    EXPECT_FALSE(run(d, random_bf16(src_words(d), t.bf16_clean_lo >> 7, (t.bf16_clean_lo >> 7) + 9, 7), 1));
}
