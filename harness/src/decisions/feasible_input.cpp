// Reading and validating cluster inventories and job contracts for `placebench feasible` (YAML or JSON;
// yaml-cpp reads both and gives line numbers). Every error names file:line, the key path and the fix.
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <set>

#include "placebench/harness/decisions/feasible.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"
#include "placebench/harness/yaml_check.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness::decisions {
namespace {

const std::set<std::string> kTopKeys = {"nodes", "job"};
const std::set<std::string> kNodeKeys = {"name", "numa", "gpus"};
const std::set<std::string> kNumaKeys = {"id", "gpus", "free_gpus", "cpus", "free_cpus", "memory_gib", "free_memory_gib"};
const std::set<std::string> kGpuKeys = {"index", "numa", "free"};
const std::set<std::string> kJobKeys = {"workers", "gpus_per_worker", "cpus_per_worker", "memory_gib_per_worker",
                                        "locality", "span_numa"};

std::string join(const std::set<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& path, const std::string& what) const {
    throw InputError(fmt::format("{}:{}: {}: {}", file_, at.Mark().line + 1, path, what));
  }

  void check_keys(const YAML::Node& map, const std::string& path, const std::set<std::string>& accepted) const {
    if (!map.IsMap()) fail(map, path, fmt::format("expected a mapping with keys {}", join(accepted)));
    for (const auto& kv : map) {
      std::string key = kv.first.as<std::string>();
      if (!accepted.count(key))
        fail(kv.first, path.empty() ? key : path + "." + key, fmt::format("unknown key; accepted: {}", join(accepted)));
    }
  }

