// The opencl backend on whatever platform exists (PoCL on the CPU in CI). Skips only when there is no platform.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "backend_test_support.hpp"
#include "ktune/live/backend.hpp"
#include "ktune/live/element_values.hpp"
#include "ktune/live/kernel_specification.hpp"

namespace ktune::live {
namespace {
namespace opencl_backend_test {

using testing::local_argument;
using testing::read_back;
using testing::scalar_argument;
using testing::vector_argument;

// One backend for the whole suite: creating a context is slow on some platforms.
class OpenClBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      backend_ = make_backend("opencl").release();
    } catch (const BackendUnavailable& e) {
      unavailable_ = e.what();
    }
  }
  static void TearDownTestSuite() {
    delete backend_;
    backend_ = nullptr;
  }
  void SetUp() override {
    if (!backend_) GTEST_SKIP() << "no usable OpenCL platform here (install pocl-opencl-icd): " << unavailable_;
  }
  Backend& backend() { return *backend_; }

  static Backend* backend_;
  static std::string unavailable_;
};
Backend* OpenClBackendTest::backend_ = nullptr;
std::string OpenClBackendTest::unavailable_;

constexpr const char* kVectorAdd = R"(
__kernel void vector_add(__global float* c, __global const float* a, __global const float* b, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i] + OFFSET;
}
)";

// A kernel file that includes a header beside it: the program is built from a string, so the file's folder is an -I
// option (as for the cpp backend).
TEST_F(OpenClBackendTest, AKernelFileFindsTheHeaderBesideIt) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ktune_cl_include_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scale.h") << "float scaled(float x) { return SCALE * x; }\n";
  std::ofstream(dir / "kernel.cl") << "#include \"scale.h\"\n__kernel void f(__global float* out) { out[0] = "
                                      "scaled(2.0f); }\n";
  KernelSpecification spec;
  spec.backend = "opencl";
  spec.kernel_name = "f";
  spec.kernel_file = (dir / "kernel.cl").string();
  const KernelSource source = load_source(spec);
  backend().set_arguments(std::vector{vector_argument("out", ElementType::float32, std::vector<float>(1, 0.0f))});
  auto kernel = backend().compile(source, {{"SCALE", "3.0f"}});
  backend().launch(*kernel, LaunchGeometry{});
  EXPECT_EQ(read_back<float>(backend(), 0, 1)[0], 6.0f);
  std::filesystem::remove_all(dir);
}

TEST_F(OpenClBackendTest, VectorAddUsesTheDefines) {
  const int n = 1000;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.25f * static_cast<float>(i);
  }
  backend().set_arguments(std::vector{vector_argument("c", ElementType::float32, std::vector<float>(n, -1.0f)),
                                      vector_argument("a", ElementType::float32, a, Access::read_only),
                                      vector_argument("b", ElementType::float32, b, Access::read_only),
                                      scalar_argument("n", ElementType::int32, n)});
  LaunchGeometry geometry;
  geometry.block = {64, 1, 1};
  geometry.grid = {(n + 63) / 64, 1, 1};
  for (int offset : {0, 5}) {
    auto kernel = backend().compile({kVectorAdd, "vector_add", "", {}}, {{"OFFSET", std::to_string(offset)}});
    EXPECT_GT(backend().launch(*kernel, geometry), 0.0);
    const auto c = read_back<float>(backend(), 0, n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], 1.25f * static_cast<float>(i) + offset) << "i=" << i;
  }
}

