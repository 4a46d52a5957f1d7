#pragma once
// What `ktune design` says to the language model, as LLaMEA does it: a task prompt (the job, ktune's plug-in API, a
// minimal working strategy, the answer format), optionally the problem (its T1 file and the training spaces'
// statistics), and mutation prompts built from the population, the selected candidate's code, its feedback and its
// error. Every text depends only on its arguments, so a run replays exactly.
#include <optional>
#include <string>
#include <vector>

#include "ktune/methodology/comparison.hpp"

namespace ktune::design {

// The prompt kinds: the first generation's, and LLaMEA's three mutations plus a repair of a failed candidate.
enum class PromptKind { initial, refine, different, simplify, repair };
const char* to_string(PromptKind kind);

// A candidate as the prompts show it.
struct CandidateView {
  std::string name, description;
  std::optional<double> score;  // none: it failed
  std::string feedback;         // how it scored, space by space; or its error
  std::string code;
};

// The minimal working strategy the task prompt shows (a complete plug-in; tests compile and run it).
const std::string& example_strategy_source();

std::string system_prompt();
// The job, the API, the example and the answer format; `problem` (problem_information) appended when not empty.
// With `tuned_settings` above 1 (in-the-loop hyperparameter optimisation, CandidateScorer's HyperparameterSearch),
// it asks for declared hyperparameters with ranges and says how they are tuned.
std::string task_prompt(const std::string& problem, std::size_t tuned_settings = 0);

// The target problem for the prompt: the T1 file's text (cut at a few thousand characters) when given, and each
// training space's size, Cartesian size, density, parameters with their value counts, failing fraction, the spread
// of its objective and the methodology's budget on it.
std::string problem_information(const std::vector<methodology::SpaceResult>& spaces,
                                const std::vector<methodology::ComparisonSpace>& files, const std::string& t1_path);

// A mutation prompt: the task, the population (names, descriptions, scores), the selected candidate (code, feedback,
// error) and what to do with it.
std::string mutation_prompt(PromptKind kind, const std::string& task, const std::vector<CandidateView>& population,
                            const CandidateView& selected);

// Feedback text for a scored candidate: its score and per-space scores, with what the numbers mean.
std::string score_feedback(double score, const std::vector<std::pair<std::string, double>>& per_space);

}  // namespace ktune::design
