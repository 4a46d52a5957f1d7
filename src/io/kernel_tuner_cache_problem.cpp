// The tuning problem behind a Kernel Tuner cache file: its header read without building the entries.
#include "ktune/io/kernel_tuner_cache.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ktune/expr/parser.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/json_value.hpp"

namespace ktune::io {

namespace {
[[noreturn]] void fail_at(const std::string& source, const std::string& path, const std::string& message) {
  throw InputError(source, path, message);
}
}  // namespace

namespace {

// A strict JSON syntax checker for the skipped "cache" value: it builds nothing, so a cache file of hundreds of
// megabytes is checked at memory speed. Accepts Python's NaN, Infinity and -Infinity (json.dump writes them for
// non-finite floats; the entries are not interpreted here). Returns the end of the value at `pos`, or npos on any
// syntax error (the caller then lets nlohmann parse everything and report the error with its position).
class JsonSkipper {
 public:
  explicit JsonSkipper(std::string_view text) : t_(text) {}
  static constexpr std::size_t npos = std::string_view::npos;

  std::size_t ws(std::size_t i) const {
    while (i < t_.size() && (t_[i] == ' ' || t_[i] == '\n' || t_[i] == '\r' || t_[i] == '\t')) ++i;
    return i;
  }

  std::size_t string(std::size_t i) const {  // at the opening quote
    if (i >= t_.size() || t_[i] != '"') return npos;
    for (++i; i < t_.size(); ++i) {
      const auto c = static_cast<unsigned char>(t_[i]);
      if (c == '"') return i + 1;
      if (c < 0x20) return npos;
      if (c == '\\') {
        if (++i >= t_.size()) return npos;
        const char e = t_[i];
        if (e == 'u') {
          for (int k = 0; k < 4; ++k)
            if (++i >= t_.size() || !std::isxdigit(static_cast<unsigned char>(t_[i]))) return npos;
        } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return npos;
        }
      }
    }
    return npos;
  }

  std::size_t number(std::size_t i) const {
    const auto digit = [&](std::size_t k) { return k < t_.size() && t_[k] >= '0' && t_[k] <= '9'; };
    if (i < t_.size() && t_[i] == '-') ++i;
    if (t_.substr(i, 8) == "Infinity") return i + 8;
    if (!digit(i)) return npos;
    if (t_[i] == '0') {
      ++i;
    } else {
      while (digit(i)) ++i;
    }
    if (i < t_.size() && t_[i] == '.') {
      if (!digit(++i)) return npos;
      while (digit(i)) ++i;
    }
    if (i < t_.size() && (t_[i] == 'e' || t_[i] == 'E')) {
      ++i;
      if (i < t_.size() && (t_[i] == '+' || t_[i] == '-')) ++i;
      if (!digit(i)) return npos;
      while (digit(i)) ++i;
    }
    return i;
  }

  // Iterative over nesting, so deep input cannot overflow the stack.
  std::size_t value(std::size_t i) const {
    std::vector<char> stack;  // '{' or '['
    for (;;) {
      i = ws(i);
      if (i >= t_.size()) return npos;
      const char c = t_[i];
      if (c == '{' || c == '[') {
        stack.push_back(c);
        i = ws(i + 1);
        if (i < t_.size() && t_[i] == (c == '{' ? '}' : ']')) {
          stack.pop_back();
          ++i;
        } else {
          if (c == '{') {
            if ((i = string(i)) == npos || (i = ws(i)) >= t_.size() || t_[i] != ':') return npos;
            ++i;
          }
          continue;  // parse the first member's value
        }
      } else if (c == '"') {
        i = string(i);
      } else if (c == '-' || (c >= '0' && c <= '9') || c == 'I') {
        i = number(i);
      } else {
        bool matched = false;
        for (std::string_view word : {"true", "false", "null", "NaN"})
          if (t_.substr(i, word.size()) == word) { i += word.size(); matched = true; break; }
        if (!matched) return npos;
      }
      if (i == npos) return npos;
      // After a complete value: close containers or move to the next element.
      for (;;) {
        if (stack.empty()) return i;
        i = ws(i);
        if (i >= t_.size()) return npos;
        const char close = stack.back() == '{' ? '}' : ']';
        if (t_[i] == close) {
          stack.pop_back();
          ++i;
          continue;
        }
        if (t_[i] != ',') return npos;
        i = ws(i + 1);
        if (stack.back() == '{') {
          if ((i = string(i)) == npos || (i = ws(i)) >= t_.size() || t_[i] != ':') return npos;
          ++i;
        }
        break;
      }
    }
  }

