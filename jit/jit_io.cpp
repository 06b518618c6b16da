#include "jit_io.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace xinterp {

using namespace Xbyak;

// Tail masks come from one 2*simd_w-dword table (simd_w ones, then simd_w zeros): loading at
// dword (simd_w - n) gives n leading ones, so any tail length costs one load and no branch.
template <typename Vmm>
void jit_io::load_tail_mask(const Vmm &m, int64_t lanes) {
    vmovups(m, ptr[rip + l_const_tail + static_cast<int>((simd_w_ - lanes) * 4)]);
}

// n (< simd_w) 16-bit elements into the low words of x, with exact-size moves: whole dword
// pairs through vpmaskmovd (masked lanes are neither read nor faulted), the odd one by vpinsrw.
void jit_io::load_words(const Xmm &x, const Address &a, int64_t n) {
    const RegExp e = a.getRegExp();
    if (n >= 2) {
        load_tail_mask(Xbyak::Ymm(kMask), n / 2);
        vpmaskmovd(x, Xmm(kMask), ptr[e]);
    } else {
        vpxor(x, x, x);
    }
    if (n & 1) vpinsrw(x, x, ptr[e + static_cast<int>((n - 1) * 2)], static_cast<int>(n - 1));
}

void jit_io::store_words(const Address &a, const Xmm &x, int64_t n) { store_bytes(a, x, static_cast<int>(2 * n)); }

// The low `bytes` (even, < 32) bytes of register idx with plain stores of 16, 8, 4 and 2 bytes,
// at most four of them. AVX2's masked stores (vmaskmovps, vpmaskmovd) decode to tens of uops on
// AMD Zen and are slow on Intel too; exact-size pieces write the same bytes, and no others.
void jit_io::store_bytes(const Address &a, const Xmm &v, int bytes) {
    const RegExp e = a.getRegExp();
    int at = 0;  // bytes written
    Xmm x(v.getIdx());
    if (bytes >= 16) {
        vmovups(ptr[e], x);
        at = 16;
        if (bytes == 16) return;  // nothing left for the high half
        vextractf128(Xmm(kT1), Ymm(v.getIdx()), 1);
        x = Xmm(kT1);
    }
    // The rest sits in x from byte (at % 16).
    if (bytes - at >= 8) {
        vmovq(ptr[e + at], x);
        at += 8;
    }
    if (bytes - at >= 4) {
        if (at % 16 == 0) vmovd(ptr[e + at], x);
        else vpextrd(ptr[e + at], x, (at % 16) / 4);
        at += 4;
    }
    if (bytes - at >= 2) vpextrw(ptr[e + at], x, (at % 16) / 2);
}

// bf16/f16 widen exactly: bf16 is the top half of an f32, f16 goes through F16C.
template <typename Vmm>
void jit_io::load_f32(data_type dt, const Vmm &v, const Address &a, int64_t n) {
    const Xmm x(v.getIdx());
    const bool full = n == simd_w_;
    const Vmm vmm_mask(kMask);
    switch (dt) {
        case data_type::f32:
            if (full) {
                vmovups(v, a);
            } else {
                load_tail_mask(vmm_mask, n);
                vmaskmovps(v, vmm_mask, a);
            }
            break;
        case data_type::bf16:
        case data_type::f16:
            if (full && dt == data_type::bf16) {
                vpmovzxwd(v, a);
                vpslld(v, v, 16);
            } else if (full) {
                vcvtph2ps(v, a);
            } else {
                load_words(x, a, n);
                widen_words(dt, v, x);
            }
            break;
    }
}

template <typename Vmm>
void jit_io::widen_words(data_type dt, const Vmm &v, const Xmm &x) {
    if (dt == data_type::bf16) {
        vpmovzxwd(v, x);
        vpslld(v, v, 16);
    } else {
        vcvtph2ps(v, x);
    }
}

template <typename Vmm>
void jit_io::load_u32(const Vmm &v, const Address &a, int64_t n) {
    if (n == simd_w_) {
        vpmovzxwd(v, a);
    } else {
        load_words(Xmm(v.getIdx()), a, n);
        vpmovzxwd(v, Xmm(v.getIdx()));
    }
}

