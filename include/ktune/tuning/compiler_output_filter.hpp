#pragma once
// The part of a compiler's output that may be shown to a language model or written to a log when it compiled an
// untrusted source: only diagnostics about that source file itself, cut to a few lines. A diagnostic about any other
// file (a header, a file named by a #line directive, an assembler .include) may quote that file's lines, so it is
// left out whole, with the source excerpts printed under it.
#include <cstddef>
#include <string>
#include <string_view>

namespace ktune {

struct CompilerOutputLimits {
  std::size_t lines = 20;
  std::size_t bytes = 2000;
};

// `output`'s diagnostics about `source_path` (spelled as the compiler was given it), that path shown as its bare file
// name, at most `limits` long, with a last line saying how much was left out.
std::string own_diagnostics(std::string_view output, const std::string& source_path,
                            CompilerOutputLimits limits = {});

}  // namespace ktune
