// Wisdom files and the selection rules (ktune::runtime; the standard library only).
//
// The file is text, one record a line, fields separated by tabs (a tab, newline or backslash inside a field is
// written \t, \n, \\), '#' starts a comment line:
//   ktune-wisdom <TAB> 1
//   kernel  <TAB> NAME <TAB> PARAMETER...
//   default <TAB> NAME <TAB> VALUE...                        (one per parameter)
//   best    <TAB> NAME <TAB> DEVICE <TAB> SIZE <TAB> OBJECTIVE <TAB> min|max <TAB> BEST <TAB> VALUE... [<TAB> key=value...]
// SIZE is "1024x512"; VALUEs are C literals; the key=value fields are the entry's provenance.
#include "ktune/runtime/wisdom.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <sstream>
#include <unordered_map>
#include <utility>

namespace ktune::runtime {
namespace {

constexpr std::string_view kMagic = "ktune-wisdom";
constexpr std::string_view kVersion = "1";

std::string escape(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (const char c : field) {
    if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\\') out += "\\\\";
    else out += c;
  }
  return out;
}

// Splits a line into unescaped fields; false (with `error`) for a dangling or unknown escape.
bool split_fields(std::string_view line, std::vector<std::string>& fields, std::string& error) {
  fields.assign(1, std::string());
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\t') {
      fields.emplace_back();
    } else if (c == '\\') {
      if (i + 1 == line.size()) {
        error = "a backslash ends the line";
        return false;
      }
      const char e = line[++i];
      if (e == 't') fields.back() += '\t';
      else if (e == 'n') fields.back() += '\n';
      else if (e == 'r') fields.back() += '\r';
      else if (e == '\\') fields.back() += '\\';
      else {
        error = std::string("unknown escape \\") + e;
        return false;
      }
    } else {
      fields.back() += c;
    }
  }
  return true;
}

bool parse_double(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// Three dimensions, missing ones 1, each at least 1 (log scale).
std::array<double, 3> log_size(std::span<const std::int64_t> size) {
  std::array<double, 3> out{0, 0, 0};
  for (std::size_t d = 0; d < 3 && d < size.size(); ++d) out[d] = std::log(static_cast<double>(std::max<std::int64_t>(size[d], 1)));
  return out;
}

bool same_size(std::span<const std::int64_t> a, std::span<const std::int64_t> b) {
  for (std::size_t d = 0; d < 3; ++d) {
    const std::int64_t x = d < a.size() ? a[d] : 1, y = d < b.size() ? b[d] : 1;
    if (x != y) return false;
  }
  return true;
}

}  // namespace

std::string format_problem_size(std::span<const std::int64_t> size) {
  std::string out;
  for (std::size_t d = 0; d < size.size(); ++d) {
    if (d) out += 'x';
    out += std::to_string(size[d]);
  }
  return out.empty() ? "1" : out;
}

ProblemSize parse_problem_size(std::string_view text) {
  ProblemSize size;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = std::min(text.find('x', start), text.size());
    const std::string_view piece = text.substr(start, end - start);
    std::int64_t n = 0;
    const auto [ptr, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), n);
    if (piece.empty() || ec != std::errc() || ptr != piece.data() + piece.size() || n < 1)
      throw std::invalid_argument("problem size '" + std::string(text) +
                                  "': expected 1 to 3 positive integers joined by 'x' (e.g. 1024x512)");
    size.push_back(n);
    if (end == text.size()) break;
    start = end + 1;
  }
  if (size.size() > 3)
    throw std::invalid_argument("problem size '" + std::string(text) + "': at most 3 dimensions");
  return size;
}

