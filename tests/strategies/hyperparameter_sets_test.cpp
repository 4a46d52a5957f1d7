// Published hyperparameter sets (`set=NAME`): every set is a valid setting of its strategy, settings after it
// override it, and a wrong name says which sets exist.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ktune/tuning/hyperparameters.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/value.hpp"

namespace ktune {
namespace {
namespace hyperparameter_sets_test {

TEST(HyperparameterSets, EverySetIsAValidSettingOfItsStrategyAndChangesIt) {
  std::size_t strategies_with_sets = 0;
  for (const StrategyInfo& info : strategy_registry()) {
    const auto& sets = hyperparameter_sets(info.name);
    strategies_with_sets += !sets.empty();
    std::set<std::string> names;
    for (const HyperparameterSet& set : sets) {
      SCOPED_TRACE(info.name + " set=" + set.name);
      EXPECT_TRUE(names.insert(set.name).second) << "a set name twice";
      EXPECT_FALSE(set.description.empty());
      ASSERT_FALSE(set.values.empty());
      const auto parsed = parse_strategy_settings(info.name, {"set=" + set.name});
      ASSERT_EQ(parsed.size(), set.values.size());
      for (std::size_t k = 0; k < parsed.size(); ++k) {
        EXPECT_EQ(parsed[k].first, set.values[k].first);
        EXPECT_TRUE(same_value(parsed[k].second, set.values[k].second)) << set.values[k].first;
      }
      EXPECT_NO_THROW(make_strategy(info.name, parsed));
      // Each set differs from ktune's defaults somewhere (else it would say nothing).
      const Hyperparameters defaults = Hyperparameters::resolve(info.name, info.hyperparameters, {});
      const Hyperparameters chosen = Hyperparameters::resolve(info.name, info.hyperparameters, parsed);
      bool differs = false;
      for (const auto& spec : info.hyperparameters)
        differs = differs || !same_value(chosen.get(spec.name), defaults.get(spec.name));
      EXPECT_TRUE(differs);
    }
  }
  EXPECT_GE(strategies_with_sets, 12u);
  EXPECT_FALSE(hyperparameter_sets("hybrid_vndx").empty());
  EXPECT_TRUE(hyperparameter_sets("no_such_strategy").empty());
}

TEST(HyperparameterSets, LaterSettingsOverrideTheSet) {
  const StrategyInfo* pso = find_strategy("pso");
  ASSERT_NE(pso, nullptr);
  const auto parsed = parse_strategy_settings("pso", {"set=kernel_tuner", "popsize=30"});
  const Hyperparameters h = Hyperparameters::resolve("pso", pso->hyperparameters, parsed);
  EXPECT_EQ(h.get_int("popsize"), 30);
  EXPECT_DOUBLE_EQ(h.get_float("w"), 0.5);   // Kernel Tuner's, from the set
  EXPECT_DOUBLE_EQ(h.get_float("c1"), 3.5);
  const auto before = parse_strategy_settings("pso", {"popsize=30", "set=kernel_tuner"});
  EXPECT_EQ(Hyperparameters::resolve("pso", pso->hyperparameters, before).get_int("popsize"), 50);
}

TEST(HyperparameterSets, AnUnknownSetNamesTheKnownOnes) {
  try {
    parse_strategy_settings("hybrid_vndx", {"set=table4"});
    FAIL() << "no error";
  } catch (const HyperparameterError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'table4'"), std::string::npos) << what;
    EXPECT_NE(what.find("paper"), std::string::npos) << what;
    EXPECT_NE(what.find("kernel_tuner"), std::string::npos) << what;
  }
  EXPECT_THROW(parse_strategy_settings("brute_force", {"set=paper"}), HyperparameterError);
}

}  // namespace hyperparameter_sets_test
}  // namespace
}  // namespace ktune
