// Reading `decide` inputs: decision blocks (JSON from run.json, YAML from a config) and run directories.
#include "placebench/harness/decisions/decide_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "placebench/harness/errors.h"
#include "placebench/harness/runner/run_directory.h"
#include "placebench/harness/units.h"

namespace placebench::harness::decisions {
namespace {

using nlohmann::json;

const std::set<std::string> kDecisionKeys = {"job_length", "gpus_per_job", "queue", "objective", "rate_per_gpu_hour",
                                              "p_remote_any", "p_local_prefer", "any_arm"};
constexpr const char* kAccepted =
    "job_length, gpus_per_job, queue {strict, prefer, any}, objective, rate_per_gpu_hour, p_remote_any, "
    "p_local_prefer, any_arm";

double number_in(double v, double lo, double hi, const std::string& where, const std::string& what) {
  if (!(v >= lo && v <= hi))
    throw InputError(fmt::format("{}: {} must lie in [{:g}, {:g}], got {:g}", where, what, lo, hi, v));
  return v;
}

int positive_int(double v, const std::string& where) {
  if (!(v >= 1 && v == static_cast<int>(v)))
    throw InputError(fmt::format("{}: must be a whole number >= 1, got {:g}", where, v));
  return static_cast<int>(v);
}

// ---- JSON (run.json) ----

double json_duration(const json& v, const std::string& where) {
  if (v.is_string()) return parse_duration_s(v.get<std::string>(), where);
  if (v.is_number() && v.get<double>() >= 0) return v.get<double>();
  throw InputError(fmt::format("{}: expected a duration such as \"90s\", \"36m\", \"2h\" (or seconds)", where));
}

double json_number(const json& v, const std::string& where) {
  if (!v.is_number()) throw InputError(fmt::format("{}: expected a number", where));
  return v.get<double>();
}

// ---- YAML (configs) ----

std::string yaml_where(const std::string& file, const YAML::Node& node, const std::string& key) {
  return fmt::format("{}:{}: {}", file, node.Mark().line + 1, key);
}

double yaml_number(const YAML::Node& v, const std::string& where) {
  try {
    return v.as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(fmt::format("{}: expected a number", where));
  }
}

double yaml_duration(const YAML::Node& v, const std::string& where) {
  if (!v.IsScalar()) throw InputError(fmt::format("{}: expected a duration such as 90s, 36m, 2h", where));
  return parse_duration_s(v.Scalar(), where);
}

// nlohmann's message without its "[json.exception.type_error.302] " prefix.
std::string json_problem(const json::exception& e) {
  std::string what = e.what();
  auto end = what.find("] ");
  return end == std::string::npos ? what : what.substr(end + 2);
}

const json& require(const json& obj, const std::string& key, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key))
    throw InputError(fmt::format("{}: missing key '{}'", where, key));
  return obj.at(key);
}

// A throughput class's ratio (+ = more steps per second) as the execution-time ratio decide weighs:
// the same work at throughput x (1 + t) takes 1 / (1 + t) as long. Decreasing, so the CI bounds swap.
void as_execution_time(RemoteRatio& r) {
  auto time_pct = [](double t) { return 100.0 * (1.0 / (1.0 + t / 100.0) - 1.0); };
  r.throughput_pct = r.pct;
  r.pct = time_pct(r.pct);
  if (r.lo_pct && r.hi_pct) {
    double lo = time_pct(*r.hi_pct), hi = time_pct(*r.lo_pct);
    r.lo_pct = lo;
    r.hi_pct = hi;
  }
}

}  // namespace

