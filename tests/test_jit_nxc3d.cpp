// Bitwise against the reference (test_jit.cpp): NXC 3-D linear (D pairs, column blocks, the
// W step's pixel pairs), the channel loop's remainders and the 512-bit narrow moves.
#include "jit_test_util.hpp"

using namespace xinterp;
using namespace xinterp::jt;

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
                // 16-bit rows not half a page off (C = 260: 8320 bytes, 128 past two pages).
                // NT-sized by the host's own threshold under the defaults (nt_bytes 0): the
                // f16 shape's 5.1 MiB passes Intel's one-thread 4 MiB, not AMD's 8 MiB.
                const bool half_page = sh.out[2] * sh.c * 2 % jit_conf::kAliasPage == jit_conf::kAliasPage / 2;
                const bool rows = nt_pays(make_problem(d)) && sh.out[2] * sh.c % 8 == 0 && (sh.t == data_type::f32 || !half_page);
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
// pixels, OW = 70 ending on 7; C = 40 24 ending on 4; C = 32 32 ending on 22 at OW = 1590).
// C = 48: blocks of 20 pixels (4 KiB W rows, widths kept to 64-byte pairs), OW = 70 in 20,
// 20, 20 and a last block of 10; C = 32: 4 blocks of 32;
// C = 40: blocks of 24 (unit 4), OW = 100 ending on 4; IH = 2, where a block's first rows
// are W rows the block before also held (its slots must not be taken for them). D 2 -> 4 (od
// 1 and 2 pair) and 1 -> 2 (od 0 and 1, both clamped to slice 0); 2 threads split the pairs
// (singles, whole rows). Chains of pairs go in groups (jit_conf::d_group): D 4 -> 8 (pairs
// (0, 1), then (3, 4) and (5, 6) on slices 1-2 and 2-3, one group; od 2 and 7 single) and
// 5 -> 10 (a group, then the pair (7, 8) alone; align_corners: (0, 1), a group of (3, 4) and
// (5, 6), then (7, 8)), C = 32 in blocks of 32 pixels (OW = 1590 ending on 22); at 2
// threads the 5 -> 10 split leaves a group to the second thread. Bitwise at 1 and 2 threads
// with NT stores, and at 2 threads with plain ones on the same kernels (whole rows); the
// dispatched kernels (16-bit at 512 bits, f32 and these shapes' 16-bit ones at 256) have the
// block parts.
TEST(jit_bitwise, nxc_d_pair_cols) {
    REQUIRE_AVX2();
    struct shape {
        std::vector<int64_t> in, out;
        int64_t c, cols, last;
        bool emu;  // in the emulator lane's subset (emulated())
        int64_t cols256, last256;  // the blocks at 256 bits (f32, and 16-bit rows not half a page off)
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
        // 512 bits: the direct kernel, or W-planes for pixels that end off a line (C = 40;
        // nxc_split_pixel_planes)
        const jit_conf z = make_jit_conf(p, cpu_isa::avx512_core);
        EXPECT_EQ(z.nxc_separable, sh.c % 16 != 0) << sh.c << ": 512 bits";
        EXPECT_EQ(z.plane_mode, sh.c % 16 != 0) << sh.c << ": 512 bits";
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

// 512-bit f32 3-D linear pixels that end off a cache line take W-planes past half
// kPlaneBudget, up to kNxcPlanesF32Split (jit_conf.cpp, set_direct): the random sweep's
// 5x16x3 -> 22x25x15 C = 229 (430 KiB of planes) and 1x30x9 -> 2x113x7 C = 290 (W down),
// C = 17 and 40 at 160-300 KiB. Not for pixels of whole lines (C = 64), not at 256 bits, not
// past the cap (27 MB), not D down or kept. Where H collapses to one row (OH = 1) and od
// repeat their D taps, such pixels take W rows in row mode with D pairs instead (the sweep's
// 38x5x56 -> 167x1x13 C = 68, 8x2x14 -> 63x1x79 C = 60); whole lines and OH = 3 keep the
// direct kernel.
// Bitwise at 1 and 2 threads, with and without NT-sized dst, in every transform; the
// dispatched 512-bit kernels blend W-planes, or W rows in D pairs.
TEST(jit_bitwise, nxc_split_pixel_planes) {
    REQUIRE_AVX2();
    const kernel_isa zmm(cpu_isa::avx512_core);
    auto nxc = [](int64_t c, std::vector<int64_t> in, std::vector<int64_t> out) {
        return problem_builder().src(layout(data_format::nxc, 1, c, in)).sizes(out).mode(mode::linear);
    };
    auto conf = [](const op_desc &d, kernel_isa k) { return make_jit_conf(make_problem(d), k); };
    auto planes = [&](const op_desc &d, kernel_isa k) { return conf(d, k).nxc_separable && conf(d, k).plane_mode; };
    auto row_pairs = [&](const op_desc &d, kernel_isa k) {
        const jit_conf c = conf(d, k);
        return c.nxc_separable && !c.plane_mode && c.d_pairs;
    };
    struct shape {
        op_desc d;
        bool planes;  // else W rows in D pairs
    };
    const std::vector<shape> shapes = {{nxc(229, {5, 16, 3}, {22, 25, 15}), true}, {nxc(290, {1, 30, 9}, {2, 113, 7}), true},
                                       {nxc(17, {4, 30, 30}, {5, 40, 40}), true},  {nxc(40, {3, 20, 24}, {5, 30, 48}), true},
                                       {nxc(68, {38, 5, 56}, {167, 1, 13}), false}, {nxc(60, {8, 2, 14}, {63, 1, 79}), false}};
    for (const shape &sh : shapes) {
        const problem p = make_problem(sh.d);
        if (sh.planes) {
            const int64_t bytes = 2 * p.in[1] * ((p.out[2] * p.c + 15) / 16 * 16) * 4;
            EXPECT_GT(bytes, jit_conf::kPlaneBudget / 2) << describe(sh.d) << ": past the old limit";
            EXPECT_TRUE(planes(sh.d, zmm)) << describe(sh.d);
        } else {
            EXPECT_TRUE(row_pairs(sh.d, zmm)) << describe(sh.d);
        }
        EXPECT_FALSE(conf(sh.d, cpu_isa::avx2).nxc_separable) << describe(sh.d) << ": 256 bits, the direct kernel";
    }
    EXPECT_FALSE(conf(nxc(64, {5, 16, 10}, {22, 25, 30}), zmm).nxc_separable) << "whole lines: direct";
    EXPECT_FALSE(conf(nxc(64, {38, 5, 56}, {167, 1, 13}), zmm).nxc_separable) << "whole lines, OH = 1: direct";
    EXPECT_FALSE(conf(nxc(17, {5, 12, 40}, {15, 3, 80}), zmm).nxc_separable) << "OH = 3, H down: direct";
    EXPECT_FALSE(planes(nxc(33, {8, 320, 160}, {16, 400, 320}), zmm)) << "27 MB of planes: past the cap";
    EXPECT_FALSE(planes(nxc(229, {22, 16, 3}, {5, 25, 15}), zmm)) << "D down";
    EXPECT_FALSE(planes(nxc(157, {2, 4, 27}, {2, 6, 109}), zmm)) << "D kept";
    uint32_t seed = 5200;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (const shape &sh : shapes)
            for (auto ct : kCtms) {
                // Under Bochs: one thread, NT-sized, half_pixel, not the 7.5 MB C = 229 (~40 s alone)
                if (emulated() && (threads == 2 || nt_bytes == 0 || ct != kCtms[0] || sh.d.src_dims[4] == 229)) continue;
                op_desc d = sh.d;
                d.coordinate_transformation = ct;
                ++seed;
                ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                primitive_desc pd(d);
                if (pd.vector_bits() != 512) continue;
                const std::string code = primitive(pd).dump_asm();
                EXPECT_NE(code.find(sh.planes ? "; part plane_blend" : "; part blend_hd2"), std::string::npos) << describe(d);
            }
    });
}

