// `placebench topo`: the node inventory (live or from a saved hwloc XML), as a table or JSON,
// and --export of the live topology for offline planning.
#include <hwloc.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/out_file.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/topology/inventory_diff.h"
#include "placebench/harness/topology/inventory_format.h"

namespace placebench::harness {
namespace {

struct TopoOptions {
  std::string topology_file;
  std::string export_file;
  std::string pci_gpus = "auto";
  std::string expect_file;
  bool json = false;
  bool force = false;
};

// The live topology as hwloc XML v2 (with I/O objects), in memory, for the output rule (out_file.h) to
// write: atomically, so a full disk or a kill leaves the old file (or none), never half an XML.
// (Topology::export_xml(path) writes a file by itself, past the rule: no longer used by the CLI.)
std::string topology_xml(const Topology& topo) {
  char* buffer = nullptr;
  int length = 0;
  if (hwloc_topology_export_xmlbuffer(topo.get(), &buffer, &length, 0) != 0 || !buffer)
    throw std::runtime_error(std::string("hwloc could not export the topology (") + std::strerror(errno) + ")");
  std::string xml(buffer, length > 0 ? static_cast<std::size_t>(length - 1) : 0);  // length counts the final NUL
  hwloc_free_xmlbuffer(topo.get(), buffer);
  return xml;
}

PciGpuFallback parse_pci_gpus(const std::string& v) {
  if (v == "auto") return PciGpuFallback::kAuto;
  if (v == "on") return PciGpuFallback::kOn;
  return PciGpuFallback::kOff;  // CLI11 has checked the value
}

int run_topo(const TopoOptions& opt) {
  if (!opt.topology_file.empty() && !opt.export_file.empty())
    throw InputError("topo: --export saves the live machine; it cannot be combined with --topology");
  const OutputTarget exported = check_output("--export", opt.export_file, opt.force);
  Topology topo = opt.topology_file.empty() ? Topology::load_live() : Topology::load_file(opt.topology_file);
  if (exported.given()) {
    write_output(exported, topology_xml(topo));
    std::cerr << "placebench topo: saved the live topology to " << opt.export_file << "\n";
    if (exported.to_stdout) return kExitOk;  // the XML is this command's output
  }
  Inventory inv = build_inventory(topo, parse_pci_gpus(opt.pci_gpus));
  if (topo.is_live()) cross_check_live(inv, kernels::query_device_runtime());
  if (!opt.expect_file.empty()) return report_expected_inventory(inv, topo.is_live(), opt.expect_file, opt.json, std::cout);
  emit_report(ReportTargets::printing(opt.json),
              {[&] { return json_text(inventory_to_json(inv)); }, [&] { return render_inventory_table(inv); }});
  return kExitOk;
}

}  // namespace

void add_topo_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<TopoOptions>();
  CLI::App* cmd = app.add_subcommand("topo", "Node inventory: packages, NUMA nodes, distances, GPUs, NICs, allowed CPUs");
  cmd->add_option("--topology", opt->topology_file, "Read a saved hwloc XML instead of the live machine (never used to bind)")
      ->type_name("FILE.xml");
  cmd->add_option("--export", opt->export_file, "Save the live topology, with I/O objects, as hwloc XML to this file")
      ->type_name("FILE.xml");
  add_force_flag(*cmd, opt->force);
  cmd->add_option("--pci-gpus", opt->pci_gpus,
                  "Count NVIDIA PCI display devices without a CUDA/NVML OS device as GPUs (auto: only live)")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->type_name("auto|on|off")
      ->default_val("auto");
  cmd->add_option("--expect", opt->expect_file,
                  "Compare with the expected inventory (hwloc XML or topo --json); exit 1 with the differences")
      ->type_name("FILE");
  cmd->add_flag("--json", opt->json, "Print one JSON object (schema in docs/cli.md) instead of the table");
  cmd->callback([opt, &action] { action = [opt] { return run_topo(*opt); }; });
}

}  // namespace placebench::harness
