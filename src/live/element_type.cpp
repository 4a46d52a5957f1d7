// Element types of kernel arguments: sizes and the names users and generated code spell them with.
#include "ktune/live/element_type.hpp"

#include <array>
#include <utility>

namespace ktune::live {

std::size_t element_size(ElementType type) {
  switch (type) {
    case ElementType::int8:
    case ElementType::uint8:
    case ElementType::boolean: return 1;
    case ElementType::int16:
    case ElementType::uint16:
    case ElementType::float16: return 2;
    case ElementType::int32:
    case ElementType::uint32:
    case ElementType::float32: return 4;
    case ElementType::int64:
    case ElementType::uint64:
    case ElementType::float64: return 8;
  }
  return 1;  // unreachable for valid enumerators
}

bool is_floating(ElementType type) {
  return type == ElementType::float16 || type == ElementType::float32 || type == ElementType::float64;
}

std::optional<ElementType> parse_element_type(std::string_view name) {
  // The T1 names first, then the C spellings users write when the argument mirrors a kernel parameter.
  static constexpr std::array<std::pair<std::string_view, ElementType>, 22> kNames{{
      {"int8", ElementType::int8},         {"uint8", ElementType::uint8},
      {"int16", ElementType::int16},       {"uint16", ElementType::uint16},
      {"int32", ElementType::int32},       {"uint32", ElementType::uint32},
      {"int64", ElementType::int64},       {"uint64", ElementType::uint64},
      {"int", ElementType::int32},         {"uint", ElementType::uint32},
      {"unsigned int", ElementType::uint32}, {"half", ElementType::float16},
      {"float16", ElementType::float16},   {"float", ElementType::float32},
      {"float32", ElementType::float32},   {"double", ElementType::float64},
      {"float64", ElementType::float64},   {"bool", ElementType::boolean},
      {"char", ElementType::int8},         {"uchar", ElementType::uint8},
      {"short", ElementType::int16},       {"ushort", ElementType::uint16},
  }};
  for (const auto& [spelling, type] : kNames)
    if (spelling == name) return type;
  return std::nullopt;
}

std::string_view to_string(ElementType type) {
  switch (type) {
    case ElementType::int8: return "int8";
    case ElementType::uint8: return "uint8";
    case ElementType::int16: return "int16";
    case ElementType::uint16: return "uint16";
    case ElementType::int32: return "int32";
    case ElementType::uint32: return "uint32";
    case ElementType::int64: return "int64";
    case ElementType::uint64: return "uint64";
    case ElementType::float16: return "half";
    case ElementType::float32: return "float";
    case ElementType::float64: return "double";
    case ElementType::boolean: return "bool";
  }
  return "unknown";
}

std::string_view c_type_name(ElementType type) {
  // Spellings that mean the same width in C/C++ on LP64 hosts, OpenCL C and CUDA ("long" is 64-bit in all three;
  // OpenCL reserves "long long"). int8 is "signed char" because plain char's signedness is implementation-defined.
  switch (type) {
    case ElementType::int8: return "signed char";
    case ElementType::uint8: return "unsigned char";
    case ElementType::int16: return "short";
    case ElementType::uint16: return "unsigned short";
    case ElementType::int32: return "int";
    case ElementType::uint32: return "unsigned int";
    case ElementType::int64: return "long";
    case ElementType::uint64: return "unsigned long";
    case ElementType::float16: return "half";
    case ElementType::float32: return "float";
    case ElementType::float64: return "double";
    case ElementType::boolean: return "bool";
  }
  return "void";
}

}  // namespace ktune::live
