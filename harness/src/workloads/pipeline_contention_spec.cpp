// The pipeline's text inputs (see pipeline.h): --image WxH, and --contention SPEC, items joined with '+':
//   stream:NODE:THREADS[:SIZE][@CPUS]   THREADS threads streaming the STREAM triad over SIZE (default
//                                       64M) bound to NUMA node NODE, each bound to CPUS when given
//   spin:CPUS                           one spinning thread bound to each CPU of the cpulist
// parsed without the machine (a config file is checked on any host), then checked against it.
#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <regex>

#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"
#include "placebench/harness/workloads/pipeline.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/process_limits.h"

namespace placebench::harness {
namespace {

// Per item, before the machine is known: enough for any node, and the task list stays small.
constexpr int kMaxThreadsPerItem = 4096;
// bind_current_thread takes a cpu_set_t: higher CPU ids cannot be bound.
constexpr int kMaxCpuId = CPU_SETSIZE - 1;

[[noreturn]] void refuse(const std::string& where, const std::string& problem) {
  throw PipelineInputError(PipelineKey::kContention, where, problem);
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    std::size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

int parse_int(const std::string& text, const std::string& what, const std::string& where, const std::string& item) {
  std::size_t used = 0;
  int v = -1;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || v < 0) refuse(where, fmt::format("'{}' in '{}' is not a valid {}", text, item, what));
  return v;
}

std::vector<int> parse_cpus(const std::string& text, const std::string& where, const std::string& item) {
  // Each id checked first: a range such as 0-2000000000 would otherwise expand to billions of CPUs.
  static const std::regex number("[0-9]+");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it)
    if (it->str().size() > 9 || std::stoi(it->str()) > kMaxCpuId)
      refuse(where, fmt::format("'{}' in '{}' names CPU {}; CPU ids above {} cannot be bound", text, item, it->str(), kMaxCpuId));
  try {
    auto cpus = hostpipe::parse_cpulist(text);
    if (!cpus.empty()) return cpus;
  } catch (const std::exception&) {
  }
  refuse(where, fmt::format("'{}' in '{}' is not a CPU list (e.g. 2-3,6)", text, item));
}

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

std::vector<hostpipe::ContentionTask> parse_contention_spec(const std::string& spec, const std::string& where) {
  using Task = hostpipe::ContentionTask;
  const std::string forms = "stream:NODE:THREADS[:SIZE][@CPUS] or spin:CPUS, joined with '+'";
  std::vector<Task> tasks;
  if (spec.empty()) return tasks;
  for (const std::string& item : split(spec, '+')) {
    std::string body = item, cpus;
    if (auto at = item.find('@'); at != std::string::npos) {
      body = item.substr(0, at);
      cpus = item.substr(at + 1);
    }
    auto f = split(body, ':');
    if (f[0] == "stream" && (f.size() == 3 || f.size() == 4)) {
      Task t;
      t.kind = Task::Kind::kStream;
      t.mem_nodes = {parse_int(f[1], "NUMA node", where, item)};
      int threads = parse_int(f[2], "thread count", where, item);
      if (threads < 1) refuse(where, fmt::format("'{}' needs at least one thread", item));
      if (threads > kMaxThreadsPerItem)
        refuse(where, fmt::format("'{}' asks for {} threads; at most {} per item (and {} per CPU this process may use)",
                                  item, threads, kMaxThreadsPerItem, kMaxContentionThreadsPerCpu));
      if (f.size() == 4) {
        try {
          t.bytes = parse_size(f[3], where);
        } catch (const InputError&) {
          refuse(where, fmt::format("'{}' in '{}' is not a size (e.g. 64M, 1G)", f[3], item));
        }
      }
      if (!cpus.empty()) t.cpus = parse_cpus(cpus, where, item);
      for (int i = 0; i < threads; ++i) tasks.push_back(t);
    } else if (f[0] == "spin" && f.size() == 2 && cpus.empty()) {
      for (int cpu : parse_cpus(f[1], where, item)) {
        Task t;
        t.kind = Task::Kind::kSpin;
        t.cpus = {cpu};
        tasks.push_back(t);
      }
    } else {
      refuse(where, fmt::format("'{}' is not a contention item; accepted: {}", item, forms));
    }
  }
  return tasks;
}

void check_contention(const Inventory& inv, const std::vector<hostpipe::ContentionTask>& tasks, PipelineKeyNames names) {
  if (tasks.empty()) return;
  const std::string where = names(PipelineKey::kContention);
  std::vector<int> cpus = inv.allowed_cpus.empty() ? hostpipe::current_thread_affinity() : hostpipe::parse_cpulist(inv.allowed_cpus);
  std::size_t most = static_cast<std::size_t>(kMaxContentionThreadsPerCpu) * cpus.size();
  if (tasks.size() > most)
    refuse(where, fmt::format("{} background threads are more than {} per CPU this process may use ({} CPUs: {}); use at "
                              "most {} threads",
                              tasks.size(), kMaxContentionThreadsPerCpu, cpus.size(), hostpipe::format_cpulist(cpus), most));
  std::vector<int> nodes, mems = inv.allowed_mems.empty() ? std::vector<int>{} : hostpipe::parse_cpulist(inv.allowed_mems);
  for (const auto& n : inv.numa_nodes) nodes.push_back(static_cast<int>(n.os_index));
  for (const auto& t : tasks) {
    for (int n : t.mem_nodes) {
      if (!contains(nodes, n))
        refuse(where, fmt::format("NUMA node {} does not exist on this machine; use one of its nodes ({})", n,
                                  hostpipe::format_cpulist(nodes)));
      if (!mems.empty() && !contains(mems, n))
        refuse(where, fmt::format("NUMA node {} is not one this process may allocate on; use one of {}", n,
                                  hostpipe::format_cpulist(mems)));
    }
    for (int cpu : t.cpus)
      if (!contains(cpus, cpu))
        refuse(where, fmt::format("CPU {} does not exist or is not one this process may use; use CPUs of {}", cpu,
                                  hostpipe::format_cpulist(cpus)));
  }
}

std::pair<int, int> parse_image_size(const std::string& text, PipelineKeyNames names) {
  static const std::regex re("([0-9]{1,9})x([0-9]{1,9})");
  std::smatch m;
  if (std::regex_match(text, m, re)) {
    int w = std::stoi(m[1].str()), h = std::stoi(m[2].str());
    if (w >= 1 && h >= 1 && w <= kMaxImageSide && h <= kMaxImageSide) return {w, h};
    throw PipelineInputError(PipelineKey::kImage, names(PipelineKey::kImage),
                             fmt::format("'{}': width and height must be 1 to {}", text, kMaxImageSide));
  }
  throw PipelineInputError(PipelineKey::kImage, names(PipelineKey::kImage),
                           fmt::format("'{}' is not WIDTHxHEIGHT (e.g. 224x224)", text));
}

}  // namespace placebench::harness
