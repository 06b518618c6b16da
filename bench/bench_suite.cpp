// The characteristic shape suite under Google Benchmark: every case x {nearest, linear} x
// {NCX, NXC} x {f32, bf16, f16}, reporting time, GB/s of (src + dst) bytes and the kernel name,
// plus a memcpy of the dst bytes per case (the roofline row) and primitive creation costs.
//   bench_suite --benchmark_filter=fpn   (threads: OMP_NUM_THREADS)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>

#include "cases.hpp"
#include "xinterp/xinterp.hpp"

using namespace xinterp;

namespace {

struct aligned_bytes {
    uint8_t *p;
    explicit aligned_bytes(size_t n, data_type dt = data_type::f32)
        : p(static_cast<uint8_t *>(std::aligned_alloc(64, (n + 63) / 64 * 64 + 64))) {
        const int es = dt == data_type::f32 ? 4 : 2;
        xbench::fill_normal(es, dt == data_type::bf16, p, n / es);
    }
    ~aligned_bytes() { std::free(p); }
};

void bm_interp(benchmark::State &st, op_desc d) {
    primitive_desc pd(d);
    primitive prim(pd);
    aligned_bytes src(pd.src_bytes(), d.dt), dst(pd.dst_bytes());
    for (auto _ : st) prim.execute(src.p, dst.p);
    st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * (pd.src_bytes() + pd.dst_bytes())));
    st.SetLabel(pd.kernel_name());
}

void bm_memcpy(benchmark::State &st, size_t bytes) {
    aligned_bytes a(bytes), b(bytes);
    for (auto _ : st) {
        std::memcpy(b.p, a.p, bytes);
        benchmark::ClobberMemory();
    }
    st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * bytes * 2));
}

void bm_create(benchmark::State &st, op_desc d, bool cold) {
    { primitive warm(primitive_desc{d}); }
    for (auto _ : st) {
        if (cold) {
            st.PauseTiming();
            clear_cache();
            st.ResumeTiming();
        }
        primitive p(primitive_desc{d});
        benchmark::DoNotOptimize(p);
    }
}

int register_all() {
    for (const auto &c : xbench::suite()) {
        for (data_type dt : {data_type::f32, data_type::bf16, data_type::f16})
            for (bool linear : {false, true})
                for (bool ncx : {true, false}) {
                    const std::string name = c.name + "/" + (linear ? "linear" : "nearest") + "/" + (ncx ? "NCX" : "NXC") + "/" + to_string(dt);
                    benchmark::RegisterBenchmark(name.c_str(), bm_interp, xbench::make_desc(c, linear, ncx, dt))->Unit(benchmark::kMicrosecond)->UseRealTime();
                }
        const op_desc d = xbench::make_desc(c, false, true, data_type::f32);
        benchmark::RegisterBenchmark((c.name + "/memcpy_dst_f32").c_str(), bm_memcpy, primitive_desc(d).dst_bytes())
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
    }
    const op_desc fpn = xbench::make_desc(xbench::suite()[0], true, true, data_type::f32);
    benchmark::RegisterBenchmark("create/cold_miss/fpn_linear_NCX_f32", bm_create, fpn, true)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("create/cache_hit/fpn_linear_NCX_f32", bm_create, fpn, false)->Unit(benchmark::kMicrosecond);
    return 0;
}
const int registered = register_all();

}  // namespace

BENCHMARK_MAIN();
