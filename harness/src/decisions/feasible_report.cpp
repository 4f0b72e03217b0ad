// The cluster-level answer of `placebench feasible`: per-host maxima summed, reasons in words, printers.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "placebench/harness/decisions/feasible.h"
#include "placebench/harness/evidence.h"

namespace placebench::harness::decisions {
namespace {

double free_mem(const NumaCapacity& n) { return n.free_memory_gib.value_or(INFINITY); }

std::string numa_list(const ClusterNode& node, int NumaCapacity::*field) {
  std::string out;
  for (const auto& n : node.numa) out += fmt::format("{}{}", out.empty() ? "" : ", ", n.*field);
  return out;
}

// Why the node takes no worker with GPUs, CPUs and memory on one NUMA node.
std::vector<std::string> strict_reasons(const ClusterNode& node, const JobContract& job) {
  std::vector<std::string> out;
  if (job.span_numa) {  // GPUs may split over NUMA nodes; CPUs and memory must sit on those nodes
    int gpus = 0, local_cpus = 0;
    double local_mem = 0;
    for (const auto& n : node.numa)
      if (n.free_gpus > 0) gpus += n.free_gpus, local_cpus += n.free_cpus, local_mem += free_mem(n);
    if (gpus < job.gpus_per_worker)
      out.push_back(fmt::format("{} free GPUs on the host, a worker needs {} (not enough free GPUs)", gpus, job.gpus_per_worker));
    else if (local_cpus < job.cpus_per_worker)
      out.push_back(fmt::format("{} free CPUs on the NUMA nodes with free GPUs, a worker needs {} (not enough local CPUs)",
                                local_cpus, job.cpus_per_worker));
    else
      out.push_back(fmt::format("{:g} GiB free on the NUMA nodes with free GPUs, a worker needs {:g} (not enough memory)",
                                local_mem, job.memory_gib_per_worker));
    return out;
  }
  for (const auto& n : node.numa) {
    if (n.free_gpus == 0) continue;
    if (n.free_gpus < job.gpus_per_worker)
      out.push_back(fmt::format("numa {}: {} free GPU{}, a worker needs {} on one NUMA node (not enough free GPUs)",
                                n.id, n.free_gpus, n.free_gpus == 1 ? "" : "s", job.gpus_per_worker));
    else if (n.free_cpus < job.cpus_per_worker)
      out.push_back(fmt::format("numa {}: {} free GPUs but {} free local CPUs, a worker needs {} (not enough local CPUs)",
                                n.id, n.free_gpus, n.free_cpus, job.cpus_per_worker));
    else if (free_mem(n) + 1e-9 < job.memory_gib_per_worker)
      out.push_back(fmt::format("numa {}: {} free GPUs but {:g} GiB free local memory, a worker needs {:g} (not enough "
                                "memory)", n.id, n.free_gpus, free_mem(n), job.memory_gib_per_worker));
  }
  if (out.empty()) out.push_back("no free GPUs");
  return out;
}

// Why the node takes no worker when its CPUs and memory may come from any NUMA node of the host.
std::vector<std::string> relaxed_reasons(const ClusterNode& node, const JobContract& job) {
  std::vector<std::string> out;
  int total_gpus = 0, total_cpus = 0;
  double total_mem = 0;
  bool gpu_fit = false, cpu_fit = false;
  for (const auto& n : node.numa) {
    total_gpus += n.free_gpus, total_cpus += n.free_cpus, total_mem += free_mem(n);
    gpu_fit |= n.free_gpus >= job.gpus_per_worker;
    cpu_fit |= n.free_cpus >= job.cpus_per_worker && free_mem(n) + 1e-9 >= job.memory_gib_per_worker;
  }
  if (total_gpus == 0) return {"no free GPUs"};
  if (job.span_numa) {
    if (total_gpus < job.gpus_per_worker)
      out.push_back(fmt::format("{} free GPUs on the host, a worker needs {} (not enough free GPUs)", total_gpus, job.gpus_per_worker));
    if (total_cpus < job.cpus_per_worker)
      out.push_back(fmt::format("{} free CPUs on the host, a worker needs {} (not enough CPUs)", total_cpus, job.cpus_per_worker));
    if (total_mem + 1e-9 < job.memory_gib_per_worker)
      out.push_back(fmt::format("{:g} GiB free on the host, a worker needs {:g} (not enough memory)", total_mem, job.memory_gib_per_worker));
    return out;
  }
  if (!gpu_fit)
    out.push_back(fmt::format("no NUMA node has {} free GPUs (free per node: {}){}", job.gpus_per_worker,
                              numa_list(node, &NumaCapacity::free_gpus),
                              total_gpus >= job.gpus_per_worker ? "; span_numa: true would pool them" : ""));
  if (!cpu_fit)
    out.push_back(fmt::format("no NUMA node has {} free CPUs{} for a worker (free CPUs per node: {})", job.cpus_per_worker,
                              job.memory_gib_per_worker > 0 ? fmt::format(" and {:g} GiB free memory", job.memory_gib_per_worker) : "",
                              numa_list(node, &NumaCapacity::free_cpus)));
  return out;
}

std::string job_text(const JobContract& job) {
  return fmt::format("{} worker{} x {} GPU{}, {} CPUs{} per worker; locality {}, {}", job.workers,
                     job.workers == 1 ? "" : "s", job.gpus_per_worker, job.gpus_per_worker == 1 ? "" : "s",
                     job.cpus_per_worker,
                     job.memory_gib_per_worker > 0 ? fmt::format(" and {:g} GiB", job.memory_gib_per_worker) : "",
                     locality_name(job.locality), job.span_numa ? "a worker may span NUMA nodes" : "one NUMA node per worker");
}

}  // namespace

FeasibilityReport assess_feasibility(const ClusterInventory& inventory, const JobContract& job, const SearchLimits& limits) {
  FeasibilityReport r;
  r.inventory_file = inventory.file;
  r.job = job;
  long long strict = 0, relaxed = 0;
  for (const auto& node : inventory.nodes) {
    NodeFit fit;
    fit.name = node.name;
    for (const auto& n : node.numa) fit.free_gpus += n.free_gpus, fit.free_cpus += n.free_cpus;
    bool exact_s = true, exact_r = true;
    std::string note_s, note_r;
    fit.workers_strict = max_workers_on_node(node, job, Locality::kStrict, limits, exact_s, &note_s);
    fit.workers_relaxed = max_workers_on_node(node, job, Locality::kRelaxed, limits, exact_r, &note_r);
    // Relaxing locality never removes a placement; a heuristic strict count can only be a lower bound.
    fit.workers_relaxed = std::max(fit.workers_relaxed, fit.workers_strict);
    fit.exact = exact_s && exact_r;
    if (!note_s.empty()) fit.notes.push_back("strict: " + note_s);
    if (!note_r.empty()) fit.notes.push_back("relaxed: " + note_r);
    if (fit.free_gpus == 0) {
      fit.reasons.push_back("no free GPUs");
    } else {
      if (fit.workers_strict == 0)
        for (auto& s : strict_reasons(node, job)) fit.reasons.push_back("strict: " + s);
      if (fit.workers_relaxed == 0)
        for (auto& s : relaxed_reasons(node, job)) fit.reasons.push_back("relaxed: " + s);
    }
    bool memory_unknown = std::any_of(node.numa.begin(), node.numa.end(), [](const NumaCapacity& n) { return !n.free_memory_gib; });
    if (memory_unknown && job.memory_gib_per_worker > 0)
      fit.notes.push_back("memory not given for some NUMA nodes: not checked there");
    r.free_gpus += fit.free_gpus;
    strict += fit.workers_strict;
    relaxed += fit.workers_relaxed;
    r.exact = r.exact && fit.exact;
    r.nodes.push_back(std::move(fit));
  }
  r.placeable_workers_strict = static_cast<int>(std::min<long long>(strict, job.workers));
  r.placeable_workers_relaxed = static_cast<int>(std::min<long long>(relaxed, job.workers));
  r.job_runnable_strict = strict >= job.workers;
  r.job_runnable_relaxed = relaxed >= job.workers;
  if (!r.exact)
    r.notes.push_back("some hosts exceeded the exact search's limits: their counts are greedy lower bounds (see the "
                      "nodes' notes); a job reported not runnable there may still fit");
  return r;
}

std::string render_feasibility_text(const FeasibilityReport& r) {
  std::string out = fmt::format("Inventory: {}   {} host{}, {} free GPUs\nJob: {}\n\n", r.inventory_file,
                                r.nodes.size(), r.nodes.size() == 1 ? "" : "s", r.free_gpus, job_text(r.job));
  out += fmt::format("{:<16}{:>10}{:>10}{:>16}{:>17}\n", "Host", "Free GPUs", "Free CPUs", "Workers strict", "Workers relaxed");
  for (const auto& n : r.nodes) {
    out += fmt::format("{:<16}{:>10}{:>10}{:>16}{:>17}{}\n", n.name, n.free_gpus, n.free_cpus, n.workers_strict,
                       n.workers_relaxed, n.exact ? "" : "  (heuristic)");
    for (const auto& why : n.reasons) out += fmt::format("    {}\n", why);
    for (const auto& note : n.notes) out += fmt::format("    note: {}\n", note);
  }
  const bool runnable = r.job.locality == Locality::kStrict ? r.job_runnable_strict : r.job_runnable_relaxed;
  out += fmt::format("\nPlaceable workers: strict {} of {}, relaxed {} of {}{}\n", r.placeable_workers_strict, r.job.workers,
                     r.placeable_workers_relaxed, r.job.workers, r.exact ? " (exact)" : " (lower bounds: heuristic)");
  out += fmt::format("Whole job: strict {}, relaxed {}\n", r.job_runnable_strict ? "runnable" : "NOT runnable",
                     r.job_runnable_relaxed ? "runnable" : "NOT runnable");
  if (runnable)
    out += fmt::format("Verdict: runnable as contracted ({}).\n", locality_name(r.job.locality));
  else if (r.job.locality == Locality::kStrict && r.job_runnable_relaxed)
    out += fmt::format("Verdict: not runnable as contracted (strict): {} GPUs are free, but {} with local CPUs; "
                       "relaxing locality makes it runnable.\n", r.free_gpus,
                       r.placeable_workers_strict == 0 ? std::string("no worker fits")
                                                       : fmt::format("only {} of {} workers fit", r.placeable_workers_strict, r.job.workers));
  else
    out += fmt::format("Verdict: not runnable as contracted ({}): {} GPUs are free, but only {} of {} workers fit.\n",
                       locality_name(r.job.locality), r.free_gpus,
                       r.job.locality == Locality::kStrict ? r.placeable_workers_strict : r.placeable_workers_relaxed,
                       r.job.workers);
  for (const auto& note : r.notes) out += fmt::format("Note: {}\n", note);
  return out;
}

std::string feasibility_json_text(const FeasibilityReport& r) {
  using nlohmann::json;
  json j;
  j["schema_version"] = 1;
  j["inventory"] = r.inventory_file;
  j["job"] = {{"workers", r.job.workers},
              {"gpus_per_worker", r.job.gpus_per_worker},
              {"cpus_per_worker", r.job.cpus_per_worker},
              {"memory_gib_per_worker", r.job.memory_gib_per_worker},
              {"locality", std::string(locality_name(r.job.locality))},
              {"span_numa", r.job.span_numa}};
  j["free_gpus"] = r.free_gpus;
  j["placeable_workers_strict"] = r.placeable_workers_strict;
  j["placeable_workers_relaxed"] = r.placeable_workers_relaxed;
  j["job_runnable_strict"] = r.job_runnable_strict;
  j["job_runnable_relaxed"] = r.job_runnable_relaxed;
  j["job_runnable"] = r.job.locality == Locality::kStrict ? r.job_runnable_strict : r.job_runnable_relaxed;
  j["exact"] = r.exact;
  j["method"] = r.exact ? "exact" : "heuristic";
  j["nodes"] = json::array();
  for (const auto& n : r.nodes)
    j["nodes"].push_back({{"name", n.name},
                          {"free_gpus", n.free_gpus},
                          {"free_cpus", n.free_cpus},
                          {"workers_strict", n.workers_strict},
                          {"workers_relaxed", n.workers_relaxed},
                          {"exact", n.exact},
                          {"reasons", n.reasons},
                          {"notes", n.notes}});
  j["notes"] = r.notes;
  stamp_evidence(j);
  return j.dump(2);
}

}  // namespace placebench::harness::decisions
