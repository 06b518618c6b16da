#pragma once
#include "problem.hpp"

namespace xinterp {
// The scalar oracle and fallback: every mode, transform, layout, rank and dtype, in the
// canonical evaluation order. Single-threaded on purpose: simple and obviously right.
void reference_execute(const problem &p, const void *src, void *dst);
}  // namespace xinterp
