// Two builds of the library against each other in one process: "measure before and after"
// with the drift of this VM hitting both alike. Each build's shim (xinterp_ab_shim, linked to
// that build's libxinterp) is loaded with dlmopen into its own link namespace, so the two
// libraries, their kernel caches and their OpenMP runtimes stay apart. Per case both run
// untimed for --warmup-ms, then alternate (the order swapped every repetition), each writing
// its own dst; the medians, new/old, and whether the two outputs are the same bits (they
// must be: both equal the reference). Exit status 1 if any output differs.
//
// The same library on both sides (A/A) gave new/old 0.91-1.07 over the suite's 33 NXC linear
// cases (geomean 1.008) on the Zen 4 dev VM; timed in separate processes, 0.65-1.32 over 15.
//
//   bench_ab OLD_SHIM NEW_SHIM [--filter SUBSTR | --shape C=c,AxB..,AxB..] [--mode nearest|linear|all]
//            [--layout ncx|nxc|all] [--dtype f32|bf16|f16|all] [--cold] [--threads N] [--reps N]
//            [--warmup-ms N]
// --cold writes a buffer of 3x the LLC (64 MiB at least) before each timed run, so src and
// dst come from DRAM, as in a loop where other work runs between executions.
// Build the old side from a second checkout:  cmake -S old -B build-old && cmake --build
// build-old --target xinterp_ab_shim; then  build/bench/bench_ab
// build-old/bench/libxinterp_ab_shim.so build/bench/libxinterp_ab_shim.so --filter fpn_2x
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "ab_shim.hpp"
#include "bench_util.hpp"
#include "cases.hpp"

namespace {

struct side {
    decltype(&xab_create) create;
    decltype(&xab_src_bytes) src_bytes;
    decltype(&xab_dst_bytes) dst_bytes;
    decltype(&xab_kernel) kernel;
    decltype(&xab_execute) execute;
    decltype(&xab_destroy) destroy;
};

bool load(const char *path, side &s) {
    void *h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        std::fprintf(stderr, "bench_ab: cannot load %s: %s\n", path, dlerror());
        return false;
    }
    bool missing = false;
    auto sym = [&](const char *name) {
        void *p = missing ? nullptr : dlsym(h, name);
        if (!p && !missing) std::fprintf(stderr, "bench_ab: %s has no %s (not an xinterp_ab_shim)\n", path, name);
        missing |= !p;
        return p;
    };
    s.create = reinterpret_cast<decltype(s.create)>(sym("xab_create"));
    s.src_bytes = reinterpret_cast<decltype(s.src_bytes)>(sym("xab_src_bytes"));
    s.dst_bytes = reinterpret_cast<decltype(s.dst_bytes)>(sym("xab_dst_bytes"));
    s.kernel = reinterpret_cast<decltype(s.kernel)>(sym("xab_kernel"));
    s.execute = reinterpret_cast<decltype(s.execute)>(sym("xab_execute"));
    s.destroy = reinterpret_cast<decltype(s.destroy)>(sym("xab_destroy"));
    return s.create && s.src_bytes && s.dst_bytes && s.kernel && s.execute && s.destroy;
}

// The values of a --mode / --layout / --dtype flag: "all" or one of names, as indices.
bool pick(const std::string &v, const std::vector<std::string> &names, std::vector<int> &out) {
    out.clear();
    for (size_t i = 0; i < names.size(); ++i)
        if (v == "all" || v == names[i]) out.push_back(static_cast<int>(i));
    return !out.empty();
}

size_t flush_bytes() {
    const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return std::max<size_t>(size_t(64) << 20, llc > 0 ? 3 * static_cast<size_t>(llc) : 0);
}

}  // namespace

