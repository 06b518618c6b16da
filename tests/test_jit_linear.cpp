// Bitwise against the reference (test_jit.cpp): both gather spellings, linear tap pairs, the
// 2x groups and periodic runs, the random sweeps, fused volumes, the NCX 2x H pairs and the
// rows that prefetch the next row's src rows.
#include "jit_test_util.hpp"

using namespace xinterp;
using namespace xinterp::jt;

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
// first and last band only), all dtypes, with specials. Line blocks: AVX2 f32 rows of whole
// lines (OW 32, 48, 80, 400, 512 here) and 512-bit 16-bit rows of even and odd vector counts,
// tails in a block's second vector and alone.
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
        // Bands of kH2BandBytes (6 KiB) of output rows, kH2BandMin pairs at least: f32 rows of
        // 512 bytes take 6 pairs per call, of 1 KiB and 4 KiB 4; fpn's rows (256 bytes) 12 of
        // its 31, its bf16 rows 24.
        nt_threshold nt(size_t(1) << 40);
        EXPECT_EQ(linear_conf({1, 64, 64, 64}, {128, 128}).h2_band, 6);
        EXPECT_EQ(linear_conf({1, 16, 128, 128}, {256, 256}).h2_band, 4);
        EXPECT_EQ(linear_conf({1, 4, 32, 512}, {64, 1024}).h2_band, 4);
        EXPECT_EQ(linear_conf({1, 256, 32, 32}, {64, 64}).h2_band, 12);
        const auto fpn16 = problem_builder().src({1, 256, 32, 32}).sizes({64, 64}).fmt(data_format::ncx).mode(mode::linear).dt(data_type::bf16);
        EXPECT_EQ(make_jit_conf(make_problem(fpn16), cpu_isa::avx2).h2_band, 24);
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

// The rows that prefetch the next row's src rows (jit_conf::prefetch_bytes; a src of 1 MiB or
// more, H downsampled): nearest row mode (the driver), nearest plane mode and the fused H
// step, 2-D and 3-D (the plane kernels, from the next row's record), NXC flat rows. 1-3
// threads, so that calls end inside a plane (the kernels' last row prefetches nothing),
// guard pages on either edge, every dtype.
TEST(jit_bitwise, prefetched_rows) {
    REQUIRE_AVX2();
    threads_and_spelling_restore restore;
    struct shape {
        data_format f;
        mode m;
        int64_t c;
        std::vector<int64_t> in, out;
    };
    const auto ncx = data_format::ncx, nxc = data_format::nxc;
    const auto nearest = mode::nearest, lin = mode::linear;
    const std::vector<shape> shapes = {
        {ncx, nearest, 20, {78, 376}, {22, 705}},      // row mode, whole rows of 1.5 KB
        {ncx, nearest, 3, {180, 1100}, {61, 700}},     // row mode, the first 2 KiB of 4.4 KB
        {ncx, nearest, 128, {64, 64}, {16, 80}},       // plane mode
        {ncx, lin, 20, {78, 376}, {22, 705}},          // fused H step, plane mode
        {ncx, lin, 8, {6, 78, 376}, {3, 22, 705}},     // fused 3-D
        {nxc, nearest, 3, {500, 400}, {100, 500}},     // flat NXC rows, row mode
    };
    uint32_t seed = 4100;
    for (int threads : {1, 2, 3}) {
        omp_set_num_threads(threads);
        for (const auto &sh : shapes)
            for (auto t : kTypes) {
                if (emulated() && (threads > 1 || t != data_type::f32)) continue;
                const auto d = problem_builder().src(layout(sh.f, 1, sh.c, sh.in)).sizes(sh.out).fmt(sh.f).mode(sh.m).dt(t);
                EXPECT_GT(make_jit_conf(make_problem(d), cpu_isa::avx2).prefetch_bytes, 0) << describe(d);
                ++seed;
                ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads;
            }
    }
}

