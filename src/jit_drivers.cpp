#include "jit_drivers.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "../jit/jit_interp_kernel.hpp"
#include "../jit/jit_stream_copy.hpp"
#include "jit_kernel_base.hpp"

namespace xinterp {
namespace {

using detail::jit_kernel_base;
using detail::part;

// NXC: one row kernel call per output row (all channels of OW pixels).
template <cpu_isa kIsa>
class jit_nxc_kernel : public jit_kernel_base {
public:
    jit_nxc_kernel(const problem &p, kernel_isa isa, jit_conf conf) : jit_kernel_base(p, isa, std::move(conf)) {
        {
            arena_scope in(arena_);
            // A kind's regular variant, and its NT variant where dst is NT-sized.
            auto make = [&](pair_kind kind, std::unique_ptr<gen_t> &regular, std::unique_ptr<gen_t> *nt_variant) {
                regular = std::make_unique<gen_t>(conf_, false, false, kind);
                regular->generate();
                if (nt_variant && conf_.nt_eligible) {
                    *nt_variant = std::make_unique<gen_t>(conf_, true, false, kind);
                    (*nt_variant)->generate();
                }
            };
            make(pair_kind::none, gen_, &gen_nt_);
            if (conf_.nt_stream) {
                stream_ = std::make_unique<jit_stream_copy>(conf_.dst_row_bytes);
                stream_->generate();
            }
            if (conf_.copy_rows) {  // not glibc's memcpy (jit_stream_copy.hpp)
                copy_ = std::make_unique<jit_stream_copy>(conf_.dst_row_bytes, false);
                copy_->generate();
            }
            // Nearest pairs: plain stores only (jit_conf_stores.cpp); NT executions write rows singly.
            const bool nearest = p.algorithm == alg::nearest;
            if (conf_.row_pairs) make(pair_kind::chained, pair_, nearest ? nullptr : &pair_nt_);
            if (conf_.same_pairs) make(pair_kind::same_taps, same_, &same_nt_);
            // Runs of same-taps pairs: they write 2 * same_run rows at once, and interleaved NT
            // streams of partial lines ran slower than one (the 16-bit D pairs' first
            // measurements), so their NT variant exists only where every store is a whole
            // 64-byte line (conf.run_nt: 16-bit, C a multiple of 32).
            const auto &runs = tables_.h_run_start;
            if (conf_.same_run > 0 && std::find(runs.begin(), runs.end(), 1) != runs.end())
                make(pair_kind::same_run, run_, conf_.run_nt ? &run_nt_ : nullptr);
            // D pairs where dst is NT-sized (conf.pairs_nt): both rows with NT stores (the
            // measurements in jit_conf_stores.cpp, at d_pairs).
            if (conf_.d_pairs) make(pair_kind::d_same, dpair_, conf_.pairs_nt ? &dpair_nt_ : nullptr);
        }
        arena_.seal();
    }
    std::vector<code_part> parts() const override {
        std::vector<code_part> v{part("row", *gen_)};
        if (gen_nt_) v.push_back(part("row_nt", *gen_nt_));
        if (stream_) v.push_back(part("row_stream", *stream_));
        if (copy_) v.push_back(part("row_copy", *copy_));
        if (pair_) v.push_back(part("row_pair", *pair_));
        if (pair_nt_) v.push_back(part("row_pair_nt", *pair_nt_));
        if (dpair_) v.push_back(part("row_dpair", *dpair_));
        if (dpair_nt_) v.push_back(part("row_dpair_nt", *dpair_nt_));
        if (same_) v.push_back(part("row_same", *same_));
        if (run_) v.push_back(part("row_run", *run_));
        if (run_nt_) v.push_back(part("row_run_nt", *run_nt_));
        if (same_nt_) v.push_back(part("row_same_nt", *same_nt_));
        return v;
    }

