// Loads and stores shared by every generator: widen any dtype to f32 lanes, narrow f32 lanes to
// any dtype with the spec's rounding, and exact-size tails. Plus the constant pool they use.
#pragma once
#include "jit_conf.hpp"
#include "jit_generator.hpp"

#include <memory>
#include <utility>
#include <vector>

namespace xinterp {

template <cpu_isa isa>
struct isa_traits;

// Whether bf16 stores use VCVTNEPS2BF16 (which the spec's bf16 rule was written to match) is
// the conf's (jit_conf::native_bf16): the bf16 tier's 512-bit kernels and its 256-bit ones
// alike. (The fp16 and AMX tiers dispatch to the bf16 tier: no kernels of their own.)
template <>
struct isa_traits<cpu_isa::avx2> {
    using Vmm = Xbyak::Ymm;
    static constexpr int simd_w = 8;
};
template <>
struct isa_traits<cpu_isa::avx512_core> {
    using Vmm = Xbyak::Zmm;
    static constexpr int simd_w = 16;
};
template <>
struct isa_traits<cpu_isa::avx512_core_bf16> {
    using Vmm = Xbyak::Zmm;
    static constexpr int simd_w = 16;
};

// Not a template itself (so that kernel templates deriving from it see Xbyak's members without
// `this->`); the helpers are member templates over the vector register type, instantiated in
// jit_io.cpp for each ISA's Vmm.
class jit_io : public jit_generator {
public:
    size_t text_size() const { return text_size_; }  // code; the constant pool follows

protected:
    jit_io(size_t max_code_size, int simd_w, bool native_bf16 = false)
        : jit_generator(max_code_size), simd_w_(simd_w), native_bf16_(native_bf16) {}

    // The helpers clobber registers 7-10 (t0-t3) and 14 (mask), and on AVX-512 opmasks k1 (tails)
    // and k2 (compares, gathers); callers keep no live value in them across a load or store.
    static constexpr int kT0 = 7, kT1 = 8, kT2 = 9, kT3 = 10, kMask = 14;
    const Xbyak::Opmask k_tail = k1, k_tmp = k2;
    // A constant in the pool (emitted by finish_code), e.g. a k-mask to kmov from.
    Xbyak::Label &pool_const(uint64_t value);
    // Eight dwords in the pool, 32-byte aligned (a ymm operand), e.g. a permute control.
    Xbyak::Label &pool_vec8(const int32_t (&v)[8]);
    void load_kmask(const Xbyak::Opmask &k, uint64_t bits, int width);  // width 16 or 64
    // Rows stored as whole aligned lines (512-bit rows that are not whole lines long:
    // jit_ncx_vblend::aligned_row, jit_ncx_wpass::aligned_row), in elements of esize bytes (4:
    // dwords, 16 a line; 2: words, 32 a line). Once per call, for rows of row_out elements:
    // iota = 0, 1, .. in each element, lanes = the elements of a line, t_lanes = t + lanes,
    // t = the elements of the row's last line-sized vector. Per row at addr: m_bytes = esize * m, m its misalignment in elements
    // (its first line starts at addr - m_bytes), and idx = lanes - m + i, which permutes vector
    // k - 1 (table 1) and vector k (table 2) into line k. tmp: a scratch GPR.
    void aligned_line_consts(int esize, int64_t row_out, const Xbyak::Zmm &iota, const Xbyak::Zmm &lanes, const Xbyak::Zmm &t_lanes,
                             const Xbyak::Zmm &t_only, const Xbyak::Reg32 &tmp);
    void aligned_line_index(int esize, const Xbyak::Reg64 &addr, const Xbyak::Reg64 &m_bytes, const Xbyak::Reg32 &tmp,
                            const Xbyak::Zmm &idx, const Xbyak::Zmm &iota);
    // The registers of aligned_lines: the constants of aligned_line_consts; each row's index;
    // the vectors a trip alternates between (A_b, B_b: the second row's own vectors); T, a
    // temporary where the second row shares the first's vectors; base (on entry the row's dst),
    // off_b (the second row's dst), and scratch GPRs.
    struct line_regs {
        Xbyak::Zmm iota, lanes, t_lanes, t_only, idx_a, idx_b, A_a, B_a, A_b, B_b, T;
        Xbyak::Reg64 base, off_b, m_bytes, cnt;
    };
    // A row of nv >= 2 line-sized vectors (esize-byte elements) stored as whole aligned lines,
    // and with `second` another row likewise, from its own vectors (own_b) or the first row's.
    // Line k = vector k - 1 and vector k permuted at the row's run-time misalignment m (index
    // lanes - m + i, aligned_line_index); line 0 under a mask of lanes >= m, the last two
    // under masks of the elements the row has left (index < t + lanes, index < t). Masks k3-k6
    // (k1, k2 stay the helpers'). vec(a, b, k, last): line-sized vector k (0 or 1, its place in
    // a two-vector trip) into a, and the second row's into b (own_b); last: the row's last.
    // step(n): the caller's sources n vectors on. base ends past the row's last line but one.
    template <typename Vec, typename Step>
    void aligned_lines(int esize, int64_t nv, bool second, bool own_b, const line_regs &r, Vec &&vec, Step &&step);

