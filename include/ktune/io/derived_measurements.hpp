#pragma once
// Measurements computed from a record's parameters, the problem's constants and its other measurements, added to
// results read from a file: objectives a brute-forced cache does not store but implies, e.g. the shared-memory
// footprint "smem=block_size_x*tile_size_x*4" next to "time", to make a multi-objective problem out of a
// single-objective GPU cache.
#include <string>
#include <vector>

#include "ktune/io/results_file.hpp"

namespace ktune::io {

struct DerivedMeasurement {
  std::string name;
  std::string expression;  // Python expression syntax, as constraints and metrics
};

// "NAME=EXPRESSION". Throws std::invalid_argument when there is no '=' or the name is empty.
DerivedMeasurement parse_derived_measurement(const std::string& text);

// Adds each derived measurement to every successful record (in order, so later ones may use earlier ones).
// Failed records get none. Throws std::invalid_argument naming the measurement and the expression's position for a
// syntax error, and the record's configuration when evaluating it fails or gives no number; a name already used
// by a parameter or a measurement of the records is refused.
void add_derived_measurements(ResultsFile& results, const std::vector<DerivedMeasurement>& derived);

}  // namespace ktune::io
