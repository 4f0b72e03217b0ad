// This process's cgroup CPU and memory limits (see sysmetrics/sysmetrics_context.h). The tightest limit on
// the way from the process's cgroup up to the mount root counts: in Kubernetes the pod's cgroup can
// limit more than the container's. cgroup v1 (and the v1/v2 hybrid) is read before v2, since a
// controller bound to a v1 hierarchy is not available in the unified one.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "placebench/hostpipe/sysmetrics/proc_readers.h"
#include "placebench/hostpipe/sysmetrics/sysmetrics_context.h"

namespace placebench::hostpipe::sysmetrics {

namespace {

namespace fs = std::filesystem;

// One /proc/self/cgroup line: "hierarchy-id:controller,list:/path" ("0::/path" for v2).
struct CgroupLine {
  std::vector<std::string> controllers;
  std::string joined_controllers;
  std::string path;
};

std::vector<CgroupLine> parse_proc_cgroup(const std::string& text) {
  std::vector<CgroupLine> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::size_t a = line.find(':');
    std::size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    CgroupLine l;
    l.joined_controllers = line.substr(a + 1, b - a - 1);
    l.path = line.substr(b + 1);
    std::istringstream list(l.joined_controllers);
    for (std::string c; std::getline(list, c, ',');)
      if (!c.empty()) l.controllers.push_back(c);
    lines.push_back(std::move(l));
  }
  return lines;
}

struct Location {
  std::string mount;  // the hierarchy's root directory
  std::string dir;    // this process's cgroup in it
  int version = 0;
};

std::string join_path(const std::string& mount, const std::string& cgroup_path) {
  std::string dir = mount;
  if (cgroup_path != "/") dir += cgroup_path;
  while (dir.size() > mount.size() && dir.back() == '/') dir.pop_back();
  // Inside a container without a cgroup namespace the path names a directory that is not mounted:
  // the mount root is then this process's cgroup.
  return fs::is_directory(dir) ? dir : mount;
}

std::optional<Location> locate(const std::vector<CgroupLine>& lines, const std::string& cgroup_root,
                               const std::string& controller) {
  for (const CgroupLine& l : lines) {
    if (std::find(l.controllers.begin(), l.controllers.end(), controller) == l.controllers.end()) continue;
    for (const std::string& name : {controller, l.joined_controllers}) {
      std::string mount = cgroup_root + "/" + name;
      if (fs::is_directory(mount)) return Location{mount, join_path(mount, l.path), 1};
    }
  }
  if (!fs::exists(cgroup_root + "/cgroup.controllers")) return std::nullopt;
  for (const CgroupLine& l : lines)
    if (l.joined_controllers.empty()) return Location{cgroup_root, join_path(cgroup_root, l.path), 2};
  return std::nullopt;
}

// Calls visit(dir) from the process's cgroup up to the mount root, both included.
template <typename Visit>
void walk_up(const Location& loc, Visit visit) {
  std::string dir = loc.dir;
  for (;;) {
    visit(dir);
    if (dir.size() <= loc.mount.size()) return;
    dir.resize(dir.rfind('/'));
  }
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::optional<std::string> read_value(const std::string& path) {
  std::optional<std::string> text = read_text_file(path);
  if (!text) return std::nullopt;
  return trimmed(*text);
}

// Quota and period in microseconds, or nullopt when this level sets no limit.
std::optional<std::pair<double, double>> cpu_quota(const Location& loc, const std::string& dir, std::string& raw) {
  if (loc.version == 2) {
    std::optional<std::string> max = read_value(dir + "/cpu.max");  // "max 100000" | "200000 100000"
    if (!max) return std::nullopt;
    std::istringstream in(*max);
    std::string quota;
    double period = 0;
    in >> quota >> period;
    std::optional<std::uint64_t> quota_us = parse_u64(quota);
    if (!quota_us || period <= 0) return std::nullopt;  // "max": no limit at this level
    raw = *max;
    return std::pair{static_cast<double>(*quota_us), period};
  }
  std::optional<std::uint64_t> period;
  std::optional<std::string> quota = read_value(dir + "/cpu.cfs_quota_us");  // -1: no limit
  if (auto p = read_value(dir + "/cpu.cfs_period_us")) period = parse_u64(*p);
  std::optional<std::uint64_t> quota_us = quota && !quota->empty() && (*quota)[0] != '-' ? parse_u64(*quota) : std::nullopt;
  if (!quota_us || !period || *period == 0) return std::nullopt;
  raw = *quota + " " + std::to_string(*period);
  return std::pair{static_cast<double>(*quota_us), static_cast<double>(*period)};
}

std::optional<std::uint64_t> memory_limit(const Location& loc, const std::string& dir) {
  std::optional<std::string> value = read_value(dir + (loc.version == 2 ? "/memory.max" : "/memory.limit_in_bytes"));
  if (!value || *value == "max") return std::nullopt;
  std::optional<std::uint64_t> bytes = parse_u64(*value);
  // v1 writes "no limit" as the largest page-aligned counter (0x7FFFFFFFFFFFF000).
  constexpr std::uint64_t kV1Unlimited = std::uint64_t{1} << 62;
  if (!bytes || *bytes >= kV1Unlimited) return std::nullopt;
  return bytes;
}

// The tightest CPU quota on the way up from the process's cgroup.
void read_cpu_limit(const Location& cpu, CgroupLimits& limits) {
  limits.version = cpu.version;
  walk_up(cpu, [&](const std::string& dir) {
    std::string raw;
    auto q = cpu_quota(cpu, dir, raw);
    if (!q) return;
    double cpus = q->first / q->second;
    if (!limits.cpu_limit_cpus || cpus < *limits.cpu_limit_cpus) {
      limits.cpu_limit_cpus = cpus;
      limits.cpu_max = raw;
      limits.cpu_path = dir;
    }
  });
}

// The tightest memory limit on the way up.
void read_memory_limit(const Location& mem, CgroupLimits& limits) {
  if (limits.version == 0 || mem.version == 1) limits.version = mem.version;
  walk_up(mem, [&](const std::string& dir) {
    auto bytes = memory_limit(mem, dir);
    if (bytes && (!limits.memory_max_bytes || *bytes < *limits.memory_max_bytes)) {
      limits.memory_max_bytes = bytes;
      limits.memory_path = dir;
    }
  });
}

// The effective CPUs and memory nodes of the nearest level that has them.
void read_cpuset(const Location& cpuset, CgroupLimits& limits) {
  if (limits.version == 0 || cpuset.version == 1) limits.version = cpuset.version;
  const char* file = cpuset.version == 2 ? "/cpuset.cpus.effective" : "/cpuset.effective_cpus";
  const char* mems_file = cpuset.version == 2 ? "/cpuset.mems.effective" : "/cpuset.effective_mems";
  walk_up(cpuset, [&](const std::string& dir) {  // the nearest level that has the file
    if (!limits.cpuset_cpus_effective.empty()) return;
    if (auto cpus = read_value(dir + file)) {
      limits.cpuset_cpus_effective = *cpus;
      limits.cpuset_path = dir;
    }
  });
  walk_up(cpuset, [&](const std::string& dir) {
    if (limits.cpuset_mems_effective.empty())
      if (auto mems = read_value(dir + mems_file)) limits.cpuset_mems_effective = *mems;
  });
}

}  // namespace

CgroupLimits read_cgroup_limits(const std::string& proc_root, const std::string& sys_root) {
  CgroupLimits limits;
  std::optional<std::string> text = read_text_file(proc_root + "/self/cgroup");
  if (!text) {
    limits.detail = proc_root + "/self/cgroup is unreadable";
    return limits;
  }
  std::vector<CgroupLine> lines = parse_proc_cgroup(*text);
  const std::string root = sys_root + "/fs/cgroup";
  std::vector<std::string> missing;
  if (std::optional<Location> cpu = locate(lines, root, "cpu")) read_cpu_limit(*cpu, limits);
  else missing.push_back("cpu");
  if (std::optional<Location> mem = locate(lines, root, "memory")) read_memory_limit(*mem, limits);
  else missing.push_back("memory");
  if (std::optional<Location> cpuset = locate(lines, root, "cpuset")) read_cpuset(*cpuset, limits);
  else missing.push_back("cpuset");
  if (limits.version == 0 && fs::exists(root + "/cgroup.controllers")) limits.version = 2;
  if (!missing.empty()) {
    limits.detail = "no cgroup hierarchy found under " + root + " for:";
    for (const std::string& m : missing) limits.detail += " " + m;
  }
  return limits;
}

}  // namespace placebench::hostpipe::sysmetrics
