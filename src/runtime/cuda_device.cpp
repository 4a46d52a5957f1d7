// A CUDA device for the runtime: NVRTC compiles a configuration (the defines first, as ktune's cuda backend does
// for tuning, for the device's architecture), the driver API loads and launches it on the primary context and waits.
// Both libraries are opened at run time (cuda_api.hpp).
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "ktune/runtime/cuda.hpp"
#include "ktune/runtime/kernel_definition.hpp"
#include "runtime/cuda_api.hpp"

namespace ktune::runtime {
namespace cuda {
namespace {

template <class F>
void bind(void* library, const char* symbol, F& slot, bool required = true) {
  slot = reinterpret_cast<F>(::dlsym(library, symbol));
  if (!slot && required) throw std::runtime_error(std::string("cuda device: the library lacks ") + symbol);
}

void* open_first(const std::vector<std::string>& names, const std::string& what) {
  std::string tried;
  for (const std::string& name : names) {
    if (void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    tried += (tried.empty() ? "" : ", ") + name;
  }
  throw std::runtime_error("cuda device: cannot open " + what + " (tried " + tried + ")");
}

// The toolkit's headers (cuda_fp16.h, ...) for kernels that include them: $CUDA_HOME or $CUDA_PATH, else
// /usr/local/cuda.
std::vector<std::string> include_options() {
  std::vector<std::string> roots;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* home = std::getenv(variable); home && *home) roots.emplace_back(std::string(home) + "/include");
  roots.emplace_back("/usr/local/cuda/include");
  std::error_code error;
  for (const std::string& root : roots)
    if (std::filesystem::is_regular_file(root + "/cuda_fp16.h", error)) {
      std::vector<std::string> options{"-I" + root};
      if (std::filesystem::is_directory(root + "/cccl", error)) options.push_back("-I" + root + "/cccl");
      return options;
    }
  return {};
}

class CudaKernel final : public CompiledKernel {
 public:
  CudaKernel(const DriverApi& driver, CUmodule module, CUfunction function)
      : driver_(driver), module_(module), function_(function) {}
  ~CudaKernel() override { driver_.module_unload(module_); }
  CUfunction function() const { return function_; }

 private:
  const DriverApi& driver_;
  CUmodule module_;
  CUfunction function_;
};

class CudaDevice final : public Device {
 public:
  CudaDevice(const DriverApi& driver, const NvrtcApi& nvrtc, int index)
      : driver_(driver), nvrtc_(nvrtc), index_(index) {
    check(driver_.init(0), "cuInit");
    int count = 0;
    check(driver_.device_get_count(&count), "cuDeviceGetCount");
    if (index_ < 0 || index_ >= count)
      throw std::runtime_error("cuda device: there is no device " + std::to_string(index_) + " (" +
                               std::to_string(count) + " here)");
    check(driver_.device_get(&device_, index_), "cuDeviceGet");
    char name[256] = {};
    check(driver_.device_get_name(name, sizeof name - 1, device_), "cuDeviceGetName");
    name_ = name;
    int major = 0, minor = 0;
    check(driver_.device_get_attribute(&major, kComputeCapabilityMajor, device_), "cuDeviceGetAttribute");
    check(driver_.device_get_attribute(&minor, kComputeCapabilityMinor, device_), "cuDeviceGetAttribute");
    architecture_ = architecture_for(major * 10 + minor);
    check(driver_.primary_ctx_retain(&context_, device_), "cuDevicePrimaryCtxRetain");
    check(driver_.ctx_set_current(context_), "cuCtxSetCurrent");
  }
  ~CudaDevice() override { driver_.primary_ctx_release(device_); }

  std::string name() const override { return name_; }
  std::string backend() const override { return "cuda"; }
  std::string t1_device_members() const override { return "\"DeviceId\": " + std::to_string(index_); }
  const std::string& architecture() const { return architecture_; }

