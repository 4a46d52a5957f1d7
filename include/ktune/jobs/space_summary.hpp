#pragma once
// The rules of `ktune space` as a job: open a problem file (T1, ktune JSON or Kernel Tuner cache), build its search
// space (a cache's space is the configurations it records, as in every verb), export the valid configurations
// (CSV or JSON by the file name), check the space against brute force, and summarise it as JSON or text.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/io/problem_file.hpp"
#include "ktune/jobs/job_error.hpp"
#include "ktune/search_space.hpp"

namespace ktune {

struct SpaceRequest {
  std::string problem_path;
  std::string export_path;  // .csv or .json; empty: no export
  bool verify_brute_force = false;
  std::uint64_t brute_force_limit = 50'000'000;  // largest Cartesian size the check accepts
  std::optional<std::int64_t> max_threads;       // the implicit block-size limit (default 1024)
  bool implicit_block_constraint = true;
  unsigned threads = 2;  // construction threads, 0: all cores (the space does not depend on it)
  SpaceForm form = SpaceForm::automatic;
};

struct BruteForceOutcome {
  bool ok = false;
  std::uint64_t brute_force_valid = 0, missing = 0, extra = 0;
  double seconds = 0;
  std::string message;
};

class SpaceSummary {
 public:
  // Builds, exports and checks; throws JobError. A brute-force mismatch is an outcome (brute_force()->ok), not an
  // error.
  explicit SpaceSummary(SpaceRequest request);

  const SpaceRequest& request() const { return request_; }
  const io::ProblemFile& file() const { return file_; }
  const SearchSpace& space() const { return *space_; }
  // The export's format ("csv", "json"), when one was written.
  const std::optional<std::string>& export_format() const { return export_format_; }
  const std::optional<BruteForceOutcome>& brute_force() const { return brute_force_; }
  // What the front end shows on stderr: a results file cut short (its complete records make the space).
  const std::vector<std::string>& warnings() const { return warnings_; }
  double density() const;  // valid / Cartesian

 private:
  SpaceRequest request_;
  io::ProblemFile file_;
  std::optional<SearchSpace> space_;
  std::optional<std::string> export_format_;
  std::optional<BruteForceOutcome> brute_force_;
  std::vector<std::string> warnings_;
};

// The stable `ktune space --json` object.
nlohmann::json space_summary_json(const SpaceSummary& summary);
// What `ktune space` prints.
void write_space_summary(std::ostream& out, const SpaceSummary& summary);

}  // namespace ktune
