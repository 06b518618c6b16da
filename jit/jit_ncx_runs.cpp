// The runs of jit_ncx_wpass (jit_ncx_kernels.hpp) that read no W table per vector: up2 groups
// (W exactly 2x half_pixel: constant weights, three unaligned loads per two vectors), the
// periodic run (records that repeat every per_p vectors, their permutes and weights hoisted),
// linear W-planes column by column (each record read once per column, not once per row), and
// computed taps (taps and weights from the output index, jit_conf::calc_first).
// row() and generate() (jit_ncx_kernels.cpp) call them.
#include "jit_ncx_kernels.hpp"
#include "../src/numeric.hpp"

#include <algorithm>
#include <cstddef>

namespace xinterp {

using namespace Xbyak;

#define PARG(field) ptr[reg_args + static_cast<int>(offsetof(jit_pass_args, field))]

// Group g makes outputs 2k .. 2k + 2 * simd_w - 1, k = up2_first * simd_w / 2 + g * simd_w,
// from src k - 1 .. k + simd_w: with a = x[k - 1 ..], b = x[k ..], c = x[k + 1 ..] (simd_w
// lanes each), the even outputs are 0.25 * a; fma(0.75, b) and the odd ones 0.75 * b;
// fma(0.25, c): tap 0 times w0, then tap 1's FMA, the reference's order and weights.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::up2_run(const Reg64 *n) {
    const jit_conf &c = conf_;
    const int out_es = final_ ? c.esize : 4;
    Label l_grp, l_end;
    if (n) {  // a span's groups, from vector reg_cnt: src k - 1, k = reg_cnt * simd_w / 2
        imul(reg_bb, reg_cnt, simd_w / 2 * c.esize);
        lea(reg_bb, ptr[reg_src + reg_bb - c.esize]);
        mov(reg_cnt, *n);
        shr(reg_cnt, 1);
        jz(l_end, T_NEAR);  // none (whole groups by span_cut: only if it were broken)
    } else {
        lea(reg_bb, ptr[reg_src + (c.up2_first * simd_w / 2 - 1) * c.esize]);
        mov(reg_cnt, c.up2_groups);
    }
    L(l_grp); {
        up2_group(reg_bb, vmm_a, vmm_r);
        for (int i = 0; i < 2; ++i) {
            const Vmm &v = i == 0 ? vmm_a : vmm_r;
            store_result(ptr[reg_dst + i * simd_w * out_es], v, simd_w);
        }
        add(reg_bb, simd_w * c.esize);
        add(reg_dst, 2 * simd_w * out_es);
        dec(reg_cnt);
        jnz(l_grp, T_NEAR);
    }
    L(l_end);
    // past the groups' (unread) records
    if (n) imul(reg_tmp, *n, c.rec_bytes);
    else mov(reg_tmp, 2 * c.up2_groups * c.rec_bytes);
    add(reg_tab, reg_tmp);
}

