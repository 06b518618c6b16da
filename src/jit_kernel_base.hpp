// What every JIT driver shares (src/jit_drivers.cpp: the NXC row driver; src/jit_pass_driver.cpp:
// the separable pass driver): the conf, the tables, the code arena, the per-thread loop over
// output rows, and the NT choice. Internal to the library.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "../jit/jit_conf.hpp"
#include "../jit/jit_generator.hpp"
#include "../jit/jit_io.hpp"
#include "../jit/jit_tables.hpp"
#include "bf16_scan.hpp"
#include "kernel.hpp"
#include "numeric.hpp"

namespace xinterp {
namespace detail {

inline kernel::code_part part(const char *role, const jit_io &g) { return {role, g.getCode(), g.getSize(), g.text_size()}; }

// The part every driver shares: conf, tables, and the per-thread loop.
class jit_kernel_base : public kernel {
public:
    // conf: make_jit_conf(p, isa), computed once by the dispatcher that picked the driver.
    jit_kernel_base(const problem &p, kernel_isa isa, jit_conf conf) : kernel(p, isa), conf_(std::move(conf)) {
        if (!conf_.ok) throw error(status::unimplemented, "jit: " + conf_.why_not);
        tables_ = make_jit_tables(p, conf_);
    }

    size_t generated_functions() const override { return arena_.blocks(); }
    std::vector<std::string> plan() const override { return describe_plan(conf_); }

    // Per-thread scratch, kept across executions so that small problems allocate nothing. It
    // starts on a 64-byte line: the W rows in it are read and written in whole vectors, which
    // from malloc's 16-byte alignment would span two lines every other load.
    // And it starts half a page past dst_at (the address of the thread's first dst byte) in
    // address bits 11:0 (jit_conf::kAliasPage). The blends load W rows in the same loop that
    // stores dst, and a load whose bits 11:0 match a store still in the store queue waits for
    // it (4K aliasing); NT stores stay queued until their write-combining buffer drains to
    // DRAM. W rows that trailed the dst by under ~1 KiB in those bits stalled every load: on
    // the Zen 3 dev VM, vol_2x NXC linear f32 (W rows in column blocks, all on one residue mod
    // 4 KiB) took 3.7-4.0 ms with its W rows 0-3 KiB ahead of the dst, 5.5 ms 576 bytes
    // behind, 14 ms 320 behind and 55 ms 64 behind; vol_2x NCX (W-planes of 512-byte rows)
    // 3.8 ms 2 KiB ahead, 4.3 ms on the dst's residue, 8.7 ms 128 behind, 15.5 ms 64 behind.
    // Where the scratch landed was malloc's choice, so a kernel moved by those factors from
    // one process to the next.
    static uint8_t *thread_scratch(int64_t bytes, uintptr_t dst_at) {
        constexpr uintptr_t page = jit_conf::kAliasPage;
        thread_local std::vector<uint8_t> buf;
        const size_t need = static_cast<size_t>(bytes) + page;
        if (buf.size() < need) buf.resize(need);
        const uintptr_t p = reinterpret_cast<uintptr_t>(buf.data());
        const uintptr_t want = (dst_at + page / 2) & (page - 64);
        return buf.data() + ((want - p) & (page - 1));
    }

protected:
    jit_conf conf_;
    jit_tables tables_;
    // Every part's code, in one mapping: derived constructors generate inside an arena_scope
    // and seal() when done. Declared here so it outlives the derived classes' generators.
    // Room for the largest kernel, the NXC driver's six 16 KiB parts (row, row_pair, row_same
    // and their NT variants), with a spare; only the pages code is written to get backed.
    code_arena arena_{size_t(7) * 16 * 1024};

