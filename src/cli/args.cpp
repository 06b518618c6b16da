#include "args.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace xinterp::cli {

const std::vector<std::string> kProblemFlags = {"--mode", "--coordinate-transformation-mode", "--data-format",
                                                "--sizes", "--scales", "--dtype", "--impl"};

const char *kProblemFlagsHelp =
    "  --mode nearest|linear|bilinear|trilinear          (required)\n"
    "  --coordinate-transformation-mode half_pixel|align_corners   (default half_pixel)\n"
    "  --data-format NCX|NXC                             (default NXC; dims are read in this order)\n"
    "  --sizes A[,B[,C]]  or  --scales X[,Y[,Z]]        dst spatial dims (sizes wins if both)\n"
    "  --dtype f32|bf16|f16                              (default: from the .npy; bf16 needs it)\n"
    "  --impl auto|reference                             (default auto: the best JIT tier)\n";

parsed_args parse_flags(int argc, char **argv, int first, const std::vector<std::string> &known,
                        const std::vector<std::string> &switches) {
    parsed_args a;
    for (int i = first; i < argc; ++i) {
        std::string f = argv[i];
        if (f == "--help" || f == "-h") {
            a.help = true;
            continue;
        }
        std::string value;
        bool has_value = false;
        const size_t eq = f.find('=');
        if (f.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = f.substr(eq + 1);
            f = f.substr(0, eq);
            has_value = true;
        }
        bool is_switch = false;
        for (const auto &s : switches) is_switch |= s == f;
        bool ok = is_switch;
        for (const auto &k : known) ok |= k == f;
        if (!ok) throw usage_error("unknown argument '" + f + "' (see --help)");
        if (is_switch) {
            a.flags[f] = "1";
            continue;
        }
        if (!has_value) {
            if (i + 1 >= argc) throw usage_error(f + " needs a value");
            value = argv[++i];
        }
        a.flags[f] = value;
    }
    return a;
}

std::vector<int64_t> parse_int_list(const std::string &flag, const std::string &v) {
    std::vector<int64_t> out;
    std::stringstream ss(v);
    std::string item;
    while (std::getline(ss, item, ',')) {
        char *end = nullptr;
        errno = 0;
        const long long x = std::strtoll(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || errno == ERANGE)
            throw usage_error(flag + " has invalid value '" + item + "' in '" + v + "'; expected integers");
        out.push_back(x);
    }
    if (out.empty()) throw usage_error(flag + " is empty");
    return out;
}

std::vector<float> parse_float_list(const std::string &flag, const std::string &v) {
    std::vector<float> out;
    std::stringstream ss(v);
    std::string item;
    while (std::getline(ss, item, ',')) {
        char *end = nullptr;
        const float x = std::strtof(item.c_str(), &end);
        if (item.empty() || *end != '\0')
            throw usage_error(flag + " has invalid value '" + item + "' in '" + v + "'; expected numbers");
        out.push_back(x);  // nan/inf/negative values are the library's to reject, with its message
    }
    if (out.empty()) throw usage_error(flag + " is empty");
    return out;
}

data_type parse_dtype(const std::string &v) {
    if (v == "f32") return data_type::f32;
    if (v == "bf16") return data_type::bf16;
    if (v == "f16") return data_type::f16;
    throw usage_error("--dtype has unknown value '" + v + "'; expected f32, bf16 or f16");
}

impl_kind parse_impl(const std::string &v) {
    if (v == "auto" || v.empty()) return impl_kind::any;
    if (v == "reference" || v == "ref") return impl_kind::reference;
    throw usage_error("--impl has unknown value '" + v + "'; expected auto or reference");
}

void fill_problem_flags(const parsed_args &a, op_desc &d) {
    if (!a.has("--mode")) throw usage_error("--mode is required (nearest, linear, bilinear or trilinear)");
    const std::string m = a.get("--mode");
    if (m == "nearest") d.mode = mode::nearest;
    else if (m == "linear") d.mode = mode::linear;
    else if (m == "bilinear") d.mode = mode::bilinear;
    else if (m == "trilinear") d.mode = mode::trilinear;
    else throw usage_error("--mode has unknown value '" + m + "'; expected nearest, linear, bilinear or trilinear");
    const std::string ct = a.get("--coordinate-transformation-mode", "half_pixel");
    if (ct == "half_pixel") d.coordinate_transformation = coordinate_transformation_mode::half_pixel;
    else if (ct == "align_corners") d.coordinate_transformation = coordinate_transformation_mode::align_corners;
    else throw usage_error("--coordinate-transformation-mode has unknown value '" + ct + "'; expected half_pixel or align_corners");
    const std::string df = a.get("--data-format", "NXC");
    if (df == "NXC" || df == "nxc") d.format = data_format::nxc;
    else if (df == "NCX" || df == "ncx") d.format = data_format::ncx;
    else throw usage_error("--data-format has unknown value '" + df + "'; expected NCX or NXC");
    if (a.has("--sizes")) d.sizes = parse_int_list("--sizes", a.get("--sizes"));
    if (a.has("--scales")) d.scales = parse_float_list("--scales", a.get("--scales"));
    if (!d.sizes && !d.scales) throw usage_error("one of --sizes or --scales is required");
}

}  // namespace xinterp::cli
