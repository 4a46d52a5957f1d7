#pragma once
// Appending JSON text the way Python's json module writes it, for the results writers: floats in repr() form
// (exact round trip, 1.0 stays a float), NaN, Infinity and -Infinity for non-finite numbers, ", " and ": "
// separators. nlohmann::json cannot write non-finite numbers (it writes null).
#include <string>
#include <string_view>

#include "ktune/value.hpp"

namespace ktune::io {

void append_json_string(std::string& out, std::string_view text);
void append_json_number(std::string& out, double number);
// None -> null, bool, int, float, string, list -> [a, b].
void append_json_value(std::string& out, const Value& value);

}  // namespace ktune::io
