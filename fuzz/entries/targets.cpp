#include "fuzz_entries.hpp"

namespace ktune::fuzz {

void check(bool condition, const std::string& message) {
  if (!condition) throw FuzzInvariantError(message);
}

void check_records_declared(const io::ResultsFile& file) {
  for (std::size_t r = 0; r < file.records.size(); ++r) {
    const EvaluationRecord& record = file.records[r];
    check(record.config.size() == file.problem.parameters.size(), "record " + std::to_string(r) + ": wrong size");
    for (std::size_t p = 0; p < record.config.size(); ++p) {
      bool declared = false;
      for (const Value& v : file.problem.parameters[p].values) declared = declared || same_value(v, record.config[p]);
      check(declared, "record " + std::to_string(r) + ": value " + record.config[p].repr() + " is not declared");
    }
  }
}

namespace {
constexpr Target kTargets[] = {
    {"expression", ktune_fuzz_expression},
    {"solver", ktune_fuzz_solver},
    {"t1", ktune_fuzz_t1},
    {"kernel_tuner_cache", ktune_fuzz_kernel_tuner_cache},
    {"t4_results", ktune_fuzz_t4_results},
    {"lenient_json", ktune_fuzz_lenient_json},
    {"results_csv", ktune_fuzz_results_csv},
    {"wisdom", ktune_fuzz_wisdom},
    {"kernel_tuner_results", ktune_fuzz_kernel_tuner_results},
};
}  // namespace

const Target* targets_begin() { return std::begin(kTargets); }
const Target* targets_end() { return std::end(kTargets); }

}  // namespace ktune::fuzz
