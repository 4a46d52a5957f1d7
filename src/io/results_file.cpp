// Reading a results file of either format, told apart by its content.
#include "ktune/io/results_file.hpp"

#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "io/lenient_json.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/results_csv.hpp"
#include "ktune/io/t4_results.hpp"

namespace ktune::io {

namespace {

// The first top-level key that only one format has decides; the values before it are skipped.
ResultsFormat detect_format(const std::string& text, const std::string& source) {
  LenientJsonReader reader(text, source);
  try {
    reader.expect_top_level_object();
    reader.expect('{');
    if (reader.peek() != '}') {
      for (;;) {
        const std::string_view key = reader.read_string();
        if (key == "cache" || key == "tune_params" || key == "tune_params_keys") return ResultsFormat::KernelTunerCache;
        if (key == "results") return ResultsFormat::T4;
        reader.expect(':');
        reader.skip_value();
        if (reader.peek() != ',') {
          reader.expect('}');
          break;
        }
        reader.expect(',');
      }
    }
  } catch (const EndOfInput&) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw InputError(source, "", "the file is empty");
    throw InputError(source, "",
                     fmt::format("the file ends at byte {} before it shows its format (cut short?)", text.size()));
  }
  throw InputError(source, "",
                   "neither a Kernel Tuner cache file (no 'cache' or 'tune_params') nor a T4 results file (no 'results')");
}

}  // namespace

const char* to_string(ResultsFormat format) {
  switch (format) {
    case ResultsFormat::KernelTunerCache: return "Kernel Tuner cache";
    case ResultsFormat::T4: return "T4";
    case ResultsFormat::Csv: return "CSV";
  }
  return "?";
}

ResultsFile read_results_file(const std::string& path) {
  const std::string text = read_file_text(path);
  if (path.ends_with(".csv") || path.ends_with(".csv.gz")) return parse_results_csv(text, path);
  return detect_format(text, path) == ResultsFormat::T4 ? parse_t4_results(text, path)
                                                        : parse_kernel_tuner_cache(text, path);
}

}  // namespace ktune::io
