#pragma once
// Conversion between JSON scalars/arrays and Values: integers <-> int64, floating point <-> double, bool, string,
// arrays <-> lists, null <-> None. Kept apart from Value so that Value stays free of JSON.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ktune/value.hpp"

namespace ktune::io {

nlohmann::json value_to_json(const Value& value);
// Throws std::invalid_argument for objects and for integers outside the int64 range.
Value value_from_json(const nlohmann::json& json);
// A measured or computed number for a --json report: null when it is NaN or infinite (JSON has neither).
nlohmann::json number_or_null(double value);

}  // namespace ktune::io