    template <typename Vmm> void load_tail_mask(const Vmm &m, int64_t lanes);
    template <typename Vmm> void load_f32(data_type dt, const Vmm &v, const Xbyak::Address &a, int64_t n);
    template <typename Vmm> void load_u32(const Vmm &v, const Xbyak::Address &a, int64_t n);  // zero-extend
    void load_words(const Xbyak::Xmm &x, const Xbyak::Address &a, int64_t n);
    // bf16/f16 words already in x (simd_w of them) -> f32 lanes of v, exactly.
    template <typename Vmm> void widen_words(data_type dt, const Vmm &v, const Xbyak::Xmm &x);
    // f32 -> dt, n lanes. v must not be t0..t3. nt: non-temporal full stores (aligned dst).
    template <typename Vmm> void store_f32(data_type dt, const Xbyak::Address &a, const Vmm &v, int64_t n, bool nt = false);
    // also: the same n elements to a second address too (narrowed once).
    template <typename Vmm>
    void store_u32_bits(int esize, const Xbyak::Address &a, const Vmm &v, int64_t n, bool nt = false,
                        const Xbyak::Address *also = nullptr);
    void store_words(const Xbyak::Address &a, const Xbyak::Xmm &x, int64_t n);
    // The low `bytes` bytes (even, < 32) of the ymm/xmm with index v.getIdx(); clobbers t1.
    void store_bytes(const Xbyak::Address &a, const Xbyak::Xmm &v, int bytes);
    // Where the args struct (at rdi, all through the kernel) holds the per-execution flags: from
    // then on, every non-native bf16 rounding branches on kFlagBf16Clean to a plain
    // round-to-nearest-even (AVX2: Veltkamp's split; AVX-512: the add) without the NaN and
    // denormal fixups (jit_conf.hpp says when that is exact). Generators whose kernels store
    // bf16 linear results call it in their constructor; for other dtypes it does nothing, so
    // nothing is emitted twice for them.
    void bf16_clean_flag_at(int args_offset, data_type dt) {
        if (dt == data_type::bf16 && !native_bf16_) clean_off_ = args_offset;  // native: no fixups to skip
    }
    template <typename Vmm> void cvt_to_bf16(const Vmm &v);  // 16-bit results in Xmm(kT0)
    // AVX-512, f16 or bf16 on a tier that rounds it natively: x0, x1 (f32) rounded to 32 words
    // in r, in order (two false: x0's 16 only), for one 64-byte store; tmp: a ymm (f16).
    void round_words(data_type dt, const Xbyak::Zmm &r, const Xbyak::Zmm &x0, const Xbyak::Zmm &x1, bool two,
                     const Xbyak::Ymm &tmp);
    // AVX2: the same rounding for two vectors at once (the full rule's fixups on packed 16-bit
    // lanes); 16 results in order in Ymm(kT0). Neither input may be t0..t3.
    void cvt2_to_bf16(const Xbyak::Ymm &x0, const Xbyak::Ymm &x1);
    // interleave: x0[i] and x1[i] to words 2i and 2i + 1 (cvt2_to_bf16_interleaved's order).
    void cvt2_to_bf16_full(const Xbyak::Ymm &x0, const Xbyak::Ymm &x1, bool interleave);
    // The same rounding, with even[i] and odd[i] landing at words 2i and 2i + 1 of Ymm(kT0):
    // for kernels whose outputs come as even and odd vectors (2x upsampling, even/odd W rows),
    // where words interleave for less than f32 lanes do.
    void cvt2_to_bf16_interleaved(const Xbyak::Ymm &even, const Xbyak::Ymm &odd);
    template <typename Vmm> void round_bf16_clean(const Vmm &r, const Vmm &x, const Vmm &t);
    // round_bf16_clean without the final shift: the bf16 in the high half of r's dwords.
    template <typename Vmm> void split_bf16(const Vmm &r, const Vmm &x, const Vmm &t);
    template <typename Vmm> void round_bf16_full(const Vmm &x);
    // Stores cvt2_to_bf16's 16 results (32 bytes). NT stores need 32-byte alignment for one
    // ymm store; where the caller only guarantees 16 (aligned32 false), two xmm halves.
    void store_bf16_pair(const Xbyak::Address &a, bool nt, bool aligned32);
    // Two 4-element f32 windows (AVX2 lane windows: each 128-bit lane selects from its own with
    // vpermilps) into w's low and high lanes; tmp is clobbered.
    void load_lane_windows(const Xbyak::Ymm &w, const Xbyak::Address &lo, const Xbyak::Address &hi, const Xbyak::Ymm &tmp);
    // Ends the code: records text_size(), emits the constant pool, flips the buffer to RE.
    void finish_code();

