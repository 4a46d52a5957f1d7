#pragma once
// ktune's plug-in headers, precompiled. A .cpp plug-in (a `ktune design` candidate above all) spends most of its
// compile parsing the same ~390 headers: with GCC's precompiled header it compiles in about 0.8 s instead of 1.9 s.
// The header is built once per compiler, flags and ktune version, from ktune's own headers only (never from a
// plug-in's text), and kept in the plug-in cache folder (or $KTUNE_PLUGIN_HEADERS_CACHE), whose bound and eviction it
// shares.
#include <filesystem>
#include <optional>
#include <string>

namespace ktune::plugin_headers {

// Where they are kept: $KTUNE_PLUGIN_HEADERS_CACHE, else the plug-in cache (plugin_cache::directory()).
std::filesystem::path directory();

// Where that header is kept in `dir`: named by a hash of the compiler, the flags, ktune's version and the text of
// every ktune header under the flags' -I folders, so an edited header is never served from an old .gch.
std::filesystem::path header_path(const std::string& cxx, const std::string& flags, const std::filesystem::path& dir);

// The header to force-include (-include) with `flags`, its .gch beside it in `dir`; built there first if it is not
// there and `build`. nullopt when the compiler is not GCC (Clang reads only its own format), it is not there, or the
// build failed: the plug-in then compiles from the headers' text, as before.
std::optional<std::filesystem::path> precompiled(const std::string& cxx, const std::string& flags,
                                                 const std::filesystem::path& dir, bool build);

}  // namespace ktune::plugin_headers
