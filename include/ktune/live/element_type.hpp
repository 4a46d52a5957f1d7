#pragma once
// Element types of kernel arguments (the T1 "Type" names), with their sizes.
#include <cstddef>
#include <optional>
#include <string_view>

namespace ktune::live {

enum class ElementType : unsigned char {
  int8, uint8, int16, uint16, int32, uint32, int64, uint64,
  float16,  // IEEE half, stored as 2 bytes (converted on the host with our own routines)
  float32, float64,
  boolean,  // one byte
};

std::size_t element_size(ElementType type);
bool is_floating(ElementType type);
// T1 / C spellings: "int8".."uint64", "int"/"int32", "half"/"float16", "float"/"float32", "double"/"float64", "bool".
std::optional<ElementType> parse_element_type(std::string_view name);
std::string_view to_string(ElementType type);  // "int32", "float", "double", "half", ...
// The C/OpenCL/CUDA type name used in generated code ("float", "double", "int", "unsigned int", "half", ...).
std::string_view c_type_name(ElementType type);

}  // namespace ktune::live