    // The threads for_thread_ranges runs on. Threads only pay off past conf.par_min_bytes of
    // traffic (64 KiB; flat volumes, which gather every tap, 12 KiB, nearest ones 32 KiB);
    // below that one thread does it all, without entering a parallel region. Kernels whose
    // rows split into spans (conf.span_units) count units, so one row (1-D) takes them all,
    // from kSpanMinBytes of dst: below it more threads than rows lost on the dev VM (2 threads,
    // bench_sweep against whole rows: 1-D NXC nearest 144 -> 58 C = 82, 19 KB of dst, 0.6 ->
    // 1.2 us; 888 -> 126 C = 114, 57 KB, 1.5 -> 2.3 us; even at 116 and 148 KB; 956 -> 1695
    // C = 88, 597 KB, 17 -> 10 us).
    static constexpr size_t kSpanMinBytes = size_t(128) << 10;
    int exec_threads() const {
        const problem &p = prob();
        const bool by_units = conf_.span_units > 0 && p.dst_bytes >= kSpanMinBytes;
        const int64_t units = by_units ? conf_.rows * conf_.span_units : conf_.rows;
        const bool par = units > 1 && p.src_bytes + p.dst_bytes > static_cast<size_t>(conf_.par_min_bytes);
        return par ? static_cast<int>(std::min<int64_t>(omp_get_max_threads(), units)) : 1;
    }

    // Whether nthr threads share the rows' units rather than the rows (conf.span_units):
    // where they do not divide the rows evenly and there are fewer than kSpanRows a thread,
    // whole-row ranges would leave one thread a row more than another (3 rows on 2 threads:
    // 2 against 1; 1 row: one thread idles).
    static constexpr int64_t kSpanRows = 16;
    bool spans_now(int nthr) const {
        const int64_t rows = conf_.rows;
        return conf_.span_units > 0 && nthr > 1 && rows % nthr != 0 && rows < kSpanRows * nthr;
    }

    // Calls body(first_row, end_row, scratch) once per thread on a contiguous range of output
    // rows (contiguous so that row caches see neighbouring rows), with the default MXCSR. The
    // scratch is placed against the thread's first dst row (thread_scratch). Where spans_now,
    // each thread takes an equal contiguous share of the units instead: a partial row at
    // either end of it goes to span(row, first_unit, n_units, scratch), the whole rows between
    // to body.
    template <typename F, typename S = std::nullptr_t>
    void for_thread_ranges(const void *dst, F &&body, S &&span = nullptr) const {
        const int64_t rows = conf_.rows;
        const int nthr = exec_threads();
        const uintptr_t dst_at = reinterpret_cast<uintptr_t>(dst);
        if (nthr == 1) {
            mxcsr_guard guard;
            body(0, rows, thread_scratch(conf_.scratch_bytes, dst_at));
            store_fence();
            return;
        }
        constexpr bool has_span = !std::is_same<std::decay_t<S>, std::nullptr_t>::value;
        const int64_t per_row = has_span && spans_now(nthr) ? conf_.span_units : 1, units = rows * per_row;
        // No exception may leave a parallel region: a thread that cannot get its scratch
        // skips its rows, and the failure is reported after the region.
        std::atomic<bool> oom{false};
#pragma omp parallel num_threads(nthr)
        {
            mxcsr_guard guard;
            const int t = omp_get_thread_num(), n = omp_get_num_threads();
            const int64_t u0 = share_start(units, t, n, per_row), u1 = share_start(units, t + 1, n, per_row);
            uint8_t *scratch = nullptr;
            try {
                scratch = thread_scratch(conf_.scratch_bytes, dst_at + static_cast<uintptr_t>(u0 / per_row * conf_.dst_row_bytes));
            } catch (const std::bad_alloc &) {
                oom = true;
            }
            if constexpr (has_span) {
                if (scratch && per_row > 1) by_spans(u0, u1, body, span, scratch);
                else if (scratch) body(u0, u1, scratch);
            } else if (scratch) {
                body(u0, u1, scratch);
            }
            store_fence();
        }
        if (oom) throw std::bad_alloc();
    }

    // Where thread t of n starts in units rows of per_row each: an equal share, a span's start
    // within its row rounded down to where one may start (span_cut).
    int64_t share_start(int64_t units, int64_t t, int64_t n, int64_t per_row) const {
        const int64_t u = units * t / n, x = u % per_row;
        return per_row > 1 ? u - x + span_cut(conf_, x) : u;
    }

