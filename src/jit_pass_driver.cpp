// The separable pass driver: NCX, NXC with C < simd_w, and separable NXC linear (jit_conf).
#include <algorithm>
#include <array>
#include <cstring>
#include <xmmintrin.h>
#include <string>

#include "../jit/jit_interp_kernel.hpp"
#include "../jit/jit_ncx_kernels.hpp"
#include "../jit/jit_stream_copy.hpp"
#include "jit_kernel_base.hpp"

namespace xinterp {
namespace detail {
namespace {

// Separable passes, for NCX, for NXC with C < simd_w (whose rows are flat W*C element rows,
// see jit_conf), and for NXC linear with shared src rows (conf.nxc_separable: the W step comes
// from the NXC row kernel, the blends are the same). Output row r = (plane, od, oh). Linear
// rows are blends of W-pass rows of src rows (plane, id, ih), kept per thread (2-D: two slots;
// 3-D: a small LRU) so each is computed once per run of neighbouring output rows. Nearest rows
// that repeat a src row come two at a time from the dup kernel, or are copied from the row
// before.
template <cpu_isa kIsa>
class jit_ncx_kernel : public jit_kernel_base {
public:
    using wpass_t = jit_ncx_wpass<kIsa>;
    using vblend_t = jit_ncx_vblend<kIsa>;

    using wrow_t = jit_interp_kernel<kIsa>;

    jit_ncx_kernel(const problem &p, kernel_isa isa, jit_conf conf) : jit_kernel_base(p, isa, std::move(conf)) {
        {
            arena_scope in(arena_);
            generate_parts(p);
        }
        arena_.seal();
    }

    std::vector<code_part> parts() const override {
        if (h2_) return {part("whpass", *wpass_), part("h2", *h2_)};
        if (conf_.flat) return {part("flat", *wpass_)};
        const bool fused = conf_.fuse_h;
        const bool plane = conf_.plane_mode;
        const std::string w = fused ? "whpass" : conf_.flat_w ? "wplane_flat" : plane ? "wplane" : "wpass";
        std::vector<code_part> v{wrow_ ? part("wrow", *wrow_) : part(w.c_str(), *wpass_)};
        if (wpass_nt_) v.push_back(part((w + "_nt").c_str(), *wpass_nt_));
        if (pair_) v.push_back(part((w + "_pair").c_str(), *pair_));
        const std::string blend = std::string(plane ? "plane_" : "") + (prob().k == 3 && !fused ? "blend_hd" : "blend");
        if (blend_final_) v.push_back(part(blend.c_str(), *blend_final_));
        if (blend_final_nt_) v.push_back(part((blend + "_nt").c_str(), *blend_final_nt_));
        if (blend_pair_) v.push_back(part((blend + "2").c_str(), *blend_pair_));
        if (blend_pair_nt_) v.push_back(part((blend + "2_nt").c_str(), *blend_pair_nt_));
        for (int b = 0; b < 2; ++b) {  // column blocks (conf.d_cols): the block, the last one
            const cols_kernels &k = cols_[b];
            if (!k.wrow) continue;
            const std::string sfx = b == 0 ? "_cols" : "_cols_last";
            v.push_back(part(("wrow" + sfx).c_str(), *k.wrow));
            v.push_back(part(("blend_hd2" + sfx + "_nt").c_str(), *k.pair_nt));
        }
        if (blend_run_) v.push_back(part("blend_run", *blend_run_));
        if (blend_run_nt_) v.push_back(part("blend_run_nt", *blend_run_nt_));
        if (stream_) v.push_back(part("row_stream", *stream_));
        if (copy_) v.push_back(part("row_copy", *copy_));
        return v;
    }

    void execute(const void *src, void *dst) const override {
        if (prob().empty()) return;
        const exec_ctx x{static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst), use_nt(dst), exec_flags(src)};
        for_thread_ranges(x.dst, [&](int64_t r0, int64_t r1, uint8_t *scratch) {
            if (conf_.flat)
                run_flat(r0, r1, x);
            else if (h2_)
                run_h2(r0, r1, x);
            else if (prob().algorithm == alg::nearest)
                run_nearest(r0, r1, x, scratch);
            else if (conf_.plane_mode && conf_.fuse_h && prob().k == 2)
                run_tabled_planes(r0, r1, x);
            else if (conf_.hvol)
                run_volume(r0, r1, x, scratch);
            else if (conf_.plane_mode)
                run_planes(r0, r1, x, scratch);
            else if (prob().k == 2 && !conf_.fuse_h)
                run_rows_2d(r0, r1, x, scratch);
            else
                run_linear(r0, r1, x, scratch);
        }, [&](int64_t r, int64_t v0, int64_t n, uint8_t *) { span_row(r, v0, n, x); });
    }

private:
    // One execution's buffers and choices, the same for every thread.
    struct exec_ctx {
        const uint8_t *src;
        uint8_t *dst;
        bool nt;        // NT variants (use_nt)
        int64_t flags;  // kFlag* bits for every args struct (exec_flags)
    };

