// Cross-validation of hyperparameter selection: folds by GPU, kernel or count, the setting chosen on the other
// spaces and its held-out score.
#include <gtest/gtest.h>

#include <cmath>

#include "ktune/jobs/cross_validation.hpp"

namespace ktune {
namespace {

TEST(CrossValidation, SchemesAndOriginsOfSpaces) {
  EXPECT_EQ(parse_fold_scheme("gpu").kind, FoldScheme::Kind::gpu);
  EXPECT_EQ(parse_fold_scheme("kernel").kind, FoldScheme::Kind::kernel);
  EXPECT_EQ(parse_fold_scheme("4").k, 4u);
  for (const char* bad : {"1", "0", "gpus", "3x", ""}) EXPECT_THROW(parse_fold_scheme(bad), std::invalid_argument) << bad;
  const SpaceOrigin o = space_origin("/data/cachefiles/convolution_milo/A100_T4.json.gz");
  EXPECT_EQ(o.gpu, "A100");
  EXPECT_EQ(o.kernel, "convolution_milo");
  EXPECT_EQ(space_origin("pnpoly/RTX_3090.json").gpu, "RTX_3090");
}

TEST(CrossValidation, FoldsByGpuKernelOrCount) {
  const std::vector<SpaceOrigin> origins{{"A100", "conv"}, {"A4000", "conv"}, {"A100", "dedisp"}, {"A4000", "dedisp"},
                                         {"MI250X", "conv"}};
  using Folds = std::vector<std::vector<std::size_t>>;
  EXPECT_EQ(make_folds(origins, parse_fold_scheme("gpu")), (Folds{{0, 2}, {1, 3}, {4}}));
  EXPECT_EQ(make_folds(origins, parse_fold_scheme("kernel")), (Folds{{0, 1, 4}, {2, 3}}));
  EXPECT_EQ(make_folds(origins, parse_fold_scheme("2")), (Folds{{0, 2, 4}, {1, 3}}));
  EXPECT_THROW(make_folds({{"A100", "conv"}, {"A100", "dedisp"}}, parse_fold_scheme("gpu")), std::invalid_argument);
}

TEST(CrossValidation, ChoosesOnTheOtherFoldsAndScoresOnTheHeldOutOne) {
  // "fit" is best on spaces 0-1 but bad on 2-3; "robust" is good everywhere; "partial" lacks a space.
  const std::vector<std::string> names{"s0", "s1", "s2", "s3"};
  const std::vector<SettingScores> settings{{"fit", {0.9, 0.9, 0.1, 0.1}},
                                            {"robust", {0.6, 0.6, 0.6, 0.6}},
                                            {"partial", {1.0, 1.0, std::nan(""), 1.0}}};
  // The defaults are reported, never chosen (here they would win the second fold).
  const SettingScores defaults{"defaults", {0.95, 0.95, 0.3, 0.2}};
  const auto cv = cross_validate(settings, names, {{0, 1}, {2, 3}}, parse_fold_scheme("2"), defaults);
  ASSERT_EQ(cv.folds.size(), 2u);
  EXPECT_EQ(cv.settings, 2u);
  // Holding out s0, s1: chosen on s2, s3 -> robust, which scores 0.6 there.
  EXPECT_EQ(cv.folds[0].chosen, "robust");
  EXPECT_DOUBLE_EQ(cv.folds[0].held_out_score, 0.6);
  // Holding out s2, s3: chosen on s0, s1 -> fit (0.9 > 0.6), which scores 0.1 on the held-out spaces.
  EXPECT_EQ(cv.folds[1].chosen, "fit");
  EXPECT_DOUBLE_EQ(cv.folds[1].train, 0.9);
  EXPECT_DOUBLE_EQ(cv.folds[1].held_out_score, 0.1);
  EXPECT_EQ(cv.folds[1].held_out, (std::vector<std::string>{"s2", "s3"}));
  EXPECT_DOUBLE_EQ(cv.mean, 0.35);
  EXPECT_DOUBLE_EQ(cv.spread, 0.25);
  EXPECT_DOUBLE_EQ(cv.min, 0.1);
  EXPECT_DOUBLE_EQ(cv.max, 0.6);
  EXPECT_DOUBLE_EQ(cv.defaults_mean, (0.95 + 0.25) / 2);
  const auto j = cross_validation_json(cv);
  EXPECT_EQ(j["scheme"], "2");
  EXPECT_EQ(j["folds"][1]["chosen"], "fit");
  EXPECT_THROW(cross_validate({{"partial", {1.0}}}, names, {{0}, {1}}, parse_fold_scheme("2"), std::nullopt),
               std::invalid_argument);
}

}  // namespace
}  // namespace ktune