namespace {
// Forces computed taps on (1) or off (0) for a scope, the cache cleared around it:
// the mode is not in the cache key.
struct calc_taps_mode {
    explicit calc_taps_mode(int mode) {
        set_calc_taps_for_testing(mode);
        clear_cache();
    }
    ~calc_taps_mode() {
        set_calc_taps_for_testing(-1);
        clear_cache();
    }
};
}  // namespace

// The window scan (scan_windows) reads only the end columns of a vector and the columns
// next to them, since i0 never falls as o grows: checked against every element's taps, for
// NCX and NXC flat rows (C = 2-7 at 256 bits, whole columns or not), rows around a vector,
// up and down, clamped at either end, both transforms, nearest and linear, both widths (512:
// the two-window path). Narrow pixels' edge (narrow_edge_px, a bisection) against a scan.
TEST(jit_conf, window_scan_reads_each_vectors_end_columns) {
    int checked = 0, edges = 0;
    for (cpu_isa isa : {cpu_isa::avx2, cpu_isa::avx512_core})
        for (auto ct : {coordinate_transformation_mode::half_pixel, coordinate_transformation_mode::align_corners})
            for (bool lin : {true, false})
                for (int64_t C : {1, 2, 3, 4, 5, 7})
                    for (int64_t I : {1, 2, 7, 8, 9, 17, 33, 525, 1000})
                        for (int64_t O : {1, 5, 8, 9, 16, 17, 31, 73, 525, 2000}) {
                            const data_format f = C == 1 ? data_format::ncx : data_format::nxc;
                            const auto d = problem_builder().src(C == 1 ? std::vector<int64_t>{1, 1, I} : std::vector<int64_t>{1, I, C})
                                               .sizes({O}).fmt(f).mode(lin ? mode::linear : mode::nearest).ctm(ct);
                            const problem p = make_problem(d);
                            SCOPED_TRACE(std::string(cpu_isa_name(isa)) + (lin ? " linear C = " : " nearest C = ") + std::to_string(C) + ", " +
                                         std::to_string(I) + " -> " + std::to_string(O));
                            auto tap = [&](int64_t o) {
                                if (lin) return linear_coord(o, I, O, ct);
                                const int64_t n = nearest_index(o, I, O, ct);
                                return linear_tap{n, n, 1.f, 0.f};
                            };
                            set_narrow_for_testing(1);  // narrow pixels where they can serve
                            const jit_conf n = make_jit_conf(p, isa);
                            if (n.narrow && lin) {
                                const int64_t w = n.simd_w;
                                int64_t first = O;
                                for (int64_t o = 0; o < O && first == O; ++o)
                                    if ((O - o) * C < w || tap(o).i1 * C + w > I * C) first = o;
                                EXPECT_EQ(n.edge_px, O - first);
                                ++edges;
                            }
                            set_narrow_for_testing(0);  // flat rows
                            const jit_conf c = make_jit_conf(p, isa);
                            set_narrow_for_testing(-1);
                            if (!c.pass_engine || c.flat_c != C) continue;
                            const int64_t w = c.simd_w, n_el = O * C;
                            bool window = I * C >= w || isa >= cpu_isa::avx512_core, window2 = w == 16 && I * C >= 2 * w, open = lin;
                            int64_t pairs = 0;
                            bool tail = false;
                            for (int64_t v = 0; v * w < n_el && (window || window2); ++v) {
                                int64_t lo[2] = {INT64_MAX, INT64_MAX}, hi[2] = {-1, -1};
                                bool nb = true;
                                for (int64_t e = v * w; e < std::min(n_el, (v + 1) * w); ++e) {
                                    const linear_tap t = tap(e / C);
                                    const int64_t ix[2] = {t.i0 * C + e % C, t.i1 * C + e % C};
                                    for (int k = 0; k < 2; ++k) lo[k] = std::min(lo[k], ix[k]), hi[k] = std::max(hi[k], ix[k]);
                                    nb = nb && t.i1 == t.i0 + 1;
                                }
                                window = window && hi[0] - lo[0] < w && hi[1] - lo[1] < w;
                                window2 = window2 && hi[0] - lo[0] < 2 * w && hi[1] - lo[1] < 2 * w;
                                open = open && nb && hi[1] - lo[0] < w;
                                if (open && v < n_el / w) ++pairs;
                                else if (open) tail = true;
                            }
                            EXPECT_EQ(c.window, window);
                            EXPECT_EQ(c.window2, !window && window2);
                            if (window) {  // off the window path pair_vecs is the gather path's (a bisection)
                                EXPECT_EQ(c.pair_vecs, pairs);
                                EXPECT_EQ(c.pair_tail, tail);
                            }
                            ++checked;
                        }
    EXPECT_GT(checked, 3000);
    EXPECT_GT(edges, 500);
}

