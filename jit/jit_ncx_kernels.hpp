// NCX as separable passes. The W pass turns one src row into OW outputs; the vertical blend
// forms one H (or D) step of two such rows: out = w0 * a; out = fma(w1, b, out), or (3-D)
// the H steps of four rows and the D step of their results. The driver
// (src/jit_pass_driver.cpp) keeps W-pass rows (or whole W-planes) so each src row is
// interpolated once per run of output rows that need it, in the canonical order, so the
// bits are the reference's.
#pragma once
#include "jit_conf.hpp"
#include "jit_io.hpp"

#include <vector>

namespace xinterp {

constexpr size_t kPassCodeSize = 8 * 1024;  // each pass kernel's code buffer

template <cpu_isa isa>
class jit_ncx_wpass : public jit_io {
public:
    // final_out: write conf.dt with exact tails (the result); else f32 ow_pad lanes (scratch).
    // nt: non-temporal stores of the final output (conf.nt_eligible, aligned dst rows).
    // fused (conf.fuse_h): W passes of two src rows (src, src_b) blended on the spot with the H
    // weights (w0, w1), for H steps whose src rows no neighbouring output row shares.
    // plane (conf.plane_mode): jit_pass_args::rows W passes in one call. Linear: consecutive
    // src rows into consecutive f32 scratch rows of ow_pad lanes; nearest (final): the src rows
    // at the rtab offsets from src, into consecutive dst rows.
    // h2 (conf.h2_pairs): output row pairs (2j + 1, 2j + 2) of a plane, column block by column
    // block (jit_ncx_h2.cpp); jit_pass_args: src = src row j0, dst = output row 2 j0 + 1, rows =
    // the number of pairs. Final output, plain stores.
    // dup (nearest, row mode, plain stores): every output vector also goes to the next dst row,
    // dst_row_bytes on, for two output rows that repeat one src row (conf.nearest_row_pairs).
    jit_ncx_wpass(const jit_conf &conf, bool final_out, bool nt = false, bool fused = false, bool plane = false,
                  bool h2 = false, bool dup = false);
    void generate();
    using fn_t = void (*)(const jit_pass_args *);
    fn_t fn() const { return getCode<fn_t>(); }

private:
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr int simd_w = isa_traits<isa>::simd_w;
    static constexpr bool kEvex = isa >= cpu_isa::avx512_core;  // spelling only, never the algorithm
    const jit_conf &conf_;
    const bool final_, nt_, fused_, plane_, h2_, dup_row_;
    // conf.span_units, row mode's final W pass (not its dup variant): the row's vectors
    // [v0, v1) from jit_pass_args, counted in r12-r14 (plane mode's, saved likewise).
    const bool spans_;
    template <typename G>
    void span_row(G &group, int unroll);

    const Xbyak::Reg64 reg_args = rdi, reg_src = rsi, reg_dst = rdx, reg_tab = rcx;
    // reg_spare has no role of its own: the column pass takes it for window bases, h2 for its groups.
    const Xbyak::Reg64 reg_cnt = r8, reg_ba = r9, reg_bb = r10, reg_spare = r11, reg_tmp = rax;
    const Xbyak::Reg64 reg_src_b = rbx;  // fused only; saved and restored
    const Xbyak::Reg64 reg_row = r12, reg_rows = r13, reg_base = r14;  // plane only; saved and restored
    const Xbyak::Reg64 reg_span_a = r12, reg_span_b = r13, reg_span_c = r14;  // spans only; saved and restored
    const Vmm vmm_a = Vmm(0), vmm_b = Vmm(1), vmm_idx = Vmm(2), vmm_r = Vmm(3);
    const Vmm vmm_rb = Vmm(4), vmm_wh0 = Vmm(5), vmm_wh1 = Vmm(6);
    const Vmm vmm_mask = Vmm(kMask);
    // Window pairs: flat_c in every lane, and tap 1's indices (kPairRegs[1] is gather-only).
    const Vmm vmm_flat_c = Vmm(11), vmm_idx_b = Vmm(12);

