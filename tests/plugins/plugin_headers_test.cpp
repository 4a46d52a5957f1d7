// ktune's plug-in headers, precompiled: named by everything they depend on (an edited header gets a new name, so no
// plug-in is ever compiled against an old .gch), used only when both files are there, built only when asked, and
// never offered to a compiler that is not GCC. (Building and using one is covered by the design tests, whose
// candidates compile with it.)
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "ktune/tuning/strategy_plugins.hpp"
#include "strategies/plugin_headers.hpp"
#include "temp_files.hpp"

namespace {

namespace fs = std::filesystem;
using ktune::plugin_headers::header_path;
using ktune::plugin_headers::precompiled;

std::string flags_for(const fs::path& include) { return "-std=c++20 -O2 -fPIC -I'" + include.string() + "'"; }

// A copy of ktune's headers (every -I folder's ktune/ tree) in one folder.
fs::path copied_headers(const std::string& name) {
  const fs::path root = ktune::testing::fresh_temp_path(name);
  fs::create_directories(root / "ktune");
  for (const std::string& dir : ktune::plugin_include_directories())
    fs::copy(fs::path(dir) / "ktune", root / "ktune",
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  return root;
}

TEST(PluginHeaders, NamedByTheCompilerTheFlagsAndTheTextOfEveryKtuneHeader) {
  const fs::path include = copied_headers("pch-headers");
  const fs::path dir = ktune::testing::fresh_temp_path("pch-cache");
  const fs::path first = header_path("c++", flags_for(include), dir);
  EXPECT_EQ(first.parent_path(), dir);
  EXPECT_EQ(header_path("c++", flags_for(include), dir), first);  // stable
  EXPECT_NE(header_path("g++-12", flags_for(include), dir), first);
  EXPECT_NE(header_path("c++", flags_for(include) + " -DX=1", dir), first);
  std::ofstream(include / "ktune" / "search_space.hpp", std::ios::app) << "\n// edited\n";
  EXPECT_NE(header_path("c++", flags_for(include), dir), first);  // an edit without a version change
}

TEST(PluginHeaders, UsedOnlyWhenBothFilesAreThereAndNotBuiltUnlessAsked) {
  const fs::path include = copied_headers("pch-used");
  const fs::path dir = ktune::testing::fresh_temp_path("pch-used-cache");
  const std::string flags = flags_for(include);
  EXPECT_FALSE(precompiled("c++", flags, dir, false));
  EXPECT_FALSE(fs::exists(dir));  // nothing built, nothing created
  const fs::path header = header_path("c++", flags, dir);
  fs::create_directories(dir);
  std::ofstream(header) << "// header\n";
  EXPECT_FALSE(precompiled("c++", flags, dir, false));  // no .gch beside it
  std::ofstream(header.string() + ".gch") << "gch";
  if (std::system("c++ -dM -E -x c++ /dev/null 2>/dev/null | grep -q __clang__") == 0)
    GTEST_SKIP() << "c++ is Clang here: precompiled headers are GCC's only";
  EXPECT_EQ(precompiled("c++", flags, dir, false), header);
}

TEST(PluginHeaders, ClangIsNeverGivenThem) {
  if (std::system("command -v clang++ > /dev/null 2>&1") != 0) GTEST_SKIP() << "no clang++";
  const fs::path include = copied_headers("pch-clang");
  const fs::path dir = ktune::testing::fresh_temp_path("pch-clang-cache");
  const std::string flags = flags_for(include);
  const fs::path header = header_path("clang++", flags, dir);
  fs::create_directories(dir);
  std::ofstream(header) << "// header\n";
  std::ofstream(header.string() + ".gch") << "gch";
  EXPECT_FALSE(precompiled("clang++", flags, dir, false));
  EXPECT_FALSE(precompiled("clang++", flags, dir, true));
}

}  // namespace
