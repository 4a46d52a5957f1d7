#pragma once
// Exact comparison of evaluation records, for the results-file tests.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/evaluation_record.hpp"

namespace ktune::testing {

// Bitwise-equal as values: NaN equals NaN, -0.0 differs from 0.0.
inline bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

inline ::testing::AssertionResult SameRecord(const char*, const char*, const EvaluationRecord& a,
                                             const EvaluationRecord& b) {
  const auto fail = [&](const std::string& what) {
    return ::testing::AssertionFailure() << "records of " << io::kernel_tuner_key(a.config) << " differ in " << what;
  };
  if (a.config.size() != b.config.size()) return fail("config size");
  for (std::size_t i = 0; i < a.config.size(); ++i)
    if (!same_value(a.config[i], b.config[i])) return fail("config[" + std::to_string(i) + "]: " + a.config[i].repr() + " vs " + b.config[i].repr());
  if (a.status != b.status) return fail("status: " + std::string(to_string(a.status)) + " vs " + std::string(to_string(b.status)));
  if (a.message != b.message) return fail("message: '" + a.message + "' vs '" + b.message + "'");
  if (a.timestamp != b.timestamp) return fail("timestamp");
  if (a.runtimes_ms.size() != b.runtimes_ms.size()) return fail("number of runtimes");
  for (std::size_t i = 0; i < a.runtimes_ms.size(); ++i)
    if (!same_double(a.runtimes_ms[i], b.runtimes_ms[i])) return fail("runtimes_ms[" + std::to_string(i) + "]");
  const std::pair<const char*, std::pair<double, double>> times[] = {
      {"compile_ms", {a.compile_ms, b.compile_ms}},           {"benchmark_ms", {a.benchmark_ms, b.benchmark_ms}},
      {"verification_ms", {a.verification_ms, b.verification_ms}}, {"framework_ms", {a.framework_ms, b.framework_ms}},
      {"strategy_ms", {a.strategy_ms, b.strategy_ms}}};
  for (const auto& [name, values] : times)
    if (!same_double(values.first, values.second)) return fail(name);
  if (a.measurements.size() != b.measurements.size()) return fail("number of measurements");
  for (std::size_t i = 0; i < a.measurements.size(); ++i) {
    const Measurement& x = a.measurements[i];
    const Measurement& y = b.measurements[i];
    if (x.name != y.name || x.unit != y.unit) return fail("measurement " + x.name + " / " + y.name);
    if (!same_value(x.value, y.value))  // NaN matches NaN
      return fail("measurement " + x.name + ": " + x.value.repr() + " vs " + y.value.repr());
  }
  return ::testing::AssertionSuccess();
}

}  // namespace ktune::testing

#define EXPECT_SAME_RECORD(a, b) EXPECT_PRED_FORMAT2(::ktune::testing::SameRecord, a, b)
