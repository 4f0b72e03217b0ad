// How many workers fit on each host (see feasible.h). Per host, with G GPUs, C CPUs and M GiB per worker,
// free g_k GPUs, c_k CPUs and m_k GiB on NUMA node k, gpu_slots_k = floor(g_k / G) and
// cpu_slots_k = min(floor(c_k / C), floor(m_k / M)):
//   strict,  one node per worker:  sum_k min(gpu_slots_k, cpu_slots_k)          (nodes are independent)
//   relaxed, one node per resource: min(sum_k gpu_slots_k, sum_k cpu_slots_k)   (a transportation problem on
//            a complete bipartite graph: any GPU slot may pair with any CPU slot, so max flow = the smaller side)
//   relaxed, spanning:              min(floor(sum g / G), floor(sum c / C), floor(sum m / M))  (all pooled)
//   strict,  spanning:              branch and bound over the workers' GPU splits; CPUs and memory, which may
//            split over the NUMA nodes of a worker's GPUs, are checked with Hall's condition: for every set T
//            of NUMA nodes, C x (workers whose GPUs all lie in T) <= sum_{k in T} c_k, and likewise memory.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numeric>

#include "placebench/harness/decisions/feasible.h"

namespace placebench::harness::decisions {
namespace {

constexpr std::int64_t kUnbounded = std::int64_t{1} << 40;

std::int64_t slots(double have, double need) {
  if (need <= 0) return kUnbounded;
  if (!std::isfinite(have)) return kUnbounded;
  return static_cast<std::int64_t>(std::floor(have / need + 1e-9));
}

double free_memory(const NumaCapacity& n) {
  return n.free_memory_gib.value_or(std::numeric_limits<double>::infinity());
}

std::int64_t cpu_mem_slots(const NumaCapacity& n, const JobContract& job) {
  return std::min(slots(n.free_cpus, job.cpus_per_worker), slots(free_memory(n), job.memory_gib_per_worker));
}

// Strict locality with workers that may span NUMA nodes: an exact branch-and-bound search.
class SpanSearch {
 public:
  SpanSearch(const ClusterNode& node, const JobContract& job, int cap, const SearchLimits& limits)
      : job_(job), cap_(cap), limits_(limits) {
    for (const auto& n : node.numa)
      if (n.free_gpus > 0) {  // CPUs of a node without free GPUs can never be local to a worker's GPUs
        gpus_.push_back(n.free_gpus);
        cpus_.push_back(n.free_cpus);
        mem_.push_back(free_memory(n));
      }
  }

  int run(bool& exact, std::string& note) {
    const int k = static_cast<int>(gpus_.size());
    if (k == 0) return 0;
    if (k > limits_.max_numa_nodes) {
      exact = false;
      note = fmt::format("{} NUMA nodes with free GPUs exceed the exact search's limit of {}; greedy lower bound", k,
                         limits_.max_numa_nodes);
      return prepare_and_greedy();
    }
    std::vector<int> split(static_cast<std::size_t>(k), 0);
    enumerate_splits(0, job_.gpus_per_worker, split);
    if (splits_.size() > kMaxSplits) {
      exact = false;
      note = fmt::format("{} ways to split a worker's GPUs exceed the exact search's limit of {}; greedy lower bound",
                         splits_.size(), kMaxSplits);
      splits_.resize(kMaxSplits);
      return prepare_and_greedy();
    }
    prepare();
    dfs(0, 0);
    if (aborted_) {
      exact = false;
      note = fmt::format("exact search stopped after {} states (--search-limit); best of search and greedy is a lower "
                         "bound", limits_.max_states);
      return std::max(best_, greedy());
    }
    return best_;
  }

 private:
  static constexpr std::size_t kMaxSplits = 100000;

  struct Split {
    std::vector<int> gpus;
    unsigned mask = 0;
    int width = 0;
  };

  void enumerate_splits(int k, int left, std::vector<int>& split) {
    if (splits_.size() > kMaxSplits) return;
    if (k == static_cast<int>(gpus_.size())) {
      if (left != 0) return;
      Split s{split, 0, 0};
      for (int i = 0; i < k; ++i)
        if (split[static_cast<std::size_t>(i)] > 0) s.mask |= 1u << i, ++s.width;
      splits_.push_back(std::move(s));
      return;
    }
    const auto at = static_cast<std::size_t>(k);  // k < gpus_.size() here
    for (int take = std::min(left, gpus_[at]); take >= 0; --take) {
      split[at] = take;
      enumerate_splits(k + 1, left - take, split);
    }
    split[at] = 0;
  }

  void prepare() {
    // Single-node splits first: they use the fewest subsets and find good placements early.
    std::stable_sort(splits_.begin(), splits_.end(), [](const Split& a, const Split& b) { return a.width < b.width; });
    const unsigned subsets = 1u << gpus_.size();
    cap_cpus_.assign(subsets, 0);
    cap_mem_.assign(subsets, 0.0);
    demand_.assign(subsets, 0);
    for (unsigned t = 0; t < subsets; ++t)
      for (std::size_t i = 0; i < gpus_.size(); ++i)
        if (t & (1u << i)) cap_cpus_[t] += cpus_[i], cap_mem_[t] += mem_[i];
    left_gpus_ = gpus_;
    total_gpus_left_ = std::accumulate(gpus_.begin(), gpus_.end(), std::int64_t{0});
  }

