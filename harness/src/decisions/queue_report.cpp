// Printers of `placebench queue`: the console table and the JSON (fields in docs/queue-replay.md).
#include <fmt/format.h>

#include "placebench/harness/decisions/queue_replay.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness::decisions {
namespace {

nlohmann::json or_null(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// The figures of a class with started jobs; one that never started says so, in words, not as 0.0m.
std::string class_cells(const ClassOutcome& c) {
  if (!c.queue_mean_s)
    return fmt::format("{:>3}/{:<3} {:<47}", c.started, c.arrived,
                       fmt::format("never started ({} of {})", c.arrived - c.started, c.arrived));
  return fmt::format("{:>3}/{:<3} {:>8.1f}m {:>8.1f}m {:>8.1f}m {:>8.1f}m {:>6.0f}%", c.started, c.arrived, *c.queue_p50_s / 60,
                     *c.queue_p90_s / 60, *c.queue_p99_s / 60, *c.exec_mean_s / 60, *c.remote_share * 100);
}

}  // namespace

nlohmann::json queue_replay_to_json(const QueueReplay& r) {
  using nlohmann::json;
  json classes = json::array(), outcomes = json::array();
  for (const auto& w : r.mix.classes)
    classes.push_back({{"name", w.name}, {"arrivals_per_hour", w.arrivals_per_hour}, {"workers", w.workers},
                       {"gpus_per_worker", w.gpus_per_worker}, {"cpus_per_worker", w.cpus_per_worker},
                       {"duration_s", w.duration_s}, {"duration_remote_s", w.duration_remote_s}});
  for (const auto& o : r.outcomes) {
    json per_class = json::array();
    for (const auto& c : o.classes)
      per_class.push_back({{"name", c.name}, {"arrived", c.arrived}, {"started", c.started}, {"completed", c.completed},
                           {"queue_mean_s", or_null(c.queue_mean_s)}, {"queue_p50_s", or_null(c.queue_p50_s)},
                           {"queue_p90_s", or_null(c.queue_p90_s)}, {"queue_p99_s", or_null(c.queue_p99_s)},
                           {"queue_max_s", or_null(c.queue_max_s)}, {"exec_mean_s", or_null(c.exec_mean_s)},
                           {"remote_share", or_null(c.remote_share)}, {"completed_gpu_h", c.completed_gpu_h}, {"stranded_gpu_h", c.stranded_gpu_h}});
    outcomes.push_back({{"name", combination_name(o.combination)},
                        {"locality", policy_name(o.combination.locality)},
                        {"gang", o.combination.gang},
                        {"choice", o.combination.choice == GpuChoice::kBinpack ? "binpack" : "spread"},
                        {"end_s", o.end_s},
                        {"completed_gpu_h", o.completed_gpu_h},
                        {"stranded_gpu_h", o.stranded_gpu_h},
                        {"free_gpus_mean", o.free_gpus_mean},
                        {"fragmentation_gpus_mean", o.fragmentation_gpus_mean},
                        {"fragmentation_share", o.fragmentation_share},
                        {"classes", per_class}});
  }
  return {{"schema_version", kQueueReplaySchemaVersion},
          {"kind", "queue-replay"},
          {"inventory", r.inventory_file},
          {"mix", {{"file", r.mix.file}, {"seed", r.mix.seed}, {"horizon_s", r.mix.horizon_s}, {"drain_s", r.mix.drain_s}, {"classes", classes}}},
          {"total_gpus", r.total_gpus},
          {"jobs", r.jobs},
          {"combinations", outcomes}};
}

std::string render_queue_table(const QueueReplay& r) {
  std::string out = fmt::format("queue replay: {} jobs over {:.1f}h on {} GPUs (seed {}; {})\n", r.jobs, r.mix.horizon_s / 3600, r.total_gpus,
                                r.mix.seed, escape_control(r.inventory_file));
  out += fmt::format("{:<26} {:<14} {:>7} {:>9} {:>9} {:>9} {:>9} {:>7} {:>10} {:>10} {:>7}\n", "combination", "class", "started",
                     "queue p50", "queue p90", "queue p99", "exec mean", "remote", "done GPU-h", "strand GPU-h", "frag%");
  for (const auto& o : r.outcomes)
    for (const auto& c : o.classes)
      out += fmt::format("{:<26} {:<14} {} {:>10.1f} {:>12.1f} {:>6.1f}%\n", combination_name(o.combination), escape_control(c.name),
                         class_cells(c), c.completed_gpu_h, c.stranded_gpu_h, o.fragmentation_share * 100);
  return out;
}

}  // namespace placebench::harness::decisions
