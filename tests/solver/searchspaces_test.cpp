// Acceptance: every search space of the construction paper gives exactly its known number of valid configurations.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "ktune/io/t1_reader.hpp"
#include "ktune/search_space.hpp"
#include "shared_data.hpp"

namespace {

struct SpaceCase {
  std::string file;
  std::uint64_t cartesian_size;
  std::uint64_t valid_configs;
};

std::vector<SpaceCase> load_index(const std::string& group) {
  std::ifstream in(ktune::testing::shared_path("data/searchspaces/index.json"));
  if (!in) return {};
  const auto index = nlohmann::json::parse(in);
  std::vector<SpaceCase> out;
  for (const auto& e : index.at(group))
    out.push_back({e.at("file").get<std::string>(), e.at("cartesian_size").get<std::uint64_t>(),
                   e.at("valid_configs").get<std::uint64_t>()});
  return out;
}

void check_group(const std::string& group, std::size_t expected_files) {
  const auto cases = load_index(group);
  ASSERT_EQ(cases.size(), expected_files) << "index.json of " << ktune::testing::shared_dir();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const auto problem = ktune::io::read_t1_file(ktune::testing::shared_path("data/searchspaces/" + c.file));
    const auto space = ktune::SearchSpace::build(problem);
    EXPECT_EQ(space.report().cartesian_size, c.cartesian_size);
    EXPECT_EQ(space.size(), c.valid_configs);
    EXPECT_EQ(space.report().evaluation_errors, 0u);
  }
}

TEST(SearchSpacesAcceptance, RealWorldSpacesHaveTheirExactValidCounts) { check_group("realworld", 8); }

TEST(SearchSpacesAcceptance, SyntheticSpacesHaveTheirExactValidCounts) { check_group("synthetic", 112); }

TEST(SearchSpacesAcceptance, ThreadCountDoesNotChangeTheResult) {
  const auto problem = ktune::io::read_t1_file(ktune::testing::shared_path("data/searchspaces/realworld/gemm.json"));
  const auto one = ktune::SearchSpace::build(problem, {.threads = 1});
  const auto two = ktune::SearchSpace::build(problem, {.threads = 2});
  ASSERT_EQ(one.size(), two.size());
  ASSERT_EQ(one.lex_order(), two.lex_order());
  for (std::size_t i = 0; i < one.size(); ++i) ASSERT_EQ(one.config_at(i), two.config_at(i)) << i;
}

}  // namespace