// Computed taps (jit_conf::calc_first, calc_end): where a row's records would come to
// kCalcMinBytes, the window vectors past the left clamp and short of the first clamped lane
// and of the last tap-1 window that fits take their taps and weights from the output index;
// on the gather path the insert spelling's pairs. f32 at both widths, not 16-bit; on one
// side of an up2 or periodic run; not where a row's records fit L2 (gather path: the LLC).
TEST(jit_conf, computed_taps_where_records_come_from_far) {
    const auto ac = coordinate_transformation_mode::align_corners;
    const jit_conf up = linear_conf({1, 1, 600000}, {882000});
    EXPECT_EQ(up.calc_first, 1);  // vector 0: s < 0 in lane 0 (half_pixel upsampling)
    EXPECT_EQ(up.calc_end, up.pair_vecs);  // vector 110249 holds the first clamped output
    // The computed vectors have no records: 2 of 110250 stored (vectors 0 and 110249).
    const auto long_row = problem_builder().src({1, 1, 600000}).sizes({882000}).fmt(data_format::ncx).mode(mode::linear);
    EXPECT_EQ(make_jit_tables(make_problem(long_row), up).wtab.size(), size_t(2 * up.rec_bytes));
    EXPECT_EQ(stored_record(up, 0), 0);
    EXPECT_EQ(stored_record(up, 1), 1);
    EXPECT_EQ(stored_record(up, 5000), 1);
    EXPECT_EQ(stored_record(up, 110249), 1);
    // Up a little: each tap in its own window, both taps' windows a column apart.
    const jit_conf little = linear_conf({1, 1, 44100}, {48000});
    EXPECT_EQ(little.pair_vecs, 2);
    EXPECT_EQ(little.calc_first, 1);  // output 0: s < 0
    EXPECT_EQ(little.calc_end, 5999);  // 6000: outputs 47992 - 47999, the last clamped
    // NXC flat rows of C = 2 (stereo): 4 columns a vector at 256 bits, 8 at 512; not C = 3.
    const jit_conf stereo = linear_conf({1, 44100, 2}, {48000}, cpu_isa::avx2, coordinate_transformation_mode::half_pixel, data_format::nxc);
    EXPECT_EQ(stereo.flat_c, 2);
    EXPECT_EQ(stereo.calc_first, 1);
    EXPECT_EQ(stereo.calc_end, 11999);  // 12000: columns 47996 - 47999
    const jit_conf stereo512 = linear_conf({1, 44100, 2}, {48000}, cpu_isa::avx512_core, coordinate_transformation_mode::half_pixel, data_format::nxc);
    EXPECT_EQ(stereo512.calc_end, 5999);
    EXPECT_EQ(linear_conf({1, 44100, 3}, {48000}, cpu_isa::avx2, coordinate_transformation_mode::half_pixel, data_format::nxc).calc_end, 0);
    EXPECT_TRUE(up.calc_half);
    EXPECT_FALSE(up.calc_int);
    // Past 2^23 outputs (half_pixel) o + 0.5 is no longer exact: an s32 counter, converted.
    const jit_conf huge = linear_conf({1, 1, 6000000}, {8400000});
    EXPECT_TRUE(huge.calc_int);
    EXPECT_GT(huge.calc_end, 1000000);
    EXPECT_EQ(up.calc_mul, 600000.f);
    EXPECT_EQ(up.calc_div, 882000.f);
    const jit_conf up_ac = linear_conf({1, 1, 600000}, {882000}, cpu_isa::avx2, ac);
    EXPECT_EQ(up_ac.calc_first, 0);
    EXPECT_FALSE(up_ac.calc_half);
    EXPECT_EQ(up_ac.calc_mul, 599999.f);
    EXPECT_EQ(up_ac.calc_div, 881999.f);
    EXPECT_GT(linear_conf({1, 1, 600000}, {882000}, cpu_isa::avx512_core).calc_end, 0);
    EXPECT_GT(linear_conf({1, 3, 5, 20000}, {7, 29411}).calc_end, 0);  // 2-D: the W rows into scratch
    EXPECT_EQ(linear_conf({1, 256, 500}, {750}).calc_end, 0);                 // 15 KiB of records: from L1
    // Runs that read no records keep them: the range takes the larger side of the run.
    const jit_conf up2 = linear_conf({1, 1, 24000}, {48000}), per = linear_conf({1, 1, 16000}, {48000});
    EXPECT_EQ(up2.calc_first, up2.up2_first + 2 * up2.up2_groups);
    EXPECT_EQ(up2.calc_end, up2.pair_vecs);
    EXPECT_EQ(per.calc_first, 1);
    EXPECT_EQ(per.calc_end, per.per_first);
    // 3x down: the gather path's pairs, on the insert spelling (AMD; Intel with the GDS
    // mitigation) only: vgatherdps reads the taps apart.
    // Only where the records (32 MB here) would not stay in the LLC; 200 KB do.
    set_gather_spelling_for_testing(1);
    const jit_conf far = linear_conf({1, 1, 4410000}, {1600000});
    EXPECT_EQ(far.calc_first, 0);
    EXPECT_EQ(far.calc_end, far.pair_vecs);
    EXPECT_EQ(linear_conf({1, 1, 30000}, {10000}).calc_end, 0);
    // vgatherdps (two per vector, tap 1 the next element) as nearest's rule: a single row from
    // 1 MiB of records, more rows from 384 KiB; every vector short of the clamp.
    set_gather_spelling_for_testing(0);
    const jit_conf hw = linear_conf({1, 1, 4410000}, {1600000}, cpu_isa::avx512_core);
    EXPECT_EQ(hw.calc_first, 0);
    EXPECT_EQ(hw.calc_end, hw.ow_full);
    EXPECT_EQ(linear_conf({1, 1, 30000}, {10000}, cpu_isa::avx512_core).calc_end, 0);
    EXPECT_GT(linear_conf({1, 4, 100000}, {30000}, cpu_isa::avx512_core).calc_end, 0);
    set_gather_spelling_for_testing(-1);
    // 16-bit: the 512-bit generator's windows (linear: widened as they load; nearest: vpermw);
    // the 256-bit generator's byte-control windows (AVX2, and AVX-512 at 256 bits), and the
    // gather path, keep their tables.
    for (data_type t : {data_type::bf16, data_type::f16}) {
        const auto d = problem_builder().src({1, 1, 600000}).sizes({882000}).fmt(data_format::ncx).mode(mode::linear).dt(t);
        EXPECT_EQ(make_jit_conf(make_problem(d), cpu_isa::avx2).calc_end, 0);
        const jit_conf z = make_jit_conf(make_problem(d), cpu_isa::avx512_core);
        EXPECT_EQ(z.calc_first, 1);
        EXPECT_GT(z.calc_end, z.ow_full - 3);
        EXPECT_EQ(make_jit_conf(make_problem(d), kernel_isa(cpu_isa::avx512_core, true)).calc_end, 0);
        const auto down = problem_builder().src({1, 1, 2000000}).sizes({700000}).fmt(data_format::ncx).mode(mode::linear).dt(t);
        EXPECT_EQ(make_jit_conf(make_problem(down), cpu_isa::avx512_core).calc_end, 0);
        const auto near = problem_builder().src({1, 1, 2000000}).sizes({3000000}).fmt(data_format::ncx).mode(mode::nearest).dt(t);
        EXPECT_GT(make_jit_conf(make_problem(near), cpu_isa::avx512_core).calc_end, 0);  // vpermw
        EXPECT_EQ(make_jit_conf(make_problem(near), cpu_isa::avx2).calc_end, 0);
    }
    {
        const calc_taps_mode on(1);
        EXPECT_EQ(linear_conf({1, 256, 500}, {750}).calc_first, 1);
        EXPECT_GT(linear_conf({1, 256, 500}, {750}).calc_end, 1);
        const jit_conf up2_small = linear_conf({1, 1, 400}, {800});  // up2 groups to the edge
        EXPECT_GT(up2_small.up2_groups, 0);
        EXPECT_EQ(up2_small.calc_end, 0);
        // 7.31x up: a vector's outputs share one or two src elements, and the last pairs
        // vectors' windows start left of their lane 0's i0 (from their records).
        const jit_conf steep = linear_conf({1, 1, 100}, {731});
        EXPECT_GT(steep.calc_end, steep.calc_first);
        EXPECT_LT(steep.calc_end, steep.pair_vecs);
    }
    const calc_taps_mode off(0);
    EXPECT_EQ(linear_conf({1, 1, 600000}, {882000}).calc_end, 0);
}

