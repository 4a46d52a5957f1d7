#pragma once
// The figures of a strategy comparison, like the methodology papers': standalone SVG 1.1 files (no script, no
// external font or file) that any browser shows, and an index.html that embeds them all.
#include <string>

#include <vector>

#include "ktune/methodology/comparison.hpp"
#include "ktune/value.hpp"
#include "ktune/methodology/multiobjective_comparison.hpp"

namespace ktune::methodology {

// Writes into `directory` (created if needed):
// - aggregate.svg: the aggregate performance over relative time (0 = T[0], 1 = T[-1]) per strategy, with random
//   search (P = 0) and the optimum (P = 1) as dashed lines, and, over two or more spaces, the 95% confidence band
//   of the mean (Student's t over the spaces); the legend gives each score ± error;
// - space_<name>.svg per space: P(T) per strategy on that space; space_<name>_values.svg: the objective values over
//   time in seconds, the random-search baseline R(T), each strategy's curve C(T) and the optimum (in <name>,
//   characters other than letters, digits, '.', '_' and '-' become '_', and a number is appended if two spaces
//   would share a file);
// - scores.svg: the score of every strategy on every space and the aggregate, coloured red (< 0) - white (0) -
//   green (1);
// - index.html embedding them.
// The P axes span min(-0.5, lowest P) to 1.02 as upstream, but stop at -2: lower values are drawn at -2 (a note
// says so). Colours follow the Okabe-Ito palette, with dashes once it runs out. File errors throw io::InputError
// naming the file or directory.
void write_svg_report(const ComparisonReport& report, const std::string& directory);

// A multi-objective comparison: per space, space_<name>_igd.svg (median IGD+ over evaluations per strategy) and
// space_<name>_front.svg (two objectives: a scatter of the true front and each strategy's typical final front; more:
// parallel coordinates of the normalised objectives), and index.html.
void write_svg_report(const MoComparisonReport& report, const std::vector<Objective>& objectives,
                      const std::string& directory);

// The scores of a hyperparameter grid (`ktune hypertune --plot`; the tuning-the-tuner paper's score distributions).
struct HyperparameterScores {
  std::string strategy;
  std::vector<std::string> hyperparameters;  // the grid's, in order
  struct Setting {
    std::vector<Value> values;  // per hyperparameter
    double score = 0;
  };
  std::vector<Setting> settings;  // the scored ones
  std::string reference_label;    // the settings to beat (the defaults), when among them
  double reference_score = 0;
  bool has_reference = false;
};
// score_distribution.svg: the empirical distribution of the settings' aggregate scores, the reference and the best
// marked; per hyperparameter, hyperparameter_<name>.svg: every setting's score against its value, with the median
// per value joined (how much the hyperparameter matters); index.html embedding them.
void write_svg_report(const HyperparameterScores& scores, const std::string& directory);

}  // namespace ktune::methodology
