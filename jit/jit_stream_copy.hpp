// A row copy with non-temporal stores: the NXC nearest driver's way to stream rows whose pixels
// are not whole vectors (jit_conf::nt_stream). The row kernel writes the row into per-thread
// scratch (it stays in L1/L2), and this part copies it to every dst row that repeats it.
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
