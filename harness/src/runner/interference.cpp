// A trial's interference load (see interference.h).
#include "interference.h"

#include <fmt/format.h>

#include <algorithm>

#include "placebench/harness/placement/plan.h"

namespace placebench::harness::detail {

HogPlacement place_hog(const Inventory& inv, const ClassConfig& cls, const Condition& k, const std::vector<int>& arm_cpus) {
  HogPlacement p;
  const int device = device_numa_node(inv, {cls.gpu, cls.device_numa});
  p.node = device;
  if (k.node == "other") {
    std::optional<int> other = cls.remote_node ? cls.remote_node : farthest_node(inv, device);
    if (other && *other != device) {
      p.node = *other;
    } else {
      p.degenerate = true;
      p.notes.push_back(fmt::format("one NUMA node: the hog's 'other' node is the device's node {} (degenerate)", device));
    }
  }
  std::vector<int> node_cpus = usable_cpus(inv, p.node), free;
  for (int c : node_cpus)
    if (std::find(arm_cpus.begin(), arm_cpus.end(), c) == arm_cpus.end()) free.push_back(c);
  if (free.empty() && k.threads > 0) {
    free = node_cpus;
    p.notes.push_back(fmt::format("node {} has no allowed CPU outside the arm's: the hog shares them", p.node));
  }
  for (int t = 0; t < k.threads && !free.empty(); ++t) p.cpus.push_back(free[static_cast<std::size_t>(t) % free.size()]);
  if (k.threads > 0 && p.cpus.empty()) p.notes.push_back(fmt::format("node {} has no allowed CPU: the hog is not bound", p.node));
  return p;
}

namespace {

std::vector<hostpipe::ContentionTask> hog_tasks(const Condition& k, const HogPlacement& p) {
  std::vector<hostpipe::ContentionTask> tasks;
  for (int t = 0; t < k.threads; ++t) {
    hostpipe::ContentionTask task;
    task.kind = k.hog == Condition::Hog::kCpu ? hostpipe::ContentionTask::Kind::kSpin : hostpipe::ContentionTask::Kind::kStream;
    if (!p.cpus.empty()) task.cpus = {p.cpus[static_cast<std::size_t>(t) % p.cpus.size()]};
    task.mem_nodes = {p.node};
    task.bytes = static_cast<std::size_t>(k.bytes);
    tasks.push_back(std::move(task));
  }
  return tasks;
}

}  // namespace

InterferenceLoad::InterferenceLoad(const Inventory& inv, const ClassConfig& cls, const Condition& k,
                                   const std::vector<int>& arm_cpus)
    : condition_(k), placement_(place_hog(inv, cls, k, arm_cpus)) {
  if (!k.quiet()) threads_.emplace(hog_tasks(k, placement_));
  started_ = std::chrono::steady_clock::now();
}

nlohmann::json InterferenceLoad::finish() {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  std::vector<hostpipe::ContentionReport> reports = threads_ ? threads_->stop() : std::vector<hostpipe::ContentionReport>{};
  // The dose: each hog thread's own rate over its own running time (ContentionReport::seconds), summed. The
  // trial's window is not the threads': they start before it (the constructor waits until they run) and
  // stop after it (stop() joins them), so bytes or CPU time over the trial's seconds overstate a short trial.
  double gbps = 0, cpu_s = 0, cores = 0;
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& r : reports) {
    cpu_s += r.cpu_seconds;
    if (r.seconds > 0) cores += r.cpu_seconds / r.seconds, gbps += r.gbps();
    if (!r.problem.empty()) problems.push_back(r.problem);
  }
  // A hog that got under half a core per thread (a busy node's scheduler, a trial shorter than the hog's
  // start) did not apply its dose: the record says so rather than passing the trial as loaded.
  if (!condition_.quiet() && cores < 0.5 * condition_.threads)
    problems.push_back(fmt::format("hog starved: {:.2f} core(s) for {} thread(s) over {:.6f} s; this trial ran under less load "
                                   "than its condition names (see gbps/cpu_s)",
                                   cores, condition_.threads, seconds));
  nlohmann::json j = {{"condition", condition_.name}, {"hog", hog_name(condition_.hog)}, {"threads", condition_.threads},
                      {"seconds", seconds}, {"cpu_s", cpu_s}, {"cores", cores},
                      {"problems", problems}, {"notes", placement_.notes}, {"degenerate", placement_.degenerate}};
  if (condition_.quiet()) return j;
  j["node"] = placement_.node;
  j["cpus"] = placement_.cpus;
  if (condition_.hog == Condition::Hog::kMembw) j["gbps"] = gbps;
  return j;
}

}  // namespace placebench::harness::detail
