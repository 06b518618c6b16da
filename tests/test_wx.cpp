// W^X: no mapping in the process is ever writable and executable at once; kernel code is r-x.
#include <fstream>
#include <sstream>

#include "cache.hpp"
#include "test_util.hpp"

using namespace xinterp;
using xt::problem_builder;

namespace {
// Lines of /proc/self/maps whose permissions have both 'w' and 'x'.
std::vector<std::string> wx_mappings() {
    std::ifstream maps("/proc/self/maps");
    std::vector<std::string> bad;
    std::string line;
    while (std::getline(maps, line)) {
        std::istringstream is(line);
        std::string range, perms;
        is >> range >> perms;
        if (perms.size() >= 3 && perms[1] == 'w' && perms[2] == 'x') bad.push_back(line);
    }
    return bad;
}

std::string perms_of(const void *p) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    const auto a = reinterpret_cast<uintptr_t>(p);
    while (std::getline(maps, line)) {
        uintptr_t lo = 0, hi = 0;
        char perms[5] = {};
        if (std::sscanf(line.c_str(), "%lx-%lx %4s", &lo, &hi, perms) == 3 && lo <= a && a < hi) return perms;
    }
    return "";
}
}  // namespace

TEST(wx, no_mapping_is_writable_and_executable_after_many_kernels) {
    std::vector<std::shared_ptr<const kernel>> keep;
    int n = 0;
    for (auto f : {data_format::ncx, data_format::nxc})
        for (auto m : {mode::nearest, mode::linear})
            for (auto t : {data_type::f32, data_type::bf16, data_type::f16})
                for (int w = 1; w <= 12; ++w) {
                    const op_desc d = problem_builder().src(f == data_format::ncx ? std::vector<int64_t>{1, 3, 4, 5}
                                                                                  : std::vector<int64_t>{1, 4, 5, 3})
                                          .sizes({6, w}).fmt(f).mode(m).dt(t);
                    keep.push_back(create_kernel(make_problem(d), cpu_isa::avx2));
                    ++n;
                }
    EXPECT_EQ(n, 144);
    const auto bad = wx_mappings();
    EXPECT_TRUE(bad.empty()) << "writable+executable mapping: " << bad.front();
    for (const auto &k : keep)
        for (const auto &pt : k->parts()) ASSERT_EQ(perms_of(pt.code).substr(0, 3), "r-x") << k->name() << "." << pt.role;
}

TEST(wx, the_check_can_fail) {
    // A deliberately RWX page must be reported, so the test above is meaningful.
    void *p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) GTEST_SKIP() << "this kernel refuses RWX mappings, so none can exist";
    EXPECT_FALSE(wx_mappings().empty());
    munmap(p, 4096);
}
