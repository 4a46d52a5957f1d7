#pragma once
// The results store: every measurement with its provenance in one SQLite file (embedded, nothing to start), shared
// safely by several processes and MPI ranks at once (docs/store.md).
//
//   store::ResultsStore store("results.ktune");            // created if absent
//   const auto space = store.space_of(origin);             // the space of a kernel/device/size/build, made once
//   const auto session = store.begin_session(space, {.source = "ktune tune", .strategy = "random_sample"});
//   store.add(session, record);                            // committed when it returns
//
// A space is one origin of results (SpaceOrigin: kernel, device, problem size, parameters, objectives, the build's
// provenance); a session is one run or import into it (strategy, seed, ktune version, time, device details). Records
// are kept in the order they were added, with every field of an EvaluationRecord bit for bit (doubles, -0.0, NaN,
// infinities, integer vs float values), so that export gives back what was imported. A record identical in every
// field to one its space holds already is not added twice (imports and merges can be repeated).
//
// Safety: write-ahead log, busy timeout of 10 s, synchronous=NORMAL, and every add() its own short transaction: a
// process killed at any moment loses at most the record it was adding; other processes write on meanwhile. Errors
// (not a store, a damaged or newer store, a full disk, a lock held for longer than the timeout) are io::InputErrors
// naming the file.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/evaluation_record.hpp"
#include "ktune/problem.hpp"

namespace ktune::store {

// What makes results comparable: two origins equal in every field are one space.
struct SpaceOrigin {
  std::string kernel_name, device_name;  // "" when unknown
  nlohmann::json problem_size;           // as the cache writes it; null when unknown
  Problem problem;                       // the parameters with their declared values, constraints
  std::vector<std::string> objectives;   // the first is the main objective (`best`); may be empty ("time" then)
  // The build: backend (language), kernel_source_hash, compiler, compiler_options, as a Kernel Tuner cache's
  // "ktune_provenance" (kernel_tuner_cache.hpp); null when unknown.
  nlohmann::json provenance;
  // What the results came in as: "Kernel Tuner cache", "T4", "CSV" or "ktune" (recorded by a run); export writes
  // this format unless told otherwise.
  std::string format = "ktune";
};

// One run or import into a space.
struct SessionInfo {
  std::string source;    // the file imported, or "ktune tune", "python"
  std::string strategy;  // "" for imports
  std::optional<std::uint64_t> seed;
  nlohmann::json device;  // the device as probed (platform, driver, vendor...); null when unknown
  // Filled in by begin_session when empty: ktune's version and the time (UTC, ISO 8601).
  std::string ktune_version, started;
  // A results file's details that are no record (a cut-short file, Kernel Tuner time stand-ins); null: none.
  nlohmann::json notes;
};

struct StoredSpace {
  std::int64_t id = 0;
  SpaceOrigin origin;
  bool higher_is_better = false;  // of the main objective
  std::size_t records = 0, ok_records = 0, sessions = 0;
  std::string first_started, last_started;  // of its sessions
};

struct StoredSession {
  std::int64_t id = 0, space = 0;
  SessionInfo info;
  std::size_t records = 0;
};

struct BestRecord {
  std::int64_t space = 0;
  double value = 0;  // of the main objective
  EvaluationRecord record;
};

enum class OpenMode { create, existing };

// Whether `path` is an SQLite database (its first 16 bytes), as a results store is: how commands that take any
// results file tell a store from a cache, T4 or CSV file.
bool is_results_store_file(const std::string& path);

class ResultsStore {
 public:
  // Opens the store at `path`, creating it (and its schema) when `mode` is create. Throws io::InputError naming the
  // file: not a store, a store of a newer schema, no such file (existing), cannot be created.
  explicit ResultsStore(const std::string& path, OpenMode mode = OpenMode::create);
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  const std::string& path() const;

  // The space of `origin`, created when the store has none equal to it. The main objective is minimised unless it
  // is written "NAME:max" or its name says otherwise (GFLOP/s, score...: infer_higher_is_better).
  std::int64_t space_of(const SpaceOrigin& origin);
  std::int64_t begin_session(std::int64_t space, SessionInfo info);

  // Adds one record in its own transaction; committed (and safe from a kill) when it returns. False: an identical
  // record was there already. Throws std::invalid_argument when the configuration does not fit the space.
  bool add(std::int64_t session, const EvaluationRecord& record);
  // Many records in one transaction (import, merge): all or none. Returns how many were new.
  std::size_t add_all(std::int64_t session, std::span<const EvaluationRecord> records);

  std::vector<StoredSpace> spaces() const;
  StoredSpace space(std::int64_t id) const;  // throws io::InputError for an unknown id
  std::vector<StoredSession> sessions(std::int64_t space) const;
  // Every record of a space in the order added (clock_ms as recorded; NaN for imports).
  std::vector<EvaluationRecord> records(std::int64_t space) const;
  std::vector<EvaluationRecord> session_records(std::int64_t session) const;
  // The `count` best successful records of a space by its main objective (ties: the earlier first).
  std::vector<BestRecord> best(std::int64_t space, std::size_t count = 1) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The direction of an objective text: "NAME:max" / "NAME:min", else inferred from the name. nullopt: unknown.
std::optional<bool> objective_higher_is_better(const std::string& objective);
// "NAME" of "NAME:max".
std::string objective_name(const std::string& objective);

}  // namespace ktune::store
