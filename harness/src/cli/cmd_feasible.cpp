// `placebench feasible`: can a job's workers be placed, all at once, with their CPUs local to their GPUs?
#include <memory>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/decisions/feasible.h"
#include "placebench/harness/errors.h"

namespace placebench::harness {
namespace {

using namespace decisions;

// A search bounded so that it ends: at most 10^9 states per host (1,000,000 by default).
constexpr long long kMaxSearchStates = 1'000'000'000;

struct FeasibleOptions {
  std::string inventory, job;
  SearchLimits limits;
  ReportOutput output;
};

int run_feasible_command(const FeasibleOptions& opt) {
  const OutputTarget out = check_report_out(opt.output);
  FeasibilityInput input = load_feasibility_input(opt.inventory, opt.job);
  FeasibilityReport report = assess_feasibility(input.inventory, *input.job, opt.limits);
  emit_report(ReportTargets::with_out(out, opt.output.json),  // the module stamps its JSON itself
              {[&] { return feasibility_json_text(report) + "\n"; }, [&] { return render_feasibility_text(report); }});
  bool runnable = input.job->locality == Locality::kStrict ? report.job_runnable_strict : report.job_runnable_relaxed;
  return runnable ? kExitOk : kExitFailed;
}

}  // namespace

void add_feasible_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<FeasibleOptions>();
  CLI::App* cmd = app.add_subcommand("feasible", "Whether free GPUs are runnable: workers placeable with local CPUs, strict and relaxed");
  cmd->add_option("--inventory", opt->inventory, "Cluster inventory, YAML or JSON (nodes, NUMA nodes, free GPUs/CPUs/memory)")
      ->type_name("FILE")->required();
  cmd->add_option("--job", opt->job, "Job contract file (default: the inventory's job: block)")->type_name("FILE");
  cmd->add_option("--search-limit", opt->limits.max_states, "Search states per host before the greedy fallback (at most 1000000000)")
      ->type_name("N")
      ->transform(whole_number(1, kMaxSearchStates, "POSITIVE"))->default_val(1000000);
  cmd->add_flag("--json", opt->output.json, "Print one JSON object (fields in docs/decisions.md)");
  cmd->add_option("--out", opt->output.out, "Also write that JSON object to this file (whole or not at all; an existing file only with --force)")
      ->type_name("FILE");
  add_force_flag(*cmd, opt->output.force);
  cmd->callback([opt, &action] { action = [opt] { return run_feasible_command(*opt); }; });
}

}  // namespace placebench::harness
