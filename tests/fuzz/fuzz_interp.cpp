// libFuzzer target: arbitrary bytes become a descriptor (rank, dims, dtype, mode, transform,
// layout, sizes, scales and a runtime sizes tensor, hostile values included). Creation must
// either succeed or throw xinterp::error with a message; small problems are executed on
// guard-paged buffers and compared with the reference. Anything else aborts.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "../guarded_buffer.hpp"
#include "xinterp/xinterp.hpp"

using namespace xinterp;

namespace {

struct reader {
    const uint8_t *p;
    size_t n;
    uint8_t u8() {
        if (!n) return 0;
        --n;
        return *p++;
    }
    uint32_t u32() { return u8() | (u8() << 8) | (u8() << 16) | (static_cast<uint32_t>(u8()) << 24); }
};

int64_t dim(reader &r) {
    const uint8_t v = r.u8();
    if (v < 224) return v % 12;  // mostly small, 0 included
    static const int64_t hostile[] = {-1, -7, INT64_MIN, INT64_MAX, int64_t(1) << 31, int64_t(1) << 40,
                                      int64_t(1) << 62, 100000, 525, 73, 4096, 3, 1, 2, 17, 33, 65, 29, 31, 16, 8, 9, 7, 15,
                                      int64_t(1) << 20, -(int64_t(1) << 40), 255, 256, 1023, 1024, 12, 5};
    return hostile[(v - 224) % (sizeof hostile / sizeof *hostile)];
}

float scale(reader &r) {
    const uint8_t v = r.u8();
    if (v < 200) return 0.125f * static_cast<float>(1 + v % 40);
    static const float hostile[] = {0.f, -0.f, -1.f, NAN, INFINITY, -INFINITY, 1e30f, 1e-30f, 1e-45f,
                                    std::numeric_limits<float>::max(), 0.1f, 0.49f, 0.5f, 1e10f, -2.f, 3.4e38f};
    return hostile[(v - 200) % (sizeof hostile / sizeof *hostile)];
}

[[noreturn]] void fail(const char *what, const op_desc &d) {
    std::fprintf(stderr, "FUZZ FAILURE: %s (rank %zu, dt %d, mode %d, fmt %d)\n", what, d.src_dims.size(),
                 static_cast<int>(d.dt), static_cast<int>(d.mode), static_cast<int>(d.format));
    std::abort();
}

bool same(data_type dt, mode m, const uint8_t *a, const uint8_t *b, size_t bytes) {
    if (bytes == 0 || !std::memcmp(a, b, bytes)) return true;
    if (m == mode::nearest) return false;
    // Linear: only NaN payloads may differ (README, "Semantics in brief").
    const size_t es = dt == data_type::f32 ? 4 : 2;
    for (size_t i = 0; i < bytes; i += es) {
        if (!std::memcmp(a + i, b + i, es)) continue;
        uint32_t x = 0, y = 0;
        std::memcpy(&x, a + i, es);
        std::memcpy(&y, b + i, es);
        auto nan = [&](uint32_t v) {
            if (es == 4) return (v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu);
            if (dt == data_type::bf16) return (v & 0x7f80u) == 0x7f80u && (v & 0x7fu);
            return (v & 0x7c00u) == 0x7c00u && (v & 0x3ffu);
        };
        if (!(nan(x) && nan(y))) return false;
    }
    return true;
}

void run(const op_desc &d, impl_kind impl, reader &r) {
    primitive_desc pd(d, impl);
    constexpr size_t kMax = 1 << 18;  // execute small problems only
    if (pd.src_bytes() > kMax || pd.dst_bytes() > kMax) return;
    primitive p(pd);
    xt::guarded_buffer src(pd.src_bytes(), r.u8() & 1, r.u8() % 9), dst(pd.dst_bytes(), true);
    for (size_t i = 0; i < src.size(); ++i) src.data()[i] = r.n ? r.u8() : static_cast<uint8_t>(i * 131 + 7);
    p.execute(src.data(), dst.data());
    primitive_desc rpd(d, impl_kind::reference);
    std::vector<uint8_t> ref(rpd.dst_bytes());
    primitive(rpd).execute(src.data(), ref.data());
    if (!same(d.dt, d.mode, dst.data(), ref.data(), ref.size())) fail("JIT differs from the reference", d);
    // The runtime sizes input, when the fuzz data asks for it.
    if (r.u8() & 1) {
        std::vector<int32_t> rs(d.src_dims.size() >= 2 ? d.src_dims.size() - 2 + (r.u8() % 3 == 0 ? 1 : 0) : 0);
        for (auto &v : rs) v = static_cast<int32_t>(dim(r));
        const size_t bytes = pd.dst_bytes_for(rs.data(), rs.size());  // throws on bad sizes
        if (bytes > kMax) return;
        xt::guarded_buffer dst2(bytes, true);
        p.execute(src.data(), rs.data(), rs.size(), dst2.data());
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r{data, size};
    op_desc d;
    const int rank = r.u8() % 7;
    for (int i = 0; i < rank; ++i) d.src_dims.push_back(dim(r));
    d.dt = static_cast<data_type>(r.u8() % 4);  // 3 is not a dtype
    d.mode = static_cast<mode>(r.u8() % 5);
    d.coordinate_transformation = static_cast<coordinate_transformation_mode>(r.u8() % 3);
    d.format = static_cast<data_format>(r.u8() % 3);
    const uint8_t which = r.u8();
    const int k = rank >= 2 ? rank - 2 : 0;
    if (which & 1) {
        const int n = (which & 4) ? r.u8() % 5 : k;
        d.sizes = std::vector<int64_t>();
        for (int i = 0; i < n; ++i) d.sizes->push_back(dim(r));
    }
    if (which & 2) {
        const int n = (which & 8) ? r.u8() % 5 : k;
        d.scales = std::vector<float>();
        for (int i = 0; i < n; ++i) d.scales->push_back(scale(r));
    }
    const impl_kind impl = (which & 16) ? impl_kind::reference : impl_kind::any;
    try {
        run(d, impl, r);
    } catch (const error &e) {
        if (!e.what() || !*e.what()) fail("an error without a message", d);
        if (e.get_status() == status::success || e.get_status() == status::runtime_error) fail("unexpected status", d);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "foreign exception: %s\n", e.what());
        fail("an exception that is not xinterp::error", d);
    }
    return 0;
}
