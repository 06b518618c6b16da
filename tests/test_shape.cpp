// Shape inference and validation (semantics.md, "Shapes" and "Errors"): pure functions, no JIT.
#include <cmath>
#include <limits>

#include "problem.hpp"
#include "test_util.hpp"

using namespace xinterp;
using xt::expect_error;
using xt::problem_builder;

namespace {
problem_builder base() {  // NXC 1x4x6x3, nearest, sizes 8x12
    return problem_builder().src({1, 4, 6, 3}).sizes({8, 12});
}
void create(const op_desc &d) { primitive_desc pd(d); }
constexpr auto INV = status::invalid_arguments;
}  // namespace

TEST(shape, infers_dst_from_sizes_nxc) {
    primitive_desc pd(base());
    EXPECT_EQ(pd.dst_dims(), (std::vector<int64_t>{1, 8, 12, 3}));
    EXPECT_EQ(pd.src_bytes(), 1u * 4 * 6 * 3 * 4);
    EXPECT_EQ(pd.dst_bytes(), 1u * 8 * 12 * 3 * 4);
}

TEST(shape, infers_dst_from_sizes_ncx) {
    primitive_desc pd(problem_builder().src({2, 3, 5}).sizes({9}).fmt(data_format::ncx).dt(data_type::bf16));
    EXPECT_EQ(pd.dst_dims(), (std::vector<int64_t>{2, 3, 9}));
    EXPECT_EQ(pd.dst_bytes(), 2u * 3 * 9 * 2);
}

TEST(shape, scales_truncate_the_f32_product) {
    // 5 * 1.5f = 7.5 -> 7; 3 * 0.7f = 2.1 -> 2; 7 * 1.1f = 7.7000003 -> 7
    primitive_desc pd(problem_builder().src({1, 5, 3, 7, 2}).scales({1.5f, 0.7f, 1.1f}));
    EXPECT_EQ(pd.dst_dims(), (std::vector<int64_t>{1, 7, 2, 7, 2}));
}

TEST(shape, sizes_win_over_scales) {
    op_desc d = base();
    d.scales = std::vector<float>{100.f, 100.f};
    primitive_desc pd(d);
    EXPECT_EQ(pd.dst_dims(), (std::vector<int64_t>{1, 8, 12, 3}));
}

TEST(shape, empty_problems_are_valid_and_write_nothing) {
    for (auto dims : {std::vector<int64_t>{0, 4, 4, 3}, std::vector<int64_t>{2, 4, 4, 0}}) {
        primitive_desc pd(problem_builder().src(dims).sizes({8, 8}));
        EXPECT_EQ(pd.dst_bytes(), 0u);
        primitive p(pd);
        EXPECT_NO_THROW(p.execute(nullptr, nullptr));
    }
}

// Found by the fuzzer: an empty problem with enormous spatial dims built O(W) JIT tables.
TEST(shape, empty_problems_with_huge_spatial_dims_build_nothing) {
    op_desc d = problem_builder().src({1, 5, int64_t(1) << 40, 0}).scales({4.75f, 0.125f}).mode(mode::linear);
    primitive_desc pd(d);
    EXPECT_EQ(pd.dst_dims(), (std::vector<int64_t>{1, 23, int64_t(1) << 37, 0}));
    EXPECT_EQ(pd.impl_name(), "ref");
    primitive p(pd);
    EXPECT_NO_THROW(p.execute(nullptr, nullptr));
}

TEST(shape, runtime_sizes_helper) {
    primitive_desc pd(base());
    const int32_t s[2] = {3, 5};
    EXPECT_EQ(pd.dst_dims_for(s, 2), (std::vector<int64_t>{1, 3, 5, 3}));
    EXPECT_EQ(pd.dst_bytes_for(s, 2), 3u * 5 * 3 * 4);
}

TEST(shape, hash_and_equality_cover_every_field) {
    const problem a = make_problem(base());
    problem b = a;
    EXPECT_EQ(a, b);
    EXPECT_EQ(hash_problem(a, cpu_isa::avx2), hash_problem(b, cpu_isa::avx2));
    EXPECT_NE(hash_problem(a, cpu_isa::avx2), hash_problem(a, cpu_isa::avx512_core));
    b.out[2] = 13;
    EXPECT_NE(a, b);
    EXPECT_NE(hash_problem(a, cpu_isa::avx2), hash_problem(b, cpu_isa::avx2));
    b = a; b.dt = data_type::f16; EXPECT_NE(a, b);
    b = a; b.fmt = data_format::ncx; EXPECT_NE(a, b);
    b = a; b.ctm = coordinate_transformation_mode::align_corners; EXPECT_NE(a, b);
    b = a; b.algorithm = alg::linear; EXPECT_NE(a, b);
    b = a; b.n = 2; EXPECT_NE(a, b);
    b = a; b.c = 4; EXPECT_NE(a, b);
    b = a; b.in[1] = 5; EXPECT_NE(a, b);
}

