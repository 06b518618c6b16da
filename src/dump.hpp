#pragma once
#include <string>

#include "kernel.hpp"

namespace xinterp {
// Intel-syntax listing of a kernel's code (Zydis): "address  bytes  instruction" per line,
// headed by the kernel name and the descriptor it was generated for.
std::string disassemble(const kernel &k);
}  // namespace xinterp
