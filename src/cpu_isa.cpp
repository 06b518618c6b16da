#include "cpu_isa.hpp"

#include <cpuinfo.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <xbyak/xbyak_util.h>

#include "verbose.hpp"

namespace xinterp {
namespace {

unsigned long long read_xcr0() {
    uint32_t eax = 0, edx = 0;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (static_cast<unsigned long long>(edx) << 32) | eax;
}

std::string read_first_line(const char *path) {
    std::string line;
    if (FILE *fp = std::fopen(path, "r")) {
        char buf[256];
        if (std::fgets(buf, sizeof buf, fp)) line = buf;
        std::fclose(fp);
    }
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return line;
}

cpu_features detect() {
    cpu_features f;
    const bool ci = cpuinfo_initialize();
    Xbyak::util::Cpu cpu;  // CPUID; Debian 12's cpuinfo knows nothing of AMX or AVX512-FP16
    using C = Xbyak::util::Cpu;
    if (ci) {
        const cpuinfo_package *pkg = cpuinfo_get_package(0);
        if (pkg) f.brand = pkg->name;
        const cpuinfo_core *core = cpuinfo_get_core(0);
        f.amd = core && core->vendor == cpuinfo_vendor_amd;
        f.avx = cpuinfo_has_x86_avx();
        f.avx2 = cpuinfo_has_x86_avx2();
        f.fma = cpuinfo_has_x86_fma3();
        f.f16c = cpuinfo_has_x86_f16c();
        f.avx512f = cpuinfo_has_x86_avx512f();
        f.avx512bw = cpuinfo_has_x86_avx512bw();
        f.avx512vl = cpuinfo_has_x86_avx512vl();
        f.avx512dq = cpuinfo_has_x86_avx512dq();
        f.avx512cd = cpuinfo_has_x86_avx512cd();
        f.avx512_bf16 = cpuinfo_has_x86_avx512bf16();
        const cpuinfo_cache *llc = cpuinfo_get_l3_caches_count() ? cpuinfo_get_l3_cache(0)
                                   : cpuinfo_get_l2_caches_count() ? cpuinfo_get_l2_cache(0)
                                                                   : nullptr;
        if (llc) f.llc_bytes = llc->size, f.llc_sharers = static_cast<int>(llc->processor_count);
    } else {
        f.amd = cpu.has(C::tAMD);
        f.avx = cpu.has(C::tAVX);
        f.avx2 = cpu.has(C::tAVX2);
        f.fma = cpu.has(C::tFMA);
        f.f16c = cpu.has(C::tF16C);
        f.avx512f = cpu.has(C::tAVX512F);
        f.avx512bw = cpu.has(C::tAVX512BW);
        f.avx512vl = cpu.has(C::tAVX512VL);
        f.avx512dq = cpu.has(C::tAVX512DQ);
        f.avx512cd = cpu.has(C::tAVX512CD);
        f.avx512_bf16 = cpu.has(C::tAVX512_BF16);
    }
    f.family = cpu.displayFamily;
    f.model = cpu.displayModel;
    f.avx512_fp16 = cpu.has(C::tAVX512_FP16);
    f.amx_tile = cpu.has(C::tAMX_TILE);
    f.amx_bf16 = cpu.has(C::tAMX_BF16);
    f.gds = read_first_line("/sys/devices/system/cpu/vulnerabilities/gather_data_sampling");
    f.slow_gathers = gathers_are_slow(f.amd, f.family, f.model, f.gds, f.amx_tile || f.avx512_fp16);
    if (cpu.has(C::tOSXSAVE)) f.xcr0 = read_xcr0();
    f.os_ymm = (f.xcr0 & 0x6) == 0x6;               // SSE + AVX state
    f.os_zmm = f.os_ymm && (f.xcr0 & 0xe0) == 0xe0;  // opmask, ZMM_Hi256, Hi16_ZMM
    f.os_amx = (f.xcr0 & 0x60000) == 0x60000;        // XTILECFG + XTILEDATA
    // Linux enables AMX tile data per process, on request (arch_prctl ARCH_REQ_XCOMP_PERM = 0x1023,
    // XFEATURE_XTILEDATA = 18); without it the first tile instruction faults.
    if (f.amx_tile && f.os_amx) f.amx_permitted = syscall(SYS_arch_prctl, 0x1023, 18) == 0;
    return f;
}

std::atomic<int> g_cap{-1};  // -1: not read from the environment yet
std::atomic<bool> g_cap_explicit{false};  // a tier was named, not "all" or unset
std::mutex g_cap_mutex;

cpu_isa cap_from_env() {
    const char *v = std::getenv("XINTERP_MAX_CPU_ISA");
    if (!v || !*v) return cpu_isa::avx512_core_amx;
    std::string s(v);
    for (auto &ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (s == "all") return cpu_isa::avx512_core_amx;
    try {
        const cpu_isa cap = cpu_isa_from_name(s);
        g_cap_explicit = true;
        return cap;
    } catch (const error &) {
        throw error(status::invalid_arguments,
                    "XINTERP_MAX_CPU_ISA has unknown value '" + std::string(v) +
                        "'; expected none, avx2, avx512_core, avx512_core_bf16, avx512_core_fp16, "
                        "avx512_core_amx or all");
    }
}

std::atomic<int> g_hints{-1};  // -1: not read from the environment yet

cpu_isa_hints hints_from_env() {
    const char *v = std::getenv("XINTERP_CPU_ISA_HINTS");
    if (!v || !*v) return cpu_isa_hints::automatic;
    std::string s(v);
    for (auto &ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (cpu_isa_hints h : {cpu_isa_hints::automatic, cpu_isa_hints::prefer_ymm, cpu_isa_hints::prefer_zmm})
        if (s == cpu_isa_hints_name(h)) return h;
    throw error(status::invalid_arguments, "XINTERP_CPU_ISA_HINTS has unknown value '" + std::string(v) +
                                               "'; expected automatic, prefer_ymm or prefer_zmm");
}

// A knob's value: slot once set (by the API or an earlier read), else read from the environment
// now, once; a bad value throws, and the slot stays unread.
template <typename E, typename Read>
E knob(std::atomic<int> &slot, Read &&from_env) {
    int v = slot.load();
    if (v >= 0) return static_cast<E>(v);
    std::lock_guard<std::mutex> lock(g_cap_mutex);
    v = slot.load();
    if (v >= 0) return static_cast<E>(v);
    const E e = from_env();
    slot.store(static_cast<int>(e));
    return e;
}

cpu_isa_hints current_hints() { return knob<cpu_isa_hints>(g_hints, hints_from_env); }
cpu_isa current_cap() { return knob<cpu_isa>(g_cap, cap_from_env); }

}  // namespace

const cpu_features &host_features() {
    static const cpu_features f = detect();
    return f;
}

bool host_has(cpu_isa isa) {
    const cpu_features &f = host_features();
    const bool avx2 = f.avx && f.avx2 && f.fma && f.f16c && f.os_ymm;
    const bool core = avx2 && f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq && f.os_zmm;
    switch (isa) {
        case cpu_isa::none: return true;
        case cpu_isa::avx2: return avx2;
        case cpu_isa::avx512_core: return core;
        case cpu_isa::avx512_core_bf16: return core && f.avx512_bf16;
        case cpu_isa::avx512_core_fp16: return core && f.avx512_bf16 && f.avx512_fp16;
        case cpu_isa::avx512_core_amx:
            return core && f.avx512_bf16 && f.amx_tile && f.amx_bf16 && f.os_amx && f.amx_permitted;
    }
    return false;
}

cpu_isa best_host_isa() {
    cpu_isa best = cpu_isa::none;
    for (cpu_isa i : kAllIsas)
        if (host_has(i)) best = i;
    return best;
}

cpu_isa kernel_isa_for(cpu_isa tier) {
    switch (tier) {
        case cpu_isa::avx2:
        case cpu_isa::avx512_core:
        case cpu_isa::avx512_core_bf16: return tier;
        case cpu_isa::avx512_core_fp16:  // no fp16 or AMX kernels: interpolation gains nothing
        case cpu_isa::avx512_core_amx: return cpu_isa::avx512_core_bf16;  // from them yet
        default: return cpu_isa::none;
    }
}

// Update when a tier runs somewhere new (README, "ISA ladder"). avx2 runs natively on every
// dev and CI machine; avx512_core and avx512_core_bf16 ran natively and bit-exact on the AMD
// EPYC Zen 4 dev VM (the whole gtest suite at each tier, the 366-case AVX-512 sweep and the
// randomized soak), and avx512_core also runs in CI under Bochs (tests/emu) wherever the host
// lacks AVX-512.
tier_status kernel_status(cpu_isa kernel_isa) {
    switch (kernel_isa) {
        case cpu_isa::avx2:
        case cpu_isa::avx512_core:
        case cpu_isa::avx512_core_bf16: return tier_status::native;
        default: return tier_status::none;
    }
}

const char *tier_status_text(tier_status s) {
    switch (s) {
        case tier_status::native: return "executed natively";
        case tier_status::emulated: return "executed under emulation (Bochs)";
        case tier_status::generated_only: return "generated and statically checked only";
        case tier_status::none: return "no kernels";
    }
    return "";
}

namespace {
// A tier whose kernels never ran is dispatched to only when the cap names it (or a higher
// tier) explicitly; otherwise the next lower tier that has run is used.
bool dispatchable(cpu_isa tier, bool explicit_cap) {
    const tier_status st = kernel_status(kernel_isa_for(tier));
    return st == tier_status::native || st == tier_status::emulated || (st == tier_status::generated_only && explicit_cap);
}
}  // namespace

cpu_isa dispatch_tier() {
    const cpu_isa cap = current_cap();
    const bool expl = g_cap_explicit.load();
    cpu_isa isa = cpu_isa::none;
    for (cpu_isa i : kAllIsas)
        if (i <= cap && host_has(i) && dispatchable(i, expl)) isa = i;
    static std::once_flag explained;
    if (verbose_level() > 0)
        std::call_once(explained, [&] {
            for (cpu_isa i : kAllIsas) {
                if (i <= isa) continue;
                const char *why = !host_has(i) ? "not supported by this CPU/OS"
                                  : i > cap    ? "above the XINTERP_MAX_CPU_ISA cap"
                                               : "its kernels have never been executed; name it in XINTERP_MAX_CPU_ISA to opt in";
                verbose_print(std::string("dispatch,skip,") + cpu_isa_name(i) + "," + why);
            }
            std::string width;
            if (isa >= cpu_isa::avx512_core)
                width = std::string(avx512_prefers_ymm() ? ",256" : ",512") + "-bit vectors" +
                        (width_per_problem() ? std::string(", ") + width_rule() : std::string()) +
                        " (cpu_isa_hints " + cpu_isa_hints_name(current_hints()) + ")";
            verbose_print(std::string("dispatch,choose,") + cpu_isa_name(isa) + width +
                          (isa == cpu_isa::none ? ",no AVX2+FMA+F16C: every primitive uses the reference" : ""));
        });
    return isa;
}

cpu_isa dispatch_isa() { return kernel_isa_for(dispatch_tier()); }

bool avx512_on_256bit_units() {
    const cpu_features &f = host_features();
    return f.amd && f.family == 0x19 && host_has(cpu_isa::avx512_core);
}

int64_t usable_llc_bytes(int64_t llc_bytes, int sharers, bool amd) {
    const int64_t per = amd ? kLlcPerSharerMax : kLlcPerSharerMaxIntel;
    return sharers > 0 ? std::min(llc_bytes, per * sharers) : llc_bytes;
}

int64_t usable_llc_bytes() {
    const cpu_features &f = host_features();
    return usable_llc_bytes(f.llc_bytes, f.llc_sharers, f.amd);
}

int64_t one_thread_llc_bytes(int64_t llc_bytes, int sharers, bool amd) {
    return usable_llc_bytes(llc_bytes, sharers > 0 ? std::min(sharers, 2) : 2, amd);
}

int64_t one_thread_llc_bytes() {
    const cpu_features &f = host_features();
    return one_thread_llc_bytes(f.llc_bytes, f.llc_sharers, f.amd);
}

bool gathers_are_slow(bool amd, int family, int model, const std::string &gds, bool sapphire_or_later) {
    if (amd) return true;
    if (family != 6) return false;
    const auto starts = [&](const char *prefix) { return gds.rfind(prefix, 0) == 0; };
    if (starts("Mitigation: Microcode")) return true;
    if (starts("Not affected") || starts("Vulnerable")) return false;
    if (sapphire_or_later) return false;
    switch (model) {
        case 0x4e: case 0x5e:  // Skylake client
        case 0x55:             // Skylake-SP, Cascade Lake, Cooper Lake
        case 0x8e: case 0x9e:  // Kaby, Coffee, Whiskey and Amber Lake
        case 0xa5: case 0xa6:  // Comet Lake
        case 0x6a: case 0x6c:  // Ice Lake server
        case 0x7d: case 0x7e:  // Ice Lake client
        case 0x8c: case 0x8d:  // Tiger Lake
        case 0xa7:             // Rocket Lake
            return true;
        default:
            return false;
    }
}

const char *width_rule() {
    if (current_hints() != cpu_isa_hints::automatic || !host_has(cpu_isa::avx512_core)) return nullptr;
    if (avx512_on_256bit_units()) return kZmmPaysRule;
    return host_features().slow_gathers ? kYmmForGathersRule : nullptr;
}

bool width_per_problem() { return width_rule() != nullptr; }

bool zmm_pays_on_256bit_units(const problem &p) {
    return p.algorithm == alg::linear && p.fmt == data_format::ncx && p.in[2] >= 16 && p.out[2] >= p.in[2];
}

bool ymm_pays_for_gathers(const problem &p) {
    // The W axis the kernels see: NCX rows (and NXC with C = 1, which runs as NCX) drop the
    // trailing 1 -> 1 axes (jit_drivers.cpp, unit_axes_view).
    const bool ncx_rows = p.fmt == data_format::ncx || p.c == 1;
    const int a = ncx_rows ? 2 - std::min(trailing_unit_axes(p), p.k - 1) : 2;
    const int64_t iw = p.in[a], ow = p.out[a];
    if (ow >= iw) return false;
    // NCX rows down by 1.8x or less (of 32+ elements) select from two windows at 512 bits
    // (jit_conf::window2) and gather nothing there.
    if (ncx_rows && iw >= 32 && 5 * iw <= 9 * ow) return false;
    if (p.algorithm == alg::linear) return ncx_rows || p.c < 8;
    return ncx_rows && (iw > 32 || ow >= 16);
}

bool avx512_prefers_ymm(const problem *p) {
    const cpu_isa_hints h = current_hints();
    if (h != cpu_isa_hints::automatic) return h == cpu_isa_hints::prefer_ymm;
    if (avx512_on_256bit_units()) return !(p && zmm_pays_on_256bit_units(*p));
    return host_features().slow_gathers && p && ymm_pays_for_gathers(*p);
}

kernel_isa dispatch_kernel_isa(const problem *p) {
    const cpu_isa isa = dispatch_isa();
    return kernel_isa(isa, isa >= cpu_isa::avx512_core && avx512_prefers_ymm(p));
}

cpu_isa_hints set_cpu_isa_hints(cpu_isa_hints hints) {
    if (hints < cpu_isa_hints::automatic || hints > cpu_isa_hints::prefer_zmm)
        throw error(status::invalid_arguments, "cpu_isa_hints has unknown value " + std::to_string(static_cast<int>(hints)));
    std::lock_guard<std::mutex> lock(g_cap_mutex);
    const int prev = g_hints.exchange(static_cast<int>(hints));
    return prev < 0 ? cpu_isa_hints::automatic : static_cast<cpu_isa_hints>(prev);
}

cpu_isa_hints get_cpu_isa_hints() { return current_hints(); }
int get_effective_vector_bits() { return dispatch_kernel_isa().vector_bits(); }

const char *cpu_isa_hints_name(cpu_isa_hints hints) {
    switch (hints) {
        case cpu_isa_hints::automatic: return "automatic";
        case cpu_isa_hints::prefer_ymm: return "prefer_ymm";
        case cpu_isa_hints::prefer_zmm: return "prefer_zmm";
    }
    return "unknown";
}

std::string isa_ladder_report() {
    const cpu_isa chosen = dispatch_tier();
    std::ostringstream os;
    for (cpu_isa i : kAllIsas) {
        const cpu_isa k = kernel_isa_for(i);
        os << "  " << cpu_isa_name(i) << ": host " << (host_has(i) ? "yes" : "no") << ", kernels "
           << (k == i ? "own" : std::string("uses ") + cpu_isa_name(k)) << ", " << tier_status_text(kernel_status(k))
           << (i == chosen ? std::string("  <- chosen, runs ") + cpu_isa_name(k) + " kernels" : "") << "\n";
    }
    if (chosen == cpu_isa::none) os << "  (no JIT tier usable: the reference implementation runs)\n";
    return os.str();
}

cpu_isa set_max_cpu_isa(cpu_isa cap) {
    if (cap < cpu_isa::none || cap > cpu_isa::avx512_core_amx)
        throw error(status::invalid_arguments, "max_cpu_isa has unknown value " + std::to_string(static_cast<int>(cap)));
    std::lock_guard<std::mutex> lock(g_cap_mutex);
    g_cap_explicit = true;
    const int prev = g_cap.exchange(static_cast<int>(cap));
    return prev < 0 ? cpu_isa::avx512_core_amx : static_cast<cpu_isa>(prev);
}

cpu_isa get_max_cpu_isa() { return current_cap(); }
cpu_isa get_effective_cpu_isa() { return dispatch_isa(); }

const char *cpu_isa_name(cpu_isa isa) {
    switch (isa) {
        case cpu_isa::none: return "none";
        case cpu_isa::avx2: return "avx2";
        case cpu_isa::avx512_core: return "avx512_core";
        case cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
        case cpu_isa::avx512_core_fp16: return "avx512_core_fp16";
        case cpu_isa::avx512_core_amx: return "avx512_core_amx";
    }
    return "unknown";
}

cpu_isa cpu_isa_from_name(const std::string &name) {
    for (cpu_isa i : {cpu_isa::none, cpu_isa::avx2, cpu_isa::avx512_core, cpu_isa::avx512_core_bf16,
                      cpu_isa::avx512_core_fp16, cpu_isa::avx512_core_amx})
        if (name == cpu_isa_name(i)) return i;
    throw error(status::invalid_arguments, "cpu isa has unknown value '" + name + "'");
}

}  // namespace xinterp
