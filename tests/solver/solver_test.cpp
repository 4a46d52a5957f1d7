// The solver on small hand-checked problems: splitting, specialised forms, Python semantics, errors, groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "ktune/expr/errors.hpp"
#include "ktune/search_space.hpp"
#include "ktune/solver/brute_force.hpp"
#include "packed_rows_from_environment.hpp"

using ktune::Problem;
using ktune::ProblemBuilder;
using ktune::SearchSpace;
using ktune::Value;

namespace {

void expect_matches_brute_force(const Problem& p) {
  const auto space = SearchSpace::build(p);
  const auto check = ktune::verify_brute_force(space);
  EXPECT_TRUE(check.ok) << check.message;
}

TEST(Solver, KernelTunerSimpleSpaceHasSixConfigurations) {
  // Kernel Tuner's test_searchspace.py fixture.
  const auto p = ProblemBuilder("simple")
                     .parameter("x", {1, 1.5, 2, 3})
                     .parameter("y", {4, 5.5})
                     .parameter("z", {"string_1", "string_2"})
                     .constraint("y % x == 1")
                     .build();
  const auto space = SearchSpace::build(p);
  EXPECT_EQ(space.size(), 6u);
  expect_matches_brute_force(p);
}

TEST(Solver, KernelTunerSumSpaceHas10660Configurations) {
  // gpu1..gpu4 in range(42), ExactSum 42 and min >= 1 (Kernel Tuner's "big space" fixture).
  std::vector<Value> r;
  for (int i = 0; i < 42; ++i) r.emplace_back(i);
  const auto p = ProblemBuilder("sum")
                     .parameter("gpu1", r)
                     .parameter("gpu2", r)
                     .parameter("gpu3", r)
                     .parameter("gpu4", r)
                     .constraint("gpu1 + gpu2 + gpu3 + gpu4 == 42")
                     .constraint("min(gpu1, gpu2, gpu3, gpu4) >= 1")
                     .build();
  const auto space = SearchSpace::build(p);
  EXPECT_EQ(space.size(), 10660u);
}

TEST(Solver, SplitsConjunctionsAndChainsIntoSmallestConstraints) {
  const auto p = ProblemBuilder("split")
                     .parameter("a", {1, 2, 4, 8, 16, 32})
                     .parameter("b", {1, 2, 4, 8, 16, 32})
                     .parameter("c", {0, 1})
                     .constraint("4 <= a*b <= 64 and (c == 0 or a % b == 0)")
                     .max_threads(std::nullopt)
                     .build();
  const auto space = SearchSpace::build(p);
  const auto& r = space.report();
  ASSERT_EQ(r.constraints.size(), 3u);
  EXPECT_EQ(r.constraint_kinds[0], "min-product");
  EXPECT_EQ(r.constraint_kinds[1], "max-product");
  EXPECT_EQ(r.constraint_kinds[2], "general");
  expect_matches_brute_force(p);
}

TEST(Solver, RecognisesSpecialisedForms) {
  const auto p = ProblemBuilder("forms")
                     .parameter("a", {1, 2, 3, 4})
                     .parameter("b", {1, 2, 3, 4})
                     .parameter("c", {1, 2, 3, 4})
                     .constraint("a % b == 0")
                     .constraint("a + b + c <= 9")
                     .constraint("a != c")
                     .constraint("b <= c")
                     .constraint("a >= 2")
                     .constraint("a * c == 4")
                     .max_threads(std::nullopt)
                     .build();
  const auto space = SearchSpace::build(p);
  const std::vector<std::string> kinds = {"divisibility", "max-sum", "inequality", "ordering", "unary", "exact-product"};
  EXPECT_EQ(space.report().constraint_kinds, kinds);
  expect_matches_brute_force(p);
}

TEST(Solver, ImplicitBlockSizeConstraintIsAddedAndCanBeSwitchedOff) {
  auto b = ProblemBuilder("blocks")
               .parameter("block_size_x", {256, 512, 1024})
               .parameter("block_size_y", {1, 2, 4});
  const auto with = SearchSpace::build(b.build());
  EXPECT_EQ(with.report().implicit_constraint, "block_size_x * block_size_y <= 1024");
  EXPECT_EQ(with.size(), 6u);  // 256*{1,2,4}, 512*{1,2}, 1024*1
  const auto without = SearchSpace::build(b.max_threads(std::nullopt).build());
  EXPECT_EQ(without.report().implicit_constraint, "");
  EXPECT_EQ(without.size(), 9u);
}

TEST(Solver, DivisionByZeroMakesConfigurationsInvalidAndIsCounted) {
  const auto p = ProblemBuilder("zero")
                     .parameter("a", {0, 1, 2, 3})
                     .parameter("b", {0, 1, 2})
                     .constraint("(a + 1) % b == 0")
                     .constraint("10 / a > 2")
                     .build();
  const auto space = SearchSpace::build(p);
  EXPECT_GT(space.report().evaluation_errors, 0u);
  EXPECT_FALSE(space.report().evaluation_error_messages.empty());
  for (std::size_t i = 0; i < space.size(); ++i) {
    EXPECT_NE(space.values_at(i)[0].as_int(), 0);
    EXPECT_NE(space.values_at(i)[1].as_int(), 0);
  }
  expect_matches_brute_force(p);
}

TEST(Solver, GuardedDivisionIsNotAnError) {
  const auto p = ProblemBuilder("guard")
                     .parameter("a", {0, 1, 2, 3, 4})
                     .parameter("b", {0, 1, 2})
                     .constraint("b == 0 or a % b == 0")
                     .build();
  const auto space = SearchSpace::build(p);
  EXPECT_EQ(space.report().evaluation_errors, 0u);
  EXPECT_EQ(space.size(), 5u + 5u + 3u);
  expect_matches_brute_force(p);
}

TEST(Solver, ConstantsAreSubstituted) {
  const auto p = ProblemBuilder("consts")
                     .parameter("a", {1, 2, 4, 8, 16})
                     .parameter("b", {1, 2, 4, 8, 16})
                     .constant("limit", 32)
                     .constraint("a * b <= limit")
                     .build();
  const auto space = SearchSpace::build(p);
  EXPECT_EQ(space.report().constraints.at(0), "a * b <= 32");
  expect_matches_brute_force(p);
}

TEST(Solver, IndependentGroupsAreSolvedSeparatelyAndCombined) {
  const auto p = ProblemBuilder("groups")
                     .parameter("a", {1, 2, 3, 4, 5})
                     .parameter("x", {"p", "q", "r"})
                     .parameter("b", {1, 2, 3, 4, 5})
                     .parameter("y", {"p", "q", "r"})
                     .parameter("free", {0.5, 1.5})
                     .constraint("a < b")
                     .constraint("x != y")
                     .build();
  const auto space = SearchSpace::build(p);
  EXPECT_EQ(space.report().independent_groups, 3u);
  EXPECT_EQ(space.size(), 10u * 6u * 2u);
  expect_matches_brute_force(p);
}

TEST(Solver, ConfigurationsAreSortedLexicographicallyUnderTheReportedOrder) {
  const auto p = ProblemBuilder("order")
                     .parameter("a", {1, 2, 3, 4, 5, 6})
                     .parameter("b", {1, 2, 3})
                     .parameter("c", {"u", "v"})
                     .parameter("d", {7})
                     .constraint("a % b == 0 or c == 'u'")
                     .build();
  const auto space = SearchSpace::build(p);
  const auto& order = space.lex_order();
  ASSERT_EQ(order.size(), 4u);
  for (std::size_t i = 1; i < space.size(); ++i) {
    std::vector<std::uint32_t> prev, cur;
    for (auto q : order) {
      prev.push_back(space.value_index(i - 1, q));
      cur.push_back(space.value_index(i, q));
    }
    ASSERT_LT(prev, cur) << i;
  }
}

TEST(Solver, FalseConstantConstraintGivesEmptySpace) {
  const auto p = ProblemBuilder("empty").parameter("a", {1, 2}).constraint("1 > 2").build();
  EXPECT_EQ(SearchSpace::build(p).size(), 0u);
  const auto q = ProblemBuilder("empty2").parameter("a", {1, 2}).parameter("b", {1, 2}).constraint("a + b > 10").build();
  EXPECT_EQ(SearchSpace::build(q).size(), 0u);
}

TEST(Solver, UnknownNameIsAnErrorNamingTheConstraint) {
  const auto p = ProblemBuilder("typo").parameter("block_size_x", {1, 2}).constraint("blok_size_x > 1").build();
  try {
    SearchSpace::build(p);
    FAIL() << "expected an ExpressionError";
  } catch (const ktune::expr::ExpressionError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("constraint 1"), std::string::npos) << what;
    EXPECT_NE(what.find("blok_size_x"), std::string::npos) << what;
    EXPECT_NE(what.find('^'), std::string::npos) << what;
    EXPECT_EQ(e.column(), 0);
  }
}

