#pragma once
// Loading strategy plug-ins (see ktune/plugin.hpp for writing one). A strategy name that ends in ".so" or ".cpp" is
// a plug-in: find_strategy() and everything built on it (make_strategy, parse_strategy_settings, the jobs) load it
// on first use and register it under that name. A .cpp file is compiled first with the system compiler ($CXX, else
// c++) against ktune's headers, and the library is cached by the hash of the source, the compiler command and
// ktune's version ($KTUNE_PLUGIN_CACHE, else $XDG_CACHE_HOME/ktune/plugins, else ~/.cache/ktune/plugins), which keeps
// at most $KTUNE_PLUGIN_CACHE_MB (default 256) MiB, the least recently used going first.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ktune/tuning/strategy.hpp"

namespace ktune {

// Whether `name` names a plug-in file rather than a registered strategy.
bool is_strategy_plugin_path(std::string_view name);

// What a loaded plug-in says of itself.
struct StrategyPluginInfo {
  std::string path;           // as given
  std::string library;        // the shared library loaded (the compiled one for a .cpp)
  std::string declared_name;  // the name in its StrategyInfo
  std::string ktune_version;  // it was built against
  bool compiled = false;      // a .cpp compiled now (false: loaded, or taken from the cache)
  std::string compile_log;    // the compiler's output when compiled now (its warnings), cut at 4000 characters
};

// How a .cpp plug-in is built.
struct PluginBuild {
  // Code nobody reviewed (a language model's candidate, an --isolate plug-in): its #includes are checked before any
  // compiler reads it (ktune/tuning/plugin_include_check.hpp), it is compiled from a copy alone in a folder of its
  // own, and its compiler output is cut to the messages about its own file (compiler_output_filter.hpp).
  bool untrusted = false;
  // Where its library goes; empty: the plug-in cache. Candidates nobody asked for by name go elsewhere, so that the
  // cache holds only plug-ins a user named.
  std::string directory;
};

// Loads and registers the plug-in at `path` (once; later calls return what the first found) and returns its
// description. Throws HyperparameterError with a message naming the file: missing file, not a ktune plug-in,
// another ktune version or plug-in ABI, a .cpp that does not compile (its compiler output included), an untrusted
// .cpp that includes another file. A plug-in loaded before is checked again when asked for as untrusted.
StrategyPluginInfo load_strategy_plugin(const std::string& path, const PluginBuild& build = {});

// Compiles the .cpp plug-in at `path` as load_strategy_plugin() would, without loading it: `library` and the compile
// fields are set. A sandboxed worker compiles with it, then loads the library once its strategy filter is in place.
StrategyPluginInfo compile_strategy_plugin(const std::string& path, const PluginBuild& build);

// Opens the plug-in library `library` (dlopen: its static constructors run now), checks its ABI and ktune version and
// returns what its describe() gives, registering nothing; errors name `path`. `ktune_version`, if given, gets the
// version it was built against. A sandboxed worker makes an isolated plug-in's strategy with it.
StrategyInfo open_strategy_plugin(const std::string& path, const std::string& library,
                                  std::string* ktune_version = nullptr);

// Where a plug-in finds ktune's headers: $KTUNE_INCLUDE_DIRS (':'-separated), else an installed tree beside the
// running executable (PREFIX/bin/ktune -> PREFIX/include), else the build tree ktune was built in.
std::vector<std::string> plugin_include_directories();

// What a sandbox that compiles plug-ins must show and set for the compile in it to be the one ktune would run here:
// read-only, ktune's headers and, where there is one, their precompiled form (GCC only: the header and its .gch,
// built from ktune's own headers in the plug-in cache by the first call, in this trusted process; a candidate then
// compiles in about 0.8 s instead of 1.9 s); in its emptied environment, the compiler ($CXX, when set), the headers
// ($KTUNE_INCLUDE_DIRS) and the precompiled one ($KTUNE_PLUGIN_HEADERS). Compiles use a precompiled header when
// present and never build it themselves, since an untrusted one runs where nothing may be written.
struct PluginCompileView {
  std::vector<std::string> read_only;
  std::vector<std::pair<std::string, std::string>> environment;  // (name, value)
};
PluginCompileView plugin_compile_view();

}  // namespace ktune