  // The [begin, end) span of the value of the top-level member `key`, if the top level is an object that has it and
  // everything up to the end of that value is well-formed.
  std::optional<std::pair<std::size_t, std::size_t>> member_span(std::string_view key) const {
    std::size_t i = ws(0);
    if (i >= t_.size() || t_[i] != '{') return std::nullopt;
    i = ws(i + 1);
    if (i < t_.size() && t_[i] == '}') return std::nullopt;
    for (;;) {
      const std::size_t key_begin = i;
      if ((i = string(i)) == npos) return std::nullopt;
      const std::string_view name = t_.substr(key_begin + 1, i - key_begin - 2);
      if ((i = ws(i)) >= t_.size() || t_[i] != ':') return std::nullopt;
      const std::size_t value_begin = ws(i + 1);
      if ((i = value(value_begin)) == npos) return std::nullopt;
      if (name == key) return std::make_pair(value_begin, i);
      if ((i = ws(i)) >= t_.size() || t_[i] != ',') return std::nullopt;
      i = ws(i + 1);
    }
  }

 private:
  std::string_view t_;
};

}  // namespace

ScannedDocument parse_skipping_cache(const std::string& text, const std::string& source_name) {
  ScannedDocument scanned;
  // Cut a well-formed "cache" value out (replaced by null); if there is none or it is malformed, nlohmann parses
  // the original text and reports any error. Error positions behind the cut are mapped back to the original text.
  std::string cut;
  const std::string* input = &text;
  std::size_t cut_at = std::string::npos, cut_shift = 0;
  if (const auto span = JsonSkipper(text).member_span("cache"); span && span->second - span->first > 4) {
    cut.reserve(text.size() - (span->second - span->first) + 4);
    cut.append(text, 0, span->first).append("null").append(text, span->second);
    input = &cut;
    cut_at = span->first + 4;
    cut_shift = span->second - span->first - 4;
  }
  std::string top_key;
  // Depth 1 is the top-level object's members; depth 2 the members of "tune_params".
  auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::key && depth == 1) {
      top_key = parsed.get<std::string>();
      if (top_key == "cache") scanned.had_cache = true;
    } else if (event == Event::key && depth == 2 && top_key == "tune_params") {
      scanned.tune_params_order.push_back(parsed.get<std::string>());
    } else if (depth == 1 && top_key == "cache" &&
               (event == Event::object_start || event == Event::array_start || event == Event::value)) {
      return false;  // drop the entries without building them
    }
    return true;
  };
  if (const auto problem = json_text_problem(*input)) {
    const std::size_t at = problem->first >= cut_at ? problem->first + cut_shift : problem->first;
    throw_json_syntax_error(text, at, problem->second, source_name);
  }
  try {
    scanned.document = nlohmann::json::parse(*input, callback, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t byte = e.byte == 0 ? 0 : e.byte - 1;
    if (byte >= cut_at) byte += cut_shift;
    throw_json_syntax_error(text, byte, parse_error_detail(e), source_name);
  } catch (const nlohmann::json::out_of_range& e) {
    throw_json_out_of_range(text, e, source_name);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source_name, "", std::string("invalid JSON: ") + e.what());
  }
  return scanned;
}