    Xbyak::Label l_const_tail, l_const_one, l_const_7fff, l_const_0040, l_const_8000, l_const_exp;
    Xbyak::Label l_const_w0040, l_const_w7f80, l_const_w7fff;  // 16-bit splats (cvt2_to_bf16)
    Xbyak::Label l_const_split;  // 65537.0f, Veltkamp's splitter for the bf16 precision

    // fast() when this execution's flags have kFlagBf16Clean, else full(); just full() where no
    // flag offset was given. Within either, a nested bf16_paths emits only the same side, so a
    // caller can hoist the branch out of a loop by wrapping the whole loop (code twice, no
    // test per vector).
    template <typename Fast, typename Full>
    void bf16_paths(Fast &&fast, Full &&full) {
        if (clean_off_ < 0) return full();
        if (side_ != kBoth) return side_ == kFast ? fast() : full();
        Xbyak::Label l_full, l_done;
        test(byte[rdi + clean_off_], static_cast<uint8_t>(kFlagBf16Clean));
        jz(l_full, T_NEAR);
        side_ = kFast;
        fast();
        jmp(l_done, T_NEAR);
        L(l_full);
        side_ = kFull;
        full();
        side_ = kBoth;
        L(l_done);
    }
    // body() once per side of the clean flag (its roundings then take no test each), where
    // bf16_paths would branch; else once, not to emit the same code twice.
    template <typename Body>
    void bf16_each_side(Body &&body) {
        if (clean_off_ >= 0 && side_ == kBoth) bf16_paths(body, body);
        else body();
    }

