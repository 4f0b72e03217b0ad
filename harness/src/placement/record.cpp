// Apply and verify a placement (see record.h). Verification trusts only what the kernel reports:
// sched_getaffinity, get_mempolicy and move_pages in query mode.
#include "placebench/harness/placement/record.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>

#include "placebench/hostpipe/binding.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/process_limits.h"

namespace placebench::harness {

PlacedWorker apply_placement(const ArmPlan& plan, std::size_t worker, std::size_t bytes) {
  return apply_placement(plan, plan.workers.at(worker), bytes);
}

PlacedWorker apply_placement(const ArmPlan& plan, const WorkerPlacement& wp, std::size_t bytes) {
  PlacedWorker placed;
  PlacementRecord& rec = placed.record;
  rec.arm = arm_name(plan.arm);
  rec.device_numa = plan.device_numa;
  rec.requested_cpus = wp.cpus;
  rec.requested_mems = wp.mem_nodes;
  rec.degenerate = plan.degenerate;
  if (!wp.cpus.empty()) {
    std::string err = hostpipe::bind_current_thread(wp.cpus);
    if (!err.empty()) rec.problems.push_back("bind CPUs " + hostpipe::format_cpulist(wp.cpus) + ": " + err);
  }
  placed.buffer = hostpipe::NumaBuffer(bytes, wp.mem_nodes);
  if (!placed.buffer.bind_error().empty()) rec.problems.push_back("bind memory: " + placed.buffer.bind_error());
  placed.buffer.touch();
  verify_placement(rec, placed.buffer);
  return placed;
}

void verify_placement(PlacementRecord& rec, const hostpipe::NumaBuffer& buffer) {
  // Keep problems found while applying (bind failures); recompute the rest.
  std::vector<std::string> problems;
  for (const auto& p : rec.problems)
    if (p.rfind("bind ", 0) == 0) problems.push_back(p);
  rec.effective_cpus = hostpipe::current_thread_affinity();
  if (!rec.requested_cpus.empty() && rec.effective_cpus != rec.requested_cpus)
    problems.push_back(fmt::format("thread affinity is {}, requested {}", hostpipe::format_cpulist(rec.effective_cpus),
                                   hostpipe::format_cpulist(rec.requested_cpus)));
  hostpipe::MemPolicy mp = hostpipe::query_mempolicy(buffer.data());
  rec.mem_policy = mp.mode;
  rec.mem_policy_nodes = mp.nodes;
  if (!mp.error.empty()) problems.push_back(mp.error);
  if (!rec.requested_mems.empty() && (mp.mode != "bind" || mp.nodes != rec.requested_mems))
    problems.push_back(fmt::format("memory policy is {} {}, requested bind {}", mp.mode, hostpipe::format_cpulist(mp.nodes),
                                   hostpipe::format_cpulist(rec.requested_mems)));
  rec.pages = hostpipe::page_node_histogram(buffer.data(), buffer.size());
  std::size_t total = 0, on_requested = 0;
  for (const auto& [node, count] : rec.pages) {
    total += count;
    bool wanted = rec.requested_mems.empty()
                      ? node >= 0
                      : std::find(rec.requested_mems.begin(), rec.requested_mems.end(), node) != rec.requested_mems.end();
    if (wanted) on_requested += count;
  }
  rec.requested_pages_pct = total ? 100.0 * static_cast<double>(on_requested) / static_cast<double>(total) : 0.0;
  if (on_requested < total)
    problems.push_back(fmt::format("{:.2f}% of {} pages on the requested node(s)", rec.requested_pages_pct, total));
  // failed: the thread or the policy is wrong, or no page is where it should be; partial: only some pages.
  bool only_pages = problems.size() == 1 && on_requested > 0 && on_requested < total;
  rec.status = problems.empty() ? "verified" : (only_pages ? "partial" : "failed");
  rec.problems = std::move(problems);
}

namespace {

nlohmann::json threads_to_json(const hostpipe::ThreadWatchResult& w) {
  nlohmann::json outside = nlohmann::json::array();
  for (const auto& t : w.outside)
    outside.push_back({{"pid", t.pid == 0 ? nlohmann::json("self") : nlohmann::json(t.pid)}, {"tid", t.tid}, {"name", t.name},
                       {"cpus", hostpipe::format_cpulist(t.cpus)}});
  return {{"cpus", hostpipe::format_cpulist(w.cpus)}, {"pids", w.pids}, {"samples", w.samples}, {"outside", outside},
          {"errors", w.errors}};
}

}  // namespace

nlohmann::json placement_to_json(const PlacementRecord& r) {
  nlohmann::json pages = nlohmann::json::object();
  for (const auto& [node, count] : r.pages)
    pages[node == -1 ? "not_present" : node == -2 ? "unknown" : std::to_string(node)] = count;
  nlohmann::json j = {{"arm", r.arm},
          {"device_numa", r.device_numa},
          {"requested", {{"cpus", hostpipe::format_cpulist(r.requested_cpus)}, {"mems", r.requested_mems}}},
          {"effective",
           {{"cpus", hostpipe::format_cpulist(r.effective_cpus)},
            {"mem_policy", r.mem_policy},
            {"mem_policy_nodes", r.mem_policy_nodes}}},
          {"pages", pages},
          {"requested_pages_pct", r.requested_pages_pct},
          {"status", r.status},
          {"degenerate", r.degenerate},
          {"pinned", r.pinned},
          {"problems", r.problems}};
  if (r.threads) j["threads"] = threads_to_json(*r.threads);
  return j;
}

namespace {

// PLACEBENCH_WATCH_PIDS="1234,5678": other processes whose threads are held to the arm's CPUs too.
std::vector<int> watch_pids_from_environment() {
  std::vector<int> pids;
  const char* v = std::getenv("PLACEBENCH_WATCH_PIDS");
  if (!v) return pids;
  std::string s(v);
  for (std::size_t start = 0; start < s.size();) {
    std::size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    int pid = std::atoi(s.substr(start, end - start).c_str());
    if (pid > 0) pids.push_back(pid);
    start = end + 1;
  }
  return pids;
}

}  // namespace

TrialThreadWatch::TrialThreadWatch(const std::vector<int>& arm_cpus) {
  if (arm_cpus.empty()) return;
  hostpipe::ThreadWatchOptions o;
  o.cpus = arm_cpus;
  std::sort(o.cpus.begin(), o.cpus.end());
  o.other_pids = watch_pids_from_environment();
  watch_ = std::make_unique<hostpipe::ThreadWatch>(o);
}

void TrialThreadWatch::finish(PlacementRecord& record, std::vector<std::string>& flags) {
  if (!watch_) return;
  record.threads = watch_->stop();
  watch_.reset();
  const auto& outside = record.threads->outside;
  if (outside.empty()) return;
  std::string list;
  for (const auto& t : outside)
    list += fmt::format("{}{}{} ({}) on CPUs {}", list.empty() ? "" : "; ", t.pid == 0 ? "" : fmt::format("pid {} ", t.pid),
                        t.tid, t.name, hostpipe::format_cpulist(t.cpus));
  flags.push_back(fmt::format("late_threads: {} thread(s) outside the arm's CPUs {}: {}", outside.size(),
                              hostpipe::format_cpulist(record.threads->cpus), list));
}

}  // namespace placebench::harness