// Every scalar type is stored into element 0 of its vector; element 1 must come back unchanged. half and bool travel
// as their bytes (ushort, uchar in the kernel): OpenCL forbids bool kernel arguments and half needs cl_khr_fp16.
TEST_F(OpenClBackendTest, EveryElementTypeRoundTripsAsScalarAndVector) {
  struct Case {
    ElementType type;
    const char* cl_type;
    std::uint64_t scalar_bits;
    std::uint64_t other_bits;
  };
  const double d = -2.25e300;
  const float f = 3.5f;
  std::uint64_t d_bits = 0, f_bits = 0;
  std::memcpy(&d_bits, &d, 8);
  std::memcpy(&f_bits, &f, 4);
  const std::vector<Case> cases{
      {ElementType::int8, "char", 0x9c, 0x7f},
      {ElementType::uint8, "uchar", 200, 1},
      {ElementType::int16, "short", 0x8ad0, 5},
      {ElementType::uint16, "ushort", 60000, 6},
      {ElementType::int32, "int", 0x88ca6c00, 7},
      {ElementType::uint32, "uint", 4000000000u, 8},
      {ElementType::int64, "long", 0x8000000000000001ull, 9},
      {ElementType::uint64, "ulong", 18000000000000000000ull, 10},
      {ElementType::float16, "ushort", 0x3e00, 0x3c00},
      {ElementType::float32, "float", f_bits, 0},
      {ElementType::float64, "double", d_bits, 0},
      {ElementType::boolean, "uchar", 1, 0},
  };
  std::string params, body;
  std::vector<KernelArgument> arguments;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const std::string k = std::to_string(i);
    params += std::string(i ? ", " : "") + c.cl_type + " s" + k + ", __global " + c.cl_type + "* v" + k;
    body += "  v" + k + "[0] = s" + k + ";\n";
    const std::size_t size = element_size(c.type);
    KernelArgument scalar;
    scalar.name = "s" + k;
    scalar.type = c.type;
    scalar.scalar = true;
    scalar.bytes.resize(size);
    std::memcpy(scalar.bytes.data(), &c.scalar_bits, size);
    KernelArgument vector;
    vector.name = "v" + k;
    vector.type = c.type;
    vector.bytes.resize(2 * size);
    std::memcpy(vector.bytes.data() + size, &c.other_bits, size);
    arguments.push_back(scalar);
    arguments.push_back(vector);
  }
  const std::string code = "__kernel void roundtrip(" + params + ") {\n" + body + "}\n";
  backend().set_arguments(arguments);
  auto kernel = backend().compile({code, "roundtrip", "", {}}, {});
  backend().launch(*kernel, {});
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::size_t size = element_size(cases[i].type);
    std::vector<std::byte> v(2 * size), s(size);
    backend().read_argument(2 * i + 1, v);
    backend().read_argument(2 * i, s);
    EXPECT_EQ(std::memcmp(v.data(), &cases[i].scalar_bits, size), 0) << to_string(cases[i].type);
    EXPECT_EQ(std::memcmp(v.data() + size, &cases[i].other_bits, size), 0) << to_string(cases[i].type);
    EXPECT_EQ(std::memcmp(s.data(), &cases[i].scalar_bits, size), 0) << to_string(cases[i].type);
  }
}

// Half vectors are real IEEE binary16 on the device (vload_half/vstore_half are core OpenCL, no extension needed).
TEST_F(OpenClBackendTest, HalfVectorsAreBinary16OnTheDevice) {
  std::vector<std::uint16_t> h{float_to_half(1.5f), float_to_half(-0.25f), float_to_half(1000.0f)};
  backend().set_arguments(std::vector{vector_argument("h", ElementType::float16, h)});
  auto kernel = backend().compile(
      {"__kernel void twice(__global half* h) { int i = get_global_id(0); vstore_half(2.0f * vload_half(i, h), i, h); }",
       "twice", "", {}},
      {});
  LaunchGeometry geometry;
  geometry.block = {3, 1, 1};
  backend().launch(*kernel, geometry);
  const auto out = read_back<std::uint16_t>(backend(), 0, 3);
  EXPECT_EQ(half_to_float(out[0]), 3.0f);
  EXPECT_EQ(half_to_float(out[1]), -0.5f);
  EXPECT_EQ(half_to_float(out[2]), 2000.0f);
}

