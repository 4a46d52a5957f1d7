// Fuzz target "results_csv": the input is the text of a results CSV, read as `ktune store import` reads one
// (parse_results_csv). Only io::InputError, naming the file. What is read holds together (a valid problem, one
// declared value per parameter in every record), and writing it is a fixed point: what was written reads back and
// writes the same text again.
#include "ktune/io/results_csv.hpp"

#include <sstream>
#include <string>

#include "fuzz_entries.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/results_file.hpp"

namespace {

using namespace ktune;
using ktune::fuzz::check;

const std::string kSource = "fuzz/results.csv";

std::string written(const io::ResultsFile& file) {
  std::ostringstream out;
  io::write_results_csv(out, file.problem, file.records, file.objectives);
  return out.str();
}

io::ResultsFile reread(const std::string& text) {
  try {
    return io::parse_results_csv(text, kSource);
  } catch (const io::InputError& e) {
    check(false, "a CSV written from what was read does not read back: " + std::string(e.what()) + "\n" + text);
  }
  return {};
}

}  // namespace

int ktune_fuzz_results_csv(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  io::ResultsFile file;
  try {
    file = io::parse_results_csv(text, kSource);
  } catch (const io::InputError& e) {
    check(e.file() == kSource, "InputError names '" + e.file() + "', not the file: " + e.what());
    return 0;
  }
  check(file.format == io::ResultsFormat::Csv, "wrong format");
  if (file.records.empty()) return 0;
  ktune::fuzz::check_records_declared(file);
  const std::string first = written(file);
  const io::ResultsFile again = reread(first);
  check(again.records.size() == file.records.size(), "the round trip lost records");
  const std::string second = written(again);
  const std::string third = written(reread(second));
  check(third == second, "writing what was read is no fixed point:\n" + second + "\n---\n" + third);
  return 0;
}
