// Reading the CSV that write_results_csv writes, back into records.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/results_csv.hpp"
#include "nan_constant.hpp"

namespace ktune::io {

namespace {

constexpr const char* kStepColumns[] = {"compile_ms", "benchmark_ms", "verification_ms", "framework_ms", "strategy_ms"};
// The columns write_results_csv writes besides the parameters and measurements.
constexpr std::string_view kFixedColumns[] = {"status",          "compile_ms",   "benchmark_ms",
                                              "verification_ms", "framework_ms", "strategy_ms",
                                              "clock_s",         "timestamp",    "message"};

// RFC 4180 rows: quoted cells may hold commas, quotes ("") and line breaks; a line ends with LF or CRLF.
class CsvReader {
 public:
  CsvReader(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  bool done() const { return pos_ >= text_.size(); }
  std::size_t line() const { return line_; }

  std::vector<std::string> row() {
    std::vector<std::string> cells;
    row_line_ = line_;
    for (;;) {
      std::string cell;
      if (pos_ < text_.size() && text_[pos_] == '"') {
        ++pos_;
        for (;;) {
          if (pos_ >= text_.size()) fail("a quoted cell is not closed");
          const char c = text_[pos_++];
          if (c == '"') {
            if (pos_ < text_.size() && text_[pos_] == '"') {
              cell += '"';
              ++pos_;
              continue;
            }
            break;
          }
          if (c == '\n') ++line_;
          cell += c;
        }
        if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\r' && text_[pos_] != '\n')
          fail("text after a quoted cell");
      } else {
        while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\r' && text_[pos_] != '\n') {
          if (text_[pos_] == '"') fail("a quote inside an unquoted cell");
          cell += text_[pos_++];
        }
      }
      cells.push_back(std::move(cell));
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
      if (pos_ < text_.size() && text_[pos_] == '\n') ++pos_, ++line_;
      return cells;
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(source_, fmt::format("line {}", row_line_), what);
  }

 private:
  const std::string& text_;
  const std::string& source_;
  std::size_t pos_ = 0, line_ = 1, row_line_ = 1;
};

// A cell as the writer's Value::str() wrote it: an integer, a float (Python's repr), True/False, else a string.
Value cell_value(const std::string& cell) {
  const char* begin = cell.data();
  const char* end = begin + cell.size();
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(begin, end, i); ec == std::errc() && p == end && !cell.empty()) return Value(i);
  double d = 0;
  if (auto [p, ec] = std::from_chars(begin, end, d); ec == std::errc() && p == end && !cell.empty()) return Value(d);
  if (cell == "inf") return Value(std::numeric_limits<double>::infinity());
  if (cell == "-inf") return Value(-std::numeric_limits<double>::infinity());
  if (cell == "nan") return Value(kNaN);
  if (cell == "True") return Value(true);
  if (cell == "False") return Value(false);
  return Value(cell);
}

// A number cell; "" is NaN (unknown). std::nullopt if it is no number.
std::optional<double> number_cell(const std::string& cell) {
  if (cell.empty()) return kNaN;
  const Value v = cell_value(cell);
  if (!v.is_numeric() || v.is_bool()) return std::nullopt;
  return v.to_double();
}

// The milliseconds whose seconds the writer would print as `seconds` again (x * 1000 / 1000 is not always x).
double milliseconds_of(double seconds) {
  double ms = seconds * 1000;
  if (!std::isfinite(ms)) return ms;
  for (int step = 0; step < 8 && ms / 1000 != seconds; ++step)
    ms = std::nextafter(
        ms, ms / 1000 < seconds ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  return ms / 1000 == seconds ? ms : seconds * 1000;
}

}  // namespace

ResultsFile parse_results_csv(const std::string& text, const std::string& source_name) {
  CsvReader reader(text, source_name);
  if (reader.done()) throw InputError(source_name, "", "the file is empty");
  const std::vector<std::string> header = reader.row();
  const auto column = [&](std::string_view name) -> std::ptrdiff_t {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : it - header.begin();
  };
  const std::ptrdiff_t status_column = column("status");
  if (status_column < 0) reader.fail("no 'status' column (not a ktune results CSV)");
  if (status_column == 0) reader.fail("no parameter columns before 'status'");
  const std::size_t n_params = static_cast<std::size_t>(status_column);
  std::ptrdiff_t measurements_end = column("compile_ms");
  if (measurements_end < 0) measurements_end = static_cast<std::ptrdiff_t>(header.size());
  if (measurements_end < status_column) reader.fail("'compile_ms' before 'status'");

  // Every name once, and the columns the writer adds in their place only: the text written from what is read must
  // name its columns the same way.
  for (std::size_t c = 0; c < header.size(); ++c) {
    if (std::find(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(c), header[c]) !=
        header.begin() + static_cast<std::ptrdiff_t>(c))
      reader.fail(fmt::format("column '{}' twice", header[c]));
    const bool fixed =
        std::find(std::begin(kFixedColumns), std::end(kFixedColumns), header[c]) != std::end(kFixedColumns);
    if (fixed && static_cast<std::ptrdiff_t>(c) < measurements_end && static_cast<std::ptrdiff_t>(c) != status_column)
      reader.fail(fmt::format("column '{}' before the measurements end (at 'compile_ms')", header[c]));
  }

  ResultsFile file;
  file.format = ResultsFormat::Csv;
  file.problem.name = file_stem(source_name);
  for (std::size_t p = 0; p < n_params; ++p) file.problem.parameters.push_back({header[p], {}});
  if (status_column + 1 < measurements_end)
    file.objectives.push_back(header[static_cast<std::size_t>(status_column) + 1]);
  std::vector<std::ptrdiff_t> steps;
  for (const char* name : kStepColumns) steps.push_back(column(name));
  const std::ptrdiff_t clock = column("clock_s"), timestamp = column("timestamp"), message = column("message");

  while (!reader.done()) {
    const std::size_t line = reader.line();
    std::vector<std::string> cells = reader.row();
    if (cells.size() == 1 && cells[0].empty()) continue;  // a blank line
    if (cells.size() != header.size())
      throw InputError(source_name, fmt::format("line {}", line),
                       fmt::format("{} cells, the header has {}", cells.size(), header.size()));
    const auto bad = [&](std::size_t c, const std::string& what) {
      throw InputError(source_name, fmt::format("line {}, column '{}'", line, header[c]), what);
    };
    EvaluationRecord r;
    for (std::size_t p = 0; p < n_params; ++p) {
      Value v = cell_value(cells[p]);
      auto& values = file.problem.parameters[p].values;
      const auto known = std::find_if(values.begin(), values.end(), [&](const Value& d) { return python_equal(d, v); });
      if (known == values.end())
        values.push_back(v);
      else
        v = *known;  // 1 and 1.0 are one value: the first spelling seen
      r.config.push_back(std::move(v));
    }
    const auto status = parse_status(cells[static_cast<std::size_t>(status_column)]);
    if (!status)
      bad(static_cast<std::size_t>(status_column),
          fmt::format("unknown status '{}'", cells[static_cast<std::size_t>(status_column)]));
    r.status = *status;
    for (auto c = static_cast<std::size_t>(status_column) + 1; c < static_cast<std::size_t>(measurements_end); ++c)
      if (!cells[c].empty()) r.measurements.push_back({header[c], cell_value(cells[c]), ""});
    for (std::size_t k = 0; k < steps.size(); ++k) {
      if (steps[k] < 0) continue;
      const auto ms = number_cell(cells[static_cast<std::size_t>(steps[k])]);
      if (!ms) bad(static_cast<std::size_t>(steps[k]), "not a number");
      double* fields[] = {&r.compile_ms, &r.benchmark_ms, &r.verification_ms, &r.framework_ms, &r.strategy_ms};
      *fields[k] = *ms;
    }
    if (clock >= 0) {
      const auto s = number_cell(cells[static_cast<std::size_t>(clock)]);
      if (!s) bad(static_cast<std::size_t>(clock), "not a number");
      r.clock_ms = std::isnan(*s) ? kNaN : milliseconds_of(*s);
    }
    if (timestamp >= 0) r.timestamp = cells[static_cast<std::size_t>(timestamp)];
    if (message >= 0) r.message = cells[static_cast<std::size_t>(message)];
    file.records.push_back(std::move(r));
  }

  // Numbers ascending (the records keep their values; only the declared order changes).
  for (Parameter& p : file.problem.parameters) {
    if (std::all_of(p.values.begin(), p.values.end(),
                    [](const Value& v) { return v.is_numeric() && std::isfinite(v.to_double()); }))
      std::stable_sort(p.values.begin(), p.values.end(),
                       [](const Value& a, const Value& b) { return a.to_double() < b.to_double(); });
  }
  if (!file.records.empty()) {
    try {
      file.problem.validate();
    } catch (const std::exception& e) {
      throw InputError(source_name, "", e.what());
    }
  } else {
    file.problem.parameters.clear();
  }
  return file;
}

}  // namespace ktune::io