    void execute(const void *src, void *dst) const override {
        if (prob().empty()) return;
        const bool nt = use_nt(dst);
        const auto fn = pick(nt, gen_, gen_nt_);
        const bool nearest = prob().algorithm == alg::nearest;
        const auto pair_fn = pick_pair(nt, pair_, pair_nt_);  // nearest pairs: plain stores only
        const auto same_fn = pick(nt, same_, same_nt_);
        const auto dpair_fn = dpair_ ? pick_pair(nt, dpair_, dpair_nt_) : nullptr;
        const auto run_fn = run_ ? pick_pair(nt, run_, run_nt_) : nullptr;  // NT: conf.run_nt only
        const int64_t run_rows = 2 * int64_t(conf_.same_run);
        const int64_t OH = prob().out[1];
        auto same_taps = [&](int64_t oh) {  // rows oh and oh + 1 read the same two src rows
            return tables_.h.lin[oh].same_taps(tables_.h.lin[oh + 1]);
        };
        // NT-sized for these threads (linear: stream_min_bytes, jit_conf.hpp)
        const bool stream_now = nearest ? nt_wanted() : prob().dst_bytes >= stream_min_bytes(exec_threads());
        const auto stream_fn = stream_ && stream_now ? stream_->fn() : nullptr;
        const auto copy_fn = copy_ ? copy_->fn() : nullptr;
        const int64_t rb = conf_.dst_row_bytes;
        const int64_t flags = exec_flags(src);
        for_thread_ranges(dst, [&](int64_t r0, int64_t r1, uint8_t *scratch) {
            jit_args a{};
            a.wtab = tables_.wtab.data();
            a.flags = flags;
            const void *prev = nullptr;
            // 3-D linear rows that cannot take aligned NT stores (conf.nt_stream): a call writes
            // its row, or its D pair's two (second: the pair's dst_b), into scratch, and the
            // stream copy takes them to dst.
            uint8_t *sbuf = scratch + conf_.stream_off;
            auto emit = [&](void (*f)(const jit_args *), uint8_t *second = nullptr) {
                if (nearest || !stream_fn) return f(&a);
                const jit_copy_args c0{sbuf, a.dst}, c1{sbuf + rb, second};
                a.dst = sbuf;
                a.dst_b = sbuf + rb;
                f(&a);
                stream_fn(&c0);
                if (second) stream_fn(&c1);
            };
            row_id o = split(r0);
            for (int64_t r = r0; r < r1; ++r, step(o)) {
                // 3-D D pairs: (od, oh) with (od + 1, oh), when both rows are in this range; the
                // second row is then skipped when the loop reaches it.
                if (dpair_fn) {
                    const int64_t step_od = OH;  // rows between (od, oh) and (od + 1, oh)
                    if (o.od > 0 && tables_.d_pair_start[o.od - 1] && r - step_od >= r0) continue;
                    if (tables_.d_pair_start[o.od] && r + step_od < r1) {
                        set_row(a, r, o, static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst));
                        uint8_t *second = static_cast<uint8_t *>(a.dst) + step_od * rb;
                        a.dst_b = second;
                        a.wd_b[0] = tables_.d.lin[o.od + 1].w0;
                        a.wd_b[1] = tables_.d.lin[o.od + 1].w1;
                        emit(dpair_fn, second);
                        continue;
                    }
                }
                set_row(a, r, o, static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst));
                // Nearest: two rows of one src row, one row-pair call.
                if (pair_fn && nearest && r + 1 < r1 && o.oh + 1 < OH &&
                    tables_.h.nearest[o.oh] == tables_.h.nearest[o.oh + 1]) {
                    pair_fn(&a);
                    ++r;
                    step(o);
                    continue;
                }
                // Linear: a run of same-taps pairs (fixed per kernel) that this range holds whole.
                if (run_fn && tables_.h_run_start[o.oh] && r + run_rows <= r1) {
                    a.wd[0] = tables_.h.lin[o.oh + 1].w0;
                    a.wd[1] = tables_.h.lin[o.oh + 1].w1;
                    run_fn(&a);
                    for (int64_t k = 1; k < run_rows; ++k, ++r) step(o);
                    continue;
                }
                // Linear: two rows with the same H taps, or else two whose taps chain, one row-pair
                // call. Same-taps pairs first (fewer W steps); a row that could only chain with the
                // next goes alone when the next can start a same-taps pair.
                if (same_fn && r + 1 < r1 && o.oh + 1 < OH && same_taps(o.oh)) {
                    a.wd[0] = tables_.h.lin[o.oh + 1].w0;
                    a.wd[1] = tables_.h.lin[o.oh + 1].w1;
                    same_fn(&a);
                    ++r;
                    step(o);
                    continue;
                }
                const bool next_same = same_fn && r + 2 < r1 && o.oh + 2 < OH && same_taps(o.oh + 1);
                if (pair_fn && !nearest && !next_same && r + 1 < r1 && o.oh + 1 < OH &&
                    tables_.h.lin[o.oh].i1 == tables_.h.lin[o.oh + 1].i0) {
                    const linear_tap &tb = tables_.h.lin[o.oh + 1];
                    a.src[2] = static_cast<const uint8_t *>(a.src[1]) + (tb.i1 - tb.i0) * conf_.src_row_bytes;
                    a.wd[0] = tb.w0;
                    a.wd[1] = tb.w1;
                    pair_fn(&a);
                    ++r;
                    step(o);
                    continue;
                }
                if (stream_fn && nearest) {  // the row once into scratch, then streamed to the rows that repeat it
                    // The rows from r with this row's H tap, in this range and (od, plane), as one
                    // region (whole lines across its rows; jit_stream_copy.hpp).
                    int64_t n = 1;
                    while (r + n < r1 && o.oh + n < OH && tables_.h.nearest[o.oh + n] == tables_.h.nearest[o.oh]) ++n;
                    const jit_copy_args ca{sbuf, a.dst, n};
                    if (a.src[0] != prev) {
                        a.dst = sbuf;
                        fn(&a);
                        prev = a.src[0];
                        std::memcpy(sbuf + rb, sbuf, 64);  // nt_stream rows are 64 bytes or more
                    }
                    stream_fn(&ca);
                    for (; n > 1; --n, ++r) step(o);
                    continue;
                }
                // Nearest: a row with the previous row's src row is a copy of it, straight from
                // cache (conf.copy_rows), unless that row went out with NT stores (then it is in
                // DRAM).
                if (copy_ && !nt && a.src[0] == prev) {
                    const jit_copy_args ca{static_cast<const uint8_t *>(a.dst) - conf_.dst_row_bytes, a.dst};
                    copy_fn(&ca);
                    continue;
                }
                prev = a.src[0];
                emit(fn);
            }
        }, [&](int64_t r, int64_t ow0, int64_t n, uint8_t *) {  // pixels [ow0, ow0 + n) of row r (conf.span_units)
            jit_args a{};
            a.flags = flags;
            set_row(a, r, split(r), static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst));
            a.wtab = tables_.wtab.data() + ow0 * conf_.wtab_stride;
            a.dst = static_cast<uint8_t *>(a.dst) + ow0 * conf_.c_bytes;
            a.px_count = n;
            // Narrow pixels: the span's last span_edge_px, and any in the row's edge, as edge
            // pixels (jit_conf::span_edge_px).
            const int64_t end = ow0 + n, edge_from = std::min(end - conf_.span_edge_px, conf_.OW - conf_.edge_px);
            a.px_edge = end - std::max(ow0, edge_from);
            fn(&a);
        });
    }

