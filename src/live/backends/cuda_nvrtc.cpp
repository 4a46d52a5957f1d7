// CUDA source -> PTX/CUBIN with NVRTC (see cuda_nvrtc.hpp).
#ifdef KTUNE_HAVE_CUDA
#include "live/backends/cuda_nvrtc.hpp"

#include <nvrtc.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string_view>

#include <fmt/format.h>

namespace ktune::live::cuda {
namespace {

bool starts_with_any(std::string_view option, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return option.starts_with(p); });
}

// Calls that cannot fail for a valid program (sizes, logs); a failure means NVRTC itself is broken.
void check(nvrtcResult result, const char* call) {
  if (result != NVRTC_SUCCESS) {
    throw CompileError(fmt::format("NVRTC: {} failed: {}", call, nvrtcGetErrorString(result)), "");
  }
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* program) const {
    nvrtcDestroyProgram(program);
    delete program;
  }
};
using Program = std::unique_ptr<nvrtcProgram, ProgramDeleter>;

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0) return "";
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// The first line of the log that reports an error, for the exception's one-line message.
std::string first_error(const std::string& log) {
  std::size_t start = 0;
  while (start < log.size()) {
    std::size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    std::string_view line(log.data() + start, end - start);
    if (line.find("error") != std::string_view::npos) return std::string(line);
    start = end + 1;
  }
  return log.substr(0, log.find('\n'));
}

}  // namespace

std::vector<int> nvrtc_supported_architectures() {
  int count = 0;
  check(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> architectures(static_cast<std::size_t>(count));
  if (count > 0) check(nvrtcGetSupportedArchs(architectures.data()), "nvrtcGetSupportedArchs");
  std::sort(architectures.begin(), architectures.end());
  return architectures;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return fmt::format("{}.{}", major, minor);
}

std::string architecture_for(int capability, const std::vector<int>& supported) {
  if (supported.empty()) return fmt::format("compute_{}", capability);
  if (std::find(supported.begin(), supported.end(), capability) != supported.end()) {
    return fmt::format("sm_{}", capability);
  }
  int chosen = supported.front();
  for (int arch : supported) {
    if (arch <= capability) chosen = std::max(chosen, arch);
  }
  return fmt::format("compute_{}", chosen);
}

std::vector<std::string> toolkit_include_dirs() {
  std::vector<std::string> roots;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* home = std::getenv(variable); home != nullptr && *home != '\0') {
      roots.push_back((std::filesystem::path(home) / "include").string());
      break;
    }
  }
  roots.emplace_back(KTUNE_CUDA_INCLUDE_DIR);
  std::vector<std::string> dirs;
  std::error_code error;
  for (const std::string& root : roots) {
    if (!std::filesystem::is_regular_file(std::filesystem::path(root) / "cuda_fp16.h", error)) continue;
    dirs.push_back(root);
    std::filesystem::path cccl = std::filesystem::path(root) / "cccl";
    if (std::filesystem::is_directory(cccl, error)) dirs.push_back(cccl.string());
    break;  // one toolkit only: mixing versions' headers breaks compilation
  }
  return dirs;
}

std::vector<std::string> nvrtc_options(const std::vector<std::string>& user_options, const std::string& architecture,
                                       const std::vector<std::string>& include_dirs) {
  std::vector<std::string> options = user_options;
  bool has_standard = false, has_architecture = false;
  for (const std::string& option : user_options) {
    has_standard = has_standard || starts_with_any(option, {"-std", "--std"});
    has_architecture = has_architecture || starts_with_any(option, {"-arch", "--gpu-architecture"});
  }
  // C++17 rather than NVRTC's own default, so kernels behave the same with every toolkit version.
  if (!has_standard) options.emplace_back("--std=c++17");
  for (const std::string& dir : include_dirs) options.push_back("-I" + dir);
  if (!has_architecture && !architecture.empty()) options.push_back("--gpu-architecture=" + architecture);
  return options;
}

std::string source_with_defines(const KernelSource& source, const Defines& defines) {
  std::string text;
  for (const auto& [name, value] : defines) text += fmt::format("#define {} {}\n", name, value);
  if (!defines.empty()) text += "#line 1\n";
  text += source.code;
  return text;
}

NvrtcImage compile_with_nvrtc(const std::string& code, const std::string& program_name,
                              const std::string& kernel_name, const std::vector<std::string>& options) {
  Program program(new nvrtcProgram(nullptr));
  if (nvrtcResult result = nvrtcCreateProgram(program.get(), code.c_str(), program_name.c_str(), 0, nullptr, nullptr);
      result != NVRTC_SUCCESS) {
    *program = nullptr;  // nothing to destroy
    throw CompileError(fmt::format("NVRTC: cannot create program {}: {}", program_name, nvrtcGetErrorString(result)),
                       "");
  }
  check(nvrtcAddNameExpression(*program, kernel_name.c_str()), "nvrtcAddNameExpression");

  std::vector<const char*> option_pointers;
  option_pointers.reserve(options.size());
  for (const std::string& option : options) option_pointers.push_back(option.c_str());
  nvrtcResult result =
      nvrtcCompileProgram(*program, static_cast<int>(option_pointers.size()), option_pointers.data());
  NvrtcImage out;
  out.log = program_log(*program);
  if (result != NVRTC_SUCCESS) {
    throw CompileError(fmt::format("NVRTC could not compile kernel {} ({}): {}", kernel_name, nvrtcGetErrorString(result),
                                   out.log.empty() ? "no log" : first_error(out.log)),
                       out.log);
  }

  const char* lowered = nullptr;
  if (nvrtcResult found = nvrtcGetLoweredName(*program, kernel_name.c_str(), &lowered);
      found != NVRTC_SUCCESS || lowered == nullptr) {
    throw CompileError(fmt::format("NVRTC: no kernel named {} in {}", kernel_name, program_name), out.log);
  }
  out.lowered_name = lowered;

  // A real architecture (sm_XY) yields a CUBIN; a virtual one (compute_XY) only PTX.
  std::size_t size = 0;
  check(nvrtcGetCUBINSize(*program, &size), "nvrtcGetCUBINSize");
  if (size > 0) {
    out.cubin = true;
    out.image.resize(size);
    check(nvrtcGetCUBIN(*program, out.image.data()), "nvrtcGetCUBIN");
  } else {
    check(nvrtcGetPTXSize(*program, &size), "nvrtcGetPTXSize");
    out.image.resize(size);
    check(nvrtcGetPTX(*program, out.image.data()), "nvrtcGetPTX");  // NUL-terminated, as cuModuleLoadData wants
  }
  return out;
}

}  // namespace ktune::live::cuda
#endif
