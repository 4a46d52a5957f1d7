#pragma once
// The CUDA driver API and NVRTC as the runtime uses them: function tables filled by dlopen at run time, so that
// ktune::runtime links neither (an application starts on machines without an NVIDIA driver or the toolkit, and
// only cuda_device() says it cannot work). The types are declared here with the C ABI's sizes, so the runtime also
// builds without the toolkit's headers. Tests fill the tables with a double.
#include <cstddef>
#include <memory>
#include <string>

#include "ktune/runtime/device.hpp"

namespace ktune::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;

constexpr int kComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kComputeCapabilityMinor = 76;

struct DriverApi {
  CUresult (*init)(unsigned int) = nullptr;
  CUresult (*device_get_count)(int*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_get_name)(char*, int, CUdevice) = nullptr;
  CUresult (*device_get_attribute)(int*, int, CUdevice) = nullptr;
  CUresult (*primary_ctx_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*primary_ctx_release)(CUdevice) = nullptr;
  CUresult (*ctx_set_current)(CUcontext) = nullptr;
  CUresult (*ctx_synchronize)() = nullptr;
  CUresult (*module_load_data)(CUmodule*, const void*) = nullptr;
  CUresult (*module_unload)(CUmodule) = nullptr;
  CUresult (*module_get_function)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*mem_free)(CUdeviceptr) = nullptr;
  CUresult (*memcpy_htod)(CUdeviceptr, const void*, std::size_t) = nullptr;
  CUresult (*memcpy_dtoh)(void*, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                            void**, void**) = nullptr;
  CUresult (*get_error_name)(CUresult, const char**) = nullptr;
};

struct NvrtcApi {
  nvrtcResult (*create_program)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                const char* const*) = nullptr;
  nvrtcResult (*destroy_program)(nvrtcProgram*) = nullptr;
  nvrtcResult (*add_name_expression)(nvrtcProgram, const char*) = nullptr;
  nvrtcResult (*compile_program)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*get_lowered_name)(nvrtcProgram, const char*, const char**) = nullptr;
  nvrtcResult (*get_program_log_size)(nvrtcProgram, std::size_t*) = nullptr;
  nvrtcResult (*get_program_log)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*get_ptx_size)(nvrtcProgram, std::size_t*) = nullptr;
  nvrtcResult (*get_ptx)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*get_num_supported_archs)(int*) = nullptr;   // optional (older NVRTC)
  nvrtcResult (*get_supported_archs)(int*) = nullptr;       // optional
  const char* (*get_error_string)(nvrtcResult) = nullptr;
};

// The real libraries (libcuda.so.1; $KTUNE_NVRTC_LIBRARY, else libnvrtc.so and its versioned names). Throws
// std::runtime_error saying which library is missing.
DriverApi load_driver();
NvrtcApi load_nvrtc();

// A device over these tables: device `index` (-1: $KTUNE_CUDA_DEVICE, else 0).
std::shared_ptr<Device> make_device(const DriverApi& driver, const NvrtcApi& nvrtc, int index);

}  // namespace ktune::runtime::cuda
