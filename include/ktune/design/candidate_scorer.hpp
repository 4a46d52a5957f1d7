#pragma once
// Scoring a generated strategy: its .cpp is compiled as a plug-in and scored by the methodology on prepared spaces, all
// in a sandboxed worker process (ktune/sandbox/sandbox.hpp) with wall-clock limits: the compiler runs in it with
// processes allowed, the candidate is loaded only after the stricter strategy filter is in place. Whatever goes wrong
// (the compiler's errors, a throw, a crash, a hang, running out of memory) is an outcome with the message a developer
// would read, never a failure of the caller: the design loop feeds it back to the language model.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ktune/methodology/comparison.hpp"
#include "ktune/sandbox/sandbox.hpp"

namespace ktune::design {

struct ScoringLimits {
  double compile_seconds = 120;  // the compiler's wall clock
  double run_seconds = 60;       // wall clock of all the runs on all the spaces
  // The worker's sandbox (ktune/sandbox/sandbox.hpp): its memory, file size, scratch size... limits. Its CPU time
  // limit, unless set, is the wall-clock limits' sum times the threads the runs may use.
  sandbox::Limits sandbox;
  sandbox::Layers disabled;  // layers turned off (tests of the degraded mode)
};

// In-the-loop hyperparameter optimisation (LLaMEA-HPO): a candidate that declares hyperparameters with ranges (an
// int or float with both bounds, a bool, a string with choices) is scored at its defaults and at `settings - 1` more
// settings drawn uniformly from those ranges, each with the same seeds; its score is the best setting's (the
// defaults on a tie), and that setting is kept with it. A setting whose runs cannot be scored costs itself only. The
// draws depend only on `seed` and the declarations. 0 or 1: the defaults only.
struct HyperparameterSearch {
  std::size_t settings = 0;
  std::uint64_t seed = 0;
};

struct CandidateScore {
  bool ok = false;
  // Where it ended: "scored", "compile" (does not compile or is no plug-in), "run" (threw), "crash", "timeout",
  // "memory", "sandbox" (stopped by the sandbox: a forbidden system call, a limit).
  std::string stage;
  std::string error;          // cut at a few thousand characters (a compiler's: its messages about the candidate only)
  std::string declared_name;  // the name its describe() gives
  std::string compile_log;    // the compiler's warnings (empty when the compiled plug-in was cached)
  double score = 0;           // mean of the methodology's P over the spaces
  std::vector<std::pair<std::string, double>> per_space;
  // The hyperparameters it was scored with, "name=value" (empty: its defaults); with a hyperparameter search, the
  // best setting found, and the defaults' score beside it (none when the defaults could not be scored).
  std::vector<std::string> settings;
  std::optional<double> default_score;
  std::size_t settings_scored = 0;  // settings tried (1: the defaults or the fixed ones)
  double compile_seconds = 0, run_seconds = 0, scoring_seconds = 0, wall_seconds = 0;
};

class CandidateScorer {
 public:
  // `spaces` is prepared once and shared by every candidate's worker (a fork's copy). Each candidate is compiled in a
  // folder of its own under `scratch_directory` (empty: the system's temporary folder), from a copy of its source
  // whose #includes were checked, and the folder is removed once it is scored: compiled candidates never pile up, and
  // never in the user's plug-in cache.
  // With `search`, each candidate's declared hyperparameters are searched (HyperparameterSearch); the run limit then
  // holds per setting scored.
  CandidateScorer(const methodology::Comparison& spaces, ScoringLimits limits, std::string scratch_directory = {},
                  HyperparameterSearch search = {});
  // Compiles, loads and scores the plug-in at `path` in a worker, as an untrusted plug-in (PluginBuild::untrusted):
  // an #include of anything but ktune's headers and the standard library fails it at the "compile" stage before any
  // compiler runs, and its error holds only the compiler's messages about its own file. A candidate the sandbox
  // stops (a forbidden system call, the file size or CPU limit) ends at the "sandbox" stage with the reason. Every
  // candidate runs with the same seeds (the runs depend on the comparison's seed and the space, not on the file's
  // name), so scores compare like with like.
  // `settings` ("name=value", as the search found them): scored with exactly those, no search (validation).
  CandidateScore score(const std::string& path, const std::vector<std::string>& settings = {}) const;

 private:
  const methodology::Comparison& spaces_;
  ScoringLimits limits_;
  std::string scratch_directory_;
  HyperparameterSearch search_;
};

}  // namespace ktune::design
