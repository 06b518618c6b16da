#include "npy.hpp"

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace xinterp::cli {
namespace {

[[noreturn]] void bad(const std::string &path, const std::string &why) {
    throw std::runtime_error(path + ": " + why);
}

std::string dict_value(const std::string &h, const std::string &key) {
    const size_t k = h.find("'" + key + "'");
    if (k == std::string::npos) return "";
    size_t v = h.find(':', k);
    if (v == std::string::npos) return "";
    ++v;
    while (v < h.size() && h[v] == ' ') ++v;
    if (v < h.size() && h[v] == '(') return h.substr(v, h.find(')', v) - v + 1);
    if (v < h.size() && h[v] == '\'') return h.substr(v + 1, h.find('\'', v + 1) - v - 1);
    const size_t e = h.find_first_of(",}", v);
    return h.substr(v, e - v);
}

}  // namespace

npy_array npy_load(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) bad(path, "cannot open for reading");
    char magic[8];
    if (!f.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) bad(path, "not a .npy file (bad magic)");
    const int major = static_cast<unsigned char>(magic[6]);
    uint32_t hlen = 0;
    if (major == 1) {
        unsigned char b[2];
        if (!f.read(reinterpret_cast<char *>(b), 2)) bad(path, "truncated header");
        hlen = b[0] | (b[1] << 8);
    } else if (major == 2 || major == 3) {
        unsigned char b[4];
        if (!f.read(reinterpret_cast<char *>(b), 4)) bad(path, "truncated header");
        hlen = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
    } else {
        bad(path, "unsupported .npy format version " + std::to_string(major));
    }
    if (hlen > (1u << 20)) bad(path, "header too long");
    std::string h(hlen, '\0');
    if (!f.read(&h[0], hlen)) bad(path, "truncated header");
    npy_array a;
    a.descr = dict_value(h, "descr");
    if (a.descr == "|u2" || a.descr == "=u2") a.descr = "<u2";
    if (a.descr == "=f4") a.descr = "<f4";
    if (a.descr == "=f2") a.descr = "<f2";
    if (a.descr != "<f4" && a.descr != "<f2" && a.descr != "<u2")
        bad(path, "dtype '" + a.descr + "' is not supported; use float32, float16 or uint16 (bf16 bits)");
    if (dict_value(h, "fortran_order") != "False") bad(path, "fortran_order arrays are not supported");
    const std::string shape = dict_value(h, "shape");
    if (shape.empty() || shape[0] != '(') bad(path, "header has no shape");
    std::stringstream ss(shape.substr(1, shape.size() - 2));
    std::string item;
    int64_t elems = 1;
    while (std::getline(ss, item, ',')) {
        if (item.find_first_not_of(' ') == std::string::npos) continue;
        const long long d = std::stoll(item);
        if (d < 0) bad(path, "negative dim in shape");
        a.shape.push_back(d);
        if (__builtin_mul_overflow(elems, static_cast<int64_t>(d), &elems)) bad(path, "shape overflows");
    }
    const size_t es = a.descr == "<f4" ? 4 : 2;
    a.data.resize(static_cast<size_t>(elems) * es);
    if (!a.data.empty() && !f.read(reinterpret_cast<char *>(a.data.data()), static_cast<std::streamsize>(a.data.size())))
        bad(path, "data is shorter than the shape says");
    return a;
}

void npy_save(const std::string &path, const npy_array &a) {
    std::string h = "{'descr': '" + a.descr + "', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < a.shape.size(); ++i) h += std::to_string(a.shape[i]) + (a.shape.size() == 1 || i + 1 < a.shape.size() ? "," : "");
    h += "), }";
    const size_t total = 10 + h.size() + 1;
    h.append((64 - total % 64) % 64, ' ');
    h += '\n';
    std::ofstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open for writing");
    f.write("\x93NUMPY\x01\x00", 8);
    const unsigned char len[2] = {static_cast<unsigned char>(h.size() & 0xff), static_cast<unsigned char>(h.size() >> 8)};
    f.write(reinterpret_cast<const char *>(len), 2);
    f.write(h.data(), static_cast<std::streamsize>(h.size()));
    f.write(reinterpret_cast<const char *>(a.data.data()), static_cast<std::streamsize>(a.data.size()));
    if (!f) throw std::runtime_error(path + ": write failed");
}

}  // namespace xinterp::cli
