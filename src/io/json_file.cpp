#include "ktune/io/json_file.hpp"

#include <zlib.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "ktune/io/input_error.hpp"

namespace ktune::io {

namespace {

std::size_t expected_text_size(const std::string& path, std::size_t file_size) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return file_size;
  unsigned char head[2] = {0, 0}, tail[4] = {0, 0, 0, 0};
  std::size_t expected = file_size;
  if (std::fread(head, 1, 2, f) == 2 && head[0] == 0x1f && head[1] == 0x8b && file_size >= 18 &&
      std::fseek(f, -4, SEEK_END) == 0 && std::fread(tail, 1, 4, f) == 4) {
    const std::size_t isize = tail[0] | (tail[1] << 8) | (tail[2] << 16) | (std::size_t{tail[3]} << 24);
    // Beyond ~1000:1 the trailer is corrupt (or the file is over 4 GiB): just grow.
    expected = isize <= file_size * 1032 ? isize : file_size;
  }
  std::fclose(f);
  return expected;
}

std::atomic<std::size_t> max_input_override{0};

// The number in nlohmann's "number overflow parsing '1e400'".
std::optional<std::string> overflowing_number(std::string_view message) {
  constexpr std::string_view kPrefix = "number overflow parsing '";
  const auto begin = message.find(kPrefix);
  if (begin == std::string_view::npos) return std::nullopt;
  const auto end = message.find('\'', begin + kPrefix.size());
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(message.substr(begin + kPrefix.size(), end - begin - kPrefix.size()));
}

// The byte where `number` first stands as a number token (outside strings) in `text`.
std::optional<std::size_t> number_position(std::string_view text, std::string_view number) {
  const auto number_char = [](char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
  };
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if ((i == 0 || !number_char(text[i - 1])) && text.substr(i, number.size()) == number &&
               (i + number.size() == text.size() || !number_char(text[i + number.size()]))) {
      return i;
    }
  }
  return std::nullopt;
}

std::string read_file_text_unchecked(const std::string& path, std::size_t limit);

}  // namespace

std::size_t max_input_bytes() {
  if (const std::size_t limit = max_input_override.load()) return limit;
  constexpr std::size_t kCap = std::size_t{16} << 30;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return kCap;
  return std::min(kCap, static_cast<std::size_t>(pages) / 2 * static_cast<std::size_t>(page_size));
}

void set_max_input_bytes_for_testing(std::optional<std::size_t> bytes) { max_input_override.store(bytes.value_or(0)); }

std::string read_file_text(const std::string& path) {
  try {
    return read_file_text_unchecked(path, max_input_bytes());
  } catch (const std::bad_alloc&) {
    throw InputError(path, "", "cannot read file: its (decompressed) text does not fit in memory");
  } catch (const std::length_error&) {
    throw InputError(path, "", "cannot read file: its (decompressed) text does not fit in memory");
  }
}

namespace {

std::string read_file_text_unchecked(const std::string& path, std::size_t limit) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw InputError(path, "", "cannot open file: no such file");
  if (std::filesystem::is_directory(status)) throw InputError(path, "", "cannot read file: it is a directory");

  // gzread passes non-gzip files through unchanged, so one code path reads both.
  errno = 0;
  gzFile raw = gzopen(path.c_str(), "rb");
  if (raw == nullptr)
    throw InputError(path, "", fmt::format("cannot open file: {}", errno != 0 ? std::strerror(errno) : "out of memory"));
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(raw, gzclose);
  gzbuffer(raw, 1 << 17);

