#pragma once
// The A100 dedispersion cache (11,130 configurations) as a simulation, read once: what the tuning-loop benchmarks
// replay.
#include <memory>
#include <string>

#include "ktune/io/results_file.hpp"
#include "ktune/io/t1_reader.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"

namespace ktune::bench {

struct Simulation {
  std::shared_ptr<const io::ResultsFile> results;
  SearchSpace space;
  std::unique_ptr<SimulationEvaluator> evaluator;
};

inline const Simulation& dedispersion() {
  static const Simulation sim = [] {
    const std::string dir = std::string(KTUNE_SHARED_DIR) + "/data/benchmark_hub/";
    auto results = std::make_shared<const io::ResultsFile>(
        io::read_results_file(dir + "cachefiles/dedispersion_milo/A100.json.gz"));
    auto space = SearchSpace::build(io::read_t1_file(dir + "t1/dedispersion_milo.json"));
    Simulation s{results, std::move(space), nullptr};
    s.evaluator = std::make_unique<SimulationEvaluator>(s.space, results, make_objectives({"time"}));
    return s;
  }();
  return sim;
}

}  // namespace ktune::bench