// The periodic run (jit_conf::per_*). per_p <= 2: phase ph's permutes and weights, from the
// run's first records, stay in registers (kPerRegs[ph]: tap 0 and tap 1 indices, w0, w1;
// with conf.per_inlane, in-lane controls from the pool, which select from two 4-element lane
// windows, two per tap with per_lane_split, with vpermilps instead of one 8-element window
// with vpermps). Longer periods go phase by phase (per_run_phases), or with NT stores read
// them from those records on every period (reg_tab stays on the run's first record until the
// end). Either way reg_bb walks the windows, per_step src elements per period, and the lanes
// compute exactly what the records say.
// In a span (n non-null) *n vectors, whole periods (span_cut), from reg_tab's record on: a
// period's first, whose permutes and weights are the run's first period's (the scan compared
// them) and whose base is its own; longer periods read their records period by period there
// (span_row gives a span that holds the whole run to per_run_phases).
template <cpu_isa isa>
void jit_ncx_wpass<isa>::per_run(const Reg64 *n) {
    const jit_conf &c = conf_;
    if (c.per_p > 2 && !nt_ && !n) return per_run_phases();
    const int V = simd_w * 4, esz = c.esize, out_es = final_ ? c.esize : 4;
    const bool in_regs = c.per_p <= 2;
    for (int ph = 0; in_regs && ph < c.per_p; ++ph) per_load_phase(ph, ph);
    movsxd(reg_bb, dword[reg_tab]);
    lea(reg_bb, ptr[reg_src + reg_bb * esz]);
    Label l_per, l_end;
    if (n) {  // periods: *n / per_p, exact (whole periods): a shift, then the odd factor's inverse mod 2^64
        const int a = __builtin_ctz(static_cast<unsigned>(c.per_p));
        const uint64_t b = static_cast<uint64_t>(c.per_p) >> a;
        uint64_t inv = b;  // Newton: each step doubles the bits where b * inv = 1
        for (int i = 0; i < 5; ++i) inv *= 2 - b * inv;
        mov(reg_cnt, *n);
        if (a > 0) shr(reg_cnt, a);
        if (b > 1) {
            mov(reg_tmp, inv);
            imul(reg_cnt, reg_tmp);
        }
        test(reg_cnt, reg_cnt);
        jz(l_end, T_NEAR);  // none (whole periods by span_cut: only if it were broken)
    } else {
        mov(reg_cnt, c.per_periods);
    }
    L(l_per); {
        for (int ph = 0; ph < c.per_p; ++ph) {
            const int rec = ph * c.rec_bytes;
            if (in_regs) {
                per_phase_vector(ph, ph);
            } else {  // the record's permutes and weights from memory, one window (two off the pairs)
                load_window(vmm_a, ptr[reg_bb + c.per_rel[ph][0] * esz]);
                if (!c.per_pairs) load_window(vmm_idx, ptr[reg_bb + c.per_rel[ph][1] * esz]);
                if (c.per_pairs) vpaddd(vmm_idx_b, vmm_flat_c, ptr[reg_tab + rec + V]);
                else vmovups(vmm_idx_b, ptr[reg_tab + rec + 2 * V]);
                select(vmm_b, vmm_idx_b, c.per_pairs ? vmm_a : vmm_idx);
                vmovups(vmm_idx_b, ptr[reg_tab + rec + V]);
                select(vmm_a, vmm_idx_b, vmm_a);
                vmulps(vmm_idx, vmm_a, ptr[reg_tab + rec + 3 * V]);
                vfmadd231ps(vmm_idx, vmm_b, ptr[reg_tab + rec + 4 * V]);
            }
            store_result(ptr[reg_dst + ph * simd_w * out_es], vmm_idx, simd_w);
        }
        add(reg_bb, static_cast<int>(c.per_step * esz));
        add(reg_dst, c.per_p * simd_w * out_es);
        dec(reg_cnt);
        jnz(l_per, T_NEAR);
    }
    L(l_end);
    // past the run's records
    if (n) imul(reg_tmp, *n, c.rec_bytes);
    else mov(reg_tmp, c.per_periods * c.per_p * c.rec_bytes);
    add(reg_tab, reg_tmp);
}

// Phase ph's tap 0 and tap 1 permutes (per_inlane: in-lane controls from the pool) and its
// weights w0, w1, from the run's first records, into kPerRegs[set].
template <cpu_isa isa>
void jit_ncx_wpass<isa>::per_load_phase(int ph, int set) {
    const jit_conf &c = conf_;
    const int V = simd_w * 4, rec = ph * c.rec_bytes;
    const Vmm i0(kPerRegs[set][0]), i1(kPerRegs[set][1]);
    if (!kEvex && c.per_inlane) {
        vmovups(i0, ptr[rip + pool_vec8(c.per_lane_idx[ph][0])]);
        vmovups(i1, ptr[rip + pool_vec8(c.per_lane_idx[ph][1])]);
    } else {
        vmovups(i0, ptr[reg_tab + rec + V]);  // (vmovups: one spelling for VEX and EVEX)
        if (c.per_pairs) vpaddd(i1, i0, vmm_flat_c);  // tap 1 within tap 0's window
        else vmovups(i1, ptr[reg_tab + rec + 2 * V]);
    }
    vmovups(Vmm(kPerRegs[set][2]), ptr[reg_tab + rec + 3 * V]);
    vmovups(Vmm(kPerRegs[set][3]), ptr[reg_tab + rec + 4 * V]);
}

