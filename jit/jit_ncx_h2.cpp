// The h2 part of jit_ncx_wpass (jit_conf::h2_pairs): 2-D linear NCX, W and H both exactly 2x
// half_pixel. Output rows 2j + 1 and 2j + 2 both blend src rows j and j + 1, with H weights
// (0.75, 0.25) and (0.25, 0.75). The plane is walked column block by column block, down its
// rows: the W step of each src row is made once per block and kept in registers for the two
// row pairs that use it, so nothing goes through a W-plane. Per output vector that is one store
// and three FMA-pipe ops (the H mul and FMA, half a W step), where W-planes cost an extra store
// and reload per W vector; the W-plane path spent ~40% of fpn_2x's time on them.
#include "jit_ncx_kernels.hpp"

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace xinterp {

using namespace Xbyak;

namespace {
#define PARG(field) ptr[reg_args + static_cast<int>(offsetof(jit_pass_args, field))]
}  // namespace

// The W step of src row reg_hrow for the current column block: an up2 group into (x0, x1), or
// each of its nv record vectors (recs[0] into x0, recs[1] into x1), with their window bases
// and selects hoisted by h2_column, and one window for both taps where a record pairs.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::h2_w(bool group, int nv, const Vmm &x0, const Vmm &x1, const h2_rec *recs) {
    if (group) return up2_group(reg_hrow, x0, x1, !h2_split(conf_.dt));
    const jit_conf &c = conf_;
    const int V = simd_w * 4;
    for (int i = 0; i < nv; ++i) {
        const h2_rec &r = recs[i];
        const Vmm &x = i == 0 ? x0 : x1;
        load_window(vmm_b, ptr[reg_hrow + r.ba * c.esize]);
        if (!r.pairs) load_window(vmm_idx, ptr[reg_hrow + r.bb * c.esize]);
        select(vmm_a, r.i0, vmm_b);
        select(vmm_b, r.i1, r.pairs ? vmm_b : vmm_idx);
        vmulps(x, vmm_a, ptr[reg_tab + r.tab + 3 * V]);
        vfmadd231ps(x, vmm_b, ptr[reg_tab + r.tab + 4 * V]);
    }
}

// Registers for the next src row's W step, free of everything h2_w and h2_row touch: AVX-512
// has 20 and 21 spare; on AVX2 the bf16 groups' W (no interleave) spares vmm_idx and vmm_r,
// the f32 and f16 groups' (whose stores use kT0 at most) kT2 and kT3, and records vmm_r and
// (a line block's second) vmm_idx_b, whose edge weights are loaded outside the pair loop.
template <cpu_isa isa>
typename jit_ncx_wpass<isa>::Vmm jit_ncx_wpass<isa>::h2_next(bool group, bool split, int v) const {
    if constexpr (kEvex) return Vmm(20 + v);
    if (!group) return v == 0 ? vmm_r : vmm_idx_b;
    if (split) return v == 0 ? vmm_idx : vmm_r;
    return Vmm(v == 0 ? kT2 : kT3);
}

// One output row of the current column block at reg_hout + off: r = w0 * a; r = fma(w1, b, r)
// per vector (vmm_a, vmm_b as results), stored in dt.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::h2_row(int64_t off, const Vmm &w0, const Vmm &w1, const Vmm *a, const Vmm *b, int nv,
                                int64_t lanes, bool split) {
    const jit_conf &c = conf_;
    for (int v = 0; v < nv; ++v) {
        vmulps(Vmm(v), a[v], w0);
        vfmadd231ps(Vmm(v), b[v], w1);
    }
    constexpr bool kYmm = std::is_same<Vmm, Ymm>::value;
    if constexpr (!kYmm) {
        if (nv == 2 && h2_lines()) {  // 32 words, one store (a tail vector's: masked)
            const Zmm r(kT0);
            round_words(c.dt, r, Zmm(0), Zmm(1), true, Ymm(kT1));
            if (lanes == simd_w) return vmovdqu16(ptr[reg_hout + static_cast<int>(off)], r);
            load_kmask(k_tail, (uint64_t(1) << (simd_w + lanes)) - 1, 64);
            return vmovdqu16(ptr[reg_hout + static_cast<int>(off)] | k_tail, r);
        }
    }
    if constexpr (kYmm) {
        if (nv == 2 && c.dt == data_type::bf16) {  // both vectors rounded at once
            if (split) cvt2_to_bf16_interleaved(vmm_a, vmm_b);
            else cvt2_to_bf16(vmm_a, vmm_b);
            return store_bf16_pair(ptr[reg_hout + static_cast<int>(off)], false, false);
        }
    }
    for (int v = 0; v < nv; ++v)
        store_f32(c.dt, ptr[reg_hout + static_cast<int>(off + v * simd_w * c.esize)], Vmm(v), v == nv - 1 ? lanes : simd_w);
}

