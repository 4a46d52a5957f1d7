// ktune: the command line. Parses arguments, dispatches to one verb, maps failures to exit codes
// (0 ok, 1 input error, 2 usage error, 3 failed verification) and never lets an exception escape.
#include <algorithm>
#include <csignal>
#include <exception>
#include <iterator>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/version.hpp"

namespace ktune::cli {
namespace {
const parallel::MpiSession* the_session = nullptr;
}
const parallel::MpiSession& mpi_session() { return *the_session; }
void set_mpi_session(const parallel::MpiSession* session) { the_session = session; }
}  // namespace ktune::cli

int main(int argc, char** argv) {
  using namespace ktune::cli;
  // Under mpirun every rank runs this; `tune`, `compare` and `hypertune` share their work (the others refuse to run on
  // several ranks).
  const ktune::parallel::MpiSession mpi(argc, argv);
  set_mpi_session(&mpi);
  // Ctrl-C and SIGTERM stop a verb cleanly (its outputs are written with what was measured); a second one ends the
  // process at once.
  const ktune::InterruptHandler interrupt_handler;
  // A file-size limit (ulimit -f) is an error of the write that meets it, which every writer handles (a cache
  // stops with its entries whole, an atomic output keeps the previous file), not the end of the process.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    CLI::App app{"ktune: a fast auto-tuner for GPU and CPU kernels (Kernel Tuner compatible)", "ktune"};
    app.set_version_flag("--version", std::string("ktune ") + ktune::kVersionString);
    app.require_subcommand(1);
    const Command commands[] = {add_space_command(app), add_tune_command(app), add_strategies_command(app), add_compare_command(app),
                                add_pareto_command(app), add_hypertune_command(app), add_design_command(app),
                                add_store_command(app), add_export_command(app), add_report_command(app)};
    // CLI11 would report an unknown verb as "A subcommand is required"; name it instead.
    if (argc > 1 && argv[1][0] != '-' &&
        std::none_of(std::begin(commands), std::end(commands), [&](const Command& c) { return c.app->check_name(argv[1]); })) {
      std::cerr << "ktune: error: unknown command '" << argv[1]
                << "' (commands: space, tune, strategies, compare, pareto, hypertune, design, store, export; see "
                   "ktune --help)\n";
      return kExitUsage;
    }
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      app.exit(e);  // prints the message and a pointer to --help
      return kExitUsage;
    }
    for (const Command& c : commands) {
      if (!c.app->parsed()) continue;
      const std::string verb = c.app->get_name();
      if (mpi.active() && verb != "compare" && verb != "hypertune" && verb != "tune") {
        if (mpi.rank() == 0)
          std::cerr << "ktune: error: under mpirun only `ktune tune`, `ktune compare` and `ktune hypertune` share "
                       "their work between ranks; run `ktune "
                    << verb << "` as one process\n";
        return kExitUsage;
      }
      return c.run();
    }
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "ktune: error: " << e.what() << "\n";
    if (mpi.active()) mpi.abort(kExitInputError);  // the other ranks would wait for this one forever
    return kExitInputError;
  } catch (...) {
    std::cerr << "ktune: error: unknown failure\n";
    return kExitInputError;
  }
}
