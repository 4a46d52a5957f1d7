// The include check of untrusted plug-ins: ktune's headers and the standard library pass, any other file is refused
// before a compiler reads it, however the directive is spelled (splices, comments, the %: digraph, #line, header
// units), and text that only looks like a directive (in a string, a raw string, a comment) is not one.
#include <string>

#include <gtest/gtest.h>

#include "ktune/design/design_prompts.hpp"
#include "ktune/tuning/plugin_include_check.hpp"

namespace {

using ktune::refused_include;

TEST(PluginIncludeCheck, KtuneAndStandardHeadersPass) {
  EXPECT_FALSE(refused_include("#include <vector>\n#include <cmath>\n#include <math.h>\n#include <ktune/plugin.hpp>\n"
                               "#include \"ktune/strategy_toolkit.hpp\"\n  #  include <unordered_map> // map\n"
                               "#pragma once\n#define X 1\n#if __has_include(<span>)\n#endif\nint main() {}\n"));
  EXPECT_FALSE(refused_include(ktune::design::example_strategy_source()));
}

TEST(PluginIncludeCheck, OtherFilesAreRefusedWithTheLineAndNoContent) {
  const auto absolute = refused_include("#include <vector>\n\n#include \"/etc/shadow\"\n");
  ASSERT_TRUE(absolute);
  EXPECT_NE(absolute->find("line 3: #include of \"/etc/shadow\" is refused"), std::string::npos) << *absolute;
  EXPECT_NE(absolute->find("<ktune/...>"), std::string::npos);
  for (const char* source :
       {"#include \"../secret.txt\"\n", "#include \"helpers.hpp\"\n", "#include <unistd.h>\n",
        "#include <sys/socket.h>\n", "#include <ktune/../../secret>\n", "#include <ktune/>\n",
        "#include </etc/passwd>\n", "#include <ktune//x.hpp>\n", "#define F \"/etc/passwd\"\n#include F\n",
        "#include_next <vector>\n", "#import \"x.h\"\n", "#embed \"x.bin\"\n",
        "#line 1 \"/etc/passwd\"\n", "#line 7\n", "# 1 \"/etc/passwd\"\n", "import \"/etc/passwd\";\n",
        "export import <unistd.h>;\n", "#include \"vector\n"})
    EXPECT_TRUE(refused_include(source)) << source;
}

TEST(PluginIncludeCheck, SplicesCommentsAndDigraphsDoNotHideADirective) {
  for (const char* source : {"#inc\\\nlude \"/etc/passwd\"\n", "#inc\\  \nlude \"/etc/passwd\"\n",
                             "/* a */ # /* b */ include /* c */ \"/etc/passwd\"\n", "%:include \"/etc/passwd\"\n",
                             "/* a comment\n that ends */ #include \"/etc/passwd\"\n",
                             "// a comment \\\n#include <vector>\n#include \"/etc/passwd\"\n",
                             "int n = 1'000'000;\n#include \"/etc/passwd\"\n",
                             "char c = '\"';\n#include \"/etc/passwd\"\n",
                             "auto s = \"unterminated\n#include \"/etc/passwd\"\n",
                             "auto r = R\"x(\n)x\";\n#include \"/etc/passwd\"\n"})
    EXPECT_TRUE(refused_include(source)) << source;
  // A splice joins the comment's line with the next one: the directive is inside the comment.
  EXPECT_FALSE(refused_include("// a comment \\\n#include \"/etc/passwd\"\n"));
}

TEST(PluginIncludeCheck, TextThatOnlyLooksLikeADirectiveIsNone) {
  EXPECT_FALSE(refused_include("/*\n#include \"/etc/passwd\"\n*/\n"));
  EXPECT_FALSE(refused_include("int x; /* a comment\n that ends */ #include \"/etc/passwd\"\n"));  // a stray #
  EXPECT_FALSE(refused_include("auto s = R\"(\n#include \"/etc/passwd\"\n)\";\n"));
  EXPECT_FALSE(refused_include("auto s = R\"d(\n)\"\n#include \"/etc/passwd\"\n)d\";\n"));
  EXPECT_FALSE(refused_include("auto s = \"#include \\\"/etc/passwd\\\"\";\n"));
  EXPECT_FALSE(refused_include("int import = 3;\nimport std;\nauto x = \"\\\n#include <unistd.h>\";\n"));
  // A splice inside a raw string is kept as it is (the compiler does not splice there).
  EXPECT_FALSE(refused_include("auto s = R\"(\\\n#include <unistd.h>\n)\";\n"));
}

TEST(PluginIncludeCheck, LinesAreNumberedAsTheFileIs) {
  const auto refused = refused_include("/* one\n two */\nint a = 0; \\\n int b;\n#include <unistd.h>\n");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->rfind("line 5: #include of <unistd.h>", 0), 0u) << *refused;
}

}  // namespace
