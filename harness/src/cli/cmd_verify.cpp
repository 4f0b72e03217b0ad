// `placebench verify`: apply one arm on the live machine, allocate and touch a buffer, and prove
// where the thread and the pages really are. Exit 0 only when the record is `verified`.
#include <fmt/format.h>

#include <memory>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/placement/record.h"
#include "placebench/harness/topology/inventory.h"
#include "placebench/harness/units.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/process_limits.h"
#include "placebench/kernels/staging_copy.h"

namespace placebench::harness {
namespace {

struct VerifyOptions {
  std::string arm;
  std::string bytes = "64M";
  PlanRequest request;
  ReportOutput output;
};

// The JSON verify prints and writes: the placement record with its schema version (and evidence).
constexpr int kVerifySchemaVersion = 1;
nlohmann::json verify_json(const PlacementRecord& record) {
  nlohmann::json j = placement_to_json(record);
  j["schema_version"] = kVerifySchemaVersion;
  return j;
}

std::string record_table(const PlacementRecord& r, std::size_t bytes) {
  std::string pages;
  for (const auto& [node, count] : r.pages)
    pages += fmt::format("{}{}: {}", pages.empty() ? "" : ", ",
                         node == -1 ? "not present" : node == -2 ? "unknown" : "node " + std::to_string(node), count);
  std::string out = fmt::format("Arm {} (device NUMA node {}){}\n", r.arm, r.device_numa, r.degenerate ? "  [degenerate]" : "");
  out += fmt::format("  requested   CPUs {:<16} memory nodes {}\n",
                     r.requested_cpus.empty() ? "(not bound)" : hostpipe::format_cpulist(r.requested_cpus),
                     r.requested_mems.empty() ? "(default policy)" : hostpipe::format_cpulist(r.requested_mems));
  out += fmt::format("  effective   CPUs {:<16} memory policy {} {}\n", hostpipe::format_cpulist(r.effective_cpus),
                     r.mem_policy, hostpipe::format_cpulist(r.mem_policy_nodes));
  out += fmt::format("  pages       {} ({}; {:.2f}% on the requested nodes)\n", pages, format_size(bytes), r.requested_pages_pct);
  out += fmt::format("  pinned      {}\n", r.pinned ? "yes (cudaHostRegister)" : "no (no usable GPU)");
  out += fmt::format("  status      {}\n", r.status);
  for (const auto& p : r.problems) out += "  problem     " + p + "\n";
  return out;
}

// As staging and pipeline do before they allocate: a buffer above 80% of MemAvailable is refused (exit 2)
// instead of being allocated and touched until the process dies.
void check_verify_memory(std::uint64_t bytes) {
  constexpr double kShare = 0.8;
  std::uint64_t avail = hostpipe::mem_available_bytes();  // 0: unknown, no check
  if (avail && static_cast<double>(bytes) > kShare * static_cast<double>(avail))
    throw InputError(fmt::format("--bytes: {} is more than {:.0f}% of the {:.1f} GiB this node has available (MemAvailable); "
                                 "give a smaller size", format_size(bytes), kShare * 100, static_cast<double>(avail) / 1073741824.0));
}

int run_verify(VerifyOptions& opt) {
  auto arm = parse_arm(opt.arm);
  if (!arm) throw InputError("--arm: unknown arm '" + opt.arm + "'; accepted: " + arm_names_list());
  std::size_t bytes = parse_size(opt.bytes, "--bytes", kMaxBufferBytes);
  check_verify_memory(bytes);
  const OutputTarget out = check_report_out(opt.output);
  Topology topo = Topology::load_live();  // verification only ever runs on the live machine
  Inventory inv = build_inventory(topo);
  cross_check_live(inv, kernels::query_device_runtime());
  opt.request.arms = {*arm};
  ArmPlan plan = plan_arms(inv, opt.request).front();
  PlacedWorker placed = apply_placement(plan, 0, bytes);
  // On a GPU node, pin the placed buffer as the staging workloads do (cudaHostRegister keeps the pages
  // where they are); verification above already saw them, pinning must not move them.
  bool registered = false;
  if (kernels::query_device_runtime().usable()) {
    try {
      kernels::host_register(placed.buffer.data(), placed.buffer.size());
      registered = placed.record.pinned = true;
      verify_placement(placed.record, placed.buffer);
    } catch (const std::exception& e) {
      placed.record.problems.push_back(std::string("cudaHostRegister: ") + e.what());
      placed.record.status = "failed";
    }
  }
  emit_report(ReportTargets::with_out(out, opt.output.json),  // a failed record is evidence too
              {[&] { return json_text(verify_json(placed.record)); }, [&] { return record_table(placed.record, bytes); }});
  if (registered) kernels::host_unregister(placed.buffer.data());
  return placed.record.status == "verified" ? kExitOk : kExitFailed;
}

}  // namespace

void add_verify_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<VerifyOptions>();
  CLI::App* cmd = app.add_subcommand("verify", "Apply one arm on this machine and prove where threads and pages are");
  cmd->add_option("--arm", opt->arm, "The arm: " + arm_names_list())->type_name("A")->required();
  add_device_options(cmd, opt->request.device);
  cmd->add_option("--bytes", opt->bytes, "Buffer to allocate and touch (4K, 64M = 64 MiB, 64MB = 64,000,000 bytes; at most 1T and 80% of MemAvailable)")->type_name("SIZE")->default_val("64M");
  add_placement_options(cmd, opt->request);
  cmd->add_flag("--json", opt->output.json, "Print the placement record as JSON");
  cmd->add_option("--out", opt->output.out, "Also write the JSON record to this file (whole or not at all; an existing file only with --force)")
      ->type_name("FILE");
  add_force_flag(*cmd, opt->output.force);
  cmd->callback([opt, &action] { action = [opt] { return run_verify(*opt); }; });
}

}  // namespace placebench::harness
