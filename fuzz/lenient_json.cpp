// libFuzzer executable of the "lenient_json" target; the logic is in fuzz/entries/lenient_json.cpp (shared with tests/fuzz_regressions).
#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ktune_fuzz_lenient_json(data, size);
}
