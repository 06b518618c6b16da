// The scalar reference: hand-computed goldens, then a sweep against the float64 oracle.
#include <gtest/gtest-spi.h>

#include "numeric.hpp"
#include "oracle.hpp"

using namespace xinterp;
using xt::problem_builder;

namespace {

template <typename T>
std::vector<T> run_ref(const op_desc &d, const std::vector<T> &src, impl_kind impl = impl_kind::reference) {
    primitive_desc pd(d, impl);
    primitive p(pd);
    EXPECT_EQ(pd.src_bytes(), src.size() * sizeof(T));
    std::vector<T> dst(pd.dst_bytes() / sizeof(T));
    p.execute(src.data(), dst.data());
    return dst;
}

constexpr auto NCX = data_format::ncx;
constexpr auto AC = coordinate_transformation_mode::align_corners;

}  // namespace

TEST(golden, nearest_4_to_2_picks_src_1_and_3) {
    const auto out = run_ref<float>(problem_builder().src({1, 1, 4}).sizes({2}).fmt(NCX), {10, 11, 12, 13});
    EXPECT_EQ(out, (std::vector<float>{11, 13}));
}

TEST(golden, nearest_2x2_to_3x3) {
    const auto out = run_ref<float>(problem_builder().src({1, 1, 2, 2}).sizes({3, 3}).fmt(NCX), {-2, -1.5f, -1, -0.5f});
    EXPECT_EQ(out, (std::vector<float>{-2, -1.5f, -1.5f, -1, -0.5f, -0.5f, -1, -0.5f, -0.5f}));
}

TEST(golden, linear_half_pixel_2_to_4) {
    // s = -0.25, 0.25, 0.75, 1.25 -> clamped to [0, 1]
    const auto out = run_ref<float>(problem_builder().src({1, 1, 2}).sizes({4}).fmt(NCX).mode(mode::linear), {0, 10});
    EXPECT_EQ(out, (std::vector<float>{0, 2.5f, 7.5f, 10}));
}

TEST(golden, linear_align_corners_2_to_3) {
    const auto out = run_ref<float>(problem_builder().src({1, 1, 2}).sizes({3}).fmt(NCX).mode(mode::linear).ctm(AC), {0, 10});
    EXPECT_EQ(out, (std::vector<float>{0, 5, 10}));
}

TEST(golden, bilinear_2x2_center) {
    // half_pixel 2x2 -> 4x4: output (1,1) has s = 0.25 on both axes:
    // top = 0.75*1 + 0.25*2 = 1.25, bottom = 0.75*3 + 0.25*4 = 3.25, result 0.75*1.25 + 0.25*3.25 = 1.75
    const auto out = run_ref<float>(problem_builder().src({1, 1, 2, 2}).sizes({4, 4}).fmt(NCX).mode(mode::bilinear), {1, 2, 3, 4});
    EXPECT_EQ(out[1 * 4 + 1], 1.75f);
    EXPECT_EQ(out[0], 1.f);
    EXPECT_EQ(out[15], 4.f);
}

TEST(golden, align_corners_with_one_output_takes_the_first_element) {
    for (auto m : {mode::nearest, mode::linear}) {
        const auto out = run_ref<float>(problem_builder().src({1, 1, 4}).sizes({1}).fmt(NCX).mode(m).ctm(AC), {7, 8, 9, 10});
        EXPECT_EQ(out, (std::vector<float>{7}));
    }
}

TEST(golden, identity_sizes_copy_the_input) {
    std::vector<float> src(2 * 3 * 5 * 4);
    xt::fill_random(data_type::f32, reinterpret_cast<uint8_t *>(src.data()), src.size(), 3);
    for (auto m : {mode::nearest, mode::linear})
        for (auto f : {data_format::ncx, data_format::nxc})
            for (auto c : {coordinate_transformation_mode::half_pixel, AC})
                EXPECT_EQ(run_ref<float>(problem_builder().src({2, 3, 5, 4}).sizes(f == NCX ? std::vector<int64_t>{5, 4} : std::vector<int64_t>{3, 5}).fmt(f).mode(m).ctm(c), src), src);
}