// Nearest computes its lanes' indices (jit_conf::kCalcNearestRowMinBytes): a single row from
// 1 MiB of records (8 bytes an output), more rows from kCalcMinBytes; up to the first vector
// with a lane at the last src column or a window past the row's end; the gather path too;
// 16-bit on the 512-bit generator's windows only (vpermw); never plane mode's short rows.
TEST(jit_conf, nearest_computed_taps_where_records_come_from_far) {
    auto conf = [](std::vector<int64_t> src, std::vector<int64_t> out, kernel_isa k = kernel_isa(cpu_isa::avx2),
                   data_type t = data_type::f32) {
        const auto d = problem_builder().src(src).sizes(out).fmt(data_format::ncx).mode(mode::nearest).dt(t);
        return make_jit_conf(make_problem(d), k);
    };
    const problem row = make_problem(problem_builder().src({1, 1, 240000}).sizes({480000}).fmt(data_format::ncx).mode(mode::nearest));
    for (const kernel_isa k : {kernel_isa(cpu_isa::avx2), kernel_isa(cpu_isa::avx512_core)}) {
        const jit_conf c = conf({1, 1, 240000}, {480000}, k);
        ASSERT_TRUE(c.window);
        EXPECT_EQ(c.calc_first, 1);  // vector 0's lane 0: s = -0.25
        // The last vector whose lanes all map below the last src column, and whose window fits.
        const int64_t w = c.simd_w, I = 240000, O = 480000;
        int64_t end = 0;
        while (end < c.ow_full && nearest_index(end * w + w - 1, I, O, row.ctm) < I - 1 && nearest_index(end * w, I, O, row.ctm) + w <= I) ++end;
        EXPECT_EQ(c.calc_end, end);
        EXPECT_FALSE(c.calc_int);
    }
    EXPECT_EQ(conf({1, 1, 50000}, {73529}).calc_end, 0);                                    // 588 KB: one row keeps them
    EXPECT_GT(conf({1, 1, 100000}, {150000}).calc_end, 0);                                  // 1.2 MB
    EXPECT_GT(conf({1, 4, 50000}, {73529}).calc_end, 0);                                    // four rows: from 384 KiB
    EXPECT_GT(conf({1, 1, 400000}, {150000}, kernel_isa(cpu_isa::avx512_core)).calc_end, 0);  // vgatherdps
    EXPECT_EQ(conf({1, 1, 240000}, {480000}, kernel_isa(cpu_isa::avx2), data_type::bf16).calc_end, 0);
    EXPECT_EQ(conf({1, 1, 240000}, {480000}, kernel_isa(cpu_isa::avx2), data_type::f16).calc_end, 0);
    // 16-bit: from a quarter of the LLC one thread counts on (4-8 MiB; 24 MB of records here).
    EXPECT_EQ(conf({1, 1, 240000}, {480000}, kernel_isa(cpu_isa::avx512_core), data_type::bf16).calc_end, 0);
    EXPECT_GT(conf({1, 1, 2000000}, {3000000}, kernel_isa(cpu_isa::avx512_core), data_type::bf16).calc_end, 0);
    EXPECT_EQ(conf({1, 1, 400000}, {150000}, kernel_isa(cpu_isa::avx512_core), data_type::f16).calc_end, 0);  // gathers
    const calc_taps_mode on(1);
    const jit_conf plane = conf({1, 64, 30, 40}, {60, 80});
    EXPECT_TRUE(plane.plane_mode);
    EXPECT_EQ(plane.calc_end, 0);
}

