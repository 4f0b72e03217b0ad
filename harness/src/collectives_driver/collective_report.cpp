// Table and JSON of `placebench collective` (see collective_report.h).
#include "placebench/harness/collectives_driver/collective_report.h"

#include <fmt/format.h>

#include <set>
#include <string>
#include <vector>

#include "placebench/harness/collectives_driver/pace_report.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {

using namespace placebench::collectives;

namespace {

// What each timing figure is, carried in the JSON so a reader needs no other document.
// How a single timed call starts (--call-start), in the labels and the table's footer.
const char* call_start_text(bool start_at_barrier) {
  return start_at_barrier ? "started at a barrier's exit" : "started on every rank at one instant of the synchronized clock";
}

nlohmann::json figure_labels(bool start_at_barrier) {
  return {{"time", "median over blocks of (block time / iters), each block the mean over ranks (nccl-tests' time)"},
          {"block_time_min", "fastest block, same reduction"},
          {"block_time_max", "slowest block, same reduction"},
          {"block_spread", "block_time_max / block_time_min"},
          {"algbw", "size / time"},
          {"busbw", "algbw x the collective's nccl-tests bus factor"},
          {"time_p50", fmt::format("per iteration (one call, {}): median of the slowest rank's time",
                                   call_start_text(start_at_barrier))},
          {"time_p95", "per iteration: 95th percentile of the slowest rank's time"},
          {"time_p99", "per iteration: 99th percentile of the slowest rank's time"},
          {"time_max", "per iteration: largest slowest-rank time"},
          {"time_p50_rank_mean", "per iteration: median of the mean over ranks (OSU-style latency)"}};
}

// Who set the pace in the row's timed blocks and single calls, every rank's lanes, and the dose rounds.
nlohmann::json row_pace_to_json(const CollectiveRow& r, bool start_at_barrier) {
  nlohmann::json pace{{"blocks", trial_pace_to_json(r.block_pace, true)},
                      {"calls", trial_pace_to_json(r.iter_pace, true)},
                      {"lanes", {{"blocks", lanes_to_json(r.block_lanes)}, {"calls", lanes_to_json(r.iter_lanes)}}}};
  pace["call_start"] = start_at_barrier ? nlohmann::json{{"rule", "barrier"}}
                                        : nlohmann::json{{"rule", "common instant"},
                                                         {"period_us", r.window_period_us},
                                                         {"windows_missed", r.windows_missed}};
  if (!r.doses.empty()) pace["doses"] = doses_to_json(r.doses);
  return pace;
}

// The config of the dose rounds, when ranks were slowed.
nlohmann::json slowdown_config(const CollectiveBenchConfig& cfg) {
  nlohmann::json doses = nlohmann::json::array();
  for (const SlowDose& d : cfg.slow_doses) doses.push_back(d.text);
  return {{"ranks", cfg.slow_ranks}, {"doses", doses}, {"rounds", cfg.slow_rounds}, {"seed", cfg.seed}};
}

std::set<std::string> host_names(const CollectiveReport& rep) {
  std::set<std::string> hosts;
  for (const auto& r : rep.ranks) hosts.insert(r.value("host", ""));
  return hosts;
}

// Per measured row with pace records: who set the pace per call and per block, then the dose table.
std::string render_pace_lines(const CollectiveReport& rep) {
  std::string out;
  for (const CollectiveRow& r : rep.result.rows) {
    if (!r.unsupported.empty() || r.iter_pace.blocks == 0) continue;
    out += fmt::format("\npace, {} {} B {}:\n", collective_name(r.op), r.size, r.in_place ? "in-place" : "out-of-place");
    out += pace_line("  calls", r.iter_pace) + pace_line("  blocks", r.block_pace);
    if (r.windows_missed > 0)
      out += fmt::format("  ({} call starts came after their instant: a call overran the {:.0f} us period)\n",
                         r.windows_missed, r.window_period_us);
    if (!r.doses.empty()) out += render_dose_table(r.doses, rep.config.slow_ranks);
  }
  return out;
}

}  // namespace

double average_bus_bandwidth(const CollectiveBenchResult& result) {
  double sum = 0;
  int n = 0;
  for (const CollectiveRow& r : result.rows)
    if (r.unsupported.empty()) {
      sum += r.busbw_gbps;
      ++n;
    }
  return n ? sum / n : 0;
}