// Phase ph's output vector into vmm_idx, from its windows at reg_bb and what per_load_phase
// put into kPerRegs[set]: two lane windows (four with per_lane_split) and in-lane selects
// (per_inlane), or one window (two off the pairs) and the window selects; then the mul and
// the FMA.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::per_phase_vector(int ph, int set) {
    const jit_conf &c = conf_;
    const int esz = c.esize;
    const Vmm i0(kPerRegs[set][0]), i1(kPerRegs[set][1]);
    if (!kEvex && c.per_inlane) {
        const int64_t (&off)[2][2] = c.per_lane_off[ph];
        load_lane_windows(Ymm(vmm_a.getIdx()), ptr[reg_bb + off[0][0] * esz], ptr[reg_bb + off[0][1] * esz],
                          Ymm(vmm_idx.getIdx()));
        if (c.per_lane_split) {
            load_lane_windows(Ymm(vmm_b.getIdx()), ptr[reg_bb + off[1][0] * esz], ptr[reg_bb + off[1][1] * esz],
                              Ymm(vmm_idx.getIdx()));
            vpermilps(vmm_b, vmm_b, i1);
        } else {
            vpermilps(vmm_b, vmm_a, i1);
        }
        vpermilps(vmm_a, vmm_a, i0);
    } else {
        load_window(vmm_a, ptr[reg_bb + c.per_rel[ph][0] * esz]);
        if (!c.per_pairs) load_window(vmm_idx, ptr[reg_bb + c.per_rel[ph][1] * esz]);
        select(vmm_b, i1, c.per_pairs ? vmm_a : vmm_idx);
        select(vmm_a, i0, vmm_a);
    }
    vmulps(vmm_idx, vmm_a, Vmm(kPerRegs[set][2]));
    vfmadd231ps(vmm_idx, vmm_b, Vmm(kPerRegs[set][3]));
}

// Periods of 3-8 vectors, phase by phase: per block of up to jit_conf::kPerBlockBytes of
// output, each phase's permutes and weights go into registers (kPerRegs[0]) once, and its loop
// walks the block's periods, writing every per_p-th vector. Period by period, each vector read
// its record (four loads) besides its windows. The block keeps the src and output spans in L1
// between the phases. NT stores keep the period order (per_run): phase by phase, every 64-byte
// line would leave a write-combining buffer partly written.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::per_run_phases() {
    const jit_conf &c = conf_;
    const int esz = c.esize, dv = simd_w * (final_ ? c.esize : 4);
    const int64_t period_bytes = c.per_p * dv, step = c.per_step * esz;
    const int64_t k = std::max<int64_t>(1, std::min(c.per_periods, jit_conf::kPerBlockBytes / period_bytes));
    movsxd(reg_bb, dword[reg_tab]);
    lea(reg_bb, ptr[reg_src + reg_bb * esz]);
    // periods periods from reg_bb / reg_dst, which it leaves past them (reg_tab stays on the
    // run's first record).
    auto block = [&](int64_t periods) {
        for (int ph = 0; ph < c.per_p; ++ph) {
            per_load_phase(ph, 0);
            Label l_per;
            mov(reg_cnt, periods);
            L(l_per); {
                per_phase_vector(ph, 0);
                store_result(ptr[reg_dst + ph * dv], vmm_idx, simd_w);
                add(reg_bb, static_cast<int>(step));
                add(reg_dst, static_cast<int>(period_bytes));
                dec(reg_cnt);
                jnz(l_per, T_NEAR);
            }
            if (ph + 1 < c.per_p) {  // back to the block's start for the next phase
                sub(reg_bb, static_cast<int>(periods * step));
                sub(reg_dst, static_cast<int>(periods * period_bytes));
            }
        }
    };
    if (c.per_periods >= k) {
        Label l_blk;
        mov(reg_tmp, c.per_periods / k);
        L(l_blk); {
            block(k);
            dec(reg_tmp);
            jnz(l_blk, T_NEAR);
        }
    }
    if (c.per_periods % k) block(c.per_periods % k);
    mov(reg_tmp, c.per_periods * c.per_p * c.rec_bytes);  // past the run's records
    add(reg_tab, reg_tmp);
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::up2_group(const Reg64 &from, const Vmm &out0, const Vmm &out1, bool interleave) {
    const jit_conf &c = conf_;
    const int esz = c.esize;
    const Vmm even = interleave ? vmm_r : out0, odd = interleave ? vmm_idx : out1;
    load_f32(c.dt, vmm_a, ptr[from], simd_w);
    load_f32(c.dt, vmm_b, ptr[from + esz], simd_w);
    vmulps(even, vmm_a, vmm_q);
    vfmadd231ps(even, vmm_b, vmm_tq);
    load_f32(c.dt, vmm_a, ptr[from + 2 * esz], simd_w);
    vmulps(odd, vmm_b, vmm_tq);
    vfmadd231ps(odd, vmm_a, vmm_q);
    if (interleave) up2_interleave(even, odd, out0, out1);
}

