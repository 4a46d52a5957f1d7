#pragma once
// The fuzz entry points: one per input format that users hand to ktune. Each takes arbitrary bytes, feeds them to
// the library the way a user's file or expression reaches it, and returns 0. The errors the library documents for
// bad input (io::InputError, ProblemError, expr::ExpressionError / EvalError, ...) are caught and checked; anything
// else escapes: a crash, a sanitizer report, an undocumented exception type (std::bad_alloc, std::out_of_range,
// nlohmann::json::exception, ...) or a broken invariant (FuzzInvariantError). Each entry also checks properties the
// library promises on the way (round trips, two evaluators agreeing, a solver agreeing with brute force).
//
// The libFuzzer executables (fuzz/<target>.cpp) call these from LLVMFuzzerTestOneInput; tests/fuzz_regressions
// replays fuzz/corpus/<target>/ and tests/data/fuzz/<target>/ through them in the ordinary test runs.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/t4_results.hpp"
#include "ktune/io/results_file.hpp"

namespace ktune::fuzz {

// A property the library promises did not hold.
class FuzzInvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Throws FuzzInvariantError(message) unless `condition`.
void check(bool condition, const std::string& message);

// Every record of a results file has one value per parameter, each a declared value of its parameter.
void check_records_declared(const io::ResultsFile& file);

// The targets, by the name of their folder under fuzz/corpus/ and tests/data/fuzz/.
struct Target {
  const char* name;
  int (*entry)(const std::uint8_t* data, std::size_t size);
};
// Every target, in the order `make fuzz` runs them.
const Target* targets_begin();
const Target* targets_end();

}  // namespace ktune::fuzz

// Constraint / value-list expressions: tokenize, parse, unparse round trip, compile against known parameters,
// evaluate on configurations with the compiled program (fast and general paths) and the tree evaluator.
int ktune_fuzz_expression(const std::uint8_t* data, std::size_t size);
// Constraints through the solver: a small Problem with the input as constraints (split at ';'), SearchSpace::build,
// checked against brute force.
int ktune_fuzz_solver(const std::uint8_t* data, std::size_t size);
// A T1 file: the problem part (parse_t1) and the KernelSpecification part (parse_t1_kernel_specification).
int ktune_fuzz_t1(const std::uint8_t* data, std::size_t size);
// A Kernel Tuner cache file: the problem behind it (parse_skipping_cache + problem_from_cache_json) and its results
// (parse_kernel_tuner_cache).
int ktune_fuzz_kernel_tuner_cache(const std::uint8_t* data, std::size_t size);
// A T4 results file (parse_t4_results), with the write/read round trip.
int ktune_fuzz_t4_results(const std::uint8_t* data, std::size_t size);
// The lenient JSON pull parser (LenientJsonReader), against nlohmann::json on strict JSON and on cut-short text.
int ktune_fuzz_lenient_json(const std::uint8_t* data, std::size_t size);
// A results CSV (parse_results_csv), writing what was read a fixed point.
int ktune_fuzz_results_csv(const std::uint8_t* data, std::size_t size);
// A wisdom file (runtime::Wisdom::parse), with the write/parse round trip and select() on what was read.
int ktune_fuzz_wisdom(const std::uint8_t* data, std::size_t size);
// A Kernel Tuner results file (read_kernel_tuner_results_file), writing what was read a fixed point, and
// best_configuration / device_targets_header on it.
int ktune_fuzz_kernel_tuner_results(const std::uint8_t* data, std::size_t size);
