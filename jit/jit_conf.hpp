// Every division, stride, trip count and table size a generator needs, computed once from the
// problem. Generators only read this struct; it is unit-tested without any JIT.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../src/problem.hpp"

namespace xinterp {

struct jit_conf {
    bool ok = false;
    std::string why_not;  // set when !ok: why the JIT cannot serve this problem

    cpu_isa isa = cpu_isa::none;  // the generators' ISA (kernel_isa::generator): avx2 for ymm kernels
    // bf16 results rounded by VCVTNEPS2BF16: bf16 problems at the avx512_core_bf16 tier, either
    // width (the 256-bit generators emit its EVEX ymm form there). Its rounding has no fixups,
    // so there is no clean-src path (kFlagBf16Clean) to take either.
    bool native_bf16 = false;
    data_type dt = data_type::f32;
    alg algorithm = alg::nearest;
    data_format fmt = data_format::nxc;
    int k = 0;
    int esize = 4;       // bytes per element
    int simd_w = 8;      // f32 lanes per vector register
    int n_taps = 1;      // src rows per kernel call: 1 (nearest) or 2^(k-1) (linear)
    int nh = 1, nd = 1;  // H and D taps (1 or 2)

    int64_t C = 0, IW = 0, OW = 0;

    // NXC: one call writes OW pixels of C channels; the channel loop runs c_full vectors and
    // one c_tail-lane vector. Nearest copies c_bytes per pixel.
    int64_t c_full = 0, c_tail = 0, c_bytes = 0;
    int wtab_stride = 0;  // bytes per ow record in the NXC W table
    // NXC linear with C < simd_w on the direct kernel (narrow pixels), where the pass engine's
    // flat rows would gather every lane (narrow_pays in jit_conf_rules.cpp). A pixel is the low
    // C lanes of a full vector loaded at each tap pixel, and its full-vector store spills into
    // the pixels after it, which overwrite those lanes with their own. The last edge_px pixels
    // of a row, whose forward loads or store could leave the row, load each tap as the vector
    // that ends at its pixel's end instead, move their C lanes down (vpermd) and store exactly
    // C elements (AVX2), or load and store C lanes under an opmask (AVX-512): nothing outside
    // the src rows is read, nothing outside the dst row written, and no lane a later pixel does
    // not rewrite is ever left wrong.
    bool narrow = false;
    int64_t edge_px = 0;
    // Narrow pixels in spans (span_units): a span's last span_edge_px pixels go as edge pixels
    // too, since their forward stores would spill into the next span, which another thread
    // makes. So a span may end only where those can load backwards inside the src row (AVX2;
    // the AVX-512 edge pixels are masked): at pixel span_min_px or later, or at the row's start
    // (span_cut).
    int64_t span_edge_px = 0, span_min_px = 0;
    // big_window_table in jit_conf_rules.cpp
    static constexpr int64_t kNarrowTableMax = int64_t(48) << 10;
    // NXC linear (k >= 2) can run separably: the row kernel makes the W step of each src row
    // once, as an f32 scratch row of OW * C elements (row_out, ow_* below), and the pass
    // engine's blends form H and D from those rows, as for NCX. The direct row kernel redoes
    // the W step for every output row that uses a src row (2x up: twice; 8x up: 8 times).
    // Chosen where measured to pay (separable_pays in jit_conf_rules.cpp): bf16, or H
    // upsampling >= 4x, or on AVX2 2-D f16 and small f32 outputs under 4x (the rules there), or
    // 3-D whose W-planes fit (then in plane mode), or 3-D in row mode with D pairs (16-bit at
    // 512 bits; at 256 bits with NT-sized dst f32, and 16-bit whose dst rows are whole pages);
    // never where output rows rarely share src rows (fuse_h's rule), where the direct kernel is
    // that fusion already.
    bool nxc_separable = false;
    // Row kernels that can make a span of a row: where the threads do not divide a few rows
    // evenly (1-D: one row per image, or per channel plane), they share the rows' units
    // instead (jit_kernel_base::for_thread_ranges). span_units is a row's count of them (0:
    // whole rows only):
    // - the direct NXC row kernels (not separable): OW pixels, the count in jit_args::px_count
    //   (narrow pixels: and the edge pixels' in px_edge, span_edge_px);
    // - the pass engine's final W pass in row mode (nearest rows, 1-D linear): ow_vecs output
    //   vectors, the tail the last one, the range in jit_pass_args::v0 and v1 (span_cut: where
    //   a span may start).
    int64_t span_units = 0;
    static constexpr int64_t kSpanMaxRows = 256;  // span_units only for fewer rows (jit_conf.cpp)
    // Spans start at multiples of this many units: 2 in the W pass, whose 16-bit nearest word
    // pairs store two vectors at once (NT: 32 or 64 bytes, aligned where the row is).
    int64_t span_grain = 1;
    // Separable NXC bf16 on AVX2 with C a multiple of 16: the f32 W rows hold each flat block of
    // 16 elements as its even elements, then its odd ones. The W step loads the 16 words once
    // and widens the even ones with a shift (vpslld 16) and the odd ones with a mask (vpand
    // 0xffff0000, any of the four FP pipes on Zen 3), where in-order widening takes a shuffle
    // per 8 and one more load. The blends round the two vectors with cvt2_to_bf16_interleaved:
    // the odd ones' bf16 are already the high halves, so an OR interleaves them (8 instructions
    // per 16 outputs, against 9 for a pack).
    bool bf16_even_odd = false;
    // Direct NXC 2-D linear: output rows oh and oh + 1 whose H taps chain (oh's i1 is oh+1's
    // i0, as in 2x half_pixel upsampling) go to one call of a row-pair kernel, which makes the
    // W step of the three src rows once and both H steps from them (5 instead of 6 FMA-pipe
    // ops and 3 instead of 4 loads per output vector). Set when at least a quarter of the
    // rows chain.
    bool row_pairs = false;
    // Direct NXC 2-D linear: output rows oh and oh + 1 with the same two H taps (2x half_pixel:
    // rows 2i + 1 and 2i + 2) go to a same-taps pair kernel, which makes the two W steps once
    // for both rows (4 FMA-pipe ops per output vector). Set when at least a quarter of the rows
    // repeat the taps of the row before; the driver then prefers these pairs to chained ones.
    bool same_pairs = false;
    // Direct NXC 2-D linear: same_run same-taps pairs in a chain, (oh, oh + 1) of src rows
    // (i, i + 1), (oh + 2, oh + 3) of (i + 1, i + 2) and so on, all with the first pair's
    // weights (2x half_pixel away from the edges), go to one call of a run kernel: per pixel
    // and channel vector it makes the W step of each of the same_run + 1 src rows once, and
    // each pair's two H steps from the W steps before and after it. Per output vector
    // 3 + 1 / same_run FMA-pipe ops and (same_run + 1) / same_run loads, against 4 and 2 in
    // pairs. The runs are fixed per kernel (jit_tables::h_run_start). 0: off.
    int same_run = 0;
    // Pixel pairs of the run kernel (16-bit at 512 bits, whole channel vectors) and of the
    // separable NXC W step (every dtype at 512 bits, tails included): two consecutive output
    // pixels that read the same two W taps (2x half_pixel: pixels 2i + 1 and 2i + 2 blend src
    // pixels i and i + 1), so per src row and channel vector the kernel loads and widens the
    // two taps once for both pixels, then makes each pixel's W step from them (the same bits:
    // only the loads are shared). The row goes as up to kPxSegs segments, each px_segs[s].singles
    // single pixels and then px_segs[s].pairs pairs; the pixels after the last segment go
    // singly. A ratio off 2x (33 -> 65) moves the pairs' phase by a pixel now and then, and
    // each phase is a segment; the run kernel takes one. A column block's W step
    // (d_cols_conf) has the pairs every block it serves has. n_px_segs 0: off.
    struct px_seg {
        int64_t singles = 0, pairs = 0;
    };
    static constexpr int kPxSegs = 8;
    px_seg px_segs[kPxSegs] = {};
    int n_px_segs = 0;
    // The same-taps runs with NT stores (16-bit at 512 bits, C a multiple of 32, an
    // NT-eligible dst; bf16 rounded natively): every store of a run is a whole 64-byte line
    // (32 words of a pixel: bf16's even and odd halves, or two f16 vectors joined), so all
    // 2 * same_run rows go out NT without partial lines in the write-combining buffers.
    bool run_nt = false;
    // The NT variants of the direct NXC kernels take bf16 32 words at a time too (words_pair,
    // whole 64-byte lines; native bf16 at 512 bits, C a multiple of 32, an NT-eligible dst).
    bool nt_lines = false;
    // Direct NXC 3-D linear (f32, f16): output rows (od, oh) and (od + 1, oh) whose D taps are
    // the same (2x half_pixel: od = 2j + 1, 2j + 2) go to a D-pair kernel: one W and H pass
    // for both rows, then each row's D step (8 FMA-pipe ops per output vector instead of 14).
    // Set when at least a quarter of the od repeat the taps of the od before; which od start
    // a pair is fixed per kernel (jit_tables::d_pair_start), so every thread split agrees.
    // 3-D linear plane mode (NCX, separable NXC) uses the same pairs: one blend_hd2 call
    // makes both planes from one set of H steps (jit_ncx_vblend). So does separable NXC in
    // row mode (16-bit at 512 bits past kNxcPlanes16Zmm; at 256 bits with NT-sized dst, f32
    // past kPlaneBudget / 2 and 16-bit of page rows): per row oh, one blend_hd2 call
    // makes (od, oh) and (od + 1, oh) from the four W rows in the LRU, so each src row's W
    // step is made once per D pair instead of once per od.
    bool d_pairs = false;
    // Separable NXC 3-D in row mode with D pairs (above), whose four W rows
    // outgrow L1: with NT stores (pairs_nt), each D pair's rows are made column block by
    // column block, d_cols pixels at a time (the last block the rest, d_cols_conf): per block
    // the LRU holds the four W rows of those pixels only (kColBlockBytes each), so the W steps
    // write and the blends read them in L1, not L2. Block edges stay on 64-byte vector pairs
    // (d_cols * C a multiple of 2 * simd_w, in rows of whole pairs), so every NT store keeps
    // the row's alignment. 0: off.
    int64_t d_cols = 0;
    static constexpr int64_t kColBlockBytes = int64_t(4) << 10;
    // With column blocks, D pairs in a chain (pair j + 1's first src slice the last of pair
    // j, as 2x half_pixel's (2i + 1, 2i + 2) read slices i and i + 1) go up to d_group at a
    // time: per block and row oh, each pair's blend_hd2 call in turn, the W rows of the
    // group's d_group + 1 slices in 2 * (d_group + 1) slots, so a slice two pairs share is
    // W-stepped once for both. 0: off (pairs one at a time).
    int d_group = 0;
    static constexpr int kDGroup = 2;
    // Separable 2-D linear in row mode (the W-row LRU; NCX, separable NXC): output rows oh and
    // oh + 1 with the same H taps go to one blend2 call, which loads each vector of the two W
    // rows once for both (jit_ncx_vblend). Set as d_pairs is, on the H axis.
    bool h_pairs = false;
    // Separable 2-D linear in row mode whose two W rows exceed L1 (kRunMinBytes), H up 3x or
    // more: a run of output rows with the same H taps goes to one blend_run call, which makes
    // them column block by column block (kRunBlockBytes of each W row), so each W-row vector
    // comes from L2 once per run instead of once per row pair.
    bool h_runs = false;
    static constexpr int64_t kRunBlockBytes = int64_t(4) << 10;
    static constexpr int64_t kRunMinBytes = int64_t(32) << 10;
    // Address bits 11:0: a load whose bits match a store still in the store queue waits for it
    // (4K aliasing; jit_kernel_base::thread_scratch). The scratch's W rows are placed against
    // the dst in these bits, and column-block slots start whole pages apart.
    static constexpr int64_t kAliasPage = 4096;
    // Whether executions with NT stores take the pairs too: D pairs (d_pairs; the separable
    // pair blends and the direct NXC kernel's D pairs) and H pairs (h_pairs), both outputs with
    // NT stores (measured in jit_conf_stores.cpp, at d_pairs and h_pairs). Otherwise the pairs
    // serve only executions with plain stores (a dst below nt_min_bytes(threads)), and NT ones
    // go singly.
    bool pairs_nt = false;
    // NXC nearest: two consecutive output rows of one src row go to the row-pair kernel, which
    // stores every loaded vector twice (row_pairs, for pixels of whole vectors and H up >= 2x);
    // with copy_rows, a row that repeats the previous row's src row is a memcpy of it (pixels
    // that are not whole vectors), else it is regenerated.
    bool copy_rows = false;

