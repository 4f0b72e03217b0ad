// The pipeline driver: validates the configuration, resolves the arm and the backend, builds the
// dataset, ring, consumer and contention, runs the engine with each worker bound and recorded on its own
// thread and the training loop on the caller's (placed for the run), and summarises (see pipeline.h).
#include "placebench/harness/workloads/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <sstream>

#include "placebench/harness/errors.h"
#include "placebench/harness/units.h"
#include "placebench/hostpipe/binding.h"
#include "placebench/hostpipe/cpulist.h"
#include "placebench/hostpipe/pipeline/calibration.h"
#include "placebench/hostpipe/pipeline/engine.h"
#include "placebench/hostpipe/process_limits.h"
#include "placebench/kernels/device_runtime.h"

namespace placebench::harness {
namespace {

// Pages each worker allocates and touches from its bound thread to prove its placement.
constexpr std::size_t kWorkerProofBytes = std::size_t{256} << 10;
// Puts the calling thread's CPU affinity back as it was at construction.
class AffinityRestore {
 public:
  AffinityRestore() : cpus_(hostpipe::current_thread_affinity()) {}
  ~AffinityRestore() {
    if (!cpus_.empty()) hostpipe::bind_current_thread(cpus_);
  }
  AffinityRestore(const AffinityRestore&) = delete;
  AffinityRestore& operator=(const AffinityRestore&) = delete;

