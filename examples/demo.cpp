// The README's first command runs this: create a primitive, execute it, check it against the
// reference, print timing and the head of the generated code.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <vector>

#include "xinterp/xinterp.hpp"

int main() {
    using namespace xinterp;
    op_desc d;
    d.src_dims = {1, 56, 56, 64};  // NXC: N, H, W, C
    d.dt = data_type::f32;
    d.mode = mode::bilinear;
    d.format = data_format::nxc;
    d.sizes = std::vector<int64_t>{112, 112};

    auto t0 = std::chrono::steady_clock::now();
    primitive_desc pd(d);
    primitive prim(pd);
    auto t1 = std::chrono::steady_clock::now();

    std::vector<float> src(pd.src_bytes() / 4), dst(pd.dst_bytes() / 4), ref(pd.dst_bytes() / 4);
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto &x : src) x = u(rng);

    prim.execute(src.data(), dst.data());  // warm-up
    auto t2 = std::chrono::steady_clock::now();
    const int iters = 50;
    for (int i = 0; i < iters; ++i) prim.execute(src.data(), dst.data());
    auto t3 = std::chrono::steady_clock::now();

    primitive_desc rpd(d, impl_kind::reference);
    primitive(rpd).execute(src.data(), ref.data());
    double maxdiff = 0;
    size_t bits_differ = 0;
    for (size_t i = 0; i < dst.size(); ++i) {
        maxdiff = std::max(maxdiff, (double)std::fabs(dst[i] - ref[i]));
        bits_differ += std::memcmp(&dst[i], &ref[i], 4) != 0;
    }
    using us = std::chrono::duration<double, std::micro>;
    std::printf("problem: f32 bilinear NXC 1x56x56x64 -> 1x112x112x64\n");
    std::printf("impl: %s  kernel: %s\n", pd.impl_name().c_str(), pd.kernel_name().c_str());
    std::printf("create: %.1f us (the first in the process: includes one-time CPU detection)   execute: %.1f us (mean of %d)\n",
                us(t1 - t0).count(), us(t3 - t2).count() / iters, iters);
    std::printf("max |jit - reference| = %g, elements whose bits differ: %zu of %zu\n", maxdiff, bits_differ, dst.size());
    std::istringstream asm_text(prim.dump_asm());
    std::string line;
    std::printf("--- generated code (head) ---\n");
    for (int i = 0; i < 24 && std::getline(asm_text, line); ++i) std::printf("%s\n", line.c_str());
    return bits_differ == 0 ? 0 : 1;
}
