#include "ktune/jobs/space_summary.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "ktune/expr/errors.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/output_file.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/solver/brute_force.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"

namespace ktune {
namespace {

enum class ExportFormat { Csv, Json };

std::optional<ExportFormat> export_format_of(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto ends_with = [&](const std::string& s) {
    return lower.size() > s.size() && lower.compare(lower.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with(".csv")) return ExportFormat::Csv;
  if (ends_with(".json")) return ExportFormat::Json;
  return std::nullopt;
}

// 22200000 -> "22,200,000"
std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// 1234567 -> "1.2 MB"
std::string bytes_text(std::size_t bytes) {
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} kB", static_cast<double>(bytes) / 1024.0);
  return fmt::format("{:.1f} MB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

std::string value_preview(const std::vector<Value>& values) {
  constexpr std::size_t kShown = 8;
  std::string out;
  const auto append = [&](const Value& v) { out += (out.empty() ? "" : ", ") + v.repr(); };
  if (values.size() <= kShown) {
    for (const Value& v : values) append(v);
  } else {
    for (std::size_t i = 0; i + 2 < kShown; ++i) append(values[i]);
    out += ", ..., " + values.back().repr();
  }
  return out;
}

}  // namespace

SpaceSummary::SpaceSummary(SpaceRequest request) : request_(std::move(request)) {
  const SpaceRequest& r = request_;
  std::optional<ExportFormat> format;
  if (!r.export_path.empty()) {
    format = export_format_of(r.export_path);
    if (!format)
      refuse_request(fmt::format("--export {}: unknown file type (use a .csv or .json file name)", r.export_path));
  }
  try {
    file_ = io::read_problem_file(r.problem_path);
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  }
  Problem problem = file_.problem;
  if (!r.implicit_block_constraint) problem.max_threads = std::nullopt;
  if (r.max_threads) problem.max_threads = r.max_threads;
  if (r.verify_brute_force && problem.cartesian_size() > r.brute_force_limit)
    refuse_request(fmt::format("--verify-brute-force: the Cartesian size {} exceeds the brute-force limit {} (raise it "
                               "with --brute-force-limit)",
                               grouped(problem.cartesian_size()), grouped(r.brute_force_limit)));
  // One definition of the space of a results file, in every verb: the configurations it records (except those
  // recorded as invalid). A Kernel Tuner cache keeps no restrictions, so its tune_params alone would make a larger
  // space.
  const bool recorded_space = file_.format == io::ProblemFormat::KernelTunerCache;
  if (recorded_space && r.verify_brute_force)
    refuse_request("--verify-brute-force: the space of a Kernel Tuner cache is its recorded configurations; there is "
                   "no constraint to check by brute force");
  try {
    if (recorded_space) {
      const io::ResultsFile results = io::read_results_file(r.problem_path);
      if (results.truncated)  // as tune --simulate says it
        warnings_.push_back(fmt::format("warning: {} was cut short (an interrupted run?); read {} complete records",
                                        r.problem_path, results.records.size()));
      space_.emplace(space_from_results(results));
    } else {
      BuildOptions build_options;
      build_options.threads = r.threads;
      build_options.form = r.form;
      space_.emplace(SearchSpace::build(std::move(problem), build_options));
    }
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  } catch (const SimulationError& e) {
    refuse_input(fmt::format("{}: {}", r.problem_path, e.what()));
  } catch (const expr::ExpressionError& e) {
    refuse_input(fmt::format("{}: {}", r.problem_path, e.what()));
  } catch (const ProblemError& e) {
    refuse_input(fmt::format("{}: {}", r.problem_path, e.what()));
  }
  // A lazy space may be far too large to write out (as to list): the same limit as the materialised form's.
  if (format && space_->size() >= std::numeric_limits<std::uint32_t>::max())
    refuse_request(fmt::format("--export {}: the space has {} valid configurations, more than 2^32-2 are not "
                               "written out", r.export_path, grouped(space_->size())));
  if (format) {
    try {
      io::write_file_atomically(r.export_path, [&](std::ostream& out) {
        if (*format == ExportFormat::Csv)
          space_->write_csv(out);
        else
          out << space_->to_json().dump() << "\n";
      });
    } catch (const io::InputError& e) {
      refuse_input(fmt::format("--export {}", e.what()));
    }
    export_format_ = *format == ExportFormat::Csv ? "csv" : "json";
  }
  if (r.verify_brute_force) {
    try {
      const BruteForceCheck check = verify_brute_force(*space_, r.brute_force_limit);
      brute_force_ = BruteForceOutcome{check.ok,    check.brute_force_valid, check.missing,
                                       check.extra, check.seconds,           check.message};
    } catch (const std::invalid_argument& e) {
      refuse_request(fmt::format("--verify-brute-force: {}", e.what()));
    }
  }
}

double SpaceSummary::density() const {
  const std::uint64_t cartesian = space_->report().cartesian_size;
  return cartesian == 0 ? 0.0 : static_cast<double>(space_->size()) / static_cast<double>(cartesian);
}

nlohmann::json space_summary_json(const SpaceSummary& summary) {
  const SearchSpace& space = summary.space();
  const io::ProblemFile& file = summary.file();
  const auto& brute_force = summary.brute_force();
  const Problem& problem = space.problem();
  const ConstructionReport& report = space.report();
  nlohmann::json j;
  j["name"] = problem.name;
  j["source"] = summary.request().problem_path;
  j["format"] = io::to_string(file.format);
  nlohmann::json params = nlohmann::json::array();
  for (const Parameter& p : problem.parameters) {
    nlohmann::json values = nlohmann::json::array();
    for (const Value& v : p.values) values.push_back(io::value_to_json(v));
    params.push_back({{"name", p.name}, {"values", std::move(values)}});
  }
  j["parameters"] = std::move(params);
  j["constraints"] = problem.constraints;
  j["implicit_constraint"] = report.implicit_constraint.empty() ? nlohmann::json(nullptr)
                                                                : nlohmann::json(report.implicit_constraint);
  j["max_threads"] = problem.max_threads ? nlohmann::json(*problem.max_threads) : nlohmann::json(nullptr);
  nlohmann::json solved = nlohmann::json::array();
  for (std::size_t i = 0; i < report.constraints.size(); ++i)
    solved.push_back({{"expression", report.constraints[i]},
                      {"kind", i < report.constraint_kinds.size() ? report.constraint_kinds[i] : std::string()}});
  j["solved_constraints"] = std::move(solved);
  j["cartesian_size"] = report.cartesian_size;
  j["valid_configs"] = static_cast<std::uint64_t>(space.size());
  j["density"] = summary.density();
  j["construction_seconds"] = report.seconds;
  j["independent_groups"] = report.independent_groups;
  j["form"] = space.is_lazy() ? "lazy" : "materialised";
  j["packed"] = space.listed() != nullptr && space.listed()->is_packed();  // one bit-packed word per configuration
  j["group_sizes"] = report.group_sizes;
  j["memory_bytes"] = space.memory_bytes();
  j["constraint_evaluations"] = report.constraint_evaluations;
  j["evaluation_errors"] = report.evaluation_errors;
  j["evaluation_error_messages"] = report.evaluation_error_messages;
  if (summary.export_format())
    j["export"] = {{"path", summary.request().export_path}, {"format", *summary.export_format()}};
  if (brute_force)
    j["brute_force"] = {{"ok", brute_force->ok},
                        {"brute_force_valid", brute_force->brute_force_valid},
                        {"missing", brute_force->missing},
                        {"extra", brute_force->extra},
                        {"seconds", brute_force->seconds},
                        {"message", brute_force->message}};
  return j;
}

void write_space_summary(std::ostream& out, const SpaceSummary& summary) {
  const SearchSpace& space = summary.space();
  const io::ProblemFile& file = summary.file();
  const auto& brute_force = summary.brute_force();
  const Problem& problem = space.problem();
  const ConstructionReport& report = space.report();
  out << fmt::format("problem      {} ({} file {})\n", problem.name, io::to_string(file.format), summary.request().problem_path);

  std::size_t width = 0;
  for (const Parameter& p : problem.parameters) width = std::max(width, p.name.size());
  out << fmt::format("parameters   {}\n", problem.parameters.size());
  for (const Parameter& p : problem.parameters)
    out << fmt::format("  {:<{}}  {:>6} {:<6}  {}\n", p.name, width, p.values.size(),
                       p.values.size() == 1 ? "value" : "values", value_preview(p.values));

  out << fmt::format("constraints  {} given, {} as solved\n", problem.constraints.size(), report.constraints.size());
  std::size_t kind_width = 0;
  for (const std::string& kind : report.constraint_kinds) kind_width = std::max(kind_width, kind.size());
  for (std::size_t i = 0; i < report.constraints.size(); ++i) {
    const std::string kind = i < report.constraint_kinds.size() ? report.constraint_kinds[i] : "";
    out << fmt::format("  {:<{}}  {}\n", kind, kind_width, report.constraints[i]);
  }
  if (!report.implicit_constraint.empty()) {
    out << fmt::format("implicit     {}  (Kernel Tuner's block-size limit; --max-threads N changes it, "
                       "--no-implicit-block-constraint drops it)\n", report.implicit_constraint);
  } else if (!problem.max_threads) {
    out << "implicit     none (switched off)\n";
  } else {
    out << "implicit     none (no block-size parameters)\n";
  }

  if (file.format == io::ProblemFormat::KernelTunerCache)
    out << "note         the space of a Kernel Tuner cache is the configurations it records (not those recorded as "
           "invalid),\n             as tune --simulate and compare use it (a cache keeps no restrictions)\n";
  out << fmt::format("cartesian    {}\n", grouped(report.cartesian_size));
  out << fmt::format("valid        {}\n", grouped(space.size()));
  out << fmt::format("density      {:.4g}%\n", 100.0 * summary.density());
  out << fmt::format("construction {:.3f} s ({} independent group{})\n", report.seconds, report.independent_groups,
                     report.independent_groups == 1 ? "" : "s");
  if (space.is_lazy())
    out << fmt::format("form         lazy: the product of {} groups of {} valid configurations, not listed ({} held)\n",
                       report.group_sizes.size(), fmt::join(report.group_sizes, " x "),
                       bytes_text(space.memory_bytes()));
  else
    out << fmt::format("form         materialised: every valid configuration listed{} ({} held)\n",
                       space.listed() != nullptr && space.listed()->is_packed() ? ", bit-packed" : "",
                       bytes_text(space.memory_bytes()));
  if (report.constraint_evaluations > 0)
    out << fmt::format("evaluations  {} checks of a constraint on an assignment ({:.3g} per Cartesian configuration)\n",
                       grouped(report.constraint_evaluations),
                       static_cast<double>(report.constraint_evaluations) / static_cast<double>(report.cartesian_size));
  if (report.evaluation_errors > 0) {
    out << fmt::format("evaluation errors  {} configurations made invalid by errors in constraints:\n",
                       grouped(report.evaluation_errors));
    for (const std::string& m : report.evaluation_error_messages) out << "  " << m << "\n";
  }
  if (summary.export_format())
    out << fmt::format("exported     {} ({})\n", summary.request().export_path, *summary.export_format());
  if (brute_force) {
    if (brute_force->ok)
      out << fmt::format("brute force  OK: {} valid configurations, identical ({:.3f} s)\n",
                         grouped(brute_force->brute_force_valid), brute_force->seconds);
    else
      out << fmt::format("brute force  MISMATCH: brute force finds {} valid, {} missing from the space, {} extra "
                         "({:.3f} s){}{}\n",
                         grouped(brute_force->brute_force_valid), grouped(brute_force->missing),
                         grouped(brute_force->extra), brute_force->seconds, brute_force->message.empty() ? "" : ": ",
                         brute_force->message);
  }
}

}  // namespace ktune
