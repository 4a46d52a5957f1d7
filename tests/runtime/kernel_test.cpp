// ktune::runtime::Kernel on the cpp backend and on OpenCL (PoCL): selection from wisdom, one compilation per
// configuration, the launch geometry, capture (buffers byte-identical, reference outputs verified) and errors.
#include "ktune/runtime/kernel.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ktune/io/t1_reader.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/runtime/capture.hpp"
#include "ktune/runtime/opencl.hpp"

namespace ktune::runtime {
namespace {

namespace fs = std::filesystem;

// c = a + b, and d[0] = the configuration (so a test sees what ran): unroll for the cpp kernel.
constexpr const char* kCppSource = R"(
void vadd(float* c, const float* a, const float* b, int n, int* chosen) {
  for (int i = 0; i < n; i += unroll)
    for (int j = 0; j < unroll && i + j < n; ++j) c[i + j] = a[i + j] + b[i + j];
  chosen[0] = unroll;
  chosen[1] = problem_size_x;
}
)";

// c = a + b with `tile` elements per work-item; chosen = (block_size_x, tile, grid_size_x).
constexpr const char* kOpenCLSource = R"(
__kernel void vadd(__global float* c, __global const float* a, __global const float* b, int n,
                   __global int* chosen) {
  const int first = (get_group_id(0) * block_size_x + get_local_id(0)) * tile;
  for (int t = 0; t < tile; ++t)
    if (first + t < n) c[first + t] = a[first + t] + b[first + t];
  if (get_global_id(0) == 0) {
    chosen[0] = block_size_x;
    chosen[1] = tile;
    chosen[2] = grid_size_x;
  }
}
)";

KernelDefinition cpp_definition() {
  return KernelDefinition("vadd", "vadd.c")
      .source_code(kCppSource)
      .tune("unroll", {1, 2, 4, 8}, 1)
      .argument_names({"c", "a", "b", "n", "chosen"});
}

KernelDefinition opencl_definition() {
  return KernelDefinition("vadd", "vadd.cl")
      .source_code(kOpenCLSource)
      .tune("block_size_x", {16, 32, 64}, 32)
      .tune("tile", {1, 2, 4}, 1)
      .restrict("block_size_x * tile >= 32")
      .grid_divisors({"block_size_x", "tile"})
      .argument_names({"c", "a", "b", "n", "chosen"});
}

struct Vectors {
  std::vector<float> a, b, c;
  std::vector<int> chosen{0, 0, 0};
  explicit Vectors(int n) : a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n)), c(static_cast<std::size_t>(n), -1.0f) {
    for (int i = 0; i < n; ++i) {
      a[static_cast<std::size_t>(i)] = 0.5f * static_cast<float>(i);
      b[static_cast<std::size_t>(i)] = 1.0f + static_cast<float>(i % 7);
    }
  }
  bool added() const {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (c[i] != a[i] + b[i]) return false;
    return true;
  }
};

std::shared_ptr<Wisdom> wisdom_for(const std::string& kernel, const std::vector<std::string>& parameters,
                                   const std::string& device, std::vector<std::pair<ProblemSize, std::vector<std::string>>> entries) {
  auto w = std::make_shared<Wisdom>();
  w->declare(kernel, parameters);
  for (auto& [size, values] : entries) {
    WisdomEntry e;
    e.device = device;
    e.problem_size = size;
    e.values = values;
    w->add(kernel, std::move(e));
  }
  return w;
}

