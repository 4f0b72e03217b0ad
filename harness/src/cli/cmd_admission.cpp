// `placebench admission`: the admission timeline of gang jobs from kubectl snapshots (and the gang JSON).
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"

namespace placebench::harness {
namespace {

using namespace admission;

// At most a year of a million GPUs (cost.cpp's bound on a stranded figure).
constexpr double kMaxStrandedGpuS = 1e6 * 365.0 * 86400.0;

struct AdmissionOptions {
  std::vector<std::string> snapshots;
  std::string gang, gang_zero, group, max_time_to_gang, max_cleanup;
  std::optional<double> max_stranded;
  ReportOutput output;
};

AdmissionGates gates_of(const AdmissionOptions& opt) {
  AdmissionGates g;
  g.max_stranded_gpu_s = opt.max_stranded;
  if (!opt.max_time_to_gang.empty()) g.max_time_to_gang_s = parse_duration_s(opt.max_time_to_gang, "--max-time-to-gang", kSecondsPerYear);
  if (!opt.max_cleanup.empty()) g.max_cleanup_s = parse_duration_s(opt.max_cleanup, "--max-cleanup", kSecondsPerYear);
  return g;
}

int run_admission_command(const AdmissionOptions& opt) {
  const OutputTarget out = check_report_out(opt.output);
  const AdmissionGates gates = gates_of(opt);
  AnalysisOptions options;
  options.only_group = opt.group;
  if (!opt.gang_zero.empty()) {
    options.gang_zero = parse_rfc3339(opt.gang_zero);
    if (!options.gang_zero)
      throw InputError(fmt::format("--gang-zero: '{}' is not an RFC 3339 time; give e.g. 2026-12-01T14:00:00Z", opt.gang_zero));
  }
  ClusterRecords records = read_snapshots(opt.snapshots);
  std::optional<GangTimeline> gang;
  if (!opt.gang.empty()) gang = read_gang_timeline(opt.gang);
  AdmissionReport report = analyze_admission(records, gang ? &*gang : nullptr, options);
  if (!opt.group.empty() && report.jobs.empty())
    throw InputError(fmt::format("--group: no pods or PodGroup named '{}' in the snapshots; give a group the table lists", opt.group));
  const std::vector<GateFinding> findings = gates.any() ? judge_gates(report, gates) : std::vector<GateFinding>{};
  emit_report(ReportTargets::with_out(out, opt.output.json),
              {[&] {
                 nlohmann::json j = admission_to_json(report);
                 if (gates.any()) j["gates"] = gates_to_json(findings);
                 return json_text(std::move(j), JsonForm::kStampedReplacingBadUtf8);
               },
               [&] { return render_admission_table(report) + (gates.any() ? render_gates_table(findings) : ""); }});
  const bool pass = std::all_of(findings.begin(), findings.end(), [](const GateFinding& f) { return f.verdict == "ok"; });
  return pass ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_admission_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<AdmissionOptions>();
  CLI::App* cmd = app.add_subcommand("admission", "Admission timeline of gang jobs from kubectl snapshots: waiting GPUs, cleanup, delay stage");
  cmd->add_option("SNAPSHOT", opt->snapshots, "kubectl get pods,events / podgroups -o json files, or directories of them (docs/admission.md)")
      ->type_name("PATH")->required();
  cmd->add_option("--gang", opt->gang, "placebench gang --json output of the same job (ranks matched by pod name or node)")->type_name("FILE");
  cmd->add_option("--gang-zero", opt->gang_zero, "UTC time of the gang JSON's zero (default: earliest container start)")->type_name("TIME");
  cmd->add_option("--group", opt->group, "Only this pod group (PodGroup name or job name)")->type_name("NAME");
  cmd->add_option("--max-stranded", opt->max_stranded, "Exit 3 when a job stranded more GPU-seconds (or may still: unknown)")
      ->type_name("GPU-S")->check(number_in(0, kMaxStrandedGpuS, "NONNEGATIVE"));
  cmd->add_option("--max-time-to-gang", opt->max_time_to_gang, "Exit 3 when a job's gang was not whole within TIME of its creation")
      ->type_name("TIME");
  cmd->add_option("--max-cleanup", opt->max_cleanup, "Exit 3 when a failed attempt held GPUs longer than TIME after its failure")
      ->type_name("TIME");
  add_report_output(*cmd, opt->output, "Also write the JSON to this new file (for `placebench report`)",
                    "Print one JSON object (fields in docs/admission.md)");
  cmd->callback([opt, &action] { action = [opt] { return run_admission_command(*opt); }; });
}

}  // namespace placebench::harness