    void generate_parts(const problem &p) {
        if (conf_.flat) {  // one call per plane, the whole output volume (jit_conf::flat)
            wpass_ = std::make_unique<wpass_t>(conf_, true);
            wpass_->generate();
            return;
        }
        if (conf_.h2_pairs) {  // the row pairs, and the fused W+H pass for the other rows
            h2_ = std::make_unique<wpass_t>(conf_, true, false, false, false, true);
            h2_->generate();
            wpass_ = std::make_unique<wpass_t>(conf_, true, false, true, true);
            wpass_->generate();
            return;
        }
        const bool lin = p.algorithm == alg::linear;
        const bool fused = conf_.fuse_h;
        // The W pass writes the result for nearest, 1-D linear, and fused 2-D linear.
        const bool wpass_is_final = !lin || p.k == 1 || (fused && p.k == 2);
        if (conf_.nxc_separable) {  // the NXC row kernel makes the W-step rows
            wrow_ = std::make_unique<wrow_t>(conf_, false, true);
            wrow_->generate();
            if (conf_.d_cols) generate_cols();
        } else if (conf_.flat_w) {  // the W-plane flat, from its own conf (jit_conf::flat_w)
            wconf_ = wplane_flat_conf(conf_, p);
            wpass_ = std::make_unique<wpass_t>(wconf_, false);
            wpass_->generate();
        } else {
            wpass_ = std::make_unique<wpass_t>(conf_, wpass_is_final, false, fused, conf_.plane_mode);
            wpass_->generate();
        }
        if (!lin && !conf_.plane_mode && conf_.nearest_row_pairs) {  // row mode: two rows per call
            pair_ = std::make_unique<wpass_t>(conf_, true, false, false, false, false, true);
            pair_->generate();
        }
        if (wpass_ && wpass_is_final && conf_.nt_eligible) {
            wpass_nt_ = std::make_unique<wpass_t>(conf_, true, true, fused, conf_.plane_mode);
            wpass_nt_->generate();
        }
        if (conf_.nt_stream || conf_.plane_stream) {  // plane_stream: a plane is the stream's row
            stream_ = std::make_unique<jit_stream_copy>(conf_.plane_stream ? p.out[1] * conf_.dst_row_bytes : conf_.dst_row_bytes);
            stream_->generate();
        }
        // Row mode nearest copies a row that repeats the one before (run_nearest): not with
        // glibc's memcpy (jit_stream_copy.hpp).
        if (!lin && !conf_.plane_mode && (p.out[0] > p.in[0] || p.out[1] > p.in[1])) {
            copy_ = std::make_unique<jit_stream_copy>(conf_.dst_row_bytes, false);
            copy_->generate();
        }
        // The final blend: H of two W rows (2-D); H and D of four W rows (3-D); or D of the two
        // fused H results (3-D, fused).
        if (lin && p.k >= 2 && !(fused && p.k == 2)) {
            const bool hd = p.k == 3 && !fused, plane = conf_.plane_mode;
            blend_final_ = std::make_unique<vblend_t>(conf_, true, false, hd, plane);
            blend_final_->generate();
            if (conf_.nt_eligible) {
                blend_final_nt_ = std::make_unique<vblend_t>(conf_, true, true, hd, plane);
                blend_final_nt_->generate();
            }
            // Pairs with the same D taps (run_planes, run_linear) or H taps (run_rows_2d). The
            // NT variant (conf.pairs_nt) stores both outputs with NT stores; without it,
            // executions with NT stores blend rows or planes singly.
            if ((hd && conf_.d_pairs) || (p.k == 2 && !plane && conf_.h_pairs)) {
                blend_pair_ = std::make_unique<vblend_t>(conf_, true, false, hd, plane, true);
                blend_pair_->generate();
                if (conf_.pairs_nt && !conf_.d_cols) {  // column blocks: NT pairs go by blocks (cols_)
                    blend_pair_nt_ = std::make_unique<vblend_t>(conf_, true, true, hd, plane, true);
                    blend_pair_nt_->generate();
                }
            }
            // Runs of rows with the same H taps (run_rows_2d; conf.h_runs).
            if (conf_.h_runs) {
                blend_run_ = std::make_unique<vblend_t>(conf_, true, false, false, false, false, true);
                blend_run_->generate();
                if (conf_.nt_eligible) {
                    blend_run_nt_ = std::make_unique<vblend_t>(conf_, true, true, false, false, false, true);
                    blend_run_nt_->generate();
                }
            }
        }
    }

    void generate_cols() {
        const int64_t last = conf_.OW - (conf_.OW - 1) / conf_.d_cols * conf_.d_cols;
        for (int b = 0; b < 2; ++b) {
            const int64_t px = b == 0 ? conf_.d_cols : last;
            if (b == 1 && px == conf_.d_cols) break;  // blocks of one width
            cols_kernels &k = cols_[b];
            k.conf = d_cols_conf(conf_, prob(), px);
            k.wrow = std::make_unique<wrow_t>(k.conf, false, true);
            k.wrow->generate();
            k.pair_nt = std::make_unique<vblend_t>(k.conf, true, true, true, false, true);  // NT executions only
            k.pair_nt->generate();
        }
    }

    jit_conf wconf_;  // flat_w: the W pass's conf, which its generator keeps a reference to
    // Column blocks (conf.d_cols): per block width (d_cols pixels, then the last block's) its
    // conf, which the generators keep a reference to, its W step and its NT D-pair blend.
    struct cols_kernels {
        jit_conf conf;
        std::unique_ptr<wrow_t> wrow;
        std::unique_ptr<vblend_t> pair_nt;
    };
    cols_kernels cols_[2];
    std::unique_ptr<wpass_t> wpass_, wpass_nt_, h2_, pair_;
    std::unique_ptr<wrow_t> wrow_;
    std::unique_ptr<vblend_t> blend_final_, blend_final_nt_, blend_pair_, blend_pair_nt_, blend_run_, blend_run_nt_;
    std::unique_ptr<jit_stream_copy> stream_, copy_;

    // Index of src row (plane, id, ih) among all src rows: its key and its offset / row bytes.
    int64_t src_row(int64_t plane, int64_t id, int64_t ih) const {
        const problem &p = prob();
        return (plane * p.in[0] + id) * p.in[1] + ih;
    }
    // Nearest: the src row output row o copies from.
    int64_t nearest_src_row(const row_id &o) const { return src_row(o.plane, tables_.d.nearest[o.od], tables_.h.nearest[o.oh]); }

    // Vectors [v0, v0 + n) of output row r's W pass, straight to dst (conf.span_units: nearest
    // rows and 1-D linear, a span that the threads' shares of a few rows cut).
    void span_row(int64_t r, int64_t v0, int64_t n, const exec_ctx &x) const {
        const row_id o = split(r);
        const int64_t key = prob().algorithm == alg::nearest ? nearest_src_row(o) : src_row(o.plane, 0, 0);
        jit_pass_args a{};
        a.flags = x.flags;
        a.src = x.src + key * conf_.src_row_bytes;
        a.tab = tables_.wtab.data() + stored_record(conf_, v0) * conf_.rec_bytes;
        a.dst = x.dst + r * conf_.dst_row_bytes + v0 * conf_.simd_w * conf_.esize;
        a.v0 = v0;
        a.v1 = v0 + n;
        pick(x.nt, wpass_, wpass_nt_)(&a);
    }

