// libFuzzer executable of the "t1" target; the logic is in fuzz/entries/t1.cpp (shared with tests/fuzz_regressions).
#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ktune_fuzz_t1(data, size);
}
