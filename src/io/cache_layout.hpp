#pragma once
// Where the entries of a Kernel Tuner cache file are: resuming a file (appending after its last complete entry)
// needs the positions, not only the records.
#include <cstddef>
#include <string>

#include "ktune/io/results_file.hpp"

namespace ktune::io {

struct CacheLayout {
  static constexpr std::size_t npos = std::string::npos;
  std::size_t entries_begin = npos;  // just after the '{' of "cache"; npos when the file has no "cache"
  std::size_t entries_end = npos;    // just after the last complete entry; entries_begin when there is none
};

// parse_kernel_tuner_cache, also telling where the entries are.
ResultsFile parse_kernel_tuner_cache(const std::string& text, const std::string& source_name, CacheLayout& layout);

}  // namespace ktune::io