    // Nearest row mode (conf.prefetch_bytes): the start of the src row of the row after o (row r
    // of the range [r0, r1) being made, from src row key), unless o is the range's last row or
    // that row is key's or the next one in memory, which the hardware prefetcher streams into.
    void prefetch_next(row_id o, int64_t r, int64_t r1, int64_t key, const uint8_t *src) const {
        if (!conf_.prefetch_bytes || r + 1 >= r1) return;  // none wanted, or o is the range's last row
        step(o);
        const int64_t next = nearest_src_row(o);
        if (next == key || next == key + 1) return;
        const char *row = reinterpret_cast<const char *>(src + next * conf_.src_row_bytes);
        for (int64_t b = 0; b < conf_.prefetch_bytes; b += 64) _mm_prefetch(row + b, _MM_HINT_T0);
        _mm_prefetch(row + conf_.prefetch_bytes - 1, _MM_HINT_T0);  // the last line of a row that starts off one
    }

    void run_nearest(int64_t r0, int64_t r1, const exec_ctx &x, uint8_t *scratch) const {
        const uint8_t *src = x.src;
        uint8_t *dst = x.dst;
        const bool nt = x.nt;
        jit_pass_args a{};
        a.tab = tables_.wtab.data();
        a.flags = x.flags;
        a.v1 = conf_.ow_vecs;  // conf.span_units: the whole row
        const auto fn = pick(nt, wpass_, wpass_nt_);
        if (conf_.plane_mode) return run_tabled_planes(r0, r1, x, scratch);
        const auto stream_fn = stream_ && nt_wanted() ? stream_->fn() : nullptr;  // NT-sized for these threads
        uint8_t *row_buf = scratch + conf_.stream_off;
        const auto pair_fn = pair_ && !nt ? pair_->fn() : nullptr;  // plain stores only
        // Rows that split lines go through scratch too, copied with aligned plain stores
        // (conf.copy_aligned), where NT stores do not stream them.
        const auto via_fn = stream_fn ? stream_fn : conf_.copy_aligned && copy_ && !nt ? copy_->fn() : nullptr;
        int64_t prev = -1;
        row_id o = split(r0);
        for (int64_t r = r0; r < r1; ++r, step(o)) {
            const int64_t key = nearest_src_row(o);
            uint8_t *out = dst + r * conf_.dst_row_bytes;
            if (via_fn) {  // the row once into scratch, then streamed or copied to the rows that repeat it
                // The run of rows from r with this src row, in this range, goes as one region
                // (whole lines across its rows; jit_stream_copy.hpp): rows of 64 bytes or more.
                int64_t n = 1;
                row_id last = o;
                if (conf_.dst_row_bytes >= 64)
                    for (row_id on = o; r + n < r1; ++n, last = on) {
                        step(on);
                        if (nearest_src_row(on) != key) break;
                    }
                if (key != prev) {
                    a.src = src + key * conf_.src_row_bytes;
                    a.dst = row_buf;
                    prefetch_next(last, r + n - 1, r1, key, src);
                    fn(&a);
                    prev = key;
                    if (conf_.dst_row_bytes >= 64) std::memcpy(row_buf + conf_.dst_row_bytes, row_buf, 64);
                }
                const jit_copy_args ca{row_buf, out, n};
                via_fn(&ca);
                r += n - 1;
                o = last;
                continue;
            }
            // The same src row as the row just written: a bit copy, unless that row went out
            // with NT stores (then it is in DRAM, and the W pass from the cached src is cheaper).
            if (key == prev && !nt && copy_) {
                const jit_copy_args ca{out - conf_.dst_row_bytes, out};
                copy_->fn()(&ca);
                continue;
            }
            a.src = src + key * conf_.src_row_bytes;
            a.dst = out;
            prev = key;
            prefetch_next(o, r, r1, key, src);
            if (pair_fn && r + 1 < r1) {  // the next row repeats this one's src row: both at once
                row_id on = o;
                step(on);
                if (nearest_src_row(on) == key) {
                    pair_fn(&a);
                    ++r;
                    o = on;
                    continue;
                }
            }
            fn(&a);
        }
    }

    // Calls body(o, r, n) for each run of output rows r..r+n-1 within one (plane, od) that
    // [r0, r1) covers; o is the run's first row.
    template <typename F>
    void for_plane_runs(int64_t r0, int64_t r1, F &&body) const {
        row_id o = split(r0);
        for (int64_t r = r0; r < r1;) {
            const int64_t n = std::min(r1 - r, prob().out[1] - o.oh);
            body(o, r, n);
            r += n;
            o.oh = 0;
            if (++o.od == prob().out[0]) o.od = 0, ++o.plane;
        }
    }

