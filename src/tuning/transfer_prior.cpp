#include "ktune/tuning/transfer_prior.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "ktune/io/kernel_tuner_cache.hpp"

namespace ktune {

namespace {

// One text per value as Python's == sees it (1, 1.0 and True are one value), for looking values up.
std::string value_key(const Value& v) {
  if (v.is_numeric()) {
    const double d = v.to_double();
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return fmt::format("n{}", d == 0 ? 0 : bits);  // -0.0 == 0.0
  }
  if (v.is_string()) return "s" + v.str();
  return "r" + v.repr();
}

struct KeyHash {
  std::size_t operator()(const std::vector<std::uint32_t>& key) const {
    std::uint64_t h = 1469598103934665603ull;
    for (std::uint32_t x : key) h = (h ^ x) * 1099511628211ull;
    return static_cast<std::size_t>(h);
  }
};

// The value of `source_values` nearest to `v`: equal, else the nearest number (by ratio when both are positive, as
// tunable sizes go in powers); -1 if there is none.
int nearest_value(const Value& v, const std::vector<Value>& source_values,
                  const std::unordered_map<std::string, std::uint32_t>& lookup) {
  if (const auto it = lookup.find(value_key(v)); it != lookup.end()) return static_cast<int>(it->second);
  if (!v.is_numeric()) return -1;
  const double x = v.to_double();
  int best = -1;
  double best_distance = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < source_values.size(); ++i) {
    if (!source_values[i].is_numeric()) continue;
    const double y = source_values[i].to_double();
    const double d = (x > 0 && y > 0) ? std::abs(std::log(x / y)) : std::abs(x - y);
    if (d < best_distance) best_distance = d, best = static_cast<int>(i);
  }
  return best;
}

}  // namespace

bool same_kernel(const io::ResultsFile& source, const Problem& problem, const std::string& kernel_name) {
  if (!source.kernel_name.empty() && !kernel_name.empty() && source.kernel_name != kernel_name) return false;
  if (source.problem.parameters.size() != problem.parameters.size()) return false;
  for (const Parameter& p : problem.parameters)
    if (std::none_of(source.problem.parameters.begin(), source.problem.parameters.end(),
                     [&](const Parameter& q) { return q.name == p.name; }))
      return false;
  return true;
}

