#include "jit_drivers.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "../jit/jit_conf.hpp"
#include "../jit/jit_interp_kernel.hpp"
#include "../jit/jit_ncx_kernels.hpp"
#include "../jit/jit_tables.hpp"
#include "numeric.hpp"

namespace xinterp {
namespace {

kernel::code_part part(const char *role, const jit_io &g) { return {role, g.getCode(), g.getSize(), g.text_size()}; }

// The part every driver shares: conf, tables, and the per-thread loop.
class jit_kernel_base : public kernel {
public:
    jit_kernel_base(const problem &p, cpu_isa isa) : kernel(p, isa), conf_(make_jit_conf(p, isa)) {
        if (!conf_.ok) throw error(status::unimplemented, "jit: " + conf_.why_not);
        tables_ = make_jit_tables(p, conf_);
    }

protected:
    jit_conf conf_;
    jit_tables tables_;
    // Every part's code, in one mapping: derived constructors generate inside an arena_scope
    // and seal() when done. Declared here so it outlives the derived classes' generators.
    // Room for the largest kernel: 5 parts of at most 16 KiB (only touched pages are backed).
    code_arena arena_{size_t(6) * 16 * 1024};

    // Calls body(first_row, end_row, scratch) once per thread on a contiguous range of output
    // rows (contiguous so that row caches see neighbouring rows), with the default MXCSR.
    template <typename F>
    void for_thread_ranges(F &&body) const {
        const problem &p = prob();
        const int64_t rows = conf_.rows;
        // Threads only pay off past ~64 KiB of traffic; below that one thread does it all,
        // without entering a parallel region.
        const bool par = rows > 1 && (p.src_bytes + p.dst_bytes) > (64u << 10);
        const int nthr = par ? static_cast<int>(std::min<int64_t>(omp_get_max_threads(), rows)) : 1;
        if (nthr == 1) {
            mxcsr_guard guard;
            body(0, rows, thread_scratch(conf_.scratch_bytes));
            store_fence();
            return;
        }
        // No exception may leave a parallel region: a thread that cannot get its scratch
        // skips its rows, and the failure is reported after the region.
        std::atomic<bool> oom{false};
#pragma omp parallel num_threads(nthr)
        {
            mxcsr_guard guard;
            const int t = omp_get_thread_num(), n = omp_get_num_threads();
            uint8_t *scratch = nullptr;
            try {
                scratch = thread_scratch(conf_.scratch_bytes);
            } catch (const std::bad_alloc &) {
                oom = true;
            }
            if (scratch) body(rows * t / n, rows * (t + 1) / n, scratch);
            store_fence();
        }
        if (oom) throw std::bad_alloc();
    }

    // NT stores are weakly ordered: one fence per thread publishes them before execute
    // returns (a fence per row call would drain the write-combining buffers every 256 bytes).
    static void store_fence() { __asm__ volatile("sfence" ::: "memory"); }

    // Per-thread scratch, kept across executions so that small problems allocate nothing.
    static uint8_t *thread_scratch(int64_t bytes) {
        thread_local std::vector<uint8_t> buf;
        if (buf.size() < static_cast<size_t>(bytes) + 64) buf.resize(static_cast<size_t>(bytes) + 64);
        return buf.data();
    }

    // The NT variant's function when this execution uses NT stores and it exists, else the
    // regular one's (nullptr where neither was generated).
    template <typename G>
    static typename G::fn_t pick(bool nt, const std::unique_ptr<G> &regular, const std::unique_ptr<G> &nt_variant) {
        const std::unique_ptr<G> &g = nt && nt_variant ? nt_variant : regular;
        return g ? g->fn() : nullptr;
    }