std::string device_family(std::string_view device_name) {
  std::string lower;
  for (const char c : device_name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Words: runs of letters and digits.
  std::string family;
  std::size_t i = 0;
  while (i < lower.size()) {
    while (i < lower.size() && !std::isalnum(static_cast<unsigned char>(lower[i]))) ++i;
    std::size_t end = i;
    while (end < lower.size() && std::isalnum(static_cast<unsigned char>(lower[end]))) ++end;
    if (end == i) break;
    const std::string_view word = std::string_view(lower).substr(i, end - i);
    const auto digit = std::find_if(word.begin(), word.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (!family.empty()) family += ' ';
    if (digit == word.end()) {
      family += word;
      i = end;
      continue;
    }
    // The model word: its letters before the first digit, and that digit (the generation).
    family += word.substr(0, static_cast<std::size_t>(digit - word.begin()) + 1);
    return family;
  }
  return family;
}

std::string normalised_device_name(std::string_view device_name) {
  std::string out;
  bool gap = false;
  for (const char c : device_name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      if (gap && !out.empty()) out += '_';
      gap = false;
      out += c;
    } else {
      gap = true;
    }
  }
  return out;
}

std::string_view to_string(SelectionRule rule) {
  switch (rule) {
    case SelectionRule::exact: return "exact";
    case SelectionRule::nearest_problem_size: return "nearest problem size";
    case SelectionRule::device_family: return "device family";
    case SelectionRule::any_device: return "any device";
    case SelectionRule::kernel_default: return "kernel default";
    case SelectionRule::none: return "none";
  }
  return "?";
}

std::string Selection::describe(std::span<const std::int64_t> requested_size) const {
  std::string out(to_string(rule));
  if (entry) {
    char best[64];
    std::snprintf(best, sizeof best, "%.6g", entry->value);
    out += ": tuned on " + entry->device + " at " + format_problem_size(entry->problem_size);
    if (!requested_size.empty() && !same_size(requested_size, entry->problem_size))
      out += " for " + format_problem_size(requested_size);
    out += " (" + entry->objective + " " + best + ")";
  } else if (rule == SelectionRule::none) {
    out += ": nothing in the wisdom for this kernel; the caller's default";
  } else {
    out += ": nothing tuned; the wisdom's default for this kernel";
  }
  return out;
}

struct Wisdom::State {
  std::vector<WisdomKernel> kernels;
  // Remembered answers: key = kernel \0 device \0 size. The value is (rule, kernel index, entry index or -1).
  struct Answer {
    SelectionRule rule;
    std::ptrdiff_t kernel, entry;
  };
  mutable std::shared_mutex mutex;
  mutable std::unordered_map<std::string, Answer> answers;

  std::ptrdiff_t index_of(std::string_view name) const {
    for (std::size_t k = 0; k < kernels.size(); ++k)
      if (kernels[k].name == name) return static_cast<std::ptrdiff_t>(k);
    return -1;
  }
  Answer compute(std::string_view kernel, std::string_view device, std::span<const std::int64_t> size) const;
};

Wisdom::Wisdom() : state_(std::make_unique<State>()) {}
Wisdom::~Wisdom() = default;
Wisdom::Wisdom(Wisdom&&) noexcept = default;
Wisdom& Wisdom::operator=(Wisdom&&) noexcept = default;

WisdomKernel& Wisdom::declare(std::string_view kernel, std::span<const std::string> parameters,
                              std::span<const std::string> default_values) {
  if (kernel.empty()) throw std::invalid_argument("a kernel needs a name");
  if (!default_values.empty() && default_values.size() != parameters.size())
    throw std::invalid_argument("kernel '" + std::string(kernel) + "': " + std::to_string(default_values.size()) +
                                " default values for " + std::to_string(parameters.size()) + " parameters");
  state_->answers.clear();
  const std::ptrdiff_t k = state_->index_of(kernel);
  if (k >= 0) {
    WisdomKernel& known = state_->kernels[static_cast<std::size_t>(k)];
    if (!std::equal(known.parameters.begin(), known.parameters.end(), parameters.begin(), parameters.end())) {
      std::string a, b;
      for (const auto& p : known.parameters) a += (a.empty() ? "" : ", ") + p;
      for (const auto& p : parameters) b += (b.empty() ? "" : ", ") + p;
      throw WisdomError("kernel '" + std::string(kernel) + "' has parameters (" + a + ") in the wisdom, not (" + b + ")");
    }
    if (!default_values.empty()) known.default_values.assign(default_values.begin(), default_values.end());
    return known;
  }
  WisdomKernel& added = state_->kernels.emplace_back();
  added.name = std::string(kernel);
  added.parameters.assign(parameters.begin(), parameters.end());
  added.default_values.assign(default_values.begin(), default_values.end());
  return added;
}

bool Wisdom::add(std::string_view kernel, WisdomEntry entry) {
  const std::ptrdiff_t k = state_->index_of(kernel);
  if (k < 0) throw std::invalid_argument("kernel '" + std::string(kernel) + "' is not declared in the wisdom");
  WisdomKernel& known = state_->kernels[static_cast<std::size_t>(k)];
  if (entry.values.size() != known.parameters.size())
    throw std::invalid_argument("kernel '" + std::string(kernel) + "': " + std::to_string(entry.values.size()) +
                                " values for " + std::to_string(known.parameters.size()) + " parameters");
  if (entry.device.empty()) throw std::invalid_argument("kernel '" + std::string(kernel) + "': an entry needs a device");
  if (entry.problem_size.empty() || entry.problem_size.size() > 3)
    throw std::invalid_argument("kernel '" + std::string(kernel) + "': a problem size has 1 to 3 dimensions");
  state_->answers.clear();
  for (WisdomEntry& old : known.entries)
    if (old.device == entry.device && same_size(old.problem_size, entry.problem_size)) {
      old = std::move(entry);
      return true;
    }
  known.entries.push_back(std::move(entry));
  return false;
}

void Wisdom::merge(const Wisdom& other) {
  for (const WisdomKernel& k : other.kernels()) {
    declare(k.name, k.parameters, k.default_values);
    for (const WisdomEntry& e : k.entries) add(k.name, e);
  }
}

const WisdomKernel* Wisdom::find(std::string_view kernel) const {
  const std::ptrdiff_t k = state_->index_of(kernel);
  return k < 0 ? nullptr : &state_->kernels[static_cast<std::size_t>(k)];
}

std::span<const WisdomKernel> Wisdom::kernels() const { return state_->kernels; }

Wisdom::State::Answer Wisdom::State::compute(std::string_view kernel, std::string_view device,
                                             std::span<const std::int64_t> size) const {
  const std::ptrdiff_t k = index_of(kernel);
  if (k < 0) return {SelectionRule::none, -1, -1};
  const WisdomKernel& K = kernels[static_cast<std::size_t>(k)];
  const auto target = log_size(size);
  const std::string family = device_family(device);
  const std::string normalised = normalised_device_name(device);
  // The nearest entry among those `admit` lets in; ties keep the earlier entry (file order).
  const auto nearest = [&](auto admit) -> std::ptrdiff_t {
    std::ptrdiff_t best = -1;
    double best_distance = std::numeric_limits<double>::infinity();
    for (std::size_t e = 0; e < K.entries.size(); ++e) {
      if (!admit(K.entries[e])) continue;
      const auto here = log_size(K.entries[e].problem_size);
      double d = 0;
      for (int i = 0; i < 3; ++i) d += (here[i] - target[i]) * (here[i] - target[i]);
      if (d < best_distance) {
        best_distance = d;
        best = static_cast<std::ptrdiff_t>(e);
      }
    }
    return best;
  };
  // The same device: its own name, or Kernel Tuner's spelling of it (results files store that one).
  const auto same_device = [&](const WisdomEntry& e) {
    return e.device == device || normalised_device_name(e.device) == normalised;
  };
  // Exact first: sizes beyond 2^53 can be equally near on a log scale without being equal.
  for (std::size_t e = 0; e < K.entries.size(); ++e)
    if (same_device(K.entries[e]) && same_size(K.entries[e].problem_size, size))
      return {SelectionRule::exact, k, static_cast<std::ptrdiff_t>(e)};
  if (const std::ptrdiff_t e = nearest(same_device); e >= 0) {
    const bool exact = same_size(K.entries[static_cast<std::size_t>(e)].problem_size, size);
    return {exact ? SelectionRule::exact : SelectionRule::nearest_problem_size, k, e};
  }
  if (const std::ptrdiff_t e = nearest([&](const WisdomEntry& w) { return device_family(w.device) == family; }); e >= 0)
    return {SelectionRule::device_family, k, e};
  if (const std::ptrdiff_t e = nearest([](const WisdomEntry&) { return true; }); e >= 0)
    return {SelectionRule::any_device, k, e};
  if (!K.default_values.empty()) return {SelectionRule::kernel_default, k, -1};
  return {SelectionRule::none, k, -1};
}

Selection Wisdom::select(std::string_view kernel, std::string_view device,
                         std::span<const std::int64_t> problem_size) const {
  // The key: both names with their lengths first (names may hold any byte, NUL included), then the size.
  std::string key;
  key.reserve(kernel.size() + device.size() + 16 + problem_size.size() * 8);
  for (const std::size_t length : {kernel.size(), device.size()})
    key.append(reinterpret_cast<const char*>(&length), sizeof length);
  key.append(kernel).append(device);
  for (const std::int64_t n : problem_size)
    key.append(reinterpret_cast<const char*>(&n), sizeof n);
  State::Answer answer;
  {
    std::shared_lock lock(state_->mutex);
    const auto found = state_->answers.find(key);
    if (found != state_->answers.end()) answer = found->second;
    else answer.kernel = -2;
  }
  if (answer.kernel == -2) {
    answer = state_->compute(kernel, device, problem_size);
    std::unique_lock lock(state_->mutex);
    state_->answers.emplace(std::move(key), answer);
  }
  Selection s;
  s.rule = answer.rule;
  if (answer.kernel < 0) return s;
  s.kernel = &state_->kernels[static_cast<std::size_t>(answer.kernel)];
  if (answer.entry >= 0) {
    s.entry = &s.kernel->entries[static_cast<std::size_t>(answer.entry)];
    s.values = s.entry->values;
  } else if (answer.rule == SelectionRule::kernel_default) {
    s.values = s.kernel->default_values;
  }
  return s;
}

Wisdom Wisdom::parse(std::string_view text, std::string_view where) {
  Wisdom wisdom;
  std::vector<std::string> fields;
  std::string error;
  std::size_t line_number = 0;
  bool header = false;
  const auto fail = [&](const std::string& message) {
    throw WisdomError(std::string(where) + ":" + std::to_string(line_number) + ": " + message);
  };
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    if (!split_fields(line, fields, error)) fail(error);
    const std::string& kind = fields[0];
    if (!header) {
      if (kind != kMagic) fail("not a ktune wisdom file (the first line is not 'ktune-wisdom<TAB>1')");
      if (fields.size() != 2 || fields[1] != kVersion)
        fail("wisdom format version '" + (fields.size() > 1 ? fields[1] : std::string()) +
             "' is not one this runtime reads (" + std::string(kVersion) + ")");
      header = true;
      continue;
    }
    try {
      if (kind == "kernel") {
        if (fields.size() < 2 || fields[1].empty()) fail("'kernel' needs a name");
        if (wisdom.find(fields[1])) fail("kernel '" + fields[1] + "' is declared twice");
        wisdom.declare(fields[1], std::span(fields).subspan(2));
      } else if (kind == "default") {
        if (fields.size() < 2) fail("'default' needs a kernel name");
        const WisdomKernel* k = wisdom.find(fields[1]);
        if (!k) fail("'default' for kernel '" + fields[1] + "', which no 'kernel' line above declares");
        if (fields.size() - 2 != k->parameters.size())
          fail("'default' of kernel '" + fields[1] + "' has " + std::to_string(fields.size() - 2) + " values for " +
               std::to_string(k->parameters.size()) + " parameters");
        wisdom.declare(fields[1], k->parameters, std::span(fields).subspan(2));
      } else if (kind == "best") {
        if (fields.size() < 7) fail("'best' needs kernel, device, problem size, objective, min|max and the value");
        const WisdomKernel* k = wisdom.find(fields[1]);
        if (!k) fail("'best' for kernel '" + fields[1] + "', which no 'kernel' line above declares");
        WisdomEntry entry;
        entry.device = fields[2];
        if (entry.device.empty()) fail("'best' with an empty device name");
        entry.problem_size = parse_problem_size(fields[3]);
        entry.objective = fields[4];
        if (fields[5] != "min" && fields[5] != "max") fail("expected 'min' or 'max', got '" + fields[5] + "'");
        entry.higher_is_better = fields[5] == "max";
        if (!parse_double(fields[6], entry.value)) fail("'" + fields[6] + "' is not a number");
        const std::size_t n = k->parameters.size();
        if (fields.size() < 7 + n)
          fail("'best' of kernel '" + fields[1] + "' has " + std::to_string(fields.size() - 7) + " values for " +
               std::to_string(n) + " parameters");
        entry.values.assign(fields.begin() + 7, fields.begin() + static_cast<std::ptrdiff_t>(7 + n));
        for (std::size_t i = 7 + n; i < fields.size(); ++i) {
          const auto eq = fields[i].find('=');
          if (eq == std::string::npos || eq == 0)
            fail("field " + std::to_string(i + 1) + " ('" + fields[i] + "') is neither a value nor key=value");
          entry.provenance[fields[i].substr(0, eq)] = fields[i].substr(eq + 1);
        }
        wisdom.add(fields[1], std::move(entry));
      } else {
        fail("unknown record '" + kind + "' (expected kernel, default or best)");
      }
    } catch (const WisdomError&) {
      throw;
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
  }
  if (!header) {
    line_number = std::max<std::size_t>(line_number, 1);
    fail("empty: no 'ktune-wisdom' line");
  }
  return wisdom;
}

Wisdom Wisdom::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw WisdomError(path + ": cannot open the wisdom file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw WisdomError(path + ": cannot read the wisdom file");
  // The runtime reads no SQLite: a results store becomes wisdom through the tuner.
  if (text.str().starts_with(std::string_view("SQLite format 3\0", 16)))
    throw WisdomError(path + ": a results store, not wisdom: make wisdom of it with `ktune export " + path +
                      " --wisdom FILE`");
  return parse(text.str(), path);
}

void Wisdom::write(std::ostream& out) const {
  out << kMagic << '\t' << kVersion << '\n';
  std::vector<const WisdomKernel*> kernels;
  for (const WisdomKernel& k : state_->kernels) kernels.push_back(&k);
  std::sort(kernels.begin(), kernels.end(), [](auto* a, auto* b) { return a->name < b->name; });
  char number[64];
  for (const WisdomKernel* k : kernels) {
    out << "kernel\t" << escape(k->name);
    for (const auto& p : k->parameters) out << '\t' << escape(p);
    out << '\n';
    if (!k->default_values.empty()) {
      out << "default\t" << escape(k->name);
      for (const auto& v : k->default_values) out << '\t' << escape(v);
      out << '\n';
    }
    std::vector<const WisdomEntry*> entries;
    for (const WisdomEntry& e : k->entries) entries.push_back(&e);
    std::stable_sort(entries.begin(), entries.end(), [](auto* a, auto* b) {
      if (a->device != b->device) return a->device < b->device;
      return a->problem_size < b->problem_size;
    });
    for (const WisdomEntry* e : entries) {
      std::snprintf(number, sizeof number, "%.17g", e->value);
      out << "best\t" << escape(k->name) << '\t' << escape(e->device) << '\t' << format_problem_size(e->problem_size)
          << '\t' << escape(e->objective) << '\t' << (e->higher_is_better ? "max" : "min") << '\t' << number;
      for (const auto& v : e->values) out << '\t' << escape(v);
      for (const auto& [key, value] : e->provenance) out << '\t' << escape(key) << '=' << escape(value);
      out << '\n';
    }
  }
}

void Wisdom::save(const std::string& path) const {
  std::ostringstream text;
  write(text);
  const std::string bytes = text.str();
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw WisdomError(path + ": cannot write the wisdom file (" + temporary + ": " + std::strerror(errno) + ")");
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  // Durable before it replaces the old file: a crash leaves the old wisdom or the new one, never half of either.
  const bool ok = written == bytes.size() && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = ok ? std::strerror(errno) : std::strerror(saved_errno);
    std::remove(temporary.c_str());
    throw WisdomError(path + ": writing the wisdom file failed (" + why + ")");
  }
  std::string directory = path.substr(0, path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/'));
  if (directory.empty()) directory = path.starts_with('/') ? "/" : ".";
  if (const int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void Wisdom::update(const std::string& path, const std::function<void(Wisdom&)>& change) {
  const std::string lock_path = path + ".lock";
  const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) throw WisdomError(path + ": cannot lock the wisdom file (" + lock_path + ": " + std::strerror(errno) + ")");
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }  // closing releases the lock
  } unlock{lock};
  while (::flock(lock, LOCK_EX) != 0)
    if (errno != EINTR) throw WisdomError(path + ": cannot lock the wisdom file (" + std::strerror(errno) + ")");
  Wisdom wisdom;
  if (::access(path.c_str(), F_OK) == 0) wisdom = load(path);
  change(wisdom);
  wisdom.save(path);
}

std::shared_ptr<const Wisdom> wisdom_from_environment() {
  const char* path = std::getenv("KTUNE_WISDOM");
  if (!path || !*path) return nullptr;
  return std::make_shared<const Wisdom>(Wisdom::load(path));
}

}  // namespace ktune::runtime
