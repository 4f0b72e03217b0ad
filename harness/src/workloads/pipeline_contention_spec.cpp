// --contention SPEC (see pipeline.h): items joined with '+':
//   stream:NODE:THREADS[:SIZE][@CPUS]   THREADS threads streaming the STREAM triad over SIZE (default
//                                       64M) bound to NUMA node NODE, each bound to CPUS when given
//   spin:CPUS                           one spinning thread bound to each CPU of the cpulist
#include <fmt/format.h>

#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"
#include "placebench/harness/workloads/pipeline.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {
namespace {

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
  if (used != text.size() || text.empty() || v < 0)
    throw InputError(fmt::format("{}: '{}' in '{}' is not a valid {}", where, text, item, what));
  return v;
}

std::vector<int> parse_cpus(const std::string& text, const std::string& where, const std::string& item) {
  try {
    auto cpus = hostpipe::parse_cpulist(text);
    if (!cpus.empty()) return cpus;
  } catch (const std::exception&) {
  }
  throw InputError(fmt::format("{}: '{}' in '{}' is not a CPU list (e.g. 2-3,6)", where, text, item));
}

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
      if (threads < 1) throw InputError(fmt::format("{}: '{}' needs at least one thread", where, item));
      if (f.size() == 4) t.bytes = parse_size(f[3], where);
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
      throw InputError(fmt::format("{}: '{}' is not a contention item; accepted: {}", where, item, forms));
    }
  }
  return tasks;
}

}  // namespace placebench::harness
