#pragma once
// Range checks for the numeric options of every verb, on the text as given: "-5" for a count is refused rather than
// wrapped to 18446744073709551611, and the message is one short line ("--max-fevals: -5 is below 1"), not a range
// of twenty-digit numbers. Upper bounds keep sizes below what would exhaust memory.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "ktune/repetition.hpp"

namespace ktune::cli {

// A whole number in [min, max].
inline CLI::Validator whole_number(std::int64_t min, std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  const std::string range = max == std::numeric_limits<std::uint64_t>::max() ? fmt::format("≥ {}", min)
                                                                              : fmt::format("{}..{}", min, max);
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const char* first = text.data();
        const char* last = first + text.size();
        if (first != last && *first == '+') ++first;
        if (first != last && *first == '-') {
          std::int64_t v = 0;
          const auto [end, error] = std::from_chars(first, last, v);
          if (error != std::errc() || end != last) return fmt::format("'{}' is not a whole number", text);
          if (v < min) return fmt::format("{} is below {}", text, min);
          return "";
        }
        std::uint64_t v = 0;
        const auto [end, error] = std::from_chars(first, last, v);
        if (error == std::errc::result_out_of_range) return fmt::format("{} is above {}", text, max);
        if (error != std::errc() || end != last || first == last) return fmt::format("'{}' is not a whole number", text);
        if (min > 0 && v < static_cast<std::uint64_t>(min)) return fmt::format("{} is below {}", text, min);
        if (v > max) return fmt::format("{} is above {}", text, max);
        return "";
      },
      range, "whole_number");
}

// A finite number in (min, max] when `open_min`, else [min, max].
inline CLI::Validator real_number(double min, double max, bool open_min) {
  std::string range = fmt::format("{}{}..{}]", open_min ? "(" : "[", min, max);
  if (std::isinf(max)) range = fmt::format("{} {}", open_min ? ">" : "≥", min);
  return CLI::Validator(
      [min, max, open_min](std::string& text) -> std::string {
        double v = 0;
        const char* first = text.data();
        const char* last = first + text.size();
        if (first != last && *first == '+') ++first;
        const auto [end, error] = std::from_chars(first, last, v);
        if (error != std::errc() || end != last || first == last || !std::isfinite(v))
          return fmt::format("'{}' is not a finite number", text);
        if (open_min ? !(v > min) : !(v >= min))
          return fmt::format("{} must be {} {}", text, open_min ? "above" : "at least", min);
        if (v > max) return fmt::format("{} is above {}", text, max);
        return "";
      },
      range, "real_number");
}

// --iterations: a number of fixed runs (1..1000000), or auto[:settings] (ktune/repetition.hpp).
inline CLI::Validator repetition_text() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          const auto policy = RepetitionPolicy::parse(text);
          return !policy.adaptive && policy.runs > 1'000'000 ? "at most 1000000 runs" : "";
        } catch (const std::invalid_argument& e) {
          const std::string why = e.what();  // "iterations: ...", and CLI11 names the option already
          return why.rfind("iterations: ", 0) == 0 ? why.substr(12) : why;
        }
      },
      "N|auto", "repetition");
}

// Seeds: any 64-bit unsigned number.
inline CLI::Validator seed_number() { return whole_number(0); }
// Thread counts: 0 means every core, in every verb.
inline CLI::Validator thread_count() { return whole_number(0, 4096); }
// Counts whose size becomes memory (repeats, time points, evaluations of a multi-objective run).
inline constexpr std::uint64_t kLargeCount = 10'000'000;

}  // namespace ktune::cli
