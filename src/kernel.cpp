#include "kernel.hpp"

#include <atomic>
#include <cstdio>
#include <new>

#include <xbyak/xbyak.h>

#include "../jit/jit_conf.hpp"
#include "dump.hpp"
#include "jit_drivers.hpp"
#include "reference.hpp"
#include "verbose.hpp"

namespace xinterp {
namespace {

std::atomic<uint64_t> g_generations{0};
std::atomic<int> g_injected_failures{0};

class reference_kernel : public kernel {
public:
    using kernel::kernel;
    void execute(const void *src, void *dst) const override { reference_execute(prob(), src, dst); }
};

}  // namespace

kernel::kernel(const problem &p, kernel_isa isa) : prob_(p), isa_(isa), name_(make_kernel_name(p, isa)) {}

std::string make_kernel_name(const problem &p, kernel_isa isa) {
    char hash[16];
    std::snprintf(hash, sizeof hash, "%08x", static_cast<unsigned>(hash_problem(p, isa) & 0xffffffffu));
    std::string n = "xinterp_";
    n += p.algorithm == alg::nearest ? "nearest_" : "linear_";
    n += p.ctm == coordinate_transformation_mode::half_pixel ? "hp_" : "ac_";
    n += to_string(p.dt);
    n += p.fmt == data_format::ncx ? "_ncx_" : "_nxc_";
    n += isa.tier == cpu_isa::none ? "ref" : cpu_isa_name(isa.tier);
    if (isa.ymm) n += "_ymm";
    return n + "_" + hash;
}

bool jit_supports(const problem &p, kernel_isa isa, std::string *why_not) {
    if (isa.tier == cpu_isa::none) return false;
    return jit_can_serve(p, isa, why_not);
}

std::shared_ptr<const kernel> create_kernel(const problem &p, kernel_isa isa) {
    std::shared_ptr<const kernel> k;
    for (int n = g_injected_failures.load(); n > 0;)
        if (g_injected_failures.compare_exchange_weak(n, n - 1))
            throw error(status::out_of_memory, "injected generation failure for " + p.str());
    try {
        if (isa.tier == cpu_isa::none)
            k = std::make_shared<reference_kernel>(p, isa);
        else
            k = make_jit_kernel(p, isa);
    } catch (const error &) {
        throw;
    } catch (const std::bad_alloc &) {
        throw error(status::out_of_memory, "out of memory while creating kernel for " + p.str());
    } catch (const Xbyak::Error &e) {
        const bool oom = static_cast<int>(e) == Xbyak::ERR_CANT_ALLOC || static_cast<int>(e) == Xbyak::ERR_CANT_PROTECT;
        throw error(oom ? status::out_of_memory : status::runtime_error,
                    std::string(oom ? "out of memory for generated code: " : "jit: code generation failed: ") + e.what());
    }
    g_generations.fetch_add(1);
    const auto parts = k->parts();
    if (!parts.empty()) {
        // perf sees every function under the kernel's one name.
        if (jit_profile_enabled())
            for (const auto &pt : parts) perf_map_add(pt.code, pt.size, k->name());
        if (jit_dump_enabled()) {
            std::vector<uint8_t> bin;  // the parts back to back, in listing order
            for (const auto &pt : parts) bin.insert(bin.end(), pt.code, pt.code + pt.size);
            jit_dump_write(k->name(), bin.data(), bin.size(), disassemble(*k));
        }
    }
    return k;
}

uint64_t kernel_generations() { return g_generations.load(); }
void inject_generation_failures_for_testing(int n) { g_injected_failures.store(n); }

}  // namespace xinterp