TEST(shape, linear_bilinear_trilinear_are_one_algorithm) {
    op_desc d = base();
    d.mode = mode::linear;
    const problem a = make_problem(d);
    d.mode = mode::trilinear;  // accepted for any rank
    EXPECT_EQ(a, make_problem(d));
}

// ---- invalid input: every case names the field and the value ------------------------------
TEST(invalid, rank_too_small) { expect_error([] { create(problem_builder().src({1, 4}).sizes({2})); }, INV, "src_dims has rank 2"); }
TEST(invalid, rank_too_large) { expect_error([] { create(problem_builder().src({1, 2, 2, 2, 2, 2}).sizes({2, 2, 2, 2})); }, INV, "src_dims has rank 6"); }
TEST(invalid, rank_zero) { expect_error([] { create(problem_builder().src({}).sizes({})); }, INV, "src_dims has rank 0"); }
TEST(invalid, negative_n) { expect_error([] { create(problem_builder().src({-1, 4, 4, 3}).sizes({2, 2})); }, INV, "N is negative: -1"); }
TEST(invalid, negative_c) { expect_error([] { create(problem_builder().src({1, 4, 4, -3}).sizes({2, 2})); }, INV, "C is negative: -3"); }
TEST(invalid, zero_spatial_dim) { expect_error([] { create(problem_builder().src({1, 0, 4, 3}).sizes({2, 2})); }, INV, "spatial dim H is 0"); }
TEST(invalid, negative_spatial_dim_ncx) { expect_error([] { create(problem_builder().src({1, 3, 4, -7}).sizes({2, 2}).fmt(data_format::ncx)); }, INV, "spatial dim W is -7"); }
TEST(invalid, unknown_dtype) { expect_error([] { create(base().dt(static_cast<data_type>(9))); }, INV, "dt has unknown value 9"); }
TEST(invalid, unknown_mode) { expect_error([] { create(base().mode(static_cast<mode>(7))); }, INV, "mode has unknown value 7"); }
TEST(invalid, unknown_transform) { expect_error([] { create(base().ctm(static_cast<coordinate_transformation_mode>(5))); }, INV, "coordinate_transformation_mode has unknown value 5"); }
TEST(invalid, unknown_format) { expect_error([] { create(base().fmt(static_cast<data_format>(3))); }, INV, "data_format has unknown value 3"); }
TEST(invalid, unknown_impl) { expect_error([] { primitive_desc pd(base(), static_cast<impl_kind>(4)); }, INV, "impl has unknown value 4"); }
TEST(invalid, neither_sizes_nor_scales) {
    op_desc d = base();
    d.sizes.reset();
    expect_error([&] { create(d); }, INV, "neither sizes nor scales");
}
TEST(invalid, sizes_too_short) { expect_error([] { create(base().sizes({8})); }, INV, "sizes has 1 values but src has 2 spatial dims"); }
TEST(invalid, sizes_too_long) { expect_error([] { create(base().sizes({8, 8, 8})); }, INV, "sizes has 3 values but src has 2 spatial dims"); }
TEST(invalid, scales_wrong_length) { expect_error([] { create(base().scales({2.f, 2.f, 2.f})); }, INV, "scales has 3 values but src has 2 spatial dims"); }
TEST(invalid, sizes_zero) { expect_error([] { create(base().sizes({8, 0})); }, INV, "sizes[1] is 0"); }
TEST(invalid, sizes_negative) { expect_error([] { create(base().sizes({-5, 8})); }, INV, "sizes[0] is -5"); }
TEST(invalid, scales_nan) { expect_error([] { create(base().scales({2.f, NAN})); }, INV, "scales[1] is nan"); }
TEST(invalid, scales_inf) { expect_error([] { create(base().scales({INFINITY, 2.f})); }, INV, "scales[0] is inf"); }
TEST(invalid, scales_negative) { expect_error([] { create(base().scales({2.f, -0.5f})); }, INV, "scales[1] is -0.5"); }
TEST(invalid, scales_zero) { expect_error([] { create(base().scales({0.f, 2.f})); }, INV, "scales[0] is 0"); }
TEST(invalid, inferred_size_below_one) { expect_error([] { create(base().scales({0.1f, 2.f})); }, INV, "infers dst size 0 for src size 4"); }
TEST(invalid, inferred_size_overflows) { expect_error([] { create(base().scales({1e30f, 2.f})); }, INV, "inferred size overflow int64"); }
TEST(invalid, src_element_count_overflows_int64) {
    expect_error([] { create(problem_builder().src({1 << 30, 1 << 30, 1 << 30, 1}).sizes({1, 1})); }, INV, "src element count overflows int64");
}
TEST(invalid, dst_element_count_overflows_int64) {
    expect_error([] { create(problem_builder().src({1, 1, 1, 1}).sizes({int64_t(1) << 40, int64_t(1) << 40})); }, INV, "dst element count overflows int64");
}
TEST(invalid, byte_size_overflows) {
    // 2^62 elements fit int64, but 2^62 * 4 bytes do not fit size_t
    expect_error([] { create(problem_builder().src({1, int64_t(1) << 31, int64_t(1) << 31, 1}).sizes({1, 1})); }, INV, "src byte size overflows size_t");
}
TEST(invalid, byte_size_exceeds_int64) {
    expect_error([] { create(problem_builder().src({1, int64_t(1) << 31, int64_t(1) << 30, 1}).sizes({1, 1})); }, INV, "src byte size 9223372036854775808 exceeds int64");
}
TEST(invalid, runtime_sizes_wrong_length) {
    primitive_desc pd(base());
    const int32_t s[3] = {2, 2, 2};
    expect_error([&] { pd.dst_dims_for(s, 3); }, INV, "runtime sizes tensor has 3 values but src has 2 spatial dims");
}
TEST(invalid, runtime_sizes_non_positive) {
    primitive_desc pd(base());
    const int32_t s[2] = {4, -2};
    expect_error([&] { pd.dst_dims_for(s, 2); }, INV, "runtime sizes[1] is -2");
    const int32_t z[2] = {0, 4};
    expect_error([&] { pd.dst_dims_for(z, 2); }, INV, "runtime sizes[0] is 0");
}
TEST(invalid, runtime_sizes_null) {
    primitive_desc pd(base());
    expect_error([&] { pd.dst_dims_for(nullptr, 2); }, INV, "runtime sizes tensor is a null pointer");
}