TEST(Solver, TypeMismatchIsAnError) {
  const auto p = ProblemBuilder("types").parameter("s", {"a", "b"}).parameter("n", {1, 2}).constraint("s - n > 0").build();
  EXPECT_THROW(SearchSpace::build(p), ktune::expr::ExpressionError);
}

TEST(Solver, MixedTypesFollowPythonEquality) {
  const auto p = ProblemBuilder("mixed")
                     .parameter("m", {1, 2.0, "two", false})
                     .parameter("n", {2, 1})
                     .constraint("m == n or m == 'two'")
                     .max_threads(std::nullopt)
                     .build();
  const auto space = SearchSpace::build(p);
  // 1==1, 2.0==2, False matches nothing, 'two' with both n.
  EXPECT_EQ(space.size(), 4u);
  expect_matches_brute_force(p);
}

TEST(Solver, LargeCartesianProductWithFewSolutionsIsFast) {
  // 40^6 = 4.1e9 combinations, pruned by bounds on the sum.
  std::vector<Value> r;
  for (int i = 0; i < 40; ++i) r.emplace_back(i);
  auto b = ProblemBuilder("huge");
  for (const char* n : {"a", "b", "c", "d", "e", "f"}) b.parameter(n, r);
  const auto space = SearchSpace::build(b.constraint("a + b + c + d + e + f <= 5").build());
  EXPECT_EQ(space.size(), 462u);  // C(5+6, 6)
}

