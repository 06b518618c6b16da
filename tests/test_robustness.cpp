// Faults and edges: allocation failure, a failed generation, W^X while other threads generate,
// and every mode x layout x dtype x rank at guard-page edges and odd start addresses.
#include <sys/resource.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "cache.hpp"
#include "cpu_isa.hpp"
#include "kernel.hpp"
#include "test_util.hpp"

using namespace xinterp;
using xt::problem_builder;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define XT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define XT_SANITIZED 1
#endif
#endif

TEST(resources, tables_that_do_not_fit_report_out_of_memory) {
#ifdef XT_SANITIZED
    GTEST_SKIP() << "RLIMIT_AS cannot be combined with a sanitizer's shadow memory; the injected-failure test covers this lane";
#else
    if (!host_has(cpu_isa::avx2)) GTEST_SKIP() << "host lacks AVX2: no JIT tables to allocate";
    // NXC linear with OW = 2^24: the per-axis and W tables need ~800 MB; the child gets 512 MB.
    // C = 16 is whole vectors on AVX2 and AVX-512 alike, so every tier serves it with the direct
    // kernel and its tables (C = 8 on AVX-512 is past the flat rows' limits: the reference,
    // which allocates nothing, and the child would report that it fit).
    const op_desc d = problem_builder().src({1, 1, 4, 16}).sizes({1, int64_t(1) << 24}).mode(mode::linear);
    ASSERT_EQ(primitive_desc(d).impl_name().rfind("jit:", 0), 0u) << primitive_desc(d).impl_name();
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        rlimit lim{size_t(512) << 20, size_t(512) << 20};
        setrlimit(RLIMIT_AS, &lim);
        int code = 3;
        try {
            primitive p{primitive_desc(d)};
            code = 1;  // it fit after all: the test is not testing anything
        } catch (const error &e) {
            code = e.get_status() == status::out_of_memory && std::string(e.what()).find("out of memory") != std::string::npos ? 0 : 2;
        } catch (...) {
            code = 4;  // anything but xinterp::error breaks the API contract
        }
        _exit(code);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ASSERT_TRUE(WIFEXITED(st)) << "the child crashed";
    EXPECT_EQ(WEXITSTATUS(st), 0) << "1: it fit, 2: wrong status or message, 3: no error, 4: foreign exception";
#endif
}

// Choosing a tier runs for every descriptor, before any kernel is made and for descriptors
// whose rows no kernel could take too: it builds no table and scans no axis. NXC linear C = 3
// (the narrow-pixel rule's domain) with W or H of 2^40: a fuzzer input once made the rule,
// then run there, allocate a W table of 2^40 taps. W runs on the reference (past the row
// limits), H on the JIT.
TEST(resources, choosing_a_tier_for_huge_rows_allocates_nothing) {
    const int64_t huge = int64_t(1) << 40;
    const auto t0 = std::chrono::steady_clock::now();
    const primitive_desc wide(problem_builder().src({1, 1, 40, 3}).sizes({1, huge}).mode(mode::linear));
    const primitive_desc tall(problem_builder().src({1, 40, 40, 3}).sizes({huge, 10}).mode(mode::linear));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(wide.impl_name(), "ref");
    if (host_has(cpu_isa::avx2)) {
        EXPECT_EQ(tall.impl_name().rfind("jit:", 0), 0u) << tall.impl_name();
    }
    EXPECT_LT(s, 1.0) << "choosing took " << s << " s";
}

TEST(resources, failed_generation_leaves_the_cache_usable_and_the_next_request_retries) {
    clear_cache();
    set_cache_capacity(16);
    const op_desc d = problem_builder().src({1, 5, 6, 9}).sizes({7, 11}).mode(mode::linear);
    inject_generation_failures_for_testing(1);
    xt::expect_error([&] { primitive p{primitive_desc(d)}; }, status::out_of_memory, "injected generation failure");
    EXPECT_EQ(get_cache_stats().entries, 0u) << "a failed generation leaves no entry behind";
    primitive p{primitive_desc(d)};  // the retry generates
    EXPECT_EQ(get_cache_stats().entries, 1u);
    std::vector<float> src(primitive_desc(d).src_bytes() / 4, 1.5f), dst(primitive_desc(d).dst_bytes() / 4);
    p.execute(src.data(), dst.data());
    for (float v : dst) ASSERT_EQ(v, 1.5f);
}

