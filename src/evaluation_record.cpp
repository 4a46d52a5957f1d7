#include "ktune/evaluation_record.hpp"

#include <numeric>

namespace ktune {

const Measurement* EvaluationRecord::find(std::string_view name) const {
  for (const auto& m : measurements)
    if (m.name == name) return &m;
  return nullptr;
}

std::optional<double> EvaluationRecord::objective(std::string_view name) const {
  if (status != Status::ok) return std::nullopt;
  if (const Measurement* m = find(name)) {
    if (!m->value.is_numeric()) return std::nullopt;
    const double v = m->value.to_double();
    // 1e20 is the value Kernel Tuner writes for failed configurations in some objective fields.
    if (!std::isfinite(v) || v == 1e20) return std::nullopt;
    return v;
  }
  if (name == "time" && !runtimes_ms.empty())
    return std::accumulate(runtimes_ms.begin(), runtimes_ms.end(), 0.0) / static_cast<double>(runtimes_ms.size());
  // The recorded times of the tuning steps, as Kernel Tuner's cache names them (ms).
  const double step = name == "compile_time"        ? compile_ms
                      : name == "benchmark_time"    ? benchmark_ms
                      : name == "verification_time" ? verification_ms
                      : name == "framework_time"    ? framework_ms
                                                    : std::nan("");
  if (std::isfinite(step)) return step;
  return std::nullopt;
}

double EvaluationRecord::charged_ms() const {
  double runtime = 0;
  for (double r : runtimes_ms)
    if (r >= 0) runtime += r;  // the methodology skips invalid samples (NaN, negative)
  auto valid = [](double v) { return v >= 0 ? v : 0.0; };  // NaN >= 0 is false
  return valid(compile_ms) + runtime + valid(framework_ms) + valid(verification_ms);
}

}  // namespace ktune
