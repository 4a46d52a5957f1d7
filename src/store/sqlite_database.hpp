#pragma once
// A thin RAII layer over the SQLite C API for the results store: one connection, prepared statements, and errors as
// io::InputError naming the store file (a store is the user's input as much as a cache file is).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace ktune::store {

class Statement;

class Database {
 public:
  // Opens (or, with `create`, creates) the database file. Throws io::InputError naming `path`.
  Database(std::string path, bool create);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs SQL text without results (several statements allowed).
  void exec(const std::string& sql);
  Statement prepare(std::string_view sql);
  std::int64_t last_insert_rowid() const;
  int changes() const;
  const std::string& path() const { return path_; }
  // Throws io::InputError naming the file, `what` and SQLite's message for `code`.
  [[noreturn]] void fail(int code, const std::string& what) const;
  sqlite3* handle() const { return db_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// A prepared statement; bind() positions count from 1, column() from 0. step() returns true while there is a row.
class Statement {
 public:
  Statement(const Database& db, sqlite3_stmt* stmt) : db_(&db), stmt_(stmt) {}
  ~Statement();
  Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;

  Statement& bind(int at, std::int64_t value);
  // NaN is stored as NULL (SQLite has no NaN); every other double, -0.0 included, is kept bit for bit in a column
  // declared without a type.
  Statement& bind(int at, double value);
  Statement& bind(int at, std::string_view text);
  Statement& bind(int at, const char* text) { return bind(at, std::string_view(text)); }
  Statement& bind(int at, const std::string& text) { return bind(at, std::string_view(text)); }
  Statement& bind_null(int at);
  bool step();
  void run() { while (step()) {} }  // to the end, results ignored
  void reset();  // for the next execution, bindings kept

  bool is_null(int column) const;
  std::int64_t integer(int column) const;
  double real(int column) const;  // NULL -> NaN
  std::string text(int column) const;

 private:
  const Database* db_;
  sqlite3_stmt* stmt_;
};

// BEGIN IMMEDIATE ... COMMIT: a write transaction that takes the write lock at once (so that two writers never
// deadlock upgrading read locks), rolled back when left without commit().
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool open_ = true;
};

}  // namespace ktune::store
