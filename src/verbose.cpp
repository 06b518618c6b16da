#include "verbose.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace xinterp {
namespace {
std::mutex g_io_mutex;

bool env_flag(const char *name) {
    const char *v = std::getenv(name);
    return v && *v && std::string(v) != "0";
}
}  // namespace

int verbose_level() {
    static const int level = [] {
        const char *v = std::getenv("XINTERP_VERBOSE");
        return v ? std::atoi(v) : 0;
    }();
    return level;
}

void verbose_print(const std::string &line) {
    std::lock_guard<std::mutex> lock(g_io_mutex);
    std::printf("xinterp_verbose,%s\n", line.c_str());
    std::fflush(stdout);
}

bool jit_profile_enabled() {
    static const bool on = env_flag("XINTERP_JIT_PROFILE");
    return on;
}

void perf_map_add(const void *code, size_t size, const std::string &name) {
    std::lock_guard<std::mutex> lock(g_io_mutex);
    const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    if (FILE *f = std::fopen(path.c_str(), "a")) {  // perf's format: START SIZE name, hex
        std::fprintf(f, "%lx %zx %s\n", reinterpret_cast<unsigned long>(code), size, name.c_str());
        std::fclose(f);
    }
}

bool jit_dump_enabled() {
    static const bool on = env_flag("XINTERP_JIT_DUMP");
    return on;
}

void jit_dump_write(const std::string &name, const void *code, size_t size, const std::string &listing) {
    const char *dir = std::getenv("XINTERP_JIT_DUMP_DIR");
    const std::string base = std::string(dir && *dir ? dir : ".") + "/" + name;
    std::lock_guard<std::mutex> lock(g_io_mutex);
    if (FILE *f = std::fopen((base + ".bin").c_str(), "wb")) {
        std::fwrite(code, 1, size, f);
        std::fclose(f);
    }
    if (FILE *f = std::fopen((base + ".s").c_str(), "w")) {
        std::fputs(listing.c_str(), f);
        std::fclose(f);
    }
}

}  // namespace xinterp
