// The normalised, canonical form of an op_desc: everything a kernel depends on, nothing else.
// Spatial dims are padded to 3 (D, H, W) with leading 1s; `k` says how many are real.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "xinterp/xinterp.hpp"

namespace xinterp {

enum class alg { nearest, linear };  // linear/bilinear/trilinear are one algorithm

struct problem {
    data_type dt = data_type::f32;
    alg algorithm = alg::nearest;
    coordinate_transformation_mode ctm = coordinate_transformation_mode::half_pixel;
    data_format fmt = data_format::nxc;
    int k = 0;                         // spatial rank 1..3
    int64_t n = 0, c = 0;
    int64_t in[3] = {1, 1, 1};         // D, H, W
    int64_t out[3] = {1, 1, 1};

    // Derived, not part of identity.
    op_desc desc;  // as the user gave it
    std::vector<int64_t> src_dims, dst_dims;  // in data_format order
    size_t src_bytes = 0, dst_bytes = 0;

    bool operator==(const problem &o) const;
    bool operator!=(const problem &o) const { return !(*this == o); }
    bool empty() const { return n == 0 || c == 0; }
    // "f32 linear hp nxc 1x256x32x32->64x64": the descriptor as the dump and the log print it.
    std::string str() const;
};

size_t dt_size(data_type dt);
// The trailing spatial axes of 1 -> 1 (W, then H, then D; at most k): NCX kernels drop them
// (jit_drivers.cpp, unit_axes_view), and the W axis they see is the last one before them.
int trailing_unit_axes(const problem &p);

// Validates `d` and builds its problem (semantics.md, "Shapes"). Throws xinterp::error.
problem make_problem(const op_desc &d);
// The same problem with the dst spatial dims taken from a runtime s32 sizes tensor.
problem with_runtime_sizes(const problem &p, const int32_t *sizes, size_t sizes_len);

// What a kernel's code is generated for: the dispatched tier, whose instructions it may use,
// and whether an AVX-512 tier runs the 256-bit generators (ymm; cpu_isa_hints in
// src/cpu_isa.hpp). Everything keyed on code (the cache, kernel names, the hash) takes it. A
// bare cpu_isa converts to its tier at the tier's own width.
struct kernel_isa {
    cpu_isa tier = cpu_isa::none;
    bool ymm = false;  // only ever set on AVX-512 tiers
    kernel_isa() = default;
    kernel_isa(cpu_isa t, bool y = false) : tier(t), ymm(y && t >= cpu_isa::avx512_core) {}  // NOLINT: implicit by design
    // The generator templates that emit the code: the 256-bit ones for avx2 and for ymm.
    cpu_isa generator() const { return ymm ? cpu_isa::avx2 : tier; }
    int vector_bits() const { return tier == cpu_isa::none ? 0 : generator() == cpu_isa::avx2 ? 256 : 512; }
    friend bool operator==(const kernel_isa &a, const kernel_isa &b) { return a.tier == b.tier && a.ymm == b.ymm; }
    friend bool operator!=(const kernel_isa &a, const kernel_isa &b) { return !(a == b); }
};

// 64-bit FNV-1a over every identity field, explicitly. `isa` is mixed in because it changes code.
uint64_t hash_problem(const problem &p, kernel_isa isa);

// A non-negative integer knob from the environment: `fallback` when unset or empty; a clear
// invalid_arguments error (naming the variable and the value) when it is anything else.
int64_t env_nonneg_int(const char *name, int64_t fallback);

}  // namespace xinterp
