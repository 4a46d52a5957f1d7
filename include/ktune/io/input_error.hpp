#pragma once
// The one error type of the input readers (T1, ktune problem JSON, Kernel Tuner cache files).
#include <stdexcept>
#include <string>

namespace ktune::io {

// Bad input: unreadable file, invalid JSON, a missing or malformed field, a bad value expression, or a problem
// definition that fails Problem::validate(). what() is "<file>: <JSON path>: <message>", e.g.
//   conv.json: ConfigurationSpace.TuningParameters[2].Values: parameter 'tile': Type 'int' needs integral values, got 1.5
// The JSON path part is left out when the error concerns the whole file.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string json_path, const std::string& message);
  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }

 private:
  std::string file_, json_path_;
};

}  // namespace ktune::io
