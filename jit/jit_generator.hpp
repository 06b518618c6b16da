// The base of every generator: an Xbyak CodeGenerator that is never writable and executable at
// once. Code is emitted into RW memory; finalize() checks labels and flips it to RE, or, for a
// generator built inside a code_arena, leaves that to the arena's seal().
#pragma once
#include <sys/mman.h>

#include <xbyak/xbyak.h>

#include <string>

#include "../src/problem.hpp"

namespace xinterp {

// One RW mapping for all the parts of a kernel, flipped to RE once, after the last part is
// generated: one mmap, one mprotect and one munmap per kernel instead of an allocation and two
// mprotect calls per part (each mprotect is a TLB shootdown on every core; they were over half
// of a cold creation's time).
class code_arena {
public:
    explicit code_arena(size_t bytes) : size_(bytes) {
        void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        base_ = static_cast<uint8_t *>(p);
    }
    ~code_arena() { munmap(base_, size_); }
    code_arena(const code_arena &) = delete;
    code_arena &operator=(const code_arena &) = delete;

    // The next bytes of the arena, 64-byte aligned.
    void *take(size_t bytes) {
        const size_t at = (used_ + 63) & ~size_t(63);
        if (at + bytes > size_) throw error(status::runtime_error, "jit: code arena exhausted");
        used_ = at + bytes;
        last_ = at;
        ++blocks_;
        return base_ + at;
    }
    size_t blocks() const { return blocks_; }  // buffers taken: one per generator
    // The last buffer taken, at p, turned out to need only `bytes`: the next one starts right
    // after them, so a kernel's parts share pages (each page first written is a page fault,
    // a tenth of a bf16 kernel's creation time when every part had its own).
    void trim_last(const void *p, size_t bytes) {
        const size_t at = static_cast<size_t>(static_cast<const uint8_t *>(p) - base_);
        if (at == last_) used_ = at + bytes;
    }
    void seal() {
        if (mprotect(base_, size_, PROT_READ | PROT_EXEC) != 0)
            throw error(status::runtime_error, "jit: mprotect(PROT_READ | PROT_EXEC) failed");
    }

    // The arena that generators constructed on this thread take their buffer from (set by
    // arena_scope); none: each generator allocates and protects its own.
    static code_arena *&current() {
        thread_local code_arena *a = nullptr;
        return a;
    }

private:
    uint8_t *base_ = nullptr;
    size_t size_ = 0, used_ = 0, blocks_ = 0, last_ = SIZE_MAX;
};

class arena_scope {
public:
    explicit arena_scope(code_arena &a) : prev_(code_arena::current()) { code_arena::current() = &a; }
    ~arena_scope() { code_arena::current() = prev_; }
    arena_scope(const arena_scope &) = delete;
    arena_scope &operator=(const arena_scope &) = delete;

private:
    code_arena *prev_;
};

class jit_generator : public Xbyak::CodeGenerator {
public:
    explicit jit_generator(size_t max_code_size)
        : Xbyak::CodeGenerator(max_code_size, buffer(max_code_size)), in_arena_(code_arena::current() != nullptr) {}

    // Step 3 and 4 of the life cycle: no undefined label, then RW -> RE before the first call
    // (in an arena: at its seal(), before any part is called).
    void finalize() {
        if (hasUndefinedLabel()) throw error(status::runtime_error, "jit: undefined label in generated code");
        if (!in_arena_) setProtectModeRE();
        else if (code_arena *a = code_arena::current()) a->trim_last(getCode(), getSize());
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

private:
    bool in_arena_;
    static void *buffer(size_t max_code_size) {
        code_arena *a = code_arena::current();
        return a ? a->take(max_code_size) : Xbyak::DontSetProtectRWE;
    }
};

}  // namespace xinterp
