#pragma once
// How many timed runs a configuration gets, and what they say (docs/live-tuning.md, "Repetition").
//
// Fixed repetition times every configuration `runs` times (7, as Kernel Tuner) and takes the statistic of all of
// them. Adaptive repetition times it `min_runs` times, then more only while it matters: it stops when the
// statistic's 95% interval is narrower than `precision` (relative half-width), as soon as the interval lies wholly
// above the best configuration's interval (early rejection: it is clearly slower), or at `max_runs`. Runs far above
// the rest (another process, a frequency drop, a late warm-up) are outliers: adaptive repetition leaves them out of
// the statistic and the interval, and every record says how many there were. The live evaluator and the simulation
// (replaying Kernel Tuner caches' per-run times) use the same functions, so a replay decides what a live run would.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ktune {

// The statistic of the timed runs that becomes the objective "time".
enum class Statistic : unsigned char { mean, median, min };

struct RepetitionPolicy {
  bool adaptive = false;
  int runs = 7;                  // fixed: timed runs per configuration
  int min_runs = 3;              // adaptive: runs before any decision
  int max_runs = 31;             // adaptive: the cap
  double precision = 0.02;       // adaptive: stop once the 95% interval's half-width is this fraction of the statistic
  bool early_rejection = true;   // adaptive: stop once clearly slower than the best configuration so far

  // "auto", "auto:min=3,max=31,precision=0.02,reject=1", or a number of fixed runs. Throws std::invalid_argument
  // naming the part that is wrong.
  static RepetitionPolicy parse(const std::string& text);
  std::string describe() const;  // the inverse of parse
};

// What a configuration's runs say.
struct RunSummary {
  double value = 0;            // the statistic of the kept runs
  double low = 0, high = 0;    // its 95% interval (equal to value for a single run)
  double spread = 0;           // relative standard deviation of the kept runs
  std::size_t runs = 0;        // timed runs in all
  std::size_t outliers = 0;    // runs left out (adaptive only)
};

// `drop_outliers`: leave out runs above median + max(4 robust standard deviations, 2% of the median) when there
// are at least 5 runs (adaptive repetition; fixed repetition keeps Kernel Tuner's statistic of every run).
RunSummary summarize_runs(std::span<const double> runs, Statistic statistic, bool drop_outliers);

enum class RepetitionDecision { more, precise, rejected, capped };
const char* to_string(RepetitionDecision decision);

// The typical scatter of a run's configurations: the median relative spread of those measured so far, once
// kConfigurations have been (0 before). A few runs of one configuration can lie close together by chance (3 runs
// of a kernel with 4% jitter: within a quarter of it 6% of the time), and an interval from their own scatter then
// declares a configuration precise, or clearly slower than the best, when it is neither; decide() widens such an
// interval to what the typical scatter gives for that many runs.
class TypicalSpread {
 public:
  static constexpr std::size_t kConfigurations = 3;
  void add(const RunSummary& summary);  // a configuration's final summary (one with at least 2 runs counts)
  double value() const;

 private:
  std::vector<double> spreads_;  // ascending
};

// After the runs summarised in `summary`: whether to time more, and why not. `best` is the best configuration's
// summary so far (lowest value), when there is one and early rejection applies (the objective is the time).
// `typical_spread` (TypicalSpread::value(); 0: none) is the least scatter the intervals of both are taken to have.
RepetitionDecision decide(const RepetitionPolicy& policy, const RunSummary& summary, const RunSummary* best,
                          double typical_spread = 0);

// How many runs to time next after `runs_so_far` when decide() says more: half again the runs so far (at least 2),
// within max_runs. Few round trips, and never far past the point of deciding. 0 once max_runs is reached.
int next_runs(const RepetitionPolicy& policy, std::size_t runs_so_far);

// Two-sided 95% quantile of Student's t distribution with `df` degrees of freedom (df >= 1).
double t_quantile_95(std::size_t df);

// Whether two summaries are statistically tied: their 95% intervals overlap.
inline bool tied(const RunSummary& a, const RunSummary& b) { return a.low <= b.high && b.low <= a.high; }

}  // namespace ktune
