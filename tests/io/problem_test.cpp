#include "ktune/problem.hpp"

#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_files.hpp"

namespace ktune {
namespace {

using ktune::testing::error_of;

Problem two_params() {
  Problem p;
  p.name = "t";
  p.parameters = {{"block_size_x", {16, 32}}, {"tile", {1, 2, 3}}};
  return p;
}

TEST(Problem, ValidProblemPasses) {
  EXPECT_NO_THROW(two_params().validate());
}

TEST(Problem, NoParameters) {
  Problem p;
  p.name = "empty";
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "no parameters");
}

TEST(Problem, EmptyValueList) {
  Problem p = two_params();
  p.parameters.push_back({"x", {}});
  EXPECT_EQ(error_of<ProblemError>([&] { p.validate(); }), "parameter 'x' has an empty value list");
}

TEST(Problem, DuplicateParameter) {
  Problem p = two_params();
  p.parameters.push_back({"tile", {4}});
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "duplicate parameter 'tile'");
}

TEST(Problem, DuplicateValues) {
  Problem p = two_params();
  p.parameters.push_back({"x", {1, 2, 1}});
  EXPECT_EQ(error_of<ProblemError>([&] { p.validate(); }), "parameter 'x' has duplicate value 1 (positions 1 and 3)");
  p.parameters.back() = {"x", {0.5, 1.5, 0.5}};
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "parameter 'x' has duplicate value 0.5");
  p.parameters.back() = {"x", {"a", "b", "a"}};
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "duplicate value 'a'");
  p.parameters.back() = {"x", {true, false, true}};
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "duplicate value True");
  // Python-equal values of different types stay apart, as in Kernel Tuner's test_mixed = ["test", 1, True, 2.45].
  p.parameters.back() = {"x", {"test", 1, true, 2.45, 1.0, "1"}};
  EXPECT_NO_THROW(p.validate());
}

TEST(Problem, DuplicateDetectionKeepsLargeIntegersApart) {
  // 2^53 and 2^53 + 1 share a double but are different Python ints.
  const std::int64_t big = std::int64_t{1} << 53;
  Problem p = two_params();
  p.parameters.push_back({"x", {big, big + 1}});
  EXPECT_NO_THROW(p.validate());
  p.parameters.back().values.emplace_back(big);
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "duplicate value");
}

TEST(Problem, NameClashWithConstant) {
  Problem p = two_params();
  p.constants.emplace("tile", Value(4));
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "'tile' is both a parameter and a constant");
}

TEST(Problem, NamesMustBeIdentifiers) {
  for (const char* bad : {"1x", "block size", "", "a-b", "x.y", "lambda", "not", "None"}) {
    Problem p = two_params();
    p.parameters.push_back({bad, {1}});
    EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), std::string("'") + bad + "'") << bad;
  }
  Problem p = two_params();
  p.constants.emplace("2n", Value(4));
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "constant name '2n'");
}

TEST(Problem, ListAndNoneValuesRejected) {
  Problem p = two_params();
  p.parameters.push_back({"x", {Value(), 1}});
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "parameter 'x'");
  p.parameters.back() = {"x", {Value(Value::List{1, 2})}};
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "parameter 'x'");
  p.parameters.back() = {"x", {std::numeric_limits<double>::quiet_NaN()}};
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "not a finite number");
}

TEST(Problem, EmptyConstraintAndBadMaxThreads) {
  Problem p = two_params();
  p.constraints = {"tile > 1", "  "};
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "constraint 2 is empty");
  p.constraints.clear();
  p.max_threads = 0;
  EXPECT_CONTAINS(error_of<ProblemError>([&] { p.validate(); }), "max_threads");
}

TEST(Problem, ImplicitConstraintOverPresentBlockSizes) {
  Problem p;
  p.parameters = {{"block_size_y", {1, 2}}, {"tile", {1}}, {"block_size_x", {32, 64}}};
  // block_size_names order, not parameter order.
  EXPECT_EQ(p.implicit_constraint(), "block_size_x * block_size_y <= 1024");
  p.parameters.push_back({"block_size_z", {1}});
  p.max_threads = 512;
  EXPECT_EQ(p.implicit_constraint(), "block_size_x * block_size_y * block_size_z <= 512");
  p.constraints = {"tile <= 4"};
  EXPECT_EQ(p.all_constraints(), (std::vector<std::string>{"tile <= 4", "block_size_x * block_size_y * block_size_z <= 512"}));
  p.max_threads = std::nullopt;
  EXPECT_EQ(p.implicit_constraint(), "");
  EXPECT_EQ(p.all_constraints(), std::vector<std::string>{"tile <= 4"});

  Problem only_x;
  only_x.parameters = {{"block_size_x", {1}}};
  EXPECT_EQ(only_x.implicit_constraint(), "block_size_x <= 1024");
  Problem none;
  none.parameters = {{"tile", {1}}};
  EXPECT_EQ(none.implicit_constraint(), "");
  Problem custom;
  custom.parameters = {{"BLOCK_SIZE_X", {1}}, {"BLOCK_SIZE_Y", {1}}};
  custom.block_size_names = {"BLOCK_SIZE_X", "BLOCK_SIZE_Y"};
  EXPECT_EQ(custom.implicit_constraint(), "BLOCK_SIZE_X * BLOCK_SIZE_Y <= 1024");
}

TEST(Problem, CartesianSizeSaturates) {
  EXPECT_EQ(two_params().cartesian_size(), 6u);
  Problem p;
  std::vector<Value> values;
  for (int i = 0; i < 1000; ++i) values.emplace_back(i);
  for (int k = 0; k < 7; ++k) p.parameters.push_back({"p" + std::to_string(k), values});
  EXPECT_EQ(p.cartesian_size(), std::numeric_limits<std::uint64_t>::max());
}

