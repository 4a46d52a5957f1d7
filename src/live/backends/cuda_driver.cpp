// The CUDA driver API through dlopen (see cuda_driver.hpp).
#ifdef KTUNE_HAVE_CUDA
#include "live/backends/cuda_driver.hpp"

#include <dlfcn.h>

#include <cstring>
#include <variant>

#include <fmt/format.h>

#include "ktune/live/backend.hpp"
#include "live/backends/cuda_driver_probe.hpp"

// The symbol a plain name maps to in cuda.h (cuMemAlloc -> "cuMemAlloc_v2"): the macro is expanded, then quoted.
#define KTUNE_CUDA_QUOTE(x) #x
#define KTUNE_CUDA_SYMBOL(x) KTUNE_CUDA_QUOTE(x)

namespace ktune::live::cuda {
namespace {

template <class Function>
void resolve(void* library, Function& function, const char* symbol, const char* fallback = nullptr) {
  void* address = dlsym(library, symbol);
  if (address == nullptr && fallback != nullptr) address = dlsym(library, fallback);
  if (address == nullptr) {
    throw BackendUnavailable(fmt::format(
        "the CUDA driver lacks {} (the driver is older than the CUDA toolkit ktune was built with)", symbol));
  }
  static_assert(sizeof(function) == sizeof(address));
  std::memcpy(&function, &address, sizeof(address));  // POSIX guarantees data and function pointers convert
}

}  // namespace

std::string DriverApi::error_name(CUresult result) const {
  const char* name = nullptr;
  if (get_error_name != nullptr && get_error_name(result, &name) == CUDA_SUCCESS && name != nullptr) return name;
  return fmt::format("CUDA error {}", static_cast<int>(result));
}

std::string DriverApi::error_text(CUresult result) const {
  const char* text = nullptr;
  if (get_error_string != nullptr && get_error_string(result, &text) == CUDA_SUCCESS && text != nullptr) {
    return fmt::format("{} ({})", error_name(result), text);
  }
  return error_name(result);
}

DriverApi load_driver(const char* library) {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace; never closed (the driver does not support
  // being unloaded while contexts may exist).
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw BackendUnavailable(fmt::format("no CUDA driver ({}) on this machine: {}", library, why ? why : "not found"));
  }
  DriverApi api;
  resolve(handle, api.init, KTUNE_CUDA_SYMBOL(cuInit));
  resolve(handle, api.driver_get_version, KTUNE_CUDA_SYMBOL(cuDriverGetVersion));
  resolve(handle, api.get_error_name, KTUNE_CUDA_SYMBOL(cuGetErrorName));
  resolve(handle, api.get_error_string, KTUNE_CUDA_SYMBOL(cuGetErrorString));
  resolve(handle, api.device_get_count, KTUNE_CUDA_SYMBOL(cuDeviceGetCount));
  resolve(handle, api.device_get, KTUNE_CUDA_SYMBOL(cuDeviceGet));
  resolve(handle, api.device_get_name, KTUNE_CUDA_SYMBOL(cuDeviceGetName));
  resolve(handle, api.device_get_attribute, KTUNE_CUDA_SYMBOL(cuDeviceGetAttribute));
  resolve(handle, api.device_total_mem, KTUNE_CUDA_SYMBOL(cuDeviceTotalMem));
  resolve(handle, api.primary_ctx_retain, KTUNE_CUDA_SYMBOL(cuDevicePrimaryCtxRetain));
  resolve(handle, api.primary_ctx_release, KTUNE_CUDA_SYMBOL(cuDevicePrimaryCtxRelease));
  resolve(handle, api.ctx_set_current, KTUNE_CUDA_SYMBOL(cuCtxSetCurrent));
  resolve(handle, api.ctx_synchronize, KTUNE_CUDA_SYMBOL(cuCtxSynchronize));
  resolve(handle, api.module_load_data, KTUNE_CUDA_SYMBOL(cuModuleLoadData));
  resolve(handle, api.module_unload, KTUNE_CUDA_SYMBOL(cuModuleUnload));
  resolve(handle, api.module_get_function, KTUNE_CUDA_SYMBOL(cuModuleGetFunction));
  resolve(handle, api.module_get_global, KTUNE_CUDA_SYMBOL(cuModuleGetGlobal));
  resolve(handle, api.func_set_attribute, KTUNE_CUDA_SYMBOL(cuFuncSetAttribute));
  resolve(handle, api.mem_alloc, KTUNE_CUDA_SYMBOL(cuMemAlloc));
  resolve(handle, api.mem_free, KTUNE_CUDA_SYMBOL(cuMemFree));
  resolve(handle, api.memcpy_htod, KTUNE_CUDA_SYMBOL(cuMemcpyHtoD));
  resolve(handle, api.memcpy_dtoh, KTUNE_CUDA_SYMBOL(cuMemcpyDtoH));
  resolve(handle, api.launch_kernel, KTUNE_CUDA_SYMBOL(cuLaunchKernel));
  resolve(handle, api.event_create, KTUNE_CUDA_SYMBOL(cuEventCreate));
  resolve(handle, api.event_destroy, KTUNE_CUDA_SYMBOL(cuEventDestroy));
  resolve(handle, api.event_record, KTUNE_CUDA_SYMBOL(cuEventRecord));
  resolve(handle, api.event_synchronize, KTUNE_CUDA_SYMBOL(cuEventSynchronize));
  // cuEventElapsedTime_v2 (CUDA 12.8) has the same signature as the original, which older drivers still export.
  resolve(handle, api.event_elapsed_time, KTUNE_CUDA_SYMBOL(cuEventElapsedTime), "cuEventElapsedTime");

  if (CUresult result = api.init(0); result != CUDA_SUCCESS) {
    if (result == CUDA_ERROR_NO_DEVICE) throw BackendUnavailable("no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)");
    throw BackendUnavailable(fmt::format("the CUDA driver ({}) cannot start: cuInit failed with {}", library,
                                         api.error_name(result)));
  }
  return api;
}

void probe_driver(const char* library) { load_driver(library); }

const DriverApi& driver() {
  // Loaded once per process; a failure is remembered and reported to every caller.
  static const std::variant<DriverApi, std::string> loaded = []() -> std::variant<DriverApi, std::string> {
    try {
      return load_driver();
    } catch (const BackendUnavailable& error) {
      return std::string(error.what());
    }
  }();
  if (const auto* why = std::get_if<std::string>(&loaded)) throw BackendUnavailable(*why);
  return std::get<DriverApi>(loaded);
}

}  // namespace ktune::live::cuda
#endif
