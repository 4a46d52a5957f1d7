#pragma once
// The six training spaces of the methodology (convolution and dedispersion on A100, A4000, MI250X), as T4 files.
#include <string>
#include <vector>

inline std::vector<std::string> training_spaces() {
  std::vector<std::string> paths;
  for (const char* app : {"convolution_milo", "dedispersion_milo"})
    for (const char* gpu : {"A100", "A4000", "MI250X"})
      paths.push_back(std::string(KTUNE_SHARED_DIR) + "/data/benchmark_hub/cachefiles/" + app + "/" + gpu +
                      "_T4.json.gz");
  return paths;
}
