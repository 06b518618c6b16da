// A kernel is what the cache holds: generated code plus its tables, or the reference.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "problem.hpp"

namespace xinterp {

class kernel {
public:
    kernel(const problem &p, kernel_isa isa);
    virtual ~kernel() = default;
    const std::string &name() const { return name_; }
    const problem &prob() const { return prob_; }
    cpu_isa isa() const { return isa_.tier; }          // the tier (none: the reference)
    const kernel_isa &code_isa() const { return isa_; }  // ... and the generators' width
    // Writes dst for this kernel's problem. Arguments are validated by the caller.
    virtual void execute(const void *src, void *dst) const = 0;
    // Every generated function of the kernel: the dump, the perf map, the dump files and the
    // static ISA check walk them all. text bytes of instructions, then constants up to size.
    struct code_part {
        std::string role;  // "row", "wpass", "blend", ... (+ "_nt" for non-temporal variants)
        const uint8_t *code;
        size_t size, text;
    };
    virtual std::vector<code_part> parts() const { return {}; }
    // How many functions were generated: parts() must list every one (a test holds it to that).
    virtual size_t generated_functions() const { return 0; }
    // A kernel that computes its problem as another one over the same bytes (the unit-axis
    // views, jit_drivers.cpp): that problem, as problem::str() prints it; else empty.
    virtual std::string runs_as() const { return {}; }
    // The generated code's choices in words, one phrase each (describe_plan, jit_conf): the
    // dump's "; plan:" lines. Empty for the reference.
    virtual std::vector<std::string> plan() const { return {}; }
    const uint8_t *code() const {  // the first part, or nullptr for the reference
        const auto p = parts();
        return p.empty() ? nullptr : p.front().code;
    }

private:
    problem prob_;
    kernel_isa isa_;
    std::string name_;
};

// "xinterp_linear_hp_bf16_nxc_avx2_3fa91c07": mode, transform, dtype, layout, ISA (or "ref"),
// "_ymm" where an AVX-512 tier runs the 256-bit generators, and the low 32 bits of the
// descriptor hash.
std::string make_kernel_name(const problem &p, kernel_isa isa);
// Whether the JIT at `isa` can serve p; otherwise the reference runs.
bool jit_supports(const problem &p, kernel_isa isa, std::string *why_not = nullptr);
// Generates (no cache). isa == none gives the reference kernel.
std::shared_ptr<const kernel> create_kernel(const problem &p, kernel_isa isa);
uint64_t kernel_generations();  // kernels created so far, process-wide
// Tests: the next n create_kernel calls fail with out_of_memory (an injected fault).
void inject_generation_failures_for_testing(int n);

}  // namespace xinterp
