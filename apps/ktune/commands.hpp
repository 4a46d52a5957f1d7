#pragma once
// The verbs of the ktune command line. Each registers its subcommand and returns the process exit code.
#include <functional>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "ktune/methodology/baseline.hpp"
#include "ktune/parallel/mpi.hpp"

namespace ktune::cli {

// The process's MPI session (a single process outside mpirun), set by main() before any verb runs.
const parallel::MpiSession& mpi_session();
void set_mpi_session(const parallel::MpiSession* session);

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
Command add_design_command(CLI::App& app);
Command add_store_command(CLI::App& app);
Command add_export_command(CLI::App& app);
Command add_report_command(CLI::App& app);

// --baseline reference|exact, for the verbs that score strategies (compare, hypertune).
inline void add_baseline_option(CLI::App* app, methodology::BaselineKind& kind) {
  using methodology::BaselineKind;
  app->add_option("--baseline", kind,
                  "Random-search baseline: reference (the reference package's, one rank optimistic) or exact (the "
                  "expected rank of the best of M draws; unbiased on small spaces)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, BaselineKind>{{"reference", BaselineKind::reference}, {"exact", BaselineKind::exact}}))
      ->default_str("reference");
}

}  // namespace ktune::cli