    // Output row r = (plane, od, oh): plane is n (NXC) or n * C + c (NCX). Split once per
    // thread range, then stepped: three 64-bit divisions per row cost as much as a small row's
    // whole kernel call.
    struct row_id {
        int64_t plane, od, oh;
    };
    row_id split(int64_t r) const {
        const problem &p = prob();
        return {r / (p.out[0] * p.out[1]), (r / p.out[1]) % p.out[0], r % p.out[1]};
    }
    void step(row_id &o) const {
        const problem &p = prob();
        if (++o.oh < p.out[1]) return;
        o.oh = 0;
        if (++o.od < p.out[0]) return;
        o.od = 0;
        ++o.plane;
    }

    // Whether this execution may use the NT variant: built, and dst aligned to a full vector.
    bool use_nt(const void *dst) const {
        return conf_.nt_eligible && reinterpret_cast<uintptr_t>(dst) % static_cast<uintptr_t>(conf_.simd_w * 4) == 0;
    }
};

// NXC: one row kernel call per output row (all channels of OW pixels).
template <cpu_isa kIsa>
class jit_nxc_kernel : public jit_kernel_base {
public:
    jit_nxc_kernel(const problem &p, cpu_isa isa) : jit_kernel_base(p, isa) {
        {
            arena_scope in(arena_);
            gen_ = std::make_unique<gen_t>(conf_, false);
            gen_->generate();
            if (conf_.nt_eligible) {
                gen_nt_ = std::make_unique<gen_t>(conf_, true);
                gen_nt_->generate();
            }
        }
        arena_.seal();
    }
    std::vector<code_part> parts() const override {
        std::vector<code_part> v{part("row", *gen_)};
        if (gen_nt_) v.push_back(part("row_nt", *gen_nt_));
        return v;
    }

    void execute(const void *src, void *dst) const override {
        if (prob().empty()) return;
        const bool nt = use_nt(dst);
        const auto fn = pick(nt, gen_, gen_nt_);
        const bool nearest = prob().algorithm == alg::nearest;
        for_thread_ranges([&](int64_t r0, int64_t r1, uint8_t *) {
            jit_args a{};
            a.wtab = tables_.wtab.data();
            const void *prev = nullptr;
            row_id o = split(r0);
            for (int64_t r = r0; r < r1; ++r, step(o)) {
                set_row(a, r, o, static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst));
                // Nearest: a row with the previous row's src row is a copy of it, straight from
                // cache, unless that row went out with NT stores (then it is in DRAM). A/B here:
                // bf16 8x up 0.66x the time of regenerating it, f32 0.84-0.99x.
                if (nearest && !nt && a.src[0] == prev) {
                    std::memcpy(a.dst, static_cast<const uint8_t *>(a.dst) - conf_.dst_row_bytes, static_cast<size_t>(conf_.dst_row_bytes));
                    continue;
                }
                prev = a.src[0];
                fn(&a);
            }
        });
    }

private:
    using gen_t = jit_interp_kernel<kIsa>;
    std::unique_ptr<gen_t> gen_, gen_nt_;

