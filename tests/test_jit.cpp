// Every JIT kernel is bitwise equal to the scalar reference (semantics.md), at every tile
// boundary, with buffers fenced by PROT_NONE pages, at 1 and 2 threads. This file: the tile
// sweeps, special values, threads, alignment and MXCSR; non-temporal stores; the conf rules
// and NT thresholds. The other test_jit_*.cpp files hold the kernels' own paths.
#include "jit_test_util.hpp"

using namespace xinterp;
using namespace xinterp::jt;

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

// 1-D linear rows are final W passes, straight to dst: no scratch slots (a row of 882000
// outputs had held 7 MB of unused thread-local scratch per thread). NXC C = 1 too (flat rows).
TEST(jit_conf, one_d_linear_rows_take_no_scratch) {
    for (auto f : {data_format::ncx, data_format::nxc}) {
        const auto d = problem_builder().src(layout(f, 1, 1, {600000})).sizes({882000}).fmt(f).mode(mode::linear);
        const jit_conf c = make_jit_conf(make_problem(d), cpu_isa::avx2);
        ASSERT_TRUE(c.ok && c.pass_engine);
        EXPECT_EQ(c.n_slots, 0);
        EXPECT_EQ(c.scratch_bytes, 0);
    }
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

// The dump's plan lines (describe_plan): each names the choices its conf holds, and only those.
TEST(jit_conf, plans_name_the_choices) {
    auto plan = [](data_format f, data_type t, mode m, int64_t c, std::vector<int64_t> in, std::vector<int64_t> out,
                   kernel_isa k = cpu_isa::avx2) {
        const auto d = problem_builder().src(layout(f, 1, c, in)).sizes(out).fmt(f).mode(m).dt(t);
        std::string all;
        for (const std::string &s : describe_plan(make_jit_conf(make_problem(d), k))) all += s + "\n";
        return all;
    };
    auto has = [](const std::string &all, const char *what) { return all.find(what) != std::string::npos; };
    nt_threshold nt(size_t(1) << 40);  // no NT line: the host's threshold stays out of it
    const auto ncx = data_format::ncx, nxc = data_format::nxc;
    const auto f32 = data_type::f32, bf16 = data_type::bf16;
    const auto lin = mode::linear;
    const std::string fpn = plan(ncx, f32, lin, 256, {32, 32}, {64, 64});
    EXPECT_TRUE(has(fpn, "pass engine: rows of 32 -> 64 elements") && has(fpn, "(up2_groups)") && has(fpn, "(h2_pairs)")) << fpn;
    EXPECT_FALSE(has(fpn, "row mode") || has(fpn, "scratch") || has(fpn, "bf16") || has(fpn, "NT")) << fpn;
    const std::string up = plan(ncx, f32, lin, 3, {224, 224}, {512, 512});
    EXPECT_TRUE(has(up, "(per_p)") && has(up, "row mode: 2 W-row slots of 2 KiB") && has(up, "(h_pairs)")) << up;
    const std::string runs = plan(nxc, f32, lin, 256, {32, 32}, {64, 64});
    EXPECT_TRUE(has(runs, "direct NXC kernel: pixels of 32 vectors") && has(runs, "runs of 2 (same_run)")) << runs;
    EXPECT_FALSE(has(runs, "separable") || has(runs, "pass engine")) << runs;
    const std::string c17 = plan(nxc, data_type::f16, lin, 17, {33, 33}, {65, 65});
    EXPECT_TRUE(has(c17, "pixels of 2 vectors and one ending at C = 17") && has(c17, "separable:")) << c17;
    const std::string flat = plan(ncx, f32, lin, 32, {24, 4, 39}, {4, 1, 4});
    EXPECT_TRUE(has(flat, "flat: one call per plane over its 16 outputs, each lane with its own 8 taps")) << flat;
    EXPECT_TRUE(has(plan(ncx, f32, mode::nearest, 8, {41, 10, 5}, {13, 2, 1}), "over its 26 outputs, each lane with its own tap (flat)"));
    EXPECT_FALSE(has(flat, "row mode") || has(flat, "W taps")) << flat;
    const std::string down = plan(ncx, f32, mode::nearest, 216, {78, 376}, {22, 705});
    EXPECT_TRUE(has(down, "the next row's src row prefetched where it starts a new stream")) << down;
    EXPECT_TRUE(has(plan(ncx, f32, lin, 216, {78, 376}, {22, 705}), "the next row's src rows prefetched from its record"));
    EXPECT_TRUE(has(plan(ncx, f32, mode::nearest, 8, {1080, 1920}, {300, 500}), "the first 2048 bytes of the next row's src row"));
    EXPECT_FALSE(has(plan(ncx, f32, mode::nearest, 8, {40, 40}, {80, 100}), "prefetched"));
    const std::string narrow = plan(nxc, f32, lin, 3, {1080, 1920}, {224, 224});
    EXPECT_TRUE(has(narrow, "narrow pixels: C = 3")) << narrow;
    const std::string longrow = plan(ncx, f32, lin, 1, {600000}, {882000});
    EXPECT_TRUE(has(longrow, "taps and weights of vectors 1 to 110248 computed from the output index")) << longrow;
    EXPECT_FALSE(has(longrow, "scratch")) << longrow;  // 1-D rows go straight to dst
    EXPECT_FALSE(has(up, "computed")) << up;            // 224 -> 512: 1 KiB of records
    // bf16's rounding by tier: AVX2 (and the 256-bit generators), AVX-512 in integer code, the
    // BF16 tier natively; nearest copies bits and rounds nothing.
    const std::vector<int64_t> in{32, 32}, out{64, 64};
    EXPECT_TRUE(has(plan(nxc, bf16, lin, 64, in, out), "Veltkamp's split"));
    EXPECT_TRUE(has(plan(nxc, bf16, lin, 64, in, out, kernel_isa(cpu_isa::avx512_core, true)), "Veltkamp's split"));
    EXPECT_TRUE(has(plan(nxc, bf16, lin, 64, in, out, cpu_isa::avx512_core), "without the NaN and zero fixups"));
    EXPECT_TRUE(has(plan(nxc, bf16, lin, 64, in, out, cpu_isa::avx512_core_bf16), "vcvtneps2bf16"));
    EXPECT_FALSE(has(plan(nxc, bf16, mode::nearest, 64, in, out), "bf16"));
    EXPECT_TRUE(describe_plan(jit_conf{}).empty()) << "no conf, no plan";
    // The dump prints them under the header, the reference none.
    const auto d = problem_builder().src(layout(ncx, 1, 3, {224, 224})).sizes({512, 512}).fmt(ncx).mode(lin);
    const std::string ref = primitive(primitive_desc(d, impl_kind::reference)).dump_asm();
    EXPECT_EQ(ref.find("; plan:"), std::string::npos) << ref;
    const primitive_desc pd(d);
    if (pd.isa() == cpu_isa::none) GTEST_SKIP() << "no JIT tier on this host: the reference serves every problem";
    const std::string code = primitive(pd).dump_asm();
    const size_t at = code.find("; plan: pass engine: rows of 224 -> 512 elements\n;       W taps by");
    EXPECT_NE(at, std::string::npos) << code.substr(0, 800);
    EXPECT_LT(at, code.find("; part ")) << "the plan comes before the code";
}

// Which problems prefetch the next row's src rows (jit_conf::prefetch_bytes): nearest row mode
// whose W taps touch every src line (the first kPrefetchRowBytes), and plane mode with H
// downsampled, nearest without row pairs or the fused linear H step, on src rows of at most
// kPrefetchRowBytes (whole).
TEST(jit_conf, prefetch_rows_where_taps_touch_every_line) {
    auto conf = [](std::vector<int64_t> in, std::vector<int64_t> out, data_type t, mode m = mode::nearest, int64_t c = 64) {
        const auto d = problem_builder().src(layout(data_format::ncx, 1, c, in)).sizes(out).fmt(data_format::ncx).mode(m).dt(t);
        return make_jit_conf(make_problem(d), cpu_isa::avx2);
    };
    const auto f32 = data_type::f32, bf16 = data_type::bf16;
    const auto lin = mode::linear;
    EXPECT_EQ(conf({78, 376}, {22, 705}, f32).prefetch_bytes, 376 * 4);  // the whole row: under 2 KiB
    EXPECT_EQ(conf({1080, 1920}, {300, 500}, f32).prefetch_bytes, jit_conf::kPrefetchRowBytes);
    EXPECT_EQ(conf({1080, 1920}, {300, 500}, bf16).prefetch_bytes, jit_conf::kPrefetchRowBytes);
    // W down 16x in f32 still reads every line; past it (20x) only some, which bf16's rows of
    // half the bytes still read all of.
    EXPECT_EQ(conf({40, 4800}, {20, 300}, f32).prefetch_bytes, jit_conf::kPrefetchRowBytes);
    EXPECT_EQ(conf({40, 6000}, {20, 300}, f32).prefetch_bytes, 0);
    EXPECT_EQ(conf({40, 6000}, {20, 300}, bf16).prefetch_bytes, jit_conf::kPrefetchRowBytes);
    // Plane mode (rows of 512 bytes at most): H down, from the records; H up (row pairs) not.
    EXPECT_TRUE(conf({64, 64}, {16, 80}, f32).plane_mode);
    EXPECT_EQ(conf({64, 64}, {16, 80}, f32).prefetch_bytes, 64 * 4);
    EXPECT_EQ(conf({40, 40}, {80, 100}, f32).prefetch_bytes, 0);
    EXPECT_EQ(conf({64, 64}, {64, 80}, f32).prefetch_bytes, 0) << "H kept: the next row follows in memory";
    // Linear: the fused H step (plane mode) on rows of 2 KiB at most; W-planes and rows not.
    EXPECT_TRUE(conf({78, 376}, {22, 705}, f32, lin).fuse_h);
    EXPECT_EQ(conf({78, 376}, {22, 705}, f32, lin).prefetch_bytes, 376 * 4);
    EXPECT_EQ(conf({1080, 1920}, {300, 500}, f32, lin).prefetch_bytes, 0);
    EXPECT_EQ(conf({1080, 1920}, {300, 500}, bf16, lin).prefetch_bytes, 0);
    EXPECT_EQ(conf({100, 100}, {150, 150}, f32, lin).prefetch_bytes, 0);
    // A src under kPrefetchMinSrc (1 MiB; C = 64 gives 1 MiB here, C = 63 less) stays in L2.
    EXPECT_EQ(conf({64, 64}, {16, 80}, f32, mode::nearest, 63).prefetch_bytes, 0);
    EXPECT_EQ(conf({78, 376}, {22, 705}, f32, mode::nearest, 8).prefetch_bytes, 0);
    EXPECT_EQ(conf({78, 376}, {22, 705}, f32, lin, 8).prefetch_bytes, 0);
}

// Which kernels' rows split into spans (jit_conf::span_units): the direct NXC kernels (pixels),
// not narrow pixels; the final W pass in row mode (output vectors: nearest rows, 1-D linear),
// not with up2 groups, not 2-D linear (blends) or plane mode; none from kSpanMaxRows rows.
TEST(jit_conf, span_units_where_row_kernels_take_spans) {
    auto conf = [](data_format f, int64_t n, int64_t c, std::vector<int64_t> in, std::vector<int64_t> out, mode m) {
        const auto d = problem_builder().src(layout(f, n, c, in)).sizes(out).fmt(f).mode(m);
        return make_jit_conf(make_problem(d), cpu_isa::avx2);
    };
    const auto ncx = data_format::ncx, nxc = data_format::nxc;
    const auto near = mode::nearest, lin = mode::linear;
    EXPECT_EQ(conf(nxc, 1, 64, {4000}, {6000}, lin).span_units, 6000);
    EXPECT_EQ(conf(nxc, 1, 64, {4000}, {6000}, near).span_units, 6000);
    EXPECT_EQ(conf(nxc, 1, 243, {10, 222}, {3, 201}, lin).span_units, 201);
    EXPECT_EQ(conf(nxc, 255, 64, {4000}, {6000}, lin).span_units, 6000) << "255 rows";
    EXPECT_EQ(conf(nxc, 256, 64, {400}, {600}, lin).span_units, 0) << "256 rows";
    // Narrow pixels: a span's last pixels, whose stores would spill into the next span, go as
    // edge pixels, so spans end only where those load backwards inside the row (AVX2).
    const jit_conf stereo = conf(nxc, 1, 2, {44100}, {16000}, lin);
    EXPECT_TRUE(stereo.narrow);
    EXPECT_EQ(stereo.span_units, 16000);
    EXPECT_EQ(stereo.span_edge_px, 3);  // an 8-lane store spills 6 elements: 3 pixels
    EXPECT_EQ(span_cut(stereo, 0), 0);
    EXPECT_EQ(span_cut(stereo, stereo.span_min_px - 1), 0);
    EXPECT_EQ(span_cut(stereo, stereo.span_min_px), stereo.span_min_px);
    EXPECT_EQ(span_cut(stereo, 8000), 8000);
    // The first pixel whose taps start 8 elements in (tap pixel 3 of C = 2), plus the 3.
    int64_t o_min = 0;
    while (linear_coord(o_min, 44100, 16000, coordinate_transformation_mode::half_pixel).i0 * 2 + 2 < 8) ++o_min;
    EXPECT_EQ(stereo.span_min_px, o_min + 3);
    const jit_conf six = conf(nxc, 1, 6, {8000}, {7351}, lin);
    EXPECT_TRUE(six.narrow);
    EXPECT_EQ(six.span_edge_px, 1);
    const jit_conf six512 = make_jit_conf(make_problem(problem_builder().src(layout(nxc, 1, 6, {8000})).sizes({7351}).fmt(nxc).mode(lin)), cpu_isa::avx512_core);
    ASSERT_TRUE(six512.narrow);
    EXPECT_EQ(six512.span_edge_px, 1);  // a ymm of 8 lanes
    EXPECT_EQ(six512.span_min_px, 0);   // edge pixels under an opmask
    const jit_conf mono = conf(ncx, 1, 1, {600000}, {882000}, lin);
    EXPECT_EQ(mono.span_units, mono.ow_vecs);
    EXPECT_EQ(mono.span_units, 882000 / 8);
    EXPECT_EQ(mono.span_grain, 2);
    EXPECT_EQ(conf(ncx, 1, 1, {20, 30000}, {3, 10001}, near).span_units, (10001 + 7) / 8);
    // Runs: a span takes whole groups of an up2 run (two vectors from up2_first) or periods of
    // a periodic run (per_p vectors from per_first; span_cut).
    const jit_conf up2 = conf(ncx, 1, 1, {40000}, {80000}, lin);
    EXPECT_EQ(up2.span_units, 10000) << "up2 groups";
    ASSERT_EQ(up2.up2_first, 1);
    EXPECT_EQ(span_cut(up2, 0), 0);
    EXPECT_EQ(span_cut(up2, 1), 1);
    EXPECT_EQ(span_cut(up2, 2), 1);
    EXPECT_EQ(span_cut(up2, 4), 3);
    const int64_t up2_end = 1 + 2 * up2.up2_groups;  // odd: the grain alone would cut inside
    EXPECT_EQ(span_cut(up2, up2_end), up2_end) << "the run's end";
    EXPECT_EQ(span_cut(up2, up2_end + 1), up2_end + 1) << "past the run: the grain";
    EXPECT_EQ(span_cut(up2, up2_end + 2), up2_end + 1);
    const jit_conf per1 = conf(ncx, 1, 1, {30000}, {40000}, lin), per2 = conf(ncx, 1, 1, {37500}, {40000}, lin);
    ASSERT_EQ(per1.per_p, 1);
    ASSERT_EQ(per2.per_p, 2);
    EXPECT_EQ(per2.span_units, 5000);
    EXPECT_EQ(span_cut(per2, per2.per_first + 3), per2.per_first + 2);
    const jit_conf per3 = conf(ncx, 1, 1, {32000}, {48000}, lin);
    ASSERT_EQ(per3.per_p, 3);
    EXPECT_EQ(per3.span_units, 6000) << "three vectors a period";
    EXPECT_EQ(span_cut(per3, per3.per_first + 5), per3.per_first + 3);
    // Every cut: at or before x, and never inside a run but on a group's start.
    for (const jit_conf *c : {&up2, &per1, &per2, &per3}) {
        const auto [u0, u1] = run_vectors(*c);
        const int64_t g = c->up2_groups > 0 ? 2 : c->per_p;
        for (int64_t x = 0; x <= c->ow_vecs; ++x) {
            const int64_t y = span_cut(*c, x);
            EXPECT_LE(y, x);
            EXPECT_GE(y, x - std::max<int64_t>(g, c->span_grain) + 1);
            if (y > u0 && y < u1) {
                EXPECT_EQ((y - u0) % g, 0) << x;
            }
        }
    }

    EXPECT_EQ(conf(ncx, 1, 1, {20, 30000}, {3, 10001}, lin).span_units, 0) << "2-D linear: blends";
    EXPECT_TRUE(conf(ncx, 1, 4, {64, 64}, {16, 80}, near).plane_mode);
    EXPECT_EQ(conf(ncx, 1, 4, {64, 64}, {16, 80}, near).span_units, 0) << "plane mode";
    EXPECT_EQ(conf(ncx, 1, 3, {1080, 1920}, {224, 224}, near).span_units, 0) << "672 rows";
}

// Flat volumes split over threads from kParMinFlat of traffic, every other kernel from
// kParMinBytes; and going flat drops what the row kernels would have taken (the row
// prefetch, NT stores).
TEST(jit_conf, flat_volumes_split_from_fewer_bytes) {
    auto conf = [](int64_t c, std::vector<int64_t> in, std::vector<int64_t> out) {
        const auto d = problem_builder().src(layout(data_format::ncx, 1, c, in)).sizes(out).fmt(data_format::ncx).mode(mode::linear);
        return make_jit_conf(make_problem(d), cpu_isa::avx2);
    };
    const jit_conf flat = conf(21, {49, 1, 4}, {50, 1, 6});
    EXPECT_TRUE(flat.flat);
    EXPECT_EQ(flat.par_min_bytes, jit_conf::kParMinFlat);
    EXPECT_EQ(conf(3, {224, 224}, {512, 512}).par_min_bytes, jit_conf::kParMinBytes);
    const auto nearest = problem_builder().src(layout(data_format::ncx, 1, 21, {49, 1, 4})).sizes({50, 1, 6}).fmt(data_format::ncx).mode(mode::nearest);
    const jit_conf nf = make_jit_conf(make_problem(nearest), cpu_isa::avx2);
    EXPECT_TRUE(nf.flat);
    EXPECT_EQ(nf.par_min_bytes, jit_conf::kParMinFlatNearest) << "one tap a lane: threads pay later";
    // Gathered fused rows (H down, W 4 -> 6) go flat; 1.3 MB of src would have prefetched rows.
    const jit_conf big = conf(400, {200, 4}, {40, 6});
    EXPECT_TRUE(big.flat);
    EXPECT_EQ(big.prefetch_bytes, 0);
    EXPECT_FALSE(big.nt_by_src);
    for (const std::string &l : describe_plan(big)) EXPECT_EQ(l.find("prefetch"), std::string::npos) << l;
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
    // seg_8x nearest NXC (C = 21 f32: 84-byte pixels) streams its 43008-byte rows through scratch
    // (each followed by its first 64 bytes again, for regions of repeats: jit_stream_copy.hpp).
    const auto seg = problem_builder().src({1, 64, 64, 21}).sizes({512, 512}).mode(mode::nearest);
    set_nt_min_bytes_for_testing(make_problem(seg).dst_bytes);
    const jit_conf s = make_jit_conf(make_problem(seg), cpu_isa::avx2);
    EXPECT_TRUE(s.nt_stream && !s.nt_eligible);
    EXPECT_EQ(s.scratch_bytes, 512 * 21 * 4 + 64);
    set_nt_min_bytes_for_testing(0);
    // Without an override they stream from stream_min_bytes (the usable LLC, or the NT
    // threshold where that is larger), not from the NT threshold: seg_8x's rows, H up 2x, with
    // a dst just under it (NT-sized where the LLC counts more than the threshold) and just over.
    const size_t from = stream_min_bytes(), row = 512 * 21 * 4;
    EXPECT_EQ(from, std::max(nt_min_bytes(), llc));
    auto seg_rows = [&](size_t bytes) {
        const int64_t n = static_cast<int64_t>(bytes / row / 2);
        return make_problem(problem_builder().src({1, n, 64, 21}).sizes({2 * n, 512}).mode(mode::nearest));
    };
    const problem under = seg_rows(from - 4 * row), over = seg_rows(from + 4 * row);
    ASSERT_LT(under.dst_bytes, from);
    ASSERT_GE(over.dst_bytes, from);
    if (under.dst_bytes >= nt_min_bytes()) {
        EXPECT_TRUE(nt_pays(under));
    }
    EXPECT_FALSE(make_jit_conf(under, cpu_isa::avx2).nt_stream);
    EXPECT_TRUE(make_jit_conf(over, cpu_isa::avx2).nt_stream);
}

// nt_pays: on one thread also a dst of 4 MiB or more under the threshold where src and dst
// together outgrow the usable LLC; not on more threads, nor under XINTERP_NT_MIN_BYTES or the
// test override. NCX 1-D rows of C = 256: dst and src sized from this host's thresholds.
TEST(jit_conf, nt_pays_counts_src_on_one_thread) {
    if (std::getenv("XINTERP_NT_MIN_BYTES")) GTEST_SKIP() << "XINTERP_NT_MIN_BYTES is set: the default is not in effect";
    const size_t one = nt_min_bytes(1), llc = static_cast<size_t>(usable_llc_bytes()), mib = size_t(1) << 20;
    if (one < kNtSrcFloor + 2 * mib)
        GTEST_SKIP() << "one thread's NT threshold here (" << one << " bytes) leaves no dst under it for the src rule";
    auto rows = [](size_t src_bytes, size_t dst_bytes) {  // 256 rows; W a multiple of 8 (aligned NT rows)
        const int64_t win = static_cast<int64_t>(src_bytes / 1024 / 8 * 8), wout = static_cast<int64_t>(dst_bytes / 1024 / 8 * 8);
        return make_problem(problem_builder().src({1, 256, win}).sizes({wout}).fmt(data_format::ncx).mode(mode::linear));
    };
    const size_t dst = one - mib;  // under the threshold, over the floor
    const problem big = rows(llc, dst), small = rows(llc - dst - mib, dst), tiny = rows(2 * llc, 2 * mib);
    ASSERT_LT(big.dst_bytes, one);
    EXPECT_TRUE(nt_pays(big));
    EXPECT_EQ(nt_pays(big, 2), big.dst_bytes >= nt_min_bytes(2));
    EXPECT_FALSE(nt_pays(small)) << "src and dst fit the LLC";
    EXPECT_FALSE(nt_pays(tiny)) << "a dst under 4 MiB";
    const jit_conf c = make_jit_conf(big, cpu_isa::avx2);
    EXPECT_TRUE(c.nt_eligible && c.nt_by_src);
    EXPECT_FALSE(make_jit_conf(small, cpu_isa::avx2).nt_eligible);
    std::string plan;
    for (const std::string &l : describe_plan(c)) plan += l + "\n";
    EXPECT_NE(plan.find("NT stores on one thread (src and dst outgrow the LLC)"), std::string::npos) << plan;
    set_nt_min_bytes_for_testing(one);
    EXPECT_FALSE(nt_pays(big)) << "an override is the whole rule";
    set_nt_min_bytes_for_testing(0);
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

// NXC linear runs separably (W rows once, then blends) for bf16, for >= 4x H upsampling, on
// AVX2 for most 2-D f16 upsampling and small f32 outputs from 2.5x up, and for 3-D whose
// W-planes fit, where it was measured to pay; otherwise the direct row kernel.
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
    // AVX2 2-D f16: separable where H goes up, but not at exactly 2x half_pixel with pixels of
    // whole vectors (the direct kernel's same-taps runs), nor past 16 MiB of dst under 4x up
    // (where the old rule holds), nor with two W rows past 40 KiB under 2.5x up; f32 from 2.5x
    // up, C <= 32, outputs up to 1 MiB, and under it pixels of C < 24 whose last vector holds
    // 1-4 channels of its own, outputs up to 512 KiB, not at exactly 2x half_pixel
    // (jit_conf_rules.cpp, separable_pays).
    EXPECT_TRUE(conf(17, {33, 33}, {65, 65}, data_type::f16).nxc_separable);       // c17
    EXPECT_TRUE(conf(17, {40, 40}, {80, 80}, data_type::f16).nxc_separable);       // 2x, a tail
    EXPECT_FALSE(conf(24, {40, 40}, {80, 80}, data_type::f16).nxc_separable);      // 2x, whole
    EXPECT_TRUE(conf(24, {40, 40}, {60, 60}, data_type::f16).nxc_separable);       // 1.5x
    EXPECT_FALSE(conf(16, {60, 60}, {45, 45}, data_type::f16).nxc_separable);      // H down
    EXPECT_FALSE(conf(128, {40, 40}, {50, 50}, data_type::f16).nxc_separable);     // 2 x 25.6 KB
    EXPECT_FALSE(conf(8, {500, 500}, {750, 750}, data_type::f16).nxc_separable);   // 2 x 24 KB
    EXPECT_TRUE(conf(17, {200, 200}, {300, 300}, data_type::f16).nxc_separable);   // 2 x 20.4 KB
    EXPECT_FALSE(conf(32, {300, 300}, {750, 750}, data_type::f16).nxc_separable);  // 36 MB
    EXPECT_TRUE(conf(32, {200, 200}, {800, 800}, data_type::f16).nxc_separable);   // 4x: 41 MB
    EXPECT_TRUE(conf(128, {40, 40}, {100, 100}, data_type::f16).nxc_separable);    // 2.5x
    EXPECT_TRUE(conf(16, {30, 30}, {90, 90}, data_type::f32).nxc_separable);       // 3x, 518 KB
    EXPECT_FALSE(conf(16, {60, 60}, {180, 180}, data_type::f32).nxc_separable);    // 2 MB
    EXPECT_FALSE(conf(48, {30, 30}, {90, 90}, data_type::f32).nxc_separable);      // C > 32
    EXPECT_TRUE(conf(17, {33, 33}, {65, 65}, data_type::f32).nxc_separable);       // c17: tail 1
    EXPECT_FALSE(conf(23, {31, 29}, {47, 61}, data_type::f32).nxc_separable);      // c23: tail 7
    EXPECT_FALSE(conf(17, {64, 64}, {96, 96}, data_type::f32).nxc_separable);      // 627 KB
    EXPECT_FALSE(conf(12, {40, 40}, {80, 80}, data_type::f32).nxc_separable);      // 2x
    EXPECT_FALSE(conf(25, {33, 33}, {65, 65}, data_type::f32).nxc_separable);      // C >= 24
    {  // the AVX-512 tiers' 256-bit kernels keep the rules measured before (not on AVX2)
        auto ymm = [](int64_t c, std::vector<int64_t> in, std::vector<int64_t> out, data_type t) {
            const problem p = make_problem(problem_builder().src({1, in[0], in[1], c}).sizes(out).mode(mode::linear).dt(t));
            return make_jit_conf(p, kernel_isa(cpu_isa::avx512_core, true));
        };
        EXPECT_FALSE(ymm(17, {33, 33}, {65, 65}, data_type::f16).nxc_separable);
        EXPECT_FALSE(ymm(16, {30, 30}, {90, 90}, data_type::f32).nxc_separable);
        EXPECT_TRUE(ymm(21, {64, 64}, {512, 512}, data_type::f32).nxc_separable);
    }
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
