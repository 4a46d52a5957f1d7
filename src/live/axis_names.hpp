#pragma once

namespace ktune::live {

// The suffixes of Kernel Tuner's per-dimension names: block_size_x, grid_size_y, problem_size_z, grid_div_x.
inline constexpr const char* kAxisNames[3] = {"x", "y", "z"};

}  // namespace ktune::live
