#pragma once
// Where a kernel runs: the runtime's small backend interface (OpenCL, cpp). cpp_device() and opencl_device() make
// one; ktune/runtime/opencl.hpp wraps an application's own OpenCL context and queue.
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ktune/runtime/argument.hpp"

namespace ktune::runtime {

class KernelDefinition;

// The launch geometry, Kernel Tuner style: threads per block (work-items per work-group) and blocks per dimension.
struct LaunchGeometry {
  std::array<std::uint64_t, 3> block{1, 1, 1};
  std::array<std::uint64_t, 3> grid{1, 1, 1};
};

using Defines = std::vector<std::pair<std::string, std::string>>;

class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
};

// How a cpp kernel is called with its C types (made by Kernel::launch from the arguments' static types).
// `substitutes` holds, per argument, a host array to pass instead of the argument's own, or null.
struct CppCall {
  void (*invoke)(const void* self, void* function, std::span<void* const> substitutes) = nullptr;
  const void* self = nullptr;
};

class Device {
 public:
  virtual ~Device() = default;
  // The device's name exactly as ktune's live backends report it (CL_DEVICE_NAME; the CPU's model name for cpp):
  // wisdom is selected by it.
  virtual std::string name() const = 0;
  virtual std::string backend() const = 0;  // "opencl", "cpp"
  // What a T1 file says to tune on this device ({"PlatformId": 0, "DeviceId": 1} as JSON members, or "").
  virtual std::string t1_device_members() const { return ""; }
  // Compiles `source` with the defines first; throws std::runtime_error with the compiler's log.
  virtual std::unique_ptr<CompiledKernel> compile(const KernelDefinition& definition, const std::string& source,
                                                  const Defines& defines) = 0;
  // Runs once and waits for the results (outputs are back in host arrays on return).
  virtual void launch(CompiledKernel& kernel, const LaunchGeometry& geometry, std::span<const Argument> arguments,
                      const CppCall& call, std::span<void* const> substitutes) = 0;
  // The current bytes of a device buffer of this backend's (a non-empty Argument::Kind::device_buffer), read back.
  // Host arrays are the caller's to read. Devices without buffers of their own (cpp) refuse.
  virtual void read_buffer(const Argument& buffer, void* destination);
};

// The host CPU: C and C++ kernels compiled with $CXX (default c++) as ktune's cpp backend compiles them (-O3 -shared
// -fPIC, -fopenmp where the code has an OpenMP pragma, the kernel's options last) and called directly.
std::shared_ptr<Device> cpp_device();
// An OpenCL device by index (defaults: $KTUNE_OPENCL_PLATFORM and $KTUNE_OPENCL_DEVICE, else 0 and 0), with a
// context and an in-order queue of its own. std::runtime_error naming the platforms and devices there are.
std::shared_ptr<Device> opencl_device(int platform = -1, int device = -1);

}  // namespace ktune::runtime
