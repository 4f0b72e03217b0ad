// `placebench audit`: what this process (or --pid) was given, judged against each visible GPU's NUMA
// node, and what the node's managers recorded for it. Applies nothing. Exit 0: every device local and no
// disagreement; 1: not; 2: bad input (docs/audit.md).
#include <iostream>
#include <memory>

#include "placebench/harness/audit/audit_format.h"
#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"
#include "placebench/harness/terminal_text.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {
namespace {

struct AuditCliOptions {
  AuditOptions audit;
  ManagersOptions managers;
  std::string device;
  std::string probe_bytes = "4M";
  ReportOutput output;
  bool no_managers = false;
};

int run_audit(AuditCliOptions opt) {
  if (!opt.device.empty()) {
    try {
      opt.audit.device_nodes = hostpipe::parse_cpulist(opt.device);
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("audit: --device-numa ") + opt.device + ": " + e.what() + "; give NUMA node ids such as 0 or 0,1");
    }
  }
  const OutputTarget out = check_report_out(opt.output);
  opt.audit.probe_bytes = parse_size(opt.probe_bytes, "audit: --probe-bytes", 1ull << 30);
  if (opt.audit.probe_bytes == 0) throw InputError("audit: --probe-bytes 0: the probe needs at least one page; give e.g. 4M");
  opt.managers.proc_root = opt.audit.proc_root;
  AuditReport report;
  opt.audit.defer_no_target = !opt.no_managers;  // the pod's DRA records may name its GPUs
  report.observation = collect_observation(opt.audit);
  if (opt.no_managers && !opt.managers.given.empty())
    throw InputError("audit: --no-managers cannot be combined with " + opt.managers.given.front() + "; give one or the other");
  if (opt.no_managers) {
    for (ManagerFile* f : {&report.managers.cpu.file, &report.managers.memory.file, &report.managers.pod.annotations_file,
                           &report.managers.pod.labels_file})
      f->status = "not read";
    report.managers.kubelet.status = "not read";
    report.managers.pod_resources.status = "not read";
  } else {
    report.managers = read_managers(opt.managers, report.observation);
    add_dra_targets(report.observation, dra_gpus_of(report.managers.dra, report.managers.pod.uid, report.managers.pod.name));
  }
  if (report.observation.targets.empty()) throw InputError(report.observation.no_target_reason);
  report.placements = classify_all(report.observation);
  find_disagreements(report.managers, report.observation, report.placements);
  for (const std::string& w : report.managers.warnings) std::cerr << "placebench: warning: " << escape_control(w) << "\n";
  emit_report(ReportTargets::with_out(out, opt.output.json),
              {[&] { return json_text(audit_to_json(report), JsonForm::kStampedReplacingBadUtf8); },
               [&] { return render_audit_table(report); }});
  return report.exit_status();
}

}  // namespace

void add_audit_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<AuditCliOptions>();
  CLI::App* cmd = app.add_subcommand("audit", "Audit the placement this process (or --pid) was given against its GPUs; applies nothing");
  cmd->add_option("--pid", opt->audit.pid, "Audit this process (e.g. the training job beside this one) instead of placebench itself")
      ->transform(whole_number(1, kMaxCount, "POSITIVE"))
      ->type_name("PID");
  cmd->add_option("--device-numa,--device", opt->device,
                  "Judge against these NUMA nodes instead of the visible GPUs (a node without GPUs); --device is the old name, kept until 0.3")
      ->type_name("NODES");
  cmd->add_option("--topology", opt->audit.topology_file, "Judge against the GPUs and nodes of a saved hwloc XML instead of the live machine")
      ->type_name("FILE.xml");
  cmd->add_option("--probe-bytes", opt->probe_bytes, "Size of the probe buffer touched under the default policy")
      ->type_name("SIZE")
      ->default_val("4M");
  cmd->add_option("--proc-root", opt->audit.proc_root, "Read /proc from here (tests, a host's /proc mounted elsewhere)")
      ->type_name("DIR")
      ->default_val("/proc");
  cmd->add_option("--sys-root", opt->audit.sys_root, "Read /sys (the cgroup hierarchy, PCI devices) from here")
      ->type_name("DIR")
      ->default_val("/sys");
  cmd->add_option("--dev-root", opt->audit.dev_root, "Look for the nvidiaN device nodes here")->type_name("DIR")->default_val("/dev");
  struct FileOption {
    const char* name;
    std::string* value;
    const char* help;
  };
  for (const FileOption& f : {FileOption{"--cpu-manager-state", &opt->managers.cpu_manager_state, "The kubelet's CPU manager state"},
                              FileOption{"--memory-manager-state", &opt->managers.memory_manager_state, "The kubelet's memory manager state"},
                              FileOption{"--kubelet-config", &opt->managers.kubelet_config, "The kubelet's config (topologyManagerPolicy, Scope)"},
                              FileOption{"--annotations", &opt->managers.annotations, "The pod's annotations (downward API file)"},
                              FileOption{"--labels", &opt->managers.labels, "The pod's labels (downward API file)"},
                              FileOption{"--pod-resources-socket", &opt->managers.pod_resources_socket,
                                         "The kubelet's PodResources API socket (List/Get: devices, CPUs, memory, DRA claims)"},
                              FileOption{"--dra", &opt->managers.dra_file,
                                         "DRA records: kubectl get resourceclaims,resourceslices -A -o json"},
                              FileOption{"--dra-metadata", &opt->managers.dra_metadata_dir,
                                         "The DRA drivers' device metadata directory (KEP-5304; --pid: under /proc/PID/root)"}}) {
    std::string option = f.name;
    cmd->add_option(f.name, *f.value, f.help)->type_name("FILE")->default_str(*f.value)->each([opt, option](const std::string&) {
      opt->managers.given.push_back(option);
    });
  }
  cmd->add_option("--pod-uid", opt->managers.pod_uid, "The pod's UID (default: POD_UID, else the cgroup path's pod<uid>)")->type_name("UID");
  cmd->add_option("--container", opt->managers.container, "The container's name in the state files (default: CONTAINER_NAME)")
      ->type_name("NAME");
  cmd->add_option("--out", opt->output.out, "Also write the JSON to this file (whole or not at all; an existing file only with --force)")->type_name("FILE.json");
  add_force_flag(*cmd, opt->output.force);
  cmd->add_flag("--no-managers", opt->no_managers, "Read none of the kubelet's or the pod's files (the process and GPUs only)");
  cmd->add_flag("--json", opt->output.json, "Print the JSON (docs/audit.md) instead of the table");
  cmd->callback([opt, &action] { action = [opt] { return run_audit(*opt); }; });
}

}  // namespace placebench::harness
