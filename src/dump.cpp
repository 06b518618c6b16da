#include "dump.hpp"

#include <Zydis/Zydis.h>

#include <cstdio>
#include <sstream>

namespace xinterp {

std::string disassemble(const kernel &k) {
    std::ostringstream os;
    os << "; kernel: " << k.name() << "\n";
    os << "; problem: " << k.prob().str() << "\n";
    if (!k.runs_as().empty()) os << "; runs as: " << k.runs_as() << " (the same bytes, the same steps per element)\n";
    os << "; isa: " << (k.isa() == cpu_isa::none ? "reference (no generated code)" : cpu_isa_name(k.isa()));
    if (k.code_isa().ymm) os << ", 256-bit vectors (cpu_isa_hints: the 256-bit generators at an AVX-512 tier)";
    os << "\n";
    const auto plan = k.plan();
    for (size_t i = 0; i < plan.size(); ++i) os << (i == 0 ? "; plan: " : ";       ") << plan[i] << "\n";
    const auto parts = k.parts();
    char line[160];
    for (const auto &pt : parts) {
        const uint8_t *code = pt.code;
        os << "; part " << pt.role << ": " << pt.text << " bytes of instructions + " << pt.size - pt.text
           << " bytes of constants\n";
        os << k.name() << (parts.size() > 1 ? "." + pt.role : std::string()) << ":\n";
        size_t off = 0;
        while (off < pt.text) {
            ZydisDisassembledInstruction insn;
            const uint64_t addr = reinterpret_cast<uint64_t>(code) + off;
            int n = std::snprintf(line, sizeof line, "%016llx  ", static_cast<unsigned long long>(addr));
            if (!ZYAN_SUCCESS(ZydisDisassembleIntel(ZYDIS_MACHINE_MODE_LONG_64, addr, code + off, pt.text - off, &insn))) {
                std::snprintf(line + n, sizeof line - n, "%02x  (undecodable)", code[off]);
                os << line << "\n";
                ++off;
                continue;
            }
            for (size_t i = 0; i < insn.info.length; ++i) n += std::snprintf(line + n, sizeof line - n, "%02x", code[off + i]);
            for (; n < 18 + 2 * 13; ++n) line[n] = ' ';
            line[n] = '\0';
            os << line << insn.text << "\n";
            off += insn.info.length;
        }
        os << "; constant pool\n";
        for (; off < pt.size; off += 16) {
            int n = std::snprintf(line, sizeof line, "%016llx  ", static_cast<unsigned long long>(reinterpret_cast<uint64_t>(code) + off));
            for (size_t i = off; i < off + 16 && i < pt.size; ++i) n += std::snprintf(line + n, sizeof line - n, "%02x", code[i]);
            os << line << "\n";
        }
    }
    return os.str();
}

}  // namespace xinterp
