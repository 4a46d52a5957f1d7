#pragma once
// A store session named after its source, for the store tests.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "ktune/store/results_store.hpp"

namespace ktune::store::testing {

// A session of `source` (designated initializers would have to name every field under -Wextra).
inline SessionInfo named(std::string source, std::string strategy = "",
                         std::optional<std::uint64_t> seed = std::nullopt) {
  SessionInfo info;
  info.source = std::move(source);
  info.strategy = std::move(strategy);
  info.seed = seed;
  return info;
}

}  // namespace ktune::store::testing
