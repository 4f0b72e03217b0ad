// Fragmentation of free GPU capacity as Weng et al. define it ("Beware of Fragmentation: Scheduling
// GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC'23, section 3.2): for node n and task
// m, F_n(m) is the free GPU capacity on n that m cannot use —
//   case 1, m cannot run on n (not enough GPUs, or another dimension such as CPUs is short): all of n's free
//           GPU capacity;
//   case 2, m can run on n: the free capacity of each GPU whose free share is below min(demand_m, 1)
//           (a GPU that cannot host even a part of m);
// and the expected fragmentation over the task distribution is F_n(M) = sum_m p_m F_n(m), summed over nodes
// for the cluster. A worked example is in docs/queue-replay.md and decisions_queue_test.cpp.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "placebench/harness/decisions/queue_replay.h"

namespace placebench::harness::decisions {

double task_fragment(const std::vector<double>& free_per_gpu, const TaskShape& task, bool fits_other_dimensions) {
  const double total = std::accumulate(free_per_gpu.begin(), free_per_gpu.end(), 0.0);
  const double per_gpu = std::min(task.gpus, 1.0);
  // Can the GPUs hold the task? A fractional task needs one GPU with that much free; a task of k whole GPUs
  // needs k GPUs that are entirely free.
  bool gpus_fit = false;
  if (task.gpus < 1) {
    gpus_fit = std::any_of(free_per_gpu.begin(), free_per_gpu.end(), [&](double f) { return f >= task.gpus - 1e-12; });
  } else {
    auto whole = std::count_if(free_per_gpu.begin(), free_per_gpu.end(), [](double f) { return f >= 1 - 1e-12; });
    gpus_fit = static_cast<double>(whole) >= task.gpus - 1e-12;
  }
  if (!fits_other_dimensions || !gpus_fit) return total;  // case 1
  double unusable = 0;                                     // case 2
  for (double f : free_per_gpu)
    if (f < per_gpu - 1e-12) unusable += f;
  return unusable;
}

double expected_fragment(const std::vector<double>& free_per_gpu, const std::vector<TaskShape>& tasks,
                         const std::vector<bool>& fits_other_dimensions) {
  if (tasks.size() != fits_other_dimensions.size()) throw std::invalid_argument("expected_fragment: one fit flag per task");
  double weight = 0, sum = 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    weight += tasks[i].popularity;
    sum += tasks[i].popularity * task_fragment(free_per_gpu, tasks[i], fits_other_dimensions[i]);
  }
  return weight > 0 ? sum / weight : 0;
}

}  // namespace placebench::harness::decisions
