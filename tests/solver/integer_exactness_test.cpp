// Integers beyond what a double holds exactly (2^53) and beyond int64 (2^63): every path of the solver (the
// numeric program's point, lane and interval evaluation, the compiled expression, constant folding) must agree
// with brute force over the tree evaluator. Integers are 64-bit: a result outside int64 raises OverflowError,
// which makes that configuration invalid and is counted; a constant subexpression that always raises is an error
// when the problem is loaded.
#include <gtest/gtest.h>

#include "ktune/expr/errors.hpp"
#include "ktune/search_space.hpp"
#include "ktune/solver/brute_force.hpp"

using ktune::Problem;
using ktune::ProblemBuilder;
using ktune::SearchSpace;
using ktune::Value;

namespace {

std::vector<Value> range(std::int64_t lo, std::int64_t hi) {
  std::vector<Value> out;
  for (std::int64_t i = lo; i <= hi; ++i) out.emplace_back(i);
  return out;
}

// Solver (single- and multi-threaded) and brute force agree; returns the solver's space.
SearchSpace expect_agreement(const Problem& p) {
  auto space = SearchSpace::build(p, {.threads = 1});
  const auto check = ktune::verify_brute_force(space);
  EXPECT_TRUE(check.ok) << check.message;
  const auto threaded = SearchSpace::build(p, {.threads = 2});
  EXPECT_EQ(threaded.size(), space.size());
  EXPECT_EQ(threaded.report().evaluation_errors, space.report().evaluation_errors);
  return space;
}

TEST(IntegerExactness, ProductOverflowingInt64IsAnEvaluationErrorAsInBruteForce) {
  // Issue 19 item 3: the solver said 9 valid (doubles do not overflow), brute force 0 (OverflowError).
  const auto p = ProblemBuilder("overflow")
                     .parameter("block_size_x", {1, 2, 4, 8, 16, 32, 64, 128, 256})
                     .constraint("block_size_x * 2**62 // 2**62 == block_size_x")
                     .build();
  const auto space = expect_agreement(p);
  // 1 * 2**62 fits in int64; every larger block size overflows.
  ASSERT_EQ(space.size(), 1u);
  EXPECT_EQ(space.values_at(0)[0].as_int(), 1);
  EXPECT_EQ(space.report().evaluation_errors, 8u);
  ASSERT_EQ(space.report().evaluation_error_messages.size(), 1u);
  EXPECT_NE(space.report().evaluation_error_messages[0].find("OverflowError"), std::string::npos)
      << space.report().evaluation_error_messages[0];
}

TEST(IntegerExactness, OverflowInTwoParameterConstraintsAgreesWithBruteForce) {
  // Lane (batch) evaluation over tables, and over a third parameter too large for a table.
  expect_agreement(ProblemBuilder("lanes")
                       .parameter("a", range(0, 40))
                       .parameter("b", range(0, 40))
                       .constraint("a * 2**58 * b // 2**58 >= b")
                       .max_threads(std::nullopt)
                       .build());
  expect_agreement(ProblemBuilder("batch")
                       .parameter("a", range(1, 41))
                       .parameter("b", range(1, 41))
                       .parameter("c", range(1, 41))
                       .constraint("a * b * c * 3**30 % 7 == 1")
                       .max_threads(std::nullopt)
                       .build());
}

TEST(IntegerExactness, IntegersAboveTwoToThe53AreExact) {
  // 2 * 3**33 + 1 is odd and above 2^53: a double rounds it, Python does not.
  const auto p = ProblemBuilder("exact")
                     .parameter("a", {1, 2, 3})
                     .parameter("b", {1, 2, 3})
                     .parameter("c", {0, 1})
                     .constraint("a * 3**33 + c - b * 3**33 <= 0")
                     .max_threads(std::nullopt)
                     .build();
  const auto space = expect_agreement(p);
  // (a - b) * 3**33 + c <= 0: every a < b (3 pairs, c = 0 or 1) and a == b with c == 0. With doubles, a * 3**33 + 1
  // rounds for a = 2, 3 (beyond 2^53) and a == b, c == 1 would wrongly hold.
  EXPECT_EQ(space.size(), 3u * 2u + 3u);
  const auto q = ProblemBuilder("unary")
                     .parameter("x", range(1, 20))
                     .constraint("(x * 3**33 + 1) % 3 == 1")
                     .max_threads(std::nullopt)
                     .build();
  EXPECT_EQ(expect_agreement(q).size(), 20u);
}

TEST(IntegerExactness, IntOfAHugeFloatOverflowsAsInBruteForce) {
  const auto p = ProblemBuilder("int_of_float")
                     .parameter("x", {0.5, 1.0, 2.0, 4.0})
                     .constraint("int(x * 4e18) > 0")
                     .constraint("round(x * 4e18) > 0")
                     .max_threads(std::nullopt)
                     .build();
  const auto space = expect_agreement(p);
  EXPECT_EQ(space.size(), 3u);  // up to 8e18 fits in int64, 1.6e19 does not
  EXPECT_GT(space.report().evaluation_errors, 0u);
}

TEST(IntegerExactness, HugeParameterValuesAgreeWithBruteForce) {
  const std::int64_t big = (std::int64_t{1} << 62) + 1;  // not exactly a double
  const auto p = ProblemBuilder("huge_values")
                     .parameter("a", {Value(big), Value(big - 2), Value(std::int64_t{3})})
                     .parameter("b", {Value(std::int64_t{1}), Value(std::int64_t{2})})
                     .constraint("a + b > 4611686018427387904")
                     .constraint("a * b >= 0")
                     .max_threads(std::nullopt)
                     .build();
  const auto space = expect_agreement(p);
  EXPECT_EQ(space.size(), 2u);  // (big, 1) and (big - 2, 2); big * 2 overflows, (big - 2) + 1 == 2^62
}

TEST(IntegerExactness, ConstantOverflowIsALoadTimeError) {
  // Issue 19 items 3 and 8: `2**63 > 0` gave every configuration from the solver and none from brute force.
  const auto p = ProblemBuilder("constant").parameter("x", {1, 2}).constraint("x > 0").constraint("2**63 > 0").build();
  try {
    SearchSpace::build(p);
    FAIL() << "expected an ExpressionError";
  } catch (const ktune::expr::ExpressionError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("constraint 2"), std::string::npos) << what;
    EXPECT_NE(what.find("OverflowError"), std::string::npos) << what;
    EXPECT_EQ(e.column(), 1) << what;  // under '**'
  }
}

}  // namespace
