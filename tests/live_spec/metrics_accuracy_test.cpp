// evaluate_metric (Kernel Tuner metrics) and the accuracy metrics against hand-computed values.
#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "ktune/live/element_values.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "temp_files.hpp"

namespace ktune::live {
namespace {

using ktune::testing::error_of;

TEST(Metrics, ExpressionsOverParametersConstantsAndMeasurements) {
  const Problem problem = ProblemBuilder().parameter("block_size_x", {32, 64}).constant("n", 1000).build();
  const std::vector<Value> config{64};
  const std::map<std::string, double, std::less<>> measured{{"time", 2.0}, {"energy", 0.5}};
  // 2 * n^3 flops in 2 ms: 2e9 / 2e-3 / 1e9 = 1000 GFLOP/s
  EXPECT_DOUBLE_EQ(evaluate_metric({"GFLOP/s", "2*n*n*n/(time/1e3)/1e9", ""}, problem, config, measured), 1000.0);
  EXPECT_DOUBLE_EQ(evaluate_metric({"per_thread", "n / block_size_x", ""}, problem, config, measured), 15.625);
  EXPECT_DOUBLE_EQ(evaluate_metric({"edp", "energy * time", ""}, problem, config, measured), 1.0);
  // Composable: an earlier metric is passed in as a measurement.
  auto with_previous = measured;
  with_previous["gflops"] = 1000.0;
  EXPECT_DOUBLE_EQ(evaluate_metric({"gflops_per_j", "gflops / energy", ""}, problem, config, with_previous), 2000.0);
  EXPECT_DOUBLE_EQ(evaluate_metric({"flag", "time > 1", ""}, problem, config, measured), 1.0);
}

TEST(Metrics, ErrorsNameTheMetric) {
  const Problem problem = ProblemBuilder().parameter("block_size_x", {32}).build();
  const std::vector<Value> config{32};
  const std::map<std::string, double, std::less<>> measured{{"time", 0.0}};
  std::string e = error_of<std::invalid_argument>(
      [&] { (void)evaluate_metric({"GB/s", "bytes / time", ""}, problem, config, measured); });
  EXPECT_CONTAINS(e, "metric 'GB/s'");
  EXPECT_CONTAINS(e, "unknown name 'bytes'");
  e = error_of<std::invalid_argument>(
      [&] { (void)evaluate_metric({"rate", "1 / time", ""}, problem, config, measured); });
  EXPECT_CONTAINS(e, "metric 'rate': evaluating \"1 / time\" failed");
  e = error_of<std::invalid_argument>(
      [&] { (void)evaluate_metric({"s", "'fast'", ""}, problem, config, measured); });
  EXPECT_CONTAINS(e, "not a number");
}

TEST(Accuracy, MetricsAgainstHandComputedValues) {
  const std::vector<double> e{1.0, 2.0, 4.0, -1.0};
  const std::vector<double> a{1.5, 2.0, 3.0, -1.0};
  // differences 0.5, 0, -1, 0; relative 0.5, 0, 0.25, 0; range of e = 5; mean|e| = 2
  EXPECT_DOUBLE_EQ(accuracy_error("MSE", e, a), (0.25 + 1.0) / 4);
  EXPECT_DOUBLE_EQ(accuracy_error("RMSE", e, a), std::sqrt(1.25 / 4));
  EXPECT_DOUBLE_EQ(accuracy_error("NRMSE", e, a), std::sqrt(1.25 / 4) / 5);
  // mean of e = 1.5; root mean square of e = sqrt(22 / 4)
  EXPECT_DOUBLE_EQ(accuracy_error("NRMSE-mean", e, a), std::sqrt(1.25 / 4) / 1.5);
  EXPECT_DOUBLE_EQ(accuracy_error("NRMSE by RMS", e, a), std::sqrt(1.25 / 4) / std::sqrt(22.0 / 4));
  EXPECT_DOUBLE_EQ(accuracy_error("MAE", e, a), 1.5 / 4);
  EXPECT_DOUBLE_EQ(accuracy_error("NMAE", e, a), 1.5 / 4 / 2);
  EXPECT_DOUBLE_EQ(accuracy_error("MRE", e, a), 0.75 / 4);
  EXPECT_DOUBLE_EQ(accuracy_error("RMSRE", e, a), std::sqrt((0.25 + 0.0625) / 4));
  EXPECT_DOUBLE_EQ(accuracy_error("max absolute", e, a), 1.0);
  EXPECT_DOUBLE_EQ(accuracy_error("max relative", e, a), 0.5);
  const double l1 = std::log(1.5 + 1e-8) - std::log(1.0 + 1e-8), l3 = std::log(3.0 + 1e-8) - std::log(4.0 + 1e-8);
  EXPECT_NEAR(accuracy_error("MALE", e, a), (std::abs(l1) + std::abs(l3)) / 4, 1e-12);
  EXPECT_NEAR(accuracy_error("RMSLE", e, a), std::sqrt((l1 * l1 + l3 * l3) / 4), 1e-12);
}

TEST(Accuracy, NameSpellingsAndErrors) {
  EXPECT_EQ(canonical_accuracy_metric("rmse"), "RMSE");
  EXPECT_EQ(canonical_accuracy_metric("Max_Abs_Error"), "max absolute");
  EXPECT_EQ(canonical_accuracy_metric("mean relative error"), "MRE");
  EXPECT_EQ(canonical_accuracy_metric("absolute"), "MAE");
  EXPECT_EQ(canonical_accuracy_metric("accuracy"), "");
  const std::vector<double> one{1.0};
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { (void)accuracy_error("R2", one, one); }),
                  "unknown accuracy metric 'R2'");
  const std::vector<double> two{1.0, 2.0};
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { (void)accuracy_error("MSE", one, two); }), "1 expected");
}

