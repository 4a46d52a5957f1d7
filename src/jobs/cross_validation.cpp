#include "ktune/jobs/cross_validation.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/io/json_value.hpp"

namespace ktune {

FoldScheme parse_fold_scheme(const std::string& text) {
  if (text == "gpu") return {FoldScheme::Kind::gpu, 0};
  if (text == "kernel") return {FoldScheme::Kind::kernel, 0};
  std::size_t k = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), k);
  if (ec != std::errc() || end != text.data() + text.size() || k < 2)
    throw std::invalid_argument(fmt::format("--cv '{}': expected gpu, kernel or a number of folds K >= 2", text));
  return {FoldScheme::Kind::k_folds, k};
}

std::string to_string(const FoldScheme& scheme) {
  switch (scheme.kind) {
    case FoldScheme::Kind::gpu: return "gpu";
    case FoldScheme::Kind::kernel: return "kernel";
    case FoldScheme::Kind::k_folds: break;
  }
  return std::to_string(scheme.k);
}

SpaceOrigin space_origin(const std::string& path) {
  const std::filesystem::path p(path);
  std::string name = p.filename().string();
  name = name.substr(0, name.find('.'));
  if (name.size() > 3 && name.ends_with("_T4")) name.resize(name.size() - 3);
  return {name, p.parent_path().filename().string()};
}

std::vector<std::vector<std::size_t>> make_folds(const std::vector<SpaceOrigin>& origins, const FoldScheme& scheme) {
  std::vector<std::vector<std::size_t>> folds;
  if (scheme.kind == FoldScheme::Kind::k_folds) {
    folds.resize(std::min(scheme.k, origins.size()));
    for (std::size_t i = 0; i < origins.size(); ++i) folds[i % folds.size()].push_back(i);
  } else {
    std::map<std::string, std::size_t> fold_of;
    for (std::size_t i = 0; i < origins.size(); ++i) {
      const std::string& key = scheme.kind == FoldScheme::Kind::gpu ? origins[i].gpu : origins[i].kernel;
      const auto [it, added] = fold_of.emplace(key, folds.size());
      if (added) folds.emplace_back();
      folds[it->second].push_back(i);
    }
  }
  if (folds.size() < 2)
    throw std::invalid_argument(fmt::format("--cv {}: the training spaces make {} fold{}; cross-validation needs two "
                                            "or more (more GPUs, kernels or spaces)",
                                            to_string(scheme), folds.size(), folds.size() == 1 ? "" : "s"));
  return folds;
}

namespace {

double mean_over(const std::vector<double>& scores, const std::vector<bool>& in, bool wanted) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < scores.size(); ++i)
    if (in[i] == wanted) {
      sum += scores[i];
      ++n;
    }
  return n ? sum / static_cast<double>(n) : std::nan("");
}

}  // namespace

CrossValidationResult cross_validate(const std::vector<SettingScores>& settings,
                                     const std::vector<std::string>& space_names,
                                     const std::vector<std::vector<std::size_t>>& folds, const FoldScheme& scheme,
                                     const std::optional<SettingScores>& defaults) {
  const auto complete = [&](const SettingScores& row) {
    return row.space_scores.size() == space_names.size() &&
           std::none_of(row.space_scores.begin(), row.space_scores.end(), [](double s) { return std::isnan(s); });
  };
  std::vector<const SettingScores*> usable;
  for (const auto& row : settings)
    if (complete(row)) usable.push_back(&row);
  const bool with_defaults = defaults && complete(*defaults);
  if (usable.empty())
    throw std::invalid_argument("cross-validation needs settings scored on every training space (a cache made on "
                                "other spaces gives none)");
  CrossValidationResult cv;
  cv.scheme = scheme;
  cv.settings = usable.size();
  std::vector<double> held;
  for (const auto& fold : folds) {
    std::vector<bool> in(space_names.size(), false);
    for (std::size_t i : fold) in.at(i) = true;
    FoldResult f;
    for (std::size_t i : fold) f.held_out.push_back(space_names[i]);
    const SettingScores* best = nullptr;
    for (const SettingScores* row : usable) {  // ties: the first (rows come best first)
      const double train = mean_over(row->space_scores, in, false);
      if (!best || train > f.train) {
        best = row;
        f.train = train;
      }
    }
    f.chosen = best->label;
    f.held_out_score = mean_over(best->space_scores, in, true);
    f.defaults_held_out = with_defaults ? mean_over(defaults->space_scores, in, true) : std::nan("");
    held.push_back(f.held_out_score);
    cv.folds.push_back(std::move(f));
  }
  double sum = 0, sum_defaults = 0;
  for (const auto& f : cv.folds) {
    sum += f.held_out_score;
    sum_defaults += f.defaults_held_out;
  }
  const auto n = static_cast<double>(cv.folds.size());
  cv.mean = sum / n;
  cv.defaults_mean = sum_defaults / n;
  double var = 0;
  for (double h : held) var += (h - cv.mean) * (h - cv.mean);
  cv.spread = std::sqrt(var / n);
  cv.min = *std::min_element(held.begin(), held.end());
  cv.max = *std::max_element(held.begin(), held.end());
  return cv;
}

nlohmann::json cross_validation_json(const CrossValidationResult& cv) {
  nlohmann::json folds = nlohmann::json::array();
  for (const auto& f : cv.folds)
    folds.push_back({{"held_out", f.held_out},
                     {"chosen", f.chosen},
                     {"train", io::number_or_null(f.train)},
                     {"held_out_score", io::number_or_null(f.held_out_score)},
                     {"defaults_held_out", io::number_or_null(f.defaults_held_out)}});
  return {{"scheme", to_string(cv.scheme)},        {"settings", cv.settings},
          {"folds", std::move(folds)},            {"mean", io::number_or_null(cv.mean)},
          {"spread", io::number_or_null(cv.spread)}, {"min", io::number_or_null(cv.min)},
          {"max", io::number_or_null(cv.max)},      {"defaults_mean", io::number_or_null(cv.defaults_mean)}};
}

}  // namespace ktune
