// Export of the valid configurations: CSV (values as Python's str()) and JSON (typed values).
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "ktune/io/json_value.hpp"
#include "ktune/search_space.hpp"

namespace ktune {

namespace {

// CSV field quoting (RFC 4180): quote fields holding a comma, quote or line break; double inner quotes.
void write_field(std::ostream& out, const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    out << s;
    return;
  }
  out << '"';
  for (char c : s) {
    if (c == '"') out << '"';
    out << c;
  }
  out << '"';
}

}  // namespace

void SearchSpace::write_csv(std::ostream& out) const {
  const std::size_t d = num_params();
  for (std::size_t p = 0; p < d; ++p) {
    if (p) out << ',';
    write_field(out, param_name(p));
  }
  out << '\n';
  // Each value's text once per parameter, not once per configuration.
  std::vector<std::vector<std::string>> text(d);
  for (std::size_t p = 0; p < d; ++p)
    for (const Value& v : param_values(p)) text[p].push_back(v.str());
  for (std::size_t r = 0; r < size(); ++r) {
    for (std::size_t p = 0; p < d; ++p) {
      if (p) out << ',';
      write_field(out, text[p][value_index(r, p)]);
    }
    out << '\n';
  }
}

nlohmann::json SearchSpace::to_json() const {
  const std::size_t d = num_params();
  nlohmann::json j;
  nlohmann::json params = nlohmann::json::array();
  std::vector<std::vector<nlohmann::json>> typed(d);
  for (std::size_t p = 0; p < d; ++p) {
    nlohmann::json values = nlohmann::json::array();
    for (const Value& v : param_values(p)) {
      typed[p].push_back(io::value_to_json(v));
      values.push_back(typed[p].back());
    }
    params.push_back({{"name", param_name(p)}, {"values", std::move(values)}});
  }
  j["parameters"] = std::move(params);
  nlohmann::json configs = nlohmann::json::array();
  configs.get_ref<nlohmann::json::array_t&>().reserve(size());
  for (std::size_t r = 0; r < size(); ++r) {
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t p = 0; p < d; ++p) row.push_back(typed[p][value_index(r, p)]);
    configs.push_back(std::move(row));
  }
  j["configurations"] = std::move(configs);
  return j;
}

}  // namespace ktune