  std::unique_ptr<CompiledKernel> compile(const KernelDefinition& def, const std::string& source,
                                          const Defines& defines) override {
    std::string text;
    for (const auto& [name, value] : defines) text += "#define " + name + " " + value + "\n";
    text += "#line 1\n" + source;
    nvrtcProgram program = nullptr;
    check_nvrtc(nvrtc_.create_program(&program, text.c_str(), (def.name() + ".cu").c_str(), 0, nullptr, nullptr),
                "nvrtcCreateProgram");
    struct Destroy {
      const NvrtcApi& api;
      nvrtcProgram& program;
      ~Destroy() { api.destroy_program(&program); }
    } destroy{nvrtc_, program};
    // A name expression finds the kernel whether it is extern "C", C++ or a template instance.
    check_nvrtc(nvrtc_.add_name_expression(program, def.function_name().c_str()), "nvrtcAddNameExpression");
    std::vector<std::string> options = def.compiler_options();
    bool has_standard = false, has_architecture = false;
    for (const std::string& o : options) {
      has_standard = has_standard || o.starts_with("-std") || o.starts_with("--std");
      has_architecture = has_architecture || o.starts_with("-arch") || o.starts_with("--gpu-architecture");
    }
    if (!has_standard) options.emplace_back("--std=c++17");
    if (!has_architecture && !architecture_.empty()) options.push_back("--gpu-architecture=" + architecture_);
    for (const std::string& include : include_options()) options.push_back(include);
    std::vector<const char*> pointers;
    for (const std::string& o : options) pointers.push_back(o.c_str());
    const nvrtcResult compiled = nvrtc_.compile_program(program, static_cast<int>(pointers.size()), pointers.data());
    if (compiled != 0) {
      std::size_t size = 0;
      nvrtc_.get_program_log_size(program, &size);
      std::string log(size, '\0');
      if (size) nvrtc_.get_program_log(program, log.data());
      throw std::runtime_error("cuda device: compiling kernel '" + def.name() + "' failed:\n" + log);
    }
    const char* lowered = nullptr;
    check_nvrtc(nvrtc_.get_lowered_name(program, def.function_name().c_str(), &lowered), "nvrtcGetLoweredName");
    const std::string symbol = lowered ? lowered : def.function_name();
    std::size_t ptx_size = 0;
    check_nvrtc(nvrtc_.get_ptx_size(program, &ptx_size), "nvrtcGetPTXSize");
    std::string ptx(ptx_size, '\0');
    check_nvrtc(nvrtc_.get_ptx(program, ptx.data()), "nvrtcGetPTX");
    check(driver_.ctx_set_current(context_), "cuCtxSetCurrent");
    CUmodule module = nullptr;
    check(driver_.module_load_data(&module, ptx.c_str()), "cuModuleLoadData");
    CUfunction function = nullptr;
    if (const CUresult found = driver_.module_get_function(&function, module, symbol.c_str()); found != 0) {
      driver_.module_unload(module);
      check(found, "cuModuleGetFunction");
    }
    return std::make_unique<CudaKernel>(driver_, module, function);
  }

  void launch(CompiledKernel& compiled, const LaunchGeometry& g, std::span<const Argument> arguments, const CppCall&,
              std::span<void* const> substitutes) override {
    check(driver_.ctx_set_current(context_), "cuCtxSetCurrent");
    // Host arrays travel through device memory allocated for this launch and copied back when writable.
    struct Staged {
      CUdeviceptr memory;
      void* host;
      std::size_t bytes;
      bool read_back;
    };
    std::vector<Staged> staged;
    std::vector<CUdeviceptr> pointers(arguments.size(), 0);
    std::vector<void*> parameters(arguments.size(), nullptr);
    const auto release = [&] {
      for (const Staged& s : staged) driver_.mem_free(s.memory);
    };
    try {
      for (std::size_t i = 0; i < arguments.size(); ++i) {
        const Argument& a = arguments[i];
        void* substitute = i < substitutes.size() ? substitutes[i] : nullptr;
        if (a.kind == Argument::Kind::scalar) {
          parameters[i] = const_cast<unsigned char*>(a.value);
          continue;
        }
        if (a.kind == Argument::Kind::device_buffer && !substitute) {
          pointers[i] = static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(a.device));
        } else {
          void* host = substitute ? substitute : a.host;
          CUdeviceptr memory = 0;
          check(driver_.mem_alloc(&memory, std::max<std::size_t>(a.bytes(), 1)), "cuMemAlloc");
          staged.push_back({memory, host, a.bytes(), a.access != Access::read_only && a.bytes() > 0});
          if (a.bytes()) check(driver_.memcpy_htod(memory, host, a.bytes()), "cuMemcpyHtoD");
          pointers[i] = memory;
        }
        parameters[i] = &pointers[i];
      }
      check(driver_.launch_kernel(static_cast<CudaKernel&>(compiled).function(), static_cast<unsigned>(g.grid[0]),
                                  static_cast<unsigned>(g.grid[1]), static_cast<unsigned>(g.grid[2]),
                                  static_cast<unsigned>(g.block[0]), static_cast<unsigned>(g.block[1]),
                                  static_cast<unsigned>(g.block[2]), 0, nullptr, parameters.data(), nullptr),
            "cuLaunchKernel");
      check(driver_.ctx_synchronize(), "cuCtxSynchronize");
      for (const Staged& s : staged)
        if (s.read_back) check(driver_.memcpy_dtoh(s.host, s.memory, s.bytes), "cuMemcpyDtoH");
    } catch (...) {
      release();
      throw;
    }
    release();
  }

  void read_buffer(const Argument& buffer, void* destination) override {
    check(driver_.ctx_set_current(context_), "cuCtxSetCurrent");
    check(driver_.memcpy_dtoh(destination, static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(buffer.device)),
                              buffer.bytes()),
          "cuMemcpyDtoH");
  }

