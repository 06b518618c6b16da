// oneDNN's resampling primitive on a suite case, on the caller's buffers: the same-process peer
// of bench_peers and bench_floors. Only where CMake found libdnnl-dev (XINTERP_HAVE_DNNL).
#pragma once
#ifdef XINTERP_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "cases.hpp"

namespace xbench {

struct dnnl_peer {
    dnnl::engine eng{dnnl::engine::kind::cpu, 0};
    dnnl::stream strm{eng};
    dnnl::resampling_forward prim;
    dnnl::memory src, dst;
    bool ok = false;
    std::string why;
    dnnl_peer(const shape_case &c, bool ncx, bool linear, xinterp::data_type dt, void *s, void *d) {
        using tag = dnnl::memory::format_tag;
        const int k = static_cast<int>(c.in.size());
        const tag t = ncx ? (k == 1 ? tag::ncw : k == 2 ? tag::nchw : tag::ncdhw)
                          : (k == 1 ? tag::nwc : k == 2 ? tag::nhwc : tag::ndhwc);
        const auto ddt = dt == xinterp::data_type::f32 ? dnnl::memory::data_type::f32
                         : dt == xinterp::data_type::bf16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f16;
        dnnl::memory::dims sd{c.n, c.c}, dd{c.n, c.c};
        sd.insert(sd.end(), c.in.begin(), c.in.end());
        dd.insert(dd.end(), c.out.begin(), c.out.end());
        try {
            dnnl::memory::desc smd(sd, ddt, t), dmd(dd, ddt, t);
            dnnl::resampling_forward::desc rd(dnnl::prop_kind::forward_inference,
                                              linear ? dnnl::algorithm::resampling_linear : dnnl::algorithm::resampling_nearest, smd, dmd);
            dnnl::resampling_forward::primitive_desc pd(rd, eng);
            prim = dnnl::resampling_forward(pd);
            src = dnnl::memory(smd, eng, s);
            dst = dnnl::memory(dmd, eng, d);
            why = pd.impl_info_str();
            ok = true;
        } catch (const dnnl::error &e) {
            why = e.what();
        }
    }
    void run() {
        prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
        strm.wait();
    }
};

}  // namespace xbench
#endif
