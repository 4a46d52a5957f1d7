// Writing Kernel Tuner cache files as results arrive, in Kernel Tuner's own layout, so that an interrupted run
// leaves a file that both tools read and resume.
#include "ktune/io/kernel_tuner_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "io/cache_layout.hpp"
#include "io/posix_file.hpp"
#include "io/json_text.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/output_file.hpp"

namespace ktune::io {

namespace {

// The fields an entry writes besides the parameters and measurements.
constexpr const char* kReservedFields[] = {"times",          "compile_time",  "verification_time", "benchmark_time",
                                           "strategy_time",  "framework_time", "timestamp",         "__error__"};

// An InputError too, so that callers handle every problem with the file in one place.
[[noreturn]] void throw_write_error(const std::string& path, const char* what) {
  throw InputError(path, "", fmt::format("cannot {}: {}", what, std::strerror(errno)));
}

nlohmann::ordered_json ordered(const nlohmann::json& j) {
  return nlohmann::ordered_json::parse(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// Python's json.dumps(header, indent="") without the closing "}\n}", so the text ends with "cache": {
std::string header_text(const CacheHeader& header) {
  nlohmann::ordered_json h;
  h["device_name"] = header.device_name;
  h["kernel_name"] = header.kernel_name;
  h["problem_size"] = header.problem_size.is_null() ? nlohmann::ordered_json::array() : ordered(header.problem_size);
  h["tune_params_keys"] = nlohmann::ordered_json::array();
  h["tune_params"] = nlohmann::ordered_json::object();
  for (const Parameter& p : header.problem.parameters) {
    h["tune_params_keys"].push_back(p.name);
    auto& values = h["tune_params"][p.name] = nlohmann::ordered_json::array();
    for (const Value& v : p.values) values.push_back(ordered(value_to_json(v)));
  }
  h["objective"] = header.objectives;
  if (header.provenance.is_object() && !header.provenance.empty()) h["ktune_provenance"] = ordered(header.provenance);
  h["cache"] = nlohmann::ordered_json::object();
  std::string text = h.dump(0, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  text.resize(text.size() - 3);  // "}\n}"
  return text;
}

const Value* find_value(const std::vector<Value>& values, const Value& value) {
  for (const Value& v : values)
    if (same_value(v, value)) return &v;
  for (const Value& v : values)
    if (python_equal(v, value)) return &v;
  return nullptr;
}

// One entry as Kernel Tuner appends it: "\n" + json.dumps({key: entry})[1:-1] + ",".
std::string entry_text(const Problem& problem, const EvaluationRecord& record) {
  std::string out = "\n";
  append_json_string(out, kernel_tuner_key(record.config));
  out += ": {";
  bool first = true;
  const auto field = [&](std::string_view name) {
    if (!first) out += ", ";
    first = false;
    append_json_string(out, name);
    out += ": ";
  };
  for (std::size_t p = 0; p < problem.parameters.size(); ++p) {
    field(problem.parameters[p].name);
    append_json_value(out, record.config[p]);
  }
  for (const Measurement& m : record.measurements) {
    field(m.name);
    append_json_value(out, m.value);
  }
  if (record.status == Status::ok || !record.runtimes_ms.empty()) {
    field("times");
    out += '[';
    for (std::size_t i = 0; i < record.runtimes_ms.size(); ++i) {
      if (i > 0) out += ", ";
      append_json_number(out, record.runtimes_ms[i]);
    }
    out += ']';
  }
  const std::pair<const char*, double> times[] = {{"compile_time", record.compile_ms},
                                                  {"verification_time", record.verification_ms},
                                                  {"benchmark_time", record.benchmark_ms},
                                                  {"strategy_time", record.strategy_ms},
                                                  {"framework_time", record.framework_ms}};
  for (const auto& [name, ms] : times) {
    field(name);
    append_json_number(out, ms);
  }
  if (!record.timestamp.empty()) {
    field("timestamp");
    append_json_string(out, record.timestamp);
  }
  if (record.status != Status::ok) {
    field("__error__");
    append_json_string(out, kernel_tuner_error(record.status));
  }
  out += "},";
  return out;
}

bool is_gzip_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  unsigned char magic[2] = {0, 0};
  const bool gzip = std::fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  std::fclose(f);
  return gzip;
}

// A problem size as Kernel Tuner's check_matching_problem_size sees it: a list of dimensions (a number is one),
// numbers written as strings read as numbers, trailing dimensions of 1 dropped.
std::vector<nlohmann::json> problem_size_dimensions(const nlohmann::json& size) {
  std::vector<nlohmann::json> dims;
  const auto add = [&](const nlohmann::json& d) {
    if (d.is_string()) {
      const std::string& text = d.get_ref<const std::string&>();
      char* end = nullptr;
      errno = 0;
      const long long n = std::strtoll(text.c_str(), &end, 10);
      if (!text.empty() && end == text.c_str() + text.size() && errno == 0) {
        dims.emplace_back(n);
        return;
      }
    }
    if (d.is_number_float() && d.get<double>() == std::floor(d.get<double>()) && std::abs(d.get<double>()) < 9e15) {
      dims.emplace_back(static_cast<long long>(d.get<double>()));
      return;
    }
    dims.push_back(d);
  };
  if (size.is_array()) {
    for (const auto& d : size) add(d);
  } else {
    add(size);
  }
  while (dims.size() > 1 && dims.back() == nlohmann::json(1)) dims.pop_back();
  return dims;
}

std::string shown(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

// Kernel Tuner's checks of a cache against the run (device, kernel, problem size, parameter names and order), and
// ktune's provenance where both record it: each difference named with both values.
void check_same_origin(const std::string& path, const ResultsFile& old, const CacheHeader& header,
                       const CacheWriterOptions& options) {
  if (old.kernel_name != header.kernel_name)
    throw InputError(path, "kernel_name",
                     fmt::format("the file is for kernel '{}', not '{}'", old.kernel_name, header.kernel_name));
  const auto& params = header.problem.parameters;
  bool same_names = old.problem.parameters.size() == params.size();
  for (std::size_t p = 0; same_names && p < params.size(); ++p) same_names = old.problem.parameters[p].name == params[p].name;
  if (!same_names)
    throw InputError(path, "tune_params_keys",
                     fmt::format("the file has the parameters [{}], this run has [{}] (Kernel Tuner requires the same "
                                 "names in the same order)", fmt::join(old.problem.parameter_names(), ", "),
                                 fmt::join(header.problem.parameter_names(), ", ")));
  if (options.reuse_other_origin) return;
  const std::string advice = "; give another cache file, or reuse its results anyway with --reuse-cache";
  if (!old.device_name.empty() && !header.device_name.empty() && old.device_name != header.device_name)
    throw InputError(path, "device_name",
                     fmt::format("the file holds results of device '{}', this run is on '{}'{}", old.device_name,
                                 header.device_name, advice));
  if (!same_problem_size(old.problem_size, header.problem_size))
    throw InputError(path, "problem_size",
                     fmt::format("the file holds results for problem size {}, this run is for {}{}",
                                 shown(old.problem_size), shown(header.problem_size), advice));
  if (!old.provenance.is_object() || !header.provenance.is_object()) return;
  for (const auto& [key, value] : header.provenance.items()) {
    const auto it = old.provenance.find(key);
    if (it != old.provenance.end() && *it != value)
      throw InputError(path, "ktune_provenance." + key,
                       fmt::format("the file's results were measured with {} = {}, this run has {}{}", key,
                                   shown(*it), shown(value), advice));
  }
}

// The bytes [0, size) of a file read through its descriptor.
std::string read_descriptor(int fd, const std::string& path) {
  std::string text;
  char buffer[1 << 16];
  off_t offset = 0;
  for (;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_write_error(path, "read");
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    offset += n;
  }
  return text;
}

bool same_inode(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// An existing file to resume: its records, and the text to continue from (the header, then its entries).
struct Resumed {
  std::vector<EvaluationRecord> records;
  std::string content;
  bool has_entries = false;
  // The file already starts with this run's header: it is resumed in place (cut after its last complete entry),
  // which needs no room for a second copy (a full disk) and keeps the file and its lock.
  bool in_place = false;
  std::size_t entries_end = 0;
};

// Checks the file against `header` (check_same_origin) and extends the header's value lists by the file's other
// values, so that every entry stays readable (Kernel Tuner allows other values on resume). Complete entries are kept
// byte for byte; a half-written last entry is dropped.
Resumed resume(const std::string& path, const std::string& text, CacheHeader& header,
               const CacheWriterOptions& options) {
  CacheLayout layout;
  ResultsFile old = parse_kernel_tuner_cache(text, path, layout);
  check_same_origin(path, old, header, options);
  auto& params = header.problem.parameters;
  for (std::size_t p = 0; p < params.size(); ++p)
    for (const Value& v : old.problem.parameters[p].values)
      if (find_value(params[p].values, v) == nullptr) params[p].values.push_back(v);
  for (EvaluationRecord& r : old.records)
    for (std::size_t p = 0; p < params.size(); ++p) r.config[p] = *find_value(params[p].values, r.config[p]);

  const std::string header_now = header_text(header);
  Resumed resumed{std::move(old.records), header_now, false};
  if (layout.entries_begin != CacheLayout::npos && layout.entries_end > layout.entries_begin) {
    resumed.content.append(text, layout.entries_begin, layout.entries_end - layout.entries_begin);
    resumed.content += ',';
    resumed.has_entries = true;
  }
  resumed.in_place = layout.entries_begin == header_now.size() && text.compare(0, header_now.size(), header_now) == 0;
  resumed.entries_end = resumed.has_entries ? layout.entries_end : header_now.size();
  return resumed;
}

}  // namespace

bool same_problem_size(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_null() || b.is_null()) return true;
  return problem_size_dimensions(a) == problem_size_dimensions(b);
}

struct KernelTunerCacheWriter::File {
  int fd = -1;
  struct stat identity {};  // of the file locked and written, to notice it being replaced at the path
  off_t committed = 0;      // the file ends here, after the header or a complete entry and its ","
  bool has_entries = false;
  std::chrono::steady_clock::time_point last_sync = std::chrono::steady_clock::now();
  ~File() {
    if (fd >= 0) ::close(fd);
  }
};

namespace {

// Opens `path` (creating it if absent) and takes its lock: another writer holding it is refused at once. The file
// locked must be the one at the path (another writer may have renamed a resumed file over it meanwhile).
int open_locked(const std::string& path, const std::string& shown_path) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) throw_write_error(shown_path, "open the file");
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd);
      if (error == EWOULDBLOCK)
        throw InputError(shown_path, "",
                         "another process is writing this cache file (a second ktune run on the same --cache?); wait "
                         "for it to end, or give another file");
      errno = error;
      throw_write_error(shown_path, "lock the file");
    }
    struct stat opened {}, at_path {};
    if (::fstat(fd, &opened) == 0 && ::stat(path.c_str(), &at_path) == 0 && same_inode(opened, at_path)) return fd;
    ::close(fd);  // replaced while we waited for the lock: take the new one
  }
  throw InputError(shown_path, "", "the file keeps being replaced by another process; give another file");
}

}  // namespace