private:
    using gen_t = jit_interp_kernel<kIsa>;
    std::unique_ptr<gen_t> gen_, gen_nt_, pair_, pair_nt_, same_, same_nt_, dpair_, dpair_nt_, run_, run_nt_;
    std::unique_ptr<jit_stream_copy> stream_, copy_;

    void set_row(jit_args &a, int64_t r, const row_id &o, const uint8_t *src, uint8_t *dst) const {
        const problem &p = prob();
        const int64_t oh = o.oh, od = o.od;
        const uint8_t *base = src + o.plane * p.in[0] * p.in[1] * conf_.src_row_bytes;
        a.dst = dst + r * conf_.dst_row_bytes;
        a.px_count = conf_.OW;
        a.px_edge = conf_.edge_px;
        auto row = [&](int64_t id, int64_t ih) { return base + (id * p.in[1] + ih) * conf_.src_row_bytes; };
        if (p.algorithm == alg::nearest) {
            a.src[0] = row(tables_.d.nearest[od], tables_.h.nearest[oh]);
            return;
        }
        const linear_tap &td = tables_.d.lin[od], &th = tables_.h.lin[oh];
        const int64_t ids[2] = {td.i0, td.i1}, ihs[2] = {th.i0, th.i1};
        for (int d = 0; d < conf_.nd; ++d)
            for (int h = 0; h < conf_.nh; ++h) a.src[d * conf_.nh + h] = row(ids[d], ihs[h]);
        a.wh[0] = th.w0;
        a.wh[1] = th.w1;
        a.wd[0] = td.w0;
        a.wd[1] = td.w1;
    }
};

