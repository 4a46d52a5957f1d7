// Replays every committed fuzz input through the fuzz entry points (fuzz/entries), in the ordinary test runs (and
// under ASan+UBSan in `make asan`): the seed corpora fuzz/corpus/<target>/ and the inputs that once crashed, hung
// or broke a promise, tests/data/fuzz/<target>/. An entry returns normally on input the library handles as it
// documents; a crash, a sanitizer report, an undocumented exception or a broken invariant fails the test.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz_entries.hpp"

namespace {

namespace fs = std::filesystem;

struct Input {
  const ktune::fuzz::Target* target;
  fs::path path;
  std::string test_name;  // target_folder_file, as GoogleTest names allow
};

void PrintTo(const Input& input, std::ostream* out) { *out << input.path.string(); }

std::string identifier(const std::string& s) {
  std::string out;
  for (const char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

std::vector<Input> inputs() {
  std::vector<Input> out;
  for (auto t = ktune::fuzz::targets_begin(); t != ktune::fuzz::targets_end(); ++t) {
    for (const auto& [folder, label] : {std::pair{fs::path(KTUNE_SOURCE_DIR) / "fuzz" / "corpus" / t->name, "corpus"},
                                        std::pair{fs::path(KTUNE_SOURCE_DIR) / "tests" / "data" / "fuzz" / t->name,
                                                  "regression"}}) {
      if (!fs::is_directory(folder)) continue;
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(folder))
        if (entry.is_regular_file()) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files)
        out.push_back({&*t, f, identifier(std::string(t->name) + "_" + label + "_" + f.filename().string())});
    }
  }
  return out;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// As long as `make fuzz` lets one input run (-timeout=10) before it counts as a hang.
constexpr double kHangSeconds = 10;

class FuzzInput : public ::testing::TestWithParam<Input> {};

TEST_P(FuzzInput, IsHandledAsDocumented) {
  const Input& input = GetParam();
  const std::string bytes = read_bytes(input.path);
  SCOPED_TRACE(input.path.string());
  const auto start = std::chrono::steady_clock::now();
  try {
    EXPECT_EQ(input.target->entry(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), 0);
  } catch (const std::exception& e) {
    FAIL() << "fuzz target '" << input.target->name << "': " << e.what();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, kHangSeconds) << "a hang, as the fuzzer counts them";
}

INSTANTIATE_TEST_SUITE_P(Committed, FuzzInput, ::testing::ValuesIn(inputs()),
                         [](const ::testing::TestParamInfo<Input>& info) { return info.param.test_name; });

// Every target has a seed corpus, so the replay above is never empty.
TEST(FuzzCorpus, EveryTargetHasSeeds) {
  for (auto t = ktune::fuzz::targets_begin(); t != ktune::fuzz::targets_end(); ++t) {
    const fs::path folder = fs::path(KTUNE_SOURCE_DIR) / "fuzz" / "corpus" / t->name;
    ASSERT_TRUE(fs::is_directory(folder)) << folder;
    EXPECT_GE(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 3) << folder;
  }
}

}  // namespace
