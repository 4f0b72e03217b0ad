// Run context extras: kubelet policies, CPU frequency, swap, and the warnings that say when the
// machine is not fit to measure (see sysmetrics/sysmetrics_context.h; cgroup limits: sysmetrics_cgroup.cpp).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/input_file.h"
#include "placebench/hostpipe/sysmetrics/proc_readers.h"
#include "placebench/hostpipe/sysmetrics/sysmetrics_context.h"

namespace placebench::hostpipe::sysmetrics {

namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMaxKubeletConfigBytes = 4ull << 20;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Sets `out` from `key`, or the kubelet's default when the key is absent. False when the value is not
// a scalar (then `why` says so).
bool policy(const YAML::Node& root, const char* key, const char* kubelet_default, KubeletPolicies& k,
            std::string& out, std::string& why) {
  YAML::Node value = root[key];
  if (!value || value.IsNull()) {
    out = kubelet_default;
    k.defaulted.emplace_back(key);
    return true;
  }
  if (!value.IsScalar()) {
    why = std::string("key ") + key + " is not a string (line " + std::to_string(value.Mark().line + 1) + ")";
    return false;
  }
  out = value.Scalar();
  return true;
}

}  // namespace

KubeletPolicies read_kubelet_policies(const std::string& path) {
  KubeletPolicies k;
  k.path = path;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    k.status = "absent";
    k.detail = path + ": no such file (not a Kubernetes node, or the kubelet's directory is not mounted)";
    return k;
  }
  // Bounded like every input (a FIFO or device there must not hang or exhaust the run's start).
  FileText file = read_regular_file(path, kMaxKubeletConfigBytes);
  if (!file.ok) {
    k.status = "unreadable";
    k.detail = path + ": " + file.problem + " (run as root to record the policies)";
    return k;
  }
  std::string why;
  try {
    YAML::Node root = YAML::Load(file.text);
    std::optional<YamlProblem> problem = yaml_document_problem(root);
    if (problem) {
      why = "line " + std::to_string(problem->line) + ": " + (problem->path.empty() ? "" : problem->path + ": ") + problem->what;
    } else if (root.IsDefined() && !root.IsNull() && !root.IsMap()) {
      why = "the top level is not a mapping of kubelet settings";
    } else if (policy(root, "cpuManagerPolicy", "none", k, k.cpu_manager_policy, why) &&
               policy(root, "topologyManagerPolicy", "none", k, k.topology_manager_policy, why) &&
               policy(root, "topologyManagerScope", "container", k, k.topology_manager_scope, why) &&
               policy(root, "memoryManagerPolicy", "None", k, k.memory_manager_policy, why)) {
      k.status = "read";
      return k;
    }
  } catch (const YAML::Exception& e) {
    why = first_line(e.what());  // yaml-cpp's message names the line and column
  }
  k = KubeletPolicies{};
  k.path = path;
  k.status = "malformed";
  k.detail = path + ": " + why;
  return k;
}

CpuFrequency read_cpu_frequency(const std::string& sys_root) {
  CpuFrequency f;
  const std::string cpu_dir = sys_root + "/devices/system/cpu";
  std::vector<int> ids;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cpu_dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 3 && name.compare(0, 3, "cpu") == 0 &&
        name.find_first_not_of("0123456789", 3) == std::string::npos)
      ids.push_back(std::stoi(name.substr(3)));
  }
  std::sort(ids.begin(), ids.end());
  for (int id : ids) {
    std::string dir = cpu_dir + "/cpu" + std::to_string(id) + "/cpufreq/";
    std::optional<std::string> governor = read_text_file(dir + "scaling_governor");
    if (!governor) continue;
    f.governors[first_line(*governor)].push_back(id);
    if (f.driver.empty())
      if (std::optional<std::string> driver = read_text_file(dir + "scaling_driver")) f.driver = first_line(*driver);
  }
  // intel_pstate says no_turbo=1 when turbo is off; acpi-cpufreq and amd-pstate say boost=1 when on.
  if (std::optional<std::string> no_turbo = read_text_file(cpu_dir + "/intel_pstate/no_turbo")) {
    if (auto v = parse_u64(*no_turbo)) f.turbo_enabled = *v == 0;
  } else if (std::optional<std::string> boost = read_text_file(cpu_dir + "/cpufreq/boost")) {
    if (auto v = parse_u64(*boost)) f.turbo_enabled = *v != 0;
  }
  return f;
}

std::optional<std::uint64_t> read_swap_used_bytes(const std::string& proc_root) {
  std::optional<std::string> text = read_text_file(proc_root + "/meminfo");
  if (!text) return std::nullopt;
  std::optional<std::uint64_t> total_kib, free_kib;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("SwapTotal:", 0) == 0) total_kib = parse_u64(std::string_view(line).substr(10));
    if (line.rfind("SwapFree:", 0) == 0) free_kib = parse_u64(std::string_view(line).substr(9));
  }
  if (!total_kib || !free_kib) return std::nullopt;
  return (*total_kib >= *free_kib ? *total_kib - *free_kib : 0) * 1024;
}

RunContextExtras collect_run_context_extras(const std::string& proc_root, const std::string& sys_root,
                                            const std::string& kubelet_config_path) {
  RunContextExtras x;
  x.kubelet = read_kubelet_policies(kubelet_config_path);
  x.cgroup = read_cgroup_limits(proc_root, sys_root);
  x.cpu_frequency = read_cpu_frequency(sys_root);
  x.swap_used_bytes = read_swap_used_bytes(proc_root);
#ifndef NDEBUG
  x.debug_build = true;
#endif

  std::vector<std::string>& w = x.warnings;
  for (const auto& [governor, cpus] : x.cpu_frequency.governors)
    if (governor != "performance")
      w.push_back("CPU frequency governor is '" + governor + "' on CPUs " + format_cpulist(cpus) +
                  ", not 'performance': clock speed varies with load; set it with "
                  "`cpupower frequency-set --governor performance`");
  if (x.cpu_frequency.turbo_enabled.value_or(false))
    w.push_back("CPU turbo boost is enabled: clock speed depends on load and temperature, so trials vary "
                "more; disable it for stable numbers (intel_pstate/no_turbo=1 or cpufreq/boost=0)");
  if (x.debug_build)
    w.push_back("placebench was built without NDEBUG (a debug build): timings are not representative; "
                "build with -DCMAKE_BUILD_TYPE=Release or RelWithDebInfo");
  if (x.swap_used_bytes.value_or(0) > 0)
    w.push_back("swap is in use (" + std::to_string(*x.swap_used_bytes >> 20) +
                " MiB): paging can stall trials; free memory or run `swapoff -a` before measuring");
  if (x.kubelet.status == "malformed")
    w.push_back("kubelet config is malformed, its policies are not recorded: " + x.kubelet.detail);
  if (x.cgroup.cpu_limit_cpus) {
    char cpus[32];
    std::snprintf(cpus, sizeof cpus, "%.2f", *x.cgroup.cpu_limit_cpus);
    w.push_back(std::string("this process's cgroup has a CPU quota of ") + cpus + " CPUs (" + x.cgroup.cpu_path +
                "): CFS throttling stretches step times when more threads than that are busy");
  }
  return x;
}

}  // namespace placebench::hostpipe::sysmetrics
