#pragma once
// What a job refuses before it runs: a bad request (the caller's arguments) or bad input (a file, a kernel, a device).
// Front ends map the two to their own conventions (the CLI's exit statuses 2 and 1, a Python exception type).
#include <stdexcept>
#include <string>

namespace ktune {

class JobError : public std::runtime_error {
 public:
  enum class Kind { request, input };
  JobError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// The two refusals, for the jobs' own code.
[[noreturn]] inline void refuse_request(const std::string& message) {
  throw JobError(JobError::Kind::request, message);
}
[[noreturn]] inline void refuse_input(const std::string& message) { throw JobError(JobError::Kind::input, message); }

// What a job says on the way while it goes on: a note (an observer not available), a warning (an input cut short),
// or a loss (results are no longer being saved: a front end shows this one even when asked to be quiet).
enum class JobMessageLevel { note, warning, loss };

}  // namespace ktune
