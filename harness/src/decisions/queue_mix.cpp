// Reading a job mix for `placebench queue` (YAML, validated like the other configs: unknown keys, ranges and
// types are InputErrors "FILE:LINE: KEY: problem; fix").
#include <fmt/format.h>

#include <set>

#include "placebench/harness/decisions/queue_replay.h"
#include "placebench/harness/errors.h"
#include "placebench/harness/input_limits.h"
#include "placebench/harness/units.h"
#include "placebench/harness/yaml_check.h"

namespace placebench::harness::decisions {
namespace {

constexpr double kMaxArrivalsPerHour = 1e4;
constexpr int kMaxJobs = 1'000'000;

double duration(const detail::YamlContext& ctx, const YAML::Node& node, const std::string& key) {
  std::string text = ctx.text(node, key);
  double s = 0;
  try {
    s = parse_duration_s(text, fmt::format("{}:{}: {}", ctx.file, node.Mark().line + 1, key), kSecondsPerYear);
  } catch (const InputError&) {
    ctx.fail(node, key, fmt::format("'{}' is not a duration up to 8760h (90s, 36m, 2h, or seconds)", text));
  }
  if (!(s > 0)) ctx.fail(node, key, "must be > 0");
  return s;
}

WorkloadClass read_class(const detail::YamlContext& ctx, const YAML::Node& c, const std::string& at) {
  ctx.check_keys(c, at, {"name", "arrivals_per_hour", "workers", "gpus_per_worker", "cpus_per_worker", "duration",
                         "duration_remote", "remote_slowdown_pct"});
  WorkloadClass w;
  auto need = [&](const char* key) {
    if (!c[key]) ctx.fail(c, at, fmt::format("missing key '{}'", key));
    return c[key];
  };
  w.name = ctx.text(need("name"), at + ".name");
  if (w.name.empty()) ctx.fail(c["name"], at + ".name", "empty; give the class a name");
  w.arrivals_per_hour = ctx.number(need("arrivals_per_hour"), at + ".arrivals_per_hour", 1e-6, kMaxArrivalsPerHour);
  if (c["workers"]) w.workers = static_cast<int>(ctx.integer(c["workers"], at + ".workers", 1, 4096));
  w.gpus_per_worker = static_cast<int>(ctx.integer(need("gpus_per_worker"), at + ".gpus_per_worker", 1, 1024));
  if (c["cpus_per_worker"]) w.cpus_per_worker = static_cast<int>(ctx.integer(c["cpus_per_worker"], at + ".cpus_per_worker", 0, 1 << 20));
  w.duration_s = duration(ctx, need("duration"), at + ".duration");
  if (c["duration_remote"] && c["remote_slowdown_pct"])
    ctx.fail(c["remote_slowdown_pct"], at + ".remote_slowdown_pct", "give duration_remote or remote_slowdown_pct, not both");
  if (c["duration_remote"]) w.duration_remote_s = duration(ctx, c["duration_remote"], at + ".duration_remote");
  else if (c["remote_slowdown_pct"])
    w.duration_remote_s = w.duration_s * (1 + ctx.number(c["remote_slowdown_pct"], at + ".remote_slowdown_pct", -99, 1000) / 100);
  else
    ctx.fail(c, at, "missing key 'duration_remote' (or remote_slowdown_pct): the execution time when a worker is not local");
  return w;
}

}  // namespace

JobMix parse_job_mix(const std::string& text, const std::string& file) {
  YAML::Node root = detail::load_yaml_document(text, file);
  detail::YamlContext ctx{file};
  if (!root.IsMap()) ctx.fail(root, "", "expected a mapping with seed, horizon, drain and classes");
  JobMix mix;
  mix.file = file;
  try {
    ctx.check_keys(root, "", {"seed", "horizon", "drain", "classes"});
    if (root["seed"]) mix.seed = static_cast<std::uint64_t>(ctx.integer(root["seed"], "seed", 0, (1ll << 62)));
    if (root["horizon"]) mix.horizon_s = duration(ctx, root["horizon"], "horizon");
    mix.drain_s = root["drain"] ? duration(ctx, root["drain"], "drain") : mix.horizon_s;
    const YAML::Node classes = root["classes"];
    if (!classes || !classes.IsSequence() || classes.size() == 0)
      ctx.fail(classes ? classes : root, "classes", "expected a non-empty list of {name, arrivals_per_hour, gpus_per_worker, duration, duration_remote}");
    std::set<std::string> names;
    double expected_jobs = 0;
    for (std::size_t i = 0; i < classes.size(); ++i) {
      WorkloadClass w = read_class(ctx, classes[i], fmt::format("classes[{}]", i));
      if (!names.insert(w.name).second) ctx.fail(classes[i]["name"], fmt::format("classes[{}].name", i), fmt::format("class '{}' is listed twice", w.name));
      expected_jobs += w.arrivals_per_hour * mix.horizon_s / 3600;
      mix.classes.push_back(w);
    }
    if (expected_jobs > kMaxJobs)
      ctx.fail(root["horizon"] ? root["horizon"] : root, "horizon",
               fmt::format("about {:.0f} jobs would arrive; at most {} are replayed: shorten the horizon or lower the rates", expected_jobs, kMaxJobs));
  } catch (const YAML::Exception& e) {
    detail::throw_yaml_input_error(e, file);
  }
  return mix;
}

JobMix load_job_mix(const std::string& file) {
  return parse_job_mix(read_input_file(file, "give --mix a YAML job mix like configs/queue/job-mix.yaml", kMaxConfigBytes), file);
}

}  // namespace placebench::harness::decisions
