#include "ktune/report/run_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "ktune/io/json_value.hpp"
#include "ktune/multiobjective/pareto.hpp"
#include "ktune/tuning/objective.hpp"
#include "support/quantile.hpp"

namespace ktune::report {
namespace {

using json = nlohmann::json;

struct Axis {
  std::string name, unit;
  bool higher_is_better = false;
};

Axis parse_axis(const std::string& text) {
  Axis axis;
  const auto colon = text.rfind(':');
  const std::string suffix = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (suffix == "max" || suffix == "min") {
    axis.name = text.substr(0, colon);
    axis.higher_is_better = suffix == "max";
    return axis;
  }
  axis.name = text;
  const auto direction = infer_higher_is_better(text);
  if (!direction)
    throw std::invalid_argument(
        fmt::format("objective '{}': its direction is unknown; give it as {}:max or {}:min", text, text, text));
  axis.higher_is_better = *direction;
  return axis;
}

std::string unit_of(const std::string& name, const std::vector<EvaluationRecord>& records) {
  for (const auto& r : records)
    if (const Measurement* m = r.find(name); m && !m->unit.empty()) return m->unit;
  if (name == "time" || name.ends_with("_time")) return "ms";
  return "";
}

json axis_json(const Axis& a) { return {{"name", a.name}, {"unit", a.unit}, {"higher_is_better", a.higher_is_better}}; }

json five_numbers(std::vector<double> v, bool higher_is_better) {
  if (v.empty()) return nullptr;
  std::sort(v.begin(), v.end());
  return {{"min", v.front()},
          {"q1", support::quantile_of_sorted(v, 0.25)},
          {"median", support::quantile_of_sorted(v, 0.5)},
          {"q3", support::quantile_of_sorted(v, 0.75)},
          {"max", v.back()},
          {"best", higher_is_better ? v.back() : v.front()},
          {"mean", std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size())}};
}

bool better(double a, double b, bool higher_is_better) { return higher_is_better ? a > b : a < b; }

// The index of `value` among the parameter's values (python ==); the values' count when it is none of them.
std::size_t value_index(const Parameter& p, const Value& value) {
  for (std::size_t k = 0; k < p.values.size(); ++k)
    if (python_equal(p.values[k], value)) return k;
  return p.values.size();
}

json histogram(const std::vector<double>& values, bool log_scale) {
  if (values.empty()) return nullptr;
  const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  const auto scaled = [&](double x) { return log_scale ? std::log10(x) : x; };
  const double lo = scaled(*lo_it), hi = scaled(*hi_it);
  const std::size_t bins =
      std::clamp<std::size_t>(static_cast<std::size_t>(std::sqrt(static_cast<double>(values.size()))), 5, 40);
  std::vector<std::size_t> counts(hi > lo ? bins : 1, 0);
  for (double x : values) {
    std::size_t b = 0;
    if (hi > lo)
      b = std::min(bins - 1, static_cast<std::size_t>((scaled(x) - lo) / (hi - lo) * static_cast<double>(bins)));
    ++counts[b];
  }
  json edges = json::array();
  for (std::size_t b = 0; b <= counts.size(); ++b) {
    const double e =
        counts.size() == 1 ? (b == 0 ? lo : hi) : lo + (hi - lo) * static_cast<double>(b) / static_cast<double>(bins);
    edges.push_back(log_scale ? std::pow(10.0, e) : e);
  }
  if (counts.size() == 1) edges = json::array({*lo_it, *hi_it});
  return {{"edges", edges}, {"counts", counts}, {"log", log_scale}};
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

json config_json(const Problem& problem, const EvaluationRecord& r) {
  json c = json::object();
  for (std::size_t p = 0; p < problem.parameters.size() && p < r.config.size(); ++p)
    c[problem.parameters[p].name] = io::value_to_json(r.config[p]);
  return c;
}

}  // namespace

json summarize_run(const ReportRun& run, const SummaryOptions& options) {
  std::vector<std::string> texts = !options.objectives.empty() ? options.objectives : run.objectives;
  std::erase(texts, std::string());
  if (texts.empty()) texts = {"time"};
  std::vector<Axis> axes;
  for (const auto& t : texts) {
    axes.push_back(parse_axis(t));
    axes.back().unit = unit_of(axes.back().name, run.records);
  }
  const Axis& main = axes.front();
  const std::size_t n = run.records.size();
  const auto& params = run.problem.parameters;

  // The main objective per record (nullopt: failed or no number), and the tuning clock.
  std::vector<std::optional<double>> value(n);
  std::vector<double> clock_s(n);
  double charged = 0;
  bool have_clock = false;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& r = run.records[i];
    value[i] = r.objective(main.name);
    charged += r.charged_ms();
    clock_s[i] = (std::isfinite(r.clock_ms) ? r.clock_ms : charged) / 1000.0;
    have_clock = have_clock || clock_s[i] > 0;
  }

