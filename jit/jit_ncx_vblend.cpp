// The vertical blend of the separable passes (jit_ncx_vblend, jit_ncx_kernels.hpp): one H (or
// D) step of two f32 W rows into an output row, or (3-D) both H steps and the D step of four;
// in plane mode a whole plane's rows from H records; in pairs, two outputs from the same loads.
#include "jit_ncx_kernels.hpp"
#include "../src/numeric.hpp"

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace xinterp {

using namespace Xbyak;

#define PARG(field) ptr[reg_args + static_cast<int>(offsetof(jit_pass_args, field))]

template <cpu_isa isa>
jit_ncx_vblend<isa>::jit_ncx_vblend(const jit_conf &conf, bool final_out, bool nt, bool hd, bool plane, bool pair, bool run)
    : jit_io(kPassCodeSize, simd_w, conf.native_bf16),
      conf_(conf),
      final_(final_out),
      nt_(nt && final_out),
      hd_(hd),
      plane_(plane),
      pair_(pair && final_out && (hd || !plane)),
      run_(run && final_out && !hd && !plane && !pair),
      align_(std::is_same<Vmm, Zmm>::value && conf.blend_lines && final_out && !nt && !run_) {
    bf16_clean_flag_at(static_cast<int>(offsetof(jit_pass_args, flags)), conf.dt);
}

template <cpu_isa isa>
void jit_ncx_vblend<isa>::row(int out_es, int64_t vecs, int64_t tail) {
    const jit_conf &c = conf_;
    // One vector of results into r, from byte offset off of the f32 rows (scratch rows are
    // padded to whole vectors: full loads are safe).
    // pair: the second output's result into rb, from the same loads (H pairs) or H steps (D).
    auto blend = [&](const Vmm &r, int off, const Vmm &rb) {
        if (pair_ && !hd_) {
            vmovups(vmm_ta, ptr[reg_a + off]);
            vmovups(vmm_tb, ptr[reg_b + off]);
            vmulps(r, vmm_w0, vmm_ta);
            vfmadd231ps(r, vmm_w1, vmm_tb);
            vmulps(rb, vmm_wb0, vmm_ta);
            vfmadd231ps(rb, vmm_wb1, vmm_tb);
            return;
        }
        vmulps(r, vmm_w0, ptr[reg_a + off]);
        vfmadd231ps(r, vmm_w1, ptr[reg_b + off]);
        if (hd_) {  // the canonical order: H for D tap 0, H for D tap 1, then D
            vmulps(vmm_r1, vmm_w0, ptr[reg_c + off]);
            vfmadd231ps(vmm_r1, vmm_w1, ptr[reg_d + off]);
            if (pair_) {
                vmulps(rb, vmm_wb0, r);
                vfmadd231ps(rb, vmm_wb1, vmm_r1);
            }
            vmulps(r, vmm_wd0, r);
            vfmadd231ps(r, vmm_wd1, vmm_r1);
        }
    };
    if constexpr (std::is_same<Vmm, Zmm>::value) {
        if (align_) return aligned_row(blend);
    }
    // Where the second output's byte at offset off of the first's goes (pair).
    auto at_b = [&](int64_t off) { return ptr[reg_dst + reg_boff + off]; };
    // Vector k of the current group: sources at k vectors of f32, the result at k of out_es.
    auto one = [&](int64_t n, int k = 0) {
        blend(vmm_r, k * simd_w * 4, vmm_rb);
        const int64_t off = k * simd_w * out_es;
        if (final_) {
            store_f32(c.dt, ptr[reg_dst + off], vmm_r, n, nt_);
            if (pair_) store_f32(c.dt, at_b(off), vmm_rb, n, nt_);
        } else {
            vmovups(ptr[reg_dst + off], vmm_r);
        }
    };
    auto advance = [&](int n) {
        for (const Reg64 &r : src_rows())
            add(r, n * simd_w * 4);
        add(reg_dst, n * simd_w * out_es);
    };
    // AVX2 bf16 results go out in pairs of vectors: cvt2_to_bf16 rounds 16 at once. Two pairs
    // per trip, and the clean/full choice made once per row rather than per pair (the loop is
    // emitted for each side): at ~5 cycles per pair, the pointer steps, the loop branch and the
    // flag test were a third of its instructions.
    constexpr bool kYmm = std::is_same<Vmm, Ymm>::value;
    const bool pairs = kYmm && final_ && c.dt == data_type::bf16;
    int64_t singles = vecs;
    if constexpr (kYmm) {
        if (pairs && vecs >= 2) {
            const Ymm r2(6);
            const int64_t n_pairs = vecs / 2;
            auto pair = [&](int k) {
                blend(vmm_r, 2 * k * simd_w * 4, vmm_rb);
                blend(r2, (2 * k + 1) * simd_w * 4, vmm_rb2);
                // Even/odd rows: the two vectors are a block's even and odd elements. Rows start
                // 16-byte aligned only, unless their length is a multiple of 16 elements.
                const int64_t off = 2 * k * simd_w * out_es;
                auto cvt2 = [&](const Ymm &x0, const Ymm &x1) {
                    if (c.bf16_even_odd) cvt2_to_bf16_interleaved(x0, x1);
                    else cvt2_to_bf16(x0, x1);
                };
                cvt2(vmm_r, r2);
                store_bf16_pair(ptr[reg_dst + off], nt_, c.row_out % 16 == 0);
                if (pair_) {
                    cvt2(vmm_rb, vmm_rb2);
                    store_bf16_pair(at_b(off), nt_, c.row_out % 16 == 0);
                }
            };
            auto pair_loop = [&] {
                if (n_pairs >= 2) {
                    Label l_pair;
                    mov(reg_cnt, n_pairs / 2);
                    L(l_pair); {
                        pair(0);
                        pair(1);
                        advance(4);
                        dec(reg_cnt);
                        jnz(l_pair, T_NEAR);
                    }
                }
                if (n_pairs % 2) {
                    pair(0);
                    advance(2);
                }
            };
            bf16_each_side(pair_loop);
            singles = vecs % 2;
        }
    }
    // 512-bit 16-bit results (f16, and bf16 where the tier rounds natively) go out two vectors
    // at a time: the pair rounded to 32 words (vcvtne2ps2bf16, which rounds as vcvtneps2bf16
    // does; two vcvtps2ph and an insert for f16) and one 64-byte store where there were two of
    // 32 bytes. bench_ab against single vectors (Xeon dev VM): 224x224 -> 512x512 C = 3 bf16
    // NCX 0.79x the time, NXC 0.61x, f16 0.64-0.71x; 100x700 -> 200x1536 C = 3 0.71-0.75x;
    // 64x64 -> 512x512 C = 21 bf16 0.81-0.91x; vol_2x bf16 0.84-0.90x, f16 0.89-0.95x; rows
    // of 65 and other kernels' shapes 0.95-1.01x. NT stores of a pair need its 64-byte
    // alignment, which rows of whole pairs keep; other rows store its halves apart.
    const bool zpairs = !kYmm && final_ && c.words_round();
    auto two = [&](int k) {
        const Zmm r0(vmm_r.getIdx()), r1(26), rb0(vmm_rb.getIdx()), rb1(27), o(28);
        const Ymm hi(29);
        blend(Vmm(r0.getIdx()), k * simd_w * 4, Vmm(rb0.getIdx()));
        blend(Vmm(r1.getIdx()), (k + 1) * simd_w * 4, Vmm(rb1.getIdx()));
        auto store = [&](int64_t off, bool second) {
            const Address a = second ? at_b(off) : ptr[reg_dst + off];
            if (!nt_) return vmovdqu16(a, o);
            if (c.row_out % (2 * simd_w) == 0) return vmovntdq(a, o);
            vextracti64x4(hi, o, 1);
            vmovntdq(a, Ymm(o.getIdx()));
            vmovntdq(second ? at_b(off + simd_w * 2) : ptr[reg_dst + off + simd_w * 2], hi);
        };
        const int64_t off = k * simd_w * out_es;
        round_words(conf_.dt, o, r0, r1, true, hi);
        store(off, false);
        if (pair_) {
            round_words(conf_.dt, o, rb0, rb1, true, hi);
            store(off, true);
        }
    };
    // Four vectors per trip: the pointer steps and the loop branch then cost a quarter as much
    // per vector (plane rows are short: 2x rows of 64 floats are 8 vectors).
    constexpr int kUnroll = 4;
    if (singles >= kUnroll) {
        Label l_ow;
        mov(reg_cnt, singles / kUnroll);
        L(l_ow); {
            for (int k = 0; k < kUnroll; k += zpairs ? 2 : 1) {
                if (zpairs) two(k);
                else one(simd_w, k);
            }
            advance(kUnroll);
            dec(reg_cnt);
            jnz(l_ow, T_NEAR);
        }
    }
    for (int k = 0; k < singles % kUnroll; ++k) {
        if (zpairs && k + 1 < singles % kUnroll) two(k++);
        else one(simd_w, k);
    }
    if (singles % kUnroll) advance(static_cast<int>(singles % kUnroll));
    if (tail > 0) one(final_ ? tail : simd_w);
}

// Rows at 512 bits that are not whole lines long start off a cache line in most rows, and
// then nearly every store of the row kernel splits two lines (224x224 -> 300x300 f32 took 1.3x
// the time of -> 304x304; c17 NXC's flat rows of 1105 elements 16-bit 1.3x the time of 64x64's
// 1088). So each line-sized output vector k (f32: one blend of 16 lanes; 16-bit: two, rounded
// to 32 words; loads aligned with the f32 rows as before) is combined with vector k - 1 by one
// vpermt2ps (vpermt2w) into the aligned line that starts m elements before it (m: the row's
// misalignment in elements, read at run time), and stored whole: line k = elements kL - m ..
// kL - m + L - 1 (L: a line's elements), lanes i < m from vector k - 1 (index L - m + i), the
// rest from vector k (index i - m, + L for the second table). Line 0 is stored under a mask of
// lanes >= m, the last two under masks of the elements the row has left; masked-out lanes are
// not written. A pair's second output (dst_b) gets its own m and lines. The permute is one
// port-5 uop per vector; a split store cost several cycles where the line is not in L1. Masks
// k3-k6 (k1, k2: the helpers' tails and compares, as bf16 rounding's fixups use).
template <cpu_isa isa>
template <typename Blend>
void jit_ncx_vblend<isa>::aligned_row(Blend &&blend) {
    const jit_conf &c = conf_;
    const int esz = c.esize, V = simd_w * 4;
    const bool words = esz == 2;
    const Zmm X0(26), X1(27), Xb0(28), Xb1(29);  // 16-bit: a line's two f32 results (b: the pair's)
    const int64_t lanes = V / esz;
    const int src_step = words ? 2 * V : V;  // f32 bytes per line-sized vector
    const int64_t nv = (c.row_out + lanes - 1) / lanes;
    // Line-sized vector k of the trip into r (rb: the pair's), from f32 byte offset k * src_step;
    // 16-bit: two blends rounded to 32 words (the row's last: one where ow_vecs is odd, whose
    // upper half the masks drop).
    auto vec = [&](const Zmm &r, const Zmm &rb, int k, bool last) {
        const int off = k * src_step;
        if (!words) return blend(r, off, rb);
        const bool two = !last || 2 * nv == c.ow_vecs;
        blend(X0, off, Xb0);
        if (two) blend(X1, off + V, Xb1);  // never past the row's padded f32 vectors
        round_words(conf_.dt, r, X0, X1, two, Ymm(kT0));
        if (pair_) round_words(conf_.dt, rb, Xb0, Xb1, two, Ymm(kT0));
    };
    auto step = [&](int n) {
        for (const Reg64 &r : src_rows())
            add(r, n * src_step);
    };
    // base r14 (a's line 0), rbp (b's, from a's), r15 for m.
    const line_regs regs{zmm_iota, zmm_c16, zmm_ct16, zmm_ct, Zmm(17), Zmm(18), Zmm(19), Zmm(20),
                         Zmm(21), Zmm(22), Zmm(30), r14, rbp, r15, reg_cnt};
    mov(r14, reg_dst);
    if (pair_) lea(rbp, ptr[reg_dst + reg_boff]);
    aligned_lines(esz, nv, pair_, true, regs, vec, step);
    add(reg_dst, static_cast<int>(c.row_out * esz));  // the row's end
}

// aligned_row's constants, once per call: 0, 1, .. in each element, L, t + L and t (L: a
// line's elements; t: the row's last line-sized vector's, 1..L - 1).
template <cpu_isa isa>
void jit_ncx_vblend<isa>::aligned_consts() {
    aligned_line_consts(conf_.esize, conf_.row_out, zmm_iota, zmm_c16, zmm_ct16, zmm_ct, reg_cnt.cvt32());
}

template <cpu_isa isa>
void jit_ncx_vblend<isa>::generate() {
    const jit_conf &c = conf_;
    const int out_es = final_ ? c.esize : 4;
    if (align_) {
        push(r14);
        push(r15);
        push(rbp);
        if constexpr (std::is_same<Vmm, Zmm>::value) aligned_consts();
    }
    mov(reg_dst, PARG(dst));
    if (pair_) {
        push(reg_boff);
        mov(reg_boff, PARG(dst_b));
        sub(reg_boff, reg_dst);
        vbroadcastss(vmm_wb0, PARG(wb0));
        vbroadcastss(vmm_wb1, PARG(wb1));
    }
    if (hd_) {
        vbroadcastss(vmm_wd0, PARG(wd0));
        vbroadcastss(vmm_wd1, PARG(wd1));
    }
    if (run_) {
        gen_run(out_es);
    } else if (!plane_) {
        mov(reg_a, PARG(src));
        mov(reg_b, PARG(src_b));
        vbroadcastss(vmm_w0, PARG(w0));
        vbroadcastss(vmm_w1, PARG(w1));
        if (hd_) {
            mov(reg_c, PARG(src_c));
            mov(reg_d, PARG(src_d));
        }
        row(out_es, c.ow_full, c.ow_tail);
    } else {
        // Output rows are consecutive in dst: row() leaves reg_dst short of the next row by the
        // tail's bytes. Each H record: s64 offset a, s64 offset b, f32 w0, f32 w1.
        push(reg_tab);
        push(reg_rows);
        mov(reg_base_a, PARG(src));
        if (hd_) mov(reg_base_c, PARG(src_c));
        mov(reg_tab, PARG(tab));
        mov(reg_rows, PARG(rows));
        Label l_row;
        L(l_row); {
            mov(reg_a, reg_base_a);
            add(reg_a, qword[reg_tab]);
            mov(reg_b, reg_base_a);
            add(reg_b, qword[reg_tab + 8]);
            if (hd_) {
                mov(reg_c, reg_base_c);
                add(reg_c, qword[reg_tab]);
                mov(reg_d, reg_base_c);
                add(reg_d, qword[reg_tab + 8]);
            }
            vbroadcastss(vmm_w0, dword[reg_tab + 16]);
            vbroadcastss(vmm_w1, dword[reg_tab + 20]);
            row(out_es, c.ow_full, c.ow_tail);
            if (c.ow_tail > 0 && !align_) add(reg_dst, static_cast<int>(final_ ? c.ow_tail * out_es : simd_w * 4));
            add(reg_tab, 24);
            dec(reg_rows);
            jnz(l_row, T_NEAR);
        }
        pop(reg_rows);
        pop(reg_tab);
    }
    if (pair_) pop(reg_boff);
    if (align_) {
        pop(rbp);
        pop(r15);
        pop(r14);
    }
    vzeroupper();
    ret();
    finish_code();
}

// Run mode (conf.h_runs): jit_pass_args::rows output rows with the same H taps, consecutive
// in dst, blended from the W rows src and src_b with the weights of their linear_tap records
// (tab: jit_tables' H taps, read in place), column block by column block: a block's two
// W-row pieces (kRunBlockBytes each) stay in L1 for all the rows, where whole W rows past L1
// were read from L2 once per row (or per row pair).
template <cpu_isa isa>
void jit_ncx_vblend<isa>::gen_run(int out_es) {
    const jit_conf &c = conf_;
    const Reg64 blk_a = r9, blk_b = r10, blk_dst = r11, rec = rax, row_bytes = rbx, rows = r12, row_dst = r13, blocks = r14;
    push(rbx);
    push(r12);
    push(r13);
    push(r14);
    mov(reg_a, PARG(src));
    mov(reg_b, PARG(src_b));
    mov(row_bytes, c.dst_row_bytes);
    const int64_t bv = jit_conf::kRunBlockBytes / (simd_w * 4);  // even: 16-bit vectors round in pairs
    auto block = [&](int64_t vecs, int64_t tail) {
        mov(blk_a, reg_a);
        mov(blk_b, reg_b);
        mov(blk_dst, reg_dst);
        mov(row_dst, reg_dst);
        mov(rec, PARG(tab));
        mov(rows, PARG(rows));
        Label l_row;
        L(l_row); {
            vbroadcastss(vmm_w0, dword[rec + static_cast<int>(offsetof(linear_tap, w0))]);
            vbroadcastss(vmm_w1, dword[rec + static_cast<int>(offsetof(linear_tap, w1))]);
            mov(reg_a, blk_a);
            mov(reg_b, blk_b);
            mov(reg_dst, row_dst);
            row(out_es, vecs, tail);
            add(row_dst, row_bytes);
            add(rec, static_cast<int>(sizeof(linear_tap)));
            dec(rows);
            jnz(l_row, T_NEAR);
        }
        lea(reg_a, ptr[blk_a + vecs * simd_w * 4]);
        lea(reg_b, ptr[blk_b + vecs * simd_w * 4]);
        lea(reg_dst, ptr[blk_dst + vecs * simd_w * out_es]);
    };
    const int64_t nb = c.ow_full / bv, rest = c.ow_full % bv;
    if (nb > 0) {
        Label l_blk;
        mov(blocks, nb);
        L(l_blk); {
            block(bv, 0);
            dec(blocks);
            jnz(l_blk, T_NEAR);
        }
    }
    if (rest > 0 || c.ow_tail > 0) block(rest, c.ow_tail);
    pop(r14);
    pop(r13);
    pop(r12);
    pop(rbx);
}

template class jit_ncx_vblend<cpu_isa::avx2>;
template class jit_ncx_vblend<cpu_isa::avx512_core>;
template class jit_ncx_vblend<cpu_isa::avx512_core_bf16>;

}  // namespace xinterp
