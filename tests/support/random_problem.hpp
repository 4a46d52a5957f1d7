#pragma once
// Random small tuning problems with constraints drawn from the whole constraint grammar, for property tests.
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "ktune/problem.hpp"
#include "ktune/rng.hpp"

namespace ktune::testing {

class RandomProblemGenerator {
 public:
  // Huge: integer values and literals near and beyond 2^53 and 2^63 as well (exactness and overflow).
  enum class Numbers { Small, Huge };
  explicit RandomProblemGenerator(std::uint64_t seed, Numbers numbers = Numbers::Small)
      : rng_(seed), huge_(numbers == Numbers::Huge) {}

  Problem next() {
    Problem p;
    p.name = "random";
    p.max_threads = std::nullopt;
    const std::size_t d = 2 + rng_.below(5);  // 2..6 parameters
    kinds_.clear();
    for (std::size_t i = 0; i < d; ++i) {
      Parameter param;
      param.name = std::string("p") + std::to_string(i);
      const auto kind = static_cast<Kind>(rng_.below(10) < 5 ? 0 : rng_.below(5));
      kinds_.push_back(kind);
      const std::size_t n = 1 + rng_.below(6);
      param.values = values_of(kind, n);
      p.parameters.push_back(std::move(param));
    }
    if (rng_.below(3) == 0) p.constants.emplace("K", Value(static_cast<std::int64_t>(rng_.below(7)) - 2));
    const std::size_t nc = rng_.below(4) + (d > 3 ? 1 : 0);
    for (std::size_t c = 0; c < nc; ++c) p.constraints.push_back(condition(3, p));
    return p;
  }

 private:
  enum Kind { Int = 0, Float = 1, Bool = 2, String = 3, Mixed = 4 };

  std::vector<Value> values_of(Kind kind, std::size_t n) {
    std::vector<Value> out;
    auto contains = [&](const Value& v) {
      for (const auto& o : out)
        if (python_equal(o, v)) return true;
      return false;
    };
    for (std::size_t tries = 0; out.size() < n && tries < 50; ++tries) {
      Value v;
      switch (kind) {
        case Int:
          v = huge_ && rng_.below(2) ? Value(huge_int()) : Value(static_cast<std::int64_t>(rng_.below(13)) - 4);
          break;
        case Float:
          if (huge_ && rng_.below(3) == 0) {
            static constexpr double floats[] = {4e18, 1e19, 9007199254740992.0, -1e19, 9.223372036854775807e18};
            v = Value(floats[rng_.below(std::size(floats))]);
          } else {
            v = Value(static_cast<double>(static_cast<std::int64_t>(rng_.below(17)) - 8) / 4.0);
          }
          break;
        case Bool: v = Value(rng_.below(2) == 1); break;
        case String: v = Value(std::string(1, static_cast<char>('a' + rng_.below(4)))); break;
        case Mixed:
          v = rng_.below(3) == 0 ? Value(std::string(1, static_cast<char>('a' + rng_.below(3))))
                                 : Value(static_cast<std::int64_t>(rng_.below(6)));
          break;
      }
      if (!contains(v)) out.push_back(v);
    }
    return out;
  }

  std::string pick_param(const Problem& p, bool numeric_only) {
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < kinds_.size(); ++i)
      if (!numeric_only || kinds_[i] == Int || kinds_[i] == Float || kinds_[i] == Bool) candidates.push_back(i);
    if (candidates.empty()) return std::to_string(rng_.below(5));
    return p.parameters[candidates[rng_.below(candidates.size())]].name;
  }

  // Integers around the limits of doubles (2^53) and of int64 (2^63).
  std::int64_t huge_int() {
    static constexpr std::int64_t values[] = {
        std::int64_t{1} << 31,       (std::int64_t{1} << 53) - 1, (std::int64_t{1} << 53) + 1, 5559060566555523,  // 3**33
        std::int64_t{1} << 62,       (std::int64_t{1} << 62) + 1, INT64_MAX,                   INT64_MIN,
        -(std::int64_t{1} << 62),    3037000499,  // floor(sqrt(2^63))
        3037000500};
    return values[rng_.below(std::size(values))];
  }

  std::string huge_literal() {
    static const char* literals[] = {"2**62",      "3**33",       "2**53 + 1",          "9223372036854775807",
                                     "(-9223372036854775807 - 1)", "4611686018427387905", "3037000500",
                                     "4e18",       "1e19",        "2**31",              "-(2**62)",
                                     "9007199254740993"};
    return literals[rng_.below(std::size(literals))];
  }

