// A kernel is what the cache holds: generated code plus its tables, or the reference.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "problem.hpp"

namespace xinterp {

class kernel {
public:
    kernel(const problem &p, cpu_isa isa);
    virtual ~kernel() = default;
    const std::string &name() const { return name_; }
    const problem &prob() const { return prob_; }
    cpu_isa isa() const { return isa_; }
    // Writes dst for this kernel's problem. Arguments are validated by the caller.
    virtual void execute(const void *src, void *dst) const = 0;
    virtual const uint8_t *code() const { return nullptr; }
    virtual size_t code_size() const { return 0; }
    virtual size_t text_size() const { return 0; }  // instructions; data follows up to code_size()

private:
    problem prob_;
    cpu_isa isa_;
    std::string name_;
};

// "xinterp_linear_hp_bf16_nxc_avx2_3fa91c07": mode, transform, dtype, layout, ISA (or "ref")
// and the low 32 bits of the descriptor hash.
std::string make_kernel_name(const problem &p, cpu_isa isa);
// Whether the JIT at `isa` can serve p; otherwise the reference runs.
bool jit_supports(const problem &p, cpu_isa isa, std::string *why_not = nullptr);
// Generates (no cache). isa == none gives the reference kernel.
std::shared_ptr<const kernel> create_kernel(const problem &p, cpu_isa isa);
uint64_t kernel_generations();  // kernels created so far, process-wide

}  // namespace xinterp