  // Read straight into the result, sized from the file: its length, or for gzip the uncompressed length modulo
  // 2^32 that the format stores in its last four bytes (a hint only: the loop grows the buffer as needed).
  std::size_t used = 0;
  constexpr std::size_t kChunk = 1 << 16;
  const std::size_t expected = expected_text_size(path, static_cast<std::size_t>(std::filesystem::file_size(path, ec)));
  std::string text(std::min(expected, limit) + 1, '\0');
  for (;;) {
    if (text.size() - used < kChunk) text.resize(std::min(std::max(text.size() * 2, used + kChunk), limit + kChunk + 1));
    const auto want = static_cast<unsigned>(std::min<std::size_t>(text.size() - used, std::size_t{1} << 30));
    const int n = gzread(raw, text.data() + used, want);
    if (n < 0) {
      int code = 0;
      const char* message = gzerror(raw, &code);
      if (code == Z_ERRNO) message = std::strerror(errno);
      throw InputError(path, "", fmt::format("cannot read file: {}", message));
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
    if (used > limit)
      throw InputError(path, "", fmt::format("cannot read file: its text exceeds {} MiB (a gzip bomb?), the most ktune "
                                             "reads on this machine",
                                             limit >> 20));
  }
  text.resize(used);
  // A truncated gzip stream ends without an error from gzread on some zlib versions; gzerror tells.
  int code = 0;
  const char* message = gzerror(raw, &code);
  if (code != Z_OK && code != Z_BUF_ERROR) throw InputError(path, "", fmt::format("cannot read file: {}", message));
  if (code == Z_BUF_ERROR) throw InputError(path, "", "cannot read file: truncated gzip data");
  return text;
}

}  // namespace

void throw_json_syntax_error(const std::string& text, std::size_t byte, const std::string& detail,
                             const std::string& source_name) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  // Every position counts from 1 (the byte too), as the line and column do.
  throw InputError(source_name, "",
                   fmt::format("invalid JSON at byte {} (line {}, column {}): {}", byte + 1, line, column, detail));
}

void throw_json_out_of_range(const std::string& text, const nlohmann::json::out_of_range& e,
                             const std::string& source_name) {
  if (const auto number = overflowing_number(e.what()))
    if (const auto at = number_position(text, *number))
      throw_json_syntax_error(text, *at, fmt::format("the number {} is out of range (beyond 1.8e308)", *number),
                              source_name);
  throw InputError(source_name, "", fmt::format("invalid JSON: {}", e.what()));
}

std::string parse_error_detail(const nlohmann::json::parse_error& e) {
  // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line 1, column 2: ".
  std::string detail = e.what();
  if (const auto colon = detail.find(": "); colon != std::string::npos && detail.rfind("[json.exception", 0) == 0)
    detail = detail.substr(colon + 2);
  return detail;
}

std::optional<std::pair<std::size_t, std::string>> json_text_problem(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\0') return std::pair{i, std::string("a NUL byte (not JSON text)")};
    if (in_string) {
      if (c == '\\') {
        if (i + 1 < text.size() && text[i + 1] != '\0') ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return std::pair{i, fmt::format("nesting deeper than {} levels", kMaxJsonDepth)};
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

namespace {

template <class Json>
Json parse_checked(const std::string& text, const std::string& source_name,
                   const typename Json::parser_callback_t& callback) {
  if (const auto problem = json_text_problem(text))
    throw_json_syntax_error(text, problem->first, problem->second, source_name);
  try {
    return Json::parse(text, callback, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based: the position of the last character read.
    throw_json_syntax_error(text, e.byte == 0 ? 0 : e.byte - 1, parse_error_detail(e), source_name);
  } catch (const nlohmann::json::out_of_range& e) {
    throw_json_out_of_range(text, e, source_name);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source_name, "", fmt::format("invalid JSON: {}", e.what()));
  }
}

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& source_name,
                               const nlohmann::json::parser_callback_t& callback) {
  return parse_checked<nlohmann::json>(text, source_name, callback);
}

nlohmann::ordered_json parse_ordered_json_text(const std::string& text, const std::string& source_name) {
  return parse_checked<nlohmann::ordered_json>(text, source_name, nullptr);
}

std::string json_for_message(const nlohmann::json& value) {
  constexpr std::size_t kLimit = 200;
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() <= kLimit) return text;
  std::size_t cut = kLimit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  text.resize(cut);
  return text + "...";
}

nlohmann::json load_json_file(const std::string& path, const nlohmann::json::parser_callback_t& callback) {
  return parse_json_text(read_file_text(path), path, callback);
}

std::string file_stem(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  for (const char* suffix : {".gz", ".json"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) name.resize(name.size() - s.size());
  }
  return name;
}

}  // namespace ktune::io