// (even, odd) -> out0 = e0 o0 e1 o1 .., out1 = the second half. Clobbers even, odd, vmm_b and
// vmm_idx_b. vunpck{l,h}ps interleave within 128-bit lanes, so lane m of the low result holds
// pairs 2m, 2m + 1 and of the high result 2m + 2, 2m + 3 (of the lane's four pairs): AVX2 swaps
// the middle 128-bit halves with two vperm2f128; AVX-512 interleaves with two vpermt2ps instead.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::up2_interleave(const Vmm &even, const Vmm &odd, const Vmm &out0, const Vmm &out1) {
    if constexpr (kEvex) {
        const Vmm il0(16), il1(17);  // set by up2_constants()
        vmovaps(out0, even);
        vpermt2ps(out0, il0, odd);
        vpermt2ps(even, il1, odd);
        if (even.getIdx() != out1.getIdx()) vmovaps(out1, even);
    } else {
        vunpcklps(vmm_b, even, odd);
        vunpckhps(vmm_idx_b, even, odd);
        vperm2f128(out0, vmm_b, vmm_idx_b, 0x20);
        vperm2f128(out1, vmm_b, vmm_idx_b, 0x31);
    }
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::up2_constants() {
    mov(reg_tmp.cvt32(), 0x3e800000u);  // 0.25f
    vmovd(Xmm(vmm_q.getIdx()), reg_tmp.cvt32());
    vbroadcastss(vmm_q, Xmm(vmm_q.getIdx()));
    mov(reg_tmp.cvt32(), 0x3f400000u);  // 0.75f
    vmovd(Xmm(vmm_tq.getIdx()), reg_tmp.cvt32());
    vbroadcastss(vmm_tq, Xmm(vmm_tq.getIdx()));
    if constexpr (kEvex) {
        // vpermt2ps controls: lane 2i takes even i, lane 2i + 1 odd i (index 16 + i), for the
        // first 8 pairs (il0) and the last 8 (il1); bytes, widened.
        const Xmm t(kT0);
        const uint64_t lo = 0x1303120211011000ull, hi = 0x1707160615051404ull, plus8 = 0x0808080808080808ull;
        for (int i = 0; i < 2; ++i) {
            vmovq(t, qword[rip + pool_const(lo + i * plus8)]);
            vpinsrq(t, t, qword[rip + pool_const(hi + i * plus8)], 1);
            vpmovzxbd(Vmm(16 + i), t);
        }
    }
}

