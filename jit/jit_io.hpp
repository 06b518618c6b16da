// Loads and stores shared by every generator: widen any dtype to f32 lanes, narrow f32 lanes to
// any dtype with the spec's rounding, and exact-size tails. Plus the constant pool they use.
#pragma once
#include "jit_generator.hpp"

namespace xinterp {

template <cpu_isa isa>
struct isa_traits;

template <>
struct isa_traits<cpu_isa::avx2> {
    using Vmm = Xbyak::Ymm;
    static constexpr int simd_w = 8;
};

// Not a template itself (so that kernel templates deriving from it see Xbyak's members without
// `this->`); the helpers are member templates over the vector register type, instantiated in
// jit_io.cpp for each ISA's Vmm.
class jit_io : public jit_generator {
public:
    size_t text_size() const { return text_size_; }  // code; the constant pool follows

protected:
    jit_io(size_t max_code_size, int simd_w) : jit_generator(max_code_size), simd_w_(simd_w) {}

    // The helpers clobber registers 7-10 (t0-t3) and 14 (mask); callers keep no live value in
    // them across a load or store.
    static constexpr int kT0 = 7, kT1 = 8, kT2 = 9, kT3 = 10, kMask = 14;

    template <typename Vmm> void load_tail_mask(const Vmm &m, int64_t lanes);
    template <typename Vmm> void load_f32(data_type dt, const Vmm &v, const Xbyak::Address &a, int64_t n);
    template <typename Vmm> void load_u32(const Vmm &v, const Xbyak::Address &a, int64_t n);  // zero-extend
    void load_words(const Xbyak::Xmm &x, const Xbyak::Address &a, int64_t n);
    // f32 -> dt, n lanes. v must not be t0..t3. nt: non-temporal full stores (aligned dst).
    template <typename Vmm> void store_f32(data_type dt, const Xbyak::Address &a, const Vmm &v, int64_t n, bool nt = false);
    template <typename Vmm> void store_u32_bits(int esize, const Xbyak::Address &a, const Vmm &v, int64_t n, bool nt = false);
    void store_words(const Xbyak::Address &a, const Xbyak::Xmm &x, int64_t n);
    template <typename Vmm> void cvt_to_bf16(const Vmm &v);  // 16-bit results in Xmm(kT0)
    // Ends the code: records text_size(), emits the constant pool, flips the buffer to RE.
    void finish_code();

    Xbyak::Label l_const_tail, l_const_one, l_const_7fff, l_const_0040, l_const_8000, l_const_exp;

private:
    int simd_w_;
    size_t text_size_ = 0;
};

}  // namespace xinterp