// f32 -> bf16 exactly as VCVTNEPS2BF16 (semantics.md): RNE by adding 0x7fff + lsb, then
// NaN -> (x >> 16) | 0x40, and exponent 0 (zero or denormal) -> signed zero (round_bf16_full),
// or on kFlagBf16Clean executions Veltkamp's split (round_bf16_clean). The full rule is integer
// ops only; the split's FP ops run under the kernels' default MXCSR. Leaves 8 words in
// Xmm(kT0).
template <typename Vmm>
void jit_io::cvt_to_bf16(const Vmm &x) {
    const Vmm t1(kT0), t2(kT1);
    if (native_bf16_) {  // the bf16 tier's 256-bit kernels: the instruction's EVEX ymm form
        vcvtneps2bf16(Xmm(kT0), x, EvexEncoding);
        return;
    }
    bf16_paths(
        [&] { round_bf16_clean(t1, x, t2); },
        [&] { round_bf16_full(x); });
    // Dwords hold values <= 0xffff, so unsigned saturation is exact; vpackusdw packs within
    // 128-bit lanes, and vpermq brings qwords 0 and 2 together.
    vpackusdw(t1, t1, t1);
    vpermq(t1, t1, 0x08);
}

// Round to nearest even where no value is NaN, infinite or denormal (kFlagBf16Clean), by
// Veltkamp's split: g = x * (2^16 + 1), hi = g - (g - x) is x rounded to nearest even at 8
// significant bits, the bf16 precision, with zeros in its low 16 bits. An exhaustive check of
// all 2^32 patterns finds it exact for both zeros and every normal x of biased exponent <= 237
// (above that g overflows), which the clean bounds keep every value within. Spelled g - (g - x)
// rather than g + (x - g), which turns -0 into +0. Three FP ops and a shift, on the add and
// multiply pipes, where the integer spelling takes five. The bf16 lands in the low 16 bits of
// r's dwords; t is scratch.
template <typename Vmm>
void jit_io::round_bf16_clean(const Vmm &r, const Vmm &x, const Vmm &t) {
    split_bf16(r, x, t);
    vpsrld(r, r, 16);
}

template <typename Vmm>
void jit_io::split_bf16(const Vmm &r, const Vmm &x, const Vmm &t) {
    vmulps(t, x, ptr[rip + l_const_split]);
    vsubps(r, t, x);
    vsubps(r, t, r);
}

// The exact rule for every value, one vector, into the low 16 bits of Vmm(kT0)'s dwords.
template <typename Vmm>
void jit_io::round_bf16_full(const Vmm &x) {
    const Vmm t1(kT0), t2(kT1), t3(kT2), t4(kT3);
    vpsrld(t2, x, 16);
    vpand(t1, t2, ptr[rip + l_const_one]);
    vpaddd(t1, t1, ptr[rip + l_const_7fff]);
    vpaddd(t1, t1, x);
    vpsrld(t1, t1, 16);
    vpor(t3, t2, ptr[rip + l_const_0040]);
    vcmpunordps(t4, x, x);
    vblendvps(t1, t1, t3, t4);
    vpand(t3, t2, ptr[rip + l_const_8000]);
    vpand(t4, x, ptr[rip + l_const_exp]);
    vpxor(t2, t2, t2);
    vpcmpeqd(t4, t4, t2);
    vblendvps(t1, t1, t3, t4);
}

// Two vectors at once: on kFlagBf16Clean executions, 10 instructions per 16 outputs; else the
// full rule at 22 (cvt2_to_bf16_full).
void jit_io::cvt2_to_bf16(const Ymm &x0, const Ymm &x1) {
    const Ymm t0(kT0), t1(kT1), t2(kT2), t3(kT3);
    if (native_bf16_) {  // words 0-7 from the last operand (x0), 8-15 from x1
        vcvtne2ps2bf16(t0, x1, x0);
        return;
    }
    bf16_paths(
        [&] {
            round_bf16_clean(t0, x0, t2);
            round_bf16_clean(t1, x1, t3);
            vpackusdw(t0, t0, t1);
            vpermq(t0, t0, 0xd8);
        },
        [&] { cvt2_to_bf16_full(x0, x1, false); });
}

