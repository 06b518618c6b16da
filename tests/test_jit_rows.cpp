// Bitwise against the reference (test_jit.cpp): nearest row copies and pairs, and the 2-D NXC
// linear rows (row pairs, same-taps runs, pixel pairs, NT lines, separable channels, word
// pairs, two-window rows, pixel-line pairs).
#include <immintrin.h>

#include <random>

#include "../jit/jit_stream_copy.hpp"
#include "jit_test_util.hpp"

using namespace xinterp;
using namespace xinterp::jt;

// The row copy itself (jit_stream_copy): `rows` repeats of a row end to end from any dst
// alignment, with NT and with plain stores, against the same bytes written by hand. Rows of
// 1-63 bytes go one at a time (as the drivers call them); from 64 bytes, regions of 1-9 repeats
// whose inner lines straddle two repeats (src holds the row's first 64 bytes again after it).
// Guard bytes on either side of the region stay untouched.
TEST(jit_stream_copy, regions_of_repeated_rows) {
    REQUIRE_AVX2();
    std::mt19937 rng(77);
    for (const int64_t bytes : {1, 2, 3, 7, 31, 63, 64, 65, 100, 127, 128, 129, 191, 520, 1040, 4100}) {
        for (const bool nt : {false, true}) {
            jit_stream_copy k(bytes, nt);
            k.generate();
            std::vector<uint8_t> row(bytes + 64);
            for (auto &b : row) b = static_cast<uint8_t>(rng());
            for (int64_t j = 0; j < 64 && bytes >= 64; ++j) row[bytes + j] = row[j];
            const int64_t max_rows = bytes >= 64 ? 9 : 1;
            for (int64_t rows = 1; rows <= max_rows; ++rows)
                for (int64_t off = 0; off < 64; off += (bytes >= 64 ? 1 : 7)) {
                    const int64_t n = rows * bytes;  // 64 guard bytes on either side, at least
                    std::vector<uint8_t> buf(static_cast<size_t>(n + 4 * 64), 0xa5), want = buf;
                    const uintptr_t p0 = reinterpret_cast<uintptr_t>(buf.data());
                    const int64_t at = static_cast<int64_t>((p0 + 63) / 64 * 64 - p0) + 64 + off;  // off bytes past a line
                    for (int64_t i = 0; i < n; ++i) want[at + i] = row[i % bytes];
                    const jit_copy_args a{row.data(), buf.data() + at, rows};
                    k.fn()(&a);
                    _mm_sfence();
                    ASSERT_TRUE(buf == want) << "bytes=" << bytes << " nt=" << nt << " rows=" << rows << " dst offset=" << off;
                }
        }
    }
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
// copy_aligned) are made once into scratch and copied to each row that repeats them instead,
// unless at 512 bits the W pass stores them as whole lines itself, pairs and all (row_lines:
// H up under 2x here): the cases cover each kind at either width.
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
        {data_format::ncx, 1, 2, {3, 9, 140}, {5, 7, 304}},    // 3-D, D up only
        {data_format::ncx, 1, 3, {22, 150}, {35, 291}},        // 1.6x: at 512 bits pairs in place
        {data_format::ncx, 1, 1, {4, 3000}, {9, 4501}}};       // 2x, f32 rows of 18 KB: in place too (NT: streamed)
    uint32_t seed = 1700;
    int64_t paired = 0, lines = 0;
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
                    EXPECT_EQ(c512.copy_aligned || c512.row_lines, c512.row_out % 16 != 0) << describe(d);
                    EXPECT_FALSE(c512.copy_aligned && c512.row_lines) << describe(d);
                    lines += c512.row_lines;
                    paired += !c.nt_eligible;
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
                }
    });
    EXPECT_GT(paired, 0);
    EXPECT_GT(lines, 0) << "512-bit rows stored as lines in place";
}

// The direct NXC kernel for shapes the 2-D separable rule would take (AVX2 f16 with a channel
// tail, f32 from 2.5x up): the rule off while a test runs, and the cache cleared around it.
struct separable_off {
    separable_off() {
        set_separable_for_testing(0);
        clear_cache();
    }
    ~separable_off() {
        set_separable_for_testing(-1);
        clear_cache();
    }
};

