#include "kernel.hpp"

#include <omp.h>

#include <atomic>
#include <cstdio>
#include <new>
#include <vector>

#include "../jit/jit_conf.hpp"
#include "../jit/jit_interp_kernel.hpp"
#include "../jit/jit_tables.hpp"
#include "dump.hpp"
#include "numeric.hpp"
#include "reference.hpp"
#include "verbose.hpp"

namespace xinterp {
namespace {

std::atomic<uint64_t> g_generations{0};

class reference_kernel : public kernel {
public:
    using kernel::kernel;
    void execute(const void *src, void *dst) const override { reference_execute(prob(), src, dst); }
};

// Drives the generated row kernel: picks src rows and H/D weights per output row from the
// per-axis tables, and splits rows statically over OpenMP threads. Each output row is written
// by exactly one call whatever the split, so the thread count never changes a bit.
class jit_kernel : public kernel {
public:
    jit_kernel(const problem &p, cpu_isa isa) : kernel(p, isa), conf_(make_jit_conf(p, isa)) {
        if (!conf_.ok) throw error(status::unimplemented, "jit: " + conf_.why_not);
        tables_ = make_jit_tables(p, conf_);
        gen_ = std::make_unique<jit_interp_kernel<cpu_isa::avx2>>(conf_);
        gen_->generate();
        fn_ = gen_->fn();
    }
    const uint8_t *code() const override { return gen_->getCode(); }
    size_t code_size() const override { return gen_->getSize(); }
    size_t text_size() const override { return gen_->text_size(); }

    void execute(const void *src, void *dst) const override {
        const problem &p = prob();
        if (p.empty()) return;
        const int64_t rows = conf_.rows;
        // Threads only pay off past ~64 KiB of traffic; below that one thread does it all.
        const bool par = rows > 1 && (p.src_bytes + p.dst_bytes) > (64u << 10);
        const int nthr = par ? omp_get_max_threads() : 1;
#pragma omp parallel num_threads(nthr)
        {
            mxcsr_guard guard;
            std::vector<uint8_t> scratch(static_cast<size_t>(conf_.scratch_bytes));
            jit_args a{};
            a.wtab = tables_.wtab.data();
            a.scratch = scratch.data();
#pragma omp for schedule(static)
            for (int64_t r = 0; r < rows; ++r) {
                set_row(a, r, static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst));
                fn_(&a);
            }
        }
    }

private:
    jit_conf conf_;
    jit_tables tables_;
    std::unique_ptr<jit_interp_kernel<cpu_isa::avx2>> gen_;
    jit_interp_kernel<cpu_isa::avx2>::fn_t fn_ = nullptr;

    void set_row(jit_args &a, int64_t r, const uint8_t *src, uint8_t *dst) const {
        const problem &p = prob();
        const int64_t oh = r % p.out[1];
        const int64_t od = (r / p.out[1]) % p.out[0];
        const int64_t plane = r / (p.out[1] * p.out[0]);  // n (NXC) or n * C + c (NCX)
        const uint8_t *base = src + plane * p.in[0] * p.in[1] * conf_.src_row_bytes;
        a.dst = dst + r * conf_.dst_row_bytes;
        auto row = [&](int64_t id, int64_t ih) { return base + (id * p.in[1] + ih) * conf_.src_row_bytes; };
        if (p.algorithm == alg::nearest) {
            a.src[0] = row(tables_.d.nearest[od], tables_.h.nearest[oh]);
            return;
        }
        const linear_tap &td = tables_.d.lin[od], &th = tables_.h.lin[oh];
        const int64_t ids[2] = {td.i0, td.i1}, ihs[2] = {th.i0, th.i1};
        for (int d = 0; d < conf_.nd; ++d)
            for (int h = 0; h < conf_.nh; ++h) a.src[d * conf_.nh + h] = row(ids[d], ihs[h]);
        a.wh[0] = th.w0;
        a.wh[1] = th.w1;
        a.wd[0] = td.w0;
        a.wd[1] = td.w1;
    }
};

}  // namespace

kernel::kernel(const problem &p, cpu_isa isa) : prob_(p), isa_(isa), name_(make_kernel_name(p, isa)) {}

std::string make_kernel_name(const problem &p, cpu_isa isa) {
    char hash[16];
    std::snprintf(hash, sizeof hash, "%08x", static_cast<unsigned>(hash_problem(p, isa) & 0xffffffffu));
    std::string n = "xinterp_";
    n += p.algorithm == alg::nearest ? "nearest_" : "linear_";
    n += p.ctm == coordinate_transformation_mode::half_pixel ? "hp_" : "ac_";
    n += to_string(p.dt);
    n += p.fmt == data_format::ncx ? "_ncx_" : "_nxc_";
    n += isa == cpu_isa::none ? "ref" : cpu_isa_name(isa);
    return n + "_" + hash;
}

bool jit_supports(const problem &p, cpu_isa isa, std::string *why_not) {
    if (isa == cpu_isa::none) return false;
    const jit_conf c = make_jit_conf(p, isa);
    if (!c.ok && why_not) *why_not = c.why_not;
    return c.ok;
}

std::shared_ptr<const kernel> create_kernel(const problem &p, cpu_isa isa) {
    std::shared_ptr<const kernel> k;
    try {
        if (isa == cpu_isa::none)
            k = std::make_shared<reference_kernel>(p, isa);
        else
            k = std::make_shared<jit_kernel>(p, isa);
    } catch (const error &) {
        throw;
    } catch (const std::bad_alloc &) {
        throw error(status::out_of_memory, "out of memory while creating kernel for " + p.str());
    } catch (const Xbyak::Error &e) {
        throw error(status::runtime_error, std::string("jit: code generation failed: ") + e.what());
    }
    g_generations.fetch_add(1);
    if (k->code()) {
        if (jit_profile_enabled()) perf_map_add(k->code(), k->code_size(), k->name());
        if (jit_dump_enabled()) jit_dump_write(k->name(), k->code(), k->code_size(), disassemble(*k));
    }
    return k;
}

uint64_t kernel_generations() { return g_generations.load(); }

}  // namespace xinterp
