// `placebench feasible`: per-host maxima against hand-checked fixtures and against a brute-force search that
// tries every assignment of GPUs, CPUs and memory on small random hosts (all four locality modes).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>

#include "placebench/harness/decisions/feasible.h"
#include "placebench/harness/errors.h"

using namespace placebench::harness;
using namespace placebench::harness::decisions;

namespace {

std::string fixture(const std::string& rel) { return std::string(PLACEBENCH_SOURCE_DIR) + "/tests/fixtures/decisions/" + rel; }

// Every way to split `total` units over the nodes in `allowed` within `left`.
void splits(int total, const std::vector<int>& left, unsigned allowed, std::vector<int>& cur, std::size_t k,
            const std::function<void(const std::vector<int>&)>& f) {
  if (k == left.size()) {
    if (total == 0) f(cur);
    return;
  }
  int hi = (allowed & (1u << k)) ? std::min(total, left[k]) : 0;
  for (int t = 0; t <= hi; ++t) {
    cur[k] = t;
    splits(total - t, left, allowed, cur, k + 1, f);
  }
  cur[k] = 0;
}

// Places workers one at a time in every possible way; memory is in whole GiB here.
int brute_force(std::vector<int> g, std::vector<int> c, std::vector<int> m, const JobContract& job, bool strict) {
  const std::size_t k = g.size();
  const unsigned all = (1u << k) - 1;
  int best = 0;
  std::function<void(int)> place = [&](int placed) {
    best = std::max(best, placed);
    if (best >= job.workers) return;
    std::vector<int> cur(k, 0);
    // GPU splits: one node each, or any split when spanning.
    std::vector<std::vector<int>> gpu_options;
    for (std::size_t a = 0; a < k; ++a)
      splits(job.gpus_per_worker, g, job.span_numa ? all : (1u << a), cur, 0,
             [&](const std::vector<int>& s) { gpu_options.push_back(s); });
    std::sort(gpu_options.begin(), gpu_options.end());
    gpu_options.erase(std::unique(gpu_options.begin(), gpu_options.end()), gpu_options.end());
    for (const auto& gs : gpu_options) {
      unsigned support = 0;
      for (std::size_t i = 0; i < k; ++i)
        if (gs[i]) support |= 1u << i;
      std::vector<unsigned> host_sets;  // where the CPUs and memory may come from
      if (strict) host_sets = {support};
      else if (job.span_numa) host_sets = {all};
      else
        for (std::size_t b = 0; b < k; ++b) host_sets.push_back(1u << b);
      for (unsigned where : host_sets) {
        std::vector<std::vector<int>> cpu_options, mem_options;
        splits(job.cpus_per_worker, c, where, cur, 0, [&](const std::vector<int>& s) { cpu_options.push_back(s); });
        splits(static_cast<int>(job.memory_gib_per_worker), m, where, cur, 0,
               [&](const std::vector<int>& s) { mem_options.push_back(s); });
        for (const auto& cs : cpu_options)
          for (const auto& ms : mem_options) {
            for (std::size_t i = 0; i < k; ++i) g[i] -= gs[i], c[i] -= cs[i], m[i] -= ms[i];
            place(placed + 1);
            for (std::size_t i = 0; i < k; ++i) g[i] += gs[i], c[i] += cs[i], m[i] += ms[i];
            if (best >= job.workers) return;
          }
      }
    }
  };
  place(0);
  return best;
}

}  // namespace

TEST(Feasible, IssueExample) {
  FeasibilityInput in = load_feasibility_input(fixture("issue-example.yaml"), "");
  FeasibilityReport r = assess_feasibility(in.inventory, *in.job);
  EXPECT_EQ(r.free_gpus, 2);
  EXPECT_EQ(r.placeable_workers_strict, 0);
  EXPECT_EQ(r.placeable_workers_relaxed, 1);  // GPUs of numa 0 with the 16 free CPUs of numa 1
  EXPECT_FALSE(r.job_runnable_strict);
  EXPECT_FALSE(r.job_runnable_relaxed);
  ASSERT_EQ(r.nodes.size(), 1u);
  ASSERT_FALSE(r.nodes[0].reasons.empty());
  EXPECT_NE(r.nodes[0].reasons[0].find("not enough local CPUs"), std::string::npos) << r.nodes[0].reasons[0];
}

