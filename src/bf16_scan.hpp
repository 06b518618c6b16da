// The src check behind kFlagBf16Clean (jit/jit_conf.hpp): one pass over a bf16 tensor.
#pragma once
#include <cstddef>
#include <cstdint>

namespace xinterp {
namespace detail {

// Whether every bf16 word w of p[0, n) is zero (either sign) or has lo <= (w & 0x7fff) <= hi.
// AVX2: called only by JIT kernels, which need AVX2 to run at all.
bool bf16_magnitudes_within(const uint16_t *p, size_t n, uint16_t lo, uint16_t hi);

// Executions that found src clean and took kFlagBf16Clean (tests check a case took it).
void count_bf16_clean_execution();
uint64_t bf16_clean_executions_for_testing();

}  // namespace detail
}  // namespace xinterp
