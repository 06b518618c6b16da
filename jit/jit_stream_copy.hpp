// A row copy with non-temporal stores: how nearest streams rows that cannot take aligned NT
// stores (jit_conf::nt_stream: NXC pixels that are not whole vectors, NCX rows of OW % simd_w
// != 0). The row kernel writes the row into per-thread scratch (it stays in L1/L2), and this
// part copies it to every dst row that repeats it.
#pragma once
#include "jit_conf.hpp"
#include "jit_io.hpp"

namespace xinterp {

class jit_stream_copy : public jit_io {
public:
    // bytes: the row length, fixed per kernel.
    explicit jit_stream_copy(int64_t bytes);
    void generate();
    using fn_t = void (*)(const jit_copy_args *);
    fn_t fn() const { return getCode<fn_t>(); }

private:
    const int64_t bytes_;
};

}  // namespace xinterp