    // NCX runs as separable passes (jit_ncx_kernels.hpp), and so does NXC with C < simd_w, whose
    // per-pixel vectors would be all tail: its rows are flat rows of W*C elements, element
    // ow*C + c coming from src element i(ow)*C + c. flat_c is that C (1 for NCX); row_in and
    // row_out count elements per src and dst row.
    // The W pass turns one src row into row_out outputs, ow_full vectors + ow_tail lanes,
    // reading one table record per vector:
    // - window: every vector's taps lie in simd_w consecutive src elements, so one load and a
    //   vpermps (16-bit nearest: vpshufb on AVX2, vpermd on dwords on AVX-512) replace the
    //   gather; needs row_in >= simd_w;
    // - otherwise gathers, which read 16-bit rows in place: dword gathers at scale 2 with the
    //   row's last element broadcast instead of gathered (it would read past the row), or, in
    //   the insert spelling, one vpinsrw per word. Downsampling reads only the elements it needs.
    // Linear passes write f32 rows (ow_pad lanes) to per-thread scratch; a vertical blend
    // combines two rows per H (and D) step, in the canonical order.
    bool pass_engine = false;
    int64_t flat_c = 1, row_in = 0, row_out = 0;
    // Linear NCX whose trailing spatial axes (W, and H if it is 1 -> 1 too) were 1 -> 1 and were
    // dropped, so the W pass runs along the first axis that is not (a src row of 1 element
    // would otherwise be a whole vector, and a call, per output element). Each dropped axis's
    // step is r = 1 * a; r = fma(0, a, r) with both taps on the same element, which is a for
    // every finite a (-0 included), the default NaN for +-inf and a quiet NaN for a NaN; that
    // is fma(0, a, a) in one instruction, and applying it again changes nothing. So the W pass
    // applies it to each tap before its own step (blend_w), and only blend_w blends: the up2
    // and periodic runs, h2 and W-plane columns are off.
    bool unit_w = false;
    // Linear NCX (k >= 2) with output rows of 1 element, or of up to 3 where the H step is
    // fused (3 * simd_w / 8 and simd_w / 8 in general): row by row, each such row is a vector
    // with 5-7 of 8 lanes idle, plus a W record and a call or an H record (237 x 7 -> 82 x 1
    // ran at 0.47x oneDNN's speed, 3-D 41 x 1 x 5 -> 16 x 1 x 1 at 0.22x). Where rows share W
    // steps (4 columns and up, or 2 and up with H upsampling) the rows cost less than the
    // gathers below (8 x 3 -> 300 x 2: 4.9 us by rows, 11.9 us flat; 56 x 56 -> 7 x 7: 19
    // against 33 us; on AVX-512 the rule is scaled, not measured). Also where each (plane, od)
    // slice holds at most two vectors of outputs in rows shorter than a vector (OH * OW <=
    // 2 * simd_w, OW < simd_w): there the rows make a call or two per slice for a vector or
    // two, and share little (24 x 4 x 39 -> 4 x 1 x 4, C = 52: 6.3-7.9 -> 2.6-5.1 us, oneDNN
    // 4.9-10 us), and where 2-D fused rows would gather every lane for a few outputs (see
    // jit_conf_stores.cpp). Flat: one call per plane
    // walks its whole output volume (OD * OH * OW elements, in order) a vector at a time, and
    // every lane gathers its own 2^k taps from the plane's src volume, then takes the W steps,
    // the H steps and the D step with its own weights, in the canonical order. One record per
    // output vector (rec_bytes): 2^k s32 index vectors, tap (d, h, w) at slot
    // (d * 2 + h) * 2 + w (flat src elements of the plane), then the W, H and D weights
    // (w0, w1) per lane. Within kFlatMaxOut outputs per plane (the table stays small) and
    // kFlatMaxIn src elements (s32 gather indices, as the flat rows take: the taps are read in
    // place, so the src volume's size costs nothing more); no NT stores. Nearest NCX (k >= 2)
    // goes flat too where rows are shorter than a vector and the (plane, od) slices are small
    // or H is not upsampled: each lane gathers its one element, records as the pass engine's
    // nearest ones (a header, then the index vector; jit_conf_stores.cpp).
    bool flat = false;
    static constexpr int64_t kFlatMaxOut = 8192, kFlatMaxIn = int64_t(1) << 28;
    // NCX linear W-planes on the gather path with rows of at most one vector (plane mode, W
    // not upsampled enough for windows, rows < simd_w elements): the W pass makes the plane
    // flat, IH * OW outputs a vector at a time (wplane_flat_conf: a flat pass of one axis,
    // its records in jit_tables::wtab), instead of a whole vector per src row with
    // OW lanes used. The blends then read W-plane rows OW elements apart (hrows), not
    // ow_pad: a row's vector load takes the next rows' elements in its idle lanes, and stores
    // only OW. Within kFlatWMaxOut W-plane elements (IH * OW: its table's records).
    bool flat_w = false;
    static constexpr int64_t kFlatWMaxOut = int64_t(1) << 18;
    int64_t ow_full = 0, ow_tail = 0, ow_pad = 0, ow_vecs = 0;
    bool window = false;
    // 512 bits, no window: every vector's taps lie in 2 * simd_w consecutive elements (W
    // downsampled by under 2x: 1080p -> 720p), rows of 2 * simd_w or more. Each tap set is
    // then two window loads and one vpermt2ps (its index picks from both) instead of a gather;
    // the records keep the window layout (bases, indices from them up to 31). jit_conf.cpp.
    bool window2 = false;
    // AVX-512 rows shorter than a vector (row_in < simd_w): every vector's taps lie in the whole
    // row, so the row is each vector's window, at base 0, loaded under an opmask of row_in lanes
    // (nothing past the row is read) and zero above them. Where the 16-lane gathers took every
    // lane: odd3d NCX f32 (rows of 11) and r15to73 NCX (15) ran 4-5x and 2.4x slower at 512
    // bits than AVX2's 8-lane windows on the Zen 4 dev VM.
    bool short_window() const { return window && row_in < simd_w; }
    // 16-bit results whose two vectors round to 32 words in registers (jit_io::round_words):
    // f16, and bf16 where the tier rounds it natively.
    bool words_round() const { return esize == 2 && (dt == data_type::f16 || native_bf16); }
    // AVX2 16-bit linear on the window path: vpshufb selects each tap set from the 8-word
    // window, where widening it and vpermps (one pipe on Zen 3) did. bf16: the window in both
    // 128-bit lanes (vbroadcasti128), and lane l's control puts word k into the top half of
    // dword l, which is its f32 (0x80, 0x80, 2k, 2k + 1). f16: the eight words picked within
    // one xmm (2k, 2k + 1 per lane), then vcvtph2ps. The tables hold these byte controls where
    // they hold dword indices k, and a pair's tap 1 is tap 0's control plus
    // window_index_step() per flat_c.
    bool shuf_windows = false;
    // How the gather path spells a gather: vgatherdps, or where gathers are slow (AMD, where a
    // ymm gather costs ~20 cycles, and Intel cores with the Gather Data Sampling microcode:
    // gathers_are_slow in src/cpu_isa.hpp) eight index loads + vinsertps, about twice as fast
    // there. Same elements read.
    bool gather_by_insert = false;
    // Linear: the leading full vectors whose every lane has neighbouring taps (i1 = i0 + 1,
    // true short of the clamped right edge), which load both taps at once; the vectors after
    // them (the edge) load each tap apart.
    // - Window path: both taps' elements in one simd_w window (from tap 0's base), so one load
    //   serves both vpermps, and tap 1's indices are tap 0's plus flat_c (a vpaddd, not a load).
    // - Insert spelling of the gather path, NCX rows (flat_c 1): one 8-byte (f32) or 4-byte
    //   (16-bit) load from i0 per lane brings both taps: half the loads and index reads.
    // pair_tail: the tail vector too (its padding lanes read inside the row: the gather path
    // pairs elements 0 and 1 for them, the window path its window's first flat_c + 1).
    int64_t pair_vecs = 0;
    bool pair_tail = false;
    // Taps computed, not read (jit_ncx_runs.cpp): the W pass's full vectors [calc_first,
    // calc_end) take their taps and weights from the output index in registers, by the
    // reference's own f32 formulas (semantics.md: s = ((o + 0.5) * I) / O - 0.5 or
    // o * (I - 1) / (O - 1), then i0 = (int)s, w1 = s - i0, w0 = 1 - w1; one vdivps per
    // vector) instead of reading a record of 5 * simd_w * 4 bytes per vector. The range keeps
    // the clamps out of the kernel: from the first vector whose s >= 0 in every lane (t = s)
    // to the first with a clamped lane (i1 = i0) or, on the window path, whose tap-1 window
    // would pass the row's end (i0 of lane 0 past row_in - 1 - simd_w). Windows: tap 0's
    // from i0 of lane 0 (the table's base there), tap 1's one element on, the same selects
    // for both (c.window bounds every vector's tap-0 span). The gather path (AVX2's insert
    // spelling): its pairs prefix, the lanes' i0 spilled to the stack for the pair loads.
    // Nearest (row mode, windows or vgatherdps) likewise, i = roundf(s) in place of i0
    // (kCalcNearestRowMinBytes, below), and linear on vgatherdps: two gathers a vector from
    // the spilled i0, on nearest's rule; 16-bit windows on the 512-bit generator (linear:
    // widened as they load; nearest: vpermw) where the records pass a quarter of the LLC one
    // thread counts on. The lanes' o are an f32 counter stepped by simd_w while o + 0.5 is exact (OW <= 2^23,
    // align_corners 2^24); past that (calc_int) an s32 counter converted each vector, as the
    // reference's (float)o is, one vcvtdq2ps more. 16-bit only as above: AVX2 16-bit rows computed this
    // way (windows widened for vpermps, constants from the pool, the rounding in the temporaries)
    // ran 1.15-1.18x the time in bf16 and 0.95-0.98x in f16 (160000 -> 441000, 50000 -> 73529
    // C = 4; bench_ab), their tables' byte-control selects being cheaper than f32's. flat_c 1, or
    // 2, 4 (8 at 512 bits) on the window path, whose vectors then hold whole columns (lane
    // element i0 * C + channel, tap 1's window C on); no unit_w; on the larger side of an up2 or
    // periodic run (run_vectors), which reads no records either; row mode and W-plane rows, not
    // the fused, h2 or flat kernels. calc_mul and calc_div: the formula's f32 factors, (float)I
    // and (float)O (half_pixel) or (float)(I - 1) and (float)(O - 1).
    // Only where the range's records come to kCalcMinBytes, past most of a 512 KiB L2: on the
    // Zen 3 VM (bench_ab, f32, 1 thread) computing costs ~6.5 cycles a vector against ~3.6
    // with the records in L1 (500 -> 750 C = 256, forced: 1.82x the time) and about as much
    // as from L2 (9375 -> 13781 C = 64, 275 KB of records: 1.07-1.09x warm, 0.83x cold),
    // and less from L3 or DRAM: 20000 -> 29411 C = 16 (588 KB) 0.76x warm, 0.57x cold;
    // 50000 -> 73529 C = 4 (1.5 MB) 0.68x, 0.48x; 600000 -> 882000 C = 1 (17.6 MB) 0.30-0.48x.
    // The gather path's computed pairs cost more (~10 cycles a vector: its pair loads and
    // inserts come on top), so there only past a quarter of the LLC one thread counts on
    // (records beside src and dst; 8 MiB on the VM): warm in a loop, with the records in
    // L3, 48000 -> 44100 (882 KB) took 1.25x the time and 441000 -> 160000 (3.2 MB)
    // 1.0-1.1x (cold 0.47x and 0.56x); 2000000 -> 700000 (14 MB) 0.72x and 4410000 ->
    // 1600000 (32 MB) 0.55x warm (xinterp bench).
    static constexpr int64_t kCalcMinBytes = int64_t(384) << 10;
    // Nearest (f32, windows and vgatherdps, row mode) computes its lanes' indices the same way,
    // roundf(s) as trunc(s) plus one where the exact fraction is 0.5 or more: ~11 cycles a
    // 16-lane vector on the Xeon dev VM (the divide), against a 128-byte record per vector
    // (8 bytes an output, twice the f32 output itself). bench_ab there, 1 thread, against
    // records: 1-D 30000 -> 60000 (480 KB of records) 1.76x the time warm (records in its
    // 2 MiB L2) and 0.46x cold, 50000 -> 73529 (588 KB) 1.51x warm; 89000 -> 131072 (1 MiB)
    // 0.72x warm, 0.57x cold; 178000 -> 262144 0.47x / 0.56x; 356000 -> 524288 0.44x / 0.55x;
    // C = 4 50000 -> 73529 (the 588 KB re-read each row, evicted by the rows between) 0.82x;
    // C = 2 100000 -> 147000 0.58x, C = 3 40000 -> 140000 0.67x. So a single row computes
    // from kCalcNearestRowMinBytes of records, more rows from kCalcMinBytes.
    static constexpr int64_t kCalcNearestRowMinBytes = int64_t(1) << 20;
    int64_t calc_first = 0, calc_end = 0;
    bool calc_half = false, calc_int = false;
    float calc_mul = 0.f, calc_div = 0.f;
    // Linear W upsampling by exactly 2x, half_pixel (NCX rows, window path, not fused): output
    // 2j blends src j - 1 and j with weights 0.25 and 0.75, output 2j + 1 src j and j + 1 with
    // 0.75 and 0.25, everywhere short of the clamped edges. From vector up2_first on, up2_groups
    // groups of two vectors (2 * simd_w outputs from src k - 1 .. k + simd_w) take no table:
    // three unaligned loads give the taps of all even and all odd outputs, the weights are
    // constants in registers, and an interleave puts the results in order. The tables'
    // permutes and weight loads were the W pass's bottleneck (~3 cycles per vector on Zen 3).
    int64_t up2_first = 0, up2_groups = 0;
    // Linear, window path, no up2 run: the longest run of full vectors (two periods at least)
    // whose W records repeat with period per_p vectors (up to kPerMax) bit for bit, up to bases
    // that step per_step src elements per period (integer ratios: 4x, 8x up; 224 -> 512 repeats
    // every 16 outputs: two ymm, one zmm, or six ymm of C = 3 flat rows). With per_p <= 2 the
    // run's first records' permutes and weights are hoisted into registers, so each vector is a
    // window load (two off the pairs), two vpermps, a mul and an FMA: no table reads, which
    // were the W pass's bottleneck (~4.5 cycles per vector on img_up). Longer periods go phase
    // by phase over blocks of the run: each phase's record is read into registers once per
    // block and its loop writes every per_p-th vector (img_up NXC, per_p 6: 0.87x the time in
    // f32 and f16, 0.79-0.83x in bf16). With NT stores, which would leave lines half written
    // that way, they read the run's first per_p records over and over instead (a few hundred
    // bytes that stay in L1). Either way the windows are walked without reading bases.
    // per_rel: the windows' offsets (tap 0, tap 1) from the first vector's tap-0 base, per
    // phase.
    static constexpr int kPerMax = 8;
    static constexpr int64_t kPerBlockBytes = int64_t(8) << 10;  // output per phase-major block
    int64_t per_first = 0, per_periods = 0, per_step = 0;
    int per_p = 0;
    int64_t per_rel[kPerMax][2] = {};
    bool per_pairs = false;  // the run lies within pair_vecs: one window serves both taps
    // AVX2 f32, pairs: each 128-bit lane's four outputs take both taps from four consecutive
    // src elements, so each vector loads two 4-element lane windows (at per_lane_off[ph][0]
    // [lane], from the first vector's tap-0 base) and selects with vpermilps (per_lane_idx[ph]
    // [tap]: in-lane indices). On Zen 3 vpermilps issues twice per cycle and vpermps once on
    // an FMA pipe (1.3 cycles each on the dev VM): img_up NCX f32 ran 0.87-0.94x the time
    // (same process, alternating), periods of 5 pairs vectors (5/3) 0.98x. Off the pairs
    // (per_lane_split), where each tap's four lanes lie within four elements of their own,
    // each tap takes two lane windows (per_lane_off[ph][tap]): four 16-byte loads and two
    // blends for one 32-byte load and a vpermps. img_up NXC (C = 3, six phases) ran 0.95x the
    // time, its W pass alone (224 -> 224 x 512) 0.92x, 1-D 7/8 rows 0.95x (same process,
    // both creation orders and loop roles). On Intel both use port 5. 16-bit would load the
    // lanes' words apart and widen after: < 3%.
    bool per_inlane = false, per_lane_split = false;
    int64_t per_lane_off[kPerMax][2][2] = {};
    int32_t per_lane_idx[kPerMax][2][8] = {};
    // 2-D with up2 groups and H too exactly 2x half_pixel (rows 2j + 1 and 2j + 2 blend src rows
    // j and j + 1 with weights (0.75, 0.25) and (0.25, 0.75), checked row by row): a plane's
    // row pairs come from one h2 call (jit_ncx_h2.cpp), which keeps each src row's W step in
    // registers, column block by column block, instead of going through a W-plane. Rows 0 and
    // OH - 1 ride along where a call's range holds them next to a pair (jit_pass_args::edges);
    // any row a thread's range cuts off its pair takes the fused W+H pass, one row each, from
    // hrows records with src row offsets. Only where a dst plane fits kPlaneBudget (its
    // column-wise stores stay in L2) and without NT stores (column-wise NT stores would keep a
    // write-combining buffer open per row).
    bool h2_pairs = false;
    float h2_head_w[2] = {0.f, 0.f}, h2_tail_w[2] = {0.f, 0.f};  // rows 0 and OH - 1: (w0, w1)
    // Row pairs per h2 call at most: a band of rows whose output fits kH2BandBytes, so that the
    // lines a column block leaves part-written (16-bit: a group's 64 bytes straddle two lines)
    // are still in L1 when the next block completes them. Rows of 2^n bytes map a column onto
    // a few L1 sets, which a whole plane's column overflows. kH2BandMin pairs at least: each
    // band computes its first src row's W step again. A/B on the Emerald Rapids dev VM (48 KiB
    // L1d), 1 thread, against whole planes: 128x128 -> 256x256 C = 16 bf16 0.68x, f16 0.65x;
    // 64x256 -> 128x512 C = 8 f32 0.83x, bf16 0.68x, f16 0.71x; 64x64 -> 128x128 C = 32 16-bit
    // 0.82x; fpn_2x, yolo_2x, 224 -> 448 0.96-1.03x. Budgets of 6-16 KiB measured alike, 48 KiB
    // and whole planes lost the gain. From a cold cache (dst and src in DRAM, the state of the
    // peer loops) shorter column walks win: 6 KiB against 12, bench_ab both orders on the Zen 3
    // VM, f32: fpn_2x 0.93-0.94x the time, yolo_2x 0.84-0.87x, 64x64 -> 128x128 C = 64
    // 0.78-0.81x (2 threads 0.83-0.88x), 128x128 -> 256x256 C = 32 0.84-0.88x, 100x100 ->
    // 200x200 C = 16 0.83-0.86x; warm (dst in L3) 0.96-1.04x. 16-bit about even (cold
    // 0.89-1.05x, warm 0.97-1.04x). 4 KiB lost warm (f32 1.00-1.06x, 16-bit 1.04-1.10x).
    static constexpr int64_t kH2BandBytes = int64_t(6) << 10, kH2BandMin = 4;
    int64_t h2_band = 0;
    // Linear H steps whose src rows neighbouring output rows hardly share (H downsampling by
    // about 2x or more) skip the W-row cache: one fused call W-interpolates both src rows and
    // blends them, so an output row (k == 2) is one call and no W row goes through scratch.
    bool fuse_h = false;
    // Plane mode (linear k >= 2, not fused, when the W-planes fit kPlaneBudget): per plane
    // (and, 3-D, per src D slice), one call W-passes all IH src rows into a W-plane of IH
    // scratch rows, and one call per (plane, od) blends every output row of it, reading an H
    // record per row (jit_tables::hrows). Small rows then cost two calls per plane instead of
    // a W pass, an LRU lookup and a blend call per row.
    // Nearest with dst rows of at most 512 bytes runs in plane mode too: one call per
    // (plane, od) does every output row's W pass, src rows from a per-row offset table
    // (jit_tables::hrows), repeats included. So does the fused 2-D H step: one call per plane,
    // each row's two src rows and H weights from hrows. So does the fused 3-D H step, with
    // H-planes of OH rows in place of W-planes (jit_conf.cpp).
    static constexpr int64_t kPlaneBudget = int64_t(256) << 10;
    // Separable NXC 3-D runs in plane mode too, W-planes made row by row by the NXC row
    // kernel's W step: f32 up to half kPlaneBudget (at 512 bits, pixels that end off a cache
    // line up to kNxcPlanesF32Split), 16-bit up to kNxcPlanes16 of per-thread scratch
    // (jit_conf.cpp).
    static constexpr int64_t kNxcPlanesF32Split = int64_t(16) << 20;
    static constexpr int64_t kNxcPlanes16 = int64_t(4) << 20;
    // 16-bit at 512 bits: up to 1.5 MiB; past it W rows in row mode, with D pairs (jit_conf.cpp).
    static constexpr int64_t kNxcPlanes16Zmm = int64_t(3) << 19;
    bool plane_mode = false;
    // Fused 3-D plane mode where every H-plane of a plane fits kVolBudget (n_wplanes = ID):
    // per thread range and plane, one fused call per src D slice that the range's rows use,
    // then one blend call over all those rows, from jit_tables::drows (a record per (od, oh)).
    // Per (plane, od) it was a blend call with records the driver built each time, which with
    // the LRU's bookkeeping was half of a small volume's time (odd3d: 65 blend calls for 5
    // planes of 13 x 5 rows).
    bool hvol = false;
    static constexpr int64_t kVolBudget = int64_t(64) << 10;
    // Nearest plane mode with H upsampling (OH > IH): an output row whose src row the next
    // row repeats is made once and stored to both rows (the row-pair flag, bit 0 of its hrows
    // offset; jit_tables.cpp pairs the rows of each run from its first). Per pair of output
    // vectors that is one table read, load and select instead of two. The NT variant ignores
    // the flag: two NT streams written in turn ran slower than one (vol_2x, NXC pairs).
    // Row mode likewise: the driver sends two rows that repeat a src row to one call of a dup
    // kernel (jit_ncx_wpass's dup), plain stores only, where it made one row and copied the
    // other (img_up nearest 0.85-0.99x the time in every dtype, same process, alternating).
    bool nearest_row_pairs = false;
    // Rows whose W taps touch every src line (W down 16x at most in f32, 32x in 16-bit) and
    // whose next row's src row starts a new stream, which the hardware prefetcher only follows
    // after a few misses, each at DRAM latency when src has left the cache: short rows pay it
    // again and again. The next row's src row(s), the first prefetch_bytes of each, are
    // prefetched while a row is made:
    // - nearest row mode: by the driver, where that row is neither this row's nor the one
    //   after it in memory (H or D downsampled, a new plane); the first kPrefetchRowBytes;
    // - plane mode with H downsampled, nearest without row pairs and the fused linear H step
    //   (both its rows): by the plane kernel, from the next row's record; src rows of at most
    //   kPrefetchRowBytes, whole.
    // Not for a src under kPrefetchMinSrc, which stays in L2. jit_conf.cpp, set_pass, has the
    // measurements.
    static constexpr int64_t kPrefetchRowBytes = int64_t(2) << 10;
    static constexpr size_t kPrefetchMinSrc = size_t(1) << 20;
    int64_t prefetch_bytes = 0;
    // Linear W-planes on the window path, except up2 groups and AVX2 f32 lane windows (their
    // fixed weights and in-lane selects cost less): the W pass goes column by column. Two
    // vectors' records (window bases, selects, weights) are read once into registers, and then
    // every src row of the slab takes a window load, the selects and the mul and FMA per vector.
    // Row by row, each vector read its record again in every row: four loads besides the
    // window. The same instructions per lane, so the same bits. Up to kColsBudget of W-plane.
    static constexpr int64_t kColsBudget = int64_t(64) << 10;
    bool wplane_cols = false;
    // AVX2 f32 columns: every window-pair vector loads two 4-element lane windows and selects
    // with vpermilps (two pipes on Zen 3) instead of one 8-element window and vpermps (one), as
    // per_inlane does for periodic runs. Its records then hold the in-lane controls in place of
    // the indices and the lanes' window offsets in header bytes 8-15 (jit_tables.hpp). Set
    // where every pair vector's lanes fit.
    bool cols_inlane = false;
    int n_wplanes = 0;          // W-planes kept per thread: 1 (2-D) or 2 (3-D, D taps); hvol: ID
    int64_t wplane_bytes = 0;   // IH * ow_pad * 4 (fused 3-D: H-planes, OH * ow_pad * 4)
    int rec_bytes = 0;          // bytes per W-table record (one per output vector)
    int n_slots = 0;            // cached W-pass rows per thread (linear)
    int64_t scratch_bytes = 0;  // per thread

