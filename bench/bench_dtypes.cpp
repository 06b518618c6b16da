// The 16-bit goal's measurement (bf16 and f16 against the same problem in f32): each case in
// f32, bf16 and f16 in one process, alternating per repetition, so drift on a shared VM hits
// the three alike. Per-case medians, and each 16-bit time over the f32 time. The real-model
// shapes unless --all.
// A run starts with the caches the one before it left (a plain-store output leaves the LLC
// full of dirty lines for the next run to write back, an NT-store one a clean cache), so the
// repetitions cycle through the six orders of the three: each dtype follows each other one
// equally often. A fixed rotation had bf16 always run after f32. Each case first runs the
// three untimed the same way for --warmup-ms (xbench::warm_up).
//   bench_dtypes [--threads N] [--reps N] [--warmup-ms N] [--filter SUBSTR] [--all]
#include <omp.h>

#include <array>
#include <cstdio>
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

namespace {

// One dtype's primitive and buffers (src filled as xinterp bench fills it).
struct contender {
    primitive_desc pd;
    primitive prim;
    abuf src, dst;
    explicit contender(const op_desc &d) : pd(d), prim(pd), src(pd.src_bytes()), dst(pd.dst_bytes()) {
        const int es = d.dt == data_type::f32 ? 4 : 2;
        xbench::fill_normal(es, d.dt == data_type::bf16, src.data(), src.size() / es);
    }
    double run() {
        return time_us([&] { prim.execute(src.data(), dst.data()); });
    }
};

bool real_model(const std::string &name) {
    for (const char *r : {"fpn_2x", "yolo_2x", "img_down", "img_up", "seg_8x", "vol_2x"})
        if (name == r) return true;
    return false;
}

}  // namespace

int main(int argc, char **argv) {
    xbench::run_flags f(11);
    bool all = false;
    for (int i = 1; i < argc; ++i) {
        if (f.parse(argc, argv, i)) continue;
        if (std::string(argv[i]) == "--all") {
            all = true;
        } else {
            std::fprintf(stderr, "usage: bench_dtypes [--threads N] [--reps N] [--warmup-ms N] [--filter S] [--all]\n");
            return 2;
        }
    }
    if (!f.valid()) {
        std::fprintf(stderr, "bench_dtypes: --threads and --reps must be at least 1, --warmup-ms at least 0\n");
        return 2;
    }
    omp_set_num_threads(f.threads);
    std::printf("# threads=%d reps=%d warmup=%d ms; per-case medians in microseconds, f32/bf16/f16 alternating in one process\n",
                f.threads, f.reps, f.warmup_ms);
    std::printf("%-10s %-7s %-3s %10s %10s %9s %10s %9s\n", "case", "mode", "fmt", "f32", "bf16", "bf16/f32", "f16",
                "f16/f32");
    const std::array<data_type, 3> dts = {data_type::f32, data_type::bf16, data_type::f16};
    for (const auto &c : xbench::suite()) {
        if ((!all && !real_model(c.name)) || f.skips(c.name)) continue;
        for (bool linear : {false, true})
            for (bool ncx : {true, false}) {
                std::vector<std::unique_ptr<contender>> k;
                for (data_type dt : dts) k.push_back(std::make_unique<contender>(xbench::make_desc(c, linear, ncx, dt)));
                std::array<std::vector<double>, 3> t;
                static constexpr int kOrders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
                int w = 0;
                xbench::warm_up(f.warmup_ms, [&] {
                    for (int i : kOrders[w++ % 6]) k[i]->run();
                });
                for (int r = 0; r < f.reps; ++r)
                    for (int i : kOrders[r % 6]) t[i].push_back(k[i]->run());
                const double t32 = median(t[0]), b = median(t[1]), h = median(t[2]);
                std::printf("%-10s %-7s %-3s %10.1f %10.1f %9.2f %10.1f %9.2f\n", c.name.c_str(),
                            linear ? "linear" : "nearest", ncx ? "NCX" : "NXC", t32, b, b / t32, h, h / t32);
                std::fflush(stdout);
            }
    }
    return 0;
}
