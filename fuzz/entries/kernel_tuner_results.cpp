// Fuzz target "kernel_tuner_results": the input is the text of a Kernel Tuner results file (version 1.0), read as
// `ktune export` and create_device_targets read one: from a file, by read_kernel_tuner_results_file (the target
// writes the input to a scratch file of its own process first). Only io::InputError, naming the file. What is read
// holds together (every entry an object with its device, problem size, every tunable parameter and the numeric
// objective it was read with); kernel_tuner_results_text of it reads back to the same file and writes the same text
// again (a fixed point after one round); best_configuration (for every device, "default", an unknown device, with and
// without problem sizes) and device_targets_header throw only their documented std::invalid_argument, answer with
// the tunable parameters in the file's order, and take an entry's configuration (the best one of a device at a
// problem size it has entries for).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "fuzz_entries.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/kernel_tuner_results_file.hpp"

namespace {

using namespace ktune;
using ktune::fuzz::check;
using ordered_json = nlohmann::ordered_json;

// The scratch file: one per process (the replay test and a fuzzer may run at once), removed at exit. In memory
// (/dev/shm) where there is one: on ext4 every rewrite of a truncated file is flushed to disk on close, which made
// the target wait for the disk most of the time (300 executions/s).
struct ScratchFile {
  std::string path = (scratch_directory() / ("ktune_fuzz_kernel_tuner_results_" + std::to_string(::getpid()) +
                                             ".json"))
                         .string();
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
  static std::filesystem::path scratch_directory() {
    std::error_code ignored;
    if (std::filesystem::is_directory("/dev/shm", ignored) && ::access("/dev/shm", W_OK) == 0) return "/dev/shm";
    return std::filesystem::temp_directory_path();
  }
};

const std::string& scratch_path() {
  static const ScratchFile file;
  return file.path;
}

io::KernelTunerResultsFile read_text(const std::string& text) {
  {
    std::error_code ignored;
    std::filesystem::remove(scratch_path(), ignored);  // a new file, not a truncated one (flushed on close by ext4)
    std::ofstream out(scratch_path(), std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    check(static_cast<bool>(out.flush()), "cannot write the scratch file " + scratch_path());
  }
  return io::read_kernel_tuner_results_file(scratch_path());
}

std::vector<std::string> unique_parameters(const io::KernelTunerResultsFile& file) {
  std::vector<std::string> out;
  for (const auto& p : file.parameters)
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  return out;
}

ordered_json in_file_order(const ordered_json& parameters, const std::vector<std::string>& names) {
  ordered_json out = ordered_json::object();
  for (const auto& name : names) out[name] = parameters.at(name);
  return out;
}

void check_holds_together(const io::KernelTunerResultsFile& file) {
  for (std::size_t i = 0; i < file.entries.size(); ++i) {
    const auto& e = file.entries[i];
    const std::string which = "entry " + std::to_string(i + 1);
    check(e.json.is_object(), which + ": not an object");
    check(e.json.contains("device_name") && e.json["device_name"] == e.device_name, which + ": another device name");
    check(e.json.contains("problem_size") && e.json["problem_size"] == e.problem_size,
          which + ": another problem size");
    check(e.json.contains("tunable_parameters") && e.parameters().is_object(), which + ": no tunable parameters");
    for (const auto& p : file.parameters) check(e.parameters().contains(p), which + ": no value for '" + p + "'");
    check(e.json.contains(file.objective) && e.json[file.objective].is_number() &&
              e.json[file.objective].get<double>() == e.value,
          which + ": the value is not the objective's");
  }
}

bool same_file(const io::KernelTunerResultsFile& a, const io::KernelTunerResultsFile& b) {
  if (a.kernel_name != b.kernel_name || a.kernel_string != b.kernel_string || a.objective != b.objective ||
      a.higher_is_better != b.higher_is_better || a.parameters != b.parameters || a.entries.size() != b.entries.size())
    return false;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const auto &x = a.entries[i], &y = b.entries[i];
    if (x.device_name != y.device_name || x.problem_size != y.problem_size || x.value != y.value || x.json != y.json)
      return false;
  }
  return true;
}

void check_best_configuration(const io::KernelTunerResultsFile& file, const std::string& device,
                              const std::optional<std::string>& size) {
  const std::string what = "best_configuration('" + device + "', '" + size.value_or("(none)") + "')";
  ordered_json best;
  try {
    best = io::best_configuration(file, device, size);
  } catch (const std::invalid_argument& e) {
    check(file.entries.empty(), what + " refuses a file with entries: " + e.what());
    return;
  }
  check(!file.entries.empty(), what + " answers for a file without entries");
  const std::vector<std::string> names = unique_parameters(file);
  check(best.is_object() && best.size() == names.size(), what + ": not the tunable parameters: " + best.dump());
  std::size_t n = 0;
  for (const auto& [name, value] : best.items()) check(name == names[n++], what + ": parameters out of order");
  // Some entry's configuration; at a device's problem size with entries, the best of those.
  const std::string normalised = io::kernel_tuner_device_name(device);
  const io::KernelTunerResultsEntry* best_here = nullptr;
  bool found = false;
  for (const auto& e : file.entries) {
    found = found || in_file_order(e.parameters(), names) == best;
    if (size && !size->empty() && e.device_name == normalised && e.problem_size == *size &&
        (!best_here || (file.higher_is_better ? e.value > best_here->value : e.value < best_here->value)))
      best_here = &e;
  }
  check(found, what + ": a configuration of no entry: " + best.dump());
  if (best_here)
    check(in_file_order(best_here->parameters(), names) == best,
          what + ": not the best entry of the device at that size: " + best.dump());
}

void check_queries(const io::KernelTunerResultsFile& file) {
  // A few of each, so that a file of many entries stays fast.
  std::vector<std::string> devices = {"default", "an unknown device"};
  std::vector<std::optional<std::string>> sizes = {std::nullopt, std::string()};
  for (const auto& e : file.entries) {
    if (devices.size() < 8 && std::find(devices.begin(), devices.end(), e.device_name) == devices.end())
      devices.push_back(e.device_name);
    if (sizes.size() < 6 && std::find(sizes.begin(), sizes.end(), e.problem_size) == sizes.end())
      sizes.push_back(e.problem_size);
  }
  for (const auto& device : devices)
    for (const auto& size : sizes) check_best_configuration(file, device, size);

  std::string header;
  try {
    header = io::device_targets_header(file);
  } catch (const std::invalid_argument&) {
    return;  // no entries, or a value without a C literal (an object, a list of lists, ...)
  }
  check(!file.entries.empty(), "device_targets_header answers for a file without entries");
  for (const auto& e : file.entries)
    check(header.find("TARGET_" + e.device_name + "\n") != std::string::npos,
          "the header has no target for device '" + e.device_name + "'");
}

}  // namespace

int ktune_fuzz_kernel_tuner_results(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  io::KernelTunerResultsFile file;
  try {
    file = read_text(text);
  } catch (const io::InputError& e) {
    check(e.file() == scratch_path(), "InputError names '" + e.file() + "', not the file: " + e.what());
    return 0;
  }
  check_holds_together(file);

  const std::string first = io::kernel_tuner_results_text(file);
  io::KernelTunerResultsFile again;
  try {
    again = read_text(first);
  } catch (const io::InputError& e) {
    check(false, "a results file written from what was read does not read back: " + std::string(e.what()) + "\n" +
                     first);
  }
  check(same_file(file, again), "the round trip changed what was read:\n" + first);
  const std::string second = io::kernel_tuner_results_text(again);
  check(second == first, "writing what was read back gives other text:\n" + first + "\n---\n" + second);

  check_queries(file);
  return 0;
}