// The conf is made once here and decides the driver. k: the kernel's tier and width, whose
// generators are kIsa's (k.generator()).
template <cpu_isa kIsa>
std::shared_ptr<kernel> make_direct(const problem &p, kernel_isa k, bool unit_w) {
    jit_conf c = make_jit_conf(p, k, unit_w);
    if (c.ok && (c.pass_engine || c.nxc_separable)) return detail::make_pass_kernel(p, k, std::move(c));
    return std::make_shared<jit_nxc_kernel<kIsa>>(p, k, std::move(c));
}

// An NCX problem with spatial axes of 1 -> 1 at its end, computed as a cheaper problem over
// the same bytes. Its NCX rows would be 1 element each: a vector, with 7 (or 15) idle lanes,
// and a table record per output element (1 x 64 x 1000 x 1 -> 250 x 1 linear took 160 us
// against oneDNN's 32 us on the dev VM).
// - Every spatial axis 1 -> 1: the NXC problem N x 1.. x C. Per element it makes the same
//   steps from the same values (both taps of each axis on the same element, weights 1 and 0),
//   so the same bits, with vectors across C.
// - Otherwise the NCX problem without the trailing unit axes. Nearest copies element 0 of
//   each; linear makes their step on each tap in the W pass (jit_conf::unit_w).
// The kernel keeps p's name and descriptor (cache key, dump, log); runs_as names the other.
// A view may run another view (single_channel_view below): runs_as names the last problem.
class jit_view_kernel : public kernel {
public:
    jit_view_kernel(const problem &p, kernel_isa isa, std::shared_ptr<kernel> inner) : kernel(p, isa), inner_(std::move(inner)) {}
    void execute(const void *src, void *dst) const override { inner_->execute(src, dst); }
    std::vector<code_part> parts() const override { return inner_->parts(); }
    size_t generated_functions() const override { return inner_->generated_functions(); }
    std::vector<std::string> plan() const override { return inner_->plan(); }
    std::string runs_as() const override {
        const std::string further = inner_->runs_as();
        return further.empty() ? inner_->prob().str() : further;
    }

private:
    std::shared_ptr<kernel> inner_;
};

// The view of p (above), if it has one: the problem to run and whether its W pass takes the
// unit step.
// p's op (dtype, mode, transform) without dims: a view fills in its own.
op_desc op_of(const problem &p) {
    op_desc d;
    d.dt = p.dt;
    d.mode = p.algorithm == alg::linear ? mode::linear : mode::nearest;
    d.coordinate_transformation = p.ctm;
    return d;
}

bool unit_axes_view(const problem &p, problem &q, bool &unit_w) {
    if (p.fmt != data_format::ncx || p.empty()) return false;
    const int unit = trailing_unit_axes(p);
    if (unit == 0) return false;
    op_desc d = op_of(p);
    std::vector<int64_t> sizes;
    if (unit == p.k) {
        d.format = data_format::nxc;
        d.src_dims = {p.n};
        for (int i = 0; i < p.k; ++i) d.src_dims.push_back(1), sizes.push_back(1);
        d.src_dims.push_back(p.c);
        unit_w = false;
    } else {
        d.format = data_format::ncx;
        d.src_dims = {p.n, p.c};
        for (int i = 3 - p.k; i < 3 - unit; ++i) d.src_dims.push_back(p.in[i]), sizes.push_back(p.out[i]);
        unit_w = p.algorithm == alg::linear;
    }
    d.sizes = sizes;
    q = make_problem(d);
    return true;
}

