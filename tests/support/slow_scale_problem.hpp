#pragma once
// A live problem for tests that interrupt, kill or resume `ktune tune`: kernel `scale(in, out, n)` over
// factor x block_size_x (16 configurations) on the cpp backend, and a kernel whose launches sleep, so a run is slow
// enough to be stopped in the middle.
#include <string>

#include <nlohmann/json.hpp>

#include "ktune/io/results_file.hpp"

namespace ktune::testing {

// Each launch sleeps 12 ms: a configuration takes ~100 ms.
inline constexpr const char* kSlowScaleKernel = R"(
#include <time.h>
void scale(const float* in, float* out, int n) {
  struct timespec pause = {0, 12 * 1000 * 1000};
  nanosleep(&pause, 0);
  for (int i = 0; i < n; ++i) out[i] = in[i] * factor;
}
)";

// The T1 file for a kernel `void scale(const float* in, float* out, int n)` in `kernel_file`.
inline std::string scale_t1(const std::string& kernel_file, double timeout_s = 20, int iterations = 7) {
  nlohmann::json t1 = {
      {"General", {{"BenchmarkName", "scale"}, {"FormatVersion", 1}}},
      {"ConfigurationSpace",
       {{"TuningParameters",
         {{{"Name", "factor"}, {"Type", "int"}, {"Values", "[1, 2, 3, 4]"}},
          {{"Name", "block_size_x"}, {"Type", "int"}, {"Values", "[16, 32, 64, 128]"}}}},
        {"Conditions", nlohmann::json::array()}}},
      {"KernelSpecification",
       {{"Language", "C"},
        {"KernelName", "scale"},
        {"KernelFile", kernel_file},
        {"ProblemSize", {256}},
        {"Iterations", iterations},
        {"TimeoutSeconds", timeout_s},
        {"Arguments",
         {{{"Name", "in"}, {"Type", "float"}, {"Size", 256}, {"MemoryType", "Vector"}, {"AccessType", "ReadOnly"},
           {"FillType", "Random"}, {"RandomSeed", 3}},
          {{"Name", "out"}, {"Type", "float"}, {"Size", 256}, {"MemoryType", "Vector"}, {"AccessType", "WriteOnly"}},
          {{"Name", "n"}, {"Type", "int32"}, {"MemoryType", "Scalar"}, {"FillValue", 256}}}}}}};
  return t1.dump(2);
}

// Complete entries in a cache file so far, as the project's reader sees the (possibly cut) file; 0 before it exists.
inline std::size_t cache_entries(const std::string& path) {
  try {
    return io::read_results_file(path).records.size();
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace ktune::testing
