#pragma once
// CUDA in an application: a device (the driver and NVRTC are opened at run time, so the application links neither
// and starts without them), and arguments that are its own device memory (CUdeviceptr), used in place.
#include <cstdint>
#include <memory>

#include "ktune/runtime/argument.hpp"
#include "ktune/runtime/device.hpp"

namespace ktune::runtime {

// CUDA device `device` (-1: $KTUNE_CUDA_DEVICE, else 0) on its primary context. std::runtime_error when there is no
// driver (libcuda.so.1), no NVRTC (libnvrtc.so; $KTUNE_NVRTC_LIBRARY names another) or no such device.
std::shared_ptr<Device> cuda_device(int device = -1);

template <class T>
struct CudaBufferArgument {
  using c_type = unsigned long long;  // a cpp kernel cannot take one: Kernel::launch refuses it
  Argument erased;
  c_type c_value(void*) const { return static_cast<c_type>(reinterpret_cast<std::uintptr_t>(erased.device)); }
};

// Device memory of `count` elements of T (a CUdeviceptr) that the kernel reads, writes or both.
template <class T>
CudaBufferArgument<T> cuda_buffer(unsigned long long pointer, std::size_t count, Access access = Access::read_write) {
  CudaBufferArgument<T> b;
  b.erased.kind = Argument::Kind::device_buffer;
  b.erased.type = element_type_of<T>();
  b.erased.access = access;
  b.erased.count = count;
  b.erased.device = reinterpret_cast<void*>(static_cast<std::uintptr_t>(pointer));
  return b;
}

}  // namespace ktune::runtime
