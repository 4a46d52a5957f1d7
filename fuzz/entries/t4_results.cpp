// Fuzz target "t4_results": the input is the text of a T4 results file, read as read_results_file reads one
// (parse_t4_results; the lenient reader, also for files cut short). Only io::InputError, naming the file. What is
// read holds together (a valid problem, one declared value per parameter in every record), and it survives the
// round trip through write_t4_results: what was written reads back and writes the same text again.
#include <sstream>
#include <string>

#include "ktune/io/input_error.hpp"
#include "ktune/io/t4_results.hpp"
#include "ktune/io/results_file.hpp"
#include "fuzz_entries.hpp"

namespace {

using namespace ktune;
using ktune::fuzz::check;

const std::string kSource = "fuzz/results_T4.json";

std::string written(const io::ResultsFile& file) {
  std::ostringstream out;
  io::write_t4_results(out, file.problem, file.records, file.objectives);
  return out.str();
}

}  // namespace

int ktune_fuzz_t4_results(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  io::ResultsFile file;
  try {
    file = io::parse_t4_results(text, kSource);
  } catch (const io::InputError& e) {
    check(e.file() == kSource, "InputError names '" + e.file() + "', not the file: " + e.what());
    return 0;
  }
  check(file.format == io::ResultsFormat::T4, "wrong format");
  if (!file.problem.parameters.empty()) {
    try {
      file.problem.validate();
    } catch (const ProblemError& e) {
      check(false, std::string("parse_t4_results returned an invalid problem: ") + e.what());
    }
  }
  ktune::fuzz::check_records_declared(file);

  const std::string first = written(file);
  io::ResultsFile again;
  try {
    again = io::parse_t4_results(first, kSource);
  } catch (const io::InputError& e) {
    check(false, "a T4 file written from what was read does not read back: " + std::string(e.what()) + "\n" + first);
  }
  check(again.records.size() == file.records.size() && !again.truncated, "the round trip lost records");
  const std::string second = written(again);
  check(second == first, "the round trip changed the file:\n" + first + "\n---\n" + second);
  return 0;
}
