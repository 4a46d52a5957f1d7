// Tuning from C++ with an installed ktune: a genetic algorithm replays a brute-forced results file (Kernel Tuner
// cache or T4) for 100 evaluations, as `ktune tune --simulate RESULTS --strategy genetic_algorithm` would.
#include <iostream>
#include <utility>

#include <ktune/ktune.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ktune_consumer RESULTS_FILE (ktune " << ktune::kVersionString << ")\n";
    return 2;
  }
  ktune::TuneRequest request;
  request.simulate_path = argv[1];
  request.strategy = "genetic_algorithm";
  request.budget.max_evaluations = 100;
  request.seed = 1;
  try {
    ktune::TuneJob job(std::move(request));
    const ktune::TuneOutcome outcome = job.run();
    ktune::write_tune_summary(std::cout, job, outcome);
    return outcome.best ? 0 : 1;
  } catch (const ktune::JobError& e) {
    std::cerr << "ktune_consumer: " << e.what() << "\n";
    return 1;
  }
}
