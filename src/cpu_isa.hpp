// The dispatcher: host features (cpuinfo, plus Xbyak's CPUID probe where cpuinfo is silent),
// the OS-enabled register state (XCR0), the ISA ladder and the user's cap.
#pragma once
#include <string>

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
};

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
// One line per tier: whether the host has it, whether kernels exist, whether it is chosen.
std::string isa_ladder_report();

constexpr cpu_isa kAllIsas[] = {cpu_isa::avx2, cpu_isa::avx512_core, cpu_isa::avx512_core_bf16,
                                cpu_isa::avx512_core_fp16, cpu_isa::avx512_core_amx};

}  // namespace xinterp
