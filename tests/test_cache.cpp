// The kernel cache: LRU, statistics, full-key comparison under forced collisions, and one
// generation for many concurrent requests.
#include <thread>

#include "cache.hpp"
#include "cpu_isa.hpp"
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
    cache_set_hash_for_testing([](const problem &, kernel_isa) -> uint64_t { return 42; });
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

// The AVX-512 tiers' width (cpu_isa_hints) is part of a kernel's identity: the same problem
// and tier at 256 and 512 bits are two kernels with two names, each cached on its own, even
// when every key collides. Generated here whatever the host (never executed).
TEST_F(cache_test, the_vector_width_is_part_of_the_key) {
    cache_set_hash_for_testing([](const problem &, kernel_isa) -> uint64_t { return 7; });
    const problem p = make_problem(desc_n(9));
    bool hit = true;
    const auto z = cache_get_or_create(p, kernel_isa(cpu_isa::avx512_core_bf16), &hit);
    EXPECT_FALSE(hit);
    const auto y = cache_get_or_create(p, kernel_isa(cpu_isa::avx512_core_bf16, true), &hit);
    EXPECT_FALSE(hit) << "the 256-bit kernel is not the 512-bit one";
    EXPECT_NE(z->name(), y->name());
    EXPECT_NE(y->name().find("_avx512_core_bf16_ymm_"), std::string::npos) << y->name();
    EXPECT_EQ(cache_get_or_create(p, kernel_isa(cpu_isa::avx512_core_bf16, true), &hit), y);
    EXPECT_TRUE(hit);
    EXPECT_EQ(kernel_isa(cpu_isa::avx2, true), kernel_isa(cpu_isa::avx2)) << "AVX2 has one width";
    EXPECT_EQ(kernel_isa(cpu_isa::avx512_core, true).generator(), cpu_isa::avx2);
    xt::expect_error([] { set_cpu_isa_hints(static_cast<cpu_isa_hints>(9)); }, status::invalid_arguments,
                     "cpu_isa_hints has unknown value 9");
}

// set_cpu_isa_hints is read when a primitive_desc is made: its width and kernel follow it.
// Below AVX-512 there is one width, whatever the hints.
TEST_F(cache_test, hints_pick_the_width_primitive_descs_get) {
    const cpu_isa_hints saved = get_cpu_isa_hints();
    set_cpu_isa_hints(cpu_isa_hints::prefer_ymm);
    const primitive_desc y(desc_n(5));
    set_cpu_isa_hints(cpu_isa_hints::prefer_zmm);
    const primitive_desc z(desc_n(5));
    set_cpu_isa_hints(saved);
    if (get_effective_cpu_isa() < cpu_isa::avx512_core) {
        EXPECT_EQ(y.vector_bits(), get_effective_cpu_isa() == cpu_isa::none ? 0 : 256);
        EXPECT_EQ(z.vector_bits(), y.vector_bits());
        EXPECT_EQ(y.kernel_name(), z.kernel_name()) << "one kernel: the hints name no width here";
        return;
    }
    EXPECT_EQ(y.vector_bits(), 256);
    EXPECT_EQ(z.vector_bits(), 512);
    EXPECT_EQ(y.isa(), z.isa()) << "the tier is chosen once; only the width differs";
    EXPECT_NE(y.kernel_name().find("_ymm_"), std::string::npos) << y.kernel_name();
    EXPECT_NE(primitive(y).dump_asm().find("256-bit vectors"), std::string::npos);
    EXPECT_NE(primitive(z).dump_asm().find("zmm"), std::string::npos);
    EXPECT_EQ(get_cache_stats().entries, 2u);
}

