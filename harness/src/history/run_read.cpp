// A run directory as the store holds it (history.h): run.json through its reader (RunDirectory::open) and
// summary.json through its typed reader when trials.jsonl holds exactly the trials the summary counts (the
// lines counted, not parsed: the common case, a finished run); otherwise through the check layer's reader
// (check::load_run_evidence: every trial line checked, the statistics recomputed when the summary is missing
// or older than the trials). run.json's context (versions, topology through topo JSON's one reader) is never
// re-parsed here.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/check/evaluate.h"
#include "placebench/harness/check/run_dirs.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/evidence.h"
#include "placebench/harness/history/history.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/text_clip.h"
#include "placebench/harness/topology/inventory_format.h"
#include "placebench/harness/topology/inventory_read.h"
#include "store_detail.h"

namespace placebench::harness::history {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::optional<std::string> text_at(const json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? std::optional<std::string>(it->get<std::string>()) : std::nullopt;
}

// The hardware's shape as topo JSON's writer spells it, without what names this node or this reading
// (host, source, notes): equal on identical nodes, different when a GPU, NIC or NUMA node moves.
std::string topology_digest(const Inventory& inv) {
  json j = inventory_to_json(inv);
  for (const char* key : {"host", "source", "notes"}) j.erase(key);
  return detail::fnv1a64_hex(j.dump());
}

NodeEvidence read_evidence(const json& run, const std::string& dir) {
  NodeEvidence e;
  const json empty = json::object();
  const json& versions = run.contains("versions") ? run.at("versions") : empty;
  e.placebench_version = text_at(run, "placebench_version");
  if (!e.placebench_version) e.placebench_version = text_at(versions, "placebench");
  e.git_revision = text_at(run, "git_revision");
  if (!e.git_revision) e.git_revision = text_at(versions, "git_revision");
  e.kernel = text_at(versions, "kernel");          // null or absent (older run.json): unknown
  e.gpu_driver = text_at(versions, "gpu_driver");  // null: no NVIDIA driver's version read
  e.cuda_driver = text_at(versions, "cuda_driver");
  e.cuda_runtime = text_at(versions, "cuda_runtime");
  e.nccl = text_at(versions, "nccl");
  e.mpi = text_at(versions, "mpi");
  e.hwloc = text_at(versions, "hwloc");
  if (auto t = run.find("topology"); t != run.end() && t->is_object()) {
    Inventory inv = inventory_from_json(*t, dir + "/run.json: topology", "restore run.json from the node, or remove this run");
    e.topology_digest = topology_digest(inv);
    e.numa_nodes = static_cast<std::int64_t>(inv.numa_nodes.size());
    e.packages = static_cast<std::int64_t>(inv.packages.size());
    e.gpus = static_cast<std::int64_t>(inv.gpus.size());
  }
  return e;
}

void add_result(StoredRun& run, const ClassAnalysis& c, const ArmAnalysis& a, StoredResult r) {
  r.class_name = c.name;
  r.arm = a.arm;
  r.role = a.role;
  r.verdict = a.verdict;
  if (a.decided_look) r.decided_look = *a.decided_look;
  r.holm_p = a.holm_adjusted_p;
  r.aa_check = a.aa_check;
  run.results.push_back(std::move(r));
}

// Per arm: the class statistic with its CI over rounds; for an arm compared with the baseline (or an A/A
// control with a ratio), the ratio in percent with its CI at the look's confidence.
void read_results(const RunSummary& summary, StoredRun& run) {
  for (const ClassAnalysis& c : summary.classes)
    for (const ArmAnalysis& a : c.arms) {
      StoredResult s;
      s.metric = c.statistic;
      s.unit = c.statistic_unit;
      if (a.has_statistic) {
        s.value = a.statistic_value;
        s.ci_lower = a.statistic_ci_lo;
        s.ci_upper = a.statistic_ci_hi;
      }
      s.ci_confidence = a.statistic_ci_confidence;
      s.rounds = a.statistic_rounds;
      add_result(run, c, a, std::move(s));
      if (!a.compared) continue;
      StoredResult r;
      r.metric = "ratio_pct";
      r.unit = "%";
      r.value = a.ratio_pct;
      r.ci_lower = a.ratio_lo;
      r.ci_upper = a.ratio_hi;
      r.ci_confidence = a.look_confidence;
      r.rounds = a.n_rounds;
      add_result(run, c, a, std::move(r));
    }
}

void read_start_time(const json& run, const std::string& dir, StoredRun& out) {
  auto it = run.find("start_time");
  if (it == run.end()) return;
  std::optional<double> epoch = it->is_string() ? admission::parse_rfc3339(it->get<std::string>()) : std::nullopt;
  if (!epoch)
    throw InputError(fmt::format("{}/run.json: start_time: expected an RFC 3339 time (2026-12-01T10:00:00Z), got {}; "
                                 "restore run.json from the node, or leave this run out", dir, utf8_prefix(it->dump(), 40)));
  out.start_time = it->get<std::string>();
  out.start_epoch_s = epoch;
}

// What the store needs of a finished run without parsing every trial line: run.json (checked on open) and
// summary.json (its typed reader, every field checked), when trials.jsonl holds exactly the summary's trials,
// each on its own non-empty line. Anything else (no summary, a cut or extra line, a file that cannot be read)
// is nullopt: the full reader then reads it and says what is wrong, as `check` would.
std::optional<std::pair<RunDirectory, RunSummary>> read_summarised(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(dir) / "run.json", ec)) return std::nullopt;  // not a run, or a node check
  RunDirectory rd = RunDirectory::open(dir);
  if (!rd.has_summary() || !rd.config()) return std::nullopt;
  RunSummary summary = rd.read_summary();
  const fs::path trials = fs::path(dir) / "trials.jsonl";
  const std::uintmax_t bytes = fs::is_regular_file(trials, ec) ? fs::file_size(trials, ec) : 0;
  std::ifstream in(trials, std::ios::binary);
  if (ec || bytes == 0 || !in) return std::nullopt;
  std::string text(static_cast<std::size_t>(bytes), '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size())) || in.peek() != std::char_traits<char>::eof())
    return std::nullopt;  // changed while read: the full reader decides
  if (text.empty() || text.front() == '\n' || text.back() != '\n' || text.find("\n\n") != std::string::npos)
    return std::nullopt;
  if (static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) != summary.trials) return std::nullopt;
  return std::pair{std::move(rd), std::move(summary)};
}

