// `placebench pipeline`: the dataloader-style training loop under one placement arm; step time split
// into data wait, copy and compute. SIGINT stops after the current step: what was measured so far is
// printed and the exit status is 130.
#include <csignal>
#include <iostream>
#include <memory>
#include <tuple>

#include "placebench/harness/cli/cli.h"
#include "placebench/harness/cli/json_output.h"
#include "placebench/harness/cli/options.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"
#include "placebench/harness/workloads/pipeline.h"
#include "placebench/kernels/device_runtime.h"

namespace placebench::harness {
namespace {

constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

// Set by the SIGINT handler; lock-free, so setting it is async-signal-safe.
std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_sigint(int) { g_interrupt.store(true, std::memory_order_relaxed); }

// Installs the handler for the scope of a run and restores the previous one.
class SigintScope {
 public:
  SigintScope() {
    g_interrupt = false;
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_);
  }
  ~SigintScope() { sigaction(SIGINT, &old_, nullptr); }
  SigintScope(const SigintScope&) = delete;
  SigintScope& operator=(const SigintScope&) = delete;

 private:
  struct sigaction old_ {};
};

struct PipelineOptions {
  PipelineConfig config;
  std::string arm = "local", decode = "synthetic", batch_bytes, image = "64x64", step_compute = "2ms", contention,
              stall_timeout = "auto";
  bool json = false;
};

int run_pipeline_command(PipelineOptions& opt) {
  PipelineConfig& c = opt.config;
  c.placement.arms = parse_arm_list(opt.arm, "--arm");
  if (c.placement.arms.size() != 1) throw InputError("--arm: give exactly one arm (the pipeline runs one per run)");
  c.decode = opt.decode == "jpeg" ? DecodeKind::kJpeg : DecodeKind::kSynthetic;
  if (!opt.batch_bytes.empty()) c.batch_bytes = parse_size(opt.batch_bytes, "--batch-bytes", kMaxBufferBytes);
  if (!opt.batch_bytes.empty() && c.batch_bytes == 0) throw InputError("--batch-bytes must be positive");
  std::tie(c.image_width, c.image_height) = parse_image_size(opt.image);
  c.step_compute_s = parse_duration_s(opt.step_compute, "--step-compute");  // ranges: check_durations (pipeline.cpp)
  if (opt.stall_timeout != "auto") {
    c.stall_timeout_s = parse_duration_s(opt.stall_timeout, "--stall-timeout");
    if (c.stall_timeout_s <= 0) throw InputError("--stall-timeout must be positive (or auto)");
  }
  c.contention = parse_contention_spec(opt.contention, "--contention");
  PipelineResult result;
  {
    SigintScope sigint;
    c.stop = &g_interrupt;
    Topology topo = Topology::load_live();
    Inventory inv = build_inventory(topo);
    cross_check_live(inv, kernels::query_device_runtime());
    result = run_pipeline(inv, c);
  }
  emit_report(ReportTargets::printing(opt.json),
              {[&] { return json_text(pipeline_to_json(result)); }, [&] { return render_pipeline_table(result); }});
  if (result.status == "interrupted") {
    std::cerr << "placebench: interrupted after " << result.steps.size() << " measured step(s); results so far printed\n";
    return kExitInterrupted;
  }
  if (result.status == "failed") throw std::runtime_error(result.error);
  return kExitOk;
}

}  // namespace

void add_pipeline_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<PipelineOptions>();
  PipelineConfig& c = opt->config;
  // Counts in decimal; their ranges are the pipeline's to check (check_counts, pipeline.cpp), as for a config.
  const CLI::Validator an_int = whole_number(INT_MIN, INT_MAX);
  CLI::App* cmd = app.add_subcommand("pipeline", "Dataloader pipeline: step time split into data wait, copy and compute");
  cmd->add_option("--backend", c.backend, "cuda (a GPU), host (the device's NUMA node plays the device), or auto")
      ->check(CLI::IsMember({"auto", "cuda", "host"}))
      ->type_name("auto|cuda|host")
      ->default_val("auto");
  cmd->add_option("--arm", opt->arm, "The arm: " + arm_names_list())->type_name("A")->default_val("local");
  add_device_options(cmd, c.placement.device);
  add_placement_options(cmd, c.placement);
  cmd->add_option("--workers", c.workers, "Worker threads, each bound to its own CPUs of the arm")->type_name("W")
      ->transform(an_int)->default_val(1);
  cmd->add_option("--prefetch", c.prefetch, "Depth of the prefetch queue (ready batches)")->type_name("P")->transform(an_int)->default_val(2);
  cmd->add_option("--ring", c.ring, "Staging buffers in the ring, at least P + 1 (0: P + W + 1)")->type_name("R")->transform(an_int)->default_val(0);
  auto* image = cmd->add_option("--image", opt->image, "Sample image size; a sample is W x H x 3 floats")
                    ->type_name("WxH")->default_val("64x64");
  cmd->add_option("--batch-bytes", opt->batch_bytes, "Batch size in bytes instead of samples x image (synthetic only; 64M = 64 MiB, 64MB = 64,000,000 bytes; at most 1T)")
      ->type_name("SIZE")->excludes(image);
  cmd->add_option("--batch-samples", c.batch_samples, "Samples per batch")->type_name("N")->transform(an_int)->default_val(32);
  cmd->add_option("--decode", opt->decode, "Worker stage: jpeg (libjpeg-turbo decode, crop, flip, normalise) or synthetic")
      ->check(CLI::IsMember({"jpeg", "synthetic"}))
      ->type_name("jpeg|synthetic")
      ->default_val("synthetic");
  cmd->add_option("--cpu-work", c.cpu_work_ns_per_kib, "Synthetic stage: calibrated CPU work per KiB of sample, in ns")
      ->type_name("NS_PER_KB")->default_val(0);
  cmd->add_option("--dataset-samples", c.dataset_samples, "Distinct samples in the in-memory dataset")->type_name("N")->transform(an_int)->default_val(64);
  cmd->add_option("--step-compute", opt->step_compute, "Compute per step after the checksum kernel (2ms, 500us; at most 60s)")
      ->type_name("TIME")->default_val("2ms");
  cmd->add_option("--steps", c.steps, "Measured steps")->type_name("N")->transform(an_int)->default_val(50);
  cmd->add_option("--warmup", c.warmup, "Steps run and checked before measuring")->type_name("N")->transform(an_int)->default_val(5);
  cmd->add_option("--contention", opt->contention, "Background load: stream:NODE:THREADS[:SIZE][@CPUS] and/or spin:CPUS, joined with +")
      ->type_name("SPEC");
  cmd->add_option("--stall-timeout", opt->stall_timeout, "A stage waiting this long is a stall (error), at most 1h (auto: 10s + 10 x step compute)")
      ->type_name("TIME")->default_val("auto");
  cmd->add_flag("--json", opt->json, "Print one JSON object: config, steps, summary, placement, contention");
  cmd->callback([opt, &action] { action = [opt] { return run_pipeline_command(*opt); }; });
}

}  // namespace placebench::harness