    // Non-temporal stores skip the read-for-ownership of dst lines that will not be re-read
    // soon. Eligible when dst is at least nt_min_bytes() and every full-vector store of a
    // vector-aligned dst stays aligned; the driver then also generates an NT variant and uses
    // it for dst pointers aligned to simd_w * 4 bytes.
    bool nt_eligible = false;
    // NT-eligible on one thread by nt_pays's src rule alone: dst under nt_min_bytes(1), src and
    // dst together past the usable LLC (for the plan's words).
    bool nt_by_src = false;
    // Nearest with a dst past stream_min_bytes whose rows cannot take aligned NT stores (NXC
    // pixels that are not whole vectors, as f32 C = 21; NCX rows of OW % simd_w != 0): the row
    // kernel writes a row into per-thread scratch at stream_off, where it stays in L1/L2, and a
    // stream copy (jit_stream_copy.hpp) writes it with aligned NT stores to the dst rows that
    // repeat its src row, all of them as one region (scratch: the row, then its first 64 bytes
    // again). Only where H upsampling by 2x or more makes rows repeat; rows over kStreamRowMax
    // would not stay in L2. Otherwise plain stores. Direct NXC 3-D linear likewise, each row (a
    // D pair: both rows) once (jit_conf_stores.cpp).
    static constexpr int64_t kStreamRowMax = int64_t(256) << 10;
    bool nt_stream = false;
    // NCX nearest plane mode (rows of 512 bytes or less) likewise, a plane at a time: where
    // dst passes twice stream_min_bytes and the plane's rows cannot take aligned NT stores, the
    // plane kernel writes a plane into scratch at stream_off and the stream copy (its row: the
    // plane, OH * dst_row_bytes, up to kStreamRowMax) writes it to dst; a plane that repeats
    // the src slice of the plane before (D upsampled) is streamed again, not made again. The
    // 3-D linear plane blends (W-planes, not fused) too, a D pair's two planes blended into
    // scratch and streamed one by one. Only on one thread; planes a thread's range cuts go to
    // dst directly (jit_conf_stores.cpp).
    bool plane_stream = false;
    int64_t stream_off = 0;
    // Nearest row mode (pass engine) whose dst rows are not whole vectors long (row_out %
    // simd_w != 0), so that most rows start off a cache line and nearly every full-vector
    // store of the row kernel splits two lines, with H or D upsampling: executions with plain
    // stores make each distinct row once into scratch at stream_off (whole-vector stores, one
    // line each) and copy it to the dst rows that repeat it (one region) with the row copy, which stores
    // whole aligned lines (jit_stream_copy.hpp). Split stores to lines outside L1 cost several
    // cycles each: 108x233 -> 207x362 C = 4 ran 2.3x slower than -> 207x352 (Xeon dev VM).
    // Not where the W pass stores such rows as lines itself (row_lines), which it does unless
    // H or D goes up 2x or more and the rows are at most kLinesCopyRowMax.
    static constexpr int64_t kLinesCopyRowMax = int64_t(16) << 10;
    bool copy_aligned = false;
    // Nearest plane mode at 512 bits whose rows are not whole 64-byte lines (but at least two
    // long: f32 and 16-bit with windows): the W pass's plain-store variant stores each row as
    // whole aligned lines, each line-sized vector combined with the one before at the row's
    // run-time misalignment (jit_ncx_wpass::aligned_row), where dst passes kLinesMinBytes.
    static constexpr int64_t kLinesMinBytes = int64_t(64) << 10;
    bool plane_lines = false;
    // The same in row mode (nearest rows in the pass engine, made in place, repeated rows as
    // row pairs, where copy_aligned does not make them once in scratch: jit_conf_stores.cpp):
    // the W pass's plain-store variants store a whole row, and a row pair, as whole aligned
    // lines; a span of a row (span_units) keeps its vector stores.
    bool row_lines = false;
    // Linear at 512 bits whose blend rows are not whole 64-byte lines (f32 rows of 2 vectors or
    // more, 16-bit ones of kBlendLinesMinWords or more; bf16 natively rounded): the final
    // blends with plain stores store whole aligned lines the same way
    // (jit_ncx_vblend::aligned_row).
    static constexpr int64_t kBlendLinesMinWords = 512;
    bool blend_lines = false;