    // h2_pairs: within each plane's run of rows, the row pairs (2j + 1, 2j + 2) that the run
    // holds whole go to h2 calls of at most h2_band pairs each (bands of equal size), with rows
    // 0 and OH - 1 where the run holds them next to a pair; any other row (a pair the thread
    // split cuts, or an edge row left alone) to the fused W+H pass, from its hrows record.
    void run_h2(int64_t r0, int64_t r1, const exec_ctx &x) const {
        const uint8_t *src = x.src;
        uint8_t *dst = x.dst;
        const int64_t ih_n = prob().in[1], rb = conf_.dst_row_bytes;
        jit_pass_args e{}, h{};
        e.tab = h.tab = tables_.wtab.data();
        e.flags = h.flags = x.flags;
        e.rows = 1;
        const auto edge = wpass_->fn(), pairs = h2_->fn();
        for_plane_runs(r0, r1, [&](const row_id &o, int64_t r, int64_t n) {
            const uint8_t *psrc = src + src_row(o.plane, 0, 0) * conf_.src_row_bytes;
            uint8_t *pdst = dst + (r - o.oh) * rb;
            for (int64_t oh = o.oh, end = o.oh + n; oh < end;) {
                const bool head = oh == 0 && end >= 3;  // row 0 rides with the pairs from row 1
                const int64_t first = oh + head, j0 = (first - 1) / 2;
                const int64_t run = first % 2 == 1 ? std::min((end - first) / 2, ih_n - 1 - j0) : 0;
                const int64_t bands = (run + conf_.h2_band - 1) / conf_.h2_band;  // of equal size
                const int64_t np = run > 0 ? (run + bands - 1) / bands : 0;
                if (np > 0) {
                    const int64_t next = first + 2 * np;
                    const bool tail = next == 2 * ih_n - 1 && next < end;  // row OH - 1, after the last pair
                    h.src = psrc + j0 * conf_.src_row_bytes;
                    h.dst = pdst + first * rb;
                    h.rows = np;
                    h.edges = (head ? 1 : 0) | (tail ? 2 : 0);
                    pairs(&h);
                    oh = next + tail;
                } else {
                    e.src = psrc;
                    e.rtab = tables_.hrows.data() + oh * 24;
                    e.dst = pdst + oh * rb;
                    edge(&e);
                    ++oh;
                }
            }
        });
    }

    // The stream copy for conf.plane_stream where this execution takes it: one thread and an
    // NT-sized dst (jit_conf_stores.cpp: more threads store in place); else nullptr.
    jit_stream_copy::fn_t plane_stream_fn() const {
        return conf_.plane_stream && stream_ && exec_threads() == 1 && nt_wanted() ? stream_->fn() : nullptr;
    }

    // Nearest and fused 2-D plane mode: one W-pass call per run of rows within a (plane, od),
    // each row's src row(s) (and fused, H weights) from its hrows record. conf.plane_stream
    // on one thread with an NT-sized dst: a whole plane into scratch (unless it repeats the src
    // slice of the plane streamed before), then streamed to dst; a plane a range cuts goes to
    // dst (jit_conf.hpp: more threads store plainly).
    void run_tabled_planes(int64_t r0, int64_t r1, const exec_ctx &x, uint8_t *scratch = nullptr) const {
        const uint8_t *src = x.src;
        uint8_t *dst = x.dst;
        const bool nearest = prob().algorithm == alg::nearest;
        const int rec = nearest ? 8 : 24;
        jit_pass_args a{};
        a.tab = tables_.wtab.data();
        a.flags = x.flags;
        const auto fn = pick(x.nt, wpass_, wpass_nt_);
        const auto stream_fn = scratch ? plane_stream_fn() : nullptr;
        const int64_t oh_n = prob().out[1];
        uint8_t *plane_buf = scratch ? scratch + conf_.stream_off : nullptr;
        int64_t made = -1;  // the src slice (its first row) whose plane plane_buf holds
        for_plane_runs(r0, r1, [&](const row_id &o, int64_t r, int64_t n) {
            const int64_t id = nearest ? tables_.d.nearest[o.od] : 0;  // fused planes are 2-D
            const int64_t key = src_row(o.plane, id, 0);
            a.src = src + key * conf_.src_row_bytes;
            a.rtab = tables_.hrows.data() + o.oh * rec;
            a.rows = n;
            uint8_t *out = dst + r * conf_.dst_row_bytes;
            if (stream_fn && n == oh_n) {
                if (key != made) {
                    a.dst = plane_buf;
                    fn(&a);
                    made = key;
                }
                const jit_copy_args ca{plane_buf, out};
                stream_fn(&ca);
                return;
            }
            a.dst = out;
            fn(&a);
        });
    }

    // jit_conf::flat: rows are planes; one call makes a plane's whole output volume.
    void run_flat(int64_t r0, int64_t r1, const exec_ctx &x) const {
        jit_pass_args a{};
        a.tab = tables_.wtab.data();
        a.flags = x.flags;
        const auto fn = wpass_->fn();
        for (int64_t r = r0; r < r1; ++r) {
            a.src = x.src + r * conf_.src_row_bytes;
            a.dst = x.dst + r * conf_.dst_row_bytes;
            fn(&a);
        }
    }

    // jit_conf::hvol: per plane that rows r0..r1 reach, the H-planes of the src D slices its
    // rows use, each into its own slot (id), then one blend call over all of the plane's rows
    // in the range, whose records (jit_tables::drows) point into those slots. A plane that
    // two threads split is made by both, each the slices its own rows use.
    void run_volume(int64_t r0, int64_t r1, const exec_ctx &x, uint8_t *scratch) const {
        const problem &p = prob();
        uint8_t *planes = scratch;
        const auto hplane = wpass_->fn();
        const auto blend = pick(x.nt, blend_final_, blend_final_nt_);
        jit_pass_args wa{};
        wa.tab = tables_.wtab.data();
        wa.rows = p.out[1];
        wa.rtab = tables_.hrows.data();
        wa.flags = x.flags;
        jit_pass_args ba{};
        ba.flags = x.flags;
        ba.src = planes;
        const int64_t plane_rows = p.out[0] * p.out[1];
        for (int64_t r = r0; r < r1;) {
            const int64_t plane = r / plane_rows, first = r % plane_rows, n = std::min(r1 - r, plane_rows - first);
            // D taps never decrease with od, and i1 is i0 or i0 + 1: each slice is made once.
            int64_t made = -1;
            for (int64_t od = first / p.out[1]; od <= (first + n - 1) / p.out[1]; ++od)
                for (const int64_t id : {tables_.d.lin[od].i0, tables_.d.lin[od].i1}) {
                    if (id <= made) continue;
                    wa.src = x.src + src_row(plane, id, 0) * conf_.src_row_bytes;
                    wa.dst = planes + id * conf_.wplane_bytes;
                    hplane(&wa);
                    made = id;
                }
            ba.tab = tables_.drows.data() + first * 24;
            ba.dst = x.dst + r * conf_.dst_row_bytes;
            ba.rows = n;
            blend(&ba);
            r += n;
        }
    }