  std::string number_literal() {
    if (huge_ && rng_.below(3) == 0) return huge_literal();
    switch (rng_.below(4)) {
      case 0: return std::to_string(static_cast<int>(rng_.below(9)) - 2);
      case 1: return std::to_string(static_cast<int>(rng_.below(5)) + 1) + ".5";
      case 2: return "True";
      default: return std::to_string(rng_.below(4));
    }
  }

  std::string numeric(int depth, const Problem& p) {
    if (depth <= 0 || rng_.below(3) == 0) {
      const auto r = rng_.below(10);
      if (r < 6) return pick_param(p, true);
      if (r < 7 && !p.constants.empty()) return "K";
      return number_literal();
    }
    switch (rng_.below(12)) {
      case 0: return "(" + numeric(depth - 1, p) + " + " + numeric(depth - 1, p) + ")";
      case 1: return "(" + numeric(depth - 1, p) + " - " + numeric(depth - 1, p) + ")";
      case 2: return numeric(depth - 1, p) + " * " + numeric(depth - 1, p);
      case 3: return "(" + numeric(depth - 1, p) + " / " + numeric(depth - 1, p) + ")";
      case 4: return "(" + numeric(depth - 1, p) + " // " + numeric(depth - 1, p) + ")";
      case 5: return "(" + numeric(depth - 1, p) + " % " + numeric(depth - 1, p) + ")";
      case 6:
        return "(" + numeric(depth - 1, p) + " ** " + std::to_string(huge_ ? rng_.below(66) : rng_.below(3)) + ")";
      case 7: return "-" + numeric(depth - 1, p);
      case 8: {
        static const char* fns[] = {"min", "max"};
        return std::string(fns[rng_.below(2)]) + "(" + numeric(depth - 1, p) + ", " + numeric(depth - 1, p) + ")";
      }
      case 9: {
        static const char* fns[] = {"abs", "int", "float", "round"};
        return std::string(fns[rng_.below(4)]) + "(" + numeric(depth - 1, p) + ")";
      }
      case 10: return "(" + numeric(depth - 1, p) + " if " + condition(depth - 1, p) + " else " + numeric(depth - 1, p) + ")";
      default: return pick_param(p, true);
    }
  }

  std::string comparison_op() {
    static const char* ops[] = {"==", "!=", "<", "<=", ">", ">="};
    return ops[rng_.below(6)];
  }

  std::string condition(int depth, const Problem& p) {
    switch (rng_.below(depth <= 0 ? 4 : 10)) {
      case 0:
      case 1: return numeric(depth - 1, p) + " " + comparison_op() + " " + numeric(depth - 1, p);
      case 2: {  // membership
        std::string list = rng_.below(2) ? "[" : "(";
        const std::size_t n = 1 + rng_.below(3);
        for (std::size_t i = 0; i < n; ++i) list += (i ? ", " : "") + number_literal();
        list += list[0] == '[' ? "]" : (n == 1 ? ",)" : ")");
        return numeric(depth - 1, p) + (rng_.below(2) ? " in " : " not in ") + list;
      }
      case 3: {  // strings and mixed parameters
        const std::string a = p.parameters[rng_.below(p.parameters.size())].name;
        if (rng_.below(2))
          return a + (rng_.below(2) ? " == " : " != ") + "'" + std::string(1, static_cast<char>('a' + rng_.below(4))) + "'";
        return a + (rng_.below(2) ? " in " : " not in ") + "['a', 'b', 1]";
      }
      case 4: return condition(depth - 1, p) + " and " + condition(depth - 1, p);
      case 5: return "(" + condition(depth - 1, p) + " or " + condition(depth - 1, p) + ")";
      case 6: return "not (" + condition(depth - 1, p) + ")";
      case 7:  // chain
        return numeric(depth - 1, p) + " " + comparison_op() + " " + numeric(depth - 1, p) + " " + comparison_op() + " " +
               numeric(depth - 1, p);
      case 8: return "(" + condition(depth - 1, p) + " if " + condition(depth - 1, p) + " else " + condition(depth - 1, p) + ")";
      default: return pick_param(p, false) + " " + comparison_op() + " " + pick_param(p, false);
    }
  }

  Rng rng_;
  bool huge_ = false;
  std::vector<Kind> kinds_;
};

}  // namespace ktune::testing
