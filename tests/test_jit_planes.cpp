// Bitwise against the reference (test_jit.cpp): plane-mode blends (D pairs, aligned rows, word
// pairs, H pairs and runs, W-plane columns), unit-axis views, flat volumes and W-planes, and
// narrow NXC pixels.
#include "jit_test_util.hpp"

using namespace xinterp;
using namespace xinterp::jt;

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
                    const size_t at = code.find(part, code.find("; part "));  // in the code, not the plan
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

// Row mode's nearest rows likewise (conf.row_lines; jit_ncx_wpass::aligned_row from the row
// kernels): rows past plane mode's 512 bytes that are not whole lines, singles and row pairs
// (H up 1.18x, H down; H up 2x with rows past kLinesCopyRowMax), f32 and 16-bit with windows
// (W up); the random sweep's flat NXC rows of 2884 (C = 14 13x26 -> 16x206); one long 1-D row
// and nine rows that spans cut on 2 threads (a span keeps the vector stores, a whole row takes
// the lines). The rest go through scratch where H goes up (copy_aligned): H up 2x with short
// rows, 16-bit rows without windows (W down 3.3x: gathers) and a dst under kLinesMinBytes.
// The conf says which.
TEST(jit_bitwise, nearest_row_mode_rows_stored_aligned) {
    REQUIRE_AVX2();
    const std::vector<layout_shape> cases = {
        {data_format::nxc, 14, {13, 26}, {16, 206}},    // flat NXC rows of 2884, row pairs
        {data_format::ncx, 2, {40, 300}, {47, 555}},    // 34 vectors + 11, H up 1.18x: pairs
        {data_format::ncx, 3, {40, 400}, {17, 777}},    // 48 vectors + 9, H down: singles
        {data_format::ncx, 1, {1, 14000}, {1, 33001}},  // one row: spans on 2 threads
        {data_format::ncx, 3, {2, 900}, {3, 1501}},     // nine rows
        {data_format::ncx, 1, {20, 300}, {41, 555}},    // H up 2x, rows of 2 KB: through scratch
        {data_format::ncx, 3, {20, 1000}, {41, 300}},   // W down 3.3x: 16-bit gathers, through scratch
        {data_format::ncx, 1, {8, 100}, {17, 150}},     // under kLinesMinBytes: through scratch
        {data_format::ncx, 1, {4, 3000}, {9, 4501}}};   // H up 2x, f32 rows of 18 KB: pairs
    auto windows = [](const layout_shape &cs, data_type t) { return t == data_type::f32 || cs.out.back() > cs.in.back(); };
    auto in_place = [](const layout_shape &cs, data_type t) {
        const int64_t row = cs.out.back() * (cs.f == data_format::nxc ? cs.c : 1) * xt::esize(t);
        return cs.out[cs.out.size() - 2] < 2 * cs.in[cs.in.size() - 2] || row > jit_conf::kLinesCopyRowMax;
    };
    const int seen = sweep_aligned_rows(cases, std::vector<bool>(cases.size(), false), mode::nearest, 3500, "part wpass",
                                        [&](const layout_shape &cs, data_type t) {
                                            return rows_not_lines(cs, t, jit_conf::kLinesMinBytes) && windows(cs, t) && in_place(cs, t);
                                        });
    // Every case but the small one's 16-bit rows (300 bytes: plane mode's).
    EXPECT_TRUE(W != 16 || seen >= 2 * int(kCtms.size()) * (int(kTypes.size() * cases.size()) - 2)) << seen << " 512-bit row-mode kernels";
    const kernel_isa k512(cpu_isa::avx512_core);
    auto conf_of = [&](const layout_shape &cs, data_type t) {
        return make_jit_conf(make_problem(problem_builder().src(layout(cs.f, 1, cs.c, cs.in)).sizes(cs.out).fmt(cs.f).mode(mode::nearest).dt(t)),
                             k512);
    };
    const jit_conf sweep = conf_of(cases[0], data_type::f32), up2 = conf_of(cases[5], data_type::f32);
    EXPECT_TRUE(sweep.pass_engine && !sweep.plane_mode && sweep.row_lines && sweep.nearest_row_pairs && sweep.span_units > 0);
    EXPECT_TRUE(!up2.row_lines && up2.copy_aligned) << "H up 2x, short rows: through scratch";
    const jit_conf long2 = conf_of(cases[8], data_type::f32);
    EXPECT_TRUE(long2.row_lines && !long2.copy_aligned && long2.nearest_row_pairs) << "H up 2x, long rows: pairs in place";
    const jit_conf gathers = conf_of(cases[6], data_type::f16), small = conf_of(cases[7], data_type::f32);
    EXPECT_TRUE(!gathers.row_lines && gathers.copy_aligned) << "16-bit without windows";
    EXPECT_TRUE(!small.row_lines && small.copy_aligned);
    const jit_conf plane = conf_of({data_format::ncx, 8, {33, 33}, {65, 65}}, data_type::f32);
    EXPECT_TRUE(plane.plane_mode && plane.plane_lines && !plane.row_lines);
    EXPECT_FALSE(make_jit_conf(make_problem(problem_builder().src(layout(data_format::ncx, 1, 2, {40, 300})).sizes({47, 555}).mode(mode::nearest)),
                               cpu_isa::avx2).row_lines) << "256 bits";
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
        const size_t at = code.find("blend", code.find("; part "));  // in the code, not the plan
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

// Every NCX case of mode m (linear unless said) of the spatial shapes (in, out) at N = 2, C = 1
// and 3, both transforms and all dtypes, under both gather spellings at 1 and 2 threads:
// expect(desc, AVX2 conf, shape index, spelling) checks the conf, then the case must give the
// reference's bits (specials every other case, guard pages on alternating edges).
namespace {
void sweep_ncx(const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> &shapes, uint32_t seed,
               const std::function<void(const op_desc &, const jit_conf &, size_t, int)> &expect, mode m = mode::linear) {
    for_spellings_and_threads([&](int spelling, int threads) {
        for (size_t i = 0; i < shapes.size(); ++i)
            for (int64_t c : {1, 3})
                for (auto ct : kCtms)
                    for (auto t : kTypes) {
                        const op_desc d = problem_builder().src(layout(data_format::ncx, 2, c, shapes[i].first)).sizes(shapes[i].second)
                                              .fmt(data_format::ncx).mode(m).ctm(ct).dt(t);
                        expect(d, make_jit_conf(make_problem(d), cpu_isa::avx2), i, spelling);
                        ++seed;
                        ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 2 == 1), 0)
                            << describe(d) << " spelling " << spelling << " threads " << threads;
                    }
    });
}

