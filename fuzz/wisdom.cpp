// libFuzzer executable of the "wisdom" target; the logic is in fuzz/entries/wisdom.cpp (shared with tests/fuzz_regressions).
#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ktune_fuzz_wisdom(data, size);
}
