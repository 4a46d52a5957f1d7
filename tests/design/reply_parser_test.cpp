// Reading design replies: reasoning removed, the plug-in's block chosen among others, a reply cut short kept, a reply
// without code refused with a message for the model.
#include <gtest/gtest.h>

#include "ktune/design/reply_parser.hpp"
#include "temp_files.hpp"

namespace {

using namespace ktune::design;

const std::string kPlugin =
    "#include <ktune/plugin.hpp>\nktune::StrategyInfo describe() {\n  return {\"my_search\", \"x\", {}, nullptr};\n}\n"
    "KTUNE_STRATEGY_PLUGIN(describe)\n";

TEST(ReplyParser, TakesDescriptionNameAndCode) {
  const ParsedReply p = parse_reply("# Description: A tabu search with restarts.\n\n```cpp\n" + kPlugin + "```\nDone.");
  EXPECT_EQ(p.description, "A tabu search with restarts.");
  EXPECT_EQ(p.name, "my_search");
  EXPECT_EQ(p.code, kPlugin);
}

TEST(ReplyParser, StripsReasoningEvenWhenItHoldsCode) {
  const std::string reply = "<think>Maybe\n```cpp\nint draft;\n```\n</think>\n**Description**: final one\n```c++\n" +
                            kPlugin + "```";
  const ParsedReply p = parse_reply(reply);
  EXPECT_EQ(p.code, kPlugin);
  EXPECT_EQ(p.description, "final one");
  // A server that drops the opening tag: everything up to the closing one is reasoning.
  EXPECT_EQ(strip_reasoning("thinking...</think>answer"), "answer");
  EXPECT_EQ(strip_reasoning("a<think>b</think>c<think>d</think>e"), "ace");
  EXPECT_EQ(strip_reasoning("answer<think>never closed"), "answer");
}

TEST(ReplyParser, PrefersThePluginBlockThenCppThenTheLongest) {
  const std::string reply = "Intro line\n```bash\nc++ -shared x.cpp -o x.so with a long command line here\n```\n"
                            "```cpp\nint helper();\n```\n```\n" + kPlugin + "```\n";
  EXPECT_EQ(parse_reply(reply).code, kPlugin);
  EXPECT_EQ(parse_reply(reply).description, "Intro line");  // no Description line: the first prose line
  const std::string no_plugin = "```text\na much longer block of prose that is not code at all\n```\n```cpp\nint x;\n```";
  EXPECT_EQ(parse_reply(no_plugin).code, "int x;\n");
  EXPECT_EQ(parse_reply("```\nint y;\n```").code, "int y;\n");
}

TEST(ReplyParser, KeepsABlockCutShort) {
  const ParsedReply p = parse_reply("# Description: cut\n```cpp\n#include <ktune/plugin.hpp>\nclass A {");
  EXPECT_EQ(p.code, "#include <ktune/plugin.hpp>\nclass A {\n");
}

TEST(ReplyParser, RefusesAReplyWithoutCode) {
  for (const std::string reply : {"", "I would use a genetic algorithm.", "<think>```cpp\nint x;\n```</think>No code.",
                                  "```cpp\n```"}) {
    const std::string error = ktune::testing::error_of<ReplyError>([&] { parse_reply(reply); });
    EXPECT_NE(error.find("no code block"), std::string::npos) << reply;
  }
}

TEST(ReplyParser, HandlesWindowsLineEndingsAndIndentedFences) {
  const ParsedReply p = parse_reply("Description: crlf\r\n  ```cpp\r\nint z;\r\n  ```\r\n");
  EXPECT_EQ(p.code, "int z;\n");
  EXPECT_EQ(p.description, "crlf");
}

}  // namespace
