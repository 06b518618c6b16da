#include "jit_drivers.hpp"

#include <omp.h>

#include <cstring>
#include <vector>

#include "../jit/jit_conf.hpp"
#include "../jit/jit_interp_kernel.hpp"
#include "../jit/jit_ncx_kernels.hpp"
#include "../jit/jit_tables.hpp"
#include "numeric.hpp"

namespace xinterp {
namespace {

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

    // Calls body(first_row, end_row, scratch) once per thread on a contiguous range of output
    // rows (contiguous so that row caches see neighbouring rows), with the default MXCSR.
    template <typename F>
    void for_thread_ranges(F &&body) const {
        const problem &p = prob();
        const int64_t rows = conf_.rows;
        // Threads only pay off past ~64 KiB of traffic; below that one thread does it all.
        const bool par = rows > 1 && (p.src_bytes + p.dst_bytes) > (64u << 10);
        const int nthr = par ? static_cast<int>(std::min<int64_t>(omp_get_max_threads(), rows)) : 1;
#pragma omp parallel num_threads(nthr)
        {
            mxcsr_guard guard;
            std::vector<uint8_t> scratch(static_cast<size_t>(conf_.scratch_bytes) + 64);
            const int t = omp_get_thread_num(), nt = omp_get_num_threads();
            body(rows * t / nt, rows * (t + 1) / nt, scratch.data());
        }
    }
};

// NXC: one row kernel call per output row (all channels of OW pixels).
class jit_nxc_kernel : public jit_kernel_base {
public:
    jit_nxc_kernel(const problem &p, cpu_isa isa) : jit_kernel_base(p, isa) {
        gen_ = std::make_unique<jit_interp_kernel<cpu_isa::avx2>>(conf_);
        gen_->generate();
    }
    const uint8_t *code() const override { return gen_->getCode(); }
    size_t code_size() const override { return gen_->getSize(); }
    size_t text_size() const override { return gen_->text_size(); }

    void execute(const void *src, void *dst) const override {
        if (prob().empty()) return;
        const auto fn = gen_->fn();
        for_thread_ranges([&](int64_t r0, int64_t r1, uint8_t *) {
            jit_args a{};
            a.wtab = tables_.wtab.data();
            for (int64_t r = r0; r < r1; ++r) {
                set_row(a, r, static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst));
                fn(&a);
            }
        });
    }

private:
    std::unique_ptr<jit_interp_kernel<cpu_isa::avx2>> gen_;

    void set_row(jit_args &a, int64_t r, const uint8_t *src, uint8_t *dst) const {
        const problem &p = prob();
        const int64_t oh = r % p.out[1];
        const int64_t od = (r / p.out[1]) % p.out[0];
        const int64_t n = r / (p.out[1] * p.out[0]);
        const uint8_t *base = src + n * p.in[0] * p.in[1] * conf_.src_row_bytes;
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

// NCX: separable passes. Output row r = (plane, od, oh). Linear rows are blends of W-pass rows
// of src rows (plane, id, ih), kept in a small per-thread LRU so each is computed once per run
// of neighbouring output rows. Nearest rows that repeat a src row are copied from the row
// before.
class jit_ncx_kernel : public jit_kernel_base {
public:
    using wpass_t = jit_ncx_wpass<cpu_isa::avx2>;
    using vblend_t = jit_ncx_vblend<cpu_isa::avx2>;

    jit_ncx_kernel(const problem &p, cpu_isa isa) : jit_kernel_base(p, isa) {
        const bool lin = p.algorithm == alg::linear;
        const bool wpass_is_final = !lin || p.k == 1;
        wpass_ = std::make_unique<wpass_t>(conf_, wpass_is_final);
        wpass_->generate();
        if (lin && p.k >= 2) {
            blend_final_ = std::make_unique<vblend_t>(conf_, true);
            blend_final_->generate();
        }
        if (lin && p.k == 3) {
            blend_row_ = std::make_unique<vblend_t>(conf_, false);
            blend_row_->generate();
        }
    }
    // The dump shows the W pass, where the interesting code is.
    const uint8_t *code() const override { return wpass_->getCode(); }
    size_t code_size() const override { return wpass_->getSize(); }
    size_t text_size() const override { return wpass_->text_size(); }

    void execute(const void *src, void *dst) const override {
        if (prob().empty()) return;
        for_thread_ranges([&](int64_t r0, int64_t r1, uint8_t *scratch) {
            if (prob().algorithm == alg::nearest)
                run_nearest(r0, r1, static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst), scratch);
            else
                run_linear(r0, r1, static_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst), scratch);
        });
    }

private:
    std::unique_ptr<wpass_t> wpass_;
    std::unique_ptr<vblend_t> blend_final_, blend_row_;

