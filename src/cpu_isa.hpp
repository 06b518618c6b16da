// The dispatcher: host features (cpuinfo, plus Xbyak's CPUID probe where cpuinfo is silent),
// the OS-enabled register state (XCR0), the ISA ladder and the user's cap.
#pragma once
#include <string>

#include "problem.hpp"
#include "xinterp/xinterp.hpp"

namespace xinterp {

struct cpu_features {
    std::string brand;
    bool amd = false;  // vendor, for spelling choices that are fast on one vendor only
    bool avx = false, avx2 = false, fma = false, f16c = false;
    bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false, avx512cd = false;
    bool avx512_bf16 = false, avx512_fp16 = false, amx_tile = false, amx_bf16 = false;
    unsigned long long xcr0 = 0;
    bool os_ymm = false, os_zmm = false, os_amx = false;  // register state enabled by the OS
    bool amx_permitted = false;  // Linux granted this process AMX tile data (ARCH_REQ_XCOMP_PERM)
    int64_t llc_bytes = 0;       // last-level cache (cpuinfo: L3, else L2); 0 if unknown
    int llc_sharers = 0;         // logical processors the OS shows sharing it; 0 if unknown
    int family = 0;              // CPUID display family (AMD 0x19: Zen 3 and Zen 4)
    int model = 0;               // CPUID display model
    std::string gds;             // Linux's Gather Data Sampling verdict (sysfs); empty if none
    bool slow_gathers = false;   // gathers_are_slow(...) on the above
};

// Whether vgatherdps costs more than loading its elements one by one: on AMD (a ymm gather
// took ~20 cycles on the Zen 3 dev VM, and eight loads + vinsertps half that), and on the Intel
// cores that the Gather Data Sampling fix (Downfall, CVE-2022-40982) turned gathers into
// microcode on. On the Ice Lake Xeon VM (model 0x6a) a ymm and a zmm gather both took ~9 ns
// from L1, the zmm one 1.3x what 16 loads and inserts took. The 256-bit kernels then read by
// inserts (jit_conf::gather_by_insert), and full-width AVX-512 hosts run 256 bits where the W
// step gathers at either width (ymm_pays_for_gathers).
//
// On Intel the kernel's verdict decides first (gds: the text of
// /sys/devices/system/cpu/vulnerabilities/gather_data_sampling): "Mitigation: Microcode" is
// slow; "Not affected" and "Vulnerable..." (no microcode, or the fix turned off) are not.
// Without a verdict ("Unknown: Dependent on hypervisor status", no sysfs) the model decides:
// Skylake through Ice Lake, Tiger Lake and Rocket Lake (Linux's GDS list), but never a core
// with AMX or AVX512-FP16 (sapphire_or_later), none of which is affected. A hypervisor may show
// any model: the Sapphire Rapids class VM (AMX, AVX512-FP16, 105 MiB L3) reports model 0xa7,
// Rocket Lake's, with "Not affected", and there a ymm gather took 1.2 ns, a zmm one 2.5 ns.
bool gathers_are_slow(bool amd, int family, int model, const std::string &gds = "",
                      bool sapphire_or_later = false);

const cpu_features &host_features();
bool host_has(cpu_isa isa);          // CPU and OS support every extension of the tier
cpu_isa best_host_isa();
// The kernels a tier runs: its own, or (fp16, amx) the best lower tier's; none if nothing exists.
cpu_isa kernel_isa_for(cpu_isa tier);
// Where a kernel tier's code has been executed and checked bit for bit against the reference.
enum class tier_status { none, generated_only, emulated, native };
tier_status kernel_status(cpu_isa kernel_isa);
const char *tier_status_text(tier_status s);
// The tier impl_kind::any uses: min(best host, cap, highest kernel tier). Throws on a bad
// XINTERP_MAX_CPU_ISA value.
cpu_isa dispatch_isa();   // the kernel ISA: kernel_isa_for(dispatch_tier())
cpu_isa dispatch_tier();  // the ladder tier chosen
// Whether the AVX-512 tiers run the 256-bit generators (cpu_isa_hints; automatic: where
// avx512_on_256bit_units(), but for the problems zmm_pays_on_256bit_units() names), and the
// kernel ISA a primitive_desc of p gets: dispatch_isa() at that width. Without p, the width
// the host's other problems get.
bool avx512_prefers_ymm(const problem *p = nullptr);
kernel_isa dispatch_kernel_isa(const problem *p = nullptr);
// Linear NCX rows of 16 src elements or more, W not downsampled: the 512-bit kernels' windows
// and records serve twice the outputs per instruction, and on the Zen 4 dev VM they took
// 0.79x the 256-bit time in f16, 0.93x in f32 and 0.90x in bf16 (geomeans over the suite's
// and 60 random shapes' such cases, bench_isas; f16 0.60-0.92x case by case). NXC (the direct
// kernel's odd channel tails, flat rows of few channels) and W downsampling (gathers, where
// AVX2 reads by inserts on AMD) keep 256 bits. O(1): it runs for every primitive_desc.
bool zmm_pays_on_256bit_units(const problem &p);
// That rule in words, for the verbose log and `xinterp info`.
constexpr const char *kZmmPaysRule = "512 for linear NCX with W rows of 16+ src elements, W not downsampled";
// On full-width AVX-512 units with slow gathers: 256 bits where the W step gathers at either
// width and the 256-bit kernels read by inserts and tap pairs instead: W downsampled (no window
// holds 8 or 16 outputs' taps) in NCX rows, linear (any row) or nearest (rows of 33+ elements,
// or 16+ outputs: shorter rows of few outputs take one or two 16-lane windows or gathers, and
// 17 -> 6 and 7 -> 1 ran 0.76-0.83x the time at 512), and in linear NXC pixels of C < 8 (flat
// rows, or narrow pixels, whose f32 zmm loads cross a cache line each). NCX rows are the last
// spatial axis that is not 1 -> 1 (the kernels drop those), and NXC with C = 1 runs as NCX.
// Ice Lake Xeon VM, same process: r525to5 NCX linear 1.0-1.1 us at 256 against 1.6 at 512,
// img_down NCX linear f32 629 against 976 us, f16 248 against 488, nearest f32 242 against
// 496; bench_isas --sweep 60 (seeds 77 and 99, 240 shapes per dtype) always 512 took
// 1.10-1.18x the time of this rule, and always 256 1.05-1.13x. But NCX rows of 32+ elements
// down by 1.8x or less keep 512 bits: there the 512-bit kernels select from two windows
// (jit_conf::window2) and gather nothing. On the Xeon dev VM (fast gathers), against the
// 256-bit kernels with their inserts (the slow-gather spelling, forced): 540x960 -> 360x640,
// 100x300 -> 70x200 and 64x128 -> 40x100 NCX, both modes, f32 and bf16, 0.30-0.96x the time
// (two runs each; against vgatherdps at 256 bits 0.38-1.05x). O(1).
bool ymm_pays_for_gathers(const problem &p);
constexpr const char *kYmmForGathersRule =
    "256 where W is downsampled in NCX rows (by more than 1.8x or rows under 32; nearest: 33+ elements or 16+ outputs) or linear NXC with C < 8 (slow gathers)";
// Whether the hints choose the width per problem (automatic, and AVX-512 on 256-bit units or
// slow gathers), and that rule in words (nullptr where they do not).
bool width_per_problem();
const char *width_rule();
// AVX-512 executed on 256-bit units, each 512-bit operation as two halves: AMD Zen 4 (family
// 0x19; Zen 3, the same family, has no AVX-512). On the Zen 4 dev VM the 512-bit kernels took
// 1.11-1.18x the time of the 256-bit ones over 240 random cases per dtype (bench_isas --sweep
// 60; 1.32-1.41x before short rows got windows and channel tails the overlapping vector), and
// lost most where gathers and odd channel tails waste their lanes.
bool avx512_on_256bit_units();
// The part of the last-level cache this process can count on: llc_bytes, but at most
// kLlcPerSharerMax (AMD) or kLlcPerSharerMaxIntel per logical processor sharing it. No x86
// part gives one core more than 12 MiB of L3 (AMD's X3D: 96 MiB over 8 cores; Intel Xeon
// 1.4-5 MiB), so a larger share is a VM shown its host socket's whole L3 across a few vCPUs:
// the Xeon dev VM (family 6 model 207) reports 260 MiB over 2, the Ice Lake Xeon VM (model
// 106) 48 MiB over 2, which other tenants' cores share. On the Ice Lake one, back to back,
// plain stores to an 8 MiB dst took 1.3-1.6x the time of NT stores on 1 thread and 12 MiB
// 2.5-3.1x (1.0-1.3x and 2.0-2.2x on 2 threads; 2-4 MiB tied or favoured plain): the dst did not
// stay in the LLC, so Intel counts 8 MiB per logical processor. 0 if llc_bytes is unknown.
constexpr int64_t kLlcPerSharerMax = int64_t(16) << 20, kLlcPerSharerMaxIntel = int64_t(8) << 20;
int64_t usable_llc_bytes(int64_t llc_bytes, int sharers, bool amd);  // sharers 0: unknown, no cap
int64_t usable_llc_bytes();                                          // the host's
// The part one thread counts on, for its NT threshold (jit_conf.hpp, nt_min_bytes): the share
// of at most two logical processors (sharers 0, unknown: two), as on the 2-vCPU VMs where the
// thresholds were measured. A VM of more vCPUs shown its socket's L3 counts more for all of
// them together, not for one thread: a 16-core Xeon VM (300 MiB over 16, 128 MiB counted) had
// put one thread's threshold at 32 MiB, and seg_8x's 22 MiB output then took plain stores at
// 0.42-0.76x oneDNN's speed in bench_peers, where NT stores ran its four f32 kernels in
// 0.48-0.88x the time (README, run 38).
int64_t one_thread_llc_bytes(int64_t llc_bytes, int sharers, bool amd);
int64_t one_thread_llc_bytes();  // the host's
// One line per tier: whether the host has it, whether kernels exist, whether it is chosen.
std::string isa_ladder_report();

constexpr cpu_isa kAllIsas[] = {cpu_isa::avx2, cpu_isa::avx512_core, cpu_isa::avx512_core_bf16,
                                cpu_isa::avx512_core_fp16, cpu_isa::avx512_core_amx};

}  // namespace xinterp