  long long whole(const YAML::Node& v, const std::string& path, long long min) const {
    long long n = 0;
    try {
      if (!v.IsScalar()) throw YAML::Exception(v.Mark(), "");
      n = v.as<long long>();
    } catch (const YAML::Exception&) {
      fail(v, path, fmt::format("expected a whole number >= {}", min));
    }
    if (n < 0) fail(v, path, fmt::format("{} is negative; counts are whole numbers >= {}", n, min));
    if (n < min) fail(v, path, fmt::format("{} is below {}", n, min));
    if (n > 1'000'000'000) fail(v, path, fmt::format("{} is not a plausible count", n));
    return n;
  }

  double real(const YAML::Node& v, const std::string& path) const {
    double x = 0;
    try {
      x = v.as<double>();
    } catch (const YAML::Exception&) {
      fail(v, path, "expected a number >= 0");
    }
    if (!(x >= 0) || !std::isfinite(x)) fail(v, path, fmt::format("{:g} is negative; use a number >= 0", x));
    return x;
  }

  bool boolean(const YAML::Node& v, const std::string& path) const {
    try {
      return v.as<bool>();
    } catch (const YAML::Exception&) {
      fail(v, path, "expected true or false");
    }
  }

  // A CPU count, or a cpulist string ("0-15,32-47"); returns the count and, for a list, the ids.
  int cpus(const YAML::Node& v, const std::string& path, std::optional<std::vector<int>>& ids) const {
    if (v.IsScalar()) {
      long long n;
      if (YAML::convert<long long>::decode(v, n)) return static_cast<int>(whole(v, path, 0));
      // '' would read as an empty cpulist (0 CPUs) and silently make the node unusable.
      if (v.Scalar().find_first_not_of(" \t") == std::string::npos)
        fail(v, path, "empty; give a CPU count (16, or 0 for none) or a cpulist (\"0-15,32-47\")");
      try {
        ids = hostpipe::parse_cpulist(v.Scalar());
        return static_cast<int>(ids->size());
      } catch (const std::exception&) {
      }
    }
    fail(v, path, "expected a CPU count (16) or a cpulist (\"0-15,32-47\")");
  }

  NumaCapacity numa(const YAML::Node& n, const std::string& path, bool gpus_listed_on_node) const {
    check_keys(n, path, kNumaKeys);
    NumaCapacity c;
    if (!n["id"]) fail(n, path, "missing key 'id' (the NUMA node's os index)");
    c.id = static_cast<int>(whole(n["id"], path + ".id", 0));
    if (gpus_listed_on_node)
      for (const char* key : {"gpus", "free_gpus"})
        if (n[key]) fail(n[key], path + "." + key, "the node lists its GPUs under gpus: [{index, numa, free}]; drop this count");
    if (n["gpus"]) c.gpus = static_cast<int>(whole(n["gpus"], path + ".gpus", 0));
    c.free_gpus = n["free_gpus"] ? static_cast<int>(whole(n["free_gpus"], path + ".free_gpus", 0)) : c.gpus;
    if (c.free_gpus > c.gpus)
      fail(n["free_gpus"], path + ".free_gpus", fmt::format("{} free GPUs > {} GPUs; free_gpus can be at most gpus", c.free_gpus, c.gpus));
    if (!n["cpus"] && !n["free_cpus"]) fail(n, path, "missing key 'cpus' (the node's CPU count or cpulist)");
    std::optional<std::vector<int>> all_ids, free_ids;
    if (n["cpus"]) c.cpus = cpus(n["cpus"], path + ".cpus", all_ids);
    c.free_cpus = n["free_cpus"] ? cpus(n["free_cpus"], path + ".free_cpus", free_ids) : c.cpus;
    if (!n["cpus"]) c.cpus = c.free_cpus;
    if (c.free_cpus > c.cpus)
      fail(n["free_cpus"], path + ".free_cpus", fmt::format("{} free CPUs > {} CPUs; free_cpus can be at most cpus", c.free_cpus, c.cpus));
    if (all_ids && free_ids)
      for (int id : *free_ids)
        if (std::find(all_ids->begin(), all_ids->end(), id) == all_ids->end())
          fail(n["free_cpus"], path + ".free_cpus", fmt::format("CPU {} is not in this NUMA node's cpus", id));
    if (n["memory_gib"]) c.memory_gib = real(n["memory_gib"], path + ".memory_gib");
    if (n["free_memory_gib"]) c.free_memory_gib = real(n["free_memory_gib"], path + ".free_memory_gib");
    else c.free_memory_gib = c.memory_gib;
    if (c.memory_gib && c.free_memory_gib && *c.free_memory_gib > *c.memory_gib + 1e-9)
      fail(n["free_memory_gib"], path + ".free_memory_gib",
           fmt::format("{:g} GiB free > {:g} GiB; free_memory_gib can be at most memory_gib", *c.free_memory_gib, *c.memory_gib));
    return c;
  }

  // GPUs listed per node: gpus: [{index: 0, numa: 1, free: true}], each on one of the node's NUMA nodes.
  void gpu_list(const YAML::Node& list, const std::string& path, ClusterNode& node) const {
    if (!list.IsSequence()) fail(list, path, "expected a list of {index, numa, free}");
    std::set<long long> seen;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node g = list[i];
      const std::string gp = fmt::format("{}[{}]", path, i);
      check_keys(g, gp, kGpuKeys);
      long long index = g["index"] ? whole(g["index"], gp + ".index", 0) : static_cast<long long>(i);
      if (!seen.insert(index).second) fail(g, gp + ".index", fmt::format("GPU {} is listed twice", index));
      if (!g["numa"]) fail(g, gp, "missing key 'numa' (the NUMA node the GPU is attached to)");
      long long numa = whole(g["numa"], gp + ".numa", 0);
      auto it = std::find_if(node.numa.begin(), node.numa.end(), [&](const NumaCapacity& c) { return c.id == numa; });
      if (it == node.numa.end()) {
        std::string ids;
        for (const auto& c : node.numa) ids += (ids.empty() ? "" : ", ") + std::to_string(c.id);
        fail(g["numa"], gp + ".numa", fmt::format("GPU {} is on NUMA node {}, which node {} does not have (its NUMA "
                                                  "nodes: {}); fix the GPU's numa or add the node", index, numa, node.name, ids));
      }
      ++it->gpus;
      if (!g["free"] || boolean(g["free"], gp + ".free")) ++it->free_gpus;
    }
  }