TEST(Feasible, FreeIsNotRunnableUntilLocalityIsRelaxed) {
  FeasibilityInput in = load_feasibility_input(fixture("cluster-stranded.yaml"), "");
  FeasibilityReport r = assess_feasibility(in.inventory, *in.job);
  EXPECT_EQ(r.free_gpus, 12);
  EXPECT_EQ(r.placeable_workers_strict, 0);
  EXPECT_EQ(r.placeable_workers_relaxed, 2);
  EXPECT_FALSE(r.job_runnable_strict);
  EXPECT_TRUE(r.job_runnable_relaxed);
  EXPECT_TRUE(r.exact);
  ASSERT_EQ(r.nodes.size(), 3u);
  EXPECT_EQ(r.nodes[0].workers_relaxed, 1);
  EXPECT_EQ(r.nodes[1].workers_relaxed, 1);
  EXPECT_EQ(r.nodes[2].workers_relaxed, 0);
  EXPECT_EQ(r.nodes[0].reasons.at(0), "strict: numa 0: 4 free GPUs but 8 free local CPUs, a worker needs 16 (not enough local CPUs)");
  EXPECT_EQ(r.nodes[2].reasons.at(0), "strict: numa 0: 2 free GPUs, a worker needs 4 on one NUMA node (not enough free GPUs)");
  EXPECT_NE(r.nodes[2].reasons.back().find("span_numa: true would pool them"), std::string::npos);
}

TEST(Feasible, JsonInventoryAndSeparateJobFiles) {
  FeasibilityInput yaml = load_feasibility_input(fixture("cluster-stranded.yaml"), "");
  FeasibilityInput json = load_feasibility_input(fixture("cluster-stranded.json"), fixture("job-relaxed.yaml"));
  EXPECT_EQ(json.job->locality, Locality::kRelaxed);
  FeasibilityReport r = assess_feasibility(json.inventory, *json.job);
  EXPECT_EQ(r.free_gpus, 12);
  EXPECT_TRUE(r.job_runnable_relaxed);
  FeasibilityInput span = load_feasibility_input(fixture("cluster-stranded.yaml"), fixture("job-span.yaml"));
  ASSERT_TRUE(span.job->span_numa);
  r = assess_feasibility(span.inventory, *span.job);
  EXPECT_EQ(r.nodes[0].workers_strict, 0);  // numa 0's 8 CPUs are the only ones local to gpu-a's free GPUs
  EXPECT_EQ(r.nodes[2].workers_strict, 1);  // 2 + 2 GPUs, 16 of the 40 CPUs of both nodes
  EXPECT_EQ(r.placeable_workers_strict, 1);
  EXPECT_EQ(r.placeable_workers_relaxed, 2);
}

TEST(Feasible, GpuListAndCpulists) {
  FeasibilityInput in = load_feasibility_input(fixture("node-gpu-list.yaml"), "");
  const auto& numa = in.inventory.nodes[0].numa;
  EXPECT_EQ(numa[0].gpus, 2);
  EXPECT_EQ(numa[0].free_gpus, 1);
  EXPECT_EQ(numa[0].free_cpus, 12);
  EXPECT_EQ(numa[1].free_gpus, 2);
  FeasibilityReport r = assess_feasibility(in.inventory, *in.job);
  EXPECT_EQ(r.placeable_workers_strict, 2);
  EXPECT_TRUE(r.job_runnable_strict);
}

