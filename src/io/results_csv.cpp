// Results as CSV (RFC 4180), one row per record, for spreadsheets and pandas.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/io/results_csv.hpp"

namespace ktune::io {

namespace {

// One line of cells, quoted where RFC 4180 needs it.
class CsvRow {
 public:
  void add(std::string_view cell) {
    if (cells_++ > 0) text_ += ',';
    if (cell.find_first_of(",\"\r\n") == std::string_view::npos) {
      text_ += cell;
      return;
    }
    text_ += '"';
    for (const char c : cell) {
      if (c == '"') text_ += '"';
      text_ += c;
    }
    text_ += '"';
  }
  void write_to(std::ostream& out) {
    out << text_ << "\r\n";
    text_.clear();
    cells_ = 0;
  }

 private:
  std::string text_;
  std::size_t cells_ = 0;
};

// Shortest round-trip digits; "" for NaN (an unknown time).
std::string number_cell(double v) { return std::isnan(v) ? std::string() : fmt::format("{}", v); }

}  // namespace

void write_results_csv(std::ostream& out, const Problem& problem, std::span<const EvaluationRecord> records,
                       const std::vector<std::string>& objectives) {
  // The numeric measurements other than the objectives, in order of first appearance.
  std::vector<std::string> others;
  for (const EvaluationRecord& r : records)
    for (const Measurement& m : r.measurements)
      if (m.value.is_numeric() && std::find(objectives.begin(), objectives.end(), m.name) == objectives.end() &&
          std::find(others.begin(), others.end(), m.name) == others.end())
        others.push_back(m.name);

  CsvRow row;
  for (const Parameter& p : problem.parameters) row.add(p.name);
  row.add("status");
  for (const std::string& o : objectives) row.add(o);
  for (const std::string& o : others) row.add(o);
  for (const char* column : {"compile_ms", "benchmark_ms", "verification_ms", "framework_ms", "strategy_ms", "clock_s",
                             "timestamp", "message"})
    row.add(column);
  row.write_to(out);

  for (std::size_t i = 0; i < records.size(); ++i) {
    const EvaluationRecord& r = records[i];
    if (r.config.size() != problem.parameters.size())
      throw std::invalid_argument(fmt::format("record {} has {} values for {} parameters", i, r.config.size(),
                                              problem.parameters.size()));
    for (const Value& v : r.config) row.add(v.str());
    row.add(to_string(r.status));
    for (const std::string& o : objectives) {
      const auto value = r.objective(o);
      row.add(value ? fmt::format("{}", *value) : std::string());
    }
    for (const std::string& o : others) {
      const Measurement* m = r.find(o);
      row.add(m != nullptr ? m->value.str() : std::string());
    }
    for (double ms : {r.compile_ms, r.benchmark_ms, r.verification_ms, r.framework_ms, r.strategy_ms})
      row.add(number_cell(ms));
    row.add(number_cell(r.clock_ms / 1000));
    row.add(r.timestamp);
    row.add(r.message);
    row.write_to(out);
  }
}

}  // namespace ktune::io