DecisionSpec parse_decision_json(const json& block, const std::string& where) {
  if (!block.is_object()) throw InputError(fmt::format("{}: expected an object with {}", where, kAccepted));
  for (const auto& [key, value] : block.items())
    if (!kDecisionKeys.count(key))
      throw InputError(fmt::format("{}.{}: unknown key; accepted: {}", where, key, kAccepted));
  DecisionSpec s;
  s.job_length_s = json_duration(require(block, "job_length", where), where + ".job_length");
  if (s.job_length_s <= 0) throw InputError(fmt::format("{}.job_length: must be > 0", where));
  s.gpus_per_job = positive_int(json_number(require(block, "gpus_per_job", where), where + ".gpus_per_job"),
                                where + ".gpus_per_job");
  const json& queue = require(block, "queue", where);
  if (!queue.is_object()) throw InputError(fmt::format("{}.queue: expected {{strict, prefer, any}} durations", where));
  for (const auto& [key, value] : queue.items())
    if (key != "strict" && key != "prefer" && key != "any")
      throw InputError(fmt::format("{}.queue.{}: unknown policy; accepted: strict, prefer, any", where, key));
  for (Policy p : kPolicies) {
    std::string key(policy_name(p));
    s.queue_s[static_cast<std::size_t>(p)] = json_duration(require(queue, key, where + ".queue"), where + ".queue." + key);
  }
  if (block.contains("objective")) {
    const json& o = block["objective"];
    std::string text = o.is_string() ? o.get<std::string>() : o.is_number() ? fmt::format("{:g}", o.get<double>()) : "";
    s.objective = parse_objective(text, where + ".objective");
  }
  if (block.contains("rate_per_gpu_hour"))
    s.rate_per_gpu_hour = number_in(json_number(block["rate_per_gpu_hour"], where + ".rate_per_gpu_hour"), 0, 1e12,
                                    where + ".rate_per_gpu_hour", "the rate");
  for (auto [key, field] : {std::pair{"p_remote_any", &s.p_remote_any}, std::pair{"p_local_prefer", &s.p_local_prefer}})
    if (block.contains(key))
      *field = number_in(json_number(block[key], where + "." + key), 0, 1, where + "." + key, "a probability");
  if (block.contains("any_arm")) {
    if (!block["any_arm"].is_string()) throw InputError(fmt::format("{}.any_arm: expected an arm name", where));
    s.any_arm = block["any_arm"].get<std::string>();
  }
  return s;
}

DecisionSpec parse_decision_yaml(const YAML::Node& block, const std::string& file) {
  if (!block.IsMap())
    throw InputError(fmt::format("{}: decision: expected a mapping with {}", yaml_where(file, block, "decision"), kAccepted));
  for (const auto& kv : block) {
    std::string key = kv.first.as<std::string>();
    if (!kDecisionKeys.count(key))
      throw InputError(fmt::format("{}: unknown key; accepted: {}", yaml_where(file, kv.first, "decision." + key), kAccepted));
  }
  auto need = [&](const YAML::Node& parent, const std::string& key, const std::string& path) {
    if (!parent[key]) throw InputError(fmt::format("{}: missing key '{}'", yaml_where(file, parent, path), key));
    return parent[key];
  };
  auto at = [&](const YAML::Node& n, const std::string& key) { return yaml_where(file, n, key); };
  DecisionSpec s;
  YAML::Node v = need(block, "job_length", "decision");
  s.job_length_s = yaml_duration(v, at(v, "decision.job_length"));
  if (s.job_length_s <= 0) throw InputError(fmt::format("{}: must be > 0", at(v, "decision.job_length")));
  v = need(block, "gpus_per_job", "decision");
  s.gpus_per_job = positive_int(yaml_number(v, at(v, "decision.gpus_per_job")), at(v, "decision.gpus_per_job"));
  YAML::Node queue = need(block, "queue", "decision");
  if (!queue.IsMap()) throw InputError(fmt::format("{}: expected {{strict, prefer, any}} durations", at(queue, "decision.queue")));
  for (const auto& kv : queue) {
    std::string key = kv.first.as<std::string>();
    if (key != "strict" && key != "prefer" && key != "any")
      throw InputError(fmt::format("{}: unknown policy; accepted: strict, prefer, any", at(kv.first, "decision.queue." + key)));
  }
  for (Policy p : kPolicies) {
    std::string key(policy_name(p));
    YAML::Node q = need(queue, key, "decision.queue");
    s.queue_s[static_cast<std::size_t>(p)] = yaml_duration(q, at(q, "decision.queue." + key));
  }
  if (YAML::Node o = block["objective"]) s.objective = parse_objective(o.IsScalar() ? o.Scalar() : "", at(o, "decision.objective"));
  if (YAML::Node r = block["rate_per_gpu_hour"])
    s.rate_per_gpu_hour = number_in(yaml_number(r, at(r, "decision.rate_per_gpu_hour")), 0, 1e12,
                                    at(r, "decision.rate_per_gpu_hour"), "the rate");
  for (auto [key, field] : {std::pair{"p_remote_any", &s.p_remote_any}, std::pair{"p_local_prefer", &s.p_local_prefer}})
    if (YAML::Node p = block[key])
      *field = number_in(yaml_number(p, at(p, std::string("decision.") + key)), 0, 1, at(p, std::string("decision.") + key),
                         "a probability");
  if (YAML::Node a = block["any_arm"]) s.any_arm = a.as<std::string>();
  return s;
}