    // Units [p0, p1), rows of conf.span_units: a span at either end, the whole rows between.
    template <typename F, typename S>
    void by_spans(int64_t p0, int64_t p1, F &body, S &span, uint8_t *scratch) const {
        const int64_t ow = conf_.span_units;
        if (p0 >= p1) return;  // a share that grain rounding emptied
        if (p0 % ow != 0) {
            const int64_t r = p0 / ow, end = std::min(p1, (r + 1) * ow);
            span(r, p0 % ow, end - p0, scratch);
            p0 = end;
        }
        if (p0 >= p1) return;
        const int64_t r0 = p0 / ow, r1 = p1 / ow;  // p0 starts a row
        if (r1 > r0) body(r0, r1, scratch);
        if (p1 % ow != 0) span(r1, int64_t(0), p1 % ow, scratch);
    }

    // NT stores are weakly ordered: one fence per thread publishes them before execute
    // returns (a fence per row call would drain the write-combining buffers every 256 bytes).
    static void store_fence() { __asm__ volatile("sfence" ::: "memory"); }

    // The NT variant's function when this execution uses NT stores and it exists, else the
    // regular one's (nullptr where neither was generated).
    template <typename G>
    static typename G::fn_t pick(bool nt, const std::unique_ptr<G> &regular, const std::unique_ptr<G> &nt_variant) {
        const std::unique_ptr<G> &g = nt && nt_variant ? nt_variant : regular;
        return g ? g->fn() : nullptr;
    }
    // A pair kernel's function for this execution: its NT variant with NT stores; a pair kernel
    // without one serves only executions with plain stores (nullptr: their rows go singly).
    template <typename G>
    static typename G::fn_t pick_pair(bool nt, const std::unique_ptr<G> &regular, const std::unique_ptr<G> &nt_variant) {
        return nt && !nt_variant ? nullptr : pick(nt, regular, nt_variant);
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

    // This execution's kFlag* bits (jit_conf.hpp). kFlagBf16Clean where the kernel rounds bf16
    // in integer code (no native VCVTNEPS2BF16) and one pass over src finds it clean. Not where
    // src is larger than dst: downsampling reads a fraction of src, and the pass would cost
    // more than the fixups it saves.
    // The pass runs on the threads the kernel will use, so it does not eat into their scaling.
    int64_t exec_flags(const void *src) const {
        const problem &p = prob();
        if (tables_.bf16_clean_lo == 0 || p.src_bytes > p.dst_bytes) return 0;  // lo 0: not bf16 linear, or native rounding
        const uint16_t *words = static_cast<const uint16_t *>(src);
        const size_t n = p.src_bytes / 2;
        const uint16_t lo = tables_.bf16_clean_lo, hi = tables_.bf16_clean_hi;
        const int nthr = n >= (size_t(256) << 10) ? omp_get_max_threads() : 1;  // >= 512 KiB of src
        std::atomic<bool> clean{true};
        if (nthr == 1) {
            clean = bf16_magnitudes_within(words, n, lo, hi);
        } else {
#pragma omp parallel num_threads(nthr)
            {
                const size_t t = static_cast<size_t>(omp_get_thread_num()), k = static_cast<size_t>(omp_get_num_threads());
                const size_t b = n * t / k, e = n * (t + 1) / k;
                if (!bf16_magnitudes_within(words + b, e - b, lo, hi)) clean = false;
            }
        }
        if (!clean) return 0;
        count_bf16_clean_execution();
        return kFlagBf16Clean;
    }

    // Whether this execution may use the NT variant: built, dst aligned to a full vector, and
    // NT-sized for the threads it runs on.
    bool use_nt(const void *dst) const {
        return conf_.nt_eligible && reinterpret_cast<uintptr_t>(dst) % static_cast<uintptr_t>(conf_.simd_w * 4) == 0 &&
               nt_wanted();
    }
    // Whether NT stores pay for this execution's dst on its threads (nt_pays); the NT variants
    // and the stream copy exist only where they pay on one thread.
    bool nt_wanted() const { return nt_pays(prob(), exec_threads()); }
};

// The separable pass driver (src/jit_pass_driver.cpp), for NCX, small-C NXC and separable NXC.
std::shared_ptr<kernel> make_pass_kernel(const problem &p, kernel_isa isa, jit_conf conf);

}  // namespace detail
}  // namespace xinterp
