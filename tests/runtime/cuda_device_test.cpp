// The runtime's CUDA device against a double of the driver API and NVRTC (host functions in the tables of
// src/runtime/cuda_api.hpp): the architecture it compiles for, the defines and name lookup, device memory and
// copies, the kernel parameters and geometry of a launch, capture, errors. The double "runs" vector_add on its host
// memory through the kernel parameters exactly as the device passes them. Needs no GPU.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ktune/io/t1_reader.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/runtime.hpp"
#include "runtime/cuda_api.hpp"

namespace ktune::runtime::cuda {
namespace {

struct Double {
  std::map<CUdeviceptr, std::vector<unsigned char>> memory;
  CUdeviceptr next = 0x1000;
  std::string source, name_expression, module_image, function;
  std::vector<std::string> options;
  unsigned grid[3] = {}, block[3] = {};
  int launches = 0, allocations = 0, frees = 0, unloads = 0;
};
Double* d = nullptr;

CUmodule const kModule = reinterpret_cast<CUmodule>(std::uintptr_t{0x10});
CUfunction const kFunction = reinterpret_cast<CUfunction>(std::uintptr_t{0x20});
CUcontext const kContext = reinterpret_cast<CUcontext>(std::uintptr_t{0x30});
nvrtcProgram const kProgram = reinterpret_cast<nvrtcProgram>(std::uintptr_t{0x40});

std::vector<unsigned char>& at(CUdeviceptr p) { return d->memory.at(p); }

DriverApi driver() {
  DriverApi api;
  api.init = [](unsigned) { return 0; };
  api.device_get_count = [](int* n) { return *n = 1, 0; };
  api.device_get = [](CUdevice* dev, int i) { return *dev = i, 0; };
  api.device_get_name = [](char* name, int size, CUdevice) {
    std::snprintf(name, static_cast<std::size_t>(size), "Double GPU 8600");
    return 0;
  };
  api.device_get_attribute = [](int* v, int attribute, CUdevice) {
    return *v = attribute == kComputeCapabilityMajor ? 8 : 6, 0;
  };
  api.primary_ctx_retain = [](CUcontext* c, CUdevice) { return *c = kContext, 0; };
  api.primary_ctx_release = [](CUdevice) { return 0; };
  api.ctx_set_current = [](CUcontext c) { return c == kContext ? 0 : 201; };
  api.ctx_synchronize = [] { return 0; };
  api.module_load_data = [](CUmodule* m, const void* image) {
    d->module_image = static_cast<const char*>(image);
    return *m = kModule, 0;
  };
  api.module_unload = [](CUmodule) { return ++d->unloads, 0; };
  api.module_get_function = [](CUfunction* f, CUmodule, const char* name) {
    d->function = name;
    return *f = kFunction, 0;
  };
  api.mem_alloc = [](CUdeviceptr* p, std::size_t bytes) {
    *p = d->next;
    d->next += 0x1000 + bytes;
    d->memory[*p].resize(bytes);
    ++d->allocations;
    return 0;
  };
  api.mem_free = [](CUdeviceptr p) { return d->memory.erase(p), ++d->frees, 0; };
  api.memcpy_htod = [](CUdeviceptr p, const void* host, std::size_t bytes) {
    std::memcpy(at(p).data(), host, bytes);
    return 0;
  };
  api.memcpy_dtoh = [](void* host, CUdeviceptr p, std::size_t bytes) {
    std::memcpy(host, at(p).data(), bytes);
    return 0;
  };
  // vector_add(float* c, const float* a, const float* b, int n), as the parameters arrive.
  api.launch_kernel = [](CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                         unsigned, CUstream, void** params, void**) {
    if (f != kFunction) return 400;
    d->grid[0] = gx, d->grid[1] = gy, d->grid[2] = gz, d->block[0] = bx, d->block[1] = by, d->block[2] = bz;
    ++d->launches;
    auto* c = reinterpret_cast<float*>(at(*static_cast<CUdeviceptr*>(params[0])).data());
    const auto* a = reinterpret_cast<const float*>(at(*static_cast<CUdeviceptr*>(params[1])).data());
    const auto* b = reinterpret_cast<const float*>(at(*static_cast<CUdeviceptr*>(params[2])).data());
    const int n = *static_cast<const int*>(params[3]);
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
    return 0;
  };
  api.get_error_name = [](CUresult, const char** name) { return *name = "CUDA_ERROR_DOUBLE", 0; };
  return api;
}

NvrtcApi nvrtc() {
  NvrtcApi api;
  api.create_program = [](nvrtcProgram* p, const char* source, const char*, int, const char* const*,
                          const char* const*) {
    d->source = source;
    return *p = kProgram, 0;
  };
  api.destroy_program = [](nvrtcProgram* p) { return *p = nullptr, 0; };
  api.add_name_expression = [](nvrtcProgram, const char* name) { return d->name_expression = name, 0; };
  api.compile_program = [](nvrtcProgram, int n, const char* const* options) {
    d->options.assign(options, options + n);
    return d->source.find("#error") == std::string::npos ? 0 : 6;
  };
  api.get_lowered_name = [](nvrtcProgram, const char*, const char** lowered) { return *lowered = "_Z10vector_addPfPKfS1_i", 0; };
  api.get_program_log_size = [](nvrtcProgram, std::size_t* size) { return *size = 12, 0; };
  api.get_program_log = [](nvrtcProgram, char* log) { return std::memcpy(log, "error: boom\n", 12), 0; };
  api.get_ptx_size = [](nvrtcProgram, std::size_t* size) { return *size = d->source.size() + 1, 0; };
  api.get_ptx = [](nvrtcProgram, char* ptx) { return std::memcpy(ptx, d->source.c_str(), d->source.size() + 1), 0; };
  api.get_num_supported_archs = [](int* n) { return *n = 4, 0; };
  api.get_supported_archs = [](int* archs) {
    const int supported[] = {75, 80, 89, 90};
    return std::memcpy(archs, supported, sizeof supported), 0;
  };
  return api;
}

constexpr const char* kSource = R"(
extern "C" __global__ void vector_add(float* c, const float* a, const float* b, int n) {
  int i = blockIdx.x * block_size_x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
})";

KernelDefinition definition() {
  return KernelDefinition("vector_add", "vector_add.cu")
      .source_code(kSource)
      .tune("block_size_x", {64, 128, 256}, 128)
      .argument_names({"c", "a", "b", "n"});
}

class RuntimeCudaDouble : public ::testing::Test {
 protected:
  void SetUp() override { d = &state_; }
  void TearDown() override { d = nullptr; }
  Double state_;
  const DriverApi driver_ = driver();
  const NvrtcApi nvrtc_ = nvrtc();
};

TEST_F(RuntimeCudaDouble, CompilesForTheDeviceAndLaunchesWithTheTunedGeometry) {
  auto device = make_device(driver_, nvrtc_, 0);
  EXPECT_EQ(device->name(), "Double GPU 8600");
  EXPECT_EQ(device->backend(), "cuda");
  auto wisdom = std::make_shared<Wisdom>();
  wisdom->declare("vector_add", std::vector<std::string>{"block_size_x"});
  WisdomEntry e;
  e.device = "Double GPU 8600";
  e.problem_size = {1000};
  e.values = {"256"};
  wisdom->add("vector_add", e);
  Kernel kernel(definition(), device, wisdom);
  std::vector<float> a(1000, 1.5f), b(1000, 2.0f), c(1000, 0.0f);
  kernel.launch({1000}, out(c), in(a), in(b), scalar(1000));
  for (float x : c) ASSERT_EQ(x, 3.5f);
  EXPECT_EQ(state_.block[0], 256u);
  EXPECT_EQ(state_.grid[0], 4u);  // ceil(1000 / 256)
  EXPECT_EQ(state_.grid[1], 1u);
  // The newest architecture NVRTC has at or below the device's 8.6; C++17; the defines before the code.
  EXPECT_NE(std::find(state_.options.begin(), state_.options.end(), "--gpu-architecture=compute_80"), state_.options.end());
  EXPECT_NE(std::find(state_.options.begin(), state_.options.end(), "--std=c++17"), state_.options.end());
  EXPECT_NE(state_.module_image.find("#define block_size_x 256\n"), std::string::npos);
  EXPECT_NE(state_.module_image.find("#define grid_size_x 4\n"), std::string::npos);
  EXPECT_EQ(state_.module_image.find("kernel_tuner"), std::string::npos);
  EXPECT_EQ(state_.name_expression, "vector_add");
  EXPECT_EQ(state_.function, "_Z10vector_addPfPKfS1_i");  // the lowered name
  EXPECT_EQ(state_.allocations, 3);
  EXPECT_EQ(state_.frees, 3);  // nothing staged is left behind
  EXPECT_TRUE(state_.memory.empty());
  kernel.launch({1000}, out(c), in(a), in(b), scalar(1000));
  EXPECT_EQ(kernel.compilations(), 1u);
}

TEST_F(RuntimeCudaDouble, DeviceMemoryOfTheApplicationIsUsedInPlace) {
  auto device = make_device(driver_, nvrtc_, 0);
  const DriverApi& api = driver_;
  CUdeviceptr a = 0, b = 0, c = 0;
  api.mem_alloc(&a, 40);
  api.mem_alloc(&b, 40);
  api.mem_alloc(&c, 40);
  std::vector<float> ha(10, 1.0f), hb(10, 4.0f), hc(10, 0.0f);
  api.memcpy_htod(a, ha.data(), 40);
  api.memcpy_htod(b, hb.data(), 40);
  Kernel kernel(definition(), device);
  kernel.launch({10}, cuda_buffer<float>(c, 10, Access::write_only), cuda_buffer<float>(a, 10, Access::read_only),
                cuda_buffer<float>(b, 10, Access::read_only), scalar(10));
  api.memcpy_dtoh(hc.data(), c, 40);
  for (float x : hc) EXPECT_EQ(x, 5.0f);
  EXPECT_EQ(state_.allocations, 3);  // the application's three, no staging
  EXPECT_EQ(state_.block[0], 128u);  // the default configuration
}

TEST_F(RuntimeCudaDouble, CaptureWritesACudaProblem) {
  const auto dir = std::filesystem::temp_directory_path() / ("ktune-runtime-cuda-capture-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  Kernel kernel(definition(), make_device(driver_, nvrtc_, 0));
  kernel.capture_into(dir.string());
  std::vector<float> a(300, 1.0f), b(300, 0.25f), c(300, 0.0f);
  kernel.launch({300}, out(c), in(a), in(b), scalar(300));
  const std::string t1 = (dir / "vector_add.t1.json").string();
  const Problem problem = io::read_t1_file(t1);
  const live::KernelSpecification spec = live::read_t1_kernel_specification(t1, problem);
  EXPECT_EQ(spec.backend, "cuda");
  EXPECT_EQ(spec.backend_options.device, 0);
  EXPECT_EQ(spec.verification.files.count("c"), 1u);
  const auto arguments = live::make_arguments(spec, problem);
  EXPECT_EQ(arguments[1].bytes.size(), 300 * sizeof(float));
  std::ifstream in(dir / "vector_add.data" / "c.expected.bin", std::ios::binary);
  std::vector<float> expected(300);
  in.read(reinterpret_cast<char*>(expected.data()), 300 * sizeof(float));
  EXPECT_TRUE(in);
  for (float x : expected) EXPECT_EQ(x, 1.25f);
  std::filesystem::remove_all(dir);
}

TEST_F(RuntimeCudaDouble, CompileErrorsCarryTheLog) {
  Kernel kernel(KernelDefinition("broken", "broken.cu").source_code("#error no\n").tune("x", {1}, 1),
                make_device(driver_, nvrtc_, 0));
  try {
    kernel.launch({1});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("compiling kernel 'broken' failed:\nerror: boom"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_device(driver_, nvrtc_, 3), std::runtime_error);  // no such device
}

TEST(RuntimeCuda, WithoutADriverTheErrorSaysSo) {
  try {
    (void)cuda_device();
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.find("CUDA driver") != std::string::npos || what.find("NVRTC") != std::string::npos ||
                what.find("cuda device") != std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace ktune::runtime::cuda
