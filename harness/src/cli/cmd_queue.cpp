// `placebench queue`: replay a job mix on an inventory under every locality x gang x choice combination.
#include <fmt/format.h>

#include <memory>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/decisions/queue_replay.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"

namespace placebench::harness {
namespace {

using namespace decisions;

struct QueueOptions {
  std::string inventory, mix;
  std::optional<long long> seed;
  ReportOutput output;
  bool wide = false;
};

int run_queue_command(const QueueOptions& opt) {
  const OutputTarget out = check_report_out(opt.output);
  FeasibilityInput inv = parse_feasibility_text(
      read_input_file(opt.inventory, "give --inventory a YAML or JSON inventory (the `feasible` format)", kMaxConfigBytes), opt.inventory);
  JobMix mix = load_job_mix(opt.mix);
  if (opt.seed) mix.seed = static_cast<std::uint64_t>(*opt.seed);
  QueueReplay replay = replay_queue(inv.inventory, mix, all_combinations());
  emit_report(ReportTargets::with_out(out, opt.output.json),
              {[&] { return json_text(queue_replay_to_json(replay), JsonForm::kStampedReplacingBadUtf8); },
               [&] { return render_queue_table(replay, opt.wide); }});
  return kExitOk;
}

}  // namespace

void add_queue_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<QueueOptions>();
  CLI::App* cmd = app.add_subcommand("queue", "Replay a job mix: queue age, GPU-hours, fragmentation per locality x gang x choice");
  cmd->add_option("--inventory", opt->inventory, "Cluster inventory, YAML or JSON (the `feasible` format; its job: block is ignored)")
      ->type_name("FILE")->required();
  cmd->add_option("--mix", opt->mix, "Job mix YAML: seed, horizon, drain, classes (docs/queue-replay.md)")->type_name("FILE")->required();
  cmd->add_option("--seed", opt->seed, "Seed of the arrivals (overrides the mix's; recorded in the JSON)")
      ->type_name("N")->transform(whole_number(0, 1ll << 62, "NONNEGATIVE"));
  add_report_output(*cmd, opt->output, "Also write the JSON to this new file (for `decide --queue-from`)",
                    "Print one JSON object (fields in docs/queue-replay.md)");
  cmd->add_flag("--wide", opt->wide, "One row per combination and class with every column, wider than 100");
  cmd->callback([opt, &action] { action = [opt] { return run_queue_command(*opt); }; });
}

}  // namespace placebench::harness
