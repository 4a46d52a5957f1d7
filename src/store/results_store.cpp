#include "ktune/store/results_store.hpp"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/tuning/objective.hpp"
#include "ktune/version.hpp"
#include "store/record_encoding.hpp"
#include "store/sqlite_database.hpp"

namespace ktune::store {

bool is_results_store_file(const std::string& path) {
  static constexpr char kSqliteMagic[] = "SQLite format 3";  // the first 16 bytes of every database, with the NUL
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head && std::memcmp(head, kSqliteMagic, sizeof head) == 0;
}

namespace {

constexpr int kSchemaVersion = 1;
constexpr int kApplicationId = 0x6b74756e;  // "ktun": tells a ktune store from any other SQLite file
constexpr int kBusyTimeoutMs = 10000;

// The doubles of a record sit in columns without a declared type: a REAL column would turn -0.0 into 0.
constexpr const char* kSchema = R"sql(
CREATE TABLE spaces (
  id INTEGER PRIMARY KEY,
  identity TEXT NOT NULL UNIQUE,      -- canonical JSON of the whole origin: equal origins are one space
  kernel_name TEXT NOT NULL,
  device_name TEXT NOT NULL,
  problem_size TEXT NOT NULL,         -- JSON, null when unknown
  problem TEXT NOT NULL,              -- Problem::to_json: parameters with declared values, constraints
  objectives TEXT NOT NULL,           -- JSON list; the first is the main objective
  higher_is_better INTEGER NOT NULL,  -- of the main objective
  provenance TEXT NOT NULL,           -- JSON: backend, kernel_source_hash, compiler, compiler_options; null: unknown
  format TEXT NOT NULL,               -- what the results came in as
  records INTEGER NOT NULL DEFAULT 0, -- counts kept with every insert: list and best never count a million rows
  ok_records INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  space_id INTEGER NOT NULL REFERENCES spaces(id),
  source TEXT NOT NULL,
  strategy TEXT NOT NULL,
  seed INTEGER,
  device TEXT NOT NULL,               -- JSON: the device as probed (platform, driver, ...)
  ktune_version TEXT NOT NULL,
  started TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  notes TEXT NOT NULL                 -- JSON
);
CREATE TABLE records (
  id INTEGER PRIMARY KEY,             -- the order records were added in
  space_id INTEGER NOT NULL REFERENCES spaces(id),
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  config_key TEXT NOT NULL,           -- Kernel Tuner's key, "128,alg_2,True"
  config TEXT NOT NULL,               -- JSON list of values
  status TEXT NOT NULL,
  message TEXT NOT NULL,
  score REAL,                         -- the main objective, negated when higher is better; NULL: none (failures)
  measurements TEXT NOT NULL,         -- JSON [[name, value, unit], ...]
  runtimes TEXT NOT NULL,             -- JSON list of ms, every repetition
  compile_ms, benchmark_ms, verification_ms, framework_ms, strategy_ms, clock_ms,  -- NULL: NaN
  timestamp TEXT NOT NULL,
  digest TEXT NOT NULL                -- of every field but clock_ms: identical records are kept once
);
CREATE UNIQUE INDEX records_digest ON records(space_id, digest);
CREATE INDEX records_best ON records(space_id, score) WHERE score IS NOT NULL;
CREATE INDEX records_config ON records(space_id, config_key);
CREATE INDEX sessions_space ON sessions(space_id);
)sql";

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:06d}Z", fmt::gmtime(std::chrono::system_clock::to_time_t(now)), micros);
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

std::string origin_identity(const SpaceOrigin& o) {
  return nlohmann::json{{"kernel_name", o.kernel_name}, {"device_name", o.device_name},
                        {"problem_size", o.problem_size}, {"problem", o.problem.to_json()},
                        {"objectives", o.objectives},   {"provenance", o.provenance},
                        {"format", o.format}}
      .dump();
}

nlohmann::json parse_column(const std::string& text, const std::string& path, const char* what) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw io::InputError(path, what, "a damaged store (invalid JSON)");
  return j;
}

// What add() needs to know of a session's space.
struct SpaceRules {
  std::int64_t space = 0;
  std::string objective;
  bool higher_is_better = false;
  Problem problem;
};

}  // namespace

