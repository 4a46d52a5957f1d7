#pragma once
// Loading JSON input files, plain or gzip-compressed (detected from the content, not the name).
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace ktune::io {

// The whole content of a file, gunzipped if it is gzip data. Throws InputError naming the file.
std::string read_file_text(const std::string& path);

// Parses JSON text; a syntax error throws InputError naming `source_name` with the byte offset, line and column.
nlohmann::json parse_json_text(const std::string& text, const std::string& source_name,
                               const nlohmann::json::parser_callback_t& callback = nullptr);

// Throws the InputError of a JSON syntax error at 0-based `byte` of `text` (with line and column).
[[noreturn]] void throw_json_syntax_error(const std::string& text, std::size_t byte, const std::string& detail,
                                         const std::string& source_name);
// The message of a nlohmann parse error without its "[json.exception...] parse error at ...: " prefix.
std::string parse_error_detail(const nlohmann::json::parse_error& error);

// read_file_text + parse_json_text.
nlohmann::json load_json_file(const std::string& path, const nlohmann::json::parser_callback_t& callback = nullptr);

// The file name without directories and without .json / .json.gz / .gz: the default problem name.
std::string file_stem(const std::string& path);

}  // namespace ktune::io
