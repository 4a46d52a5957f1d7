#pragma once
// The JSON-lines record of a design run: one object per line, appended and flushed as things happen (the prompt
// before it is sent, the reply as it arrives, the candidate once scored), so that a run killed at any moment resumes
// from it. A last line cut short by the kill is ignored on reading; any other unreadable line is an error naming it.
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune::design {

class DesignLog {
 public:
  // Opens `path` for appending (created if missing).
  explicit DesignLog(const std::string& path);
  ~DesignLog();
  DesignLog(const DesignLog&) = delete;
  DesignLog& operator=(const DesignLog&) = delete;

  // Appends one record and forces it to disk.
  void append(const nlohmann::json& record);
  const std::string& path() const { return path_; }

  // The records of an existing log (empty if there is none). Throws std::runtime_error naming the file and line.
  static std::vector<nlohmann::json> read(const std::string& path);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace ktune::design
