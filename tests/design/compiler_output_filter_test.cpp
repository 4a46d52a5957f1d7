// The compiler output shown of an untrusted plug-in: its own file's diagnostics, with their excerpts, shown by the
// file's bare name; another file's diagnostics (which quote that file) left out whole; a few lines at most.
#include <string>

#include <gtest/gtest.h>

#include "ktune/tuning/compiler_output_filter.hpp"

namespace {

using ktune::own_diagnostics;

TEST(CompilerOutputFilter, KeepsOwnDiagnosticsAndLeavesOutOtherFiles) {
  const std::string output =
      "/scratch/c001_x.cpp: In member function 'virtual void S::run()':\n"
      "/scratch/c001_x.cpp:17:5: error: 'undeclared_function' was not declared in this scope\n"
      "   17 |     undeclared_function(space, cost);\n"
      "      |     ^~~~~~~~~~~~~~~~~~~\n"
      "In file included from /scratch/c001_x.cpp:3:\n"
      "/home/u/secret.txt:1:1: error: 'TOPSECRET' does not name a type\n"
      "    1 | TOPSECRET value=hunter2\n"
      "      | ^~~~~~~~~\n"
      "/tmp/ccX.s: Assembler messages:\n"
      "/home/u/secret.txt:2: Error: no such instruction: `second secret line'\n"
      "compilation terminated.\n";
  const std::string shown = own_diagnostics(output, "/scratch/c001_x.cpp");
  EXPECT_NE(shown.find("c001_x.cpp:17:5: error: 'undeclared_function'"), std::string::npos) << shown;
  EXPECT_NE(shown.find("   17 |     undeclared_function(space, cost);"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("/scratch"), std::string::npos) << shown;
  for (const char* secret : {"TOPSECRET", "hunter2", "second secret", "secret.txt", "ccX"})
    EXPECT_EQ(shown.find(secret), std::string::npos) << secret << " in\n" << shown;
  EXPECT_NE(shown.find("(7 lines about other files left out)"), std::string::npos) << shown;
}

TEST(CompilerOutputFilter, APathThatOnlyStartsLikeTheSourceIsAnotherFile) {
  const std::string shown = own_diagnostics("/s/x.cpp.secret:1:1: error: 'TOPSECRET'\n    1 | TOPSECRET\n", "/s/x.cpp");
  EXPECT_EQ(shown.find("TOPSECRET"), std::string::npos) << shown;
}

TEST(CompilerOutputFilter, IsCutToAFewLinesAndBytes) {
  std::string output;
  for (int i = 1; i <= 100; ++i) output += "/s/x.cpp:" + std::to_string(i) + ":1: error: something is wrong here\n";
  const std::string by_lines = own_diagnostics(output, "/s/x.cpp", {5, 10000});
  EXPECT_NE(by_lines.find("x.cpp:5:1"), std::string::npos);
  EXPECT_EQ(by_lines.find("x.cpp:6:1"), std::string::npos);
  EXPECT_NE(by_lines.find("... (95 more lines)"), std::string::npos) << by_lines;
  const std::string by_bytes = own_diagnostics(output, "/s/x.cpp", {100, 300});
  EXPECT_LE(by_bytes.size(), 300u + 40u);
  EXPECT_NE(by_bytes.find("more lines)"), std::string::npos);
  const std::string long_line = own_diagnostics("/s/x.cpp:1:1: error: " + std::string(5000, 'T') + "\n", "/s/x.cpp",
                                                {20, 200});
  EXPECT_LE(long_line.size(), 260u);
  EXPECT_NE(long_line.find("x.cpp:1:1: error: TTT"), std::string::npos);
  EXPECT_EQ(own_diagnostics("", "/s/x.cpp"), "");
}

}  // namespace
