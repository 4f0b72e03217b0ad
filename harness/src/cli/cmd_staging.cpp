// `placebench staging`: host-to-device (or host-node-to-device-node) copy bandwidth per arm and size.
#include <memory>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"
#include "placebench/harness/workloads/staging.h"

namespace placebench::harness {
namespace {

struct StagingOptions {
  StagingConfig config;
  std::string arm, arms = "local", direction = "h2d", memory = "pinned", sizes = "4K:64M:x4";
  bool json = false;
};

int run_staging_command(StagingOptions& opt) {
  if (!opt.arm.empty()) opt.arms = opt.arm;
  opt.config.placement.arms = parse_arm_list(opt.arms, opt.arm.empty() ? "--arms" : "--arm");
  opt.config.direction = opt.direction == "h2d" ? Direction::kH2D : opt.direction == "d2h" ? Direction::kD2H : Direction::kBidir;
  opt.config.memory = opt.memory == "pinned"     ? HostMemory::kPinned
                      : opt.memory == "pageable" ? HostMemory::kPageable
                      : opt.memory == "registered" ? HostMemory::kRegistered
                                                   : HostMemory::kHostAlloc;
  opt.config.sizes = parse_size_sweep(opt.sizes, "--sizes", kMaxBufferBytes);
  Topology topo = Topology::load_live();
  Inventory inv = build_inventory(topo);
  cross_check_live(inv, kernels::query_device_runtime());
  StagingResult result = run_staging(inv, opt.config);
  emit_report(ReportTargets::printing(opt.json),
              {[&] { return json_text(staging_to_json(result)); }, [&] { return render_staging_table(result); }});
  return kExitOk;
}

}  // namespace

void add_staging_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<StagingOptions>();
  CLI::App* cmd = app.add_subcommand("staging", "Host-to-device staging bandwidth per placement arm and size");
  cmd->add_option("--backend", opt->config.backend, "cuda (a GPU), host (memcpy to the device's NUMA node), or auto")
      ->check(CLI::IsMember({"auto", "cuda", "host"}))
      ->type_name("auto|cuda|host")
      ->default_val("auto");
  auto* arm = cmd->add_option("--arm", opt->arm, "One arm: " + arm_names_list())->type_name("A");
  cmd->add_option("--arms", opt->arms, "Several arms, comma-separated")->type_name("a,b")->default_val("local")->excludes(arm);
  add_device_options(cmd, opt->config.placement.device);
  add_placement_options(cmd, opt->config.placement);
  cmd->add_option("--direction", opt->direction, "Copy direction")
      ->check(CLI::IsMember({"h2d", "d2h", "bidir"}))
      ->type_name("h2d|d2h|bidir")
      ->default_val("h2d");
  cmd->add_option("--memory", opt->memory, "Host memory: pinned/registered (bound, touched, cudaHostRegister), "
                                           "pageable, hostalloc (cudaHostAlloc; cuda only)")
      ->check(CLI::IsMember({"pinned", "pageable", "registered", "hostalloc"}))
      ->type_name("KIND")
      ->default_val("pinned");
  cmd->add_option("--sizes", opt->sizes, "Sizes: START:END:xFACTOR or a list (4K,64M); 64M = 64 MiB, 64MB = 64,000,000 bytes; at most 1T")->type_name("SPEC")->default_val("4K:64M:x4");
  cmd->add_option("--samples", opt->config.samples, "Timed samples per size")->type_name("N")
      ->transform(whole_number(1, kMaxCount, "POSITIVE"))->default_val(20);
  cmd->add_option("--copies", opt->config.copies_per_sample, "Copies per sample (0: about 2 ms worth)")
      ->type_name("N")->transform(whole_number(0, kMaxCount, "NONNEGATIVE"))->default_val(0);
  cmd->add_option("--warmup", opt->config.warmup_copies, "Untimed warm-up copies per size")->type_name("N")
      ->transform(whole_number(0, kMaxCount, "NONNEGATIVE"))->default_val(2);
  cmd->add_flag("--json", opt->json, "Print one JSON object: backend and rows (with every sample and the placement)");
  cmd->callback([opt, &action] { action = [opt] { return run_staging_command(*opt); }; });
}

}  // namespace placebench::harness