    void set_row(jit_args &a, int64_t r, const row_id &o, const uint8_t *src, uint8_t *dst) const {
        const problem &p = prob();
        const int64_t oh = o.oh, od = o.od;
        const uint8_t *base = src + o.plane * p.in[0] * p.in[1] * conf_.src_row_bytes;
        a.dst = dst + r * conf_.dst_row_bytes;
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

// Separable passes, for NCX, for NXC with C < simd_w (whose rows are flat W*C element rows,
// see jit_conf), and for NXC linear with shared src rows (conf.nxc_separable: the W step comes
// from the NXC row kernel, the blends are the same). Output row r = (plane, od, oh). Linear
// rows are blends of W-pass rows of src rows (plane, id, ih), kept in a small per-thread LRU
// so each is computed once per run of neighbouring output rows. Nearest rows that repeat a src
// row are copied from the row before.
template <cpu_isa kIsa>
class jit_ncx_kernel : public jit_kernel_base {
public:
    using wpass_t = jit_ncx_wpass<kIsa>;
    using vblend_t = jit_ncx_vblend<kIsa>;

    using wrow_t = jit_interp_kernel<kIsa>;

    jit_ncx_kernel(const problem &p, cpu_isa isa) : jit_kernel_base(p, isa) {
        {
            arena_scope in(arena_);
            generate_parts(p);
        }
        arena_.seal();
    }

    void generate_parts(const problem &p) {
        const bool lin = p.algorithm == alg::linear;
        const bool fused = conf_.fuse_h;
        // The W pass writes the result for nearest, 1-D linear, and fused 2-D linear.
        const bool wpass_is_final = !lin || p.k == 1 || (fused && p.k == 2);
        if (conf_.nxc_separable) {  // the NXC row kernel makes the W-step rows
            wrow_ = std::make_unique<wrow_t>(conf_, false, true);
            wrow_->generate();
        } else {
            wpass_ = std::make_unique<wpass_t>(conf_, wpass_is_final, false, fused, conf_.plane_mode);
            wpass_->generate();
        }
        if (wpass_ && wpass_is_final && conf_.nt_eligible) {
            wpass_nt_ = std::make_unique<wpass_t>(conf_, true, true, fused, conf_.plane_mode);
            wpass_nt_->generate();
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
        }
    }
    std::vector<code_part> parts() const override {
        const bool fused = conf_.fuse_h;
        const bool plane = conf_.plane_mode;
        std::vector<code_part> v{wrow_ ? part("wrow", *wrow_)
                                       : part(fused ? "whpass" : plane ? "wplane" : "wpass", *wpass_)};
        if (wpass_nt_) v.push_back(part(fused ? "whpass_nt" : "wpass_nt", *wpass_nt_));
        const std::string blend = std::string(plane ? "plane_" : "") + (prob().k == 3 && !fused ? "blend_hd" : "blend");
        // (nearest plane mode: the W pass is the whole kernel, "wplane")
        if (blend_final_) v.push_back(part(blend.c_str(), *blend_final_));
        if (blend_final_nt_) v.push_back(part((blend + "_nt").c_str(), *blend_final_nt_));
        return v;
    }

    void execute(const void *src, void *dst) const override {
        if (prob().empty()) return;
        const bool nt = use_nt(dst);
        for_thread_ranges([&](int64_t r0, int64_t r1, uint8_t *scratch) {
            if (prob().algorithm == alg::nearest)
                run_nearest(r0, r1, static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst), scratch, nt);
            else if (conf_.plane_mode && conf_.fuse_h)
                run_fused_planes(r0, r1, static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst), scratch, nt);
            else if (conf_.plane_mode)
                run_planes(r0, r1, static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst), scratch, nt);
            else
                run_linear(r0, r1, static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst), scratch, nt);
        });
    }

