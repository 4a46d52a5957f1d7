#include "fuzz_entries.hpp"

namespace ktune::fuzz {

void check(bool condition, const std::string& message) {
  if (!condition) throw FuzzInvariantError(message);
}

namespace {
constexpr Target kTargets[] = {
    {"expression", ktune_fuzz_expression},
    {"solver", ktune_fuzz_solver},
    {"t1", ktune_fuzz_t1},
    {"kernel_tuner_cache", ktune_fuzz_kernel_tuner_cache},
    {"t4_results", ktune_fuzz_t4_results},
    {"lenient_json", ktune_fuzz_lenient_json},
};
}  // namespace

const Target* targets_begin() { return std::begin(kTargets); }
const Target* targets_end() { return std::end(kTargets); }

}  // namespace ktune::fuzz
