// The cpp backend against the real system compiler: compile, call through libffi, copy arguments, report errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "backend_test_support.hpp"
#include "ktune/live/backend.hpp"
#include "ktune/live/kernel_specification.hpp"

namespace ktune::live {
namespace {

using testing::read_back;
using testing::scalar_argument;
using testing::vector_argument;

constexpr const char* kVectorAdd = R"(
void vector_add(float* c, const float* a, const float* b, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i] + OFFSET;
}
)";

std::vector<KernelArgument> vector_add_arguments(int n) {
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(2 * i) + 0.5f;
  }
  return {vector_argument("c", ElementType::float32, c, Access::write_only),
          vector_argument("a", ElementType::float32, a, Access::read_only),
          vector_argument("b", ElementType::float32, b, Access::read_only),
          scalar_argument("n", ElementType::int32, n)};
}

TEST(CppBackend, VectorAddUsesTheDefines) {
  auto backend = make_backend("cpp");
  const int n = 1000;
  backend->set_arguments(vector_add_arguments(n));
  for (int offset : {0, 7}) {
    auto kernel = backend->compile({kVectorAdd, "vector_add", "", {}}, {{"OFFSET", std::to_string(offset)}});
    const double ms = backend->launch(*kernel, {});
    EXPECT_GT(ms, 0.0);
    const auto c = read_back<float>(*backend, 0, n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], static_cast<float>(3 * i) + 0.5f + offset) << "i=" << i;
  }
}

TEST(CppBackend, UserCompilerOptionsArePassedOn) {
  auto backend = make_backend("cpp");
  backend->set_arguments(vector_add_arguments(4));
  auto kernel = backend->compile({kVectorAdd, "vector_add", "", {"-DOFFSET=100", "-O1"}}, {});
  backend->launch(*kernel, {});
  EXPECT_EQ(read_back<float>(*backend, 0, 4)[1], 3.0f + 0.5f + 100.0f);
}

// A kernel file that includes a header beside it, as a compiler finds it for a file compiled in place: the backend
// compiles a copy elsewhere, so load_source names the file's folder for the #include (Kernel Tuner's users do this).
TEST(CppBackend, AKernelFileFindsTheHeaderBesideIt) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ktune_include_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scale.h") << "static float scaled(float x) { return SCALE * x; }\n";
  std::ofstream(dir / "kernel.c") << "#include \"scale.h\"\nvoid f(float* out) { out[0] = scaled(2.0f); }\n";
  KernelSpecification spec;
  spec.kernel_name = "f";
  spec.kernel_file = (dir / "kernel.c").string();
  const KernelSource source = load_source(spec);
  ASSERT_EQ(source.include_dirs, std::vector<std::string>{dir.string()});
  auto backend = make_backend("cpp");
  backend->set_arguments(std::vector{vector_argument("out", ElementType::float32, std::vector<float>(1, 0.0f))});
  auto kernel = backend->compile(source, {{"SCALE", "3"}});
  backend->launch(*kernel, {});
  EXPECT_EQ(read_back<float>(*backend, 0, 1)[0], 6.0f);
  std::filesystem::remove_all(dir);
}

TEST(CppBackend, CompilesCAsCAndCppAsCpp) {
  auto backend = make_backend("cpp");
  std::vector<int> out(2, 0);
  backend->set_arguments(std::vector{vector_argument("out", ElementType::int32, out)});
  // Valid C, invalid C++ (void* converts implicitly only in C).
  const std::string c_code = "void f(int* out) { void* p = out; int* q = p; q[0] = 11; q[1] = (int)sizeof('a'); }";
  auto c_kernel = backend->compile({c_code, "f", "", {}}, {});
  backend->launch(*c_kernel, {});
  EXPECT_EQ(read_back<int>(*backend, 0, 2), (std::vector<int>{11, static_cast<int>(sizeof(int))}));  // C: 'a' is int
  // C++17 only (if constexpr, a template), found because of extern "C".
  const std::string cxx_code = R"(
#include <type_traits>
template <typename T> constexpr int twice(T x) { if constexpr (std::is_integral_v<T>) return 2 * x; else return 0; }
extern "C" void f(int* out) { out[0] = twice(21); out[1] = static_cast<int>(sizeof('a')); }
)";
  auto cxx_kernel = backend->compile({cxx_code, "f", "", {}}, {});
  backend->launch(*cxx_kernel, {});
  EXPECT_EQ(read_back<int>(*backend, 0, 2), (std::vector<int>{42, 1}));  // C++: 'a' is a char
}