TEST(Feasible, BadInventoriesNameFileLineAndKey) {
  struct Case {
    const char* file;
    const char* expect;
  } cases[] = {
      {"bad-gpu-numa.yaml", "bad-gpu-numa.yaml:8: nodes[0].gpus[1].numa: GPU 1 is on NUMA node 2, which node gpu-e does not have"},
      {"bad-negative.yaml", "bad-negative.yaml:4: nodes[0].numa[0].free_cpus: -4 is negative"},
      {"bad-free-gt-total.yaml", "bad-free-gt-total.yaml:4: nodes[0].numa[0].free_gpus: 3 free GPUs > 2 GPUs"},
      {"bad-unknown-key.yaml", "bad-unknown-key.yaml:4: nodes[0].numa[0].free_gpu: unknown key"},
  };
  for (const auto& c : cases) {
    try {
      load_feasibility_input(fixture(c.file), "");
      ADD_FAILURE() << c.file << ": no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

TEST(Feasible, MoreValidation) {
  auto error = [](const std::string& text) {
    try {
      parse_feasibility_text(text, "inv.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("nodes: []").find("inv.yaml:1: nodes: expected a non-empty list"), std::string::npos);
  EXPECT_NE(error("nodes:\n  - {name: a, numa: [{id: 0, cpus: 4}, {id: 0, cpus: 4}]}").find("NUMA node 0 is listed twice"),
            std::string::npos);
  EXPECT_NE(error("nodes:\n  - {name: a, numa: [{id: 0, cpus: 4}]}\n  - {name: a, numa: [{id: 0, cpus: 4}]}")
                .find("inv.yaml:3: nodes[1].name: node 'a' is listed twice"),
            std::string::npos);
  EXPECT_NE(error("nodes:\n  - {name: a, numa: [{id: 0, cpus: 4}]}\njob: {workers: 0, gpus_per_worker: 1, cpus_per_worker: 1}")
                .find("job.workers: 0 is below 1"),
            std::string::npos);
  EXPECT_NE(error("nodes:\n  - {name: a, numa: [{id: 0, cpus: 4}]}\njob: {workers: 1, gpus_per_worker: 1, cpus_per_worker: 1, locality: loose}")
                .find("job.locality: 'loose': accepted: strict, relaxed"),
            std::string::npos);
  EXPECT_NE(error("nodes:\n  - {name: a, numa: [{id: 0, cpus: \"0-3\", free_cpus: \"2-5\"}]}").find("free_cpus"), std::string::npos);
  EXPECT_NE(error("nodes: [").find("inv.yaml:"), std::string::npos);
  EXPECT_NE(error("racks: []").find("racks: unknown key"), std::string::npos);
  // An empty cpulist is not "no CPUs" by accident: 0 says that (issue 15).
  EXPECT_NE(error("nodes:\n  - {name: a, numa: [{id: 0, cpus: 4, free_cpus: ''}]}").find("numa[0].free_cpus: empty; give a CPU count"),
            std::string::npos)
      << error("nodes:\n  - {name: a, numa: [{id: 0, cpus: 4, free_cpus: ''}]}");
}

TEST(Feasible, MatchesBruteForceOnSmallHosts) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int k = pick(1, 3);
    ClusterNode node{"n", {}};
    std::vector<int> g, c, m;
    for (int i = 0; i < k; ++i) {
      NumaCapacity n;
      n.id = i;
      n.gpus = n.free_gpus = pick(0, 4);
      n.cpus = n.free_cpus = pick(0, 5);
      n.memory_gib = n.free_memory_gib = pick(0, 3);
      node.numa.push_back(n);
      g.push_back(n.free_gpus), c.push_back(n.free_cpus), m.push_back(static_cast<int>(*n.free_memory_gib));
    }
    JobContract job;
    job.workers = pick(1, 4);
    job.gpus_per_worker = pick(1, 3);
    job.cpus_per_worker = pick(0, 3);
    job.memory_gib_per_worker = pick(0, 1);
    job.span_numa = pick(0, 1) == 1;
    for (Locality loc : {Locality::kStrict, Locality::kRelaxed}) {
      bool exact = false;
      int got = max_workers_on_node(node, job, loc, {}, exact);
      int want = brute_force(g, c, m, job, loc == Locality::kStrict);
      ASSERT_TRUE(exact);
      ASSERT_EQ(got, want) << "trial " << trial << " k=" << k << " span=" << job.span_numa << " "
                           << locality_name(loc) << " G=" << job.gpus_per_worker << " C=" << job.cpus_per_worker
                           << " M=" << job.memory_gib_per_worker << " W=" << job.workers;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 800);
}

TEST(Feasible, SearchLimitFallsBackToGreedyAndSaysSo) {
  ClusterNode node{"big", {}};
  for (int i = 0; i < 4; ++i) {
    NumaCapacity n;
    n.id = i;
    n.gpus = n.free_gpus = 3;
    n.cpus = n.free_cpus = 6;
    node.numa.push_back(n);
  }
  JobContract job;
  job.workers = 6;
  job.gpus_per_worker = 2;
  job.cpus_per_worker = 4;
  job.span_numa = true;
  bool exact = true;
  std::string note;
  int full = max_workers_on_node(node, job, Locality::kStrict, {}, exact, &note);
  EXPECT_TRUE(exact);
  EXPECT_EQ(full, 6);  // 12 GPUs / 2, 24 CPUs / 4
  SearchLimits tiny;
  tiny.max_states = 3;
  int bounded = max_workers_on_node(node, job, Locality::kStrict, tiny, exact, &note);
  EXPECT_FALSE(exact);
  EXPECT_LE(bounded, full);
  EXPECT_NE(note.find("--search-limit"), std::string::npos) << note;
  ClusterInventory inv{"x", {node}};
  FeasibilityReport r = assess_feasibility(inv, job, tiny);
  EXPECT_FALSE(r.exact);
  EXPECT_FALSE(r.notes.empty());
  EXPECT_NE(feasibility_json_text(r).find("\"method\": \"heuristic\""), std::string::npos);
}
