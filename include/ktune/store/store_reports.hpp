#pragma once
// What `ktune store list|best` report, as the stable --json objects and as text.
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/store/results_store.hpp"

namespace ktune::store {

// The best records of one kernel on one device at one problem size (all its builds' spaces together).
struct BestGroup {
  std::string kernel_name, device_name;
  nlohmann::json problem_size;
  std::string objective;
  bool higher_is_better = false;
  std::vector<std::int64_t> spaces;
  std::vector<std::string> parameters;  // of the first space
  std::size_t records = 0;
  std::vector<BestRecord> best;  // best first
};

struct BestFilter {
  std::optional<std::string> kernel, device;
  std::size_t top = 1;
};
std::vector<BestGroup> best_per_group(const ResultsStore& store, const BestFilter& filter = {});

// {"store", "spaces": [{"id", "kernel", "device", "problem_size", "parameters", "objectives", "higher_is_better",
// "provenance", "format", "records", "ok_records", "sessions", "first_started", "last_started"}]}
nlohmann::json store_list_json(const ResultsStore& store);
void write_store_list(std::ostream& out, const ResultsStore& store);
// {"store", "groups": [{"kernel", "device", "problem_size", "objective", "higher_is_better", "spaces", "records",
// "best": [{"value", "configuration": {name: value}, "space", "timestamp", "measurements": {name: value}}]}]}
nlohmann::json store_best_json(const ResultsStore& store, const std::vector<BestGroup>& groups);
void write_store_best(std::ostream& out, const std::vector<BestGroup>& groups);

}  // namespace ktune::store