// Column by column: the vectors' records are the same in every row of the plane, so they are
// read once per column pair instead of once per row. Registers: kColRegs per column, the
// window bases in four GPRs, vmm_flat_c
// for the pairs' tap-1 selects; 13, 15 and t1 per vector. Each lane takes the selects, mul
// and FMA of linear_w and blend_w, so the bits are row()'s.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::plane_columns() {
    const jit_conf &c = conf_;
    const int V = simd_w * 4, esz = c.esize;
    const Reg64 base[2][2] = {{reg_ba, reg_bb}, {reg_spare, reg_tmp}};
    const Vmm ta(13), tb(15), r(kT1);
    const bool inlane = !kEvex && c.cols_inlane;  // lane windows (pair vectors' records say where)
    // One column group: n (1 or 2) vectors whose records start at reg_tab and whose outputs at
    // reg_dst, all pairs or none; then reg_tab and reg_dst step past them.
    auto group = [&](int n, bool pairs) {
        for (int j = 0; j < n; ++j) {
            const int off = j * c.rec_bytes;
            const Vmm i0(kColRegs[j][0]), i1(kColRegs[j][1]);
            movsxd(base[j][0], dword[reg_tab + off]);
            vmovups(i0, ptr[reg_tab + off + V]);
            if (pairs && inlane) {  // the lanes' windows at base + off[lane]; tap 1's controls
                movsxd(base[j][1], dword[reg_tab + off + 12]);
                add(base[j][1], base[j][0]);
                movsxd(reg_cnt, dword[reg_tab + off + 8]);
                add(base[j][0], reg_cnt);
                vmovups(i1, ptr[reg_tab + off + 2 * V]);
            } else if (pairs) {
                vpaddd(i1, i0, vmm_flat_c);  // tap 1 within tap 0's window
            } else {
                movsxd(base[j][1], dword[reg_tab + off + 4]);
                vmovups(i1, ptr[reg_tab + off + 2 * V]);
            }
            vmovups(Vmm(kColRegs[j][2]), ptr[reg_tab + off + 3 * V]);
            vmovups(Vmm(kColRegs[j][3]), ptr[reg_tab + off + 4 * V]);
        }
        mov(reg_row, reg_src);
        mov(reg_base, reg_dst);
        mov(reg_cnt, PARG(rows));
        Label l_rows;
        L(l_rows); {
            for (int j = 0; j < n; ++j) {
                const Vmm i0(kColRegs[j][0]), i1(kColRegs[j][1]);
                if (pairs && inlane) {
                    load_lane_windows(Ymm(ta.getIdx()), ptr[reg_row + base[j][0] * esz], ptr[reg_row + base[j][1] * esz],
                                      Ymm(r.getIdx()));
                    vpermilps(tb, ta, i1);
                    vpermilps(ta, ta, i0);
                } else {
                    load_window(ta, ptr[reg_row + base[j][0] * esz]);
                    if (pairs) {
                        select(tb, i1, ta);
                    } else {
                        load_window(tb, ptr[reg_row + base[j][1] * esz]);
                        select(tb, i1, tb);
                    }
                    select(ta, i0, ta);
                }
                vmulps(r, ta, Vmm(kColRegs[j][2]));
                vfmadd231ps(r, tb, Vmm(kColRegs[j][3]));
                vmovups(ptr[reg_base + j * V], r);
            }
            add(reg_row, static_cast<int>(c.src_row_bytes));
            add(reg_base, static_cast<int>(c.ow_pad * 4));
            dec(reg_cnt);
            jnz(l_rows, T_NEAR);
        }
        add(reg_tab, n * c.rec_bytes);
        add(reg_dst, n * V);
    };
    // The pair vectors are a prefix (window_pair_vecs); each kind runs its two-vector groups
    // in a loop, so the code stays the same size for any row width, and an odd vector goes
    // alone.
    const int64_t n_pairs = window_pair_vecs(c);
    for (const auto &[count, pairs] : {std::pair{n_pairs, true}, std::pair{c.ow_vecs - n_pairs, false}}) {
        if (count >= 2) {
            Label l_grp;
            mov(reg_rows, count / 2);
            L(l_grp); {
                group(2, pairs);
                dec(reg_rows);
                jnz(l_grp, T_NEAR);
            }
        }
        if (count % 2) group(1, pairs);
    }
}

// conf.calc_first/calc_end: the constants, and the lanes' f32 output column (o + 0.5,
// half_pixel; o, align_corners; calc_int: o as s32) from vector `first` (a GPR) on. Flat rows of flat_c channels
// (NXC, C dividing simd_w): lane l holds column first * simd_w / C + l / C, channel l % C.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::calc_init(const Reg64 &first) {
    const jit_conf &c = conf_;
    const int fc = static_cast<int>(c.flat_c), px = simd_w / fc;  // columns a vector
    imul(reg_tmp, first, px);
    vmovd(Xmm(vmm_co.getIdx()), reg_tmp.cvt32());
    vpbroadcastd(vmm_co, Xmm(vmm_co.getIdx()));
    set_dwords(vmm_ci, f32_bits(c.calc_mul));
    set_dwords(vmm_cdiv, f32_bits(c.calc_div));
    set_dwords(vmm_chalf, f32_bits(0.5f));
    set_dwords(vmm_cone, f32_bits(1.f));
    if constexpr (kEvex) {
        set_dwords(vmm_cstep, c.calc_int ? static_cast<uint32_t>(px) : f32_bits(static_cast<float>(px)));
        if (fc > 1) {  // each lane's channel, l % C (8 % C == 0: the same in both halves)
            int32_t chans[8];
            for (int l = 0; l < 8; ++l) chans[l] = l % fc;
            vmovdqu32(Ymm(vmm_cch.getIdx()), ptr[rip + pool_vec8(chans)]);
            vinserti32x8(vmm_cch, vmm_cch, ptr[rip + pool_vec8(chans)], 1);
        }
    }
    int32_t lo[8], hi[8];  // each lane's column within the vector, l / C
    for (int l = 0; l < 8; ++l) lo[l] = l / fc, hi[l] = (l + 8) / fc;
    if constexpr (kEvex) {
        vmovdqu32(Ymm(vmm_a.getIdx()), ptr[rip + pool_vec8(lo)]);
        vinserti32x8(vmm_a, vmm_a, ptr[rip + pool_vec8(hi)], 1);
        vpaddd(vmm_co, vmm_co, vmm_a);
    } else {
        vpaddd(vmm_co, vmm_co, ptr[rip + pool_vec8(lo)]);
    }
    if (c.calc_int) return;  // o as s32, converted each vector
    vcvtdq2ps(vmm_co, vmm_co);  // exact: o < 2^24
    if (c.calc_half) vaddps(vmm_co, vmm_co, vmm_chalf);
}

