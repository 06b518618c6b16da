// The base of every generator: an Xbyak CodeGenerator that is never writable and executable at
// once. Code is emitted into an RW mmap buffer; finalize() checks labels and flips it to RE.
#pragma once
#include <xbyak/xbyak.h>

#include <string>

#include "../src/problem.hpp"

namespace xinterp {

class jit_generator : public Xbyak::CodeGenerator {
public:
    explicit jit_generator(size_t max_code_size)
        : Xbyak::CodeGenerator(max_code_size, Xbyak::DontSetProtectRWE) {}

    // Step 3 and 4 of the life cycle: no undefined label, then RW -> RE before the first call.
    void finalize() {
        if (hasUndefinedLabel()) throw error(status::runtime_error, "jit: undefined label in generated code");
        setProtectModeRE();
    }

protected:
    // System V callee-saved registers this family of kernels uses.
    const Xbyak::Reg64 saved_[6] = {rbx, rbp, r12, r13, r14, r15};
    void preamble() {
        for (const auto &r : saved_) push(r);
    }
    void postamble() {
        for (int i = 5; i >= 0; --i) pop(saved_[i]);
        vzeroupper();
        ret();
    }
};

}  // namespace xinterp
