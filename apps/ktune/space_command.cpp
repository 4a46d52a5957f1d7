// `ktune space PROBLEM`: builds the search space of a problem file and summarises it (human or --json),
// optionally exports the valid configurations and cross-checks them against brute force.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "number_options.hpp"
#include "ktune/expr/errors.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/problem_file.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "ktune/solver/brute_force.hpp"

namespace ktune::cli {

namespace {

struct SpaceOptions {
  std::string problem_path;
  bool json = false;
  std::string export_path;
  bool verify_brute_force = false;
  std::uint64_t brute_force_limit = 50'000'000;
  std::optional<std::int64_t> max_threads;
  bool no_implicit_block_constraint = false;
  unsigned threads = 2;
};

enum class ExportFormat { Csv, Json };

std::optional<ExportFormat> export_format(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto ends_with = [&](const std::string& s) {
    return lower.size() > s.size() && lower.compare(lower.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with(".csv")) return ExportFormat::Csv;
  if (ends_with(".json")) return ExportFormat::Json;
  return std::nullopt;
}

void error(const std::string& message) { std::cerr << "ktune space: error: " << message << "\n"; }

// 22200000 -> "22,200,000"
std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
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

double density(const SearchSpace& space) {
  const std::uint64_t cartesian = space.report().cartesian_size;
  return cartesian == 0 ? 0.0 : static_cast<double>(space.size()) / static_cast<double>(cartesian);
}

struct ExportResult {
  std::string path;
  const char* format;
};

struct BruteForceOutcome {
  bool ok = false;
  std::uint64_t brute_force_valid = 0, missing = 0, extra = 0;
  double seconds = 0;
  std::string message;
};

nlohmann::json summary_json(const io::ProblemFile& file, const SpaceOptions& options, const SearchSpace& space,
                            const std::optional<ExportResult>& exported,
                            const std::optional<BruteForceOutcome>& brute_force) {
  const Problem& problem = space.problem();
  const ConstructionReport& report = space.report();
  nlohmann::json j;
  j["name"] = problem.name;
  j["source"] = options.problem_path;
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
  j["density"] = density(space);
  j["construction_seconds"] = report.seconds;
  j["independent_groups"] = report.independent_groups;
  j["evaluation_errors"] = report.evaluation_errors;
  j["evaluation_error_messages"] = report.evaluation_error_messages;
  if (exported) j["export"] = {{"path", exported->path}, {"format", exported->format}};
  if (brute_force)
    j["brute_force"] = {{"ok", brute_force->ok},
                        {"brute_force_valid", brute_force->brute_force_valid},
                        {"missing", brute_force->missing},
                        {"extra", brute_force->extra},
                        {"seconds", brute_force->seconds},
                        {"message", brute_force->message}};
  return j;
}

void print_summary(std::ostream& out, const io::ProblemFile& file, const SpaceOptions& options,
                   const SearchSpace& space, const std::optional<ExportResult>& exported,
                   const std::optional<BruteForceOutcome>& brute_force) {
  const Problem& problem = space.problem();
  const ConstructionReport& report = space.report();
  out << fmt::format("problem      {} ({} file {})\n", problem.name, io::to_string(file.format), options.problem_path);

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
  out << fmt::format("density      {:.4g}%\n", 100.0 * density(space));
  out << fmt::format("construction {:.3f} s ({} independent group{})\n", report.seconds, report.independent_groups,
                     report.independent_groups == 1 ? "" : "s");
  if (report.evaluation_errors > 0) {
    out << fmt::format("evaluation errors  {} configurations made invalid by errors in constraints:\n",
                       grouped(report.evaluation_errors));
    for (const std::string& m : report.evaluation_error_messages) out << "  " << m << "\n";
  }
  if (exported) out << fmt::format("exported     {} ({})\n", exported->path, exported->format);
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

int run_space(const SpaceOptions& options) {
  std::optional<ExportFormat> format;
  if (!options.export_path.empty()) {
    format = export_format(options.export_path);
    if (!format) {
      error(fmt::format("--export {}: unknown file type (use a .csv or .json file name)", options.export_path));
      return kExitUsage;
    }
  }

  std::optional<io::ProblemFile> file;
  try {
    file = io::read_problem_file(options.problem_path);
  } catch (const io::InputError& e) {
    error(e.what());
    return kExitInputError;
  }
  Problem problem = file->problem;
  if (options.no_implicit_block_constraint) problem.max_threads = std::nullopt;
  if (options.max_threads) problem.max_threads = options.max_threads;

  if (options.verify_brute_force && problem.cartesian_size() > options.brute_force_limit) {
    error(fmt::format("--verify-brute-force: the Cartesian size {} exceeds the brute-force limit {} "
                      "(raise it with --brute-force-limit)", grouped(problem.cartesian_size()),
                      grouped(options.brute_force_limit)));
    return kExitUsage;
  }

  // One definition of the space of a results file, in every verb: the configurations it records (except those recorded
  // as invalid). A Kernel Tuner cache keeps no restrictions, so its tune_params alone would make a larger space.
  const bool recorded_space = file->format == io::ProblemFormat::KernelTunerCache;
  if (recorded_space && options.verify_brute_force) {
    error("--verify-brute-force: the space of a Kernel Tuner cache is its recorded configurations; there is no "
          "constraint to check by brute force");
    return kExitUsage;
  }
  std::optional<SearchSpace> space;
  try {
    if (recorded_space) {
      space.emplace(space_from_results(io::read_results_file(options.problem_path)));
    } else {
      BuildOptions build_options;
      build_options.threads = options.threads;
      space.emplace(SearchSpace::build(std::move(problem), build_options));
    }
  } catch (const io::InputError& e) {
    error(e.what());
    return kExitInputError;
  } catch (const SimulationError& e) {
    error(fmt::format("{}: {}", options.problem_path, e.what()));
    return kExitInputError;
  } catch (const expr::ExpressionError& e) {
    error(fmt::format("{}: {}", options.problem_path, e.what()));
    return kExitInputError;
  } catch (const ProblemError& e) {
    error(fmt::format("{}: {}", options.problem_path, e.what()));
    return kExitInputError;
  }

  std::optional<ExportResult> exported;
  if (format) {
    std::ofstream out(options.export_path, std::ios::binary | std::ios::trunc);
    if (!out) {
      error(fmt::format("--export {}: cannot open for writing: {}", options.export_path, std::strerror(errno)));
      return kExitInputError;
    }
    if (*format == ExportFormat::Csv) {
      space->write_csv(out);
    } else {
      out << space->to_json().dump() << "\n";
    }
    out.close();
    if (!out) {
      error(fmt::format("--export {}: writing failed", options.export_path));
      return kExitInputError;
    }
    exported = ExportResult{options.export_path, *format == ExportFormat::Csv ? "csv" : "json"};
  }

  std::optional<BruteForceOutcome> brute_force;
  if (options.verify_brute_force) {
    try {
      const BruteForceCheck check = verify_brute_force(*space, options.brute_force_limit);
      brute_force = BruteForceOutcome{check.ok, check.brute_force_valid, check.missing, check.extra, check.seconds,
                                      check.message};
    } catch (const std::invalid_argument& e) {
      error(fmt::format("--verify-brute-force: {}", e.what()));
      return kExitUsage;
    }
  }

  if (options.json) {
    std::cout << summary_json(*file, options, *space, exported, brute_force).dump(2) << "\n";
  } else {
    print_summary(std::cout, *file, options, *space, exported, brute_force);
  }
  std::cout.flush();
  if (!std::cout) {
    error("writing to standard output failed");
    return kExitInputError;
  }
  if (brute_force && !brute_force->ok) return kExitCheckFailed;
  return kExitOk;
}

}  // namespace

Command add_space_command(CLI::App& app) {
  auto options = std::make_shared<SpaceOptions>();
  CLI::App* sub = app.add_subcommand("space", "Build a problem's search space and summarise it");
  sub->footer(
      "PROBLEM is a T1 file, a ktune problem JSON or a Kernel Tuner cache file (.json or .json.gz).\n"
      "Exit codes: 0 ok, 1 bad input or failed output, 2 usage error, 3 brute-force mismatch.");
  sub->add_option("problem", options->problem_path, "Problem file")->required();
  sub->add_flag("--json", options->json, "Print one JSON object (a stable machine interface) instead of text");
  sub->add_option("--export", options->export_path, "Write the valid configurations to FILE.csv or FILE.json");
  sub->add_flag("--verify-brute-force", options->verify_brute_force,
                "Check the space against brute-force enumeration of the Cartesian product");
  sub->add_option("--brute-force-limit", options->brute_force_limit,
                  "Largest Cartesian size --verify-brute-force accepts")
      ->capture_default_str()
      ->check(whole_number(1));
  auto* max_threads = sub->add_option("--max-threads", options->max_threads,
                                      "Limit of the implicit block-size constraint (default 1024, as Kernel Tuner)")
                          ->check(whole_number(1, std::numeric_limits<std::int64_t>::max()));
  sub->add_flag("--no-implicit-block-constraint", options->no_implicit_block_constraint,
                "Do not add Kernel Tuner's implicit block_size_x*block_size_y*block_size_z <= max_threads")
      ->excludes(max_threads);
  sub->add_option("--threads", options->threads,
                  "Construction threads, 0: all cores (the result does not depend on it)")
      ->capture_default_str()
      ->check(thread_count());
  return {sub, [options] { return run_space(*options); }};
}

}  // namespace ktune::cli