  ClusterInventory inventory(const YAML::Node& root) const {
    ClusterInventory inv;
    inv.file = file_;
    const YAML::Node nodes = root["nodes"];
    if (!nodes) fail(root, "nodes", "missing key 'nodes' (a list of {name, numa: [...]})");
    if (!nodes.IsSequence() || nodes.size() == 0) fail(nodes, "nodes", "expected a non-empty list of {name, numa: [...]}");
    std::set<std::string> names;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const YAML::Node n = nodes[i];
      const std::string np = fmt::format("nodes[{}]", i);
      check_keys(n, np, kNodeKeys);
      ClusterNode node;
      if (!n["name"] || !n["name"].IsScalar()) fail(n, np, "missing key 'name'");
      node.name = n["name"].Scalar();
      if (!names.insert(node.name).second) fail(n["name"], np + ".name", fmt::format("node '{}' is listed twice", node.name));
      const YAML::Node numa = n["numa"];
      if (!numa || !numa.IsSequence() || numa.size() == 0)
        fail(numa ? numa : n, np + ".numa", "expected a non-empty list of {id, gpus, free_gpus, cpus, free_cpus, ...}");
      std::set<int> ids;
      for (std::size_t k = 0; k < numa.size(); ++k) {
        const std::string kp = fmt::format("{}.numa[{}]", np, k);
        NumaCapacity c = this->numa(numa[k], kp, static_cast<bool>(n["gpus"]));
        if (!ids.insert(c.id).second) fail(numa[k]["id"], kp + ".id", fmt::format("NUMA node {} is listed twice", c.id));
        node.numa.push_back(c);
      }
      if (n["gpus"]) gpu_list(n["gpus"], np + ".gpus", node);
      inv.nodes.push_back(std::move(node));
    }
    return inv;
  }

  JobContract job(const YAML::Node& j, const std::string& path) const {
    check_keys(j, path, kJobKeys);
    JobContract c;
    auto need = [&](const char* key) {
      if (!j[key]) fail(j, path, fmt::format("missing key '{}'", key));
      return j[key];
    };
    c.workers = static_cast<int>(whole(need("workers"), path + ".workers", 1));
    c.gpus_per_worker = static_cast<int>(whole(need("gpus_per_worker"), path + ".gpus_per_worker", 1));
    c.cpus_per_worker = static_cast<int>(whole(need("cpus_per_worker"), path + ".cpus_per_worker", 0));
    if (j["memory_gib_per_worker"]) c.memory_gib_per_worker = real(j["memory_gib_per_worker"], path + ".memory_gib_per_worker");
    if (const YAML::Node l = j["locality"]) {
      std::string v = l.IsScalar() ? l.Scalar() : "";
      if (v != "strict" && v != "relaxed") fail(l, path + ".locality", fmt::format("'{}': accepted: strict, relaxed", v));
      c.locality = v == "strict" ? Locality::kStrict : Locality::kRelaxed;
    }
    if (j["span_numa"]) c.span_numa = boolean(j["span_numa"], path + ".span_numa");
    return c;
  }

  YAML::Node load(const std::string& text) const {
    YAML::Node root = detail::load_yaml_document(text, file_, "YAML or JSON");
    if (!root.IsMap()) throw InputError(fmt::format("{}:1: expected a mapping with 'nodes' and/or 'job'", file_));
    return root;
  }

 private:
  std::string file_;
};

std::string read_text(const std::string& file, const char* option) {
  return read_input_file(file, fmt::format("give {} a YAML or JSON file", option), kMaxConfigBytes);
}

FeasibilityInput parse_feasibility_root(const Reader& reader, const YAML::Node& root, const std::string& file,
                                        bool job_only) {
  FeasibilityInput input;
  if (job_only) {
    // A job file: {job: {...}} or the contract's keys at the top.
    if (root["job"]) {
      reader.check_keys(root, "", {"job"});
      input.job = reader.job(root["job"], "job");
    } else {
      input.job = reader.job(root, "job");
    }
    input.job_file = file;
    return input;
  }
  reader.check_keys(root, "", kTopKeys);
  input.inventory = reader.inventory(root);
  if (root["job"]) {
    input.job = reader.job(root["job"], "job");
    input.job_file = file;
  }
  return input;
}

}  // namespace

FeasibilityInput parse_feasibility_text(const std::string& text, const std::string& file, bool job_only) {
  Reader reader(file);
  const YAML::Node root = reader.load(text);
  try {
    return parse_feasibility_root(reader, root, file, job_only);
  } catch (const YAML::Exception& e) {
    detail::throw_yaml_input_error(e, file);
  }
}

FeasibilityInput load_feasibility_input(const std::string& inventory_file, const std::string& job_file) {
  FeasibilityInput input = parse_feasibility_text(read_text(inventory_file, "--inventory"), inventory_file);
  if (!job_file.empty()) {
    FeasibilityInput job = parse_feasibility_text(read_text(job_file, "--job"), job_file, true);
    input.job = job.job;
    input.job_file = job_file;
  }
  if (!input.job)
    throw InputError(fmt::format("{}: no job contract; add job: {{workers, gpus_per_worker, cpus_per_worker, "
                                 "memory_gib_per_worker, locality}} to it or give --job FILE", inventory_file));
  return input;
}

}  // namespace placebench::harness::decisions
