// Pipeline summary and printers (see pipeline.h). Metric definitions:
//   throughput        measured steps x samples (bytes) per batch / sum(step_ns)
//   input_bound_pct   100 x sum(wait_ns + h2d_ns) / sum(step_ns): the share of the step spent getting
//                     data to the device, as TensorFlow's input-pipeline analysis reports it, classified
//                     < 5% not, 5-20% moderately, >= 20% highly input-bound
//   quantiles         Hyndman-Fan type 7 over the measured steps (stats::quantile_estimate_sorted)
//   cpu_util          workers' thread CPU time over the measured steps / (W x their wall time)
#include <fmt/format.h>

#include <algorithm>

#include "placebench/stats/quantile.h"
#include "placebench/harness/units.h"
#include "placebench/harness/workloads/pipeline.h"
#include "placebench/hostpipe/cpulist.h"

namespace placebench::harness {
namespace {

template <class Get>
std::vector<double> sorted_field(const std::vector<PipelineStep>& steps, Get get) {
  std::vector<double> v;
  v.reserve(steps.size());
  for (const auto& s : steps) v.push_back(static_cast<double>(get(s)));
  std::sort(v.begin(), v.end());
  return v;
}

std::string format_ns(double ns) {
  if (ns >= 1e9) return fmt::format("{:.3f} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.1f} us", ns / 1e3);
  return fmt::format("{:.0f} ns", ns);
}

nlohmann::json task_json(const hostpipe::ContentionReport& c) {
  bool stream = c.task.kind == hostpipe::ContentionTask::Kind::kStream;
  return {{"kind", stream ? "stream" : "spin"},
          {"cpus", hostpipe::format_cpulist(c.task.cpus)},
          {"mem_nodes", c.task.mem_nodes},
          {"bytes", stream ? c.task.bytes : 0},
          {"seconds", c.seconds},
          {"gbps", c.gbps()},
          {"problem", c.problem}};
}

// "Placement:    worker 0 CPUs 2-3 memory 1: verified".
std::string placement_line(const std::string& who, const PlacementRecord& p) {
  return fmt::format("Placement:    {} CPUs {} memory {}: {}{}\n", who,
                     p.requested_cpus.empty() ? "(not bound)" : hostpipe::format_cpulist(p.requested_cpus),
                     p.requested_mems.empty() ? "(default)" : hostpipe::format_cpulist(p.requested_mems), p.status,
                     p.degenerate ? " (degenerate)" : "");
}

}  // namespace

PipelineSummary summarize_steps(const std::vector<PipelineStep>& steps, int batch_samples, std::uint64_t batch_bytes) {
  PipelineSummary s;
  s.steps = steps.size();
  if (steps.empty()) {
    s.input_bound_class = input_bound_class(0);
    return s;
  }
  double step = 0, wait = 0, h2d = 0, compute = 0, depth = 0;
  for (const auto& x : steps) {
    step += static_cast<double>(x.step_ns);
    wait += static_cast<double>(x.wait_ns);
    h2d += static_cast<double>(x.h2d_ns);
    compute += static_cast<double>(x.compute_ns);
    depth += x.queue_depth;
  }
  double n = static_cast<double>(steps.size());
  if (step > 0) {
    s.throughput_batches_s = n / (step / 1e9);
    s.throughput_samples_s = s.throughput_batches_s * batch_samples;
    s.throughput_bytes_s = s.throughput_batches_s * static_cast<double>(batch_bytes);
    s.input_bound_pct = 100.0 * (wait + h2d) / step;
    s.wait_pct = 100.0 * wait / step;
  }
  s.input_bound_class = input_bound_class(s.input_bound_pct);
  s.step_ns_mean = step / n;
  s.wait_ns_mean = wait / n;
  s.h2d_ns_mean = h2d / n;
  s.compute_ns_mean = compute / n;
  s.queue_depth_mean = depth / n;
  auto q = [](const std::vector<double>& v, double p) { return stats::quantile_estimate_sorted(v, p); };
  auto steps_sorted = sorted_field(steps, [](const PipelineStep& x) { return x.step_ns; });
  auto waits = sorted_field(steps, [](const PipelineStep& x) { return x.wait_ns; });
  s.step_ns_median = q(steps_sorted, 0.5);
  s.step_ns_p99 = q(steps_sorted, 0.99);
  s.wait_ns_median = q(waits, 0.5);
  s.wait_ns_p99 = q(waits, 0.99);
  s.h2d_ns_median = q(sorted_field(steps, [](const PipelineStep& x) { return x.h2d_ns; }), 0.5);
  s.compute_ns_median = q(sorted_field(steps, [](const PipelineStep& x) { return x.compute_ns; }), 0.5);
  return s;
}

nlohmann::json pipeline_to_json(const PipelineResult& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : r.steps)
    steps.push_back({{"wait_ns", s.wait_ns}, {"h2d_ns", s.h2d_ns}, {"compute_ns", s.compute_ns}, {"step_ns", s.step_ns},
                     {"queue_depth", s.queue_depth}, {"worker", s.worker}, {"batch", s.batch}});
  const PipelineSummary& m = r.summary;
  nlohmann::json summary = {
      {"steps", m.steps},
      {"throughput_samples_s", m.throughput_samples_s},
      {"throughput_bytes_s", m.throughput_bytes_s},
      {"throughput_batches_s", m.throughput_batches_s},
      {"input_bound_pct", m.input_bound_pct},
      {"input_bound_class", m.input_bound_class},
      {"wait_pct", m.wait_pct},
      {"step_ns_median", m.step_ns_median},
      {"step_ns_p99", m.step_ns_p99},
      {"step_ns_mean", m.step_ns_mean},
      {"wait_ns_median", m.wait_ns_median},
      {"wait_ns_p99", m.wait_ns_p99},
      {"h2d_ns_median", m.h2d_ns_median},
      {"compute_ns_median", m.compute_ns_median},
      {"wait_ns_mean", m.wait_ns_mean},
      {"h2d_ns_mean", m.h2d_ns_mean},
      {"compute_ns_mean", m.compute_ns_mean},
      {"queue_depth_mean", m.queue_depth_mean},
      {"cpu_util", m.cpu_util},
      {"worker_cpu_ns", m.worker_cpu_ns},
      {"peak_rss_bytes", m.peak_rss_bytes},
      {"pinned_bytes", m.pinned_bytes},
      {"minor_faults", m.minor_faults},
      {"major_faults", m.major_faults},
      {"stage_rates",
       {{"producers_batches_s", m.stages.producers_batches_s},
        {"copy_batches_s", m.stages.copy_batches_s},
        {"compute_batches_s", m.stages.compute_batches_s},
        {"bottleneck", m.stages.bottleneck},
        {"efficiency", m.stages.efficiency}}}};
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& p : r.worker_placement) workers.push_back(placement_to_json(p));
  nlohmann::json contention = nlohmann::json::array();
  for (const auto& c : r.contention) contention.push_back(task_json(c));
  nlohmann::json image = r.image_width ? nlohmann::json(fmt::format("{}x{}", r.image_width, r.image_height)) : nlohmann::json();
  return {{"schema_version", 1},
          {"workload", "pipeline"},
          {"backend", r.backend},
          {"backend_reason", r.backend_reason},
          {"status", r.status},
          {"error", r.error.empty() ? nlohmann::json() : nlohmann::json(r.error)},
          {"config",
           {{"arm", r.arm}, {"workers", r.workers}, {"prefetch", r.prefetch}, {"ring", r.ring}, {"decode", r.decode},
            {"batch_bytes", r.batch_bytes}, {"batch_samples", r.batch_samples}, {"image", image},
            {"dataset_bytes", r.dataset_bytes}, {"cpu_work_ns_per_kib", r.cpu_work_ns_per_kib},
            {"step_compute_ns", static_cast<std::int64_t>(r.step_compute_s * 1e9)}, {"steps", r.steps_requested},
            {"warmup", r.warmup}, {"stall_timeout_s", r.stall_timeout_s}}},
          {"steps", steps},
          {"summary", summary},
          {"placement",
           {{"workers", workers}, {"ring", placement_to_json(r.ring_placement)}, {"loop", placement_to_json(r.loop_placement)}}},
          {"contention", contention}};
}

