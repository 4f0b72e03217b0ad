// The pipeline driver: validates the configuration, resolves the arm and the backend, builds the
// dataset, ring, consumer and contention, runs the engine with each worker bound and recorded on its own
// thread and the training loop on the caller's (placed for the run), and summarises (see pipeline.h).
#include "placebench/harness/workloads/pipeline.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
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

struct Backend {
  std::string name, reason;
  int gpu = -1;
  std::uint64_t device_memory_bytes = 0;
};

Backend choose_backend(const PipelineConfig& cfg) {
  if (cfg.backend == "host") return {"host", "requested", -1, 0};
  if (cfg.backend != "auto" && cfg.backend != "cuda")
    throw InputError("--backend: unknown '" + cfg.backend + "'; accepted: auto, cuda, host");
  kernels::DeviceRuntime rt = kernels::query_device_runtime();
  int gpu = cfg.placement.device.gpu.value_or(0);
  auto memory = [&] {
    for (const auto& d : rt.devices)
      if (d.index == gpu) return d.total_memory_bytes;
    return std::uint64_t{0};
  };
  if (cfg.backend == "cuda") {
    if (!rt.usable())
      throw InputError("--backend cuda: no usable CUDA device (" + rt.status + "); use --backend host or auto");
    return {"cuda", "requested", gpu, memory()};
  }
  if (rt.usable() && !cfg.placement.device.device_numa) return {"cuda", "auto: a CUDA device is usable", gpu, memory()};
  return {"host", "auto: " + (rt.usable() ? std::string("--device-numa names a host device") : "CUDA: " + rt.status), -1, 0};
}

std::uint64_t mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;  // unknown: no check
}

void check_counts(const PipelineConfig& c) {
  if (c.workers < 1) throw InputError("--workers must be at least 1 (a pipeline with no workers produces nothing)");
  if (c.prefetch < 1) throw InputError("--prefetch must be at least 1");
  int ring = c.ring ? c.ring : c.prefetch + c.workers + 1;
  if (ring < c.prefetch + 1)
    throw InputError(fmt::format("--ring {} is smaller than --prefetch {} + 1: the queue holds {} buffers and the training "
                                 "loop one more; use --ring {} or more",
                                 c.ring, c.prefetch, c.prefetch, c.prefetch + 1));
  if (c.steps < 1) throw InputError("--steps must be at least 1");
  if (c.warmup < 0) throw InputError("--warmup must be 0 or more");
  if (c.batch_samples < 1) throw InputError("--batch-samples must be at least 1");
  if (c.dataset_samples < 1) throw InputError("--dataset-samples must be at least 1");
  if (!(c.step_compute_s >= 0) || !std::isfinite(c.step_compute_s)) throw InputError("--step-compute must be 0 or more");
  if (!(c.cpu_work_ns_per_kib >= 0) || !std::isfinite(c.cpu_work_ns_per_kib)) throw InputError("--cpu-work must be 0 or more");
  if (c.stall_timeout_s < 0) throw InputError("--stall-timeout must be positive");
  if (c.decode == DecodeKind::kJpeg && c.batch_bytes)
    throw InputError("--batch-bytes: the jpeg stage decodes images; give --batch-samples N --image WxH instead");
  if (c.decode == DecodeKind::kJpeg && c.cpu_work_ns_per_kib > 0)
    throw InputError("--cpu-work applies to --decode synthetic only (jpeg's work is the decoding itself)");
  if (!c.batch_bytes && (c.image_width < 1 || c.image_height < 1)) throw InputError("--image: width and height must be positive");
  if (c.batch_bytes && c.batch_bytes % static_cast<std::uint64_t>(c.batch_samples) != 0)
    throw InputError(fmt::format("--batch-bytes {} is not a multiple of --batch-samples {}", c.batch_bytes, c.batch_samples));
}

ArmPlan resolve_plan(const Inventory& inv, const PipelineConfig& c) {
  ArmPlan plan;
  if (c.plan) {
    plan = *c.plan;
  } else {
    if (c.placement.arms.size() != 1) throw InputError("--arm: the pipeline runs exactly one arm per run");
    PlanRequest req = c.placement;
    req.workers = c.workers;
    plan = plan_arms(inv, req).front();
  }
  if (plan.workers.size() < static_cast<std::size_t>(c.workers))
    throw InputError(fmt::format("the plan has {} worker placement(s), --workers asks for {}", plan.workers.size(), c.workers));
  return plan;
}

void check_contention(const Inventory& inv, const std::vector<hostpipe::ContentionTask>& tasks) {
  for (const auto& t : tasks)
    for (int n : t.mem_nodes) {
      bool found = false;
      for (const auto& node : inv.numa_nodes) found = found || static_cast<int>(node.os_index) == n;
      if (!found) throw InputError(fmt::format("--contention: NUMA node {} does not exist on this machine", n));
    }
}

void check_memory(const Backend& backend, const PipelineResult& r, std::size_t consumer_bytes) {
  std::uint64_t ring_bytes = r.batch_bytes * static_cast<std::uint64_t>(r.ring);
  std::uint64_t need = ring_bytes + r.dataset_bytes + consumer_bytes;
  std::uint64_t avail = mem_available_bytes();
  if (avail && static_cast<double>(need) > kMemoryShare * static_cast<double>(avail))
    throw InputError(fmt::format("--batch-bytes: the ring ({} x {}), dataset ({}) and device-side copy need {}, more than {:.0f}% of "
                                 "the {} this node has available; use a smaller batch, --ring or --dataset-samples",
                                 r.ring, format_size(r.batch_bytes), format_size(r.dataset_bytes), format_size(need),
                                 kMemoryShare * 100, format_size(avail)));
  if (backend.name == "cuda" && backend.device_memory_bytes && r.batch_bytes > backend.device_memory_bytes / 2)
    throw InputError(fmt::format("--batch-bytes: a {} batch does not fit beside the compute buffers in GPU {}'s {}",
                                 format_size(r.batch_bytes), backend.gpu, format_size(backend.device_memory_bytes)));
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

PipelineResult run_pipeline(const Inventory& inv, const PipelineConfig& cfg) {
  check_counts(cfg);
  check_contention(inv, cfg.contention);
  Backend backend = choose_backend(cfg);
  ArmPlan plan = resolve_plan(inv, cfg);

  PipelineResult r;
  r.backend = backend.name;
  r.backend_reason = backend.reason;
  r.arm = arm_name(plan.arm);
  r.decode = cfg.decode == DecodeKind::kJpeg ? "jpeg" : "synthetic";
  r.workers = cfg.workers;
  r.prefetch = cfg.prefetch;
  r.ring = cfg.ring ? cfg.ring : cfg.prefetch + cfg.workers + 1;
  r.batch_samples = cfg.batch_samples;
  hostpipe::BatchShape shape;
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
  r.stall_timeout_s = cfg.stall_timeout_s > 0 ? cfg.stall_timeout_s : 10.0 + 10.0 * cfg.step_compute_s;
  check_memory(backend, r, backend.name == "host" ? r.batch_bytes : 0);

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
  return r;
}

}  // namespace placebench::harness
