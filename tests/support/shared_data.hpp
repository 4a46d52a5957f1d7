#pragma once
// Locating ../shared (the read-only data beside the project) from tests and benchmarks.
#include <cstdlib>
#include <string>

namespace ktune::testing {

inline std::string shared_dir() {
  if (const char* env = std::getenv("KTUNE_SHARED_DIR")) return env;
#ifdef KTUNE_SHARED_DIR
  return KTUNE_SHARED_DIR;
#else
  return "../shared";
#endif
}

inline std::string shared_path(const std::string& relative) { return shared_dir() + "/" + relative; }

}  // namespace ktune::testing
