// The ISA tiers against each other on this host: each case's kernel for every JIT tier the
// host runs (avx2, avx512_core at 512 bits, avx512_core_bf16 at 256 and 512: cpu_isa_hints),
// alternating per repetition in one process, so drift hits every tier alike. A
// primitive_desc keeps the tier and width it was made under, so each one's primitive is made
// with set_max_cpu_isa and set_cpu_isa_hints at that flavor. Per-case medians, the ratio of
// each tier to the default dispatch's, and geometric means per tier.
//
// The suite's cases (every mode x layout x dtype), or with --sweep N that many random shapes
// (bench_sweep's, xbench::random_shape) x {nearest, linear} x {NCX, NXC} in --dtype (default
// f32 there), listing the --show K cases where the default tier loses the most to another.
// Each case first runs every tier untimed, alternating, for --warmup-ms (xbench::warm_up).
//
//   bench_isas [--threads N] [--reps N] [--warmup-ms N] [--filter SUBSTR] [--dtype f32|bf16|f16|all]
//              [--sweep N [--seed S] [--show K]]
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "cases.hpp"
#include "xinterp/xinterp.hpp"

using namespace xinterp;
using xbench::abuf;
using xbench::median;
using xbench::time_us;

namespace {

// A tier at one vector width (cpu_isa_hints): what a primitive_desc made under both gets.
struct flavor {
    cpu_isa tier;
    cpu_isa_hints hints;
    std::string name;
};

// Each flavor's median time for d (microseconds), in `tiers` order.
std::vector<double> time_tiers(const op_desc &d, const std::vector<flavor> &tiers, const xbench::run_flags &f) {
    const cpu_isa saved = get_max_cpu_isa();
    const cpu_isa_hints saved_hints = get_cpu_isa_hints();
    std::vector<std::unique_ptr<primitive>> prims;
    for (const flavor &t : tiers) {
        set_max_cpu_isa(t.tier);
        set_cpu_isa_hints(t.hints);
        prims.push_back(std::make_unique<primitive>(primitive_desc(d)));
    }
    set_max_cpu_isa(saved);
    set_cpu_isa_hints(saved_hints);
    const primitive_desc &pd0 = prims[0]->get_primitive_desc();
    abuf src(pd0.src_bytes());
    std::vector<std::unique_ptr<abuf>> dsts;
    for (size_t k = 0; k < tiers.size(); ++k) dsts.push_back(std::make_unique<abuf>(pd0.dst_bytes()));
    const int es = d.dt == data_type::f32 ? 4 : 2;
    xbench::fill_normal(es, d.dt == data_type::bf16, src.data(), src.size() / es);
    std::vector<std::vector<double>> t(tiers.size());
    auto round = [&](bool keep) {
        for (size_t k = 0; k < tiers.size(); ++k) {
            const double us = time_us([&] { prims[k]->execute(src.data(), dsts[k]->data()); });
            if (keep) t[k].push_back(us);
        }
    };
    xbench::warm_up(f.warmup_ms, [&] { round(false); });
    for (int r = 0; r < f.reps; ++r) round(true);
    std::vector<double> m;
    for (const auto &v : t) m.push_back(median(v));
    return m;
}

struct row {
    std::string what;
    std::vector<double> us;
    double worst;  // the default tier's time over the best other tier's
};

}  // namespace

