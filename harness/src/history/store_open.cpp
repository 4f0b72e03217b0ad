// Opening the store (history.h): a new file is created with its schema, WAL journal, application_id and
// user_version in one transaction; an existing one is first looked at read-only (a read-only connection
// writes nothing, not even a checkpoint), so a file that is not SQLite, is damaged, belongs to another
// application or has a newer schema is refused with one line and left byte for byte as it was.
#include <fmt/format.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "placebench/harness/errors.h"
#include "store_detail.h"

namespace placebench::harness::history {
namespace {

using detail::Connection;
using detail::SqliteError;

constexpr const char* kSchema = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  run_key TEXT NOT NULL UNIQUE,
  node TEXT NOT NULL,
  dir TEXT NOT NULL,
  start_time TEXT,
  start_epoch_s REAL,
  added_at TEXT NOT NULL,
  complete INTEGER NOT NULL,
  trials INTEGER NOT NULL,
  config_name TEXT NOT NULL,
  placebench_version TEXT, git_revision TEXT, kernel TEXT, gpu_driver TEXT, cuda_driver TEXT, cuda_runtime TEXT,
  nccl TEXT, mpi TEXT, hwloc TEXT, topology_digest TEXT, numa_nodes INTEGER, packages INTEGER, gpus INTEGER,
  evidence_digest TEXT NOT NULL);
CREATE INDEX runs_by_node_time ON runs(node, start_epoch_s);
CREATE INDEX runs_by_time ON runs(start_epoch_s);
CREATE TABLE results (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  class TEXT NOT NULL, arm TEXT NOT NULL, metric TEXT NOT NULL,
  unit TEXT NOT NULL, role TEXT NOT NULL,
  value REAL, ci_lower REAL, ci_upper REAL, ci_confidence REAL NOT NULL, rounds INTEGER NOT NULL,
  verdict TEXT NOT NULL, decided_look INTEGER, holm_p REAL, aa_check TEXT NOT NULL,
  PRIMARY KEY (run_id, class, arm, metric)) WITHOUT ROWID;
)sql";

const char* const kRequiredTables[] = {"runs", "results"};

std::string hex32(std::int64_t v) { return fmt::format("0x{:08x}", static_cast<std::uint32_t>(v)); }

// What makes an existing file not this placebench's store, in words with the fix; "" when it is one.
std::string refusal(const Connection& db, const std::string& path) {
  const std::int64_t app = db.single_integer("PRAGMA application_id");
  const std::int64_t version = db.single_integer("PRAGMA user_version");
  const std::string left = "it is left as it is";
  if (app != kHistoryApplicationId)
    return fmt::format("{}: an SQLite database of another application (application_id {}, a placebench history store "
                       "has {}); {}: give the store's path, or a new file name to create one", path, hex32(app),
                       hex32(kHistoryApplicationId), left);
  if (version > kHistorySchemaVersion)
    return fmt::format("{}: a history store of schema version {}, newer than this placebench reads ({}); {}: use the "
                       "placebench that wrote it, or a newer one", path, version, kHistorySchemaVersion, left);
  if (version < 1)
    return fmt::format("{}: a history store without a schema version (user_version {}): damaged; {}: restore it from "
                       "a backup, or build a new one from the run directories (placebench history add NEW.db DIR...)",
                       path, version, left);
  for (const char* table : kRequiredTables) {
    detail::Statement s = db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?");
    s.bind(1, std::string(table));
    if (s.step() && s.integer(0) == 0)
      return fmt::format("{}: a history store without its table {}: damaged; {}: restore it from a backup, or build a "
                         "new one from the run directories (placebench history add NEW.db DIR...)", path, table, left);
  }
  return "";
}

void check_store(const Connection& db, const std::string& path) {
  if (std::string why = refusal(db, path); !why.empty()) throw InputError(why);
}

// An existing, non-empty file, looked at without writing anything. PRAGMA quick_check reads every page
// (damage anywhere is found before the first write; its cost is in docs/performance.md).
void inspect_read_only(const std::string& path, const StoreOptions& options, bool full_check) {
  Connection db(path, SQLITE_OPEN_READONLY, options.busy_timeout_s);
  check_store(db, path);
  if (!full_check) return;
  detail::Statement s = db.prepare("PRAGMA quick_check(1)");
  std::string result = s.step() ? s.text(0) : "no answer";
  if (result != "ok")
    throw SqliteError(SQLITE_CORRUPT, "quick_check: " + result);
}

