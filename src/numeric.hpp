// Coordinate transforms and 16-bit conversions, exactly as semantics.md states them.
// Shared by the reference and by the JIT table builders, so both start from the same f32
// coordinates. Files that include this are built with -ffp-contract=off.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "xinterp/xinterp.hpp"

namespace xinterp {

inline uint32_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bits_f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Source coordinate of dst index o along an axis of src size I and dst size O, all in f32.
inline float src_coord(int64_t o, int64_t I, int64_t O, coordinate_transformation_mode ctm) {
    if (ctm == coordinate_transformation_mode::half_pixel)
        return ((float)o + 0.5f) * (float)I / (float)O - 0.5f;
    return (O == 1) ? 0.f : (float)o * (float)(I - 1) / (float)(O - 1);
}

// Nearest: roundf (halves away from zero), clamped to [0, I-1]. The clamp is done without
// converting an out-of-range float to int64.
inline int64_t nearest_index(int64_t o, int64_t I, int64_t O, coordinate_transformation_mode ctm) {
    const float r = std::roundf(src_coord(o, I, O, ctm));
    if (!(r > 0.f)) return 0;
    if (r >= 9.2233715e18f) return I - 1;
    const int64_t i = (int64_t)r;
    return i < I - 1 ? i : I - 1;
}

struct linear_tap {
    int64_t i0, i1;
    float w0, w1;
    // Both src taps equal (the weights may differ): the two outputs blend the same src rows.
    bool same_taps(const linear_tap &o) const { return i0 == o.i0 && i1 == o.i1; }
};

// Linear: t = clamp(s, 0, I-1); i0 = (int64)t; i1 = min(i0+1, I-1); w1 = t - i0; w0 = 1 - w1.
// i0 is also clamped to I-1: for I > 2^24, (float)(I-1) can round up past I-1.
inline linear_tap linear_coord(int64_t o, int64_t I, int64_t O, coordinate_transformation_mode ctm) {
    const float s = src_coord(o, I, O, ctm);
    float t = s > 0.f ? s : 0.f;
    const float hi = (float)(I - 1);
    t = t < hi ? t : hi;
    int64_t i0 = (int64_t)t;
    if (i0 > I - 1) i0 = I - 1;
    linear_tap tap;
    tap.i0 = i0;
    tap.i1 = i0 + 1 < I - 1 ? i0 + 1 : I - 1;
    tap.w1 = t - (float)i0;
    tap.w0 = 1.f - tap.w1;
    return tap;
}

// bf16 store, bit-identical to VCVTNEPS2BF16: denormal (and zero) -> signed zero,
// NaN -> (bits >> 16) | 0x0040, everything else round to nearest even (overflow gives inf).
inline uint16_t f32_to_bf16(float f) {
    const uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
    if ((u & 0x7f800000u) == 0) return static_cast<uint16_t>((u >> 16) & 0x8000u);
    return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
inline float bf16_to_f32(uint16_t h) { return bits_f32(static_cast<uint32_t>(h) << 16); }

// f16 store, bit-identical to F16C vcvtps2ph with imm 0 (round to nearest even, denormals kept,
// overflow to inf, NaN quietened with its top payload bits kept).
inline uint16_t f32_to_f16(float f) {
    const uint32_t u = f32_bits(f);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 2^16: inf
    if (a < 0x38800000u) {                                               // below 2^-14: f16 denormal
        if (a < 0x33000000u) return static_cast<uint16_t>(sign);         // below half the least denormal
        const uint32_t e = a >> 23;
        const uint32_t m = (a & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - e;  // 14..24: brings the value to units of 2^-24
        const uint32_t q = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        const uint32_t r = q + ((rem > half || (rem == half && (q & 1))) ? 1 : 0);
        return static_cast<uint16_t>(sign | r);
    }
    const uint32_t r = a - 0x38000000u;  // rebias exponent 127 -> 15, keep 23 mantissa bits
    const uint32_t q = r >> 13, rem = r & 0x1fffu;
    return static_cast<uint16_t>(sign | (q + ((rem > 0x1000u || (rem == 0x1000u && (q & 1))) ? 1 : 0)));
}

inline float f16_to_f32(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) return bits_f32(sign | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0));
    if (e != 0) return bits_f32(sign | ((e + 112) << 23) | (m << 13));
    if (m == 0) return bits_f32(sign);
    int sh = 0;  // normalise the denormal
    uint32_t mm = m;
    while (!(mm & 0x400u)) { mm <<= 1; ++sh; }
    return bits_f32(sign | ((113 - sh) << 23) | ((mm & 0x3ffu) << 13));
}

// Restores the default MXCSR (round to nearest, no FTZ/DAZ, all exceptions masked) for the
// scope, so results never depend on the caller's floating-point environment.
class mxcsr_guard {
public:
    mxcsr_guard() {
        __asm__ volatile("stmxcsr %0" : "=m"(saved_));
        if (saved_ != kDefault) {
            uint32_t d = kDefault;
            __asm__ volatile("ldmxcsr %0" : : "m"(d));
        }
    }
    ~mxcsr_guard() {
        if (saved_ != kDefault) __asm__ volatile("ldmxcsr %0" : : "m"(saved_));
    }
    mxcsr_guard(const mxcsr_guard &) = delete;
    mxcsr_guard &operator=(const mxcsr_guard &) = delete;

private:
    static constexpr uint32_t kDefault = 0x1f80;
    uint32_t saved_ = 0;
};

}  // namespace xinterp
