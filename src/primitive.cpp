#include <cstdio>

#include "cache.hpp"
#include "cpu_isa.hpp"
#include "dump.hpp"
#include "kernel.hpp"
#include "verbose.hpp"
#include "xinterp/xinterp.hpp"

namespace xinterp {
namespace {

// The tier (and width) a problem runs at: the dispatcher's choice unless the JIT cannot serve it.
kernel_isa choose_isa(const problem &p, impl_kind impl) {
    // An empty problem (N or C is 0) computes nothing: no tables, no code, whatever its
    // spatial dims (which may be huge).
    if (impl == impl_kind::reference || p.empty()) return cpu_isa::none;
    const kernel_isa isa = dispatch_kernel_isa(&p);
    std::string why;
    if (isa.tier != cpu_isa::none && !jit_supports(p, isa, &why)) {
        if (verbose_level() > 0) verbose_print("dispatch,fallback,ref," + why);
        return cpu_isa::none;
    }
    return isa;
}

std::string impl_name_of(cpu_isa isa) { return isa == cpu_isa::none ? "ref" : std::string("jit:") + cpu_isa_name(isa); }

std::shared_ptr<const kernel> fetch_kernel(const problem &p, kernel_isa isa) {
    const double t0 = now_us();
    bool hit = false;
    auto k = cache_get_or_create(p, isa, &hit);
    if (verbose_level() > 0) {
        char t[32];
        std::snprintf(t, sizeof t, "%.1f", now_us() - t0);
        verbose_print(std::string("create:") + (hit ? "cache_hit," : "cache_miss,") + k->name() + "," +
                      impl_name_of(isa.tier) + "," + p.str() + "," + t + "us");
    }
    return k;
}

bool overlap(const void *a, size_t an, const void *b, size_t bn) {
    const auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
    return an && bn && x < y + bn && y < x + an;
}

void check_buffers(const problem &p, const void *src, const void *dst) {
    if (p.empty()) return;
    if (!src) throw error(status::invalid_arguments, "src is a null pointer for a non-empty tensor of " + std::to_string(p.src_bytes) + " bytes");
    if (!dst) throw error(status::invalid_arguments, "dst is a null pointer for a non-empty tensor of " + std::to_string(p.dst_bytes) + " bytes");
    if (overlap(src, p.src_bytes, dst, p.dst_bytes))
        throw error(status::invalid_arguments, "src and dst overlap; in-place or aliased execution is not supported");
}

// Runs a kernel; an allocation failure inside (reference tables, per-thread scratch) is
// reported as out_of_memory, like every other failure, as an xinterp::error.
void execute_or_throw(const kernel &k, const void *src, void *dst) {
    try {
        k.execute(src, dst);
    } catch (const std::bad_alloc &) {
        throw error(status::out_of_memory, "out of memory while executing " + k.name());
    }
}

void run(const kernel &k, const void *src, void *dst) {
    if (verbose_level() <= 0) {
        execute_or_throw(k, src, dst);
        return;
    }
    const double t0 = now_us();
    execute_or_throw(k, src, dst);
    char t[32];
    std::snprintf(t, sizeof t, "%.4f", (now_us() - t0) / 1000.0);
    const problem &p = k.prob();
    verbose_print(std::string("exec,") + k.name() + "," + impl_name_of(k.isa()) + "," + p.str() + "," + t + "ms");
}

}  // namespace

primitive_desc::primitive_desc(const op_desc &desc, impl_kind impl)
    : prob_(std::make_shared<const problem>([&] {
          problem p = make_problem(desc);
          p.desc = desc;
          return p;
      }())),
      impl_(impl) {
    if (impl != impl_kind::any && impl != impl_kind::reference)
        throw error(status::invalid_arguments, "impl has unknown value " + std::to_string(static_cast<int>(impl)));
    const kernel_isa k = choose_isa(*prob_, impl);
    isa_ = k.tier;
    ymm_ = k.ymm;
}

const op_desc &primitive_desc::desc() const { return prob_->desc; }
const std::vector<int64_t> &primitive_desc::src_dims() const { return prob_->src_dims; }
const std::vector<int64_t> &primitive_desc::dst_dims() const { return prob_->dst_dims; }
size_t primitive_desc::src_bytes() const { return prob_->src_bytes; }
size_t primitive_desc::dst_bytes() const { return prob_->dst_bytes; }
std::string primitive_desc::impl_name() const { return impl_name_of(isa_); }
std::string primitive_desc::kernel_name() const { return make_kernel_name(*prob_, kernel_isa(isa_, ymm_)); }
cpu_isa primitive_desc::isa() const { return isa_; }
int primitive_desc::vector_bits() const { return kernel_isa(isa_, ymm_).vector_bits(); }

std::vector<int64_t> primitive_desc::dst_dims_for(const int32_t *sizes, size_t n) const {
    return with_runtime_sizes(*prob_, sizes, n).dst_dims;
}
size_t primitive_desc::dst_bytes_for(const int32_t *sizes, size_t n) const {
    return with_runtime_sizes(*prob_, sizes, n).dst_bytes;
}

primitive::primitive(const primitive_desc &pd) : pd_(pd), kernel_(fetch_kernel(*pd.get_problem(), kernel_isa(pd.isa(), pd.runs_ymm()))) {}

void primitive::execute(const void *src, void *dst) const {
    check_buffers(kernel_->prob(), src, dst);
    run(*kernel_, src, dst);
}

void primitive::execute(const void *src, const int32_t *sizes, size_t sizes_len, void *dst) const {
    const problem &base = *pd_.get_problem();
    const problem p = with_runtime_sizes(base, sizes, sizes_len);
    check_buffers(p, src, dst);
    if (p == base) {
        run(*kernel_, src, dst);
        return;
    }
    // A new dst shape is a new problem: its kernel comes from (or goes into) the cache.
    const kernel_isa isa = choose_isa(p, pd_.requested_impl());
    run(*fetch_kernel(p, isa), src, dst);
}

std::string primitive::dump_asm() const { return disassemble(*kernel_); }

const char *version() { return XINTERP_VERSION; }

}  // namespace xinterp