// automatic on a host with 256-bit AVX-512 units: 256 bits but for linear NCX with W rows of 16+
// src elements and W not downsampled (zmm_pays_on_256bit_units), chosen per primitive_desc.
TEST_F(cache_test, automatic_hints_widen_linear_ncx_rows_on_256_bit_units) {
    auto prob = [](data_format f, mode m, int64_t iw, int64_t ow) {
        return make_problem(problem_builder().src(f == data_format::ncx ? std::vector<int64_t>{1, 3, 5, iw} : std::vector<int64_t>{1, 5, iw, 3})
                                .sizes({7, ow}).fmt(f).mode(m));
    };
    EXPECT_TRUE(zmm_pays_on_256bit_units(prob(data_format::ncx, mode::linear, 16, 16)));
    EXPECT_TRUE(zmm_pays_on_256bit_units(prob(data_format::ncx, mode::linear, 40, 97)));
    EXPECT_FALSE(zmm_pays_on_256bit_units(prob(data_format::ncx, mode::linear, 15, 97)));  // a short row
    EXPECT_FALSE(zmm_pays_on_256bit_units(prob(data_format::ncx, mode::linear, 40, 39)));  // W down: gathers
    EXPECT_FALSE(zmm_pays_on_256bit_units(prob(data_format::ncx, mode::nearest, 40, 97)));
    EXPECT_FALSE(zmm_pays_on_256bit_units(prob(data_format::nxc, mode::linear, 40, 97)));
    const cpu_isa_hints saved = get_cpu_isa_hints();
    set_cpu_isa_hints(cpu_isa_hints::automatic);
    const op_desc up = problem_builder().src({1, 3, 5, 40}).sizes({7, 97}).fmt(data_format::ncx).mode(mode::linear);
    const op_desc nxc = problem_builder().src({1, 5, 40, 3}).sizes({7, 97}).mode(mode::linear);
    const int up_bits = primitive_desc(up).vector_bits(), nxc_bits = primitive_desc(nxc).vector_bits();
    set_cpu_isa_hints(cpu_isa_hints::prefer_ymm);
    const int up_ymm = primitive_desc(up).vector_bits();
    set_cpu_isa_hints(saved);
    const cpu_isa tier = get_effective_cpu_isa();
    if (tier < cpu_isa::avx512_core) {  // one width below AVX-512 (0: the reference)
        EXPECT_EQ(up_bits, tier == cpu_isa::none ? 0 : 256);
        EXPECT_EQ(nxc_bits, up_bits);
    } else if (!avx512_on_256bit_units()) {  // 512-bit units: automatic is prefer_zmm
        EXPECT_EQ(up_bits, 512);
        EXPECT_EQ(nxc_bits, 512);
    } else {  // Zen 4: per problem
        EXPECT_EQ(up_bits, 512);
        EXPECT_EQ(nxc_bits, 256);
    }
    if (tier >= cpu_isa::avx512_core) {
        EXPECT_EQ(up_ymm, 256) << "a hint that names a width wins";
    }
}

// Slow gathers (gathers_are_slow): AMD, and the Intel models of the Gather Data Sampling fix;
// not Sapphire or Emerald Rapids, nor other families. Linux's verdict, where it has one, wins
// over the model, which a hypervisor may misreport.
TEST(cpu_isa, gathers_are_slow_on_amd_and_gds_affected_intel_models) {
    EXPECT_TRUE(gathers_are_slow(true, 0x19, 0x11));   // Zen 4
    EXPECT_TRUE(gathers_are_slow(false, 6, 0x6a));     // Ice Lake server (this project's Ice Lake Xeon VM)
    EXPECT_TRUE(gathers_are_slow(false, 6, 0x55));     // Skylake-SP, Cascade Lake
    EXPECT_TRUE(gathers_are_slow(false, 6, 0x8d));     // Tiger Lake
    EXPECT_FALSE(gathers_are_slow(false, 6, 0x8f));    // Sapphire Rapids
    EXPECT_FALSE(gathers_are_slow(false, 6, 0xcf));    // Emerald Rapids (the Xeon dev VM)
    EXPECT_FALSE(gathers_are_slow(false, 6, 0x97));    // Alder Lake
    EXPECT_FALSE(gathers_are_slow(false, 15, 0x6a));
    // The kernel's verdict decides on Intel.
    EXPECT_TRUE(gathers_are_slow(false, 6, 0x6a, "Mitigation: Microcode"));
    EXPECT_TRUE(gathers_are_slow(false, 6, 0x8f, "Mitigation: Microcode"));
    EXPECT_FALSE(gathers_are_slow(false, 6, 0x6a, "Not affected"));
    EXPECT_FALSE(gathers_are_slow(false, 6, 0x6a, "Vulnerable: No microcode"));
    EXPECT_FALSE(gathers_are_slow(false, 6, 0x55, "Vulnerable"));
    EXPECT_TRUE(gathers_are_slow(true, 0x19, 0x11, "Not affected")) << "AMD's gathers are slow without any fix";
    // Without a verdict the model decides, unless the core has AMX or AVX512-FP16: the
    // Sapphire Rapids class VM shows Rocket Lake's model 0xa7.
    EXPECT_TRUE(gathers_are_slow(false, 6, 0xa7, "Unknown: Dependent on hypervisor status"));
    EXPECT_FALSE(gathers_are_slow(false, 6, 0xa7, "Unknown: Dependent on hypervisor status", true));
    EXPECT_FALSE(gathers_are_slow(false, 6, 0xa7, "", true));
    const cpu_features &f = host_features();
    EXPECT_EQ(f.slow_gathers,
              gathers_are_slow(f.amd, f.family, f.model, f.gds, f.amx_tile || f.avx512_fp16));
}