    // Plane mode: output rows r0..r1 as runs within one (plane, od), each one blend call over
    // the planes of that plane's src D slices td.i0 and td.i1 (2-D: the plane's one slice),
    // which come from a per-thread LRU of n_wplanes planes: W-planes (IH rows, made by the W
    // pass, or for separable NXC row by row by the NXC row kernel's W step; blended for H and D
    // by blend_hd with the hrows records), or, fused 3-D, H-planes (OH rows, made by the fused
    // W+H pass from the hrows records, blended for D from records built here).
    void run_planes(int64_t r0, int64_t r1, const exec_ctx &x, uint8_t *scratch) const {
        const uint8_t *src = x.src;
        uint8_t *dst = x.dst;
        const problem &p = prob();
        const bool hplanes = conf_.fuse_h;
        const int64_t row_f32 = conf_.ow_pad * 4;
        uint8_t *planes = scratch;
        uint8_t *drecs = planes + conf_.n_wplanes * conf_.wplane_bytes;  // H-planes: the D records
        int64_t key[2] = {-1, -1};
        uint64_t stamp[2] = {0, 0}, clock = 0;
        jit_pass_args wa{};
        wa.tab = tables_.wtab.data();
        wa.rows = hplanes ? p.out[1] : p.in[1];
        wa.rtab = tables_.hrows.data();  // H-planes: each row's src rows and H weights
        wa.flags = x.flags;
        const auto wplane = wpass_ ? wpass_->fn() : nullptr;
        jit_args ra{};  // separable NXC
        ra.wtab = tables_.wtab.data();
        ra.flags = x.flags;
        auto w_plane = [&](int64_t plane, int64_t id, int64_t other) -> const uint8_t * {
            const int64_t k = plane * p.in[0] + id;  // the src D slice
            int victim = -1;
            for (int i = 0; i < conf_.n_wplanes; ++i) {
                if (key[i] == k) {
                    stamp[i] = ++clock;
                    return planes + i * conf_.wplane_bytes;
                }
                if (key[i] != other && (victim < 0 || stamp[i] < stamp[victim])) victim = i;
            }
            wa.src = src + src_row(plane, id, 0) * conf_.src_row_bytes;
            wa.dst = planes + victim * conf_.wplane_bytes;
            if (wrow_) {
                for (int64_t ih = 0; ih < p.in[1]; ++ih) {
                    ra.src[0] = static_cast<const uint8_t *>(wa.src) + ih * conf_.src_row_bytes;
                    ra.dst = static_cast<uint8_t *>(wa.dst) + ih * row_f32;
                    wrow_->fn()(&ra);
                }
            } else {
                wplane(&wa);
            }
            key[victim] = k;
            stamp[victim] = ++clock;
            return planes + victim * conf_.wplane_bytes;
        };
        const auto blend = pick(x.nt, blend_final_, blend_final_nt_);
        const auto blend_pair = pick_pair(x.nt, blend_pair_, blend_pair_nt_);
        const int64_t plane_rows = p.out[1], plane_bytes = plane_rows * conf_.dst_row_bytes;
        int64_t done_to = r0;  // rows below it were written with the plane before (D pairs)
        // conf.plane_stream on one thread with an NT-sized dst: whole planes (a D pair's two)
        // blended into scratch, then streamed to dst a plane at a time.
        const auto stream_fn = plane_stream_fn();
        uint8_t *plane_buf = scratch + conf_.stream_off;
        auto stream_out = [&](int64_t planes_n, uint8_t *out) {
            for (int64_t i = 0; i < planes_n; ++i) {
                const jit_copy_args ca{plane_buf + i * plane_bytes, out + i * plane_bytes};
                stream_fn(&ca);
            }
        };
        jit_pass_args ba{};
        ba.flags = x.flags;
        for_plane_runs(r0, r1, [&](const row_id &o, int64_t r, int64_t n) {
            if (r < done_to) return;
            const linear_tap &td = tables_.d.lin[o.od];
            const int64_t k0 = o.plane * p.in[0] + td.i0, k1 = o.plane * p.in[0] + td.i1;
            if (hplanes) {  // row i: wd0 * H-plane(i0) row i + wd1 * H-plane(i1) row i
                const int64_t a = w_plane(o.plane, td.i0, k1) - planes, b = w_plane(o.plane, td.i1, k0) - planes;
                for (int64_t i = 0; i < n; ++i) {
                    uint8_t *rec = drecs + i * 24;
                    const int64_t off[2] = {a + (o.oh + i) * row_f32, b + (o.oh + i) * row_f32};
                    const float w[2] = {td.w0, td.w1};
                    std::memcpy(rec, off, 16);
                    std::memcpy(rec + 16, w, 8);
                }
                ba.src = planes;
                ba.tab = drecs;
                ba.dst = dst + r * conf_.dst_row_bytes;
                ba.rows = n;
                blend(&ba);
                return;
            }
            ba.src = w_plane(o.plane, td.i0, k1);
            if (p.k == 3) ba.src_c = w_plane(o.plane, td.i1, k0);
            ba.wd0 = td.w0;
            ba.wd1 = td.w1;
            ba.tab = tables_.hrows.data() + o.oh * 24;
            uint8_t *out = dst + r * conf_.dst_row_bytes;
            const bool via = stream_fn && n == plane_rows;
            ba.dst = via ? plane_buf : out;
            ba.rows = n;
            // A whole plane whose od starts a D pair, with od + 1's whole plane in this range:
            // both from one call (the same D taps, so the same W-planes).
            if (blend_pair && n == plane_rows && tables_.d_pair_start[o.od] && r + 2 * plane_rows <= r1) {
                const linear_tap &tb = tables_.d.lin[o.od + 1];
                ba.dst_b = static_cast<uint8_t *>(ba.dst) + plane_bytes;
                ba.wb0 = tb.w0;
                ba.wb1 = tb.w1;
                blend_pair(&ba);
                if (via) stream_out(2, out);
                done_to = r + 2 * plane_rows;
                return;
            }
            blend(&ba);
            if (via) stream_out(1, out);
        });
    }