 private:
  std::vector<int> cpus_;
};

// Never plan to use more than this share of MemAvailable.
constexpr double kMemoryShare = 0.8;

[[noreturn]] void refuse(PipelineKey key, PipelineKeyNames names, const std::string& problem) {
  throw PipelineInputError(key, names(key), problem);
}

std::string seconds_text(double s) {
  return s < 1 ? fmt::format("{:.6g} ms", s * 1e3) : s < 3600 ? fmt::format("{:.6g} s", s) : fmt::format("{:.6g} h", s / 3600);
}

double stall_timeout_s(const PipelineConfig& c) { return c.stall_timeout_s > 0 ? c.stall_timeout_s : 10.0 + 10.0 * c.step_compute_s; }

struct Backend {
  std::string name, reason;
  int gpu = -1;
  std::uint64_t device_memory_bytes = 0;
};

Backend choose_backend(const PipelineConfig& cfg, PipelineKeyNames names) {
  if (cfg.backend == "host") return {"host", "requested", -1, 0};
  kernels::DeviceRuntime rt = kernels::query_device_runtime();
  int gpu = cfg.placement.device.gpu.value_or(0);
  auto memory = [&] {
    for (const auto& d : rt.devices)
      if (d.index == gpu) return d.total_memory_bytes;
    return std::uint64_t{0};
  };
  if (cfg.backend == "cuda") {
    if (!rt.usable())
      refuse(PipelineKey::kBackend, names,
             fmt::format("cuda: no usable CUDA device ({}); use {} host or auto", rt.status, names(PipelineKey::kBackend)));
    return {"cuda", "requested", gpu, memory()};
  }
  if (rt.usable() && !cfg.placement.device.device_numa) return {"cuda", "auto: a CUDA device is usable", gpu, memory()};
  return {"host", "auto: " + (rt.usable() ? std::string("--device-numa names a host device") : "CUDA: " + rt.status), -1, 0};
}

void check_counts(const PipelineConfig& c, PipelineKeyNames names) {
  using K = PipelineKey;
  if (c.backend != "auto" && c.backend != "cuda" && c.backend != "host")
    refuse(K::kBackend, names, "unknown '" + c.backend + "'; accepted: auto, cuda, host");
  auto count = [&](K key, int v, int least, const char* why) {
    if (v < least) refuse(key, names, fmt::format("{} must be at least {}{}", v, least, why));
    if (v > kMaxPipelineCount) refuse(key, names, fmt::format("{} is more than the {} accepted", v, kMaxPipelineCount));
  };
  count(K::kWorkers, c.workers, 1, " (a pipeline with no workers produces nothing)");
  count(K::kPrefetch, c.prefetch, 1, "");
  count(K::kRing, c.ring, 0, " (0: prefetch + workers + 1)");
  count(K::kBatchSamples, c.batch_samples, 1, "");
  count(K::kDatasetSamples, c.dataset_samples, 1, "");
  int ring = c.ring ? c.ring : c.prefetch + c.workers + 1;
  if (ring < c.prefetch + 1)
    refuse(K::kRing, names,
           fmt::format("{} is smaller than {} {} + 1: the queue holds {} buffers and the training loop one more; use {} {} or more",
                       c.ring, names(K::kPrefetch), c.prefetch, c.prefetch, names(K::kRing), c.prefetch + 1));
  constexpr int kMaxSteps = 100'000'000;
  if (c.steps < 1 || c.steps > kMaxSteps) refuse(K::kSteps, names, fmt::format("{} is not 1 to {}", c.steps, kMaxSteps));
  if (c.warmup < 0 || c.warmup > kMaxSteps) refuse(K::kWarmup, names, fmt::format("{} is not 0 to {}", c.warmup, kMaxSteps));
}

void check_shape(const PipelineConfig& c, PipelineKeyNames names) {
  using K = PipelineKey;
  if (c.decode == DecodeKind::kJpeg && c.batch_bytes)
    refuse(K::kBatchBytes, names, fmt::format("the jpeg stage decodes images; give {} N and {} WxH instead",
                                              names(K::kBatchSamples), names(K::kImage)));
  if (!c.batch_bytes && (c.image_width < 1 || c.image_height < 1 || c.image_width > kMaxImageSide || c.image_height > kMaxImageSide))
    refuse(K::kImage, names, fmt::format("{}x{}: width and height must be 1 to {}", c.image_width, c.image_height, kMaxImageSide));
  if (c.batch_bytes && c.batch_bytes % static_cast<std::uint64_t>(c.batch_samples) != 0)
    refuse(K::kBatchBytes, names, fmt::format("{} is not a multiple of {} {}", c.batch_bytes, names(K::kBatchSamples), c.batch_samples));
}

std::uint64_t batch_bytes(const PipelineConfig& c) {
  return c.batch_bytes ? c.batch_bytes
                       : static_cast<std::uint64_t>(c.batch_samples) * hostpipe::image_sample_bytes(c.image_width, c.image_height);
}

// Durations, and one batch's synthetic work against the stall timeout: a worker checks for a stop only
// between batches, so a batch longer than the timeout would keep a stalled run from shutting down.
void check_durations(const PipelineConfig& c, PipelineKeyNames names) {
  using K = PipelineKey;
  auto duration = [&](K key, double v, double most, const char* example) {
    if (std::isnan(v) || v < 0) refuse(key, names, fmt::format("must be a duration, 0 or more (e.g. {})", example));
    if (std::isinf(v)) refuse(key, names, fmt::format("is infinite; give a finite duration of at most {} (e.g. {})", seconds_text(most), example));
    if (v > most) refuse(key, names, fmt::format("{} is more than the {} accepted; use at most {}", seconds_text(v), seconds_text(most), seconds_text(most)));
  };
  duration(K::kStepCompute, c.step_compute_s, kMaxStepComputeS, "2ms");
  duration(K::kStallTimeout, c.stall_timeout_s, kMaxStallTimeoutS, "30s");
  if (c.stall_timeout_s > 0 && c.step_compute_s >= c.stall_timeout_s)
    refuse(K::kStepCompute, names, fmt::format("{} is not below {} {}: workers wait up to a step for a free buffer; use a "
                                               "shorter step or a longer stall timeout",
                                               seconds_text(c.step_compute_s), names(K::kStallTimeout), seconds_text(c.stall_timeout_s)));
  if (std::isnan(c.cpu_work_ns_per_kib) || c.cpu_work_ns_per_kib < 0) refuse(K::kCpuWork, names, "must be 0 or more (ns of work per KiB)");
  if (std::isinf(c.cpu_work_ns_per_kib)) refuse(K::kCpuWork, names, "is infinite; give ns of work per KiB (e.g. 100)");
  if (c.decode == DecodeKind::kJpeg && c.cpu_work_ns_per_kib > 0)
    refuse(K::kCpuWork, names, "applies to the synthetic stage only (jpeg's work is the decoding itself)");
  double kib = static_cast<double>(batch_bytes(c)) / 1024.0;
  double work_s = c.cpu_work_ns_per_kib * kib * 1e-9, stall_s = stall_timeout_s(c);
  if (work_s > stall_s) {
    std::string stall_name = names(K::kStallTimeout);
    std::string rule = c.stall_timeout_s > 0 ? stall_name : "auto: 10 s + 10 x " + names(K::kStepCompute);
    refuse(K::kCpuWork, names,
           fmt::format("one batch's synthetic work is {} of CPU time ({:g} ns/KiB x {:g} KiB), more than the stall timeout {} "
                       "({}): a worker would still be in that batch when the stall is declared; lower {} or the batch size{}",
                       seconds_text(work_s), c.cpu_work_ns_per_kib, kib, seconds_text(stall_s), rule, names(K::kCpuWork),
                       stall_name.empty() ? "" : fmt::format(", or give {} above {}", stall_name, seconds_text(work_s))));
  }
}

ArmPlan resolve_plan(const Inventory& inv, const PipelineConfig& c, PipelineKeyNames names) {
  ArmPlan plan;
  if (c.plan) {
    plan = *c.plan;
  } else {
    if (c.placement.arms.size() != 1) refuse(PipelineKey::kArm, names, "the pipeline runs exactly one arm per run");
    PlanRequest req = c.placement;
    req.workers = c.workers;
    plan = plan_arms(inv, req).front();
  }
  if (plan.workers.size() < static_cast<std::size_t>(c.workers))
    refuse(PipelineKey::kWorkers, names, fmt::format("the plan has {} worker placement(s), {} asks for {}", plan.workers.size(),
                                                     names(PipelineKey::kWorkers), c.workers));
  return plan;
}

// In doubles: a ring of a million terabyte batches must be refused, not overflow.
void check_memory(const Backend& backend, const PipelineResult& r, const std::vector<hostpipe::ContentionTask>& contention,
                  PipelineKeyNames names) {
  double consumer = backend.name == "host" ? static_cast<double>(r.batch_bytes) : 0;  // the device-side copy
  double ring = static_cast<double>(r.batch_bytes) * r.ring;
  double pipeline = ring + static_cast<double>(r.dataset_bytes) + consumer, streams = 0;
  for (const auto& t : contention) streams += static_cast<double>(t.buffer_bytes());
  double avail = static_cast<double>(hostpipe::mem_available_bytes()), most = kMemoryShare * avail;  // 0: unknown, no check
  auto size = [](double bytes) {
    constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    std::size_t unit = 0;
    for (; bytes >= 1024 && unit + 1 < std::size(kUnits); ++unit) bytes /= 1024;
    return fmt::format("{:.4g} {}", bytes, kUnits[unit]);
  };
  if (avail > 0 && pipeline > most)
    refuse(PipelineKey::kBatchBytes, names,
           fmt::format("the ring ({} x {}), dataset ({}) and device-side copy need {}, more than {:.0f}% of the {} this node has "
                       "available; use a smaller batch, {} or {}",
                       r.ring, size(static_cast<double>(r.batch_bytes)), size(static_cast<double>(r.dataset_bytes)), size(pipeline),
                       kMemoryShare * 100, size(avail), names(PipelineKey::kRing), names(PipelineKey::kDatasetSamples)));
  if (avail > 0 && pipeline + streams > most)
    refuse(PipelineKey::kContention, names,
           fmt::format("the stream threads' buffers ({}) and the pipeline ({}) need {}, more than {:.0f}% of the {} this node "
                       "has available; use fewer stream threads or a smaller SIZE (stream:NODE:THREADS:SIZE)",
                       size(streams), size(pipeline), size(pipeline + streams), kMemoryShare * 100, size(avail)));
  if (backend.name == "cuda" && backend.device_memory_bytes && r.batch_bytes > backend.device_memory_bytes / 2)
    refuse(PipelineKey::kBatchBytes, names, fmt::format("a {} batch does not fit beside the compute buffers in GPU {}'s {}",
                                                        format_size(r.batch_bytes), backend.gpu, format_size(backend.device_memory_bytes)));
}

// Everything run_pipeline settles before it allocates: the checked configuration, resolved.
struct Prepared {
  Backend backend;
  ArmPlan plan;
  hostpipe::BatchShape shape;
  PipelineResult result;  // the resolved configuration's fields
};

Prepared prepare(const Inventory& inv, const PipelineConfig& cfg, PipelineKeyNames names) {
  validate_pipeline_config(cfg, names);
  check_contention(inv, cfg.contention, names);
  Prepared p;
  p.backend = choose_backend(cfg, names);
  p.plan = resolve_plan(inv, cfg, names);
  PipelineResult& r = p.result;
  r.backend = p.backend.name;
  r.backend_reason = p.backend.reason;
  r.arm = arm_name(p.plan.arm);
  r.decode = cfg.decode == DecodeKind::kJpeg ? "jpeg" : "synthetic";
  r.workers = cfg.workers;
  r.prefetch = cfg.prefetch;
  r.ring = cfg.ring ? cfg.ring : cfg.prefetch + cfg.workers + 1;
  r.batch_samples = cfg.batch_samples;
  hostpipe::BatchShape& shape = p.shape;
  shape.samples = cfg.batch_samples;
  if (cfg.batch_bytes) {
    shape.sample_bytes = cfg.batch_bytes / static_cast<std::uint64_t>(cfg.batch_samples);
  } else {
    shape.width = r.image_width = cfg.image_width;
    shape.height = r.image_height = cfg.image_height;
    shape.sample_bytes = hostpipe::image_sample_bytes(cfg.image_width, cfg.image_height);
  }
  r.batch_bytes = shape.batch_bytes();
  // Synthetic: the dataset is its samples; jpeg: encoded images, far smaller than what they decode to.
  r.dataset_bytes = cfg.decode == DecodeKind::kJpeg ? 0 : shape.sample_bytes * static_cast<std::uint64_t>(cfg.dataset_samples);
  r.warmup = cfg.warmup;
  r.steps_requested = cfg.steps;
  r.step_compute_s = cfg.step_compute_s;
  r.cpu_work_ns_per_kib = cfg.cpu_work_ns_per_kib;
  r.stall_timeout_s = stall_timeout_s(cfg);
  check_memory(p.backend, r, cfg.contention, names);
  return p;
}

std::unique_ptr<hostpipe::DecodeStage> make_stage(const PipelineConfig& c, const hostpipe::BatchShape& shape,
                                                  const std::vector<int>& mem_nodes, double rate) {
  if (c.decode == DecodeKind::kJpeg) {
    hostpipe::JpegStageParams p;
    p.shape = shape;
    p.dataset_samples = c.dataset_samples;
    p.mem_nodes = mem_nodes;
    p.seed = c.seed;
    return hostpipe::make_jpeg_stage(p);
  }
  hostpipe::SyntheticStageParams p;
  p.shape = shape;
  p.dataset_samples = c.dataset_samples;
  p.cpu_work_ns_per_kib = c.cpu_work_ns_per_kib;
  p.element_iterations_per_ns = rate;
  p.mem_nodes = mem_nodes;
  p.seed = c.seed;
  return hostpipe::make_synthetic_stage(p);
}

// The ring's own record: memory only (no thread), so requested_cpus stays empty.
PlacementRecord ring_record(const ArmPlan& plan, const hostpipe::StagingRing& ring) {
  PlacementRecord rec;
  rec.arm = arm_name(plan.arm);
  rec.device_numa = plan.device_numa;
  rec.requested_mems = plan.workers.front().mem_nodes;
  rec.degenerate = plan.degenerate;
  if (!ring.memory().bind_error().empty()) rec.problems.push_back("bind memory: " + ring.memory().bind_error());
  verify_placement(rec, ring.memory());
  return rec;
}

void fill_summary(PipelineResult& r, const hostpipe::EngineResult& er, std::size_t pinned) {
  PipelineSummary& s = r.summary;
  s = summarize_steps(r.steps, r.batch_samples, r.batch_bytes);
  for (const auto& w : er.workers) s.worker_cpu_ns += w.cpu_ns;
  if (er.measured_ns > 0)
    s.cpu_util = static_cast<double>(s.worker_cpu_ns) / (static_cast<double>(r.workers) * static_cast<double>(er.measured_ns));
  s.peak_rss_bytes = er.resources.peak_rss_bytes;
  s.minor_faults = er.resources.minor_faults;
  s.major_faults = er.resources.major_faults;
  s.pinned_bytes = static_cast<std::int64_t>(pinned);
  // Stage rates: each worker's batches over its production time, summed; copy and compute per step.
  StageRates& st = s.stages;
  for (const auto& w : er.workers)
    if (w.produce_ns > 0) st.producers_batches_s += static_cast<double>(w.batches) / (static_cast<double>(w.produce_ns) / 1e9);
  double h2d = 0, compute = 0;
  for (const auto& step : r.steps) {
    h2d += static_cast<double>(step.h2d_ns);
    compute += static_cast<double>(step.compute_ns);
  }
  double n = static_cast<double>(r.steps.size());
  st.copy_batches_s = h2d > 0 ? n / (h2d / 1e9) : 0;
  st.compute_batches_s = compute > 0 ? n / (compute / 1e9) : 0;
  double slowest = 0;
  for (auto [name, rate] : {std::pair<const char*, double>{"producers", st.producers_batches_s}, {"copy", st.copy_batches_s},
                            {"compute", st.compute_batches_s}})
    if (rate > 0 && (slowest == 0 || rate < slowest)) {
      slowest = rate;
      st.bottleneck = name;
    }
  st.efficiency = slowest > 0 ? s.throughput_batches_s / slowest : 0;
}

}  // namespace

std::string input_bound_class(double pct) { return pct < 5 ? "not" : pct < 20 ? "moderately" : "highly"; }

std::string pipeline_option_name(PipelineKey key) {
  switch (key) {
    case PipelineKey::kBackend: return "--backend";
    case PipelineKey::kArm: return "--arm";
    case PipelineKey::kWorkers: return "--workers";
    case PipelineKey::kPrefetch: return "--prefetch";
    case PipelineKey::kRing: return "--ring";
    case PipelineKey::kBatchBytes: return "--batch-bytes";
    case PipelineKey::kBatchSamples: return "--batch-samples";
    case PipelineKey::kImage: return "--image";
    case PipelineKey::kDecode: return "--decode";
    case PipelineKey::kCpuWork: return "--cpu-work";
    case PipelineKey::kDatasetSamples: return "--dataset-samples";
    case PipelineKey::kStepCompute: return "--step-compute";
    case PipelineKey::kSteps: return "--steps";
    case PipelineKey::kWarmup: return "--warmup";
    case PipelineKey::kContention: return "--contention";
    case PipelineKey::kStallTimeout: return "--stall-timeout";
  }
  return "--?";
}

void validate_pipeline_config(const PipelineConfig& config, PipelineKeyNames names) {
  check_counts(config, names);
  check_shape(config, names);
  check_durations(config, names);
}

void check_pipeline(const Inventory& inv, const PipelineConfig& config, PipelineKeyNames names) { prepare(inv, config, names); }

PipelineResult run_pipeline(const Inventory& inv, const PipelineConfig& cfg) {
  Prepared prepared = prepare(inv, cfg, pipeline_option_name);
  PipelineResult& r = prepared.result;
  const hostpipe::BatchShape& shape = prepared.shape;
  const Backend& backend = prepared.backend;
  const ArmPlan& plan = prepared.plan;
  const std::vector<int>& mem_nodes = plan.workers.front().mem_nodes;
  double rate = hostpipe::calibrate_iterations_per_cpu_ns();
  auto stage = make_stage(cfg, shape, mem_nodes, rate);
  r.dataset_bytes = stage->dataset_bytes();
  hostpipe::StagingRing ring(r.ring, r.batch_bytes, mem_nodes);
  r.ring_placement = ring_record(plan, ring);
  auto step_compute = std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(cfg.step_compute_s * 1e9)));
  std::unique_ptr<hostpipe::StepConsumer> consumer;
  if (backend.name == "cuda")
    consumer = hostpipe::make_cuda_consumer({backend.gpu, r.batch_bytes, step_compute, ring.memory().data(), ring.memory().size()});
  else
    consumer = hostpipe::make_host_consumer({{plan.device_numa}, r.batch_bytes, step_compute, rate});

  std::vector<PlacedWorker> placed(static_cast<std::size_t>(cfg.workers));
  hostpipe::EngineHooks hooks;
  hooks.on_worker_start = [&](int w) { placed[static_cast<std::size_t>(w)] = apply_placement(plan, static_cast<std::size_t>(w), kWorkerProofBytes); };
  hooks.after_produce = cfg.test_after_produce;
  hooks.stop = cfg.stop;
  hostpipe::EngineParams params;
  params.workers = cfg.workers;
  params.prefetch = cfg.prefetch;
  params.warmup_steps = cfg.warmup;
  params.steps = cfg.steps;
  params.stall_timeout = std::chrono::nanoseconds(static_cast<std::int64_t>(r.stall_timeout_s * 1e9));

  hostpipe::ContentionThreads contention(cfg.contention);
  hostpipe::EngineResult er;
  {
    // This thread is the training loop: placed by the arm for the run, then given its affinity back
    // (run interleaves arms in one process). Workers start from here and then bind themselves.
    AffinityRestore restore;
    r.loop_placement = apply_placement(plan, plan.loop, kWorkerProofBytes).record;
    er = hostpipe::run_engine(params, *stage, ring, *consumer, hooks);
  }
  r.contention = contention.stop();

  r.status = er.status;
  r.error = er.error;
  for (const auto& s : er.steps) r.steps.push_back({s.wait_ns, s.h2d_ns, s.compute_ns, s.step_ns, s.queue_depth, s.worker, s.batch});
  for (auto& p : placed)
    if (!p.record.arm.empty()) r.worker_placement.push_back(p.record);
  fill_summary(r, er, consumer->pinned_bytes());
  return std::move(r);
}

}  // namespace placebench::harness
