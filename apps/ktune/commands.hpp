#pragma once
// The verbs of the ktune command line. Each registers its subcommand and returns the process exit code.
#include <functional>

#include <CLI/CLI.hpp>

namespace ktune::cli {

// Exit codes shared by all verbs.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInputError = 1;   // bad or unreadable input, failed output
inline constexpr int kExitUsage = 2;        // bad command line
inline constexpr int kExitCheckFailed = 3;  // a requested verification found a mismatch

// Adds `space` to app; after app.parse(), call the returned function if the subcommand was chosen.
struct Command {
  CLI::App* app;
  std::function<int()> run;
};
Command add_space_command(CLI::App& app);
Command add_tune_command(CLI::App& app);
Command add_strategies_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
Command add_pareto_command(CLI::App& app);
Command add_hypertune_command(CLI::App& app);

}  // namespace ktune::cli
