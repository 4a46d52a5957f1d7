#pragma once
// Cross-validation of hyperparameter selection (`ktune hypertune --cv gpu|kernel|K`): what a setting scores on spaces
// it was not chosen on predicts what it scores on a user's space far better than its training score. The training
// spaces are split into folds (leave one GPU out, leave one kernel out, or K folds); for each fold the setting with
// the best mean score on the other spaces is chosen, and its mean score on the fold is the held-out score. The mean
// of the held-out scores estimates what the selection gives on unseen spaces; the defaults' scores on each fold are
// reported beside them.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>


namespace ktune {

struct FoldScheme {
  enum class Kind { gpu, kernel, k_folds };
  Kind kind = Kind::gpu;
  std::size_t k = 0;  // k_folds
};
// "gpu", "kernel" or a number K >= 2. Throws std::invalid_argument naming the text otherwise.
FoldScheme parse_fold_scheme(const std::string& text);
std::string to_string(const FoldScheme& scheme);

// Where a brute-forced space comes from, by its path: the kernel is the folder's name, the GPU the file's name without
// its extensions and a _T4 suffix (".../convolution_milo/A100_T4.json.gz": A100, convolution_milo).
struct SpaceOrigin {
  std::string gpu, kernel;
};
SpaceOrigin space_origin(const std::string& path);

// The folds as lists of space positions: one per GPU or per kernel (in order of first appearance), or space i in fold
// i mod K. Throws std::invalid_argument when fewer than two folds result.
std::vector<std::vector<std::size_t>> make_folds(const std::vector<SpaceOrigin>& origins, const FoldScheme& scheme);

struct FoldResult {
  std::vector<std::string> held_out;  // space names
  std::string chosen;                 // the label of the setting chosen on the other spaces
  double train = 0;                   // its mean score on the other spaces
  double held_out_score = 0;          // its mean score on this fold
  double defaults_held_out = 0;       // the defaults' mean score on this fold (NaN when they were not scored)
};

struct CrossValidationResult {
  FoldScheme scheme;
  std::vector<FoldResult> folds;
  double mean = 0, spread = 0, min = 0, max = 0;  // of the held-out scores (spread: population standard deviation)
  double defaults_mean = 0;                       // the defaults' held-out mean (NaN when not scored)
  std::size_t settings = 0;                       // settings with a score on every training space
};

// A scored setting: its label and its score on each training space (in the order of the space names).
struct SettingScores {
  std::string label;
  std::vector<double> space_scores;
};

// The candidates are `settings`; those without a score on every space (NaN, or a different count) are left out, and
// among equals the first is chosen (pass them best first). `defaults` are only reported. Throws
// std::invalid_argument when no candidate is left.
CrossValidationResult cross_validate(const std::vector<SettingScores>& settings,
                                     const std::vector<std::string>& space_names,
                                     const std::vector<std::vector<std::size_t>>& folds, const FoldScheme& scheme,
                                     const std::optional<SettingScores>& defaults);

nlohmann::json cross_validation_json(const CrossValidationResult& cv);

}  // namespace ktune
