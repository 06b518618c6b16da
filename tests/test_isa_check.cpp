// Static ISA check: generate a representative set of kernels per tier, disassemble them with
// Zydis, and check that every byte decodes and every instruction is in the tier's extensions.
// Needs no CPU support: kernels are generated, never executed, here.
#include <Zydis/Zydis.h>

#include <cstring>
#include <set>

#include "../jit/jit_conf.hpp"
#include "cpu_isa.hpp"
#include "kernel.hpp"
#include "test_util.hpp"

using namespace xinterp;
using xt::problem_builder;

namespace {

std::vector<op_desc> representative_set() {
    std::vector<op_desc> v;
    for (auto f : {data_format::ncx, data_format::nxc})
        for (auto m : {mode::nearest, mode::linear})
            for (auto t : {data_type::f32, data_type::bf16, data_type::f16})
                for (int k = 1; k <= 3; ++k)
                    for (int64_t c : {5, 8, 21}) {  // tails, exact vectors, vectors + tail
                        std::vector<int64_t> dims{2};
                        if (f == data_format::ncx) dims.push_back(3);
                        for (int i = 0; i < k; ++i) dims.push_back(i == k - 1 ? c : 4);
                        if (f == data_format::nxc) dims.push_back(c);
                        v.push_back(problem_builder().src(dims).sizes(std::vector<int64_t>(k, c + 2)).fmt(f).mode(m).dt(t));
                    }
    // NCX with trailing unit axes: the views' W pass takes the unit step (jit_conf::unit_w).
    for (auto t : {data_type::f32, data_type::bf16, data_type::f16})
        for (auto m : {mode::nearest, mode::linear}) {
            v.push_back(problem_builder().src({1, 3, 37, 1}).sizes({9, 1}).fmt(data_format::ncx).mode(m).dt(t));
            v.push_back(problem_builder().src({1, 3, 5, 17, 1}).sizes({7, 3, 1}).fmt(data_format::ncx).mode(m).dt(t));
        }
    // NCX linear flat volumes (jit_conf::flat), 2-D and 3-D.
    for (auto t : {data_type::f32, data_type::bf16, data_type::f16}) {
        v.push_back(problem_builder().src({1, 3, 37, 7}).sizes({9, 1}).fmt(data_format::ncx).mode(mode::linear).dt(t));
        v.push_back(problem_builder().src({1, 3, 41, 9, 5}).sizes({16, 3, 1}).fmt(data_format::ncx).mode(mode::linear).dt(t));
        v.push_back(problem_builder().src({1, 3, 23, 2}).sizes({41, 3}).fmt(data_format::ncx).mode(mode::linear).dt(t));  // flat_w
    }
    // 2x half_pixel NXC: the same-taps pairs and their runs (row_run).
    for (auto t : {data_type::f32, data_type::bf16, data_type::f16})
        v.push_back(problem_builder().src({1, 6, 5, 16}).sizes({12, 10}).fmt(data_format::nxc).mode(mode::linear).dt(t));
    // NCX nearest flat volumes (rows shorter than a vector, small slices): each lane's gather.
    for (auto t : {data_type::f32, data_type::bf16, data_type::f16})
        v.push_back(problem_builder().src({1, 3, 41, 10, 5}).sizes({13, 2, 1}).fmt(data_format::ncx).mode(mode::nearest).dt(t));
    // H downsampled from a src of 1 MiB or more: the plane kernels' prefetches of the next row's
    // src rows (jit_conf::prefetch_bytes), nearest and the fused linear H step.
    for (auto t : {data_type::f32, data_type::bf16, data_type::f16}) {
        v.push_back(problem_builder().src({1, 128, 64, 64}).sizes({16, 80}).fmt(data_format::ncx).mode(mode::nearest).dt(t));
        v.push_back(problem_builder().src({1, 32, 78, 376}).sizes({22, 705}).fmt(data_format::ncx).mode(mode::linear).dt(t));
    }
    // Long 1-D linear rows: computed taps (jit_conf::calc_first), in row mode and spans.
    for (auto t : {data_type::f32, data_type::bf16, data_type::f16})
        v.push_back(problem_builder().src({1, 1, 60000}).sizes({88211}).fmt(data_format::ncx).mode(mode::linear).dt(t));
    v.push_back(problem_builder().src({1, 60000, 2}).sizes({88211}).fmt(data_format::nxc).mode(mode::linear));  // flat rows, C = 2
    return v;
}

struct tier_rules {
    std::set<ZydisISAExt> allowed;
    bool evex, bf16;
};

// What each tier may contain: AVX2 is VEX only; AVX-512 tiers add EVEX (and VEX opmask ops);
// only avx512_core_bf16 may use AVX512-BF16; no tier uses AVX512-FP16 or AMX. At 256 bits
// (cpu_isa_hints) avx512_core is avx2's code, and avx512_core_bf16 adds only the EVEX ymm
// bf16 conversions (and the word permute that orders them).
tier_rules rules_for(kernel_isa isa) {
    tier_rules r;
    r.allowed = {ZYDIS_ISA_EXT_BASE, ZYDIS_ISA_EXT_LONGMODE, ZYDIS_ISA_EXT_AVX, ZYDIS_ISA_EXT_AVX2,
                 ZYDIS_ISA_EXT_AVX2GATHER, ZYDIS_ISA_EXT_FMA, ZYDIS_ISA_EXT_F16C};
    r.bf16 = isa.tier >= cpu_isa::avx512_core_bf16;
    r.evex = isa.tier >= cpu_isa::avx512_core && (!isa.ymm || r.bf16);
    if (r.evex) r.allowed.insert({ZYDIS_ISA_EXT_AVX512EVEX, ZYDIS_ISA_EXT_AVX512VEX});
    return r;
}

bool names(ZydisISASet set, const char *what) {
    const char *n = ZydisISASetGetString(set);
    return n && std::strstr(n, what);
}

}  // namespace

