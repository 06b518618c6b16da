// Observability in oneDNN's conventions: XINTERP_VERBOSE lines on stdout, XINTERP_JIT_PROFILE
// perf map lines, XINTERP_JIT_DUMP files. Every line that names a kernel uses kernel::name().
#pragma once
#include <chrono>
#include <cstddef>
#include <string>

namespace xinterp {

int verbose_level();  // XINTERP_VERBOSE, read once
void verbose_print(const std::string &line);  // prefixes "xinterp_verbose," and prints atomically

bool jit_profile_enabled();  // XINTERP_JIT_PROFILE=1
void perf_map_add(const void *code, size_t size, const std::string &name);
bool jit_dump_enabled();     // XINTERP_JIT_DUMP=1, files go to XINTERP_JIT_DUMP_DIR or "."
void jit_dump_write(const std::string &name, const void *code, size_t size, const std::string &listing);

inline double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace xinterp