namespace {

std::string normalised(const std::string& text) {
  std::string out;
  for (char c : text)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The file name without its extensions and "_T4", normalised.
std::string file_device_name(const std::string& path) {
  std::string stem = std::filesystem::path(path).filename().string();
  for (const char* suffix : {".gz", ".json", "_T4"})
    if (stem.size() > std::strlen(suffix) && stem.ends_with(suffix)) stem.resize(stem.size() - std::strlen(suffix));
  return normalised(stem);
}

std::vector<std::string> device_names(const std::string& path, const io::ResultsFile& file) {
  std::vector<std::string> names;
  if (!normalised(file.device_name).empty()) names.push_back(normalised(file.device_name));
  if (const std::string stem = file_device_name(path); !stem.empty()) names.push_back(stem);
  return names;
}

}  // namespace

bool same_origin(const std::string& path_a, const io::ResultsFile& a, const std::string& path_b,
                 const io::ResultsFile& b) {
  std::error_code ec_a, ec_b;
  const auto canonical_a = std::filesystem::weakly_canonical(path_a, ec_a);
  const auto canonical_b = std::filesystem::weakly_canonical(path_b, ec_b);
  if (!ec_a && !ec_b && canonical_a == canonical_b) return true;
  const auto names_a = device_names(path_a, a), names_b = device_names(path_b, b);
  const bool same_device = std::any_of(names_a.begin(), names_a.end(), [&](const std::string& n) {
    return std::find(names_b.begin(), names_b.end(), n) != names_b.end();
  });
  return same_device && io::same_problem_size(a.problem_size, b.problem_size);
}

bool same_measured_device(const std::string& path_a, const io::ResultsFile& a, const std::string& path_b,
                          const io::ResultsFile& b) {
  const std::string device_a = normalised(a.device_name), device_b = normalised(b.device_name);
  const std::string file_a = file_device_name(path_a);
  const bool both_named = !device_a.empty() && !device_b.empty();
  const bool same_device = both_named ? device_a == device_b : !file_a.empty() && file_a == file_device_name(path_b);
  return same_device && io::same_problem_size(a.problem_size, b.problem_size);
}

TransferPrior::TransferPrior(const SearchSpace& space, const std::vector<TransferSource>& sources,
                             const std::string& objective, bool minimize)
    : size_(space.size()) {
  const std::size_t n_params = space.num_params();
  for (const TransferSource& ts : sources) {
    const io::ResultsFile& file = *ts.results;
    const Problem& sp = file.problem;
    // Source parameter of each space parameter.
    std::vector<std::size_t> source_param(n_params);
    if (sp.parameters.size() != n_params)
      throw std::invalid_argument(
          fmt::format("transfer source {}: {} parameters, the space has {}", ts.name, sp.parameters.size(), n_params));
    for (std::size_t p = 0; p < n_params; ++p) {
      const auto it = std::find_if(sp.parameters.begin(), sp.parameters.end(),
                                   [&](const Parameter& q) { return q.name == space.param_name(p); });
      if (it == sp.parameters.end())
        throw std::invalid_argument(
            fmt::format("transfer source {}: no parameter '{}' (a source must have the space's parameters)", ts.name,
                        space.param_name(p)));
      source_param[p] = static_cast<std::size_t>(it - sp.parameters.begin());
    }
    std::vector<std::unordered_map<std::string, std::uint32_t>> lookup(sp.parameters.size());
    for (std::size_t q = 0; q < sp.parameters.size(); ++q)
      for (std::size_t i = 0; i < sp.parameters[q].values.size(); ++i)
        lookup[q].emplace(value_key(sp.parameters[q].values[i]), static_cast<std::uint32_t>(i));

    // The source's records as value indices (in the space's parameter order) with their costs.
    struct Entry {
      std::vector<std::uint32_t> key;
      double cost;  // +inf: failed or not measured
      SourceRecord record;
    };
    std::vector<Entry> entries;
    entries.reserve(file.records.size());
    std::size_t successes = 0;
    for (const EvaluationRecord& r : file.records) {
      Entry e{std::vector<std::uint32_t>(n_params), std::numeric_limits<double>::infinity(),
              r.status == Status::ok ? SourceRecord::none : SourceRecord::failed};
      bool known = true;
      for (std::size_t p = 0; p < n_params && known; ++p) {
        const auto it = lookup[source_param[p]].find(value_key(r.config[source_param[p]]));
        if (it == lookup[source_param[p]].end())
          known = false;
        else
          e.key[p] = it->second;
      }
      if (!known) continue;  // a value outside the declared lists: the reader refuses those, so never in practice
      if (const auto value = r.objective(objective)) {
        e.cost = minimize ? *value : -*value;
        e.record = SourceRecord::ran;
        ++successes;
      }
      entries.push_back(std::move(e));
    }
    if (successes < 2)
      throw std::invalid_argument(
          fmt::format("transfer source {}: {} successful measurement(s) of '{}', at least 2 are needed", ts.name,
                      successes, objective));

    // Quantiles: the average rank among the successes over (successes - 1); failures 1.
    std::vector<std::size_t> order(entries.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return entries[a].cost < entries[b].cost; });
    std::vector<float> entry_quantile(entries.size(), 1.0f);
    for (std::size_t i = 0; i < successes;) {
      std::size_t j = i;
      while (j + 1 < successes && entries[order[j + 1]].cost == entries[order[i]].cost) ++j;
      const double q = (0.5 * static_cast<double>(i + j)) / static_cast<double>(successes - 1);
      for (std::size_t k = i; k <= j; ++k) entry_quantile[order[k]] = static_cast<float>(q);
      i = j + 1;
    }

    // Main effects: the mean quantile per parameter value, against the overall mean.
    double overall = 0;
    for (float q : entry_quantile) overall += q;
    overall /= static_cast<double>(entries.size());
    std::vector<std::vector<double>> effect(n_params);
    for (std::size_t p = 0; p < n_params; ++p) {
      const std::size_t n_values = sp.parameters[source_param[p]].values.size();
      std::vector<double> sum(n_values, 0.0), count(n_values, 0.0);
      for (std::size_t e = 0; e < entries.size(); ++e) {
        sum[entries[e].key[p]] += entry_quantile[e];
        count[entries[e].key[p]] += 1;
      }
      effect[p].resize(n_values);
      for (std::size_t v = 0; v < n_values; ++v) effect[p][v] = count[v] > 0 ? sum[v] / count[v] - overall : 0.0;
    }
    // The space's value -> the source's (nearest) value, per parameter; -1: none comparable.
    std::vector<std::vector<int>> to_source(n_params);
    for (std::size_t p = 0; p < n_params; ++p)
      for (const Value& v : space.param_values(p))
        to_source[p].push_back(nearest_value(v, sp.parameters[source_param[p]].values, lookup[source_param[p]]));
    std::vector<std::vector<char>> exact_value(n_params);
    for (std::size_t p = 0; p < n_params; ++p)
      for (const Value& v : space.param_values(p))
        exact_value[p].push_back(lookup[source_param[p]].count(value_key(v)) ? 1 : 0);

    std::unordered_map<std::vector<std::uint32_t>, std::size_t, KeyHash> by_key;
    by_key.reserve(entries.size());
    for (std::size_t e = 0; e < entries.size(); ++e) by_key.emplace(entries[e].key, e);

    Source out;
    out.name = ts.name;
    out.quantiles.resize(size_);
    out.records.assign(size_, static_cast<std::uint8_t>(SourceRecord::none));
    std::vector<std::pair<double, std::size_t>> measured;  // (cost, index) of exact successful matches
    std::vector<std::uint32_t> key(n_params);
    for (std::size_t i = 0; i < size_; ++i) {
      bool exact = true;
      double predicted = overall;
      for (std::size_t p = 0; p < n_params; ++p) {
        const std::uint32_t v = space.value_index(i, p);
        exact = exact && exact_value[p][v];
        const int s = to_source[p][v];
        if (s >= 0) {
          key[p] = static_cast<std::uint32_t>(s);
          predicted += effect[p][static_cast<std::size_t>(s)];
        }
      }
      if (exact) {
        if (const auto it = by_key.find(key); it != by_key.end()) {
          out.quantiles[i] = entry_quantile[it->second];
          out.records[i] = static_cast<std::uint8_t>(entries[it->second].record);
          if (std::isfinite(entries[it->second].cost)) measured.emplace_back(entries[it->second].cost, i);
          continue;
        }
      }
      out.quantiles[i] = static_cast<float>(std::clamp(predicted, 0.0, 1.0));
    }
    std::stable_sort(measured.begin(), measured.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    out.ranking.reserve(measured.size());
    for (const auto& m : measured) out.ranking.push_back(m.second);
    sources_.push_back(std::move(out));
  }
}

}  // namespace ktune
