// Fuzz target "t1": the input is the text of a T1 file, read as read_t1_file and read_t1_kernel_specification
// read one (without the file system: parse_json_text + parse_t1, parse_t1_kernel_specification).
//  - the problem part: io::InputError only, naming the file; a problem it gives is valid, and when small enough its
//    search space builds (or fails with ProblemError / ExpressionError for a bad condition) and agrees with brute
//    force (brute_force_oracle.hpp);
//  - the KernelSpecification part, against that problem (or a fixed one when the problem part failed): io::InputError
//    only; a specification it gives plans the launch of a few valid configurations (std::invalid_argument for an
//    expression that cannot be evaluated, as plan_launch documents).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ktune/expr/errors.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/t1_reader.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/problem.hpp"
#include "ktune/search_space.hpp"
#include "brute_force_oracle.hpp"
#include "fuzz_entries.hpp"

namespace {

using namespace ktune;
using ktune::fuzz::check;
using ktune::fuzz::check_against_brute_force;

const std::string kSource = "fuzz/t1_input.json";

// The problem the KernelSpecification part is read against when the input's own problem part is not usable.
Problem fallback_problem() {
  Problem p;
  p.name = "fuzz";
  p.parameters = {{"block_size_x", {Value(16), Value(32)}}, {"tile", {Value(1), Value(2)}}, {"alg", {Value("a")}}};
  p.constants = {{"N", Value(64)}};
  return p;
}

void check_input_error(const io::InputError& e) {
  check(e.file() == kSource, "InputError names '" + e.file() + "', not the file: " + e.what());
}

}  // namespace

int ktune_fuzz_t1(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json document;
  try {
    document = io::parse_json_text(text, kSource);
  } catch (const io::InputError& e) {
    check_input_error(e);
    return 0;
  }

  std::optional<Problem> problem;
  try {
    problem = io::parse_t1(document, kSource);
  } catch (const io::InputError& e) {
    check_input_error(e);
  }
  std::optional<SearchSpace> space;
  if (problem) {
    try {
      problem->validate();
    } catch (const ProblemError& e) {
      check(false, std::string("parse_t1 returned an invalid problem: ") + e.what());
    }
    if (problem->cartesian_size() <= 2000) {
      BuildOptions options;
      options.threads = 1;
      try {
        space.emplace(SearchSpace::build(*problem, options));
      } catch (const ProblemError&) {
      } catch (const expr::ExpressionError&) {
      }
      if (space) {
        check_against_brute_force(*space);
      }
    }
  }

  const Problem spec_problem = problem ? *problem : fallback_problem();
  std::optional<live::KernelSpecification> spec;
  try {
    spec.emplace(live::parse_t1_kernel_specification(text, kSource, spec_problem));
  } catch (const io::InputError& e) {
    check_input_error(e);
    return 0;
  }
  if (!space && !problem) {
    BuildOptions options;
    options.threads = 1;
    space.emplace(SearchSpace::build(spec_problem, options));
  }
  if (space) {
    for (std::size_t i = 0; i < space->size() && i < 3; ++i) {
      try {
        (void)live::plan_launch(*spec, spec_problem, space->values_at(i));
      } catch (const std::invalid_argument&) {
      }
    }
  }
  return 0;
}
