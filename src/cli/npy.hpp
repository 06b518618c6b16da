// Minimal .npy (format 1.0-3.0) reader and writer: little-endian float32, float16 and uint16
// (bf16 bit patterns), C order only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace xinterp::cli {

struct npy_array {
    std::string descr;            // "<f4", "<f2" or "<u2"
    std::vector<int64_t> shape;
    std::vector<uint8_t> data;
};

// Throw std::runtime_error naming the file and what is wrong with it.
npy_array npy_load(const std::string &path);
void npy_save(const std::string &path, const npy_array &a);

}  // namespace xinterp::cli