TEST(Problem, ParameterIndex) {
  const Problem p = two_params();
  EXPECT_EQ(p.parameter_index("tile"), std::optional<std::size_t>(1));
  EXPECT_EQ(p.parameter_index("block_size_x"), std::optional<std::size_t>(0));
  EXPECT_EQ(p.parameter_index("nope"), std::nullopt);
}

void expect_same_problem(const Problem& a, const Problem& b) {
  EXPECT_EQ(a.name, b.name);
  ASSERT_EQ(a.parameters.size(), b.parameters.size());
  for (std::size_t i = 0; i < a.parameters.size(); ++i) {
    EXPECT_EQ(a.parameters[i].name, b.parameters[i].name);
    ASSERT_EQ(a.parameters[i].values.size(), b.parameters[i].values.size());
    for (std::size_t k = 0; k < a.parameters[i].values.size(); ++k)
      EXPECT_TRUE(same_value(a.parameters[i].values[k], b.parameters[i].values[k]))
          << a.parameters[i].name << "[" << k << "]: " << a.parameters[i].values[k].repr() << " vs "
          << b.parameters[i].values[k].repr();
  }
  EXPECT_EQ(a.constraints, b.constraints);
  ASSERT_EQ(a.constants.size(), b.constants.size());
  for (const auto& [name, value] : a.constants) {
    ASSERT_TRUE(b.constants.contains(name)) << name;
    EXPECT_TRUE(same_value(value, b.constants.at(name))) << name;
  }
  EXPECT_EQ(a.max_threads, b.max_threads);
  EXPECT_EQ(a.block_size_names, b.block_size_names);
}

TEST(Problem, JsonRoundTripKeepsTypes) {
  const Problem original = ProblemBuilder("round trip")
                               .parameter("block_size_x", {16, 32, 64})
                               .parameter("ratio", {0.5, 1.0, 2.0})  // 1.0 must stay a float
                               .parameter("flag", {false, true})
                               .parameter("alg", {"naive", "tiled"})
                               .parameter("mixed", {1, 2.5, "x"})
                               .constraint("block_size_x * ratio <= 64")
                               .constraint("alg != 'naive' or flag")
                               .constant("N", 4096)
                               .constant("eps", 1e-5)
                               .constant("allowed", Value(Value::List{1, 2}))
                               .max_threads(512)
                               .build();
  const nlohmann::json j = original.to_json();
  EXPECT_EQ(j["name"], "round trip");
  EXPECT_EQ(j["parameters"][1]["values"].dump(), "[0.5,1.0,2.0]");
  EXPECT_EQ(j["max_threads"], 512);
  EXPECT_EQ(j["constants"]["N"], 4096);
  expect_same_problem(original, Problem::from_json(j));
  // Through text as well.
  expect_same_problem(original, Problem::from_json(nlohmann::json::parse(j.dump())));

  Problem no_limit = original;
  no_limit.max_threads = std::nullopt;
  const nlohmann::json j2 = no_limit.to_json();
  EXPECT_TRUE(j2["max_threads"].is_null());
  expect_same_problem(no_limit, Problem::from_json(j2));
}

TEST(Problem, FromJsonDefaultsAndErrors) {
  const Problem minimal = Problem::from_json(nlohmann::json::parse(R"({"parameters": [{"name": "x", "values": [1, 2]}]})"));
  EXPECT_EQ(minimal.max_threads, std::optional<std::int64_t>(1024));
  EXPECT_TRUE(minimal.constraints.empty());
  EXPECT_TRUE(minimal.parameters[0].values[0].is_int());

  const auto error = [](const char* text) {
    return error_of<ProblemError>([&] { Problem::from_json(nlohmann::json::parse(text)); });
  };
  EXPECT_CONTAINS(error(R"({"name": "x"})"), "missing key 'parameters'");
  EXPECT_CONTAINS(error(R"({"parameters": [{"name": "x", "values": [1, [2]]}]})"), "parameter 'x'");
  EXPECT_CONTAINS(error(R"({"parameters": [{"name": "x", "values": [1, {"a": 2}]}]})"), "parameters[0].values[1]");
  EXPECT_CONTAINS(error(R"({"parameters": [{"name": "x", "values": 3}]})"), "parameters[0].values");
  EXPECT_CONTAINS(error(R"({"parameters": [{"values": [1]}]})"), "missing key 'name'");
  EXPECT_CONTAINS(error(R"({"parameters": [{"name": "x", "values": []}]})"), "parameter 'x' has an empty value list");
  EXPECT_CONTAINS(error(R"({"parameters": [{"name": "x", "values": [1]}], "max_threads": 1.5})"), "max_threads");
  EXPECT_CONTAINS(error(R"({"parameters": [{"name": "x", "values": [1]}], "constraint": ["x > 0"]})"), "constraint: unknown key");
  EXPECT_CONTAINS(error(R"({"parameters": [{"name": "x", "values": [18446744073709551615]}]})"), "64 bits");
}

TEST(ProblemBuilder, BuildsAndValidates) {
  const Problem p = ProblemBuilder("b").parameter("x", {1, 2}).constraint("x > 1").max_threads(std::nullopt).build();
  EXPECT_EQ(p.name, "b");
  EXPECT_EQ(p.cartesian_size(), 2u);
  EXPECT_EQ(p.max_threads, std::nullopt);
  EXPECT_THROW(ProblemBuilder().parameter("x", {}).build(), ProblemError);
  EXPECT_THROW(ProblemBuilder().constant("c", 1).constant("c", 2), ProblemError);
}

}  // namespace
}  // namespace ktune
