// The NXC row kernel: one output row (OW pixels x C channels) per call, vectorised across C;
// or, for the separable NXC path, the W step of one src row.
#pragma once
#include <functional>

#include "jit_conf.hpp"
#include "jit_io.hpp"

namespace xinterp {

// Row-pair variants (conf.row_pairs / conf.same_pairs): one call writes two output rows.
enum class pair_kind { none, chained, same_taps, d_same, same_run };

template <cpu_isa isa>
class jit_interp_kernel : public jit_io {
public:
    // nt: non-temporal full-vector stores (conf.nt_eligible and a 32-byte-aligned dst only).
    // w_only (conf.nxc_separable): the W step of one src row, as f32 into a scratch row; the
    // driver blends such rows for H and D.
    // pair: linear chained (conf.row_pairs), two output rows from three src rows (jit_args
    // comment); linear same_taps (conf.same_pairs), two output rows of the same two src rows;
    // nearest (chained), two consecutive output rows of one src row; 3-D linear d_same
    // (conf.d_pairs), rows (od, oh) and (od + 1, oh) whose D taps are the same; same_run
    // (conf.same_run), 2 * same_run output rows from same_run + 1 consecutive src rows.
    jit_interp_kernel(const jit_conf &conf, bool nt, bool w_only = false, pair_kind pair = pair_kind::none);
    void generate();
    using fn_t = void (*)(const jit_args *);
    fn_t fn() const { return getCode<fn_t>(); }

private:
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr int simd_w = isa_traits<isa>::simd_w;
    static constexpr bool kEvex = isa >= cpu_isa::avx512_core;  // spelling only, never the algorithm
    const jit_conf &conf_;
    const bool nt_, w_only_;
    const pair_kind pair_;

    // ---- register map, by role -------------------------------------------------------------
    const Xbyak::Reg64 reg_args = rdi;
    const Xbyak::Reg64 reg_dst = rsi;
    const Xbyak::Reg64 reg_tab = rdx;
    const Xbyak::Reg64 reg_ow = rcx;   // ow loop counter
    const Xbyak::Reg64 reg_cnt = rax;  // inner (channel / staging) loop counter
    const Xbyak::Reg64 reg_tmp = rbx;
    const Xbyak::Reg64 reg_p0 = r8, reg_p1 = r9;  // NXC: this pixel's i0 / i1 addresses in row 0
    const Xbyak::Reg64 reg_row[4] = {r10, r11, r12, r13};
    // NXC linear keeps row 0 as a base and rows 1..3 as byte deltas from it, so each tap's
    // address is [reg_p + reg_row[t]] and the channel loop only advances p0 and p1.

    const Vmm vmm_w0 = Vmm(0), vmm_w1 = Vmm(1);    // W weights
    const Vmm vmm_wh0 = Vmm(2), vmm_wh1 = Vmm(3);  // H weights
    const Vmm vmm_wd0 = Vmm(4), vmm_wd1 = Vmm(5);  // D weights
    // The W taps and the W results of the two H taps live in the io temps: all are consumed
    // before the store that clobbers them.
    const Vmm vmm_a = Vmm(kT0), vmm_b = Vmm(kT1);
    const Vmm vmm_rw[2] = {Vmm(kT2), Vmm(kT3)};
    const Vmm vmm_hd0 = Vmm(11);                   // H result of D tap 0, then the final result
    const Vmm vmm_mask = Vmm(kMask);               // gather mask, or a tail mask, never both
    const Vmm vmm_hi = Vmm(kEvex ? 31 : 13);       // 0xffff0000 per dword (even/odd bf16 blocks)
    const Vmm vmm_wil = Vmm(30);                   // AVX-512 words_pair: the even/odd word interleave

    // half -1: n channels in order (load_f32); 0 / 1 (bf16, a block of 2 * simd_w channels):
    // its even / odd channels, widened from the block's dwords with vmm_hi (gen_nxc_linear on
    // AVX2, words_pair on AVX-512).
    void w_step(const Vmm &r, const Xbyak::Address &a0, const Xbyak::Address &a1, int64_t n, int half = -1);
    void w_taps(const Xbyak::Address &a0, const Xbyak::Address &a1, int64_t n, int half);  // into vmm_a, vmm_b
    void combine_taps(const Vmm &out);  // vmm_rw / vmm_hd0 -> H and D steps -> out
    // The lanes of a pixel's last (channel tail) vector, which ends at C: at 512 bits the
    // narrowest of 4, 8 and 16 that covers the tail (jit_io loads and stores 4 and 8 with
    // xmm and ymm moves), where an unaligned zmm access always spans two lines; AVX2 keeps
    // its full vector. bench_ab on the Xeon dev VM (Emerald Rapids), both orders, against
    // zmm tails: separable W rows c17 0.86-0.95x the time, c23 0.89-0.94x, 64x64 -> 128x128
    // C = 21 0.86-0.94x; direct rows 64x64 -> 40x40 C = 20 0.81-0.93x, 40x40 -> 80x80 C = 52
    // f32 0.77-0.92x (16-bit 0.94-0.95x), 30x30 -> 60x60 C = 70 f32 0.85x, 100x100 ->
    // 200x200 C = 17 0.87-0.95x, 3-D 16x20x20 -> 8x30x30 C = 36 0.76-0.87x; tails of 9-15
    // keep the zmm (C = 28: even).
    int tail_lanes() const { return !conf_.narrow && conf_.c_tail > 0 ? lanes_for(conf_.c_tail) : simd_w; }
    // The narrowest vector for n lanes at 512 bits (4, 8 or 16: xmm, ymm, zmm); AVX2 simd_w.
    int lanes_for(int64_t n) const { return kEvex && n <= 8 ? (n <= 4 ? 4 : 8) : simd_w; }

