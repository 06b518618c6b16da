// describe_plan: a jit_conf's choices in words, for the dump's "; plan:" lines, so that a reader
// of the generated code knows which parts to expect and why they are laid out as they are.
// Only the choices that hold are named; each phrase names the jit_conf field it reports (the
// measurements behind them are in jit_conf*.cpp and jit/README.md).
#include <string>
#include <vector>

#include "jit_conf.hpp"

namespace xinterp {

namespace {
std::string num(int64_t v) { return std::to_string(v); }

std::string count(int64_t n, const char *what) { return num(n) + " " + what + (n == 1 ? "" : "s"); }

std::string bytes(int64_t b) {
    if (b >= (int64_t(1) << 20) && b % (int64_t(1) << 20) == 0) return num(b >> 20) + " MiB";
    if (b >= (int64_t(1) << 10) && b % (int64_t(1) << 10) == 0) return num(b >> 10) + " KiB";
    return num(b) + " bytes";
}

// Row kernels whose calls may make a span of a row (threads share the units of a few rows).
void spans(const jit_conf &c, std::vector<std::string> &v) {
    if (c.span_units == 0) return;
    const std::string unit = c.pass_engine ? "output vector" : "pixel";
    v.push_back("a row's " + count(c.span_units, unit.c_str()) + " split among threads that do not divide a few rows (span_units)");
}

// The direct NXC kernel: one call per output row (or pair, or run), pixels of C channels.
void direct(const jit_conf &c, std::vector<std::string> &v) {
    const bool lin = c.algorithm == alg::linear;
    if (!lin) {
        v.push_back("direct NXC kernel: pixel copies of " + count(c.c_bytes, "byte"));
        if (c.row_pairs) v.push_back("rows that repeat a src row in pairs from one call, with plain stores (row_pairs)");
        if (c.copy_rows) v.push_back("rows that repeat a src row copied from the row before (copy_rows)");
        spans(c, v);
        return;
    }
    if (c.narrow) {
        v.push_back("direct NXC kernel, narrow pixels: C = " + num(c.C) + " in the low lanes of a vector, the last " +
                    num(c.edge_px) + " pixels of a row loaded and stored within it (edge_px)");
    } else {
        std::string px = "direct NXC kernel: pixels of " + count(c.c_full, "vector");
        if (c.c_tail) px += " and one ending at C = " + num(c.C) + " (overlapping)";
        v.push_back(px);
    }
    if (c.nxc_separable) {
        v.push_back("separable: each src row's W step once, into f32 rows of " + num(c.row_out) + " elements, then blends");
        if (c.bf16_even_odd) v.push_back("bf16 W rows as even and odd halves (bf16_even_odd)");
        return;
    }
    if (c.same_run) v.push_back("same-taps row pairs in runs of " + num(c.same_run) + " (same_run)");
    else if (c.same_pairs) v.push_back("output rows with the same H taps in pairs (same_pairs)");
    if (c.row_pairs) v.push_back("output rows whose H taps chain in pairs (row_pairs)");
    if (c.d_pairs) v.push_back("od pairs with the same D taps (d_pairs)");
    spans(c, v);
}

// The pass engine's W step: how a vector of outputs finds its taps.
void w_taps(const jit_conf &c, std::vector<std::string> &v) {
    std::string s = "W taps by ";
    if (c.window) s += "one window load and a permute per tap (window)";
    else if (c.window2) s += "two window loads and a two-source permute (window2)";
    else if (c.gather_by_insert) s += "element loads and inserts (gather_by_insert)";
    else s += "hardware gathers (vgatherdps, 16-bit as dwords)";
    if (c.shuf_windows) s += ", 16-bit words shuffled in place (shuf_windows)";
    if (c.pair_vecs || c.pair_tail) s += ", both taps from one load on " + count(c.pair_vecs + (c.pair_tail ? 1 : 0), "vector") + " (pair_vecs)";
    v.push_back(s);
    if (c.calc_end > c.calc_first)
        v.push_back(std::string(c.algorithm == alg::nearest ? "src indices" : "taps and weights") + " of vectors " + num(c.calc_first) + " to " + num(c.calc_end - 1) +
                    " computed from the output index, no table read (calc_first, calc_end)");
    if (c.up2_groups)
        v.push_back("2x by shuffles: " + count(c.up2_groups, "group") + " of two vectors from vector " + num(c.up2_first) + " (up2_groups)");
    if (c.per_p) {
        std::string p = "periodic run: " + count(c.per_periods, "period") + " of " + count(c.per_p, "vector") + " from vector " +
                        num(c.per_first) + ", records in registers (per_p)";
        if (c.per_inlane) p += ", in-lane windows (per_inlane)";
        v.push_back(p);
    }
}

// The pass engine: a W pass into f32 rows or planes, then blends (or one fused pass).
void pass(const jit_conf &c, std::vector<std::string> &v) {
    const bool lin = c.algorithm == alg::linear;
    if (c.flat) {
        v.push_back("flat: one call per plane over its " + num(c.row_out) + " outputs, each lane with its own " +
                    (lin ? num(int64_t(1) << c.k) + " taps (flat)" : std::string("tap (flat)")));
        return;
    }
    std::string rows = "pass engine: rows of " + num(c.row_in) + " -> " + num(c.row_out) + " elements";
    if (c.flat_c > 1) rows += " (W x C = " + num(c.flat_c) + ")";
    v.push_back(rows);
    w_taps(c, v);
    if (c.unit_w) v.push_back("the trailing unit axes' step made in the W pass (unit_w)");
    if (!lin) {
        if (c.plane_mode) v.push_back("plane mode: one call per plane (plane_mode)");
        if (c.nearest_row_pairs) v.push_back("rows that repeat a src row in pairs (nearest_row_pairs)");
    }
    if (c.prefetch_bytes > 0) {
        const bool whole = c.prefetch_bytes == c.src_row_bytes;
        const std::string what = whole ? "the next row's src row" + std::string(lin ? "s" : "") + " prefetched"
                                       : "the first " + num(c.prefetch_bytes) + " bytes of the next row's src row prefetched";
        v.push_back(what + (c.plane_mode ? " from its record" : " where it starts a new stream") + " (prefetch_bytes)");
    }
    spans(c, v);
}

// Linear steps after the W step, for the pass engine and separable NXC alike.
void blends(const jit_conf &c, std::vector<std::string> &v) {
    if (c.h2_pairs) {
        v.push_back("h2: 2x both ways, each W step kept in registers for its two row pairs, bands of " + count(c.h2_band, "row pair") +
                    " (h2_pairs)");
        return;
    }
    if (c.fuse_h) {
        if (c.k == 2) v.push_back("fused W and H steps: output rows rarely share src rows (fuse_h)");
        else if (c.hvol) v.push_back("fused W and H steps into an H-plane per D slice, then D blends (fuse_h, hvol)");
        else if (c.plane_mode) v.push_back("fused W and H steps into two H-planes, then D blends (fuse_h)");
        else v.push_back("fused W and H steps into two H rows per output row, then its D blend (fuse_h)");
        return;
    }
    if (c.k < 2) return;
    if (c.plane_mode) {
        std::string s = "plane mode: " + count(c.n_wplanes, "W-plane") + " of " + bytes(c.wplane_bytes) + " per thread, then blends (plane_mode)";
        if (c.wplane_cols) s += ", W-planes made column by column (wplane_cols" + std::string(c.cols_inlane ? ", cols_inlane)" : ")");
        if (c.flat_w) s += ", W-planes as flat passes (flat_w)";
        v.push_back(s);
    } else {
        v.push_back("row mode: " + count(c.n_slots, "W-row slot") + " of " + bytes(c.ow_pad * 4) + " per thread");
    }
    if (c.h_runs) v.push_back("runs of rows with the same H taps, column block by column block (h_runs)");
    else if (c.h_pairs) v.push_back("rows with the same H taps in pairs (h_pairs)");
    if (c.d_pairs && c.k == 3) {
        std::string s = "od pairs with the same D taps (d_pairs)";
        if (c.d_cols) s += ", in column blocks of " + count(c.d_cols, "pixel") + " (d_cols), chains in groups of " + num(c.d_group) + " (d_group)";
        v.push_back(s);
    }
}

void stores(const jit_conf &c, std::vector<std::string> &v) {
    if (c.nt_eligible) {
        std::string s = c.nt_by_src ? "NT stores on one thread (src and dst outgrow the LLC), where dst passes " +
                                          bytes(static_cast<int64_t>(nt_min_bytes(2))) + " on more (nt_eligible)"
                                    : "NT stores where dst passes " + bytes(static_cast<int64_t>(nt_min_bytes(1))) + " on one thread, " +
                                          bytes(static_cast<int64_t>(nt_min_bytes(2))) + " on more (nt_eligible)";
        if (c.pairs_nt) s += ", pairs included (pairs_nt)";
        if (c.run_nt) s += ", runs in whole lines (run_nt)";
        if (c.nt_lines) s += ", bf16 in whole lines (nt_lines)";
        v.push_back(s);
    }
    if (c.nt_stream) v.push_back("rows made once in scratch, streamed to dst where the execution takes NT stores (nt_stream)");
    if (c.plane_stream) v.push_back("planes made in scratch, streamed to dst where a 1-thread execution takes NT stores (plane_stream)");
    if (c.copy_aligned) v.push_back("rows made in scratch, copied with aligned stores (copy_aligned)");
    if (c.blend_lines || c.plane_lines || c.row_lines)
        v.push_back("rows stored as whole aligned 64-byte lines (" + std::string(c.blend_lines ? "blend_lines)" : c.plane_lines ? "plane_lines)" : "row_lines)"));
    if (c.dt == data_type::bf16 && c.algorithm == alg::linear) {
        if (c.native_bf16) v.push_back("bf16 rounded by vcvtneps2bf16");
        else if (c.isa == cpu_isa::avx2) v.push_back("bf16 rounded in integer code, or by Veltkamp's split where src is clean");
        else v.push_back("bf16 rounded in integer code, without the NaN and zero fixups where src is clean");
    }
    if (c.scratch_bytes) v.push_back(bytes(c.scratch_bytes) + " of scratch per thread");
}
}  // namespace

std::vector<std::string> describe_plan(const jit_conf &c) {
    std::vector<std::string> v;
    if (!c.ok) return v;
    if (c.pass_engine) pass(c, v);
    else direct(c, v);
    if (c.algorithm == alg::linear && !c.flat && (c.pass_engine || c.nxc_separable)) blends(c, v);
    stores(c, v);
    return v;
}

}  // namespace xinterp
