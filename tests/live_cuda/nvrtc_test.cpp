// NVRTC compilation, host-only: real compilations to PTX/CUBIN for a fixed architecture, no GPU or driver needed.
#ifdef KTUNE_HAVE_CUDA
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "live/backends/cuda_nvrtc.hpp"

namespace ktune::live::cuda {
namespace {
namespace nvrtc_test {

const char* const vector_add_code = R"(
extern "C" __global__ void vector_add(int* c, const int* a, const int* b, int n) {
  int i = blockIdx.x * block_size_x + threadIdx.x;
  if (i < n) c[i] = a[i] * FACTOR + b[i];
}
)";

const char* const templated_code = R"(
template <typename T>
__global__ void vector_add(T* c, const T* a, const T* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

std::vector<std::string> options_for(const std::string& architecture) {
  return nvrtc_options({}, architecture, toolkit_include_dirs());
}

TEST(CudaNvrtc, ExternCKernelToPtxWithDefinesApplied) {
  KernelSource source{vector_add_code, "vector_add", "", {}};
  const Defines defines{{"block_size_x", "1000"}, {"FACTOR", "12345"}};
  NvrtcImage image = compile_with_nvrtc(source_with_defines(source, defines), "vector_add.cu", "vector_add",
                                        options_for("compute_75"));
  EXPECT_FALSE(image.cubin);
  EXPECT_EQ(image.lowered_name, "vector_add");  // extern "C": not mangled
  EXPECT_NE(image.image.find(".entry vector_add("), std::string::npos) << image.image;
  EXPECT_NE(image.image.find(".target sm_75"), std::string::npos);
  // Both defines reached the code: the multiplication by FACTOR and the block size in the index computation.
  EXPECT_NE(image.image.find("12345"), std::string::npos) << image.image;
  EXPECT_NE(image.image.find("1000"), std::string::npos) << image.image;
  EXPECT_EQ(image.image.back(), '\0');  // cuModuleLoadData reads PTX as a C string
}

TEST(CudaNvrtc, DifferentDefineValuesGiveDifferentCode) {
  KernelSource source{vector_add_code, "vector_add", "", {}};
  NvrtcImage a = compile_with_nvrtc(source_with_defines(source, {{"block_size_x", "64"}, {"FACTOR", "777"}}),
                                    "k.cu", "vector_add", options_for("compute_75"));
  NvrtcImage b = compile_with_nvrtc(source_with_defines(source, {{"block_size_x", "64"}, {"FACTOR", "999"}}),
                                    "k.cu", "vector_add", options_for("compute_75"));
  EXPECT_NE(a.image.find("777"), std::string::npos);
  EXPECT_EQ(a.image.find("999"), std::string::npos);
  EXPECT_NE(b.image.find("999"), std::string::npos);
}

TEST(CudaNvrtc, TemplatedKernelThroughNameExpression) {
  NvrtcImage image = compile_with_nvrtc(templated_code, "templated.cu", "vector_add<float>", options_for("compute_75"));
  // The lowered (mangled) name of the float instantiation is the PTX entry.
  EXPECT_TRUE(image.lowered_name.starts_with("_Z")) << image.lowered_name;
  EXPECT_NE(image.lowered_name.find("vector_add"), std::string::npos);
  EXPECT_NE(image.image.find(".entry " + image.lowered_name + "("), std::string::npos) << image.image;
  EXPECT_NE(image.image.find("add.f32"), std::string::npos);  // float, not another instantiation

  NvrtcImage as_double =
      compile_with_nvrtc(templated_code, "templated.cu", "vector_add<double>", options_for("compute_75"));
  EXPECT_NE(as_double.lowered_name, image.lowered_name);
  EXPECT_NE(as_double.image.find("add.f64"), std::string::npos);
}

TEST(CudaNvrtc, NamespacedCppKernel) {
  const std::string code = "namespace ops { __global__ void scale(float* x, float s) { x[threadIdx.x] *= s; } }\n";
  NvrtcImage image = compile_with_nvrtc(code, "ns.cu", "ops::scale", options_for("compute_80"));
  EXPECT_NE(image.lowered_name.find("ops"), std::string::npos) << image.lowered_name;
  EXPECT_NE(image.image.find(".entry " + image.lowered_name + "("), std::string::npos);
  EXPECT_NE(image.image.find(".target sm_80"), std::string::npos);
}

TEST(CudaNvrtc, RealArchitectureGivesCubin) {
  KernelSource source{vector_add_code, "vector_add", "", {}};
  NvrtcImage image = compile_with_nvrtc(source_with_defines(source, {{"block_size_x", "32"}, {"FACTOR", "3"}}), "k.cu",
                                        "vector_add", options_for("sm_75"));
  EXPECT_TRUE(image.cubin);
  ASSERT_GE(image.image.size(), 4u);
  EXPECT_EQ(image.image.substr(0, 4), std::string("\x7f" "ELF"));
}

TEST(CudaNvrtc, SyntaxErrorGivesCompileErrorWithNvrtcLog) {
  // Line 2 of the user's code is wrong; the defines before it must not shift the reported line.
  KernelSource source{"__global__ void broken(float* x) {\n  x[0] = undeclared_name;\n}\n", "broken", "", {}};
  const std::string code = source_with_defines(source, {{"A", "1"}, {"B", "2"}, {"C", "3"}});
  try {
    compile_with_nvrtc(code, "broken.cu", "broken", options_for("compute_75"));
    FAIL() << "expected CompileError";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("undeclared_name"), std::string::npos) << error.log();
    EXPECT_NE(error.log().find("broken.cu(2)"), std::string::npos) << error.log();
    EXPECT_NE(std::string(error.what()).find("undeclared_name"), std::string::npos) << error.what();
  }
}

TEST(CudaNvrtc, UnknownKernelNameIsCompileError) {
  try {
    compile_with_nvrtc(templated_code, "templated.cu", "no_such_kernel<float>", options_for("compute_75"));
    FAIL() << "expected CompileError";
  } catch (const CompileError& error) {
    EXPECT_NE(std::string(error.what()).find("no_such_kernel"), std::string::npos) << error.what();
  }
}

TEST(CudaNvrtc, InvalidUserOptionIsCompileError) {
  EXPECT_THROW(compile_with_nvrtc(templated_code, "templated.cu", "vector_add<float>",
                                  nvrtc_options({"--no-such-option"}, "compute_75", {})),
               CompileError);
}

TEST(CudaNvrtc, UserCompilerOptionsReachNvrtc) {
  const std::string code = "__global__ void k(int* x) { x[0] = FROM_OPTION; }\n";
  NvrtcImage image = compile_with_nvrtc(code, "k.cu", "k", nvrtc_options({"-DFROM_OPTION=4242"}, "compute_75", {}));
  EXPECT_NE(image.image.find("4242"), std::string::npos);
}

TEST(CudaNvrtc, ToolkitHeadersAreFound) {
  const std::vector<std::string> dirs = toolkit_include_dirs();
  ASSERT_FALSE(dirs.empty());
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dirs.front()) / "cuda_fp16.h"));
  const std::string code = R"(
