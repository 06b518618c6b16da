// xinterp: run-time generated x86 kernels for the Interpolate op (oneDNN Graph semantics).
// Public C++17 API. Semantics: docs/semantics (shared/spec/semantics.md in the repo).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace xinterp {

enum class data_type { f32, bf16, f16 };
// linear, bilinear and trilinear are one algorithm (separable linear over every spatial axis).
enum class mode { nearest, linear, bilinear, trilinear };
enum class coordinate_transformation_mode { half_pixel, align_corners };
enum class data_format { ncx, nxc };

enum class status { success = 0, invalid_arguments, unimplemented, out_of_memory, runtime_error };

// The one exception type the library throws. what() names the field and the offending value.
class error : public std::runtime_error {
public:
    error(status s, const std::string &msg) : std::runtime_error(msg), status_(s) {}
    status get_status() const noexcept { return status_; }

private:
    status status_;
};

// Which implementation a primitive_desc may pick. `any` takes the best JIT tier the CPU (and
// XINTERP_MAX_CPU_ISA / set_max_cpu_isa) allow, falling back to the reference.
enum class impl_kind { any, reference };

// The ISA ladder, lowest to highest. Each tier includes the ones below it.
enum class cpu_isa { none = 0, avx2, avx512_core, avx512_core_bf16, avx512_core_fp16, avx512_core_amx };

// Which vector width the AVX-512 tiers generate (oneDNN's ISA hints, plus the other side).
// prefer_ymm: the 256-bit generators, with the tier's EVEX instructions where they serve (bf16
// stores by VCVTNEPS2BF16 at avx512_core_bf16); prefer_zmm: the 512-bit ones; automatic:
// prefer_zmm, except where the host runs 512-bit operations on 256-bit units (AMD Zen 4): there
// 256 bits, but 512 for linear NCX problems with W rows of 16 or more src elements and W not
// downsampled (measured faster there). AVX2 is 256-bit either way. primitive_desc::
// vector_bits() says what a problem got.
enum class cpu_isa_hints { automatic = 0, prefer_ymm, prefer_zmm };

struct op_desc {
    std::vector<int64_t> src_dims;   // in data_format order: NCX = [N, C, X...], NXC = [N, X..., C]
    data_type dt = data_type::f32;
    xinterp::mode mode = xinterp::mode::nearest;
    coordinate_transformation_mode coordinate_transformation = coordinate_transformation_mode::half_pixel;
    data_format format = data_format::nxc;
    std::optional<std::vector<int64_t>> sizes;  // dst spatial dims; wins over scales
    std::optional<std::vector<float>> scales;   // dst = (int64)((float)src * scale)
};

struct problem;    // internal, normalised descriptor (src/problem.hpp)
class kernel;      // internal, a generated or reference kernel

class primitive_desc {
public:
    explicit primitive_desc(const op_desc &desc, impl_kind impl = impl_kind::any);

    const op_desc &desc() const;
    const std::vector<int64_t> &src_dims() const;
    const std::vector<int64_t> &dst_dims() const;
    size_t src_bytes() const;
    size_t dst_bytes() const;
    std::string impl_name() const;    // "jit:avx2", "ref", ...
    std::string kernel_name() const;  // the one name shared by dump, perf map and verbose log
    cpu_isa isa() const;              // cpu_isa::none for the reference
    int vector_bits() const;          // 256 or 512 (cpu_isa_hints); 0 for the reference

    // dst dims and bytes that execute(src, sizes, dst) would produce for this runtime sizes
    // tensor (s32, length = number of spatial dims). Throws on invalid sizes.
    std::vector<int64_t> dst_dims_for(const int32_t *sizes, size_t sizes_len) const;
    size_t dst_bytes_for(const int32_t *sizes, size_t sizes_len) const;

    // internal
    const std::shared_ptr<const problem> &get_problem() const { return prob_; }
    impl_kind requested_impl() const { return impl_; }
    bool runs_ymm() const { return ymm_; }  // an AVX-512 tier on the 256-bit generators

private:
    std::shared_ptr<const problem> prob_;
    impl_kind impl_;
    cpu_isa isa_;
    bool ymm_ = false;  // an AVX-512 tier on the 256-bit generators
};

class primitive {
public:
    explicit primitive(const primitive_desc &pd);

    // src and dst are dense buffers of src_bytes() and dst_bytes(). Nothing is written to dst
    // when an argument is invalid. src and dst must not overlap.
    void execute(const void *src, void *dst) const;
    // `sizes` is the op's optional input 1 (s32, length k): it sets dst's spatial dims for this call.
    void execute(const void *src, const int32_t *sizes, size_t sizes_len, void *dst) const;

    // Intel-syntax listing (address, bytes, instruction) headed by the kernel name, the
    // descriptor, the tier and the plan (the kernel's choices in words, one per line).
    std::string dump_asm() const;
    const primitive_desc &get_primitive_desc() const { return pd_; }

private:
    primitive_desc pd_;
    std::shared_ptr<const kernel> kernel_;
};

// ---- global knobs --------------------------------------------------------------------------
// Cap the dispatched ISA (same effect as XINTERP_MAX_CPU_ISA). Returns the previous cap.
cpu_isa set_max_cpu_isa(cpu_isa cap);
cpu_isa get_max_cpu_isa();
// The tier `impl_kind::any` dispatches to now (cpu_isa::none means the reference).
cpu_isa get_effective_cpu_isa();
// The AVX-512 tiers' vector width (same effect as XINTERP_CPU_ISA_HINTS=prefer_ymm|prefer_zmm|
// automatic), read when a primitive_desc is made. Returns the previous hints.
cpu_isa_hints set_cpu_isa_hints(cpu_isa_hints hints);
cpu_isa_hints get_cpu_isa_hints();
// The width primitive_descs at the effective tier get now, but for automatic's per-problem
// choice (above): 256 or 512 (0 without a JIT tier).
int get_effective_vector_bits();
const char *cpu_isa_hints_name(cpu_isa_hints hints);
const char *cpu_isa_name(cpu_isa isa);
cpu_isa cpu_isa_from_name(const std::string &name);  // throws invalid_arguments on unknown names

struct cache_stats {
    uint64_t hits = 0, misses = 0, evictions = 0, entries = 0, capacity = 0, generations = 0;
};
// Kernel cache capacity (XINTERP_CACHE_CAPACITY, default 1024; 0 disables caching).
void set_cache_capacity(size_t capacity);
size_t get_cache_capacity();
cache_stats get_cache_stats();
void clear_cache();

const char *version();
const char *to_string(data_type v);
const char *to_string(mode v);
const char *to_string(coordinate_transformation_mode v);
const char *to_string(data_format v);
const char *to_string(status v);

}  // namespace xinterp
