#pragma once
// Loading JSON input files, plain or gzip-compressed (detected from the content, not the name).
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ktune::io {

// The whole content of a file, gunzipped if it is gzip data. Throws InputError naming the file, also when the text
// would exceed max_input_bytes() (a gzip bomb) or does not fit in memory.
std::string read_file_text(const std::string& path);

// The largest text read_file_text() accepts: half the physical memory, at most 16 GiB (a results file of millions
// of entries is a few GiB). The testing hook sets another limit (nullopt: back to the default).
std::size_t max_input_bytes();
void set_max_input_bytes_for_testing(std::optional<std::size_t> bytes);

// How deeply JSON input may nest objects and arrays (the top-level value is level 1). Deeper text is refused with an
// InputError before a document is built: the code that walks documents (nlohmann's dump() and copies,
// value_from_json, the lenient reader) recurses once per level, and 200000 levels would overflow the stack.
inline constexpr std::size_t kMaxJsonDepth = 512;

// What nlohmann's parser does not check itself: nesting deeper than kMaxJsonDepth, and a NUL byte (it takes one for
// the end of the text and ignores what follows). The byte offset of the first such problem and what it is, else
// nullopt. Looks at brackets, strings and NUL bytes only: the text need not be valid JSON.
std::optional<std::pair<std::size_t, std::string>> json_text_problem(std::string_view text);

// Parses JSON text; a syntax error throws InputError naming `source_name` with the byte offset, line and column, as
// does a json_text_problem.
nlohmann::json parse_json_text(const std::string& text, const std::string& source_name,
                               const nlohmann::json::parser_callback_t& callback = nullptr);
// The same keeping the key order of objects (a T1 file's Metrics and Defines are evaluated in file order).
nlohmann::ordered_json parse_ordered_json_text(const std::string& text, const std::string& source_name);

// Throws the InputError of a JSON syntax error at 0-based `byte` of `text` (with line and column).
[[noreturn]] void throw_json_syntax_error(const std::string& text, std::size_t byte, const std::string& detail,
                                         const std::string& source_name);
// The InputError of nlohmann's out_of_range error (a number beyond a double's range, 1e400, for which nlohmann gives
// no position): with the number's byte, line and column in `text` when it can be found there.
[[noreturn]] void throw_json_out_of_range(const std::string& text, const nlohmann::json::out_of_range& error,
                                          const std::string& source_name);
// The message of a nlohmann parse error without its "[json.exception...] parse error at ...: " prefix.
std::string parse_error_detail(const nlohmann::json::parse_error& error);

// A JSON value as an error message shows it: compact, invalid UTF-8 replaced (the lenient reader keeps the bytes of a
// file as they are, and nlohmann's dump() throws on them), cut to about 200 bytes with "..." after.
std::string json_for_message(const nlohmann::json& value);

// read_file_text + parse_json_text.
nlohmann::json load_json_file(const std::string& path, const nlohmann::json::parser_callback_t& callback = nullptr);

// The file name without directories and without .json / .json.gz / .gz: the default problem name.
std::string file_stem(const std::string& path);

}  // namespace ktune::io