TEST_F(OpenClBackendTest, ResetArgumentRestoresTheInitialContentsAndLocalMemoryWorks) {
  // Reverses each work-group's slice through a __local buffer, in place: launching twice restores the input.
  const std::string code = R"(
__kernel void reverse(__global int* x, __local int* tmp) {
  int l = get_local_id(0), n = get_local_size(0), base = get_group_id(0) * n;
  tmp[l] = x[base + l];
  barrier(CLK_LOCAL_MEM_FENCE);
  x[base + l] = tmp[n - 1 - l] + 1;
}
)";
  const int block = 16, groups = 4, n = block * groups;
  std::vector<int> x(n);
  for (int i = 0; i < n; ++i) x[i] = i;
  backend().set_arguments(std::vector{vector_argument("x", ElementType::int32, x),
                                      local_argument("tmp", ElementType::int32, block * sizeof(int))});
  auto kernel = backend().compile({code, "reverse", "", {}}, {});
  LaunchGeometry geometry;
  geometry.block = {block, 1, 1};
  geometry.grid = {groups, 1, 1};
  backend().launch(*kernel, geometry);
  auto once = read_back<int>(backend(), 0, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(once[i], (i / block) * block + (block - 1 - i % block) + 1) << i;
  backend().launch(*kernel, geometry);
  auto twice = read_back<int>(backend(), 0, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(twice[i], i + 2) << i;
  backend().reset_argument(0);
  EXPECT_EQ(read_back<int>(backend(), 0, n), x);
}

TEST_F(OpenClBackendTest, SyntaxErrorIsCompileErrorWithTheBuildLog) {
  try {
    backend().compile({"__kernel void broken(__global float* x) { x[0] = undeclared_thing + ; }", "broken", "", {}}, {});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(e.log().find("undeclared_thing"), std::string::npos) << e.log();
    EXPECT_NE(std::string(e.what()).find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << e.what();
  }
}

TEST_F(OpenClBackendTest, UnknownKernelNameIsCompileErrorListingTheKernels) {
  try {
    backend().compile({"__kernel void present(__global int* x) { x[0] = 1; }", "absent", "", {}}, {});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'absent'"), std::string::npos) << what;
    EXPECT_NE(what.find("present"), std::string::npos) << what;
  }
}

TEST_F(OpenClBackendTest, WorkGroupLargerThanTheDeviceMaximumIsLaunchError) {
  const auto max_threads = backend().device_info().max_threads;
  ASSERT_GT(max_threads, 0u);
  backend().set_arguments(std::vector{vector_argument("x", ElementType::int32, std::vector<int>(1, 0))});
  auto kernel = backend().compile({"__kernel void one(__global int* x) { if (get_global_id(0) == 0) x[0] = 1; }",
                                   "one", "", {}},
                                  {});
  LaunchGeometry geometry;
  geometry.block = {max_threads, 2, 1};  // each dimension within its own limit, the product above the maximum
  try {
    backend().launch(*kernel, geometry);
    FAIL() << "expected LaunchError";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("CL_INVALID_WORK_GROUP_SIZE"), std::string::npos) << e.what();
  }
  geometry.block = {1, 1, 1};
  backend().launch(*kernel, geometry);  // the backend is still usable
  EXPECT_EQ(read_back<int>(backend(), 0, 1)[0], 1);
}

TEST_F(OpenClBackendTest, TimeIsPositiveAndGrowsWithWork) {
  const std::string code = R"(
__kernel void work(__global float* out, int iterations) {
  float s = get_global_id(0);
  for (int i = 0; i < iterations; ++i) s = s * 0.9999f + 1.0f;
  out[get_global_id(0)] = s;
}
)";
  const int n = 256;
  auto kernel = backend().compile({code, "work", "", {}}, {});
  LaunchGeometry geometry;
  geometry.block = {64, 1, 1};
  geometry.grid = {n / 64, 1, 1};
  auto time_for = [&](int iterations) {
    backend().set_arguments(std::vector{vector_argument("out", ElementType::float32, std::vector<float>(n, 0.0f)),
                                        scalar_argument("iterations", ElementType::int32, iterations)});
    double best = 1e30;
    for (int r = 0; r < 3; ++r) best = std::min(best, backend().launch(*kernel, geometry));
    return best;
  };
  const double small = time_for(10);
  const double large = time_for(100'000);
  RecordProperty("small_ms", std::to_string(small));
  RecordProperty("large_ms", std::to_string(large));
  EXPECT_GT(small, 0.0);
  EXPECT_GT(large, 5 * small) << "small " << small << " ms, large " << large << " ms";
}

TEST_F(OpenClBackendTest, DeviceInfoDescribesTheDevice) {
  const auto info = backend().device_info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_NE(info.platform.find("OpenCL"), std::string::npos) << info.platform;
  EXPECT_GT(info.max_threads, 0u);
  EXPECT_GT(info.max_local_memory, 0u);
  const auto has = [&](const std::string& key) {
    return std::any_of(info.properties.begin(), info.properties.end(), [&](const auto& p) { return p.first == key; });
  };
  EXPECT_TRUE(has("compute_units"));
  EXPECT_TRUE(has("driver_version"));
  EXPECT_TRUE(has("opencl_version"));
}

TEST_F(OpenClBackendTest, MissingPlatformOrDeviceIsBackendUnavailableListingWhatExists) {
  BackendOptions options;
  options.platform = 99;
  try {
    make_backend("opencl", options);
    FAIL() << "expected BackendUnavailable";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("platform 99"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0: "), std::string::npos) << e.what();
  }
  options.platform = 0;
  options.device = 42;
  EXPECT_THROW(make_backend("opencl", options), BackendUnavailable);
}

}  // namespace opencl_backend_test
}  // namespace
}  // namespace ktune::live
