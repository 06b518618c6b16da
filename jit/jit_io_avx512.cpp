// The AVX-512 spellings of jit_io's loads and stores: zmm, opmask tails and EVEX conversions.
// Same results, bit for bit, as the AVX2 spellings. Every masked memory access is a plain masked
// move (vmovups / vmovdqu16), whose masked-out elements are neither read nor faulted; widening
// and narrowing happen in registers. (A masked vpmovzxwd or vcvtph2ps from memory faulted on
// the guard page under Bochs: its fault suppression is not something to lean on.)
#include "jit_io.hpp"

namespace xinterp {

using namespace Xbyak;

template <>
void jit_io::load_tail_mask(const Zmm &, int64_t lanes) {
    load_kmask(k_tail, (uint64_t(1) << lanes) - 1, 16);
}

// Exactly 8 or 4 elements: the ymm or xmm move of those elements, unmasked. The register
// ends up as the zero-masked zmm load would leave it, and memory sees the same bytes; but an
// unaligned zmm access spans two lines whatever its mask, and the narrow one only where those
// elements do (the last vectors of NXC pixels, jit_interp_kernel::tail_lanes).
namespace {
bool narrow_part(int64_t n) { return n == 8 || n == 4; }
}  // namespace

template <>
void jit_io::load_f32(data_type dt, const Zmm &v, const Address &a, int64_t n) {
    // A whole register's elements: the zmm, or (narrow_part) the ymm or xmm of exactly n.
    auto whole = [&](const auto &x) {
        if (dt == data_type::f32) {
            vmovups(x, a);
        } else if (dt == data_type::bf16) {
            vpmovzxwd(x, a);
            vpslld(x, x, 16);
        } else {
            vcvtph2ps(x, a);
        }
    };
    if (n == simd_w_) return whole(v);
    if (narrow_part(n)) return n == 8 ? whole(Ymm(v.getIdx())) : whole(Xmm(v.getIdx()));
    load_tail_mask(v, n);
    if (dt == data_type::f32) return vmovups(v | k_tail | T_z, a);
    const Ymm half(v.getIdx());
    vmovdqu16(half | k_tail | T_z, a);
    if (dt == data_type::bf16) {
        vpmovzxwd(v, half);
        vpslld(v, v, 16);
    } else {
        vcvtph2ps(v, half);
    }
}

template <>
void jit_io::load_u32(const Zmm &v, const Address &a, int64_t n) {
    if (n == simd_w_) {
        vpmovzxwd(v, a);
        return;
    }
    load_tail_mask(v, n);
    vmovdqu16(Ymm(v.getIdx()) | k_tail | T_z, a);
    vpmovzxwd(v, Ymm(v.getIdx()));
}

// bf16 as VCVTNEPS2BF16: the native instruction where the tier has it, else the same integer
// emulation as AVX2, with opmask merges instead of blends. 16 words in Ymm(kT0) either way.
template <>
void jit_io::cvt_to_bf16(const Zmm &x) {
    const Ymm out(kT0);
    if (native_bf16_) {
        vcvtneps2bf16(out, x);
        return;
    }
    const Zmm t1(kT0), t2(kT1), t3(kT2);
    vpsrld(t2, x, 16);
    vpandd(t1, t2, ptr[rip + l_const_one]);
    vpaddd(t1, t1, ptr[rip + l_const_7fff]);
    vpaddd(t1, t1, x);
    vpsrld(t1, t1, 16);
    // The fixups, which kFlagBf16Clean executions skip (no NaN, no denormal can occur).
    bf16_paths([] {},
               [&] {
                   vcmpps(k_tmp, x, x, 3);  // unordered: NaN
                   vpord(t3, t2, ptr[rip + l_const_0040]);
                   vmovdqa32(t1 | k_tmp, t3);
                   vptestnmd(k_tmp, x, ptr[rip + l_const_exp]);  // exponent 0: zero or denormal
                   vpandd(t3, t2, ptr[rip + l_const_8000]);
                   vmovdqa32(t1 | k_tmp, t3);
               });
    vpmovdw(out, t1);  // every dword is <= 0xffff: truncation is exact
}

// The same roundings as store_f32's, two vectors at a time: vcvtne2ps2bf16 rounds as
// vcvtneps2bf16 does; f16 takes two vcvtps2ph and an insert.
void jit_io::round_words(data_type dt, const Zmm &r, const Zmm &x0, const Zmm &x1, bool two, const Ymm &tmp) {
    if (dt == data_type::bf16 && two) return vcvtne2ps2bf16(r, x1, x0);  // words 0-15 from the last operand
    if (dt == data_type::bf16) return vcvtneps2bf16(Ymm(r.getIdx()), x0);
    vcvtps2ph(Ymm(r.getIdx()), x0, 0);  // imm 0: round to nearest even, never MXCSR.RC
    if (!two) return;
    vcvtps2ph(tmp, x1, 0);
    vinserti64x4(r, r, tmp, 1);
}

template <>
void jit_io::store_f32(data_type dt, const Address &a, const Zmm &v, int64_t n, bool nt) {
    const Ymm yt(kT0);
    if (narrow_part(n)) {  // as in load_f32; no NT (a part of a line)
        if (dt == data_type::f32) {
            if (n == 8) vmovups(a, Ymm(v.getIdx()));
            else vmovups(a, Xmm(v.getIdx()));
            return;
        }
        if (dt == data_type::bf16) cvt_to_bf16(v);
        else vcvtps2ph(yt, v, 0);  // imm 0, as below
        if (n == 8) vmovdqu(a, Xmm(kT0));
        else vmovq(a, Xmm(kT0));
        return;
    }
    const bool full = n == simd_w_;
    if (!full) load_tail_mask(v, n);
    switch (dt) {
        case data_type::f32:
            if (!full) vmovups(a | k_tail, v);
            else if (nt) vmovntps(a, v);
            else vmovups(a, v);
            break;
        case data_type::bf16:
            cvt_to_bf16(v);
            if (!full) vmovdqu16(a | k_tail, yt);
            else if (nt) vmovntdq(a, yt);
            else vmovdqu(a, yt);
            break;
        case data_type::f16:
            // imm 0: round to nearest even from the immediate, never from MXCSR.RC. Into a
            // register, then a store, as on AVX2 (the memory form is slow on AMD).
            vcvtps2ph(yt, v, 0);
            if (!full) vmovdqu16(a | k_tail, yt);
            else if (nt) vmovntdq(a, yt);
            else vmovdqu(a, yt);
            break;
    }
}

template <>
void jit_io::store_u32_bits(int esize, const Address &a, const Zmm &v, int64_t n, bool nt, const Address *also) {
    const bool full = n == simd_w_;
    if (!full) load_tail_mask(v, n);
    if (esize == 2) vpmovdw(Ymm(kT0), v);  // zero-extended 16-bit bits: truncation is exact
    for (const Address *to : {&a, also}) {
        if (!to) continue;
        if (esize == 4) {
            if (!full) vmovups(*to | k_tail, v);
            else if (nt) vmovntps(*to, v);
            else vmovups(*to, v);
        } else if (!full) {
            vmovdqu16(*to | k_tail, Ymm(kT0));
        } else if (nt) {
            vmovntdq(*to, Ymm(kT0));
        } else {
            vmovdqu(*to, Ymm(kT0));
        }
    }
}

}  // namespace xinterp
