#include "bf16_scan.hpp"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace xinterp {
namespace detail {

// 16 words per step, 7 instructions: far under the cost of the kernels' fixups it lets them
// skip (9 instructions per 16 outputs, and there are 2-8 outputs per src value where the scan
// runs). Checks the running result every 4 KiB, so a dirty tensor stops early.
__attribute__((target("avx2"))) bool bf16_magnitudes_within(const uint16_t *p, size_t n, uint16_t lo, uint16_t hi) {
    // Signed 16-bit compares are exact: magnitudes are at most 0x7fff.
    const __m256i mag = _mm256_set1_epi16(0x7fff), zero = _mm256_setzero_si256();
    const __m256i vlo = _mm256_set1_epi16(static_cast<int16_t>(lo)), vhi = _mm256_set1_epi16(static_cast<int16_t>(hi));
    size_t i = 0;
    while (i + 16 <= n) {
        __m256i bad = zero;
        for (const size_t end = std::min(n, i + 2048) / 16 * 16; i < end; i += 16) {
            const __m256i t = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i)), mag);
            const __m256i small = _mm256_andnot_si256(_mm256_cmpeq_epi16(t, zero), _mm256_cmpgt_epi16(vlo, t));
            bad = _mm256_or_si256(bad, _mm256_or_si256(small, _mm256_cmpgt_epi16(t, vhi)));
        }
        if (!_mm256_testz_si256(bad, bad)) return false;
    }
    for (; i < n; ++i) {  // memcpy: src may be misaligned (any byte address is accepted)
        uint16_t w;
        std::memcpy(&w, reinterpret_cast<const uint8_t *>(p) + 2 * i, 2);
        const uint16_t t = w & 0x7fff;
        if (t != 0 && (t < lo || t > hi)) return false;
    }
    return true;
}

namespace {
std::atomic<uint64_t> g_clean_runs{0};
}  // namespace

void count_bf16_clean_execution() { g_clean_runs.fetch_add(1, std::memory_order_relaxed); }
uint64_t bf16_clean_executions_for_testing() { return g_clean_runs.load(std::memory_order_relaxed); }

}  // namespace detail
}  // namespace xinterp
