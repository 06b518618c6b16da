// Bochs 2.7's vcvtps2ph rounds exact ties up (in magnitude) instead of to even; fixed upstream
// after 2.7. Under the emulator an f16 result may therefore differ from the reference, but only
// in one way, which this classifies rigorously: the element's exact f32 result (the same problem
// run in f32 on the widened inputs gives exactly it, as the pipeline is f32) is exactly halfway
// between two f16 values, the reference holds the even one, and the kernel the other, one ulp
// further from zero. Anything else is a real difference.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "numeric.hpp"
#include "xinterp/xinterp.hpp"

namespace xt {

inline bool bochs_f16_tie(float exact, uint16_t got, uint16_t want) {
    const uint16_t even = xinterp::f32_to_f16(exact);
    const float fe = xinterp::f16_to_f32(even);
    if (fe == exact || want != even || !(std::fabs(exact) > std::fabs(fe))) return false;
    const uint16_t up = static_cast<uint16_t>(even + 1);
    return got == up && (xinterp::f16_to_f32(up) + fe) / 2 == exact;
}

// The exact f32 results of an f16 problem: the reference, in f32, on the widened src.
inline std::vector<float> exact_f32_of_f16(const xinterp::op_desc &d, const uint8_t *src) {
    xinterp::op_desc df = d;
    df.dt = xinterp::data_type::f32;
    xinterp::primitive_desc pd(df, xinterp::impl_kind::reference);
    std::vector<float> wide(pd.src_bytes() / 4), out(pd.dst_bytes() / 4);
    for (size_t i = 0; i < wide.size(); ++i) {
        uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        wide[i] = xinterp::f16_to_f32(h);
    }
    xinterp::primitive(pd).execute(wide.data(), out.data());
    return out;
}

}  // namespace xt
