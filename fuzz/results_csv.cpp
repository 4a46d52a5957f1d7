// libFuzzer executable of the "results_csv" target; the logic is in fuzz/entries/results_csv.cpp (shared with tests/fuzz_regressions).
#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ktune_fuzz_results_csv(data, size);
}