// One scalar and one two-element vector per element type; the function stores each scalar into v[0] of its vector.
TEST(CppBackend, EveryElementTypeRoundTripsAsScalarAndVector) {
  struct Case {
    ElementType type;
    const char* c_type;
    std::uint64_t scalar_bits;  // the scalar's bytes (little-endian prefix of element_size bytes)
    std::uint64_t other_bits;   // v[1], must come back unchanged
  };
  const double d = -2.25e300;
  const float f = 3.5f;
  std::uint64_t d_bits = 0, f_bits = 0;
  std::memcpy(&d_bits, &d, 8);
  std::memcpy(&f_bits, &f, 4);
  const std::vector<Case> cases{
      {ElementType::int8, "int8_t", 0x9c, 0x7f},  // -100
      {ElementType::uint8, "uint8_t", 200, 1},
      {ElementType::int16, "int16_t", 0x8ad0, 5},  // -30000
      {ElementType::uint16, "uint16_t", 60000, 6},
      {ElementType::int32, "int32_t", 0x88ca6c00, 7},  // -2000000000
      {ElementType::uint32, "uint32_t", 4000000000u, 8},
      {ElementType::int64, "int64_t", 0x8000000000000001ull, 9},
      {ElementType::uint64, "uint64_t", 18000000000000000000ull, 10},
      {ElementType::float16, "uint16_t", 0x3e00, 0x3c00},  // 1.5 as raw half bits (documented convention)
      {ElementType::float32, "float", f_bits, 0},
      {ElementType::float64, "double", d_bits, 0},
      {ElementType::boolean, "bool", 1, 0},
  };
  std::string params, body;
  std::vector<KernelArgument> arguments;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const std::string k = std::to_string(i);
    params += std::string(i ? ", " : "") + c.c_type + " s" + k + ", " + c.c_type + "* v" + k;
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
  const std::string code = "#include <stdint.h>\n#include <stdbool.h>\nvoid roundtrip(" + params + ") {\n" + body + "}\n";
  auto backend = make_backend("cpp");
  backend->set_arguments(arguments);
  auto kernel = backend->compile({code, "roundtrip", "", {}}, {});
  backend->launch(*kernel, {});
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::size_t size = element_size(cases[i].type);
    std::vector<std::byte> v(2 * size), s(size);
    backend->read_argument(2 * i + 1, v);
    backend->read_argument(2 * i, s);
    EXPECT_EQ(std::memcmp(v.data(), &cases[i].scalar_bits, size), 0) << to_string(cases[i].type);
    EXPECT_EQ(std::memcmp(v.data() + size, &cases[i].other_bits, size), 0) << to_string(cases[i].type);
    EXPECT_EQ(std::memcmp(s.data(), &cases[i].scalar_bits, size), 0) << to_string(cases[i].type);
  }
}

TEST(CppBackend, ResetArgumentRestoresTheInitialContents) {
  auto backend = make_backend("cpp");
  backend->set_arguments(std::vector{vector_argument("x", ElementType::int64, std::vector<std::int64_t>{1, 2, 3}),
                                     scalar_argument("n", ElementType::int32, 3)});
  auto kernel = backend->compile({"void inc(long* x, int n) { for (int i = 0; i < n; ++i) x[i] += 10; }", "inc", "", {}},
                                 {});
  backend->launch(*kernel, {});
  backend->launch(*kernel, {});
  EXPECT_EQ(read_back<std::int64_t>(*backend, 0, 3), (std::vector<std::int64_t>{21, 22, 23}));
  backend->reset_argument(0);
  EXPECT_EQ(read_back<std::int64_t>(*backend, 0, 3), (std::vector<std::int64_t>{1, 2, 3}));
  backend->launch(*kernel, {});
  EXPECT_EQ(read_back<std::int64_t>(*backend, 0, 3), (std::vector<std::int64_t>{11, 12, 13}));
}

