#pragma once
// How kernel arguments and the launch geometry map onto cuLaunchKernel: which arguments are kernel parameters, how
// much dynamic shared memory the local_memory arguments take, and the grid/block in the driver's 32-bit fields.
// Pure host logic, unit-tested without a GPU.
#ifdef KTUNE_HAVE_CUDA
#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "ktune/live/backend.hpp"

namespace ktune::live::cuda {

struct LaunchLayout {
  std::vector<std::size_t> parameters;    // indices of the arguments passed to the kernel, in order
  std::size_t dynamic_shared_bytes = 0;   // sum of the local_memory arguments (one extern __shared__ buffer)
};

// Vectors and scalars are kernel parameters; local_memory arguments are not (CUDA has one dynamic shared memory
// buffer per launch, so several of them share it, back to back).
LaunchLayout launch_layout(std::span<const KernelArgument> arguments);

// The grid or block as cuLaunchKernel takes it. Throws LaunchError naming `what` ("grid"/"block") for a zero or a
// dimension beyond 32 bits (the driver would silently truncate it).
std::array<unsigned int, 3> launch_dimensions(const std::array<std::uint64_t, 3>& dimensions, const char* what);

}  // namespace ktune::live::cuda
#endif
