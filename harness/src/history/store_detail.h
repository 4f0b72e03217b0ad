// Internals of the store shared by its files: the connection behind a Store, the schema, the digest, and
// the translation of SQLite's errors into one line that names the file and the fix.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "placebench/harness/history/history.h"
#include "sqlite_db.h"

namespace placebench::harness::history::detail {

// FNV-1a, 64 bits, as 16 hex digits: identities (run.json's content) and digests (topology, evidence).
// Not a cryptographic hash: it tells runs apart, it does not authenticate them.
std::string fnv1a64_hex(std::string_view bytes);

// The columns of the runs table after `id`, in the order store_add.cpp binds and store_query.cpp reads them.
inline constexpr const char* kRunColumns =
    "run_key, node, dir, start_time, start_epoch_s, added_at, complete, trials, config_name, placebench_version, "
    "git_revision, kernel, gpu_driver, cuda_driver, cuda_runtime, nccl, mpi, hwloc, topology_digest, numa_nodes, "
    "packages, gpus, evidence_digest";
inline constexpr const char* kResultColumns =
    "class, arm, metric, unit, role, value, ci_lower, ci_upper, ci_confidence, rounds, verdict, decided_look, holm_p, aa_check";

// The store's error as the CLI says it: InputError (exit 2) for a file that is not a store, damaged,
// foreign, newer, or that cannot be opened; std::runtime_error (exit 1) for a wait past the busy timeout, a
// full disk and other failures of the machine.
[[noreturn]] void fail(const SqliteError& e, const std::string& path, double busy_timeout_s);

}  // namespace placebench::harness::history::detail

namespace placebench::harness::history {

struct Store::Impl {
  std::string path;
  StoreOptions options;
  detail::Connection db;
};

}  // namespace placebench::harness::history
