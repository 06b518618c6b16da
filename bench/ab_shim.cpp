// bench_ab's shim (ab_shim.hpp): the library build it is linked to, behind plain C calls.
#include "ab_shim.hpp"

#include <omp.h>

#include <cstdio>
#include <exception>
#include <string>

#include "xinterp/xinterp.hpp"

namespace {
struct handle {
    xinterp::primitive prim;
    int threads;
    std::string kernel;
};
}  // namespace

extern "C" {
void *xab_create(const xab_case *c, char *err, size_t err_len) {
    try {
        xinterp::op_desc d;
        d.src_dims = {c->n};
        if (c->ncx) d.src_dims.push_back(c->c);
        d.src_dims.insert(d.src_dims.end(), c->in, c->in + c->k);
        if (!c->ncx) d.src_dims.push_back(c->c);
        d.sizes = std::vector<int64_t>(c->out, c->out + c->k);
        d.mode = c->linear ? xinterp::mode::linear : xinterp::mode::nearest;
        d.format = c->ncx ? xinterp::data_format::ncx : xinterp::data_format::nxc;
        d.dt = static_cast<xinterp::data_type>(c->dt);
        omp_set_num_threads(c->threads);
        xinterp::primitive_desc pd(d);
        return new handle{xinterp::primitive(pd), c->threads, pd.kernel_name()};
    } catch (const std::exception &e) {
        std::snprintf(err, err_len, "%s", e.what());
        return nullptr;
    }
}
size_t xab_src_bytes(const void *h) { return static_cast<const handle *>(h)->prim.get_primitive_desc().src_bytes(); }
size_t xab_dst_bytes(const void *h) { return static_cast<const handle *>(h)->prim.get_primitive_desc().dst_bytes(); }
const char *xab_kernel(const void *h) { return static_cast<const handle *>(h)->kernel.c_str(); }
void xab_execute(void *h, const void *src, void *dst) { static_cast<handle *>(h)->prim.execute(src, dst); }
void xab_destroy(void *h) { delete static_cast<handle *>(h); }
}