int main(int argc, char **argv) {
    xbench::run_flags f(41);
    f.warmup_ms = 30;
    std::string shape, mode = "all", layout = "all", dtype = "all";
    bool cold = false;
    std::vector<std::string> paths;
    bool usage = false;
    for (int i = 1; i < argc && !usage; ++i) {
        if (f.parse(argc, argv, i)) continue;
        const std::string a = argv[i];
        auto value = [&](std::string &v) {
            if (i + 1 < argc) v = argv[++i];
            else usage = true;
        };
        if (a == "--shape") value(shape);
        else if (a == "--mode") value(mode);
        else if (a == "--layout") value(layout);
        else if (a == "--dtype") value(dtype);
        else if (a == "--cold") cold = true;
        else if (a.rfind("--", 0) != 0 && paths.size() < 2) paths.push_back(a);
        else usage = true;
    }
    std::vector<int> modes, layouts, dtypes;
    if (usage || paths.size() != 2 || !pick(mode, {"nearest", "linear"}, modes) || !pick(layout, {"ncx", "nxc"}, layouts) ||
        !pick(dtype, {"f32", "bf16", "f16"}, dtypes)) {
        std::fprintf(stderr,
                     "usage: bench_ab OLD_SHIM NEW_SHIM [--filter SUBSTR | --shape C=c,AxB..,AxB..] [--mode nearest|linear|all]\n"
                     "                [--layout ncx|nxc|all] [--dtype f32|bf16|f16|all] [--cold] [--threads N] [--reps N] [--warmup-ms N]\n");
        return 2;
    }
    if (!f.valid()) {
        std::fprintf(stderr, "bench_ab: --threads and --reps must be at least 1, --warmup-ms at least 0\n");
        return 2;
    }
    std::vector<xbench::shape_case> cases;
    if (!shape.empty()) {
        xbench::shape_case c;
        if (!xbench::parse_shape(shape, c)) {
            std::fprintf(stderr, "bench_ab: --shape '%s' is not C=c,src dims,dst dims (as C=144,19x3x8,2x2x30)\n", shape.c_str());
            return 2;
        }
        c.name = "C=" + std::to_string(c.c) + "," + xbench::dims_str(c.in) + "," + xbench::dims_str(c.out);
        cases.push_back(c);
    } else {
        for (const auto &c : xbench::suite())
            if (!f.skips(c.name)) cases.push_back(c);
    }
    // Two OpenMP runtimes take turns: a spinning idle pool would take the other's core.
    if (f.threads > 1) setenv("OMP_WAIT_POLICY", "passive", 0);
    side s[2];
    if (!load(paths[0].c_str(), s[0]) || !load(paths[1].c_str(), s[1])) return 2;
    xbench::abuf flush(cold ? flush_bytes() : 64);
    std::printf("# old: %s\n# new: %s\n# threads=%d reps=%d warmup=%d ms%s; medians, new/old < 1: new is faster\n", paths[0].c_str(),
                paths[1].c_str(), f.threads, f.reps, f.warmup_ms, cold ? ", cold (LLC flushed before each run)" : "");
    static const char *kModes[] = {"nearest", "linear"}, *kLayouts[] = {"NCX", "NXC"}, *kTypes[] = {"f32", "bf16", "f16"};
    double logs = 0;
    int n = 0, differ = 0;
    for (const auto &c : cases)
        for (int m : modes)
            for (int l : layouts)
                for (int t : dtypes) {
                    xab_case xc{c.n, c.c, static_cast<int>(c.in.size()), {1, 1, 1}, {1, 1, 1}, m, l == 0, t, f.threads};
                    std::copy(c.in.begin(), c.in.end(), xc.in);
                    std::copy(c.out.begin(), c.out.end(), xc.out);
                    char err[2][512] = {};
                    void *h[2] = {s[0].create(&xc, err[0], sizeof err[0]), s[1].create(&xc, err[1], sizeof err[1])};
                    const std::string what = c.name + " " + kModes[m] + " " + kLayouts[l] + " " + kTypes[t];
                    if (!h[0] || !h[1]) {
                        std::printf("%-40s not run: old: %s; new: %s\n", what.c_str(), h[0] ? "ok" : err[0], h[1] ? "ok" : err[1]);
                        for (int k = 0; k < 2; ++k)
                            if (h[k]) s[k].destroy(h[k]);
                        continue;
                    }
                    const int es = t == 0 ? 4 : 2;
                    std::unique_ptr<xbench::abuf> bufs[3];
                    try {
                        // Linux overcommits: a buffer past physical memory would be granted, then killed on first touch.
                        const double need = static_cast<double>(s[0].src_bytes(h[0])) + 2.0 * static_cast<double>(s[0].dst_bytes(h[0]));
                        if (need > 0.8 * static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE)))
                            throw std::bad_alloc();
                        bufs[0] = std::make_unique<xbench::abuf>(s[0].src_bytes(h[0]));
                        bufs[1] = std::make_unique<xbench::abuf>(s[0].dst_bytes(h[0]));
                        bufs[2] = std::make_unique<xbench::abuf>(s[1].dst_bytes(h[1]));
                    } catch (const std::bad_alloc &) {
                        std::printf("%-40s not run: its buffers (%zu + 2 x %zu bytes) do not fit in memory\n", what.c_str(),
                                    s[0].src_bytes(h[0]), s[0].dst_bytes(h[0]));
                        s[0].destroy(h[0]);
                        s[1].destroy(h[1]);
                        continue;
                    }
                    xbench::abuf &src = *bufs[0], &d0 = *bufs[1], &d1 = *bufs[2];
                    xbench::fill_normal(es, t == 1, src.data(), src.size() / es);
                    xbench::abuf *dst[2] = {&d0, &d1};
                    std::vector<double> us[2];
                    auto run = [&](int k, bool keep) {
                        if (cold) std::memset(flush.data(), static_cast<int>(us[k].size()), flush.size());
                        const double x = xbench::time_us([&] { s[k].execute(h[k], src.data(), dst[k]->data()); });
                        if (keep) us[k].push_back(x);
                    };
                    xbench::warm_up(f.warmup_ms, [&] {
                        run(0, false);
                        run(1, false);
                    });
                    for (int r = 0; r < f.reps; ++r) {
                        run(r % 2, true);
                        run(1 - r % 2, true);
                    }
                    const bool same = d0.size() == d1.size() && std::memcmp(d0.data(), d1.data(), d0.size()) == 0;
                    differ += !same;
                    const double a = xbench::median(us[0]), b = xbench::median(us[1]);
                    logs += std::log(b / a), ++n;
                    std::printf("%-40s old %9.1f us  new %9.1f us  new/old %.2f%s  %s\n", what.c_str(), a, b, b / a,
                                same ? "" : "  OUTPUTS DIFFER", s[1].kernel(h[1]));
                    s[0].destroy(h[0]);
                    s[1].destroy(h[1]);
                }
    if (n) std::printf("# geomean new/old %.3f over %d cases; %d with differing outputs\n", std::exp(logs / n), n, differ);
    return differ ? 1 : 0;
}