    // Executions split their rows over threads where src + dst pass par_min_bytes: below it,
    // waking a second thread costs more than it saves. Flat volumes gather each lane's 2^k taps
    // (AMD: one insert per element and tap), about 2 KB a microsecond, so they split from
    // kParMinFlat. Zen 3 dev VM, bench_sweep on 2 threads against 1 (NCX linear, flat):
    // 49x1x4 -> 50x1x6 C = 8 (16 KB) 6.0 -> 4.6 us, C = 16 12.0 -> 7.6 us, C = 21 21 -> 8.6 us,
    // 24x4x1 -> 63x1x3 C = 12 (14 KB) 5.7 -> 3.7 us, 46x8x3 -> 231x8x1 C = 5 (59 KB) 27 -> 14
    // us, 300x5 -> 100x2 C = 8 (54 KB) 2.9 -> 1.9 us; but C = 4 (8 KB) 3.0 -> 3.2 us and C = 2
    // 1.6 -> 2.4 us. Nearest flat volumes gather one tap a lane, so they split from
    // kParMinFlatNearest: 49x1x4 -> 50x1x6 C = 8 (16 KB) 0.8 -> 2.0 us on 2 threads, C = 16
    // (32 KB) 1.6 -> 1.6 us, C = 32 (63 KB) 3.0 -> 2.4 us, C = 64 6.0 -> 3.8-4.3 us. The other
    // kernels keep kParMinBytes: gathered nearest rows of 4 -> 6 elements, C = 16 (32 KB), ran
    // 5.2 -> 6.2 us.
    static constexpr int64_t kParMinBytes = int64_t(64) << 10, kParMinFlat = int64_t(12) << 10;
    static constexpr int64_t kParMinFlatNearest = int64_t(32) << 10;
    int64_t par_min_bytes = kParMinBytes;