    // The args of the W step of one src row into an f32 scratch row: the W pass's and the NXC
    // row kernel's (separable NXC).
    struct w_step_args {
        jit_pass_args wa{};
        jit_args ra{};
    };
    w_step_args w_step_setup(const exec_ctx &x) const {
        w_step_args a;
        a.wa.tab = a.ra.wtab = tables_.wtab.data();
        a.wa.flags = a.ra.flags = x.flags;
        a.wa.v1 = conf_.ow_vecs;  // conf.span_units (1-D): the whole row
        return a;
    }
    // The W step of src row k into `to`.
    // wk: a column block's W step (conf.d_cols; a.ra.wtab then at the block's first pixel).
    void w_step(w_step_args &a, const exec_ctx &x, int64_t k, uint8_t *to, const wrow_t *wk = nullptr) const {
        if (wk || wrow_) {
            a.ra.src[0] = x.src + k * conf_.src_row_bytes;
            a.ra.dst = to;
            (wk ? wk : wrow_.get())->fn()(&a.ra);
        } else {
            a.wa.src = x.src + k * conf_.src_row_bytes;
            a.wa.dst = to;
            wpass_->fn()(&a.wa);
        }
    }

    // 2-D row mode: output rows blend the W rows of src rows (i0, i1), kept in two slots. A W
    // row is made when a row needs it and neither slot holds it, into the slot that does not
    // hold the row's other tap, so each src row is W-passed once per run of rows that use it.
    void run_rows_2d(int64_t r0, int64_t r1, const exec_ctx &x, uint8_t *scratch) const {
        const size_t row_f32 = static_cast<size_t>(conf_.ow_pad) * 4;
        const int64_t rb = conf_.dst_row_bytes;
        uint8_t *slots = scratch;
        const auto blend = pick(x.nt, blend_final_, blend_final_nt_);
        const auto blend_pair = pick_pair(x.nt, blend_pair_, blend_pair_nt_);
        const auto blend_run = pick(x.nt, blend_run_, blend_run_nt_);
        w_step_args ws = w_step_setup(x);
        int64_t key[2] = {-1, -1};
        auto w_row = [&](int64_t k, int64_t keep) -> const uint8_t * {
            if (key[0] == k) return slots;
            if (key[1] == k) return slots + row_f32;
            const int v = key[0] == keep ? 1 : 0;
            uint8_t *to = slots + v * row_f32;
            w_step(ws, x, k, to);
            key[v] = k;
            return to;
        };
        const linear_tap *h = tables_.h.lin.data();
        jit_pass_args ba{};
        ba.flags = x.flags;
        for_plane_runs(r0, r1, [&](const row_id &o, int64_t r, int64_t n) {
            const int64_t first = src_row(o.plane, 0, 0);
            uint8_t *out = x.dst + r * rb;
            for (int64_t oh = o.oh, end = o.oh + n; oh < end; ++oh, out += rb) {
                const linear_tap &t = h[oh];
                const int64_t k0 = first + t.i0, k1 = first + t.i1;
                ba.src = w_row(k0, k1);
                ba.src_b = w_row(k1, k0);
                ba.w0 = t.w0;
                ba.w1 = t.w1;
                ba.dst = out;
                if (blend_run) {  // rows oh .. oh + m - 1 with the same taps, m >= 3: one call
                    int64_t m = 1;
                    while (oh + m < end && h[oh + m].same_taps(t)) ++m;
                    if (m >= 3) {
                        ba.tab = h + oh;
                        ba.rows = m;
                        blend_run(&ba);
                        oh += m - 1;
                        out += (m - 1) * rb;
                        continue;
                    }
                }
                if (blend_pair && oh + 1 < end && h[oh + 1].same_taps(t)) {  // rows oh, oh + 1: one call
                    ba.dst_b = out + rb;
                    ba.wb0 = h[oh + 1].w0;
                    ba.wb1 = h[oh + 1].w1;
                    blend_pair(&ba);
                    ++oh;
                    out += rb;
                    continue;
                }
                blend(&ba);
            }
        });
    }

    // How many D pairs from od on go to one group (conf.d_group, at least 1): consecutive
    // pairs, each starting on the src slice the one before ends on, whose planes this range
    // holds whole.
    int64_t group_len(int64_t od, int64_t r, int64_t r1) const {
        const int64_t OD = prob().out[0], plane_rows = prob().out[1];
        int64_t g = 1;
        while (g < conf_.d_group && od + 2 * g + 1 < OD && r + 2 * (g + 1) * plane_rows <= r1 && tables_.d_pair_start[od + 2 * g] &&
               tables_.d.lin[od + 2 * g].i0 == tables_.d.lin[od + 2 * g - 2].i1)
            ++g;
        return g;
    }

