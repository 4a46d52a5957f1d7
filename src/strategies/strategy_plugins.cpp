#include "ktune/tuning/strategy_plugins.hpp"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "ktune/plugin.hpp"
#include "ktune/tuning/compiler_output_filter.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "ktune/tuning/plugin_include_check.hpp"
#include "strategies/plugin_cache.hpp"
#include "strategies/plugin_files.hpp"
#include "strategies/plugin_headers.hpp"
#include "strategies/registry.hpp"

#ifndef KTUNE_PLUGIN_INCLUDE_DIRS
#define KTUNE_PLUGIN_INCLUDE_DIRS ""
#endif

namespace ktune {
namespace {

namespace fs = std::filesystem;
using plugin_files::ends_with;
using plugin_files::fnv1a;
using plugin_files::read_file;
using plugin_files::refuse;
using plugin_files::shell_quoted;

}  // namespace

std::vector<std::string> plugin_include_directories() {
  std::string dirs;
  if (const char* env = std::getenv("KTUNE_INCLUDE_DIRS"); env && *env) {
    dirs = env;
  } else {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    const fs::path installed = exe.parent_path().parent_path() / "include";
    dirs = !ec && fs::exists(installed / "ktune" / "plugin.hpp") && fs::exists(installed / "ktune" / "version.hpp")
               ? installed.string()
               : std::string(KTUNE_PLUGIN_INCLUDE_DIRS);
  }
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', pos), dirs.size());
    if (end > pos) out.push_back(dirs.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

namespace {

// The compiler and flags of every .cpp plug-in compile.
std::string plugin_compiler() {
  const char* cxx = std::getenv("CXX");
  return cxx && *cxx ? cxx : "c++";
}
std::string plugin_flags() {
  std::string flags = "-std=c++20 -O2 -fPIC -shared -DNDEBUG";
  for (const auto& dir : plugin_include_directories()) flags += " -I" + shell_quoted(dir);
  return flags;
}

}  // namespace

PluginCompileView plugin_compile_view() {
  PluginCompileView view;
  view.read_only = plugin_include_directories();
  std::string dirs;
  for (const auto& dir : view.read_only) dirs += (dirs.empty() ? "" : ":") + dir;
  view.environment = {{"KTUNE_INCLUDE_DIRS", dirs}};
  if (const char* cxx = std::getenv("CXX"); cxx && *cxx) view.environment.emplace_back("CXX", cxx);
  if (const auto header =
          plugin_headers::precompiled(plugin_compiler(), plugin_flags(), plugin_headers::directory(), true)) {
    view.read_only.push_back(header->string());
    view.read_only.push_back(header->string() + ".gch");
    view.environment.emplace_back("KTUNE_PLUGIN_HEADERS", header->string());
  }
  return view;
}

namespace {

// A folder of its own for an untrusted plug-in's source copy, removed with this object.
class ScratchFolder {
 public:
  explicit ScratchFolder(const fs::path& parent) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    std::string name = (parent / "source-XXXXXX").string();
    if (::mkdtemp(name.data())) path_ = name;
  }
  ~ScratchFolder() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Compiles a .cpp plug-in into `build.directory` or the cache (unless it is there already) and returns the library's
// path; `log` gets the compiler's output (warnings).
std::string compiled_plugin(const std::string& path, const PluginBuild& build, bool& compiled, std::string& log_text) {
  const std::string source = read_file(path);
  // Before any compiler sees it: an untrusted source names no file but ktune's headers and the standard library.
  if (build.untrusted)
    if (const auto why = refused_include(source)) refuse(path, *why);
  const std::string cxx = plugin_compiler();
  const std::string flags = plugin_flags();
  const std::uint64_t key =
      fnv1a(fmt::format("{}\n{}\n{}\n{}", cxx, flags, kVersionString, kPluginAbiVersion), fnv1a(source));
  const bool cached = build.directory.empty();
  const fs::path dir = cached ? plugin_cache::directory() : fs::path(build.directory);
  const fs::path library = dir / fmt::format("{}-{:016x}.so", fs::path(path).stem().string(), key);
  compiled = false;
  if (fs::exists(library)) {
    if (cached) plugin_cache::touch(library);
    return library.string();
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) refuse(path, fmt::format("cannot create the plug-in folder {}: {}", dir.string(), ec.message()));
  // Untrusted: compiled from a copy of the text just checked, alone in its folder, so that a quoted #include finds
  // nothing beside it and a change to the file after the check is not compiled.
  std::optional<ScratchFolder> scratch;
  fs::path compiled_source = path;
  if (build.untrusted) {
    scratch.emplace(cached ? fs::temp_directory_path() : dir);
    if (scratch->path().empty()) refuse(path, fmt::format("cannot create a folder for its source in {}", dir.string()));
    compiled_source = scratch->path() / fs::path(path).filename();
    std::ofstream(compiled_source, std::ios::binary) << source;
  }
  // Compile beside the final name and rename: a concurrent ktune never loads half a library.
  const fs::path partial = library.string() + fmt::format(".{}.partial", ::getpid());
  const fs::path log = library.string() + fmt::format(".{}.log", ::getpid());
  // ktune's headers precompiled (GCC), where a parent prepared them ($KTUNE_PLUGIN_HEADERS in a sandbox) or the cache
  // holds them: the same declarations, read in a fraction of the time. Only used, never built here.
  std::string compile_flags = flags;
  const char* prepared = std::getenv("KTUNE_PLUGIN_HEADERS");
  const fs::path pch_dir = prepared && *prepared ? fs::path(prepared).parent_path() : plugin_headers::directory();
  if (const auto pch = plugin_headers::precompiled(cxx, flags, pch_dir, false))
    compile_flags += " -Winvalid-pch -include " + shell_quoted(pch->string());
  const std::string command =
      fmt::format("{} {} {} -o {} > {} 2>&1", cxx, compile_flags, shell_quoted(compiled_source.string()),
                  shell_quoted(partial.string()), shell_quoted(log.string()));
  const int status = std::system(command.c_str());
  const std::string output = read_file(log.string());
  fs::remove(log, ec);
  // Untrusted: only what the compiler says of the plug-in's own file; a message about another file may quote it.
  const std::string shown =
      build.untrusted ? own_diagnostics(output, compiled_source.string())
                      : output.substr(0, 4000) + (output.size() > 4000 ? std::string("\n...") : std::string());
  log_text = build.untrusted ? shown : output.substr(0, 4000);
  if (status != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fs::remove(partial, ec);
    if (build.untrusted) refuse(path, fmt::format("does not compile ({}):\n{}", cxx, shown));
    refuse(path, fmt::format("does not compile ({} {} ...):\n{}", cxx, path, shown));
  }
  fs::rename(partial, library, ec);
  if (ec) refuse(path, fmt::format("cannot store the compiled plug-in in {}: {}", dir.string(), ec.message()));
  if (cached) plugin_cache::evict(dir, plugin_cache::size_bound(), library);
  compiled = true;
  return library.string();
}

struct Loaded {
  StrategyPluginInfo info;
  bool untrusted = false;  // its source passed the include check
};

std::mutex& loader_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, Loaded>& loaded() {
  static std::map<std::string, Loaded> m;
  return m;
}

}  // namespace

bool is_strategy_plugin_path(std::string_view name) { return ends_with(name, ".so") || ends_with(name, ".cpp"); }

StrategyInfo open_strategy_plugin(const std::string& path, const std::string& library_path,
                                  std::string* ktune_version) {
  // A relative path without a slash would make dlopen search the library path instead of opening this file.
  const std::string library = fs::absolute(library_path).string();
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) refuse(path, fmt::format("cannot be loaded: {}", ::dlerror()));
  // The library stays loaded for the life of the process: its strategies' code runs until then.
  using Entry = const StrategyPluginDescriptor* (*)();
  auto entry = reinterpret_cast<Entry>(::dlsym(handle, "ktune_strategy_plugin"));
  if (!entry)
    refuse(path, "is not a ktune strategy plug-in (it exports no ktune_strategy_plugin(); see ktune/plugin.hpp)");
  const StrategyPluginDescriptor* d = entry();
  if (!d || d->abi_version != kPluginAbiVersion)
    refuse(path, fmt::format("was built for plug-in ABI {} (ktune {}); this ktune {} needs ABI {}: rebuild it against "
                             "this ktune's headers",
                             d ? d->abi_version : 0, d && d->ktune_version ? d->ktune_version : "?", kVersionString,
                             kPluginAbiVersion));
  const std::string version = d->ktune_version ? d->ktune_version : "";
  if (ktune_version) *ktune_version = version;
  if (version != kVersionString)
    refuse(path, fmt::format("was built against ktune {}; this is ktune {}: rebuild it against this ktune's headers",
                             version, kVersionString));
  if (d->cxx11_abi != detail::kCxx11Abi)
    refuse(path, "was built with another C++ standard library ABI (_GLIBCXX_USE_CXX11_ABI); rebuild it");
  StrategyInfo strategy;
  try {
    strategy = d->describe();
  } catch (const std::exception& e) {
    refuse(path, fmt::format("describing its strategy failed: {}", e.what()));
  }
  return strategy;
}

StrategyPluginInfo compile_strategy_plugin(const std::string& path, const PluginBuild& build) {
  if (!ends_with(path, ".cpp")) refuse(path, "only a .cpp plug-in is compiled");
  if (!fs::is_regular_file(path)) refuse(path, "no such file");
  StrategyPluginInfo info;
  info.path = path;
  info.library = compiled_plugin(path, build, info.compiled, info.compile_log);
  return info;
}

StrategyPluginInfo load_strategy_plugin(const std::string& path, const PluginBuild& build) {
  const std::lock_guard lock(loader_mutex());
  if (const auto it = loaded().find(path); it != loaded().end()) {
    // Loaded as trusted before and asked for as untrusted now: its source must pass the check all the same.
    if (build.untrusted && !it->second.untrusted && ends_with(path, ".cpp"))
      if (const auto why = refused_include(read_file(path))) refuse(path, *why);
    return it->second.info;
  }
  if (path.empty()) refuse(path, "no file named (a plug-in is a .so library or a .cpp source file)");
  if (!is_strategy_plugin_path(path)) refuse(path, "a plug-in is a .so library or a .cpp source file");
  plugin_files::check_is_file(path);

  StrategyPluginInfo info;
  info.path = path;
  info.library = ends_with(path, ".cpp") ? compiled_plugin(path, build, info.compiled, info.compile_log) : path;
  StrategyInfo strategy;
  try {
    strategy = open_strategy_plugin(path, info.library, &info.ktune_version);
  } catch (const HyperparameterError&) {
    // A library found compiled already that does not open: another ktune's cache bound removed it between the check
    // and the load, or it is damaged. Compiled again, once; a second failure is the plug-in's.
    if (!ends_with(path, ".cpp") || info.compiled) throw;
    std::error_code ec;
    fs::remove(info.library, ec);
    info.library = compiled_plugin(path, build, info.compiled, info.compile_log);
    strategy = open_strategy_plugin(path, info.library, &info.ktune_version);
  }
  info.declared_name = strategy.name;
  if (!strategy.make) refuse(path, "its strategy has no factory");
  strategy.name = path;  // registered under the name it is used by
  strategy.description = fmt::format("plug-in '{}': {}", info.declared_name, strategy.description);
  if (!strategies::find_registered_strategy(path)) register_strategy(std::move(strategy));
  loaded()[path] = Loaded{info, build.untrusted};
  return info;
}

}  // namespace ktune