namespace {
bool one_segment(const jit_conf &c, int64_t singles, int64_t pairs) {
    return c.n_px_segs == 1 && c.px_segs[0].singles == singles && c.px_segs[0].pairs == pairs;
}

std::string segments(const jit_conf &c) {
    std::string s;
    for (int i = 0; i < c.n_px_segs; ++i) s += " (" + std::to_string(c.px_segs[i].singles) + ", " + std::to_string(c.px_segs[i].pairs) + ")";
    return s.empty() ? " none" : s;
}

// conf.px_segs against the W taps from output column start: every pair's two pixels share
// their taps, the segments fit the row, and the pairs cover half of it at least.
void expect_pairs_share_taps(const jit_conf &c, const problem &p, int64_t start = 0) {
    ASSERT_LE(c.n_px_segs, jit_conf::kPxSegs);
    int64_t o = 0, paired = 0;
    for (int s = 0; s < c.n_px_segs; ++s) {
        o += c.px_segs[s].singles;
        for (int64_t j = 0; j < c.px_segs[s].pairs; ++j, o += 2, paired += 2) {
            ASSERT_LT(o + 1, c.OW) << segments(c);
            EXPECT_TRUE(linear_coord(start + o, p.in[2], p.out[2], p.ctm).same_taps(linear_coord(start + o + 1, p.in[2], p.out[2], p.ctm))) << "pixel " << start + o << segments(c);
        }
    }
    EXPECT_LE(o, c.OW) << segments(c);
    if (c.n_px_segs > 0) {
        EXPECT_GE(2 * paired, c.OW) << segments(c);
    }
}
}  // namespace

