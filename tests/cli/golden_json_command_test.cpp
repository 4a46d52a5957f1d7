// The --json output of a fixed set of space, tune --simulate, compare, pareto and hypertune commands, recorded under
// tests/data/golden and compared on every build: `ktune VERB --json` is a stable interface, and refactoring the jobs
// behind the verbs must not change what they compute. Wall-clock fields are left out of the comparison; everything
// else (simulated clocks, scores, traces, fronts) must agree. KTUNE_UPDATE_GOLDEN=1 rewrites the recorded files
// (only for an intended change of output, stated in the commit).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"
#include "shared_data.hpp"

namespace {

using namespace ktune::testing;
using nlohmann::json;

const std::filesystem::path kGoldenDir = std::filesystem::path(KTUNE_SOURCE_DIR) / "tests/data/golden";

json load(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return json::parse(in);
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); !from.empty() && at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// Measured wall-clock time (of the run, of building a space) differs from run to run, and a space's bytes with the
// standard library's growth policy; nothing else may.
bool is_wall_time(const std::string& key) {
  return key.find("wall") != std::string::npos || key == "construction_seconds" || key == "memory_bytes";
}

// Paths in the output are written back as the placeholders of cases.json, so the files do not depend on the checkout.
json normalised(const json& j, const std::string& shared, const std::string& dir) {
  if (j.is_object()) {
    json out = json::object();
    for (const auto& [key, value] : j.items())
      if (!is_wall_time(key)) out[key] = normalised(value, shared, dir);
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const auto& value : j) out.push_back(normalised(value, shared, dir));
    return out;
  }
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    replace_all(s, dir, "{dir}");
    replace_all(s, shared, "{shared}");
    return s;
  }
  return j;
}

// Differences as JSON pointers, numbers equal to 1e-9 relative (another libm may round the last digit differently).
void differences(const json& expected, const json& actual, const std::string& at, std::vector<std::string>& out) {
  if (out.size() >= 20) return;
  if (expected.is_number() && actual.is_number()) {
    const double e = expected.get<double>(), a = actual.get<double>();
    if (std::fabs(e - a) > 1e-9 * std::max(std::fabs(e), std::fabs(a)))
      out.push_back(at + ": expected " + expected.dump() + ", got " + actual.dump());
    return;
  }
  if (expected.type() != actual.type()) {
    out.push_back(at + ": expected " + expected.dump().substr(0, 80) + ", got " + actual.dump().substr(0, 80));
    return;
  }
  if (expected.is_object()) {
    for (const auto& [key, value] : expected.items()) {
      if (!actual.contains(key)) out.push_back(at + "/" + key + ": missing");
      else differences(value, actual.at(key), at + "/" + key, out);
    }
    for (const auto& [key, value] : actual.items())
      if (!expected.contains(key)) out.push_back(at + "/" + key + ": not expected");
    return;
  }
  if (expected.is_array()) {
    if (expected.size() != actual.size())
      out.push_back(at + ": " + std::to_string(expected.size()) + " elements expected, got " +
                    std::to_string(actual.size()));
    for (std::size_t i = 0; i < std::min(expected.size(), actual.size()); ++i)
      differences(expected[i], actual[i], at + "/" + std::to_string(i), out);
    return;
  }
  if (expected != actual) out.push_back(at + ": expected " + expected.dump() + ", got " + actual.dump());
}

class GoldenJson : public ::testing::TestWithParam<json> {};

TEST_P(GoldenJson, OutputIsUnchanged) {
  const std::string name = GetParam().at("name");
  std::string args = GetParam().at("args");
  const std::string shared = std::filesystem::weakly_canonical(shared_path("data")).string();
  const std::string dir = kGoldenDir.string();
  replace_all(args, "{shared}", shared);
  replace_all(args, "{dir}", dir);
  const KtuneRun run = run_ktune(args);
  ASSERT_EQ(run.exit_code, 0) << args << "\n" << run.err;
  const json actual = normalised(json::parse(run.out), shared, dir);
  const auto file = kGoldenDir / (name + ".json");
  if (std::getenv("KTUNE_UPDATE_GOLDEN")) {
    std::ofstream(file) << actual.dump(1) << "\n";
    GTEST_SKIP() << "recorded " << file;
  }
  ASSERT_TRUE(std::filesystem::exists(file)) << file << " is not recorded (KTUNE_UPDATE_GOLDEN=1 records it)";
  std::vector<std::string> diffs;
  differences(load(file), actual, "", diffs);
  std::string text;
  for (const auto& d : diffs) text += "  " + d + "\n";
  EXPECT_TRUE(diffs.empty()) << name << ": --json output differs from " << file << " (first 20):\n" << text;
}

std::vector<json> cases() {
  const json file = load(kGoldenDir / "cases.json");
  return file.at("cases").get<std::vector<json>>();
}

INSTANTIATE_TEST_SUITE_P(Commands, GoldenJson, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<json>& info) { return info.param.at("name").get<std::string>(); });

}  // namespace