    int simd_w() const { return simd_w_; }

private:
    int simd_w_;
    bool native_bf16_;
    int clean_off_ = -1;  // bf16_clean_flag_at
    enum { kBoth, kFast, kFull } side_ = kBoth;  // within bf16_paths: the side being emitted
    size_t text_size_ = 0;
    std::vector<std::pair<uint64_t, std::unique_ptr<Xbyak::Label>>> pool_;
    std::vector<std::pair<std::vector<int32_t>, std::unique_ptr<Xbyak::Label>>> pool_vec8_;
};

// AVX-512 spellings (jit_io_avx512.cpp): opmask tails, EVEX conversions.
template <> void jit_io::load_tail_mask(const Xbyak::Zmm &, int64_t);
template <> void jit_io::load_f32(data_type, const Xbyak::Zmm &, const Xbyak::Address &, int64_t);
template <> void jit_io::load_u32(const Xbyak::Zmm &, const Xbyak::Address &, int64_t);
template <> void jit_io::store_f32(data_type, const Xbyak::Address &, const Xbyak::Zmm &, int64_t, bool);
template <> void jit_io::store_u32_bits(int, const Xbyak::Address &, const Xbyak::Zmm &, int64_t, bool, const Xbyak::Address *);
template <> void jit_io::cvt_to_bf16(const Xbyak::Zmm &);

template <typename Vec, typename Step>
void jit_io::aligned_lines(int esize, int64_t nv, bool second, bool own_b, const line_regs &r, Vec &&vec, Step &&step) {
    using Xbyak::Opmask;
    using Xbyak::Zmm;
    const bool words = esize == 2;
    const int V = 64;
    auto cmp = [&](const Opmask &k, const Zmm &idx, const Zmm &bound, uint8_t pred) {
        if (words) vpcmpw(k, idx, bound, pred);
        else vpcmpd(k, idx, bound, pred);
    };
    aligned_line_index(esize, r.base, r.m_bytes, r.cnt.cvt32(), r.idx_a, r.iota);
    cmp(k3, r.idx_a, r.lanes, 5);  // head: lanes >= m (not less than)
    sub(r.base, r.m_bytes);        // line 0
    if (second) {
        aligned_line_index(esize, r.off_b, r.m_bytes, r.cnt.cvt32(), r.idx_b, r.iota);
        cmp(k4, r.idx_b, r.lanes, 5);
        sub(r.off_b, r.m_bytes);
        sub(r.off_b, r.base);  // the second row's line 0, from base
    }
    auto store = [&](const Xbyak::Address &a, const Zmm &v, const Opmask *m) {
        if (m && words) vmovdqu16(a | *m, v);
        else if (m) vmovups(a | *m, v);
        else vmovups(a, v);
    };
    auto permute = [&](const Zmm &prev, const Zmm &idx, const Zmm &cur) {
        if (words) vpermt2w(prev, idx, cur);
        else vpermt2ps(prev, idx, cur);
    };
    // The lines at off from prev and cur, into prev's register: the second row's first (from
    // its own vectors, or through T, as the permute overwrites its first table).
    auto line = [&](const Zmm &pa, const Zmm &ca, const Zmm &pb, const Zmm &cb, int off, const Opmask *ma,
                    const Opmask *mb) {
        if (second) {
            const Zmm &p = own_b ? pb : r.T;
            if (!own_b) vmovaps(r.T, pa);
            permute(p, r.idx_b, own_b ? cb : ca);
            store(ptr[r.base + r.off_b + off], p, mb);
        }
        permute(pa, r.idx_a, ca);
        store(ptr[r.base + off], pa, ma);
    };
    auto next = [&](int n) {
        step(n);
        add(r.base, n * V);
    };
    // Vector 0 into A; line 0 through B, whose lanes the head masks drop.
    vec(r.A_a, r.A_b, 0, false);
    line(r.B_a, r.A_a, r.B_b, r.A_b, 0, &k3, &k4);
    next(1);
    // Vectors 1 .. nv - 2, two per trip: prev alternates between A and B.
    const int64_t mid = nv - 2;
    if (mid >= 2) {
        Xbyak::Label l_two;
        mov(r.cnt, mid / 2);
        L(l_two); {
            vec(r.B_a, r.B_b, 0, false);
            line(r.A_a, r.B_a, r.A_b, r.B_b, 0, nullptr, nullptr);
            vec(r.A_a, r.A_b, 1, false);
            line(r.B_a, r.A_a, r.B_b, r.A_b, V, nullptr, nullptr);
            next(2);
            dec(r.cnt);
            jnz(l_two, T_NEAR);
        }
    }
    const bool prev_in_b = mid % 2 == 1;
    if (prev_in_b) {
        vec(r.B_a, r.B_b, 0, false);
        line(r.A_a, r.B_a, r.A_b, r.B_b, 0, nullptr, nullptr);
        next(1);
    }
    // prev is A (mid even) or B (odd); the last vector into the other, then lines nv - 1 and
    // nv under their masks: last, lanes < t + m (index < t + lanes); next, lanes < t + m -
    // lanes (index < t).
    const Zmm &pa = prev_in_b ? r.B_a : r.A_a, &ca = prev_in_b ? r.A_a : r.B_a;
    const Zmm &pb = prev_in_b ? r.B_b : r.A_b, &cb = prev_in_b ? r.A_b : r.B_b;
    vec(ca, cb, 0, true);
    cmp(k3, r.idx_a, r.t_lanes, 1);  // less than
    cmp(k5, r.idx_a, r.t_only, 1);
    if (second) {
        cmp(k4, r.idx_b, r.t_lanes, 1);
        cmp(k6, r.idx_b, r.t_only, 1);
    }
    line(pa, ca, pb, cb, 0, &k3, &k4);
    line(ca, ca, cb, cb, V, &k5, &k6);  // line nv: elements of the last vector only
}

}  // namespace xinterp
