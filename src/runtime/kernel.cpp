#include "ktune/runtime/kernel.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "ktune/runtime/capture.hpp"
#include "runtime/capture_writer.hpp"

namespace ktune::runtime {
namespace {

constexpr std::uint64_t kDefaultBlock[3] = {256, 1, 1};
constexpr char kAxis[3] = {'x', 'y', 'z'};

std::uint64_t positive_integer(const std::string& text, const std::string& what) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1)
    throw std::invalid_argument(what + ": '" + text + "' is not a positive integer");
  return static_cast<std::uint64_t>(n);
}

std::function<void(std::string_view)> default_log() {
  const char* level = std::getenv("KTUNE_LOG");
  if (!level || (std::string_view(level) != "debug" && std::string_view(level) != "1")) return {};
  return [](std::string_view line) { std::cerr << "ktune: " << line << '\n'; };
}

std::string read_source(const KernelDefinition& def) {
  if (def.has_source_code()) return def.source_code();
  std::ifstream in(def.source_file(), std::ios::binary);
  if (!in) throw std::runtime_error("kernel '" + def.name() + "': cannot read its source '" + def.source_file() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

struct Kernel::State {
  KernelDefinition def;
  std::shared_ptr<Device> device;
  std::shared_ptr<const Wisdom> wisdom;
  std::string device_name;
  std::string source;
  bool source_loaded = false;
  std::map<ProblemSize, Choice> choices;
  Choice* last = nullptr;
  std::map<std::string, std::unique_ptr<CompiledKernel>> compiled;
  std::function<void(std::string_view)> log = default_log();
  std::string capture_dir;  // "" unless capturing
  std::set<ProblemSize> captured;
  // Per dimension: the parameter that is the block size (-1: Kernel Tuner's default size), and the grid divisors
  // (a parameter index, or -1 with the integer in `fixed`).
  std::array<int, 3> block_parameter{-1, -1, -1};
  std::array<std::vector<std::pair<int, std::uint64_t>>, 3> divisors;

  State(KernelDefinition d, std::shared_ptr<Device> dev, std::shared_ptr<const Wisdom> w)
      : def(std::move(d)), device(std::move(dev)), wisdom(std::move(w)) {}

  int parameter_index(const std::string& name) const {
    const auto& ps = def.parameters();
    for (std::size_t i = 0; i < ps.size(); ++i)
      if (ps[i].name == name) return static_cast<int>(i);
    return -1;
  }

  const std::string& kernel_source() {
    if (!source_loaded) {
      source = read_source(def);
      source_loaded = true;
    }
    return source;
  }

  void fill_launch(Choice& c) const {
    const auto value_of = [&](int index, const std::string& what) {
      return positive_integer(c.values[static_cast<std::size_t>(index)], what);
    };
    std::uint64_t problem[3] = {1, 1, 1};
    for (std::size_t d = 0; d < 3 && d < c.problem_size.size(); ++d)
      problem[d] = static_cast<std::uint64_t>(std::max<std::int64_t>(c.problem_size[d], 1));
    const auto& names = def.block_size_names();
    for (int d = 0; d < 3; ++d) {
      const int p = block_parameter[static_cast<std::size_t>(d)];
      c.geometry.block[static_cast<std::size_t>(d)] =
          p >= 0 ? value_of(p, "kernel '" + def.name() + "', block size " + names[static_cast<std::size_t>(d)])
                 : kDefaultBlock[d];
      std::uint64_t div = 1;
      for (const auto& [index, fixed] : divisors[static_cast<std::size_t>(d)])
        div *= index >= 0 ? value_of(index, "kernel '" + def.name() + "', grid divisor " +
                                                def.parameters()[static_cast<std::size_t>(index)].name)
                          : fixed;
      c.geometry.grid[static_cast<std::size_t>(d)] = (problem[d] + div - 1) / div;
    }
    // The defines ktune's live backends give a configuration (less `kernel_tuner`, which says "being tuned").
    c.defines.clear();
    const auto& ps = def.parameters();
    for (std::size_t i = 0; i < ps.size(); ++i) c.defines.emplace_back(ps[i].name, c.values[i]);
    const auto define_new = [&](const std::string& name, std::uint64_t value) {
      for (const auto& entry : c.defines)
        if (entry.first == name) return;
      c.defines.emplace_back(name, std::to_string(value));
    };
    for (int d = 0; d < 3; ++d) define_new(names[static_cast<std::size_t>(d)], c.geometry.block[static_cast<std::size_t>(d)]);
    for (int d = 0; d < 3; ++d)
      define_new(std::string("grid_size_") + kAxis[d], c.geometry.grid[static_cast<std::size_t>(d)]);
    for (int d = 0; d < 3; ++d) define_new(std::string("problem_size_") + kAxis[d], problem[d]);
    for (const auto& [name, value] : def.defines()) c.defines.emplace_back(name, value);
  }

  Choice make_choice(std::span<const std::int64_t> size) const {
    Choice c;
    c.problem_size.assign(size.begin(), size.end());
    c.values = def.default_values();
    std::string note;
    if (wisdom) {
      Selection s = wisdom->select(def.name(), device_name, size);
      if (!s.kernel && def.function_name() != def.name()) s = wisdom->select(def.function_name(), device_name, size);
      c.rule = s.rule;
      if (s.kernel && !s.values.empty()) {
        const auto& ps = def.parameters();
        for (std::size_t i = 0; i < ps.size(); ++i) {
          const auto& wp = s.kernel->parameters;
          const auto it = std::find(wp.begin(), wp.end(), ps[i].name);
          if (it == wp.end()) note += " (" + ps[i].name + " is not in the wisdom: its default)";
          else c.values[i] = s.values[static_cast<std::size_t>(it - wp.begin())];
        }
      }
      c.description = s.describe(size);
    } else {
      c.description = "none: no wisdom; the definition's default";
    }
    c.description += ";";
    for (std::size_t i = 0; i < c.values.size(); ++i) c.description += " " + def.parameters()[i].name + "=" + c.values[i];
    c.description += note;
    fill_launch(c);
    return c;
  }

  // The definition's default configuration at a problem size (capture's reference).
  Choice default_choice(std::span<const std::int64_t> size) const {
    Choice c;
    c.problem_size.assign(size.begin(), size.end());
    c.values = def.default_values();
    c.description = "the definition's default";
    fill_launch(c);
    return c;
  }

  // The remembered choice of a problem size (made at its first launch).
  Choice& choice_for(std::span<const std::int64_t> size) {
    if (last && std::equal(size.begin(), size.end(), last->problem_size.begin(), last->problem_size.end()))
      return *last;
    if (size.empty() || size.size() > 3)
      throw std::invalid_argument("kernel '" + def.name() + "': a problem size has 1 to 3 dimensions");
    ProblemSize key(size.begin(), size.end());
    auto it = choices.find(key);
    if (it == choices.end()) {
      it = choices.emplace(key, make_choice(size)).first;
      if (log) log(def.name() + " on " + device_name + " at " + format_problem_size(key) + ": " + it->second.description);
    }
    last = &it->second;
    return it->second;
  }

  CompiledKernel& compile(Choice& c) {
    if (c.compiled) return *c.compiled;
    std::string key;
    for (const auto& [name, value] : c.defines) key += name + '=' + value + '\n';
    auto& slot = compiled[key];
    if (!slot) {
      slot = device->compile(def, kernel_source(), c.defines);
      if (log) log(def.name() + ": compiled for " + device_name + " (" + std::to_string(compiled.size()) +
                   (compiled.size() == 1 ? " configuration)" : " configurations)"));
    }
    c.compiled = slot.get();
    return *slot;
  }
};

Kernel::Kernel(KernelDefinition definition, std::shared_ptr<Device> device, std::shared_ptr<const Wisdom> wisdom) {
  if (!device) throw std::invalid_argument("kernel '" + definition.name() + "': no device");
  state_ = std::make_unique<State>(std::move(definition), std::move(device), std::move(wisdom));
  State& s = *state_;
  if (s.def.backend() != s.device->backend())
    throw std::invalid_argument("kernel '" + s.def.name() + "' is " + s.def.language() + ", the device runs " +
                                s.device->backend() + " kernels");
  s.device_name = s.device->name();
  const auto& names = s.def.block_size_names();
  for (std::size_t d = 0; d < 3; ++d) s.block_parameter[d] = s.parameter_index(names[d]);
  const auto divisors = s.def.grid_divisors();
  for (std::size_t d = 0; d < 3; ++d)
    for (const std::string& div : divisors[d]) {
      const int index = s.parameter_index(div);
      if (index >= 0) s.divisors[d].emplace_back(index, 0);
      else s.divisors[d].emplace_back(-1, positive_integer(div, "kernel '" + s.def.name() + "', grid divisor"));
    }
  if (capture_requested(s.def.name())) s.capture_dir = capture_directory();
}

Kernel::~Kernel() = default;
Kernel::Kernel(Kernel&&) noexcept = default;
Kernel& Kernel::operator=(Kernel&&) noexcept = default;

const Choice& Kernel::choose(std::span<const std::int64_t> problem_size) { return state_->choice_for(problem_size); }

void Kernel::launch_erased(std::span<const std::int64_t> problem_size, std::span<const Argument> arguments,
                           const CppCall& call) {
  State& s = *state_;
  Choice& c = s.choice_for(problem_size);
  if (s.device->backend() == "cpp")
    for (const Argument& a : arguments)
      if (a.kind == Argument::Kind::device_buffer)
        throw std::invalid_argument("kernel '" + s.def.name() + "': a cpp kernel takes host arrays, not device buffers");
  if (!s.capture_dir.empty() && !s.captured.count(c.problem_size)) {
    // The default configuration's outputs are the reference: it is compiled and run on copies of the inputs.
    Choice reference = s.default_choice(problem_size);
    CaptureRequest request{s.def,          *s.device,      s.kernel_source(), reference, s.compile(reference),
                           arguments,      call,           s.capture_dir,     s.captured.empty()};
    const std::string written = write_capture(request);
    s.captured.insert(c.problem_size);
    if (s.log) s.log(s.def.name() + ": captured the call at " + format_problem_size(c.problem_size) + " into " + written);
  }
  s.device->launch(s.compile(c), c.geometry, arguments, call, {});
}

void Device::read_buffer(const Argument&, void*) {
  throw std::invalid_argument("the " + backend() + " device has no device buffers");
}

const KernelDefinition& Kernel::definition() const { return state_->def; }
Device& Kernel::device() const { return *state_->device; }
void Kernel::set_log(std::function<void(std::string_view)> log) { state_->log = std::move(log); }
void Kernel::capture_into(std::string directory) { state_->capture_dir = std::move(directory); }
std::size_t Kernel::compilations() const { return state_->compiled.size(); }

}  // namespace ktune::runtime
