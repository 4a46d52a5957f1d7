#include "ktune/io/json_value.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace ktune::io {

nlohmann::json value_to_json(const Value& value) {
  switch (value.type()) {
    case ValueType::None: return nullptr;
    case ValueType::Bool: return value.as_bool();
    case ValueType::Int: return value.as_int();
    case ValueType::Float: return value.as_float();
    case ValueType::String: return value.as_string();
    case ValueType::List: {
      nlohmann::json array = nlohmann::json::array();
      for (const Value& item : value.as_list()) array.push_back(value_to_json(item));
      return array;
    }
  }
  return nullptr;
}

Value value_from_json(const nlohmann::json& json) {
  switch (json.type()) {
    case nlohmann::json::value_t::null: return Value();
    case nlohmann::json::value_t::boolean: return Value(json.get<bool>());
    case nlohmann::json::value_t::number_integer: return Value(json.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: {
      const auto u = json.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        throw std::invalid_argument("integer " + json.dump() + " does not fit in 64 bits");
      return Value(static_cast<std::int64_t>(u));
    }
    case nlohmann::json::value_t::number_float: return Value(json.get<double>());
    case nlohmann::json::value_t::string: return Value(json.get<std::string>());
    case nlohmann::json::value_t::array: {
      Value::List list;
      list.reserve(json.size());
      for (const auto& item : json) list.push_back(value_from_json(item));
      return Value(std::move(list));
    }
    default: break;
  }
  throw std::invalid_argument(std::string("a JSON ") + json.type_name() + " is not a value");
}

nlohmann::json number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace ktune::io
