#pragma once
// The arguments of a launch: host arrays (in, out, inout), scalars, and device buffers the application owns
// (ktune/runtime/opencl.hpp). Each knows its element type and count, so that a launch can be captured as a tuning
// problem, and its C type, so that a cpp kernel is called directly (no libffi in the runtime).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace ktune::runtime {

enum class ElementType : unsigned char { int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64 };
enum class Access : unsigned char { read_only, write_only, read_write };

// T1's names ("int32", "float", "double", ...) and sizes.
const char* t1_type_name(ElementType type);
std::size_t element_size(ElementType type);

template <class T>
constexpr ElementType element_type_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>) return ElementType::float32;
  else if constexpr (std::is_same_v<U, double>) return ElementType::float64;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 1) return ElementType::int8;
  else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U> && sizeof(U) == 1) return ElementType::uint8;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 2) return ElementType::int16;
  else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U> && sizeof(U) == 2) return ElementType::uint16;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 4) return ElementType::int32;
  else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U> && sizeof(U) == 4) return ElementType::uint32;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 8) return ElementType::int64;
  else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U> && sizeof(U) == 8) return ElementType::uint64;
  else static_assert(sizeof(U) == 0, "kernel arguments are integers, float or double");
}

// One argument, type-erased: what the OpenCL launch, the capture and the logs need.
struct Argument {
  enum class Kind : unsigned char { host_array, scalar, device_buffer };
  Kind kind = Kind::scalar;
  ElementType type = ElementType::int32;
  Access access = Access::read_only;
  std::size_t count = 1;          // elements (1 for a scalar)
  void* host = nullptr;           // host_array: the elements
  void* device = nullptr;         // device_buffer: the backend's handle (cl_mem)
  alignas(8) unsigned char value[8] = {};  // scalar: its bytes
  std::size_t bytes() const { return count * element_size(type); }
};

// Typed wrappers that remember the C type a cpp kernel takes (T* or T). Made by in(), out(), inout(), scalar().
template <class T>
struct ArrayArgument {
  using c_type = T*;
  Argument erased;
  c_type c_value(void* substitute) const { return static_cast<T*>(substitute ? substitute : erased.host); }
};
template <class T>
struct ScalarArgument {
  using c_type = T;
  Argument erased;
  T value;
  c_type c_value(void*) const { return value; }
};

namespace detail {
template <class T>
Argument array(const T* data, std::size_t count, Access access) {
  Argument a;
  a.kind = Argument::Kind::host_array;
  a.type = element_type_of<T>();
  a.access = access;
  a.count = count;
  a.host = const_cast<std::remove_cv_t<T>*>(data);
  return a;
}
}  // namespace detail

// An array the kernel reads.
template <class T>
ArrayArgument<const T> in(const T* data, std::size_t count) {
  return {detail::array(data, count, Access::read_only)};
}
template <class T>
ArrayArgument<const T> in(const std::vector<T>& v) {
  return in(v.data(), v.size());
}
// An array the kernel writes (its contents before the launch may be read by a kernel that writes only some).
template <class T>
ArrayArgument<T> out(T* data, std::size_t count) {
  return {detail::array(data, count, Access::write_only)};
}
template <class T>
ArrayArgument<T> out(std::vector<T>& v) {
  return out(v.data(), v.size());
}
template <class T>
ArrayArgument<T> inout(T* data, std::size_t count) {
  return {detail::array(data, count, Access::read_write)};
}
template <class T>
ArrayArgument<T> inout(std::vector<T>& v) {
  return inout(v.data(), v.size());
}
template <class T>
ScalarArgument<T> scalar(T value) {
  ScalarArgument<T> s{{}, value};
  s.erased.kind = Argument::Kind::scalar;
  s.erased.type = element_type_of<T>();
  std::memcpy(s.erased.value, &value, sizeof(T));
  return s;
}

}  // namespace ktune::runtime