#include <cuda_fp16.h>
__global__ void halve(__half* x) { x[threadIdx.x] = __hmul(x[threadIdx.x], __float2half(0.5f)); }
)";
  NvrtcImage image = compile_with_nvrtc(code, "half.cu", "halve", options_for("compute_75"));
  EXPECT_NE(image.image.find(".entry " + image.lowered_name), std::string::npos);
  // Without the include directory the same code does not compile: the option is what makes it work.
  EXPECT_THROW(compile_with_nvrtc(code, "half.cu", "halve", nvrtc_options({}, "compute_75", {})), CompileError);
}

TEST(CudaNvrtcOptions, StandardAddedUnlessGiven) {
  auto has = [](const std::vector<std::string>& options, const std::string& option) {
    return std::find(options.begin(), options.end(), option) != options.end();
  };
  EXPECT_TRUE(has(nvrtc_options({}, "sm_80", {}), "--std=c++17"));
  for (const char* given : {"-std=c++14", "--std=c++20"}) {
    auto options = nvrtc_options({given}, "sm_80", {});
    EXPECT_FALSE(has(options, "--std=c++17")) << given;
    EXPECT_TRUE(has(options, given));
  }
}

TEST(CudaNvrtcOptions, IncludeDirsAndArchitecture) {
  auto options = nvrtc_options({"-lineinfo"}, "compute_86", {"/opt/cuda/include", "/src/kernels"});
  const std::vector<std::string> expected{"-lineinfo", "--std=c++17", "-I/opt/cuda/include", "-I/src/kernels",
                                          "--gpu-architecture=compute_86"};
  EXPECT_EQ(options, expected);
}

TEST(CudaNvrtcOptions, UserArchitectureWins) {
  for (const char* given : {"-arch=sm_90", "--gpu-architecture=compute_80"}) {
    auto options = nvrtc_options({given}, "sm_86", {});
    EXPECT_EQ(std::count_if(options.begin(), options.end(),
                            [](const std::string& o) { return o.find("arch") != std::string::npos; }),
              1)
        << given;
    EXPECT_EQ(options.front(), given);
  }
}

TEST(CudaNvrtcOptions, ArchitectureClampedToSupported) {
  const std::vector<int> supported{75, 80, 86, 89, 90, 100, 120};
  EXPECT_EQ(architecture_for(86, supported), "sm_86");        // exact: a CUBIN
  EXPECT_EQ(architecture_for(87, supported), "compute_86");   // not supported: newest PTX below it
  EXPECT_EQ(architecture_for(121, supported), "compute_120");  // newer than this NVRTC: PTX, JIT by the driver
  EXPECT_EQ(architecture_for(61, supported), "compute_75");   // older than all: the oldest (driver reports)
  EXPECT_EQ(architecture_for(80, {}), "compute_80");
}

TEST(CudaNvrtcOptions, SupportedArchitecturesFromNvrtc) {
  const std::vector<int> supported = nvrtc_supported_architectures();
  ASSERT_FALSE(supported.empty());
  EXPECT_TRUE(std::is_sorted(supported.begin(), supported.end()));
  // Every reported architecture really compiles, as a CUBIN for its own sm_XY.
  const int newest = supported.back();
  NvrtcImage image = compile_with_nvrtc(templated_code, "t.cu", "vector_add<int>",
                                        options_for(architecture_for(newest, supported)));
  EXPECT_TRUE(image.cubin);
  EXPECT_FALSE(nvrtc_version().empty());
}

TEST(CudaNvrtcOptions, SourceWithDefines) {
  KernelSource source{"int x;\n", "k", "", {}};
  EXPECT_EQ(source_with_defines(source, {{"block_size_x", "256"}, {"kernel_tuner", "1"}}),
            "#define block_size_x 256\n#define kernel_tuner 1\n#line 1\nint x;\n");
  EXPECT_EQ(source_with_defines(source, {}), "int x;\n");
}

}  // namespace nvrtc_test
}  // namespace
}  // namespace ktune::live::cuda
#endif