TEST(Accuracy, NonFiniteValuesAndEmptyOutputs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(accuracy_error("RMSE", std::vector<double>{1.0, nan}, std::vector<double>{1.0, 2.0}), inf);
  EXPECT_EQ(accuracy_error("RMSE", std::vector<double>{1.0, 2.0}, std::vector<double>{1.0, nan}), inf);
  EXPECT_EQ(accuracy_error("MAE", std::vector<double>{nan, inf}, std::vector<double>{nan, inf}), 0.0);
  EXPECT_EQ(accuracy_error("MAE", std::vector<double>{}, std::vector<double>{}), 0.0);
  // Relative error of an expected 0 divides by EPS instead of 0.
  EXPECT_DOUBLE_EQ(accuracy_error("max relative", std::vector<double>{0.0}, std::vector<double>{1e-9}), 0.1);
}

TEST(Accuracy, HalfOutputAgainstDoubleReference) {
  // Mixed precision: the reference is double, the tuned configuration wrote halves.
  KernelArgument reference;
  reference.name = "c";
  reference.type = ElementType::float64;
  const std::vector<double> exact{0.1, 1.0 / 3.0, 1000.7};
  reference.bytes.resize(exact.size() * 8);
  std::memcpy(reference.bytes.data(), exact.data(), reference.bytes.size());
  std::vector<std::byte> halves(exact.size() * 2);
  for (std::size_t i = 0; i < exact.size(); ++i) store_element(ElementType::float16, exact[i], &halves[i * 2]);
  double expected_max = 0;
  for (std::size_t i = 0; i < exact.size(); ++i)
    expected_max = std::max(expected_max, std::abs(load_element(ElementType::float16, &halves[i * 2]) - exact[i]));
  EXPECT_DOUBLE_EQ(accuracy_error("max absolute", reference, ElementType::float16, halves), expected_max);
  EXPECT_NEAR(expected_max, 0.2, 0.11);  // 1000.7 -> 1000.5 (spacing 0.5 near 1000)
  EXPECT_LT(accuracy_error("max relative", reference, ElementType::float16, halves), 1e-3);
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] {
                    (void)accuracy_error("MSE", reference, ElementType::float16, std::span(halves).first(4));
                  }),
                  "the reference has 3 elements, the output 2");
}

}  // namespace
}  // namespace ktune::live
