#pragma once
// Reading a language model's reply to a design prompt: reasoning removed, the one-line description and the C++
// plug-in's code taken out. Models answer in many shapes (a fence tagged cpp, c++ or nothing, several blocks, a
// reply cut short, text around the code); the rules below take the block most likely to be the plug-in.
#include <stdexcept>
#include <string>

namespace ktune::design {

// A reply with no code in it. Its message is fed back to the model.
class ReplyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ParsedReply {
  std::string description;  // one line ("" if the reply gave none)
  std::string name;         // the strategy name in the code's describe(), "" if not found
  std::string code;
};

// `text` without reasoning: every <think>...</think> block removed, and everything up to a closing tag whose
// opening one the server dropped.
std::string strip_reasoning(const std::string& text);

// The fenced code blocks' choice: the one exporting KTUNE_STRATEGY_PLUGIN, else the longest tagged as C++, else the
// longest. A final fence left open (a reply cut short) runs to the end. The description: a "Description:" line
// outside the code, else the first line of prose. Throws ReplyError when there is no code block.
ParsedReply parse_reply(const std::string& text);

}  // namespace ktune::design