// The separable NXC W step's pixel pairs (conf.px_segs at 512 bits, tails included;
// jit_interp_kernel::w_pixel_pairs). The conf: vol_2x's rows pair pixels (1, 2) .. (125, 126);
// its 32-pixel column blocks (d_cols_conf) pair (1, 2) .. (29, 30) in every block, and a last
// block of 16 pixels (OW = 112) (1, 2) .. (13, 14); c17's 33 -> 65 pairs in two segments, a
// pixel apart, 29 -> 61 in four, 9 -> 14 in three; 15 -> 73 (two pairs of every five pixels)
// and 100 -> 190 stop at kPxSegs segments; none at 256 bits, or where the pairs would cover
// under half the row (9 -> 11). Every conf's pairs share their taps. Bitwise in every dtype at
// 1 and 2 threads, with and without NT-sized dst, for C of one to six vectors with and
// without a tail of 1, 7 or 9 lanes (xmm, ymm and zmm tails; unrolled pixels, and the channel
// loop past four), 3-D and 2-D, at those ratios; the dispatched 512-bit separable confs have
// them, with tails too.
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
        EXPECT_TRUE(c.nxc_separable && one_segment(c, 1, 63)) << segments(c);
        ASSERT_EQ(c.d_cols, 32);
        const jit_conf blk = d_cols_conf(c, vol, 32);
        EXPECT_TRUE(one_segment(blk, 1, 15)) << segments(blk);
        for (int64_t s = 0; s < 128; s += 32) expect_pairs_share_taps(blk, vol, s);
        const problem p112 = problem_of({16, 56, 56}, {32, 112, 112}, 32, data_type::f16);
        const jit_conf c112 = make_jit_conf(p112, kernel_isa(cpu_isa::avx512_core));
        ASSERT_EQ(c112.d_cols, 32);
        const jit_conf last = d_cols_conf(c112, p112, 16);
        EXPECT_TRUE(last.OW == 16 && one_segment(last, 1, 7)) << segments(last);
        expect_pairs_share_taps(last, p112, 96);
        EXPECT_EQ(make_jit_conf(vol, cpu_isa::avx2).n_px_segs, 0) << "256 bits";
    }
    const jit_conf tail40 = make_jit_conf(problem_of({3, 9, 12}, {6, 18, 24}, 40, data_type::bf16), bf16_512);
    EXPECT_TRUE(tail40.nxc_separable && one_segment(tail40, 1, 11)) << "a channel tail:" << segments(tail40);
    const problem c17 = problem_of({33, 33}, {65, 65}, 17, data_type::f32);
    const jit_conf j17 = make_jit_conf(c17, kernel_isa(cpu_isa::avx512_core));
    EXPECT_TRUE(j17.nxc_separable && j17.n_px_segs == 2) << segments(j17);
    expect_pairs_share_taps(j17, c17);
    struct shape {
        std::vector<int64_t> in, out;
        int segs;
    };
    const std::vector<shape> shapes = {{{3, 9, 12}, {6, 18, 24}, 1}, {{2, 5, 9}, {4, 10, 14}, 3}, {{11, 33}, {21, 65}, 2},
                                       {{7, 29}, {13, 61}, 4},      {{5, 15}, {9, 73}, jit_conf::kPxSegs},
                                       {{4, 100}, {7, 190}, jit_conf::kPxSegs}, {{3, 9}, {5, 11}, 0}};
    for (const shape &sh : shapes) {
        const problem p = problem_of(sh.in, sh.out, 40, data_type::bf16);
        const jit_conf jc = make_jit_conf(p, bf16_512);
        EXPECT_TRUE(jc.nxc_separable);
        EXPECT_EQ(jc.n_px_segs, sh.segs) << p.in[2] << " -> " << p.out[2] << segments(jc);
        expect_pairs_share_taps(jc, p);
    }
    uint32_t seed = 3700;
    int saw = 0, saw_tail = 0;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (const shape &sh : shapes)
            for (data_type t : kTypes)
                for (int64_t c : {16, 17, 23, 25, 32, 40, 48, 80, 87}) {
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
                    EXPECT_EQ(jc.n_px_segs, sh.segs) << describe(d) << segments(jc);
                    saw += jc.n_px_segs > 0;
                    saw_tail += jc.n_px_segs > 0 && c % 16 != 0;
                }
    });
    if (get_effective_vector_bits() == 512 && get_effective_cpu_isa() >= cpu_isa::avx512_core) {
        EXPECT_GT(saw, 0) << "separable 512-bit kernels with pixel pairs ran";
        EXPECT_GT(saw_tail, 0) << "and with channel tails";
    }
}

// The NXC row kernels' channel loop (vector_loop): four vectors per trip, then the rest. C of
// 4 to 9 full vectors (at the dispatched width), with and without the overlapping tail, so the
// trips end on each remainder, through each kernel (its conf checked at AVX2): the single row
// (H down), chained and same-taps pairs (7/3x up), same-taps runs (2x up), D pairs (3-D W-planes
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
        {{3, 3}, {7, 7}, [](const jit_conf &k) { return k.row_pairs && k.same_pairs; }},  // f32 under 2.5x: direct
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
