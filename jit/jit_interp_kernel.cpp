#include "jit_interp_kernel.hpp"

#include <cstddef>

namespace xinterp {

using namespace Xbyak;

namespace {
constexpr size_t kMaxCodeSize = 16 * 1024;  // the largest kernel (3-D NXC bf16 linear) is ~3 KB
#define ARG(field) ptr[reg_args + static_cast<int>(offsetof(jit_args, field))]
}  // namespace

template <cpu_isa isa>
jit_interp_kernel<isa>::jit_interp_kernel(const jit_conf &conf) : jit_generator(kMaxCodeSize), conf_(conf) {}

// Tail masks come from one 2*simd_w-dword table (simd_w ones, then simd_w zeros): loading at
// dword (simd_w - n) gives n leading ones, so any tail length costs one load and no branch.
template <cpu_isa isa>
void jit_interp_kernel<isa>::load_tail_mask(const Vmm &m, int64_t lanes) {
    vmovups(m, ptr[rip + l_const_tail + static_cast<int>((simd_w - lanes) * 4)]);
}

// n (< simd_w) 16-bit elements into the low words of x, with exact-size moves: whole dword
// pairs through vpmaskmovd (masked lanes are neither read nor faulted), the odd one by vpinsrw.
template <cpu_isa isa>
void jit_interp_kernel<isa>::load_words(const Xmm &x, const Address &a, int64_t n) {
    const RegExp e = a.getRegExp();
    if (n >= 2) {
        load_tail_mask(vmm_mask, n / 2);
        vpmaskmovd(x, Xmm(vmm_mask.getIdx()), ptr[e]);
    } else {
        vpxor(x, x, x);
    }
    if (n & 1) vpinsrw(x, x, ptr[e + static_cast<int>((n - 1) * 2)], static_cast<int>(n - 1));
}

template <cpu_isa isa>
void jit_interp_kernel<isa>::store_words(const Address &a, const Xmm &x, int64_t n) {
    const RegExp e = a.getRegExp();
    if (n >= 2) {
        load_tail_mask(vmm_mask, n / 2);
        vpmaskmovd(ptr[e], Xmm(vmm_mask.getIdx()), x);
    }
    if (n & 1) vpextrw(ptr[e + static_cast<int>((n - 1) * 2)], x, static_cast<int>(n - 1));
}

// bf16/f16 widen exactly: bf16 is the top half of an f32, f16 goes through F16C.
template <cpu_isa isa>
void jit_interp_kernel<isa>::load_f32(const Vmm &v, const Address &a, int64_t n) {
    const Xmm x(v.getIdx());
    const bool full = n == simd_w;
    switch (conf_.dt) {
        case data_type::f32:
            if (full) {
                vmovups(v, a);
            } else {
                load_tail_mask(vmm_mask, n);
                vmaskmovps(v, vmm_mask, a);
            }
            break;
        case data_type::bf16:
            if (full) {
                vpmovzxwd(v, a);
            } else {
                load_words(x, a, n);
                vpmovzxwd(v, x);
            }
            vpslld(v, v, 16);
            break;
        case data_type::f16:
            if (full) {
                vcvtph2ps(v, a);
            } else {
                load_words(x, a, n);
                vcvtph2ps(v, x);
            }
            break;
    }
}

// Nearest on staged 16-bit rows moves raw bits, zero-extended to dwords.
template <cpu_isa isa>
void jit_interp_kernel<isa>::load_u32(const Vmm &v, const Address &a, int64_t n) {
    if (n == simd_w) {
        vpmovzxwd(v, a);
    } else {
        load_words(Xmm(v.getIdx()), a, n);
        vpmovzxwd(v, Xmm(v.getIdx()));
    }
}

// f32 -> bf16 exactly as VCVTNEPS2BF16 (semantics.md): RNE by adding 0x7fff + lsb, then
// NaN -> (x >> 16) | 0x40, and exponent 0 (zero or denormal) -> signed zero. Integer ops only,
// so the result does not depend on MXCSR. Leaves 8 words in Xmm(vmm_a).
template <cpu_isa isa>
void jit_interp_kernel<isa>::cvt_to_bf16(const Vmm &x) {
    const Vmm t1 = vmm_a, t2 = vmm_b, t3 = vmm_rw[0], t4 = vmm_rw[1];
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
    // Dwords hold values <= 0xffff, so unsigned saturation is exact; vpackusdw packs within
    // 128-bit lanes, and vpermq brings qwords 0 and 2 together.
    vpackusdw(t1, t1, t1);
    vpermq(t1, t1, 0x08);
}

template <cpu_isa isa>
void jit_interp_kernel<isa>::store_f32(const Address &a, const Vmm &v, int64_t n) {
    const Xmm xa(vmm_a.getIdx());
    const bool full = n == simd_w;
    switch (conf_.dt) {
        case data_type::f32:
            if (full) {
                vmovups(a, v);
            } else {
                load_tail_mask(vmm_mask, n);
                vmaskmovps(a, vmm_mask, v);
            }
            break;
        case data_type::bf16:
            cvt_to_bf16(v);
            if (full) vmovdqu(a, xa);
            else store_words(a, xa, n);
            break;
        case data_type::f16:
            // imm 0: round to nearest even from the immediate, never from MXCSR.RC.
            if (full) {
                vcvtps2ph(a, v, 0);
            } else {
                vcvtps2ph(xa, v, 0);
                store_words(a, xa, n);
            }
            break;
    }
}

template <cpu_isa isa>
void jit_interp_kernel<isa>::store_u32_bits(const Address &a, const Vmm &v, int64_t n) {
    if (conf_.esize == 4) {
        if (n == simd_w) {
            vmovups(a, v);
        } else {
            load_tail_mask(vmm_mask, n);
            vmaskmovps(a, vmm_mask, v);
        }
        return;
    }
    const Xmm xa(vmm_a.getIdx());
    vpackusdw(vmm_a, v, v);
    vpermq(vmm_a, vmm_a, 0x08);
    if (n == simd_w) vmovdqu(a, xa);
    else store_words(a, xa, n);
}

// The H and D steps of the canonical order, on W results already in vmm_rw[] (k >= 2).
// D tap 0's H result is kept in vmm_hd0; D tap 1's is formed in place in vmm_rw[0].
template <cpu_isa isa>
void jit_interp_kernel<isa>::combine_taps(const Vmm &out) {
    vmulps(out, vmm_wh0, vmm_rw[0]);
    vfmadd231ps(out, vmm_wh1, vmm_rw[1]);
}

template <cpu_isa isa>
void jit_interp_kernel<isa>::gen_nxc_linear() {
    const jit_conf &c = conf_;
    mov(reg_dst, ARG(dst));
    mov(reg_tab, ARG(wtab));
    mov(reg_row[0], ARG(src[0]));
    for (int t = 1; t < c.n_taps; ++t) {
        mov(reg_row[t], ptr[reg_args + static_cast<int>(offsetof(jit_args, src) + 8 * t)]);
        sub(reg_row[t], reg_row[0]);
    }
    if (c.nh == 2) {
        vbroadcastss(vmm_wh0, ARG(wh[0]));
        vbroadcastss(vmm_wh1, ARG(wh[1]));
    }
    if (c.nd == 2) {
        vbroadcastss(vmm_wd0, ARG(wd[0]));
        vbroadcastss(vmm_wd1, ARG(wd[1]));
    }
    auto compute = [&](int64_t n) {
        for (int d = 0; d < c.nd; ++d) {
            for (int h = 0; h < c.nh; ++h) {
                const int t = d * c.nh + h;
                const RegExp ea = t ? reg_p0 + reg_row[t] : RegExp(reg_p0);
                const RegExp eb = t ? reg_p1 + reg_row[t] : RegExp(reg_p1);
                load_f32(vmm_a, ptr[ea], n);
                load_f32(vmm_b, ptr[eb], n);
                const Vmm r = c.k == 1 ? vmm_hd0 : vmm_rw[h];
                vmulps(r, vmm_w0, vmm_a);
                vfmadd231ps(r, vmm_w1, vmm_b);
            }
            if (c.nh == 2) combine_taps(d == 0 ? vmm_hd0 : vmm_rw[0]);
        }
        if (c.nd == 2) {
            vmulps(vmm_hd0, vmm_wd0, vmm_hd0);
            vfmadd231ps(vmm_hd0, vmm_wd1, vmm_rw[0]);
        }
        store_f32(ptr[reg_dst], vmm_hd0, n);
    };
    Label l_ow, l_c;
    mov(reg_ow, c.OW);
    L(l_ow); {
        mov(reg_p0, ptr[reg_tab]);
        add(reg_p0, reg_row[0]);
        mov(reg_p1, ptr[reg_tab + 8]);
        add(reg_p1, reg_row[0]);
        vbroadcastss(vmm_w0, ptr[reg_tab + 16]);
        vbroadcastss(vmm_w1, ptr[reg_tab + 20]);
        if (c.c_full > 0) {
            mov(reg_cnt, c.c_full);
            L(l_c); {
                compute(simd_w);
                add(reg_p0, simd_w * c.esize);
                add(reg_p1, simd_w * c.esize);
                add(reg_dst, simd_w * c.esize);
                dec(reg_cnt);
                jnz(l_c, T_NEAR);
            }
        }
        if (c.c_tail > 0) {
            compute(c.c_tail);
            add(reg_dst, static_cast<int>(c.c_tail * c.esize));
        }
        add(reg_tab, c.wtab_stride);
        dec(reg_ow);
        jnz(l_ow, T_NEAR);
    }
}

// Nearest NXC is a bit copy of C * esize bytes per pixel: whole vectors, then 16/8/4/2-byte
// moves for the rest, so no byte outside the pixel is touched and no dtype logic is needed.
template <cpu_isa isa>
void jit_interp_kernel<isa>::gen_nxc_nearest() {
    const jit_conf &c = conf_;
    const int vlen = simd_w * 4;
    const int64_t full = c.c_bytes / vlen;
    const int rem = static_cast<int>(c.c_bytes % vlen);
    mov(reg_dst, ARG(dst));
    mov(reg_tab, ARG(wtab));
    mov(reg_row[0], ARG(src[0]));
    Label l_ow, l_v;
    mov(reg_ow, c.OW);
    L(l_ow); {
        mov(reg_p0, ptr[reg_tab]);
        add(reg_p0, reg_row[0]);
        if (full > 0) {
            mov(reg_cnt, full);
            L(l_v); {
                vmovdqu(vmm_a, ptr[reg_p0]);
                vmovdqu(ptr[reg_dst], vmm_a);
                add(reg_p0, vlen);
                add(reg_dst, vlen);
                dec(reg_cnt);
                jnz(l_v, T_NEAR);
            }
        }
        int off = 0;
        for (int chunk = 16; chunk >= 2; chunk /= 2) {
            if (rem - off < chunk) continue;
            switch (chunk) {
                case 16: vmovdqu(Xmm(vmm_a.getIdx()), ptr[reg_p0 + off]); vmovdqu(ptr[reg_dst + off], Xmm(vmm_a.getIdx())); break;
                case 8: mov(reg_tmp, qword[reg_p0 + off]); mov(qword[reg_dst + off], reg_tmp); break;
                case 4: mov(reg_tmp.cvt32(), dword[reg_p0 + off]); mov(dword[reg_dst + off], reg_tmp.cvt32()); break;
                case 2: mov(reg_tmp.cvt16(), word[reg_p0 + off]); mov(word[reg_dst + off], reg_tmp.cvt16()); break;
            }
            off += chunk;
        }
        if (rem) add(reg_dst, rem);
        add(reg_tab, 8);
        dec(reg_ow);
        jnz(l_ow, T_NEAR);
    }
}

// 16-bit NCX rows are widened once per call into scratch (f32 for linear, zero-extended bits
// for nearest, padded to iw_pad lanes) with exact-size loads; gathers then read only scratch.
template <cpu_isa isa>
void jit_interp_kernel<isa>::gen_ncx_stage() {
    const jit_conf &c = conf_;
    const bool lin = c.algorithm == alg::linear;
    mov(reg_scr, ARG(scratch));
    for (int t = 0; t < c.n_taps; ++t) {
        mov(reg_src, reg_row[t]);
        lea(reg_row[t], ptr[reg_scr + static_cast<int>(t * c.iw_pad * 4)]);
        mov(reg_tmp, reg_row[t]);
        auto one = [&](int64_t n) {
            if (lin) load_f32(vmm_a, ptr[reg_src], n);
            else load_u32(vmm_a, ptr[reg_src], n);
            vmovups(ptr[reg_tmp], vmm_a);
        };
        if (c.iw_full > 0) {
            Label l_iw;
            mov(reg_cnt, c.iw_full);
            L(l_iw); {
                one(simd_w);
                add(reg_src, simd_w * c.esize);
                add(reg_tmp, simd_w * 4);
                dec(reg_cnt);
                jnz(l_iw, T_NEAR);
            }
        }
        if (c.iw_tail > 0) one(c.iw_tail);
    }
}

// NCX: vectorised across ow. Index and weight vectors come from the W table; each tap is a
// gather from its row. The padding lanes of a tail index element 0, so every gathered address
// is inside the row; only the store is masked.
template <cpu_isa isa>
void jit_interp_kernel<isa>::gen_ncx() {
    const jit_conf &c = conf_;
    const bool lin = c.algorithm == alg::linear;
    const int arr = static_cast<int>(c.ow_pad * 4);  // bytes between the table's arrays
    mov(reg_dst, ARG(dst));
    mov(reg_tab, ARG(wtab));
    for (int t = 0; t < c.n_taps; ++t)
        mov(reg_row[t], ptr[reg_args + static_cast<int>(offsetof(jit_args, src) + 8 * t)]);
    if (c.stage) gen_ncx_stage();
    if (c.nh == 2) {
        vbroadcastss(vmm_wh0, ARG(wh[0]));
        vbroadcastss(vmm_wh1, ARG(wh[1]));
    }
    if (c.nd == 2) {
        vbroadcastss(vmm_wd0, ARG(wd[0]));
        vbroadcastss(vmm_wd1, ARG(wd[1]));
    }
    auto gather = [&](const Vmm &v, const Reg64 &row, const Vmm &idx) {
        vpcmpeqd(vmm_mask, vmm_mask, vmm_mask);  // the gather clears its mask
        if (lin) vgatherdps(v, ptr[row + idx * 4], vmm_mask);
        else vpgatherdd(v, ptr[row + idx * 4], vmm_mask);
    };
    auto compute = [&](int64_t n) {
        vmovdqu(vmm_idx0, ptr[reg_tab]);
        if (!lin) {
            gather(vmm_hd0, reg_row[0], vmm_idx0);
            store_u32_bits(ptr[reg_dst], vmm_hd0, n);
            return;
        }
        vmovdqu(vmm_idx1, ptr[reg_tab + arr]);
        vmovups(vmm_w0, ptr[reg_tab + 2 * arr]);
        vmovups(vmm_w1, ptr[reg_tab + 3 * arr]);
        for (int d = 0; d < c.nd; ++d) {
            for (int h = 0; h < c.nh; ++h) {
                const int t = d * c.nh + h;
                gather(vmm_a, reg_row[t], vmm_idx0);
                gather(vmm_b, reg_row[t], vmm_idx1);
                const Vmm r = c.k == 1 ? vmm_hd0 : vmm_rw[h];
                vmulps(r, vmm_w0, vmm_a);
                vfmadd231ps(r, vmm_w1, vmm_b);
            }
            if (c.nh == 2) combine_taps(d == 0 ? vmm_hd0 : vmm_rw[0]);
        }
        if (c.nd == 2) {
            vmulps(vmm_hd0, vmm_wd0, vmm_hd0);
            vfmadd231ps(vmm_hd0, vmm_wd1, vmm_rw[0]);
        }
        store_f32(ptr[reg_dst], vmm_hd0, n);
    };
    if (c.ow_full > 0) {
        Label l_ow;
        mov(reg_ow, c.ow_full);
        L(l_ow); {
            compute(simd_w);
            add(reg_tab, simd_w * 4);
            add(reg_dst, simd_w * c.esize);
            dec(reg_ow);
            jnz(l_ow, T_NEAR);
        }
    }
    if (c.ow_tail > 0) compute(c.ow_tail);
}

template <cpu_isa isa>
void jit_interp_kernel<isa>::gen_constants() {
    align(32);
    L(l_const_tail);
    for (int i = 0; i < 2 * simd_w; ++i) dd(i < simd_w ? 0xffffffffu : 0u);
    auto splat = [&](Label &l, uint32_t v) {
        L(l);
        for (int i = 0; i < simd_w; ++i) dd(v);
    };
    splat(l_const_one, 0x1u);
    splat(l_const_7fff, 0x7fffu);
    splat(l_const_0040, 0x40u);
    splat(l_const_8000, 0x8000u);
    splat(l_const_exp, 0x7f800000u);
}

template <cpu_isa isa>
void jit_interp_kernel<isa>::generate() {
    preamble();
    if (conf_.fmt == data_format::nxc) {
        if (conf_.algorithm == alg::linear) gen_nxc_linear();
        else gen_nxc_nearest();
    } else {
        gen_ncx();
    }
    postamble();
    text_size_ = getSize();
    gen_constants();
    finalize();
}

// The tiers that have a generator in this build:
template class jit_interp_kernel<cpu_isa::avx2>;

}  // namespace xinterp