std::vector<std::byte> file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
  std::vector<std::byte> bytes(v.size() * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

fs::path fresh_directory(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ktune-runtime-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::shared_ptr<Device> opencl_or_skip() {
  try {
    return opencl_device(0, 0);
  } catch (const std::exception& e) {
    return nullptr;
  }
}

TEST(RuntimeKernelCpp, SelectsFromWisdomAndCompilesOncePerConfiguration) {
  const auto device = cpp_device();
  auto wisdom = wisdom_for("vadd", {"unroll"}, device->name(), {{{1000}, {"4"}}, {{100000}, {"8"}}});
  Kernel kernel(cpp_definition(), device, wisdom);
  std::vector<std::string> log;
  kernel.set_log([&](std::string_view line) { log.emplace_back(line); });

  Vectors v(1000);
  kernel.launch({1000}, out(v.c), in(v.a), in(v.b), scalar(1000), out(v.chosen));
  EXPECT_TRUE(v.added());
  EXPECT_EQ(v.chosen[0], 4);
  EXPECT_EQ(v.chosen[1], 1000);
  EXPECT_EQ(kernel.choose(std::vector<std::int64_t>{1000}).rule, SelectionRule::exact);
  kernel.launch({1000}, out(v.c), in(v.a), in(v.b), scalar(1000), out(v.chosen));
  EXPECT_EQ(kernel.compilations(), 1u);

  // 3000 is nearest 1000 on a log scale: unroll 4, compiled again for its own problem_size_x.
  Vectors w(3000);
  kernel.launch({3000}, out(w.c), in(w.a), in(w.b), scalar(3000), out(w.chosen));
  EXPECT_TRUE(w.added());
  EXPECT_EQ(w.chosen[0], 4);
  EXPECT_EQ(w.chosen[1], 3000);
  EXPECT_EQ(kernel.choose(std::vector<std::int64_t>{3000}).rule, SelectionRule::nearest_problem_size);
  EXPECT_EQ(kernel.compilations(), 2u);
  bool logged_nearest = false;
  for (const auto& line : log) logged_nearest |= line.find("nearest problem size") != std::string::npos &&
                                                 line.find("unroll=4") != std::string::npos;
  EXPECT_TRUE(logged_nearest);
}

TEST(RuntimeKernelCpp, WithoutWisdomTheDefaultRuns) {
  Kernel kernel(cpp_definition(), cpp_device());
  Vectors v(10);
  kernel.launch({10}, out(v.c), in(v.a), in(v.b), scalar(10), out(v.chosen));
  EXPECT_TRUE(v.added());
  EXPECT_EQ(v.chosen[0], 1);
  EXPECT_EQ(kernel.choose(std::vector<std::int64_t>{10}).rule, SelectionRule::none);
  EXPECT_NE(kernel.choose(std::vector<std::int64_t>{10}).description.find("unroll=1"), std::string::npos);
}

TEST(RuntimeKernelCpp, CaptureWritesTheCallAsATuningProblem) {
  const fs::path dir = fresh_directory("cpp-capture");
  const auto device = cpp_device();
  // The application runs a tuned configuration; the reference outputs still come from the default one.
  auto wisdom = wisdom_for("vadd", {"unroll"}, device->name(), {{{777}, {"8"}}});
  Kernel kernel(cpp_definition(), device, wisdom);
  kernel.capture_into(dir.string());
  Vectors v(777);
  const std::vector<float> c_before = v.c;
  kernel.launch({777}, out(v.c), in(v.a), in(v.b), scalar(777), out(v.chosen));
  EXPECT_TRUE(v.added());
  EXPECT_EQ(v.chosen[0], 8);  // the application's own launch ran the tuned configuration

  const fs::path t1 = dir / "vadd.t1.json";
  ASSERT_TRUE(fs::exists(t1));
  EXPECT_EQ(file_bytes(dir / "vadd.data" / "a.bin"), bytes_of(v.a));
  EXPECT_EQ(file_bytes(dir / "vadd.data" / "b.bin"), bytes_of(v.b));
  EXPECT_EQ(file_bytes(dir / "vadd.data" / "c.bin"), bytes_of(c_before));
  EXPECT_EQ(file_bytes(dir / "vadd.data" / "c.expected.bin"), bytes_of(v.c));
  EXPECT_FALSE(fs::exists(dir / "vadd.data" / "a.expected.bin"));  // inputs have no reference
  const std::vector<int> default_chosen{1, 777, 0};
  EXPECT_EQ(file_bytes(dir / "vadd.data" / "chosen.expected.bin"), bytes_of(default_chosen));

  // ktune reads it: the problem, the kernel, the arguments from the captured bytes, the reference files.
  const Problem problem = io::read_t1_file(t1.string());
  ASSERT_EQ(problem.parameters.size(), 1u);
  EXPECT_EQ(problem.parameters[0].name, "unroll");
  EXPECT_EQ(problem.parameters[0].values.size(), 4u);
  const live::KernelSpecification spec = live::read_t1_kernel_specification(t1.string(), problem);
  EXPECT_EQ(spec.backend, "cpp");
  EXPECT_EQ(spec.kernel_name, "vadd");
  EXPECT_EQ(spec.problem_size[0], "777");
  EXPECT_EQ(spec.verification.kind, live::Verification::Kind::files);
  EXPECT_EQ(spec.verification.files.count("c"), 1u);
  const auto arguments = live::make_arguments(spec, problem);
  ASSERT_EQ(arguments.size(), 5u);
  EXPECT_EQ(arguments[1].bytes, bytes_of(v.a));
  EXPECT_TRUE(arguments[3].scalar);
  std::int32_t n = 0;
  std::memcpy(&n, arguments[3].bytes.data(), sizeof n);
  EXPECT_EQ(n, 777);

  // A second problem size gets files of its own; the same size again is not captured twice.
  Vectors w(50);
  kernel.launch({50}, out(w.c), in(w.a), in(w.b), scalar(50), out(w.chosen));
  kernel.launch({50}, out(w.c), in(w.a), in(w.b), scalar(50), out(w.chosen));
  EXPECT_TRUE(fs::exists(dir / "vadd.50.t1.json"));
  EXPECT_TRUE(fs::exists(dir / "vadd.50.data" / "a.bin"));
  fs::remove_all(dir);
}

TEST(RuntimeKernelCpp, SourceFileNamesAreQuotedForTheCompiler) {
  const fs::path dir = fresh_directory("quoted-name");
  const fs::path file = dir / "we\"ird\\name.c";
  std::ofstream(file) << kCppSource;
  // -Werror: an unescaped name in #line is only a warning ("extra tokens"), which it makes an error.
  Kernel kernel(KernelDefinition("vadd", file.string()).tune("unroll", {1, 2}, 2).compiler_options({"-Werror"}),
                cpp_device());
  Vectors v(100);
  kernel.launch({100}, out(v.c), in(v.a), in(v.b), scalar(100), out(v.chosen));
  EXPECT_TRUE(v.added());
  EXPECT_EQ(v.chosen[0], 2);
  fs::remove_all(dir);
}

TEST(RuntimeKernelCpp, Errors) {
  EXPECT_THROW(Kernel(opencl_definition(), cpp_device()), std::invalid_argument);  // an OpenCL kernel on the CPU
  EXPECT_THROW(Kernel(cpp_definition().grid_divisors({"not_a_parameter"}), cpp_device()), std::invalid_argument);
  Kernel broken(KernelDefinition("broken", "broken.c").source_code("void broken( {").tune("x", {1}, 1), cpp_device());
  try {
    broken.launch({1});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("compiling kernel 'broken'"), std::string::npos) << e.what();
  }
  Kernel missing(KernelDefinition("absent", "absent.c"), cpp_device());
  EXPECT_THROW(missing.launch({1}), std::runtime_error);  // no such source file
  EXPECT_THROW(KernelDefinition("k", "k.c").tune("x", {1, 2}, 3), std::invalid_argument);
  EXPECT_THROW(KernelDefinition("k", "k.c").tune("x", {1}, 1).tune("x", {2}, 2), std::invalid_argument);
  EXPECT_THROW(KernelDefinition("k", "k.unknown").backend(), std::invalid_argument);
}

TEST(RuntimeKernelOpenCL, SelectsGeometryAndCompilesOnce) {
  const auto device = opencl_or_skip();
  if (!device) GTEST_SKIP() << "no OpenCL device";
  auto wisdom = wisdom_for("vadd", {"block_size_x", "tile"}, device->name(), {{{4096}, {"64", "4"}}});
  Kernel kernel(opencl_definition(), device, wisdom);
  Vectors v(4096);
  kernel.launch({4096}, out(v.c), in(v.a), in(v.b), scalar(4096), out(v.chosen));
  EXPECT_TRUE(v.added());
  EXPECT_EQ(v.chosen, (std::vector<int>{64, 4, 16}));  // grid = 4096 / (64 * 4)
  kernel.launch({4096}, out(v.c), in(v.a), in(v.b), scalar(4096), out(v.chosen));
  EXPECT_EQ(kernel.compilations(), 1u);
  // Another device's wisdom only: the any-device rule.
  auto other = wisdom_for("vadd", {"block_size_x", "tile"}, "Some Other GPU 9000", {{{4096}, {"16", "2"}}});
  Kernel elsewhere(opencl_definition(), device, other);
  Vectors w(1000);
  elsewhere.launch({1000}, out(w.c), in(w.a), in(w.b), scalar(1000), out(w.chosen));
  EXPECT_TRUE(w.added());
  EXPECT_EQ(w.chosen, (std::vector<int>{16, 2, 32}));  // ceil(1000 / 32)
  EXPECT_EQ(elsewhere.choose(std::vector<std::int64_t>{1000}).rule, SelectionRule::any_device);
}

TEST(RuntimeKernelOpenCL, CapturesDeviceBuffersOfTheApplicationsOwnContext) {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &id, nullptr) != CL_SUCCESS)
    GTEST_SKIP() << "no OpenCL device";
  cl_int error = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &error);
  ASSERT_EQ(error, CL_SUCCESS);
  cl_command_queue queue = clCreateCommandQueue(context, id, 0, &error);
  ASSERT_EQ(error, CL_SUCCESS);
  const int n = 3000;
  Vectors v(n);
  cl_mem a = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, v.a.size() * 4, v.a.data(), &error);
  cl_mem b = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, v.b.size() * 4, v.b.data(), &error);
  cl_mem c = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.c.size() * 4, v.c.data(), &error);
  const std::vector<float> c_before = v.c;
  {
    const fs::path dir = fresh_directory("opencl-capture");
    Kernel kernel(opencl_definition(), opencl_device(context, id, queue));
    kernel.capture_into(dir.string());
    kernel.launch({n}, buffer<float>(c, v.c.size(), Access::write_only), buffer<float>(a, v.a.size(), Access::read_only),
                  buffer<float>(b, v.b.size(), Access::read_only), scalar(n), out(v.chosen));
    ASSERT_EQ(clEnqueueReadBuffer(queue, c, CL_TRUE, 0, v.c.size() * 4, v.c.data(), 0, nullptr, nullptr), CL_SUCCESS);
    EXPECT_TRUE(v.added());
    EXPECT_EQ(v.chosen, (std::vector<int>{32, 1, 94}));  // the default: ceil(3000 / 32) groups
    EXPECT_EQ(file_bytes(dir / "vadd.data" / "a.bin"), bytes_of(v.a));
    EXPECT_EQ(file_bytes(dir / "vadd.data" / "c.bin"), bytes_of(c_before));
    EXPECT_EQ(file_bytes(dir / "vadd.data" / "c.expected.bin"), bytes_of(v.c));
    const Problem problem = io::read_t1_file((dir / "vadd.t1.json").string());
    EXPECT_EQ(problem.constraints.size(), 1u);
    const live::KernelSpecification spec = live::read_t1_kernel_specification((dir / "vadd.t1.json").string(), problem);
    EXPECT_EQ(spec.backend, "opencl");
    EXPECT_EQ(spec.grid_div[0], (std::vector<std::string>{"block_size_x", "tile"}));
    EXPECT_EQ(spec.backend_options.platform, 0);
    fs::remove_all(dir);
  }
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

TEST(RuntimeCapture, GlobsAndTheEnvironment) {
  EXPECT_TRUE(glob_match("vector_*", "vector_add"));
  EXPECT_TRUE(glob_match("*", "anything"));
  EXPECT_TRUE(glob_match("v?dd", "vadd"));
  EXPECT_TRUE(glob_match("*add*", "vector_add_2"));
  EXPECT_FALSE(glob_match("vector_*", "matmul"));
  EXPECT_FALSE(glob_match("vadd", "vadd2"));
  ::setenv("KTUNE_CAPTURE", "matmul, vector_*", 1);
  EXPECT_TRUE(capture_requested("vector_add"));
  EXPECT_TRUE(capture_requested("matmul"));
  EXPECT_FALSE(capture_requested("reduce"));
  ::unsetenv("KTUNE_CAPTURE");
  EXPECT_FALSE(capture_requested("matmul"));
  ::setenv("KTUNE_CAPTURE_DIR", "/tmp/somewhere", 1);
  EXPECT_EQ(capture_directory(), "/tmp/somewhere");
  ::unsetenv("KTUNE_CAPTURE_DIR");
  EXPECT_EQ(capture_directory(), "capture");
}

}  // namespace
}  // namespace ktune::runtime