TEST(golden, nxc_and_ncx_give_the_same_values) {
    const int64_t C = 3, H = 4, W = 5;
    std::vector<float> ncx(C * H * W), nxc(C * H * W);
    xt::fill_random(data_type::f32, reinterpret_cast<uint8_t *>(ncx.data()), ncx.size(), 9);
    for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < H * W; ++i) nxc[i * C + c] = ncx[c * H * W + i];
    for (auto m : {mode::nearest, mode::bilinear}) {
        const auto a = run_ref<float>(problem_builder().src({1, C, H, W}).sizes({7, 3}).fmt(NCX).mode(m), ncx);
        const auto b = run_ref<float>(problem_builder().src({1, H, W, C}).sizes({7, 3}).mode(m), nxc);
        for (int64_t c = 0; c < C; ++c)
            for (int64_t i = 0; i < 21; ++i) ASSERT_EQ(xt::fbits(a[c * 21 + i]), xt::fbits(b[i * C + c]));
    }
}

TEST(golden, bf16_store_rounds_ties_to_even) {
    // align_corners 2 -> 3: the middle output is exactly 0.5*a + 0.5*b
    const auto d = problem_builder().src({1, 1, 2}).sizes({3}).fmt(NCX).mode(mode::linear).ctm(AC).dt(data_type::bf16);
    EXPECT_EQ(run_ref<uint16_t>(d, {0x3f80, 0x3f81})[1], 0x3f80);  // 1.00390625 is a tie: down to even
    EXPECT_EQ(run_ref<uint16_t>(d, {0x3f81, 0x3f82})[1], 0x3f82);  // 1.01171875 is a tie: up to even
}

TEST(golden, f16_store_rounds_ties_to_even) {
    const auto d = problem_builder().src({1, 1, 2}).sizes({3}).fmt(NCX).mode(mode::linear).ctm(AC).dt(data_type::f16);
    EXPECT_EQ(run_ref<uint16_t>(d, {0x3c00, 0x3c01})[1], 0x3c00);
    EXPECT_EQ(run_ref<uint16_t>(d, {0x3c01, 0x3c02})[1], 0x3c02);
}

TEST(golden, bf16_denormal_results_become_signed_zero) {
    const auto lin = problem_builder().src({1, 1, 2}).sizes({2}).fmt(NCX).mode(mode::linear).dt(data_type::bf16);
    EXPECT_EQ(run_ref<uint16_t>(lin, {0x0001, 0x8001}), (std::vector<uint16_t>{0x0000, 0x8000}));
    const auto nn = problem_builder().src({1, 1, 2}).sizes({2}).fmt(NCX).dt(data_type::bf16);
    EXPECT_EQ(run_ref<uint16_t>(nn, {0x0001, 0x8001}), (std::vector<uint16_t>{0x0001, 0x8001}));  // bit copies
}

TEST(golden, nearest_copies_nan_payloads_and_negative_zero) {
    const auto d = problem_builder().src({1, 1, 3}).sizes({3}).fmt(NCX).dt(data_type::f16);
    EXPECT_EQ(run_ref<uint16_t>(d, {0x7d01, 0x8000, 0xfc00}), (std::vector<uint16_t>{0x7d01, 0x8000, 0xfc00}));
    const auto f = problem_builder().src({1, 1, 2}).sizes({2}).fmt(NCX);
    const auto out = run_ref<float>(f, {xt::bitsf(0x7f800001), -0.f});
    EXPECT_EQ(xt::fbits(out[0]), 0x7f800001u);
    EXPECT_EQ(xt::fbits(out[1]), 0x80000000u);
}

TEST(golden, linear_nan_stays_quiet_nan) {
    const auto d = problem_builder().src({1, 1, 2}).sizes({3}).fmt(NCX).mode(mode::linear).ctm(AC).dt(data_type::bf16);
    const auto out = run_ref<uint16_t>(d, {0x7f81, 0x3f80});  // a signalling bf16 NaN
    EXPECT_EQ(out[0] & 0x7fc0, 0x7fc0);  // quiet NaN
    EXPECT_EQ(out[2], 0x3f80);
}

TEST(conversions, bf16_and_f16_edge_cases) {
    EXPECT_EQ(f32_to_bf16(3.3895314e38f), 0x7f7f);                 // bf16 max is exact
    EXPECT_EQ(f32_to_bf16(3.4028235e38f), 0x7f80);                 // FLT_MAX rounds past it: inf
    EXPECT_EQ(f32_to_bf16(-INFINITY), 0xff80);
    EXPECT_EQ(f32_to_bf16(xt::bitsf(0x7f800001)), 0x7fc0);         // sNaN -> (bits >> 16) | 0x40
    EXPECT_EQ(f32_to_bf16(xt::bitsf(0x807fffff)), 0x8000);         // denormal -> signed zero
    EXPECT_EQ(f32_to_f16(65519.f), 0x7bff);
    EXPECT_EQ(f32_to_f16(65520.f), 0x7c00);                        // overflow: inf
    EXPECT_EQ(f32_to_f16(std::ldexp(1.f, -24)), 0x0001);           // smallest f16 denormal kept
    EXPECT_EQ(f32_to_f16(std::ldexp(1.f, -25)), 0x0000);           // tie to even: 0
    EXPECT_EQ(f32_to_f16(std::ldexp(3.f, -25)), 0x0002);           // 1.5 units: tie to even 2
    EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.f, -24));
    EXPECT_EQ(xt::fbits(f16_to_f32(0x7d01)) & 0x7fc00000u, 0x7fc00000u);  // quietened on widening
}