TEST(CppBackend, SyntaxErrorIsCompileErrorWithTheCompilerLog) {
  auto backend = make_backend("cpp");
  try {
    backend->compile({"void broken(float* x) { x[0] = undeclared_thing + ; }", "broken", "my_kernel.c", {}}, {});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(e.log().find("undeclared_thing"), std::string::npos) << e.log();
    EXPECT_NE(e.log().find("my_kernel.c:1"), std::string::npos) << "messages point into the user's file\n" << e.log();
    EXPECT_NE(std::string(e.what()).find("broken"), std::string::npos) << e.what();
  }
}

TEST(CppBackend, MissingFunctionIsCompileErrorWithAnExternCHint) {
  auto backend = make_backend("cpp");
  try {
    backend->compile({"void other(void) {}", "wanted", "", {}}, {});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("'wanted'"), std::string::npos) << e.what();
  }
  try {
    backend->compile({"namespace n { int x; }\nvoid wanted() {}", "wanted", "", {}}, {});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("extern \"C\""), std::string::npos) << e.what();
  }
}

TEST(CppBackend, OpenMpCodeIsBuiltWithOpenMp) {
  auto backend = make_backend("cpp");
  const int n = 4096;
  backend->set_arguments(std::vector{vector_argument("x", ElementType::float64, std::vector<double>(n, 1.0)),
                                     scalar_argument("n", ElementType::int32, n)});
  const std::string code = R"(
#include <omp.h>
void scale(double* x, int n) {
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < n; ++i) x[i] = x[i] * 3.0 + omp_get_num_threads();
}
)";
  {
    auto kernel = backend->compile({code, "scale", "", {}}, {});
    backend->launch(*kernel, {});
  }  // the kernel dies while OpenMP's threads may still be parked: its library must stay loaded
  const auto x = read_back<double>(*backend, 0, n);
  EXPECT_EQ(x.front(), 5.0);  // 3 + two threads: compiled with -fopenmp, so omp_get_num_threads() is real
  EXPECT_EQ(x.back(), 5.0);
}

TEST(CppBackend, TimeIsPositiveAndGrowsWithWork) {
  auto backend = make_backend("cpp");
  const std::string code = R"(
void work(double* out, long n) {
  double s = 0.0;
  for (long i = 0; i < n; ++i) s = s * 0.999999 + (double)(i & 7);
  out[0] = s;
}
)";
  auto time_for = [&](std::int64_t n) {
    backend->set_arguments(std::vector{vector_argument("out", ElementType::float64, std::vector<double>{0.0}),
                                       scalar_argument("n", ElementType::int64, n)});
    auto kernel = backend->compile({code, "work", "", {}}, {});
    double best = 1e30;
    for (int r = 0; r < 3; ++r) best = std::min(best, backend->launch(*kernel, {}));
    EXPECT_NE(read_back<double>(*backend, 0, 1)[0], 0.0);
    return best;
  };
  const double small = time_for(10'000);
  const double large = time_for(4'000'000);
  RecordProperty("small_ms", std::to_string(small));
  RecordProperty("large_ms", std::to_string(large));
  EXPECT_GT(small, 0.0);
  EXPECT_GT(large, 5 * small) << "small " << small << " ms, large " << large << " ms";
}

TEST(CppBackend, DeviceInfoNamesTheCpuAndTheCompiler) {
  const auto info = make_backend("cpp")->device_info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_NE(info.platform.find_first_of("0123456789"), std::string::npos) << info.platform;
  EXPECT_EQ(info.max_threads, 0u);
}

TEST(CppBackend, ReadingWithTheWrongSizeIsAnError) {
  auto backend = make_backend("cpp");
  backend->set_arguments(std::vector{vector_argument("x", ElementType::float32, std::vector<float>{1, 2})});
  std::vector<std::byte> wrong(4);
  EXPECT_THROW(backend->read_argument(0, wrong), std::invalid_argument);
  EXPECT_THROW(backend->read_argument(1, wrong), std::out_of_range);
}

}  // namespace
}  // namespace ktune::live
