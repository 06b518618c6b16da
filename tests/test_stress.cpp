// Concurrency stress (the TSan lane runs it): 8 threads create, execute and drop primitives
// over 300 distinct descriptors with a kernel cache of 4 entries, so evictions race with
// creation and execution. Every result is checked against a precomputed reference.
#include <atomic>
#include <thread>

#include "test_util.hpp"

using namespace xinterp;
using xt::problem_builder;

TEST(stress, eight_threads_create_execute_drop_with_a_tiny_cache) {
    constexpr int kDescs = 300, kThreads = 8, kIters = 120;
    std::vector<op_desc> descs;
    std::vector<std::vector<uint8_t>> srcs, refs;
    for (int i = 0; i < kDescs; ++i) {
        const auto f = i % 2 ? data_format::ncx : data_format::nxc;
        const auto t = static_cast<data_type>(i % 3);
        const int64_t c = 1 + i % 11, w = 2 + i % 13;
        const op_desc d = problem_builder().src(f == data_format::ncx ? std::vector<int64_t>{1, c, 4, w} : std::vector<int64_t>{1, 4, w, c})
                              .sizes({3 + i % 5, 1 + i % 17}).fmt(f).mode(i % 4 < 2 ? mode::linear : mode::nearest).dt(t)
                              .ctm(i % 5 ? coordinate_transformation_mode::half_pixel : coordinate_transformation_mode::align_corners);
        primitive_desc rpd(d, impl_kind::reference);
        srcs.emplace_back(rpd.src_bytes());
        refs.emplace_back(rpd.dst_bytes());
        xt::fill_random(t, srcs.back().data(), srcs.back().size() / xt::esize(t), i);
        primitive(rpd).execute(srcs.back().data(), refs.back().data());
        descs.push_back(d);
    }
    clear_cache();
    set_cache_capacity(4);
    std::atomic<int> bad{0}, runs{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t)
        ts.emplace_back([&, t] {
            uint32_t x = 2654435761u * (t + 1);
            for (int it = 0; it < kIters; ++it) {
                x = x * 1664525u + 1013904223u;
                const int i = static_cast<int>(x % kDescs);
                primitive p{primitive_desc(descs[i])};
                std::vector<uint8_t> out(refs[i].size());
                p.execute(srcs[i].data(), out.data());
                if (out != refs[i]) ++bad;
                ++runs;
            }
        });
    for (auto &th : ts) th.join();
    const cache_stats s = get_cache_stats();
    set_cache_capacity(1024);
    EXPECT_EQ(bad.load(), 0);
    EXPECT_EQ(runs.load(), kThreads * kIters);
    EXPECT_LE(s.entries, 4u);
    EXPECT_GT(s.evictions, 100u) << "eviction must actually race with use";
}
