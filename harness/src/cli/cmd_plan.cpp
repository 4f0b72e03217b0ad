// `placebench plan`: each arm's resolved CPU set and memory nodes, on the live machine or a saved topology.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/placement/plan.h"
#include "placebench/harness/terminal_text.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {
namespace {

struct PlanOptions {
  std::string topology_file;
  std::string arms = "local,remote,unpinned,cpu-local-mem-remote,cpu-remote-mem-local";
  PlanRequest request;
  bool json = false;
};

std::vector<int> all_cpus(const ArmPlan& p) {
  std::vector<int> cpus;
  for (const auto& w : p.workers) cpus.insert(cpus.end(), w.cpus.begin(), w.cpus.end());
  return cpus;
}

nlohmann::json plan_to_json(const Inventory& inv, const std::vector<ArmPlan>& plans) {
  nlohmann::json arms = nlohmann::json::array();
  for (const auto& p : plans) {
    nlohmann::json workers = nlohmann::json::array();
    for (const auto& w : p.workers)
      workers.push_back({{"cpus", hostpipe::format_cpulist(w.cpus)}, {"mem_nodes", w.mem_nodes}});
    arms.push_back({{"arm", arm_name(p.arm)},
                    {"cpus", hostpipe::format_cpulist(all_cpus(p))},
                    {"mem_nodes", p.mem_node < 0 ? std::vector<int>{} : std::vector<int>{p.mem_node}},
                    {"numa_node_of_device", p.device_numa},
                    {"cpu_node", p.cpu_node < 0 ? nlohmann::json(nullptr) : nlohmann::json(p.cpu_node)},
                    {"degenerate", p.degenerate},
                    {"workers", workers},
                    {"loop", {{"cpus", hostpipe::format_cpulist(p.loop.cpus)}, {"mem_nodes", p.loop.mem_nodes}}},
                    {"notes", p.notes}});
  }
  return {{"schema_version", 1},
          {"source", inv.source},
          {"numa_node_of_device", plans.empty() ? -1 : plans.front().device_numa},
          {"arms", arms}};
}

std::string plan_table(const Inventory& inv, const std::vector<ArmPlan>& plans) {
  std::string out = fmt::format("Topology: {}   device NUMA node: {}\n\n", inv.source, plans.front().device_numa);
  out += fmt::format("{:<22} {:>8} {:>8}  {:<20} {}\n", "Arm", "CPU node", "Mem node", "CPUs", "Notes");
  for (const auto& p : plans) {
    std::string cpus = p.cpu_node < 0 ? "(not bound)" : hostpipe::format_cpulist(all_cpus(p));
    std::string notes;
    for (const auto& n : p.notes) notes += (notes.empty() ? "" : "; ") + n;
    std::string row = fmt::format("{:<22} {:>8} {:>8}  {:<20} ", arm_name(p.arm), p.cpu_node < 0 ? "-" : std::to_string(p.cpu_node),
                                  p.mem_node < 0 ? "-" : std::to_string(p.mem_node), cpus);
    // Notes wrap under their column at 100 columns; a row without notes has no trailing spaces.
    out += notes.empty() ? trim_right(row) + "\n" : wrap_words(notes, row, row.size(), 100);
  }
  return out;
}

int run_plan(PlanOptions& opt) {
  Topology topo = opt.topology_file.empty() ? Topology::load_live() : Topology::load_file(opt.topology_file);
  Inventory inv = build_inventory(topo);
  if (topo.is_live()) cross_check_live(inv, kernels::query_device_runtime());
  opt.request.arms = parse_arm_list(opt.arms, "--arms");
  std::vector<ArmPlan> plans = plan_arms(inv, opt.request);
  emit_report(ReportTargets::printing(opt.json),
              {[&] { return json_text(plan_to_json(inv, plans)); }, [&] { return plan_table(inv, plans); }});
  return kExitOk;
}

}  // namespace

void add_plan_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand("plan", "Resolve placement arms to CPU sets and memory nodes (live or saved topology)");
  cmd->add_option("--topology", opt->topology_file, "Plan on a saved hwloc XML instead of the live machine")
      ->type_name("FILE.xml");
  add_device_options(cmd, opt->request.device);
  cmd->add_option("--arms", opt->arms, "Comma-separated arms: " + arm_names_list())->type_name("a,b,...")
      ->default_str("all");
  add_placement_options(cmd, opt->request);
  cmd->add_option("--workers", opt->request.workers, "Workers sharing the device's node (disjoint CPU sets)")
      ->type_name("W")
      ->transform(whole_number(1, kMaxCount, "POSITIVE"))
      ->default_val(1);
  cmd->add_flag("--json", opt->json, "Print one JSON object instead of the table");
  cmd->callback([opt, &action] { action = [opt] { return run_plan(*opt); }; });
}

}  // namespace placebench::harness
