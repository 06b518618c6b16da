// Same-process peer comparison: xinterp vs oneDNN's resampling (when built with libdnnl-dev)
// vs a memcpy of the dst bytes (the roofline row). Runs alternate per repetition, so drift on
// a shared VM hits every contender alike; per-case medians, ratios and geometric means.
//
// Each case first runs the three untimed, alternating, for --warmup-ms (xbench::warm_up).
//
//   bench_peers [--threads N] [--reps N] [--warmup-ms N] [--filter SUBSTR] [--dtype f32|bf16|f16|all] [--quick] [--list]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "cases.hpp"
#include "dnnl_peer.hpp"
#include "xinterp/xinterp.hpp"

using namespace xinterp;
using xbench::abuf;
using xbench::median;
using xbench::time_us;
#ifdef XINTERP_HAVE_DNNL
using xbench::dnnl_peer;
#endif

int main(int argc, char **argv) {
    xbench::run_flags f(11);
    std::string dtype_sel = "all";
    for (int i = 1; i < argc; ++i) {
        if (f.parse(argc, argv, i)) continue;
        const std::string a = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (a == "--dtype") dtype_sel = next();
        else if (a == "--quick") f.reps = 5;
        else if (a == "--list") {  // the suite, for bench/torch_peer.py: name n c in.. -> out..
            for (const auto &c : xbench::suite()) {
                std::printf("%s %lld %lld", c.name.c_str(), (long long)c.n, (long long)c.c);
                for (auto x : c.in) std::printf(" %lld", (long long)x);
                std::printf(" ->");
                for (auto x : c.out) std::printf(" %lld", (long long)x);
                std::printf("\n");
            }
            return 0;
        }
        else {
            std::fprintf(stderr, "usage: bench_peers [--threads N] [--reps N] [--warmup-ms N] [--filter S] [--dtype f32|bf16|f16|all] [--quick]\n");
            return 2;
        }
    }
    if (!f.valid()) {
        std::fprintf(stderr, "bench_peers: --threads and --reps must be at least 1, --warmup-ms at least 0\n");
        return 2;
    }
    const int threads = f.threads, reps = f.reps;
    omp_set_num_threads(threads);
#ifdef XINTERP_HAVE_DNNL
    const bool have_dnnl = true;
#else
    const bool have_dnnl = false;
    std::printf("# oneDNN peer: not built (libdnnl-dev was not found at configure time)\n");
#endif
    std::printf("# threads=%d reps=%d warmup=%d ms; times are per-case medians in microseconds; ratio = peer / xinterp\n", threads, reps,
                f.warmup_ms);
    std::printf("%-10s %-7s %-3s %-4s %10s %10s %7s %10s %7s %8s  %s\n", "case", "mode", "fmt", "dt", "xinterp", "onednn",
                "ratio", "memcpy", "x/mcpy", "GB/s", "kernel");
    std::map<std::string, std::vector<double>> logs;  // geomean groups
    for (const auto &c : xbench::suite()) {
        if (f.skips(c.name)) continue;
        for (data_type dt : {data_type::f32, data_type::bf16, data_type::f16}) {
            if (dtype_sel != "all" && dtype_sel != to_string(dt)) continue;
            for (bool linear : {false, true})
                for (bool ncx : {true, false}) {
                    const op_desc d = xbench::make_desc(c, linear, ncx, dt);
                    primitive_desc pd(d);
                    primitive prim(pd);
                    // Each contender writes its own dst, so each finds it as the two runs between
                    // its own left it (memcpy wrote oneDNN's dst just before oneDNN's run when
                    // they shared one, and xinterp's was two runs old).
                    abuf src(pd.src_bytes()), dst(pd.dst_bytes()), dst2(pd.dst_bytes()), mdst(pd.dst_bytes()), msrc(pd.dst_bytes());
                    const int es = dt == data_type::f32 ? 4 : 2;
                    xbench::fill_normal(es, dt == data_type::bf16, src.data(), src.size() / es);
                    // memcpy copies data like the output's, not zeros: on the dev VM, glibc's
                    // NT-store memcpy of a large zero buffer ran about 2x faster (NT stores of
                    // zero lines do).
                    xbench::fill_normal(es, dt == data_type::bf16, msrc.data(), msrc.size() / es);
                    std::vector<double> tx, td, tm;
#ifdef XINTERP_HAVE_DNNL
                    dnnl_peer peer(c, ncx, linear, dt, src.data(), dst2.data());
#endif
                    // One round: each contender once, in this order; warm-up rounds keep no times.
                    auto round = [&](bool keep) {
                        const double x = time_us([&] { prim.execute(src.data(), dst.data()); });
#ifdef XINTERP_HAVE_DNNL
                        if (peer.ok) {
                            const double o = time_us([&] { peer.run(); });
                            if (keep) td.push_back(o);
                        }
#endif
                        const double m = time_us([&] {
                            if (threads == 1) {
                                std::memcpy(mdst.data(), msrc.data(), mdst.size());
                            } else {
#pragma omp parallel num_threads(threads)
                                {
                                    const size_t n = mdst.size(), per = (n + threads - 1) / threads;
                                    const size_t b = std::min(n, per * omp_get_thread_num()), e = std::min(n, b + per);
                                    std::memcpy(mdst.data() + b, msrc.data() + b, e - b);
                                }
                            }
                        });
                        if (keep) tx.push_back(x), tm.push_back(m);
                    };
                    xbench::warm_up(f.warmup_ms, [&] { round(false); });
                    for (int r = 0; r < reps; ++r) round(true);
                    const double mx = median(tx), md = median(td), mm = median(tm);
                    const double gbs = (pd.src_bytes() + pd.dst_bytes()) / (mx * 1e3);
                    char od[32] = "-";
                    if (!td.empty()) std::snprintf(od, sizeof od, "%.1f", md);
                    std::printf("%-10s %-7s %-3s %-4s %10.1f %10s %7s %10.1f %7.2f %8.2f  %s\n", c.name.c_str(),
                                linear ? "linear" : "nearest", ncx ? "NCX" : "NXC", to_string(dt), mx, od,
                                td.empty() ? "-" : (std::to_string(md / mx).substr(0, 5)).c_str(), mm, mx / mm, gbs,
                                pd.kernel_name().c_str());
                    std::fflush(stdout);
                    if (!td.empty()) {
                        logs["all"].push_back(std::log(md / mx));
                        if (linear && ncx) logs["ncx_linear"].push_back(std::log(md / mx));
                    }
                }
        }
    }
    for (const auto &[k, v] : logs) {
        double s = 0, mn = 1e30;
        for (double x : v) s += x, mn = std::min(mn, std::exp(x));
        std::printf("# geomean oneDNN/xinterp [%s]: %.2fx over %zu cases (min %.2fx)\n", k.c_str(), std::exp(s / v.size()), v.size(), mn);
    }
    (void)have_dnnl;
    return 0;
}
