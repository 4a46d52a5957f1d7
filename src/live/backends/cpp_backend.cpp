// The "cpp" live backend: a C or C++ host function, compiled per configuration by the system compiler into a shared
// library, loaded with dlopen and called through libffi (its signature is only known at run time).
//
// Conventions (documented for users):
//  - Vector arguments arrive as pointers to this backend's own host buffers (64-byte aligned); local-memory arguments
//    as a pointer to a scratch buffer of their size; scalars by value with their element type. A half scalar is
//    passed as its 16 raw bits (declare it uint16_t): C has no portable half type and libffi cannot pass _Float16.
//  - The function's return value is ignored; the time is a steady clock around the call. With
//    BackendOptions::time_from_return, Kernel Tuner's convention instead: the function returns its own time in ms as
//    a float (host code that times only its kernel region), and that is the launch's time.
//  - The code is compiled as C unless it is C++: a .cpp/.cc/.cxx/.C file, -std=c++.../-x c++ among the options, or
//    C++-only syntax (extern "C", namespace, template, ::, C++ standard headers). C++ functions need extern "C".
//  - Code containing "#pragma omp" is built with -fopenmp and its library is never unloaded: OpenMP runtimes keep
//    worker threads running inside the library, and unloading it under them crashes (Kernel Tuner does the same).
#include <dlfcn.h>
#include <fcntl.h>
#include <ffi.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "live/backends/backend_factories.hpp"
#include "live/c_string_literal.hpp"
#include "live/temporary_directory.hpp"
#include "runtime/host_cpu.hpp"

extern char** environ;