// The clean path leaves odd's Veltkamp result where it is: its bf16 is already the high half
// of each dword, and the even one's shifted down fills the low half (8 instructions per 16
// outputs). The full rule is cvt2_to_bf16_full's, whose in-lane vpshufb interleaves the
// packed words where the in-order rule's vpermq would put the qwords back.
void jit_io::cvt2_to_bf16_interleaved(const Ymm &even, const Ymm &odd) {
    const Ymm t0(kT0), t1(kT1), t2(kT2), t3(kT3);
    if (native_bf16_) {
        // even's eight words, then odd's, then one word permute (AVX512BW+VL) into
        // even[0], odd[0], even[1], ...: word 2i takes word i, word 2i + 1 word 8 + i.
        static constexpr int32_t kZipWords[8] = {0x00080000, 0x00090001, 0x000a0002, 0x000b0003,
                                                 0x000c0004, 0x000d0005, 0x000e0006, 0x000f0007};
        vcvtne2ps2bf16(t1, odd, even);
        vmovdqu(t0, ptr[rip + pool_vec8(kZipWords)]);
        vpermw(t0, t0, t1);
        return;
    }
    bf16_paths(
        [&] {
            round_bf16_clean(t0, even, t1);
            split_bf16(t3, odd, t2);
            vpor(t0, t0, t3);
        },
        [&] { cvt2_to_bf16_full(even, odd, true); });
}

// Per pair of vectors: 10 dword ops for the rounding (as round_bf16_full), then everything else
// on 16 packed words: 22 instructions per 16 outputs instead of 30. NaN lanes come from
// vcmpunordps (a NaN whose high half looks like infinity needs the low half to tell);
// exponent-zero lanes keep only their sign.
void jit_io::cvt2_to_bf16_full(const Ymm &x0, const Ymm &x1, bool interleave) {
    const Ymm t0(kT0), t1(kT1), t2(kT2), t3(kT3);
    vpsrld(t0, x0, 16);
    vpsrld(t1, x1, 16);
    auto round = [&](const Ymm &t, const Ymm &h, const Ymm &x) {
        vpand(t, h, ptr[rip + l_const_one]);
        vpaddd(t, t, ptr[rip + l_const_7fff]);
        vpaddd(t, t, x);
        vpsrld(t, t, 16);
    };
    round(t2, t0, x0);
    round(t3, t1, x1);
    // Dwords hold values <= 0xffff, so unsigned saturation is exact; the packs interleave the
    // two inputs per 128-bit lane, and the final vpermq (0xd8) puts the qwords back in order.
    vpackusdw(t2, t2, t3);  // R: rounded
    vpackusdw(t0, t0, t1);  // H: high halves
    vcmpunordps(t1, x0, x0);
    vcmpunordps(t3, x1, x1);
    vpackssdw(t1, t1, t3);  // NaN lanes, as words
    vpor(t3, t0, ptr[rip + l_const_w0040]);
    vpblendvb(t2, t2, t3, t1);
    vpand(t1, t0, ptr[rip + l_const_w7f80]);
    vpxor(t3, t3, t3);
    vpcmpeqw(t1, t1, t3);  // exponent zero
    vpand(t1, t1, ptr[rip + l_const_w7fff]);
    vpandn(t2, t1, t2);  // zero or denormal: the sign alone
    if (interleave) {
        // Each 128-bit lane holds x0's four words, then x1's: word j of the lane takes x0's
        // word j / 2 (even j) or x1's (odd j).
        static constexpr int32_t kZip[8] = {0x09080100, 0x0b0a0302, 0x0d0c0504, 0x0f0e0706,
                                            0x09080100, 0x0b0a0302, 0x0d0c0504, 0x0f0e0706};
        vpshufb(t0, t2, ptr[rip + pool_vec8(kZip)]);
    } else {
        vpermq(t0, t2, 0xd8);
    }
}

void jit_io::store_bf16_pair(const Address &a, bool nt, bool aligned32) {
    const Ymm res(kT0);
    if (!nt) {
        vmovdqu(a, res);
    } else if (aligned32) {
        vmovntdq(a, res);
    } else {
        const RegExp e = a.getRegExp();
        vmovntdq(ptr[e], Xmm(kT0));
        vextracti128(Xmm(kT1), res, 1);
        vmovntdq(ptr[e + 16], Xmm(kT1));
    }
}