ClassInput make_class_input(const std::string& name, const DecisionSpec& spec, const RemoteRatio& remote,
                            const DecideOverrides& overrides) {
  ClassInput in;
  in.name = name;
  in.job_length_min = spec.job_length_s / 60.0;
  in.gpus_per_job = spec.gpus_per_job;
  for (std::size_t i = 0; i < 3; ++i) in.queue_min[i] = spec.queue_s[i] / 60.0;
  in.objective = overrides.objective.value_or(spec.objective);
  in.rate_per_gpu_hour = overrides.rate_per_gpu_hour ? overrides.rate_per_gpu_hour : spec.rate_per_gpu_hour;
  in.p_remote_any = overrides.p_remote_any.value_or(spec.p_remote_any.value_or(1.0));
  in.p_local_prefer = overrides.p_local_prefer.value_or(spec.p_local_prefer.value_or(0.5));
  in.remote = remote;
  return in;
}

namespace {

// The decision block of a class in the run's config copy (run.json), or null.
const json* decision_block(const json& run, const std::string& name, std::string& where) {
  const json& classes = run.at("config").at("classes");
  for (std::size_t k = 0; k < classes.size(); ++k)
    if (classes[k].at("name") == name && classes[k].contains("decision") && !classes[k]["decision"].is_null()) {
      where = fmt::format("config.classes[{}].decision", k);
      return &classes[k]["decision"];
    }
  return nullptr;
}

// summary.json and run.json through their one reader each (RunDirectory: schema versions and every
// field checked), then one decision per class from the `any` arm's ratio against local.
DecideReport decide_from_files(const std::string& dir, const DecideOverrides& overrides) {
  RunDirectory rd = RunDirectory::open(dir);
  const RunSummary summary = rd.read_summary();
  const std::string rw = (std::filesystem::path(dir) / "run.json").string();
  DecideReport report;
  report.source = dir;
  for (const ClassAnalysis& c : summary.classes) {
    std::string dw;
    const json* decision = decision_block(rd.run(), c.name, dw);
    if (!decision) {
      report.classes.push_back(undecidable_class(
          c.name, fmt::format("{} has no decision block for it under config.classes; add decision: {{job_length, "
                              "gpus_per_job, queue: {{strict, prefer, any}}, objective}} to the class's config",
                              rw)));
      continue;
    }
    DecisionSpec spec = parse_decision_json(*decision, rw + ": " + dw);
    const std::string any_arm = overrides.any_arm.value_or(spec.any_arm);
    if (c.baseline != "local") {
      report.classes.push_back(undecidable_class(
          c.name, fmt::format("its ratios are against '{}', and decide needs them against local; rerun with baseline: "
                              "local", c.baseline)));
      continue;
    }
    auto arm = std::find_if(c.arms.begin(), c.arms.end(), [&](const ArmAnalysis& a) { return a.arm == any_arm; });
    if (arm == c.arms.end()) {
      report.classes.push_back(undecidable_class(
          c.name, fmt::format("it has no '{}' arm, whose ratio against local is what `any` placement costs; add the "
                              "arm to the class or name another with decision.any_arm / --any-arm", any_arm)));
      continue;
    }
    if (arm->role == "control" || arm->role == "unrealised") {
      report.classes.push_back(undecidable_class(
          c.name, fmt::format("the '{}' arm was not realised ({}), so its ratio says nothing about that placement; "
                              "decide on a run from a node where it can be realised", any_arm, arm->unrealised_reason)));
      continue;
    }
    if (!arm->compared) {
      report.classes.push_back(undecidable_class(
          c.name, fmt::format("the '{}' arm has no ratio yet (ratio_pct is null); run more rounds", any_arm)));
      continue;
    }
    RemoteRatio r;
    r.arm = any_arm;
    r.pct = arm->ratio_pct;
    r.lo_pct = arm->ratio_lo;
    r.hi_pct = arm->ratio_hi;
    if (!(r.pct > -100 && *r.lo_pct > -100 && *r.lo_pct <= r.pct && r.pct <= *r.hi_pct))
      throw InputError(fmt::format("{}/summary.json: class {}: arm {}: ratio_ci_pct: expected [lo, hi] with -100 < lo <= "
                                   "ratio_pct <= hi; rebuild it with `placebench compare {} --write-summary`",
                                   dir, c.name, any_arm, dir));
    if (c.statistic == "throughput") as_execution_time(r);
    r.verdict = arm->verdict;
    r.n_rounds = arm->n_rounds;
    report.classes.push_back(decide_class(make_class_input(c.name, spec, r, overrides)));
  }
  return report;
}

}  // namespace

DecideReport decide_run_directory(const std::string& dir, const DecideOverrides& overrides) {
  try {
    return decide_from_files(dir, overrides);
  } catch (const json::exception& e) {  // a value read above of another type than expected: a damaged file
    throw InputError(fmt::format("{}: summary.json or run.json holds a value of the wrong type ({}); restore run.json, "
                                 "or rebuild summary.json with `placebench compare {} --write-summary`",
                                 dir, json_problem(e), dir));
  }
}

}  // namespace placebench::harness::decisions
