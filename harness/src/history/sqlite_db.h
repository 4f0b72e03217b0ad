// The store's one use of SQLite's C API: a connection and its prepared statements, owned, every call
// checked. A failure is a SqliteError carrying SQLite's result code (store_open.cpp turns it into a line
// that names the file and the fix).
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace placebench::harness::history::detail {

struct SqliteError : std::runtime_error {
  SqliteError(int result_code, const std::string& message) : std::runtime_error(message), code(result_code) {}
  int code;  // primary result code (SQLITE_BUSY, SQLITE_CORRUPT, SQLITE_NOTADB, ...)
};

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  ~Statement();

  // Parameters are 1-based, as in SQLite; nullopt binds NULL.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, const std::optional<std::string>& value);
  Statement& bind(int index, const std::optional<double>& value);
  Statement& bind(int index, const std::optional<std::int64_t>& value);
  // Binds `values` to parameters first, first + 1, ...; returns the next parameter.
  template <class... Values>
  int bind_each(int first, const Values&... values) {
    int i = first;
    (bind(i++, values), ...);
    return i;
  }
  // The next row (true) or the end (false); then reset() before it runs again.
  bool step();
  void reset();

  bool is_null(int column) const;
  std::int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  std::optional<std::string> optional_text(int column) const;
  std::optional<double> optional_real(int column) const;
  std::optional<std::int64_t> optional_integer(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class Connection {
 public:
  // sqlite3_open_v2 with `flags`; the busy timeout is set at once.
  Connection(const std::string& path, int flags, double busy_timeout_s);
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&&) = delete;
  Connection(const Connection&) = delete;
  ~Connection();

  sqlite3* handle() const { return db_; }
  void exec(const char* sql);
  Statement prepare(std::string_view sql) const { return Statement(db_, sql); }
  // A query that returns one integer (PRAGMA application_id, SELECT count(*)).
  std::int64_t single_integer(const char* sql) const;
  std::int64_t changes() const;
  std::int64_t last_insert_rowid() const;

 private:
  sqlite3* db_ = nullptr;
};

// Throws SqliteError for a result code other than SQLITE_OK / ROW / DONE, with the connection's message.
void check_result(sqlite3* db, int rc, std::string_view what);

}  // namespace placebench::harness::history::detail