    void gather(const Xbyak::Reg64 &row, const Vmm &v, int idx_off, bool as_float);
    // The gather instruction itself: simd_w lanes of row + disp bytes at the s32 indices at
    // idx (a record's, or computed ones spilled: calc_blend), through vmm_idx.
    void gather_at(const Xbyak::Reg64 &row, const Vmm &v, const Xbyak::Address &idx, bool as_float, int disp = 0);
    void gather_words_as_dwords(const Xbyak::Reg64 &row, const Vmm &v, int idx_off, bool as_float);
    // The gather path of 16-bit rows with gather instructions (gather_words_as_dwords): each
    // row's last element in every word (row a, the fused row b), set as a row begins, and
    // row_in - 1 in every lane. Free on the gather path: the window pairs, columns, up2 and
    // h2 that take these registers run on windows, the tap pairs on the insert spelling.
    bool dword_words() const { return !conf_.window && !conf_.window2 && conf_.esize == 2 && !conf_.gather_by_insert; }
    void set_dwords(const Vmm &v, uint32_t bits);  // bits in every dword of v (through reg_tmp)
    void load_last(const Xbyak::Reg64 &row, const Vmm &v);
    void last_index();  // vmm_last_idx
    const Vmm vmm_last_idx = Vmm(12), vmm_last = Vmm(13), vmm_last_b = Vmm(15);
    void gather_words(const Xbyak::Reg64 &row, const Xbyak::Xmm &x, int idx_off);
    void gather_taps(const Xbyak::Reg64 &row, int idx_off);  // both taps, into vmm_a and vmm_b
    // conf.pair_vecs: both taps per lane with one load; row_b (fused) shares the index reads.
    // idx: the lanes' s32 tap-0 indices (the record's, or computed ones spilled: calc_blend).
    void gather_pairs(const Xbyak::Reg64 &row, const Xbyak::Reg64 *row_b, const Xbyak::RegExp &idx);
    static constexpr int kPairRegs[2][4] = {{kT0, kT1, kT2, kT3}, {11, 12, 13, 15}};  // free of the above
    void load_idx(int off);
    // A window of simd_w elements at a, and the selection of a tap set from it by the indices
    // (or, conf.shuf_windows, vpshufb controls) in idx: vpermps, or vpshufb (and f16's vcvtph2ps).
    void load_window(const Vmm &v, const Xbyak::Address &a);
    void select(const Vmm &dst, const Vmm &idx, const Vmm &win);
    // conf.window2: the tap set at record offset idx_off from the 2 * simd_w elements at base
    // (a register, in elements) of row: into dst, through hi (a temporary). as_float: f32 lanes
    // of the dtype (linear); else the elements' bits zero-extended to dwords (nearest).
    void select2(const Xbyak::Reg64 &row, const Xbyak::Reg64 &base, int idx_off, const Vmm &dst, const Vmm &hi, bool as_float);
    void store_xwords(const Xbyak::Xmm &x, int64_t n);
    void nearest_vector(int64_t n);
    void nearest_select(const Vmm &v);  // nearest_vector's elements into v (f32, or their bits zero-extended)
    // AVX-512 16-bit windows: one record's 16 words into Ymm(v), or two records' 32 into v.
    void word_select(const Vmm &v, bool two, const Xbyak::Ymm &tmp = Xbyak::Ymm(kT0));
    // conf.plane_lines, plain stores: each nearest plane row (with dup, and its copy a row on)
    // stored as whole aligned lines (jit_ncx_kernels.cpp). Constants (aligned_line_consts):
    // iota, lanes, t + lanes, t.
    const bool align_;
    void aligned_row(bool dup);  // rbx, r15, rbp (saved by generate)
    const Xbyak::Zmm zmm_iota = Xbyak::Zmm(16), zmm_c16 = Xbyak::Zmm(23), zmm_ct16 = Xbyak::Zmm(24), zmm_ct = Xbyak::Zmm(25);
    bool word_pairs() const;   // 16-bit nearest windows: output vectors two at a time
    void nearest_word_pair();  // vectors slot_ and slot_ + 1 (full), one ymm
    // While row() is emitted for a nearest row pair (conf.nearest_row_pairs: plane mode's
    // flagged rows, or the dup kernel): each output vector also goes to the next dst row,
    // dst_row_bytes on.
    bool dup_ = false;
    void plane_row_step(bool pair);  // plane mode: past the row (pair) just made, in dst and rtab
    void prefetch_next_rows();       // plane mode: the next row's src row(s) (conf.prefetch_bytes)
    void linear_w(const Xbyak::Reg64 &row, const Vmm &r, bool pairs);
    void blend_w(const Vmm &r, const Vmm &a, const Vmm &b);
    void step(const Vmm &r, const Vmm &a, const Xbyak::Operand &w0, const Vmm &b, const Xbyak::Operand &w1);
    void vector(int64_t n, bool pairs = false);
    void store_result(const Xbyak::Address &a, const Vmm &v, int64_t n);
    // conf.up2_groups groups of two vectors from the first up2 vector on, no table read (not
    // fused: its two rows would need twice the registers); in a span (n non-null) *n vectors,
    // whole groups (span_cut), from vector reg_cnt on.
    void up2_run(const Xbyak::Reg64 *n = nullptr);
    void up2_constants();
    // conf.calc_first/calc_end (jit_ncx_runs.cpp), not fused: those vectors' taps and weights
    // from the output index. calc_init: the constants, and the counter at vector `first` (a
    // GPR); calc_run: n of them on, two vectors' coordinates ahead of their blends.
    const bool calc_;
    struct row_region {
        int64_t from, to;
        bool pairs, calc;  // one load for both taps; computed (calc_run)
    };
    std::vector<row_region> regions(int64_t from, int64_t to) const;
    void calc_init(const Xbyak::Reg64 &first);
    void calc_run(const Xbyak::Reg64 *n_reg, int64_t n_imm);
    struct calc_set {
        Vmm i, u, t;
        Xbyak::Reg64 base;
    };
    calc_set calc_regs(int s) const;
    Xbyak::Address calc_spill(int s) const;
    void calc_coords(int s);
    void calc_blend(int s, int slot);
    // The counter (f32 o + 0.5 per lane, half_pixel; o, align_corners), then the formula's
    // factors, 0.5 and 1.0 in every lane, and on AVX-512 the step (simd_w / flat_c) and the
    // lanes' channels, which AVX2 reads from the pool. Free of the temporaries: 4-6 are
    // fused-only; the periodic run loads its registers (4-6, 13-15) as it starts, and so does
    // calc_init; at 256 bits the counter and 1.0 take up2's constants (13, 15), which
    // calc_run puts back, at 512 bits registers of their own (up2's controls are 16, 17).
    const Vmm vmm_co = Vmm(kEvex ? 28 : 13), vmm_ci = Vmm(4), vmm_cdiv = Vmm(5), vmm_chalf = Vmm(6);
    const Vmm vmm_cone = Vmm(kEvex ? 29 : 15);
    const Vmm vmm_cstep = Vmm(kEvex ? 26 : 0), vmm_cch = Vmm(kEvex ? 27 : 0);  // the step; l % flat_c
    void per_run(const Xbyak::Reg64 *n = nullptr);  // conf.per_periods periods of the periodic run (not fused); or a span's
    void per_run_phases();  // per_p > 2 without NT stores: phase by phase, in blocks
    void per_load_phase(int ph, int set);    // phase ph's permutes and weights -> kPerRegs[set]
    void per_phase_vector(int ph, int set);  // phase ph's output vector -> vmm_idx
    // Per phase: tap 0 and tap 1 permutes, w0, w1 (free of the temporaries 0-2 and t0-t3;
    // vmm_r, vmm_idx_b and the mask are per-vector scratch elsewhere, 4-6 fused-only, and
    // 13 and 15 up2-only).
    static constexpr int kPerRegs[2][4] = {{3, 4, 5, 6}, {12, 13, 14, 15}};  // vmm_q, vmm_tq (and the AVX-512 interleave controls)
    // One group's two output vectors into (out0, out1) from src `from` = x[k - 1] (see up2_run).
    // Clobbers vmm_a, vmm_b, vmm_idx, vmm_r and vmm_idx_b (outputs aside). interleave false:
    // the even outputs in out0 and the odd ones in out1 instead (out0, out1 not 0-3), for
    // cvt2_to_bf16_interleaved, which interleaves them as 16-bit words for less.
    void up2_group(const Xbyak::Reg64 &from, const Vmm &out0, const Vmm &out1, bool interleave = true);
    void up2_interleave(const Vmm &even, const Vmm &odd, const Vmm &out0, const Vmm &out1);
    const Vmm vmm_q = Vmm(13), vmm_tq = Vmm(15);  // up2 and h2: 0.25 and 0.75 in every lane
    // conf.unit_w on AVX-512 (16 spare registers there); AVX2 reads zeros from the pool.
    const Vmm vmm_zero = Vmm(kEvex ? 31 : 0);

