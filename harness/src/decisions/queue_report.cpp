// The console table of `placebench queue` (its JSON: queue_json.cpp).
#include <fmt/format.h>

#include "placebench/harness/decisions/queue_replay.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness::decisions {
namespace {

// The figures of a class with started jobs; one that never started says so, in words, not as 0.0m.
std::string class_cells(const ClassOutcome& c) {
  if (!c.queue_mean_s)
    return fmt::format("{:>3}/{:<3} {:<47}", c.started, c.arrived,
                       fmt::format("never started ({} of {})", c.arrived - c.started, c.arrived));
  return fmt::format("{:>3}/{:<3} {:>8.1f}m {:>8.1f}m {:>8.1f}m {:>8.1f}m {:>6.0f}%", c.started, c.arrived, *c.queue_p50_s / 60,
                     *c.queue_p90_s / 60, *c.queue_p99_s / 60, *c.exec_mean_s / 60, *c.remote_share * 100);
}

}  // namespace

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
