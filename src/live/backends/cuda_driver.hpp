#pragma once
// The CUDA driver API, loaded at run time with dlopen: ktune never links libcuda, so the library, the CLI and the
// tests start on machines without an NVIDIA driver, and only make_backend("cuda") reports that it cannot work.
#ifdef KTUNE_HAVE_CUDA
#include <cuda.h>

#include <string>

namespace ktune::live::cuda {

// Function pointers of the driver entry points the cuda backend uses. The types come from cuda.h; the symbols are
// the versioned names cuda.h maps the plain names to (cuMemAlloc -> cuMemAlloc_v2, ...), so calls match the ABI the
// header describes.
struct DriverApi {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceTotalMem) device_total_mem = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) primary_ctx_release = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuModuleGetGlobal) module_get_global = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuMemAlloc) mem_alloc = nullptr;
  decltype(&::cuMemFree) mem_free = nullptr;
  decltype(&::cuMemcpyHtoD) memcpy_htod = nullptr;
  decltype(&::cuMemcpyDtoH) memcpy_dtoh = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuEventCreate) event_create = nullptr;
  decltype(&::cuEventDestroy) event_destroy = nullptr;
  decltype(&::cuEventRecord) event_record = nullptr;
  decltype(&::cuEventSynchronize) event_synchronize = nullptr;
  decltype(&::cuEventElapsedTime) event_elapsed_time = nullptr;

  // "CUDA_ERROR_OUT_OF_MEMORY" (or "CUDA error 2" when the driver cannot name it).
  std::string error_name(CUresult result) const;
  // The name and the driver's description: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (too many resources requested for
  // launch)"; the description is what Kernel Tuner users match to skip a configuration.
  std::string error_text(CUresult result) const;
};

// Opens `library` (the real driver is "libcuda.so.1"), resolves every entry point and calls cuInit(0). Throws
// BackendUnavailable: "no CUDA driver (libcuda.so.1) on this machine", a missing entry point (driver older than the
// toolkit), or cuInit's error (e.g. CUDA_ERROR_NO_DEVICE, CUDA_ERROR_STUB_LIBRARY). The library stays loaded.
DriverApi load_driver(const char* library = "libcuda.so.1");

// The process-wide driver (loaded once; a failure is reported again on every call).
const DriverApi& driver();

}  // namespace ktune::live::cuda
#endif
