#include "ktune/runtime/argument.hpp"

namespace ktune::runtime {

const char* t1_type_name(ElementType type) {
  switch (type) {
    case ElementType::int8: return "int8";
    case ElementType::uint8: return "uint8";
    case ElementType::int16: return "int16";
    case ElementType::uint16: return "uint16";
    case ElementType::int32: return "int32";
    case ElementType::uint32: return "uint32";
    case ElementType::int64: return "int64";
    case ElementType::uint64: return "uint64";
    case ElementType::float32: return "float";
    case ElementType::float64: return "double";
  }
  return "?";
}

std::size_t element_size(ElementType type) {
  switch (type) {
    case ElementType::int8:
    case ElementType::uint8: return 1;
    case ElementType::int16:
    case ElementType::uint16: return 2;
    case ElementType::int32:
    case ElementType::uint32:
    case ElementType::float32: return 4;
    case ElementType::int64:
    case ElementType::uint64:
    case ElementType::float64: return 8;
  }
  return 1;
}

}  // namespace ktune::runtime
