// The AVX-512 execution lane's test program, run under Bochs (tests/emu/lane.sh) and, where the
// host has AVX-512, natively by ctest at each AVX-512 tier: it checks the 512-bit kernels
// (avx512_core, and avx512_core_bf16 where the host has it) bit for bit against the reference
// over every mode x layout x dtype x rank, with tails at 15, 16, 17 and 33 channels or widths,
// at 1 and 2 threads. Self-contained (no gtest): the guest is a bare busybox. Exit 0 only if
// every case passes.
//
// Under Bochs, f16 mismatches that are Bochs 2.7's vcvtps2ph tie bug (bochs_f16.hpp) are
// counted and printed; every other difference fails the lane, and natively every difference.
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../guarded_buffer.hpp"
#include "bochs_f16.hpp"
#include "cpu_isa.hpp"
#include "numeric.hpp"
#include "xinterp/xinterp.hpp"

using namespace xinterp;

namespace {

int failures = 0, cases = 0, tie_bugs = 0;

// Finite random inputs in the dtype's encoding (f16 without subnormals or huge values).
void fill(data_type dt, uint8_t *p, size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-4.f, 4.f);
    for (size_t i = 0; i < n; ++i) {
        const float f = u(rng);
        if (dt == data_type::f32) std::memcpy(p + 4 * i, &f, 4);
        else {
            const uint16_t h = dt == data_type::bf16 ? f32_to_bf16(f) : f32_to_f16(f);
            std::memcpy(p + 2 * i, &h, 2);
        }
    }
}

void run_case(const op_desc &d, int threads, const std::string &what) {
    ++cases;
    std::printf("case %s\n", what.c_str());  // the last line before a crash names the case
    std::fflush(stdout);
    omp_set_num_threads(threads);
    primitive_desc pd(d), rpd(d, impl_kind::reference);
    if (pd.isa() < cpu_isa::avx512_core || pd.vector_bits() != 512) {
        std::printf("FAIL %s: dispatched to %s at %d bits, not a 512-bit AVX-512 kernel\n", what.c_str(), pd.impl_name().c_str(),
                    pd.vector_bits());
        ++failures;
        return;
    }
    const size_t es = d.dt == data_type::f32 ? 4 : 2;
    xt::guarded_buffer src(pd.src_bytes(), true), dst(pd.dst_bytes(), true);
    std::vector<uint8_t> ref(pd.dst_bytes());
    fill(d.dt, src.data(), src.size() / es, static_cast<uint32_t>(cases));
    primitive(pd).execute(src.data(), dst.data());
    primitive(rpd).execute(src.data(), ref.data());
    if (!std::memcmp(dst.data(), ref.data(), ref.size())) return;
    // f16 under Bochs (lane.sh sets XINTERP_TEST_BOCHS_F16_TIES): tell the emulator's tie bug
    // from a real difference. On real hardware every difference fails.
    static const bool bochs = std::getenv("XINTERP_TEST_BOCHS_F16_TIES") != nullptr;
    const std::vector<float> exact = bochs && d.dt == data_type::f16 ? xt::exact_f32_of_f16(d, src.data()) : std::vector<float>();
    int bad = 0, ties = 0;
    for (size_t i = 0; i < ref.size() / es; ++i) {
        if (!std::memcmp(dst.data() + i * es, ref.data() + i * es, es)) continue;
        if (!exact.empty() && d.mode != mode::nearest) {
            uint16_t got, want;
            std::memcpy(&got, dst.data() + 2 * i, 2);
            std::memcpy(&want, ref.data() + 2 * i, 2);
            if (xt::bochs_f16_tie(exact[i], got, want)) {
                ++ties;
                continue;
            }
        }
        if (bad++ < 3) std::printf("  %s: element %zu differs\n", what.c_str(), i);
    }
    tie_bugs += ties;
    if (ties) std::printf("NOTE %s: %d exact f16 ties rounded up (Bochs 2.7 vcvtps2ph bug), accepted\n", what.c_str(), ties);
    if (bad) {
        std::printf("FAIL %s: %d elements differ\n", what.c_str(), bad);
        ++failures;
    }
}

}  // namespace

