// Fuzz target "kernel_tuner_cache": the input is the text of a Kernel Tuner cache file, read both ways ktune reads
// one (without the file system):
//  - the problem behind it, as read_problem_file / problem_from_cache_file do: parse_skipping_cache +
//    problem_from_cache_json;
//  - its results, as read_results_file does: parse_kernel_tuner_cache (the lenient reader, also for files cut
//    short).
// Only io::InputError, naming the file. Whatever is read must hold together: a valid problem, every record with one
// declared value per parameter, the entries' layout inside the text; where both ways give a problem, the same one.
#include <optional>
#include <string>

#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/results_file.hpp"
#include "io/cache_layout.hpp"
#include "ktune/io/input_error.hpp"
#include "fuzz_entries.hpp"

namespace {

using namespace ktune;
using ktune::fuzz::check;

const std::string kSource = "fuzz/cache.json";

void check_input_error(const io::InputError& e) {
  check(e.file() == kSource, "InputError names '" + e.file() + "', not the file: " + e.what());
}

void check_valid(const Problem& problem, const char* what) {
  try {
    problem.validate();
  } catch (const ProblemError& e) {
    check(false, std::string(what) + " returned an invalid problem: " + e.what());
  }
}

bool same_problem(const Problem& a, const Problem& b) {
  if (a.name != b.name || a.constraints != b.constraints || a.parameters.size() != b.parameters.size()) return false;
  for (std::size_t p = 0; p < a.parameters.size(); ++p) {
    const auto& x = a.parameters[p];
    const auto& y = b.parameters[p];
    if (x.name != y.name || x.values.size() != y.values.size()) return false;
    for (std::size_t i = 0; i < x.values.size(); ++i)
      if (!same_value(x.values[i], y.values[i]) && x.values[i].repr() != y.values[i].repr()) return false;
  }
  return true;
}

std::string describe(const Problem& p) {
  std::string out = p.name + ":";
  for (const auto& param : p.parameters) {
    out += " " + param.name + "=[";
    for (const auto& v : param.values) out += v.repr() + ",";
    out += "]";
  }
  return out;
}

}  // namespace

int ktune_fuzz_kernel_tuner_cache(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  std::optional<Problem> header_problem;
  try {
    const io::ScannedDocument scanned = io::parse_skipping_cache(text, kSource);
    header_problem = io::problem_from_cache_json(scanned.document, kSource, scanned.tune_params_order);
    check_valid(*header_problem, "problem_from_cache_json");
  } catch (const io::InputError& e) {
    check_input_error(e);
  }

  io::CacheLayout layout;
  io::ResultsFile file;
  try {
    file = io::parse_kernel_tuner_cache(text, kSource, layout);
  } catch (const io::InputError& e) {
    check_input_error(e);
    return 0;
  }
  check_valid(file.problem, "parse_kernel_tuner_cache");
  check(file.format == io::ResultsFormat::KernelTunerCache, "wrong format");
  ktune::fuzz::check_records_declared(file);
  if (layout.entries_begin != io::CacheLayout::npos) {
    check(layout.entries_begin <= layout.entries_end && layout.entries_end <= text.size(),
          "entries outside the text: " + std::to_string(layout.entries_begin) + ".." +
              std::to_string(layout.entries_end) + " of " + std::to_string(text.size()));
  } else {
    check(file.records.empty(), "records without a cache object");
  }
  if (header_problem)
    check(same_problem(*header_problem, file.problem), "the two readers disagree on the problem: " +
                                                           describe(*header_problem) + " vs " + describe(file.problem));
  return 0;
}
