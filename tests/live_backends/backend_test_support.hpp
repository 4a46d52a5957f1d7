#pragma once
// Building kernel arguments from typed values and reading them back, for the backend tests.
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "ktune/live/backend.hpp"

namespace ktune::live::testing {

template <typename T>
KernelArgument vector_argument(std::string name, ElementType type, const std::vector<T>& values,
                               Access access = Access::read_write) {
  KernelArgument a;
  a.name = std::move(name);
  a.type = type;
  a.access = access;
  a.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

template <typename T>
KernelArgument scalar_argument(std::string name, ElementType type, T value) {
  KernelArgument a = vector_argument(std::move(name), type, std::vector<T>{value}, Access::read_only);
  a.scalar = true;
  return a;
}

inline KernelArgument local_argument(std::string name, ElementType type, std::size_t bytes) {
  KernelArgument a;
  a.name = std::move(name);
  a.type = type;
  a.local_memory = true;
  a.bytes.resize(bytes);
  return a;
}

template <typename T>
std::vector<T> read_back(Backend& backend, std::size_t index, std::size_t count) {
  std::vector<std::byte> bytes(count * sizeof(T));
  backend.read_argument(index, bytes);
  std::vector<T> values(count);
  if (count) std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

}  // namespace ktune::live::testing
