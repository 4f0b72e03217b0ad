// `placebench admission`: the admission timeline of gang jobs from kubectl snapshots (and the gang JSON).
#include <fmt/format.h>

#include <memory>

#include "placebench/harness/admission/admission.h"
#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/errors.h"

namespace placebench::harness {
namespace {

using namespace admission;

struct AdmissionOptions {
  std::vector<std::string> snapshots;
  std::string gang, gang_zero, group;
  ReportOutput output;
};

int run_admission_command(const AdmissionOptions& opt) {
  refuse_existing_out(opt.output.out);
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
  return emit_report(admission_to_json(report), render_admission_table(report), opt.output);
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
  add_report_output(*cmd, opt->output, "Also write the JSON to this new file (for `placebench report`)",
                    "Print one JSON object (fields in docs/admission.md)");
  cmd->callback([opt, &action] { action = [opt] { return run_admission_command(*opt); }; });
}

}  // namespace placebench::harness
