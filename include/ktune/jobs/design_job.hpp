#pragma once
// Designing strategies with a language model as a job: the rules of `ktune design`, callable from C++.
//
// A (mu + lambda) evolutionary loop over generated strategies, as LLaMEA does it (Willemsen, van Stein, van Werkhoven,
// "Automated Algorithm Design for Auto-Tuning Optimizers"): the first `parents` candidates come from the task prompt;
// then each generation asks for `offspring` candidates, each a mutation (refine, a different one, refine and
// simplify) of a parent selected from the population; a candidate that fails is followed by a prompt to repair it,
// with its error. Every candidate is compiled as a strategy plug-in and scored by the methodology on the training
// spaces in a worker with limits (design/candidate_scorer.hpp). Survivors: the best `parents` of parents and
// offspring (elitism), or of the offspring alone.
//
// Everything goes to `output/design.jsonl` as it happens; a run started again with the same output resumes from it:
// finished candidates are neither asked for nor scored again. With a fixed seed and fixed replies the run is
// deterministic. At the end: the best strategies as .cpp plug-ins (with validation scores if validation spaces are
// given), a leaderboard, and the command to adopt the best.
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/design/candidate_scorer.hpp"
#include "ktune/design/design_prompts.hpp"
#include "ktune/design/llm_client.hpp"
#include "ktune/jobs/job_error.hpp"
#include "ktune/methodology/baseline.hpp"
#include "ktune/tuning/budget.hpp"

namespace ktune {

enum class ParentSelection { random, tournament, roulette };
const char* to_string(ParentSelection selection);

struct DesignRequest {
  std::vector<std::string> spaces;             // brute-forced training spaces
  std::vector<std::string> validation_spaces;  // optional: the best candidates are scored on them at the end
  std::string problem_info;  // T1 file of the target application, shown in the prompt with the spaces' statistics
  bool space_info = false;   // the training spaces' statistics in the prompt (also without a T1 file)
  std::size_t budget = 100;  // language-model calls
  std::size_t parents = 4, offspring = 12;
  bool elitism = true;
  ParentSelection selection = ParentSelection::random;
  std::vector<design::PromptKind> mutations = {design::PromptKind::refine, design::PromptKind::different,
                                               design::PromptKind::simplify};
  int max_repairs = 2;  // repair prompts in a row for a failing line of candidates
  int repeats = 25;     // runs per space of every candidate
  // In-the-loop hyperparameter optimisation (LLaMEA-HPO; design/candidate_scorer.hpp, HyperparameterSearch): each
  // candidate's declared hyperparameters searched over this many settings (its defaults included), the best kept
  // with it, and the prompt asks for them. 0 or 1: none.
  std::size_t hyperparameter_settings = 0;
  std::uint64_t seed = 0;
  unsigned threads = 0;  // scoring threads (0: all cores)
  methodology::BaselineKind baseline = methodology::BaselineKind::reference;
  design::ScoringLimits limits;
  // Score candidates even where the sandbox cannot keep them off the network (no network namespace and no seccomp):
  // without it, such a system is refused. Environment scrubbing and the limits hold everywhere.
  bool unsafe_no_sandbox = false;
  std::size_t keep = 3;            // best strategies written out (and validated)
  std::string output_dir = "ktune-design";
  bool restart = false;            // ignore (and replace) an existing log instead of resuming
  std::string model;               // for the record
  std::function<void(const std::string&)> progress;  // a line per event

  // In the loop (`--for`): designing for one problem (T1, ktune JSON or Kernel Tuner cache). Its own earlier results
  // (the problem file itself when it is a cache, and `earlier_results`: caches of earlier runs) are the training
  // spaces when they can be scored; else the `similar` spaces of `spaces` that resemble it most
  // (design/resembling_spaces.hpp). A T1 problem is shown in the prompt.
  std::string for_problem;
  std::vector<std::string> earlier_results;
  std::size_t similar = 3;
  // Then tune the problem with the best strategy within this budget: simulated when the problem is a cache, else
  // live (the cache of that run, `output/tune-cache.json`, is an earlier result for the next design). None: no tune.
  std::optional<Budget> tune_budget;
};

struct DesignCandidate {
  std::size_t id = 0;  // = the language-model call that made it, from 0
  std::size_t generation = 0;
  design::PromptKind kind = design::PromptKind::initial;
  std::optional<std::size_t> parent;
  std::string name, description;
  std::string code_path;  // "" when the reply had no code
  design::CandidateScore result;  // result.ok: scored; else stage and error
  std::optional<double> validation_score;
  std::vector<std::pair<std::string, double>> validation_per_space;
  bool resumed = false;  // taken from the log
};

struct DesignResult {
  std::vector<DesignCandidate> candidates;
  std::vector<std::size_t> population;   // ids, best first
  std::vector<std::size_t> leaderboard;  // ids of the scored candidates, best first
  std::vector<std::string> best_paths;   // the written plug-ins, best first
  std::size_t llm_calls = 0;             // calls made by this run (not resumed)
  std::size_t resumed = 0;               // candidates taken from the log
  std::int64_t prompt_tokens = 0, completion_tokens = 0;  // as the server reported them (this run)
  double llm_seconds = 0, scoring_seconds = 0, wall_seconds = 0;
  std::string log_path, output_dir;
  bool interrupted = false;
  std::vector<std::string> training_spaces;  // the spaces candidates were scored on
  std::string space_choice;                  // why those (with --for)
  std::string for_problem;
  std::optional<nlohmann::json> tuned;       // the tune with the best strategy (tune_report_json), with tune_budget
  std::string tuned_summary;                 // the same as `ktune tune` prints it
};

class DesignJob {
 public:
  // Checks the request and loads and prepares the spaces; throws JobError.
  DesignJob(DesignRequest request, design::LlmClient& client);
  ~DesignJob();
  DesignJob(const DesignJob&) = delete;
  DesignJob& operator=(const DesignJob&) = delete;

  const DesignRequest& request() const { return request_; }
  // Runs (or resumes) the loop. Throws JobError for a log from another run, design::LlmError when the model cannot be
  // reached (the log keeps what was done: run again to resume). A stop request ends it early (interrupted).
  DesignResult run();

  struct Prepared;

 private:
  DesignRequest request_;
  design::LlmClient& client_;
  std::unique_ptr<Prepared> prepared_;
};

// The stable `ktune design --json` object.
nlohmann::json design_result_json(const DesignResult& result);
// The leaderboard and where the results are, as `ktune design` prints them.
void write_design_report(std::ostream& out, const DesignResult& result);

}  // namespace ktune