KernelTunerCacheWriter::KernelTunerCacheWriter(std::string path, CacheHeader header, CacheWriterOptions options)
    : path_(std::move(path)), header_(std::move(header)), file_(std::make_unique<File>()) {
  if (header_.problem.parameters.empty()) throw std::invalid_argument("a cache file needs at least one parameter");
  if (is_gzip_file(path_))
    throw InputError(path_, "", "cannot append to a gzip-compressed cache file; decompress it first");
  // A symbolic link is written through: the target is locked, resumed and replaced, the link stays.
  const std::string target = resolve_output_path(path_);
  File& file = *file_;
  file.fd = open_locked(target, path_);
  const std::string existing_text = read_descriptor(file.fd, path_);
  if (existing_text.find_first_not_of(" \t\r\n") == std::string::npos) {
    // New (or empty): the header in one write; a short one is cut back so that no half header is left.
    const std::string content = header_text(header_);
    if (::ftruncate(file.fd, 0) != 0 || !posix::write_fully(file.fd, content, 0)) {
      const int error = errno;
      (void)::ftruncate(file.fd, 0);
      errno = error;
      throw_write_error(path_, "write the header");
    }
    file.committed = static_cast<off_t>(content.size());
    ::fstat(file.fd, &file.identity);
    return;
  }
  Resumed resumed = resume(path_, existing_text, header_, options);
  existing_ = std::move(resumed.records);
  file.has_entries = resumed.has_entries;
  if (resumed.in_place) {
    const off_t end = static_cast<off_t>(resumed.entries_end);
    if (::ftruncate(file.fd, end) != 0 || (resumed.has_entries && !posix::write_fully(file.fd, ",", end)))
      throw_write_error(path_, "resume the file (cut after its last complete entry, it resumes next time)");
    file.committed = end + (resumed.has_entries ? 1 : 0);
    ::fstat(file.fd, &file.identity);
    return;
  }
  // Another header (other values, Kernel Tuner's layout or ours of before): the resumed text goes to a new file
  // beside the old one, locked before it is renamed over it, so that the old file stays whole until the new one is,
  // and no other writer can take the new one in between.
  struct stat old {};
  ::fstat(file.fd, &old);
  std::string temporary;
  const int fd = posix::create_beside(target, temporary);
  if (fd < 0) throw_write_error(path_, "create a file beside it");
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || !posix::write_fully(fd, resumed.content, 0) ||
      ::fchmod(fd, old.st_mode & 07777) != 0 || ::fsync(fd) != 0 || ::rename(temporary.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::close(fd);
    ::unlink(temporary.c_str());
    errno = error;
    throw_write_error(path_, "rewrite the file to resume it (it is unchanged)");
  }
  ::close(file.fd);  // the old file, now unlinked; its lock goes with it
  file.fd = fd;
  file.committed = static_cast<off_t>(resumed.content.size());
  ::fstat(file.fd, &file.identity);
}

