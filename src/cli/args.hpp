// Flag parsing shared by `xinterp run`, `asm` and `bench`: the problem flags map 1:1 to op_desc.
#pragma once
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "xinterp/xinterp.hpp"

namespace xinterp::cli {

// A command-line mistake: exit code 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct parsed_args {
    std::map<std::string, std::string> flags;  // "--mode" -> "linear"
    bool help = false;
    bool has(const std::string &f) const { return flags.count(f) != 0; }
    std::string get(const std::string &f, const std::string &def = "") const {
        auto it = flags.find(f);
        return it == flags.end() ? def : it->second;
    }
};

// Every flag takes a value except those listed in `switches`. Unknown flags are errors.
parsed_args parse_flags(int argc, char **argv, int first, const std::vector<std::string> &known,
                        const std::vector<std::string> &switches = {});

std::vector<int64_t> parse_int_list(const std::string &flag, const std::string &v);
std::vector<float> parse_float_list(const std::string &flag, const std::string &v);
data_type parse_dtype(const std::string &v);
// --mode, --coordinate-transformation-mode, --data-format, --sizes/--scales into d (not src_dims).
void fill_problem_flags(const parsed_args &a, op_desc &d);
impl_kind parse_impl(const std::string &v);

extern const std::vector<std::string> kProblemFlags;
extern const char *kProblemFlagsHelp;

}  // namespace xinterp::cli
