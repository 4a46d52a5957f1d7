// Continuous view and CSV / JSON export.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "space_reference.hpp"

namespace ktune {
namespace {

using testing::filter_product;

TEST(Continuous, EpsilonMappingAndRoundTrip) {
  Problem problem;
  problem.name = "c";
  problem.parameters = {{"a", {1, 2, 3, 4, 5}}, {"b", {"x", "y"}}, {"c", {7}}};
  const SearchSpace s = SearchSpace::from_configs(problem, filter_product(problem, [](const Config& c) {
    return c[0] != 2;
  }));
  EXPECT_DOUBLE_EQ(s.epsilon(), 0.25);
  EXPECT_DOUBLE_EQ(s.continuous_upper(0), 1.0);
  EXPECT_DOUBLE_EQ(s.continuous_upper(1), 0.25);
  EXPECT_DOUBLE_EQ(s.continuous_upper(2), 0.0);
  EXPECT_THROW(s.continuous_upper(3), std::out_of_range);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Config c = s.config_at(i);
    const auto x = s.to_continuous(c);
    for (std::size_t p = 0; p < 3; ++p) EXPECT_DOUBLE_EQ(x[p], c[p] * 0.25);
    EXPECT_EQ(s.from_continuous(x), c);
  }
  // Nearest index, clamping, NaN and infinities.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(s.from_continuous(std::vector<double>{0.37, 0.12, 0.0}), (Config{1, 0, 0}));
  EXPECT_EQ(s.from_continuous(std::vector<double>{0.38, 0.13, 0.2}), (Config{2, 1, 0}));
  EXPECT_EQ(s.from_continuous(std::vector<double>{-3.0, 9.0, 1.0}), (Config{0, 1, 0}));
  EXPECT_EQ(s.from_continuous(std::vector<double>{nan, nan, nan}), (Config{0, 0, 0}));
  EXPECT_EQ(s.from_continuous(std::vector<double>{inf, -inf, inf}), (Config{4, 0, 0}));
  EXPECT_EQ(s.from_continuous(std::vector<double>{1e300, -1e300, 0}), (Config{4, 0, 0}));
  EXPECT_THROW(s.from_continuous(std::vector<double>{0.0}), std::invalid_argument);
  EXPECT_THROW(s.to_continuous(Config{0, 0}), std::invalid_argument);
  EXPECT_FALSE(s.is_valid(s.from_continuous(std::vector<double>{0.5, 0, 0})));  // may be invalid, as documented
}

TEST(Continuous, SingleValuedParameters) {
  Problem problem;
  problem.name = "c";
  problem.parameters = {{"a", {1}}, {"b", {"x"}}};
  const SearchSpace s = SearchSpace::from_configs(problem, {{0, 0}});
  EXPECT_DOUBLE_EQ(s.epsilon(), 1.0);
  EXPECT_EQ(s.to_continuous(Config{0, 0}), (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(s.from_continuous(std::vector<double>{0.7, -1}), (Config{0, 0}));
}

SearchSpace export_space() {
  Problem problem;
  problem.name = "e";
  problem.parameters = {{"n", {1, 32}},
                        {"f", {0.5, 2.0}},
                        {"flag", {false, true}},
                        {"label", {"plain", "a,b", "say \"hi\""}}};
  return SearchSpace::from_configs(problem, {{1, 0, 1, 2}, {0, 1, 0, 0}, {0, 0, 1, 1}});
}

TEST(Export, CsvQuotesAndFormatsValues) {
  const SearchSpace s = export_space();
  std::ostringstream out;
  s.write_csv(out);
  EXPECT_EQ(out.str(),
            "n,f,flag,label\n"
            "1,0.5,True,\"a,b\"\n"
            "1,2.0,False,plain\n"
            "32,0.5,True,\"say \"\"hi\"\"\"\n");
}

TEST(Export, JsonHasTypedValues) {
  const SearchSpace s = export_space();
  const nlohmann::json j = s.to_json();
  ASSERT_EQ(j["parameters"].size(), 4u);
  EXPECT_EQ(j["parameters"][0]["name"], "n");
  EXPECT_EQ(j["parameters"][0]["values"], nlohmann::json::parse("[1, 32]"));
  EXPECT_EQ(j["parameters"][3]["name"], "label");
  EXPECT_EQ(j["parameters"][2]["values"], nlohmann::json::parse("[false, true]"));
  ASSERT_EQ(j["configurations"].size(), 3u);
  const auto& first = j["configurations"][0];
  EXPECT_TRUE(first[0].is_number_integer());
  EXPECT_EQ(first[0].get<std::int64_t>(), 1);
  EXPECT_TRUE(first[1].is_number_float());
  EXPECT_DOUBLE_EQ(first[1].get<double>(), 0.5);
  EXPECT_TRUE(first[2].is_boolean());
  EXPECT_EQ(first[2].get<bool>(), true);
  EXPECT_EQ(first[3], "a,b");
  EXPECT_TRUE(j["configurations"][1][1].is_number_float());  // 2.0 stays a float
  EXPECT_EQ(j["configurations"][2][3], "say \"hi\"");
  // Round trip through text.
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

}  // namespace
}  // namespace ktune