// Execution-time errors: nothing is written to dst.
class invalid_exec : public ::testing::Test {
protected:
    primitive_desc pd{base()};
    primitive prim{pd};
    std::vector<uint8_t> src = std::vector<uint8_t>(pd.src_bytes(), 1);
    std::vector<uint8_t> dst = std::vector<uint8_t>(pd.dst_bytes(), 0xAB);
    void expect_untouched() {
        for (uint8_t b : dst) ASSERT_EQ(b, 0xAB);
    }
};
TEST_F(invalid_exec, null_src) {
    expect_error([&] { prim.execute(nullptr, dst.data()); }, INV, "src is a null pointer");
    expect_untouched();
}
TEST_F(invalid_exec, null_dst) { expect_error([&] { prim.execute(src.data(), nullptr); }, INV, "dst is a null pointer"); }
TEST_F(invalid_exec, overlapping_src_and_dst) {
    std::vector<uint8_t> one(pd.src_bytes() + pd.dst_bytes());
    expect_error([&] { prim.execute(one.data(), one.data() + 16); }, INV, "src and dst overlap");
}
TEST_F(invalid_exec, runtime_sizes_wrong_length) {
    const int32_t s[1] = {8};
    expect_error([&] { prim.execute(src.data(), s, 1, dst.data()); }, INV, "runtime sizes tensor has 1 values");
    expect_untouched();
}
TEST_F(invalid_exec, runtime_sizes_negative) {
    const int32_t s[2] = {8, -1};
    expect_error([&] { prim.execute(src.data(), s, 2, dst.data()); }, INV, "runtime sizes[1] is -1");
    expect_untouched();
}
TEST_F(invalid_exec, runtime_sizes_null_pointer) {
    expect_error([&] { prim.execute(src.data(), nullptr, 2, dst.data()); }, INV, "runtime sizes tensor is a null pointer");
    expect_untouched();
}

TEST(invalid, max_cpu_isa_unknown_value) {
    expect_error([] { set_max_cpu_isa(static_cast<cpu_isa>(42)); }, INV, "max_cpu_isa has unknown value 42");
    expect_error([] { cpu_isa_from_name("avx9000"); }, INV, "cpu isa has unknown value 'avx9000'");
}
