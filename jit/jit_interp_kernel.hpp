// The interpolation kernel generator: one output row per call (see jit_conf.hpp for the split).
#pragma once
#include "jit_conf.hpp"
#include "jit_generator.hpp"

namespace xinterp {

template <cpu_isa isa>
struct isa_traits;

template <>
struct isa_traits<cpu_isa::avx2> {
    using Vmm = Xbyak::Ymm;
    static constexpr int simd_w = 8;
};

template <cpu_isa isa>
class jit_interp_kernel : public jit_generator {
public:
    explicit jit_interp_kernel(const jit_conf &conf);
    void generate();
    using fn_t = void (*)(const jit_args *);
    fn_t fn() const { return getCode<fn_t>(); }
    size_t text_size() const { return text_size_; }  // code; the constant pool follows

private:
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr int simd_w = isa_traits<isa>::simd_w;
    const jit_conf &conf_;
    size_t text_size_ = 0;

    // ---- register map, by role -------------------------------------------------------------
    const Xbyak::Reg64 reg_args = rdi;
    const Xbyak::Reg64 reg_dst = rsi;
    const Xbyak::Reg64 reg_tab = rdx;
    const Xbyak::Reg64 reg_ow = rcx;   // ow loop counter
    const Xbyak::Reg64 reg_cnt = rax;  // inner (channel / staging) loop counter
    const Xbyak::Reg64 reg_tmp = rbx;
    const Xbyak::Reg64 reg_p0 = r8, reg_p1 = r9;  // NXC: this pixel's i0 / i1 addresses in row 0
    const Xbyak::Reg64 reg_row[4] = {r10, r11, r12, r13};
    // NXC linear keeps row 0 as a base and rows 1..3 as byte deltas from it, so each tap's
    // address is [reg_p + reg_row[t]] and the channel loop only advances p0 and p1.
    const Xbyak::Reg64 reg_src = r14;  // NCX staging: the row being converted
    const Xbyak::Reg64 reg_scr = r15;  // NCX staging: where it goes

    const Vmm vmm_w0 = Vmm(0), vmm_w1 = Vmm(1);    // W weights
    const Vmm vmm_wh0 = Vmm(2), vmm_wh1 = Vmm(3);  // H weights
    const Vmm vmm_wd0 = Vmm(4), vmm_wd1 = Vmm(5);  // D weights
    const Vmm vmm_a = Vmm(7), vmm_b = Vmm(8);      // the two W taps; bf16 store temps too
    const Vmm vmm_rw[2] = {Vmm(9), Vmm(10)};       // W results of the two H taps; store temps
    const Vmm vmm_hd0 = Vmm(11);                   // H result of D tap 0, then the final result
    const Vmm vmm_idx0 = Vmm(12), vmm_idx1 = Vmm(13);  // NCX gather indices
    const Vmm vmm_mask = Vmm(14);                  // gather mask, or a tail mask, never both
    const Vmm vmm_tmp = Vmm(15);

    Xbyak::Label l_const_tail, l_const_one, l_const_7fff, l_const_0040, l_const_8000, l_const_exp;

    void load_tail_mask(const Vmm &m, int64_t lanes);
    void load_f32(const Vmm &v, const Xbyak::Address &a, int64_t n);   // n lanes of conf_.dt -> f32
    void load_u32(const Vmm &v, const Xbyak::Address &a, int64_t n);   // n lanes, bits zero-extended
    void load_words(const Xbyak::Xmm &x, const Xbyak::Address &a, int64_t n);
    void store_f32(const Xbyak::Address &a, const Vmm &v, int64_t n);  // f32 -> conf_.dt, n lanes
    void store_u32_bits(const Xbyak::Address &a, const Vmm &v, int64_t n);
    void store_words(const Xbyak::Address &a, const Xbyak::Xmm &x, int64_t n);
    void cvt_to_bf16(const Vmm &v);  // v (f32) -> 16-bit results in Xmm(vmm_a)
    void combine_taps(const Vmm &out);  // vmm_rw / vmm_hd0 -> H and D steps -> out

    void gen_nxc_linear();
    void gen_nxc_nearest();
    void gen_ncx();
    void gen_ncx_stage();
    void gen_constants();
};

}  // namespace xinterp
