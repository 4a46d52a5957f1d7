#include "ktune/design/design_log.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace ktune::design {

DesignLog::DesignLog(const std::string& path) : path_(path) {
  // A kill during the last append may have left a line without its end: drop it, so that every line is whole.
  if (std::FILE* in = std::fopen(path.c_str(), "rb")) {
    std::string text;
    char buffer[65536];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, in)) > 0;) text.append(buffer, n);
    std::fclose(in);
    if (!text.empty() && text.back() != '\n') {
      const std::size_t keep = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
      if (::truncate(path.c_str(), static_cast<off_t>(keep)) != 0)
        throw std::runtime_error(fmt::format("cannot repair the design log {}: {}", path, std::strerror(errno)));
    }
  }
  file_ = std::fopen(path.c_str(), "ab");
  if (!file_) throw std::runtime_error(fmt::format("cannot write the design log {}: {}", path, std::strerror(errno)));
  // Unbuffered: each record reaches the file in one write, so that a reader following the log (tail -f, a test
  // polling it) seldom sees half a line; a buffered stream wrote a long record in 4 KiB pieces.
  std::setvbuf(file_, nullptr, _IONBF, 0);
}

DesignLog::~DesignLog() {
  if (file_) std::fclose(file_);
}

void DesignLog::append(const nlohmann::json& record) {
  const std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const long before = std::ftell(file_);
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0) {
    // A full disk or a file-size limit: the part of the line that made it is cut off, so every line stays whole.
    const int error = errno;
    std::clearerr(file_);
    if (before >= 0) (void)::ftruncate(::fileno(file_), static_cast<off_t>(before));
    throw std::runtime_error(fmt::format("cannot write the design log {}: {}", path_, std::strerror(error)));
  }
  ::fsync(::fileno(file_));
}

std::vector<nlohmann::json> DesignLog::read(const std::string& path) {
  std::vector<nlohmann::json> records;
  std::ifstream in(path, std::ios::binary);
  if (!in) return records;
  std::string line;
  std::size_t number = 0;
  std::string pending_error;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    if (!pending_error.empty()) throw std::runtime_error(pending_error);  // a bad line that was not the last
    nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.is_object()) {
      pending_error = fmt::format("{}:{}: not a design log record", path, number);
      continue;
    }
    records.push_back(std::move(record));
  }
  return records;  // an unreadable last line: the record a kill cut short
}

}  // namespace ktune::design