// Shapes (in, out) and whether the AVX2 conf walks them flat (jit_conf::flat): sweep_ncx
// checks that, then the bits.
struct flat_shape {
    std::vector<int64_t> in, out;
    bool flat;
};
void sweep_flat(const std::vector<flat_shape> &shapes, uint32_t seed, mode m) {
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> spatial;
    for (const auto &sh : shapes) spatial.push_back({sh.in, sh.out});
    sweep_ncx(
        spatial, seed,
        [&](const op_desc &d, const jit_conf &cf, size_t i, int) { EXPECT_EQ(cf.flat, shapes[i].flat) << describe(d) << " fused " << cf.fuse_h; },
        m);
}
}  // namespace

// Nearest NCX planes (plane mode: rows of 512 bytes or less) with an NT-sized dst whose rows
// split lines (jit_conf::plane_stream): on one thread each plane is made in scratch, once for a
// run of od that repeat its src slice (D up), and streamed to dst; on two threads they are
// stored in place. 2-D and 3-D with D up, kept and down, planes of 64 bytes and up (sweep_ncx:
// C = 1 and 3, every dtype and transform); NXC flat planes and planes past kStreamRowMax keep
// plain stores. The guard pages catch a byte written outside dst, the 0xCD fill one left
// unwritten.
TEST(jit_bitwise, nearest_plane_stream) {
    REQUIRE_AVX2();
    nt_threshold nt(1);  // every dst counts as large
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
        {{37, 41}, {97, 53}}, {{5, 7}, {2, 23}}, {{3, 5, 7}, {7, 9, 13}}, {{2, 9, 12}, {9, 20, 23}}, {{9, 4, 6}, {4, 6, 17}}};
    sweep_ncx(
        cases, 1400,
        [&](const op_desc &d, const jit_conf &cf, size_t i, int) {
            const std::vector<int64_t> &out = cases[i].second;
            const int64_t plane = out[out.size() - 2] * cf.dst_row_bytes;
            EXPECT_TRUE(cf.plane_mode && !cf.nt_eligible) << describe(d);
            EXPECT_EQ(cf.plane_stream, plane >= 64) << describe(d);
            if (cf.plane_stream) {
                EXPECT_GE(cf.scratch_bytes, cf.stream_off + plane) << describe(d);
                EXPECT_FALSE(part_asm(primitive(primitive_desc(d)).dump_asm(), "row_stream").empty()) << describe(d);
            }
        },
        mode::nearest);
    // NXC flat planes (C = 3, rows of 120 elements), and NCX planes past kStreamRowMax (600
    // rows of 480 bytes): plain stores.
    const auto flat = problem_builder().src({1, 2, 9, 12, 3}).sizes({9, 20, 40}).mode(mode::nearest);
    EXPECT_TRUE(make_jit_conf(make_problem(flat), dispatch_isa()).plane_mode);
    EXPECT_FALSE(make_jit_conf(make_problem(flat), dispatch_isa()).plane_stream);
    EXPECT_EQ(check_case(flat, 1450, true), 0);
    const auto tall = problem_builder().src({1, 2, 100, 30}).sizes({600, 120}).fmt(data_format::ncx).mode(mode::nearest);
    EXPECT_TRUE(make_jit_conf(make_problem(tall), dispatch_isa()).plane_mode);
    EXPECT_FALSE(make_jit_conf(make_problem(tall), dispatch_isa()).plane_stream);
}