// One column block (an up2 group of two vectors, or nv record vectors, the last of which
// stores `lanes`) down reg_pairs (>= 1) row pairs: reg_hrow at src row j0 (group: at its
// element k - 1), reg_hout at the block in output row 2 j0 + 1. With jit_pass_args::edges,
// also row 2 j0 (bit 0: row 0, taps 0 and 1) and the row after the last pair (bit 1: row
// OH - 1, both taps the last src row), with their own weights.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::h2_column(bool group, int nv, const h2_rec *recs, int64_t lanes) {
    const jit_conf &c = conf_;
    const Vmm a[2] = {Vmm(4), Vmm(5)}, b[2] = {Vmm(6), Vmm(11)};  // W of src rows j, j + 1
    const bool split = group && h2_split(c.dt);
    const int src_rb = static_cast<int>(c.src_row_bytes);
    const int64_t rb = c.dst_row_bytes;
    for (int i = 0; i < nv && !group; ++i) {  // each record's part that every row shares
        const h2_rec &r = recs[i];
        const int V = simd_w * 4;
        movsxd(r.ba, dword[reg_tab + r.tab]);
        if (!r.pairs) movsxd(r.bb, dword[reg_tab + r.tab + 4]);
        vmovups(r.i0, ptr[reg_tab + r.tab + V]);  // (vmovups: one spelling for VEX and EVEX)
        if (r.pairs) {  // tap 1's indices: tap 0's plus one element, within tap 0's window
            mov(reg_tmp.cvt32(), window_index_step(c));
            vmovd(Xmm(vmm_idx.getIdx()), reg_tmp.cvt32());
            vpbroadcastd(vmm_idx, Xmm(vmm_idx.getIdx()));
            vpaddd(r.i1, r.i0, vmm_idx);
        } else {
            vmovups(r.i1, ptr[reg_tab + r.tab + 2 * V]);
        }
    }
    // Edge weights into vmm_idx, vmm_idx_b (free once the W steps are done).
    auto edge_weights = [&](const float *w) {
        uint32_t bits[2];
        std::memcpy(bits, w, 8);
        vbroadcastss(vmm_idx, dword[rip + pool_const(bits[0])]);
        vbroadcastss(vmm_idx_b, dword[rip + pool_const(bits[1])]);
    };
    // Rotated: W of rows j0 and j0 + 1 first, then per pair the W of the next src row into cn
    // before the pair's two rows, so that its loads, widening and FP ops issue ahead of the
    // blends and roundings that wait on the step before. The last pair's step recomputes its
    // own row (cmov keeps reg_hrow), so nothing is read past the plane and the loop has one body.
    h2_w(group, nv, a[0], a[1], recs);
    add(reg_hrow, src_rb);
    h2_w(group, nv, b[0], b[1], recs);
    Label l_pair, l_no_head, l_no_tail;
    test(byte[reg_args + static_cast<int>(offsetof(jit_pass_args, edges))], 1);
    jz(l_no_head, T_NEAR);
    edge_weights(c.h2_head_w);
    h2_row(-rb, vmm_idx, vmm_idx_b, a, b, nv, lanes, split);
    L(l_no_head);
    mov(reg_cnt, reg_pairs);
    const Vmm cn[2] = {h2_next(group, split, 0), h2_next(group, split, 1)};
    L(l_pair); {
        lea(reg_tmp, ptr[reg_hrow + src_rb]);
        cmp(reg_cnt, 1);
        cmovne(reg_hrow, reg_tmp);
        h2_w(group, nv, cn[0], cn[1], recs);
        h2_row(0, vmm_tq, vmm_q, a, b, nv, lanes, split);   // row 2j + 1: (0.75, 0.25)
        h2_row(rb, vmm_q, vmm_tq, a, b, nv, lanes, split);  // row 2j + 2: (0.25, 0.75)
        add(reg_hout, static_cast<int>(2 * rb));
        for (int v = 0; v < nv; ++v) {
            vmovaps(a[v], b[v]);
            vmovaps(b[v], cn[v]);
        }
        dec(reg_cnt);
        jnz(l_pair, T_NEAR);
    }
    test(byte[reg_args + static_cast<int>(offsetof(jit_pass_args, edges))], 2);
    jz(l_no_tail, T_NEAR);
    edge_weights(c.h2_tail_w);
    h2_row(0, vmm_idx, vmm_idx_b, b, b, nv, lanes, split);
    L(l_no_tail);
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::generate_h2() {
    const jit_conf &c = conf_;
    const Reg64 reg_gsrc = rbx, reg_gout = reg_spare;  // the up2 groups' src and output columns
    for (const Reg64 &r : {rbx, r12, r13, r14, r15}) push(r);
    mov(reg_src, PARG(src));
    mov(reg_dst, PARG(dst));
    mov(reg_pairs, PARG(rows));
    up2_constants();
    const int64_t nvec = c.ow_full + (c.ow_tail > 0);
    auto lanes_of = [&](int64_t v) { return v == c.ow_full ? c.ow_tail : simd_w; };
    auto pairs_of = [&](int64_t v) { return v < c.pair_vecs || (v == c.ow_full && c.pair_tail); };
    // Record vectors v .. v + nv - 1 (ow_full: the tail) as one column block. A second record
    // takes rbx and r11 for its bases (the groups' pointers, set after), and every record of a
    // two-vector block selects from registers clear of the second vector's W state (5, 11).
    auto record_column = [&](int64_t v, int nv) {
        mov(reg_tab, PARG(tab));
        if (v > 0) {
            mov(reg_tmp, v * c.rec_bytes);
            add(reg_tab, reg_tmp);
        }
        mov(reg_hrow, reg_src);
        lea(reg_hout, ptr[reg_dst + v * simd_w * c.esize]);  // (int32: rows hold < 2^26 elements)
        const h2_rec one[1] = {{reg_ba, reg_bb, Vmm(5), Vmm(11), 0, pairs_of(v)}};
        // AVX2 (f32 line blocks): the temporaries but t1, which a partial f32 store takes.
        const int t0 = kEvex ? 18 : kT0, t1 = kEvex ? 19 : kMask, t2 = kEvex ? 22 : kT2, t3 = kEvex ? 23 : kT3;
        const h2_rec two[2] = {{reg_ba, reg_bb, Vmm(t0), Vmm(t1), 0, pairs_of(v)},
                               {reg_gsrc, reg_gout, Vmm(t2), Vmm(t3), static_cast<int>(c.rec_bytes), pairs_of(v + 1)}};
        h2_column(false, nv, nv == 2 ? two : one, lanes_of(v + nv - 1));
    };
    // n up2 groups (two vectors each) from vector v0 on, as one loop of column blocks.
    auto group_columns = [&](int64_t v0, int64_t n) {
        lea(reg_gsrc, ptr[reg_src + (v0 * simd_w / 2 - 1) * c.esize]);
        lea(reg_gout, ptr[reg_dst + v0 * simd_w * c.esize]);
        Label l_grp;
        mov(reg_grp, n);
        L(l_grp); {
            mov(reg_hrow, reg_gsrc);
            mov(reg_hout, reg_gout);
            h2_column(true, 2, nullptr, simd_w);
            add(reg_gsrc, simd_w * c.esize);
            add(reg_gout, 2 * simd_w * c.esize);
            dec(reg_grp);
            jnz(l_grp, T_NEAR);
        }
    };
    auto plane = [&] {
        if (!h2_line_blocks()) {
            for (int64_t v = 0; v < c.up2_first; ++v) record_column(v, 1);
            group_columns(c.up2_first, c.up2_groups);
            for (int64_t v = c.up2_first + 2 * c.up2_groups; v < nvec; ++v) record_column(v, 1);
            return;
        }
        // Line blocks: vectors (2m, 2m + 1) as a group where both lie in the up2 run, else
        // as two records; the last vector of an odd count alone (h2_line_blocks).
        const int64_t run_end = c.up2_first + 2 * c.up2_groups;
        auto in_run = [&](int64_t v) { return v >= c.up2_first && v < run_end; };
        for (int64_t v = 0; v < nvec;) {
            int64_t n = 0;
            while (v + 2 * n + 1 < nvec && in_run(v + 2 * n) && in_run(v + 2 * n + 1)) ++n;
            if (n > 0) {
                group_columns(v, n);
                v += 2 * n;
            } else {
                const int nv = v + 1 < nvec ? 2 : 1;
                record_column(v, nv);
                v += nv;
            }
        }
    };
    // bf16: the clean/full choice once per call, not per stored vector (the plane twice).
    bf16_each_side(plane);
    vzeroupper();
    for (const Reg64 &r : {r15, r14, r13, r12, rbx}) pop(r);
    ret();
    finish_code();
}

template void jit_ncx_wpass<cpu_isa::avx2>::generate_h2();
template void jit_ncx_wpass<cpu_isa::avx512_core>::generate_h2();
template void jit_ncx_wpass<cpu_isa::avx512_core_bf16>::generate_h2();

}  // namespace xinterp
