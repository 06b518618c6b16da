// Shared test helpers: guard-paged buffers, random data per dtype, problem builders.
#pragma once
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "xinterp/xinterp.hpp"

namespace xt {

// `bytes` of memory between two PROT_NONE pages. With at_end the tensor ends exactly at the
// upper guard, so any access past its end faults; otherwise it starts `misalign` bytes after
// the lower guard, so any access before its start faults.
class guarded_buffer {
public:
    guarded_buffer(size_t bytes, bool at_end = true, size_t misalign = 0) : bytes_(bytes) {
        const size_t pg = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        const size_t data_pages = (bytes + misalign + pg - 1) / pg + 1;
        total_ = (data_pages + 2) * pg;
        base_ = static_cast<uint8_t *>(mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        if (base_ == MAP_FAILED) throw std::runtime_error("mmap failed");
        mprotect(base_, pg, PROT_NONE);
        mprotect(base_ + (data_pages + 1) * pg, pg, PROT_NONE);
        uint8_t *lo = base_ + pg, *hi = base_ + (data_pages + 1) * pg;
        ptr_ = at_end ? hi - bytes : lo + misalign;
    }
    ~guarded_buffer() { munmap(base_, total_); }
    guarded_buffer(const guarded_buffer &) = delete;
    guarded_buffer &operator=(const guarded_buffer &) = delete;
    uint8_t *data() { return ptr_; }
    size_t size() const { return bytes_; }

private:
    uint8_t *base_ = nullptr, *ptr_ = nullptr;
    size_t total_ = 0, bytes_ = 0;
};

inline uint32_t fbits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bitsf(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Independent of the library's conversions (these are the tests' own).
inline double widen(xinterp::data_type dt, const uint8_t *p, size_t i) {
    if (dt == xinterp::data_type::f32) { float f; std::memcpy(&f, p + 4 * i, 4); return f; }
    uint16_t h; std::memcpy(&h, p + 2 * i, 2);
    if (dt == xinterp::data_type::bf16) return bitsf(static_cast<uint32_t>(h) << 16);
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 0) return s * std::ldexp(m, -24);
    if (e == 31) return m ? NAN : s * INFINITY;
    return s * std::ldexp(1024 + m, e - 25);
}

// Finite random values in [-range, range], in the dtype's encoding.
inline void fill_random(xinterp::data_type dt, uint8_t *p, size_t n, uint32_t seed, float range = 4.f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-range, range);
    for (size_t i = 0; i < n; ++i) {
        const float f = u(rng);
        if (dt == xinterp::data_type::f32) {
            std::memcpy(p + 4 * i, &f, 4);
        } else if (dt == xinterp::data_type::bf16) {
            const uint16_t h = static_cast<uint16_t>(fbits(f) >> 16);  // truncation: any bf16 is fine
            std::memcpy(p + 2 * i, &h, 2);
        } else {
            // a random finite f16 (exponent < 31), sign and magnitude limited by range ~ 4
            uint16_t h = static_cast<uint16_t>(rng() & 0x83ff) | static_cast<uint16_t>((rng() % 17) << 10);
            std::memcpy(p + 2 * i, &h, 2);
        }
    }
}

inline size_t esize(xinterp::data_type dt) { return dt == xinterp::data_type::f32 ? 4 : 2; }

// A problem builder in the XNNPACK tester style.
struct problem_builder {
    xinterp::op_desc d;
    problem_builder() { d.sizes = std::vector<int64_t>{}; }
    problem_builder &src(std::vector<int64_t> v) { d.src_dims = std::move(v); return *this; }
    problem_builder &sizes(std::vector<int64_t> v) { d.sizes = std::move(v); d.scales.reset(); return *this; }
    problem_builder &scales(std::vector<float> v) { d.scales = std::move(v); d.sizes.reset(); return *this; }
    problem_builder &dt(xinterp::data_type v) { d.dt = v; return *this; }
    problem_builder &mode(xinterp::mode v) { d.mode = v; return *this; }
    problem_builder &ctm(xinterp::coordinate_transformation_mode v) { d.coordinate_transformation = v; return *this; }
    problem_builder &fmt(xinterp::data_format v) { d.format = v; return *this; }
    operator const xinterp::op_desc &() const { return d; }
};

// Expects `fn` to throw xinterp::error with status `st` and a message containing `frag`.
template <typename F>
void expect_error(F &&fn, xinterp::status st, const std::string &frag) {
    try {
        fn();
        ADD_FAILURE() << "expected an error containing '" << frag << "'";
    } catch (const xinterp::error &e) {
        EXPECT_EQ(e.get_status(), st) << e.what();
        EXPECT_NE(std::string(e.what()).find(frag), std::string::npos) << "message: " << e.what() << "\nwanted: " << frag;
    }
}

}  // namespace xt
