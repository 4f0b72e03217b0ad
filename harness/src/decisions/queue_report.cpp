// The console table of `placebench queue` (its JSON: queue_json.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

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

// Every (combination, class) as one row with every column (--wide; about 130 columns).
std::string wide_rows(const QueueReplay& r) {
  std::string out = fmt::format("{:<26} {:<14} {:>7} {:>9} {:>9} {:>9} {:>9} {:>7} {:>10} {:>10} {:>7}\n", "combination", "class", "started",
                     "queue p50", "queue p90", "queue p99", "exec mean", "remote", "done GPU-h", "strand GPU-h", "frag%");
  for (const auto& o : r.outcomes)
    for (const auto& c : o.classes)
      out += fmt::format("{:<26} {:<14} {} {:>10.1f} {:>12.1f} {:>6.1f}%\n", combination_name(o.combination), escape_control(c.name),
                         class_cells(c), c.completed_gpu_h, c.stranded_gpu_h, o.fragmentation_share * 100);
  return out;
}

// The default: one block per class (its name once, above its rows), times in minutes without a unit on
// every cell; fits 100 columns.
std::string class_rows(const QueueReplay& r, const std::string& name) {
  std::string out = fmt::format("class {}\n", escape_control(name));
  out += fmt::format("  {:<22} {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {:>10} {:>8} {:>6}\n", "combination", "started", "q p50",
                     "q p90", "q p99", "exec", "remote", "done GPU-h", "strand", "frag%");
  for (const auto& o : r.outcomes)
    for (const auto& c : o.classes) {
      if (c.name != name) continue;
      const std::string cells =
          !c.queue_mean_s
              ? fmt::format("{:>3}/{:<3} {:<38}", c.started, c.arrived,
                            fmt::format("never started ({} of {})", c.arrived - c.started, c.arrived))
              : fmt::format("{:>3}/{:<3} {:>7.1f} {:>7.1f} {:>7.1f} {:>7.1f} {:>5.0f}%", c.started, c.arrived,
                            *c.queue_p50_s / 60, *c.queue_p90_s / 60, *c.queue_p99_s / 60, *c.exec_mean_s / 60,
                            *c.remote_share * 100);
      out += fmt::format("  {:<22} {} {:>10.1f} {:>8.1f} {:>5.1f}%\n", combination_name(o.combination), cells,
                         c.completed_gpu_h, c.stranded_gpu_h, o.fragmentation_share * 100);
    }
  return out;
}

}  // namespace

std::string render_queue_table(const QueueReplay& r, bool wide) {
  std::string out = fmt::format("queue replay: {} jobs over {:.1f}h on {} GPUs (seed {}; {})\n", r.jobs, r.mix.horizon_s / 3600, r.total_gpus,
                                r.mix.seed, escape_control(r.inventory_file));
  if (wide) return out + wide_rows(r);
  out += "times in minutes (q: queue age at start; exec: mean run time); --wide: one row per combination and class\n";
  std::vector<std::string> names;
  for (const auto& o : r.outcomes)
    for (const auto& c : o.classes)
      if (std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
  for (const auto& name : names) out += class_rows(r, name);
  return out;
}

}  // namespace placebench::harness::decisions