// The two register sets of calc_run's pipeline: a vector's selects (from the window base),
// a scratch, w1 and the window base. The rows are f32 (jit_conf), whose full loads and
// stores touch no temporary; AVX-512 has registers to spare for set 1 all the same. On the
// gather path (no window) only w1 lives on to the blend: the indices go to the stack.
template <cpu_isa isa>
typename jit_ncx_wpass<isa>::calc_set jit_ncx_wpass<isa>::calc_regs(int s) const {
    if (!conf_.window) return {vmm_idx, vmm_idx_b, s == 0 ? vmm_r : vmm_flat_c, reg_ba};
    if (s == 0) return {vmm_idx, vmm_idx_b, vmm_r, reg_ba};
    if constexpr (kEvex) return {Vmm(18), Vmm(19), Vmm(20), reg_bb};
    return {Vmm(kT0), Vmm(kT1), Vmm(kT2), reg_bb};
}

// The counter's vector's taps, weight and window base into set s; steps the counter. No memory
// is read, so the pipeline may run it past the last vector. Within [calc_first, calc_end) the
// clamps are no-ops: s >= 0 (t = s), i0 < I - 1, and the window base is i0 of lane 0.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::calc_coords(int s) {
    const calc_set r = calc_regs(s);
    const jit_conf &c = conf_;
    if (c.calc_int) {  // (float)o (+ 0.5f), rounded as the reference rounds them
        vcvtdq2ps(r.t, vmm_co);
        if (c.calc_half) vaddps(r.t, r.t, vmm_chalf);
        vmulps(r.t, r.t, vmm_ci);
    } else {
        vmulps(r.t, vmm_co, vmm_ci);
    }
    vdivps(r.t, r.t, vmm_cdiv);
    if (c.calc_half) vsubps(r.t, r.t, vmm_chalf);
    vcvttps2dq(r.i, r.t);  // i0 = (int)t, t >= 0
    const int fc = static_cast<int>(c.flat_c);
    const bool near = c.algorithm == alg::nearest;
    if (near) {
        // roundf(s), s >= 0: trunc(s), plus 1 where the fraction s - trunc(s) (exact: s below
        // 2^23, and 0 past it) is 0.5 or more. s + 0.5 truncated would be wrong where the sum
        // rounds up (s = 0.49999997f: 1, not 0).
        vcvtdq2ps(r.u, r.i);
        vsubps(r.u, r.t, r.u);
        if constexpr (kEvex) {
            vcmpps(k_tmp, r.u, vmm_chalf, 0x1d);  // >=, ordered, quiet
            vpmovm2d(r.u, k_tmp);
        } else {
            vcmpps(r.u, r.u, vmm_chalf, 0x1d);
        }
        vpsubd(r.i, r.i, r.u);  // minus -1 where rounding up
    }
    if (c.window && fc == 1) vmovd(r.base.cvt32(), Xmm(r.i.getIdx()));  // first: the window load waits on it
    if (!near) {
        vcvtdq2ps(r.u, r.i);
        vsubps(r.t, r.t, r.u);  // w1 = t - (float)i0
    }
    if (!c.window) {  // the gather path's pairs (nearest: its lanes): both taps from i0
        if constexpr (kEvex) vmovdqu32(calc_spill(s), r.i);
        else vmovdqu(calc_spill(s), r.i);
    } else {
        if (fc > 1) {  // flat rows: element i0 * C + channel; lane 0 holds channel 0
            vpslld(r.i, r.i, fc == 2 ? 1 : fc == 4 ? 2 : 3);
            vmovd(r.base.cvt32(), Xmm(r.i.getIdx()));
            if constexpr (kEvex) {
                vpaddd(r.i, r.i, vmm_cch);
            } else {
                int32_t chans[8];
                for (int l = 0; l < 8; ++l) chans[l] = l % fc;
                vpaddd(r.i, r.i, ptr[rip + pool_vec8(chans)]);
            }
        }
        vpbroadcastd(r.u, Xmm(r.i.getIdx()));
        vpsubd(r.i, r.i, r.u);  // from the window base, for both taps' windows
    }
    if constexpr (kEvex) {
        if (c.calc_int) vpaddd(vmm_co, vmm_co, vmm_cstep);
        else vaddps(vmm_co, vmm_co, vmm_cstep);
    } else {
        const int32_t px = static_cast<int32_t>(simd_w / c.flat_c);
        const int32_t step = c.calc_int ? px : static_cast<int32_t>(f32_bits(static_cast<float>(px)));
        const int32_t steps[8] = {step, step, step, step, step, step, step, step};
        if (c.calc_int) vpaddd(vmm_co, vmm_co, ptr[rip + pool_vec8(steps)]);
        else vaddps(vmm_co, vmm_co, ptr[rip + pool_vec8(steps)]);
    }
}