// Direct NXC 2-D linear in row pairs: same-taps pairs (2x half_pixel: rows 2i + 1, 2i + 2) and
// chained pairs, with the single row the driver leaves between them, at 1 and 2 threads (a split
// can fall inside a pair) and with NT stores (C % 8 == 0). The separable rule is off, so f16
// with a tail (C = 13) and f32 at 3x stay on the direct kernel.
TEST(jit_bitwise, nxc_linear_row_pairs) {
    REQUIRE_AVX2();
    const separable_off direct;
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
// dst the runs are off (plain-store kernel only). The separable rule is off (f16 C = 13).
TEST(jit_bitwise, nxc_linear_same_runs) {
    REQUIRE_AVX2();
    const separable_off direct;
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

// The AVX2 separable picks of 2-D NXC linear (jit_conf_rules.cpp, separable_pays): f16 upsampling
// with a channel tail at 1.25-2x (exactly 2x too), whole vectors at 1.5x and 2.5x, f32 from
// 2.5x up and f32 pixels whose last vector holds 1-4 channels (C = 9, 17, 20) under it,
// checked as separable (W rows, then blends), bit for bit at 1 and 2 threads, with and
// without NT-sized dst, both transforms.
TEST(jit_bitwise, nxc_linear_separable_avx2_picks) {
    REQUIRE_AVX2();
    struct shape {
        data_type t;
        int64_t c;
        std::vector<int64_t> in, out;
    };
    const std::vector<shape> shapes = {
        {data_type::f16, 17, {9, 11}, {18, 22}}, {data_type::f16, 13, {8, 9}, {10, 12}},
        {data_type::f16, 9, {7, 5}, {11, 9}},    {data_type::f16, 24, {6, 7}, {9, 10}},
        {data_type::f16, 16, {5, 6}, {13, 15}},  {data_type::f32, 12, {4, 5}, {12, 14}},
        {data_type::f32, 32, {3, 6}, {10, 9}},   {data_type::f32, 17, {5, 3}, {13, 8}},
        {data_type::f32, 9, {7, 5}, {11, 9}},    {data_type::f32, 17, {9, 8}, {13, 12}},
        {data_type::f32, 20, {6, 5}, {8, 7}},
    };
    uint32_t seed = 9100;
    for_nt_and_threads([&](size_t nt_bytes, int threads) {
        for (const shape &sh : shapes)
            for (auto ct : kCtms) {
                const auto d = problem_builder().src(layout(data_format::nxc, 1, sh.c, sh.in)).sizes(sh.out).mode(mode::linear).ctm(ct).dt(sh.t);
                EXPECT_TRUE(make_jit_conf(make_problem(d), cpu_isa::avx2).nxc_separable) << describe(d);
                ++seed;
                ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                    << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
            }
    });
}

// The run kernel's pixel pairs (conf.px_segs, one segment; 16-bit at 512 bits, whole channel
// vectors): pixels that read the same W taps two at a time from one load of each tap. The
// conf: 2x half_pixel pairs pixels (1, 2) .. (OW - 3, OW - 2) with 0 and OW - 1 alone; IW = 1
// pairs (0, 1); none in f32, at 256 bits, with a channel tail (separable there), or where the
// first segment covers under half the row (9 -> 14). 16-bit pixels of whole 64-byte lines (C = 32, 160; native bf16, and f16
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
    EXPECT_TRUE(fpn.n_px_segs == 1 && fpn.px_segs[0].singles == 1 && fpn.px_segs[0].pairs == 31);
    const jit_conf fpn_bf16 = conf_of({32, 32}, {64, 64}, 256, data_type::bf16, bf16_512);
    EXPECT_TRUE(!fpn_bf16.nxc_separable && fpn_bf16.n_px_segs == 1 && fpn_bf16.px_segs[0].singles == 1 && fpn_bf16.px_segs[0].pairs == 31);
    const jit_conf one = conf_of({5, 1}, {10, 2}, 32, data_type::f16, core_512);
    EXPECT_TRUE(one.n_px_segs == 1 && one.px_segs[0].singles == 0 && one.px_segs[0].pairs == 1);
    const jit_conf f32 = conf_of({32, 32}, {64, 64}, 256, data_type::f32, core_512);
    EXPECT_TRUE(f32.same_run == 2 && f32.n_px_segs == 0) << "f32";
    EXPECT_EQ(conf_of({32, 32}, {64, 64}, 256, data_type::f16, cpu_isa::avx2).n_px_segs, 0) << "256 bits";
    const jit_conf tail = conf_of({6, 9}, {12, 18}, 40, data_type::f16, core_512);
    EXPECT_TRUE(tail.nxc_separable && !tail.same_run) << "a channel tail: separable (its W step pairs: test_jit_nxc3d.cpp)";
    EXPECT_EQ(conf_of({6, 9}, {12, 14}, 32, data_type::f16, core_512).n_px_segs, 0) << "W 9 -> 14";
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
                    EXPECT_GT(jc.n_px_segs, 0) << describe(d);
                    saw += jc.n_px_segs > 0;
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
        EXPECT_TRUE(conf_of(32, data_type::bf16, bf16_512).nt_lines) << "H down from C = 32: direct";
        const auto up = make_problem(problem_builder().src(layout(data_format::nxc, 1, 32, {6, 9})).sizes({9, 14}).mode(mode::linear).dt(data_type::bf16));
        EXPECT_FALSE(make_jit_conf(up, bf16_512).nt_lines) << "separable (H up 1.5x)";
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
// direct. H down: 16-bit pixels of 32+ channels, or whose W rows reach 16 KiB, go direct
// (native bf16 and f16); H up under 4x, native bf16 pixels of 80+ channels with W rows of
// 16 KiB or more. Bit for bit at the dispatched tier, with row pairs and same-taps runs, at 1 and 2
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
    EXPECT_FALSE(conf(100, data_type::bf16, bf16_512).nxc_separable);       // a tail, but 80+ channels, 24 KB W rows
    EXPECT_TRUE(conf(128, data_type::bf16, core_512).nxc_separable);        // integer rounding
    EXPECT_TRUE(conf(128, data_type::bf16, cpu_isa::avx2).nxc_separable);
    EXPECT_TRUE(conf(24, data_type::f16, core_512).nxc_separable);
    EXPECT_TRUE(conf(17, data_type::f16, bf16_512).nxc_separable);
    EXPECT_FALSE(conf(64, data_type::f16, core_512).nxc_separable);         // whole vectors
    EXPECT_FALSE(conf(56, data_type::f16, core_512).nxc_separable);         // 48 or more
    EXPECT_FALSE(conf(24, data_type::f16, cpu_isa::avx2).nxc_separable);
    auto down = [](int64_t c, data_type t, kernel_isa k) {  // H down 1.7x, W up (the sweep's 41x187 -> 24x212)
        const auto d = problem_builder().src({1, 41, 187, c}).sizes({24, 212}).mode(mode::linear).dt(t);
        return make_jit_conf(make_problem(d), k);
    };
    EXPECT_FALSE(down(41, data_type::bf16, bf16_512).nxc_separable);  // 16-bit H down from C = 32: direct
    EXPECT_FALSE(down(32, data_type::bf16, bf16_512).nxc_separable);
    EXPECT_FALSE(down(41, data_type::f16, core_512).nxc_separable);
    EXPECT_FALSE(down(24, data_type::bf16, bf16_512).nxc_separable);  // under 32 channels: 20 KB W rows, direct
    const auto small = make_problem(problem_builder().src({1, 120, 120, 24}).sizes({80, 80}).mode(mode::linear).dt(data_type::bf16));
    EXPECT_TRUE(make_jit_conf(small, bf16_512).nxc_separable);        // 7.5 KB W rows: separable
    auto up15 = [](int64_t c, int64_t ow) {  // H up 1.5x, native bf16: from 80 channels and 16 KiB W rows, direct
        const auto d = problem_builder().src({1, 40, 40, c}).sizes({60, ow}).mode(mode::linear).dt(data_type::bf16);
        return make_jit_conf(make_problem(d), cpu_isa::avx512_core_bf16);
    };
    EXPECT_FALSE(up15(85, 60).nxc_separable);  // 20 KB rows
    EXPECT_TRUE(up15(85, 40).nxc_separable);   // 13.6 KB rows
    EXPECT_TRUE(up15(78, 60).nxc_separable);   // under 80 channels
    EXPECT_TRUE(down(41, data_type::bf16, core_512).nxc_separable);   // integer rounding: separable
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
                     {{11, 9}, {22, 18}}, {{6, 3}, {12, 7}}, {{5, 4}, {7, 9}}, {{4, 5}, {21, 11}}, {{4, 6}, {7, 11}}, {{9, 11}, {5, 14}}}) {
                // (H 4 -> 7: rows 2 and 3 a chained pair whose third src row is its own; H 9 -> 5:
                // 16-bit from C = 32 direct at 512 bits.)
                const auto d = problem_builder().src(layout(data_format::nxc, 1, tc.second, cs.first)).sizes(cs.second)
                                   .mode(mode::linear).dt(tc.first);
                ++seed;
                ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0)
                    << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
            }
        // H down, C = 24, 20 KB W rows: direct at 512 bits; then H up 1.5x, C = 85 (five vectors
        // and a tail of 5), 20 KB W rows: direct native bf16. Under Bochs (no BF16: bf16 is
        // separable there) f16 once.
        const bool emu_skip = emulated() && (threads == 2 || nt_bytes == 0);
        for (data_type t : {data_type::bf16, data_type::f16}) {
            if (emu_skip || (emulated() && t == data_type::bf16)) continue;
            const auto d = problem_builder().src(layout(data_format::nxc, 1, 24, {41, 187})).sizes({24, 212}).mode(mode::linear).dt(t);
            ++seed;
            ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
        }
        if (!emulated()) {
            const auto d = problem_builder().src(layout(data_format::nxc, 1, 85, {10, 40})).sizes({15, 60}).mode(mode::linear).dt(data_type::bf16);
            ++seed;
            ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt_bytes;
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
    // not C = 40 or 48, H up 1.25x, the AVX-512 tier at 256 bits, f16, nor past 1.5 MiB
    // (C = 31 120x120). (AVX2 has rules of its own: jit_conf.separable_nxc_where_it_pays.)
    EXPECT_TRUE(conf(17, data_type::f32, core_512, {33, 33}, {65, 65}).nxc_separable);
    EXPECT_TRUE(conf(23, data_type::f32, core_512, {31, 29}, {47, 61}).nxc_separable);
    EXPECT_TRUE(conf(39, data_type::f32, core_512, {40, 40}, {60, 60}).nxc_separable);
    for (int64_t c : {40, 48}) EXPECT_FALSE(conf(c, data_type::f32, core_512, {33, 33}, {65, 65}).nxc_separable) << c;
    EXPECT_FALSE(conf(27, data_type::f32, core_512, {80, 80}, {100, 100}).nxc_separable);
    EXPECT_FALSE(conf(17, data_type::f32, kernel_isa(cpu_isa::avx512_core, true), {33, 33}, {65, 65}).nxc_separable);
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

// Few rows that the threads do not divide evenly (jit_conf::span_units): the threads share
// the rows' units, a span of a row at either end of each share and whole rows between
// (jit_kernel_base::for_thread_ranges). NXC direct rows (units: pixels): 1-D (one row per
// image), 2-D and 3-D with 2-5 rows, pixels with a channel tail, whole vectors, the unrolled
// few-vector pixels, bf16's 16-channel blocks, nearest copies. Pass engine rows (units: output
// vectors, the tail the last): NCX 1-D linear and nearest rows, up and down (the window pairs
// prefix and the rest), nearest 2-D row mode, NXC C < simd_w 1-D rows (W x C elements); an
// exact 2x row, whose up2 groups keep whole rows. Single rows have 128 KiB of dst or more in
// every dtype (jit_kernel_base::kSpanMinBytes: more threads than rows). NT-sized dst
// (threshold lowered: the NT variants' spans); 1-4 threads, so span ends fall at many units.
// Guard pages on either edge.
TEST(jit_bitwise, row_spans) {
    REQUIRE_AVX2();
    threads_and_spelling_restore restore;
    struct shape {
        data_format f;
        int64_t n, c;
        std::vector<int64_t> in, out;
        bool spans;  // whether the conf takes spans (both modes)
    };
    const auto ncx = data_format::ncx, nxc = data_format::nxc;
    const std::vector<shape> shapes = {
        {nxc, 1, 37, {300}, {4001}, true},             // 1-D, one row, a channel tail
        {nxc, 3, 16, {257}, {800}, true},              // 1-D, three rows
        {nxc, 1, 64, {6000}, {2101}, true},            // 1-D down, whole vectors
        {nxc, 1, 243, {10, 222}, {3, 201}, true},      // 2-D, three rows
        {nxc, 2, 21, {7, 40}, {1, 611}, true},         // 2-D, two rows, unrolled pixels
        {nxc, 1, 40, {5, 9, 40}, {1, 5, 97}, true},    // 3-D, five rows
        {nxc, 1, 24, {4, 6, 30}, {2, 2, 150}, true},   // 3-D, four rows (D pairs where whole rows)
        {ncx, 1, 1, {20000}, {70001}, true},           // 1-D, one row up
        {ncx, 1, 3, {7001}, {10003}, true},            // 1-D, three rows, a tail
        {ncx, 1, 1, {400001}, {70007}, true},          // 1-D, one row down
        {nxc, 1, 3, {7001}, {25005}, true},            // NXC C = 3: rows of W x C
        {ncx, 1, 1, {20, 30000}, {3, 10001}, true},    // 2-D nearest row mode (linear: fused rows)
        {ncx, 1, 1, {40000}, {80000}, true},           // exactly 2x: up2 groups, then computed taps
        {ncx, 1, 3, {20001}, {40002}, true},           // 2x, three rows, a tail
        {ncx, 1, 1, {30000}, {40000}, true},           // a periodic run of one vector a period
        {ncx, 1, 1, {37500}, {40000}, true},           // two a period, in-lane windows
        {ncx, 1, 1, {32000}, {48000}, true},           // three a period
        {nxc, 1, 6, {8000}, {7351}, true},             // narrow pixels (5.1 audio), down
        {nxc, 1, 6, {7351}, {8000}, true},             // narrow, up: two edge pixels
        {nxc, 1, 3, {20000}, {13001}, true},           // narrow C = 3 (flat rows at 512 bits)
        {nxc, 1, 5, {9000}, {9001}, true},             // narrow C = 5
        {nxc, 1, 7, {6000}, {5003}, true},             // narrow C = 7
        {nxc, 1, 6, {2, 9000}, {3, 7001}, true},       // narrow, 2-D, three rows
    };
    uint32_t seed = 5200;
    int spanned = 0;
    for (bool nt : {false, true}) {
        nt_threshold low(nt ? size_t(1) : size_t(0));
        for (int threads : {1, 2, 3, 4}) {
            omp_set_num_threads(threads);
            for (const auto &sh : shapes)
                for (auto m : kModes)
                    for (auto t : kTypes) {
                        if (emulated() && (threads != 2 || t != data_type::f32 || nt)) continue;
                        const auto d = problem_builder().src(layout(sh.f, sh.n, sh.c, sh.in)).sizes(sh.out).fmt(sh.f).mode(m).dt(t);
                        const jit_conf jc = make_jit_conf(make_problem(d), get_effective_cpu_isa());
                        const bool rows = m == mode::nearest || sh.in.size() == 1 || sh.f == nxc;  // NCX 2-D linear: not row kernels
                        EXPECT_EQ(jc.span_units > 0, rows && (sh.spans || m == mode::nearest)) << describe(d);  // nearest: no runs
                        spanned += jc.span_units > 0 && threads > 1;
                        ++seed;
                        ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt;
                    }
        }
    }
    EXPECT_GT(spanned, 0);
}

// Spans through up2 and periodic runs (span_cut): rows that are one run end to end (power-of-two
// sizes keep the weights exact), and runs beside computed taps, cut by 2 to 7 threads at
// vectors all over the run; each thread's part starts its run at a whole group (periods of
// more than two vectors: from records, the whole run on one thread phase by phase). NCX rows
// of one and three channels, and NXC stereo's flat rows.
TEST(jit_bitwise, row_spans_through_runs) {
    REQUIRE_AVX2();
    threads_and_spelling_restore restore;
    const std::vector<std::pair<int64_t, int64_t>> rows = {
        {32768, 65536},  // up2 groups, the whole row
        {49152, 65536},  // a periodic run of one vector a period
        {61440, 65536},  // two a period (256 bits), in-lane windows
        {40000, 80000},  // up2, then computed taps
        {37500, 40000},  // computed, then two a period
        {32000, 48000},  // computed, then three a period (phase by phase where whole)
        {360000, 480000},  // eight a period (256 bits), computed after
        {45000, 48000},  // six a period
    };
    uint32_t seed = 5300;
    int runs = 0;
    for (bool nt : {false, true}) {
        nt_threshold low(nt ? size_t(1) : size_t(0));
        for (int threads = 2; threads <= 7; ++threads) {
            if (emulated() && (nt || threads > 3)) continue;  // ~30 s emulated as it is
            omp_set_num_threads(threads);
            for (const auto &[in, out] : rows)
                for (int64_t c : {1, 3, -2}) {  // -2: NXC flat rows of C = 2 (stereo)
                    if (c < 0 && out == 2 * in) continue;  // up2: flat_c 1 only
                    if (emulated() && (out > 100000 || c == 3)) continue;
                    const data_format f = c < 0 ? data_format::nxc : data_format::ncx;
                    const auto src = c < 0 ? std::vector<int64_t>{1, in, -c} : std::vector<int64_t>{1, c, in};
                    const auto d = problem_builder().src(src).sizes({out}).fmt(f).mode(mode::linear);
                    const jit_conf jc = make_jit_conf(make_problem(d), get_effective_cpu_isa());
                    EXPECT_GT(jc.span_units, 0) << describe(d);
                    runs += jc.up2_groups > 0 || jc.per_periods > 0;
                    ++seed;
                    ASSERT_EQ(check_case(d, seed, seed % 2 == 0, seed % 3 == 0), 0) << describe(d) << " threads=" << threads << " nt=" << nt;
                }
        }
    }
    EXPECT_GT(runs, 0);
}