namespace ktune::live {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_words(const std::string& command) {
  std::istringstream in(command);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

struct CommandResult {
  int exit_code = -1;  // -1: did not start or was killed by a signal
  std::string output;  // stdout and stderr interleaved
};

// Runs argv (no shell, so nothing in the options is interpreted) with stdout+stderr captured in `log_file`.
CommandResult run_command(const std::vector<std::string>& argv, const fs::path& log_file) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // The compiler's own temporary files go in our directory too, so that they go with it whatever ends the compile
  // (a timeout kills the worker and the compiler; the directory is then removed by the worker's parent).
  std::vector<std::string> environment;
  for (char** e = environ; *e; ++e)
    if (!std::string_view(*e).starts_with("TMPDIR=")) environment.emplace_back(*e);
  environment.push_back("TMPDIR=" + log_file.parent_path().string());
  std::vector<char*> envp;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  CommandResult result;
  if (spawn_error != 0) {
    result.output = "cannot run '" + argv[0] + "': " + std::strerror(spawn_error);
    return result;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  std::ifstream log(log_file, std::ios::binary);
  result.output.assign(std::istreambuf_iterator<char>(log), std::istreambuf_iterator<char>());
  if (WIFSIGNALED(status)) result.output += "\n(killed by signal " + std::to_string(WTERMSIG(status)) + ")";
  return result;
}

bool has_option_prefix(const std::vector<std::string>& options, std::string_view prefix) {
  return std::any_of(options.begin(), options.end(), [&](const std::string& o) { return o.starts_with(prefix); });
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `word` occurs in `code` as a whole word.
bool has_word(const std::string& code, std::string_view word) {
  for (auto at = code.find(word); at != std::string::npos; at = code.find(word, at + 1)) {
    const bool starts = at == 0 || !is_identifier_char(code[at - 1]);
    const auto after = at + word.size();
    if (starts && (after == code.size() || !is_identifier_char(code[after]))) return true;
  }
  return false;
}

// Syntax that C does not have: keywords, scope resolution, extern "C", standard headers without ".h".
bool has_cplusplus_syntax(const std::string& code) {
  for (std::string_view word : {"namespace", "template", "class", "constexpr", "nullptr", "typename"})
    if (has_word(code, word)) return true;
  if (code.find("::") != std::string::npos || code.find("\"C\"") != std::string::npos) return true;
  for (auto at = code.find("#include"); at != std::string::npos; at = code.find("#include", at + 1)) {
    const auto open = code.find_first_not_of(" \t", at + 8);
    if (open == std::string::npos || code[open] != '<') continue;
    const auto close = code.find('>', open);
    if (close != std::string::npos && code.substr(open, close - open).find('.') == std::string::npos) return true;
  }
  return false;
}

// C or C++? An explicit choice in the options wins, then the file extension, then C++-only syntax in the code.
bool is_cplusplus(const KernelSource& source) {
  const auto& o = source.compiler_options;
  for (std::size_t i = 0; i + 1 < o.size(); ++i)
    if (o[i] == "-x") return o[i + 1] == "c++";
  if (has_option_prefix(o, "-xc++")) return true;
  if (has_option_prefix(o, "-xc")) return false;
  if (has_option_prefix(o, "-std=c++") || has_option_prefix(o, "-std=gnu++")) return true;
  if (has_option_prefix(o, "-std=")) return false;
  const std::string ext = fs::path(source.file).extension().string();
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".C" || ext == ".hpp" || ext == ".c++") return true;
  if (ext == ".c") return false;
  return has_cplusplus_syntax(source.code);
}

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return text.substr(0, end);
}

ffi_type* ffi_type_of(ElementType type) {
  switch (type) {
    case ElementType::int8: return &ffi_type_sint8;
    case ElementType::uint8: return &ffi_type_uint8;
    case ElementType::boolean: return &ffi_type_uint8;
    case ElementType::int16: return &ffi_type_sint16;
    case ElementType::uint16: return &ffi_type_uint16;
    case ElementType::float16: return &ffi_type_uint16;  // the raw bits, see the file comment
    case ElementType::int32: return &ffi_type_sint32;
    case ElementType::uint32: return &ffi_type_uint32;
    case ElementType::int64: return &ffi_type_sint64;
    case ElementType::uint64: return &ffi_type_uint64;
    case ElementType::float32: return &ffi_type_float;
    case ElementType::float64: return &ffi_type_double;
  }
  return &ffi_type_void;
}

// A 64-byte aligned host buffer: the "device" memory of this backend (aligned so vectorised kernels are not penalised).
class HostBuffer {
 public:
  explicit HostBuffer(std::size_t size) : size_(size) {
    const std::size_t rounded = std::max<std::size_t>(64, (size + 63) / 64 * 64);
    data_ = static_cast<std::byte*>(std::aligned_alloc(64, rounded));
    if (!data_) throw std::bad_alloc();
    std::memset(data_, 0, rounded);
  }
  ~HostBuffer() { std::free(data_); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  std::byte* data() { return data_; }
  std::size_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

class CppKernel final : public CompiledKernel {
 public:
  CppKernel(void* library, void* function, bool keep_loaded)
      : library_(library), function_(function), keep_loaded_(keep_loaded) {}
  ~CppKernel() override {
    if (!keep_loaded_) dlclose(library_);
  }
  CppKernel(const CppKernel&) = delete;
  CppKernel& operator=(const CppKernel&) = delete;
  void* function() const { return function_; }

 private:
  void* library_;
  void* function_;
  bool keep_loaded_;
};

class CppBackend final : public Backend {
 public:
  explicit CppBackend(const BackendOptions& options) : time_from_return_(options.time_from_return) {
    std::string command = options.compiler;
    if (command.empty()) {
      const char* cxx = std::getenv("CXX");
      command = cxx && *cxx ? cxx : "c++";
    }
    compiler_ = split_words(command);
    if (compiler_.empty()) throw BackendUnavailable("cpp backend: the compiler command is empty");
    TemporaryDirectory dir;
    std::vector<std::string> argv = compiler_;
    argv.push_back("--version");
    const CommandResult version = run_command(argv, dir.path() / "version.log");
    if (version.exit_code != 0)
      throw BackendUnavailable("cpp backend: the compiler '" + command + "' does not work (" + command +
                               " --version: " + first_line(version.output) +
                               "); set BackendOptions::compiler or $CXX");
    compiler_version_ = first_line(version.output);
  }

  std::string name() const override { return "cpp"; }

  DeviceInfo device_info() const override {
    DeviceInfo info;
    info.name = runtime::host_cpu_model_name();  // the runtime selects wisdom by this name
    info.platform = compiler_version_;
    info.max_threads = 0;
    std::string command;
    for (const auto& w : compiler_) command += (command.empty() ? "" : " ") + w;
    info.properties.emplace_back("compiler", command);
    info.properties.emplace_back("hardware_threads", std::to_string(std::thread::hardware_concurrency()));
    return info;
  }

  void set_arguments(std::span<const KernelArgument> arguments) override {
    initial_.assign(arguments.begin(), arguments.end());
    buffers_.clear();
    scalars_.assign(initial_.size(), {});
    types_.clear();
    for (std::size_t i = 0; i < initial_.size(); ++i) {
      const KernelArgument& a = initial_[i];
      if (a.scalar) {
        if (a.bytes.size() != element_size(a.type))
          throw std::invalid_argument("cpp backend: scalar argument '" + a.name + "' holds " +
                                      std::to_string(a.bytes.size()) + " bytes, expected " +
                                      std::to_string(element_size(a.type)));
        types_.push_back(ffi_type_of(a.type));
      } else {
        types_.push_back(&ffi_type_pointer);
      }
      buffers_.push_back(a.scalar ? nullptr : std::make_unique<HostBuffer>(a.bytes.size()));
      reset_argument(i);
    }
    // libffi keeps a pointer to types_, which does not change until the next set_arguments.
    if (ffi_prep_cif(&cif_, FFI_DEFAULT_ABI, static_cast<unsigned>(types_.size()),
                     time_from_return_ ? &ffi_type_float : &ffi_type_void,
                     types_.empty() ? nullptr : types_.data()) != FFI_OK)
      throw std::runtime_error("cpp backend: libffi cannot describe a call with these " +
                               std::to_string(types_.size()) + " arguments");
    prepared_ = true;
  }

  void reset_argument(std::size_t i) override {
    const KernelArgument& a = argument(i);
    if (a.scalar) {
      std::memcpy(&scalars_[i], a.bytes.data(), a.bytes.size());
    } else if (!a.local_memory) {
      std::memcpy(buffers_[i]->data(), a.bytes.data(), a.bytes.size());
    }
  }

  void read_argument(std::size_t i, std::span<std::byte> out) override {
    const KernelArgument& a = argument(i);
    if (out.size() != a.bytes.size())
      throw std::invalid_argument("cpp backend: reading argument '" + a.name + "' into " + std::to_string(out.size()) +
                                  " bytes, but it has " + std::to_string(a.bytes.size()));
    if (a.scalar) std::memcpy(out.data(), &scalars_[i], out.size());
    else std::memcpy(out.data(), buffers_[i]->data(), out.size());
  }

  std::unique_ptr<CompiledKernel> compile(const KernelSource& source, const Defines& defines) override {
    TemporaryDirectory dir;  // removed on return: the loaded library stays mapped
    return load_prebuilt(source, prebuild(source, defines, dir.path().string()));
  }

  bool supports_prebuild() const override { return true; }

  // The artifact is the directory: kernel.so, and compiler.log for the messages of a library that does not load.
  std::string prebuild(const KernelSource& source, const Defines& defines, const std::string& directory) override {
    const bool cxx = is_cplusplus(source);
    const bool openmp = source.code.find("#pragma omp") != std::string::npos;
    const fs::path dir(directory);
    const fs::path source_file = dir / (cxx ? "kernel.cpp" : "kernel.c");
    const fs::path library_file = dir / "kernel.so";
    {
      std::ofstream out(source_file, std::ios::binary);
      for (const auto& [name, value] : defines) out << "#define " << name << ' ' << value << '\n';
      // Compiler messages then point into the user's file and lines, not into our temporary copy.
      out << "#line 1";
      if (!source.file.empty()) out << " \"" << c_string_escaped(source.file) << '"';
      out << '\n';
      out << source.code << '\n';
      if (!out) throw std::runtime_error("cpp backend: cannot write " + source_file.string());
    }
    std::vector<std::string> argv = compiler_;
    for (const char* flag : {"-O3", "-shared", "-fPIC"}) argv.emplace_back(flag);
    if (openmp) argv.emplace_back("-fopenmp");
    argv.emplace_back("-x");
    argv.emplace_back(cxx ? "c++" : "c");
    if (cxx && !has_option_prefix(source.compiler_options, "-std=")) argv.emplace_back("-std=c++17");
    for (const std::string& folder : source.include_dirs) argv.push_back("-I" + folder);  // the kernel file's headers
    // The user's options come last so that they override ours (-O2 after -O3 wins).
    argv.insert(argv.end(), source.compiler_options.begin(), source.compiler_options.end());
    argv.push_back(source_file.string());
    argv.emplace_back("-o");
    argv.push_back(library_file.string());
    const CommandResult built = run_command(argv, dir / "compiler.log");
    if (built.exit_code != 0) {
      std::string message = "cpp backend: compiling '" + source.name + "'";
      if (!source.file.empty()) message += " from " + source.file;
      message += built.exit_code < 0 ? " failed: " + first_line(built.output)
                                     : " failed (compiler exit code " + std::to_string(built.exit_code) + ")";
      throw CompileError(message, built.output);
    }
    return directory;
  }

  std::unique_ptr<CompiledKernel> load_prebuilt(const KernelSource& source, const std::string& artifact) override {
    const bool cxx = is_cplusplus(source);
    const bool openmp = source.code.find("#pragma omp") != std::string::npos;
    const fs::path library_file = fs::path(artifact) / "kernel.so";
    // RTLD_NODELETE for OpenMP code: its runtime's threads must never see their code unmapped.
    void* library = dlopen(library_file.c_str(), RTLD_LOCAL | RTLD_NOW | (openmp ? RTLD_NODELETE : 0));
    if (!library) {
      const char* error = dlerror();
      throw CompileError("cpp backend: cannot load the compiled library", error ? error : "dlopen failed");
    }
    dlerror();
    void* function = dlsym(library, source.name.c_str());
    if (!function) {
      dlclose(library);
      std::string hint = cxx ? " (the code is compiled as C++: declare the function extern \"C\" so that its name is "
                               "not mangled)"
                             : "";
      std::ifstream log(fs::path(artifact) / "compiler.log", std::ios::binary);
      std::string output((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
      throw CompileError("cpp backend: no function named '" + source.name + "' in the compiled code" + hint, output);
    }
    return std::make_unique<CppKernel>(library, function, openmp);
  }

  double launch(CompiledKernel& kernel, const LaunchGeometry& /*geometry: the host code parallelises itself*/) override {
    auto* compiled = dynamic_cast<CppKernel*>(&kernel);
    if (!compiled) throw LaunchError("cpp backend: the kernel was not compiled by the cpp backend");
    if (!prepared_) throw LaunchError("cpp backend: launch before set_arguments");
    std::vector<void*> pointers(initial_.size(), nullptr);
    std::vector<void*> values(initial_.size(), nullptr);
    for (std::size_t i = 0; i < initial_.size(); ++i) {
      if (initial_[i].scalar) {
        values[i] = &scalars_[i];
      } else {
        pointers[i] = buffers_[i]->data();
        values[i] = &pointers[i];
      }
    }
    // libffi widens a returned float to a full register (ffi_arg) for the caller to narrow.
    ffi_arg returned = 0;
    const auto start = std::chrono::steady_clock::now();
    ffi_call(&cif_, FFI_FN(compiled->function()), time_from_return_ ? &returned : nullptr,
             values.empty() ? nullptr : values.data());
    const auto stop = std::chrono::steady_clock::now();
    if (!time_from_return_) return std::chrono::duration<double, std::milli>(stop - start).count();
    float reported = 0;
    std::memcpy(&reported, &returned, sizeof reported);
    if (!std::isfinite(reported) || reported < 0)
      throw LaunchError("cpp backend: the function returned " + std::to_string(reported) +
                        " as its time in ms (expected a float >= 0)");
    return reported;
  }

 private:
  const KernelArgument& argument(std::size_t i) const {
    if (i >= initial_.size())
      throw std::out_of_range("cpp backend: argument " + std::to_string(i) + " does not exist (there are " +
                              std::to_string(initial_.size()) + ")");
    return initial_[i];
  }

  // One scalar slot, aligned and large enough for any element type (libffi reads its value from here).
  struct alignas(8) ScalarSlot {
    std::byte bytes[8]{};
  };

  bool time_from_return_ = false;
  std::vector<std::string> compiler_;
  std::string compiler_version_;
  std::vector<KernelArgument> initial_;
  std::vector<std::unique_ptr<HostBuffer>> buffers_;
  std::vector<ScalarSlot> scalars_;
  std::vector<ffi_type*> types_;
  ffi_cif cif_{};
  bool prepared_ = false;
};

}  // namespace

std::unique_ptr<Backend> make_cpp_backend(const BackendOptions& options) {
  return std::make_unique<CppBackend>(options);
}

}  // namespace ktune::live