// The gather path's s32 tap-0 indices of set s, between calc_coords and calc_blend: in the
// System V red zone, the 128 bytes below rsp that a leaf function may use unannounced.
template <cpu_isa isa>
Address jit_ncx_wpass<isa>::calc_spill(int s) const {
    return ptr[rsp - simd_w * 4 * (s + 1)];  // two zmm fill the red zone
}

// Set s's vector: its taps (two windows, or the gather path's pair loads) and the blend,
// stored at output vector `slot`.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::calc_blend(int s, int slot) {
    const calc_set r = calc_regs(s);
    const Vmm w0 = Vmm(kEvex ? 21 : kT3);
    slot_ = slot;
    if (conf_.algorithm == alg::nearest) {  // a bit copy of each lane's element, as nearest_vector
        if constexpr (kEvex) {
            if (conf_.esize == 2) {  // 16 words from a 16-word window: the dword offsets narrowed for vpermw
                const Ymm idx(r.i.getIdx()), win(vmm_a.getIdx());
                vpmovdw(idx, r.i);
                vmovdqu16(win, ptr[reg_src + r.base * 2]);
                vpermw(win, idx, win);
                store_xwords(win, simd_w);
                slot_ = 0;
                return;
            }
        }
        if (conf_.window) vpermd(vmm_a, r.i, ptr[reg_src + r.base * 4]);
        else gather_at(reg_src, vmm_a, calc_spill(s), false);
        const Address next = ptr[out() + conf_.dst_row_bytes];
        store_u32_bits(conf_.esize, ptr[out()], vmm_a, simd_w, nt_, dup_ ? &next : nullptr);
        slot_ = 0;
        return;
    }
    if (!conf_.window && !conf_.gather_by_insert) {  // vgatherdps: tap 1 is the next element (i1 = i0 + 1)
        gather_at(reg_src, vmm_a, calc_spill(s), true);
        gather_at(reg_src, vmm_b, calc_spill(s), true, 4);
        vsubps(vmm_idx, vmm_cone, r.t);  // w0 = 1 - w1
        step(vmm_a, vmm_a, vmm_idx, vmm_b, r.t);
        store_result(ptr[out()], vmm_a, simd_w);
        slot_ = 0;
        return;
    }
    if (!conf_.window) {  // taps 0 and 1 of every lane in kPairRegs[0][1] and [0][3]
        gather_pairs(reg_src, nullptr, calc_spill(s).getRegExp());
        vsubps(vmm_a, vmm_cone, r.t);  // w0 = 1 - w1
        step(vmm_a, Vmm(kPairRegs[0][1]), vmm_a, Vmm(kPairRegs[0][3]), r.t);
        store_result(ptr[out()], vmm_a, simd_w);
        slot_ = 0;
        return;
    }
    // Tap 1 is the next column in every lane: the same selects from a window flat_c on.
    load_window(vmm_a, ptr[reg_src + r.base * conf_.esize]);
    load_window(vmm_b, ptr[reg_src + r.base * conf_.esize + static_cast<int>(conf_.flat_c) * conf_.esize]);
    select(vmm_a, r.i, vmm_a);
    select(vmm_b, r.i, vmm_b);
    vsubps(w0, vmm_cone, r.t);  // w0 = 1 - w1
    step(vmm_a, vmm_a, w0, vmm_b, r.t);
    store_result(ptr[out()], vmm_a, simd_w);
    slot_ = 0;
}

