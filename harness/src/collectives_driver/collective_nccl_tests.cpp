// nccl-tests' -J layout of a collective result (see collective_nccl_tests.h). nccl-tests writes its
// booleans as the strings "true"/"false", the root as a "%6i" string and a missing mode as null:
// kept so, as its readers expect.
#include "placebench/harness/collectives_driver/collective_nccl_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <tuple>

namespace placebench::harness {

using namespace placebench::collectives;
using ordered = nlohmann::ordered_json;

namespace {

constexpr int kNcclTestsJsonVersion = 3;  // nccl-tests' JSON_FILE_VERSION this layout follows
constexpr int kLayoutSchemaVersion = 1;   // placebench's version of this file (its own additions)

std::string json_bool(bool b) { return b ? "true" : "false"; }

ordered mode_body(const CollectiveRow* r) {
  if (!r || !r->unsupported.empty()) return nullptr;
  return {{"time", r->time_us},
          {"alg_bw", r->algbw_gbps},
          {"bus_bw", r->busbw_gbps},
          {"nwrong", r->wrong >= 0 ? ordered(static_cast<double>(r->wrong)) : ordered(nullptr)}};
}

// The sweep as nccl-tests' config names it: a constant factor, else a constant step in bytes.
void add_step(ordered& config, const std::vector<std::uint64_t>& sizes) {
  bool factor = sizes.size() >= 2 && sizes[0] > 0, step = sizes.size() >= 2;
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    factor = factor && sizes[i] % sizes[i - 1] == 0 && sizes[i] / sizes[i - 1] == sizes[1] / sizes[0];
    step = step && sizes[i] - sizes[i - 1] == sizes[1] - sizes[0];
  }
  if (factor)
    config["step_factor"] = sizes[1] / sizes[0];
  else
    config["step_bytes"] = step ? sizes[1] - sizes[0] : 0;
}

ordered device_entry(const nlohmann::json& rank) {
  const nlohmann::json& dev = rank.at("device");
  bool gpu = dev.contains("gpu");
  return {{"rank", rank.at("rank")},
          {"group", 0},
          {"pid", rank.value("pid", 0)},
          {"hostname", rank.value("host", "")},
          {"device", gpu ? dev.at("gpu").get<int>() : -1},
          {"device_hex", dev.value("pci_bus_id", "")},
          {"device_info", gpu ? fmt::format("GPU {}", dev.at("gpu").get<int>())
                              : fmt::format("host, NUMA node {}", dev.at("device_numa").get<int>())}};
}

}  // namespace

std::string nccl_tests_time_now() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &utc);
  return buf;
}

std::string render_nccl_tests_json(const CollectiveReport& rep, const NcclTestsRunInfo& info) {
  const CollectiveBenchConfig& cfg = rep.config;
  ordered doc{{"version", kNcclTestsJsonVersion}, {"start_time", info.start_time}, {"args", info.args},
              {"env", info.env},                  {"nccl_version", info.nccl_version}};
  std::uint64_t lo = 0, hi = 0;
  for (std::uint64_t s : cfg.sizes) {
    lo = lo ? std::min(lo, s) : s;
    hi = std::max(hi, s);
  }
  ordered config{{"nthreads", 1}, {"ngpus", 1}, {"minimum_bytes", lo}, {"maximum_bytes", hi}};
  add_step(config, cfg.sizes);
  ordered devices = ordered::array();
  for (const auto& r : rep.ranks) devices.push_back(device_entry(r));
  config.update({{"warmup_iters", cfg.warmup_iters},
                 {"iterations", cfg.iters},
                 {"aggregated_iterations", 1},
                 {"validation", cfg.check ? 1 : 0},
                 {"graph", 0},
                 {"blocking_collectives", json_bool(false)},
                 {"per_iter_timing", json_bool(false)},
                 {"per_iter_skip", 0},
                 {"parallel_init", json_bool(false)},
                 {"devices", devices}});
  doc["config"] = config;

  // One result per (op, type, size) in the order first met; out-of-place and in-place side by side.
  using Key = std::tuple<int, int, std::uint64_t>;
  std::vector<Key> order;
  std::map<Key, std::pair<const CollectiveRow*, const CollectiveRow*>> modes;
  for (const CollectiveRow& r : rep.result.rows) {
    Key k{static_cast<int>(r.op), static_cast<int>(r.type), r.size};
    auto [it, fresh] = modes.try_emplace(k, nullptr, nullptr);
    if (fresh) order.push_back(k);
    (r.in_place ? it->second.second : it->second.first) = &r;
  }
  ordered results = ordered::array();
  for (const Key& k : order) {
    auto [oop, ip] = modes[k];
    const CollectiveRow& any = oop ? *oop : *ip;
    if (mode_body(oop).is_null() && mode_body(ip).is_null()) continue;  // not run at all: nccl-tests has no such row
    results.push_back({{"size", any.size},
                       {"count", any.count},
                       {"type", type_name(any.type)},
                       {"redop", collective_reduces(any.op) ? redop_name(any.redop) : "none"},
                       {"root", fmt::format("{:6}", any.root)},
                       {"out_of_place", mode_body(oop)},
                       {"in_place", mode_body(ip)},
                       {"actual_iterations", cfg.iters},
                       {"experiment_name", ""}});
  }
  doc["results"] = results;
  doc["out_of_bounds"] = {{"count", rep.result.wrong_total}, {"okay", json_bool(rep.result.wrong_total == 0)}};
  doc["average_bus_bandwidth"] = {{"bandwidth", average_bus_bandwidth(rep.result)}, {"okay", "unchecked"}};
  doc["errors"] = ordered::array();
  doc["end_time"] = info.end_time;
  nlohmann::json stamps{{"schema_version", kLayoutSchemaVersion}};
  stamp_evidence(stamps, rep.evidence);
  for (auto& [key, value] : stamps.items()) doc[key] = value;
  return doc.dump(2) + "\n";
}

}  // namespace placebench::harness