    void gen_nxc_linear();
    void gen_nxc_linear_pair();
    void gen_nxc_linear_run();  // pair_kind::same_run (conf.same_run)
    // W only, conf.px_segs: the pairs from one widening of their taps, the rest singly.
    void w_pixel_pairs(const std::function<void(int64_t, int, int)> &compute, const std::function<void(int)> &dst_add);
    // The row's pixels segment by segment (conf.px_segs): singles(n) pixels, then the pairs,
    // the second pixel's W weights into wb0 and wb1 before each pair().
    void px_segments(const std::function<void(int64_t)> &singles, const Vmm &wb0, const Vmm &wb1, const std::function<void()> &pair);
    // compute(n, src_off, dst_off) makes and stores n channels at byte offset src_off from
    // reg_p0 / reg_p1 and dst_off from the output pointers.
    using compute_fn = std::function<void(int64_t, int, int)>;
    // compute2 (optional; full vectors): the same for two vectors at once, at the offsets
    // and one vector on (words_pair). n_px: the pixels from the current record (-1: OW).
    void pixel_loop(const compute_fn &compute, const std::function<void(int)> &dst_add, const compute_fn &compute2 = nullptr,
                    int64_t n_px = -1, int out_es = -1);  // out_es: bytes per output (-1: the dtype's)
    void pixel_taps();
    // n pixels: taps, body, next record; count, where given, sets reg_ow at run time instead
    // (none: no pixel)
    void for_pixels(int64_t n, const std::function<void()> &body, const std::function<void()> &count = {});
    void row_pixels(int64_t n);  // reg_ow = n, or jit_args::px_count for a whole row (conf.span_units)
    static constexpr int64_t kUnrollC = 4;  // pixels of up to this many full vectors: unrolled_pixels
    // n full channel vectors of a wider pixel: kUnrollV per loop trip at their byte offsets
    // (in_v and out_v per vector), then the rest; step(v) moves the pointers v vectors on.
    static constexpr int kUnrollV = 4;
    void vector_loop(int64_t n, int in_v, int out_v, const compute_fn &compute, const std::function<void(int)> &step,
                     const compute_fn &compute2 = nullptr);
    void unrolled_pixels(const compute_fn &compute, const std::function<void(int)> &dst_add, int out_es,
                         const compute_fn &compute2 = nullptr, int64_t n_px = -1);
    // AVX-512 bf16 where the tier rounds it natively: the direct kernels with plain stores
    // (single rows, row pairs, same-taps runs), and their NT variants where every such store
    // is a whole line (conf.nt_lines), make a pixel's channels 32 at a time, as their
    // even and their odd halves (w_step's), and round each output row's two halves as 32
    // words, interleaved back in order, for one 64-byte store (store_words_eo). f16, whose
    // rounding is cheap, keeps single vectors (two at a time ran it 1.04-1.06x slower with
    // plain stores; its NT runs join two per line, store_f16_line).
    bool words_pair() const { return kEvex && conf_.native_bf16 && !conf_.narrow; }
    void words_pair_consts();  // vmm_hi and vmm_wil
    void store_words_eo(const Xbyak::Address &a, const Vmm &even, const Vmm &odd, bool nt = false);
    void store_f16_line(const Xbyak::Address &a, const Vmm &lo, const Vmm &hi);  // NT, 32 channels
    // Narrow pixels (conf.narrow, AVX2): the forward pixels, then the edge pixels (edge_ set
    // while they are emitted), for pixel_loop's compute and dst_add; out_es: bytes per output.
    void narrow_loop(const compute_fn &compute, const std::function<void(int)> &dst_add, int out_es);
    bool edge_ = false;
    // Every output store of the linear kernels: store_f32, or at an edge pixel the move of its
    // C lanes down to lane 0 and an exact store of C elements.
    void store_px(data_type dt, const Xbyak::Address &a, const Vmm &v, int64_t n, bool nt);
    void gen_nxc_nearest();
};

}  // namespace xinterp
