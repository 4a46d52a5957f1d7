// The cuda backend's host logic (device selection, buffers, copies, kernel parameters, dynamic shared memory, the
// architecture it compiles for, error mapping) against a driver double: the driver API table filled with host
// functions. NVRTC really compiles; the double checks the image and "runs" vector_add on host memory through the
// kernel parameters exactly as the backend passes them. Needs no GPU; the device tests cover the real driver.
#ifdef KTUNE_HAVE_CUDA
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "live/backends/cuda_backend.hpp"
#include "live/backends/cuda_driver.hpp"
#include "live/backends/cuda_nvrtc.hpp"

namespace ktune::live::cuda {
namespace {

struct DoubleState {
  int device_count = 1;
  int capability_major = 8, capability_minor = 6;
  std::map<CUdeviceptr, std::vector<std::byte>> memory;
  CUdeviceptr next_address = 0x10000;
  int uploads = 0, downloads = 0, frees = 0;
  bool module_loaded = false, context_retained = false;
  std::string image;          // what cuModuleLoadData received
  std::string function_name;  // what cuModuleGetFunction looked up
  CUresult launch_result = CUDA_SUCCESS;
  unsigned int shared_bytes = 0, block_x = 0, grid_x = 0;
  int shared_attribute = 0;
  std::map<std::string, CUdeviceptr> globals;  // the module's __constant__ variables (allocated by the test)
};
DoubleState* state = nullptr;

// Opaque handles: any distinct non-null values do.
CUmodule const the_module = reinterpret_cast<CUmodule>(std::uintptr_t{0x1000});
CUfunction const the_function = reinterpret_cast<CUfunction>(std::uintptr_t{0x2000});
CUcontext const the_context = reinterpret_cast<CUcontext>(std::uintptr_t{0x3000});

std::vector<std::byte>& buffer(CUdeviceptr address) {
  auto it = state->memory.find(address);
  if (it == state->memory.end()) throw std::logic_error("the backend used an unallocated device pointer");
  return it->second;
}

DriverApi driver_double() {
  DriverApi api;
  api.init = [](unsigned int) { return CUDA_SUCCESS; };
  api.driver_get_version = [](int* v) { *v = 13000; return CUDA_SUCCESS; };
  api.get_error_name = [](CUresult r, const char** name) {
    *name = r == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
            : r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ? "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"
            : r == CUDA_ERROR_INVALID_IMAGE ? "CUDA_ERROR_INVALID_IMAGE" : "CUDA_ERROR_UNKNOWN";
    return CUDA_SUCCESS;
  };
  api.get_error_string = [](CUresult r, const char** text) {
    *text = r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ? "too many resources requested for launch" : "something";
    return CUDA_SUCCESS;
  };
  api.device_get_count = [](int* count) { *count = state->device_count; return CUDA_SUCCESS; };
  api.device_get = [](CUdevice* device, int ordinal) { *device = ordinal; return CUDA_SUCCESS; };
  api.device_get_name = [](char* name, int length, CUdevice) {
    std::strncpy(name, "Double GPU", static_cast<std::size_t>(length));
    return CUDA_SUCCESS;
  };
  api.device_get_attribute = [](int* value, CUdevice_attribute which, CUdevice) {
    switch (which) {
      case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = state->capability_major; break;
      case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = state->capability_minor; break;
      case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
      case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = 48 * 1024; break;
      case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = 99 * 1024; break;
      case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 84; break;
      default: *value = 1;
    }
    return CUDA_SUCCESS;
  };
  api.device_total_mem = [](std::size_t* bytes, CUdevice) { *bytes = std::size_t{1} << 33; return CUDA_SUCCESS; };
  api.primary_ctx_retain = [](CUcontext* context, CUdevice) {
    state->context_retained = true;
    *context = the_context;
    return CUDA_SUCCESS;
  };
  api.primary_ctx_release = [](CUdevice) { state->context_retained = false; return CUDA_SUCCESS; };
  api.ctx_set_current = [](CUcontext c) { return c == the_context ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; };
  api.ctx_synchronize = []() { return CUDA_SUCCESS; };
  api.module_load_data = [](CUmodule* module, const void* image) {
    const char* bytes = static_cast<const char*>(image);
    // A CUBIN (ELF) or NUL-terminated PTX text.
    state->image = std::memcmp(bytes, "\x7f" "ELF", 4) == 0 ? std::string("ELF") : std::string(bytes);
    state->module_loaded = true;
    *module = the_module;
    return CUDA_SUCCESS;
  };
  api.module_unload = [](CUmodule m) {
    if (m == the_module) state->module_loaded = false;
    return CUDA_SUCCESS;
  };
  api.module_get_function = [](CUfunction* function, CUmodule, const char* name) {
    state->function_name = name;
    *function = the_function;
    return CUDA_SUCCESS;
  };
  api.module_get_global = [](CUdeviceptr* address, std::size_t* bytes, CUmodule module, const char* name) {
    const auto it = state->globals.find(name);
    if (module != the_module || it == state->globals.end()) return CUDA_ERROR_NOT_FOUND;
    *address = it->second;
    *bytes = buffer(it->second).size();
    return CUDA_SUCCESS;
  };
  api.func_set_attribute = [](CUfunction, CUfunction_attribute which, int value) {
    if (which == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) state->shared_attribute = value;
    return CUDA_SUCCESS;
  };
  api.mem_alloc = [](CUdeviceptr* address, std::size_t bytes) {
    *address = state->next_address;
    state->memory[*address].resize(bytes);
    state->next_address += (bytes + 0xfff) & ~std::size_t{0xfff};
    return CUDA_SUCCESS;
  };
  api.mem_free = [](CUdeviceptr address) {
    ++state->frees;
    return state->memory.erase(address) == 1 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  };
  api.memcpy_htod = [](CUdeviceptr to, const void* from, std::size_t bytes) {
    auto& b = buffer(to);
    if (bytes != b.size()) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(b.data(), from, bytes);
    ++state->uploads;
    return CUDA_SUCCESS;
  };
  api.memcpy_dtoh = [](void* to, CUdeviceptr from, std::size_t bytes) {
    auto& b = buffer(from);
    if (bytes != b.size()) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(to, b.data(), bytes);
    ++state->downloads;
    return CUDA_SUCCESS;
  };
  // "Runs" vector_add(float* c, const float* a, const float* b, int n) through the parameter pointers.
  api.launch_kernel = [](CUfunction f, unsigned int gx, unsigned int, unsigned int, unsigned int bx, unsigned int,
                         unsigned int, unsigned int shared, CUstream, void** params, void** extra) {
    if (f != the_function || extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (state->launch_result != CUDA_SUCCESS) return state->launch_result;
    if (bx > 1024) return CUDA_ERROR_INVALID_VALUE;
    state->shared_bytes = shared;
    state->block_x = bx;
    state->grid_x = gx;
    if (state->function_name != "vector_add") return CUDA_SUCCESS;
    auto* c = reinterpret_cast<float*>(buffer(*static_cast<CUdeviceptr*>(params[0])).data());
    auto* a = reinterpret_cast<const float*>(buffer(*static_cast<CUdeviceptr*>(params[1])).data());
    auto* b = reinterpret_cast<const float*>(buffer(*static_cast<CUdeviceptr*>(params[2])).data());
    int n = 0;
    std::memcpy(&n, params[3], sizeof(int));
    for (int i = 0; i < n && static_cast<unsigned int>(i) < gx * bx; ++i) c[i] = a[i] + b[i];
    return CUDA_SUCCESS;
  };
  api.event_create = [](CUevent* e, unsigned int) {
    *e = reinterpret_cast<CUevent>(std::uintptr_t{0x4000});
    return CUDA_SUCCESS;
  };
  api.event_destroy = [](CUevent) { return CUDA_SUCCESS; };
  api.event_record = [](CUevent, CUstream) { return CUDA_SUCCESS; };
  api.event_synchronize = [](CUevent) { return CUDA_SUCCESS; };
  api.event_elapsed_time = [](float* ms, CUevent, CUevent) { *ms = 0.625f; return CUDA_SUCCESS; };
  return api;
}

class CudaDriverDouble : public ::testing::Test {
 protected:
  void SetUp() override { state = &state_; }
  void TearDown() override { state = nullptr; }
  DoubleState state_;
  DriverApi api_ = driver_double();
};

template <class T>
KernelArgument argument(const std::string& name, const std::vector<T>& values, bool scalar = false) {
  KernelArgument a;
  a.name = name;
  a.scalar = scalar;
  a.bytes.resize(values.size() * sizeof(T));
  std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

const char* const vector_add_code = R"(
extern "C" __global__ void vector_add(float* c, const float* a, const float* b, int n) {
  int i = blockIdx.x * block_size_x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
})";

TEST_F(CudaDriverDouble, VectorAddThroughParameters) {
  auto backend = make_cuda_backend_on(api_, {});
  EXPECT_TRUE(state_.context_retained);
  const std::vector<float> a{1, 2, 3, 4, 5}, b{10, 20, 30, 40, 50};
  backend->set_arguments(std::vector<KernelArgument>{argument("c", std::vector<float>(5, -1.0f)), argument("a", a),
                                                     argument("b", b), argument("n", std::vector<int>{5}, true)});
  EXPECT_EQ(state_.memory.size(), 3u);  // the scalar has no buffer
  EXPECT_EQ(state_.uploads, 3);
  auto kernel = backend->compile({vector_add_code, "vector_add", "", {}}, {{"block_size_x", "32"}});
  EXPECT_EQ(state_.function_name, "vector_add");
  EXPECT_EQ(state_.image, "ELF");  // capability 8.6 is supported by NVRTC: a CUBIN for sm_86
  EXPECT_DOUBLE_EQ(backend->launch(*kernel, {{1, 1, 1}, {32, 1, 1}}), 0.625);
  std::vector<float> c(5);
  backend->read_argument(0, std::as_writable_bytes(std::span<float>(c)));
  EXPECT_EQ(c, (std::vector<float>{11, 22, 33, 44, 55}));
  backend->reset_argument(0);
  backend->read_argument(0, std::as_writable_bytes(std::span<float>(c)));
  EXPECT_EQ(c, std::vector<float>(5, -1.0f));
  std::vector<int> n(1);
  backend->read_argument(3, std::as_writable_bytes(std::span<int>(n)));
  EXPECT_EQ(n.front(), 5);
  EXPECT_THROW(backend->read_argument(0, std::as_writable_bytes(std::span<int>(n))), std::invalid_argument);
  EXPECT_THROW(backend->reset_argument(4), std::out_of_range);

  kernel.reset();
  EXPECT_FALSE(state_.module_loaded);
  backend.reset();
  EXPECT_TRUE(state_.memory.empty());  // every buffer freed
  EXPECT_FALSE(state_.context_retained);
}

TEST_F(CudaDriverDouble, NewArgumentsReplaceOldBuffers) {
  auto backend = make_cuda_backend_on(api_, {});
  backend->set_arguments(std::vector<KernelArgument>{argument("x", std::vector<float>(100))});
  backend->set_arguments(std::vector<KernelArgument>{argument("y", std::vector<float>(7)),
                                                     argument("z", std::vector<float>(9))});
  EXPECT_EQ(state_.frees, 1);
  EXPECT_EQ(state_.memory.size(), 2u);
}

TEST_F(CudaDriverDouble, TemplatedKernelUsesLoweredName) {
  auto backend = make_cuda_backend_on(api_, {});
  backend->compile({"template <class T> __global__ void k(T* x) { x[0] = T(1); }", "k<double>", "", {}}, {});
  EXPECT_TRUE(state_.function_name.starts_with("_Z")) << state_.function_name;
}

TEST_F(CudaDriverDouble, DeviceNewerThanNvrtcGetsPtx) {
  state_.capability_major = 99;  // beyond every NVRTC architecture: the newest PTX, JIT-compiled by the driver
  auto backend = make_cuda_backend_on(api_, {});
  backend->compile({vector_add_code, "vector_add", "", {}}, {{"block_size_x", "32"}});
  const std::string newest = std::to_string(nvrtc_supported_architectures().back());
  EXPECT_NE(state_.image.find(".target sm_" + newest), std::string::npos) << state_.image.substr(0, 400);
}

TEST_F(CudaDriverDouble, UserArchitectureOverridesTheDevice) {
  auto backend = make_cuda_backend_on(api_, {});
  backend->compile({vector_add_code, "vector_add", "", {"--gpu-architecture=compute_75"}}, {{"block_size_x", "32"}});
  EXPECT_NE(state_.image.find(".target sm_75"), std::string::npos);
}

TEST_F(CudaDriverDouble, LocalMemoryIsDynamicSharedMemoryWithOptIn) {
  auto backend = make_cuda_backend_on(api_, {});
  KernelArgument tile = argument("tile", std::vector<float>(16 * 1024));  // 64 KiB: above the 48 KiB default
  tile.local_memory = true;
  backend->set_arguments(std::vector<KernelArgument>{argument("x", std::vector<float>(4)), tile});
  EXPECT_EQ(state_.memory.size(), 1u);
  EXPECT_THROW(backend->read_argument(1, tile.bytes), std::invalid_argument);
  auto kernel = backend->compile({"__global__ void k(float* x) { extern __shared__ float t[]; x[0] = t[0]; }", "k",
                                  "", {}},
                                 {});
  backend->launch(*kernel, {{3, 1, 1}, {64, 1, 1}});
  EXPECT_EQ(state_.shared_bytes, 64u * 1024u);
  EXPECT_EQ(state_.shared_attribute, 64 * 1024);
  EXPECT_EQ(state_.grid_x, 3u);
  EXPECT_EQ(state_.block_x, 64u);
}

TEST_F(CudaDriverDouble, LaunchErrorsNamed) {
  auto backend = make_cuda_backend_on(api_, {});
  backend->set_arguments(std::vector<KernelArgument>{argument("c", std::vector<float>(4)),
                                                     argument("a", std::vector<float>(4)),
                                                     argument("b", std::vector<float>(4)),
                                                     argument("n", std::vector<int>{4}, true)});
  auto kernel = backend->compile({vector_add_code, "vector_add", "", {}}, {{"block_size_x", "4096"}});
  try {
    backend->launch(*kernel, {{1, 1, 1}, {4096, 1, 1}});
    FAIL() << "expected LaunchError";
  } catch (const LaunchError& error) {
    EXPECT_NE(std::string(error.what()).find("CUDA_ERROR_INVALID_VALUE"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("block 4096x1x1"), std::string::npos) << error.what();
  }
  state_.launch_result = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  try {
    backend->launch(*kernel, {{1, 1, 1}, {256, 1, 1}});
    FAIL() << "expected LaunchError";
  } catch (const LaunchError& error) {
    EXPECT_NE(std::string(error.what()).find("too many resources requested for launch"), std::string::npos)
        << error.what();
  }
}

TEST_F(CudaDriverDouble, DeviceInfo) {
  auto backend = make_cuda_backend_on(api_, {});
  DeviceInfo info = backend->device_info();
  EXPECT_EQ(info.name, "Double GPU");
  EXPECT_EQ(info.platform, "CUDA 13.0");
  EXPECT_EQ(info.max_threads, 1024u);
  EXPECT_EQ(info.max_local_memory, 99u * 1024u);  // the opt-in maximum, which launch() opts in to
  std::map<std::string, std::string> properties(info.properties.begin(), info.properties.end());
  EXPECT_EQ(properties["compute_capability"], "8.6");
  EXPECT_EQ(properties["multiprocessors"], "84");
  EXPECT_EQ(properties["nvrtc_architecture"], "sm_86");
}

TEST_F(CudaDriverDouble, NoDeviceOrBadOrdinal) {
  state_.device_count = 0;
  try {
    make_cuda_backend_on(api_, {});
    FAIL() << "expected BackendUnavailable";
  } catch (const BackendUnavailable& error) {
    EXPECT_EQ(std::string(error.what()), "no CUDA device");
  }
  state_.device_count = 2;
  BackendOptions options;
  options.device = 2;
  try {
    make_cuda_backend_on(api_, options);
    FAIL() << "expected BackendUnavailable";
  } catch (const BackendUnavailable& error) {
    EXPECT_NE(std::string(error.what()).find("no CUDA device 2 (this machine has 2: 0..1)"), std::string::npos)
        << error.what();
  }
  EXPECT_FALSE(state_.context_retained);
}

// Kernel Tuner's cmem_args: each __constant__ variable is filled in the module before it runs; one the module lacks,
// or contents larger than it, fail the configuration as a compile failure naming it, and its module is unloaded.
TEST_F(CudaDriverDouble, ConstantMemoryIsFilledInEachModule) {
  auto backend = make_cuda_backend_on(api_, {});
  backend->set_arguments(std::vector<KernelArgument>{argument("c", std::vector<float>(4, 0.0f)),
                                                     argument("a", std::vector<float>{1, 2, 3, 4}),
                                                     argument("b", std::vector<float>{1, 1, 1, 1}),
                                                     argument("n", std::vector<int>{4}, true)});
  CUdeviceptr weights = 0;
  ASSERT_EQ(api_.mem_alloc(&weights, 4 * sizeof(float)), CUDA_SUCCESS);
  state_.globals["weights"] = weights;
  const std::vector<float> values{0.5f, 1.5f, 2.5f, 3.5f};
  const auto as_bytes = [](const std::vector<float>& v) {
    const auto span = std::as_bytes(std::span<const float>(v));
    return std::vector<std::byte>(span.begin(), span.end());
  };
  KernelSource source{R"(
__constant__ float weights[4];
extern "C" __global__ void scaled_add(float* c, const float* a, const float* b, int n) {
  int i = blockIdx.x * block_size_x + threadIdx.x;
  if (i < n) c[i] = a[i] * weights[i] + b[i];
})", "scaled_add", "", {}};
  source.constant_memory = {{"weights", as_bytes(values)}};
  const int uploads = state_.uploads;
  auto kernel = backend->compile(source, {{"block_size_x", "32"}});
  EXPECT_EQ(state_.uploads, uploads + 1);
  EXPECT_EQ(state_.memory.at(weights), as_bytes(values));
  kernel.reset();

  source.constant_memory = {{"filter", as_bytes(values)}};
  try {
    (void)backend->compile(source, {{"block_size_x", "32"}});
    ADD_FAILURE() << "a missing __constant__ variable was not reported";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("constant memory 'filter': kernel scaled_add has no __constant__ variable"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(state_.module_loaded);
  source.constant_memory = {{"weights", as_bytes({1, 2, 3, 4, 5})}};
  try {
    (void)backend->compile(source, {{"block_size_x", "32"}});
    ADD_FAILURE() << "contents larger than the variable were not reported";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("20 bytes given for a __constant__ variable of 16 bytes"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(state_.module_loaded);
}

}  // namespace
}  // namespace ktune::live::cuda
#endif
