// The queries of `history list` and `history show` (history.h): SQL built from the filters given (each a
// bound parameter), runs by start time, node and key; a run's results by class, arm and metric.
#include <fmt/format.h>

#include "store_detail.h"

namespace placebench::harness::history {
namespace {

using detail::Statement;

// WHERE clause and its parameters, in order.
struct Where {
  std::string sql;
  std::vector<std::string> texts;  // bound first, then `numbers`
  std::vector<double> numbers;
};

// The filters on a result row (class, arm, metric), as "AND x.class = ?...".
std::string result_conditions(const HistoryFilter& f, std::vector<std::string>& texts) {
  std::string sql;
  for (const auto& [column, value] : {std::pair{"class", &f.class_name}, {"arm", &f.arm}, {"metric", &f.metric}})
    if (!value->empty()) {
      sql += fmt::format(" AND x.{} = ?", column);
      texts.push_back(*value);
    }
  return sql;
}

Where run_conditions(const HistoryFilter& f) {
  Where w;
  w.sql = " WHERE 1";
  if (!f.node.empty()) {
    w.sql += " AND r.node = ?";
    w.texts.push_back(f.node);
  }
  if (!f.run.empty()) {
    w.sql += " AND substr(r.run_key, 1, length(?)) = ?";
    w.texts.push_back(f.run);
    w.texts.push_back(f.run);
  }
  std::string results = result_conditions(f, w.texts);
  if (!results.empty()) w.sql += " AND EXISTS (SELECT 1 FROM results x WHERE x.run_id = r.id" + results + ")";
  if (f.since_epoch_s) {
    w.sql += " AND r.start_epoch_s >= ?";
    w.numbers.push_back(*f.since_epoch_s);
  }
  if (f.until_epoch_s) {
    w.sql += " AND r.start_epoch_s < ?";
    w.numbers.push_back(*f.until_epoch_s);
  }
  return w;
}

int bind_all(Statement& s, const std::vector<std::string>& texts, const std::vector<double>& numbers, int first = 1) {
  int i = first;
  for (const std::string& t : texts) s.bind(i++, t);
  for (double n : numbers) s.bind(i++, n);
  return i;
}

// One row of the runs table, columns kRunColumns after id, then the result count.
StoredRun read_run_row(const Statement& s) {
  StoredRun r;
  int i = 1;
  r.key = s.text(i++);
  r.node = s.text(i++);
  r.dir = s.text(i++);
  r.start_time = s.optional_text(i++);
  r.start_epoch_s = s.optional_real(i++);
  r.added_at = s.text(i++);
  r.complete = s.integer(i++) != 0;
  r.trials = s.integer(i++);
  r.config_name = s.text(i++);
  NodeEvidence& e = r.evidence;
  for (std::optional<std::string>* field : {&e.placebench_version, &e.git_revision, &e.kernel, &e.gpu_driver, &e.cuda_driver,
                                            &e.cuda_runtime, &e.nccl, &e.mpi, &e.hwloc, &e.topology_digest})
    *field = s.optional_text(i++);
  for (std::optional<std::int64_t>* field : {&e.numa_nodes, &e.packages, &e.gpus}) *field = s.optional_integer(i++);
  ++i;  // evidence_digest: NodeEvidence::digest() of the fields above
  r.result_count = s.integer(i);
  return r;
}

StoredResult read_result_row(const Statement& s) {
  StoredResult x;
  int i = 0;
  x.class_name = s.text(i++);
  x.arm = s.text(i++);
  x.metric = s.text(i++);
  x.unit = s.text(i++);
  x.role = s.text(i++);
  x.value = s.optional_real(i++);
  x.ci_lower = s.optional_real(i++);
  x.ci_upper = s.optional_real(i++);
  x.ci_confidence = s.real(i++);
  x.rounds = s.integer(i++);
  x.verdict = s.text(i++);
  x.decided_look = s.optional_integer(i++);
  x.holm_p = s.optional_real(i++);
  x.aa_check = s.text(i++);
  return x;
}

std::vector<StoredRun> query_runs(const detail::Connection& db, const HistoryFilter& f) {
  Where w = run_conditions(f);
  Statement s = db.prepare(fmt::format("SELECT r.id, {}, (SELECT count(*) FROM results c WHERE c.run_id = r.id) FROM runs r{} "
                                       "ORDER BY r.start_epoch_s, r.node, r.run_key",
                                       detail::kRunColumns, w.sql));
  bind_all(s, w.texts, w.numbers);
  std::vector<StoredRun> runs;
  while (s.step()) runs.push_back(read_run_row(s));
  return runs;
}

void read_results(const detail::Connection& db, const HistoryFilter& f, std::vector<StoredRun>& runs) {
  std::vector<std::string> texts;
  std::string conditions = result_conditions(f, texts);
  Statement s = db.prepare(fmt::format("SELECT {} FROM results x JOIN runs r ON r.id = x.run_id WHERE r.run_key = ?{} "
                                       "ORDER BY x.class, x.arm, x.metric", detail::kResultColumns, conditions));
  for (StoredRun& r : runs) {
    s.bind(1, r.key);
    bind_all(s, texts, {}, 2);
    while (s.step()) r.results.push_back(read_result_row(s));
    s.reset();
  }
}

}  // namespace

std::vector<StoredRun> Store::list(const HistoryFilter& filter) const {
  try {
    return query_runs(impl_->db, filter);
  } catch (const detail::SqliteError& e) {
    detail::fail(e, impl_->path, impl_->options.busy_timeout_s);
  }
}

std::vector<std::string> Store::nodes(const HistoryFilter& filter) const {
  try {
    Where w = run_conditions(filter);
    Statement s = impl_->db.prepare(fmt::format("SELECT DISTINCT r.node FROM runs r{} ORDER BY r.node", w.sql));
    bind_all(s, w.texts, w.numbers);
    std::vector<std::string> nodes;
    while (s.step()) nodes.push_back(s.text(0));
    return nodes;
  } catch (const detail::SqliteError& e) {
    detail::fail(e, impl_->path, impl_->options.busy_timeout_s);
  }
}

std::vector<StoredRun> Store::latest_of_other_nodes(const std::string& config_name, const std::string& node,
                                                    std::optional<double> until_epoch_s, std::size_t per_node) const {
  try {
    Statement s = impl_->db.prepare(fmt::format(
        "SELECT r.id, {}, (SELECT count(*) FROM results c WHERE c.run_id = r.id) FROM runs r WHERE r.complete = 1 AND "
        "r.config_name = ? AND r.node <> ?{} ORDER BY r.node, r.start_epoch_s DESC, r.run_key DESC",
        detail::kRunColumns, until_epoch_s ? " AND (r.start_epoch_s IS NULL OR r.start_epoch_s <= ?)" : ""));
    bind_all(s, {config_name, node}, until_epoch_s ? std::vector<double>{*until_epoch_s} : std::vector<double>{});
    std::vector<StoredRun> runs;
    std::size_t of_node = 0;
    while (s.step()) {
      StoredRun r = read_run_row(s);
      of_node = !runs.empty() && runs.back().node == r.node ? of_node + 1 : 1;
      if (of_node <= per_node) runs.push_back(std::move(r));
    }
    read_results(impl_->db, {}, runs);
    return runs;
  } catch (const detail::SqliteError& e) {
    detail::fail(e, impl_->path, impl_->options.busy_timeout_s);
  }
}

std::vector<StoredRun> Store::show(const HistoryFilter& filter) const {
  try {
    std::vector<StoredRun> runs = query_runs(impl_->db, filter);
    read_results(impl_->db, filter, runs);
    return runs;
  } catch (const detail::SqliteError& e) {
    detail::fail(e, impl_->path, impl_->options.busy_timeout_s);
  }
}

}  // namespace placebench::harness::history
