// The synthetic validation spaces (scripts/make_synthetic_spaces.py, docs/hyperparameters.md): each is a readable
// Kernel Tuner cache whose variant shows what it is meant to reproduce, and a strategy comparison runs on them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ktune/io/results_file.hpp"
#include "ktune/methodology/comparison.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
const fs::path kSynthetic = fs::path(KTUNE_SOURCE_DIR) / "tests" / "data" / "spaces" / "synthetic";

std::vector<std::string> synthetic_files() {
  std::vector<std::string> out;
  for (const auto& dir : fs::directory_iterator(kSynthetic))
    for (const auto& file : fs::directory_iterator(dir.path())) out.push_back(file.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SyntheticSpaces, EachVariantReproducesWhatItIsNamedFor) {
  const auto files = synthetic_files();
  ASSERT_EQ(files.size(), 6u);
  for (const auto& path : files) {
    const auto results = io::read_results_file(path);
    std::vector<double> ok;
    std::size_t failing = 0;
    for (const auto& r : results.records) {
      if (const auto t = r.objective("time"); r.status == Status::ok && t) {
        ok.push_back(*t);
      } else {
        ++failing;
      }
    }
    ASSERT_FALSE(ok.empty()) << path;
    EXPECT_GE(results.records.size(), 250u) << path;
    EXPECT_LE(results.records.size(), 2500u) << path;  // small: a few hundred KB for all six
    std::sort(ok.begin(), ok.end());
    const double median_ratio = ok[ok.size() / 2] / ok.front();
    const double failing_share = static_cast<double>(failing) / static_cast<double>(results.records.size());
    if (path.find("tiny_budget") != std::string::npos) {
      EXPECT_GE(median_ratio, 9.0) << path;
    }
    if (path.find("bimodal") != std::string::npos) {
      EXPECT_GE(median_ratio, 3.0) << path;
    }
    if (path.find("failures") != std::string::npos) {
      EXPECT_GT(failing_share, 0.35) << path;
    }
  }
}

TEST(SyntheticSpaces, LoadAsComparisonSpacesNamedByFolder) {
  const auto spaces = methodology::load_spaces(synthetic_files(), 1);
  ASSERT_EQ(spaces.size(), 6u);
  EXPECT_EQ(spaces.front().name, "A4000_convolution_bimodal");
}

}  // namespace
}  // namespace ktune