    // One column block of a group of g D pairs (od, od + 1), (od + 2, od + 3), ...: per output
    // row oh, every pair's two rows from one NT pair call. The W rows of the g + 1 src slices
    // stay in slots 2q + (ih & 1) (slice q; H taps are neighbours or equal, so a row's two
    // never share a slot): a slice two neighbouring pairs share is W-stepped once for both,
    // and each W row once per block. The slots overwrite the LRU's (use_block resets it).
    void group_rows(w_step_args &ws, const exec_ctx &x, jit_pass_args &ba, const row_id &o, int64_t g, uint8_t *to,
                    const cols_kernels &b, uint8_t *slots, size_t slot_bytes) const {
        int64_t key[2 * (jit_conf::kDGroup + 1)];
        std::fill(std::begin(key), std::end(key), -1);
        const int64_t plane_rows = prob().out[1], plane_bytes = plane_rows * conf_.dst_row_bytes;
        // The slots start whole pages apart, 512 bytes past this block's dst in bits 11:0
        // (thread_scratch: 4K aliasing), so every blend call's loads lead its stores there. A
        // 16-bit call's loads run at twice its stores' byte rate, 2 KiB further by its end:
        // leads of 512 and 1024 bytes ran 16-bit vol_2x at 3.0-3.6 ms, 2048 and 3072 at
        // 5.8-9.7 ms (f32: 3.2-3.7 ms at any lead).
        constexpr uintptr_t page = jit_conf::kAliasPage, lead = 512;
        slot_bytes = (slot_bytes + page - 1) / page * page;
        slots += (reinterpret_cast<uintptr_t>(to) + lead - reinterpret_cast<uintptr_t>(slots)) & (page - 64);
        // The block's src bytes within a row: its first pixel's i0 tap to its last's i1 tap.
        int64_t src_lo, src_hi;
        std::memcpy(&src_lo, ws.ra.wtab, 8);
        std::memcpy(&src_hi, static_cast<const uint8_t *>(ws.ra.wtab) + (b.conf.OW - 1) * conf_.wtab_stride + 8, 8);
        src_hi += conf_.C * conf_.esize;
        const int64_t ih_n = prob().in[1];
        auto row = [&](int64_t q, int64_t id, int64_t ih) -> const uint8_t * {
            const int64_t k = src_row(o.plane, id, ih), s = 2 * q + (ih & 1);
            uint8_t *at = slots + s * slot_bytes;
            if (key[s] != k) {
                w_step(ws, x, k, at, b.wrow.get());
                key[s] = k;
                // The slice's next W step is of row ih + 1, a row or two oh on. A block reads
                // only 1-2 KiB of each src row, and rows 8 KiB or more apart (vol_2x) the
                // hardware prefetchers miss: prefetch that row's block now. bench_ab on the
                // Zen 3 dev VM, both shim orders, three sessions of it an hour apart: vol_2x
                // NXC f32 0.85-0.98x the time, f16 0.89-0.99x, bf16 0.97-1.03x (no change);
                // 2 threads f32 0.94x; 16x48x48 -> 32x96x96 C = 48 f32 from a cold cache
                // 0.92-0.93x.
                if (ih + 1 < ih_n) {
                    const uint8_t *next = x.src + (k + 1) * conf_.src_row_bytes, *end = next + src_hi;
                    for (const uint8_t *l = next + src_lo - (reinterpret_cast<uintptr_t>(next + src_lo) & 63); l < end; l += 64)
                        __builtin_prefetch(l, 0, 3);
                }
            }
            return at;
        };
        const auto fn = b.pair_nt->fn();
        for (int64_t oh = 0; oh < plane_rows; ++oh, to += conf_.dst_row_bytes) {
            const linear_tap &h = tables_.h.lin[oh];
            ba.w0 = h.w0;
            ba.w1 = h.w1;
            for (int64_t j = 0; j < g; ++j) {
                const linear_tap &ta = tables_.d.lin[o.od + 2 * j], &tb = tables_.d.lin[o.od + 2 * j + 1];
                ba.src = row(j, ta.i0, h.i0);
                ba.src_b = row(j, ta.i0, h.i1);
                ba.src_c = row(j + 1, ta.i1, h.i0);
                ba.src_d = row(j + 1, ta.i1, h.i1);
                ba.wd0 = ta.w0;
                ba.wd1 = ta.w1;
                ba.wb0 = tb.w0;
                ba.wb1 = tb.w1;
                uint8_t *d = to + 2 * j * plane_bytes;
                ba.dst = d;
                ba.dst_b = d + plane_bytes;
                fn(&ba);
            }
        }
    }

