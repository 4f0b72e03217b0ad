// Reading a fleet's run directories (fleet.h): where the runs are (check::find_runs), one per host, each
// read through the run directory's readers (check::load_run_evidence: run.json, every trial line,
// summary.json or the statistics recomputed), never re-parsed here.
#include "placebench/harness/text_clip.h"
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/check/run_dirs.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/fleet/fleet.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/topology/inventory_read.h"

namespace placebench::harness::fleet {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using check::FoundRun;

std::string text_field(const json& run, const char* key) {
  auto it = run.find(key);
  return it != run.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The GPU a class ran on, as a label: its `gpu`, GPU 0 when the node has GPUs and the class names no
// device NUMA node (the runner's default), else "none" (the host backend's device NUMA node).
std::string gpu_label(const ClassConfig& cls, const std::optional<Inventory>& topology) {
  if (cls.gpu) return std::to_string(*cls.gpu);
  return !cls.device_numa && topology && !topology->gpus.empty() ? "0" : "none";
}

// run.json's start_time: an RFC 3339 time when present ("9999-zz" would sort as the newest run).
void read_start_time(const json& run, const std::string& dir, NodeRun& node) {
  auto it = run.find("start_time");
  if (it == run.end()) return;
  std::optional<double> epoch = it->is_string() ? admission::parse_rfc3339(it->get<std::string>()) : std::nullopt;
  if (!epoch)
    throw InputError(fmt::format("{}/run.json: start_time: expected an RFC 3339 time (2026-12-01T10:00:00Z), got {}; "
                                 "restore run.json from the node, or remove this run", dir, utf8_prefix(it->dump(), 40)));
  node.start_time = it->get<std::string>();
  node.start_epoch_s = epoch;
}

// The trials' own statistics against summary.json's: a summary left over edited or replaced trials (or
// the other way round) is refused. A summary of fewer trials than the file holds (the run went on after
// it was written) is replaced by the statistics of every trial, with a note.
void check_summary_against_trials(const ExperimentConfig& config, const check::RunEvidence& ev, RunSummary& summary,
                                  const std::string& dir, NodeRun& node) {
  std::vector<ClassAnalysis> from_trials = analyze_run(config, ev.trials);
  if (summary.trials < ev.trials.size()) {
    node.notes.push_back(fmt::format("summary.json counts {} of the {} trials: the statistics are the trials' own",
                                     summary.trials, ev.trials.size()));
    summary.classes = std::move(from_trials);
    return;
  }
  for (const ClassAnalysis& c : summary.classes)
    for (const ArmAnalysis& a : c.arms) {
      if (!a.has_statistic) continue;
      double trials_value = std::numeric_limits<double>::quiet_NaN();
      for (const ClassAnalysis& t : from_trials)
        for (const ArmAnalysis& ta : t.arms)
          if (t.name == c.name && ta.arm == a.arm && ta.has_statistic) trials_value = ta.statistic_value;
      if (!(std::abs(trials_value - a.statistic_value) <= 1e-9 * std::abs(a.statistic_value)))
        throw InputError(fmt::format("{}/summary.json: class {} arm {}: {} {:g} disagrees with trials.jsonl, whose trials give "
                                     "{:g}; rebuild it with `placebench compare {} --write-summary`",
                                     dir, c.name, a.arm, c.statistic, a.statistic_value, trials_value, dir));
    }
}

// A collective trial's pace-setter (collective_trial.cpp writes it into the summary).
void count_pace_setter(const TrialRecord& t, NodeRun& node) {
  const json& summary = t.line.value("summary", json::object());
  if (!summary.is_object() || !summary.contains("pace_setter")) return;
  ++node.pace_trials;
  auto host = summary.find("pace_setter_host");
  if (host != summary.end() && host->is_string() && !host->get<std::string>().empty()) ++node.pace_setter_hosts[host->get<std::string>()];
}

NodeRun read_node(const std::string& dir, bool keep_evidence) {
  check::RunEvidence ev = check::load_run_evidence(dir);
  if (ev.node_check)
    throw InputError(fmt::format("{}: a GPU node check's output, not a run; `placebench check` reads it, `fleet` reads "
                                 "the directories of `placebench run`", dir));
  RunDirectory rd = RunDirectory::open(dir);
  const json& run = rd.run();
  NodeRun node;
  node.dir = dir;
  node.host = text_field(run, "host");
  if (node.host.empty()) node.host = fs::path(dir).filename().string();
  read_start_time(run, dir, node);
  RunSummary summary = *ev.summary;  // summary.json through its one reader, or recomputed from the trials
  check_summary_against_trials(*rd.config(), ev, summary, dir, node);
  node.complete = summary.complete;
  node.classes = std::move(summary.classes);
  std::optional<Inventory> topology;  // read as topo --expect reads it (inventory_read.h), every value checked
  if (auto t = run.find("topology"); t != run.end() && t->is_object())
    topology = inventory_from_json(*t, dir + "/run.json: topology", "restore run.json from the node, or remove this run");
  for (const ClassAnalysis& c : node.classes) {
    auto cls = std::find_if(rd.config()->classes.begin(), rd.config()->classes.end(),
                            [&](const ClassConfig& k) { return k.name == c.name; });
    node.gpu_of_class.push_back(cls == rd.config()->classes.end() ? "none" : gpu_label(*cls, topology));
  }
  node.topology = topology_print(topology);
  node.measured = measured_part(run.at("config"));
  for (const TrialRecord& t : ev.trials) {
    auto d = t.line.find("duration_s");
    if (d != t.line.end() && d->is_number()) node.duration_s += d->get<double>();
    count_pace_setter(t, node);
  }
  if (!topology) node.notes.push_back("run.json has no topology: the topology comparison leaves this node out");
  if (!node.complete) node.notes.push_back("the run is not complete (complete: false): its CIs are wider");
  node.notes.insert(node.notes.end(), ev.warnings.begin(), ev.warnings.end());
  if (keep_evidence) node.evidence = std::move(ev);
  return node;
}

// Newest complete first: complete, then start_time (a run without one is older than any with one), then
// the directory name (both descending).
bool preferred(const NodeRun& a, const NodeRun& b) {
  if (a.complete != b.complete) return a.complete;
  if (a.start_epoch_s != b.start_epoch_s) return a.start_epoch_s > b.start_epoch_s;
  return a.dir > b.dir;
}

std::string host_of_damaged(const FoundRun& run) {
  try {
    std::string host = text_field(RunDirectory::open(run.dir).run(), "host");
    return host.empty() ? run.host_hint : host;
  } catch (const InputError&) {
    return run.host_hint;
  }
}

}  // namespace

FleetInput load_fleet(const std::vector<std::string>& dirs, bool keep_evidence) {
  std::vector<FoundRun> runs = check::find_runs(dirs);
  FleetInput in;
  std::map<std::string, std::vector<NodeRun>> by_host;
  for (const FoundRun& r : runs) {
    try {
      NodeRun node = read_node(r.dir, keep_evidence);
      by_host[node.host].push_back(std::move(node));
    } catch (const InputError& e) {
      in.skipped.push_back({r.dir, host_of_damaged(r), e.what()});
    } catch (const std::exception& e) {  // damage no reader named: the node is a suspect, not the end of the report
      in.skipped.push_back({r.dir, host_of_damaged(r), fmt::format("{}: could not be analysed ({})", r.dir, e.what())});
    }
  }
  for (auto& [host, list] : by_host) {
    std::sort(list.begin(), list.end(), preferred);
    NodeRun chosen = std::move(list.front());
    if (list.size() > 1) {
      std::string others;
      for (std::size_t i = 1; i < list.size(); ++i) others += (i > 1 ? ", " : "") + list[i].dir;
      chosen.notes.insert(chosen.notes.begin(),
                          fmt::format("{} runs of this host: took the newest {}one ({}); not used: {}", list.size(),
                                      chosen.complete ? "complete " : "", chosen.dir, others));
    }
    in.nodes.push_back(std::move(chosen));
  }
  std::sort(in.skipped.begin(), in.skipped.end(), [](const SkippedRun& a, const SkippedRun& b) { return a.dir < b.dir; });
  if (in.nodes.empty() && !in.skipped.empty())
    throw InputError(fmt::format("{}: no run could be read ({}); fix or remove the damaged runs", in.skipped.front().dir,
                                 in.skipped.front().reason));
  return in;
}

}  // namespace placebench::harness::fleet
