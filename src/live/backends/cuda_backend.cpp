// The cuda live backend: NVRTC compiles each configuration for the device's architecture, the driver API (opened at
// run time, see cuda_driver.hpp) loads it, owns the argument buffers and times each launch with events.
#ifdef KTUNE_HAVE_CUDA
#include <cuda.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ktune/live/backend.hpp"
#include "live/backends/backend_factories.hpp"
#include "live/backends/cuda_backend.hpp"
#include "live/backends/cuda_driver.hpp"
#include "live/backends/cuda_launch_layout.hpp"
#include "live/backends/cuda_nvrtc.hpp"

namespace ktune::live {
namespace {

using cuda::DriverApi;

// Default dynamic shared memory limit of a function; more needs an explicit opt-in per function (Volta and newer).
constexpr std::size_t default_dynamic_shared_limit = 48 * 1024;

class CudaKernel final : public CompiledKernel {
 public:
  CudaKernel(const DriverApi& api, CUmodule module, CUfunction function, std::string name)
      : api_(api), module_(module), function_(function), name_(std::move(name)) {}
  CudaKernel(const CudaKernel&) = delete;
  CudaKernel& operator=(const CudaKernel&) = delete;
  ~CudaKernel() override { api_.module_unload(module_); }

  CUfunction function() const { return function_; }
  const std::string& name() const { return name_; }
  // The dynamic shared memory this function has been opted in to (0: the default limit).
  std::size_t shared_opt_in = 0;

 private:
  const DriverApi& api_;
  CUmodule module_;
  CUfunction function_;
  std::string name_;
};

class CudaBackend final : public Backend {
 public:
  CudaBackend(const DriverApi& api, const BackendOptions& options) : api_(api), ordinal_(options.device) {
    int count = 0;
    if (CUresult result = api_.device_get_count(&count); result != CUDA_SUCCESS) {
      throw BackendUnavailable("no CUDA device (cuDeviceGetCount: " + api_.error_name(result) + ")");
    }
    if (count == 0) throw BackendUnavailable("no CUDA device");
    count_ = static_cast<std::size_t>(count);
    if (ordinal_ < 0 || ordinal_ >= count) {
      throw BackendUnavailable(fmt::format("no CUDA device {} (this machine has {}: 0..{})", ordinal_, count, count - 1));
    }
    check_unavailable(api_.device_get(&device_, ordinal_), "cuDeviceGet");
    // The primary context is the one the CUDA runtime and other libraries share; retaining it also avoids the
    // cuCtxCreate signature that changed between driver versions.
    check_unavailable(api_.primary_ctx_retain(&context_, device_), "cuDevicePrimaryCtxRetain");
    try {
      make_current();
      capability_ = 10 * attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) +
                    attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
      architecture_ = cuda::architecture_for(capability_, cuda::nvrtc_supported_architectures());
      check_unavailable(api_.event_create(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
      check_unavailable(api_.event_create(&stop_, CU_EVENT_DEFAULT), "cuEventCreate");
    } catch (...) {
      release();
      throw;
    }
  }
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;
  ~CudaBackend() override { release(); }

  std::string name() const override { return "cuda"; }

  DeviceInfo device_info() const override {
    make_current();
    DeviceInfo info;
    char name[256] = {};
    if (api_.device_get_name(name, sizeof(name) - 1, device_) == CUDA_SUCCESS) info.name = name;
    int version = 0;
    api_.driver_get_version(&version);  // 13000 -> "13.0"
    info.platform = fmt::format("CUDA {}.{}", version / 1000, (version % 1000) / 10);
    info.device_count = count_;
    info.max_threads = static_cast<std::uint64_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    // Dynamic shared memory can use the opt-in maximum (launch() opts in); older devices report 0 for it.
    const int opt_in = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    const int per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    info.max_local_memory = static_cast<std::uint64_t>(opt_in > 0 ? opt_in : per_block);
    std::size_t memory = 0;
    api_.device_total_mem(&memory, device_);
    info.properties = {
        {"device_ordinal", std::to_string(ordinal_)},
        {"compute_capability", fmt::format("{}.{}", capability_ / 10, capability_ % 10)},
        {"multiprocessors", std::to_string(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT))},
        {"warp_size", std::to_string(attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE))},
        {"shared_memory_per_block", std::to_string(per_block)},
        {"shared_memory_per_block_optin", std::to_string(opt_in)},
        {"registers_per_block", std::to_string(attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK))},
        {"global_memory_bytes", std::to_string(memory)},
        {"driver_version", std::to_string(version)},
        {"nvrtc_version", cuda::nvrtc_version()},
        {"nvrtc_architecture", architecture_},
    };
    return info;
  }