namespace {

// One row: what was run, then its figures and pace records, or why it was not run.
nlohmann::json row_to_json(const CollectiveRow& r, const CollectiveBenchConfig& cfg) {
  nlohmann::json row{{"op", collective_name(r.op)},
                     {"size", r.size},
                     {"count", r.count},
                     {"type", type_name(r.type)},
                     {"redop", collective_reduces(r.op) ? redop_name(r.redop) : "none"},
                     {"root", r.root},
                     {"in_place", r.in_place}};
  if (!r.unsupported.empty()) {
    row["unsupported"] = r.unsupported;
    return row;
  }
  row.update({{"time", r.time_us},
              {"blocks", r.blocks},
              {"block_time_min", r.time_min_us},
              {"block_time_max", r.time_max_us},
              {"block_spread", r.time_spread},
              {"algbw", r.algbw_gbps},
              {"busbw", r.busbw_gbps},
              {"time_p50", r.iter_p50_us},
              {"time_p95", r.iter_p95_us},
              {"time_p99", r.iter_p99_us},
              {"time_max", r.iter_max_us},
              {"time_p50_rank_mean", r.iter_mean_p50_us},
              {"wrong", r.wrong >= 0 ? nlohmann::json(r.wrong) : nlohmann::json("N/A")}});
  if (r.iter_pace.blocks > 0) row["pace"] = row_pace_to_json(r, cfg.start_at_barrier);
  return row;
}

}  // namespace

nlohmann::json collective_to_json(const CollectiveReport& rep) {
  const CollectiveBenchConfig& cfg = rep.config;
  nlohmann::json rows = nlohmann::json::array();
  for (const CollectiveRow& r : rep.result.rows) {
    nlohmann::json row = row_to_json(r, cfg);
    rows.push_back(std::move(row));
  }
  std::set<std::string> hosts = host_names(rep);
  nlohmann::json ops = nlohmann::json::array(), types = nlohmann::json::array();
  for (Collective c : cfg.ops) ops.push_back(collective_name(c));
  for (DataType t : cfg.types) types.push_back(type_name(t));
  nlohmann::json out{{"schema_version", kCollectiveSchemaVersion},
          {"backend", backend_name(rep.result.backend)},
          {"backend_reason", rep.backend_reason},
          {"nranks", rep.result.nranks},
          {"hosts", std::vector<std::string>(hosts.begin(), hosts.end())},
          {"config",
           {{"ops", ops}, {"types", types}, {"redop", redop_name(cfg.redop)}, {"root", cfg.root}, {"arm", rep.arm},
            {"warmup_iters", cfg.warmup_iters}, {"iters", cfg.iters}, {"blocks", cfg.blocks}, {"check", cfg.check},
            {"call_start", cfg.start_at_barrier ? "barrier" : "instant"}}},
          {"units", {{"time", "us"}, {"algbw", "GB/s"}, {"busbw", "GB/s"}, {"size", "bytes"}, {"block_spread", "ratio"}}},
          {"labels", figure_labels(cfg.start_at_barrier)},
          {"rows", rows},
          {"wrong_total", rep.result.wrong_total},
          {"average_bus_bandwidth", average_bus_bandwidth(rep.result)},
          {"ranks", rep.ranks}};
  if (!rep.result.clock_rtt_s.empty()) {
    std::vector<double> rtt_us;
    for (double s : rep.result.clock_rtt_s) rtt_us.push_back(s * 1e6);
    out["clock_rtt_us"] = rtt_us;
    out["labels"]["pace"] = "per block and per call: the last rank to arrive, named only when it is later than the next-latest "
                            "by more than their clocks' rtt/2 bounds summed; else unknown";
  }
  if (!cfg.slow_ranks.empty()) out["config"]["slowdown"] = slowdown_config(cfg);
  stamp_evidence(out, rep.evidence);
  return out;
}