// A component whose product reaches the packing threshold is solved into packed rows; with few valid ones they end
// plain (as a small space is held), on one thread and on two, and equal to a build that never packs.
TEST(Solver, FewRowsOfAProductLargeEnoughToPackEndPlain) {
  std::vector<Value> r;
  for (int i = 1; i <= 16; ++i) r.emplace_back(i);
  auto b = ProblemBuilder("product");
  for (const char* n : {"a", "b", "c", "d", "e", "f"}) b.parameter(n, r);  // 16^6 = 2^24 combinations
  const Problem problem = b.constraint("a * b * c * d * e * f <= 300").build();
  const SearchSpace reference = [&] {
    const ktune::testing::PackedRowsFrom never(std::numeric_limits<std::size_t>::max());
    return SearchSpace::build(problem);
  }();
  ASSERT_GT(reference.size(), 1000u);
  ASSERT_LT(reference.size(), std::size_t{1} << 20);
  const ktune::testing::PackedRowsFrom from(std::size_t{1} << 20);
  for (unsigned threads : {1u, 2u}) {
    const SearchSpace space = SearchSpace::build(problem, {.threads = threads});
    EXPECT_FALSE(space.listed()->is_packed()) << threads;
    ASSERT_EQ(space.size(), reference.size());
    for (std::size_t i = 0; i < space.size(); ++i) ASSERT_EQ(space.config_at(i), reference.config_at(i)) << i;
  }
}

}  // namespace

// The construction paper's measure: how many times a constraint was checked on an assignment. Fewer than brute force
// would make (every Cartesian configuration, every constraint), the same at the same thread count, and the helper
// threads' checks included (split over two threads the work is about that of one, not half of it).
TEST(Solver, CountsConstraintEvaluationsOnEveryThread) {
  std::vector<Value> r;
  for (int i = 1; i <= 64; ++i) r.emplace_back(i);
  const auto p = ProblemBuilder("count")
                     .parameter("a", r)
                     .parameter("b", r)
                     .parameter("c", r)
                     .constraint("a * b <= 512")
                     .constraint("(a + b + c) % 3 == 0")
                     .max_threads(std::nullopt)
                     .build();
  ktune::BuildOptions one, two;
  one.threads = 1;
  two.threads = 2;
  const auto single = SearchSpace::build(p, one).report().constraint_evaluations;
  EXPECT_EQ(SearchSpace::build(p, one).report().constraint_evaluations, single);
  const auto split = SearchSpace::build(p, two).report().constraint_evaluations;
  EXPECT_EQ(SearchSpace::build(p, two).report().constraint_evaluations, split);
  const std::uint64_t brute_force = 64ull * 64 * 64 * 2;
  EXPECT_GT(single, SearchSpace::build(p, one).size());  // every valid configuration passed the modulo check
  EXPECT_LT(single, brute_force);
  EXPECT_GT(split * 10, single * 9);
  EXPECT_LT(split * 10, single * 11);
  // A space read from a list of configurations (a cache) checks nothing.
  EXPECT_EQ(SearchSpace::from_configs(p, {{0, 0, 0}}).report().constraint_evaluations, 0u);
}
