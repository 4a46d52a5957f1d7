#include "ktune/io/input_error.hpp"

namespace ktune::io {

namespace {
std::string compose(const std::string& file, const std::string& json_path, const std::string& message) {
  std::string text = file.empty() ? std::string("<input>") : file;
  text += ": ";
  if (!json_path.empty()) text += json_path + ": ";
  return text + message;
}
}  // namespace

InputError::InputError(std::string file, std::string json_path, const std::string& message)
    : std::runtime_error(compose(file, json_path, message)), file_(std::move(file)), json_path_(std::move(json_path)) {}

}  // namespace ktune::io