Problem problem_from_cache_json(const nlohmann::json& document, const std::string& source_name,
                                const std::vector<std::string>& tune_params_order) {
  const auto fail = [&](const std::string& path, const std::string& message) { fail_at(source_name, path, message); };
  if (!document.is_object()) fail("", fmt::format("expected a JSON object at the top level, got {}", document.type_name()));
  const auto tp = document.find("tune_params");
  if (tp == document.end()) {
    if (document.contains("results"))
      fail("", "a T4 results file, not a Kernel Tuner cache file (no 'tune_params')");
    fail("tune_params", "missing: not a Kernel Tuner cache file");
  }
  if (!tp->is_object()) fail("tune_params", fmt::format("expected an object, got {}", tp->type_name()));

  // Parameter order: tune_params_keys, else the order in the file, else (no order known) sorted.
  std::vector<std::string> order;
  if (const auto keys = document.find("tune_params_keys"); keys != document.end()) {
    if (!keys->is_array()) fail("tune_params_keys", fmt::format("expected an array, got {}", keys->type_name()));
    for (std::size_t i = 0; i < keys->size(); ++i) {
      const std::string path = fmt::format("tune_params_keys[{}]", i);
      if (!(*keys)[i].is_string())
        fail(path, fmt::format("expected a string, got {}", json_for_message((*keys)[i])));
      order.push_back((*keys)[i].get<std::string>());
      if (!tp->contains(order.back())) fail(path, fmt::format("parameter '{}' is not in tune_params", order.back()));
    }
    for (const auto& item : tp->items())
      if (std::find(order.begin(), order.end(), item.key()) == order.end())
        fail("tune_params_keys", fmt::format("parameter '{}' of tune_params is missing here", item.key()));
  } else if (std::set<std::string>(tune_params_order.begin(), tune_params_order.end()).size() == tp->size() &&
             tune_params_order.size() == tp->size()) {
    order = tune_params_order;
  } else {
    for (const auto& item : tp->items()) order.push_back(item.key());
  }

  Problem problem;
  problem.name = file_stem(source_name);
  if (const auto it = document.find("kernel_name"); it != document.end() && it->is_string() &&
                                                    !it->get<std::string>().empty())
    problem.name = it->get<std::string>();

  for (const std::string& name : order) {
    const std::string path = "tune_params." + name;
    const nlohmann::json& values = tp->at(name);
    if (!values.is_array())
      fail(path, fmt::format("parameter '{}': expected a list of values, got {}", name, json_for_message(values)));
    Parameter p{name, {}};
    for (std::size_t i = 0; i < values.size(); ++i) {
      try {
        p.values.push_back(value_from_json(values[i]));
      } catch (const std::invalid_argument& e) {
        fail(fmt::format("{}[{}]", path, i), fmt::format("parameter '{}': {}", name, e.what()));
      }
    }
    problem.parameters.push_back(std::move(p));
  }

  if (const auto r = document.find("restrictions"); r != document.end() && !r->is_null()) {
    const auto add = [&](const nlohmann::json& j, const std::string& path) {
      if (!j.is_string()) fail(path, fmt::format("expected a restriction string, got {}", json_for_message(j)));
      try {
        (void)expr::parse_expression(j.get<std::string>());
      } catch (const expr::ExpressionError& e) {
        fail(path, fmt::format("invalid restriction: {}", e.what()));
      }
      problem.constraints.push_back(j.get<std::string>());
    };
    if (r->is_array()) {
      for (std::size_t i = 0; i < r->size(); ++i) add((*r)[i], fmt::format("restrictions[{}]", i));
    } else {
      add(*r, "restrictions");
    }
  }

  try {
    problem.validate();
  } catch (const ProblemError& e) {
    fail("tune_params", e.what());
  }
  return problem;
}

Problem problem_from_cache_file(const std::string& path) {
  const ScannedDocument scanned = parse_skipping_cache(read_file_text(path), path);
  return problem_from_cache_json(scanned.document, path, scanned.tune_params_order);
}

}  // namespace ktune::io
