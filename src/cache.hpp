// The kernel cache, keyed by the canonical problem plus the kernel ISA, tier and width
// (everything that changes the code; the thread split does not). Full keys are compared, so a
// hash collision can never return a wrong kernel. Generation runs outside the lock; concurrent
// requests for one key share a future, so a kernel is generated once. LRU eviction; capacity 0
// disables caching.
#pragma once
#include <cstdint>
#include <memory>

#include "kernel.hpp"

namespace xinterp {

using problem_hash_fn = uint64_t (*)(const problem &, kernel_isa);

std::shared_ptr<const kernel> cache_get_or_create(const problem &p, kernel_isa isa, bool *hit);
// Tests force collisions with this (nullptr restores hash_problem). It clears the cache.
void cache_set_hash_for_testing(problem_hash_fn fn);

}  // namespace xinterp
