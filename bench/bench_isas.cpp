// The ISA tiers against each other on this host: each suite case's kernel for every JIT tier
// the host runs (avx2, avx512_core, avx512_core_bf16), alternating per repetition in one
// process, so drift hits every tier alike. A primitive_desc keeps the tier it was made under,
// so each tier's primitive is made with set_max_cpu_isa at that tier. Per-case medians, the
// ratio of each tier to the default dispatch's, and geometric means per tier.
//
// Each case first runs every tier untimed, alternating, for --warmup-ms (xbench::warm_up).
//
//   bench_isas [--threads N] [--reps N] [--warmup-ms N] [--filter SUBSTR] [--dtype f32|bf16|f16|all]
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "cases.hpp"
#include "xinterp/xinterp.hpp"

using namespace xinterp;
using xbench::abuf;
using xbench::median;
using xbench::time_us;

int main(int argc, char **argv) {
    xbench::run_flags f(11);
    std::string dtype_sel = "all";
    for (int i = 1; i < argc; ++i) {
        if (f.parse(argc, argv, i)) continue;
        const std::string a = argv[i];
        if (a == "--dtype" && i + 1 < argc) dtype_sel = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_isas [--threads N] [--reps N] [--warmup-ms N] [--filter S] [--dtype f32|bf16|f16|all]\n");
            return 2;
        }
    }
    if (!f.valid()) {
        std::fprintf(stderr, "bench_isas: --threads and --reps must be at least 1, --warmup-ms at least 0\n");
        return 2;
    }
    const cpu_isa dflt = get_effective_cpu_isa();
    // The tiers this host runs: a cap at a tier dispatches to it only where the host has it.
    std::vector<cpu_isa> tiers;
    const cpu_isa saved = get_max_cpu_isa();
    for (cpu_isa t : {cpu_isa::avx2, cpu_isa::avx512_core, cpu_isa::avx512_core_bf16}) {
        set_max_cpu_isa(t);
        if (get_effective_cpu_isa() == t) tiers.push_back(t);
    }
    set_max_cpu_isa(saved);
    if (tiers.size() < 2) {
        std::printf("SKIPPED: this host runs %zu JIT tier%s (default %s): nothing to compare\n", tiers.size(),
                    tiers.size() == 1 ? "" : "s", cpu_isa_name(dflt));
        return 0;
    }
    omp_set_num_threads(f.threads);
    std::printf("# threads=%d reps=%d warmup=%d ms; per-case medians in microseconds; ratio = tier / default (%s)\n", f.threads,
                f.reps, f.warmup_ms, cpu_isa_name(dflt));
    std::printf("%-10s %-7s %-3s %-4s", "case", "mode", "fmt", "dt");
    for (cpu_isa t : tiers) std::printf(" %17s %6s", cpu_isa_name(t), "ratio");
    std::printf("\n");
    std::map<cpu_isa, std::vector<double>> logs;
    for (const auto &c : xbench::suite()) {
        if (f.skips(c.name)) continue;
        for (data_type dt : {data_type::f32, data_type::bf16, data_type::f16}) {
            if (dtype_sel != "all" && dtype_sel != to_string(dt)) continue;
            for (bool linear : {false, true})
                for (bool ncx : {true, false}) {
                    const op_desc d = xbench::make_desc(c, linear, ncx, dt);
                    std::vector<std::unique_ptr<primitive>> prims;
                    for (cpu_isa t : tiers) {
                        set_max_cpu_isa(t);
                        prims.push_back(std::make_unique<primitive>(primitive_desc(d)));
                    }
                    set_max_cpu_isa(saved);
                    const primitive_desc &pd0 = prims[0]->get_primitive_desc();
                    abuf src(pd0.src_bytes());
                    std::vector<std::unique_ptr<abuf>> dsts;
                    for (size_t k = 0; k < tiers.size(); ++k) dsts.push_back(std::make_unique<abuf>(pd0.dst_bytes()));
                    const int es = dt == data_type::f32 ? 4 : 2;
                    xbench::fill_normal(es, dt == data_type::bf16, src.data(), src.size() / es);
                    std::vector<std::vector<double>> t(tiers.size());
                    auto round = [&](bool keep) {
                        for (size_t k = 0; k < tiers.size(); ++k) {
                            const double us = time_us([&] { prims[k]->execute(src.data(), dsts[k]->data()); });
                            if (keep) t[k].push_back(us);
                        }
                    };
                    xbench::warm_up(f.warmup_ms, [&] { round(false); });
                    for (int r = 0; r < f.reps; ++r) round(true);
                    size_t di = 0;
                    for (size_t k = 0; k < tiers.size(); ++k)
                        if (tiers[k] == dflt) di = k;
                    const double base = median(t[di]);
                    std::printf("%-10s %-7s %-3s %-4s", c.name.c_str(), linear ? "linear" : "nearest", ncx ? "NCX" : "NXC", to_string(dt));
                    for (size_t k = 0; k < tiers.size(); ++k) {
                        const double m = median(t[k]);
                        std::printf(" %17.1f %6.2f", m, m / base);
                        logs[tiers[k]].push_back(std::log(m / base));
                    }
                    std::printf("\n");
                    std::fflush(stdout);
                }
        }
    }
    for (const auto &[tier, v] : logs) {
        double s = 0, mn = 1e30, mx = 0;
        for (double x : v) s += x, mn = std::min(mn, std::exp(x)), mx = std::max(mx, std::exp(x));
        std::printf("# geomean %s / %s time: %.3f over %zu cases (%.2f-%.2f)\n", cpu_isa_name(tier), cpu_isa_name(dflt),
                    std::exp(s / v.size()), v.size(), mn, mx);
    }
    return 0;
}