std::string render_pipeline_table(const PipelineResult& r) {
  const PipelineSummary& m = r.summary;
  std::string shape = r.image_width ? fmt::format("{} x {}x{}", r.batch_samples, r.image_width, r.image_height)
                                    : fmt::format("{} samples", r.batch_samples);
  std::string out = fmt::format("Backend: {} ({})\n", r.backend, r.backend_reason);
  out += fmt::format("Pipeline: arm {}, {} worker(s), prefetch {}, ring {}, batch {} ({}), decode {}, step compute {}\n", r.arm,
                     r.workers, r.prefetch, r.ring, format_size(r.batch_bytes), shape, r.decode, format_ns(r.step_compute_s * 1e9));
  out += fmt::format("Steps: {} measured of {} ({} warm-up){}\n\n", m.steps, r.steps_requested, r.warmup,
                     r.status == "ok" ? "" : "  [" + r.status + "]");
  out += fmt::format("{:<10} {:>12} {:>12}\n", "", "median", "p99");
  out += fmt::format("{:<10} {:>12} {:>12}\n", "step", format_ns(m.step_ns_median), format_ns(m.step_ns_p99));
  out += fmt::format("{:<10} {:>12} {:>12}\n", "wait", format_ns(m.wait_ns_median), format_ns(m.wait_ns_p99));
  out += fmt::format("{:<10} {:>12}\n", "h2d", format_ns(m.h2d_ns_median));
  out += fmt::format("{:<10} {:>12}\n\n", "compute", format_ns(m.compute_ns_median));
  out += fmt::format("Throughput:   {:.0f} samples/s, {:.3f} GB/s (10^9 bytes/s)\n", m.throughput_samples_s, m.throughput_bytes_s / 1e9);
  out += fmt::format("Input-bound:  {:.1f}% ({} input-bound; wait {:.1f}%)\n", m.input_bound_pct, m.input_bound_class, m.wait_pct);
  out += fmt::format("Stage rates:  producers {:.1f}, copy {:.1f}, compute {:.1f} batches/s; bottleneck {}, pipeline at {:.0f}% of it\n",
                     m.stages.producers_batches_s, m.stages.copy_batches_s, m.stages.compute_batches_s, m.stages.bottleneck,
                     m.stages.efficiency * 100);
  out += fmt::format("Workers:      CPU util {:.0f}%, CPU time {}\n", m.cpu_util * 100, format_ns(static_cast<double>(m.worker_cpu_ns)));
  out += fmt::format("Queue depth:  mean {:.2f} of {}\n", m.queue_depth_mean, r.prefetch);
  out += fmt::format("Memory:       peak RSS {}, pinned {}, page faults {} minor / {} major\n",
                     format_size(static_cast<std::uint64_t>(m.peak_rss_bytes)), format_size(static_cast<std::uint64_t>(m.pinned_bytes)),
                     m.minor_faults, m.major_faults);
  for (std::size_t w = 0; w < r.worker_placement.size(); ++w)
    out += placement_line("worker " + std::to_string(w), r.worker_placement[w]);
  out += placement_line("training loop", r.loop_placement);
  out += fmt::format("Placement:    ring memory {}: {} ({:.1f}% of pages on the requested nodes)\n",
                     r.ring_placement.requested_mems.empty() ? "(default)" : hostpipe::format_cpulist(r.ring_placement.requested_mems),
                     r.ring_placement.status, r.ring_placement.requested_pages_pct);
  for (const auto& c : r.contention) {
    bool stream = c.task.kind == hostpipe::ContentionTask::Kind::kStream;
    out += fmt::format("Contention:   {} {}{}{}\n", stream ? "stream on node" : "spin on CPUs",
                       stream ? hostpipe::format_cpulist(c.task.mem_nodes) : hostpipe::format_cpulist(c.task.cpus),
                       stream ? fmt::format(", {:.2f} GB/s", c.gbps()) : "", c.problem.empty() ? "" : " (" + c.problem + ")");
  }
  if (!r.error.empty()) out += "Error:        " + r.error + "\n";
  return out;
}

}  // namespace placebench::harness