TEST(resources, concurrent_waiters_on_a_failing_generation) {
    clear_cache();
    const op_desc d = problem_builder().src({1, 9, 4, 13}).sizes({5, 8}).mode(mode::linear).dt(data_type::f16);
    inject_generation_failures_for_testing(1);
    std::atomic<int> ok{0}, oom{0}, other{0};
    std::vector<std::thread> ts;
    for (int i = 0; i < 8; ++i)
        ts.emplace_back([&] {
            try {
                primitive p{primitive_desc(d)};
                ++ok;
            } catch (const error &e) {
                ++(e.get_status() == status::out_of_memory ? oom : other);
            }
        });
    for (auto &t : ts) t.join();
    EXPECT_GE(oom.load(), 1);
    EXPECT_EQ(other.load(), 0);
    EXPECT_EQ(ok.load() + oom.load(), 8);
    EXPECT_NO_THROW(primitive{primitive_desc(d)});
}

// W^X holds at every moment, not only at the end: sample the maps while threads generate.
TEST(wx, never_writable_and_executable_while_other_threads_generate) {
    std::atomic<bool> stop{false};
    std::atomic<int> made{0};
    std::vector<std::thread> gens;
    for (int t = 0; t < 2; ++t)
        gens.emplace_back([&, t] {
            for (int i = 0; !stop; ++i) {
                const op_desc d = problem_builder().src({1, 3, 5, 4 + t}).sizes({6, 1 + i % 97}).fmt(i % 2 ? data_format::ncx : data_format::nxc)
                                      .mode(i % 3 ? mode::linear : mode::nearest);
                create_kernel(make_problem(d), cpu_isa::avx2);
                ++made;
            }
        });
    int scans = 0;
    while (made < 400 || scans < 50) {
        std::ifstream maps("/proc/self/maps");
        std::string line;
        while (std::getline(maps, line)) {
            std::istringstream is(line);
            std::string range, perms;
            is >> range >> perms;
            ASSERT_FALSE(perms.size() >= 3 && perms[1] == 'w' && perms[2] == 'x') << "writable+executable: " << line;
        }
        ++scans;
    }
    stop = true;
    for (auto &t : gens) t.join();
    EXPECT_GE(made.load(), 400);
}

// src and dst end exactly at a PROT_NONE page, or start 1, 2, 4 or 8 bytes past one.
TEST(edges, every_mode_layout_dtype_rank_at_guard_pages_and_odd_starts) {
    if (const std::string why = xt::jit_tier_unavailable(); !why.empty()) GTEST_SKIP() << why;
    int runs = 0;
    for (int k = 1; k <= 3; ++k)
        for (auto f : {data_format::ncx, data_format::nxc})
            for (auto m : {mode::nearest, mode::linear})
                for (auto t : {data_type::f32, data_type::bf16, data_type::f16})
                    for (int place : {-1, 1, 2, 4, 8}) {  // -1: end at the guard
                        std::vector<int64_t> dims{1}, sizes;
                        if (f == data_format::ncx) dims.push_back(5);
                        for (int i = 0; i < k; ++i) dims.push_back(3 + 2 * i), sizes.push_back(7 - i);
                        if (f == data_format::nxc) dims.push_back(5);
                        const auto d = problem_builder().src(dims).sizes(sizes).fmt(f).mode(m).dt(t);
                        primitive_desc pd(d), rpd(d, impl_kind::reference);
                        const bool at_end = place < 0;
                        const size_t mis = at_end ? 0 : static_cast<size_t>(place);
                        xt::guarded_buffer src(pd.src_bytes(), at_end, mis), dst(pd.dst_bytes(), at_end, mis);
                        std::vector<uint8_t> ref(pd.dst_bytes());
                        xt::fill_random(t, src.data(), src.size() / xt::esize(t), ++runs);
                        primitive(pd).execute(src.data(), dst.data());
                        primitive(rpd).execute(src.data(), ref.data());
                        ASSERT_EQ(std::memcmp(dst.data(), ref.data(), ref.size()), 0)
                            << "k=" << k << " " << to_string(f) << " " << to_string(m) << " " << to_string(t) << " place=" << place;
                    }
    EXPECT_EQ(runs, 180);
}
