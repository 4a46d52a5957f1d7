#include "ktune/store/store_transfer.hpp"

#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/output_file.hpp"
#include "ktune/io/results_csv.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/io/t4_results.hpp"

namespace ktune::store {

std::optional<ExportFormat> parse_export_format(std::string_view name) {
  if (name == "cache") return ExportFormat::cache;
  if (name == "t4") return ExportFormat::t4;
  if (name == "csv") return ExportFormat::csv;
  return std::nullopt;
}

ImportSummary import_results_file(ResultsStore& store, const std::string& path) {
  io::ResultsFile file = io::read_results_file(path);
  SpaceOrigin origin;
  origin.kernel_name = file.kernel_name;
  origin.device_name = file.device_name;
  origin.problem_size = file.problem_size;
  origin.problem = std::move(file.problem);
  origin.objectives = file.objectives;
  origin.provenance = file.provenance;
  origin.format = io::to_string(file.format);
  SessionInfo session;
  session.source = std::filesystem::absolute(path).lexically_normal().string();
  // What the file said that is no record, so that nothing it held is lost.
  nlohmann::json notes = nlohmann::json::object();
  if (file.truncated) notes["truncated"] = true;
  if (file.missing_cache) notes["missing_cache"] = true;
  if (file.time_stand_ins > 0)
    notes["time_stand_ins"] = {{"count", file.time_stand_ins}, {"first", file.first_time_stand_in}};
  if (!notes.empty()) session.notes = std::move(notes);

  ImportSummary summary;
  summary.format = origin.format;
  summary.truncated = file.truncated;
  summary.read = file.records.size();
  try {
    summary.space = store.space_of(origin);
    summary.session = store.begin_session(summary.space, std::move(session));
    summary.added = store.add_all(summary.session, file.records);
  } catch (const std::invalid_argument& e) {
    throw io::InputError(path, "", e.what());
  }
  return summary;
}

ExportFormat default_export_format(const StoredSpace& space, const std::string& path) {
  if (path.ends_with(".csv") || space.origin.format == io::to_string(io::ResultsFormat::Csv)) return ExportFormat::csv;
  return space.origin.format == io::to_string(io::ResultsFormat::T4) ? ExportFormat::t4 : ExportFormat::cache;
}

namespace {

// The latest record of each configuration, at the place of its first (a cache holds one entry per configuration).
std::vector<EvaluationRecord> latest_per_configuration(std::vector<EvaluationRecord> records, std::size_t& superseded) {
  std::unordered_map<std::string, std::size_t> at;
  std::vector<EvaluationRecord> out;
  out.reserve(records.size());
  for (auto& r : records) {
    auto [it, fresh] = at.emplace(io::kernel_tuner_key(r.config), out.size());
    if (fresh) {
      out.push_back(std::move(r));
    } else {
      out[it->second] = std::move(r);
      ++superseded;
    }
  }
  return out;
}

void export_cache(const StoredSpace& space, const std::vector<EvaluationRecord>& records, const std::string& path) {
  io::CacheHeader header{space.origin.device_name, space.origin.kernel_name, space.origin.problem_size,
                         space.origin.problem,     space.origin.objectives,  space.origin.provenance};
  // The writer resumes an existing file; a fresh one beside the target, renamed over it when complete, replaces it.
  const std::string target = io::resolve_output_path(path);
  const std::string temporary = fmt::format("{}.ktune-export-{}", target, getpid());
  std::filesystem::remove(temporary);
  try {
    io::KernelTunerCacheWriter writer(temporary, header);
    for (const auto& r : records) writer.append(r);
    writer.close();
  } catch (const std::invalid_argument& e) {
    std::filesystem::remove(temporary);
    throw io::InputError(path, "", fmt::format("cannot be written as a Kernel Tuner cache: {}", e.what()));
  } catch (...) {
    std::filesystem::remove(temporary);
    throw;
  }
  std::error_code error;
  std::filesystem::rename(temporary, target, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw io::InputError(path, "", fmt::format("cannot write the file: {}", error.message()));
  }
}

// The T4 writer gives time measurements ("time", "*_time") without a unit the unit "ms"; a store gives back what it
// was given, so the empty units of every "time*" measurement go through it as a marker that no JSON text holds
// unescaped, and come out empty again.
std::string t4_text(const Problem& problem, std::vector<EvaluationRecord>& records,
                    const std::vector<std::string>& objectives) {
  static constexpr std::string_view kNoUnit = "ktune-store:no-unit:5f0c9d";
  bool marked = false;
  for (auto& r : records)
    for (auto& m : r.measurements)
      if (m.unit.empty() && m.name.starts_with("time")) {
        m.unit = kNoUnit;
        marked = true;
      }
  std::ostringstream out;
  io::write_t4_results(out, problem, records, objectives);
  std::string text = std::move(out).str();
  if (!marked) return text;
  const std::string from = fmt::format("\"unit\": \"{}\"", kNoUnit), to = "\"unit\": \"\"";
  std::string fixed;
  fixed.reserve(text.size());
  std::size_t at = 0;
  for (std::size_t hit = text.find(from); hit != std::string::npos; hit = text.find(from, at)) {
    fixed.append(text, at, hit - at).append(to);
    at = hit + from.size();
  }
  fixed.append(text, at);
  return fixed;
}

}  // namespace

ExportSummary export_space(const ResultsStore& store, std::int64_t space_id, const std::string& path,
                           ExportFormat format) {
  const StoredSpace space = store.space(space_id);
  std::vector<EvaluationRecord> records = store.records(space_id);
  ExportSummary summary;
  summary.format = format;
  // A run's objectives carry their direction ("time:min"); files name them as they were written.
  std::vector<std::string> objectives = space.origin.objectives;
  if (space.origin.format == "ktune")
    for (auto& o : objectives) o = objective_name(o);
  StoredSpace named = space;
  named.origin.objectives = objectives;
  if (objectives.empty()) objectives = {"time"};
  switch (format) {
    case ExportFormat::cache:
      records = latest_per_configuration(std::move(records), summary.superseded);
      export_cache(named, records, path);
      break;
    case ExportFormat::t4:
      try {
        io::write_file_atomically(path, t4_text(space.origin.problem, records, named.origin.objectives));
      } catch (const std::invalid_argument& e) {
        throw io::InputError(path, "", fmt::format("cannot be written as T4: {}", e.what()));
      }
      break;
    case ExportFormat::csv:
      io::write_file_atomically(path, [&](std::ostream& out) {
        io::write_results_csv(out, space.origin.problem, records, objectives);
      });
      break;
  }
  summary.written = records.size();
  return summary;
}

MergeSummary merge_store(ResultsStore& into, const std::string& from) {
  const ResultsStore source(from, OpenMode::existing);
  if (io::same_file(from, into.path()))
    throw io::InputError(from, "", "is the store merged into: merge another store");
  MergeSummary summary;
  for (const StoredSpace& space : source.spaces()) {
    const auto target = into.space_of(space.origin);
    ++summary.spaces;
    for (const StoredSession& session : source.sessions(space.id)) {
      const auto records = source.session_records(session.id);
      summary.read += records.size();
      // Each session once: records merged again go to the session they came with the first time.
      std::optional<std::int64_t> copy;
      for (const StoredSession& s : into.sessions(target))
        if (s.info.started == session.info.started && s.info.source == session.info.source &&
            s.info.strategy == session.info.strategy && s.info.seed == session.info.seed)
          copy = s.id;
      if (!copy) {
        copy = into.begin_session(target, session.info);
        ++summary.sessions;
      }
      summary.added += into.add_all(*copy, records);
    }
  }
  return summary;
}

}  // namespace ktune::store
