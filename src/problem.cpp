#include "problem.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>

namespace xinterp {
namespace {

[[noreturn]] void invalid(const std::string &msg) { throw error(status::invalid_arguments, msg); }

template <typename T>
std::string list_str(const std::vector<T> &v) {
    std::ostringstream os;
    os << '[';
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    os << ']';
    return os.str();
}

const char *axis_name(int k, int i) {  // i indexes the real spatial axes, 0 = outermost
    static const char *names[3][3] = {{"W"}, {"H", "W"}, {"D", "H", "W"}};
    return names[k - 1][i];
}

// Element count and bytes of a dense tensor, with overflow reported rather than wrapped.
void count_bytes(const std::vector<int64_t> &dims, size_t esize, const char *what, size_t &bytes) {
    int64_t elems = 1;
    for (int64_t d : dims)
        if (__builtin_mul_overflow(elems, d, &elems))
            invalid(std::string(what) + " element count overflows int64 for dims " + list_str(dims));
    size_t b = 0;
    if (__builtin_mul_overflow(static_cast<size_t>(elems), esize, &b))
        invalid(std::string(what) + " byte size overflows size_t for dims " + list_str(dims));
    // The tables and the kernels address with signed 64-bit offsets.
    if (b > static_cast<size_t>(std::numeric_limits<int64_t>::max()))
        invalid(std::string(what) + " byte size " + std::to_string(b) + " exceeds int64 for dims " + list_str(dims));
    bytes = b;
}

std::vector<int64_t> layout_dims(const problem &p, const int64_t *sp) {
    std::vector<int64_t> d;
    d.push_back(p.n);
    if (p.fmt == data_format::ncx) d.push_back(p.c);
    for (int i = 3 - p.k; i < 3; ++i) d.push_back(sp[i]);
    if (p.fmt == data_format::nxc) d.push_back(p.c);
    return d;
}

void finish(problem &p) {
    p.src_dims = layout_dims(p, p.in);
    p.dst_dims = layout_dims(p, p.out);
    count_bytes(p.src_dims, dt_size(p.dt), "src", p.src_bytes);
    count_bytes(p.dst_dims, dt_size(p.dt), "dst", p.dst_bytes);
}

}  // namespace

int trailing_unit_axes(const problem &p) {
    int unit = 0;
    while (unit < p.k && p.in[2 - unit] == 1 && p.out[2 - unit] == 1) ++unit;
    return unit;
}

size_t dt_size(data_type dt) { return dt == data_type::f32 ? 4 : 2; }

problem make_problem(const op_desc &d) {
    problem p;
    switch (d.dt) {
        case data_type::f32: case data_type::bf16: case data_type::f16: p.dt = d.dt; break;
        default: invalid("dt has unknown value " + std::to_string(static_cast<int>(d.dt)));
    }
    switch (d.mode) {
        case mode::nearest: p.algorithm = alg::nearest; break;
        case mode::linear: case mode::bilinear: case mode::trilinear: p.algorithm = alg::linear; break;
        default: invalid("mode has unknown value " + std::to_string(static_cast<int>(d.mode)));
    }
    switch (d.coordinate_transformation) {
        case coordinate_transformation_mode::half_pixel:
        case coordinate_transformation_mode::align_corners: p.ctm = d.coordinate_transformation; break;
        default:
            invalid("coordinate_transformation_mode has unknown value " +
                    std::to_string(static_cast<int>(d.coordinate_transformation)));
    }
    switch (d.format) {
        case data_format::ncx: case data_format::nxc: p.fmt = d.format; break;
        default: invalid("data_format has unknown value " + std::to_string(static_cast<int>(d.format)));
    }
    const size_t rank = d.src_dims.size();
    if (rank < 3 || rank > 5)
        invalid("src_dims has rank " + std::to_string(rank) + " " + list_str(d.src_dims) +
                "; expected 3, 4 or 5 (N, C and 1 to 3 spatial dims)");
    p.k = static_cast<int>(rank) - 2;
    const bool ncx = p.fmt == data_format::ncx;
    p.n = d.src_dims[0];
    p.c = ncx ? d.src_dims[1] : d.src_dims[rank - 1];
    if (p.n < 0) invalid("src_dims N is negative: " + std::to_string(p.n));
    if (p.c < 0) invalid("src_dims C is negative: " + std::to_string(p.c));
    for (int i = 0; i < p.k; ++i) {
        const int64_t v = d.src_dims[(ncx ? 2 : 1) + i];
        if (v <= 0)
            invalid(std::string("src_dims spatial dim ") + axis_name(p.k, i) + " is " + std::to_string(v) +
                    "; must be >= 1");
        p.in[3 - p.k + i] = v;
    }
    if (d.sizes) {  // sizes wins; scales is ignored even when present (the op doc)
        const auto &s = *d.sizes;
        if (s.size() != static_cast<size_t>(p.k))
            invalid("sizes has " + std::to_string(s.size()) + " values but src has " + std::to_string(p.k) +
                    " spatial dims");
        for (int i = 0; i < p.k; ++i) {
            if (s[i] <= 0)
                invalid("sizes[" + std::to_string(i) + "] is " + std::to_string(s[i]) + "; must be >= 1");
            p.out[3 - p.k + i] = s[i];
        }
    } else if (d.scales) {
        const auto &s = *d.scales;
        if (s.size() != static_cast<size_t>(p.k))
            invalid("scales has " + std::to_string(s.size()) + " values but src has " + std::to_string(p.k) +
                    " spatial dims");
        for (int i = 0; i < p.k; ++i) {
            const float sc = s[i];
            std::ostringstream v;
            v << sc;
            if (!std::isfinite(sc) || !(sc > 0.f))
                invalid("scales[" + std::to_string(i) + "] is " + v.str() + "; must be finite and > 0");
            const float prod = static_cast<float>(p.in[3 - p.k + i]) * sc;  // in f32, then truncated
            if (!(prod < 9.2233715e18f))
                invalid("scales[" + std::to_string(i) + "] = " + v.str() + " makes the inferred size overflow int64");
            const int64_t o = static_cast<int64_t>(prod);
            if (o < 1)
                invalid("scales[" + std::to_string(i) + "] = " + v.str() + " infers dst size " + std::to_string(o) +
                        " for src size " + std::to_string(p.in[3 - p.k + i]) + "; must be >= 1");
            p.out[3 - p.k + i] = o;
        }
    } else {
        invalid("neither sizes nor scales is given; one is required");
    }
    finish(p);
    return p;
}

problem with_runtime_sizes(const problem &base, const int32_t *sizes, size_t sizes_len) {
    if (sizes_len != static_cast<size_t>(base.k))
        invalid("runtime sizes tensor has " + std::to_string(sizes_len) + " values but src has " +
                std::to_string(base.k) + " spatial dims");
    if (sizes == nullptr) invalid("runtime sizes tensor is a null pointer");
    problem p = base;
    for (int i = 0; i < p.k; ++i) {
        if (sizes[i] <= 0)
            invalid("runtime sizes[" + std::to_string(i) + "] is " + std::to_string(sizes[i]) + "; must be >= 1");
        p.out[3 - p.k + i] = sizes[i];
    }
    finish(p);
    return p;
}

bool problem::operator==(const problem &o) const {
    return dt == o.dt && algorithm == o.algorithm && ctm == o.ctm && fmt == o.fmt && k == o.k && n == o.n &&
           c == o.c && in[0] == o.in[0] && in[1] == o.in[1] && in[2] == o.in[2] && out[0] == o.out[0] &&
           out[1] == o.out[1] && out[2] == o.out[2];
}

uint64_t hash_problem(const problem &p, kernel_isa isa) {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](int64_t v) {
        for (int i = 0; i < 8; ++i) {
            h ^= static_cast<uint64_t>(v >> (8 * i)) & 0xff;
            h *= 1099511628211ull;
        }
    };
    mix(static_cast<int64_t>(p.dt));
    mix(static_cast<int64_t>(p.algorithm));
    mix(static_cast<int64_t>(p.ctm));
    mix(static_cast<int64_t>(p.fmt));
    mix(p.k);
    mix(p.n);
    mix(p.c);
    for (int i = 0; i < 3; ++i) mix(p.in[i]);
    for (int i = 0; i < 3; ++i) mix(p.out[i]);
    mix(static_cast<int64_t>(isa.tier));
    if (isa.ymm) mix(256);  // (the tier's own width mixes nothing: its hashes stay what they were)
    return h;
}

