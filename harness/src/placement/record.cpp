// Apply and verify a placement (see record.h). Verification trusts only what the kernel reports:
// sched_getaffinity, get_mempolicy and move_pages in query mode.
#include "placebench/harness/placement/record.h"

#include <algorithm>
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

nlohmann::json placement_to_json(const PlacementRecord& r) {
  nlohmann::json pages = nlohmann::json::object();
  for (const auto& [node, count] : r.pages)
    pages[node == -1 ? "not_present" : node == -2 ? "unknown" : std::to_string(node)] = count;
  return {{"arm", r.arm},
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
}

}  // namespace placebench::harness