// The 3-D linear NCX plane blends likewise (W-planes, not fused): on one thread a whole plane,
// or a D pair's two, blended into scratch and streamed a plane at a time; on two threads in
// place. D up (pairs), down and uneven (sweep_ncx); rows of whole lines (16 floats) take NT
// stores of their own and no stream.
TEST(jit_bitwise, linear_plane_stream) {
    REQUIRE_AVX2();
    nt_threshold nt(1);  // every dst counts as large
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
        {{3, 5, 7}, {7, 9, 13}}, {{2, 9, 12}, {9, 20, 23}}, {{9, 4, 6}, {4, 6, 17}}, {{5, 20, 30}, {10, 41, 61}}};
    int pairs = 0;
    sweep_ncx(cases, 1460, [&](const op_desc &d, const jit_conf &cf, size_t i, int) {
        const int64_t plane = cases[i].second[1] * cf.dst_row_bytes;
        EXPECT_TRUE(cf.plane_mode && !cf.fuse_h && !cf.nt_eligible) << describe(d);
        EXPECT_TRUE(cf.plane_stream) << describe(d);
        EXPECT_GE(cf.scratch_bytes, cf.stream_off + 2 * plane) << describe(d);
        pairs += cf.d_pairs;
    });
    EXPECT_GT(pairs, 0);
    const auto whole = problem_builder().src({1, 3, 4, 6, 8}).sizes({8, 12, 16}).fmt(data_format::ncx).mode(mode::linear);
    EXPECT_TRUE(make_jit_conf(make_problem(whole), dispatch_isa()).nt_eligible);
    EXPECT_FALSE(make_jit_conf(make_problem(whole), dispatch_isa()).plane_stream);
}

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
    sweep_flat({
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
    }, 1500, mode::linear);
    // The same rule at 512 bits: rows of 8 use half a vector.
    const auto gathered3 = problem_builder().src({1, 111, 4, 14, 52}).sizes({2, 7, 8}).fmt(data_format::ncx).mode(mode::linear);
    EXPECT_TRUE(make_jit_conf(make_problem(gathered3), kernel_isa(cpu_isa::avx512_core)).flat);
    EXPECT_FALSE(make_jit_conf(make_problem(gathered3), cpu_isa::avx2).flat);  // rows of one whole vector
}