 private:
  void check(CUresult result, const char* what) const {
    if (result == 0) return;
    const char* name = nullptr;
    if (driver_.get_error_name) driver_.get_error_name(result, &name);
    throw std::runtime_error(std::string("cuda device: ") + what + " failed (" +
                             (name ? name : "CUDA error " + std::to_string(result)) + ")");
  }
  void check_nvrtc(nvrtcResult result, const char* what) const {
    if (result == 0) return;
    const char* text = nvrtc_.get_error_string ? nvrtc_.get_error_string(result) : nullptr;
    throw std::runtime_error(std::string("cuda device: ") + what + " failed (" +
                             (text ? text : "NVRTC error " + std::to_string(result)) + ")");
  }
  // The newest virtual architecture NVRTC supports at or below the device's (PTX the driver compiles for it).
  std::string architecture_for(int capability) const {
    int chosen = capability;
    int count = 0;
    if (nvrtc_.get_num_supported_archs && nvrtc_.get_supported_archs && nvrtc_.get_num_supported_archs(&count) == 0 &&
        count > 0) {
      std::vector<int> supported(static_cast<std::size_t>(count));
      if (nvrtc_.get_supported_archs(supported.data()) == 0) {
        chosen = 0;
        for (const int arch : supported)
          if (arch <= capability) chosen = std::max(chosen, arch);
        if (chosen == 0) chosen = *std::min_element(supported.begin(), supported.end());
      }
    }
    return "compute_" + std::to_string(chosen);
  }

  const DriverApi& driver_;
  const NvrtcApi& nvrtc_;
  int index_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  std::string name_, architecture_;
};

}  // namespace

DriverApi load_driver() {
  void* library = open_first({"libcuda.so.1", "libcuda.so"}, "the CUDA driver (no NVIDIA driver here?)");
  DriverApi api;
  bind(library, "cuInit", api.init);
  bind(library, "cuDeviceGetCount", api.device_get_count);
  bind(library, "cuDeviceGet", api.device_get);
  bind(library, "cuDeviceGetName", api.device_get_name);
  bind(library, "cuDeviceGetAttribute", api.device_get_attribute);
  bind(library, "cuDevicePrimaryCtxRetain", api.primary_ctx_retain);
  bind(library, "cuDevicePrimaryCtxRelease_v2", api.primary_ctx_release);
  bind(library, "cuCtxSetCurrent", api.ctx_set_current);
  bind(library, "cuCtxSynchronize", api.ctx_synchronize);
  bind(library, "cuModuleLoadData", api.module_load_data);
  bind(library, "cuModuleUnload", api.module_unload);
  bind(library, "cuModuleGetFunction", api.module_get_function);
  bind(library, "cuMemAlloc_v2", api.mem_alloc);
  bind(library, "cuMemFree_v2", api.mem_free);
  bind(library, "cuMemcpyHtoD_v2", api.memcpy_htod);
  bind(library, "cuMemcpyDtoH_v2", api.memcpy_dtoh);
  bind(library, "cuLaunchKernel", api.launch_kernel);
  bind(library, "cuGetErrorName", api.get_error_name, false);
  return api;
}

NvrtcApi load_nvrtc() {
  std::vector<std::string> names;
  if (const char* path = std::getenv("KTUNE_NVRTC_LIBRARY"); path && *path) names.emplace_back(path);
  for (const char* n : {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}) names.emplace_back(n);
  void* library = open_first(names, "NVRTC, CUDA's run-time compiler ($KTUNE_NVRTC_LIBRARY names it)");
  NvrtcApi api;
  bind(library, "nvrtcCreateProgram", api.create_program);
  bind(library, "nvrtcDestroyProgram", api.destroy_program);
  bind(library, "nvrtcAddNameExpression", api.add_name_expression);
  bind(library, "nvrtcCompileProgram", api.compile_program);
  bind(library, "nvrtcGetLoweredName", api.get_lowered_name);
  bind(library, "nvrtcGetProgramLogSize", api.get_program_log_size);
  bind(library, "nvrtcGetProgramLog", api.get_program_log);
  bind(library, "nvrtcGetPTXSize", api.get_ptx_size);
  bind(library, "nvrtcGetPTX", api.get_ptx);
  bind(library, "nvrtcGetNumSupportedArchs", api.get_num_supported_archs, false);
  bind(library, "nvrtcGetSupportedArchs", api.get_supported_archs, false);
  bind(library, "nvrtcGetErrorString", api.get_error_string, false);
  return api;
}

std::shared_ptr<Device> make_device(const DriverApi& driver, const NvrtcApi& nvrtc, int index) {
  if (index < 0) {
    const char* value = std::getenv("KTUNE_CUDA_DEVICE");
    index = value && *value ? std::atoi(value) : 0;
  }
  return std::make_shared<CudaDevice>(driver, nvrtc, index);
}

}  // namespace cuda

std::shared_ptr<Device> cuda_device(int device) {
  // Loaded once per process; the tables live as long as the process (devices keep references to them).
  static const cuda::DriverApi driver = cuda::load_driver();
  static const cuda::NvrtcApi nvrtc = cuda::load_nvrtc();
  return cuda::make_device(driver, nvrtc, device);
}

}  // namespace ktune::runtime
