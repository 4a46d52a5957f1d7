#pragma once
// The statistics of one brute-forced search space that the comparison methodology needs (methodology.md §1.2-1.5):
// the sorted distribution of valid objective values, its optimum and median, the time one evaluation costs, the
// cutoff points that fix the time range of a comparison, and the budget each run gets.
#include <cstddef>
#include <string>
#include <vector>

#include "ktune/io/results_file.hpp"

namespace ktune::methodology {

struct CutoffRange {
  long fevals_start = 0, fevals_end = 0;  // f_s, f_e: expected random draws to reach p_start / p of the way
  double time_start = 0, time_end = 0;    // t_s, t_e (seconds): fevals x median time per evaluation
};

class SpaceStatistics {
 public:
  // From a brute-forced results file. `objective` is looked up per record as EvaluationRecord::objective does;
  // the time of an evaluation is compilation + sum of runtimes + framework + search_algorithm + validation (the
  // methodology's "all" time keys, in seconds; negative or NaN parts skipped). Throws std::invalid_argument if the
  // file has fewer than two valid configurations.
  static SpaceStatistics from_results(std::string name, const io::ResultsFile& results, const std::string& objective,
                                      bool minimization);
  // From raw arrays (tests, worked examples): one objective value (NaN = invalid) and one time (s) per configuration.
  static SpaceStatistics from_values(std::string name, const std::vector<double>& values,
                                     const std::vector<double>& times_s, bool minimization);

  const std::string& name() const { return name_; }
  bool minimization() const { return minimization_; }
  std::size_t size_all() const { return n_all_; }       // N_all: every configuration, invalid included
  std::size_t size_valid() const { return dist_.size(); }  // N
  // Valid objective values, ascending.
  const std::vector<double>& distribution() const { return dist_; }
  double optimum() const { return minimization_ ? dist_.front() : dist_.back(); }
  double median() const { return median_; }
  double median_time() const { return median_time_; }          // s, over every configuration with a time
  double mean_time() const { return mean_time_; }
  double mean_time_per_feval() const { return mean_per_feval_; }  // the baseline's time -> fevals conversion

  // The objective value p of the way from the median to the optimum, and the expected number of random draws to
  // reach it (§1.4). Throws std::invalid_argument when only the optimum itself reaches it from the first draw.
  struct Cutoff {
    double value = 0;
    long fevals = 0;
  };
  Cutoff cutoff_point(double p) const;
  CutoffRange cutoff_range(double p_start, double p_end) const;

 private:
  std::string name_;
  bool minimization_ = true;
  std::size_t n_all_ = 0;
  std::vector<double> dist_;
  double median_ = 0, median_time_ = 0, mean_time_ = 0, mean_per_feval_ = 0;
};

// Python's round(), NumPy's round: to the nearest integer, ties to even.
double round_half_even(double x);
// numpy.median of sorted values.
double median_of_sorted(const std::vector<double>& sorted);
// numpy.linspace(start, stop, num) bit for bit: start + i * step, the last point exactly stop.
std::vector<double> linspace(double start, double stop, std::size_t num);

}  // namespace ktune::methodology
