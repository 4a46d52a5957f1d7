#include "ktune/tuning/transfer_sources.hpp"

#include <algorithm>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/store/results_store.hpp"

namespace ktune {

namespace {


std::string parameter_names(const Problem& problem) {
  std::string out;
  for (const auto& p : problem.parameters) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

}  // namespace

std::vector<TransferSource> read_transfer_sources(const std::vector<std::string>& paths) {
  std::vector<TransferSource> sources;
  for (const std::string& path : paths) {
    if (!store::is_results_store_file(path)) {
      sources.push_back({path, std::make_shared<const io::ResultsFile>(io::read_results_file(path))});
      continue;
    }
    const store::ResultsStore db(path, store::OpenMode::existing);
    for (const store::StoredSpace& space : db.spaces()) {
      auto file = std::make_shared<io::ResultsFile>();
      file->problem = space.origin.problem;
      file->kernel_name = space.origin.kernel_name;
      file->device_name = space.origin.device_name;
      file->problem_size = space.origin.problem_size;
      file->provenance = space.origin.provenance;
      for (const std::string& o : space.origin.objectives) file->objectives.push_back(store::objective_name(o));
      file->records = db.records(space.id);
      const std::string device = space.origin.device_name.empty() ? "unknown device" : space.origin.device_name;
      sources.push_back(
          {fmt::format("{}#{} ({}, {})", path, space.id, space.origin.kernel_name, device), std::move(file)});
    }
  }
  return sources;
}

std::vector<TransferSource> sources_for(const std::vector<TransferSource>& sources,
                                        const std::vector<std::string>& paths, const Problem& problem,
                                        const std::string& kernel_name) {
  std::vector<TransferSource> kept;
  for (const std::string& path : paths) {
    std::size_t of_path = 0, matching = 0;
    for (const TransferSource& s : sources) {
      if (s.name != path && s.name.rfind(path + "#", 0) != 0) continue;
      ++of_path;
      if (same_kernel(*s.results, problem, kernel_name)) {
        kept.push_back(s);
        ++matching;
      } else if (s.name == path) {
        throw io::InputError(path, "",
                             fmt::format("a transfer source of kernel '{}' with parameters {}; the tuned kernel is "
                                         "'{}' with parameters {}",
                                         s.results->kernel_name, parameter_names(s.results->problem), kernel_name,
                                         parameter_names(problem)));
      }
    }
    if (of_path > 0 && matching == 0)
      throw io::InputError(path, "",
                           fmt::format("a transfer source with {} spaces, none of kernel '{}' with parameters {}",
                                       of_path, kernel_name, parameter_names(problem)));
    if (of_path == 0) throw io::InputError(path, "", "a transfer source (a results store) that holds no results");
  }
  return kept;
}

}  // namespace ktune