    // h2 (jit_ncx_h2.cpp): W of src row reg_row for one column block, the H steps of each
    // row pair, down the rows.
    void generate_h2();
    // A record vector of a column block: its window bases (in elements) and tap selects,
    // hoisted out of the rows, and its record's offset from reg_tab. pairs: one window for
    // both taps.
    struct h2_rec {
        Xbyak::Reg64 ba, bb;
        Vmm i0, i1;
        int tab;
        bool pairs;
    };
    void h2_w(bool group, int nv, const Vmm &x0, const Vmm &x1, const h2_rec *recs);
    void h2_column(bool group, int nv, const h2_rec *recs, int64_t lanes);  // recs: nv records, or none (group)
    Vmm h2_next(bool group, bool split, int v) const;
    void h2_row(int64_t off, const Vmm &w0, const Vmm &w1, const Vmm *a, const Vmm *b, int nv, int64_t lanes, bool split);
    // AVX-512 16-bit (f16, native bf16): column blocks of two vectors, 64 bytes from the row's
    // start on (whole lines where rows are), each two records or an up2 group, rounded as one
    // 32-word vector and stored as one 64-byte store; an odd vector count leaves the last
    // vector a block of its own.
    bool h2_lines() const { return kEvex && conf_.words_round(); }
    // Column blocks of whole lines: h2_lines, and AVX2 f32 rows of whole lines (two vectors a
    // line), whose up2 groups from vector 1 would split every line between two blocks, each
    // block's walk down the rows then reading every line for ownership twice. bench_ab on the
    // Zen 3 VM against the odd groups, both orders: from a cold cache fpn_2x 0.97-0.98x the
    // time, yolo_2x 0.92-0.95x, 64x64 -> 128x128 C = 64 0.96x, 128x128 -> 256x256 C = 32
    // 0.95-0.97x; warm 0.94-1.01x. Rows that are not (100 -> 200, 47 -> 94) ran 1.01-1.04x
    // warm and keep the odd groups.
    bool h2_line_blocks() const {
        return h2_lines() || (!kEvex && conf_.dt == data_type::f32 && conf_.dst_row_bytes % 64 == 0);
    }
    // AVX2 bf16: up2 groups stay as (even, odd) outputs through the H steps, and the rounding
    // interleaves them as words, without the f32 interleave's four shuffles per W step.
    static constexpr bool h2_split(data_type dt) { return !kEvex && dt == data_type::bf16; }
    const Xbyak::Reg64 reg_hrow = r12, reg_hout = r13, reg_grp = r14, reg_pairs = r15;
    void row();  // the W pass of the row at reg_src into reg_dst (advances reg_dst, reg_tab)
    // conf.flat: one plane's output volume from its src volume at reg_src, record by record.
    void generate_flat();
    void flat_vector(int64_t n);
    // conf.wplane_cols: the W-plane of jit_pass_args::rows src rows from reg_src into reg_dst,
    // column by column: up to two vectors' records in registers (kColRegs), then down the rows.
    void plane_columns();
    static constexpr int kColRegs[2][4] = {{0, 1, 2, 3}, {4, 5, 6, 12}};  // tap 0, tap 1 selects; w0, w1