  int prepare_and_greedy() {
    prepare();
    return greedy();
  }

  bool fits(const Split& s) const {
    for (std::size_t i = 0; i < s.gpus.size(); ++i)
      if (s.gpus[i] > left_gpus_[i]) return false;
    const unsigned subsets = static_cast<unsigned>(demand_.size());
    for (unsigned t = s.mask; t < subsets; t = (t + 1) | s.mask) {
      std::int64_t workers = demand_[t] + 1;
      if (workers * job_.cpus_per_worker > cap_cpus_[t]) return false;
      if (static_cast<double>(workers) * job_.memory_gib_per_worker > cap_mem_[t] + 1e-9) return false;
    }
    return true;
  }

  void apply(const Split& s, int sign) {
    for (std::size_t i = 0; i < s.gpus.size(); ++i) left_gpus_[i] -= sign * s.gpus[i];
    total_gpus_left_ -= sign * job_.gpus_per_worker;
    const unsigned subsets = static_cast<unsigned>(demand_.size());
    for (unsigned t = s.mask; t < subsets; t = (t + 1) | s.mask) demand_[t] += sign;
  }

  std::int64_t upper_bound(int placed) const {
    const unsigned all = static_cast<unsigned>(demand_.size()) - 1;
    std::int64_t ub = placed + total_gpus_left_ / job_.gpus_per_worker;
    ub = std::min(ub, slots(static_cast<double>(cap_cpus_[all]), job_.cpus_per_worker));
    ub = std::min(ub, slots(cap_mem_[all], job_.memory_gib_per_worker));
    return std::min<std::int64_t>(ub, cap_);
  }

  // Workers are identical: a placement is a multiset of splits, enumerated as non-decreasing split indices.
  void dfs(std::size_t start, int placed) {
    if (aborted_) return;
    if (++states_ > limits_.max_states) {
      aborted_ = true;
      return;
    }
    best_ = std::max(best_, placed);
    if (best_ >= cap_ || upper_bound(placed) <= best_) return;
    for (std::size_t i = start; i < splits_.size(); ++i) {
      if (!fits(splits_[i])) continue;
      apply(splits_[i], +1);
      dfs(i, placed + 1);
      apply(splits_[i], -1);
      if (aborted_ || best_ >= cap_) return;
    }
  }

  int greedy() {
    left_gpus_ = gpus_;
    total_gpus_left_ = std::accumulate(gpus_.begin(), gpus_.end(), std::int64_t{0});
    std::fill(demand_.begin(), demand_.end(), 0);
    int placed = 0;
    for (bool progress = true; progress && placed < cap_;) {
      progress = false;
      for (const auto& s : splits_)
        if (fits(s)) {
          apply(s, +1);
          ++placed;
          progress = true;
          break;
        }
    }
    return placed;
  }

  const JobContract& job_;
  int cap_;
  SearchLimits limits_;
  std::vector<int> gpus_, cpus_;
  std::vector<double> mem_;
  std::vector<Split> splits_;
  std::vector<std::int64_t> cap_cpus_, demand_;
  std::vector<double> cap_mem_;
  std::vector<int> left_gpus_;
  std::int64_t total_gpus_left_ = 0, states_ = 0;
  int best_ = 0;
  bool aborted_ = false;
};

int capped(std::int64_t v, int cap) { return static_cast<int>(std::clamp<std::int64_t>(v, 0, cap)); }

}  // namespace

std::string_view locality_name(Locality locality) { return locality == Locality::kStrict ? "strict" : "relaxed"; }

int max_workers_on_node(const ClusterNode& node, const JobContract& job, Locality locality, const SearchLimits& limits,
                        bool& exact, std::string* note) {
  std::string ignored;
  if (!note) note = &ignored;
  exact = true;
  const int cap = job.workers;
  if (!job.span_numa) {
    std::int64_t total = 0, gpu_slots = 0, cpu_slots = 0;
    for (const auto& n : node.numa) {
      std::int64_t g = slots(n.free_gpus, job.gpus_per_worker), c = cpu_mem_slots(n, job);
      total = std::min(kUnbounded, total + std::min(g, c));
      gpu_slots = std::min(kUnbounded, gpu_slots + g);
      cpu_slots = std::min(kUnbounded, cpu_slots + c);
    }
    return capped(locality == Locality::kStrict ? total : std::min(gpu_slots, cpu_slots), cap);
  }
  if (locality == Locality::kRelaxed) {
    double g = 0, c = 0, m = 0;
    for (const auto& n : node.numa) g += n.free_gpus, c += n.free_cpus, m += free_memory(n);
    return capped(std::min({slots(g, job.gpus_per_worker), slots(c, job.cpus_per_worker),
                            slots(m, job.memory_gib_per_worker)}), cap);
  }
  return SpanSearch(node, job, cap, limits).run(exact, *note);
}

}  // namespace placebench::harness::decisions
