// A row copy. With non-temporal stores, it is how nearest streams rows that cannot take
// aligned NT stores (jit_conf::nt_stream: NXC pixels that are not whole vectors, NCX rows of
// OW % simd_w != 0): the row kernel writes the row into per-thread scratch (it stays in L1/L2),
// and this part copies it to the dst rows that repeat it, a run of them per call (one region:
// whole lines across the rows; jit_stream_copy.cpp); direct NXC 3-D linear rows of such
// pixels likewise, once each, where dst passes the LLC, and NCX nearest planes of short rows
// (jit_conf::plane_stream), a plane as one row. With plain stores, it copies a
// nearest row that repeats the previous one from that row (jit_conf::copy_rows, and the pass
// engine's row mode): glibc's memcpy of such a row ran 20-30x slower when dst - src was 16-31
// bytes past a multiple of 4096 (C = 54 f32 NXC rows of 38 pixels are 8208 bytes: 3.3 us a
// row against 0.2 us; rows of 4096 bytes at an 8-31 byte offset, 2.1 us against 0.1 us).
// Its ERMS path (rep movsb) is what slows; 32-byte vector moves took 0.11-0.2 us at every
// offset (dev VM, Zen 3).
#pragma once
#include "jit_conf.hpp"
#include "jit_io.hpp"

namespace xinterp {

class jit_stream_copy : public jit_io {
public:
    // bytes: the row length, fixed per kernel; nt: non-temporal stores for the whole lines.
    explicit jit_stream_copy(int64_t bytes, bool nt = true);
    void generate();
    using fn_t = void (*)(const jit_copy_args *);
    fn_t fn() const { return getCode<fn_t>(); }

private:
    const int64_t bytes_;
    const bool nt_;
};

}  // namespace xinterp
