#pragma once
// Reads a tuning problem from any supported file, recognised by its top-level keys:
//   "ConfigurationSpace"  T1 file                      (t1_reader.hpp)
//   "parameters"          ktune problem JSON           (Problem::to_json / from_json)
//   "tune_params"         Kernel Tuner cache file      (cache_reader.hpp)
// Plain or gzip-compressed. Every error is an InputError naming the file.
#include <string>

#include "ktune/problem.hpp"

namespace ktune::io {

enum class ProblemFormat { T1, Native, KernelTunerCache };
const char* to_string(ProblemFormat format);  // "T1", "ktune", "Kernel Tuner cache"

struct ProblemFile {
  Problem problem;
  ProblemFormat format;
  // A Kernel Tuner cache cut short (an interrupted run), read leniently as tune --simulate reads it.
  bool truncated = false;
};

ProblemFile read_problem_file(const std::string& path);

}  // namespace ktune::io
