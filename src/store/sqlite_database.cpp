#include "store/sqlite_database.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <sqlite3.h>

#include "ktune/io/input_error.hpp"

namespace ktune::store {

Database::Database(std::string path, bool create) : path_(std::move(path)) {
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  const int code = sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr);
  if (code != SQLITE_OK) {
    const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
    sqlite3_close(db_);
    db_ = nullptr;
    throw io::InputError(path_, "", fmt::format("cannot open the results store: {}", message));
  }
  sqlite3_extended_result_codes(db_, 1);
}

Database::~Database() { sqlite3_close_v2(db_); }

void Database::fail(int code, const std::string& what) const {
  const char* message = db_ != nullptr && sqlite3_errcode(db_) == code ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  throw io::InputError(path_, "", fmt::format("{}: {}", what, message));
}

void Database::exec(const std::string& sql) {
  char* error = nullptr;
  const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  if (code != SQLITE_OK) {
    const std::string message = error != nullptr ? error : sqlite3_errstr(code);
    sqlite3_free(error);
    throw io::InputError(path_, "", fmt::format("results store: {}", message));
  }
}

Statement Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int code = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (code != SQLITE_OK) fail(code, "results store: not a ktune results store, or a damaged one");
  return Statement(*this, stmt);
}

std::int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int Database::changes() const { return sqlite3_changes(db_); }

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int at, std::int64_t value) {
  if (const int code = sqlite3_bind_int64(stmt_, at, value); code != SQLITE_OK) db_->fail(code, "results store");
  return *this;
}
Statement& Statement::bind(int at, double value) {
  if (std::isnan(value)) return bind_null(at);
  if (const int code = sqlite3_bind_double(stmt_, at, value); code != SQLITE_OK) db_->fail(code, "results store");
  return *this;
}
Statement& Statement::bind(int at, std::string_view text) {
  const int code = sqlite3_bind_text64(stmt_, at, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (code != SQLITE_OK) db_->fail(code, "results store");
  return *this;
}
Statement& Statement::bind_null(int at) {
  if (const int code = sqlite3_bind_null(stmt_, at); code != SQLITE_OK) db_->fail(code, "results store");
  return *this;
}

bool Statement::step() {
  const int code = sqlite3_step(stmt_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  sqlite3_reset(stmt_);
  db_->fail(code, "results store");
}

void Statement::reset() { sqlite3_reset(stmt_); }

bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::real(int column) const {
  return is_null(column) ? std::numeric_limits<double>::quiet_NaN() : sqlite3_column_double(stmt_, column);
}
std::string Statement::text(int column) const {
  const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return data == nullptr ? std::string() : std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}
void Transaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

}  // namespace ktune::store
