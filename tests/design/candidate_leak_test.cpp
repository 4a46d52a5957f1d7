// Nothing local leaks through a candidate's compilation: an #include of a planted secret (absolute or relative) fails
// the candidate before any compiler reads the file; a compile error about another file (an assembler .include of the
// secret) is left out of the error; and no compiled candidate stays behind, neither in the plug-in cache nor in the
// scorer's scratch folder.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "ktune/design/candidate_scorer.hpp"
#include "ktune/design/design_prompts.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace {

using namespace ktune;
using namespace ktune::design;
using ktune::testing::shared_path;
using ktune::testing::temp_dir;
using ktune::testing::write_temp;
namespace fs = std::filesystem;

constexpr const char* kSecret = "TOPSECRET_ktune_7f3a value=hunter2";

const fs::path& plugin_cache() {
  static const fs::path dir = [] {
    const fs::path d = temp_dir() / "leak-plugin-cache";
    ::setenv("KTUNE_PLUGIN_CACHE", d.c_str(), 1);
    ktune::testing::share_precompiled_plugin_headers();
    return d;
  }();
  return dir;
}

const methodology::Comparison& spaces() {
  static const methodology::Comparison comparison = [] {
    methodology::ComparisonOptions options;
    options.repeats = 3;
    options.threads = 2;
    return methodology::Comparison(
        methodology::load_spaces({shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz")}),
        options);
  }();
  return comparison;
}

std::size_t files_in(const fs::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file()) ++n;
  return n;
}

CandidateScore score(const std::string& file, const std::string& source, const fs::path& scratch) {
  plugin_cache();
  return CandidateScorer(spaces(), {}, scratch.string()).score(write_temp(file, source));
}

TEST(CandidateLeaks, AnIncludeOfASecretFailsBeforeCompilingAndNeverQuotesIt) {
  const std::string secret = write_temp("secret.txt", std::string(kSecret) + "\nsecond line\n");
  const fs::path scratch = temp_dir() / "leak-scratch-include";
  for (const std::string& include :
       {"\"" + secret + "\"", std::string("\"secret.txt\""), std::string("\"../secret.txt\"")}) {
    const std::string source = "#include <memory>\n#include " + include + "\n" + example_strategy_source();
    const CandidateScore s = score("includer.cpp", source, scratch);
    EXPECT_FALSE(s.ok);
    EXPECT_EQ(s.stage, "compile");
    EXPECT_NE(s.error.find("line 2: #include of"), std::string::npos) << s.error;
    EXPECT_NE(s.error.find("is refused"), std::string::npos) << s.error;
    EXPECT_EQ(s.error.find("TOPSECRET"), std::string::npos) << s.error;
    EXPECT_EQ(s.error.find("hunter2"), std::string::npos) << s.error;
    EXPECT_LT(s.compile_seconds + s.wall_seconds, 5.0);  // no compiler ran
  }
  EXPECT_EQ(files_in(scratch), 0u);
}

TEST(CandidateLeaks, ACompileErrorAboutAnotherFileIsLeftOut) {
  const std::string secret = write_temp("secret.s", std::string(kSecret) + "\nsecond line\n");
  // The assembler reads the file and quotes its lines in its errors; only the candidate's own diagnostics are kept.
  const std::string source = example_strategy_source() + "\nasm(\".include \\\"" + secret + "\\\"\");\n";
  const CandidateScore s = score("assembler.cpp", source, temp_dir() / "leak-scratch-asm");
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.stage, "compile");
  EXPECT_NE(s.error.find("does not compile"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("lines about other files left out"), std::string::npos) << s.error;
  EXPECT_EQ(s.error.find("TOPSECRET"), std::string::npos) << s.error;
  EXPECT_EQ(s.error.find("hunter2"), std::string::npos) << s.error;
  EXPECT_EQ(s.error.find("second line"), std::string::npos) << s.error;
}

TEST(CandidateLeaks, CompiledCandidatesStayNeitherInThePluginCacheNorInTheScratchFolder) {
  const fs::path scratch = temp_dir() / "leak-scratch-scored";
  const CandidateScore s = score("kept_nowhere.cpp", example_strategy_source(), scratch);
  ASSERT_TRUE(s.ok) << s.stage << ": " << s.error;
  // The cache holds at most ktune's own headers, precompiled from their text alone (no candidate's).
  std::error_code ec;
  for (fs::recursive_directory_iterator it(plugin_cache(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    EXPECT_EQ(name.rfind("ktune-plugin-headers-", 0), 0u) << name;
    if (name.ends_with(".hpp")) {
      std::ifstream in(it->path());
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_EQ(text.find("Candidate"), std::string::npos) << text;
    }
  }
  EXPECT_LE(files_in(plugin_cache()), 2u);
  EXPECT_EQ(files_in(scratch), 0u);
}

}  // namespace