// ---- the reference against the float64 oracle, every configuration ------------------------
struct sweep_param {
    int k;
    mode m;
    coordinate_transformation_mode ctm;
    data_format fmt;
    data_type dt;
};

class reference_vs_oracle : public ::testing::TestWithParam<sweep_param> {};

TEST_P(reference_vs_oracle, within_contract) {
    const sweep_param sp = GetParam();
    std::mt19937 rng(1234 + sp.k * 100 + static_cast<int>(sp.m) * 10 + static_cast<int>(sp.dt));
    for (int iter = 0; iter < 6; ++iter) {
        std::vector<int64_t> dims{1 + static_cast<int64_t>(rng() % 2)}, sizes;
        const int64_t c = 1 + rng() % 5;
        if (sp.fmt == NCX) dims.push_back(c);
        for (int i = 0; i < sp.k; ++i) {
            dims.push_back(1 + rng() % 9);
            sizes.push_back(1 + rng() % 11);
        }
        if (sp.fmt == data_format::nxc) dims.push_back(c);
        const auto d = problem_builder().src(dims).sizes(sizes).mode(sp.m).ctm(sp.ctm).fmt(sp.fmt).dt(sp.dt);
        primitive_desc pd(d, impl_kind::reference);
        std::vector<uint8_t> src(pd.src_bytes()), dst(pd.dst_bytes());
        xt::fill_random(sp.dt, src.data(), src.size() / xt::esize(sp.dt), rng());
        primitive(pd).execute(src.data(), dst.data());
        ASSERT_EQ(xt::oracle_check(d, pd.dst_dims(), src.data(), dst.data()), 0) << "case " << iter;
    }
}

std::vector<sweep_param> all_params() {
    std::vector<sweep_param> v;
    for (int k = 1; k <= 3; ++k)
        for (auto m : {mode::nearest, mode::linear})
            for (auto c : {coordinate_transformation_mode::half_pixel, AC})
                for (auto f : {data_format::ncx, data_format::nxc})
                    for (auto t : {data_type::f32, data_type::bf16, data_type::f16}) v.push_back({k, m, c, f, t});
    return v;
}

INSTANTIATE_TEST_SUITE_P(all, reference_vs_oracle, ::testing::ValuesIn(all_params()),
                         [](const ::testing::TestParamInfo<sweep_param> &i) {
                             const sweep_param &p = i.param;
                             return std::to_string(p.k) + "d_" + to_string(p.m) + "_" +
                                    (p.ctm == AC ? "ac" : "hp") + "_" + to_string(p.fmt) + "_" + to_string(p.dt);
                         });

// The oracle must be able to fail: a one-ulp change to one output is caught.
TEST(oracle, detects_a_wrong_result) {
    const auto d = problem_builder().src({1, 3, 3, 2}).sizes({5, 4}).mode(mode::linear);
    primitive_desc pd(d, impl_kind::reference);
    std::vector<float> src(pd.src_bytes() / 4, 1.f), dst(pd.dst_bytes() / 4);
    src[3] = 2.f;
    primitive(pd).execute(src.data(), dst.data());
    ASSERT_EQ(xt::oracle_check(d, pd.dst_dims(), reinterpret_cast<uint8_t *>(src.data()), reinterpret_cast<uint8_t *>(dst.data())), 0);
    dst[7] *= 1.0001f;  // far outside the few-ulp contract
    ::testing::TestPartResultArray failures;
    int64_t bad;
    {
        ::testing::ScopedFakeTestPartResultReporter reporter(::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
        bad = xt::oracle_check(d, pd.dst_dims(), reinterpret_cast<uint8_t *>(src.data()), reinterpret_cast<uint8_t *>(dst.data()));
    }
    EXPECT_EQ(bad, 1);
}
