// The drivers that run generated code: they own the tables and the generators, split output
// rows over OpenMP threads and call the kernels. Each output row is written by exactly one
// thread whatever the split, so the thread count never changes a bit.
#pragma once
#include <memory>

#include "kernel.hpp"

namespace xinterp {
std::shared_ptr<kernel> make_jit_kernel(const problem &p, kernel_isa isa);  // throws unimplemented
}  // namespace xinterp
