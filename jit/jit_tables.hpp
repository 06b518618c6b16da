// Index and weight tables, computed once when a kernel is created and kept separable per axis
// (O(OD + OH + OW) entries, never O(OD * OH * OW)).
#pragma once
#include <cstdint>
#include <vector>

#include "../src/numeric.hpp"
#include "jit_conf.hpp"

namespace xinterp {

// The W table the generated code reads through jit_args::wtab:
// - NXC linear:  per ow {int64 off0, int64 off1, f32 w0, f32 w1}   (24 bytes; offsets in bytes
//                from the src row, i.e. iw * C * esize)
// - NXC nearest: per ow int64 byte offset
// - NCX linear:  four arrays of ow_pad entries: s32 i0[], s32 i1[], f32 w0[], f32 w1[]
//                (element indices for the gathers; the padding lanes index 0 with weight 0)
// - NCX nearest: s32 i[ow_pad]
// H and D are read by the driver, which passes row pointers and weights per call.
struct axis_table {
    std::vector<linear_tap> lin;   // linear
    std::vector<int64_t> nearest;  // nearest
};

struct jit_tables {
    std::vector<uint8_t> wtab;
    axis_table d, h;
};

jit_tables make_jit_tables(const problem &p, const jit_conf &c);

}  // namespace xinterp
