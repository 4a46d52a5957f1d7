// `ktune space PROBLEM`: builds the search space of a problem file and summarises it (human or --json),
// optionally exports the valid configurations and cross-checks them against brute force.
#include <iostream>
#include <limits>
#include <memory>
#include <string>

#include "commands.hpp"
#include "number_options.hpp"
#include "ktune/jobs/space_summary.hpp"

namespace ktune::cli {

namespace {

struct SpaceOptions {
  SpaceRequest request;
  bool json = false;
  bool no_implicit_block_constraint = false;
  std::string form = "auto";
};

int run_space(SpaceOptions& options) {
  options.request.implicit_block_constraint = !options.no_implicit_block_constraint;
  options.request.form = *parse_space_form(options.form);  // checked by the option
  try {
    const SpaceSummary summary(options.request);
    for (const std::string& warning : summary.warnings()) std::cerr << "ktune space: " << warning << "\n";
    if (options.json)
      std::cout << space_summary_json(summary).dump(2) << "\n";
    else
      write_space_summary(std::cout, summary);
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "ktune space: error: writing to standard output failed\n";
      return kExitInputError;
    }
    return summary.brute_force() && !summary.brute_force()->ok ? kExitCheckFailed : kExitOk;
  } catch (const JobError& e) {
    std::cerr << "ktune space: error: " << e.what() << "\n";
    return e.kind() == JobError::Kind::request ? kExitUsage : kExitInputError;
  }
}

}  // namespace

Command add_space_command(CLI::App& app) {
  auto options = std::make_shared<SpaceOptions>();
  CLI::App* sub = app.add_subcommand("space", "Build a problem's search space and summarise it");
  sub->footer(
      "PROBLEM is a T1 file, a ktune problem JSON or a Kernel Tuner cache file (.json or .json.gz).\n"
      "Exit codes: 0 ok, 1 bad input or failed output, 2 usage error, 3 brute-force mismatch.");
  sub->add_option("problem", options->request.problem_path, "Problem file")->required();
  sub->add_flag("--json", options->json, "Print one JSON object (a stable machine interface) instead of text");
  sub->add_option("--export", options->request.export_path, "Write the valid configurations to FILE.csv or FILE.json");
  sub->add_flag("--verify-brute-force", options->request.verify_brute_force,
                "Check the space against brute-force enumeration of the Cartesian product");
  sub->add_option("--brute-force-limit", options->request.brute_force_limit,
                  "Largest Cartesian size --verify-brute-force accepts")
      ->capture_default_str()
      ->check(whole_number(1));
  auto* max_threads = sub->add_option("--max-threads", options->request.max_threads,
                                      "Limit of the implicit block-size constraint (default 1024, as Kernel Tuner)")
                          ->check(whole_number(1, std::numeric_limits<std::int64_t>::max()));
  sub->add_flag("--no-implicit-block-constraint", options->no_implicit_block_constraint,
                "Do not add Kernel Tuner's implicit block_size_x*block_size_y*block_size_z <= max_threads")
      ->excludes(max_threads);
  sub->add_option("--threads", options->request.threads,
                  "Construction threads, 0: all cores (the result does not depend on it)")
      ->capture_default_str()
      ->check(thread_count());
  sub->add_option("--form", options->form,
                  "auto: lazy above 2^24 valid configurations; materialised: list them (at most 2^32-2); lazy: keep "
                  "independent parameter groups unlisted, the space their product (any size)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "materialised", "materialized", "lazy"}));
  return {sub, [options] { return run_space(*options); }};
}

}  // namespace ktune::cli
