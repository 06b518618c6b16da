// The xinterp CLI, run as a subprocess: goldens, every configuration against the library, and
// malformed input (exit 2, one "xinterp: error:" line naming the field). Also the environment
// knobs that only a fresh process can show: XINTERP_VERBOSE, _JIT_DUMP, _JIT_PROFILE, _MAX_CPU_ISA.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/npy.hpp"
#include "test_util.hpp"

using namespace xinterp;
using xinterp::cli::npy_array;
namespace fs = std::filesystem;

namespace {

struct result {
    int rc;
    std::string out, err;
};

class cli_test : public ::testing::Test {
protected:
    fs::path dir;
    void SetUp() override {
        dir = fs::temp_directory_path() / ("xinterp_cli_" + std::to_string(getpid()) + "_" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    std::string path(const std::string &n) const { return (dir / n).string(); }

    result run(const std::string &args, const std::string &env = "") const {
        const std::string out = path("stdout.txt"), err = path("stderr.txt");
        const std::string cmd = "cd '" + dir.string() + "' && env " + env + " '" XINTERP_CLI "' " + args + " >'" + out + "' 2>'" + err + "'";
        const int st = std::system(cmd.c_str());
        auto slurp = [](const std::string &p) {
            std::ifstream f(p);
            std::stringstream ss;
            ss << f.rdbuf();
            return ss.str();
        };
        return {WIFEXITED(st) ? WEXITSTATUS(st) : 128, slurp(out), slurp(err)};
    }
    void save_f32(const std::string &n, std::vector<int64_t> shape, const std::vector<float> &v) const {
        npy_array a{"<f4", std::move(shape), std::vector<uint8_t>(v.size() * 4)};
        std::memcpy(a.data.data(), v.data(), a.data.size());
        cli::npy_save(path(n), a);
    }
    std::vector<float> load_f32(const std::string &n) const {
        const npy_array a = cli::npy_load(path(n));
        std::vector<float> v(a.data.size() / 4);
        std::memcpy(v.data(), a.data.data(), a.data.size());
        return v;
    }
    void expect_usage_error(const std::string &args, const std::string &frag) const {
        const result r = run(args);
        EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
        EXPECT_EQ(r.err.rfind("xinterp: error:", 0), 0u) << r.err;
        EXPECT_NE(r.err.find(frag), std::string::npos) << "stderr: " << r.err << "wanted: " << frag;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
    }
};

}  // namespace

TEST_F(cli_test, golden_nearest_4_to_2) {
    save_f32("in.npy", {1, 1, 4}, {10, 11, 12, 13});
    const result r = run("run --src in.npy --dst out.npy --mode nearest --data-format NCX --sizes 2");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(load_f32("out.npy"), (std::vector<float>{11, 13}));
    EXPECT_EQ(cli::npy_load(path("out.npy")).shape, (std::vector<int64_t>{1, 1, 2}));
}

TEST_F(cli_test, golden_nearest_2x2_to_3x3_nxc_scales) {
    save_f32("in.npy", {1, 2, 2, 1}, {-2, -1.5f, -1, -0.5f});
    ASSERT_EQ(run("run --src in.npy --dst out.npy --mode nearest --scales 1.5,1.5").rc, 0);
    EXPECT_EQ(load_f32("out.npy"), (std::vector<float>{-2, -1.5f, -1.5f, -1, -0.5f, -0.5f, -1, -0.5f, -0.5f}));
}

TEST_F(cli_test, golden_linear_both_transforms) {
    save_f32("in.npy", {1, 1, 2}, {0, 10});
    ASSERT_EQ(run("run --src in.npy --dst hp.npy --mode linear --data-format NCX --sizes 4").rc, 0);
    EXPECT_EQ(load_f32("hp.npy"), (std::vector<float>{0, 2.5f, 7.5f, 10}));
    ASSERT_EQ(run("run --src in.npy --dst ac.npy --mode linear --data-format NCX --sizes 3 --coordinate-transformation-mode align_corners").rc, 0);
    EXPECT_EQ(load_f32("ac.npy"), (std::vector<float>{0, 5, 10}));
}

TEST_F(cli_test, golden_bf16_and_f16_ties) {
    npy_array a{"<u2", {1, 1, 2}, std::vector<uint8_t>(4)};
    const uint16_t bf[2] = {0x3f81, 0x3f82};
    std::memcpy(a.data.data(), bf, 4);
    cli::npy_save(path("bf.npy"), a);
    ASSERT_EQ(run("run --src bf.npy --dst o.npy --dtype bf16 --mode trilinear --data-format NCX --sizes 3 --coordinate-transformation-mode align_corners").rc, 0);
    npy_array o = cli::npy_load(path("o.npy"));
    EXPECT_EQ(o.descr, "<u2");
    uint16_t mid;
    std::memcpy(&mid, o.data.data() + 2, 2);
    EXPECT_EQ(mid, 0x3f82);
    a.descr = "<f2";
    const uint16_t h[2] = {0x3c00, 0x3c01};
    std::memcpy(a.data.data(), h, 4);
    cli::npy_save(path("h.npy"), a);
    ASSERT_EQ(run("run --src h.npy --dst o2.npy --mode linear --data-format NCX --sizes 3 --coordinate-transformation-mode align_corners").rc, 0);
    o = cli::npy_load(path("o2.npy"));
    EXPECT_EQ(o.descr, "<f2");
    std::memcpy(&mid, o.data.data() + 2, 2);
    EXPECT_EQ(mid, 0x3c00);
}

// Every mode x transform x layout x rank x dtype through the CLI equals the library's reference.
TEST_F(cli_test, every_configuration_matches_the_reference) {
    int n = 0;
    for (int k = 1; k <= 3; ++k)
        for (const char *m : {"nearest", "linear"})
            for (const char *ct : {"half_pixel", "align_corners"})
                for (const char *f : {"NCX", "NXC"})
                    for (data_type t : {data_type::f32, data_type::bf16, data_type::f16}) {
                        std::vector<int64_t> shape{1}, sizes;
                        const bool ncx = std::string(f) == "NCX";
                        if (ncx) shape.push_back(3);
                        std::string sz;
                        for (int i = 0; i < k; ++i) {
                            shape.push_back(3 + i);
                            sizes.push_back(5 - i);
                            sz += (i ? "," : "") + std::to_string(5 - i);
                        }
                        if (!ncx) shape.push_back(3);
                        npy_array a{t == data_type::f32 ? "<f4" : t == data_type::f16 ? "<f2" : "<u2", shape, {}};
                        int64_t elems = 1;
                        for (auto s : shape) elems *= s;
                        a.data.resize(elems * xt::esize(t));
                        xt::fill_random(t, a.data.data(), elems, ++n);
                        cli::npy_save(path("in.npy"), a);
                        const std::string args = std::string("run --src in.npy --dst out.npy --mode ") + m +
                                                 " --coordinate-transformation-mode " + ct + " --data-format " + f +
                                                 " --sizes " + sz + (t == data_type::bf16 ? " --dtype bf16" : "");
                        const result r = run(args);
                        ASSERT_EQ(r.rc, 0) << args << "\n" << r.err;
                        op_desc d;
                        d.src_dims = shape;
                        d.dt = t;
                        d.mode = std::string(m) == "nearest" ? mode::nearest : mode::linear;
                        d.coordinate_transformation = std::string(ct) == "half_pixel" ? coordinate_transformation_mode::half_pixel
                                                                                     : coordinate_transformation_mode::align_corners;
                        d.format = ncx ? data_format::ncx : data_format::nxc;
                        d.sizes = sizes;
                        primitive_desc pd(d, impl_kind::reference);
                        std::vector<uint8_t> ref(pd.dst_bytes());
                        primitive(pd).execute(a.data.data(), ref.data());
                        const npy_array o = cli::npy_load(path("out.npy"));
                        EXPECT_EQ(o.shape, pd.dst_dims()) << args;
                        EXPECT_EQ(o.data, ref) << args;
                    }
    EXPECT_EQ(n, 72);
}

TEST_F(cli_test, malformed_input_exits_2_naming_the_field) {
    save_f32("in.npy", {1, 4, 4, 3}, std::vector<float>(48, 1.f));
    const std::string io = "run --src in.npy --dst out.npy ";
    expect_usage_error(io + "--sizes 2,2", "--mode is required");
    expect_usage_error(io + "--mode cubic --sizes 2,2", "--mode has unknown value 'cubic'");
    expect_usage_error(io + "--mode nearest", "one of --sizes or --scales is required");
    expect_usage_error(io + "--mode nearest --sizes 2", "sizes has 1 values but src has 2 spatial dims");
    expect_usage_error(io + "--mode nearest --sizes 2,-3", "sizes[1] is -3");
    expect_usage_error(io + "--mode nearest --sizes 2,x", "--sizes has invalid value 'x'");
    expect_usage_error(io + "--mode nearest --scales 2,nan", "scales[1] is nan");
    expect_usage_error(io + "--mode nearest --scales inf,2", "scales[0] is inf");
    expect_usage_error(io + "--mode nearest --scales 0.1,2", "infers dst size 0");
    expect_usage_error(io + "--mode nearest --sizes 2,2 --data-format NHWC", "--data-format has unknown value 'NHWC'");
    expect_usage_error(io + "--mode nearest --sizes 2,2 --coordinate-transformation-mode asymmetric", "--coordinate-transformation-mode has unknown value 'asymmetric'");
    expect_usage_error(io + "--mode nearest --sizes 2,2 --dtype f64", "--dtype has unknown value 'f64'");
    expect_usage_error(io + "--mode nearest --sizes 2,2 --dtype f16", "--dtype f16 does not match --src dtype '<f4'");
    expect_usage_error(io + "--mode nearest --sizes 2,2 --impl fast", "--impl has unknown value 'fast'");
    expect_usage_error(io + "--mode nearest --sizes 2,2 --bogus 1", "unknown argument '--bogus'");
    expect_usage_error("run --dst out.npy --mode nearest --sizes 2,2", "--src is required");
    expect_usage_error("run --src missing.npy --dst out.npy --mode nearest --sizes 2,2", "missing.npy: cannot open");
    expect_usage_error("frobnicate", "unknown command 'frobnicate'");
    save_f32("rank2.npy", {4, 4}, std::vector<float>(16, 1.f));
    expect_usage_error("run --src rank2.npy --dst out.npy --mode nearest --sizes 2", "src_dims has rank 2");
    std::ofstream(path("junk.npy")) << "not numpy";
    expect_usage_error("run --src junk.npy --dst out.npy --mode nearest --sizes 2,2", "not a .npy file");
    npy_array u{"<u2", {1, 2, 1}, std::vector<uint8_t>(4)};
    cli::npy_save(path("u.npy"), u);
    expect_usage_error("run --src u.npy --dst out.npy --mode nearest --sizes 2", "pass --dtype bf16");
    EXPECT_FALSE(fs::exists(path("out.npy"))) << "nothing is written on a rejected request";
}

TEST_F(cli_test, help_for_each_subcommand) {
    for (const char *c : {"run", "asm", "bench", "info"}) {
        const result r = run(std::string(c) + " --help");
        EXPECT_EQ(r.rc, 0);
        EXPECT_NE(r.out.find("usage: xinterp"), std::string::npos) << c;
    }
}

// The JSON line's numbers are read back and checked against what the problem implies: the
// byte counts, the flags given, and the order of min, median and max.
TEST_F(cli_test, bench_json_line_has_every_field) {
    const result r = run("bench --src-shape 1,3,8,8 --data-format NCX --mode nearest --sizes 16,16 --iters 3 --warmup-ms 0 "
                         "--threads 1 --json");
    ASSERT_EQ(r.rc, 0) << r.err;
    const size_t at = r.out.rfind("{\"kernel\":");
    ASSERT_NE(at, std::string::npos) << r.out;
    const std::string json = r.out.substr(at);
    EXPECT_EQ(json.find('\n'), json.size() - 1) << "one line, and the last: " << json;
    auto num = [&](const std::string &key) {
        const size_t k = json.find("\"" + key + "\":");
        EXPECT_NE(k, std::string::npos) << key << " in " << json;
        return k == std::string::npos ? -1.0 : std::strtod(json.c_str() + k + key.size() + 3, nullptr);
    };
    EXPECT_NE(json.find("\"kernel\":\"xinterp_nearest_hp_f32_ncx_"), std::string::npos) << json;
    EXPECT_NE(json.find("\"impl\":\""), std::string::npos) << json;
    EXPECT_EQ(num("iters"), 3);
    EXPECT_EQ(num("warmup_ms"), 0);
    EXPECT_EQ(num("threads"), 1);
    EXPECT_EQ(num("src_bytes"), 3 * 8 * 8 * 4);
    EXPECT_EQ(num("dst_bytes"), 3 * 16 * 16 * 4);
    const double mn = num("min_us"), med = num("median_us"), mx = num("max_us");
    EXPECT_GT(mn, 0);
    EXPECT_LE(mn, med);
    EXPECT_LE(med, mx);
    EXPECT_GT(num("create_us"), 0);
    EXPECT_GT(num("cache_hit_us"), 0);
    const std::string p = "bench --src-shape 1,3,8,8 --mode nearest --sizes 16,16 ";
    expect_usage_error(p + "--iters 0", "--iters must be >= 1");
    expect_usage_error(p + "--warmup-ms -1", "--warmup-ms has invalid value -1");
    expect_usage_error(p + "--threads 0", "--threads has invalid value 0");
}

TEST_F(cli_test, info_shows_the_ladder_and_the_chosen_tier) {
    const result r = run("info");
    ASSERT_EQ(r.rc, 0) << r.err;
    for (const char *s : {"xinterp 0.", "features:", "last-level cache:", "isa ladder:", "avx2:", "avx512_core_amx:", "impl for --impl auto:", "kernel cache:"})
        EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST_F(cli_test, max_cpu_isa_env) {
    EXPECT_NE(run("info", "XINTERP_MAX_CPU_ISA=none").out.find("impl for --impl auto: ref"), std::string::npos);
    const result bad = run("info", "XINTERP_MAX_CPU_ISA=avx9");
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("XINTERP_MAX_CPU_ISA has unknown value 'avx9'"), std::string::npos) << bad.err;
    const result badcap = run("info", "XINTERP_CACHE_CAPACITY=lots");
    EXPECT_EQ(badcap.rc, 2);
    EXPECT_NE(badcap.err.find("XINTERP_CACHE_CAPACITY has invalid value 'lots'"), std::string::npos) << badcap.err;
    const result badnt = run("info", "XINTERP_NT_MIN_BYTES=-5");
    EXPECT_EQ(badnt.rc, 2);
    EXPECT_NE(badnt.err.find("XINTERP_NT_MIN_BYTES has invalid value '-5'"), std::string::npos) << badnt.err;
    EXPECT_NE(run("info", "XINTERP_NT_MIN_BYTES=12345").out.find("non-temporal stores for dst >= 12345 bytes"), std::string::npos);
}

// XINTERP_CPU_ISA_HINTS picks the AVX-512 tiers' width; asm --vector-bits shows either on any
// host (generated, never executed). Bad values name the knob and the value.
TEST_F(cli_test, cpu_isa_hints_env_and_asm_vector_bits) {
    for (const char *h : {"prefer_ymm", "prefer_zmm", "automatic"}) {
        const result r = run("info", std::string("XINTERP_CPU_ISA_HINTS=") + h);
        ASSERT_EQ(r.rc, 0) << r.err;
        EXPECT_NE(r.out.find(std::string("cpu isa hints: ") + h), std::string::npos) << r.out;
    }
    const result bad = run("info", "XINTERP_CPU_ISA_HINTS=prefer_xmm");
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("XINTERP_CPU_ISA_HINTS has unknown value 'prefer_xmm'"), std::string::npos) << bad.err;
    const std::string a = "asm --src-shape 1,5,7,19 --mode linear --sizes 9,13 --dtype bf16 --isa avx512_core_bf16 ";
    const result y = run(a + "--vector-bits 256"), z = run(a + "--vector-bits 512");
    ASSERT_EQ(y.rc, 0) << y.err;
    ASSERT_EQ(z.rc, 0) << z.err;
    EXPECT_NE(y.out.find("_avx512_core_bf16_ymm_"), std::string::npos) << y.out;
    EXPECT_NE(y.out.find("256-bit vectors"), std::string::npos);
    EXPECT_NE(y.out.find("vcvtne2ps2bf16 ymm"), std::string::npos) << "the 256-bit bf16 tier rounds natively";
    EXPECT_EQ(y.out.find("zmm"), std::string::npos);
    EXPECT_EQ(z.out.find("_ymm_"), std::string::npos);
    EXPECT_NE(z.out.find("zmm"), std::string::npos);
    EXPECT_EQ(run(a + "--vector-bits 128").rc, 2);
    const result narrow = run("asm --src-shape 1,5,7,19 --mode linear --sizes 9,13 --isa avx2 --vector-bits 512");
    EXPECT_EQ(narrow.rc, 2);
    EXPECT_NE(narrow.err.find("--vector-bits 512 needs an AVX-512 --isa"), std::string::npos) << narrow.err;
}

TEST_F(cli_test, asm_prints_a_named_listing) {
    const result r = run("asm --src-shape 1,5,7,19 --mode linear --sizes 9,13 --dtype bf16", "XINTERP_MAX_CPU_ISA=avx2");
    ASSERT_EQ(r.rc, 0) << r.err;
    if (r.out.find("; isa: avx2") == std::string::npos) GTEST_SKIP() << "host lacks AVX2: the reference was chosen";
    EXPECT_NE(r.out.find("; kernel: xinterp_linear_hp_bf16_nxc_avx2_"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("vfmadd231ps ymm"), std::string::npos);
    EXPECT_NE(r.out.find("; constant pool"), std::string::npos);
}

TEST_F(cli_test, verbose_prints_creation_then_execution) {
    save_f32("in.npy", {1, 4, 4, 3}, std::vector<float>(48, 1.f));
    const result r = run("run --src in.npy --dst out.npy --mode linear --sizes 8,8", "XINTERP_VERBOSE=1");
    ASSERT_EQ(r.rc, 0) << r.err;
    const size_t create = r.out.find("xinterp_verbose,create:cache_miss,xinterp_linear_hp_f32_nxc_");
    const size_t exec = r.out.find("xinterp_verbose,exec,xinterp_linear_hp_f32_nxc_");
    EXPECT_NE(create, std::string::npos) << r.out;
    EXPECT_NE(exec, std::string::npos) << r.out;
    EXPECT_LT(create, exec);
    EXPECT_NE(r.out.find("f32 linear half_pixel NXC 1x4x4x3->1x8x8x3"), std::string::npos) << r.out;
}

TEST_F(cli_test, jit_dump_and_perf_map_use_the_kernel_name) {
    const result r = run("asm --src-shape 1,3,9 --data-format NCX --mode nearest --sizes 4 --dtype f16",
                         "XINTERP_JIT_DUMP=1 XINTERP_JIT_DUMP_DIR=" + dir.string() + " XINTERP_JIT_PROFILE=1 XINTERP_MAX_CPU_ISA=avx2");
    ASSERT_EQ(r.rc, 0) << r.err;
    const size_t at = r.out.find("; kernel: ");
    ASSERT_NE(at, std::string::npos);
    const std::string name = r.out.substr(at + 10, r.out.find('\n', at) - at - 10);
    if (name.find("_ref_") != std::string::npos) GTEST_SKIP() << "host lacks AVX2: no generated code to dump";
    EXPECT_TRUE(fs::exists(path(name + ".bin"))) << name;
    EXPECT_TRUE(fs::exists(path(name + ".s"))) << name;
    EXPECT_GT(fs::file_size(path(name + ".bin")), 16u);
    // The child's perf map: /tmp/perf-<pid>.map names the kernel.
    bool found = false;
    for (const auto &e : fs::directory_iterator("/tmp")) {
        if (e.path().filename().string().rfind("perf-", 0) != 0) continue;
        std::ifstream f(e.path());
        std::string line;
        while (std::getline(f, line)) found |= line.find(name) != std::string::npos;
        if (found) {
            fs::remove(e.path());
            break;
        }
    }
    EXPECT_TRUE(found) << "no /tmp/perf-*.map line names " << name;
}