// automatic on a host with full-width AVX-512 units and slow gathers: 256 bits where W is
// downsampled in NCX rows (nearest: rows of 33+ elements or 16+ outputs) or in linear NXC
// pixels of C < 8 (ymm_pays_for_gathers), with NCX rows the last axis that is not 1 -> 1 and
// NXC with C = 1 as NCX; 512 elsewhere. Chosen per primitive_desc.
TEST_F(cache_test, automatic_hints_narrow_gathered_rows_where_gathers_are_slow) {
    auto prob = [](data_format f, mode m, int64_t c, std::vector<int64_t> in, std::vector<int64_t> out) {
        std::vector<int64_t> src{1};
        if (f == data_format::ncx) src.push_back(c);
        src.insert(src.end(), in.begin(), in.end());
        if (f == data_format::nxc) src.push_back(c);
        return make_problem(problem_builder().src(src).sizes(out).fmt(f).mode(m));
    };
    const auto ncx = data_format::ncx, nxc = data_format::nxc;
    const auto lin = mode::linear, nn = mode::nearest;
    EXPECT_TRUE(ymm_pays_for_gathers(prob(ncx, lin, 3, {1080, 1920}, {224, 224})));  // img_down
    EXPECT_TRUE(ymm_pays_for_gathers(prob(ncx, lin, 16, {525, 525}, {5, 5})));      // r525to5
    EXPECT_TRUE(ymm_pays_for_gathers(prob(ncx, lin, 3, {9, 21}, {9, 17})));         // any linear row
    EXPECT_TRUE(ymm_pays_for_gathers(prob(nxc, lin, 3, {1080, 1920}, {224, 224}))); // C < 8
    EXPECT_FALSE(ymm_pays_for_gathers(prob(nxc, lin, 8, {1080, 1920}, {224, 224}))); // narrow pixels of 8+ at 512
    EXPECT_TRUE(ymm_pays_for_gathers(prob(ncx, nn, 3, {9, 40}, {9, 7})));           // nearest, 33+ elements
    EXPECT_TRUE(ymm_pays_for_gathers(prob(ncx, nn, 3, {9, 18}, {9, 17})));          // nearest, 16+ outputs
    EXPECT_FALSE(ymm_pays_for_gathers(prob(ncx, nn, 3, {9, 17}, {9, 6})));          // one 512-bit window
    EXPECT_FALSE(ymm_pays_for_gathers(prob(nxc, nn, 3, {1080, 1920}, {224, 224}))); // nearest pixels
    EXPECT_FALSE(ymm_pays_for_gathers(prob(ncx, lin, 3, {1080, 1920}, {720, 1280}))); // 1.5x down: two windows at 512
    EXPECT_FALSE(ymm_pays_for_gathers(prob(ncx, nn, 3, {1080, 1920}, {720, 1280})));
    EXPECT_FALSE(ymm_pays_for_gathers(prob(ncx, lin, 3, {9, 36}, {9, 20})));         // 1.8x
    EXPECT_TRUE(ymm_pays_for_gathers(prob(ncx, lin, 3, {9, 37}, {9, 20})));          // 1.85x
    EXPECT_TRUE(ymm_pays_for_gathers(prob(ncx, lin, 3, {9, 31}, {9, 20})));          // rows under 32
    EXPECT_TRUE(ymm_pays_for_gathers(prob(nxc, nn, 1, {1080, 1920}, {224, 224})));  // C = 1: NCX rows
    EXPECT_TRUE(ymm_pays_for_gathers(prob(ncx, lin, 130, {372, 1}, {100, 1})));     // W 1 -> 1: H is the row
    EXPECT_FALSE(ymm_pays_for_gathers(prob(ncx, lin, 130, {372, 1}, {368, 1})));    // that row down 1.01x: two windows
    EXPECT_FALSE(ymm_pays_for_gathers(prob(ncx, lin, 3, {224, 224}, {512, 512})));  // W up
    EXPECT_FALSE(ymm_pays_for_gathers(prob(ncx, lin, 3, {40, 40}, {20, 40})));      // H down only
    EXPECT_FALSE(ymm_pays_for_gathers(prob(ncx, lin, 3, {1, 1}, {1, 1})));          // every axis unit
    const cpu_isa_hints saved = get_cpu_isa_hints();
    set_cpu_isa_hints(cpu_isa_hints::automatic);
    const op_desc down = problem_builder().src({1, 3, 1080, 1920}).sizes({224, 224}).fmt(ncx).mode(lin);
    const op_desc up = problem_builder().src({1, 3, 224, 224}).sizes({512, 512}).fmt(ncx).mode(lin);
    const int down_bits = primitive_desc(down).vector_bits(), up_bits = primitive_desc(up).vector_bits();
    const char *rule = width_rule();
    set_cpu_isa_hints(cpu_isa_hints::prefer_zmm);
    const int down_zmm = primitive_desc(down).vector_bits();
    set_cpu_isa_hints(saved);
    const cpu_isa tier = get_effective_cpu_isa();
    if (tier >= cpu_isa::avx512_core && !avx512_on_256bit_units() && host_features().slow_gathers) {
        EXPECT_EQ(down_bits, 256);
        EXPECT_EQ(up_bits, 512);
        EXPECT_EQ(down_zmm, 512) << "a hint that names a width wins";
        ASSERT_NE(rule, nullptr);
        EXPECT_STREQ(rule, kYmmForGathersRule);
    } else if (tier >= cpu_isa::avx512_core && !avx512_on_256bit_units()) {  // fast gathers: 512 throughout
        EXPECT_EQ(down_bits, 512);
        EXPECT_EQ(rule, nullptr);
    }
}