    // The vector being emitted within an unrolled group: its W record and output vector lie
    // slot_ records and slot_ vectors past reg_tab and reg_dst.
    int slot_ = 0;
    Xbyak::RegExp tab(int off = 0) const { return reg_tab + (slot_ * conf_.rec_bytes + off); }
    Xbyak::RegExp out() const { return reg_dst + slot_ * simd_w * (final_ ? conf_.esize : 4); }
};

template <cpu_isa isa>
class jit_ncx_vblend : public jit_io {
public:
    // hd (k == 3): both H steps and the D step of four rows at once (src, src_b: D tap 0's H
    // taps; src_c, src_d: D tap 1's), so no H result goes through scratch.
    // plane (conf.plane_mode): jit_pass_args::rows output rows in one call; row i blends the
    // W-plane rows at byte offsets (a, b) with weights (w0, w1) from the 24-byte record i of
    // tab (jit_tables::hrows), within src (and, hd, within src_c, with wd0 and wd1).
    // pair: a second output at dst_b, with weights (wb0, wb1), from the same sources; in the NT
    // variant (conf.pairs_nt) both outputs take NT stores. hd
    // (conf.d_pairs): planes od and od + 1 (plane mode) or rows (od, oh) and (od + 1, oh) (row
    // mode), whose D taps are the same: each vector's two H steps serve both D steps, so per
    // output vector 2 loads and 4 FMA-pipe ops instead of 4 and 6. 2-D, not plane
    // (conf.h_pairs): rows oh and oh + 1 with the same H taps: each vector of the two W rows
    // is loaded once for both (1 load per output vector, not 2).
    jit_ncx_vblend(const jit_conf &conf, bool final_out, bool nt = false, bool hd = false, bool plane = false,
                   bool pair = false, bool run = false);
    void generate();
    using fn_t = void (*)(const jit_pass_args *);
    fn_t fn() const { return getCode<fn_t>(); }

private:
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr int simd_w = isa_traits<isa>::simd_w;
    const jit_conf &conf_;
    const bool final_, nt_, hd_, plane_, pair_;
    const bool run_;    // run mode (conf.h_runs): rows with the same H taps, column block by block
    const bool align_;  // aligned_row (conf.blend_lines), plain stores

