// The host CPU as a runtime device: a configuration is compiled into a shared library by the C/C++ compiler, the
// way ktune's cpp backend compiles it for tuning (so the application runs what was measured), then called directly.
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "ktune/runtime/device.hpp"
#include "ktune/runtime/kernel_definition.hpp"
#include "runtime/host_cpu.hpp"

extern char** environ;

namespace ktune::runtime {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// A directory of our own under $TMPDIR, removed with everything in it.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ktune-runtime-XXXXXX";
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cpp device: cannot create a directory in " + pattern);
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs argv with its output into `log`; the exit code, or -1 when it could not start.
int run(const std::vector<std::string>& argv, const fs::path& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int started = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class CppKernel final : public CompiledKernel {
 public:
  CppKernel(void* library, void* function) : library_(library), function_(function) {}
  ~CppKernel() override { ::dlclose(library_); }
  void* function() const { return function_; }

 private:
  void* library_;
  void* function_;
};

class CppDevice final : public Device {
 public:
  CppDevice() : name_(host_cpu_model_name()) {
    const char* cxx = std::getenv("CXX");
    compiler_ = split_words(cxx && *cxx ? cxx : "c++");
    if (compiler_.empty()) compiler_ = {"c++"};
  }

  std::string name() const override { return name_; }
  std::string backend() const override { return "cpp"; }

  std::unique_ptr<CompiledKernel> compile(const KernelDefinition& def, const std::string& source,
                                          const Defines& defines) override {
    const bool cxx = def.language() != "C" && def.language() != "c";
    const bool openmp = source.find("#pragma omp") != std::string::npos;
    ScratchDirectory dir;  // the loaded library stays mapped after it is removed
    const fs::path source_file = dir.path() / (cxx ? "kernel.cpp" : "kernel.c");
    const fs::path library_file = dir.path() / "kernel.so";
    {
      std::ofstream out(source_file, std::ios::binary);
      for (const auto& [name, value] : defines) out << "#define " << name << ' ' << value << '\n';
      // Compiler messages point into the user's file (its name escaped as a C string).
      std::string file;
      for (const char c : def.has_source_code() ? def.name() : def.source_file()) {
        if (c == '\\' || c == '"') file += '\\';
        file += c;
      }
      out << "#line 1 \"" << file << "\"\n" << source << '\n';
      if (!out) throw std::runtime_error("cpp device: cannot write " + source_file.string());
    }
    std::vector<std::string> argv = compiler_;
    for (const char* flag : {"-O3", "-shared", "-fPIC"}) argv.emplace_back(flag);
    if (openmp) argv.emplace_back("-fopenmp");
    argv.emplace_back("-x");
    argv.emplace_back(cxx ? "c++" : "c");
    bool has_std = false;
    for (const auto& o : def.compiler_options()) has_std = has_std || o.starts_with("-std=");
    if (cxx && !has_std) argv.emplace_back("-std=c++17");
    argv.insert(argv.end(), def.compiler_options().begin(), def.compiler_options().end());
    argv.push_back(source_file.string());
    argv.emplace_back("-o");
    argv.push_back(library_file.string());
    const fs::path log = dir.path() / "compiler.log";
    const int exit_code = run(argv, log);
    if (exit_code != 0) {
      std::ifstream in(log);
      std::ostringstream text;
      text << in.rdbuf();
      throw std::runtime_error("cpp device: compiling kernel '" + def.name() + "' with " + compiler_[0] +
                               (exit_code < 0 ? " could not start" : " failed") + ":\n" + text.str());
    }
    // RTLD_NODELETE for OpenMP code: its runtime's threads must never see their code unmapped.
    void* library = ::dlopen(library_file.c_str(), RTLD_LOCAL | RTLD_NOW | (openmp ? RTLD_NODELETE : 0));
    if (!library) throw std::runtime_error(std::string("cpp device: cannot load the compiled kernel: ") + ::dlerror());
    void* function = ::dlsym(library, def.function_name().c_str());
    if (!function) {
      ::dlclose(library);
      throw std::runtime_error("cpp device: the compiled code has no function '" + def.function_name() +
                               "' (C++ needs extern \"C\")");
    }
    return std::make_unique<CppKernel>(library, function);
  }

  void launch(CompiledKernel& kernel, const LaunchGeometry&, std::span<const Argument>, const CppCall& call,
              std::span<void* const> substitutes) override {
    call.invoke(call.self, static_cast<CppKernel&>(kernel).function(), substitutes);
  }

 private:
  std::string name_;
  std::vector<std::string> compiler_;
};

}  // namespace

std::string host_cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.starts_with("model name")) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(colon + 1);
        name.erase(0, name.find_first_not_of(" \t"));
        return name;
      }
    }
  }
  return "unknown CPU";
}

std::shared_ptr<Device> cpp_device() { return std::make_shared<CppDevice>(); }

}  // namespace ktune::runtime