    struct row_id {
        int64_t plane, od, oh;
    };
    row_id split(int64_t r) const {
        const problem &p = prob();
        return {r / (p.out[0] * p.out[1]), (r / p.out[1]) % p.out[0], r % p.out[1]};
    }
    // Index of src row (plane, id, ih) among all src rows: its key and its offset / row bytes.
    int64_t src_row(int64_t plane, int64_t id, int64_t ih) const {
        const problem &p = prob();
        return (plane * p.in[0] + id) * p.in[1] + ih;
    }

    void run_nearest(int64_t r0, int64_t r1, const uint8_t *src, uint8_t *dst, uint8_t *scratch) const {
        jit_pass_args a{};
        a.tab = tables_.wtab.data();
        a.scratch = scratch;
        const auto fn = wpass_->fn();
        int64_t prev = -1;
        for (int64_t r = r0; r < r1; ++r) {
            const row_id o = split(r);
            const int64_t key = src_row(o.plane, tables_.d.nearest[o.od], tables_.h.nearest[o.oh]);
            uint8_t *out = dst + r * conf_.dst_row_bytes;
            if (key == prev) {  // the same src row as the row just written: a bit copy
                std::memcpy(out, out - conf_.dst_row_bytes, static_cast<size_t>(conf_.dst_row_bytes));
                continue;
            }
            a.src = src + key * conf_.src_row_bytes;
            a.dst = out;
            fn(&a);
            prev = key;
        }
    }

    void run_linear(int64_t r0, int64_t r1, const uint8_t *src, uint8_t *dst, uint8_t *scratch) const {
        const problem &p = prob();
        const size_t row_f32 = static_cast<size_t>(conf_.ow_pad) * 4;
        uint8_t *stage = scratch;
        uint8_t *slots = scratch + (conf_.stage ? conf_.iw_pad * 4 : 0);
        uint8_t *hb = slots + conf_.n_slots * row_f32;  // k == 3: the two H results
        int64_t key[4] = {-1, -1, -1, -1};
        uint64_t stamp[4] = {0, 0, 0, 0}, clock = 0;
        const auto wpass = wpass_->fn();
        jit_pass_args wa{};
        wa.tab = tables_.wtab.data();
        wa.scratch = stage;
        // The W pass of src row k, from the LRU; `keep` is the row the caller also needs now.
        auto w_row = [&](int64_t k, int64_t keep) -> const uint8_t * {
            int victim = -1;
            for (int i = 0; i < conf_.n_slots; ++i) {
                if (key[i] == k) {
                    stamp[i] = ++clock;
                    return slots + i * row_f32;
                }
                if (key[i] != keep && (victim < 0 || stamp[i] < stamp[victim])) victim = i;
            }
            wa.src = src + k * conf_.src_row_bytes;
            wa.dst = slots + victim * row_f32;
            wpass(&wa);
            key[victim] = k;
            stamp[victim] = ++clock;
            return slots + victim * row_f32;
        };
        jit_pass_args ba{};
        for (int64_t r = r0; r < r1; ++r) {
            const row_id o = split(r);
            uint8_t *out = dst + r * conf_.dst_row_bytes;
            if (p.k == 1) {
                wa.src = src + src_row(o.plane, 0, 0) * conf_.src_row_bytes;
                wa.dst = out;
                wpass(&wa);
                continue;
            }
            const linear_tap &th = tables_.h.lin[o.oh], &td = tables_.d.lin[o.od];
            // H step for D tap id: blend the W passes of rows (id, ih0) and (id, ih1).
            auto h_step = [&](int64_t id, void *to, bool final_out) {
                const int64_t k0 = src_row(o.plane, id, th.i0), k1 = src_row(o.plane, id, th.i1);
                ba.src = w_row(k0, k1);
                ba.src_b = w_row(k1, k0);
                ba.dst = to;
                ba.w0 = th.w0;
                ba.w1 = th.w1;
                (final_out ? blend_final_ : blend_row_)->fn()(&ba);
            };
            if (p.k == 2) {
                h_step(0, out, true);
                continue;
            }
            h_step(td.i0, hb, false);
            h_step(td.i1, hb + row_f32, false);
            ba.src = hb;
            ba.src_b = hb + row_f32;
            ba.dst = out;
            ba.w0 = td.w0;
            ba.w1 = td.w1;
            blend_final_->fn()(&ba);
        }
    }
};

}  // namespace

std::shared_ptr<kernel> make_jit_kernel(const problem &p, cpu_isa isa) {
    if (p.fmt == data_format::nxc) return std::make_shared<jit_nxc_kernel>(p, isa);
    return std::make_shared<jit_ncx_kernel>(p, isa);
}

}  // namespace xinterp
