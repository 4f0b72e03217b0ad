// Adding runs (Store::add, history.h). One transaction per batch, taken with BEGIN IMMEDIATE (the write
// lock first: two writers never both read and then both insert); a run's rows are all in it or none.
// run_key is UNIQUE, so a run added by two processes at once is stored once: the second finds it.
#include <fmt/format.h>

#include "placebench/harness/evidence.h"
#include "store_detail.h"

namespace placebench::harness::history {
namespace {

using detail::Statement;

// The prepared statements of one batch.
struct AddStatements {
  Statement find, insert_run, update_run, delete_results, insert_result;
  explicit AddStatements(const detail::Connection& db)
      : find(db.prepare("SELECT id, trials, dir FROM runs WHERE run_key = ?")),
        insert_run(db.prepare(fmt::format("INSERT INTO runs ({}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                                          detail::kRunColumns))),
        update_run(db.prepare(fmt::format("UPDATE runs SET ({}) = (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) WHERE id = ?",
                                          detail::kRunColumns))),
        delete_results(db.prepare("DELETE FROM results WHERE run_id = ?")),
        insert_result(db.prepare(fmt::format("INSERT INTO results (run_id, {}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                                             detail::kResultColumns))) {}
};

// The run's columns in kRunColumns' order, from parameter 1; returns the next parameter.
int bind_run(Statement& s, const StoredRun& r, const std::string& added_at) {
  const NodeEvidence& e = r.evidence;
  int i = s.bind_each(1, r.key, r.node, r.dir, r.start_time, r.start_epoch_s, added_at, std::int64_t{r.complete}, r.trials,
                      r.config_name);
  i = s.bind_each(i, e.placebench_version, e.git_revision, e.kernel, e.gpu_driver, e.cuda_driver, e.cuda_runtime, e.nccl,
                  e.mpi, e.hwloc, e.topology_digest, e.numa_nodes, e.packages, e.gpus, e.digest());
  return i;
}

void insert_results(AddStatements& st, std::int64_t run_id, const StoredRun& r) {
  Statement& s = st.insert_result;
  for (const StoredResult& x : r.results) {
    s.bind_each(1, run_id, x.class_name, x.arm, x.metric, x.unit, x.role, x.value, x.ci_lower, x.ci_upper, x.ci_confidence,
                x.rounds, x.verdict, x.decided_look, x.holm_p, x.aa_check);
    s.step();
    s.reset();
  }
}

AddOutcome add_one(const detail::Connection& db, AddStatements& st, const StoredRun& r, const std::string& added_at) {
  AddOutcome out{AddStatus::kAdded, r.key, r.node, r.dir, ""};
  st.find.bind(1, r.key);
  const bool found = st.find.step();
  const std::int64_t id = found ? st.find.integer(0) : 0, stored_trials = found ? st.find.integer(1) : 0;
  out.stored_dir = found ? st.find.text(2) : "";
  st.find.reset();
  if (found && stored_trials >= r.trials) {
    out.status = AddStatus::kAlready;
    return out;
  }
  if (found) {
    // The same run with more trials (an interrupted run, resumed since): its figures replace the old ones.
    out.status = AddStatus::kUpdated;
    st.delete_results.bind(1, id);
    st.delete_results.step();
    st.delete_results.reset();
    st.update_run.bind(bind_run(st.update_run, r, added_at), id);
    st.update_run.step();
    st.update_run.reset();
    insert_results(st, id, r);
    return out;
  }
  bind_run(st.insert_run, r, added_at);
  st.insert_run.step();
  st.insert_run.reset();
  insert_results(st, db.last_insert_rowid(), r);
  return out;
}

}  // namespace

std::vector<AddOutcome> Store::add(const std::vector<StoredRun>& runs) {
  std::vector<AddOutcome> out;
  if (runs.empty()) return out;
  detail::Connection& db = impl_->db;
  const std::string added_at = utc_timestamp_now();
  try {
    AddStatements st(db);
    db.exec("BEGIN IMMEDIATE");
    try {
      for (const StoredRun& r : runs) out.push_back(add_one(db, st, r, added_at));
      db.exec("COMMIT");
    } catch (...) {
      sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  } catch (const detail::SqliteError& e) {
    detail::fail(e, impl_->path, impl_->options.busy_timeout_s);
  }
  return out;
}

}  // namespace placebench::harness::history