int main(int argc, char **argv) {
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    // The 512-bit kernels, whatever this host would prefer (cpu_isa_hints; the 256-bit ones
    // are avx2's generators, which the JIT suites run at every tier's width).
    set_cpu_isa_hints(cpu_isa_hints::prefer_zmm);
    // --native: ctest's run on the build host (tests/emu/CMakeLists.txt), which may lack AVX-512.
    if (argc > 1 && std::string(argv[1]) == "--native" && get_effective_cpu_isa() < cpu_isa::avx512_core) {
        std::printf("SKIPPED: this host dispatches to %s, no AVX-512 tier (the emulator lane runs this sweep)\n",
                    cpu_isa_name(get_effective_cpu_isa()));
        return 0;
    }
    if (const char *cap = std::getenv("XINTERP_MAX_CPU_ISA"); cap && std::string(cap) == "avx512_core" &&
                                                              get_effective_cpu_isa() != cpu_isa::avx512_core) {
        std::printf("SKIPPED: XINTERP_MAX_CPU_ISA=avx512_core but this host dispatches to %s\n", cpu_isa_name(get_effective_cpu_isa()));
        return 0;
    }
    std::printf("emu_sweep: host avx512_core=%d avx512_core_bf16=%d, dispatch %s\n", host_has(cpu_isa::avx512_core),
                host_has(cpu_isa::avx512_core_bf16), cpu_isa_name(get_effective_cpu_isa()));
    const std::vector<int64_t> tails = quick ? std::vector<int64_t>{17} : std::vector<int64_t>{15, 16, 17, 33};
    for (int k = 1; k <= 3; ++k)
        for (auto f : {data_format::ncx, data_format::nxc})
            for (auto m : {mode::nearest, mode::linear})
                for (auto t : {data_type::f32, data_type::bf16, data_type::f16})
                    for (int64_t tail : tails)
                        for (int threads : {1, 2}) {
                            // The tail sits in C for NXC and in W (in and out) for NCX; the
                            // other spatial axes are small and odd so each case stays cheap.
                            const bool ncx = f == data_format::ncx;
                            std::vector<int64_t> dims{1}, sizes;
                            const int64_t c = ncx ? 3 : tail;
                            if (ncx) dims.push_back(c);
                            for (int i = 0; i < k; ++i) {
                                const bool w = i == k - 1;
                                dims.push_back(w ? (ncx ? tail : 5) : 3);
                                sizes.push_back(w ? (ncx ? tail + 2 * (tail % 3) + 1 : 7) : 4);
                            }
                            if (!ncx) dims.push_back(c);
                            op_desc d;
                            d.src_dims = dims;
                            d.sizes = sizes;
                            d.dt = t;
                            d.mode = m;
                            d.format = f;
                            d.coordinate_transformation = tail % 2 ? coordinate_transformation_mode::half_pixel
                                                                   : coordinate_transformation_mode::align_corners;
                            run_case(d, threads, std::to_string(k) + "d " + to_string(f) + " " + to_string(m) + " " +
                                                     to_string(t) + " tail " + std::to_string(tail) + " threads " +
                                                     std::to_string(threads));
                        }
    // NCX with trailing spatial axes of 1 -> 1 (the unit-axis views, src/jit_drivers.cpp): the
    // W pass along H (or D) with the unit step, zmm31 its zero; and every axis unit, as NXC.
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> units = {
        {{37, 1}, {9, 1}}, {{9, 1}, {37, 1}}, {{5, 17, 1}, {7, 3, 1}}, {{6, 1, 1}, {11, 1, 1}}, {{1, 1}, {1, 1}},
        // and flat volumes (jit_conf::flat; AVX-512: fused rows up to 6 columns, others 2, and
        // slices of up to 32 outputs in rows under 16: 4 and 27 here, the second rows on AVX2)
        {{37, 7}, {9, 1}}, {{41, 13}, {13, 5}}, {{9, 3}, {37, 2}}, {{41, 9, 5}, {16, 3, 1}},
        {{24, 4, 39}, {4, 1, 4}}, {{6, 6, 12}, {3, 3, 9}},
        // and W-planes of rows under 16 elements (one masked window each: jit_conf::short_window)
        {{23, 2}, {41, 3}}, {{3, 20, 6}, {5, 30, 8}},
        // and flat W-planes (jit_conf::flat_w; every dtype, 16-bit rows gathered in place; rows
        // of 16 elements or more, which no window serves)
        {{23, 40}, {41, 7}}, {{3, 20, 36}, {5, 30, 6}}};
    for (const auto &u : units)
        for (auto m : {mode::nearest, mode::linear})
            for (auto t : {data_type::f32, data_type::bf16, data_type::f16}) {
                op_desc d;
                d.src_dims = {2, 3};
                d.src_dims.insert(d.src_dims.end(), u.first.begin(), u.first.end());
                d.sizes = u.second;
                d.dt = t;
                d.mode = m;
                d.format = data_format::ncx;
                std::string what = std::string("unit axes / flat ") + to_string(m) + " " + to_string(t) + " ";
                for (auto x : u.first) what += std::to_string(x) + ",";
                run_case(d, 1, what);
            }
    std::printf("emu_sweep: %d cases, %d failed, %d f16 tie-bug elements accepted\n", cases, failures, tie_bugs);
    std::printf("%d passed, %d failed\n", cases - failures, failures);
    return failures ? 1 : 0;
}
