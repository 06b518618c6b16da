// Uses only the installed public header: nearest 4 -> 2 must pick src 1 and 3.
#include <xinterp/xinterp.hpp>

#include <cstdio>
#include <vector>

int main() {
    xinterp::op_desc d;
    d.src_dims = {1, 1, 4};
    d.format = xinterp::data_format::ncx;
    d.sizes = std::vector<int64_t>{2};
    xinterp::primitive_desc pd(d);
    xinterp::primitive p(pd);
    const float src[4] = {10, 11, 12, 13};
    float dst[2] = {0, 0};
    p.execute(src, dst);
    std::printf("consumer: xinterp %s, %s, [%g, %g]\n", xinterp::version(), pd.impl_name().c_str(), dst[0], dst[1]);
    return dst[0] == 11 && dst[1] == 13 ? 0 : 1;
}