    int64_t rows = 0;                  // kernel calls per execution
    int64_t src_row_bytes = 0, dst_row_bytes = 0;
};

// The conf's choices in words, one phrase each (jit_conf_plan.cpp): the dump's "; plan:" lines.
std::vector<std::string> describe_plan(const jit_conf &c);
// jit_conf::flat_w: the conf of the W pass that makes a flat W-plane (one D slice of p).
jit_conf wplane_flat_conf(const jit_conf &c, const problem &p);
// The conf of a column block of px pixels of c's rows (jit_conf::d_cols): the W step and the
// blends of that many pixels.
jit_conf d_cols_conf(const jit_conf &c, const problem &p, int64_t px);
// unit_w: p is an NCX problem whose trailing unit axes (in == out == 1) were dropped (the
// view kernels, src/jit_drivers.cpp); see jit_conf::unit_w.
jit_conf make_jit_conf(const problem &p, kernel_isa isa, bool unit_w = false);
// The cheap parts of make_jit_conf, for dispatch (no table scans): whether the JIT at `isa` can
// serve p, and whether it runs on the separable pass engine (NCX, or NXC with C < simd_w).
bool jit_can_serve(const problem &p, kernel_isa isa, std::string *why_not);
bool jit_uses_pass_engine(const problem &p, kernel_isa isa);
// The dst size from which NT stores pay for an execution on `threads` threads:
// XINTERP_NT_MIN_BYTES (or the test override) at any thread count, else half the usable
// last-level cache (usable_llc_bytes, cpu_isa.hpp; Intel: a quarter) on one thread, and on
// more the whole of it on Zen 3 and half elsewhere (below), at least 4 MiB. A dst that fits
// the LLC is better left there, for the next op and for repeated runs (on the Zen 3 dev VM, 4 MiB
// outputs ran 1.4x slower with NT; 16 MiB, 1.1x faster). One core's plain stores reach the LLC
// more slowly than its NT stores reach DRAM, but two cores' did not on the Zen 3 dev VM (32 MiB
// LLC): 12-28 MiB outputs ran 0.35-0.9x the time with plain stores on 2 threads and 1.05-1.5x
// on one; at 40 MiB the two tied on 2 threads, and 67 MiB (vol_2x) ran 1.3-1.5x slower plain.
// The Zen 4 dev VM (32 MiB LLC; avx512_on_256bit_units) keeps half the LLC on more threads too:
// on 2 threads plain stores won up to 12 MiB (0.35-0.4x the NT time, the dst in the LLC) and
// lost from 16 MiB (1.2-1.5x; seg_8x's 21 MiB 2.1-2.4x, where 2 threads then ran slower than 1).
// So did the Ice Lake Xeon VM (Intel, full-width units): with the whole LLC on 2 threads
// seg_8x (21 MiB) ran 0.6-0.9x its 1-thread speed; NT stores took it 0.25-0.6x the time.
// One thread takes its share of at most two logical processors (one_thread_llc_bytes,
// cpu_isa.hpp), however many the VM has. Intel on one thread: a quarter of it (4 MiB on the
// VMs, which count 16; a 16-core Xeon VM's 128 MiB had given 32 MiB, README run 38). On the
// Sapphire Rapids class VM (2 MiB of L2 per core; NCX and NXC, nearest and linear 128x128 ->
// 256x256, xinterp bench, two runs each) 4 MiB outputs took 0.65-1.0x the time with NT stores
// and 8 MiB 0.25-0.9x, while 2 MiB ones were mixed (0.7-1.1x) and 1 MiB ones 2x slower; on 2
// threads NT lost at 2 MiB, was mixed at 4 (0.8-1.15x) and won at 8 (0.65-1.0x), so more
// threads keep half. On the Ice Lake VM 2-4 MiB had tied or favoured plain stores on 1 thread.
// Kernels generate their NT variants from nt_pays(p, 1), the widest rule.
size_t nt_min_bytes(int threads = 1);
// Whether an execution of p on `threads` threads takes NT stores (where its rows can): a dst of
// nt_min_bytes(threads) or more; on one thread, with the default thresholds, also a dst of
// kNtSrcFloor or more that src and dst together outgrow the usable LLC with. Then a repeated
// run finds neither in the LLC, and plain stores read each dst line from DRAM first. The Zen 3
// dev VM (32 MiB LLC, where one thread's threshold is 16 MiB), bench_sweep against oneDNN in
// one process, with NT stores from 4 MiB against the default: 78x376 -> 22x705 C = 216 (src
// 25 MB, dst 13 MB) linear NXC 0.82x -> 1.07x oneDNN (xinterp 1021 -> 626 us), 512x512 ->
// 256x384 C = 32 nearest NXC 0.88x -> 1.09x (1114 -> 636 us), linear NXC 0.98x -> 1.08x, NCX
// 1.78x -> 2.14x and 3.70x -> 4.51x; 1080x1920 -> 720x1280 C = 3 linear NCX 2.31x -> 2.81x;
// 300x400 -> 150x200 C = 64 nearest NXC 1.00x -> 1.10x. On 2 threads it was mixed (78x376 ->
// 22x705 nearest NXC 1.88x -> 1.01x, 300 -> 549 us; 512x512 -> 256x384 linear NXC 0.93x ->
// 1.14x), as plain stores of two cores reach the LLC faster there (above), so more threads keep
// nt_min_bytes alone.
constexpr size_t kNtSrcFloor = size_t(4) << 20;
bool nt_pays(const problem &p, int threads = 1);
// The dst size from which rows that cannot take aligned NT stores stream through scratch
// (jit_conf::nt_stream: nearest rows, direct NXC 3-D linear rows): the usable LLC, or
// nt_min_bytes where that is larger.
// A dst past the LLC goes to DRAM either way, and plain stores then read each line first;
// under it they ran faster than the trip through scratch. Where nt_min_bytes is set
// (XINTERP_NT_MIN_BYTES, tests), nt_min_bytes.
size_t stream_min_bytes(int threads = 1);
// Tests set it (0: back to the default), for one thread and (bytes_more, 0: the same) for more;
// it is not in the cache key, so clear the cache around.
void set_nt_min_bytes_for_testing(size_t bytes, size_t bytes_more = 0);
// Tests force a gather spelling (0: vgatherdps, 1: inserts, -1: by vendor) to cover both on any
// host. The spelling is not in the cache key, so callers clear the cache around it.
void set_gather_spelling_for_testing(int spelling);
// Tests force narrow pixels (jit_conf::narrow) on (1) wherever a row can take them, or off
// (0), to cover the kernel on shapes the rule leaves to the flat rows; -1: the rule. Not in the
// cache key either.
void set_narrow_for_testing(int mode);
// Tests turn the NXC separable rule (separable_pays) off (0), so the direct kernel serves the
// shapes it would send separable (AVX2 f16 with channel tails, say), to keep covering that
// kernel; -1: the rule. 3-D W-planes (plane mode) still go separable. Not in the cache key
// either.
void set_separable_for_testing(int mode);
// Tests force computed taps (jit_conf::calc_first, calc_end) on (1) wherever the kernel can
// take them, whatever the rule's size threshold, on with the s32 counter (2: calc_int, which
// rows past 2^23 outputs take), or off (0); -1: the rule. Not in the cache key.
void set_calc_taps_for_testing(int mode);

// What a window pair's tap-1 index (or vpshufb control, conf.shuf_windows) adds to tap 0's
// per flat_c: the next element.
inline uint32_t window_index_step(const jit_conf &c) {
    if (!c.shuf_windows) return 1;
    return c.dt == data_type::bf16 ? 0x02020000u : 0x02020202u;  // the word pair's two bytes
}

// The W pass's run that reads no records, up2 groups or the periodic run (not in fused
// kernels): its full vectors [first, second), or [ow_full, ow_full) where there is none.
inline std::pair<int64_t, int64_t> run_vectors(const jit_conf &c) {
    if (c.up2_groups > 0) return {c.up2_first, c.up2_first + 2 * c.up2_groups};
    if (c.per_periods > 0) return {c.per_first, c.per_first + c.per_periods * c.per_p};
    return {c.ow_full, c.ow_full};
}

// Where a span may start within its row, at or before unit x (jit_conf::span_units): for
// narrow pixels not before span_min_px (but at 0), a multiple of span_grain, and in an up2 or
// periodic run [u0, u1] a whole number of its groups (two vectors; per_p) from u0, which the
// run's code takes from there (one base a group). The grain (16-bit nearest's word pairs)
// does not apply there: runs are linear.
inline int64_t span_cut(const jit_conf &c, int64_t x) {
    if (c.narrow && x < c.span_min_px) return 0;
    const auto [u0, u1] = run_vectors(c);
    if (u1 > u0 && x >= u0 && x <= u1) return x - (x - u0) % (c.up2_groups > 0 ? 2 : c.per_p);
    return x - x % c.span_grain;  // never into the run: only x = u1 could round to u1 - 1
}

// The pass engine's W record of output vector v in jit_tables::wtab: the computed vectors
// [calc_first, calc_end) have none stored, so the records after them move up; v in that range
// gives the next stored record's (vector calc_end's), where the kernel reads on after it.
inline int64_t stored_record(const jit_conf &c, int64_t v) {
    if (v < c.calc_first) return v;
    return v < c.calc_end ? c.calc_first : v - (c.calc_end - c.calc_first);
}

// Window pairs (jit_conf::pair_vecs, pair_tail) are a prefix of a row's vectors: how many.
inline int64_t window_pair_vecs(const jit_conf &c) { return c.pair_vecs + (c.ow_tail > 0 && c.pair_tail ? 1 : 0); }

// Per-execution flags of the kernel ABIs below (their `flags` field).
// kFlagBf16Clean: every src value is zero or a normal bf16 within the bounds of
// jit_tables::bf16_clean_lo/hi, so no result can be NaN, infinite or denormal and the bf16
// stores may round without the special-value fixups (jit_io::cvt_to_bf16).
constexpr int64_t kFlagBf16Clean = 1;

// One ABI struct for every interpolation kernel; the generator reads it with offsetof.
// The NCX pass kernels' ABI (W pass and vertical blend), read with offsetof.
struct jit_pass_args {
    const void *src;    // W pass: the src row; blend: row a (f32)
    const void *src_b;  // blend: row b (f32)
    void *dst;          // the output row (f32 scratch, or dst in its dtype)
    const void *tab;    // W pass: the W table
    float w0, w1;       // blend weights (H)
    const void *src_c;  // 3-D blend: D tap 1's rows (src, src_b are D tap 0's)
    const void *src_d;
    float wd0, wd1;     // 3-D blend: D weights
    int64_t rows;       // plane kernels: rows to do (h2: row pairs)
    const void *rtab;   // nearest plane W pass: per output row, the s64 byte offset of its src row
    int64_t edges;      // h2: bit 0, also output row 0 (before the pairs); bit 1, row OH - 1 (after)
    int64_t flags;      // kFlag* bits of this execution
    void *dst_b;        // blend pairs: the second output (D pairs: od + 1's first row; H pairs: oh + 1)
    float wb0, wb1;     // ... and its weights (D, or H)
    int64_t v0, v1;     // W pass, conf.span_units: output vectors [v0, v1) of the row (dst at v0, tab at stored_record(v0); v1 = ow_vecs: to the end)
};

// The stream copy's ABI: `rows` copies of one row of jit_conf::dst_row_bytes from src, end to
// end from dst (any alignment). More than one row only where the row is 64 bytes or more and
// src holds its first 64 bytes again after its end (jit_stream_copy.hpp).
struct jit_copy_args {
    const void *src;
    void *dst;
    int64_t rows = 1;
};

struct jit_args {
    const void *src[4];  // src rows; linear taps in (d, h) order: d0h0, d0h1, d1h0, d1h1
    void *dst;           // the dst row
    const void *wtab;    // the W-axis table (layout in jit_tables.hpp)
    float wh[2];         // H weights (linear, k >= 2)
    float wd[2];         // D weights (linear, k == 3); row-pair kernel: the second row's H weights
    void *dst_b;         // D-pair kernel (jit_conf::d_pairs): the second row, one od on
    float wd_b[2];       // D-pair kernel: the second row's D weights
    int64_t flags;       // kFlag* bits of this execution
    int64_t px_count;    // conf.span_units row kernels: the pixels to make, from wtab and dst on
    int64_t px_edge;     // narrow pixels: of those, the last px_edge as edge pixels (a span's end, the row's)
};
// The row-pair kernel (jit_conf::row_pairs) reads src[0..2] as the three src rows (the first
// output row blends rows 0 and 1, the second rows 1 and 2) and writes dst and the row after;
// nearest's reads src[0] and writes it to both.

}  // namespace xinterp