private:
    std::unique_ptr<wpass_t> wpass_, wpass_nt_;
    std::unique_ptr<wrow_t> wrow_;
    std::unique_ptr<vblend_t> blend_final_, blend_final_nt_;

    // Index of src row (plane, id, ih) among all src rows: its key and its offset / row bytes.
    int64_t src_row(int64_t plane, int64_t id, int64_t ih) const {
        const problem &p = prob();
        return (plane * p.in[0] + id) * p.in[1] + ih;
    }

    void run_nearest(int64_t r0, int64_t r1, const uint8_t *src, uint8_t *dst, uint8_t *scratch, bool nt) const {
        jit_pass_args a{};
        a.tab = tables_.wtab.data();
        a.scratch = scratch;
        const auto fn = pick(nt, wpass_, wpass_nt_);
        if (conf_.plane_mode) {  // one call per run of rows within a (plane, od)
            row_id o = split(r0);
            for (int64_t r = r0; r < r1;) {
                const int64_t n = std::min(r1 - r, prob().out[1] - o.oh);
                a.src = src + src_row(o.plane, tables_.d.nearest[o.od], 0) * conf_.src_row_bytes;
                a.rtab = tables_.hrows.data() + o.oh * 8;
                a.dst = dst + r * conf_.dst_row_bytes;
                a.rows = n;
                fn(&a);
                r += n;
                o.oh = 0;
                if (++o.od == prob().out[0]) o.od = 0, ++o.plane;
            }
            return;
        }
        int64_t prev = -1;
        row_id o = split(r0);
        for (int64_t r = r0; r < r1; ++r, step(o)) {
            const int64_t key = src_row(o.plane, tables_.d.nearest[o.od], tables_.h.nearest[o.oh]);
            uint8_t *out = dst + r * conf_.dst_row_bytes;
            // The same src row as the row just written: a bit copy, unless that row went out
            // with NT stores (then it is in DRAM, and the W pass from the cached src is cheaper).
            if (key == prev && !nt) {
                std::memcpy(out, out - conf_.dst_row_bytes, static_cast<size_t>(conf_.dst_row_bytes));
                continue;
            }
            a.src = src + key * conf_.src_row_bytes;
            a.dst = out;
            fn(&a);
            prev = key;
        }
    }

    // Fused 2-D plane mode: output rows r0..r1 as runs within one plane, one call each.
    void run_fused_planes(int64_t r0, int64_t r1, const uint8_t *src, uint8_t *dst, uint8_t *scratch, bool nt) const {
        jit_pass_args a{};
        a.tab = tables_.wtab.data();
        a.scratch = scratch;
        const auto fn = pick(nt, wpass_, wpass_nt_);
        row_id o = split(r0);
        for (int64_t r = r0; r < r1;) {
            const int64_t n = std::min(r1 - r, prob().out[1] - o.oh);
            a.src = src + src_row(o.plane, 0, 0) * conf_.src_row_bytes;
            a.rtab = tables_.hrows.data() + o.oh * 24;
            a.dst = dst + r * conf_.dst_row_bytes;
            a.rows = n;
            fn(&a);
            r += n;
            o.oh = 0;
            ++o.plane;
        }
    }

    // Plane mode: output rows r0..r1 as runs within one (plane, od), each one blend call over
    // the W-planes of that plane's src D slices td.i0 and td.i1 (2-D: the plane's one slice),
    // which come from a per-thread LRU of n_wplanes W-planes.
    void run_planes(int64_t r0, int64_t r1, const uint8_t *src, uint8_t *dst, uint8_t *scratch, bool nt) const {
        const problem &p = prob();
        uint8_t *stage = scratch;
        uint8_t *planes = scratch + (conf_.stage ? conf_.iw_pad * 4 : 0);
        int64_t key[2] = {-1, -1};
        uint64_t stamp[2] = {0, 0}, clock = 0;
        jit_pass_args wa{};
        wa.tab = tables_.wtab.data();
        wa.scratch = stage;
        wa.rows = p.in[1];
        const auto wplane = wpass_->fn();
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
            wplane(&wa);
            key[victim] = k;
            stamp[victim] = ++clock;
            return planes + victim * conf_.wplane_bytes;
        };
        const auto blend = pick(nt, blend_final_, blend_final_nt_);
        jit_pass_args ba{};
        row_id o = split(r0);
        for (int64_t r = r0; r < r1;) {
            const int64_t n = std::min(r1 - r, p.out[1] - o.oh);  // rows left in this (plane, od)
            const linear_tap &td = tables_.d.lin[o.od];
            const int64_t k0 = o.plane * p.in[0] + td.i0, k1 = o.plane * p.in[0] + td.i1;
            ba.src = w_plane(o.plane, td.i0, k1);
            if (p.k == 3) ba.src_c = w_plane(o.plane, td.i1, k0);
            ba.wd0 = td.w0;
            ba.wd1 = td.w1;
            ba.tab = tables_.hrows.data() + o.oh * 24;
            ba.dst = dst + r * conf_.dst_row_bytes;
            ba.rows = n;
            blend(&ba);
            r += n;
            o.oh = 0;
            if (++o.od == p.out[0]) o.od = 0, ++o.plane;
        }
    }

    void run_linear(int64_t r0, int64_t r1, const uint8_t *src, uint8_t *dst, uint8_t *scratch, bool nt) const {
        const problem &p = prob();
        const size_t row_f32 = static_cast<size_t>(conf_.ow_pad) * 4;
        uint8_t *stage = scratch;
        uint8_t *slots = scratch + (conf_.stage ? conf_.iw_pad * 4 * (conf_.fuse_h ? 2 : 1) : 0);
        uint8_t *hb = slots + conf_.n_slots * row_f32;  // fused k == 3: the two H results
        int64_t key[4] = {-1, -1, -1, -1};
        uint64_t stamp[4] = {0, 0, 0, 0}, clock = 0;
        const auto wpass = wpass_ ? wpass_->fn() : nullptr;         // into scratch, or k == 1: dst
        const auto wpass_final = pick(nt, wpass_, wpass_nt_);       // k == 1, or fused k == 2
        const auto blend_final = pick(nt, blend_final_, blend_final_nt_);
        jit_pass_args wa{};
        wa.tab = tables_.wtab.data();
        wa.scratch = stage;
        jit_args ra{};  // separable NXC: the row kernel's W step
        ra.wtab = tables_.wtab.data();
        // The W pass of src row k, from the LRU (n_slots = 2 * nd); `pin` holds the rows the
        // caller needs at the same time (k among them), which are never the victim.
        using pins = std::array<int64_t, 4>;
        auto w_row = [&](int64_t k, const pins &pin) -> const uint8_t * {
            int victim = -1;
            for (int i = 0; i < conf_.n_slots; ++i) {
                if (key[i] == k) {
                    stamp[i] = ++clock;
                    return slots + i * row_f32;
                }
                const bool pinned = std::find(pin.begin(), pin.end(), key[i]) != pin.end();
                if (!pinned && (victim < 0 || stamp[i] < stamp[victim])) victim = i;
            }
            if (wrow_) {
                ra.src[0] = src + k * conf_.src_row_bytes;
                ra.dst = slots + victim * row_f32;
                wrow_->fn()(&ra);
            } else {
                wa.src = src + k * conf_.src_row_bytes;
                wa.dst = slots + victim * row_f32;
                wpass(&wa);
            }
            key[victim] = k;
            stamp[victim] = ++clock;
            return slots + victim * row_f32;
        };
        jit_pass_args ba{};
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
            if (!conf_.fuse_h) {  // blend W rows from the LRU: two (2-D) or four (3-D)
                const pins pin = {key_of(td.i0, th.i0), key_of(td.i0, th.i1), key_of(td.i1, th.i0), key_of(td.i1, th.i1)};
                ba.src = w_row(pin[0], pin);
                ba.src_b = w_row(pin[1], pin);
                if (p.k == 3) {
                    ba.src_c = w_row(pin[2], pin);
                    ba.src_d = w_row(pin[3], pin);
                }
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

template <cpu_isa kIsa>
std::shared_ptr<kernel> make_for(const problem &p) {
    if (jit_uses_pass_engine(p, kIsa) || jit_uses_separable_nxc(p, kIsa))
        return std::make_shared<jit_ncx_kernel<kIsa>>(p, kIsa);
    return std::make_shared<jit_nxc_kernel<kIsa>>(p, kIsa);
}

}  // namespace

std::shared_ptr<kernel> make_jit_kernel(const problem &p, cpu_isa isa) {
    switch (isa) {
        case cpu_isa::avx2: return make_for<cpu_isa::avx2>(p);
        case cpu_isa::avx512_core: return make_for<cpu_isa::avx512_core>(p);
        case cpu_isa::avx512_core_bf16: return make_for<cpu_isa::avx512_core_bf16>(p);
        default: break;
    }
    throw error(status::unimplemented, std::string("jit: no kernels for ") + cpu_isa_name(isa));
}

}  // namespace xinterp