    void run_linear(int64_t r0, int64_t r1, const exec_ctx &x, uint8_t *scratch) const {
        const uint8_t *src = x.src;
        uint8_t *dst = x.dst;
        const bool nt = x.nt;
        const problem &p = prob();
        const size_t row_f32 = static_cast<size_t>(conf_.ow_pad) * 4;
        uint8_t *slots = scratch;
        uint8_t *hb = slots + conf_.n_slots * row_f32;  // fused k == 3: the two H results
        int64_t key[4] = {-1, -1, -1, -1};
        uint64_t stamp[4] = {0, 0, 0, 0}, clock = 0;
        const auto wpass = wpass_ ? wpass_->fn() : nullptr;         // fused k == 3: into scratch
        const auto wpass_final = pick(nt, wpass_, wpass_nt_);       // k == 1, or fused k == 2
        const auto blend_final = pick(nt, blend_final_, blend_final_nt_);
        const auto blend_pair = pick_pair(nt, blend_pair_, blend_pair_nt_);
        const int64_t plane_rows = p.out[1], plane_bytes = plane_rows * conf_.dst_row_bytes;
        w_step_args ws = w_step_setup(x);
        jit_pass_args &wa = ws.wa;  // k == 1 and the fused H steps use it directly
        // The W pass of src row k, from the LRU (n_slots = 2 * nd); `pin` holds the rows the
        // caller needs at the same time (k among them), which are never the victim. In a column
        // block (conf.d_cols) the slots hold that block's pixels (slot_bytes, the W step wk).
        using pins = std::array<int64_t, 4>;
        size_t slot_bytes = row_f32;
        const wrow_t *wk = nullptr;
        auto w_row = [&](int64_t k, const pins &pin) -> const uint8_t * {
            int victim = -1;
            for (int i = 0; i < conf_.n_slots; ++i) {
                if (key[i] == k) {
                    stamp[i] = ++clock;
                    return slots + i * slot_bytes;
                }
                const bool pinned = std::find(pin.begin(), pin.end(), key[i]) != pin.end();
                if (!pinned && (victim < 0 || stamp[i] < stamp[victim])) victim = i;
            }
            w_step(ws, x, k, slots + victim * slot_bytes, wk);
            key[victim] = k;
            stamp[victim] = ++clock;
            return slots + victim * slot_bytes;
        };
        // The four W rows the last blend read (rows_of): rows with the same H and D taps
        // (H upsampled) take them again without four LRU lookups, whose pin scans had cost
        // more than the blend of a short row: the sweep's 25x46x5 -> 7x330x2 NXC C = 30 f32
        // (rows of 2 pixels) 0.47x the time (bench_ab, Xeon dev VM), 20x40x4 -> 10x120x3
        // C = 16 0.85-0.98x; long rows even.
        pins cur = {-1, -1, -1, -1};
        // Column blocks: the slots' rows change width, so none is kept across a switch.
        auto use_block = [&](const cols_kernels *b, int64_t ow0) {
            std::fill(std::begin(key), std::end(key), -1);
            cur = {-1, -1, -1, -1};
            slot_bytes = b ? static_cast<size_t>(b->conf.ow_pad) * 4 : row_f32;
            wk = b ? b->wrow.get() : nullptr;
            ws.ra.wtab = tables_.wtab.data() + ow0 * conf_.wtab_stride;
        };
        jit_pass_args ba{};
        ba.flags = x.flags;
        row_id o = split(r0);
        for (int64_t r = r0; r < r1; ++r, step(o)) {
            uint8_t *out = dst + r * conf_.dst_row_bytes;
            if (p.k == 1) {
                wa.src = src + src_row(o.plane, 0, 0) * conf_.src_row_bytes;
                wa.dst = out;
                wpass_final(&wa);
                continue;
            }
            const linear_tap &th = tables_.h.lin[o.oh], &td = tables_.d.lin[o.od];
            auto key_of = [&](int64_t id, int64_t ih) { return src_row(o.plane, id, ih); };
            ba.w0 = th.w0;
            ba.w1 = th.w1;
            ba.wd0 = td.w0;
            ba.wd1 = td.w1;
            ba.dst = out;
            if (!conf_.fuse_h) {  // 3-D: four W rows from the LRU (2-D rows: run_rows_2d)
                auto rows_of = [&](const linear_tap &h) {
                    const pins pin = {key_of(td.i0, h.i0), key_of(td.i0, h.i1), key_of(td.i1, h.i0), key_of(td.i1, h.i1)};
                    if (pin == cur) return;  // ba.src .. src_d still point at them
                    cur = pin;
                    ba.src = w_row(pin[0], pin);
                    ba.src_b = w_row(pin[1], pin);
                    ba.src_c = w_row(pin[2], pin);
                    ba.src_d = w_row(pin[3], pin);
                };
                // A whole plane od that starts a D pair, with od + 1's whole plane in range:
                // both from one call per row (the same four W rows, each H step made once).
                // Column blocks take a chain of up to d_group such pairs (group_rows).
                const bool cols = conf_.d_cols && nt;  // NT pairs block by block (generate_cols)
                if ((blend_pair || cols) && o.oh == 0 && tables_.d_pair_start[o.od] && r + 2 * plane_rows <= r1) {
                    const int64_t g = cols ? group_len(o.od, r, r1) : 1;
                    if (cols) {  // block by block: d_cols pixels of every row, the last one the rest
                        const int64_t bytes_px = conf_.C * conf_.esize;
                        for (int64_t ow0 = 0; ow0 < conf_.OW; ow0 += conf_.d_cols) {
                            const cols_kernels &b = cols_[ow0 + conf_.d_cols >= conf_.OW && cols_[1].wrow ? 1 : 0];
                            use_block(&b, ow0);
                            group_rows(ws, x, ba, o, g, out + ow0 * bytes_px, b, slots, slot_bytes);
                        }
                        use_block(nullptr, 0);
                    } else {
                        const linear_tap &tb = tables_.d.lin[o.od + 1];
                        ba.wb0 = tb.w0;
                        ba.wb1 = tb.w1;
                        uint8_t *to = out;
                        for (int64_t oh = 0; oh < plane_rows; ++oh, to += conf_.dst_row_bytes) {
                            const linear_tap &h = tables_.h.lin[oh];
                            rows_of(h);
                            ba.w0 = h.w0;
                            ba.w1 = h.w1;
                            ba.dst = to;
                            ba.dst_b = to + plane_bytes;
                            blend_pair(&ba);
                        }
                    }
                    r += 2 * g * plane_rows - 1;  // the loop's step then leaves the group's last od
                    o.od += 2 * g - 1;
                    o.oh = plane_rows - 1;
                    continue;
                }
                rows_of(th);
                blend_final(&ba);
                continue;
            }
            // Fused: one call per H step, W passes of both src rows included.
            auto fused_h = [&](int64_t id, void *to, bool final_out) {
                wa.src = src + key_of(id, th.i0) * conf_.src_row_bytes;
                wa.src_b = src + key_of(id, th.i1) * conf_.src_row_bytes;
                wa.dst = to;
                wa.w0 = th.w0;
                wa.w1 = th.w1;
                if (final_out) wpass_final(&wa);
                else wpass(&wa);
            };
            if (p.k == 2) {
                fused_h(0, out, true);
                continue;
            }
            fused_h(td.i0, hb, false);
            fused_h(td.i1, hb + row_f32, false);
            ba.src = hb;  // the D step of the two H results
            ba.src_b = hb + row_f32;
            ba.w0 = td.w0;
            ba.w1 = td.w1;
            blend_final(&ba);
        }
    }
};

}  // namespace

std::shared_ptr<kernel> make_pass_kernel(const problem &p, kernel_isa isa, jit_conf conf) {
    switch (isa.generator()) {
        case cpu_isa::avx2: return std::make_shared<jit_ncx_kernel<cpu_isa::avx2>>(p, isa, std::move(conf));
        case cpu_isa::avx512_core: return std::make_shared<jit_ncx_kernel<cpu_isa::avx512_core>>(p, isa, std::move(conf));
        case cpu_isa::avx512_core_bf16:
            return std::make_shared<jit_ncx_kernel<cpu_isa::avx512_core_bf16>>(p, isa, std::move(conf));
        default: break;
    }
    throw error(status::unimplemented, std::string("jit: no kernels for ") + cpu_isa_name(isa.tier));
}

}  // namespace detail
}  // namespace xinterp
