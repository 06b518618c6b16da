// The xinterp command-line tool: run, asm, bench, info. Exit 0 on success, 2 on invalid arguments
// (one "xinterp: error:" line on stderr), 1 on any other failure.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "args.hpp"
#include "cpu_isa.hpp"
#include "dump.hpp"
#include "../jit/jit_conf.hpp"
#include "kernel.hpp"
#include "npy.hpp"
#include "synthetic.hpp"
#include "xinterp/xinterp.hpp"

using namespace xinterp;
using namespace xinterp::cli;

namespace {

const char *kUsage =
    "usage: xinterp <command> [flags]\n"
    "commands:\n"
    "  run    resample an .npy file            (xinterp run --help)\n"
    "  asm    print a kernel's generated code  (xinterp asm --help)\n"
    "  bench  time a problem on synthetic data (xinterp bench --help)\n"
    "  info   version, CPU features, ISA ladder and kernel cache\n";

int cmd_run(int argc, char **argv) {
    std::vector<std::string> known = kProblemFlags;
    known.insert(known.end(), {"--src", "--dst"});
    const parsed_args a = parse_flags(argc, argv, 2, known);
    if (a.help) {
        std::printf("usage: xinterp run --src IN.npy --dst OUT.npy --mode MODE (--sizes ..|--scales ..) [flags]\n%s"
                    "  .npy float32 is f32, float16 is f16; bf16 is uint16 bit patterns with --dtype bf16.\n"
                    "  The output uses the same convention.\n",
                    kProblemFlagsHelp);
        return 0;
    }
    if (!a.has("--src")) throw usage_error("--src is required");
    if (!a.has("--dst")) throw usage_error("--dst is required");
    op_desc d;
    fill_problem_flags(a, d);
    npy_array in;
    try {
        in = npy_load(a.get("--src"));
    } catch (const std::runtime_error &e) {
        throw usage_error(std::string("--src ") + e.what());
    }
    const std::string dflt = in.descr == "<f4" ? "f32" : in.descr == "<f2" ? "f16" : "";
    if (!a.has("--dtype") && dflt.empty())
        throw usage_error("--src holds uint16 data; pass --dtype bf16 to read it as bf16 bit patterns");
    d.dt = parse_dtype(a.get("--dtype", dflt));
    const char *want = d.dt == data_type::f32 ? "<f4" : d.dt == data_type::f16 ? "<f2" : "<u2";
    if (in.descr != want)
        throw usage_error(std::string("--dtype ") + to_string(d.dt) + " does not match --src dtype '" + in.descr + "'");
    d.src_dims = in.shape;
    primitive_desc pd(d, parse_impl(a.get("--impl", "auto")));
    primitive prim(pd);
    npy_array out;
    out.descr = in.descr;
    out.shape = pd.dst_dims();
    out.data.resize(pd.dst_bytes());
    prim.execute(in.data.data(), out.data.data());
    npy_save(a.get("--dst"), out);
    return 0;
}

// asm and bench: the problem comes from flags alone (--src-shape instead of an .npy).
op_desc problem_from_shape_flags(const parsed_args &a) {
    if (!a.has("--src-shape")) throw usage_error("--src-shape is required");
    op_desc d;
    fill_problem_flags(a, d);
    d.dt = parse_dtype(a.get("--dtype", "f32"));
    d.src_dims = parse_int_list("--src-shape", a.get("--src-shape"));
    return d;
}

int cmd_asm(int argc, char **argv) {
    std::vector<std::string> known = kProblemFlags;
    known.insert(known.end(), {"--src-shape", "--isa", "--vector-bits"});
    const parsed_args a = parse_flags(argc, argv, 2, known);
    if (a.help) {
        std::printf("usage: xinterp asm --src-shape N,C,.. --mode MODE (--sizes ..|--scales ..) [flags]\n%s"
                    "  --src-shape DIMS   the src dims in --data-format order (no data is needed)\n"
                    "  --isa TIER         generate for this tier whatever the host CPU: avx2, avx512_core,\n"
                    "                     avx512_core_bf16, avx512_core_fp16, avx512_core_amx (never executed)\n"
                    "  --vector-bits N    with an AVX-512 --isa: 256 (the 256-bit generators) or 512\n"
                    "                     (default: XINTERP_CPU_ISA_HINTS, else this host's preference)\n"
                    "Prints the kernel's Intel-syntax listing. Without --isa: the tier execute would use\n"
                    "(XINTERP_MAX_CPU_ISA caps it, XINTERP_CPU_ISA_HINTS picks the AVX-512 tiers' width).\n",
                    kProblemFlagsHelp);
        return 0;
    }
    const op_desc d = problem_from_shape_flags(a);
    if (a.has("--isa")) {
        cpu_isa tier;
        try {
            tier = cpu_isa_from_name(a.get("--isa"));
        } catch (const error &) {
            throw usage_error("--isa has unknown value '" + a.get("--isa") +
                              "'; expected avx2, avx512_core, avx512_core_bf16, avx512_core_fp16 or avx512_core_amx");
        }
        const cpu_isa k = kernel_isa_for(tier);
        if (k == cpu_isa::none) throw usage_error("--isa " + a.get("--isa") + " has no kernels");
        primitive_desc pd(d);  // validates the problem
        bool ymm = avx512_prefers_ymm(pd.get_problem().get());  // the hints, per problem where automatic
        if (a.has("--vector-bits")) {
            const std::string bits = a.get("--vector-bits");
            if (bits != "256" && bits != "512") throw usage_error("--vector-bits has unknown value '" + bits + "'; expected 256 or 512");
            if (k < cpu_isa::avx512_core && bits == "512")
                throw usage_error("--vector-bits 512 needs an AVX-512 --isa; " + a.get("--isa") + " is 256-bit");
            ymm = bits == "256";
        }
        std::string why;
        const kernel_isa code(k, ymm);
        if (!jit_supports(*pd.get_problem(), code, &why)) throw error(status::unimplemented, "--isa " + a.get("--isa") + ": " + why);
        if (k != tier) std::printf("; %s has no kernels of its own: it runs the %s kernels\n", cpu_isa_name(tier), cpu_isa_name(k));
        std::fputs(disassemble(*create_kernel(*pd.get_problem(), code)).c_str(), stdout);
        return 0;
    }
    if (a.has("--vector-bits")) throw usage_error("--vector-bits needs --isa (without it, XINTERP_CPU_ISA_HINTS picks the width)");
    primitive_desc pd(d, parse_impl(a.get("--impl", "auto")));
    primitive prim(pd);
    std::fputs(prim.dump_asm().c_str(), stdout);
    return 0;
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int cmd_bench(int argc, char **argv) {
    std::vector<std::string> known = kProblemFlags;
    known.insert(known.end(), {"--src-shape", "--threads", "--iters", "--warmup-ms"});
    const parsed_args a = parse_flags(argc, argv, 2, known, {"--json"});
    if (a.help) {
        std::printf("usage: xinterp bench --src-shape N,C,.. --mode MODE (--sizes ..|--scales ..) [flags]\n%s"
                    "  --src-shape DIMS   the src dims in --data-format order\n"
                    "  --threads N        OpenMP threads (default: OMP_NUM_THREADS or all cores)\n"
                    "  --iters N          timed executions (default 50)\n"
                    "  --warmup-ms N      untimed executions first, for N ms and at least one (default 50):\n"
                    "                     a few-MiB buffer takes some runs to reach its steady-state speed\n"
                    "  --json             end with one line of JSON: kernel, impl, median_us, min_us, max_us,\n"
                    "                     iters, warmup_ms, src_bytes, dst_bytes, threads, create_us, cache_hit_us\n"
                    "create_us is the median cold creation (cache miss, tables + JIT); cache_hit_us the median\n"
                    "creation that hits the kernel cache. Data: synthetic normal values (no subnormals).\n",
                    kProblemFlagsHelp);
        return 0;
    }
    const op_desc d = problem_from_shape_flags(a);
    const impl_kind impl = parse_impl(a.get("--impl", "auto"));
    const int iters = static_cast<int>(parse_int_list("--iters", a.get("--iters", "50"))[0]);
    if (iters < 1) throw usage_error("--iters must be >= 1");
    const int64_t warmup_ms = parse_int_list("--warmup-ms", a.get("--warmup-ms", "50"))[0];
    if (warmup_ms < 0 || warmup_ms > 600000)
        throw usage_error("--warmup-ms has invalid value " + std::to_string(warmup_ms) + "; expected 0..600000");
    if (a.has("--threads")) {
        const int64_t t = parse_int_list("--threads", a.get("--threads"))[0];
        if (t < 1 || t > 1024) throw usage_error("--threads has invalid value " + std::to_string(t) + "; expected 1..1024");
        omp_set_num_threads(static_cast<int>(t));
    }
    using clk = std::chrono::steady_clock;
    auto us = [](clk::time_point a0, clk::time_point b0) { return std::chrono::duration<double, std::micro>(b0 - a0).count(); };
    // Creation: cold (every request misses: the cache is cleared) and cache hits.
    { primitive warm(primitive_desc(d, impl)); }  // one-time process setup is not creation
    std::vector<double> cold, hit;
    for (int i = 0; i < 21; ++i) {
        clear_cache();
        const auto t0 = clk::now();
        primitive p(primitive_desc(d, impl));
        cold.push_back(us(t0, clk::now()));
    }
    for (int i = 0; i < 21; ++i) {
        const auto t0 = clk::now();
        primitive p(primitive_desc(d, impl));
        hit.push_back(us(t0, clk::now()));
    }
    primitive_desc pd(d, impl);
    primitive prim(pd);
    std::vector<uint8_t> src(pd.src_bytes() + 64), dst(pd.dst_bytes() + 64);
    uint8_t *s = src.data() + (64 - reinterpret_cast<uintptr_t>(src.data()) % 64) % 64;  // 64-byte aligned
    uint8_t *o = dst.data() + (64 - reinterpret_cast<uintptr_t>(dst.data()) % 64) % 64;
    const int es = d.dt == data_type::f32 ? 4 : 2;
    fill_normal(es, d.dt == data_type::bf16, s, pd.src_bytes() / es);
    // On the dev VM a dst of a few MiB took ~10 runs to settle (120 -> 76 us); one untimed run
    // left a 15-run median in that ramp.
    const auto warm_end = clk::now() + std::chrono::milliseconds(warmup_ms);
    do prim.execute(s, o);
    while (clk::now() < warm_end);
    std::vector<double> t;
    for (int i = 0; i < iters; ++i) {
        const auto t0 = clk::now();
        prim.execute(s, o);
        t.push_back(us(t0, clk::now()));
    }
    const double med = median_of(t);
    const double mn = *std::min_element(t.begin(), t.end()), mx = *std::max_element(t.begin(), t.end());
    const int threads = omp_get_max_threads();
    std::printf("%s  %s  median %.1f us (min %.1f, max %.1f, %d iters, %d threads)  %.2f GB/s  create %.1f us cold, %.2f us hit\n",
                pd.kernel_name().c_str(), pd.impl_name().c_str(), med, mn, mx, iters, threads,
                (pd.src_bytes() + pd.dst_bytes()) / (med * 1e3), median_of(cold), median_of(hit));
    if (a.has("--json"))
        std::printf("{\"kernel\":\"%s\",\"impl\":\"%s\",\"median_us\":%.3f,\"min_us\":%.3f,\"max_us\":%.3f,\"iters\":%d,"
                    "\"warmup_ms\":%lld,\"src_bytes\":%zu,\"dst_bytes\":%zu,\"threads\":%d,\"create_us\":%.3f,\"cache_hit_us\":%.3f}\n",
                    pd.kernel_name().c_str(), pd.impl_name().c_str(), med, mn, mx, iters, static_cast<long long>(warmup_ms),
                    pd.src_bytes(), pd.dst_bytes(), threads, median_of(cold), median_of(hit));
    return 0;
}

int cmd_info(int argc, char **argv) {
    const parsed_args a = parse_flags(argc, argv, 2, {});
    if (a.help) {
        std::printf("usage: xinterp info\nPrints the version, CPU features, the ISA ladder and the kernel cache state.\n");
        return 0;
    }
    const cpu_features &f = host_features();
    std::printf("xinterp %s\n", version());
    std::printf("cpu: %s\n", f.brand.empty() ? "(unknown)" : f.brand.c_str());
    std::printf("features: avx=%d avx2=%d fma=%d f16c=%d avx512f=%d avx512bw=%d avx512vl=%d avx512dq=%d "
                "avx512_bf16=%d avx512_fp16=%d amx_tile=%d amx_bf16=%d\n",
                f.avx, f.avx2, f.fma, f.f16c, f.avx512f, f.avx512bw, f.avx512vl, f.avx512dq, f.avx512_bf16,
                f.avx512_fp16, f.amx_tile, f.amx_bf16);
    std::printf("os state (xcr0=0x%llx): ymm=%d zmm=%d amx=%d amx_permitted=%d\n", f.xcr0, f.os_ymm, f.os_zmm, f.os_amx,
                f.amx_permitted);
    std::printf("last-level cache: %lld KiB shared by %d, %lld KiB counted on (one thread: %lld); non-temporal stores "
                "for dst >= %zu bytes on 1 thread, >= %zu on more (XINTERP_NT_MIN_BYTES)%s\n",
                static_cast<long long>(f.llc_bytes >> 10), f.llc_sharers, static_cast<long long>(usable_llc_bytes() >> 10),
                static_cast<long long>(one_thread_llc_bytes() >> 10), nt_min_bytes(1), nt_min_bytes(2),
                std::getenv("XINTERP_NT_MIN_BYTES") ? "" : "; on 1 thread also from 4 MiB where src + dst >= the LLC counted on");
    std::printf("max cpu isa cap: %s\n", cpu_isa_name(get_max_cpu_isa()));
    std::printf("isa ladder:\n%s", isa_ladder_report().c_str());
    const cpu_isa chosen = get_effective_cpu_isa();
    std::printf("impl for --impl auto: %s\n",
                chosen == cpu_isa::none ? "ref" : (std::string("jit:") + cpu_isa_name(chosen)).c_str());
    const bool per_problem = width_per_problem() && chosen >= cpu_isa::avx512_core;
    std::printf("cpu isa hints: %s (XINTERP_CPU_ISA_HINTS); AVX-512 on 256-bit units: %s; vectors for --impl auto: %d-bit%s\n",
                cpu_isa_hints_name(get_cpu_isa_hints()), avx512_on_256bit_units() ? "yes" : "no", get_effective_vector_bits(),
                per_problem ? (std::string(" (") + width_rule() + ")").c_str() : "");
    std::printf("gathers: %s (family %d model 0x%x; Linux's GDS verdict: %s)\n",
                f.slow_gathers ? "slow; the 256-bit kernels read by inserts" : "vgatherdps", f.family, f.model,
                f.gds.empty() ? "none" : f.gds.c_str());
    const cache_stats s = get_cache_stats();
    std::printf("kernel cache: capacity=%llu entries=%llu hits=%llu misses=%llu evictions=%llu\n",
                (unsigned long long)s.capacity, (unsigned long long)s.entries, (unsigned long long)s.hits,
                (unsigned long long)s.misses, (unsigned long long)s.evictions);
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::string cmd = argv[1];
    try {
        if (cmd == "run") return cmd_run(argc, argv);
        if (cmd == "asm") return cmd_asm(argc, argv);
        if (cmd == "info") return cmd_info(argc, argv);
        if (cmd == "bench") return cmd_bench(argc, argv);
        if (cmd == "--version") {
            std::printf("xinterp %s\n", version());
            return 0;
        }
        throw usage_error("unknown command '" + cmd + "'; expected run, asm, bench or info");
    } catch (const usage_error &e) {
        std::fprintf(stderr, "xinterp: error: %s\n", e.what());
        return 2;
    } catch (const error &e) {
        std::fprintf(stderr, "xinterp: error: %s\n", e.what());
        return e.get_status() == status::invalid_arguments ? 2 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "xinterp: error: %s\n", e.what());
        return 1;
    }
}
