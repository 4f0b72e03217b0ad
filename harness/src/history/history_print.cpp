// The store's printers (history.h): `history add`'s lines, `list`'s one row per run and `show`'s block per
// run, each fitting 100 columns (text from inputs escaped and clipped, paths wrapped); and their JSON.
#include <fmt/format.h>

#include <cmath>

#include "placebench/harness/history/history.h"
#include "placebench/harness/terminal_text.h"
#include "placebench/harness/text_clip.h"

namespace placebench::harness::history {
namespace {

using nlohmann::json;

constexpr std::size_t kColumns = 100;
constexpr std::size_t kShortKey = 12;  // the run key as the tables show it (--run takes any prefix)

// Text from inputs, escaped and clipped to `width` columns ("~" marks a clipped end).
std::string fit(const std::string& text, std::size_t width) {
  std::string t = escape_control(text);
  return t.size() <= width ? t : utf8_prefix(t, width - 1) + "~";
}

std::string short_key(const std::string& key) { return key.substr(0, kShortKey); }

std::string start_text(const StoredRun& r) {
  if (!r.start_time) return "unknown";
  std::string t = *r.start_time;
  if (t.size() >= 19 && t[10] == 'T') t[10] = ' ';
  return fit(t.substr(0, 19), 19);
}

std::string number(const std::optional<double>& v, const std::string& unit) {
  if (!v) return "-";
  return unit == "%" ? fmt::format("{:+.2f}%", *v) : fmt::format("{:.6g}", *v);
}

std::string interval(const StoredResult& x) {
  if (!x.ci_lower || !x.ci_upper) return "-";
  return x.unit == "%" ? fmt::format("[{:+.2f}, {:+.2f}]", *x.ci_lower, *x.ci_upper)
                       : fmt::format("[{:.6g}, {:.6g}]", *x.ci_lower, *x.ci_upper);
}

std::string status_word(AddStatus s) {
  return s == AddStatus::kAdded ? "added" : s == AddStatus::kUpdated ? "updated" : "already in the store";
}

json optional_json(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }
json optional_json(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }
json optional_json(const std::optional<double>& v) { return v && std::isfinite(*v) ? json(*v) : json(nullptr); }

json evidence_json(const NodeEvidence& e) {
  return {{"placebench_version", optional_json(e.placebench_version)}, {"git_revision", optional_json(e.git_revision)},
          {"kernel", optional_json(e.kernel)}, {"gpu_driver", optional_json(e.gpu_driver)},
          {"cuda_driver", optional_json(e.cuda_driver)}, {"cuda_runtime", optional_json(e.cuda_runtime)},
          {"nccl", optional_json(e.nccl)}, {"mpi", optional_json(e.mpi)}, {"hwloc", optional_json(e.hwloc)},
          {"topology_digest", optional_json(e.topology_digest)}, {"numa_nodes", optional_json(e.numa_nodes)},
          {"packages", optional_json(e.packages)}, {"gpus", optional_json(e.gpus)}, {"digest", e.digest()}};
}

json result_json(const StoredResult& x) {
  return {{"class", x.class_name}, {"arm", x.arm}, {"metric", x.metric}, {"unit", x.unit}, {"role", x.role},
          {"value", optional_json(x.value)}, {"ci_lower", optional_json(x.ci_lower)}, {"ci_upper", optional_json(x.ci_upper)},
          {"ci_confidence", x.ci_confidence}, {"rounds", x.rounds}, {"verdict", x.verdict},
          {"decided_look", optional_json(x.decided_look)}, {"holm_p", optional_json(x.holm_p)},
          {"aa_check", x.aa_check.empty() ? json(nullptr) : json(x.aa_check)}};
}

json run_json(const StoredRun& r, bool with_results) {
  json j{{"run", r.key}, {"node", r.node}, {"dir", r.dir}, {"start_time", optional_json(r.start_time)},
         {"added_at", r.added_at}, {"complete", r.complete}, {"trials", r.trials}, {"config", r.config_name},
         {"evidence", evidence_json(r.evidence)}, {"result_count", r.result_count}};
  if (!with_results) return j;
  json results = json::array();
  for (const StoredResult& x : r.results) results.push_back(result_json(x));
  j["results"] = std::move(results);
  return j;
}

json envelope(const char* kind, const std::string& db) {
  return {{"schema_version", kHistoryJsonSchemaVersion}, {"kind", kind}, {"store", db}};
}

}  // namespace

std::string render_add_table(const AddReport& report) {
  std::string out;
  std::size_t counts[3] = {0, 0, 0};
  for (const AddOutcome& o : report.outcomes) {
    ++counts[static_cast<int>(o.status)];
    std::string line = fmt::format("{} (node {}, run {})", escape_control(o.dir), fit(o.node, 32), short_key(o.key));
    if (o.status == AddStatus::kAlready && o.stored_dir != o.dir) line += ", added from " + escape_control(o.stored_dir);
    out += wrap_words(line, status_word(o.status) + ": ", 4, kColumns);
  }
  for (const auto& [dir, reason] : report.not_added)
    out += wrap_words(escape_control(reason), "not added: ", 4, kColumns);  // the reason names the directory
  out += fmt::format("{} added, {} already in the store, {} updated, {} not added\n", counts[0], counts[1], counts[2],
                     report.not_added.size());
  return out;
}

json add_to_json(const std::string& db, const AddReport& report) {
  json j = envelope("history-add", db);
  json runs = json::array(), not_added = json::array();
  for (const AddOutcome& o : report.outcomes) {
    const char* status = o.status == AddStatus::kAdded ? "added" : o.status == AddStatus::kUpdated ? "updated" : "already";
    runs.push_back({{"status", status}, {"run", o.key}, {"node", o.node}, {"dir", o.dir}, {"stored_dir", o.stored_dir}});
  }
  for (const auto& [dir, reason] : report.not_added) not_added.push_back({{"dir", dir}, {"reason", reason}});
  j["runs"] = std::move(runs);
  j["not_added"] = std::move(not_added);
  return j;
}

std::string render_list_table(const std::vector<StoredRun>& runs) {
  std::string out = fmt::format("{:<12}  {:<16}  {:<19}  {:<8}  {:>6}  {:<10}  {:<9}  {:>4}\n", "run", "node", "start (UTC)",
                                "complete", "trials", "placebench", "CUDA drv", "NUMA");
  for (const StoredRun& r : runs) {
    const NodeEvidence& e = r.evidence;
    out += fmt::format("{:<12}  {:<16}  {:<19}  {:<8}  {:>6}  {:<10}  {:<9}  {:>4}\n", short_key(r.key), fit(r.node, 16),
                       start_text(r), r.complete ? "yes" : "no", r.trials, fit(e.placebench_version.value_or("unknown"), 10),
                       fit(e.cuda_driver.value_or("unknown"), 9), e.numa_nodes ? std::to_string(*e.numa_nodes) : "?");
  }
  out += fmt::format("{} run{}\n", runs.size(), runs.size() == 1 ? "" : "s");
  return out;
}

std::string render_show_table(const std::vector<StoredRun>& runs) {
  std::string out;
  for (const StoredRun& r : runs) {
    out += fmt::format("run {}  node {}  start {}  {}, {} trials\n", short_key(r.key), fit(r.node, 24), start_text(r),
                       r.complete ? "complete" : "interrupted", r.trials);
    out += wrap_words(escape_control(r.evidence.detail()), "  evidence: ", 4, kColumns);
    out += fmt::format("  {:<14}  {:<12}  {:<10}  {:>12}  {:<26}  {}\n", "class", "arm", "metric", "value", "CI over rounds",
                       "verdict");
    for (const StoredResult& x : r.results)
      out += fmt::format("  {:<14}  {:<12}  {:<10}  {:>12}  {:<26}  {}\n", fit(x.class_name, 14), fit(x.arm, 12),
                         fit(x.metric, 10), number(x.value, x.unit), interval(x), fit(x.verdict, 12));
  }
  out += fmt::format("{} run{}\n", runs.size(), runs.size() == 1 ? "" : "s");
  return out;
}

json runs_to_json(const std::string& db, const std::vector<StoredRun>& runs, bool with_results) {
  json j = envelope(with_results ? "history-show" : "history-list", db);
  json list = json::array();
  for (const StoredRun& r : runs) list.push_back(run_json(r, with_results));
  j["runs"] = std::move(list);
  return j;
}

}  // namespace placebench::harness::history
