#pragma once
// OpenCL in an application: a device around the application's own context, device and queue, and arguments that
// are its device buffers (cl_mem), which a launch uses in place (capture reads them back).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <memory>

#include "ktune/runtime/argument.hpp"
#include "ktune/runtime/device.hpp"

namespace ktune::runtime {

// The application's OpenCL objects (retained while the device lives). The queue must be in order.
std::shared_ptr<Device> opencl_device(cl_context context, cl_device_id device, cl_command_queue queue);

template <class T>
struct BufferArgument {
  using c_type = cl_mem;  // a cpp kernel cannot take one: Kernel::launch refuses it
  Argument erased;
  c_type c_value(void*) const { return static_cast<cl_mem>(erased.device); }
};

// A device buffer of `count` elements of T that the kernel reads, writes or both.
template <class T>
BufferArgument<T> buffer(cl_mem memory, std::size_t count, Access access = Access::read_write) {
  BufferArgument<T> b;
  b.erased.kind = Argument::Kind::device_buffer;
  b.erased.type = element_type_of<T>();
  b.erased.access = access;
  b.erased.count = count;
  b.erased.device = memory;
  return b;
}

}  // namespace ktune::runtime