std::string objective_name(const std::string& objective) {
  for (const char* suffix : {":max", ":min"})
    if (objective.size() > 4 && objective.ends_with(suffix)) return objective.substr(0, objective.size() - 4);
  return objective;
}

std::optional<bool> objective_higher_is_better(const std::string& objective) {
  if (objective.size() > 4 && objective.ends_with(":max")) return true;
  if (objective.size() > 4 && objective.ends_with(":min")) return false;
  return infer_higher_is_better(objective);
}

// The columns record_of() reads, in its order.
static constexpr const char* kRecordColumns =
    "config, status, message, measurements, runtimes, compile_ms, benchmark_ms, verification_ms, framework_ms, "
    "strategy_ms, clock_ms, timestamp";

struct ResultsStore::Impl {
  Database db;
  mutable std::mutex mutex;  // one connection: one caller at a time (listeners may run on other threads)
  std::map<std::int64_t, SpaceRules> sessions;

  Impl(const std::string& path, bool create) : db(path, create) {}

  void open_schema(bool create) {
    sqlite3_busy_timeout(db.handle(), kBusyTimeoutMs);
    // Another process may be switching the file to WAL at this moment: the change takes an exclusive lock that the
    // busy handler does not always wait for, so it is retried for as long as the busy timeout.
    for (int attempt = 0;; ++attempt) {
      try {
        db.exec("PRAGMA journal_mode=WAL");
        break;
      } catch (const io::InputError& e) {
        if (attempt >= kBusyTimeoutMs / 10 || std::string_view(e.what()).find("locked") == std::string_view::npos)
          throw io::InputError(db.path(), "", fmt::format("not a ktune results store ({})", e.what()));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    // NORMAL in WAL mode: a commit is in the log when add() returns, so killing the process loses nothing
    // committed; only an operating-system crash or power loss may undo the last commits (never corrupting the file).
    db.exec("PRAGMA synchronous=NORMAL");
    Transaction t(db);
    const auto pragma = [&](const char* name) {
      auto s = db.prepare(fmt::format("PRAGMA {}", name));
      return s.step() ? s.integer(0) : 0;
    };
    const auto version = pragma("user_version");
    const auto application = pragma("application_id");
    if (version == 0 && application == 0) {
      auto tables = db.prepare("SELECT count(*) FROM sqlite_master");
      tables.step();
      if (tables.integer(0) != 0) throw io::InputError(db.path(), "", "not a ktune results store (another SQLite database)");
      if (!create) throw io::InputError(db.path(), "", "not a ktune results store (an empty database)");
      db.exec(kSchema);
      db.exec(fmt::format("PRAGMA user_version={}; PRAGMA application_id={};", kSchemaVersion, kApplicationId));
    } else if (application != kApplicationId) {
      throw io::InputError(db.path(), "", "not a ktune results store (another SQLite database)");
    } else if (version > kSchemaVersion) {
      throw io::InputError(db.path(), "",
                           fmt::format("a results store of schema {} (this ktune reads up to {}): update ktune",
                                       version, kSchemaVersion));
    }
    t.commit();
  }

  const SpaceRules& rules(std::int64_t session) {
    if (const auto it = sessions.find(session); it != sessions.end()) return it->second;
    auto s = db.prepare(
        "SELECT spaces.id, spaces.objectives, spaces.higher_is_better, spaces.problem FROM sessions JOIN spaces ON "
        "spaces.id = sessions.space_id WHERE sessions.id = ?");
    s.bind(1, session);
    if (!s.step()) throw std::invalid_argument(fmt::format("{}: no session {}", db.path(), session));
    SpaceRules r;
    r.space = s.integer(0);
    const auto objectives = parse_column(s.text(1), db.path(), "spaces.objectives");
    r.objective = objectives.empty() ? "time" : objective_name(objectives[0].get<std::string>());
    r.higher_is_better = s.integer(2) != 0;
    r.problem = Problem::from_json(parse_column(s.text(3), db.path(), "spaces.problem"));
    return sessions.emplace(session, std::move(r)).first->second;
  }

  // Inserts one record (inside the caller's transaction). True: it was new.
  bool insert(Statement& statement, std::int64_t session, const SpaceRules& rules, const EvaluationRecord& r) {
    if (r.config.size() != rules.problem.parameters.size())
      throw std::invalid_argument(fmt::format("{}: a record of {} values for a space of {} parameters", db.path(),
                                              r.config.size(), rules.problem.parameters.size()));
    for (std::size_t i = 0; i < r.config.size(); ++i) {
      const auto& values = rules.problem.parameters[i].values;
      bool declared = false;
      for (const Value& v : values) declared = declared || same_value(v, r.config[i]);
      if (!declared)
        throw std::invalid_argument(fmt::format("{}: {} = {} is not a declared value of the space", db.path(),
                                                rules.problem.parameters[i].name, r.config[i].repr()));
    }
    const std::string config = encode_config(r.config), measurements = encode_measurements(r.measurements),
                      runtimes = encode_runtimes(r.runtimes_ms);
    statement.reset();
    statement.bind(1, rules.space).bind(2, session).bind(3, io::kernel_tuner_key(r.config)).bind(4, config);
    statement.bind(5, to_string(r.status)).bind(6, r.message);
    const auto value = r.objective(rules.objective);
    if (value) statement.bind(7, rules.higher_is_better ? -*value : *value);
    else statement.bind_null(7);
    statement.bind(8, measurements).bind(9, runtimes);
    statement.bind(10, r.compile_ms).bind(11, r.benchmark_ms).bind(12, r.verification_ms);
    statement.bind(13, r.framework_ms).bind(14, r.strategy_ms).bind(15, r.clock_ms).bind(16, r.timestamp);
    statement.bind(17, record_digest(config, measurements, runtimes, r));
    statement.run();
    if (db.changes() == 0) return false;
    ++added;
    added_ok += r.status == Status::ok;
    return true;
  }

  // What insert() added since the last count_added(), onto the space's counters (inside the same transaction).
  std::int64_t added = 0, added_ok = 0;
  void count_added(std::int64_t space) {
    if (added == 0) return;
    auto s = db.prepare("UPDATE spaces SET records = records + ?, ok_records = ok_records + ? WHERE id = ?");
    s.bind(1, added).bind(2, added_ok).bind(3, space).run();
    added = added_ok = 0;
  }

  Statement insert_statement() {
    return db.prepare(
        "INSERT OR IGNORE INTO records (space_id, session_id, config_key, config, status, message, score, "
        "measurements, runtimes, compile_ms, benchmark_ms, verification_ms, framework_ms, strategy_ms, clock_ms, "
        "timestamp, digest) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  }

  EvaluationRecord record_of(const Statement& s, int first) const {
    EvaluationRecord r;
    try {
      r.config = decode_config(s.text(first));
      const auto status = parse_status(s.text(first + 1));
      if (!status) throw std::invalid_argument("an unknown status '" + s.text(first + 1) + "'");
      r.status = *status;
      r.message = s.text(first + 2);
      r.measurements = decode_measurements(s.text(first + 3));
      r.runtimes_ms = decode_runtimes(s.text(first + 4));
    } catch (const std::exception& e) {
      throw io::InputError(db.path(), "records", fmt::format("a damaged store: {}", e.what()));
    }
    r.compile_ms = s.real(first + 5);
    r.benchmark_ms = s.real(first + 6);
    r.verification_ms = s.real(first + 7);
    r.framework_ms = s.real(first + 8);
    r.strategy_ms = s.real(first + 9);
    r.clock_ms = s.real(first + 10);
    r.timestamp = s.text(first + 11);
    return r;
  }

  // The records whose `column` (space_id, session_id) is `id`, in the order they were added.
  std::vector<EvaluationRecord> records_where(std::string_view column, std::int64_t id) {
    std::lock_guard lock(mutex);
    auto s = db.prepare(fmt::format("SELECT {} FROM records WHERE {} = ? ORDER BY id", kRecordColumns, column));
    s.bind(1, id);
    std::vector<EvaluationRecord> out;
    while (s.step()) out.push_back(record_of(s, 0));
    return out;
  }
};

ResultsStore::ResultsStore(const std::string& path, OpenMode mode) {
  if (path.empty()) throw io::InputError("<store>", "", "no results store file given");
  if (mode == OpenMode::existing && !std::filesystem::exists(path))
    throw io::InputError(path, "", "no such results store");
  impl_ = std::make_unique<Impl>(path, mode == OpenMode::create);
  try {
    impl_->open_schema(mode == OpenMode::create);
  } catch (const io::InputError& e) {
    const std::string text = e.what();
    if (text.find("not a database") != std::string::npos || text.find("malformed") != std::string::npos)
      throw io::InputError(path, "", "not a ktune results store (not an SQLite database, or a damaged one)");
    throw;
  }
}

ResultsStore::~ResultsStore() = default;

const std::string& ResultsStore::path() const { return impl_->db.path(); }

std::int64_t ResultsStore::space_of(const SpaceOrigin& origin) {
  std::lock_guard lock(impl_->mutex);
  Database& db = impl_->db;
  const std::string identity = origin_identity(origin);
  Transaction t(db);
  auto find = db.prepare("SELECT id FROM spaces WHERE identity = ?");
  find.bind(1, identity);
  if (find.step()) return find.integer(0);  // rolled back: nothing written
  const std::string main = origin.objectives.empty() ? "time" : origin.objectives.front();
  auto insert = db.prepare(
      "INSERT INTO spaces (identity, kernel_name, device_name, problem_size, problem, objectives, higher_is_better, "
      "provenance, format) VALUES (?,?,?,?,?,?,?,?,?)");
  insert.bind(1, identity).bind(2, origin.kernel_name).bind(3, origin.device_name);
  insert.bind(4, origin.problem_size.dump()).bind(5, origin.problem.to_json().dump());
  insert.bind(6, nlohmann::json(origin.objectives).dump());
  insert.bind(7, std::int64_t{objective_higher_is_better(main).value_or(false)});
  insert.bind(8, origin.provenance.dump()).bind(9, origin.format);
  insert.run();
  const auto id = db.last_insert_rowid();
  t.commit();
  return id;
}

std::int64_t ResultsStore::begin_session(std::int64_t space, SessionInfo info) {
  std::lock_guard lock(impl_->mutex);
  Database& db = impl_->db;
  if (info.ktune_version.empty()) info.ktune_version = kVersionString;
  if (info.started.empty()) info.started = utc_now();
  Transaction t(db);
  auto s = db.prepare(
      "INSERT INTO sessions (space_id, source, strategy, seed, device, ktune_version, started, host, pid, notes) "
      "SELECT id,?,?,?,?,?,?,?,?,? FROM spaces WHERE id = ?");
  s.bind(1, info.source).bind(2, info.strategy);
  if (info.seed) s.bind(3, static_cast<std::int64_t>(*info.seed));
  else s.bind_null(3);
  s.bind(4, info.device.dump()).bind(5, info.ktune_version).bind(6, info.started).bind(7, host_name());
  s.bind(8, std::int64_t{getpid()}).bind(9, info.notes.dump()).bind(10, space);
  s.run();
  if (db.changes() == 0) throw io::InputError(db.path(), "", fmt::format("no space {} in the store", space));
  const auto id = db.last_insert_rowid();
  t.commit();
  return id;
}

bool ResultsStore::add(std::int64_t session, const EvaluationRecord& record) {
  std::lock_guard lock(impl_->mutex);
  const SpaceRules& rules = impl_->rules(session);
  Transaction t(impl_->db);
  auto statement = impl_->insert_statement();
  impl_->added = impl_->added_ok = 0;
  const bool added = impl_->insert(statement, session, rules, record);
  impl_->count_added(rules.space);
  t.commit();
  return added;
}

std::size_t ResultsStore::add_all(std::int64_t session, std::span<const EvaluationRecord> records) {
  std::lock_guard lock(impl_->mutex);
  const SpaceRules& rules = impl_->rules(session);
  Transaction t(impl_->db);
  auto statement = impl_->insert_statement();
  std::size_t added = 0;
  impl_->added = impl_->added_ok = 0;
  for (const auto& r : records) added += impl_->insert(statement, session, rules, r);
  impl_->count_added(rules.space);
  t.commit();
  return added;
}

std::vector<StoredSpace> ResultsStore::spaces() const {
  std::lock_guard lock(impl_->mutex);
  Database& db = impl_->db;
  auto s = db.prepare(
      "SELECT id, kernel_name, device_name, problem_size, problem, objectives, higher_is_better, provenance, format, "
      "records, ok_records, "
      "(SELECT count(*) FROM sessions WHERE space_id = spaces.id), "
      "(SELECT min(started) FROM sessions WHERE space_id = spaces.id), "
      "(SELECT max(started) FROM sessions WHERE space_id = spaces.id) FROM spaces ORDER BY id");
  std::vector<StoredSpace> out;
  while (s.step()) {
    StoredSpace space;
    space.id = s.integer(0);
    space.origin.kernel_name = s.text(1);
    space.origin.device_name = s.text(2);
    space.origin.problem_size = parse_column(s.text(3), db.path(), "spaces.problem_size");
    try {
      space.origin.problem = Problem::from_json(parse_column(s.text(4), db.path(), "spaces.problem"));
    } catch (const ProblemError& e) {
      throw io::InputError(db.path(), "spaces.problem", fmt::format("a damaged store: {}", e.what()));
    }
    space.origin.objectives = parse_column(s.text(5), db.path(), "spaces.objectives").get<std::vector<std::string>>();
    space.higher_is_better = s.integer(6) != 0;
    space.origin.provenance = parse_column(s.text(7), db.path(), "spaces.provenance");
    space.origin.format = s.text(8);
    space.records = static_cast<std::size_t>(s.integer(9));
    space.ok_records = static_cast<std::size_t>(s.integer(10));
    space.sessions = static_cast<std::size_t>(s.integer(11));
    space.first_started = s.text(12);
    space.last_started = s.text(13);
    out.push_back(std::move(space));
  }
  return out;
}

StoredSpace ResultsStore::space(std::int64_t id) const {
  // Stores hold few spaces: reading them all keeps one code path.
  for (auto& s : spaces())
    if (s.id == id) return std::move(s);
  throw io::InputError(path(), "", fmt::format("no space {} in the store (ktune store list shows them)", id));
}

std::vector<StoredSession> ResultsStore::sessions(std::int64_t space) const {
  std::lock_guard lock(impl_->mutex);
  Database& db = impl_->db;
  auto s = db.prepare(
      "SELECT id, source, strategy, seed, device, ktune_version, started, notes, "
      "(SELECT count(*) FROM records WHERE session_id = sessions.id) FROM sessions WHERE space_id = ? ORDER BY id");
  s.bind(1, space);
  std::vector<StoredSession> out;
  while (s.step()) {
    StoredSession session;
    session.id = s.integer(0);
    session.space = space;
    session.info.source = s.text(1);
    session.info.strategy = s.text(2);
    if (!s.is_null(3)) session.info.seed = static_cast<std::uint64_t>(s.integer(3));
    session.info.device = parse_column(s.text(4), db.path(), "sessions.device");
    session.info.ktune_version = s.text(5);
    session.info.started = s.text(6);
    session.info.notes = parse_column(s.text(7), db.path(), "sessions.notes");
    session.records = static_cast<std::size_t>(s.integer(8));
    out.push_back(std::move(session));
  }
  return out;
}

std::vector<EvaluationRecord> ResultsStore::records(std::int64_t space) const {
  return impl_->records_where("space_id", space);
}

std::vector<EvaluationRecord> ResultsStore::session_records(std::int64_t session) const {
  return impl_->records_where("session_id", session);
}

std::vector<BestRecord> ResultsStore::best(std::int64_t space, std::size_t count) const {
  std::lock_guard lock(impl_->mutex);
  auto s = impl_->db.prepare(
      fmt::format("SELECT score, {} FROM records WHERE space_id = ? AND score IS NOT NULL ORDER BY score, id LIMIT ?",
                  kRecordColumns));
  s.bind(1, space).bind(2, static_cast<std::int64_t>(count));
  std::vector<BestRecord> out;
  auto higher = impl_->db.prepare("SELECT higher_is_better FROM spaces WHERE id = ?");
  higher.bind(1, space);
  const bool negate = higher.step() && higher.integer(0) != 0;
  while (s.step()) out.push_back({space, negate ? -s.real(0) : s.real(0), impl_->record_of(s, 1)});
  return out;
}

}  // namespace ktune::store
