#pragma once
// One kernel argument as the host holds it: a vector (a device buffer) or a scalar (passed by value). The bytes are
// the initial contents; backends upload them once and re-upload them before a verification run.
#include <cstddef>
#include <string>
#include <vector>

#include "ktune/live/element_type.hpp"

namespace ktune::live {

enum class Access : unsigned char { read_only, write_only, read_write };

struct KernelArgument {
  std::string name;
  ElementType type = ElementType::float32;
  bool scalar = false;            // true: passed by value (bytes holds one element)
  Access access = Access::read_write;
  bool local_memory = false;      // OpenCL __local / CUDA dynamic shared memory of bytes.size() bytes, no contents
  std::vector<std::byte> bytes;   // host contents, element_size(type) * count bytes

  std::size_t count() const { return bytes.size() / element_size(type); }
  // Outputs are compared by verification and copied back; read-only arguments never are.
  bool is_output() const { return !scalar && !local_memory && access != Access::read_only; }
};

}  // namespace ktune::live