// Computed taps, bitwise, forced on wherever the kernel can take them (f32; 16-bit windows
// on the 512-bit generator, the other 16-bit cases keep their tables): 1-D rows up and down a little (the W pass writes dst, NT
// or not; single rows past 128 KiB of dst split into spans on 2-4 threads, so a span starts
// and ends inside the computed range), both transforms, rows whose last bases move left,
// short rows, downsampling on the gather path (both spellings: vgatherdps computes nothing),
// NXC with C = 1, and 2-D and 3-D W rows and W-planes into scratch; specials and guard
// pages; with the f32 counter and with the s32 one that rows past 2^23 outputs take. Linear,
// and nearest (windows and vgatherdps in row mode; its row pairs and row copies, H up): the
// same shapes.
static void computed_taps_sweep(mode m, uint32_t seed) {
    REQUIRE_AVX2();
    threads_and_spelling_restore restore;
    struct shape {
        data_format f;
        int64_t c;
        std::vector<int64_t> in, out;
    };
    const auto ncx = data_format::ncx, nxc = data_format::nxc;
    const std::vector<shape> shapes = {
        {ncx, 1, {70001}, {102943}},      // one row, spans
        {ncx, 3, {1000}, {1001}},         // nearly 1:1: the last bases move left
        {ncx, 2, {3000}, {2900}},         // down a little
        {ncx, 2, {1000}, {1088}},         // up a little: windows, pairs only at the start
        {ncx, 1, {44100}, {48000}},       // one row of those, spans
        {ncx, 2, {3000}, {1100}},         // down 2.7x: the gather path's pairs
        {ncx, 1, {100001}, {36000}},      // one row down, spans
        {ncx, 2, {5, 3000}, {7, 1100}},   // 2-D gathered W rows
        {ncx, 2, {20}, {37}},             // short rows
        {ncx, 5, {97}, {311}},            //
        {ncx, 2, {100}, {731}},           // the last pairs vectors' bases move left
        {ncx, 1, {24000}, {48000}},       // 2x: up2 groups, then computed
        {ncx, 1, {16000}, {48000}},       // 3x: computed, then a periodic run
        {nxc, 2, {8000}, {24000}},        //
        {ncx, 2, {3, 52}, {9, 104}},      // 2-D W-planes: up2, then computed, row after row
        {nxc, 1, {3, 52}, {9, 104}},      //   (the soak's find: up2's constants restored)
        {ncx, 2, {3, 160}, {7, 480}},     // 2-D W-planes: computed, then a periodic run
        {ncx, 3, {23, 2}, {41, 3}},       // flat W-planes and flat volumes: never computed
        {ncx, 3, {37, 7}, {9, 1}},        //   (the soak's find: their tables need the W axis)
        {ncx, 3, {9, 7, 31}, {1, 14, 8}}, //
        {nxc, 1, {5000}, {7001}},         // NXC C = 1: flat rows of W
        {nxc, 2, {5000}, {7001}},         // NXC C = 2 and 4: flat rows of whole columns
        {nxc, 4, {3000}, {3300}},         //
        {nxc, 2, {44100}, {48000}},       // one row of C = 2, spans
        {nxc, 3, {5000}, {7001}},         // C = 3: columns across vectors, from records
        {nxc, 2, {5, 3000}, {7, 4500}},   // 2-D flat W rows
        {ncx, 2, {5, 3000}, {7, 4500}},   // 2-D: W rows (or W-planes) into scratch
        {ncx, 2, {40, 300}, {90, 450}},   //
        {ncx, 1, {2, 3, 500}, {3, 4, 700}},  // 3-D
    };
    int computed = 0;
    for (int counter : {1, 2}) {  // f32 counter; s32 counter (calc_int)
        const calc_taps_mode on(counter);
        for (int spelling : {0, 1})
            for (bool nt : {false, true}) {
                set_gather_spelling_for_testing(spelling);
                nt_threshold low(nt ? size_t(1) : size_t(0));  // clears the cache
                for (int threads : {1, 2, 3, 4}) {
                    omp_set_num_threads(threads);
                    for (const auto &sh : shapes)
                        for (auto ct : kCtms)
                            for (auto t : kTypes) {
                                // The emulator lane: 2 threads, plain; 16-bit (512-bit linear windows
                                // compute: AVX2 hosts run them nowhere else) with the f32 counter.
                                if (emulated() && (threads != 2 || nt || spelling == 1 || (t != data_type::f32 && counter != 1))) continue;
                                const auto d = problem_builder().src(layout(sh.f, 1, sh.c, sh.in)).sizes(sh.out).fmt(sh.f).mode(m).ctm(ct).dt(t);
                                const jit_conf hc = host_conf(d);
                                computed += hc.calc_end > hc.calc_first;
                                ++seed;
                                ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                                    << describe(d) << " threads=" << threads << " nt=" << nt << " spelling=" << spelling
                                    << " counter=" << counter;
                            }
                }
            }
    }
    EXPECT_GT(computed, 0);
}