int main(int argc, char **argv) {
    xbench::run_flags f(11);
    std::string dtype_sel;
    int sweep = 0, show = 15;
    unsigned seed = 7;
    for (int i = 1; i < argc; ++i) {
        if (f.parse(argc, argv, i)) continue;
        const std::string a = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (a == "--dtype") dtype_sel = next();
        else if (a == "--sweep") sweep = std::atoi(next().c_str());
        else if (a == "--seed") seed = static_cast<unsigned>(std::atoi(next().c_str()));
        else if (a == "--show") show = std::atoi(next().c_str());
        else {
            std::fprintf(stderr, "usage: bench_isas [--threads N] [--reps N] [--warmup-ms N] [--filter S] [--dtype f32|bf16|f16|all] "
                                 "[--sweep N [--seed S] [--show K]]\n");
            return 2;
        }
    }
    if (!f.valid() || sweep < 0 || show < 0) {
        std::fprintf(stderr, "bench_isas: --threads and --reps must be at least 1, --warmup-ms, --sweep and --show at least 0\n");
        return 2;
    }
    if (dtype_sel.empty()) dtype_sel = sweep ? "f32" : "all";
    auto name_of = [](cpu_isa t, int bits) { return std::string(cpu_isa_name(t)) + (t >= cpu_isa::avx512_core ? "/" + std::to_string(bits) : ""); };
    // The default: the dispatched tier under the hints as they are (automatic picks the width
    // per problem), the base of every ratio.
    const std::string dflt = std::string("default(") + cpu_isa_hints_name(get_cpu_isa_hints()) + ")";
    // The tiers this host runs, each AVX-512 tier at both widths (avx512_core at 256 bits is
    // avx2's code): a cap at a tier dispatches to it only where the host has it.
    std::vector<flavor> tiers;
    const cpu_isa saved = get_max_cpu_isa();
    const cpu_isa_hints saved_hints = get_cpu_isa_hints();
    const flavor all[] = {{cpu_isa::avx2, cpu_isa_hints::automatic, ""},
                          {cpu_isa::avx512_core, cpu_isa_hints::prefer_zmm, ""},
                          {cpu_isa::avx512_core_bf16, cpu_isa_hints::prefer_ymm, ""},
                          {cpu_isa::avx512_core_bf16, cpu_isa_hints::prefer_zmm, ""}};
    for (flavor t : all) {
        set_max_cpu_isa(t.tier);
        set_cpu_isa_hints(t.hints);
        if (get_effective_cpu_isa() != t.tier) continue;
        t.name = name_of(t.tier, get_effective_vector_bits());
        tiers.push_back(t);
    }
    set_max_cpu_isa(saved);
    set_cpu_isa_hints(saved_hints);
    if (tiers.size() < 2) {
        std::printf("SKIPPED: this host runs %zu JIT tier%s (default %s): nothing to compare\n", tiers.size(),
                    tiers.size() == 1 ? "" : "s", cpu_isa_name(get_effective_cpu_isa()));
        return 0;
    }
    const size_t di = tiers.size();
    tiers.push_back({saved, saved_hints, dflt});
    omp_set_num_threads(f.threads);
    std::printf("# threads=%d reps=%d warmup=%d ms; per-case medians in microseconds; ratio = tier / default (%s)\n", f.threads,
                f.reps, f.warmup_ms, dflt.c_str());
    if (sweep) std::printf("# %d random shapes (seed %u) x {nearest, linear} x {NCX, NXC}, %s\n", sweep, seed, dtype_sel.c_str());
    std::printf("%-10s %-7s %-3s %-4s", "case", "mode", "fmt", "dt");
    for (const flavor &t : tiers) std::printf(" %21s %6s", t.name.c_str(), "ratio");
    std::printf("\n");
    std::vector<row> rows;
    auto run_case = [&](const std::string &name, const xbench::shape_case &c, bool linear, bool ncx, data_type dt) {
        const op_desc d = xbench::make_desc(c, linear, ncx, dt);
        row r{std::string(linear ? "linear " : "nearest ") + (ncx ? "NCX " : "NXC ") + to_string(dt) + " C=" + std::to_string(c.c) +
                  " " + xbench::dims_str(c.in) + " -> " + xbench::dims_str(c.out),
              time_tiers(d, tiers, f), 0};
        double best_other = 1e300;
        for (size_t k = 0; k < tiers.size(); ++k)
            if (k != di) best_other = std::min(best_other, r.us[k]);
        r.worst = r.us[di] / best_other;
        std::printf("%-10s %-7s %-3s %-4s", name.c_str(), linear ? "linear" : "nearest", ncx ? "NCX" : "NXC", to_string(dt));
        for (size_t k = 0; k < tiers.size(); ++k) std::printf(" %21.1f %6.2f", r.us[k], r.us[k] / r.us[di]);
        std::printf(sweep ? "  %s\n" : "\n", r.what.c_str());
        std::fflush(stdout);
        rows.push_back(r);
    };
    const std::vector<data_type> dts = {data_type::f32, data_type::bf16, data_type::f16};
    auto each_config = [&](const std::string &name, const xbench::shape_case &c) {
        for (data_type dt : dts) {
            if (dtype_sel != "all" && dtype_sel != to_string(dt)) continue;
            for (bool linear : {false, true})
                for (bool ncx : {true, false}) run_case(name, c, linear, ncx, dt);
        }
    };
    if (sweep) {
        std::mt19937 rng(seed);
        for (int s = 0; s < sweep; ++s) each_config("s" + std::to_string(s), xbench::random_shape(rng));
    } else {
        for (const auto &c : xbench::suite())
            if (!f.skips(c.name)) each_config(c.name, c);
    }
    for (size_t k = 0; k < tiers.size(); ++k) {
        double s = 0, mn = 1e30, mx = 0;
        for (const row &r : rows) {
            const double x = r.us[k] / r.us[di];
            s += std::log(x), mn = std::min(mn, x), mx = std::max(mx, x);
        }
        std::printf("# geomean %s / %s time: %.3f over %zu cases (%.2f-%.2f)\n", tiers[k].name.c_str(), dflt.c_str(),
                    std::exp(s / rows.size()), rows.size(), mn, mx);
    }
    if (sweep && show > 0) {
        std::sort(rows.begin(), rows.end(), [](const row &a, const row &b) { return a.worst > b.worst; });
        int slower = 0;
        for (const row &r : rows) slower += r.worst > 1.1;
        std::printf("# %d of %zu cases where %s takes over 1.1x another tier's time; the %d worst:\n", slower, rows.size(),
                    dflt.c_str(), std::min<int>(show, static_cast<int>(rows.size())));
        for (int i = 0; i < show && i < static_cast<int>(rows.size()); ++i) {
            std::printf("%6.2fx ", rows[static_cast<size_t>(i)].worst);
            for (size_t k = 0; k < tiers.size(); ++k) std::printf(" %s %.1f us", tiers[k].name.c_str(), rows[static_cast<size_t>(i)].us[k]);
            std::printf("  %s\n", rows[static_cast<size_t>(i)].what.c_str());
        }
    }
    return 0;
}
