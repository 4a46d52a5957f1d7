#pragma once
// Reader of T1 tuning-problem files (schema 1.0.0, github.com/odgaard/TuningSchema), as written for Kernel Tuner,
// KTT and the BAT benchmark suite.
//
// Read: ConfigurationSpace.TuningParameters[] {Name, Type in int|uint|float|bool|string, Values} and
// ConfigurationSpace.Conditions[] {Expression, Parameters}. Values is a Python expression that must give a list
// ("[2**i for i in range(6)]"); a plain JSON array is accepted as well. Type coerces the values: "float" turns ints
// into floats, "int"/"uint" need integral numbers (2.0 becomes 2, 1.5 is an error; "uint" also >= 0), "bool" takes
// booleans and 0/1, "string" takes strings only. Conditions are parsed here, so a syntax error is reported with the
// file, the JSON path and a caret. The problem is named after General.BenchmarkName, else the file stem.
// KernelSpecification (required by the schema, absent from the search-space sets) is optional and not read yet.
// max_threads keeps its default (1024): Kernel Tuner's implicit block-size constraint applies.
//
// Every error is an InputError naming the file and the JSON path.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ktune/problem.hpp"

namespace ktune::io {

Problem read_t1_file(const std::string& path);
// A TuningParameters[].Values field: a Python expression that gives a list, or (leniently) a JSON array. Throws
// InputError(source, json_path, "<what>: <why>"), `what` naming the parameter ("parameter 'tile'").
Value read_t1_value_list(const nlohmann::json& values, const std::string& source, const std::string& json_path,
                         const std::string& what);
Problem parse_t1(const nlohmann::json& document, const std::string& source_name);

}  // namespace ktune::io