  json out{{"kind", "run"},
           {"name", run.name},
           {"source", run.source},
           {"format", run.format},
           {"device", run.device_name},
           {"kernel", run.kernel_name},
           {"problem_size", run.problem_size},
           {"objectives", json::array()},
           {"parameters", json::array()}};
  for (const auto& a : axes) out["objectives"].push_back(axis_json(a));

  // Counts by status, and the best record.
  std::map<std::string, std::size_t> by_status;
  std::optional<std::size_t> best;
  std::vector<double> ok_values;
  for (std::size_t i = 0; i < n; ++i) {
    ++by_status[std::string(to_string(run.records[i].status))];
    if (!value[i]) continue;
    ok_values.push_back(*value[i]);
    if (!best || better(*value[i], *value[*best], main.higher_is_better)) best = i;
  }
  out["records"] = n;
  out["with_value"] = ok_values.size();
  out["by_status"] = by_status;
  out["seconds"] = have_clock && n ? json(clock_s.back()) : json(nullptr);
  if (best) {
    out["best"] = {{"value", *value[*best]},
                   {"evaluation", *best + 1},
                   {"seconds", have_clock ? json(clock_s[*best]) : json(nullptr)},
                   {"config", config_json(run.problem, run.records[*best])}};
  } else {
    out["best"] = nullptr;
  }

  // The best so far: a point where it improves (and the last evaluation), so a long run stays a short list.
  json progress{{"evaluation", json::array()}, {"seconds", json::array()}, {"best", json::array()}};
  std::optional<double> so_far;
  const auto add_point = [&](std::size_t i) {
    progress["evaluation"].push_back(i + 1);
    progress["seconds"].push_back(have_clock ? json(clock_s[i]) : json(nullptr));
    progress["best"].push_back(*so_far);
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (value[i] && (!so_far || better(*value[i], *so_far, main.higher_is_better))) {
      so_far = value[i];
      add_point(i);
    } else if (i + 1 == n && so_far) {
      add_point(i);
    }
  }
  out["progress"] = progress;

  const bool all_positive = !ok_values.empty() && *std::min_element(ok_values.begin(), ok_values.end()) > 0;
  const bool log_scale = all_positive && *std::max_element(ok_values.begin(), ok_values.end()) >=
                                             100 * *std::min_element(ok_values.begin(), ok_values.end());
  out["log_scale"] = log_scale;
  out["distribution"] = histogram(ok_values, log_scale);

