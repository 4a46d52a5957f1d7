#pragma once
// The cache of compiled .cpp plug-ins the user asked for (--strategy file.cpp): one library per source, compiler and
// ktune version, named by their hash. It is bounded: after a library is stored, the least recently used ones beyond
// the bound go (a library is "used" when stored or loaded from the cache). Plug-ins nobody asked for by name, the
// candidates of `ktune design`, are never compiled into it.
#include <cstdint>
#include <filesystem>

namespace ktune::plugin_cache {

// $KTUNE_PLUGIN_CACHE, else $XDG_CACHE_HOME/ktune/plugins, else ~/.cache/ktune/plugins.
std::filesystem::path directory();

// $KTUNE_PLUGIN_CACHE_MB mebibytes (0: no bound), else 256 MiB.
std::uintmax_t size_bound();

// Marks `library` as just used (its modification time), so that it is evicted last.
void touch(const std::filesystem::path& library);

// Removes the least recently used files of `dir` until the rest fit in `bound` bytes, never `keep`, nor a compile in
// progress (a "*.partial" or "*.log" file younger than an hour). Returns the number of files removed.
std::size_t evict(const std::filesystem::path& dir, std::uintmax_t bound, const std::filesystem::path& keep);

}  // namespace ktune::plugin_cache
