// The dataloader-pipeline workload: a synthetic training loop whose step time splits into data wait,
// copy and compute, under one placement arm. W worker threads (each bound to its own CPUs of the arm)
// decode batches into a ring of R staging buffers on the arm's memory node; a prefetch queue of depth P
// feeds the training loop (the calling thread, bound for the run to the arm's CPUs that no worker holds),
// which copies each batch to the device (cuda) or to the device's NUMA node
// (host), checksums it there against the producer's checksum, and computes for the configured step.
// Mechanism in hostpipe/pipeline; this is the policy: placement, backend, validation, summary, printers.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "placebench/harness/errors.h"
#include "placebench/harness/placement/record.h"
#include "placebench/hostpipe/pipeline/contention.h"

namespace placebench::harness {

enum class DecodeKind { kSynthetic, kJpeg };

struct PipelineConfig {
  std::string backend = "auto";        // auto | cuda | host
  PlanRequest placement;               // device, one arm, CPUs per worker, remote node, degenerate;
                                       // `workers` is overridden by `workers` below
  std::optional<ArmPlan> plan;         // a resolved plan with >= `workers` worker placements: used as is
  int workers = 1;
  int prefetch = 2;
  int ring = 0;                        // 0: prefetch + workers + 1
  std::uint64_t batch_bytes = 0;       // 0: batch_samples x image (width x height x 3 floats)
  int batch_samples = 32;
  int image_width = 64, image_height = 64;
  DecodeKind decode = DecodeKind::kSynthetic;
  double cpu_work_ns_per_kib = 0;      // synthetic stage only
  int dataset_samples = 64;
  double step_compute_s = 2e-3;
  int steps = 50;
  int warmup = 5;
  std::vector<hostpipe::ContentionTask> contention;
  double stall_timeout_s = 0;          // 0 (auto): 10 s + 10 x step_compute
  std::uint64_t seed = 1;
  const std::atomic<bool>* stop = nullptr;  // set (e.g. by a SIGINT handler) to stop after the current step
  // Test-only: called on each produced batch after its checksum was taken (corrupt, throw, or stall).
  std::function<void(int worker, std::uint64_t batch, std::byte* data, std::size_t bytes)> test_after_produce;
};

struct PipelineStep {
  std::int64_t wait_ns = 0, h2d_ns = 0, compute_ns = 0, step_ns = 0;
  int queue_depth = 0;                 // batches ready when the step asked
  int worker = 0;
  std::uint64_t batch = 0;
};

// Throughput model (DS-Analyzer's min(F, P, G)): each stage's rate in batches/s from its mean time in
// this run: producers W / mean(produce), copy 1 / mean(h2d), compute 1 / mean(compute).
struct StageRates {
  double producers_batches_s = 0, copy_batches_s = 0, compute_batches_s = 0;
  std::string bottleneck;              // "producers", "copy" or "compute"
  double efficiency = 0;               // measured batches/s over the slowest stage's rate
};

struct PipelineSummary {
  std::size_t steps = 0;
  double throughput_samples_s = 0, throughput_bytes_s = 0, throughput_batches_s = 0;
  double input_bound_pct = 0;          // 100 x sum(wait + h2d) / sum(step)
  std::string input_bound_class;       // "not" (< 5%), "moderately" (5-20%), "highly" (>= 20%)
  double step_ns_median = 0, step_ns_p99 = 0, step_ns_mean = 0;
  double wait_ns_median = 0, wait_ns_p99 = 0, h2d_ns_median = 0, compute_ns_median = 0;
  // Means of the parts: they add up to step_ns_mean (medians of parts do not add up to anything).
  double wait_ns_mean = 0, h2d_ns_mean = 0, compute_ns_mean = 0;
  double wait_pct = 0;                 // 100 x sum(wait) / sum(step)
  double queue_depth_mean = 0;
  double cpu_util = 0;                 // workers' CPU time / (W x measured wall time)
  std::int64_t worker_cpu_ns = 0;
  std::int64_t peak_rss_bytes = 0, pinned_bytes = 0, minor_faults = 0, major_faults = 0;
  StageRates stages;
};

struct PipelineResult {
  std::string backend, backend_reason;
  std::string status = "ok";           // "ok", "interrupted" (stop request), "failed" (error says why)
  std::string error;
  // The resolved configuration.
  std::string arm, decode;
  int workers = 0, prefetch = 0, ring = 0, batch_samples = 0, image_width = 0, image_height = 0;
  std::uint64_t batch_bytes = 0, dataset_bytes = 0;
  int warmup = 0, steps_requested = 0;
  double step_compute_s = 0, cpu_work_ns_per_kib = 0, stall_timeout_s = 0;
  std::vector<PipelineStep> steps;     // measured steps completed
  PipelineSummary summary;
  std::vector<PlacementRecord> worker_placement;  // one per worker, from its own thread
  PlacementRecord ring_placement;      // the staging ring (requested_cpus empty: memory only)
  PlacementRecord loop_placement;      // the training loop (the consumer's thread): ArmPlan::loop
  std::vector<hostpipe::ContentionReport> contention;
};

// The configuration's keys, so that a refusal names the one at fault in its caller's terms.
enum class PipelineKey {
  kBackend, kArm, kWorkers, kPrefetch, kRing, kBatchBytes, kBatchSamples, kImage, kDecode, kCpuWork,
  kDatasetSamples, kStepCompute, kSteps, kWarmup, kContention, kStallTimeout
};
// How refusals name a key: the CLI's options (pipeline_option_name: "--ring") or a config file's keys
// (pipeline_config_key in runner/config.h). "" for a key that cannot be set there.
using PipelineKeyNames = std::string (*)(PipelineKey);
std::string pipeline_option_name(PipelineKey key);

// A refused configuration: what() is "NAME: problem"; `key` and `problem` let a config parser put its
// own file, line and key in front instead.
struct PipelineInputError : InputError {
  PipelineInputError(PipelineKey key_at_fault, const std::string& name, const std::string& what_is_wrong)
      : InputError(name + ": " + what_is_wrong), key(key_at_fault), problem(what_is_wrong) {}
  PipelineKey key;
  std::string problem;
};

// Limits beyond which a configuration is refused.
inline constexpr double kMaxStepComputeS = 60;     // a training step's compute: milliseconds to seconds
inline constexpr double kMaxStallTimeoutS = 3600;  // no wait longer than an hour
inline constexpr int kMaxPipelineCount = 1 << 20;  // workers, prefetch, ring, samples, dataset samples
inline constexpr int kMaxImageSide = 65536;
inline constexpr int kMaxContentionThreadsPerCpu = 4;

// Everything about the configuration that does not depend on the machine: counts, shapes, durations,
// the decode stage's options, and one batch's synthetic work against the stall timeout (a worker does
// not look at the stop flag inside a batch). Throws PipelineInputError naming the key with `names`.
void validate_pipeline_config(const PipelineConfig& config, PipelineKeyNames names = pipeline_option_name);

// validate_pipeline_config, then what run_pipeline checks on this machine before anything starts:
// contention (nodes, CPUs, thread count), the backend (cuda needs a usable device), the arm's plan and
// memory (ring, dataset, device-side copy and contention buffers within 80% of MemAvailable). Allocates
// nothing. Throws PipelineInputError (or the planner's InputError).
void check_pipeline(const Inventory& inv, const PipelineConfig& config, PipelineKeyNames names = pipeline_option_name);

// "not" / "moderately" / "highly" (TensorFlow profiler's input-pipeline analysis thresholds).
std::string input_bound_class(double input_bound_pct);

// Refuses nonsensical configurations (check_pipeline, naming CLI options), before anything starts;
// then runs. Failures of the run itself (stall, corrupted batch) and a stop request return a
// result whose status says so, with the steps measured so far; the caller must check `status`.
PipelineResult run_pipeline(const Inventory& inv, const PipelineConfig& config);

// "stream:NODE:THREADS[:SIZE][@CPUS]" and "spin:CPUS", joined with '+'; throws PipelineInputError
// (kContention) naming `where`. The syntax only: check_contention checks it against the machine.
std::vector<hostpipe::ContentionTask> parse_contention_spec(const std::string& spec, const std::string& where);
// NUMA nodes that exist (and this process may allocate on), CPUs this process may use, and at most
// kMaxContentionThreadsPerCpu threads per such CPU.
void check_contention(const Inventory& inv, const std::vector<hostpipe::ContentionTask>& tasks,
                      PipelineKeyNames names = pipeline_option_name);
// "WIDTHxHEIGHT" (e.g. 224x224), each side in [1, kMaxImageSide]; throws PipelineInputError (kImage).
std::pair<int, int> parse_image_size(const std::string& text, PipelineKeyNames names = pipeline_option_name);

// The step-only part of the summary (throughput, input-bound share, quantiles, queue depth); the
// driver adds worker CPU, memory and stage rates.
PipelineSummary summarize_steps(const std::vector<PipelineStep>& steps, int batch_samples, std::uint64_t batch_bytes);
nlohmann::json pipeline_to_json(const PipelineResult& result);
std::string render_pipeline_table(const PipelineResult& result);

}  // namespace placebench::harness
