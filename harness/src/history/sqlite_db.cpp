// SQLite connection and statements (sqlite_db.h).
#include "sqlite_db.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <utility>

namespace placebench::harness::history::detail {

void check_result(sqlite3* db, int rc, std::string_view what) {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return;
  const char* message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw SqliteError(rc & 0xff, fmt::format("{}: {}", what, message ? message : sqlite3_errstr(rc)));
}

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  check_result(db_, sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr), sql);
}

Statement::Statement(Statement&& other) noexcept : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, std::int64_t value) {
  check_result(db_, sqlite3_bind_int64(stmt_, index, value), "bind");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  // NaN would be stored as NULL by SQLite: say so explicitly (a figure the run does not have).
  check_result(db_, std::isnan(value) ? sqlite3_bind_null(stmt_, index) : sqlite3_bind_double(stmt_, index, value), "bind");
  return *this;
}

Statement& Statement::bind(int index, const std::string& value) {
  check_result(db_, sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT), "bind");
  return *this;
}

Statement& Statement::bind(int index, const std::optional<std::string>& value) {
  if (value) return bind(index, *value);
  check_result(db_, sqlite3_bind_null(stmt_, index), "bind");
  return *this;
}

Statement& Statement::bind(int index, const std::optional<double>& value) {
  return bind(index, value ? *value : std::numeric_limits<double>::quiet_NaN());
}

Statement& Statement::bind(int index, const std::optional<std::int64_t>& value) {
  if (value) return bind(index, *value);
  check_result(db_, sqlite3_bind_null(stmt_, index), "bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  check_result(db_, rc, sqlite3_sql(stmt_));
  return rc == SQLITE_ROW;
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::text(int column) const {
  const unsigned char* t = sqlite3_column_text(stmt_, column);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
           : std::string();
}

std::optional<std::string> Statement::optional_text(int column) const {
  return is_null(column) ? std::nullopt : std::optional<std::string>(text(column));
}

std::optional<double> Statement::optional_real(int column) const {
  return is_null(column) ? std::nullopt : std::optional<double>(real(column));
}

std::optional<std::int64_t> Statement::optional_integer(int column) const {
  return is_null(column) ? std::nullopt : std::optional<std::int64_t>(integer(column));
}

Connection::Connection(const std::string& path, int flags, double busy_timeout_s) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw SqliteError(rc & 0xff, "open: " + message);
  }
  sqlite3_extended_result_codes(db_, 0);
  sqlite3_busy_timeout(db_, static_cast<int>(std::lround(busy_timeout_s * 1000)));
}

Connection::Connection(Connection&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}

Connection::~Connection() { sqlite3_close_v2(db_); }

void Connection::exec(const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
  std::string message = error ? error : "";
  sqlite3_free(error);
  if (rc != SQLITE_OK) throw SqliteError(rc & 0xff, fmt::format("{}: {}", sql, message.empty() ? sqlite3_errstr(rc) : message));
}

std::int64_t Connection::single_integer(const char* sql) const {
  Statement s(db_, sql);
  return s.step() ? s.integer(0) : 0;
}

std::int64_t Connection::changes() const { return sqlite3_changes64(db_); }
std::int64_t Connection::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

}  // namespace placebench::harness::history::detail