// Each window broadcast to both lanes, then a blend (any FP pipe), where vmovups xmm +
// vinsertf128 ymm, m128 takes a shuffle pipe for the second window. A/B in one process on the
// dev VM (Zen 3), linear NCX f32: img_up, seg_8x, c17, c23 and r15to73 ran 0.97-1.0x the time
// (in a loop of lane windows alone, 0.8x).
void jit_io::load_lane_windows(const Ymm &w, const Address &lo, const Address &hi, const Ymm &tmp) {
    vbroadcastf128(w, lo);
    vbroadcastf128(tmp, hi);
    vblendps(w, w, tmp, 0xf0);
}

template <typename Vmm>
void jit_io::store_f32(data_type dt, const Address &a, const Vmm &v, int64_t n, bool nt) {
    const Xmm xt(kT0);
    const bool full = n == simd_w_;
    switch (dt) {
        case data_type::f32:
            if (full && nt) vmovntps(a, v);
            else if (full) vmovups(a, v);
            else store_bytes(a, Xmm(v.getIdx()), static_cast<int>(4 * n));
            break;
        case data_type::bf16:
            cvt_to_bf16(v);
            if (full) {
                if (nt) vmovntdq(a, xt);
                else vmovdqu(a, xt);
            } else {
                store_words(a, xt, n);
            }
            break;
        case data_type::f16:
            // imm 0: round to nearest even from the immediate, never from MXCSR.RC. Into a
            // register, then a store: on Zen 3 the memory form issues every 1.8 cycles, the
            // register form and a vmovdqu every 0.9 (Intel: the same uops either way).
            vcvtps2ph(xt, v, 0);
            if (full && nt) vmovntdq(a, xt);
            else if (full) vmovdqu(a, xt);
            else store_words(a, xt, n);
            break;
    }
}

template <typename Vmm>
void jit_io::store_u32_bits(int esize, const Address &a, const Vmm &v, int64_t n, bool nt, const Address *also) {
    const Vmm vmm_t0(kT0);
    const Xmm xt(kT0);
    if (esize == 2) {
        vpackusdw(vmm_t0, v, v);
        vpermq(vmm_t0, vmm_t0, 0x08);
    }
    for (const Address *to : {&a, also}) {
        if (!to) continue;
        if (esize == 4) {
            if (n == simd_w_ && nt) vmovntps(*to, v);
            else if (n == simd_w_) vmovups(*to, v);
            else store_bytes(*to, Xmm(v.getIdx()), static_cast<int>(4 * n));
        } else if (n == simd_w_) {
            if (nt) vmovntdq(*to, xt);
            else vmovdqu(*to, xt);
        } else {
            store_words(*to, xt, n);
        }
    }
}

Xbyak::Label &jit_io::pool_const(uint64_t value) {
    for (auto &e : pool_)
        if (e.first == value) return *e.second;
    pool_.emplace_back(value, std::make_unique<Xbyak::Label>());
    return *pool_.back().second;
}

void jit_io::aligned_line_consts(int esize, int64_t row_out, const Xbyak::Zmm &iota, const Xbyak::Zmm &lanes, const Xbyak::Zmm &t_lanes,
                                 const Xbyak::Zmm &t_only, const Xbyak::Reg32 &tmp) {
    static constexpr int32_t kIota0[8] = {0, 1, 2, 3, 4, 5, 6, 7}, kIota8[8] = {8, 9, 10, 11, 12, 13, 14, 15};
    static constexpr int32_t kWords0[8] = {0x10000, 0x30002, 0x50004, 0x70006, 0x90008, 0xb000a, 0xd000c, 0xf000e};
    static constexpr int32_t kWords16[8] = {0x110010, 0x130012, 0x150014, 0x170016, 0x190018, 0x1b001a, 0x1d001c, 0x1f001e};
    const bool words = esize == 2;
    vmovdqu32(Xbyak::Ymm(iota.getIdx()), ptr[rip + pool_vec8(words ? kWords0 : kIota0)]);
    vinserti32x8(iota, iota, ptr[rip + pool_vec8(words ? kWords16 : kIota8)], 1);
    const int n = 64 / esize, t = static_cast<int>(row_out - (row_out - 1) / n * n);  // 1..n
    for (const auto &[z, v] : {std::pair<Xbyak::Zmm, int>{lanes, n}, {t_lanes, t + n}, {t_only, t}}) {
        mov(tmp, v);
        if (words) vpbroadcastw(z, tmp.cvt16());
        else vpbroadcastd(z, tmp);
    }
}

