#pragma once
// What results measured elsewhere (the same kernel on another device or problem size) say about the configurations
// of a search space: for each source, every configuration's predicted quantile (0: that source's best, 1: its worst
// or a failure there), and which configurations it ran or saw fail. docs/transfer.md.
//
// Sources match the space by parameter names (any order); value lists may differ. A configuration whose values the
// source measured gets the quantile of its measurement (an exact match). Any other (a value the source lacks, a
// configuration invalid or unmeasured there) gets the prediction of a main-effects model fitted on the source: the
// source's mean quantile plus, per parameter, how much the mean quantile of its value (the nearest measured value
// for a number the source lacks) departs from it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ktune/io/results_file.hpp"
#include "ktune/search_space.hpp"

namespace ktune {

struct TransferSource {
  std::string name;  // a file path, a store's space label: for reports and errors
  std::shared_ptr<const io::ResultsFile> results;
};

// What a source recorded of one configuration of the space (an exact match of its values).
enum class SourceRecord : std::uint8_t { none, ran, failed };

class TransferPrior {
 public:
  // `objective` as the records name it; `minimize` its direction. Throws std::invalid_argument naming the source
  // when its parameter names differ from the space's or it has fewer than two successful measurements of the
  // objective.
  TransferPrior(const SearchSpace& space, const std::vector<TransferSource>& sources, const std::string& objective,
                bool minimize);

  std::size_t sources() const { return sources_.size(); }
  const std::string& source_name(std::size_t s) const { return sources_[s].name; }
  // Source s's predicted quantile of configuration `index` of the space, in [0, 1].
  float quantile(std::size_t s, std::size_t index) const { return sources_[s].quantiles[index]; }
  // The configurations of the space that source s measured successfully, its best first.
  const std::vector<std::size_t>& ranking(std::size_t s) const { return sources_[s].ranking; }
  // What source s recorded of configuration `index`: ran (a measurement of the objective), failed (compile,
  // launch, verification, timeout or a device limit there) or none (not recorded, or not an exact match).
  SourceRecord record(std::size_t s, std::size_t index) const {
    return static_cast<SourceRecord>(sources_[s].records[index]);
  }
  std::size_t space_size() const { return size_; }

 private:
  struct Source {
    std::string name;
    std::vector<float> quantiles;      // per configuration index
    std::vector<std::size_t> ranking;  // exact matches, best first
    std::vector<std::uint8_t> records;  // per configuration index: a SourceRecord
  };
  std::size_t size_ = 0;
  std::vector<Source> sources_;
};

// Whether a results file describes the same kernel as `problem`'s parameters: the same parameter names (any order)
// and, where both name it, the same kernel name.
bool same_kernel(const io::ResultsFile& source, const Problem& problem, const std::string& kernel_name);

// Whether two results files hold measurements of one space, so that one must not be the other's transfer source in
// a leave-one-out comparison: the same file, or the same device and the same problem size (an unknown size is not a
// different one). A device is known by its name and by its file's name without "_T4" (benchmark_hub's T4 files and
// some caches name no device: cachefiles/convolution_milo/MI250X.json.gz), compared without case or punctuation.
bool same_origin(const std::string& path_a, const io::ResultsFile& a, const std::string& path_b,
                 const io::ResultsFile& b);

// Whether two sources measured one device at one problem size, so that they are one source (a cache and its T4 export,
// a file and the store it was imported into): the same device name where both name one, else the same file name
// without "_T4" (compared as same_origin does); the same problem size (an unknown size is not a different one).
// Stricter than same_origin, which also takes a shared file name for the same device: two devices' "results.json" in
// two folders are two sources.
bool same_measured_device(const std::string& path_a, const io::ResultsFile& a, const std::string& path_b,
                          const io::ResultsFile& b);

}  // namespace ktune
