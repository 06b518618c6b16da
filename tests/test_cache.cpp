// The kernel cache: LRU, statistics, full-key comparison under forced collisions, and one
// generation for many concurrent requests.
#include <thread>

#include "cache.hpp"
#include "test_util.hpp"

using namespace xinterp;
using xt::problem_builder;

namespace {
op_desc desc_n(int64_t w) { return problem_builder().src({1, 3, 5, 4}).sizes({7, w}).mode(mode::linear); }

class cache_test : public ::testing::Test {
protected:
    void SetUp() override {
        clear_cache();
        set_cache_capacity(1024);
    }
    void TearDown() override {
        cache_set_hash_for_testing(nullptr);
        set_cache_capacity(1024);
        clear_cache();
    }
};
}  // namespace

TEST_F(cache_test, hit_miss_and_entries) {
    primitive a(primitive_desc(desc_n(2)));
    primitive b(primitive_desc(desc_n(2)));
    primitive c(primitive_desc(desc_n(3)));
    const cache_stats s = get_cache_stats();
    EXPECT_EQ(s.misses, 2u);
    EXPECT_EQ(s.hits, 1u);
    EXPECT_EQ(s.entries, 2u);
    EXPECT_EQ(s.capacity, 1024u);
    EXPECT_EQ(a.dump_asm(), b.dump_asm()) << "a hit returns the same kernel";
}

TEST_F(cache_test, lru_evicts_the_least_recently_used) {
    set_cache_capacity(2);
    primitive(primitive_desc(desc_n(1)));  // A
    primitive(primitive_desc(desc_n(2)));  // B
    primitive(primitive_desc(desc_n(1)));  // A again: hit, now most recent
    primitive(primitive_desc(desc_n(3)));  // C evicts B
    cache_stats s = get_cache_stats();
    EXPECT_EQ(s.evictions, 1u);
    EXPECT_EQ(s.entries, 2u);
    const uint64_t misses = s.misses;
    primitive(primitive_desc(desc_n(1)));  // A still cached
    EXPECT_EQ(get_cache_stats().misses, misses);
    primitive(primitive_desc(desc_n(2)));  // B was evicted
    EXPECT_EQ(get_cache_stats().misses, misses + 1);
}

TEST_F(cache_test, capacity_zero_disables_caching) {
    set_cache_capacity(0);
    const uint64_t g0 = kernel_generations();
    primitive(primitive_desc(desc_n(2)));
    primitive(primitive_desc(desc_n(2)));
    EXPECT_EQ(kernel_generations(), g0 + 2);
    EXPECT_EQ(get_cache_stats().entries, 0u);
    EXPECT_EQ(get_cache_stats().hits, 0u);
}

TEST_F(cache_test, shrinking_the_capacity_evicts) {
    for (int w = 1; w <= 5; ++w) primitive(primitive_desc(desc_n(w)));
    set_cache_capacity(2);
    EXPECT_EQ(get_cache_stats().entries, 2u);
    EXPECT_EQ(get_cache_stats().evictions, 3u);
}

// Every key hashes to one bucket: lookups must still compare the whole descriptor.
TEST_F(cache_test, forced_hash_collisions_never_return_a_wrong_kernel) {
    cache_set_hash_for_testing([](const problem &, cpu_isa) -> uint64_t { return 42; });
    for (int w = 1; w <= 6; ++w) {
        const op_desc d = desc_n(w);
        primitive_desc pd(d), rpd(d, impl_kind::reference);
        std::vector<float> src(pd.src_bytes() / 4), out(pd.dst_bytes() / 4), ref(out.size());
        xt::fill_random(data_type::f32, reinterpret_cast<uint8_t *>(src.data()), src.size(), w);
        primitive(pd).execute(src.data(), out.data());
        primitive(rpd).execute(src.data(), ref.data());
        EXPECT_EQ(std::memcmp(out.data(), ref.data(), out.size() * 4), 0) << "w=" << w;
        EXPECT_EQ(primitive(pd).dump_asm().find(pd.kernel_name()) != std::string::npos, true);
    }
    EXPECT_EQ(get_cache_stats().entries, 12u);  // 6 JIT + 6 reference kernels, all distinct
}

TEST_F(cache_test, concurrent_requests_generate_once) {
    const op_desc d = problem_builder().src({1, 31, 17, 9}).sizes({40, 50}).mode(mode::linear).dt(data_type::bf16);
    const uint64_t g0 = kernel_generations();
    std::vector<std::thread> ts;
    std::vector<std::string> names(16);
    for (int i = 0; i < 16; ++i)
        ts.emplace_back([&, i] { names[i] = primitive(primitive_desc(d)).dump_asm(); });
    for (auto &t : ts) t.join();
    EXPECT_EQ(kernel_generations() - g0, 1u);
    for (const auto &n : names) EXPECT_EQ(n, names[0]);
    EXPECT_EQ(get_cache_stats().misses, 1u);
    EXPECT_EQ(get_cache_stats().hits, 15u);
}
