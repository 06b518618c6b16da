// Random shapes against oneDNN, same process, alternating: the suite's shapes are the ones we
// tuned for, so this looks for the ones we did not. Per shape (1-3 spatial dims, C 1-299, src
// dims up to 4000 / 400 / 64 per axis by rank, each axis scaled by 0.1-8x, 4 KB to 48 MB of
// src + dst) every mode x layout in f32 (or --dtype bf16, where oneDNN takes it: AVX512-BF16
// hosts), each case's median ratio (oneDNN time / xinterp time), then the geometric mean, the
// count below 1 and the slowest cases. A fixed seed picks the shapes, so a run is reproducible
// up to the VM's noise.
//   bench_sweep [--shapes N] [--seed S] [--threads N] [--reps N] [--warmup-ms N] [--show K]
//               [--dtype f32|bf16]
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "cases.hpp"
#include "dnnl_peer.hpp"
#include "xinterp/xinterp.hpp"

using namespace xinterp;

namespace {

struct result {
    double ratio, x_us, d_us;
    std::string what;
};

}  // namespace

int main(int argc, char **argv) {
    xbench::run_flags f(9);
    f.warmup_ms = 20;
    int shapes = 150, show = 12;
    unsigned seed = 7;
    std::string one, dtype = "f32";
    for (int i = 1; i < argc; ++i) {
        if (f.parse(argc, argv, i)) continue;
        const std::string a = argv[i];
        auto next = [&] { return i + 1 < argc ? std::atoi(argv[++i]) : -1; };
        if (a == "--shapes") shapes = next();
        else if (a == "--seed") seed = static_cast<unsigned>(next());
        else if (a == "--show") show = next();
        else if (a == "--shape" && i + 1 < argc) one = argv[++i];
        else if (a == "--dtype" && i + 1 < argc) dtype = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_sweep [--shapes N] [--seed S] [--shape C=c,AxB..,AxB..] [--threads N] [--reps N] [--warmup-ms N] [--show K] [--dtype f32|bf16]\n");
            return 2;
        }
    }
    if (dtype != "f32" && dtype != "bf16") {
        std::fprintf(stderr, "bench_sweep: --dtype '%s' is not f32 or bf16 (oneDNN has no f16 resampling to compare with)\n", dtype.c_str());
        return 2;
    }
    const data_type dt = dtype == "bf16" ? data_type::bf16 : data_type::f32;
    if (!f.valid() || shapes < 1 || show < 0) {
        std::fprintf(stderr, "bench_sweep: --shapes, --threads and --reps must be at least 1, --warmup-ms and --show at least 0\n");
        return 2;
    }
    xbench::shape_case only;
    if (!one.empty()) {
        if (!xbench::parse_shape(one, only)) {
            std::fprintf(stderr, "bench_sweep: --shape '%s' is not C=c,src dims,dst dims (as C=212,35x33x24,5x49x14: 1-3 dims each, all >= 1)\n", one.c_str());
            return 2;
        }
        shapes = 1;
    }
#ifndef XINTERP_HAVE_DNNL
    std::printf("# bench_sweep: SKIPPED, oneDNN peer not built (libdnnl-dev was not found at configure time)\n");
    return 0;
#else
    omp_set_num_threads(f.threads);
    if (one.empty()) std::printf("# %d random shapes (seed %u) x {nearest, linear} x {NCX, NXC}, %s, threads=%d reps=%d warmup=%d ms;\n"
                "# ratio = oneDNN time / xinterp time (medians)\n",
                shapes, seed, dtype.c_str(), f.threads, f.reps, f.warmup_ms);
    else std::printf("# one shape x {nearest, linear} x {NCX, NXC}, %s, threads=%d reps=%d warmup=%d ms;\n"
                     "# ratio = oneDNN time / xinterp time (medians)\n", dtype.c_str(), f.threads, f.reps, f.warmup_ms);
    std::mt19937 rng(seed);
    std::vector<result> all;
    for (int made = 0; made < shapes; ++made) {
        const xbench::shape_case c = one.empty() ? xbench::random_shape(rng) : only;
        for (bool linear : {false, true})
            for (bool ncx : {true, false}) {
                const op_desc d = xbench::make_desc(c, linear, ncx, dt);
                primitive_desc pd(d);
                primitive prim(pd);
                xbench::abuf src(pd.src_bytes()), dst(pd.dst_bytes()), dst2(pd.dst_bytes());
                const int es = dt == data_type::f32 ? 4 : 2;
                xbench::fill_normal(es, dt == data_type::bf16, src.data(), src.size() / es);
                xbench::dnnl_peer peer(c, ncx, linear, dt, src.data(), dst2.data());
                if (!peer.ok) continue;
                std::vector<double> tx, td;
                auto round = [&](bool keep) {
                    const double a = xbench::time_us([&] { prim.execute(src.data(), dst.data()); });
                    const double b = xbench::time_us([&] { peer.run(); });
                    if (keep) tx.push_back(a), td.push_back(b);
                };
                xbench::warm_up(f.warmup_ms, [&] { round(false); });
                for (int r = 0; r < f.reps; ++r) round(true);
                const double x = xbench::median(tx), o = xbench::median(td);
                all.push_back({o / x, x, o,
                               std::string(linear ? "linear " : "nearest ") + (ncx ? "NCX " : "NXC ") + "C=" + std::to_string(c.c) +
                                   " " + xbench::dims_str(c.in) + " -> " + xbench::dims_str(c.out) + "  " + pd.kernel_name()});
            }
    }
    if (all.empty()) {
        std::printf("# bench_sweep: SKIPPED, oneDNN took none of the %s cases on this CPU\n", dtype.c_str());
        return 0;
    }
    double logs = 0;
    int below = 0;
    for (const auto &r : all) logs += std::log(r.ratio), below += r.ratio < 1.0;
    std::sort(all.begin(), all.end(), [](const result &a, const result &b) { return a.ratio < b.ratio; });
    std::printf("# geomean oneDNN/xinterp: %.2fx over %zu cases; %d below 1.0x; median %.2fx\n", std::exp(logs / all.size()),
                all.size(), below, all[all.size() / 2].ratio);
    std::printf("# the %d slowest against oneDNN:\n", std::min<int>(show, static_cast<int>(all.size())));
    for (int i = 0; i < show && i < static_cast<int>(all.size()); ++i)
        std::printf("%6.2fx  xinterp %9.1f us  oneDNN %9.1f us  %s\n", all[i].ratio, all[i].x_us, all[i].d_us, all[i].what.c_str());
    return 0;
#endif
}
