// `placebench topo`: the node inventory (live or from a saved hwloc XML), as a table or JSON,
// and --export of the live topology for offline planning.
#include <iostream>
#include <memory>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
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
};

PciGpuFallback parse_pci_gpus(const std::string& v) {
  if (v == "auto") return PciGpuFallback::kAuto;
  if (v == "on") return PciGpuFallback::kOn;
  return PciGpuFallback::kOff;  // CLI11 has checked the value
}

int run_topo(const TopoOptions& opt) {
  if (!opt.topology_file.empty() && !opt.export_file.empty())
    throw InputError("topo: --export saves the live machine; it cannot be combined with --topology");
  Topology topo = opt.topology_file.empty() ? Topology::load_live() : Topology::load_file(opt.topology_file);
  if (!opt.export_file.empty()) {
    topo.export_xml(opt.export_file);
    std::cerr << "placebench topo: saved the live topology to " << opt.export_file << "\n";
  }
  Inventory inv = build_inventory(topo, parse_pci_gpus(opt.pci_gpus));
  if (topo.is_live()) cross_check_live(inv, kernels::query_device_runtime());
  if (!opt.expect_file.empty()) return report_expected_inventory(inv, topo.is_live(), opt.expect_file, opt.json, std::cout);
  if (opt.json)
    std::cout << with_evidence(inventory_to_json(inv)).dump(2) << "\n";
  else
    std::cout << render_inventory_table(inv);
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