std::string problem::str() const {
    std::ostringstream os;
    os << to_string(dt) << ' ' << (algorithm == alg::nearest ? "nearest" : "linear") << ' '
       << (ctm == coordinate_transformation_mode::half_pixel ? "half_pixel" : "align_corners") << ' '
       << to_string(fmt) << ' ';
    for (size_t i = 0; i < src_dims.size(); ++i) os << (i ? "x" : "") << src_dims[i];
    os << "->";
    for (size_t i = 0; i < dst_dims.size(); ++i) os << (i ? "x" : "") << dst_dims[i];
    return os.str();
}

const char *to_string(data_type v) {
    switch (v) {
        case data_type::f32: return "f32";
        case data_type::bf16: return "bf16";
        case data_type::f16: return "f16";
    }
    return "unknown";
}
const char *to_string(mode v) {
    switch (v) {
        case mode::nearest: return "nearest";
        case mode::linear: return "linear";
        case mode::bilinear: return "bilinear";
        case mode::trilinear: return "trilinear";
    }
    return "unknown";
}
const char *to_string(coordinate_transformation_mode v) {
    switch (v) {
        case coordinate_transformation_mode::half_pixel: return "half_pixel";
        case coordinate_transformation_mode::align_corners: return "align_corners";
    }
    return "unknown";
}
const char *to_string(data_format v) {
    switch (v) {
        case data_format::ncx: return "NCX";
        case data_format::nxc: return "NXC";
    }
    return "unknown";
}
const char *to_string(status v) {
    switch (v) {
        case status::success: return "success";
        case status::invalid_arguments: return "invalid_arguments";
        case status::unimplemented: return "unimplemented";
        case status::out_of_memory: return "out_of_memory";
        case status::runtime_error: return "runtime_error";
    }
    return "unknown";
}

int64_t env_nonneg_int(const char *name, int64_t fallback) {
    const char *v = std::getenv(name);
    if (!v || !*v) return fallback;
    char *end = nullptr;
    errno = 0;
    const long long n = std::strtoll(v, &end, 10);
    if (*end != '\0' || n < 0 || errno == ERANGE)
        throw error(status::invalid_arguments,
                    std::string(name) + " has invalid value '" + v + "'; expected an integer >= 0");
    return n;
}

}  // namespace xinterp