TEST(jit_bitwise, linear_computed_taps) { computed_taps_sweep(mode::linear, 9100); }
TEST(jit_bitwise, nearest_computed_taps) { computed_taps_sweep(mode::nearest, 9600); }

// Rows past 2^23 outputs (jit_conf::calc_int: the counter in s32, converted each vector as
// the reference converts o), both transforms, 1 and 2 threads (spans). f32 only: the 16-bit
// rows keep their tables. A 2^23 + 5-output row at each: 40 MB of dst.
TEST(jit_bitwise, linear_computed_taps_past_2_23) {
    REQUIRE_AVX2();
    if (emulated()) GTEST_SKIP() << "rows of 2^23 outputs take minutes of emulated time; linear_computed_taps runs the s32 counter on its shapes";
    threads_and_spelling_restore restore;
    uint32_t seed = 9400;
    for (auto ct : kCtms)
        for (int threads : {1, 2}) {
            omp_set_num_threads(threads);
            const int64_t out = (int64_t(1) << (ct == coordinate_transformation_mode::half_pixel ? 23 : 24)) + 5;
            const auto d = problem_builder().src({1, 1, out * 5 / 7}).sizes({out}).fmt(data_format::ncx).mode(mode::linear).ctm(ct);
            const jit_conf c = host_conf(d);
            EXPECT_TRUE(c.calc_int && c.calc_end > c.calc_first) << describe(d);
            ++seed;
            ASSERT_EQ(check_case(d, seed, seed % 2 == 0, true), 0) << describe(d) << " threads=" << threads;
        }
}
