// Arguments and geometry for cuLaunchKernel (see cuda_launch_layout.hpp).
#ifdef KTUNE_HAVE_CUDA
#include "live/backends/cuda_launch_layout.hpp"

#include <limits>

#include <fmt/format.h>

namespace ktune::live::cuda {

LaunchLayout launch_layout(std::span<const KernelArgument> arguments) {
  LaunchLayout layout;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].local_memory) {
      layout.dynamic_shared_bytes += arguments[i].bytes.size();
    } else {
      layout.parameters.push_back(i);
    }
  }
  return layout;
}

std::array<unsigned int, 3> launch_dimensions(const std::array<std::uint64_t, 3>& dimensions, const char* what) {
  std::array<unsigned int, 3> out{};
  for (std::size_t d = 0; d < 3; ++d) {
    if (dimensions[d] == 0 || dimensions[d] > std::numeric_limits<unsigned int>::max()) {
      throw LaunchError(fmt::format("invalid {} dimensions ({}, {}, {}): each must be in 1..{}", what, dimensions[0],
                                    dimensions[1], dimensions[2], std::numeric_limits<unsigned int>::max()));
    }
    out[d] = static_cast<unsigned int>(dimensions[d]);
  }
  return out;
}

}  // namespace ktune::live::cuda
#endif
