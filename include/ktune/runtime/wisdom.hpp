#pragma once
// Wisdom: the tuned configurations of kernels per device and problem size, as an application uses them at run time.
// Part of ktune::runtime (small, no dependencies beyond the C++ standard library): an application links it without
// the tuner. The tuner writes wisdom (`ktune export --wisdom`, `ktune tune --wisdom`); docs/integration.md has the
// file format and the selection rules.
//
// select() answers in this order: the same device at the same problem size (exact); the same device at the nearest
// tuned problem size (distance on a log scale per dimension); a device of the same family (device_family()) at the
// nearest size; any device at the nearest size; the kernel's default configuration.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::runtime {

// A wisdom file that cannot be read or parsed; the message names the file and line.
class WisdomError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A problem size of 1 to 3 dimensions (a missing dimension counts as 1).
using ProblemSize = std::vector<std::int64_t>;
// "1024x512": Kernel Tuner's spelling, used in wisdom files and messages. parse_problem_size throws
// std::invalid_argument for anything but 1 to 3 positive integers joined by 'x'.
std::string format_problem_size(std::span<const std::int64_t> size);
ProblemSize parse_problem_size(std::string_view text);

// The family of a device: its name in lower case up to the first word with a digit, and of that word its leading
// letters and first digit ("NVIDIA GeForce RTX 3090" -> "nvidia geforce rtx 3", "NVIDIA A100-PCIE-40GB" ->
// "nvidia a1", "AMD Instinct MI250X" -> "amd instinct mi2"). A generation of one product line, from the name alone.
std::string device_family(std::string_view device_name);
// Kernel Tuner's spelling of a device in its results files: every run of non-alphanumeric characters becomes '_'.
std::string normalised_device_name(std::string_view device_name);

// One tuned configuration: the best one measured for a kernel on a device at a problem size.
struct WisdomEntry {
  std::string device;                   // as the device reports it (CL_DEVICE_NAME, the CPU's model name)
  ProblemSize problem_size;             // as tuned
  std::string objective = "time";       // what was optimised, and the best value found
  bool higher_is_better = false;
  double value = 0;
  std::vector<std::string> values;      // in the kernel's parameter order, as C literals (what #define gets)
  // How it was measured: device_vendor, platform, compiler, compiler_options, source_hash, ktune_version, date,
  // strategy, evaluations, ... (free-form; written and read back as they are).
  std::map<std::string, std::string> provenance;
};

struct WisdomKernel {
  std::string name;
  std::vector<std::string> parameters;      // the tunable parameters, in order
  std::vector<std::string> default_values;  // the configuration to use when nothing was tuned (may be empty)
  std::vector<WisdomEntry> entries;
};

// How select() chose.
enum class SelectionRule : unsigned char {
  exact,                 // this device, this problem size
  nearest_problem_size,  // this device, the nearest tuned problem size
  device_family,         // a device of the same family, the nearest problem size
  any_device,            // another device, the nearest problem size
  kernel_default,        // the kernel's default configuration in the wisdom
  none,                  // the kernel has neither tuned entries nor a default here: the caller's default applies
};
std::string_view to_string(SelectionRule rule);

struct Selection {
  SelectionRule rule = SelectionRule::none;
  const WisdomKernel* kernel = nullptr;  // null when the kernel is not in the wisdom
  const WisdomEntry* entry = nullptr;    // the tuned entry chosen (null for kernel_default and none)
  // The configuration chosen, in kernel->parameters' order (empty for none).
  std::span<const std::string> values;
  // "exact: tuned on NVIDIA A100 at 1048576 (time 0.125)", "nearest problem size: tuned on ... at 4096 for 1000".
  std::string describe(std::span<const std::int64_t> requested_size = {}) const;
};

class Wisdom {
 public:
  Wisdom();
  ~Wisdom();
  Wisdom(Wisdom&&) noexcept;
  Wisdom& operator=(Wisdom&&) noexcept;
  Wisdom(const Wisdom&) = delete;
  Wisdom& operator=(const Wisdom&) = delete;

  // Reads a wisdom file; WisdomError naming the file and line on any error.
  static Wisdom load(const std::string& path);
  // Reads wisdom text ("where" names it in messages).
  static Wisdom parse(std::string_view text, std::string_view where = "wisdom");
  // Writes the whole wisdom in the file format (kernels by name, entries by device and problem size).
  void write(std::ostream& out) const;
  // write() to a temporary file beside `path`, flushed and renamed over it: a reader never sees half a file.
  void save(const std::string& path) const;
  // Read-modify-write of a wisdom file under an exclusive lock (PATH.lock), so that several processes adding to one
  // file lose nothing: loads it (an absent file is empty wisdom), applies `change`, saves. What `change` throws
  // passes through and leaves the file as it was.
  static void update(const std::string& path, const std::function<void(Wisdom&)>& change);

  // Declares a kernel or checks it against its earlier declaration (same parameters in the same order, or
  // WisdomError); a non-empty default replaces the earlier one. Returns the kernel.
  WisdomKernel& declare(std::string_view kernel, std::span<const std::string> parameters,
                        std::span<const std::string> default_values = {});
  // Adds a tuned entry for a declared kernel; one with the same device and problem size is replaced (the newer one
  // wins): returns true then. std::invalid_argument for an unknown kernel or a wrong number of values.
  bool add(std::string_view kernel, WisdomEntry entry);
  // Every entry of `other` (declaring its kernels), as add() does.
  void merge(const Wisdom& other);

  const WisdomKernel* find(std::string_view kernel) const;
  std::span<const WisdomKernel> kernels() const;

  // The configuration to use (see the file comment). The answer for a (kernel, device, size) is remembered: after
  // the first call it is one hash lookup. Thread-safe; declare/add/merge are not, forget remembered answers and
  // invalidate the pointers of earlier Selections.
  Selection select(std::string_view kernel, std::string_view device, std::span<const std::int64_t> problem_size) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The wisdom file named by $KTUNE_WISDOM, or null when it is unset or empty (launches then use their defaults).
// WisdomError when the file cannot be read.
std::shared_ptr<const Wisdom> wisdom_from_environment();

}  // namespace ktune::runtime
