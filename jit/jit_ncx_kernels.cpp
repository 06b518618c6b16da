// The W pass of the separable passes (jit_ncx_wpass, jit_ncx_kernels.hpp): one src row into OW
// outputs, or a plane of them; its up2 and periodic runs and W-plane columns are in
// jit_ncx_runs.cpp, its h2 part in jit_ncx_h2.cpp, the blends in jit_ncx_vblend.cpp.
#include "jit_ncx_kernels.hpp"

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace xinterp {

using namespace Xbyak;

#define PARG(field) ptr[reg_args + static_cast<int>(offsetof(jit_pass_args, field))]

template <cpu_isa isa>
jit_ncx_wpass<isa>::jit_ncx_wpass(const jit_conf &conf, bool final_out, bool nt, bool fused, bool plane, bool h2,
                                  bool dup)
    : jit_io(kPassCodeSize, simd_w, conf.native_bf16),
      conf_(conf),
      final_(final_out),
      nt_(nt && final_out),
      fused_(fused),
      plane_(plane),
      h2_(h2),
      dup_row_(dup && final_out && !nt && !plane),
      spans_(conf.span_units > 0 && final_out && !fused && !plane && !h2 && !dup_row_),
      align_(std::is_same<Vmm, Xbyak::Zmm>::value && (plane ? conf.plane_lines : conf.row_lines) && final_out && !nt && !fused && !h2),
      calc_(conf.calc_end > conf.calc_first && !fused && !h2) {
    bf16_clean_flag_at(static_cast<int>(offsetof(jit_pass_args, flags)), conf.dt);
}

// Gathers simd_w elements of `row` at the s32 indices of the current record at idx_off.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::gather(const Reg64 &row, const Vmm &v, int idx_off, bool as_float) {
    if (conf_.gather_by_insert) {
        // Lanes 0-3 and 4-7 in two xmm halves, one index load + vinsertps per element.
        const Xmm lo(v.getIdx()), hi(vmm_idx.getIdx());
        for (int l = 0; l < simd_w; ++l) {
            const Xmm &x = l < 4 ? lo : hi;
            movsxd(reg_tmp, dword[tab(idx_off + 4 * l)]);
            if (l % 4 == 0) vmovss(x, dword[row + reg_tmp * 4]);
            else vinsertps(x, x, dword[row + reg_tmp * 4], static_cast<uint8_t>((l % 4) << 4));
        }
        vinsertf128(v, v, hi, 1);
        return;
    }
    if (conf_.esize == 2) return gather_words_as_dwords(row, v, idx_off, as_float);
    gather_at(row, v, ptr[tab(idx_off)], as_float);
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::gather_at(const Reg64 &row, const Vmm &v, const Address &idx, bool as_float, int disp) {
    if constexpr (kEvex) {
        vmovdqu32(vmm_idx, idx);
        kxnorw(k_tmp, k_tmp, k_tmp);  // the gather clears its mask
        if (as_float) vgatherdps(v | k_tmp, ptr[row + vmm_idx * 4 + disp]);
        else vpgatherdd(v | k_tmp, ptr[row + vmm_idx * 4 + disp]);
    } else {
        vmovdqu(vmm_idx, idx);
        vpcmpeqd(vmm_mask, vmm_mask, vmm_mask);  // the gather clears its mask
        if (as_float) vgatherdps(v, ptr[row + vmm_idx * 4 + disp], vmm_mask);
        else vpgatherdd(v, ptr[row + vmm_idx * 4 + disp], vmm_mask);
    }
}

// 16-bit rows, gather instructions: dword gathers read in place (scale 2), each lane's element
// the low word of its dword. The dword at element i also holds element i + 1, so a lane whose
// tap is the row's last element would read 2 bytes past the row, past the buffer on its last
// row: those lanes keep the last element (vmm_last: in every word, loaded as the row begins),
// and the gather's mask (i < row_in - 1) skips them. This replaced widening the whole row into
// scratch before its gathers, which read all of a row that downsampling needs a few elements
// of (r525to5 NCX bf16: 525 elements widened per row for 5 or 10 gathered).
template <cpu_isa isa>
void jit_ncx_wpass<isa>::gather_words_as_dwords(const Reg64 &row, const Vmm &v, int idx_off, bool as_float) {
    const jit_conf &c = conf_;
    const Vmm &last = row.getIdx() == reg_src_b.getIdx() ? vmm_last_b : vmm_last;
    load_idx(idx_off);
    if constexpr (kEvex) {
        vmovdqa32(v, last);
        vpcmpgtd(k_tmp, vmm_last_idx, vmm_idx);
        vpgatherdd(v | k_tmp, ptr[row + vmm_idx * 2]);
    } else {
        vmovdqa(v, last);
        vpcmpgtd(vmm_mask, vmm_last_idx, vmm_idx);
        vpgatherdd(v, ptr[row + vmm_idx * 2], vmm_mask);
    }
    if (as_float && c.dt == data_type::bf16) {
        vpslld(v, v, 16);  // the low word's f32
    } else if (as_float) {  // f16: the low words packed (vmm_idx is free now), then widened
        if constexpr (kEvex) {
            vpmovdw(Ymm(vmm_idx.getIdx()), v);
            vcvtph2ps(v, Ymm(vmm_idx.getIdx()));
        } else {
            static constexpr int32_t kLowWords[8] = {0x05040100, 0x0d0c0908, -1, -1, 0x05040100, 0x0d0c0908, -1, -1};
            vpshufb(vmm_idx, v, ptr[rip + pool_vec8(kLowWords)]);
            vpermq(vmm_idx, vmm_idx, 0x08);
            vcvtph2ps(v, Xmm(vmm_idx.getIdx()));
        }
    } else if constexpr (!kEvex) {  // nearest: zero-extended bits, as store_u32_bits's vpackusdw needs
        static constexpr int32_t kLowMask[8] = {0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff};
        vpand(v, v, ptr[rip + pool_vec8(kLowMask)]);
    }
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::set_dwords(const Vmm &v, uint32_t bits) {
    mov(reg_tmp.cvt32(), bits);
    vmovd(Xmm(v.getIdx()), reg_tmp.cvt32());
    vpbroadcastd(v, Xmm(v.getIdx()));
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::last_index() {
    set_dwords(vmm_last_idx, static_cast<uint32_t>(conf_.row_in - 1));
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::load_last(const Reg64 &row, const Vmm &v) {
    vpbroadcastw(v, word[row + static_cast<int>(2 * (conf_.row_in - 1))]);
}

// 16-bit rows, insert spelling: simd_w (= 8, AVX2 only) words into one xmm, read in place.
// The first element goes through a GPR so the xmm carries no dependency on older values.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::gather_words(const Reg64 &row, const Xmm &x, int idx_off) {
    for (int l = 0; l < simd_w; ++l) {
        movsxd(reg_tmp, dword[tab(idx_off + 4 * l)]);
        if (l == 0) {
            movzx(reg_tmp.cvt32(), word[row + reg_tmp * 2]);
            vmovd(x, reg_tmp.cvt32());
        } else {
            vpinsrw(x, x, word[row + reg_tmp * 2], l);
        }
    }
}

// Both taps of every lane where they are neighbours (i1 = i0 + 1): one load of the pair
// (x[i0], x[i0 + 1]) per lane, at the tap-0 indices, instead of one load per tap. AVX2 insert
// spelling only (jit_conf sets gather pairs only with it, and it is AVX2-only). With row_b (the fused H step) each index read serves both src rows. Row i
// works in the four registers kPairRegs[i] = {x, x_hi, y, y_hi} and leaves tap 0 in x_hi and
// tap 1 in y_hi, as f32 lanes.
// - f32: 8-byte pairs, two per xmm (vmovsd, vmovhps), ordered so that lane half h of X holds
//   pairs 4h, 4h + 1 and of Y pairs 4h + 2, 4h + 3: then vshufps 0x88 of X, Y is taps 0 in
//   lane order and vshufps 0xDD taps 1. No cross-lane shuffle.
// - f16: the same order of 4-byte pairs, one xmm each for X and Y; vcvtph2ps widens each
//   (exactly) to the f32 layout above.
// - bf16: 4-byte pairs in lane order, one dword per lane (x: lanes 0-3, x_hi: 4-7): tap 0 is
//   the low word, so the dword shifted left by 16 is its f32; tap 1 is the high word, the
//   dword with its low word zeroed.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::gather_pairs(const Reg64 &row, const Reg64 *row_b, const RegExp &idx) {
    if constexpr (!kEvex) {
        const jit_conf &c = conf_;
        const int n_rows = row_b ? 2 : 1;
        const Reg64 rows[2] = {row, row_b ? *row_b : row};
        const bool bf16 = c.dt == data_type::bf16;
        for (int l = 0; l < simd_w; ++l) {
            // The register (index into kPairRegs[i]) and the slot (in pairs) that pair l goes to.
            const int xy = (l / 2) % 2 * 2, half = l / 4;  // X or Y; lane half
            const int reg = bf16 ? l / 4 : c.esize == 4 ? xy + half : xy;
            const int slot = bf16 ? l % 4 : c.esize == 4 ? l % 2 : half * 2 + l % 2;
            movsxd(reg_tmp, dword[idx + 4 * l]);
            for (int i = 0; i < n_rows; ++i) {
                const Xmm x(kPairRegs[i][reg]);
                const Address pair = c.esize == 4 ? ptr[rows[i] + reg_tmp * 4] : ptr[rows[i] + reg_tmp * 2];
                if (c.esize == 4) {
                    if (slot == 0) vmovsd(x, pair);
                    else vmovhps(x, x, pair);
                } else {
                    if (slot == 0) vmovd(x, pair);
                    else vpinsrd(x, x, pair, slot);
                }
            }
        }
        for (int i = 0; i < n_rows; ++i) {
            const Ymm x(kPairRegs[i][0]), x_hi(kPairRegs[i][1]), y(kPairRegs[i][2]), y_hi(kPairRegs[i][3]);
            if (bf16) {
                vinserti128(x, x, Xmm(x_hi.getIdx()), 1);
                vpslld(x_hi, x, 16);
                vpxor(y, y, y);
                vpblendw(y_hi, x, y, 0x55);  // low word of each dword from zero
                continue;
            }
            if (c.esize == 4) {
                vinsertf128(x, x, Xmm(x_hi.getIdx()), 1);
                vinsertf128(y, y, Xmm(y_hi.getIdx()), 1);
            } else {
                vcvtph2ps(x, Xmm(x.getIdx()));
                vcvtph2ps(y, Xmm(y.getIdx()));
            }
            vshufps(x_hi, x, y, 0x88);
            vshufps(y_hi, x, y, 0xDD);
        }
    }
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::load_window(const Vmm &v, const Address &a) {
    if constexpr (!kEvex) {
        if (conf_.shuf_windows && conf_.dt == data_type::bf16) return vbroadcasti128(v, a);
        if (conf_.shuf_windows) return vmovdqu(Xmm(v.getIdx()), a);
    }
    load_f32(conf_.dt, v, a, conf_.short_window() ? conf_.row_in : simd_w);  // short: the row, under a mask
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::select(const Vmm &dst, const Vmm &idx, const Vmm &win) {
    if constexpr (!kEvex) {
        if (conf_.shuf_windows && conf_.dt == data_type::bf16) return vpshufb(dst, win, idx);
        if (conf_.shuf_windows) {  // f16: the words, then their f32
            vpshufb(Xmm(dst.getIdx()), Xmm(win.getIdx()), Xmm(idx.getIdx()));
            return vcvtph2ps(dst, Xmm(dst.getIdx()));
        }
    }
    vpermps(dst, idx, win);
}

// Two window loads and one two-table permute (the index's bit 4 picks the upper window), where
// a 16-lane gather took each lane alone. 512 bits only: scan_windows never sets window2 at
// simd_w 8, so the AVX2 generator emits nothing here.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::select2(const Reg64 &row, const Reg64 &base, int idx_off, const Vmm &dst, const Vmm &hi, bool as_float) {
    if constexpr (kEvex) {
        const int esz = conf_.esize;
        const Address lo_at = ptr[row + base * esz], hi_at = ptr[row + base * esz + simd_w * esz];
        if (as_float || esz == 4) {
            load_f32(as_float ? conf_.dt : data_type::f32, dst, lo_at, simd_w);
            load_f32(as_float ? conf_.dt : data_type::f32, hi, hi_at, simd_w);
        } else {
            load_u32(dst, lo_at, simd_w);
            load_u32(hi, hi_at, simd_w);
        }
        load_idx(idx_off);
        vpermt2ps(dst, vmm_idx, hi);
    }
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::load_idx(int off) {
    if constexpr (kEvex) vmovdqu32(vmm_idx, ptr[tab(off)]);
    else vmovdqu(vmm_idx, ptr[tab(off)]);
}

// simd_w 16-bit results in x, n of them real.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::store_xwords(const Xmm &x, int64_t n) {
    for (int r = 0; r <= dup_; ++r) {
        const Address a = ptr[out() + r * conf_.dst_row_bytes];
        if (n == simd_w && nt_) vmovntdq(a, x);
        else if (n == simd_w) vmovdqu(a, x);
        else store_words(a, x, n);
    }
}

// AVX2 16-bit nearest with windows: two output vectors in one ymm. The low lane takes record
// slot_'s 16-byte window and the high lane record slot_ + 1's; the table puts record slot_ + 1's
// vpshufb controls in the upper 16 bytes of record slot_'s (jit_tables), so one in-lane vpshufb
// picks both vectors' words, and one 32-byte store writes them. Against a vector at a time:
// half the shuffles and stores for the same loads.
// AVX-512: two records' 16-word windows in the two halves of a zmm, one vpermw with record
// slot_'s 32 word controls (its own 16, then record slot_ + 1's plus 16, jit_tables), and one
// 64-byte store. Not for short windows (each record's window is then the whole row, loaded
// under a mask). Against a vector at a time (zero-extend to dwords, vpermd, narrow, 32-byte
// store): the pair at 1 shuffle per 32 outputs instead of 3 per 16.
template <cpu_isa isa>
bool jit_ncx_wpass<isa>::word_pairs() const {
    const jit_conf &c = conf_;
    return final_ && c.algorithm != alg::linear && c.window && c.esize == 2 && !(kEvex && c.short_window());
}

// AVX-512 16-bit nearest windows: record slot_'s 16 words picked by vpermw (AVX512BW) with its
// first 16 word controls into Ymm(v), or with two, records slot_ and slot_ + 1's windows in
// v's halves and their 32 controls (jit_tables) picking 32 words. A short window is the whole
// row, loaded under a mask (tmp: the second record's, which a memory operand cannot mask).
template <cpu_isa isa>
void jit_ncx_wpass<isa>::word_select(const Vmm &v, bool two, const Xbyak::Ymm &tmp) {
    if constexpr (kEvex) {
        const jit_conf &c = conf_;
        const int V = simd_w * 4;
        const Ymm lo(v.getIdx()), ctl(vmm_idx.getIdx());
        auto window = [&](const Ymm &y, const Reg64 &b) {
            if (c.short_window()) {
                load_tail_mask(Zmm(y.getIdx()), c.row_in);
                vmovdqu16(y | k_tail | T_z, ptr[reg_src + b * 2]);
            } else {
                vmovdqu16(y, ptr[reg_src + b * 2]);  // EVEX: y may be ymm16+
            }
        };
        movsxd(reg_ba, dword[tab()]);
        window(lo, reg_ba);
        if (!two) {
            vmovdqu(ctl, ptr[tab(V)]);
            vpermw(lo, ctl, lo);
            return;
        }
        movsxd(reg_bb, dword[tab(c.rec_bytes)]);
        if (c.short_window()) {
            window(tmp, reg_bb);
            vinserti64x4(v, v, tmp, 1);
        } else {
            vinserti64x4(v, v, ptr[reg_src + reg_bb * 2], 1);
        }
        vmovdqu16(vmm_idx, ptr[tab(V)]);
        vpermw(v, vmm_idx, v);
    }
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::nearest_word_pair() {
    const jit_conf &c = conf_;
    const int V = simd_w * 4;
    // The two records' windows in the two halves of vmm_a, then one shuffle picks both vectors.
    using Half = typename std::conditional<kEvex, Ymm, Xmm>::type;
    const Half lo(vmm_a.getIdx()), hi(vmm_idx.getIdx());  // hi: free once the shuffle is done
    if constexpr (kEvex) {
        word_select(vmm_a, true);
    } else {
        movsxd(reg_ba, dword[tab()]);
        movsxd(reg_bb, dword[tab(c.rec_bytes)]);
        vmovdqu(lo, ptr[reg_src + reg_ba * 2]);
        vinserti128(vmm_a, vmm_a, ptr[reg_src + reg_bb * 2], 1);
        vpshufb(vmm_a, vmm_a, ptr[tab(V)]);
    }
    // NT stores need the pair's alignment (32 bytes AVX2, 64 AVX-512): pairs start at even
    // vectors of aligned rows only when a row is whole pairs; else each half goes as its own
    // NT store, aligned to a vector (rows are whole vectors where NT stores run).
    const int half_bytes = simd_w * 2;
    const bool split_nt = nt_ && c.dst_row_bytes % (2 * half_bytes) != 0;
    if (split_nt) {
        if constexpr (kEvex) vextracti64x4(hi, vmm_a, 1);
        else vextracti128(hi, vmm_a, 1);
    }
    for (int r = 0; r <= dup_; ++r) {
        const int64_t off = r * c.dst_row_bytes;
        if (split_nt) {
            vmovntdq(ptr[out() + off], lo);
            vmovntdq(ptr[out() + off + half_bytes], hi);
        } else if (nt_) {
            vmovntdq(ptr[out() + off], vmm_a);
        } else if constexpr (kEvex) {
            vmovdqu16(ptr[out() + off], vmm_a);
        } else {
            vmovdqu(ptr[out() + off], vmm_a);
        }
    }
}

// Nearest: one output vector (n real lanes) from one W-table record.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::nearest_vector(int64_t n) {
    const jit_conf &c = conf_;
    const int V = simd_w * 4;
    const Xmm xa(vmm_a.getIdx());
    if (c.window && c.esize == 2 && kEvex) {
        word_select(vmm_a, false);
        return store_xwords(Ymm(vmm_a.getIdx()), n);
    } else if (c.window && c.esize == 2) {
        // Eight 16-bit lanes from one 16-byte window: vpshufb picks the words.
        movsxd(reg_ba, dword[tab()]);
        vmovdqu(xa, ptr[reg_src + reg_ba * 2]);
        vpshufb(xa, xa, ptr[tab(V)]);
        return store_xwords(xa, n);
    } else if (c.gather_by_insert && c.esize == 2) {
        gather_words(reg_src, xa, V);
        return store_xwords(xa, n);
    }
    nearest_select(vmm_a);
    const Address next = ptr[out() + c.dst_row_bytes];
    store_u32_bits(c.esize, ptr[out()], vmm_a, n, nt_, dup_ ? &next : nullptr);
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::nearest_select(const Vmm &v) {
    const jit_conf &c = conf_;
    const int V = simd_w * 4;
    if (c.short_window()) {  // the whole row, under a mask (AVX-512 only)
        load_f32(data_type::f32, v, ptr[reg_src], c.row_in);
        load_idx(V);
        vpermd(v, vmm_idx, v);
    } else if (c.window) {
        movsxd(reg_ba, dword[tab()]);
        load_idx(V);
        vpermd(v, vmm_idx, ptr[reg_src + reg_ba * 4]);
    } else if (c.window2) {
        movsxd(reg_ba, dword[tab()]);
        select2(reg_src, reg_ba, V, v, Vmm(kT0), false);
    } else {
        gather(reg_src, v, V, false);
    }
}

// Nearest plane rows that are not whole lines long start off a cache line in most rows, and
// then nearly every store splits two lines (c17 NCX, 65x65 rows, took 2x the time of 64x64 in
// f32 and 2.4x in bf16). As jit_ncx_vblend::aligned_row does for the linear blends: line-sized
// vector k of the row (f32: one record's 16 elements; 16-bit: two records' 32 words, as
// nearest_word_pair makes them, the last one alone where ow_vecs is odd) is combined with
// vector k - 1 by one vpermt2ps (vpermt2w) at the row's run-time misalignment into the aligned
// line they share, stored whole; line 0 under a mask of lanes >= m, the last two under masks
// of the elements the row has left. With dup the same vectors make the next row's lines too
// (its own m), through T, since the permute overwrites its first table. Leaves reg_dst past
// the row's full vectors and reg_tab anywhere, as row() does for plane_row_step. 16-bit rows
// with windows only (short ones too: each record's window then the row under a mask).
template <cpu_isa isa>
void jit_ncx_wpass<isa>::aligned_row(bool dup) {
    if constexpr (kEvex) {
        const jit_conf &c = conf_;
        const Xbyak::Zmm T(21);
        const int esz = c.esize, V = 64, recs = esz == 4 ? 1 : 2;  // records per line-sized vector
        const int64_t nv = (c.row_out * esz + V - 1) / V;       // >= 2
        // Line-sized vector k of the trip (from reg_tab) into v; the second row shares it.
        auto vec = [&](const Xbyak::Zmm &v, const Xbyak::Zmm &, int k, bool last) {
            slot_ = k * recs;
            if (esz == 4) {
                nearest_select(v);
            } else {
                word_select(v, !last || recs * nv == c.ow_vecs, Ymm(T.getIdx()));  // T: free until the lines
            }
            slot_ = 0;
        };
        auto step = [&](int n) { add(reg_tab, n * recs * c.rec_bytes); };
        // base rbx (the row's line 0), rbp (the second row's, from base), r15 for m.
        const line_regs regs{zmm_iota, zmm_c16, zmm_ct16, zmm_ct, Xbyak::Zmm(17), Xbyak::Zmm(18), Xbyak::Zmm(19),
                             Xbyak::Zmm(20), Xbyak::Zmm(19), Xbyak::Zmm(20), T, rbx, rbp, r15, reg_cnt};
        mov(rbx, reg_dst);
        if (dup) lea(rbp, ptr[reg_dst + c.dst_row_bytes]);
        aligned_lines(esz, nv, dup, false, regs, vec, step);
        add(reg_dst, static_cast<int>(c.ow_full * simd_w * esz));
    }
}

// Linear: the W interpolation of `row` for the current record, into r (f32 lanes).
template <cpu_isa isa>
void jit_ncx_wpass<isa>::linear_w(const Reg64 &row, const Vmm &r, bool pairs) {
    const jit_conf &c = conf_;
    const int V = simd_w * 4;
    if (pairs) {  // window pairs: one window from tap 0's base feeds both selects
        movsxd(reg_ba, dword[tab()]);
        load_window(vmm_b, ptr[row + reg_ba * c.esize]);
        load_idx(V);
        vpaddd(vmm_idx_b, vmm_flat_c, ptr[tab(V)]);  // from memory: the selects stay independent
        select(vmm_a, vmm_idx, vmm_b);
        select(vmm_b, vmm_idx_b, vmm_b);
    } else if (c.window2) {
        movsxd(reg_ba, dword[tab()]);
        movsxd(reg_bb, dword[tab(4)]);
        select2(row, reg_ba, V, vmm_a, Vmm(kT0), true);
        select2(row, reg_bb, 2 * V, vmm_b, Vmm(kT1), true);
    } else if (c.window) {
        // Each tap set lies in simd_w consecutive elements: one load and one select apiece.
        movsxd(reg_ba, dword[tab()]);
        movsxd(reg_bb, dword[tab(4)]);
        const int esz = c.esize;
        load_window(vmm_a, ptr[row + reg_ba * esz]);
        load_window(vmm_b, ptr[row + reg_bb * esz]);
        load_idx(V);
        select(vmm_a, vmm_idx, vmm_a);
        load_idx(2 * V);
        select(vmm_b, vmm_idx, vmm_b);
    } else {
        gather_taps(row, V);
    }
    blend_w(r, vmm_a, vmm_b);
}

// The gather path's two taps of every lane into vmm_a and vmm_b as f32, from the record's
// index vectors at idx_off and idx_off + simd_w * 4: gathers, or (16-bit, insert spelling)
// the words read in place and widened.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::gather_taps(const Reg64 &row, int idx_off) {
    const int V = simd_w * 4;
    if (conf_.gather_by_insert && conf_.esize == 2) {
        if constexpr (!kEvex) {  // the insert spelling exists on AVX2 only
            const Xmm xa(vmm_a.getIdx()), xb(vmm_b.getIdx());
            gather_words(row, xa, idx_off);
            gather_words(row, xb, idx_off + V);
            widen_words(conf_.dt, vmm_a, xa);
            widen_words(conf_.dt, vmm_b, xb);
        }
    } else {
        gather(row, vmm_a, idx_off, true);
        gather(row, vmm_b, idx_off + V, true);
    }
}

// One result vector (n real lanes): dt with exact tails for the final output, else the whole
// f32 vector (scratch rows are padded to ow_pad lanes).
template <cpu_isa isa>
void jit_ncx_wpass<isa>::store_result(const Address &a, const Vmm &v, int64_t n) {
    if (final_) store_f32(conf_.dt, a, v, n, nt_);
    else vmovups(a, v);
}

// r = w0 * a; r = fma(w1, b, r)  (the operands commute bit-exactly)
template <cpu_isa isa>
void jit_ncx_wpass<isa>::blend_w(const Vmm &r, const Vmm &a, const Vmm &b) {
    const int V = simd_w * 4;
    if (conf_.unit_w) {  // the dropped unit axes' step on each tap, in place (jit_conf::unit_w)
        static constexpr int32_t kZero[8] = {};
        for (const Vmm &t : {a, b}) {
            if constexpr (kEvex) vfmadd231ps(t, t, vmm_zero);
            else vfmadd231ps(t, t, ptr[rip + pool_vec8(kZero)]);
        }
    }
    step(r, a, ptr[tab(3 * V)], b, ptr[tab(4 * V)]);
}

// One 1-D step of the canonical order: r = a * w0; r = fma(b, w1, r).
template <cpu_isa isa>
void jit_ncx_wpass<isa>::step(const Vmm &r, const Vmm &a, const Operand &w0, const Vmm &b, const Operand &w1) {
    vmulps(r, a, w0);
    vfmadd231ps(r, b, w1);
}

// One output vector (n real lanes). Fused: the W steps of both H taps, then the H step
// r = wh0 * ra; r = fma(wh1, rb, r), exactly the blend kernel's order.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::vector(int64_t n, bool pairs) {
    if (conf_.algorithm != alg::linear) return nearest_vector(n);
    if (pairs && !conf_.window) {
        gather_pairs(reg_src, fused_ ? &reg_src_b : nullptr, tab(simd_w * 4));
        blend_w(vmm_r, Vmm(kPairRegs[0][1]), Vmm(kPairRegs[0][3]));
        if (fused_) blend_w(vmm_rb, Vmm(kPairRegs[1][1]), Vmm(kPairRegs[1][3]));
    } else {
        linear_w(reg_src, vmm_r, pairs);
        if (fused_) linear_w(reg_src_b, vmm_rb, pairs);
    }
    if (fused_) {
        vmulps(vmm_r, vmm_wh0, vmm_r);
        vfmadd231ps(vmm_r, vmm_wh1, vmm_rb);
    }
    store_result(ptr[out()], vmm_r, n);
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::row() {
    const jit_conf &c = conf_;
    const int out_es = final_ ? c.esize : 4;
    if (dword_words()) {
        load_last(reg_src, vmm_last);
        if (fused_) load_last(reg_src_b, vmm_last_b);
    }
    // Two vectors per trip (slot_ 0 and 1 address the second record and output vector by
    // displacement): the pointer steps and the loop branch cost half as much per vector.
    // 16-bit nearest word pairs: four vectors (two pairs) per trip.
    const bool wp = word_pairs();
    const int kUnroll = wp ? 4 : 2;
    auto group = [&](int n, bool pairs) {
        for (slot_ = 0; slot_ < n; ++slot_) {
            if (!wp || slot_ + 1 == n) {
                vector(simd_w, pairs);
            } else {
                nearest_word_pair();
                ++slot_;
            }
        }
        slot_ = 0;
        add(reg_tab, n * c.rec_bytes);
        add(reg_dst, n * simd_w * out_es);
    };
    auto loop = [&](int64_t vecs, bool pairs) {
        if (vecs >= kUnroll) {
            Label l_ow;
            mov(reg_cnt, vecs / kUnroll);
            L(l_ow); {
                group(kUnroll, pairs);
                dec(reg_cnt);
                jnz(l_ow, T_NEAR);
            }
        }
        if (vecs % kUnroll) group(static_cast<int>(vecs % kUnroll), pairs);
    };
    if (spans_) return span_row(group, kUnroll);
    // Full vectors [0, u0) and [u1, ow_full) from their records (pairs first: pair_vecs is a
    // prefix), [u0, u1) by up2 groups or the periodic run.
    const bool up2 = c.up2_groups > 0 && !fused_, per = c.per_periods > 0 && !fused_;
    const auto [u0, u1] = fused_ ? std::pair<int64_t, int64_t>{c.ow_full, c.ow_full} : run_vectors(c);
    auto span = [&](int64_t from, int64_t to) {
        for (const row_region &g : regions(from, to)) {
            if (g.calc) {
                mov(reg_cnt, g.from);
                calc_init(reg_cnt);
                calc_run(nullptr, g.to - g.from);
            } else {
                loop(g.to - g.from, g.pairs);
            }
        }
    };
    span(0, u0);
    if (up2) up2_run();
    if (per) per_run();
    span(u1, c.ow_full);
    if (c.ow_tail > 0) vector(final_ ? c.ow_tail : simd_w, c.pair_tail);
}

// The full vectors [from, to) of a row in regions of one kind: the pairs prefix [0, pair_vecs)
// and the rest, and where calc_, [calc_first, calc_end) computed (jit_conf::calc_first), in
// order, none empty.
template <cpu_isa isa>
std::vector<typename jit_ncx_wpass<isa>::row_region> jit_ncx_wpass<isa>::regions(int64_t from, int64_t to) const {
    const jit_conf &c = conf_;
    std::vector<int64_t> cuts = {from, to, std::clamp(c.pair_vecs, from, to)};
    if (calc_) cuts.insert(cuts.end(), {std::clamp(c.calc_first, from, to), std::clamp(c.calc_end, from, to)});
    std::sort(cuts.begin(), cuts.end());
    std::vector<row_region> v;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
        const int64_t a = cuts[i], b = cuts[i + 1];
        if (b > a) v.push_back({a, b, b <= c.pair_vecs, calc_ && a >= c.calc_first && b <= c.calc_end});
    }
    return v;
}

// conf.span_units: output vectors [v0, v1) of the row (jit_pass_args; dst at v0, tab at its
// stored record), v1 up to ow_vecs, the tail's end: the span's part of each region in turn
// (the pairs prefix [0, pair_vecs) and the rest up to ow_full, where calc_ the computed
// [calc_first, calc_end), and an up2 or periodic run, whose part is whole groups or periods:
// the driver cuts spans there, span_cut; counts at run time), then the tail if v1 passes
// ow_full. group(n, pairs) makes n vectors from their records and steps past them.
template <cpu_isa isa>
template <typename G>
void jit_ncx_wpass<isa>::span_row(G &group, int unroll) {
    const jit_conf &c = conf_;
    const Reg64 &v0 = reg_span_a, &e = reg_span_b, &n = reg_span_c;
    mov(v0, PARG(v0));
    mov(e, PARG(v1));
    mov(reg_tmp, c.ow_full);
    cmp(e, reg_tmp);
    cmovg(e, reg_tmp);  // e = min(v1, ow_full)
    // n = the span's vectors in region [from, to): clamp(e) - clamp(v0), reg_cnt = clamp(v0).
    auto count = [&](int64_t from, int64_t to) {
        for (const auto &[r, x] : {std::pair<const Reg64 &, const Reg64 &>{n, e}, {reg_cnt, v0}}) {
            mov(r, x);
            mov(reg_tmp, from);
            cmp(r, reg_tmp);
            cmovl(r, reg_tmp);
            mov(reg_tmp, to);
            cmp(r, reg_tmp);
            cmovg(r, reg_tmp);
        }
        sub(n, reg_cnt);
    };
    auto records = [&](int64_t from, int64_t to) {  // [from, to)'s regions, from records or computed
        for (const row_region &g : regions(from, to)) {
            count(g.from, g.to);
            if (g.calc) {
                calc_init(reg_cnt);
                calc_run(&n, 0);
                continue;
            }
            Label l_groups, l_rest, l_one, l_done;
            mov(reg_cnt, n);
            shr(reg_cnt, unroll == 4 ? 2 : 1);
            jz(l_rest, T_NEAR);
            L(l_groups); {
                group(unroll, g.pairs);
                dec(reg_cnt);
                jnz(l_groups, T_NEAR);
            }
            L(l_rest);
            mov(reg_cnt, n);
            and_(reg_cnt, unroll - 1);
            jz(l_done, T_NEAR);
            L(l_one); {
                group(1, g.pairs);
                dec(reg_cnt);
                jnz(l_one, T_NEAR);
            }
            L(l_done);
        }
    };
    const auto [u0, u1] = run_vectors(c);
    records(0, u0);
    if (u1 > u0) {  // the run's part, if any (no record read otherwise: reg_tab may be the last)
        Label l_none;
        count(u0, u1);  // reg_cnt: the span's first run vector
        test(n, n);
        jz(l_none, T_NEAR);
        if (c.up2_groups > 0) {
            up2_run(&n);
        } else if (c.per_p > 2 && !nt_) {  // the whole run phase by phase (one thread), a part by records
            Label l_part;
            cmp(n, static_cast<int>(c.per_periods * c.per_p));
            jne(l_part, T_NEAR);
            per_run();
            jmp(l_none, T_NEAR);
            L(l_part);
            per_run(&n);
        } else {
            per_run(&n);
        }
        L(l_none);
    }
    records(u1, c.ow_full);
    if (c.ow_tail > 0) {
        Label l_end;
        mov(reg_tmp, c.ow_full);
        cmp(PARG(v1), reg_tmp);
        jle(l_end, T_NEAR);
        vector(c.ow_tail, c.pair_tail);
        L(l_end);
    }
}

// row() leaves reg_dst past the row's full vectors; the tail (final: its lanes; scratch: a
// padded vector) and, for a pair, the second row's bytes come on top. reg_row steps one record
// per row (linear W-planes: one src row).
template <cpu_isa isa>
void jit_ncx_wpass<isa>::plane_row_step(bool pair) {
    const jit_conf &c = conf_;
    const bool nearest = c.algorithm != alg::linear;
    const int out_es = final_ ? c.esize : 4;
    const int64_t tail = c.ow_tail > 0 ? (final_ ? c.ow_tail * out_es : simd_w * 4) : 0;
    const int64_t dst_step = tail + (pair ? c.dst_row_bytes : 0);
    if (dst_step > 0) add(reg_dst, static_cast<int>(dst_step));
    add(reg_row, nearest ? (pair ? 16 : 8) : fused_ ? 24 : static_cast<int>(c.src_row_bytes));
}

// Tabled plane rows (nearest, fused): the src row(s) of the next row's record, whole
// (conf.prefetch_bytes), before this row is made. Not on the call's last row, whose record
// may be the table's last.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::prefetch_next_rows() {
    const jit_conf &c = conf_;
    if (c.prefetch_bytes == 0) return;
    Label l_last;
    cmp(reg_rows, 1);
    je(l_last, T_NEAR);
    const int rec = fused_ ? 24 : 8;
    for (int t = 0; t < (fused_ ? 2 : 1); ++t) {
        mov(reg_tmp, qword[reg_row + rec + 8 * t]);
        // The row's lines from its start, and the last one, which a row that starts off a
        // line reaches into.
        for (int64_t b = 0; b < c.prefetch_bytes; b += 64) prefetcht0(ptr[reg_base + reg_tmp + static_cast<int>(b)]);
        if ((c.prefetch_bytes - 1) % 64 != 0) prefetcht0(ptr[reg_base + reg_tmp + static_cast<int>(c.prefetch_bytes - 1)]);
    }
    L(l_last);
}

// One output vector (n real lanes) of a flat volume (jit_conf::flat): the W step of each
// (d, h) tap pair, the H step of each d, the D step, each lane with its own weights. The same
// instructions per lane as the separable passes (a mul by w0, then an FMA by w1), so the bits
// are the reference's.
template <cpu_isa isa>
void jit_ncx_wpass<isa>::flat_vector(int64_t n) {
    const jit_conf &c = conf_;
    const int V = simd_w * 4, taps = 1 << c.k;
    const Vmm r[4] = {vmm_r, vmm_rb, Vmm(5), Vmm(6)};  // vmm_wh0 and vmm_wh1 are fused-only
    auto weight = [&](int axis, int tap) { return ptr[tab((taps + 2 * axis + tap) * V)]; };
    for (int j = 0; j < taps / 2; ++j) {
        gather_taps(reg_src, 2 * j * V);
        step(r[j], vmm_a, weight(0, 0), vmm_b, weight(0, 1));
    }
    for (int j = 0; j < taps / 4; ++j) step(r[2 * j], r[2 * j], weight(1, 0), r[2 * j + 1], weight(1, 1));
    if (c.k == 3) step(r[0], r[0], weight(2, 0), r[2], weight(2, 1));
    store_result(ptr[out()], r[0], n);
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::generate_flat() {
    const jit_conf &c = conf_;
    mov(reg_src, PARG(src));
    mov(reg_dst, PARG(dst));
    mov(reg_tab, PARG(tab));
    if (dword_words()) {
        last_index();
        load_last(reg_src, vmm_last);
    }
    // Nearest: each lane's one tap, gathered as the pass engine's gather path does.
    auto vec = [&](int64_t n) { c.algorithm == alg::linear ? flat_vector(n) : nearest_vector(n); };
    if (c.ow_full > 0) {
        Label l_vec;
        mov(reg_cnt, c.ow_full);
        L(l_vec); {
            vec(simd_w);
            add(reg_tab, c.rec_bytes);
            add(reg_dst, simd_w * (final_ ? c.esize : 4));
            dec(reg_cnt);
            jnz(l_vec, T_NEAR);
        }
    }
    if (c.ow_tail > 0) vec(c.ow_tail);
    vzeroupper();
    ret();
    finish_code();
}

template <cpu_isa isa>
void jit_ncx_wpass<isa>::generate() {
    if (h2_) return generate_h2();
    if (conf_.flat) return generate_flat();
    const jit_conf &c = conf_;
    if (fused_) push(reg_src_b);  // callee-saved
    if (spans_) {
        push(reg_span_a);
        push(reg_span_b);
        push(reg_span_c);
    }
    if (plane_) {
        push(reg_row);
        push(reg_rows);
        push(reg_base);
    }
    if (align_) {
        push(rbx);
        push(r15);
        push(rbp);
        aligned_line_consts(c.esize, c.row_out, zmm_iota, zmm_c16, zmm_ct16, zmm_ct, reg_cnt.cvt32());
    }
    mov(reg_src, PARG(src));
    mov(reg_dst, PARG(dst));
    mov(reg_tab, PARG(tab));
    if (fused_ && !plane_) {
        mov(reg_src_b, PARG(src_b));
        vbroadcastss(vmm_wh0, PARG(w0));
        vbroadcastss(vmm_wh1, PARG(w1));
    }
    if (kEvex && c.unit_w) vxorps(vmm_zero, vmm_zero, vmm_zero);
    if (dword_words()) last_index();
    if (c.up2_groups > 0 && !fused_) up2_constants();
    if (c.window && (c.pair_vecs > 0 || c.pair_tail))  // tap 1's index (control) step
        set_dwords(vmm_flat_c, static_cast<uint32_t>(c.flat_c) * window_index_step(c));
    if (plane_ && c.wplane_cols && !final_ && !fused_) {
        plane_columns();
    } else if (plane_) {
        // Rows of the slab are consecutive in src; scratch rows are ow_pad lanes apart, which is
        // where the row's last (padded) vector leaves reg_dst plus one vector if there is a tail.
        // Nearest and fused: each output row's src row(s) at offsets from a table (reg_row
        // walks it; fused records also hold the H weights). Linear W-planes: consecutive rows.
        const bool nearest = c.algorithm != alg::linear;
        const bool tabled = nearest || fused_;
        Label l_row;
        if (tabled) {
            mov(reg_row, PARG(rtab));
            mov(reg_base, reg_src);
        } else {
            mov(reg_row, reg_src);
        }
        mov(reg_rows, PARG(rows));
        Label l_done;
        L(l_row); {
            mov(reg_tab, PARG(tab));
            if (nearest && c.nearest_row_pairs) {
                // The record's bit 0 flags a row pair (jit_tables::hrows): into CF, and cleared
                // from the offset. lea leaves the flags alone, so the branch follows them.
                mov(reg_tmp, qword[reg_row]);
                btr(reg_tmp, 0);
                lea(reg_src, ptr[reg_base + reg_tmp]);
                if (!nt_) {
                    Label l_single;
                    jnc(l_single, T_NEAR);
                    cmp(reg_rows, 2);  // a thread's rows may end on a pair's first row
                    jb(l_single, T_NEAR);
                    if (align_) {
                        aligned_row(true);
                    } else {
                        dup_ = true;
                        row();
                        dup_ = false;
                    }
                    plane_row_step(true);
                    sub(reg_rows, 2);
                    jnz(l_row, T_NEAR);
                    jmp(l_done, T_NEAR);
                    L(l_single);
                }
            } else if (tabled) {
                mov(reg_src, reg_base);
                add(reg_src, qword[reg_row]);
                prefetch_next_rows();
            } else {
                mov(reg_src, reg_row);
            }
            if (fused_) {
                mov(reg_src_b, reg_base);
                add(reg_src_b, qword[reg_row + 8]);
                vbroadcastss(vmm_wh0, dword[reg_row + 16]);
                vbroadcastss(vmm_wh1, dword[reg_row + 20]);
            }
            if (align_) aligned_row(false);
            else row();
            plane_row_step(false);
            dec(reg_rows);
            jnz(l_row, T_NEAR);
        }
        L(l_done);
    } else if (align_) {
        // Row mode (conf.row_lines): a whole row (or a row pair) as aligned lines; a span of a
        // row that the threads' shares cut keeps the vector stores.
        Label l_span, l_done;
        if (spans_) {
            cmp(qword[reg_args + static_cast<int>(offsetof(jit_pass_args, v0))], 0);
            jne(l_span, T_NEAR);
            cmp(qword[reg_args + static_cast<int>(offsetof(jit_pass_args, v1))], static_cast<int32_t>(c.ow_vecs));
            jne(l_span, T_NEAR);
        }
        aligned_row(dup_row_);
        if (spans_) {
            jmp(l_done, T_NEAR);
            L(l_span);
            row();
            L(l_done);
        }
    } else {
        dup_ = dup_row_;
        row();
        dup_ = false;
    }
    vzeroupper();
    if (align_) {
        pop(rbp);
        pop(r15);
        pop(rbx);
    }
    if (plane_) {
        pop(reg_base);
        pop(reg_rows);
        pop(reg_row);
    }
    if (spans_) {
        pop(reg_span_c);
        pop(reg_span_b);
        pop(reg_span_a);
    }
    if (fused_) pop(reg_src_b);
    ret();
    finish_code();
}

template class jit_ncx_wpass<cpu_isa::avx2>;
template class jit_ncx_wpass<cpu_isa::avx512_core>;
template class jit_ncx_wpass<cpu_isa::avx512_core_bf16>;

}  // namespace xinterp