// NCX nearest with rows shorter than a vector goes flat where its (plane, od) slices hold at
// most two vectors or H is not upsampled (jit_conf::flat, nearest): every lane gathers its one
// element. 2-D and 3-D, H and D down, kept and up, volumes that end in a tail vector (or are
// only one), align_corners reaching each plane's last element (the 16-bit dword gathers'
// edge), NaN payloads, both gather spellings, 1 and 2 threads; and the shapes that keep rows
// (H up over larger slices, rows of a whole vector).
TEST(jit_bitwise, ncx_nearest_flat_volumes) {
    REQUIRE_AVX2();
    const threads_and_spelling_restore restore;
    sweep_flat({
        {{41, 10, 5}, {13, 2, 1}, true},   // 3-D, slices of 2 (the seed-97 sweep's shape)
        {{49, 1, 4}, {50, 1, 6}, true},    // D up, slices of one row of 6
        {{4, 40, 40}, {8, 30, 5}, true},   // H down, rows of 5
        {{100, 300}, {30, 1}, true},       // 2-D, one column
        {{64, 64}, {64, 6}, true},         // H kept
        {{7, 3}, {2, 3}, true},            // 6 outputs: the tail alone
        {{120, 90}, {5, 5}, true},         // W down 18x (r525to5 goes flat too)
        {{3, 9}, {5, 2}, true},            // H up, a slice of 10
        {{8, 8, 8}, {16, 16, 4}, false},   // H up, slices of 64: rows (pairs)
        {{20, 30}, {40, 5}, false},        // H up, plane of 200: rows
        {{40, 40}, {20, 8}, false},        // rows of a whole vector
    }, 4300, mode::nearest);
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
    // f32 at 512 bits: from 48 KiB where every output row makes its own W pass (H up under 2x).
    const kernel_isa zmm(cpu_isa::avx512_core);
    auto direct_512 = [&](const op_desc &d) { return !make_jit_conf(make_problem(d), zmm).pass_engine; };
    EXPECT_TRUE(direct_512(nxc(10, {53, 216}, {26, 1620})));                                         // 130 KB, H down
    EXPECT_TRUE(direct_512(nxc(6, {40, 1000}, {40, 2000})));                                         // 96 KB, H kept
    EXPECT_FALSE(direct_512(nxc(6, {60, 300}, {60, 900})));                                          // 43 KB
    EXPECT_TRUE(direct_512(nxc(6, {1000}, {3000})));                                                 // 1-D, 144 KB
    EXPECT_FALSE(direct_512(nxc(10, {53, 216}, {106, 1620})));                                       // rows in pairs
    EXPECT_FALSE(direct_512(nxc(14, {64, 64}, {64, 128})));                                          // 14 KB
    EXPECT_FALSE(direct_512(nxc(5, {60, 300}, {60, 900})));                                          // C = 5
    EXPECT_FALSE(direct_512(nxc(10, {53, 216}, {26, 1620}, data_type::bf16)));                       // 16-bit
    EXPECT_TRUE(make_jit_conf(make_problem(nxc(6, {40, 1000}, {40, 2000})), cpu_isa::avx2).pass_engine);  // 256 bits
    EXPECT_EQ(check_case(nxc(10, {53, 216}, {26, 1620}), 4098, true), 0);
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
    sweep_ncx(shapes, 1800, [&](const op_desc &d, const jit_conf &cf, size_t, int) {
        EXPECT_EQ(cf.flat_w, !cf.flat)
            << describe(d) << " plane " << cf.plane_mode << " fused " << cf.fuse_h << " window " << cf.window;
    });
}
