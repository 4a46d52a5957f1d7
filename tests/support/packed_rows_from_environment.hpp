#pragma once
// KTUNE_TEST_PACKED_ROWS_FROM=N makes every materialised space of at least N rows built by the test binary that
// includes this header hold its rows packed (src/space/packing.hpp). ctest runs the space, solver and property tests a
// second time with N = 0 under the prefix "Packed.", so every query is checked on both layouts.
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>

#include "space/packing.hpp"

namespace ktune::testing {

inline const bool kPackedRowsFromEnvironment = [] {
  if (const char* rows = std::getenv("KTUNE_TEST_PACKED_ROWS_FROM")) {
    set_packed_rows_from_for_testing(std::stoull(rows));
    return true;
  }
  return false;
}();

// Packs the spaces built in its scope from this many rows on (nullopt: the default threshold); restores the threshold
// it found at exit.
class PackedRowsFrom {
 public:
  explicit PackedRowsFrom(std::optional<std::size_t> rows) : previous_(set_packed_rows_from_for_testing(rows)) {}
  ~PackedRowsFrom() { set_packed_rows_from_for_testing(previous_); }
  PackedRowsFrom(const PackedRowsFrom&) = delete;
  PackedRowsFrom& operator=(const PackedRowsFrom&) = delete;

 private:
  std::size_t previous_;
};

}  // namespace ktune::testing