namespace {

// Every rank's host, device, CPUs and placement status.
std::string rank_lines(const CollectiveReport& rep) {
  std::string out = fmt::format("{:<5} {:<16} {:<8} {:<12} {}\n", "Rank", "Host", "Device", "CPUs", "Placement");
  for (const auto& r : rep.ranks) {
    const auto& dev = r["device"];
    std::string device = dev.contains("gpu") ? fmt::format("GPU{}", dev["gpu"].get<int>())
                                             : fmt::format("N{}", dev["device_numa"].get<int>());
    const auto& p = r["placement"];
    std::string cpus = p["effective"]["cpus"].is_string() ? p["effective"]["cpus"].get<std::string>() : p["effective"]["cpus"].dump();
    out += fmt::format("{:<5} {:<16} {:<8} {:<12} {}{}\n", r["rank"].get<int>(), r["host"].get<std::string>(), device, cpus,
                       p["status"].get<std::string>(), p.value("degenerate", false) ? " (degenerate)" : "");
  }
  return out;
}

// --wide: nccl-tests' every column (count, type, redop, root, p95, the rank mean), 166 columns.
std::string wide_rows(const CollectiveReport& rep) {
  std::string out = fmt::format("\n{:>66}{:<37} {:<38}{}\n", "",
                                fmt::format("median of {} blocks x {} calls", rep.config.blocks, rep.config.iters),
                                "per iteration, slowest rank (us)", "rank mean");
  out += fmt::format("{:<13} {:>12} {:>11} {:<8} {:<5} {:>4} {:<12} {:>10} {:>6} {:>8} {:>8}  {:>9} {:>9} {:>9} {:>9}  {:>9} {:>6}\n",
                     "op", "size(B)", "count", "type", "redop", "root", "mode", "time(us)", "spread", "algbw", "busbw", "p50",
                     "p95", "p99", "max", "p50", "wrong");
  for (const CollectiveRow& r : rep.result.rows) {
    std::string head = fmt::format("{:<13} {:>12} {:>11} {:<8} {:<5} {:>4} {:<12}", collective_name(r.op), r.size,
                                   r.unsupported.empty() ? std::to_string(r.count) : "-", type_name(r.type),
                                   collective_reduces(r.op) ? redop_name(r.redop) : "none", r.root,
                                   r.in_place ? "in-place" : "out-of-place");
    if (!r.unsupported.empty()) {
      out += head + " unsupported: " + r.unsupported + "\n";
      continue;
    }
    out += fmt::format("{} {:>10.2f} {:>6.2f} {:>8.3f} {:>8.3f}  {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f}  {:>9.2f} {:>6}\n", head,
                       r.time_us, r.time_spread, r.algbw_gbps, r.busbw_gbps, r.iter_p50_us, r.iter_p95_us, r.iter_p99_us,
                       r.iter_max_us, r.iter_mean_p50_us, r.wrong >= 0 ? std::to_string(r.wrong) : "N/A");
  }
  return out;
}

// The default: the columns an operator reads first, fitted to their contents (under 100 columns for
// sizes up to 1 TB); an unsupported combination is a line under the table.
std::string narrow_rows(const CollectiveReport& rep) {
  std::vector<std::vector<std::string>> rows = {
      {"op", "size(B)", "mode", "time(us)", "spread", "algbw", "busbw", "iter p50", "iter p99", "iter max", "wrong"}};
  std::string unsupported;
  for (const CollectiveRow& r : rep.result.rows) {
    const std::string mode = r.in_place ? "in-place" : "out-of-place";
    if (!r.unsupported.empty()) {
      unsupported += fmt::format("  {} {} B {}: unsupported: {}\n", collective_name(r.op), r.size, mode, r.unsupported);
      continue;
    }
    rows.push_back({std::string(collective_name(r.op)), std::to_string(r.size), mode, fmt::format("{:.2f}", r.time_us),
                    fmt::format("{:.2f}", r.time_spread), fmt::format("{:.3f}", r.algbw_gbps), fmt::format("{:.3f}", r.busbw_gbps),
                    fmt::format("{:.2f}", r.iter_p50_us), fmt::format("{:.2f}", r.iter_p99_us), fmt::format("{:.2f}", r.iter_max_us),
                    r.wrong >= 0 ? std::to_string(r.wrong) : "N/A"});
  }
  return fmt::format("\nmedian of {} blocks x {} calls; iter = one barrier and call, the slowest rank (us)\n", rep.config.blocks,
                     rep.config.iters) +
         fit_columns(rows, "lrlrrrrrrrr") + unsupported;
}

}  // namespace

std::string render_collective_table(const CollectiveReport& rep, bool wide) {
  std::set<std::string> hosts = host_names(rep);
  std::string out = fmt::format("Backend: {} ({})   Ranks: {} on {} host(s)   Arm: {}\n\n", backend_name(rep.result.backend),
                                rep.backend_reason, rep.result.nranks, hosts.size(), rep.arm);
  out += rank_lines(rep);
  out += wide ? wide_rows(rep) : narrow_rows(rep);
  out += render_pace_lines(rep);
  // nccl-tests' two summary lines, in its format ("# %-20s : %d %s", "# %-20s : %g %s"; no minimum
  // bandwidth is checked, so the second ends with an empty verdict), then what the columns mean.
  out += fmt::format("\n# {:<20} : {} {}\n", "Out of bounds values", rep.result.wrong_total, rep.result.wrong_total ? "FAILED" : "OK");
  out += fmt::format("# {:<20} : {:g} \n", "Avg bus bandwidth", average_bus_bandwidth(rep.result));
  out += "time = median over blocks of block time / calls, each block the mean over ranks; spread = slowest / fastest "
         "block;\nalgbw = size/time, busbw = algbw x nccl-tests' factor (GB/s = 1e9 B/s);\n";
  out += fmt::format("per iteration = one call, {}\n", call_start_text(rep.config.start_at_barrier));
  if (!wide) out += "--wide: count, type, redop, root, p95 and the rank mean (nccl-tests' columns)\n";
  return out;
}

}  // namespace placebench::harness
