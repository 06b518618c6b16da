#include "jit_interp_kernel.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <utility>

namespace xinterp {

using namespace Xbyak;

namespace {
constexpr size_t kMaxCodeSize = 16 * 1024;  // the largest kernel (3-D NXC bf16 linear) is ~3 KB
#define ARG(field) ptr[reg_args + static_cast<int>(offsetof(jit_args, field))]
}  // namespace

template <cpu_isa isa>
jit_interp_kernel<isa>::jit_interp_kernel(const jit_conf &conf, bool nt, bool w_only, pair_kind pair)
    : jit_io(kMaxCodeSize, simd_w, conf.native_bf16),
      conf_(conf),
      nt_(nt && !w_only),
      w_only_(w_only),
      pair_(pair) {
    bf16_clean_flag_at(static_cast<int>(offsetof(jit_args, flags)), conf.dt);
}

// The W step of n channels, into r: w0 * tap 0 (at a0) + w1 * tap 1 (at a1), in the canonical
// order. Clobbers vmm_a and vmm_b. With half 0 / 1 the taps are 16 bf16 channels whose dword i
// holds channels 2i (low word) and 2i + 1 (high word): each is the f32 of its bf16 once in the
// top half, the even by a shift (vpslld) and the odd by a mask (vpand, any FP pipe, its load
// folded in), where vpmovzxwd + vpslld take two shuffle-pipe ops per 8 channels.
template <cpu_isa isa>
void jit_interp_kernel<isa>::w_step(const Vmm &r, const Address &a0, const Address &a1, int64_t n, int half) {
    w_taps(a0, a1, n, half);
    vmulps(r, vmm_w0, vmm_a);
    vfmadd231ps(r, vmm_w1, vmm_b);
}

// w_step's taps alone, into vmm_a and vmm_b (the run kernel's pixel pairs share them).
template <cpu_isa isa>
void jit_interp_kernel<isa>::w_taps(const Address &a0, const Address &a1, int64_t n, int half) {
    for (const auto &[v, a] : {std::pair<const Vmm &, const Address &>{vmm_a, a0}, {vmm_b, a1}}) {
        if (half < 0) {
            load_f32(conf_.dt, v, a, n);
        } else if (half == 0 && kEvex) {
            vpslld(v, a, 16);  // EVEX shifts take their source from memory
        } else if (half == 0) {
            vmovdqu(v, a);
            vpslld(v, v, 16);
        } else if (kEvex) {
            vpandd(v, vmm_hi, a);
        } else {
            vpand(v, vmm_hi, a);
        }
    }
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
    // W only: one tap row, f32 out (scratch rows are f32, padded past the last channel).
    const int nh = w_only_ ? 1 : c.nh, nd = w_only_ ? 1 : c.nd, n_taps = nh * nd;
    const data_type out_dt = w_only_ ? data_type::f32 : c.dt;
    const int out_es = w_only_ ? 4 : c.esize;
    // D pair (pair_kind::d_same, 3-D): a second output row, dst_b, one od on, with the same D
    // taps and its own D weights wd_b: both rows take the same two H results, so the W and H
    // steps are done once for two rows (8 FMA-pipe ops per output vector instead of 14).
    const bool dpair = pair_ == pair_kind::d_same;
    const Reg64 reg_dst_b = r14;  // callee-saved, pushed by preamble()
    const Vmm vmm_wdb0(12), vmm_wdb1(13), vmm_out_b(15);
    mov(reg_dst, ARG(dst));
    if (dpair) {
        mov(reg_dst_b, ARG(dst_b));
        vbroadcastss(vmm_wdb0, ARG(wd_b[0]));
        vbroadcastss(vmm_wdb1, ARG(wd_b[1]));
    }
    mov(reg_tab, ARG(wtab));
    mov(reg_row[0], ARG(src[0]));
    for (int t = 1; t < n_taps; ++t) {
        mov(reg_row[t], ptr[reg_args + static_cast<int>(offsetof(jit_args, src) + 8 * t)]);
        sub(reg_row[t], reg_row[0]);
    }
    if (nh == 2) {
        vbroadcastss(vmm_wh0, ARG(wh[0]));
        vbroadcastss(vmm_wh1, ARG(wh[1]));
    }
    if (nd == 2) {
        vbroadcastss(vmm_wd0, ARG(wd[0]));
        vbroadcastss(vmm_wd1, ARG(wd[1]));
    }
    // The result of n channels at byte offset off of this pixel's taps, into vmm_hd0 (half:
    // w_step's).
    auto interp = [&](int64_t n, int off, int half = -1) {
        for (int d = 0; d < nd; ++d) {
            for (int h = 0; h < nh; ++h) {
                const int t = d * nh + h;
                const RegExp ea = (t ? reg_p0 + reg_row[t] : RegExp(reg_p0)) + off;
                const RegExp eb = (t ? reg_p1 + reg_row[t] : RegExp(reg_p1)) + off;
                w_step(nh == 1 && nd == 1 ? vmm_hd0 : vmm_rw[h], ptr[ea], ptr[eb], n, half);
            }
            if (nh == 2) combine_taps(d == 0 ? vmm_hd0 : vmm_rw[0]);
        }
        if (nd == 2 && dpair) {  // the second row's D step first: the first one overwrites H0
            vmulps(vmm_out_b, vmm_wdb0, vmm_hd0);
            vfmadd231ps(vmm_out_b, vmm_wdb1, vmm_rw[0]);
        }
        if (nd == 2) {
            vmulps(vmm_hd0, vmm_wd0, vmm_hd0);
            vfmadd231ps(vmm_hd0, vmm_wd1, vmm_rw[0]);
        }
    };
    auto compute = [&](int64_t n, int src_off, int dst_off) {
        interp(n, src_off);
        store_px(out_dt, ptr[reg_dst + dst_off], vmm_hd0, n, nt_);  // clobbers the io temps, not vmm_out_b
        if (dpair) store_px(out_dt, ptr[reg_dst_b + dst_off], vmm_out_b, n, nt_);
    };
    // AVX2 bf16: 16-channel blocks, their even channels and then their odd ones (w_step's
    // halves), rounded together into one interleaved store (cvt2_to_bf16_interleaved).
    // AVX-512 (words_pair; NT variants where conf.nt_lines): 32-channel blocks the same way,
    // for one 64-byte store.
    const bool pairs = (kEvex ? words_pair() && !w_only_ && (!nt_ || c.nt_lines) : out_dt == data_type::bf16) && c.c_full >= 2 && !dpair;  // D pairs: f32/f16
    const bool split = !kEvex && w_only_ && c.bf16_even_odd;  // C % 16 == 0: no tail
    const Vmm vmm_raw0(2), vmm_raw1(3);  // W only: no H weights in 2 and 3
    if (pairs && kEvex) {
        words_pair_consts();
    } else if (split || pairs) {
        static constexpr int32_t kHi[8] = {-65536, -65536, -65536, -65536, -65536, -65536, -65536, -65536};
        vmovdqu(vmm_hi, ptr[rip + pool_vec8(kHi)]);
    }
    auto dst_add = [&](int bytes) {  // both output rows move together
        add(reg_dst, bytes);
        if (dpair) add(reg_dst_b, bytes);
    };
    auto compute_pair = [&]() {
        const Vmm even(12);
        interp(simd_w, 0, 0);
        vmovaps(even, vmm_hd0);
        interp(simd_w, 0, 1);
        if constexpr (kEvex) {
            store_words_eo(ptr[reg_dst], even, vmm_hd0, nt_);
        } else {
            cvt2_to_bf16_interleaved(even, vmm_hd0);
            store_bf16_pair(ptr[reg_dst], nt_, c.C % 16 == 0);  // else pixels start 16-byte aligned only
        }
    };
    if (c.narrow) return narrow_loop(compute, dst_add, out_es);
    if (w_only_ && c.n_px_segs > 0) return w_pixel_pairs(compute, dst_add);
    if (!split && !pairs && c.c_full <= kUnrollC) return unrolled_pixels(compute, dst_add, out_es);
    for_pixels(c.OW, [&] {
        auto advance = [&](int vecs) {
            add(reg_p0, vecs * simd_w * c.esize);
            add(reg_p1, vecs * simd_w * c.esize);
            dst_add(vecs * simd_w * out_es);
        };
        const int64_t singles = split ? 0 : pairs ? c.c_full % 2 : c.c_full;
        if (split) {  // W step only, bf16 (conf.bf16_even_odd): 16 channels per trip
            Label l_blk;
            mov(reg_cnt, c.C / 16);
            L(l_blk); {
                vmovdqu(vmm_raw0, ptr[reg_p0]);
                vmovdqu(vmm_raw1, ptr[reg_p1]);
                for (int half = 0; half < 2; ++half) {
                    // Dword i holds channels 2i (low word) and 2i + 1 (high word): each lands in
                    // the top half of a dword, which is its f32 value.
                    for (const auto &[v, raw] : {std::pair{vmm_a, vmm_raw0}, std::pair{vmm_b, vmm_raw1}}) {
                        if (half == 0) vpslld(v, raw, 16);
                        else vpand(v, raw, vmm_hi);
                    }
                    vmulps(vmm_hd0, vmm_w0, vmm_a);
                    vfmadd231ps(vmm_hd0, vmm_w1, vmm_b);
                    vmovups(ptr[reg_dst + half * 32], vmm_hd0);
                }
                advance(2);
                dec(reg_cnt);
                jnz(l_blk, T_NEAR);
            }
        }
        if (pairs) {
            Label l_pair;
            mov(reg_cnt, c.c_full / 2);
            L(l_pair); {
                compute_pair();
                advance(2);
                dec(reg_cnt);
                jnz(l_pair, T_NEAR);
            }
        }
        vector_loop(singles, simd_w * c.esize, simd_w * out_es, compute, advance);
        if (c.c_tail > 0) {
            // The last channels as one vector ending at C (C >= simd_w on this path): it
            // overlaps the previous vector and rewrites identical bits, which beats a masked
            // store (microcoded on AMD) and never leaves the pixel. NT variants have no tail.
            // AVX-512 too: under opmasks, four masked loads and a masked store (each with its
            // mask reloaded) took c17 and c23 NXC linear 1.3-1.7x the time of AVX2's overlap on
            // the Zen 4 dev VM. At 512 bits the vector is an xmm or ymm where one covers the
            // tail (tail_lanes).
            const int lanes = tail_lanes();
            const int back = static_cast<int>((lanes - c.c_tail) * c.esize);
            const int back_out = static_cast<int>((lanes - c.c_tail) * out_es);
            sub(reg_p0, back);
            sub(reg_p1, back);
            dst_add(-back_out);
            compute(lanes, 0, 0);
            dst_add(lanes * out_es);
        }
    });
}

// Nearest NXC is a bit copy of C * esize bytes per pixel: whole vectors, then the rest in two
// moves (below), so no byte outside the pixel is touched and no dtype logic is needed. The
// pair variant (conf.row_pairs) writes every loaded vector to two consecutive dst rows that
// share their src row.
template <cpu_isa isa>
void jit_interp_kernel<isa>::gen_nxc_nearest() {
    const jit_conf &c = conf_;
    const int vlen = simd_w * 4;
    const int64_t full = c.c_bytes / vlen;
    const int rem = static_cast<int>(c.c_bytes % vlen);
    const Reg64 reg_dst_b = reg_row[3];  // pair: the second row, dst_row_bytes on
    const bool pair = pair_ != pair_kind::none;
    mov(reg_dst, ARG(dst));
    if (pair) {
        mov(reg_dst_b, c.dst_row_bytes);  // a 64-bit immediate: rows may exceed 2^31 bytes
        add(reg_dst_b, reg_dst);
    }
    // Every store goes to dst, and in the pair variant to the same offset of the second row.
    auto to_rows = [&](const std::function<void(const Reg64 &)> &store) {
        store(reg_dst);
        if (pair) store(reg_dst_b);
    };
    auto advance = [&](int bytes) {
        add(reg_dst, bytes);
        if (pair) add(reg_dst_b, bytes);
    };
    mov(reg_tab, ARG(wtab));
    mov(reg_row[0], ARG(src[0]));
    Label l_ow, l_v;
    row_pixels(c.OW);
    L(l_ow); {
        mov(reg_p0, ptr[reg_tab]);
        add(reg_p0, reg_row[0]);
        if (full > 0) {
            mov(reg_cnt, full);
            L(l_v); {
                if constexpr (kEvex) vmovdqu32(vmm_a, ptr[reg_p0]);
                else vmovdqu(vmm_a, ptr[reg_p0]);
                to_rows([&](const Reg64 &d) {
                    if (nt_) vmovntdq(ptr[d], vmm_a);
                    else if constexpr (kEvex) vmovdqu32(ptr[d], vmm_a);
                    else vmovdqu(ptr[d], vmm_a);
                });
                add(reg_p0, vlen);
                advance(vlen);
                dec(reg_cnt);
                jnz(l_v, T_NEAR);
            }
        }
        if (rem > 0) {
            // The rest of the pixel past its whole vectors (all of it for a pixel under a
            // vector: 16-bit C of 16-31 at 512 bits, or any C < simd_w, narrow_nearest_pays):
            // a move of the widest size that fits and one of the narrowest that covers what
            // it leaves (below), or one of 2 bytes, so nothing outside the pixel is read or
            // written, no mask (a masked store is microcoded on AMD) and no per-element
            // gather. At 512 bits this replaced the rest under a byte opmask, whose zmm load
            // and store cross a line wherever the pixel's end does: bench_ab on the Xeon dev
            // VM (Emerald Rapids) NXC f32 c17 (33x33 -> 65x65) 0.88-0.91x the time, c23
            // 0.95-0.98x, C = 20 and 28 0.91-0.95x, 20x20 identity C = 33 0.80-0.85x (bf16,
            // f16: 0.50-0.74x); C = 45 and 100 even (0.97-1.04x). AVX2 had an overlapping
            // ymm ending at the pixel's end: its kernels ran on the same VM, both orders, C = 9
            // f32 0.69-0.78x the time with these moves, c17 and c23 16-bit 0.70-0.83x, c17
            // f32 0.81x, C = 13 and 45 0.93-0.94x (Zen unmeasured).
            if (rem == 2) {
                movzx(reg_cnt.cvt32(), word[reg_p0]);
                to_rows([&](const Reg64 &d) { mov(word[d], reg_cnt.cvt16()); });
            } else {
                // The second move ends at the pixel's end, overlapping the first where the
                // rest is no piece size. It had been as wide as the first: bench_ab on the Xeon
                // dev VM (Emerald Rapids), both orders, 4 bytes against 32: 1-D 2837 -> 20614
                // C = 9 (the sweep's 0.69x case against oneDNN) f32 0.64x the time, bf16
                // 0.69x, f16 0.90x; 1379 -> 887 C = 9 0.62-0.74x; c17 NXC bf16 and f16 (2
                // bytes past 32) 0.69-0.70x; rests of 8-24 bytes even (C = 10-13, 26).
                const int piece = rem >= 32 ? 32 : rem >= 16 ? 16 : rem >= 8 ? 8 : 4, rest = rem - piece;
                const int last = rest > 16 ? 32 : rest > 8 ? 16 : rest > 4 ? 8 : 4;
                auto load = [&](const Xmm &x, const Address &from, int bytes) {
                    if (bytes == 32) vmovdqu(Ymm(x.getIdx()), from);
                    else if (bytes == 16) vmovdqu(x, from);
                    else if (bytes == 8) vmovq(x, from);
                    else vmovd(x, from);
                };
                auto store = [&](const Address &to, const Xmm &x, int bytes) {
                    if (bytes == 32) vmovdqu(to, Ymm(x.getIdx()));
                    else if (bytes == 16) vmovdqu(to, x);
                    else if (bytes == 8) vmovq(to, x);
                    else vmovd(to, x);
                };
                const Xmm xa(vmm_a.getIdx()), xb(vmm_b.getIdx());
                load(xa, ptr[reg_p0], piece);
                if (rest) load(xb, ptr[reg_p0 + rem - last], last);
                to_rows([&](const Reg64 &d) {
                    store(ptr[d], xa, piece);
                    if (rest) store(ptr[d + rem - last], xb, last);
                });
            }
        }
        if (rem) advance(rem);
        add(reg_tab, 8);
        dec(reg_ow);
        jnz(l_ow, T_NEAR);
    }
}

// This pixel's W taps (addresses in row 0) and weights, from its 24-byte table record.
template <cpu_isa isa>
void jit_interp_kernel<isa>::pixel_taps() {
    mov(reg_p0, ptr[reg_tab]);
    add(reg_p0, reg_row[0]);
    mov(reg_p1, ptr[reg_tab + 8]);
    add(reg_p1, reg_row[0]);
    vbroadcastss(vmm_w0, ptr[reg_tab + 16]);
    vbroadcastss(vmm_w1, ptr[reg_tab + 20]);
}

// Chained (pair_kind::chained): rows x, y, z = src[0..2]; per channel vector the W steps W(x),
// W(y), W(z), each once; the first output row is wh0 * W(x) + wh1 * W(y), the second
// wd0 * W(y) + wd1 * W(z). Same taps (pair_kind::same_taps): rows x, y = src[0..1], which both
// output rows read; W(x) and W(y) once, then wh0 * W(x) + wh1 * W(y) and wd0 * W(x) + wd1 * W(y)
// (4 FMA-pipe ops per output vector instead of 5 chained, 6 alone). All in the canonical order:
// the W results are the same bits a single-row call would form.
template <cpu_isa isa>
void jit_interp_kernel<isa>::gen_nxc_linear_pair() {
    const jit_conf &c = conf_;
    const bool same = pair_ == pair_kind::same_taps;
    const Reg64 reg_dst_b = reg_row[3];  // the second output row
    const Vmm wx(12), wy(13), wz(6);
    mov(reg_dst, ARG(dst));
    mov(reg_dst_b, c.dst_row_bytes);  // a 64-bit immediate: rows may exceed 2^31 bytes
    add(reg_dst_b, reg_dst);
    mov(reg_tab, ARG(wtab));
    mov(reg_row[0], ARG(src[0]));
    for (int t = 1; t < (same ? 2 : 3); ++t) {
        mov(reg_row[t], ptr[reg_args + static_cast<int>(offsetof(jit_args, src) + 8 * t)]);
        sub(reg_row[t], reg_row[0]);
    }
    vbroadcastss(vmm_wh0, ARG(wh[0]));
    vbroadcastss(vmm_wh1, ARG(wh[1]));
    vbroadcastss(vmm_wd0, ARG(wd[0]));
    vbroadcastss(vmm_wd1, ARG(wd[1]));
    auto tap_row = [&](const Vmm &r, int t, int64_t n, int off) {
        const RegExp ea = (t ? reg_p0 + reg_row[t] : RegExp(reg_p0)) + off;
        const RegExp eb = (t ? reg_p1 + reg_row[t] : RegExp(reg_p1)) + off;
        w_step(r, ptr[ea], ptr[eb], n);
    };
    auto compute = [&](int64_t n, int src_off, int dst_off) {
        tap_row(wx, 0, n, src_off);
        tap_row(wy, 1, n, src_off);
        if (!same) tap_row(wz, 2, n, src_off);
        vmulps(vmm_hd0, vmm_wh0, wx);
        vfmadd231ps(vmm_hd0, vmm_wh1, wy);
        store_px(c.dt, ptr[reg_dst + dst_off], vmm_hd0, n, nt_);  // clobbers the io temps only
        vmulps(vmm_hd0, vmm_wd0, same ? wx : wy);
        vfmadd231ps(vmm_hd0, vmm_wd1, same ? wy : wz);
        // NT variant: the first row only. Both rows NT, written a vector each in turn, ran
        // 2x NXC f32 outputs of 16-32 MiB 2.6-4x slower than NT and plain (f16 2.3x), and
        // both plain 1.15-1.4x slower (A/Bs in one process).
        store_px(c.dt, ptr[reg_dst_b + dst_off], vmm_hd0, n, false);
    };
    // 32 channels at once (words_pair): their even and odd halves (i = 0, 1), W results in
    // wx, wy, wz and 16, 17, 19 (AVX-512 only), H results in vmm_hd0 and 18. The NT variant
    // keeps single vectors (its first row's NT stores).
    auto compute2 = [&](int64_t, int src_off, int dst_off) {
        const Vmm x[2] = {wx, Vmm(16)}, y[2] = {wy, Vmm(17)}, z[2] = {wz, Vmm(19)}, hd[2] = {vmm_hd0, Vmm(18)};
        for (int i = 0; i < 2; ++i) {
            auto half_row = [&](const Vmm &r, int t) {
                const RegExp ea = (t ? reg_p0 + reg_row[t] : RegExp(reg_p0)) + src_off;
                const RegExp eb = (t ? reg_p1 + reg_row[t] : RegExp(reg_p1)) + src_off;
                w_step(r, ptr[ea], ptr[eb], simd_w, i);
            };
            half_row(x[i], 0);
            half_row(y[i], 1);
            if (!same) half_row(z[i], 2);
        }
        for (int row = 0; row < 2; ++row) {
            for (int i = 0; i < 2; ++i) {
                vmulps(hd[i], row ? vmm_wd0 : vmm_wh0, row == 0 || same ? x[i] : y[i]);
                vfmadd231ps(hd[i], row ? vmm_wd1 : vmm_wh1, row == 0 || same ? y[i] : z[i]);
            }
            store_words_eo(ptr[(row ? reg_dst_b : reg_dst) + dst_off], hd[0], hd[1], nt_ && row == 0);
        }
    };
    const bool two = words_pair() && (!nt_ || c.nt_lines);
    if (two) words_pair_consts();
    pixel_loop(
        compute,
        [&](int bytes) {
            add(reg_dst, bytes);
            add(reg_dst_b, bytes);
        },
        two ? compute_fn(compute2) : compute_fn());
}

// The pixels of a row (pair and run kernels: dst in the src dtype; the W step's single pixels
// beside its pairs: f32, out_es 4): per pixel its taps, the full channel vectors, then the
// tail (the overlapping last vector, as in gen_nxc_linear); narrow or unrolled pixels where
// the conf has them. compute (compute_fn) makes and stores the channels; dst_add(bytes) steps
// the output pointers.
template <cpu_isa isa>
void jit_interp_kernel<isa>::pixel_loop(const compute_fn &compute, const std::function<void(int)> &dst_add, const compute_fn &compute2,
                                        int64_t n_px, int out_es) {
    const jit_conf &c = conf_;
    if (n_px < 0) n_px = c.OW;
    if (out_es < 0) out_es = c.esize;
    auto advance = [&](int elems) {  // both taps and the output, elems elements on
        add(reg_p0, elems * c.esize);
        add(reg_p1, elems * c.esize);
        dst_add(elems * out_es);
    };
    if (c.narrow) return narrow_loop(compute, dst_add, out_es);
    if (c.c_full <= kUnrollC) return unrolled_pixels(compute, dst_add, out_es, compute2, n_px);
    for_pixels(n_px, [&] {
        vector_loop(c.c_full, simd_w * c.esize, simd_w * out_es, compute, [&](int vecs) { advance(vecs * simd_w); }, compute2);
        if (c.c_tail > 0) {  // the overlapping last vector, as in gen_nxc_linear
            const int lanes = tail_lanes();
            advance(-static_cast<int>(lanes - c.c_tail));
            compute(lanes, 0, 0);
            dst_add(lanes * out_es);
        }
    });
}

// Per vector, the loop's pointer steps, counter and branch were 4-6 instructions besides a W
// step's 5 (separable W rows) or a 2-D pixel's 10: four vectors per trip cut them to a quarter.
template <cpu_isa isa>
void jit_interp_kernel<isa>::vector_loop(int64_t n, int in_v, int out_v, const compute_fn &compute, const std::function<void(int)> &step,
                                         const compute_fn &compute2) {
    auto vectors = [&](int count) {  // count vectors from the pointers, in pairs where compute2 is given
        for (int k = 0; k < count;) {
            if (compute2 && k + 1 < count) {
                compute2(simd_w, k * in_v, k * out_v);
                k += 2;
            } else {
                compute(simd_w, k * in_v, k * out_v);
                ++k;
            }
        }
    };
    if (n >= kUnrollV) {
        Label l_c;
        mov(reg_cnt, n / kUnrollV);
        L(l_c); {
            vectors(kUnrollV);
            step(kUnrollV);
            dec(reg_cnt);
            jnz(l_c, T_NEAR);
        }
    }
    const int rest = static_cast<int>(n % kUnrollV);
    vectors(rest);
    if (rest) step(rest);
}

// The pixel counter for n pixels: a whole row's count comes from jit_args::px_count in the
// row kernels that conf.span_units lets the driver call for a span of a row.
template <cpu_isa isa>
void jit_interp_kernel<isa>::row_pixels(int64_t n) {
    if (n == conf_.OW && conf_.span_units > 0 && pair_ == pair_kind::none && !w_only_) mov(reg_ow, ARG(px_count));
    else mov(reg_ow, n);
}

// n pixels: each one's taps (pixel_taps), body, and the step to the next table record.
template <cpu_isa isa>
void jit_interp_kernel<isa>::for_pixels(int64_t n, const std::function<void()> &body, const std::function<void()> &count) {
    Label l_px, l_none;
    if (count) {
        count();
        test(reg_ow, reg_ow);
        jz(l_none, T_NEAR);
    } else {
        row_pixels(n);
    }
    L(l_px); {
        pixel_taps();
        body();
        add(reg_tab, conf_.wtab_stride);
        dec(reg_ow);
        jnz(l_px, T_NEAR);
    }
    L(l_none);
}

// Pixels of at most kUnrollC full vectors: each vector and the tail at their byte offsets
// from the pixel's taps and output, so per vector no pointer steps and no loop branch (c17
// NXC linear's same-taps pairs made 6 such instructions per 14), and one output step per pixel.
template <cpu_isa isa>
void jit_interp_kernel<isa>::unrolled_pixels(const compute_fn &compute, const std::function<void(int)> &dst_add, int out_es,
                                             const compute_fn &compute2, int64_t n_px) {
    const jit_conf &c = conf_;
    const int in_v = simd_w * c.esize, out_v = simd_w * out_es, full = static_cast<int>(c.c_full);
    const int lanes = tail_lanes(), back = static_cast<int>(lanes - c.c_tail);  // the last vector ends at C
    for_pixels(n_px < 0 ? c.OW : n_px, [&] {
        for (int v = 0; v < full;) {
            const bool two = compute2 && v + 1 < full;
            (two ? compute2 : compute)(simd_w, v * in_v, v * out_v);
            v += two ? 2 : 1;
        }
        if (c.c_tail > 0) compute(lanes, full * in_v - back * c.esize, full * out_v - back * out_es);
        dst_add(static_cast<int>(c.C * out_es));
    });
}

// Narrow pixels: OW - edge_px forward pixels, each a full vector from its taps' pixels' starts,
// whose store spills into the pixels after it (they are made later, and overwrite it); then
// edge_px edge pixels. On AVX2 their taps load the vectors that end at their pixels' ends
// (reg_p0 and reg_p1 back by simd_w - C elements; reg_row deltas keep them inside every tap
// row); on AVX-512 every load and the store take C lanes under an opmask (C = 4 and 8: xmm
// and ymm moves, jit_io).
template <cpu_isa isa>
void jit_interp_kernel<isa>::narrow_loop(const compute_fn &compute, const std::function<void(int)> &dst_add, int out_es) {
    const jit_conf &c = conf_;
    // At 512 bits a forward pixel of up to 8 channels takes an xmm or ymm (jit_io's exact 4-
    // and 8-element moves), not a zmm: its taps' loads and its store then span two lines only
    // where those lanes do. bench_ab on the Xeon dev VM (Emerald Rapids) against zmm pixels,
    // both orders: img_down NXC linear (C = 3) bf16 0.80-0.87x the time, f16 0.89-0.91x, f32
    // 0.95-0.98x; 300x300 -> 100x100 C = 4 f32 0.56-0.59x, f16 0.74x; 100x283 -> 200x2061
    // C = 6 f32 0.83-0.91x; 3-D 18x10x31 -> 5x3x14 C = 7 0.77-0.78x; C = 5 and 8 even.
    const int narrow_lanes = lanes_for(c.C);
    // In a span (conf.span_units; the plain row kernel, as row_pixels) both counts come from
    // jit_args: px_count pixels, the last px_edge of them edge pixels.
    const bool spans = c.span_units > 0 && pair_ == pair_kind::none && !w_only_;
    for (const bool edge : {false, true}) {
        const int64_t n = edge ? c.edge_px : c.OW - c.edge_px;
        if (n == 0 && !spans) continue;
        auto count = [&] {
            mov(reg_ow, ARG(px_edge));
            if (edge) return;
            neg(reg_ow);
            add(reg_ow, ARG(px_count));
        };
        for_pixels(n, [&] {
            if (kEvex && edge) {
                compute(c.C, 0, 0);
            } else if (edge) {
                const int back = static_cast<int>((simd_w - c.C) * c.esize);
                sub(reg_p0, back);
                sub(reg_p1, back);
                edge_ = true;
                compute(simd_w, 0, 0);
                edge_ = false;
            } else {
                compute(narrow_lanes, 0, 0);
            }
            dst_add(static_cast<int>(c.C * out_es));
        }, spans ? std::function<void()>(count) : std::function<void()>());
    }
}

template <cpu_isa isa>
void jit_interp_kernel<isa>::words_pair_consts() {
    if constexpr (kEvex) {
        vbroadcastss(vmm_hi, dword[rip + pool_const(0xffff0000u)]);
        // Word 2i takes word i (the even half's), word 2i + 1 word 16 + i (the odd half's).
        int32_t il[8];
        for (int i = 0; i < 8; ++i) il[i] = (2 * i) | (16 + 2 * i) << 8 | (2 * i + 1) << 16 | (17 + 2 * i) << 24;
        vpmovzxbw(vmm_wil, ptr[rip + pool_vec8(il)]);
    }
}

template <cpu_isa isa>
void jit_interp_kernel<isa>::store_words_eo(const Address &a, const Vmm &even, const Vmm &odd, bool nt) {
    if constexpr (kEvex) {
        const Zmm r(kT2);
        round_words(conf_.dt, r, even, odd, true, Ymm(kT3));  // 16 even words, then 16 odd
        vpermw(r, vmm_wil, r);
        if (nt) vmovntdq(a, r);  // a whole 64-byte line (conf.nt_lines)
        else vmovdqu16(a, r);
    }
}

// Two f16 vectors of consecutive channels as one NT 64-byte line: round_words rounds them as
// store_f32 rounds f16 (vcvtps2ph imm 0) and joins them.
template <cpu_isa isa>
void jit_interp_kernel<isa>::store_f16_line(const Address &a, const Vmm &lo, const Vmm &hi) {
    if constexpr (kEvex) {
        const Zmm r(kT2);
        round_words(data_type::f16, r, lo, hi, true, Ymm(kT3));
        vmovntdq(a, r);
    }
}

template <cpu_isa isa>
void jit_interp_kernel<isa>::store_px(data_type dt, const Address &a, const Vmm &v, int64_t n, bool nt) {
    if constexpr (!kEvex) {
        if (edge_) {
            // Lanes simd_w - C .. simd_w - 1 hold the pixel: to lanes 0 .. C - 1 (vmm_a is free
            // once the taps are blended), then exactly C elements.
            int32_t ctrl[8];
            for (int l = 0; l < 8; ++l) ctrl[l] = static_cast<int32_t>(std::min<int64_t>(7, l + simd_w - conf_.C));
            vmovdqu(vmm_a, ptr[rip + pool_vec8(ctrl)]);
            vpermd(v, vmm_a, v);
            return store_f32(dt, a, v, conf_.C, false);
        }
    }
    store_f32(dt, a, v, n, nt);
}

// The row's pixels as conf.px_segs has them: per segment, its single pixels (singles(n)) and
// then its pairs, each the second pixel's W weights (the next record's) into wb0 and wb1,
// pair() (the first pixel's taps and weights as singly) and the step past the second record;
// then the pixels after the last segment singly.
template <cpu_isa isa>
void jit_interp_kernel<isa>::px_segments(const std::function<void(int64_t)> &singles, const Vmm &wb0, const Vmm &wb1,
                                         const std::function<void()> &pair) {
    const jit_conf &c = conf_;
    int64_t done = 0;
    for (int s = 0; s < c.n_px_segs; ++s) {
        const jit_conf::px_seg &g = c.px_segs[s];
        if (g.singles > 0) singles(g.singles);
        for_pixels(g.pairs, [&] {
            vbroadcastss(wb0, ptr[reg_tab + c.wtab_stride + 16]);
            vbroadcastss(wb1, ptr[reg_tab + c.wtab_stride + 20]);
            pair();
            add(reg_tab, c.wtab_stride);
        });
        done += g.singles + 2 * g.pairs;
    }
    if (c.OW > done) singles(c.OW - done);
}

// W only, pixel pairs (conf.px_segs): the two pixels of a pair read the same two W taps, so
// per channel vector one load and widening of the taps serves both pixels' W steps (each with
// its own weights, the second pixel's from the next record: the same bits as apart). A tail
// is the overlapping last vector of each pixel, as singly (unrolled_pixels). Pixels of up to
// kUnrollC vectors store the first pixel's vectors as they are made and hold the second's
// (zmm16 on) until it is done, so the stores run in address order: stored alternately, seg_8x
// NXC (C = 21) ran its W step 1.2x slower than singly. The pixels outside the pairs go singly
// (compute, dst_add: gen_nxc_linear's).
template <cpu_isa isa>
void jit_interp_kernel<isa>::w_pixel_pairs(const compute_fn &compute, const std::function<void(int)> &dst_add) {
    const jit_conf &c = conf_;
    const Vmm wb0(2), wb1(3), rb(12);  // W only: no H weights in 2 and 3, no D pair in 12
    const int vb = simd_w * c.esize, ob = simd_w * 4, pxb = static_cast<int>(c.C * 4);
    const int full = static_cast<int>(c.c_full), lanes = tail_lanes(), back = lanes - static_cast<int>(c.c_tail);
    static_assert(!kEvex || 16 + kUnrollC + 1 <= 30, "held vectors below vmm_wil");
    // Both pixels' n channels at the offsets: the first's stored, the second's into r2 and
    // stored too unless held (the caller stores it once the first pixel is done).
    auto both_into = [&](int64_t n, int src_off, int dst_off, const Vmm &r2, bool held) {
        w_taps(ptr[reg_p0 + src_off], ptr[reg_p1 + src_off], n, -1);
        vmulps(vmm_hd0, vmm_w0, vmm_a);
        vfmadd231ps(vmm_hd0, vmm_w1, vmm_b);
        vmulps(r2, wb0, vmm_a);
        vfmadd231ps(r2, wb1, vmm_b);
        store_px(data_type::f32, ptr[reg_dst + dst_off], vmm_hd0, n, false);
        if (!held) store_px(data_type::f32, ptr[reg_dst + dst_off + pxb], r2, n, false);
    };
    auto both = [&](int64_t n, int src_off, int dst_off) { both_into(n, src_off, dst_off, rb, false); };
    auto pair = [&] {
        if (kEvex && full <= kUnrollC) {
            for (int v = 0; v < full; ++v) both_into(simd_w, v * vb, v * ob, Vmm(16 + v), true);
            if (c.c_tail > 0) both_into(lanes, full * vb - back * c.esize, full * ob - back * 4, Vmm(16 + full), true);
            for (int v = 0; v < full; ++v) store_px(data_type::f32, ptr[reg_dst + pxb + v * ob], Vmm(16 + v), simd_w, false);
            if (c.c_tail > 0) store_px(data_type::f32, ptr[reg_dst + pxb + full * ob - back * 4], Vmm(16 + full), lanes, false);
            dst_add(2 * pxb);
        } else {
            vector_loop(full, vb, ob, both, [&](int vecs) {
                add(reg_p0, vecs * vb);
                add(reg_p1, vecs * vb);
                dst_add(vecs * ob);
            });
            if (c.c_tail > 0) both(lanes, -back * c.esize, -back * 4);  // the tail ends at the pixel's end
            dst_add(2 * pxb - full * ob);                               // past the second pixel
        }
    };
    auto singles = [&](int64_t n) { pixel_loop(compute, dst_add, nullptr, n, 4); };  // f32 out
    px_segments(singles, wb0, wb1, pair);
}

// Same-taps run (pair_kind::same_run): src[0] is src row i, rows i + 1 .. i + M follow it at
// src_row_bytes steps, and output rows 2m, 2m + 1 (m < M, dst_row_bytes apart from dst) blend
// W(i + m) and W(i + m + 1) with (wh0, wh1) and (wd0, wd1). Per pixel and channel vector each
// W step is made once and serves the pair before it and the pair after it; only two W results
// are live at a time. The same W and H steps as the pair kernel, so the same bits. Pixel
// pairs (conf.px_segs): the body takes npx = 2 pixels whose W taps are the same, the second
// C elements on in dst with its own W weights (wb0, wb1), from one load and widening of the
// taps per src row.
template <cpu_isa isa>
void jit_interp_kernel<isa>::gen_nxc_linear_run() {
    const jit_conf &c = conf_;
    const int M = c.same_run;
    const int srb = static_cast<int>(c.src_row_bytes), drb = static_cast<int>(c.dst_row_bytes);  // jit_conf: 2M rows fit int32
    const int pxb = static_cast<int>(c.C * c.esize);                                           // the second pixel of a pair
    const int vb = simd_w * c.esize;                                                           // one channel vector
    const Vmm wb0(23), wb1(24);  // its W weights
    mov(reg_dst, ARG(dst));
    mov(reg_tab, ARG(wtab));
    mov(reg_row[0], ARG(src[0]));
    vbroadcastss(vmm_wh0, ARG(wh[0]));
    vbroadcastss(vmm_wh1, ARG(wh[1]));
    vbroadcastss(vmm_wd0, ARG(wd[0]));
    vbroadcastss(vmm_wd1, ARG(wd[1]));
    // W of src row m for npx pixels into r[0 .. npx - 1], from one load of the taps.
    auto w_rows = [&](const Vmm *r, int npx, int m, int64_t n, int off, int half) {
        w_taps(ptr[reg_p0 + m * srb + off], ptr[reg_p1 + m * srb + off], n, half);
        for (int px = 0; px < npx; ++px) {
            vmulps(r[px], px ? wb0 : vmm_w0, vmm_a);
            vfmadd231ps(r[px], px ? wb1 : vmm_w1, vmm_b);
        }
    };
    // Output row 2m - 2 + row of pixel px from its W steps prev and cur (H result in hd).
    auto h_step = [&](const Vmm &hd, int row, const Vmm &prev, const Vmm &cur) {
        vmulps(hd, row ? vmm_wd0 : vmm_wh0, prev);
        vfmadd231ps(hd, row ? vmm_wd1 : vmm_wh1, cur);
    };
    auto at = [&](int m, int row, int px, int dst_off) { return ptr[reg_dst + (2 * m - 2 + row) * drb + dst_off + px * pxb]; };
    // W results: the first pixel's in 12 and 13, the second's in 19 and 20.
    auto compute = [&](int npx, int64_t n, int src_off, int dst_off) {
        Vmm prev[2] = {Vmm(12), Vmm(19)}, cur[2] = {Vmm(13), Vmm(20)};
        w_rows(prev, npx, 0, n, src_off, -1);
        for (int m = 1; m <= M; ++m) {
            w_rows(cur, npx, m, n, src_off, -1);
            for (int row = 0; row < 2; ++row)
                for (int px = 0; px < npx; ++px) {
                    h_step(vmm_hd0, row, prev[px], cur[px]);
                    store_px(c.dt, at(m, row, px, dst_off), vmm_hd0, n, false);  // clobbers the io temps only
                }
            std::swap(prev, cur);
        }
    };
    // 32 channels at once (words_pair): their even and odd halves (i = 0, 1), W results in
    // 12, 13 and 16, 17 (the second pixel's 19, 20 and 21, 22; AVX-512 only), H results in
    // vmm_hd0 and 18.
    // f16 with NT stores (conf.run_nt): two vectors in turn (i = 0, 1) the same way, their
    // halves joined into one 64-byte line per store (store_f16_line).
    const bool f16_lines = nt_ && c.dt == data_type::f16;
    auto compute2 = [&](int npx, int64_t, int src_off, int dst_off) {
        Vmm prev[2][2] = {{Vmm(12), Vmm(19)}, {Vmm(16), Vmm(21)}}, cur[2][2] = {{Vmm(13), Vmm(20)}, {Vmm(17), Vmm(22)}};  // [half][px]
        const Vmm hd[2] = {vmm_hd0, Vmm(18)};
        auto halves = [&](Vmm (*r)[2], int m) {
            for (int i = 0; i < 2; ++i) w_rows(r[i], npx, m, simd_w, src_off + (f16_lines ? i * vb : 0), f16_lines ? -1 : i);
        };
        halves(prev, 0);
        for (int m = 1; m <= M; ++m) {
            halves(cur, m);
            for (int row = 0; row < 2; ++row)
                for (int px = 0; px < npx; ++px) {
                    for (int i = 0; i < 2; ++i) h_step(hd[i], row, prev[i][px], cur[i][px]);
                    if (f16_lines) store_f16_line(at(m, row, px, dst_off), hd[0], hd[1]);
                    else store_words_eo(at(m, row, px, dst_off), hd[0], hd[1], nt_);
                }
            std::swap(prev, cur);
        }
    };
    auto one = [&](int npx) -> compute_fn { return [=](int64_t n, int s, int d) { compute(npx, n, s, d); }; };
    auto two = [&](int npx) -> compute_fn {
        if (!words_pair() && !f16_lines) return compute_fn();
        return [=](int64_t n, int s, int d) { compute2(npx, n, s, d); };
    };
    auto dst_add = [&](int bytes) { add(reg_dst, bytes); };
    if (words_pair()) words_pair_consts();
    if (!c.n_px_segs) return pixel_loop(one(1), dst_add, two(1));
    auto singles = [&](int64_t n) { pixel_loop(one(1), dst_add, two(1), n); };
    auto pair = [&] {
        auto step = [&](int vecs) {
            add(reg_p0, vecs * vb);
            add(reg_p1, vecs * vb);
            add(reg_dst, vecs * vb);
        };
        vector_loop(c.c_full, vb, vb, one(2), step, two(2));
        add(reg_dst, pxb);  // past the second pixel (c_tail is 0 with the run kernel's pairs)
    };
    px_segments(singles, wb0, wb1, pair);
}

template <cpu_isa isa>
void jit_interp_kernel<isa>::generate() {
    preamble();
    if (conf_.algorithm != alg::linear) gen_nxc_nearest();  // both row-pair and single
    else if (pair_ == pair_kind::same_run) gen_nxc_linear_run();
    else if (pair_ == pair_kind::chained || pair_ == pair_kind::same_taps) gen_nxc_linear_pair();
    else gen_nxc_linear();
    postamble();
    finish_code();
}

// The tiers that have a generator in this build:
template class jit_interp_kernel<cpu_isa::avx2>;
template class jit_interp_kernel<cpu_isa::avx512_core>;
template class jit_interp_kernel<cpu_isa::avx512_core_bf16>;

}  // namespace xinterp
