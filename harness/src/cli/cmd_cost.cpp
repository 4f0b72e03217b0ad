// `placebench cost`: stranded GPU time (and its internal cost) of a partly admitted gang.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/decisions/cost.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"
#include "placebench/harness/terminal_text.h"

namespace placebench::harness {
namespace {

using namespace decisions;

// Bounds that keep every product (GPUs x wait x incidents x rate) finite; docs/decisions.md.
constexpr double kMaxGangGpus = 1e6;
constexpr double kMaxIncidentsPerDay = 1e6;

struct CostOptions {
  std::optional<double> gpus, rate, incidents_per_day;
  std::string wait, from;
  bool json = false;
};

int run_cost_command(const CostOptions& opt) {
  CostInput in;
  in.rate_per_gpu_hour = opt.rate;
  if (opt.incidents_per_day) in.incidents_per_day = *opt.incidents_per_day, in.incidents_per_day_given = true;
  if (!opt.from.empty()) {
    if (opt.gpus || !opt.wait.empty())
      throw InputError("placebench cost: --from reads measured stranded GPU-seconds; drop --gpus and --wait, or drop --from");
    in.source = opt.from;
    std::vector<std::string> warnings;
    set_measured_incidents(in, read_gang_incidents(opt.from, &warnings));
    for (const auto& w : warnings) std::cerr << "placebench cost: warning: " << escape_control(w) << "\n";
  } else {
    if (!opt.gpus || opt.wait.empty())
      throw InputError(fmt::format("placebench cost: {} is missing; give --gpus G --wait TIME (e.g. --gpus 8 --wait 12m), "
                                   "or --from DIR", !opt.gpus ? "--gpus" : "--wait"));
    in.gpus = opt.gpus;
    in.wait_s = parse_duration_s(opt.wait, "--wait", kSecondsPerYear);
    in.stranded_gpu_s_per_incident = *in.gpus * *in.wait_s;
  }
  CostResult result = compute_cost(in);
  emit_report(ReportTargets::printing(opt.json),
              {[&] { return json_text(cost_to_json(result)); }, [&] { return render_cost_text(result); }});
  return kExitOk;
}

}  // namespace

void add_cost_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<CostOptions>();
  CLI::App* cmd = app.add_subcommand("cost", "GPU time and cost stranded by a partly admitted gang, per incident and per day");
  cmd->add_option("--gpus", opt->gpus, "GPUs allocated to the admitted part of the gang, idle while it waits")
      ->type_name("G")->check(positive_number_at_most(kMaxGangGpus));
  cmd->add_option("--wait", opt->wait, "How long they wait idle per incident (90s, 12m, 1h; at most 8760h)")->type_name("TIME");
  cmd->add_option("--from", opt->from, "Read stranded_gpu_s of gang runs (a run directory, gang JSON or admission JSON) instead")
      ->type_name("DIR|FILE");
  cmd->add_option("--rate", opt->rate, "Internal cost per GPU-hour")->type_name("PER_GPU_HOUR")
      ->check(number_in(0, kMaxRatePerGpuHour, "NONNEGATIVE"));
  cmd->add_option("--incidents-per-day", opt->incidents_per_day, "How often it happens (default 1, marked assumed)")
      ->type_name("K")->check(number_in(0, kMaxIncidentsPerDay, "NONNEGATIVE"));
  cmd->add_flag("--json", opt->json, "Print one JSON object (fields in docs/decisions.md)");
  cmd->callback([opt, &action] { action = [opt] { return run_cost_command(*opt); }; });
}

}  // namespace placebench::harness
