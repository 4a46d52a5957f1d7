#pragma once
// What an untrusted plug-in's source (a language model's candidate, an --isolate plug-in) may #include: ktune's own
// headers (<ktune/...>) and the C++ standard library, nothing else. The check reads the text before any compiler
// does, so no other file is ever opened on the plug-in's behalf: a compiler error about such a file would quote its
// lines into prompts and logs. It follows the preprocessor's rules where they matter (line splices, comments, raw
// strings, the %: digraph), and refuses what it cannot read as a plain header name (a computed #include).
#include <optional>
#include <string>
#include <string_view>

namespace ktune {

// Why `source` may not be compiled as an untrusted plug-in (the first offending line: "line 3: #include of
// \"../x.h\" is refused: ..."), or nothing when every #include, #line and header import is allowed. The message
// names the header as the source spells it (cut short) and never quotes any file's content.
std::optional<std::string> refused_include(std::string_view source);

}  // namespace ktune