void jit_io::aligned_line_index(int esize, const Xbyak::Reg64 &addr, const Xbyak::Reg64 &m_bytes, const Xbyak::Reg32 &tmp,
                                const Xbyak::Zmm &idx, const Xbyak::Zmm &iota) {
    const int n = 64 / esize, shift = esize == 2 ? 1 : 2;
    mov(m_bytes, addr);
    shr(m_bytes, shift);
    and_(m_bytes.cvt32(), n - 1);  // m
    mov(tmp, n);
    sub(tmp, m_bytes.cvt32());
    if (esize == 2) {
        vpbroadcastw(idx, tmp.cvt16());
        vpaddw(idx, idx, iota);  // n - m + i
    } else {
        vpbroadcastd(idx, tmp);
        vpaddd(idx, idx, iota);
    }
    shl(m_bytes, shift);
}

Xbyak::Label &jit_io::pool_vec8(const int32_t (&v)[8]) {
    const std::vector<int32_t> key(v, v + 8);
    for (auto &e : pool_vec8_)
        if (e.first == key) return *e.second;
    pool_vec8_.emplace_back(key, std::make_unique<Xbyak::Label>());
    return *pool_vec8_.back().second;
}

void jit_io::load_kmask(const Opmask &k, uint64_t bits, int width) {
    if (width == 64) kmovq(k, qword[rip + pool_const(bits)]);
    else kmovw(k, word[rip + pool_const(bits)]);
}

void jit_io::finish_code() {
    text_size_ = getSize();
    align(simd_w_ * 4);
    // Only the constants the code refers to: a Label gets its id at its first use, and the
    // pool is a tenth of a kernel's creation time when every splat goes in.
    // Dwords go in with one copy each, not Xbyak's db() per byte (setSize checks the room).
    auto put = [&](const uint32_t *v, int n) {
        const size_t at = getSize(), bytes = static_cast<size_t>(n) * 4;
        setSize(at + bytes);
        std::memcpy(const_cast<uint8_t *>(getCode()) + at, v, bytes);
    };
    uint32_t v16[32];
    if (l_const_tail.getId() != 0) {
        L(l_const_tail);
        for (int i = 0; i < 2 * simd_w_; ++i) v16[i] = i < simd_w_ ? 0xffffffffu : 0u;
        put(v16, 2 * simd_w_);
    }
    auto splat = [&](Label &l, uint32_t v) {
        if (l.getId() == 0) return;
        L(l);
        std::fill(v16, v16 + simd_w_, v);
        put(v16, simd_w_);
    };
    splat(l_const_one, 0x1u);
    splat(l_const_7fff, 0x7fffu);
    splat(l_const_0040, 0x40u);
    splat(l_const_8000, 0x8000u);
    splat(l_const_exp, 0x7f800000u);
    splat(l_const_w0040, 0x00400040u);
    splat(l_const_w7f80, 0x7f807f80u);
    splat(l_const_w7fff, 0x7fff7fffu);
    splat(l_const_split, 0x47800080u);  // 65537.0f
    for (auto &e : pool_) {
        L(*e.second);
        dq(e.first);
    }
    if (!pool_vec8_.empty()) align(32);
    for (auto &e : pool_vec8_) {
        L(*e.second);
        put(reinterpret_cast<const uint32_t *>(e.first.data()), static_cast<int>(e.first.size()));
    }
    finalize();
}

// The register types the ISAs of this build use.
template void jit_io::load_tail_mask(const Ymm &, int64_t);
template void jit_io::load_f32(data_type, const Ymm &, const Address &, int64_t);
template void jit_io::load_u32(const Ymm &, const Address &, int64_t);
template void jit_io::store_f32(data_type, const Address &, const Ymm &, int64_t, bool);
template void jit_io::store_u32_bits(int, const Address &, const Ymm &, int64_t, bool, const Address *);
template void jit_io::cvt_to_bf16(const Ymm &);
template void jit_io::round_bf16_clean(const Ymm &, const Ymm &, const Ymm &);
template void jit_io::split_bf16(const Ymm &, const Ymm &, const Ymm &);
template void jit_io::round_bf16_full(const Ymm &);
template void jit_io::widen_words(data_type, const Ymm &, const Xmm &);

}  // namespace xinterp
