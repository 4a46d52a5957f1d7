#pragma once

#include <chrono>

namespace ktune::live {

// Wall-clock milliseconds since `start` (steady clock).
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ktune::live