    const Xbyak::Reg64 reg_args = rdi, reg_a = rsi, reg_b = rdx, reg_dst = rcx, reg_cnt = r8;
    const Xbyak::Reg64 reg_c = r9, reg_d = r10;
    const Xbyak::Reg64 reg_base_a = r11, reg_base_c = rax, reg_tab = rbx, reg_rows = r12;  // plane
    const Xbyak::Reg64 reg_boff = r13;  // pair: dst_b - dst; saved and restored
    // vecs full vectors and a tail of tail elements of an output row from reg_a.. into reg_dst
    // (advances all of them, not past the tail).
    void row(int out_es, int64_t vecs, int64_t tail);
    void gen_run(int out_es);  // run mode
    // The f32 row pointers a row reads (hd: four, else two), which every vector step advances.
    std::vector<Xbyak::Reg64> src_rows() const {
        return hd_ ? std::vector<Xbyak::Reg64>{reg_a, reg_b, reg_c, reg_d} : std::vector<Xbyak::Reg64>{reg_a, reg_b};
    }
    template <typename Blend>
    void aligned_row(Blend &&blend);  // row() with aligned stores (jit_ncx_vblend.cpp); r14, r15, rbp
    void aligned_consts();            // its constants, once per call, in zmm16 and zmm23-25
    const Xbyak::Zmm zmm_iota = Xbyak::Zmm(16), zmm_c16 = Xbyak::Zmm(23), zmm_ct16 = Xbyak::Zmm(24), zmm_ct = Xbyak::Zmm(25);
    const Vmm vmm_w0 = Vmm(0), vmm_w1 = Vmm(1), vmm_r = Vmm(2);
    const Vmm vmm_wd0 = Vmm(3), vmm_wd1 = Vmm(4), vmm_r1 = Vmm(5);
    // pair: the second output's weights and results (free of the temporaries and the mask,
    // 7-10, 14); H pairs load the two W rows' vectors into 3 and 4 (free without hd).
    const Vmm vmm_wb0 = Vmm(11), vmm_wb1 = Vmm(12), vmm_rb = Vmm(13), vmm_rb2 = Vmm(15);
    const Vmm vmm_ta = Vmm(3), vmm_tb = Vmm(4);
};

}  // namespace xinterp
