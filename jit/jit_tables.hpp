// Index and weight tables, computed once when a kernel is created and kept separable per axis
// (O(OD + OH + OW) entries, never O(OD * OH * OW)).
#pragma once
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include "../src/numeric.hpp"
#include "jit_conf.hpp"

namespace xinterp {

// The W table the generated code reads through jit_args::wtab:
// - NXC row kernel, linear:  per ow {int64 off0, int64 off1, f32 w0, f32 w1}   (24 bytes; offsets in bytes
//                from the src row, i.e. iw * C * esize)
// - NXC row kernel, nearest: per ow int64 byte offset
// - pass engine (NCX, small-C NXC; element indices are into flat rows, see jit_conf.hpp):
//   one record of rec_bytes per output vector (V = simd_w * 4 bytes):
//     [0, 4) s32 base_a, [4, 8) s32 base_b  (window path: the first src element loaded)
//     [V, 2V)   s32 ia[simd_w]: lane -> src element, relative to base_a (window) or absolute
//               (gather); for AVX2 16-bit nearest windows, a vpshufb byte control instead
//     linear only: [2V, 3V) s32 ib[simd_w], [3V, 4V) f32 w0[simd_w], [4V, 5V) f32 w1[simd_w]
//   Padding lanes of the tail vector point at a valid element with weight 0. The vectors
//   whose taps the kernel computes (jit_conf::calc_first, calc_end) have no record: the
//   records after them follow on (stored_record, jit_conf.hpp).
// - flat passes (jit_conf::flat, and flat_w's W-plane pass): one record per output vector,
//   2^k s32 index vectors (src elements of the plane's volume; tap (d, h, w) at slot
//   (d * 2 + h) * 2 + w), then w0 and w1 per lane for each axis, W first. flat_w's records
//   are k = 1 over a D slice: output ih * OW + ow takes ih * IW + i0(ow) and ih * IW + i1(ow).
//   Tail lanes read element 0 with weights 0.
// H and D are read by the driver, which passes row pointers and weights per call.
struct axis_table {
    std::vector<linear_tap> lin;   // linear
    std::vector<int64_t> nearest;  // nearest
};

// Table bytes on 64-byte lines: the kernels read 32- and 64-byte vectors of records whose
// sizes are multiples of 32 bytes, so with malloc's 16-byte alignment every other load could
// span two lines, and whether they did changed from one kernel object to the next.
template <typename T>
struct line_allocator {
    using value_type = T;
    static constexpr std::align_val_t kAlign{64};
    line_allocator() = default;
    template <typename U>
    line_allocator(const line_allocator<U> &) {}
    T *allocate(size_t n) { return static_cast<T *>(::operator new(n * sizeof(T), kAlign)); }
    void deallocate(T *p, size_t) { ::operator delete(p, kAlign); }
    // A vector fills elements through its allocator one at a time unless that is std::allocator
    // (whose bytes get a memset): assign(n, 0) was a byte loop, 7 ms of an 18 MB table's
    // creation. Elements made without a value are left as they are; zeroed() memsets them.
    // (With a value, allocator_traits constructs them in place, this overload not applying.)
    template <typename U>
    void construct(U *p) noexcept {
        ::new (static_cast<void *>(p)) U;
    }
    template <typename U>
    bool operator==(const line_allocator<U> &) const { return true; }
    template <typename U>
    bool operator!=(const line_allocator<U> &) const { return false; }
};
using table_bytes = std::vector<uint8_t, line_allocator<uint8_t>>;
// t as n zero bytes (line_allocator: by memset).
inline void zeroed(table_bytes &t, size_t n) {
    t.clear();
    t.resize(n);
    if (n > 0) std::memset(t.data(), 0, n);  // an empty vector's data() may be null
}

struct jit_tables {
    table_bytes wtab;
    axis_table d, h;
    // Plane mode, linear: per output row oh {s64 i0 * row pitch, s64 i1 * row pitch, f32 w0,
    // f32 w1} (24 bytes), the row pitch being the W-plane's (ow_pad * 4 bytes).
    // Fused (fuse_h) and h2_pairs: the same record with src row offsets, i * src row bytes.
    // Nearest: per oh the s64 byte offset of src row ih(oh) within its D slice, with bit 0
    // set where oh starts a row pair (jit_conf::nearest_row_pairs).
    table_bytes hrows;
    // jit_conf::hvol: per output row (od, oh) of a plane, od * OH + oh, the blend's record
    // {s64 i0 * wplane_bytes + oh * pitch, s64 i1 * wplane_bytes + oh * pitch, f32 w0, f32 w1}
    // with the D taps and weights, the H-plane's row pitch being ow_pad * 4 bytes.
    table_bytes drows;
    // D pairs (jit_conf::d_pairs): 1 where od starts a pair with od + 1 (same D taps), chosen
    // greedily from od = 0, so an od is never both a start and a second.
    table_bytes d_pair_start;
    // Same-taps runs (jit_conf::same_run): 1 where oh starts a run of same_run chained pairs of
    // consecutive src rows with the first pair's weights, chosen greedily from oh = 0.
    table_bytes h_run_start;
    // bf16 linear: the range of |bits| (bits & 0x7fff) that a nonzero src value must have for
    // the kernel to round without special-value fixups (kFlagBf16Clean); lo == 0: never.
    uint16_t bf16_clean_lo = 0, bf16_clean_hi = 0;
};

jit_tables make_jit_tables(const problem &p, const jit_conf &c);

// The taps of one axis (0: D, 1: H, 2: W), per output coordinate.
axis_table make_axis(const problem &p, int axis);

// One pass-engine W record, unpacked: the window bases (window path) and per lane the src
// elements (relative to the bases on the window path), weights (linear). jit_tables writes it;
// jit_conf compares records to find the periodic run (jit_conf::per_*).
struct pass_record {  // lanes simd_w and up are left unset (no zero fill: it was most of the cost)
    int64_t base[2];
    int32_t ia[16], ib[16];
    float w0[16], w1[16];
};
// Vector v's record, its taps from the formula (linear_coord, nearest_index along W): neither
// the conf's scans nor the tables build a W axis for it (24 bytes an output, linear).
void make_pass_record(const jit_conf &c, const problem &p, bool lin, int64_t v, pass_record &r);
// AVX2 f32 lane windows of a window-pair record: whether each 128-bit lane's four outputs take
// both taps from four consecutive src elements; if so, off[lane] is where that lane's window
// starts (elements from base[0]; moved left where it would pass element `last`, counted from
// base[0] too) and idx[tap][l] the vpermilps controls that select lane l's taps from it.
bool lane_windows(const jit_conf &c, const pass_record &r, int64_t last, int32_t (&off)[2], int32_t (&idx)[2][8]);
// The same for one tap's own window (tap 0: ia from base[0]; tap 1: ib from base[1]; `last`
// counted from that base): each lane's four taps within four consecutive src elements.
bool tap_lane_windows(const jit_conf &c, const pass_record &r, int tap, int64_t last, int32_t (&off)[2], int32_t (&idx)[8]);

}  // namespace xinterp
