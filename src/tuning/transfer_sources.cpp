#include "ktune/tuning/transfer_sources.hpp"

#include <algorithm>
#include <fstream>
#include <map>
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

namespace {

// `into` with `more`'s records added: a configuration already held is kept, unless it failed there and ran here.
void merge_into(io::ResultsFile& into, const io::ResultsFile& more) {
  auto& params = into.problem.parameters;
  // The merged value index of `v` of parameter p, the value appended when new.
  auto index_of = [&](std::size_t p, const Value& v) {
    auto& values = params[p].values;
    const auto it = std::find_if(values.begin(), values.end(), [&](const Value& w) { return python_equal(v, w); });
    if (it != values.end()) return static_cast<std::uint32_t>(it - values.begin());
    values.push_back(v);
    return static_cast<std::uint32_t>(values.size() - 1);
  };
  std::map<std::vector<std::uint32_t>, std::size_t> held;
  std::vector<std::uint32_t> key(params.size());
  for (std::size_t r = 0; r < into.records.size(); ++r) {
    for (std::size_t p = 0; p < params.size(); ++p) key[p] = index_of(p, into.records[r].config[p]);
    held.emplace(key, r);
  }
  // more's parameter of each of into's (same_kernel: the same names).
  std::vector<std::size_t> from(params.size());
  for (std::size_t p = 0; p < params.size(); ++p) {
    const auto& theirs = more.problem.parameters;
    from[p] = static_cast<std::size_t>(
        std::find_if(theirs.begin(), theirs.end(), [&](const Parameter& q) { return q.name == params[p].name; }) -
        theirs.begin());
  }
  for (const EvaluationRecord& record : more.records) {
    EvaluationRecord r = record;
    for (std::size_t p = 0; p < params.size(); ++p) r.config[p] = record.config[from[p]];
    for (std::size_t p = 0; p < params.size(); ++p) key[p] = index_of(p, r.config[p]);
    if (const auto it = held.find(key); it == held.end()) {
      held.emplace(key, into.records.size());
      into.records.push_back(std::move(r));
    } else if (into.records[it->second].status != Status::ok && r.status == Status::ok) {
      into.records[it->second] = std::move(r);
    }
  }
  for (const std::string& o : more.objectives)
    if (std::find(into.objectives.begin(), into.objectives.end(), o) == into.objectives.end())
      into.objectives.push_back(o);
  if (into.device_name.empty()) into.device_name = more.device_name;
  if (into.kernel_name.empty()) into.kernel_name = more.kernel_name;
  if (into.problem_size.is_null()) into.problem_size = more.problem_size;
}

}  // namespace

std::vector<TransferSource> merge_same_device(const std::vector<TransferSource>& sources) {
  std::vector<TransferSource> merged;
  std::vector<std::vector<std::size_t>> groups;  // indices into `sources`, one group per merged source
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto group = std::find_if(groups.begin(), groups.end(), [&](const std::vector<std::size_t>& g) {
      const TransferSource& first = sources[g.front()];
      return same_kernel(*first.results, sources[i].results->problem, sources[i].results->kernel_name) &&
             same_measured_device(first.name, *first.results, sources[i].name, *sources[i].results);
    });
    if (group == groups.end()) groups.push_back({i});
    else group->push_back(i);
  }
  for (const auto& group : groups) {
    if (group.size() == 1) {
      merged.push_back(sources[group.front()]);
      continue;
    }
    auto file = std::make_shared<io::ResultsFile>(*sources[group.front()].results);
    std::string name = sources[group.front()].name;
    for (std::size_t k = 1; k < group.size(); ++k) {
      merge_into(*file, *sources[group[k]].results);
      name += " + " + sources[group[k]].name;
    }
    merged.push_back({std::move(name), std::move(file)});
  }
  return merged;
}

}  // namespace ktune