// An NXC problem with C = 1 is the NCX problem N x 1 x X.. over the same bytes, with the same
// steps per element. NCX has two paths for rows of a few elements that NXC lacks: the unit-axis
// view above and the flat volumes (jit_conf::flat). Where either applies, linear p runs as NCX:
// on the dev VM (same build, alternating) 38x38x1 -> 91x16x1 linear took 12.2 us as NXC and
// 0.68 us as NCX (oneDNN: 9 us), 381x3 -> 142x1 1.2 and 0.35 us, bf16 alike (1 thread: under
// 64 KiB of traffic). Elsewhere linear runs the same rows either way (flat rows of W * 1
// elements against NCX rows), so NXC stays: 300x200 -> 100x50, 64x64 -> 128x128, 20x30x40 ->
// 10x15x20 and 1000 -> 250 ran within the noise of each other (2 threads). Nearest always
// runs as NCX: NXC rows of one channel would take the narrow-pixel copies (a pixel of 4 or 2
// bytes a copy) where W is downsampled. On the Sapphire Rapids class VM (xinterp bench, 1
// thread), NXC against NCX: 26x232 -> 85x23 3.1 and 0.9 us (oneDNN 2.2), 300x200 -> 100x50
// 8.2 and 3.8, 20x30x40 -> 10x15x20 4.1 and 1.6, 1000 -> 250 0.6 and 0.2; 64x64 -> 128x128
// 2.3 and 2.2.
bool single_channel_view(const problem &p, kernel_isa isa, problem &q) {
    if (p.fmt != data_format::nxc || p.c != 1 || p.empty()) return false;
    bool every_unit = true;
    for (int i = 3 - p.k; i < 3; ++i) every_unit &= p.in[i] == 1 && p.out[i] == 1;
    if (every_unit) return false;  // N elements: NCX would make them NXC again
    op_desc d = op_of(p);
    d.format = data_format::ncx;
    d.src_dims = {p.n, 1};
    std::vector<int64_t> sizes;
    for (int i = 3 - p.k; i < 3; ++i) d.src_dims.push_back(p.in[i]), sizes.push_back(p.out[i]);
    d.sizes = sizes;
    q = make_problem(d);
    problem unused;
    bool unit_w = false;
    // The flat volumes are linear with k >= 2 only: other linear problems skip making q's conf.
    return p.algorithm == alg::nearest || unit_axes_view(q, unused, unit_w) ||
           (p.k >= 2 && make_jit_conf(q, isa).flat);
}

template <cpu_isa kIsa>
std::shared_ptr<kernel> make_for(const problem &p, kernel_isa k) {
    problem q;
    bool unit_w = false;
    if (single_channel_view(p, k, q) && jit_can_serve(q, k, nullptr))
        return std::make_shared<jit_view_kernel>(p, k, make_for<kIsa>(q, k));
    if (unit_axes_view(p, q, unit_w) && jit_can_serve(q, k, nullptr))
        return std::make_shared<jit_view_kernel>(p, k, make_direct<kIsa>(q, k, unit_w));
    return make_direct<kIsa>(p, k, false);
}

}  // namespace

std::shared_ptr<kernel> make_jit_kernel(const problem &p, kernel_isa isa) {
    switch (isa.generator()) {
        case cpu_isa::avx2: return make_for<cpu_isa::avx2>(p, isa);
        case cpu_isa::avx512_core: return make_for<cpu_isa::avx512_core>(p, isa);
        case cpu_isa::avx512_core_bf16: return make_for<cpu_isa::avx512_core_bf16>(p, isa);
        default: break;
    }
    throw error(status::unimplemented, std::string("jit: no kernels for ") + cpu_isa_name(isa.tier));
}

}  // namespace xinterp