  void set_arguments(std::span<const KernelArgument> arguments) override {
    make_current();
    free_buffers();
    arguments_.assign(arguments.begin(), arguments.end());
    layout_ = cuda::launch_layout(arguments_);
    buffers_.assign(arguments_.size(), CUdeviceptr{0});
    for (std::size_t i = 0; i < arguments_.size(); ++i) {
      const KernelArgument& argument = arguments_[i];
      if (argument.scalar || argument.local_memory || argument.bytes.empty()) continue;
      if (CUresult result = api_.mem_alloc(&buffers_[i], argument.bytes.size()); result != CUDA_SUCCESS) {
        buffers_[i] = 0;
        throw LaunchError(fmt::format("cannot allocate {} bytes on the GPU for argument {}: {}", argument.bytes.size(),
                                      argument.name, api_.error_text(result)));
      }
      reset_argument(i);
    }
    // cuLaunchKernel reads each parameter through a pointer: the device pointer's storage or the scalar's bytes.
    parameters_.clear();
    for (std::size_t i : layout_.parameters) {
      parameters_.push_back(arguments_[i].scalar ? static_cast<void*>(arguments_[i].bytes.data())
                                                 : static_cast<void*>(&buffers_[i]));
    }
  }

  void reset_argument(std::size_t i) override {
    const KernelArgument& argument = checked_argument(i);
    if (buffers_[i] == 0) return;  // scalars and local memory have no device contents
    make_current();
    if (CUresult result = api_.memcpy_htod(buffers_[i], argument.bytes.data(), argument.bytes.size());
        result != CUDA_SUCCESS) {
      throw LaunchError(fmt::format("cannot copy argument {} to the GPU: {}", argument.name, api_.error_text(result)));
    }
  }

  void read_argument(std::size_t i, std::span<std::byte> out) override {
    const KernelArgument& argument = checked_argument(i);
    if (out.size() != argument.bytes.size()) {
      throw std::invalid_argument(fmt::format("reading argument {}: {} bytes requested, it has {}", argument.name,
                                              out.size(), argument.bytes.size()));
    }
    if (argument.local_memory) {
      throw std::invalid_argument(fmt::format("argument {} is shared memory: it has no contents to read",
                                              argument.name));
    }
    if (buffers_[i] == 0) {  // a scalar (passed by value, never changes) or an empty vector
      std::copy(argument.bytes.begin(), argument.bytes.end(), out.begin());
      return;
    }
    make_current();
    if (CUresult result = api_.memcpy_dtoh(out.data(), buffers_[i], out.size()); result != CUDA_SUCCESS) {
      throw LaunchError(fmt::format("cannot copy argument {} from the GPU: {}", argument.name, api_.error_text(result)));
    }
  }

  std::unique_ptr<CompiledKernel> compile(const KernelSource& source, const Defines& defines) override {
    make_current();
    std::vector<std::string> include_dirs = cuda::toolkit_include_dirs();
    std::string program_name = "kernel.cu";
    if (!source.file.empty()) {
      // Kernels may #include files beside them, as with nvcc.
      std::filesystem::path file(source.file);
      include_dirs.insert(include_dirs.begin(), file.has_parent_path() ? file.parent_path().string() : ".");
      program_name = file.filename().string();
    }
    const cuda::NvrtcImage image =
        cuda::compile_with_nvrtc(cuda::source_with_defines(source, defines), program_name, source.name,
                                 cuda::nvrtc_options(source.compiler_options, architecture_, include_dirs));
    CUmodule module = nullptr;
    if (CUresult result = api_.module_load_data(&module, image.image.data()); result != CUDA_SUCCESS) {
      throw CompileError(fmt::format("the CUDA driver cannot load kernel {} compiled for {}: {}", source.name,
                                     architecture_, api_.error_text(result)),
                         image.log);
    }
    CUfunction function = nullptr;
    if (CUresult result = api_.module_get_function(&function, module, image.lowered_name.c_str());
        result != CUDA_SUCCESS) {
      api_.module_unload(module);
      throw CompileError(fmt::format("no kernel {} ({}) in the compiled module: {}", source.name, image.lowered_name,
                                     api_.error_text(result)),
                         image.log);
    }
    auto kernel = std::make_unique<CudaKernel>(api_, module, function, source.name);  // unloads on a throw below
    fill_constant_memory(module, source, image.log);
    return kernel;
  }

  // Copies each __constant__ variable's contents into the module (Kernel Tuner's cmem_args): a variable the module
  // lacks, or contents larger than it, fail the configuration as a compile failure, naming the variable.
  void fill_constant_memory(CUmodule module, const KernelSource& source, const std::string& log) {
    for (const auto& [name, bytes] : source.constant_memory) {
      CUdeviceptr address = 0;
      std::size_t size = 0;
      if (CUresult result = api_.module_get_global(&address, &size, module, name.c_str()); result != CUDA_SUCCESS)
        throw CompileError(fmt::format("constant memory '{}': kernel {} has no __constant__ variable of that name "
                                       "({})", name, source.name, api_.error_text(result)),
                           log);
      if (bytes.size() > size)
        throw CompileError(fmt::format("constant memory '{}': {} bytes given for a __constant__ variable of {} bytes",
                                       name, bytes.size(), size),
                           log);
      if (CUresult result = api_.memcpy_htod(address, bytes.data(), bytes.size()); result != CUDA_SUCCESS)
        throw CompileError(fmt::format("constant memory '{}': cannot copy it to the GPU: {}", name,
                                       api_.error_text(result)),
                           log);
    }
  }