// n full vectors (the register *n_reg, or n_imm) from the counter's on, at reg_dst; steps
// reg_dst past them (they have no records: reg_tab stays on the next stored one). Each
// vector's coordinates are made two vectors ahead of its blend: made just before it, each
// window load waited on the divide's chain (~40 cycles to the base in a GPR) with the vectors
// in flight filling the FP scheduler, and 9375 -> 13781 C = 64 f32 took 387 us against 332
// us ahead (bench_ab, Zen 3 VM; both with the clamps of the first version, which calc_first
// and calc_end since keep out: 288 us).
template <cpu_isa isa>
void jit_ncx_wpass<isa>::calc_run(const Reg64 *n_reg, int64_t n_imm) {
    const jit_conf &c = conf_;
    const int out_es = final_ ? c.esize : 4;
    if (!n_reg && n_imm == 0) return;
    calc_coords(0);
    calc_coords(1);
    Label l_pair, l_odd, l_done;
    if (n_reg) {
        mov(reg_cnt, *n_reg);
        shr(reg_cnt, 1);
        jz(l_odd, T_NEAR);
    } else if (n_imm >= 2) {
        mov(reg_cnt, n_imm / 2);
    }
    if (n_reg || n_imm >= 2) {
        L(l_pair); {
            calc_blend(0, 0);
            calc_coords(0);
            calc_blend(1, 1);
            calc_coords(1);
            add(reg_dst, 2 * simd_w * out_es);
            dec(reg_cnt);
            jnz(l_pair, T_NEAR);
        }
    }
    L(l_odd);
    if (n_reg) {
        test(*n_reg, 1);
        jz(l_done, T_NEAR);
    }
    if (n_reg || n_imm % 2) {
        calc_blend(0, 0);
        add(reg_dst, simd_w * out_es);
    }
    L(l_done);
    if (!kEvex && c.up2_groups > 0) up2_constants();  // 13 and 15, for this row's or the next row's run
}

#undef PARG

// Access checks do not apply to explicit instantiations, so the private Vmm may be named.
#define XINTERP_NCX_RUNS(I)                                                                                                  \
    template void jit_ncx_wpass<I>::up2_run(const Reg64 *);                                                                  \
    template void jit_ncx_wpass<I>::per_run(const Reg64 *);                                                                  \
    template void jit_ncx_wpass<I>::per_load_phase(int, int);                                                                \
    template void jit_ncx_wpass<I>::per_phase_vector(int, int);                                                              \
    template void jit_ncx_wpass<I>::per_run_phases();                                                                        \
    template void jit_ncx_wpass<I>::up2_group(const Reg64 &, const jit_ncx_wpass<I>::Vmm &, const jit_ncx_wpass<I>::Vmm &, \
                                              bool);                                                                         \
    template void jit_ncx_wpass<I>::up2_interleave(const jit_ncx_wpass<I>::Vmm &, const jit_ncx_wpass<I>::Vmm &,           \
                                                   const jit_ncx_wpass<I>::Vmm &, const jit_ncx_wpass<I>::Vmm &);           \
    template void jit_ncx_wpass<I>::up2_constants();                                                                         \
    template void jit_ncx_wpass<I>::plane_columns();                                                                         \
    template void jit_ncx_wpass<I>::calc_init(const Reg64 &);                                                                \
    template void jit_ncx_wpass<I>::calc_coords(int);                                                                        \
    template void jit_ncx_wpass<I>::calc_blend(int, int);                                                                    \
    template void jit_ncx_wpass<I>::calc_run(const Reg64 *, int64_t);                                                        \
    template jit_ncx_wpass<I>::calc_set jit_ncx_wpass<I>::calc_regs(int) const;                                              \
    template Address jit_ncx_wpass<I>::calc_spill(int) const;
XINTERP_NCX_RUNS(cpu_isa::avx2)
XINTERP_NCX_RUNS(cpu_isa::avx512_core)
XINTERP_NCX_RUNS(cpu_isa::avx512_core_bf16)
#undef XINTERP_NCX_RUNS

}  // namespace xinterp