// Every trial line read (check::load_run_evidence): the statistics of the trials the file holds.
std::pair<RunDirectory, RunSummary> read_with_trials(const std::string& dir) {
  check::RunEvidence ev = check::load_run_evidence(dir);
  if (ev.node_check)
    throw InputError(fmt::format("{}: a GPU node check's output, not a run; the store holds the directories of "
                                 "`placebench run`", dir));
  RunDirectory rd = RunDirectory::open(dir);
  RunSummary summary = *ev.summary;
  // A summary of fewer trials than the file holds (the run went on after it was written): the trials' own.
  if (summary.trials < ev.trials.size()) summary = RunSummary{analyze_run(*rd.config(), ev.trials), summary.complete, ev.trials.size()};
  return {std::move(rd), std::move(summary)};
}

}  // namespace

StoredRun read_stored_run(const std::string& dir) {
  std::optional<std::pair<RunDirectory, RunSummary>> summarised = read_summarised(dir);
  auto [rd, summary] = summarised ? std::move(*summarised) : read_with_trials(dir);
  const json& run = rd.run();
  StoredRun out;
  out.key = detail::fnv1a64_hex(run.dump());  // run.json's content, whatever the path or the file's spacing
  out.node = text_at(run, "host").value_or("");
  if (out.node.empty()) out.node = fs::path(dir).filename().string();  // as fleet names a run without a host
  std::error_code ec;
  fs::path absolute = fs::weakly_canonical(dir, ec);
  out.dir = ec ? dir : absolute.string();
  read_start_time(run, dir, out);
  out.complete = summary.complete;
  out.trials = static_cast<std::int64_t>(summary.trials);
  out.config_name = rd.config()->name;
  out.evidence = read_evidence(run, dir);
  read_results(summary, out);
  return out;
}

std::vector<std::string> find_run_dirs(const std::vector<std::string>& dirs) {
  std::vector<std::string> out;
  for (check::FoundRun& r : check::find_runs(dirs)) out.push_back(std::move(r.dir));
  return out;
}

double parse_history_date(const std::string& option, const std::string& text) {
  std::optional<double> epoch = admission::parse_rfc3339(text.size() == 10 ? text + "T00:00:00Z" : text);
  if (!epoch)
    throw InputError(fmt::format("{} {}: not a date; give YYYY-MM-DD (00:00 UTC) or an RFC 3339 time "
                                 "(2026-12-01T10:00:00Z)", option, text));
  return *epoch;
}

}  // namespace placebench::harness::history
