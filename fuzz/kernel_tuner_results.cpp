// libFuzzer executable of the "kernel_tuner_results" target; the logic is in fuzz/entries/kernel_tuner_results.cpp (shared with tests/fuzz_regressions).
#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ktune_fuzz_kernel_tuner_results(data, size);
}