namespace xinterp {
void PrintTo(const kernel_isa &k, std::ostream *os) { *os << cpu_isa_name(k.tier) << "/" << k.vector_bits(); }
}  // namespace xinterp

class isa_check : public ::testing::TestWithParam<kernel_isa> {};

TEST_P(isa_check, every_byte_decodes_and_only_tier_extensions_appear) {
    const kernel_isa isa = GetParam();
    if (kernel_isa_for(isa.tier) != isa.tier)
        GTEST_SKIP() << cpu_isa_name(isa.tier) << ": no kernels of its own; it runs the "
                     << cpu_isa_name(kernel_isa_for(isa.tier)) << " kernels, checked in that tier's case";
    const tier_rules rules = rules_for(isa);
    size_t kernels = 0, insns = 0, bf16_insns = 0;
    // Every dst counts as NT-sized, so the NT variants and the stream copy are generated and
    // checked too (create_kernel does not cache: nothing outlives the scope).
    struct nt_everywhere {
        nt_everywhere() { set_nt_min_bytes_for_testing(1); }
        ~nt_everywhere() { set_nt_min_bytes_for_testing(0); }
    } nt;
    size_t nt_parts = 0, prefetches = 0, divides = 0;
    for (int spelling : {0, 1})  // both gather spellings of the pass engine
    for (const op_desc &d : representative_set()) {
        set_gather_spelling_for_testing(spelling);
        const auto k = create_kernel(make_problem(d), isa);
        set_gather_spelling_for_testing(-1);
        ASSERT_NE(k->code(), nullptr);
        EXPECT_EQ(k->parts().size(), k->generated_functions()) << k->name() << ": a generated function missing from parts()";
        ++kernels;
        for (const auto &pt : k->parts()) {
            nt_parts += pt.role.find("_nt") != std::string::npos || pt.role == "row_stream";
            size_t off = 0;
            while (off < pt.text) {
                ZydisDisassembledInstruction in;
                ASSERT_TRUE(ZYAN_SUCCESS(ZydisDisassembleIntel(ZYDIS_MACHINE_MODE_LONG_64, 0, pt.code + off, pt.text - off, &in)))
                    << k->name() << "." << pt.role << ": byte " << off << " does not decode";
                // prefetcht0 (jit_conf::prefetch_bytes) is SSE by Zydis's reckoning, but every x86-64
                // CPU has it and it touches no vector register, so no AVX-SSE transition either.
                const bool prefetch = in.info.mnemonic == ZYDIS_MNEMONIC_PREFETCHT0;
                prefetches += prefetch;
                divides += in.info.mnemonic == ZYDIS_MNEMONIC_VDIVPS;
                EXPECT_TRUE(prefetch || rules.allowed.count(in.info.meta.isa_ext))
                    << k->name() << ": '" << in.text << "' is outside " << cpu_isa_name(isa.tier);
                if (isa.vector_bits() == 256) {
                    EXPECT_EQ(std::strstr(in.text, "zmm"), nullptr) << k->name() << ": '" << in.text << "' in a 256-bit kernel";
                }
                if (!rules.bf16) {
                    EXPECT_FALSE(names(in.info.meta.isa_set, "BF16")) << k->name() << ": '" << in.text << "' needs AVX512-BF16";
                }
                EXPECT_FALSE(names(in.info.meta.isa_set, "FP16")) << k->name() << ": '" << in.text << "' needs AVX512-FP16";
                EXPECT_FALSE(names(in.info.meta.isa_set, "AMX")) << k->name() << ": '" << in.text << "' is AMX";
                if (rules.bf16 && names(in.info.meta.isa_set, "BF16")) ++bf16_insns;
                if (!rules.evex) {
                    EXPECT_NE(in.info.encoding, ZYDIS_INSTRUCTION_ENCODING_EVEX) << k->name() << ": " << in.text;
                }
                // Legacy-encoded SIMD (SSE) next to VEX code would cost AVX-SSE transitions.
                const bool legacy_simd = !prefetch && in.info.encoding == ZYDIS_INSTRUCTION_ENCODING_LEGACY &&
                                         in.info.meta.isa_ext != ZYDIS_ISA_EXT_BASE && in.info.meta.isa_ext != ZYDIS_ISA_EXT_LONGMODE;
                EXPECT_FALSE(legacy_simd) << k->name() << ": legacy SSE '" << in.text << "'";
                off += in.info.length;
                ++insns;
            }
            ASSERT_EQ(off, pt.text) << k->name() << "." << pt.role << ": the last instruction runs past the code";
        }
    }
    RecordProperty("kernels", static_cast<int>(kernels));
    RecordProperty("instructions", static_cast<int>(insns));
    EXPECT_EQ(kernels, 2 * 145u);
    EXPECT_GT(nt_parts, 0u);
    EXPECT_GT(prefetches, 0u) << "the plane kernels' row prefetches were not generated";
    EXPECT_GT(divides, 0u) << "the computed taps (long 1-D rows) were not generated";
    if (rules.bf16) {
        EXPECT_GT(bf16_insns, 0u) << "the bf16 tier must actually use vcvtneps2bf16";
    }
}

// Every tier at its own width, and the AVX-512 tiers with kernels of their own at 256 bits too.
std::vector<kernel_isa> checked_isas() {
    std::vector<kernel_isa> v(std::begin(kAllIsas), std::end(kAllIsas));
    v.emplace_back(cpu_isa::avx512_core, true);
    v.emplace_back(cpu_isa::avx512_core_bf16, true);
    return v;
}

INSTANTIATE_TEST_SUITE_P(tiers, isa_check, ::testing::ValuesIn(checked_isas()), [](const ::testing::TestParamInfo<kernel_isa> &i) {
    return std::string(cpu_isa_name(i.param.tier)) + (i.param.ymm ? "_ymm" : "");
});