  double launch(CompiledKernel& compiled, const LaunchGeometry& geometry) override {
    auto* kernel = dynamic_cast<CudaKernel*>(&compiled);
    if (kernel == nullptr) throw std::invalid_argument("cuda backend: the kernel was not compiled by this backend");
    const auto grid = cuda::launch_dimensions(geometry.grid, "grid");
    const auto block = cuda::launch_dimensions(geometry.block, "block");
    make_current();
    const std::size_t shared = layout_.dynamic_shared_bytes;
    if (shared > default_dynamic_shared_limit && kernel->shared_opt_in < shared) {
      check_launch(api_.func_set_attribute(kernel->function(), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           static_cast<int>(shared)),
                   *kernel, geometry, fmt::format("cannot use {} bytes of dynamic shared memory", shared));
      kernel->shared_opt_in = shared;
    }
    check_launch(api_.event_record(start_, nullptr), *kernel, geometry, "cuEventRecord");
    check_launch(api_.launch_kernel(kernel->function(), grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                    static_cast<unsigned int>(shared), nullptr, parameters_.data(), nullptr),
                 *kernel, geometry, "cuLaunchKernel");
    check_launch(api_.event_record(stop_, nullptr), *kernel, geometry, "cuEventRecord");
    // Errors inside the kernel (illegal address, ...) surface when waiting for it.
    check_launch(api_.event_synchronize(stop_), *kernel, geometry, "kernel execution");
    float milliseconds = 0;
    check_launch(api_.event_elapsed_time(&milliseconds, start_, stop_), *kernel, geometry, "cuEventElapsedTime");
    return static_cast<double>(milliseconds);
  }

 private:
  void make_current() const {
    if (CUresult result = api_.ctx_set_current(context_); result != CUDA_SUCCESS) {
      throw LaunchError("cannot make the CUDA context current: " + api_.error_text(result));
    }
  }

  int attribute(CUdevice_attribute which) const {
    int value = 0;
    if (api_.device_get_attribute(&value, which, device_) != CUDA_SUCCESS) return 0;
    return value;
  }

  void check_unavailable(CUresult result, const char* call) const {
    if (result != CUDA_SUCCESS) {
      throw BackendUnavailable(fmt::format("CUDA device {}: {} failed: {}", ordinal_, call, api_.error_text(result)));
    }
  }

  void check_launch(CUresult result, const CudaKernel& kernel, const LaunchGeometry& geometry,
                    const std::string& step) const {
    if (result == CUDA_SUCCESS) return;
    throw LaunchError(fmt::format("{}: {} (kernel {}, grid {}x{}x{}, block {}x{}x{}, {} bytes dynamic shared memory)",
                                  step, api_.error_text(result), kernel.name(), geometry.grid[0], geometry.grid[1],
                                  geometry.grid[2], geometry.block[0], geometry.block[1], geometry.block[2],
                                  layout_.dynamic_shared_bytes));
  }

  const KernelArgument& checked_argument(std::size_t i) const {
    if (i >= arguments_.size()) {
      throw std::out_of_range(fmt::format("cuda backend: argument {} of {}", i, arguments_.size()));
    }
    return arguments_[i];
  }

  void free_buffers() {
    for (CUdeviceptr& buffer : buffers_) {
      if (buffer != 0) api_.mem_free(buffer);
      buffer = 0;
    }
    parameters_.clear();
  }

  void release() {
    if (context_ == nullptr) return;
    api_.ctx_set_current(context_);
    free_buffers();
    if (start_ != nullptr) api_.event_destroy(start_);
    if (stop_ != nullptr) api_.event_destroy(stop_);
    api_.primary_ctx_release(device_);
    context_ = nullptr;
  }

  const DriverApi& api_;
  int ordinal_;
  std::size_t count_ = 1;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUevent start_ = nullptr, stop_ = nullptr;
  int capability_ = 0;
  std::string architecture_;
  std::vector<KernelArgument> arguments_;  // our copy: initial contents for reset, scalar values for launches
  cuda::LaunchLayout layout_;
  std::vector<CUdeviceptr> buffers_;       // per argument; 0 for scalars, local memory and empty vectors
  std::vector<void*> parameters_;          // cuLaunchKernel's kernelParams
};

}  // namespace

std::unique_ptr<Backend> cuda::make_cuda_backend_on(const DriverApi& api, const BackendOptions& options) {
  return std::make_unique<CudaBackend>(api, options);
}

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options) {
  return cuda::make_cuda_backend_on(cuda::driver(), options);
}

}  // namespace ktune::live
#endif
