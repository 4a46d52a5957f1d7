#pragma once
// The rules of `ktune pareto`: the true Pareto front of a brute-forced results file (Kernel Tuner cache or T4) for two
// or more objectives, its ideal and nadir points and hypervolume, and runs (their own results files) scored against
// it by IGD+ and hypervolume in the front's normalised space (FrontNormalisation).
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/jobs/job_error.hpp"
#include "ktune/tuning/objective.hpp"
#include "ktune/value.hpp"

namespace ktune {

struct ParetoRequest {
  std::string results_path;
  std::vector<std::string> objectives;  // NAME[:min|:max], at least two
  std::vector<std::string> derived;     // NAME=EXPRESSION measurements (added to runs that lack them too)
  std::vector<std::string> runs;        // results files of runs to score
};

struct ParetoPoint {
  std::vector<Value> configuration;  // one value per parameter
  std::vector<double> values;        // one per objective, as measured (not costs)
};

struct ParetoRunScore {
  std::string file;
  std::size_t evaluated = 0;                // successful records with every objective
  std::size_t front_size = 0;               // the run's own front
  std::size_t true_front_points_found = 0;  // true front points among them (same objective vector)
  double igd_plus = 0;                      // normalised; infinite when nothing was evaluated
  double igd = 0, gd = 0, gd_plus = 0;      // the other distance indicators, the same way
  double hypervolume = 0;                   // normalised, reference kHypervolumeReference
};

struct ParetoAnalysis {
  std::vector<Objective> objectives;
  std::string file;
  std::vector<std::string> parameters;  // names, in the order of ParetoPoint::configuration
  std::size_t records = 0;              // in the file
  std::size_t configurations = 0;       // successful ones with every objective
  std::vector<ParetoPoint> front;       // ascending lexicographically in the costs
  std::vector<double> ideal, nadir;     // as measured values, one per objective
  double hypervolume = 0;               // of the front, normalised
  std::vector<ParetoRunScore> runs;
};

// Throws JobError (request: fewer than two objectives, a bad objective or --derive text; input: unreadable files,
// no record with every objective).
ParetoAnalysis analyse_pareto(const ParetoRequest& request);

// The stable `ktune pareto --json` object.
nlohmann::json pareto_report_json(const ParetoAnalysis& analysis);

}  // namespace ktune