  // Each parameter: per value, how often it was measured, failed, and the objective's five numbers; its importance is
  // the share of the objective's variance (of its logarithm when all values are positive) its values explain alone.
  std::vector<std::vector<std::size_t>> index(params.size(), std::vector<std::size_t>(n));
  for (std::size_t p = 0; p < params.size(); ++p)
    for (std::size_t i = 0; i < n; ++i)
      index[p][i] =
          p < run.records[i].config.size() ? value_index(params[p], run.records[i].config[p]) : params[p].values.size();
  const auto transformed = [&](double x) { return all_positive ? std::log(x) : x; };
  double mean = 0;
  for (double x : ok_values) mean += transformed(x);
  mean /= std::max<std::size_t>(1, ok_values.size());
  double total = 0;
  for (double x : ok_values) total += (transformed(x) - mean) * (transformed(x) - mean);
  std::vector<std::pair<double, std::string>> ranking;
  for (std::size_t p = 0; p < params.size(); ++p) {
    const std::size_t k_count = params[p].values.size();
    std::vector<std::vector<double>> per_value(k_count);
    std::vector<std::size_t> measured(k_count, 0), failed(k_count, 0);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t k = index[p][i];
      if (k >= k_count) continue;
      ++measured[k];
      if (run.records[i].status != Status::ok) ++failed[k];
      if (value[i]) per_value[k].push_back(*value[i]);
    }
    double between = 0;
    json values = json::array(), stats = json::array();
    bool numeric = true;
    for (std::size_t k = 0; k < k_count; ++k) {
      values.push_back(io::value_to_json(params[p].values[k]));
      numeric = numeric && params[p].values[k].is_numeric() && !params[p].values[k].is_bool();
      if (!per_value[k].empty()) {
        double m = 0;
        for (double x : per_value[k]) m += transformed(x);
        m /= static_cast<double>(per_value[k].size());
        between += static_cast<double>(per_value[k].size()) * (m - mean) * (m - mean);
      }
      stats.push_back(five_numbers(per_value[k], main.higher_is_better));
    }
    const double importance = total > 0 ? between / total : 0.0;
    ranking.emplace_back(importance, params[p].name);
    out["parameters"].push_back({{"name", params[p].name},
                                 {"values", values},
                                 {"numeric", numeric},
                                 {"measured", measured},
                                 {"failed", failed},
                                 {"stats", stats},
                                 {"importance", importance}});
  }
  std::stable_sort(ranking.begin(), ranking.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  out["importance"] = json::array();
  for (const auto& [share, name] : ranking) out["importance"].push_back({{"name", name}, {"share", share}});

  // The best configurations, with every objective and the interval of the time where it was measured.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n; ++i)
    if (value[i]) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return better(*value[a], *value[b], main.higher_is_better); });
  if (order.size() > options.top) order.resize(options.top);
  json top = json::array();
  for (std::size_t i : order) {
    const auto& r = run.records[i];
    json row{{"evaluation", i + 1},
             {"config", config_json(run.problem, r)},
             {"values", json::array()},
             {"runs", r.runtimes_ms.size()}};
    for (const auto& a : axes) row["values"].push_back(io::number_or_null(r.objective(a.name).value_or(NAN)));
    for (const char* field : {"time_ci_low", "time_ci_high", "time_spread"})
      if (const auto v = r.objective(field)) row[field] = *v;
    top.push_back(std::move(row));
  }
  out["top"] = top;

  // Failures by status, with their most frequent messages.
  std::map<std::string, std::map<std::string, std::size_t>> messages;
  for (const auto& r : run.records)
    if (r.status != Status::ok) ++messages[std::string(to_string(r.status))][first_line(r.message)];
  json failures = json::array();
  for (const auto& [status, texts] : messages) {
    std::vector<std::pair<std::size_t, std::string>> sorted;
    std::size_t count = 0;
    for (const auto& [text, c] : texts) {
      sorted.emplace_back(c, text);
      count += c;
    }
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    json examples = json::array();
    for (std::size_t j = 0; j < sorted.size() && j < 3; ++j)
      examples.push_back({{"message", sorted[j].second}, {"count", sorted[j].first}});
    failures.push_back({{"status", status}, {"count", count}, {"messages", examples}});
  }
  out["failures"] = failures;

  // Two objectives: the measured points (thinned evenly) and the whole front, as the objectives' own values.
  out["pareto"] = nullptr;
  if (axes.size() >= 2) {
    std::vector<double> costs;
    std::vector<std::size_t> who;
    for (std::size_t i = 0; i < n; ++i) {
      const auto x = run.records[i].objective(axes[0].name), y = run.records[i].objective(axes[1].name);
      if (!x || !y) continue;
      costs.push_back(axes[0].higher_is_better ? -*x : *x);
      costs.push_back(axes[1].higher_is_better ? -*y : *y);
      who.push_back(i);
    }
    const auto front = pareto_front(costs, 2);
    const auto point = [&](std::size_t j) {
      return json::array({axes[0].higher_is_better ? -costs[2 * j] : costs[2 * j],
                          axes[1].higher_is_better ? -costs[2 * j + 1] : costs[2 * j + 1], who[j] + 1});
    };
    json cloud = json::array(), front_points = json::array();
    const std::size_t step =
        std::max<std::size_t>(1, (who.size() + options.max_points - 1) / std::max<std::size_t>(1, options.max_points));
    for (std::size_t j = 0; j < who.size(); j += step) cloud.push_back(point(j));
    std::vector<std::size_t> sorted_front(front.begin(), front.end());
    std::sort(sorted_front.begin(), sorted_front.end(),
              [&](std::size_t a, std::size_t b) { return costs[2 * a] < costs[2 * b]; });
    for (std::size_t j : sorted_front) front_points.push_back(point(j));
    out["pareto"] = {{"x", axis_json(axes[0])},
                     {"y", axis_json(axes[1])},
                     {"points", cloud},
                     {"front", front_points},
                     {"measured", who.size()}};
  }
  return out;
}

}  // namespace ktune::report