// journal_mode=WAL needs a moment alone with the file: retried until the busy timeout, never longer.
void use_wal(Connection& db, double busy_timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(busy_timeout_s);
  for (;;) {
    try {
      detail::Statement s = db.prepare("PRAGMA journal_mode=WAL");
      if (s.step() && s.text(0) == "wal") return;
      throw SqliteError(SQLITE_CANTOPEN, "its file system cannot hold a WAL journal (it needs shared memory: a local disk)");
    } catch (const SqliteError& e) {
      if ((e.code != SQLITE_BUSY && e.code != SQLITE_LOCKED) || std::chrono::steady_clock::now() >= deadline) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Under the write lock: a file that is still empty gets the schema (another process may have been first).
void create_or_check(Connection& db, const std::string& path) {
  db.exec("BEGIN IMMEDIATE");
  try {
    const bool empty = db.single_integer("PRAGMA application_id") == 0 && db.single_integer("PRAGMA user_version") == 0 &&
                       db.single_integer("SELECT count(*) FROM sqlite_schema") == 0;
    if (empty) {
      db.exec(kSchema);
      db.exec(fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {}", kHistoryApplicationId,
                          kHistorySchemaVersion).c_str());
    } else {
      check_store(db, path);
    }
    db.exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

enum class FileState { kMissing, kEmpty, kPresent };

FileState file_state(const std::string& path) {
  // SQLite opens "" as a private temporary database: a store that vanishes at exit.
  if (path.empty()) throw InputError("the history store's path is empty; give a file name (results.db)");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return FileState::kMissing;
  if (!S_ISREG(st.st_mode))
    throw InputError(fmt::format("{}: not a regular file; give the history store's path (a file), or a new file name", path));
  return st.st_size == 0 ? FileState::kEmpty : FileState::kPresent;
}

}  // namespace

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

const std::string& Store::path() const { return impl_->path; }

Store Store::open_for_writing(const std::string& path, const StoreOptions& options) {
  try {
    if (file_state(path) == FileState::kPresent) inspect_read_only(path, options, true);
    Connection db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, options.busy_timeout_s);
    create_or_check(db, path);
    use_wal(db, options.busy_timeout_s);
    db.exec("PRAGMA synchronous = NORMAL");  // WAL: a commit survives a crash of placebench, fsync at checkpoints
    return Store(std::make_unique<Impl>(Impl{path, options, std::move(db)}));
  } catch (const SqliteError& e) {
    detail::fail(e, path, options.busy_timeout_s);
  }
}

Store Store::open_for_reading(const std::string& path, const StoreOptions& options) {
  if (file_state(path) == FileState::kMissing)
    throw InputError(fmt::format("{}: no such history store; `placebench history add {} DIR...` creates it", path, path));
  try {
    Connection db(path, SQLITE_OPEN_READONLY, options.busy_timeout_s);
    if (file_state(path) == FileState::kEmpty)
      throw InputError(fmt::format("{}: an empty file, no history store yet; `placebench history add {} DIR...` fills it",
                                   path, path));
    check_store(db, path);
    return Store(std::make_unique<Impl>(Impl{path, options, std::move(db)}));
  } catch (const SqliteError& e) {
    detail::fail(e, path, options.busy_timeout_s);
  }
}

std::int64_t Store::run_count() const {
  try {
    return impl_->db.single_integer("SELECT count(*) FROM runs");
  } catch (const SqliteError& e) {
    detail::fail(e, impl_->path, impl_->options.busy_timeout_s);
  }
}

namespace detail {

void fail(const SqliteError& e, const std::string& path, double busy_timeout_s) {
  const std::string rebuild = "restore it from a backup, or build a new one from the run directories "
                              "(placebench history add NEW.db DIR...)";
  switch (e.code) {
    case SQLITE_NOTADB:
      throw InputError(fmt::format("{}: not an SQLite database, so no history store; it is left as it is: give the "
                                   "store's path, or a new file name to create one", path));
    case SQLITE_CORRUPT:
      throw InputError(fmt::format("{}: the history store is damaged ({}); it is left as it is: {}", path, e.what(), rebuild));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw std::runtime_error(fmt::format("{}: another process held the store for more than {:g} s (--wait); nothing of "
                                           "this batch was added: retry, or wait longer with --wait", path, busy_timeout_s));
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      throw InputError(fmt::format("{}: cannot be opened for this ({}); give a store in a directory that exists and that "
                                   "this user may write (the store and its -wal and -shm files beside it)", path, e.what()));
    default:
      throw std::runtime_error(fmt::format("{}: {}", path, e.what()));
  }
}

std::string fnv1a64_hex(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace detail
}  // namespace placebench::harness::history
