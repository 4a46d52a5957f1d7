#pragma once
// CUDA source -> PTX/CUBIN with NVRTC. Host-only (no driver, no GPU needed), so everything here is unit-tested on any
// machine with the toolkit; the cuda backend adds the device's architecture and loads the image with the driver.
#ifdef KTUNE_HAVE_CUDA
#include <string>
#include <vector>

#include "ktune/live/backend.hpp"

namespace ktune::live::cuda {

// The architectures this NVRTC can target, as 10*major+minor, ascending (CUDA 13: 75 80 86 ... 120 121).
std::vector<int> nvrtc_supported_architectures();

// "major.minor" of the NVRTC library, for device information.
std::string nvrtc_version();

// The --gpu-architecture value for a device of compute capability `capability` (10*major+minor): "sm_XY" (a CUBIN,
// no JIT in the driver) when NVRTC supports exactly that architecture, else "compute_XY" for the newest supported
// one not above it (PTX, JIT-compiled by the driver, which runs on newer devices), or for the oldest supported one
// when the device is older than all of them (the driver then reports that it cannot load the image).
std::string architecture_for(int capability, const std::vector<int>& supported);

// The toolkit's header directories for NVRTC (cuda_fp16.h, ...): $CUDA_HOME / $CUDA_PATH include if set, else the
// toolkit ktune was built with; only directories that exist (CUDA 13 keeps CCCL in include/cccl).
std::vector<std::string> toolkit_include_dirs();

// The NVRTC options of one compilation: the user's options as they are, then --std=c++17 unless the user chose a
// standard, -I for each include directory, and --gpu-architecture=`architecture` unless the user chose one.
std::vector<std::string> nvrtc_options(const std::vector<std::string>& user_options, const std::string& architecture,
                                       const std::vector<std::string>& include_dirs);

// "#define NAME VALUE" lines, then a #line directive so NVRTC's messages count lines of the user's code.
std::string source_with_defines(const KernelSource& source, const Defines& defines);

struct NvrtcImage {
  std::string image;          // CUBIN (binary) or PTX text, as cuModuleLoadData takes it
  bool cubin = false;
  std::string lowered_name;   // the kernel's symbol in the image (mangled for C++/templated kernels)
  std::string log;            // NVRTC's log (warnings)
};

// Compiles `code` and looks `kernel_name` up as an NVRTC name expression ("vector_add", "vector_add<float>",
// "ns::kernel"), so extern "C", C++ and templated kernels all work. `program_name` appears in NVRTC's messages.
// Throws CompileError with NVRTC's log.
NvrtcImage compile_with_nvrtc(const std::string& code, const std::string& program_name,
                              const std::string& kernel_name, const std::vector<std::string>& options);

}  // namespace ktune::live::cuda
#endif
