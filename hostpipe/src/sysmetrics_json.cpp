// JSON of sampler summaries and run context extras (see sysmetrics/sysmetrics_json.h).
#include "placebench/hostpipe/sysmetrics/sysmetrics_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "placebench/hostpipe/cpulist.h"

namespace placebench::hostpipe::sysmetrics {

namespace {

using nlohmann::json;

// Rounded to `decimals` (2 for percentages, 0 for rates): floats widened to double would otherwise
// print as 12.300000190734863. Dividing by the power of ten gives the double nearest the decimal.
// NaN is null.
json rounded(double v, int decimals) {
  if (!std::isfinite(v)) return nullptr;
  double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}
json pct(double v) { return rounded(v, 2); }
json whole(double v) { return rounded(v, 0); }

json stat_json(const Stat& s, json (*round)(double)) {
  return {{"mean", round(s.mean)}, {"min", round(s.min)}, {"max", round(s.max)}};
}

template <typename F>
json column(const std::vector<Sample>& series, F value) {
  json out = json::array();
  for (const Sample& s : series) out.push_back(value(s));
  return out;
}

template <typename F>
json rows(const std::vector<Sample>& series, F values, json (*round)(double)) {
  json out = json::array();
  for (const Sample& s : series) {
    json row = json::array();
    for (float v : values(s)) row.push_back(round(v));
    out.push_back(std::move(row));
  }
  return out;
}

json series_json(const SamplerSummary& summary) {
  const std::vector<Sample>& x = summary.series;
  json cpus = json::array(), nics = json::array();
  for (const CpuUtilSummary& c : summary.per_cpu) cpus.push_back(c.cpu);
  for (const NicSummary& n : summary.nics) nics.push_back(n.name);
  return {
      {"cpus", cpus},
      {"nics", nics},
      {"t_s", column(x, [](const Sample& s) { return rounded(s.t_s, 4); })},
      {"dt_s", column(x, [](const Sample& s) { return rounded(s.dt_s, 4); })},
      {"cpu_util_pct", rows(x, [](const Sample& s) -> const std::vector<float>& { return s.cpu_util_pct; }, pct)},
      {"total_cpu_util_pct", column(x, [](const Sample& s) { return pct(s.total_cpu_util_pct); })},
      {"mem_some_avg10_pct", column(x, [](const Sample& s) { return pct(s.mem_some_avg10_pct); })},
      {"mem_some_stall_us", column(x, [](const Sample& s) { return whole(s.mem_some_stall_us); })},
      {"rss_bytes", column(x, [](const Sample& s) { return s.rss_bytes; })},
      {"major_faults", column(x, [](const Sample& s) { return s.major_faults; })},
      {"nic_rx_bytes_per_s", rows(x, [](const Sample& s) -> const std::vector<float>& { return s.nic_rx_bytes_per_s; }, whole)},
      {"nic_tx_bytes_per_s", rows(x, [](const Sample& s) -> const std::vector<float>& { return s.nic_tx_bytes_per_s; }, whole)},
      {"gpu_util_pct", column(x, [](const Sample& s) { return pct(s.gpu_util_pct); })},
      {"gpu_mem_used_bytes", column(x, [](const Sample& s) { return whole(s.gpu_mem_used_bytes); })},
      {"gpu_sm_clock_mhz", column(x, [](const Sample& s) { return whole(s.gpu_sm_clock_mhz); })},
      {"gpu_throttle_reasons", column(x, [](const Sample& s) { return s.gpu_throttle_reasons; })},
  };
}

json gpu_json(const GpuSummary& g) {
  json out = {{"available", g.available}};
  if (!g.available) {
    out["reason"] = g.unavailable_reason;
    return out;
  }
  json reasons = json::array(), fractions = json::object();
  for (const ThrottleReasonSeen& r : g.throttle_reasons) {
    reasons.push_back(r.name);
    fractions[r.name] = rounded(r.sample_fraction, 4);
  }
  out.update({{"index", g.index},
              {"pci_bus_id", g.pci_bus_id.empty() ? json(nullptr) : json(g.pci_bus_id)},
              {"name", g.name},
              {"util_pct", stat_json(g.util_pct, pct)},
              {"mem_used_max_bytes", whole(g.mem_used_max_bytes)},
              {"sm_clock_mhz", stat_json(g.sm_clock_mhz, whole)},
              {"throttle_reasons", reasons},
              {"throttle_reason_sample_fraction", fractions}});
  return out;
}

}  // namespace

json sampler_summary_to_json(const SamplerSummary& s, bool include_series) {
  json per_cpu = json::array(), nics = json::array();
  for (const CpuUtilSummary& c : s.per_cpu) per_cpu.push_back({{"cpu", c.cpu}, {"util_pct", stat_json(c.util_pct, pct)}});
  for (const NicSummary& n : s.nics)
    nics.push_back({{"name", n.name},
                    {"rx_bytes_per_s", stat_json(n.rx_bytes_per_s, whole)},
                    {"tx_bytes_per_s", stat_json(n.tx_bytes_per_s, whole)}});
  const MemoryPressureSummary& p = s.memory_pressure;
  json pressure = {{"available", p.available}};
  if (p.available)
    pressure.update({{"some_avg10_pct", stat_json(p.some_avg10_pct, pct)},
                     {"some_stall_pct", stat_json(p.some_stall_pct, pct)},
                     {"some_stall_us", whole(p.some_stall_us)}});
  else
    pressure["reason"] = p.unavailable_reason;

  json out = {
      {"n_samples", s.n_samples},
      {"interval_ms", s.interval.count()},
      {"duration_s", rounded(s.duration_s, 4)},
      {"sampler", {{"cpus", format_cpulist(s.sampler_thread_cpus)},
                   {"bind_error", s.sampler_bind_error.empty() ? json(nullptr) : json(s.sampler_bind_error)}}},
      {"cpu", {{"total_util_pct", stat_json(s.total_cpu_util_pct, pct)},
               {"arm_util_pct", stat_json(s.arm_cpu_util_pct, pct)},
               {"per_cpu", per_cpu}}},
      {"memory", {{"rss_max_bytes", s.rss_max_bytes}, {"major_faults", s.major_faults}, {"pressure", pressure}}},
      {"nics", nics},
      {"gpu", gpu_json(s.gpu)},
      {"errors", s.errors},
  };
  if (include_series) out["series"] = series_json(s);
  return out;
}

json run_context_extras_to_json(const RunContextExtras& x) {
  const KubeletPolicies& k = x.kubelet;
  json kubelet = {{"path", k.path}, {"status", k.status}};
  if (k.status == "read")
    kubelet.update({{"cpu_manager_policy", k.cpu_manager_policy},
                    {"topology_manager_policy", k.topology_manager_policy},
                    {"topology_manager_scope", k.topology_manager_scope},
                    {"memory_manager_policy", k.memory_manager_policy},
                    {"defaulted", k.defaulted}});
  else
    kubelet["detail"] = k.detail;

  const CgroupLimits& c = x.cgroup;
  auto optional_string = [](const std::string& v) { return v.empty() ? json(nullptr) : json(v); };
  json cgroup = {
      {"version", c.version},
      {"cpu_limit_cpus", c.cpu_limit_cpus ? rounded(*c.cpu_limit_cpus, 4) : json(nullptr)},
      {"cpu_max", optional_string(c.cpu_max)},
      {"cpu_path", optional_string(c.cpu_path)},
      {"memory_max_bytes", c.memory_max_bytes ? json(*c.memory_max_bytes) : json(nullptr)},
      {"memory_path", optional_string(c.memory_path)},
      {"cpuset_cpus_effective", optional_string(c.cpuset_cpus_effective)},
      {"detail", optional_string(c.detail)},
  };

  json governors = json::object();
  for (const auto& [governor, cpus] : x.cpu_frequency.governors) governors[governor] = format_cpulist(cpus);
  json cpu_frequency = {
      {"governors", governors},
      {"driver", optional_string(x.cpu_frequency.driver)},
      {"turbo_enabled", x.cpu_frequency.turbo_enabled ? json(*x.cpu_frequency.turbo_enabled) : json(nullptr)},
  };

  return {
      {"kubelet", kubelet},
      {"cgroup", cgroup},
      {"cpu_frequency", cpu_frequency},
      {"swap_used_bytes", x.swap_used_bytes ? json(*x.swap_used_bytes) : json(nullptr)},
      {"debug_build", x.debug_build},
      {"warnings", x.warnings},
  };
}

}  // namespace placebench::hostpipe::sysmetrics