KernelTunerCacheWriter::~KernelTunerCacheWriter() {
  try {
    close();
  } catch (...) {
    // A destructor must not throw; the file stays unterminated, which readers repair.
  }
}

void KernelTunerCacheWriter::append(const EvaluationRecord& record) {
  if (file_ == nullptr) throw std::logic_error(fmt::format("{}: append() after close()", path_));
  if (failed_) throw std::logic_error(fmt::format("{}: append() after a failed append", path_));
  const Problem& problem = header_.problem;
  if (record.config.size() != problem.parameters.size())
    throw std::invalid_argument(fmt::format("{}: a configuration of {} values for {} parameters", path_,
                                            record.config.size(), problem.parameters.size()));
  for (std::size_t p = 0; p < problem.parameters.size(); ++p)
    if (find_value(problem.parameters[p].values, record.config[p]) == nullptr)
      throw std::invalid_argument(fmt::format("{}: value {} of parameter '{}' is not in the header's tune_params",
                                              path_, record.config[p].repr(), problem.parameters[p].name));
  for (const Measurement& m : record.measurements) {
    bool clash = problem.parameter_index(m.name).has_value();
    for (const char* reserved : kReservedFields) clash = clash || m.name == reserved;
    if (clash)
      throw std::invalid_argument(fmt::format("{}: measurement '{}' has the name of a parameter or of a field the "
                                              "cache writes itself", path_, m.name));
  }
  File& file = *file_;
  // Never append to a file that is no longer at its path: what is written there would be lost.
  struct stat at_path {};
  if (::stat(resolve_output_path(path_).c_str(), &at_path) != 0 || !same_inode(at_path, file.identity)) {
    failed_ = true;
    throw InputError(path_, "", "the file was replaced or removed by another program while this run wrote it");
  }
  const std::string text = entry_text(problem, record);
  if (!posix::write_fully(file.fd, text, file.committed)) {
    // A full disk or a file-size limit: cut the partial entry off, so the file ends after a complete one.
    const int error = errno;
    (void)::ftruncate(file.fd, file.committed);
    failed_ = true;
    errno = error;
    throw_write_error(path_, "write");
  }
  file.committed += static_cast<off_t>(text.size());
  file.has_entries = true;
  ++appended_;
  const auto now = std::chrono::steady_clock::now();
  if (now - file.last_sync >= std::chrono::seconds(1)) {
    (void)::fdatasync(file.fd);
    file.last_sync = now;
  }
}

void KernelTunerCacheWriter::close() {
  if (file_ == nullptr) return;
  const std::unique_ptr<File> file = std::move(file_);
  // As Kernel Tuner's close_cache: the trailing comma becomes the cache's closing brace. If the disk cannot take
  // the two more bytes, the file is put back as it was: open-ended after a complete entry, which readers repair.
  const off_t at = file->has_entries ? file->committed - 1 : file->committed;
  if (!posix::write_fully(file->fd, "}\n}", at)) {
    const int error = errno;
    if (file->has_entries) (void)posix::write_fully(file->fd, ",", at);
    (void)::ftruncate(file->fd, file->committed);
    errno = error;
    throw_write_error(path_, "terminate the file (it stays readable and resumable without its closing braces)");
  }
  if (::fdatasync(file->fd) != 0) throw_write_error(path_, "flush to disk");
}

}  // namespace ktune::io
