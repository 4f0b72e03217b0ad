// `placebench decide`: placement policy per workload class from a run directory, or a what-if from numbers.
#include <fmt/format.h>

#include <memory>
#include <sstream>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/decisions/decide_format.h"
#include "placebench/harness/decisions/decide_input.h"
#include "placebench/harness/decisions/queue_replay.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"

namespace placebench::harness {
namespace {

using namespace decisions;

struct DecideOptions {
  std::string dir, exec_local, exec_remote, exec_remote_ci, queue, objective, any_arm, under_load;
  std::optional<int> gpus;
  std::optional<double> rate, p_remote_any, p_local_prefer;
  bool json = false;
  bool wide = false;
  // --queue-from: each policy's queue time from a `placebench queue` replay instead of --queue.
  std::string queue_from, queue_class, queue_gang = "on", queue_choice = "binpack", queue_stat = "mean";
};

// Every what-if duration, as a decision block's: at most kSecondsPerYear (8760h).
double what_if_duration(const std::string& text, const std::string& option) { return parse_duration_s(text, option, kSecondsPerYear); }

// "strict=30m,prefer=10m,any=5m" -> seconds per policy; all three required, each once.
std::array<double, 3> parse_queue(const std::string& text) {
  std::array<double, 3> q{};
  std::array<bool, 3> seen{};
  std::stringstream ss(text);
  std::string part;
  const std::string fix = "use --queue strict=TIME,prefer=TIME,any=TIME (e.g. strict=30m,prefer=10m,any=5m)";
  while (std::getline(ss, part, ',')) {
    auto eq = part.find('=');
    std::string key = part.substr(0, eq);
    std::size_t i = key == "strict" ? 0 : key == "prefer" ? 1 : key == "any" ? 2 : 3;
    if (eq == std::string::npos || i == 3) throw InputError(fmt::format("--queue: bad entry '{}'; {}", part, fix));
    if (seen[i]) throw InputError(fmt::format("--queue: {} is given twice ('{}'); give each policy once: {}", key, text, fix));
    q[i] = what_if_duration(part.substr(eq + 1), "--queue " + key);
    seen[i] = true;
  }
  for (std::size_t i = 0; i < 3; ++i)
    if (!seen[i]) throw InputError(fmt::format("--queue: no time for {}; {}", policy_name(kPolicies[i]), fix));
  return q;
}

// A remote time as decide weighs it: its ratio to the local time in percent, more than -100 (a remote
// time too short to tell from zero against the local one would give -100 exactly).
double remote_pct(double remote_s, double local_s, const std::string& option, const std::string& text) {
  double pct = (remote_s / local_s - 1.0) * 100.0;
  if (!(remote_s > 0) || !(pct > -100.0))
    throw InputError(fmt::format("{}: '{}' is too short against --exec-local (its ratio to it must be above 0); give a "
                                 "longer time", option, text));
  return pct;
}

DecideReport what_if(const DecideOptions& opt, const DecideOverrides& overrides) {
  const char* missing = !opt.gpus ? "--gpus" : opt.exec_local.empty() ? "--exec-local" : opt.exec_remote.empty() ? "--exec-remote"
                        : opt.queue.empty() && opt.queue_from.empty() ? "--queue" : nullptr;
  if (missing)
    throw InputError(fmt::format("placebench decide: {} is missing; give a run directory, or --gpus, --exec-local, "
                                 "--exec-remote and --queue for a what-if", missing));
  DecisionSpec spec;
  spec.job_length_s = what_if_duration(opt.exec_local, "--exec-local");
  if (spec.job_length_s <= 0) throw InputError("--exec-local: must be > 0");
  spec.gpus_per_job = *opt.gpus;
  if (!opt.queue.empty() && !opt.queue_from.empty())
    throw InputError("placebench decide: give --queue or --queue-from, not both");
  spec.queue_s = opt.queue_from.empty()
                     ? parse_queue(opt.queue)
                     : load_queue_times(opt.queue_from, opt.queue_class, opt.queue_gang == "on",
                                        opt.queue_choice == "spread" ? GpuChoice::kSpread : GpuChoice::kBinpack, opt.queue_stat);
  double remote_s = what_if_duration(opt.exec_remote, "--exec-remote");
  RemoteRatio r;
  r.arm = overrides.any_arm.value_or("remote");
  r.pct = remote_pct(remote_s, spec.job_length_s, "--exec-remote", opt.exec_remote);
  if (!opt.exec_remote_ci.empty()) {
    auto comma = opt.exec_remote_ci.find(',');
    if (comma == std::string::npos)
      throw InputError("--exec-remote-ci: expected LO,HI (e.g. 58m,62m) around --exec-remote");
    double lo = what_if_duration(opt.exec_remote_ci.substr(0, comma), "--exec-remote-ci");
    double hi = what_if_duration(opt.exec_remote_ci.substr(comma + 1), "--exec-remote-ci");
    if (!(lo > 0 && lo <= remote_s && remote_s <= hi))
      throw InputError(fmt::format("--exec-remote-ci: '{}' must satisfy 0 < LO <= --exec-remote <= HI", opt.exec_remote_ci));
    r.lo_pct = remote_pct(lo, spec.job_length_s, "--exec-remote-ci", opt.exec_remote_ci);
    r.hi_pct = (hi / spec.job_length_s - 1.0) * 100.0;
  }
  DecideReport report;
  report.source = "what-if";
  report.classes.push_back(decide_class(make_class_input("what-if", spec, r, overrides)));
  return report;
}

int run_decide_command(const DecideOptions& opt) {
  DecideOverrides overrides;
  overrides.p_remote_any = opt.p_remote_any;
  overrides.p_local_prefer = opt.p_local_prefer;
  overrides.rate_per_gpu_hour = opt.rate;
  if (!opt.objective.empty()) overrides.objective = parse_objective(opt.objective, "--objective");
  if (!opt.any_arm.empty()) overrides.any_arm = opt.any_arm;
  if (!opt.under_load.empty()) overrides.under_load = parse_under_load(opt.under_load, "--under-load");
  bool what_if_given = opt.gpus || !opt.exec_local.empty() || !opt.exec_remote.empty() || !opt.queue.empty() ||
                       !opt.exec_remote_ci.empty() || !opt.queue_from.empty();
  if (!opt.dir.empty() && what_if_given)
    throw InputError("placebench decide: give either a run directory or the what-if options (--gpus, --exec-local, "
                     "--exec-remote, --queue), not both");
  if (opt.dir.empty() && overrides.under_load)
    throw InputError("placebench decide: --under-load weighs a run's interference conditions; give the run directory");
  DecideReport report = opt.dir.empty() ? what_if(opt, overrides) : decide_run_directory(opt.dir, overrides);
  emit_report(ReportTargets::printing(opt.json),
              {[&] { return json_text(decide_to_json(report)); }, [&] { return render_decide_table(report, opt.wide); }});
  return kExitOk;
}

}  // namespace

void add_decide_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<DecideOptions>();
  CLI::App* cmd = app.add_subcommand("decide", "Placement policy (strict, prefer, any) per workload class, with its cost");
  cmd->add_option("DIR", opt->dir, "Run directory (summary.json and run.json with each class's decision block)");
  cmd->add_option("--gpus", opt->gpus, "What-if: GPUs per job")->type_name("G")->transform(whole_number(1, kMaxCount, "POSITIVE"));
  cmd->add_option("--exec-local", opt->exec_local, "What-if: execution time with local placement (90s, 36m, 2h; every TIME at most 8760h)")->type_name("TIME");
  cmd->add_option("--exec-remote", opt->exec_remote, "What-if: execution time when placed remote")->type_name("TIME");
  cmd->add_option("--exec-remote-ci", opt->exec_remote_ci, "What-if: CI of the remote execution time")->type_name("LO,HI");
  cmd->add_option("--queue", opt->queue, "What-if: queue time under each policy")->type_name("strict=T,prefer=T,any=T");
  cmd->add_option("--queue-from", opt->queue_from, "What-if: queue times from `placebench queue --json` (instead of --queue)")->type_name("FILE");
  cmd->add_option("--queue-class", opt->queue_class, "The replay's class to take (needed when it has several)")->type_name("NAME");
  cmd->add_option("--queue-gang", opt->queue_gang, "The replay's gang admission setting to take")->type_name("on|off")
      ->check(CLI::IsMember({"on", "off"}))->default_val("on");
  cmd->add_option("--queue-choice", opt->queue_choice, "The replay's node/GPU choice to take")->type_name("binpack|spread")
      ->check(CLI::IsMember({"binpack", "spread"}))->default_val("binpack");
  cmd->add_option("--queue-stat", opt->queue_stat, "The queue-age statistic to take")->type_name("mean|p50|p90|p99")
      ->check(CLI::IsMember({"mean", "p50", "p90", "p99"}))->default_val("mean");
  cmd->add_option("--objective", opt->objective, "turnaround, efficiency, or a turnaround weight in [0, 1] (overrides the config)")
      ->type_name("turnaround|efficiency|W");
  cmd->add_option("--rate", opt->rate, "Cost per GPU-hour (overrides the config)")->type_name("R")->check(number_in(0, kMaxRatePerGpuHour, "NONNEGATIVE"));
  cmd->add_option("--p-remote-any", opt->p_remote_any, "Share of `any` jobs that land remote (default 1, or the config's)")
      ->type_name("P")->check(number_in(0.0, 1.0));
  cmd->add_option("--p-local-prefer", opt->p_local_prefer, "Chance `prefer` finds a local placement (default 0.5, or the config's)")
      ->type_name("P")->check(number_in(0.0, 1.0));
  cmd->add_option("--under-load", opt->under_load,
                  "A class run under interference conditions: decide on its quiet figures, the worst "
                  "condition's, or a share of time under load, 0..1 (overrides the config)")
      ->type_name("quiet|worst|S");
  cmd->add_option("--any-arm", opt->any_arm, "The measured arm that stands for a non-local placement (default remote)")->type_name("ARM");
  cmd->add_flag("--json", opt->json, "Print one JSON object (fields in docs/decisions.md)");
  cmd->add_flag("--wide", opt->wide, "Every column of the policy table with its CI, wider than 100");
  cmd->callback([opt, &action] { action = [opt] { return run_decide_command(*opt); }; });
}

}  // namespace placebench::harness
