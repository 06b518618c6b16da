// Synthetic benchmark data, shared by `xinterp bench` and bench/: normal values of magnitude
// 0.25..4 with random signs, in the dtype's encoding. (A byte pattern would make many bf16
// values subnormal, and since kernels never flush subnormals, every operation on one takes a
// microcode assist: that would measure the data.)
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace xinterp::cli {

inline void fill_normal(int esize, bool bf16, uint8_t *p, size_t n) {
    uint32_t x = 12345;
    for (size_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        if (esize == 4) {
            const uint32_t bits = (x & 0x80000000u) | ((125u + (x >> 8) % 4) << 23) | (x & 0x7fffffu);
            std::memcpy(p + 4 * i, &bits, 4);
        } else {
            const uint16_t h = bf16 ? static_cast<uint16_t>(((x >> 16) & 0x8000u) | ((125u + (x >> 8) % 4) << 7) | (x & 0x7fu))
                                    : static_cast<uint16_t>(((x >> 16) & 0x8000u) | ((13u + (x >> 8) % 4) << 10) | (x & 0x3ffu));
            std::memcpy(p + 2 * i, &h, 2);
        }
    }
}

}  // namespace xinterp::cli
