// libFuzzer executable of the "t4_results" target; the logic is in fuzz/entries/t4_results.cpp (shared with tests/fuzz_regressions).
#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ktune_fuzz_t4_results(data, size);
}
