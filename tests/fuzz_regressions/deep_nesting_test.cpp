// Inputs too large for the fuzzer's default input length (a few kilobytes): deeply nested JSON and expressions, fed
// through the same fuzz entry points. Recursion over such input must end in a clear error, not a stack overflow.
#include <string>

#include <gtest/gtest.h>

#include "fuzz_entries.hpp"
#include "io/lenient_json.hpp"
#include "ktune/expr/errors.hpp"
#include "ktune/expr/parser.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/t4_results.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/t1_reader.hpp"
#include "ktune/problem.hpp"
#include "ktune/live/kernel_specification.hpp"

namespace {

constexpr std::size_t kDepth = 200000;  // far deeper than any recursion on the default 8 MiB stack survives

int run(int (*entry)(const std::uint8_t*, std::size_t), const std::string& input) {
  return entry(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// A T1 file whose `field` (inside the first tuning parameter, or KernelSpecification) holds `value`.
std::string t1_with(const std::string& where, const std::string& value) {
  if (where == "Values")
    return R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Type": "int", "Values": )" + value + "}]}}";
  return R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Type": "int", "Values": "[1]"}]},
             "KernelSpecification": {"Language": "C", "KernelName": "k", "KernelFile": "k.c", "ProblemSize": [1],
             ")" + where + R"(": )" + value + "}}";
}

const std::string kDeepArray = repeat("[", kDepth) + repeat("]", kDepth);
const std::string kDeepObject = repeat(R"({"a": )", kDepth) + "1" + repeat("}", kDepth);

TEST(DeepNesting, T1Values) {
  EXPECT_EQ(run(ktune_fuzz_t1, t1_with("Values", kDeepArray)), 0);
  EXPECT_EQ(run(ktune_fuzz_t1, t1_with("Values", "[" + kDeepObject + "]")), 0);
}

TEST(DeepNesting, T1KernelSpecification) {
  for (const char* field : {"Defines", "Metrics", "ReferenceConfiguration", "Arguments", "Objectives", "Tolerance"}) {
    SCOPED_TRACE(field);
    EXPECT_EQ(run(ktune_fuzz_t1, t1_with(field, kDeepArray)), 0);
    EXPECT_EQ(run(ktune_fuzz_t1, t1_with(field, kDeepObject)), 0);
    EXPECT_EQ(run(ktune_fuzz_t1, t1_with(field, R"({"x": )" + kDeepArray + "}")), 0);
  }
}

TEST(DeepNesting, KernelTunerCache) {
  const std::string header = R"({"tune_params_keys": ["x"], "tune_params": {"x": [1]}, )";
  EXPECT_EQ(run(ktune_fuzz_kernel_tuner_cache, header + R"("problem_size": )" + kDeepArray + "}"), 0);
  EXPECT_EQ(run(ktune_fuzz_kernel_tuner_cache, header + R"("objective": )" + kDeepObject + "}"), 0);
  EXPECT_EQ(run(ktune_fuzz_kernel_tuner_cache, R"({"tune_params": {"x": [)" + kDeepArray + "]}}"), 0);
  EXPECT_EQ(run(ktune_fuzz_kernel_tuner_cache, header + R"("cache": {"1": {"x": 1, "y": )" + kDeepArray + "}}}"), 0);
  EXPECT_EQ(run(ktune_fuzz_kernel_tuner_cache, header + R"("cache": )" + kDeepObject + "}"), 0);
}

TEST(DeepNesting, T4Results) {
  const std::string result = R"({"metadata": {}, "results": [{"configuration": {"x": 1}, "times": {}, "invalidity": "correct", )";
  EXPECT_EQ(run(ktune_fuzz_t4_results, R"({"metadata": )" + kDeepObject + R"(, "results": []})"), 0);
  EXPECT_EQ(run(ktune_fuzz_t4_results, result + R"("measurements": [{"name": "a", "value": )" + kDeepArray + "}]}]}"), 0);
  EXPECT_EQ(run(ktune_fuzz_t4_results, result + R"("extra": )" + kDeepObject + "}]}"), 0);
}

TEST(DeepNesting, LenientJson) {
  EXPECT_EQ(run(ktune_fuzz_lenient_json, kDeepArray), 0);
  EXPECT_EQ(run(ktune_fuzz_lenient_json, kDeepObject), 0);
}

// The error itself: every JSON reader refuses nesting beyond kMaxJsonDepth with an InputError that names the file and
// the byte, line and column where the too-deep level opens (`byte` is 0-based; messages count from 1).
template <class Read>
void expect_too_deep(Read&& read, const std::string& source, std::size_t byte) {
  ++byte;
  try {
    read();
    ADD_FAILURE() << "no error for " << source;
  } catch (const ktune::io::InputError& e) {
    EXPECT_EQ(e.file(), source);
    EXPECT_NE(std::string(e.what()).find("at byte " + std::to_string(byte) + " "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nesting deeper than 512 levels"), std::string::npos) << e.what();
  }
}

TEST(DeepNesting, ReadersNameFileAndPosition) {
  using namespace ktune::io;
  static_assert(kMaxJsonDepth == 512);
  // The top-level value is level 1; the error points at the bracket that opens level 513.
  const std::string at_limit = repeat("[", 512) + repeat("]", 512), over = repeat("[", 513) + repeat("]", 513);
  EXPECT_NO_THROW((void)parse_json_text(at_limit, "a.json"));
  expect_too_deep([&] { (void)parse_json_text(over, "a.json"); }, "a.json", 512);
  EXPECT_NO_THROW((void)LenientJsonReader(at_limit, "a.json").read_json());
  expect_too_deep([&] { (void)LenientJsonReader(over, "a.json").read_json(); }, "a.json", 512);
  expect_too_deep([&] { LenientJsonReader(over, "a.json").skip_value(); }, "a.json", 512);
  const std::string t1 = t1_with("Values", kDeepArray);  // the array opens level 5
  expect_too_deep([&] { (void)parse_json_text(t1, "t1.json"); }, "t1.json", t1.find("[[") + 508);
  ktune::Problem problem;
  problem.parameters = {{"x", {ktune::Value(1)}}};
  const std::string spec = t1_with("Defines", R"({"x": )" + kDeepArray + "}");  // level 4
  expect_too_deep([&] { (void)ktune::live::parse_t1_kernel_specification(spec, "spec.json", problem); }, "spec.json",
                  spec.find("[[") + 509);
  // A cache file, read for its problem (nlohmann, with the entries cut out first: the position maps back past them)
  // and for its results (the lenient reader).
  const std::string cache = R"({"tune_params": {"x": [1]}, "cache": {"1": {"x": 1, "time": 1}}, "problem_size": )" +
                            kDeepArray + "}";  // level 2
  expect_too_deep([&] { (void)parse_skipping_cache(cache, "c.json"); }, "c.json", cache.find("[[") + 511);
  expect_too_deep([&] { (void)parse_kernel_tuner_cache(cache, "c.json"); }, "c.json", cache.find("[[") + 511);
  const std::string entry = R"({"tune_params_keys": ["x"], "tune_params": {"x": [1]}, "cache": {"1": {"x": 1, "y": )" +
                            kDeepArray + "}}}";  // level 4
  expect_too_deep([&] { (void)parse_kernel_tuner_cache(entry, "c.json"); }, "c.json", entry.find("[[") + 509);
  const std::string t4 = R"({"metadata": )" + kDeepObject + R"(, "results": []})";  // level 2, 6 bytes a level
  expect_too_deep([&] { (void)parse_t4_results(t4, "r.json"); }, "r.json", t4.find('{', 1) + 511 * 6);
}

TEST(DeepNesting, Expressions) {
  for (const std::string& e : {repeat("(", kDepth) + "1" + repeat(")", kDepth), repeat("[", kDepth) + repeat("]", kDepth),
                               repeat("-", kDepth) + "1", repeat("not ", kDepth) + "1", "1" + repeat(" ** 1", kDepth),
                               repeat("abs(", kDepth) + "1" + repeat(")", kDepth), repeat("1 if 1 else ", kDepth) + "1"}) {
    SCOPED_TRACE(e.substr(0, 20));
    EXPECT_EQ(run(ktune_fuzz_expression, e), 0);
    EXPECT_EQ(run(ktune_fuzz_solver, e), 0);
  }
}

// The error itself: the parser refuses nesting beyond its limit (150 levels of its grammar; a parenthesis or bracket
// takes two, a unary operator one) with an ExpressionError at the token that opens the level too many (0-based
// column; the message shows it from 1), however the nesting is built.
TEST(DeepNesting, ExpressionErrorNamesColumn) {
  struct Case {
    std::string source;
    int column;
  };
  for (const Case& c : {Case{repeat("(", 200) + "1" + repeat(")", 200), 75}, Case{repeat("[", 200) + repeat("]", 200), 75},
                        Case{repeat("-", 200) + "1", 149}, Case{repeat("not ", 200) + "1", 596},
                        Case{repeat("abs(", 200) + "1" + repeat(")", 200), 300}}) {
    SCOPED_TRACE(c.source.substr(0, 12));
    try {
      (void)ktune::expr::parse_expression(c.source);
      ADD_FAILURE() << "no error";
    } catch (const ktune::expr::ExpressionError& e) {
      EXPECT_EQ(e.column(), c.column);
      EXPECT_NE(std::string(e.what()).find("expression nested too deeply (column " + std::to_string(c.column + 1) + ")"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW((void)ktune::expr::parse_expression(repeat("(", 70) + "1" + repeat(")", 70)));
  EXPECT_NO_THROW((void)ktune::expr::parse_expression(repeat("-", 140) + "1"));
}

// Long but flat input: linear work, no recursion (a chain of 100000 additions or comparisons).
TEST(DeepNesting, LongFlatExpressions) {
  for (const std::string& e : {"1" + repeat(" + 1", 100000), "1" + repeat(" < 2", 100000), "1" + repeat(" and 1", 100000),
                               "[" + repeat("1, ", 100000) + "1]"}) {
    SCOPED_TRACE(e.substr(0, 20));
    EXPECT_EQ(run(ktune_fuzz_expression, e), 0);
  }
}

}  // namespace
